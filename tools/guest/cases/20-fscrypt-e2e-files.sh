# SPDX-License-Identifier: GPL-2.0
# End to end (E2E_FS, default btrfs): a v2 policy with the default modes
# (AES-256-XTS contents, AES-256-CTS names) on an empty directory; files of
# 0 B to 64 MiB, nested directories, symlinks and a hard link in it read back
# byte for byte from the page cache, from disk, and after unmount, mount and
# adding the key again.
. /lib/test.sh

e2e_begin
enc=$MNT/enc
e2e_encrypt "$enc"
cat /tmp/policy
grep -qx "version 2" /tmp/policy || fail "policy version"
grep -qx "contents aes-256-xts" /tmp/policy || fail "contents mode"
grep -qx "filenames aes-256-cts" /tmp/policy || fail "filenames mode"
grep -qx "flags none" /tmp/policy || fail "policy flags"

step "files of 0 B to 64 MiB, nested directories, symlinks, a hard link"
e2e_make_ref 0 1 4095 4096 1048577 67108864
e2e_copy_ref "$enc"
e2e_check_tree "$enc"

step "read back from disk (caches dropped)"
drop_caches
e2e_check_tree "$enc"

step "unmount and mount: the key is gone, then added again"
e2e_umount
e2e_mount
[ "$(fscrypt-ioctl key-status "$MNT" "$KEYID" | head -n 1)" = absent ] ||
	fail "the key outlived the unmount"
ls "$enc" | grep -qx f4096 && fail "a plaintext name is listed without the key"
keyid=$KEYID
e2e_add_key
[ "$KEYID" = "$keyid" ] || fail "the same key has another identifier: $KEYID"
e2e_check_tree "$enc"
e2e_umount

# SPDX-License-Identifier: GPL-2.0
# The fscrypt policy and key ioctls on btrfs: policies are stored in inode
# context items and survive a remount, on a filesystem made with the encrypt
# feature (case 07: the opt-in), the policies btrfs cannot use are refused with a kernel
# message, and a snapshot of an unencrypted subvolume created in an
# encrypted directory is refused with EXDEV (new subvolumes there: case 28).
. /lib/test.sh

mkfs_btrfs_encrypt "$DISK1"
mount_btrfs "$DISK1"
fsid=$(ls /sys/fs/btrfs | grep -E '^[0-9a-f-]{36}$' | head -n 1)
mkdir "$MNT/enc" "$MNT/adiantum" "$MNT/v1" "$MNT/lblk" "$MNT/full"
echo data >"$MNT/full/file"
head -c 64 /dev/urandom >/tmp/key

step "add a key, set and read back a v2 policy"
keyid=$(fscrypt-ioctl add-key "$MNT" </tmp/key)
[ ${#keyid} = 32 ] || fail "add-key printed '$keyid'"
[ "$(fscrypt-ioctl key-status "$MNT" "$keyid" | head -1)" = present ] || fail "key not present"
[ "$(cat "/sys/fs/btrfs/$fsid/features/encrypt")" = 1 ] || fail "mkfs -O encrypt did not enable encryption"
expect_errno ENOTEMPTY set-policy "$MNT/full" "$keyid"
fscrypt-ioctl set-policy "$MNT/enc" "$keyid"
fscrypt-ioctl get-policy "$MNT/enc" >/tmp/policy
cat /tmp/policy
grep -qx "version 2" /tmp/policy || fail "policy version"
grep -qx "contents aes-256-xts" /tmp/policy || fail "contents mode"
grep -qx "filenames aes-256-cts" /tmp/policy || fail "filenames mode"
grep -qx "key $keyid" /tmp/policy || fail "key identifier"
fscrypt-ioctl get-flags "$MNT/enc" | grep -q encrypt || fail "no encrypt flag on the directory"
nonce=$(fscrypt-ioctl get-nonce "$MNT/enc")
[ ${#nonce} = 32 ] || fail "nonce '$nonce' is not 16 bytes"
expect_errno ENODATA get-nonce "$MNT/full/file"
expect_errno EEXIST set-policy "$MNT/enc" 00112233445566778899aabbccddeeff

step "policies btrfs refuses, with a kernel message"
expect_errno ENOTEMPTY set-policy "$MNT/full" "$keyid"
dmesg_mark
expect_errno EINVAL set-policy "$MNT/v1" 0011223344556677
dmesg_since | grep -q "Can't use v1 policy.*per extent" || fail "no kernel message for v1: $(dmesg_since | tail -n 3)"
expect_errno EINVAL set-policy "$MNT/lblk" "$keyid" --flags=iv_ino_lblk_64
dmesg_since | grep -q "Can't use IV_INO_LBLK_64 policy" || fail "no kernel message for IV_INO_LBLK_64"
expect_errno EINVAL set-policy "$MNT/lblk" "$keyid" --flags=iv_ino_lblk_32
fscrypt-ioctl set-policy "$MNT/adiantum" "$keyid" --contents=adiantum \
	--filenames=adiantum --flags=direct_key
btrfs subvolume create "$MNT/sub" >/dev/null
# A subvolume's root directory takes a policy when empty (case 26).
expect_errno ENOTEMPTY set-policy "$MNT" "$keyid"

step "a snapshot of an unencrypted subvolume in an encrypted directory is refused"
# Its files would be unencrypted there (new subvolumes there: case 28;
# snapshots of encrypted subvolumes: case 26).
dmesg_mark
btrfs subvolume snapshot "$MNT" "$MNT/enc/snap" 2>/tmp/err && fail "snapshot created in an encrypted directory"
grep -q "cross-device" /tmp/err || fail "snapshot did not fail with EXDEV: $(cat /tmp/err)"
[ -z "$(ls -A "$MNT/enc")" ] || fail "something was added: $(ls -A "$MNT/enc")"
dmesg_since | grep -q "snapshot of unencrypted subvolume 5 cannot be created in encrypted directory" ||
	fail "no kernel message for the refusal"

step "the policy survives a remount, also without the key"
# Negative dentries under enc/ pin its key; drop them so that the key can be
# removed completely.
drop_caches
fscrypt-ioctl remove-key "$MNT" "$keyid"
[ "$(fscrypt-ioctl key-status "$MNT" "$keyid" | head -1)" = absent ] || fail "key still present"
umount "$MNT"
mount_btrfs "$DISK1"
fscrypt-ioctl get-policy "$MNT/enc" | grep -qx "key $keyid" || fail "policy lost"
fscrypt-ioctl get-policy "$MNT/adiantum" | grep -qx "flags direct_key" ||
	fscrypt-ioctl get-policy "$MNT/adiantum" | grep -q "direct_key" || fail "DIRECT_KEY policy lost"
[ "$(cat "/sys/fs/btrfs/$fsid/features/encrypt")" = 1 ] || fail "encrypt feature lost"
[ "$(stat -c %s "$MNT/full/file")" = 5 ] || fail "the unencrypted file changed"

step "an empty encrypted directory can be removed"
rmdir "$MNT/enc" "$MNT/adiantum"

step "a snapshot of a subvolume keeps its encrypted directory's policy"
fscrypt-ioctl add-key "$MNT" </tmp/key >/dev/null
mkdir "$MNT/sub/d" "$MNT/sub/e"
fscrypt-ioctl set-policy "$MNT/sub/d" "$keyid"
btrfs subvolume snapshot "$MNT/sub" "$MNT/sub-snap" >/dev/null
btrfs subvolume snapshot -r "$MNT/sub" "$MNT/sub-ro" >/dev/null
expect_errno EROFS set-policy "$MNT/sub-ro/e" "$keyid"
fscrypt-ioctl get-policy "$MNT/sub-snap/d" | grep -qx "key $keyid" ||
	fail "the snapshot's directory lost its policy"
fscrypt-ioctl get-flags "$MNT/sub-snap/d" | grep -q encrypt || fail "no encrypt flag in the snapshot"
echo in-snapshot >"$MNT/sub-snap/d/file"
fscrypt-ioctl get-flags "$MNT/sub-snap/d/file" | grep -q encrypt ||
	fail "a file created in the snapshot's encrypted directory is not encrypted"
[ "$(cat "$MNT/sub-snap/d/file")" = in-snapshot ] || fail "the file does not read back"
rm "$MNT/sub-snap/d/file"
rmdir "$MNT/sub-snap/d"

step "a read-only mount refuses new policies"
mkdir "$MNT/late"
umount "$MNT"
mount_btrfs "$DISK1" "$MNT" ro
expect_errno EROFS set-policy "$MNT/late" "$keyid"
umount "$MNT"

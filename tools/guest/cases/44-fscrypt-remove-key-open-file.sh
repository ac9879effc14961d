# SPDX-License-Identifier: GPL-2.0
# End to end (E2E_FS, default btrfs): removing the key of a file that is
# open. A file of an encrypted directory is open (for appending, for reading
# and writing, and for reading) when FS_IOC_REMOVE_ENCRYPTION_KEY removes
# its key: the removal reports the files still busy, the key is
# "incompletely removed", and new files can no longer be created. Through
# the open descriptors the file goes on working: 300000 bytes appended (new
# extents, whose keys are derived after the removal), 12288 bytes
# overwritten in place, an fsync; with the page cache dropped, it reads back
# through the open descriptor with all of that. Once the descriptors are
# closed and the inodes evicted (drop_caches), the key is absent and the
# file unreadable; with the key added again the file reads back with the
# data written after the removal, also after a remount, its extents are
# encrypted with the key (btrfs), and no plaintext of the appended data is
# on the disk.
. /lib/test.sh

e2e_begin 128
enc=$MNT/enc
e2e_encrypt "$enc"

step "a file in $enc, synced, open three times"
mkdir -p "$REF"
random_file "$REF/f" 200000
cp "$REF/f" "$enc/f"
random_file "$REF/g" 5000
cp "$REF/g" "$enc/g"
sync
exec 3>>"$enc/f" 4<>"$enc/f" 5<"$enc/f"

step "remove the key while the file is open"
out=$(fscrypt-ioctl remove-key "$MNT" "$KEYID")
echo "remove-key: $out"
[ "$out" = "files still busy" ] || fail "remove-key with an open file: '$out', expected 'files still busy'"
status=$(fscrypt-ioctl key-status "$MNT" "$KEYID" | head -n 1)
[ "$status" = "incompletely removed" ] || fail "key status with an open file: '$status'"
echo "ok: key incompletely removed"
expect_enokey touch "$enc/new"

step "append, overwrite in place and fsync through the open descriptors"
# Marker lines, to look for on the disk; none is written unencrypted.
marker_file /tmp/append 300000 appended-after-key-removal-44
cat /tmp/append >>"$REF/f"
cat /tmp/append >&3
random_file /tmp/patch 12288
dd if=/tmp/patch of="$REF/f" bs=4096 seek=10 conv=notrunc 2>/dev/null
# dd writes to its stdout, descriptor 4 (at offset 0): seek= moves it.
dd if=/tmp/patch bs=4096 seek=10 >&4 2>/dev/null
fscrypt-ioctl fsync-fd 3
fscrypt-ioctl fsync-fd 4
[ "$(stat -c %s "$enc/f")" = "$(stat -c %s "$REF/f")" ] ||
	fail "size $(stat -c %s "$enc/f") after the writes, expected $(stat -c %s "$REF/f")"
status=$(fscrypt-ioctl key-status "$MNT" "$KEYID" | head -n 1)
[ "$status" = "incompletely removed" ] || fail "key status after the writes: '$status'"

step "page cache dropped, the file read through the open descriptor"
sync
echo 1 >/proc/sys/vm/drop_caches
sha256sum <&5 >/tmp/sum.open
[ "$(cut -d ' ' -f 1 /tmp/sum.open)" = "$(sha256sum <"$REF/f" | cut -d ' ' -f 1)" ] ||
	fail "the open file does not read back as written after the key removal"
echo "ok: read back through the open descriptor"

step "descriptors closed, inodes evicted: the key is absent"
exec 3>&- 4>&- 5<&-
sync
echo 2 >/proc/sys/vm/drop_caches
status=$(fscrypt-ioctl key-status "$MNT" "$KEYID" | head -n 1)
[ "$status" = absent ] ||
	fail "key status once the file is closed and evicted: '$status' ($(fscrypt-ioctl --print-errno remove-key "$MNT" "$KEYID" 2>&1 | tr '\n' ' ')on a second remove-key)"
[ "$(ls "$enc" | wc -l)" = 2 ] || fail "$(ls "$enc" | wc -l) entries listed without the key"
ls "$enc" | grep -qx -e f -e g && fail "plaintext names listed without the key"
expect_enokey cat "$enc/$(ls "$enc" | head -n 1)"

step "the key added again: the data written after the removal is there"
e2e_add_key
same_digests "$REF" "$enc"
touch "$enc/new"
rm "$enc/new"
is_btrfs && encrypted_extents "$enc/f"
# The scan finds this one, written unencrypted.
marker_file "$MNT/plain" 8192 plain-control-44
printf '%s\n' appended-after-key-removal-44 plain-control-44 >/tmp/markers

step "the same after unmount and mount"
e2e_umount
drop_caches
expect_scan 128 'plain-*'
e2e_mount
e2e_add_key
same_digests "$REF" "$enc"
e2e_umount

# SPDX-License-Identifier: GPL-2.0
# Files of awkward sizes read back identical: from the page cache, after the
# cache is dropped, and after unmount and mount.
. /lib/test.sh

mkdir -p "$REF/dir/sub"
for size in 0 1 4095 4096 4097 65536 1048577 8388608; do
	random_file "$REF/f$size" "$size"
done
random_file "$REF/dir/sub/nested" 12345

mkfs_btrfs "$DISK1"
mount_btrfs "$DISK1"
step "write and read back"
cp -a "$REF/." "$MNT/"
same_digests "$REF" "$MNT"
step "read back with a cold cache"
drop_caches
same_digests "$REF" "$MNT"
step "read back after unmount and mount"
umount "$MNT"
mount_btrfs "$DISK1"
same_digests "$REF" "$MNT"
[ "$(stat -c %s "$MNT/f1048577")" = 1048577 ] || fail "wrong size after remount"

step "overwrite the middle of a file, truncate another"
dd if=/dev/zero of="$REF/f65536" bs=1 seek=1000 count=3000 conv=notrunc 2>/dev/null
dd if=/dev/zero of="$MNT/f65536" bs=1 seek=1000 count=3000 conv=notrunc 2>/dev/null
truncate -s 5000 "$REF/f8388608" "$MNT/f8388608"
umount "$MNT"
mount_btrfs "$DISK1"
same_digests "$REF" "$MNT"

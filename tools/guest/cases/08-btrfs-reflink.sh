# SPDX-License-Identifier: GPL-2.0
# Reflinks (FICLONE) copy whole file extent items, which will carry an
# encrypted extent's context: the clone shares the extents, reads back
# identical before and after a remount, and the filesystem checks clean.
. /lib/test.sh

mkdir -p "$REF"
random_file "$REF/src" 3145728

mkfs_btrfs "$DISK1"
mount_btrfs "$DISK1"
cp "$REF/src" "$MNT/src"
sync

step "clone and read back"
fscrypt-ioctl clone "$MNT/src" "$MNT/clone"
cmp "$REF/src" "$MNT/clone" || fail "the clone differs from its source"

step "the two files share their extents"
btrfs filesystem du -s --raw "$MNT" >/tmp/du
cat /tmp/du
# Columns: total, exclusive, set shared. 3 MiB of data in two files shows
# 6 MiB in total and 3 MiB shared.
set -- $(tail -n 1 /tmp/du)
[ "$1" = 6291456 ] || fail "total $1, expected 6291456"
[ "$3" = 3145728 ] || fail "set shared $3, expected 3145728"

step "read back after unmount and mount"
umount "$MNT"
mount_btrfs "$DISK1"
cmp "$REF/src" "$MNT/clone" || fail "the clone differs after remount"
cmp "$REF/src" "$MNT/src" || fail "the source differs after remount"
umount "$MNT"
btrfs check --readonly "$DISK1" >/tmp/check 2>&1 || {
	cat /tmp/check
	fail "btrfs check found problems"
}

# SPDX-License-Identifier: GPL-2.0
# mkfs.btrfs makes a filesystem that the kernel mounts, lists and unmounts.
. /lib/test.sh

step "mkfs.btrfs on $DISK1"
mkfs_btrfs -L itest "$DISK1"
mount_btrfs "$DISK1"
grep -q " $MNT btrfs " /proc/mounts || fail "$MNT is not a btrfs mount"
btrfs filesystem show "$MNT" | grep -q "Label: 'itest'" || fail "label not shown"
touch "$MNT/hello"
[ -f "$MNT/hello" ] || fail "cannot create a file"
umount "$MNT"
grep -q " $MNT " /proc/mounts && fail "$MNT still mounted"

step "a second device: two-device RAID1 filesystem"
mkfs_btrfs -d raid1 -m raid1 "$DISK1" "$DISK2"
btrfs device scan >/dev/null
mount_btrfs "$DISK1"
btrfs filesystem df "$MNT" | grep -q "Data, RAID1" || fail "data is not RAID1"
umount "$MNT"

# SPDX-License-Identifier: GPL-2.0
# Unmount, mount read-only, remount read-write: data persists and a read-only
# mount refuses writes.
. /lib/test.sh

mkfs_btrfs "$DISK1"
mount_btrfs "$DISK1"
mkdir -p "$REF/rm"
random_file "$REF/rm/x" 300000
cp -a "$REF/rm/." "$MNT/"
umount "$MNT"

step "read-only mount"
mount_btrfs "$DISK1" "$MNT" ro
same_digests "$REF/rm" "$MNT"
must_fail touch "$MNT/y"
step "remount read-write"
mount -o remount,rw "$MNT"
touch "$MNT/y"
umount "$MNT"
mount_btrfs "$DISK1"
[ -f "$MNT/y" ] || fail "file created after remount is gone"

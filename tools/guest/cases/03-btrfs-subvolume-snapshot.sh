# SPDX-License-Identifier: GPL-2.0
# Subvolumes and snapshots: a snapshot keeps the data it was taken with while
# the original changes, and a read-only snapshot refuses writes.
. /lib/test.sh

mkfs_btrfs "$DISK1"
mount_btrfs "$DISK1"
btrfs subvolume create "$MNT/vol" >/dev/null
mkdir -p "$REF/snap"
random_file "$REF/snap/a" 200000
random_file "$REF/snap/b" 4096
cp -a "$REF/snap/." "$MNT/vol/"

step "snapshot, then change the original"
btrfs subvolume snapshot "$MNT/vol" "$MNT/snap" >/dev/null
btrfs subvolume snapshot -r "$MNT/vol" "$MNT/snap-ro" >/dev/null
random_file "$MNT/vol/a" 1000
rm "$MNT/vol/b"
echo new >"$MNT/vol/c"
same_digests "$REF/snap" "$MNT/snap"
same_digests "$REF/snap" "$MNT/snap-ro"
must_fail touch "$MNT/snap-ro/x"
btrfs subvolume list "$MNT" | grep -q 'path snap-ro$' || fail "snapshot not listed"

step "snapshots survive unmount and mount"
umount "$MNT"
mount_btrfs "$DISK1"
same_digests "$REF/snap" "$MNT/snap"
[ "$(cat "$MNT/vol/c")" = new ] || fail "original lost its change"
step "delete a snapshot"
btrfs subvolume delete "$MNT/snap" >/dev/null
[ -e "$MNT/snap" ] && fail "deleted snapshot still visible"
same_digests "$REF/snap" "$MNT/snap-ro"

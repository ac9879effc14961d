# SPDX-License-Identifier: GPL-2.0
# Read repair of a tree block on RAID1 metadata. One copy of a leaf of a
# directory with encrypted names is overwritten in part on its device; the
# names still list, and once a read picks the bad copy the kernel writes the
# good one back over it: that tree block and nothing else. After the
# repair both copies are the same again and the 48 KiB after the leaf on
# the repaired device are as they were. Where tree blocks are smaller than
# pages (ARCH=arm64-64k: 16 KiB leaves in 64 KiB pages) the leaf is one
# that does not start its page, which 6.1 repaired by writing a whole page
# from the leaf's offset: memory past the page, over the next blocks.
#
# btrfs 6.1 reads RAID1 from the mirror given by the reader's pid (pid % 2,
# read_policy "pid"), so the reads that must meet the bad copy come from
# processes whose pid picks its stripe; the filesystem is mounted noatime,
# so that nothing but the repair writes to it meanwhile.
. /lib/test.sh
E2E_FS=btrfs

name_failures
step "RAID1 metadata over $DISK1 and $DISK2, a directory of 401 encrypted names"
mkfs_btrfs_encrypt -m raid1 "$DISK1" "$DISK2"
mount_btrfs "$DISK1" "$MNT" "device=$DISK2"
head -c 64 /dev/urandom >"$E2E_KEY"
e2e_add_key
enc=$MNT/enc
e2e_encrypt "$enc"
long=$(name_of_length 60 n)
i=0
while [ $i -lt 400 ]; do
	: >"$enc/$i-$long"
	i=$((i + 1))
done
random_file "$enc/data" 65536
sync
btrfs filesystem show "$MNT" | awk '$1 == "devid" { print $2, $NF }' >/tmp/devs
fscrypt-ioctl chunks "$MNT" >/tmp/chunks
dir_ino=$(stat -c %i "$enc")
umount "$MNT"

step "a leaf of the directory's index, not at the start of a 64 KiB page"
btrfs inspect-internal dump-tree -t 5 "$DISK1" >/tmp/fstree
# readdir (ls) reads every leaf with DIR_INDEX items of the directory.
awk -v ino="$dir_ino" '$1 == "leaf" { cur = $2 }
	index($0, " key (" ino " DIR_INDEX ") && cur % 65536 != 0 { print cur; exit }' \
	/tmp/fstree >/tmp/leaf
leaf=$(cat /tmp/leaf)
[ -n "$leaf" ] || fail "no DIR_INDEX leaf off a 64 KiB boundary: $(grep -c '^leaf' /tmp/fstree) leaves"
awk -v b="$leaf" '$1 <= b && b < $1 + $2' /tmp/chunks >/tmp/chunk
read -r logical length profile devlen stripes </tmp/chunk || fail "no chunk holds $leaf"
[ "$profile" = metadata/raid1 ] || fail "leaf $leaf in a $profile chunk"
echo "$stripes" | tr ',' '\n' | while IFS=: read -r devid start; do
	echo "$(awk -v d="$devid" '$1 == d { print $2 }' /tmp/devs) $((start + leaf - logical))"
done >/tmp/copies
{ read -r dev_a at_a; read -r dev_b at_b; } </tmp/copies
# The copy on the chunk's first stripe is read by even pids.
echo "leaf $leaf: $dev_a at $at_a (stripe 0), $dev_b at $at_b (stripe 1)"
drop_caches
read_bytes "$dev_b" "$at_b" 16384 >/tmp/leaf.good
read_bytes "$dev_a" "$at_a" 16384 | cmp -s /tmp/leaf.good - || fail "the two copies of the leaf differ"
read_bytes "$dev_a" $((at_a + 16384)) 49152 >/tmp/after.a

step "overwrite 4 KiB in the middle of the copy on $dev_a; read it from stripe 0"
dd if=/dev/urandom of="$dev_a" bs=4096 count=1 seek=$((at_a + 8192)) oflag=seek_bytes \
	conv=notrunc,fsync 2>/dev/null
dmesg_mark
mount_btrfs "$DISK1" "$MNT" "device=$DISK2,noatime"
[ "$(cat /sys/fs/btrfs/*/read_policy 2>/dev/null | head -n 1)" = "[pid]" ] ||
	fail "read_policy is not pid: $(cat /sys/fs/btrfs/*/read_policy)"
drop_caches
# Names and inodes (ls -l): the leaves of the directory, read by one process
# with an even pid (exec keeps it), started again until it has one.
tries=0
until sh -c '[ $(($$ % 2)) = 0 ] || exit 3; exec ls -l "$1" >/tmp/names' _ "$enc"; do
	rc=$?
	[ $rc = 3 ] || fail "ls -l $enc failed (exit $rc)"
	tries=$((tries + 1))
	[ $tries -le 20 ] || fail "no even pid in 20 processes"
done
# Without the key since the remount: 401 no-key names of regular files.
[ "$(grep -c '^-' /tmp/names)" = 401 ] ||
	fail "$enc does not list its 401 files: $(grep -c '^-' /tmp/names)"
dmesg_since | grep -E "checksum verify failed on logical $leaf|read error corrected" | head -n 3
dmesg_since | grep -q "read error corrected: ino 0 off $leaf " ||
	fail "an even pid read $enc, and leaf $leaf was not repaired"
echo "ok: repaired by the first read from stripe 0"
umount "$MNT"

step "both copies are the good leaf again, and the blocks after it untouched"
drop_caches
read_bytes "$dev_a" "$at_a" 16384 | cmp -s /tmp/leaf.good - || fail "the repaired copy is not the good leaf"
read_bytes "$dev_b" "$at_b" 16384 | cmp -s /tmp/leaf.good - || fail "the good copy changed"
read_bytes "$dev_a" $((at_a + 16384)) 49152 | cmp -s /tmp/after.a - ||
	fail "the repair wrote past the leaf on $dev_a"
mount_btrfs "$DISK1" "$MNT" "device=$DISK2"
scrub_clean "$MNT"
umount "$MNT"

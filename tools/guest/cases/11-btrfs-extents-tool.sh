# SPDX-License-Identifier: GPL-2.0
# "fscrypt-ioctl extents" (the tool the encryption cases read extent contexts
# and ciphertext with) on an unencrypted btrfs file: it lists regular, hole,
# preallocated and inline extents with the right offsets and lengths, walks
# files with more items than one tree search returns, and its PHYSICAL
# column points at the file's bytes on the raw device, also after a balance
# moved the data to other logical addresses.
. /lib/test.sh

name_failures
# Without no-holes, holes are file extent items of their own (disk_bytenr 0).
mkfs_btrfs -O ^no-holes "$DISK1"
mount_btrfs "$DISK1"
mkdir -p "$REF"
random_file "$REF/data" 262144
f=$MNT/f

# check_physical FILE COUNT: the bytes of each of FILE's COUNT regular
# extents with data, read on the device at PHYSICAL + OFFSET, equal the
# file's bytes at FILE_OFFSET (up to the end of the file).
check_physical() {
	size=$(stat -c %s "$1")
	fscrypt-ioctl extents "$1" >/tmp/extents.check
	drop_caches
	n=0
	while read -r off type bytenr dnb eoff nb phys ebyte ctx; do
		[ "$type" = reg ] && [ "$phys" != - ] || continue
		len=$nb
		[ $((off + len)) -le "$size" ] || len=$((size - off))
		read_bytes "$DISK1" $((phys + eoff)) "$len" >/tmp/extent.disk
		read_bytes "$1" "$off" "$len" >/tmp/extent.file
		[ "$(stat -c %s /tmp/extent.disk)" = "$len" ] || fail "short read at $phys"
		cmp -s /tmp/extent.disk /tmp/extent.file ||
			fail "$1: extent at $off: device bytes at $phys + $eoff differ from the file's"
		n=$((n + 1))
	done </tmp/extents.check
	[ "$n" = "$2" ] || fail "$1: $n regular extents with data, expected $2"
	echo "ok: $1: the device holds the data of its $n extents at PHYSICAL"
}

step "regular extents, holes, a preallocated range"
# Each fsync'd write becomes an extent of its own.
dd if="$REF/data" of="$f" bs=4096 count=4 conv=fsync 2>/dev/null
dd if="$REF/data" of="$f" bs=4096 skip=4 seek=4 count=8 conv=notrunc,fsync 2>/dev/null
dd if="$REF/data" of="$f" bs=4096 skip=20 seek=20 count=4 conv=notrunc,fsync 2>/dev/null
fallocate -o 131072 -l 65536 "$f"
sync
fscrypt-ioctl extents "$f" >/tmp/extents
cat /tmp/extents
# FILE_OFFSET TYPE DISK_NUM_BYTES OFFSET NUM_BYTES ENCRYPTION CONTEXT, and
# whether DISK_BYTENR and PHYSICAL are set.
awk '{ print $1, $2, $4, $5, $6, $8, $9, ($3 == 0 ? "nobytenr" : "bytenr"),
	($7 == "-" ? "nophys" : "phys") }' /tmp/extents >/tmp/extents.got
cat >/tmp/extents.want <<'WANT'
0 reg 16384 0 16384 0 - bytenr phys
16384 reg 32768 0 32768 0 - bytenr phys
49152 reg 0 0 32768 0 - nobytenr nophys
81920 reg 16384 0 16384 0 - bytenr phys
98304 reg 0 0 32768 0 - nobytenr nophys
131072 prealloc 65536 0 65536 0 - bytenr phys
WANT
cmp -s /tmp/extents.want /tmp/extents.got || {
	diff /tmp/extents.want /tmp/extents.got
	fail "unexpected extent list"
}
check_physical "$f" 3

# btrfs makes no inline extents where sectors are smaller than pages
# (SECTORSIZE: make integration ARCH=arm64-64k).
if [ -z "${SECTORSIZE:-}" ]; then
	step "an inline extent"
	printf 'hello' >"$MNT/small"
	sync
	fscrypt-ioctl extents "$MNT/small" >/tmp/extents
	cat /tmp/extents
	[ "$(cat /tmp/extents)" = "0 inline - 5 - 5 - 0 -" ] || fail "inline extent: $(cat /tmp/extents)"
fi

step "a file with more extent items than one search returns"
# 120 fsync'd blocks with holes between them: 240 items, about 85 bytes of
# search result each, in a 4 KiB search buffer.
i=0
while [ $i -lt 120 ]; do
	dd if="$REF/data" of="$MNT/many" bs=4096 skip=$((i % 64)) seek=$((2 * i + 1)) count=1 \
		conv=notrunc,fsync 2>/dev/null
	i=$((i + 1))
done
sync
fscrypt-ioctl extents "$MNT/many" >/tmp/extents
# Items in file order, each starting where the previous one ended, up to
# the file size.
awk -v size="$(stat -c %s "$MNT/many")" '
	$1 != next_off { print "item at " $1 " expected at " next_off; bad = 1 }
	{ next_off = $1 + $6; n++ }
	END { if (next_off != size) { print "items end at " next_off ", size " size; bad = 1 }
	      print n " items"; exit bad }' /tmp/extents >/tmp/awk.out || {
	cat /tmp/awk.out
	fail "the extent list of 'many' is not contiguous"
}
cat /tmp/awk.out
[ "$(cat /tmp/awk.out)" = "240 items" ] || fail "expected 240 items"
check_physical "$MNT/many" 120

step "PHYSICAL after a balance moved the data chunks"
before=$(awk '$3 != 0 { print $3; exit }' /tmp/extents)
btrfs balance start -d "$MNT" >/dev/null
fscrypt-ioctl extents "$MNT/many" >/tmp/extents
after=$(awk '$3 != 0 { print $3; exit }' /tmp/extents)
echo "first extent: logical $before before, $after after the balance"
[ "$before" != "$after" ] || fail "the balance did not move the extent"
awk '$3 != 0 && $3 != $7 { moved = 1 } END { exit !moved }' /tmp/extents ||
	fail "PHYSICAL equals DISK_BYTENR for every extent: the chunk mapping is not exercised"
check_physical "$MNT/many" 120
check_physical "$f" 3

step "errors"
expect_errno ENOTTY extents /proc/version
umount "$MNT"

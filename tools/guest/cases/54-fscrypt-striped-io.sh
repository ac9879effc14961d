# SPDX-License-Identifier: GPL-2.0
# Bios split at stripe boundaries by btrfs_submit_bio() (patch 0005): RAID10
# data over four disks, so that every 64 KiB of an extent is on another pair
# of devices. Files written buffered, with O_DIRECT and compressed (extents
# of more than 64 KiB on disk: each bio crosses stripes) read back, buffered
# and with O_DIRECT; the extents, put together from the raw devices stripe by
# stripe, are the data (PLAIN=1) or the ciphertext; an encoded read of a
# compressed extent returns it as stored; scrub is clean. Then one block of
# one copy is overwritten in the second stripe of an extent, and one of the
# other copy in its third: a read repairs what it read from the piece that
# holds it, and writes nothing else; scrub repairs the rest.
. /lib/test.sh
E2E_FS=btrfs

name_failures
step "RAID10 data, RAID1 metadata over four disks; an encrypted directory"
mkfs_btrfs_encrypt -d raid10 -m raid1 "$DISK1" "$DISK2" "$DISK3" "$DISK4"
devs="device=$DISK2,device=$DISK3,device=$DISK4"
mount_btrfs "$DISK1" "$MNT" "$devs"
head -c 64 /dev/urandom >"$E2E_KEY"
e2e_add_key
enc=$MNT/enc
e2e_encrypt "$enc"
mkdir -p "$REF"
random_file "$REF/b" $((1048576 + 12345))
cp "$REF/b" "$enc/b"
random_file "$REF/d" 786432
dd if="$REF/d" of="$enc/d" bs=196608 oflag=direct 2>/dev/null ||
	fail "the O_DIRECT write failed"
mount -o remount,compress-force=zstd "$MNT"
# Base64 compresses to about 3/4: extents of about 96 KiB on disk.
head -c 393216 /dev/urandom | base64 | head -c 524288 >"$REF/z"
cp "$REF/z" "$enc/z"
mount -o remount,compress=no "$MNT"
sync

step "read back, buffered and O_DIRECT"
drop_caches
same_digests "$REF" "$enc"
for f in b d; do
	dd if="$enc/$f" of=/tmp/$f.direct bs=131072 iflag=direct 2>/dev/null ||
		fail "the O_DIRECT read of $f failed"
	cmp "$REF/$f" /tmp/$f.direct || fail "the O_DIRECT read of $f differs"
done
echo "ok: buffered and O_DIRECT reads"

# raid10_place LOGICAL: the device and offset of both copies of the byte at
# LOGICAL, in $dev_a $at_a and $dev_b $at_b (stripes of 64 KiB, two copies).
raid10_place() {
	awk -v b="$1" '$1 <= b && b < $1 + $2' /tmp/chunks >/tmp/chunk
	read -r _logical _length _profile _devlen _stripes </tmp/chunk ||
		fail "no chunk holds logical address $1"
	[ "$_profile" = data/raid10 ] || fail "data at $1 in a $_profile chunk, expected data/raid10"
	echo "$_stripes" | tr ',' '\n' >/tmp/stripes
	n=$(wc -l </tmp/stripes)
	off=$(($1 - _logical))
	nr=$((off / 65536))
	idx=$((nr % (n / 2) * 2))
	at=$((nr / (n / 2) * 65536 + off % 65536))
	for i in $idx $((idx + 1)); do
		IFS=: read -r devid start <<EOF
$(sed -n "$((i + 1))p" /tmp/stripes)
EOF
		dev=$(awk -v d="$devid" '$1 == d { print $2 }' /tmp/devs)
		[ -n "$dev" ] || fail "no device for devid $devid"
		echo "$dev $((start + at))"
	done >/tmp/copies
	{ read -r dev_a at_a; read -r dev_b at_b; } </tmp/copies
}

# raw_extent BYTENR LENGTH COPY: the extent as copy COPY (a or b) holds it,
# read from the raw devices stripe by stripe, to stdout.
raw_extent() {
	pos=$1
	while [ "$pos" -lt $(($1 + $2)) ]; do
		len=$((65536 - pos % 65536))
		[ $((pos + len)) -le $(($1 + $2)) ] || len=$(($1 + $2 - pos))
		raid10_place "$pos"
		if [ "$3" = a ]; then read_bytes "$dev_a" "$at_a" "$len"
		else read_bytes "$dev_b" "$at_b" "$len"
		fi
		pos=$((pos + len))
	done
}

step "the extents on the raw devices, stripe by stripe"
btrfs filesystem show "$MNT" | awk '$1 == "devid" { print $2, $NF }' >/tmp/devs
fscrypt-ioctl chunks "$MNT" >/tmp/chunks
fscrypt-ioctl extents --compression "$enc/b" | head -n 1 >/tmp/b.ext
fscrypt-ioctl extents --compression "$enc/z" | head -n 1 >/tmp/z.ext
cat /tmp/b.ext /tmp/z.ext
read -r _o _t b_bytenr b_dnb _rest </tmp/b.ext
read -r _o _t z_bytenr z_dnb _rest </tmp/z.ext
awk '$NF != 0 { ok = 1 } END { exit !ok }' /tmp/z.ext || fail "z's first extent is not compressed"
[ "$b_dnb" -gt 262144 ] || fail "b's first extent is not over 256 KiB"
[ "$z_dnb" -gt 65536 ] || fail "z's first extent is not over 64 KiB on disk"
encrypted_extents "$enc/b"
encrypted_extents "$enc/z"
umount "$MNT"
drop_caches
raw_extent "$b_bytenr" "$b_dnb" a >/tmp/b.a
raw_extent "$b_bytenr" "$b_dnb" b | cmp -s /tmp/b.a - || fail "the two copies of b's extent differ"
head -c "$b_dnb" "$REF/b" >/tmp/b.plain
if is_plain; then
	# The extent ends with the zeroed tail of b's last block.
	head -c "$(stat -c %s /tmp/b.plain)" /tmp/b.a | cmp -s /tmp/b.plain - ||
		fail "b's extent on the devices is not b's data"
else
	[ "$(cmp -l /tmp/b.a /tmp/b.plain | wc -l)" -gt $((b_dnb * 9 / 10)) ] ||
		fail "b's extent on the devices is (nearly) the plaintext"
fi
raw_extent "$z_bytenr" "$z_dnb" a >/tmp/z.a
raw_extent "$z_bytenr" "$z_dnb" b | cmp -s /tmp/z.a - || fail "the two copies of z's extent differ"
echo "ok: both copies of each extent hold the same bytes"
mount_btrfs "$DISK1" "$MNT" "$devs"
e2e_add_key
fscrypt-ioctl encoded-read "$enc/z" 0 /tmp/z.enc >/tmp/z.meta ||
	fail "the encoded read of z failed"
cat /tmp/z.meta
cmp /tmp/z.a /tmp/z.enc || fail "the encoded read of z is not its extent as stored"
echo "ok: the encoded read of z is its first extent as on the devices"
scrub_clean "$MNT"

step "a block bad in each copy, in two stripes of b's extent"
# Block 1 of the second stripe in copy a, block 2 of the third in copy b.
x=$(( (b_bytenr / 65536 + 1) * 65536 + 4096 ))
y=$(( (b_bytenr / 65536 + 2) * 65536 + 8192 ))
umount "$MNT"
drop_caches
raid10_place "$x"
corrupt_block "$dev_a" "$at_a" 0
raid10_place "$y"
corrupt_block "$dev_b" "$at_b" 0
raw_extent "$b_bytenr" "$b_dnb" a | cmp -s /tmp/b.a - && fail "the corruption of copy a did not land"
raw_extent "$b_bytenr" "$b_dnb" b | cmp -s /tmp/b.a - && fail "the corruption of copy b did not land"
mount_btrfs "$DISK1" "$MNT" "$devs"
e2e_add_key
errs=$(btrfs device stats "$MNT" | awk '/corruption_errs/ { n += $2 } END { print n + 0 }')
cmp "$REF/b" "$enc/b" || fail "b does not read back with a bad block in each copy"
now=$(btrfs device stats "$MNT" | awk '/corruption_errs/ { n += $2 } END { print n + 0 }')
[ "$now" -gt "$errs" ] || fail "no checksum failure counted"
umount "$MNT"
drop_caches
# changed COPY AT: how many bytes of copy COPY of b's extent differ from the
# original, and how many of them lie outside the 4 KiB at extent offset AT.
changed() {
	raw_extent "$b_bytenr" "$b_dnb" "$1" >/tmp/b.now
	cmp -l /tmp/b.a /tmp/b.now | awk -v s="$2" '
		{ n++; o = $1 - 1; if (o < s || o >= s + 4096) out++ }
		END { print n + 0, out + 0 }'
}
# The repair wrote the good block where the read found the bad one (in
# whichever copy it read), and nowhere else.
set -- $(changed a $((x - b_bytenr))) $(changed b $((y - b_bytenr)))
echo "bytes still bad: copy a $1 ($2 outside block x), copy b $3 ($4 outside block y)"
[ "$2" = 0 ] || fail "copy a of b's extent changed outside its corrupted block"
[ "$4" = 0 ] || fail "copy b of b's extent changed outside its corrupted block"
[ "$1" = 0 ] || [ "$3" = 0 ] || fail "the read repaired neither copy"
mount_btrfs "$DISK1" "$MNT" "$devs"
scrub_counts "$MNT"
[ "$SCRUB_UNCORRECTABLE" = 0 ] || fail "scrub found uncorrectable errors"
umount "$MNT"
drop_caches
for c in a b; do
	raw_extent "$b_bytenr" "$b_dnb" $c | cmp -s /tmp/b.a - ||
		fail "copy $c of b's extent is not whole after scrub"
done
echo "ok: the read repaired the block it read, scrub the other"
mount_btrfs "$DISK1" "$MNT" "$devs"
e2e_add_key
scrub_clean "$MNT"
cmp "$REF/b" "$enc/b" || fail "b does not read back after scrub"

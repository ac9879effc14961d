# SPDX-License-Identifier: GPL-2.0
# Read repair on each path that reads data, on RAID1 over two disks: since
# patch 0005 btrfs_submit_bio() verifies every data read and repairs it from
# the other copy, and (patch 0024) decrypts it only after. Case 33 covers
# buffered reads of regular extents; here, each with one block of each copy
# overwritten (different blocks, so that whichever copy a read picks has a
# bad block):
# - a compressed extent, read with the key: right data, the bad copy that
#   was read is rewritten;
# - an O_DIRECT read (buffered I/O for an encrypted file);
# - an encoded read: the extent as stored, repaired (before 0005 an encoded
#   read failed on a bad copy instead);
# - the same block bad in both copies: reads of that page fail with EIO,
#   reads of the other pages of the file succeed, and nothing is rewritten.
. /lib/test.sh
E2E_FS=btrfs

# The pages of the guest: 64 KiB where sectors are smaller (ARCH=arm64-64k).
if [ -n "${SECTORSIZE:-}" ]; then page=65536; else page=4096; fi

name_failures
step "RAID1 over $DISK1 and $DISK2, compress-force=zstd, an encrypted directory"
mkfs_btrfs_encrypt -d raid1 -m raid1 "$DISK1" "$DISK2"
mount_btrfs "$DISK1" "$MNT" "device=$DISK2,compress-force=zstd"
head -c 64 /dev/urandom >"$E2E_KEY"
e2e_add_key
enc=$MNT/enc
e2e_encrypt "$enc"
mkdir -p "$REF"
# Compressible to about 3/4: a compressed extent of several blocks. 128 KiB,
# whole pages: subpage btrfs compresses whole pages only.
head -c 98304 /dev/urandom | base64 | head -c 131072 >"$REF/z"
cp "$REF/z" "$enc/z"
mount -o remount,compress=no "$MNT"
# Too random to compress: the rest are regular extents. e is read encoded:
# 64 KiB, one extent (uncompressed encrypted extents are read encoded up to
# 128 KiB, case 46).
for f in d:262144 e:65536 u:262144; do
	random_file "$REF/${f%:*}" "${f#*:}"
	cp "$REF/${f%:*}" "$enc/${f%:*}"
done
sync

# first_extent FILE: bytenr and disk bytes of FILE's first extent in
# $bytenr $dnb, and where its two copies are; COMPRESSED=1: it must be
# compressed.
first_extent() {
	fscrypt-ioctl extents --compression "$1" >/tmp/zext
	read -r _off _type bytenr dnb _rest </tmp/zext
	fscrypt-ioctl extents --compression "$1" | head -n 1
	if [ "${COMPRESSED:-0}" = 1 ]; then
		awk 'NR == 1 && $NF != 0 { ok = 1 } END { exit !ok }' /tmp/zext ||
			fail "$1: the first extent is not compressed"
	fi
	[ "$dnb" -ge 16384 ] || fail "$1: the first extent has fewer than 4 blocks"
	raid1_copies "$MNT" "$bytenr"
}

# corruption_errs: the checksum failures the devices have counted. The
# kernel's messages are rate limited, the counters are not.
corruption_errs() {
	btrfs device stats "$MNT" | awk '/corruption_errs/ { n += $2 } END { print n + 0 }'
}

# block_state BLOCK: for each copy, whether block BLOCK of the extent is as
# it was ("good") or not ("bad").
block_state() {
	drop_caches
	for c in "$dev_a $at_a" "$dev_b $at_b"; do
		read_bytes ${c% *} $((${c#* } + $1 * 4096)) 4096 |
			cmp -s - /tmp/orig.$1 && echo good || echo bad
	done | tr '\n' ' '
}

# break_copies FILE A B: blocks A of one copy and B of the other of FILE's
# first extent overwritten, with the filesystem unmounted; the original
# blocks in /tmp/orig.A and /tmp/orig.B, the whole extent in /tmp/extent.
break_copies() {
	first_extent "$1"
	umount "$MNT"
	drop_caches
	read_bytes "$dev_a" "$at_a" "$dnb" >/tmp/extent
	read_bytes "$dev_b" "$at_b" "$dnb" | cmp -s /tmp/extent - ||
		fail "$1: the two copies differ"
	for b in "$2" "$3"; do
		dd if=/tmp/extent of=/tmp/orig.$b bs=4096 skip="$b" count=1 2>/dev/null
	done
	corrupt_block "$dev_a" "$at_a" "$2"
	corrupt_block "$dev_b" "$at_b" "$3"
	[ "$(block_state "$2")$(block_state "$3")" = "bad good good bad " ] ||
		fail "the corruption did not land"
	dmesg_mark
	mount_btrfs "$DISK1" "$MNT" "device=$DISK2"
	e2e_add_key
	errs=$(corruption_errs)
}

# repaired WHAT A B: a checksum failure was counted, and the copy that was
# read is whole again.
repaired() {
	dmesg_since | grep -E 'csum failed|read error corrected' || true
	[ "$(corruption_errs)" -gt "$errs" ] || fail "$1: no checksum failure counted"
	umount "$MNT"
	s=$(block_state "$2")$(block_state "$3")
	echo "blocks $2 and $3: $s"
	[ "$s" = "good good good bad " ] || [ "$s" = "bad good good good " ] ||
		fail "$1: the repair did not write the good copy back to the copy read"
	mount_btrfs "$DISK1" "$MNT" "device=$DISK2"
	e2e_add_key
}

step "a compressed extent: read with the key, repaired"
COMPRESSED=1 break_copies "$enc/z" 1 2
cmp "$REF/z" "$enc/z" || fail "the compressed file does not read back"
repaired "compressed read" 1 2

step "O_DIRECT read, repaired"
break_copies "$enc/d" 1 2
dd if="$enc/d" of=/tmp/d.read bs=65536 iflag=direct 2>/dev/null ||
	fail "the O_DIRECT read failed"
cmp "$REF/d" /tmp/d.read || fail "the O_DIRECT read differs"
repaired "O_DIRECT read" 1 2

step "encoded read: the extent as stored, repaired"
break_copies "$enc/e" 1 2
[ "$dnb" = 65536 ] || fail "e is not one extent of 64 KiB"
fscrypt-ioctl encoded-read "$enc/e" 0 /tmp/e.enc >/tmp/e.meta ||
	fail "the encoded read failed"
cat /tmp/e.meta
cmp /tmp/extent /tmp/e.enc || fail "the encoded read is not the extent as stored"
repaired "encoded read" 1 2

step "a block bad in both copies: EIO for its page only"
bad=20
first_extent "$enc/u"
umount "$MNT"
drop_caches
corrupt_block "$dev_a" "$at_a" $bad
corrupt_block "$dev_b" "$at_b" $bad
dmesg_mark
mount_btrfs "$DISK1" "$MNT" "device=$DISK2"
e2e_add_key
errs=$(corruption_errs)
bad_page=$((bad * 4096 / page))
nr_pages=$((262144 / page))
p=0
while [ $p -lt $nr_pages ]; do
	if dd if="$enc/u" of=/tmp/u.page bs="$page" skip=$p count=1 2>/tmp/u.err; then
		[ $p != $bad_page ] || fail "page $p, with a block bad in both copies, was read"
		dd if="$REF/u" bs="$page" skip=$p count=1 2>/dev/null | cmp -s - /tmp/u.page ||
			fail "page $p differs"
	else
		cat /tmp/u.err
		[ $p = $bad_page ] || fail "page $p failed to read"
		grep -q 'I/O error\|Input/output error' /tmp/u.err || fail "page $p: not EIO"
	fi
	p=$((p + 1))
done
echo "ok: $nr_pages pages of $page bytes, only page $bad_page fails (EIO)"
[ "$(corruption_errs)" -ge $((errs + 2)) ] ||
	fail "$(corruption_errs) checksum failures counted, expected at least $((errs + 2)): one per copy"
! dmesg_since | grep -q 'read error corrected' || fail "a repair was logged with no good copy"
umount "$MNT"

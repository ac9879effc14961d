# SPDX-License-Identifier: GPL-2.0
# Repair of encrypted data from the other copy, on RAID1 (data and metadata)
# over two disks. The two copies of an encrypted extent are the same
# ciphertext. With one block of each copy overwritten on the raw devices
# (different blocks, so that whichever copy a read picks has a bad block),
# a read with the key returns the right data, and the kernel logs a
# checksum failure, then the repair, which writes the ciphertext back.
# With more blocks overwritten, scrub without the key finds and corrects
# them all; a second scrub is clean, both copies hold the original
# ciphertext again, and the file reads back with the key.
. /lib/test.sh
# Encryption with the rest of btrfs: on btrfs, whatever E2E_FS says.
E2E_FS=btrfs

name_failures
step "RAID1 over $DISK1 and $DISK2, an encrypted file"
mkfs_btrfs_encrypt -d raid1 -m raid1 "$DISK1" "$DISK2"
mount_btrfs "$DISK1" "$MNT" "device=$DISK2"
head -c 64 /dev/urandom >"$E2E_KEY"
e2e_add_key
enc=$MNT/enc
e2e_encrypt "$enc"
mkdir -p "$REF"
random_file "$REF/data" 262144
cp "$REF/data" "$enc/data"
sync
encrypted_extents "$enc/data"
cat /tmp/extents
read -r off type bytenr dnb eoff nb phys ebyte ctx </tmp/extents
[ "$off $type $eoff" = "0 reg 0" ] && [ "$dnb" -ge 16384 ] ||
	fail "the first extent is not a regular one of at least 4 blocks at 0"

step "where the two copies are"
raid1_copies "$MNT" "$bytenr"
cat /tmp/chunk /tmp/copies
umount "$MNT"
drop_caches
read_bytes "$dev_a" "$at_a" "$dnb" >/tmp/copy.orig
read_bytes "$dev_b" "$at_b" "$dnb" >/tmp/copy.b
cmp -s /tmp/copy.orig /tmp/copy.b || fail "the two copies differ"
head -c "$dnb" "$REF/data" >/tmp/plain.extent
if is_plain; then
	cmp -s /tmp/copy.orig /tmp/plain.extent || fail "the copies are not the file's data"
else
	[ "$(cmp -l /tmp/copy.orig /tmp/plain.extent | wc -l)" -gt $((dnb * 9 / 10)) ] ||
		fail "the copies are (nearly) the plaintext"
fi
echo "ok: both copies hold the same bytes, $(is_plain && echo data || echo ciphertext)"

# block_state BLOCK: for each copy, whether its block BLOCK is the original
# ciphertext ("good"), the plaintext ("PLAINTEXT") or else ("bad").
block_state() {
	drop_caches
	for c in "$dev_a $at_a" "$dev_b $at_b"; do
		read_bytes ${c% *} $((${c#* } + $1 * 4096)) 4096 >/tmp/block
		if cmp -s /tmp/block /tmp/block.orig.$1; then echo good
		elif cmp -s /tmp/block /tmp/block.plain.$1; then echo PLAINTEXT
		else echo bad
		fi
	done | tr '\n' ' '
}
for b in 0 1 2 3; do
	dd if=/tmp/copy.orig of=/tmp/block.orig.$b bs=4096 skip=$b count=1 2>/dev/null
	dd if="$REF/data" of=/tmp/block.plain.$b bs=4096 skip=$b count=1 2>/dev/null
done

step "read with the key: correct data, a checksum failure, then the repair"
# Blocks 1 and 2: neither at the start of a page where pages are larger than
# blocks (ARCH=arm64-64k), so that the repair must write the block at its
# offset in the page.
corrupt_block "$dev_a" "$at_a" 1
corrupt_block "$dev_b" "$at_b" 2
[ "$(block_state 1)$(block_state 2)" = "bad good good bad " ] || fail "the corruption did not land"
dmesg_mark
mount_btrfs "$DISK1" "$MNT" "device=$DISK2"
e2e_add_key
cmp "$REF/data" "$enc/data" || fail "the file does not read back with one bad block in each copy"
dmesg_since | grep -E 'csum failed|read error corrected' >/tmp/kmsg || true
cat /tmp/kmsg
head -n 1 /tmp/kmsg | grep -q 'csum failed' || fail "no checksum failure logged first"
grep -q 'read error corrected' /tmp/kmsg || fail "no repair logged"
umount "$MNT"
s0=$(block_state 1)
s1=$(block_state 2)
echo "block 1: $s0, block 2: $s1 (copy $dev_a, copy $dev_b)"
case "$s0$s1" in *PLAINTEXT*) fail "plaintext written to a copy" ;; esac
[ "$s0$s1" = "good good good bad " ] || [ "$s0$s1" = "bad good good good " ] ||
	fail "the repair did not write the original ciphertext back to the copy read"

step "scrub without the key corrects the bad blocks"
corrupt_block "$dev_a" "$at_a" 3
corrupt_block "$dev_b" "$at_b" 0
dmesg_mark
mount_btrfs "$DISK1" "$MNT" "device=$DISK2"
is_plain || [ "$(fscrypt-ioctl key-status "$MNT" "$KEYID" | head -n 1)" = absent ] ||
	fail "the key is present"
scrub_counts "$MNT"
[ "$SCRUB_CSUM" -ge 3 ] && [ "$SCRUB_CORRECTED" = "$SCRUB_CSUM" ] &&
	[ "$SCRUB_UNCORRECTABLE" = 0 ] && [ "$SCRUB_OTHER" = 0 ] ||
	fail "scrub: $SCRUB_CSUM checksum errors, $SCRUB_CORRECTED corrected, $SCRUB_UNCORRECTABLE uncorrectable, $SCRUB_OTHER other; expected 3 corrected"
dmesg_since | grep -q 'checksum error' || fail "scrub logged no checksum error"
dmesg_since | grep -q 'fixed up error' || fail "scrub logged no repair"
scrub_clean "$MNT"
umount "$MNT"
for b in 0 1 2 3; do
	[ "$(block_state $b)" = "good good " ] || fail "block $b after the scrub: $(block_state $b)"
done
drop_caches
read_bytes "$dev_a" "$at_a" "$dnb" | cmp -s /tmp/copy.orig - || fail "copy on $dev_a differs after the scrub"
read_bytes "$dev_b" "$at_b" "$dnb" | cmp -s /tmp/copy.orig - || fail "copy on $dev_b differs after the scrub"
echo "ok: both copies hold the original ciphertext again"

step "the file reads back with the key"
dmesg_mark
mount_btrfs "$DISK1" "$MNT" "device=$DISK2"
e2e_add_key
cmp "$REF/data" "$enc/data" || fail "the file does not read back after the scrub"
no_csum_errors "after the repairs"
umount "$MNT"

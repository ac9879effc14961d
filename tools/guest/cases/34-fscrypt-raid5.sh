# SPDX-License-Identifier: GPL-2.0
# Encrypted files on RAID5 data (RAID1 metadata) over three disks: they read
# back; scrub without the key is clean; with the third disk's part of the
# data chunk zeroed on the raw device, scrub without the key rebuilds it
# from the other two (the device holds the same bytes as before again) and
# the files read back with the key. Then the third disk is lost (its
# superblocks and data zeroed): a degraded mount reads the files with the
# key, "btrfs replace" rebuilds the lost disk onto a fourth one without the
# key, scrub is clean, and a normal mount on the new set reads everything.
. /lib/test.sh
# Encryption with the rest of btrfs: on btrfs, whatever E2E_FS says.
E2E_FS=btrfs

name_failures
step "RAID5 data, RAID1 metadata over $DISK1 $DISK2 $DISK3; an encrypted tree"
mkfs_btrfs_encrypt -d raid5 -m raid1 "$DISK1" "$DISK2" "$DISK3"
mount_btrfs "$DISK1" "$MNT" "device=$DISK2,device=$DISK3"
head -c 64 /dev/urandom >"$E2E_KEY"
e2e_add_key
enc=$MNT/enc
e2e_encrypt "$enc"
e2e_make_ref 0 1 4095 4096 65537 1048577 3145728
e2e_copy_ref "$enc"
e2e_check_tree "$enc"
sync
drop_caches
e2e_check_tree "$enc"

step "the third disk's part of the data chunk"
btrfs filesystem show "$MNT" | awk '$1 == "devid" { print $2, $NF }' >/tmp/devs
cat /tmp/devs
[ "$(awk '$2 == "'"$DISK3"'" { print $1 }' /tmp/devs)" = 3 ] || fail "$DISK3 is not devid 3"
fscrypt-ioctl chunks "$MNT" >/tmp/chunks
cat /tmp/chunks
# The extents of every file, by logical address.
find "$enc" -type f | while read -r f; do
	fscrypt-ioctl extents "$f"
done | awk '$2 == "reg" && $3 != 0 { print $3, $4 }' >/tmp/all-extents
[ -s /tmp/all-extents ] || fail "no extents"
read -r first dnb <<EOF
$(head -n 1 /tmp/all-extents)
EOF
awk -v b="$first" '$1 <= b && b < $1 + $2' /tmp/chunks >/tmp/chunk
read -r logical length profile devlen stripes </tmp/chunk || fail "no chunk holds $first"
[ "$profile" = data/raid5 ] || fail "the data is in a $profile chunk, expected data/raid5"
# Every extent is in this chunk; how far the data reach into it.
reach=$(awk -v s="$logical" -v l="$length" '
	$1 < s || $1 + $2 > s + l { print "out"; exit }
	$1 + $2 - s > r { r = $1 + $2 - s } END { print r }' /tmp/all-extents)
[ "$reach" != out ] || fail "extents in more than one data chunk"
start=$(echo "$stripes" | tr ',' '\n' | sed -n 's/^3://p')
[ -n "$start" ] || fail "devid 3 has no stripe of the data chunk: $stripes"
# Two data stripes of 64 KiB and one parity per full stripe: the data reach
# at most reach / 2 + 64 KiB into each device's part. Zero that much, in
# whole MiB.
wipe=$(((reach / 2 + 65536 + 1048575) / 1048576 * 1048576))
[ "$wipe" -le "$devlen" ] || wipe=$devlen
[ $((wipe % 1048576)) = 0 ] || fail "devid 3's part of the chunk is not whole MiB: $devlen bytes"
echo "devid 3: data chunk part at $start, $devlen bytes; zeroing $wipe bytes (data reach $reach bytes)"
region_sum() { read_bytes "$DISK3" "$start" "$wipe" | sha256sum | cut -d ' ' -f 1; }

step "scrub without the key"
e2e_remove_key
scrub_clean "$MNT"
umount "$MNT"
drop_caches
before=$(region_sum)
zeros=$(head -c "$wipe" /dev/zero | sha256sum | cut -d ' ' -f 1)
[ "$before" != "$zeros" ] || fail "devid 3's part of the data chunk is all zeros"

step "zero the third disk's part of the data chunk; scrub without the key rebuilds it"
dd if=/dev/zero of="$DISK3" bs=1M count=$((wipe / 1048576)) seek="$start" \
	oflag=seek_bytes conv=notrunc,fsync 2>/dev/null
drop_caches
[ "$(region_sum)" = "$zeros" ] || fail "the region was not zeroed"
mount_btrfs "$DISK1" "$MNT" "device=$DISK2,device=$DISK3"
scrub_counts "$MNT"
[ "$SCRUB_CSUM" -ge 1 ] && [ "$SCRUB_CORRECTED" -ge 1 ] && [ "$SCRUB_UNCORRECTABLE" = 0 ] ||
	fail "scrub: $SCRUB_CSUM checksum errors, $SCRUB_CORRECTED corrected, $SCRUB_UNCORRECTABLE uncorrectable; expected corrected errors only"
scrub_clean "$MNT"
umount "$MNT"
drop_caches
[ "$(region_sum)" = "$before" ] || fail "devid 3's part of the data chunk was not rebuilt as it was"
echo "ok: the zeroed part was rebuilt byte for byte"
mount_btrfs "$DISK1" "$MNT" "device=$DISK2,device=$DISK3"
e2e_add_key
e2e_check_tree "$enc"
umount "$MNT"

step "the third disk lost: a degraded mount reads the files"
dmesg_mark
# Its superblocks (at 64 KiB and 64 MiB) and its part of the data chunk.
for sb in 65536 67108864; do
	dd if=/dev/zero of="$DISK3" bs=4096 count=1 seek=$sb oflag=seek_bytes conv=notrunc,fsync 2>/dev/null
done
dd if=/dev/zero of="$DISK3" bs=1M count=$((wipe / 1048576)) seek="$start" \
	oflag=seek_bytes conv=notrunc,fsync 2>/dev/null
must_fail mount -t btrfs -o "device=$DISK2" "$DISK1" "$MNT"
mount_btrfs "$DISK1" "$MNT" "degraded,device=$DISK2"
btrfs filesystem show "$MNT" >/tmp/show 2>&1 || true
cat /tmp/show
grep -q -i missing /tmp/show || fail "btrfs filesystem show does not report the missing device"
e2e_add_key
e2e_check_tree "$enc"

step "replace the lost disk by $DISK4, without the key"
e2e_remove_key
btrfs replace start -B -f 3 "$DISK4" "$MNT" >/tmp/replace 2>&1 || {
	cat /tmp/replace
	fail "btrfs replace failed"
}
cat /tmp/replace
btrfs replace status -1 "$MNT" >/tmp/replace 2>&1 || true
cat /tmp/replace
grep -q 'finished' /tmp/replace || fail "replace did not finish"
grep -q ' 0 write errs, 0 uncorr. read errs' /tmp/replace || fail "replace had errors"
scrub_clean "$MNT"
umount "$MNT"

step "a normal mount on $DISK1 $DISK2 $DISK4"
mount_btrfs "$DISK1" "$MNT" "device=$DISK2,device=$DISK4"
btrfs filesystem show "$MNT" >/tmp/show 2>&1
cat /tmp/show
grep -q -i missing /tmp/show && fail "a device is still missing"
grep -q "devid *3 .* $DISK4\$" /tmp/show || fail "devid 3 is not $DISK4"
e2e_add_key
e2e_check_tree "$enc"
no_csum_errors "after the rebuilds"
umount "$MNT"

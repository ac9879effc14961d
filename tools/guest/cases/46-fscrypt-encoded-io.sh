# SPDX-License-Identifier: GPL-2.0
# Encoded I/O (BTRFS_IOC_ENCODED_READ/WRITE) of encrypted files. A read
# returns an encrypted extent as it is on disk: its ciphertext, byte for
# byte what the device holds there, from the extent's first byte, with its
# encryption context (encryption=1). Written into another file of the same
# policy, that ciphertext and context read back, with the key, as the
# plaintext, from the page cache, from disk and after a remount; with
# compression the compressed ciphertext does the same. An encrypted extent
# is moved whole (its IVs count from its start) if it has up to 128 KiB,
# and a larger one in parts of 128 KiB, each with a version 2 context that
# says where its IVs start: written back, the parts read as the plaintext,
# and btrfs check and dump-tree of the progs series know them. Refused with
# EINVAL and a kernel message: a context of another key, a changed context,
# ciphertext for an unencrypted file and unencrypted data for an encrypted
# one; EINVAL for another data unit size. Unencrypted files keep their
# encoded I/O as it was.
. /lib/test.sh
# Encoded I/O is btrfs's: on btrfs, whatever E2E_FS says.
E2E_FS=btrfs

e2e_begin
enc=$MNT/enc
plain=$MNT/plain
e2e_encrypt "$enc"
mkdir "$plain"
head -c 64 /dev/urandom >/tmp/key2
key2=$(fscrypt-ioctl add-key "$MNT" </tmp/key2)
mkdir "$MNT/other"
fscrypt-ioctl set-policy "$MNT/other" "$key2"
mkdir -p "$REF"
random_file "$REF/src" 300000
# Three extents of at most 128 KiB: each written back on its own.
for i in 0 1 2; do
	dd if="$REF/src" of="$enc/src" bs=131072 skip=$i seek=$i count=1 conv=notrunc,fsync 2>/dev/null
done
cmp "$REF/src" "$enc/src" || fail "enc/src does not read back"
random_file "$REF/big" 1048576
cp "$REF/big" "$enc/big"
sync
dmesg_mark

# eread FILE OFFSET OUT: encoded read; its metadata in $META.
eread() {
	META=$(fscrypt-ioctl encoded-read "$1" "$2" "$3") || fail "encoded read of $1 at $2"
	echo "$1 at $2: $META"
}

step "the extents"
encrypted_extents "$enc/src"
cat /tmp/extents
awk '$2 == "reg" { n++; if ($4 > 131072) big = 1 } END { exit big || n != 3 }' /tmp/extents ||
	fail "enc/src (300000 bytes) is not in 3 extents of at most 128 KiB"
fscrypt-ioctl extents "$enc/big"

step "encoded read: the ciphertext on the device, with the extent's context"
drop_caches
i=0
while read -r off type bytenr disk_len ext_off len phys encryption ctx; do
	[ "$type" = reg ] || fail "extent at $off is $type"
	eread "$enc/src" "$off" "/tmp/ct$i"
	[ "$(field "$META" encryption)" = 1 ] || fail "extent $i: not read as encrypted"
	[ "$(field "$META" context)" = "$ctx" ] ||
		fail "extent $i: context $(field "$META" context), on disk $ctx"
	[ "$(field "$META" compression)" = 0 ] || fail "extent $i: compressed"
	[ "$(field "$META" unencoded_offset)" = 0 ] || fail "extent $i: unencoded_offset"
	[ "$(field "$META" data_unit)" = 4096 ] || fail "extent $i: data unit size"
	[ "$(field "$META" bytes)" = "$disk_len" ] ||
		fail "extent $i: $(field "$META" bytes) bytes, the extent has $disk_len"
	read_bytes "$DISK1" "$phys" "$disk_len" >/tmp/dev$i
	cmp "/tmp/ct$i" "/tmp/dev$i" || fail "extent $i: not the bytes on the device"
	read_bytes "$REF/src" "$off" "$disk_len" >/tmp/pt$i
	! cmp -s "/tmp/ct$i" "/tmp/pt$i" || fail "extent $i: encoded read returned plaintext"
	echo "$META" >"/tmp/meta$i"
	echo "$off" >"/tmp/off$i"
	i=$((i + 1))
done </tmp/extents
echo "ok: $i extents read as their ciphertext on the device"

step "encoded read inside an extent: the whole extent, and where the read began"
eread "$enc/src" 200000 /tmp/ctmid
cmp /tmp/ctmid /tmp/ct1 || fail "a read at 200000 does not return the whole second extent"
[ "$(field "$META" unencoded_offset)" = $((200000 - 131072)) ] ||
	fail "unencoded_offset of a read at 200000"
[ "$(field "$META" len)" = $((262144 - 200000)) ] || fail "len of a read at 200000"

step "encoded write of the ciphertext into another file of the policy"
touch "$enc/copy"
for i in 0 1 2; do
	fscrypt-ioctl encoded-write "$enc/copy" "$(cat /tmp/off$i)" "/tmp/ct$i" "$(cat /tmp/meta$i)" ||
		fail "encoded write of extent $i"
done
cmp "$REF/src" "$enc/copy" || fail "the copy does not read back (page cache)"
sync
drop_caches
cmp "$REF/src" "$enc/copy" || fail "the copy does not read back (from disk)"
encrypted_extents "$enc/copy"
awk '$2 == "reg" { print $9 }' /tmp/extents >/tmp/copy.ctx
fscrypt-ioctl extents "$enc/src" | awk '$2 == "reg" { print $9 }' >/tmp/src.ctx
cmp /tmp/src.ctx /tmp/copy.ctx || fail "the copy's extents do not carry the source's contexts"
fscrypt-ioctl extents "$enc/copy" | awk '$2 == "reg" { print $3 }' >/tmp/copy.bytenr
fscrypt-ioctl extents "$enc/src" | awk '$2 == "reg" { print $3 }' | grep -F -x -f /tmp/copy.bytenr &&
	fail "the copy shares extents with the source: it should have its own"
echo "ok: the copy has its own extents, with the source's contexts and ciphertext"

step "encoded write of part of an extent (unencoded_offset)"
eread "$enc/src" 204800 /tmp/ctpart
touch "$enc/part"
fscrypt-ioctl encoded-write "$enc/part" 204800 /tmp/ctpart "$META"
sync
drop_caches
[ "$(stat -c %s "$enc/part")" = 262144 ] || fail "part: size $(stat -c %s "$enc/part")"
read_bytes "$enc/part" 204800 57344 >/tmp/part.got
read_bytes "$REF/src" 204800 57344 >/tmp/part.want
cmp /tmp/part.want /tmp/part.got || fail "part does not read back"
[ "$(read_bytes "$enc/part" 0 204800 | tr -d '\0' | wc -c)" = 0 ] || fail "part: the hole is not zeroes"

step "an extent of more than 128 KiB: read in parts of 128 KiB, each with where its IVs start"
# part_ctx CTX N: the version 2 context of the part of CTX's extent that
# begins at its data unit N (little-endian 32-bit index after version 1)
part_ctx() {
	printf '02%s%02x%02x%02x%02x' "${1#01}" $(($2 & 255)) $((($2 >> 8) & 255)) \
		$((($2 >> 16) & 255)) $((($2 >> 24) & 255))
}
fscrypt-ioctl extents "$enc/big" | awk '$2 == "reg"' >/tmp/bigext
[ "$(wc -l </tmp/bigext)" = 1 ] || fail "enc/big is not one extent"
read -r _ _ _ big_len _ _ big_phys _ big_ctx </tmp/bigext
[ "$big_len" = 1048576 ] || fail "enc/big's extent has $big_len bytes"
touch "$enc/bigcopy"
k=0
while [ $k -lt 8 ]; do
	off=$((k * 131072))
	eread "$enc/big" "$off" "/tmp/ctbig$k"
	want=$big_ctx
	[ $k = 0 ] || want=$(part_ctx "$big_ctx" $((k * 32)))
	[ "$(field "$META" context)" = "$want" ] ||
		fail "part $k: context $(field "$META" context), expected $want"
	[ "$(field "$META" bytes)" = 131072 ] &&
		[ "$(field "$META" unencoded_len)" = 131072 ] &&
		[ "$(field "$META" unencoded_offset)" = 0 ] || fail "part $k: its sizes"
	read_bytes "$DISK1" $((big_phys + off)) 131072 >/tmp/devbig
	cmp /tmp/devbig "/tmp/ctbig$k" || fail "part $k: not the bytes on the device"
	fscrypt-ioctl encoded-write "$enc/bigcopy" "$off" "/tmp/ctbig$k" "$META" ||
		fail "encoded write of part $k"
	echo "$want" >>/tmp/bigcopy.want
	k=$((k + 1))
done
eread "$enc/big" $((3 * 131072 + 5000)) /tmp/ctbigmid
cmp /tmp/ctbigmid /tmp/ctbig3 || fail "a read inside part 3 does not return part 3"
[ "$(field "$META" unencoded_offset)" = 5000 ] &&
	[ "$(field "$META" len)" = $((131072 - 5000)) ] || fail "a read inside part 3: offset or len"
cmp "$REF/big" "$enc/bigcopy" || fail "bigcopy does not read back (page cache)"
sync
drop_caches
cmp "$REF/big" "$enc/bigcopy" || fail "bigcopy does not read back (from disk)"
fscrypt-ioctl extents "$enc/bigcopy" | awk '$2 == "reg" { print $9 }' >/tmp/bigcopy.ctx
cmp /tmp/bigcopy.want /tmp/bigcopy.ctx || fail "bigcopy's extents do not carry the parts' contexts"
eread "$enc/bigcopy" $((5 * 131072)) /tmp/ctcopy5
cmp /tmp/ctcopy5 /tmp/ctbig5 || fail "bigcopy's part 5 does not read back as the same ciphertext"
[ "$(field "$META" context)" = "$(part_ctx "$big_ctx" 160)" ] ||
	fail "bigcopy's part 5 does not read back with its context"
echo "ok: 8 parts of 128 KiB, 7 with version 2 contexts, read back as plaintext"

step "refused: contexts that are not the file's, data of the wrong kind"
meta=$(cat /tmp/meta0)
touch "$MNT/other/f" "$plain/f" "$enc/refused"
dmesg_mark
expect_errno EINVAL encoded-write "$MNT/other/f" 0 /tmp/ct0 "$meta"
expect_kmsg "does not match the file's encryption policy"
ctx=$(field "$meta" context)
# The 4th byte is the first of the master key identifier.
bad=$(echo "$ctx" | awk '{ b = substr($0, 7, 2); printf "%s%s%s", substr($0, 1, 6), (b == "00" ? "01" : "00"), substr($0, 9) }')
dmesg_mark
expect_errno EINVAL encoded-write "$enc/refused" 0 /tmp/ct0 "$(echo "$meta" | sed "s/context=$ctx/context=$bad/")"
expect_kmsg "does not match the file's encryption policy"
dmesg_mark
expect_errno EINVAL encoded-write "$plain/f" 0 /tmp/ct0 "$meta"
expect_kmsg "encoded write of encrypted data to an unencrypted file"
dmesg_mark
expect_errno EINVAL encoded-write "$enc/refused" 0 /tmp/ct0 \
	"$(echo "$meta" | sed 's/compression=0/compression=1/; s/encryption=1/encryption=0/; s/context=[0-9a-f]*/context=-/; s/data_unit=4096/data_unit=0/')"
expect_kmsg "encoded write of unencrypted data to an encrypted file"
expect_errno EINVAL encoded-write "$enc/refused" 0 /tmp/ct0 "$(echo "$meta" | sed 's/context=[0-9a-f]*/context=-/')"
expect_errno EINVAL encoded-write "$enc/refused" 0 /tmp/ct0 "$(echo "$meta" | sed 's/data_unit=4096/data_unit=65536/')"
expect_errno EINVAL encoded-write "$enc/refused" 0 /tmp/ct0 "$(echo "$meta" | sed 's/context=\([0-9a-f]*\)/context=\100/')"
expect_errno EINVAL encoded-write "$plain/f" 0 /tmp/ct0 \
	"$(echo "$meta" | sed 's/encryption=1/encryption=0/; s/context=[0-9a-f]*/context=-/; s/data_unit=4096/data_unit=0/')"
for f in "$MNT/other/f" "$plain/f" "$enc/refused"; do
	[ "$(stat -c %s "$f")" = 0 ] || fail "$f was written"
done

step "compressed, then encrypted extents"
mount -o remount,compress=zstd "$MNT"
marker_file "$REF/z" 131072 "compressible line $(head -c 8 /dev/urandom | xxd -p)"
cp "$REF/z" "$enc/z"
cp "$REF/z" "$plain/z"
sync
eread "$enc/z" 0 /tmp/ctz
[ "$(field "$META" compression)" = 2 ] || fail "enc/z: not zstd"
[ "$(field "$META" encryption)" = 1 ] || fail "enc/z: not encrypted"
zmeta=$META
touch "$enc/zcopy"
fscrypt-ioctl encoded-write "$enc/zcopy" 0 /tmp/ctz "$zmeta"
eread "$plain/z" 0 /tmp/ptz
[ "$(field "$META" encryption)" = 0 ] && [ "$(field "$META" context)" = - ] ||
	fail "plain/z: read with encryption"
[ "$(field "$META" compression)" = 2 ] || fail "plain/z: not zstd"
! cmp -s /tmp/ctz /tmp/ptz || fail "the compressed ciphertext is the compressed plaintext"
touch "$plain/zcopy"
fscrypt-ioctl encoded-write "$plain/zcopy" 0 /tmp/ptz "$META"
sync
drop_caches
cmp "$REF/z" "$enc/zcopy" || fail "enc/zcopy does not read back"
cmp "$REF/z" "$plain/zcopy" || fail "plain/zcopy does not read back"
mount -o remount,compress=no "$MNT"

step "a hole of an encrypted file reads as unencrypted zeroes"
truncate -s 1048576 "$enc/sparse"
eread "$enc/sparse" 0 /tmp/hole
[ "$(field "$META" encryption)" = 0 ] || fail "a hole read as encrypted"
[ "$(tr -d '\0' </tmp/hole | wc -c)" = 0 ] || fail "a hole read as other than zeroes"
no_csum_errors

step "after a remount with the key"
e2e_umount
e2e_mount
e2e_add_key
cmp "$REF/src" "$enc/copy" || fail "enc/copy after the remount"
cmp "$REF/z" "$enc/zcopy" || fail "enc/zcopy after the remount"
e2e_remove_key
# Without the key the names are no-key names: any regular file will do.
for f in "$enc"/*; do [ -f "$f" ] && break; done
expect_enokey fscrypt-ioctl encoded-read "$f" 0 /tmp/nokey
e2e_umount

step "the progs series knows version 2 extent contexts"
for mode in original lowmem; do
	btrfs check --mode=$mode "$DISK1" >/tmp/check.out 2>&1 ||
		{ cat /tmp/check.out; fail "btrfs check --mode=$mode"; }
done
btrfs inspect-internal dump-tree -t 5 "$DISK1" >/tmp/dump
grep -c 'extent context first data unit' /tmp/dump >/tmp/ndu || true
[ "$(cat /tmp/ndu)" = 7 ] || fail "dump-tree shows $(cat /tmp/ndu) first data units, expected bigcopy's 7"
for n in 32 64 96 128 160 192 224; do
	grep -q "extent context first data unit $n\$" /tmp/dump || fail "dump-tree: no first data unit $n"
done

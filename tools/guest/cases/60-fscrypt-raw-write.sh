# SPDX-License-Identifier: GPL-2.0
# BTRFS_IOC_FSCRYPT_RAW WRITE (patch 40): ciphertext stored into encrypted
# files without their key. With the key, a 1 MiB extent is read encoded in
# its 8 parts of 128 KiB (7 with version 2 contexts) and a compressed extent
# whole (case 46). The key is removed; raw-write puts them into two empty
# files of the directory, opened O_PATH by their no-key names, part 2
# before part 1 (a write past the end). Without the key the sizes are
# right; refused, with their errnos: a caller without CAP_SYS_ADMIN, a
# context of another key (with a message), unencrypted data, another data
# unit size, an unaligned offset, a directory, an unencrypted file, and
# nothing changes. Without the key, raw-clone (patch 45) shares a file's
# extents with another, at 0 and past its end (read back with the key: the
# same data, the same extents); refused: unaligned offsets or length, no
# length, a range past the end, an overlap in one file, an inline extent
# (with a message), an unencrypted file either way, a directory, uid 1000,
# RLIMIT_FSIZE, a destination past an unaligned size whose block holds data
# (with a message; allowed once the block is punched).
# Without the key, raw-punch and raw-setsize (patch 42)
# punch a hole, cut a raw-written file to an unaligned size and to 256 KiB
# and grow it to 1 MiB, and empty a file with an inline extent; refused:
# a larger size, or a raw write, past an unaligned size whose block holds
# data (allowed once that block is punched) and a size inside an inline
# extent (with messages), unaligned or empty holes, a hole past the largest
# size, a directory, an unencrypted file, uid 1000. btrfs check (both modes)
# passes; after a remount and the key added the copies read as the source,
# their extents hold the parts' ciphertext and contexts, the cut file reads
# as big's first 128 KiB and zeroes, with one extent. With the key present, a raw write over cached
# plaintext reads back right at once (no extent map without a key is left)
# and after drop_caches, a running executable is refused (ETXTBSY), and a
# raw write followed by fsync is in the file;
# a raw send carries the version 2 extent as version 1 and first data unit.
. /lib/test.sh
E2E_FS=btrfs

e2e_begin
enc=$MNT/enc
e2e_encrypt "$enc"
mkdir "$MNT/plain"
touch "$MNT/plain/f"
mkdir -p "$REF"
random_file "$REF/big" 1048576
cp "$REF/big" "$enc/big"
mount -o remount,compress=zstd "$MNT"
marker_file "$REF/z" 131072 "compressible line $(head -c 8 /dev/urandom | xxd -p)"
cp "$REF/z" "$enc/z"
sync
mount -o remount,compress=no "$MNT"
touch "$enc/copy" "$enc/zcopy" "$enc/cut" "$enc/cl" "$enc/cl2" "$enc/cl3"
echo "an inline extent" >"$enc/inl"
echo "another inline extent" >"$enc/inl2"
sync
ino_copy=$(stat -c %i "$enc/copy")
ino_zcopy=$(stat -c %i "$enc/zcopy")
ino_cut=$(stat -c %i "$enc/cut")
ino_inl=$(stat -c %i "$enc/inl")
ino_cl=$(stat -c %i "$enc/cl")
ino_cl2=$(stat -c %i "$enc/cl2")
ino_cl3=$(stat -c %i "$enc/cl3")
ino_inl2=$(stat -c %i "$enc/inl2")

step "with the key: the encoded parts of big and the compressed z"
fscrypt-ioctl extents "$enc/big" | awk '$2 == "reg"' >/tmp/rw.bigext
[ "$(wc -l </tmp/rw.bigext)" = 1 ] || fail "enc/big is not one extent"
k=0
while [ $k -lt 8 ]; do
	fscrypt-ioctl encoded-read "$enc/big" $((k * 131072)) "/tmp/rw.p$k" >"/tmp/rw.m$k" ||
		fail "encoded read of part $k"
	echo "$(field "$(cat "/tmp/rw.m$k")" context)" >>/tmp/rw.parts.ctx
	k=$((k + 1))
done
fscrypt-ioctl encoded-read "$enc/z" 0 /tmp/rw.pz >/tmp/rw.mz || fail "encoded read of z"
[ "$(field "$(cat /tmp/rw.mz)" compression)" = 2 ] || fail "z is not zstd"
cut -c1-2 /tmp/rw.parts.ctx | tr '\n' ' '
echo
[ "$(cut -c1-2 /tmp/rw.parts.ctx | sort | uniq -c | awk '{ printf "%s:%s ", $2, $1 }')" = "01:1 02:7 " ] ||
	fail "the parts' contexts are not one version 1 and seven version 2"

step "the key removed: raw writes into the empty files, by their no-key names"
e2e_remove_key
copy=$(find "$enc" -inum "$ino_copy")
zcopy=$(find "$enc" -inum "$ino_zcopy")
echo "copy is $copy, zcopy is $zcopy"
[ -n "$copy" ] && [ -n "$zcopy" ] && [ "${copy##*/}" != copy ] || fail "no no-key names"
must_fail cat "$copy"
dmesg_mark
for k in 0 2 1 3 4 5 6 7; do
	out=$(fscrypt-ioctl raw-write "$enc" "$copy" $((k * 131072)) "/tmp/rw.p$k" "$(cat "/tmp/rw.m$k")") ||
		fail "raw write of part $k"
	[ "$out" = "written 131072" ] || fail "raw write of part $k: $out"
done
fscrypt-ioctl raw-write "$enc" "$zcopy" 0 /tmp/rw.pz "$(cat /tmp/rw.mz)" || fail "raw write of z"
[ "$(stat -c %s "$copy")" = 1048576 ] || fail "copy has $(stat -c %s "$copy") bytes"
[ "$(stat -c %s "$zcopy")" = 131072 ] || fail "zcopy has $(stat -c %s "$zcopy") bytes"
echo "ok: 8 parts and a compressed extent written without the key"

step "refused without the key, and nothing changes"
meta=$(cat /tmp/rw.m1)
mkdir -p /etc
grep -q "^user:" /etc/passwd 2>/dev/null ||
	echo 'user:x:1000:1000:user:/tmp:/bin/sh' >>/etc/passwd
chmod 0644 /tmp/rw.p1
out=$(su -s /bin/sh user -c "fscrypt-ioctl --print-errno raw-write $enc $copy 0 /tmp/rw.p1 '$meta'" 2>/dev/null) &&
	fail "raw-write as uid 1000 succeeded"
[ "$out" = EPERM ] || fail "raw-write as uid 1000: expected EPERM, got '$out'"
echo "ok: uid 1000 gets EPERM"
ctx=$(field "$meta" context)
# The 4th byte is the first of the master key identifier.
bad=$(echo "$ctx" | awk '{ b = substr($0, 7, 2); printf "%s%s%s", substr($0, 1, 6), (b == "00" ? "01" : "00"), substr($0, 9) }')
dmesg_mark
expect_errno EINVAL raw-write "$enc" "$copy" 0 /tmp/rw.p1 "$(echo "$meta" | sed "s/context=$ctx/context=$bad/")"
expect_kmsg "Refusing an extent encryption context that is not of the file's policy"
expect_errno EINVAL raw-write "$enc" "$copy" 0 /tmp/rw.p1 \
	"$(echo "$meta" | sed 's/compression=0/compression=2/; s/encryption=1/encryption=0/; s/context=[0-9a-f]*/context=-/; s/data_unit=4096/data_unit=0/')"
expect_errno EINVAL raw-write "$enc" "$copy" 0 /tmp/rw.p1 "$(echo "$meta" | sed 's/data_unit=4096/data_unit=65536/')"
expect_errno EINVAL raw-write "$enc" "$copy" 4097 /tmp/rw.p1 "$meta"
expect_errno EISDIR raw-write "$enc" "$enc" 0 /tmp/rw.p1 "$meta"
expect_errno EINVAL raw-write "$enc" "$MNT/plain/f" 0 /tmp/rw.p1 "$meta"
[ "$(stat -c %s "$copy")" = 1048576 ] && [ "$(stat -c %s "$MNT/plain/f")" = 0 ] ||
	fail "a refused raw write changed a size"

step "SETSIZE and PUNCH without the key"
cut=$(find "$enc" -inum "$ino_cut")
inl=$(find "$enc" -inum "$ino_inl")
for k in 0 1 2 3; do
	fscrypt-ioctl raw-write "$enc" "$cut" $((k * 131072)) "/tmp/rw.p$k" "$(cat "/tmp/rw.m$k")" >/dev/null ||
		fail "raw write of part $k into cut"
done
fscrypt-ioctl raw-punch "$enc" "$cut" 131072 131072 || fail "raw-punch of cut's part 1"
fscrypt-ioctl raw-setsize "$enc" "$cut" 300000 || fail "raw-setsize of cut to 300000"
[ "$(stat -c %s "$cut")" = 300000 ] || fail "cut has $(stat -c %s "$cut") bytes, not 300000"
dmesg_mark
expect_errno EINVAL raw-setsize "$enc" "$cut" 400000
expect_kmsg "refusing a raw size change past the unaligned size of an encrypted file"
expect_errno EINVAL raw-write "$enc" "$cut" 393216 /tmp/rw.p3 "$(cat /tmp/rw.m3)"
expect_kmsg "refusing a raw write past the unaligned size of an encrypted file"
# Once the block at the end is a hole, nothing in it would show: both go.
fscrypt-ioctl raw-punch "$enc" "$cut" 299008 4096 || fail "raw-punch of cut's last block"
fscrypt-ioctl raw-setsize "$enc" "$cut" 400000 || fail "raw-setsize of cut to 400000 past a hole"
fscrypt-ioctl raw-setsize "$enc" "$cut" 300000 || fail "raw-setsize of cut back to 300000"
fscrypt-ioctl raw-write "$enc" "$cut" 393216 /tmp/rw.p3 "$(cat /tmp/rw.m3)" >/dev/null ||
	fail "raw write past the end of cut, its last block a hole"
[ "$(stat -c %s "$cut")" = 524288 ] || fail "cut has $(stat -c %s "$cut") bytes, not 512 KiB"
fscrypt-ioctl raw-setsize "$enc" "$cut" 262144 || fail "raw-setsize of cut to 262144"
fscrypt-ioctl raw-setsize "$enc" "$cut" 1048576 || fail "raw-setsize of cut to 1 MiB"
[ "$(stat -c %s "$cut")" = 1048576 ] || fail "cut has $(stat -c %s "$cut") bytes, not 1 MiB"
# Where sectors are smaller than pages (ARCH=arm64-64k) btrfs makes no
# inline extents: inl's regular one is cut as any other.
dmesg_mark
if [ -z "${SECTORSIZE:-}" ]; then
	expect_errno EINVAL raw-setsize "$enc" "$inl" 3
	expect_kmsg "refusing a raw size change of an encrypted file inside its inline extent"
else
	fscrypt-ioctl raw-setsize "$enc" "$inl" 3 || fail "raw-setsize of inl's regular extent to 3"
fi
expect_errno EINVAL raw-setsize "$enc" "$inl" 20
fscrypt-ioctl raw-setsize "$enc" "$inl" 0 || fail "raw-setsize of inl to 0"
expect_errno EINVAL raw-punch "$enc" "$cut" 4096 100
expect_errno EINVAL raw-punch "$enc" "$cut" 100 4096
expect_errno EINVAL raw-punch "$enc" "$cut" 4096 0
expect_errno EFBIG raw-punch "$enc" "$cut" 4096 18446744073709547520
expect_errno EISDIR raw-setsize "$enc" "$enc" 0
expect_errno EINVAL raw-setsize "$enc" "$MNT/plain/f" 10
expect_errno_user EPERM raw-setsize "$enc" "$cut" 0
[ "$(stat -c %s "$cut")" = 1048576 ] && [ "$(stat -c %s "$inl")" = 0 ] &&
	[ "$(stat -c %s "$MNT/plain/f")" = 0 ] || fail "a refused SETSIZE or PUNCH changed a size"
echo "ok: cut punched, cut down to 300000 bytes and 256 KiB, grown to 1 MiB; inl emptied; refusals"

step "CLONE without the key"
cl=$(find "$enc" -inum "$ino_cl")
cl2=$(find "$enc" -inum "$ino_cl2")
inl2=$(find "$enc" -inum "$ino_inl2")
cl3=$(find "$enc" -inum "$ino_cl3")
# copy's eight extents at 0, and its second again past the end
fscrypt-ioctl raw-clone "$enc" "$cl" "$copy" 0 0 1048576 || fail "raw-clone of copy into cl"
fscrypt-ioctl raw-clone "$enc" "$cl" "$copy" 131072 1048576 131072 || fail "raw-clone of copy's part 1 past cl's end"
[ "$(stat -c %s "$cl")" = 1179648 ] || fail "cl has $(stat -c %s "$cl") bytes, not 1179648"
# Past an unaligned size, as a raw write: refused while the last block
# holds data, allowed once it is a hole (the rest of it is not zeroed)
fscrypt-ioctl raw-write "$enc" "$cl3" 0 /tmp/rw.p0 "$(cat /tmp/rw.m0)" >/dev/null || fail "raw write into cl3"
fscrypt-ioctl raw-setsize "$enc" "$cl3" 5000 || fail "raw-setsize of cl3 to 5000"
dmesg_mark
expect_errno EINVAL raw-clone "$enc" "$cl3" "$copy" 0 8192 4096
expect_kmsg "refusing a raw clone past the unaligned size of an encrypted file"
fscrypt-ioctl raw-punch "$enc" "$cl3" 4096 4096 || fail "raw-punch of cl3's last block"
fscrypt-ioctl raw-clone "$enc" "$cl3" "$copy" 131072 8192 4096 || fail "raw-clone past cl3's unaligned size, its last block a hole"
[ "$(stat -c %s "$cl3")" = 12288 ] || fail "cl3 has $(stat -c %s "$cl3") bytes, not 12288"
out=$(sh -c 'ulimit -f 16; trap "" XFSZ; exec fscrypt-ioctl --print-errno raw-clone "$1" "$2" "$3" 0 65536 4096' - "$enc" "$cl2" "$copy" 2>/dev/null) &&
	fail "raw-clone past RLIMIT_FSIZE succeeded"
[ "$out" = EFBIG ] || fail "raw-clone past RLIMIT_FSIZE: expected EFBIG, got '$out'"
expect_errno EINVAL raw-clone "$enc" "$cl" "$copy" 100 0 4096
expect_errno EINVAL raw-clone "$enc" "$cl" "$copy" 0 100 4096
expect_errno EINVAL raw-clone "$enc" "$cl" "$copy" 0 0 100
expect_errno EINVAL raw-clone "$enc" "$cl" "$copy" 0 0 0
expect_errno EINVAL raw-clone "$enc" "$cl" "$copy" 1048576 0 4096
expect_errno EINVAL raw-clone "$enc" "$cl" "$cl" 0 4096 8192
dmesg_mark
if [ -z "${SECTORSIZE:-}" ]; then
	expect_errno EINVAL raw-clone "$enc" "$cl2" "$inl2" 0 0 "$(stat -c %s "$inl2")"
	expect_kmsg "cannot clone the encrypted inline extent"
fi
expect_errno EINVAL raw-clone "$enc" "$MNT/plain/f" "$copy" 0 0 4096
expect_errno EINVAL raw-clone "$enc" "$cl2" "$MNT/plain/f" 0 0 4096
expect_errno EISDIR raw-clone "$enc" "$cl2" "$enc" 0 0 4096
expect_errno_user EPERM raw-clone "$enc" "$cl" "$copy" 0 0 4096
[ "$(stat -c %s "$cl")" = 1179648 ] && [ "$(stat -c %s "$cl2")" = 0 ] ||
	fail "a refused CLONE changed a size"
echo "ok: copy cloned into cl, twice; refusals"

step "btrfs check, then with the key: the copies read as the source"
sync
e2e_umount
for mode in original lowmem; do
	btrfs check --mode=$mode "$DISK1" >/tmp/rw.check.out 2>&1 ||
		{ cat /tmp/rw.check.out; fail "btrfs check --mode=$mode"; }
done
e2e_mount
e2e_add_key
cmp "$REF/big" "$enc/copy" || fail "copy does not read as big"
cmp "$REF/z" "$enc/zcopy" || fail "zcopy does not read as z"
{ head -c 131072 "$REF/big"; head -c 917504 /dev/zero; } >/tmp/rw.cut
cmp /tmp/rw.cut "$enc/cut" || fail "cut is not big's first 128 KiB and zeroes"
[ "$(stat -c %s "$enc/inl")" = 0 ] || fail "inl is not empty"
{ head -c 4096 "$REF/big"; head -c 4096 /dev/zero; head -c 135168 "$REF/big" | tail -c 4096; } | cmp - "$enc/cl3" ||
	fail "cl3 is not big's first block, a hole and big's block 32"
{ cat "$REF/big"; head -c 262144 "$REF/big" | tail -c 131072; } | cmp - "$enc/cl" ||
	fail "cl does not read as big and big's second 128 KiB"
fscrypt-ioctl extents "$enc/cl" | awk '$2 == "reg" { print $7 }' >/tmp/rw.clphys
fscrypt-ioctl extents "$enc/copy" | awk '$2 == "reg" { print $7 }' >/tmp/rw.copyphys
[ "$(wc -l </tmp/rw.clphys)" = 9 ] && [ "$(sort -u /tmp/rw.clphys | wc -l)" = 8 ] &&
	[ "$(sort -u /tmp/rw.clphys /tmp/rw.copyphys | wc -l)" = 8 ] ||
	fail "cl does not share copy's eight extents: $(tr '\n' ' ' </tmp/rw.clphys)"
fscrypt-ioctl extents "$enc/cut" | awk '$2 == "reg"' >/tmp/rw.cutext
[ "$(wc -l </tmp/rw.cutext)" = 1 ] || fail "cut has not one extent: $(cat /tmp/rw.cutext)"
fscrypt-ioctl extents "$enc/copy" | awk '$2 == "reg"' >/tmp/rw.copyext
awk '{ print $9 }' /tmp/rw.copyext | cmp - /tmp/rw.parts.ctx || fail "copy's extents do not carry the parts' contexts"
k=0
while read -r off _ _ disk_len _ _ phys _; do
	[ "$off" = $((k * 131072)) ] && [ "$disk_len" = 131072 ] || fail "copy's extent $k at $off, $disk_len bytes"
	read_bytes "$DISK1" "$phys" 131072 | cmp - "/tmp/rw.p$k" || fail "copy's extent $k: not part $k's ciphertext"
	k=$((k + 1))
done </tmp/rw.copyext
echo "ok: the copies' extents hold the parts' ciphertext and contexts"

step "with the key present: a raw write over cached plaintext, and fsync"
cat "$enc/copy" >/dev/null
fscrypt-ioctl raw-write "$enc" "$enc/copy" 0 /tmp/rw.p3 "$(cat /tmp/rw.m3)" || fail "raw write with the key"
read_bytes "$enc/copy" 0 131072 >/tmp/rw.got
read_bytes "$REF/big" 393216 131072 | cmp - /tmp/rw.got || fail "copy's first 128 KiB: not big's part 3 (page cache)"
drop_caches
read_bytes "$enc/copy" 0 131072 | cmp - /tmp/rw.got || fail "copy's first 128 KiB: not big's part 3 (from disk)"
# As an open for writing, a raw write refuses a running executable
# (busybox runs the applet its name says).
cp /bin/busybox "$enc/sleep"
"$enc/sleep" 30 &
bbpid=$!
sleep 1
kill -0 "$bbpid" || fail "the copy of busybox does not run"
expect_errno ETXTBSY raw-write "$enc" "$enc/sleep" 0 /tmp/rw.p3 "$(cat /tmp/rw.m3)"
kill "$bbpid"
wait "$bbpid" || true
cmp /bin/busybox "$enc/sleep" || fail "the running executable was written"
touch "$enc/f2"
fscrypt-ioctl raw-write "$enc" "$enc/f2" 131072 /tmp/rw.p5 "$(cat /tmp/rw.m5)" || fail "raw write into f2"
exec 3<"$enc/f2"
fscrypt-ioctl fsync-fd 3
exec 3<&-
read_bytes "$enc/f2" 131072 131072 >/tmp/rw.got
read_bytes "$REF/big" 655360 131072 | cmp - /tmp/rw.got || fail "f2 does not hold big's part 5"
[ "$(read_bytes "$enc/f2" 0 131072 | tr -d '\0' | wc -c)" = 0 ] || fail "f2's hole is not zeroes"

step "raw send: a version 2 context goes as version 1 and its first data unit"
btrfs subvolume snapshot -r "$MNT" "$MNT/snap" >/dev/null
btrfs send --raw -f /tmp/rw.raw.stream "$MNT/snap" || fail "send --raw"
btrfs receive --dump -f /tmp/rw.raw.stream | grep '^encoded_write ' | tr -d , >/tmp/rw.ew
n=0
while read -r l; do
	ctx=$(field "$l" fscrypt_extent_context)
	[ ${#ctx} = 70 ] && [ "$(echo "$ctx" | cut -c1-2)" = 01 ] ||
		fail "an extent context sent other than as version 1: $l"
	[ "$(field "$l" offset)" = 0 ] && [ "$(field "$l" fscrypt_first_du)" = 96 ] && n=$((n + 1))
done </tmp/rw.ew
# Only copy, whose first extent holds big's part 3, has one at offset 0.
[ $n = 1 ] || fail "$n pieces at offset 0 with first data unit 96, expected copy's"
echo "ok: copy's version 2 extent sent with first data unit 96"
no_csum_errors
e2e_umount

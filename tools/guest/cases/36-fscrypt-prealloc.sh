# SPDX-License-Identifier: GPL-2.0
# Preallocation in encrypted files: fallocate a range, write into parts of
# it (block-aligned and not): the written parts become new encrypted
# extents (writes never go in place into a preallocated extent), the rest
# stays preallocated and reads as zeros, also where a partial block was
# written. The file reads back byte for byte (page cache, disk, after a
# remount with the key, after more writes into the rest of the range and
# an extension by fallocate), and no marker of the written data is on the
# device, while an unencrypted preallocated file's marker is.
. /lib/test.sh
# Encryption with the rest of btrfs: on btrfs, whatever E2E_FS says.
E2E_FS=btrfs

mib=128
e2e_begin $mib
enc=$MNT/enc
e2e_encrypt "$enc"
mkdir "$MNT/plain"
dmesg_mark
rnd=$(head -c 8 /dev/urandom | xxd -p)
data=MARKERpreencdata$rnd
data2=MARKERpreencmore$rnd
pdata=MARKERpreplaindata$rnd
printf '%s\n' "$data" "$data2" "$pdata" >/tmp/markers
mkdir -p "$REF"
marker_file /tmp/aligned 65536 "$data"
marker_file /tmp/unaligned 5000 "$data"
marker_file /tmp/more 30000 "$data2"

# both FILE CMD...: runs CMD on $enc/FILE and on $REF/FILE (CMD's last
# argument is the file).
both() {
	f=$1
	shift
	"$@" "$enc/$f"
	"$@" "$REF/$f"
}
# write_at SRC OFFSET FILE: SRC's bytes into FILE at byte OFFSET, in place.
write_at() {
	dd if="$1" of="$3" bs=65536 seek="$2" oflag=seek_bytes conv=notrunc 2>/dev/null
}
check() {
	for f in pre zeros; do
		cmp "$REF/$f" "$enc/$f" || fail "enc/$f differs from its reference ($1)"
	done
	echo "ok: the files read back ($1)"
}

step "fallocate 1 MiB, then write 64 KiB at 256 KiB and 5000 bytes at 700001"
fallocate -l 1048576 "$enc/pre"
truncate -s 1048576 "$REF/pre"
fallocate -l 262144 "$enc/zeros"
truncate -s 262144 "$REF/zeros"
fscrypt-ioctl extents "$enc/pre" >/tmp/extents
cat /tmp/extents
awk '$2 != "prealloc" { bad = 1 } END { exit bad || !NR }' /tmp/extents ||
	fail "fallocate made other extents than preallocated ones"
both pre write_at /tmp/aligned 262144
both pre write_at /tmp/unaligned 700001
check "page cache"
sync
fscrypt-ioctl extents "$enc/pre" >/tmp/extents
cat /tmp/extents
encrypted_extents "$enc/pre"
# The written blocks are regular extents; the rest is still preallocated.
awk '
	function covers(type, from, to) { return $2 == type && $1 <= from && to <= $1 + $6 }
	covers("reg", 262144, 327680) { aligned = 1 }
	covers("reg", 696320, 708608) { unaligned = 1 }
	covers("prealloc", 0, 262144) { head = 1 }
	covers("prealloc", 327680, 696320) { middle = 1 }
	covers("prealloc", 708608, 1048576) { tail = 1 }
	END { if (!aligned || !unaligned || !head || !middle || !tail) {
		print "aligned " aligned ", unaligned " unaligned ", head " head ", middle " middle ", tail " tail
		exit 1 } }' /tmp/extents ||
	fail "the written blocks are not new regular extents amid the preallocated ones"
drop_caches
check "from disk"
# An unencrypted preallocated file, its marker written the same way.
fallocate -l 1048576 "$MNT/plain/pre"
marker_file /tmp/plain 65536 "$pdata"
write_at /tmp/plain 262144 "$MNT/plain/pre"

step "remount, with the key again"
e2e_umount
e2e_mount
[ "$(find "$enc" -type f | wc -l)" = 2 ] || fail "no-key listing of $enc"
e2e_add_key
[ "$(stat -c %s "$enc/pre")" = 1048576 ] || fail "size of pre after the remount"
check "after the remount"

step "more writes into the preallocated range, and an extension by fallocate"
both pre write_at /tmp/more 900000
fallocate -o 1048576 -l 262144 "$enc/pre"
truncate -s 1310720 "$REF/pre"
# fallocate over written and preallocated blocks changes nothing.
fallocate -o 0 -l 1048576 "$enc/pre"
check "page cache"
sync
drop_caches
check "from disk"
no_csum_errors
e2e_umount
drop_caches

expect_scan $mib "$pdata"

step "read back after a last remount"
e2e_mount
e2e_add_key
check "after the last remount"
e2e_umount

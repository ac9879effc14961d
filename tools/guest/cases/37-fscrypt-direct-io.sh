# SPDX-License-Identifier: GPL-2.0
# Direct I/O on encrypted files (busybox dd iflag=direct/oflag=direct, with
# page-aligned buffers): O_DIRECT writes (a whole file, an overwrite in the
# middle, a write at an unaligned offset and one past the end) and O_DIRECT
# reads give the right data, from the page cache, from disk and after a
# remount; the extents are encrypted and no marker of the data is on the
# device, while the marker of an unencrypted file written with O_DIRECT is.
# Without the key, an O_DIRECT open fails with ENOKEY.
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
data=MARKERdioencdata$rnd
pdata=MARKERdioplaindata$rnd
printf '%s\n' "$data" "$pdata" >/tmp/markers
mkdir -p "$REF"
marker_file "$REF/dio" 1048576 "$data"
random_file /tmp/mid 12288
random_file /tmp/odd 8192
random_file /tmp/past 65536

# dio_read FILE OUT: FILE read with O_DIRECT, 64 KiB at a time.
dio_read() { dd if="$1" of="$2" bs=65536 iflag=direct 2>/dev/null; }
check() {
	dio_read "$enc/dio" /tmp/dio.read
	cmp "$REF/dio" /tmp/dio.read || fail "O_DIRECT read differs from the reference ($1)"
	cmp "$REF/dio" "$enc/dio" || fail "buffered read differs from the reference ($1)"
	echo "ok: O_DIRECT and buffered reads ($1)"
}

step "O_DIRECT writes"
dd if="$REF/dio" of="$enc/dio" bs=65536 oflag=direct 2>/dev/null
# 3 blocks at block 37, in place.
dd if=/tmp/mid of="$enc/dio" bs=4096 seek=37 oflag=direct conv=notrunc 2>/dev/null
dd if=/tmp/mid of="$REF/dio" bs=4096 seek=37 conv=notrunc 2>/dev/null
# 8 KiB at an offset that is not block-aligned.
dd if=/tmp/odd of="$enc/dio" bs=8192 seek=300001 oflag=direct,seek_bytes conv=notrunc 2>/dev/null
dd if=/tmp/odd of="$REF/dio" bs=8192 seek=300001 oflag=seek_bytes conv=notrunc 2>/dev/null
# 64 KiB past the end, leaving a hole.
dd if=/tmp/past of="$enc/dio" bs=65536 seek=20 oflag=direct conv=notrunc 2>/dev/null
dd if=/tmp/past of="$REF/dio" bs=65536 seek=20 conv=notrunc 2>/dev/null
[ "$(stat -c %s "$enc/dio")" = 1376256 ] || fail "size $(stat -c %s "$enc/dio"), expected 1376256"
check "page cache"
sync
encrypted_extents "$enc/dio"
cat /tmp/extents
drop_caches
check "from disk"
# An unencrypted file written with O_DIRECT: the scan finds its marker.
marker_file /tmp/plain 262144 "$pdata"
dd if=/tmp/plain of="$MNT/plain/dio" bs=65536 oflag=direct 2>/dev/null
cmp /tmp/plain "$MNT/plain/dio" || fail "the unencrypted O_DIRECT file does not read back"

step "without the key: ENOKEY"
e2e_remove_key
f=$(cd "$enc" && ls)
[ "$(stat -c %s "$enc/$f")" = 1376256 ] || fail "size without the key"
expect_enokey dd if="$enc/$f" of=/dev/null bs=65536 iflag=direct
e2e_add_key
check "key added again"
no_csum_errors
e2e_umount
drop_caches

expect_scan $mib "$pdata"

step "after a remount with the key"
e2e_mount
e2e_add_key
check "after the remount"
e2e_umount

# SPDX-License-Identifier: GPL-2.0
# Encryption with compression mounted (compress=zstd, then
# compress-force=zstd): encrypted files with very compressible data read
# back byte for byte, their extents are compressed, then encrypted (zstd, on
# disk in less than a quarter of their size, with an encryption context),
# and no marker of their data or names is on the device, as for the
# unencrypted files next to them, which are compressed too. The compression
# property works on encrypted files and directories, also on a directory
# that had it before it was encrypted.
. /lib/test.sh
# Encryption with the rest of btrfs: on btrfs, whatever E2E_FS says.
E2E_FS=btrfs

mib=128
e2e_begin $mib
mount -o remount,compress=zstd "$MNT"
grep " $MNT " /proc/mounts | grep -q 'compress=zstd' || fail "not mounted with compress=zstd: $(grep " $MNT " /proc/mounts)"
enc=$MNT/enc
plain=$MNT/plain
e2e_encrypt "$enc"
mkdir "$plain"
dmesg_mark

rnd=$(head -c 8 /dev/urandom | xxd -p)
data=MARKERzencdata$rnd
name=MARKERzencname$rnd
forced=MARKERzforced$rnd
pdata=MARKERzplaindata$rnd
pname=MARKERzplainname$rnd
printf '%s\n' "$data" "$name" "$forced" "$pdata" "$pname" >/tmp/markers
mkdir -p "$REF"
marker_file "$REF/small" 1000 "$data"
marker_file "$REF/multi" 1048576 "$data"
# Where sectors are smaller than pages (SECTORSIZE: ARCH=arm64-64k), btrfs
# compresses whole pages only.
synced_size=200000
[ -z "${SECTORSIZE:-}" ] || synced_size=196608
marker_file "$REF/synced" "$synced_size" "$data"
marker_file "$REF/forced" 1048576 "$forced"
marker_file "$REF/plain" 1048576 "$pdata"

# not_compressed FILE: every extent item of FILE has compression 0.
not_compressed() {
	fscrypt-ioctl extents --compression "$1" >/tmp/zextents
	[ -s /tmp/zextents ] || fail "$1 has no extents"
	awk '$NF != 0 { print; bad = 1 } END { exit bad }' /tmp/zextents ||
		fail "$1 has compressed extents"
	echo "ok: $1: $(wc -l </tmp/zextents) extent item(s), none compressed"
}
# compressed FILE: every regular extent with data is zstd-compressed (3),
# the whole in less than a quarter of the bytes it holds.
compressed() {
	fscrypt-ioctl extents --compression "$1" >/tmp/zextents
	awk '$2 == "reg" && $3 != 0 { n++; disk += $4; ram += $6; if ($NF != 3) bad = 1 }
	     END { print n " extents, " disk " bytes on disk for " ram; exit bad || !n || disk * 4 > ram }' \
		/tmp/zextents >/tmp/zsum || {
		cat /tmp/zextents
		fail "$1 is not zstd-compressed: $(cat /tmp/zsum)"
	}
	echo "ok: $1 compressed: $(cat /tmp/zsum)"
}

step "compress=zstd: encrypted and unencrypted files of compressible data"
cp "$REF/small" "$enc/small"
cp "$REF/multi" "$enc/multi"
dd if="$REF/synced" of="$enc/synced-$name" bs=65536 conv=fsync 2>/dev/null
mkdir "$enc/dir-$name"
cp "$REF/multi" "$enc/dir-$name/f-$name"
cp "$REF/plain" "$plain/$pname"
sync
# A file of one block cannot save a block: it stays uncompressed.
not_compressed "$enc/small"
for f in multi "synced-$name" "dir-$name/f-$name"; do
	compressed "$enc/$f"
	encrypted_extents "$enc/$f"
done
compressed "$plain/$pname"

step "compress-force=zstd"
mount -o remount,compress-force=zstd "$MNT"
grep " $MNT " /proc/mounts | grep -q 'compress-force=zstd' || fail "not mounted with compress-force=zstd"
cp "$REF/forced" "$enc/forced"
cp "$REF/plain" "$plain/forced"
sync
compressed "$enc/forced"
encrypted_extents "$enc/forced"
compressed "$plain/forced"

step "the compression property on encrypted files and directories"
mount -o remount,compress=no "$MNT" 2>/dev/null || mount -o remount,compress-force=no "$MNT"
for p in "$enc/multi" "$enc"; do
	btrfs property set "$p" compression zstd || fail "property set compression on $p"
	btrfs property get "$p" compression | grep -q 'compression=zstd' ||
		fail "$p has no compression property"
done
cp "$REF/multi" "$enc/by-property"
sync
compressed "$enc/by-property"
encrypted_extents "$enc/by-property"
btrfs property set "$plain/forced" compression zstd
btrfs property get "$plain/forced" compression | grep -q 'compression=zstd' ||
	fail "the compression property of an unencrypted file"

step "a directory with the compression property, then encrypted"
mkdir "$MNT/zdir"
btrfs property set "$MNT/zdir" compression zstd
if fscrypt-ioctl set-policy "$MNT/zdir" "$KEYID" 2>/tmp/err; then
	echo "the policy was set on a directory with the compression property"
	cp "$REF/multi" "$MNT/zdir/multi"
	sync
	compressed "$MNT/zdir/multi"
	encrypted_extents "$MNT/zdir/multi"
else
	cat /tmp/err
	fail "set-policy on a directory with the compression property: $(cat /tmp/err)"
fi

step "read back from disk"
drop_caches
for f in small multi; do cmp "$REF/$f" "$enc/$f" || fail "enc/$f"; done
cmp "$REF/synced" "$enc/synced-$name" || fail "enc/synced-$name"
cmp "$REF/multi" "$enc/dir-$name/f-$name" || fail "enc/dir-$name/f-$name"
cmp "$REF/forced" "$enc/forced" || fail "enc/forced"
cmp "$REF/multi" "$enc/by-property" || fail "enc/by-property"
cmp "$REF/plain" "$plain/$pname" || fail "plain/$pname"
cmp "$REF/plain" "$plain/forced" || fail "plain/forced"
no_csum_errors
e2e_umount
drop_caches

# Names are not compressed: the scan finds the unencrypted one; zstd may
# keep one literal copy of the unencrypted data line, or none.
expect_scan $mib "$pname" "$pdata"

step "after a remount with the key"
e2e_mount
e2e_add_key
for f in small multi; do cmp "$REF/$f" "$enc/$f" || fail "enc/$f after the remount"; done
cmp "$REF/forced" "$enc/forced" || fail "enc/forced after the remount"
cmp "$REF/multi" "$MNT/zdir/multi" || fail "zdir/multi after the remount"
e2e_umount

# SPDX-License-Identifier: GPL-2.0
# "btrfs send --raw | btrfs receive" without the key (progs 0006 on patches
# 41-46): a plain subvolume holding an encrypted directory and a plain one,
# sent raw in full and incrementally, received on a second filesystem that
# never had the key. The encrypted directory holds the reference tree (hard
# link, symlinks), a 1 MiB file in one extent (sent in 128 KiB pieces), a
# small file (an inline extent), a compressed file, a fifo and a 255-byte
# name; the incremental stream adds a name swap, a directory move,
# an overwrite inside the 1 MiB file, a cut, a growth over a hole, a punched
# hole, a new and a removed file. Without the key the received snapshots
# show the source's no-key trees, and no marker of the encrypted files'
# plaintext is on the receiving device (the unencrypted file's is); once
# the key is added they read as the source (names, link counts, symlink
# targets, digests), and the 1 MiB file's first extent holds the source's
# ciphertext on both disks. Refused with a message: a raw stream with the
# key present on the receiving side (at its first encrypted entry), an
# encrypted subvolume (not supported yet) and a filesystem without the
# encrypt feature (both before anything is made), a stream with a key
# identifier byte changed in an inode context or an extent context (by
# progs for its checksum; with the checksum made again, fscrypt-ioctl
# stream-crc, by the kernel). btrfs check passes on the receiving
# filesystem.
. /lib/test.sh
E2E_FS=btrfs

e2e_begin
e2e_make_ref 1 4096 20000
R=/mnt/r
rnd=$(head -c 8 /dev/urandom | xxd -p)
data=MARKERrecvdata$rnd
name=MARKERrecvname$rnd

step "source on $DISK1: vol with enc (encrypted) and plain, two snapshots"
btrfs subvolume create "$MNT/vol" >/dev/null
e=$MNT/vol/enc
e2e_encrypt "$e"
e2e_copy_ref "$e"
marker_file "$e/big" 1048576 "$data"
marker_file "$e/small" 1000 "$data"
mount -o remount,compress-force=zstd "$MNT"
marker_file "$e/comp" 300000 "$data"
sync
mount -o remount,compress=no "$MNT"
marker_file "$e/grow" 5000 "$data"
marker_file "$e/holes" 65536 "$data"
mkfifo "$e/fifo"
echo long >"$e/$(name_of_length 255 n)"
echo "$name" >"$e/file-$name"
mkdir "$MNT/vol/plain"
plain=MARKERrecvplain$rnd
echo "$plain" >"$MNT/vol/plain/f"
mkdir "$MNT/snaps"
btrfs subvolume snapshot -r "$MNT/vol" "$MNT/snaps/vol.1" >/dev/null
# An encrypted subvolume, which raw receive does not make yet
btrfs subvolume create "$MNT/evol" >/dev/null
fscrypt-ioctl set-policy "$MNT/evol" "$KEYID"
echo e >"$MNT/evol/f"
btrfs subvolume snapshot -r "$MNT/evol" "$MNT/snaps/evol" >/dev/null
mv "$e/f1" "$e/tmp" && mv "$e/f4096" "$e/f1" && mv "$e/tmp" "$e/f4096"
mkdir "$e/moved"
mv "$e/d1/d2" "$e/moved/"
dd if=/dev/urandom of="$e/big" bs=4096 seek=40 count=1 conv=notrunc 2>/dev/null
truncate -s 300000 "$e/comp"
truncate -s 4096 "$e/grow" && truncate -s 10000 "$e/grow"
fscrypt-ioctl punch "$e/holes" 8192 16384
echo new >"$e/new"
rm "$e/file-$name"
sync
btrfs subvolume snapshot -r "$MNT/vol" "$MNT/snaps/vol.2" >/dev/null
for n in 1 2; do
	tree_modes "$MNT/snaps/vol.$n" >"/tmp/rv.$n.plain"
	digests "$MNT/snaps/vol.$n" >"/tmp/rv.$n.digests"
done
e2e_remove_key
for n in 1 2; do
	tree_modes "$MNT/snaps/vol.$n" >"/tmp/rv.$n.nokey"
done
btrfs send -q --raw -f /tmp/rv.1.stream "$MNT/snaps/vol.1" 2>/tmp/rv.err ||
	fail "send --raw of vol.1: $(cat /tmp/rv.err)"
btrfs send -q --raw -p "$MNT/snaps/vol.1" -f /tmp/rv.2.stream "$MNT/snaps/vol.2" 2>/tmp/rv.err ||
	fail "send --raw -p of vol.2: $(cat /tmp/rv.err)"
for n in 1 2; do
	! grep -q -F -e "$data" -e "$name" "/tmp/rv.$n.stream" || fail "a marker in the raw stream $n"
done
echo "ok: raw streams of vol.1 and vol.2 without the key, no marker in them"

step "received on $DISK2 without the key"
mkfs_btrfs_encrypt "$DISK2"
mount_btrfs "$DISK2" "$R"
for n in 1 2; do
	btrfs receive -vvv -f "/tmp/rv.$n.stream" "$R" >/tmp/rv.out 2>&1 ||
		fail "receive of stream $n: $(tail -n 8 /tmp/rv.out)"
	tree_modes "$R/vol.$n" >/tmp/rv.dst
	same "vol.$n without the key" "/tmp/rv.$n.nokey" /tmp/rv.dst
done
[ "$(btrfs subvolume show "$R/vol.2" | awk '/Received UUID/ { print $3 }')" != - ] ||
	fail "vol.2 has no received UUID"
echo "ok: vol.1 and vol.2 received without the key, the source's no-key trees"

step "with the key: names, contents, ciphertext"
[ "$(fscrypt-ioctl add-key "$R" <"$E2E_KEY")" = "$KEYID" ] || fail "add-key on $R: not key $KEYID"
e2e_add_key
for n in 1 2; do
	tree_modes "$R/vol.$n" >/tmp/rv.dst
	same "vol.$n with the key" "/tmp/rv.$n.plain" /tmp/rv.dst
	digests "$R/vol.$n" >/tmp/rv.dst
	same "vol.$n contents" "/tmp/rv.$n.digests" /tmp/rv.dst
done
src=$(fscrypt-ioctl extents "$MNT/snaps/vol.1/enc/big" | awk '$2 == "reg" && $1 == 0 { print $7 }')
dst=$(fscrypt-ioctl extents "$R/vol.1/enc/big" | awk '$2 == "reg" && $1 == 0 { print $7 }')
[ -n "$src" ] && [ -n "$dst" ] || fail "no first extent of big: '$src' '$dst'"
read_bytes "$DISK1" "$src" 131072 >/tmp/rv.ct1
read_bytes "$DISK2" "$dst" 131072 | cmp - /tmp/rv.ct1 || fail "big's first 128 KiB: not the same ciphertext on both disks"
echo "ok: with the key both snapshots read as the source; big's first extent holds the same ciphertext on both disks"

step "refused: the key present on the receiving side, an encrypted subvolume, no encrypt feature"
mkdir "$R/again"
btrfs receive -f /tmp/rv.1.stream "$R/again" >/tmp/rv.out 2>&1 &&
	fail "a raw receive with the key present succeeded"
grep -q "is present on the receiving filesystem" /tmp/rv.out || fail "no message: $(tail -n 3 /tmp/rv.out)"
drop_caches
fscrypt-ioctl remove-key "$R" "$KEYID" >/dev/null
btrfs send -q --raw -f /tmp/rv.e.stream "$MNT/snaps/evol" 2>/dev/null || fail "send --raw of evol"
mkdir "$R/e"
btrfs receive -f /tmp/rv.e.stream "$R/e" >/tmp/rv.out 2>&1 && fail "receive of an encrypted subvolume succeeded"
grep -q "not supported yet" /tmp/rv.out || fail "no message: $(tail -n 3 /tmp/rv.out)"
[ -z "$(ls "$R/e")" ] || fail "something was made in $R/e: $(ls "$R/e")"
mkfs_btrfs "$DISK3"
mount_btrfs "$DISK3" /mnt/p
btrfs receive -f /tmp/rv.1.stream /mnt/p >/tmp/rv.out 2>&1 && fail "a raw receive without the encrypt feature succeeded"
grep -q "does not have encryption enabled" /tmp/rv.out || fail "no message: $(tail -n 3 /tmp/rv.out)"
[ -z "$(ls /mnt/p)" ] || fail "something was made in /mnt/p: $(ls /mnt/p)"
umount /mnt/p
echo "ok: the three refused with a message, nothing made for the last two"

step "refused: a changed byte of an inode context, of an extent context"
btrfs receive --dump -f /tmp/rv.1.stream >/tmp/rv.1.dump || fail "receive --dump of stream 1"
# flip STREAM OUT HEX AT: OUT is STREAM with the byte AT bytes into the
# first place of the bytes HEX changed, and its checksums computed again.
flip() {
	pos=$(xxd -p "$1" | tr -d '\n' | awk -v h="$3" '{ print index($0, h) }')
	[ "$pos" -gt 0 ] && [ $((pos % 2)) = 1 ] || fail "$3 is not in $1"
	at=$(((pos - 1) / 2 + $4))
	b=$(dd if="$1" bs=1 skip="$at" count=1 2>/dev/null | xxd -p)
	cp "$1" "$2"
	printf "\\$(printf %o $((0x$b ^ 1)))" | dd of="$2" bs=1 seek="$at" conv=notrunc 2>/dev/null
	[ "$(dd if="$2" bs=1 skip="$at" count=1 2>/dev/null | xxd -p)" != "$b" ] || fail "no byte changed"
}
ictx=$(field "$(awk '$1 == "mkfile" && /fscrypt_context=/' /tmp/rv.1.dump | head -n 1)" fscrypt_context)
ectx=$(field "$(grep -m 1 '^encoded_write' /tmp/rv.1.dump)" fscrypt_extent_context)
[ ${#ictx} = 80 ] && [ ${#ectx} = 70 ] || fail "no inode or extent context in the dump: '$ictx' '$ectx'"
# The master key identifier: at byte 8 of an inode context, 3 of an extent's
flip /tmp/rv.1.stream /tmp/rv.t1.stream "$ictx" 8
mkdir "$R/t0" "$R/t1" "$R/t2"
btrfs receive -f /tmp/rv.t1.stream "$R/t0" >/tmp/rv.out 2>&1 && fail "a stream with a wrong checksum was received"
grep -q -i "crc" /tmp/rv.out || fail "no checksum error: $(tail -n 3 /tmp/rv.out)"
fscrypt-ioctl stream-crc /tmp/rv.t1.stream >/dev/null || fail "stream-crc"
dmesg_mark
btrfs receive -f /tmp/rv.t1.stream "$R/t1" >/tmp/rv.out 2>&1 && fail "a changed inode context was received"
expect_kmsg "not of the encryption policy of directory"
flip /tmp/rv.1.stream /tmp/rv.t2.stream "$ectx" 3
fscrypt-ioctl stream-crc /tmp/rv.t2.stream >/dev/null || fail "stream-crc"
dmesg_mark
btrfs receive -f /tmp/rv.t2.stream "$R/t2" >/tmp/rv.out 2>&1 && fail "a changed extent context was received"
expect_kmsg "Refusing an extent encryption context that is not of the file's policy"
echo "ok: a changed key identifier byte fails the checksum, and with the checksum made again the kernel refuses it"

step "the receiving device: no marker; btrfs check"
umount "$R"
drop_caches
printf '%s\n%s\n%s\n' "$data" "$name" "$plain" >/tmp/rv.markers
scan_device "$DISK2" $((256 * 1048576)) /tmp/rv.markers >/tmp/rv.scan
cat /tmp/rv.scan
# The unencrypted file's marker shows that the scan finds plaintext
[ "$(awk -v m="$plain" '$2 == m { print $1 }' /tmp/rv.scan)" -gt 0 ] ||
	fail "the scan does not find the unencrypted marker"
[ "$(awk -v m="$plain" '$1 != 0 && $2 != m' /tmp/rv.scan | wc -l)" = 0 ] ||
	fail "a marker of the encrypted files is on $DISK2 in plaintext"
btrfs check --readonly "$DISK2" >/tmp/check 2>&1 || fail "btrfs check $DISK2: $(tail -n 5 /tmp/check)"
echo "ok: no marker on $DISK2, btrfs check passes"
no_csum_errors
e2e_umount

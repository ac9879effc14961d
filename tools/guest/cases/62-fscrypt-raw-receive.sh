# SPDX-License-Identifier: GPL-2.0
# "btrfs send --raw | btrfs receive" without the key (progs 0006 on patches
# 38-45): a plain subvolume holding an encrypted directory and a plain one,
# and an encrypted subvolume, each sent raw in full and incrementally and
# received on a second filesystem that never had the key. The encrypted
# directory holds the reference tree (hard link, symlinks), a 1 MiB file in
# one extent (sent in 128 KiB pieces), a small file (an inline extent), a
# compressed file, a fifo and a 255-byte name; the incremental stream adds a
# name swap, a directory move, an overwrite inside the 1 MiB file, a cut, a
# growth over a hole, a punched hole, a new and a removed file, and a
# reflinked file in each stream (shared again on the receiver). The
# encrypted subvolume is received as one (made raw with its root context,
# root items flagged, the incremental's snapshot too), and so is a subvolume
# named in the encrypted directory, with a snapshot, into an empty directory
# that gets that directory's context (its nonce). Without the key the
# received snapshots show the source's no-key trees, and no marker of the
# encrypted files' plaintext is on the receiving device (the unencrypted
# file's is); once the key is added they read as the source (names, link
# counts, symlink targets, digests), and the 1 MiB file's first extent holds
# the source's ciphertext on both disks. Refused with a message: a raw
# stream with the key present on the receiving side (at its first encrypted
# entry; for the encrypted subvolume before anything is made, by its root
# context or its parent's root), a subvolume named in an encrypted
# directory into a directory that is not empty, a subvolume's root or of
# another nonce (and an empty one not given a context when the parent of
# an incremental stream is missing), one with a plain name into an
# encrypted directory, and a filesystem without the encrypt feature (those
# before anything is made), with 64 KiB pages ciphertext of 4 KiB data
# units onto 64 KiB sectors, a stream with a key identifier
# byte changed in an inode context or an extent context (by progs for its
# checksum; with the checksum made again, fscrypt-ioctl stream-crc, by the
# kernel). btrfs check passes on the receiving filesystem.
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
touch "$e/bigclone"
fscrypt-ioctl clone "$e/big" "$e/bigclone" || fail "clone of big"
marker_file "$e/keep" 65536 "$data"
mkdir "$MNT/vol/plain"
plain=MARKERrecvplain$rnd
echo "$plain" >"$MNT/vol/plain/f"
mkdir "$MNT/snaps"
btrfs subvolume snapshot -r "$MNT/vol" "$MNT/snaps/vol.1" >/dev/null
# An encrypted subvolume (its root flagged), and its incremental changes
ev=$MNT/evol
btrfs subvolume create "$ev" >/dev/null
fscrypt-ioctl set-policy "$ev" "$KEYID"
marker_file "$ev/f" 200000 "$data"
mkdir "$ev/d"
echo g >"$ev/d/g"
ln -s d/g "$ev/l"
sync
btrfs subvolume snapshot -r "$ev" "$MNT/snaps/evol.1" >/dev/null
mv "$ev/d/g" "$ev/g2"
echo h >"$ev/d/h"
dd if=/dev/urandom of="$ev/f" bs=4096 seek=10 count=2 conv=notrunc 2>/dev/null
rm "$ev/l"
sync
btrfs subvolume snapshot -r "$ev" "$MNT/snaps/evol.2" >/dev/null
mv "$e/f1" "$e/tmp" && mv "$e/f4096" "$e/f1" && mv "$e/tmp" "$e/f4096"
mkdir "$e/moved"
mv "$e/d1/d2" "$e/moved/"
dd if=/dev/urandom of="$e/big" bs=4096 seek=40 count=1 conv=notrunc 2>/dev/null
truncate -s 300000 "$e/comp"
truncate -s 4096 "$e/grow" && truncate -s 10000 "$e/grow"
fscrypt-ioctl punch "$e/holes" 8192 16384
echo new >"$e/new"
rm "$e/file-$name"
touch "$e/keep2"
fscrypt-ioctl clone "$e/keep" "$e/keep2" || fail "clone of keep"
sync
btrfs subvolume snapshot -r "$MNT/vol" "$MNT/snaps/vol.2" >/dev/null
# A subvolume named in the encrypted directory, and two snapshots there;
# sent raw while the key is present, which raw send never uses
n=$e/nested
btrfs subvolume create "$n" >/dev/null
echo n >"$n/f"
mkdir "$n/d"
marker_file "$n/d/m" 10000 "$data"
btrfs subvolume snapshot -r "$n" "$e/nested.1" >/dev/null
echo g >"$n/g"
rm "$n/f"
touch "$n/m2"
fscrypt-ioctl clone "$n/d/m" "$n/m2" || fail "clone of nested/d/m"
btrfs subvolume snapshot -r "$n" "$e/nested.2" >/dev/null
btrfs send -q --raw -f /tmp/rv.nested.1.stream "$e/nested.1" 2>/tmp/rv.err ||
	fail "send --raw of nested.1: $(cat /tmp/rv.err)"
btrfs send -q --raw -p "$e/nested.1" -f /tmp/rv.nested.2.stream "$e/nested.2" 2>/tmp/rv.err ||
	fail "send --raw -p of nested.2: $(cat /tmp/rv.err)"
for v in vol.1 vol.2 evol.1 evol.2; do
	tree_modes "$MNT/snaps/$v" >"/tmp/rv.$v.plain"
	digests "$MNT/snaps/$v" >"/tmp/rv.$v.digests"
done
for v in nested.1 nested.2; do
	tree_modes "$e/$v" >"/tmp/rv.$v.plain"
	digests "$e/$v" >"/tmp/rv.$v.digests"
done
fscrypt-ioctl get-nonce "$e" >/tmp/rv.enc.nonce
e2e_remove_key
for v in vol.1 vol.2 evol.1 evol.2; do
	tree_modes "$MNT/snaps/$v" >"/tmp/rv.$v.nokey"
done
for v in vol evol; do
	btrfs send -q --raw -f "/tmp/rv.$v.1.stream" "$MNT/snaps/$v.1" 2>/tmp/rv.err ||
		fail "send --raw of $v.1: $(cat /tmp/rv.err)"
	btrfs send -q --raw -p "$MNT/snaps/$v.1" -f "/tmp/rv.$v.2.stream" "$MNT/snaps/$v.2" 2>/tmp/rv.err ||
		fail "send --raw -p of $v.2: $(cat /tmp/rv.err)"
done
for f in /tmp/rv.*.stream; do
	! grep -q -F -e "$data" -e "$name" "$f" || fail "a marker in the raw stream $f"
done
echo "ok: raw streams of vol.1, vol.2, evol.1 and evol.2 without the key, of nested.1 and nested.2 with it, no marker in them"

step "received on $DISK2 without the key"
mkfs_btrfs_encrypt "$DISK2"
mount_btrfs "$DISK2" "$R"
mkdir "$R/e"
for v in vol.1 vol.2 evol.1 evol.2; do
	dst=$R
	case $v in evol*) dst=$R/e ;; esac
	btrfs receive -vvv -f "/tmp/rv.$v.stream" "$dst" >/tmp/rv.out 2>&1 ||
		fail "receive of $v: $(tail -n 8 /tmp/rv.out)"
	tree_modes "$dst/$v" >/tmp/rv.dst
	same "$v without the key" "/tmp/rv.$v.nokey" /tmp/rv.dst
	[ "$(btrfs subvolume show "$dst/$v" | awk '/Received UUID/ { print $3 }')" != - ] ||
		fail "$v has no received UUID"
done
# nested.1 and nested.2 go into an empty directory, which the first stream
# gives the context of enc, where their names are on the source
mkdir "$R/n"
for v in nested.1 nested.2; do
	btrfs receive -vvv -f "/tmp/rv.$v.stream" "$R/n" >/tmp/rv.out 2>&1 ||
		fail "receive of $v: $(tail -n 8 /tmp/rv.out)"
done
[ "$(fscrypt-ioctl get-nonce "$R/n")" = "$(cat /tmp/rv.enc.nonce)" ] || fail "n has not enc's nonce"
[ "$(ls "$R/n" | wc -l)" = 2 ] || fail "n: $(ls "$R/n")"
# evol.1, its snapshot evol.2, and nested.1 and nested.2 are encrypted
# subvolumes: their root items are flagged, as on the source, so that their
# snapshots stay encrypted; vol.1 and vol.2 are not
sync
btrfs inspect-internal dump-tree -t root "$DISK2" >/tmp/rv.roots
for v in e/evol.1 e/evol.2 vol.1; do
	id=$(btrfs subvolume show "$R/$v" | awk '/Subvolume ID:/ { print $3 }')
	echo "$id" >"/tmp/rv.id.${v#e/}"
done
for v in evol.1 evol.2; do
	grep -A 3 "($(cat "/tmp/rv.id.$v") ROOT_ITEM" /tmp/rv.roots | grep -q "SUBVOL_FSCRYPT" ||
		fail "$v is not flagged SUBVOL_FSCRYPT: $(grep -A 3 "($(cat "/tmp/rv.id.$v") ROOT_ITEM" /tmp/rv.roots)"
done
grep -A 3 "($(cat /tmp/rv.id.vol.1) ROOT_ITEM" /tmp/rv.roots | grep -q "SUBVOL_FSCRYPT" &&
	fail "vol.1, a plain subvolume, is flagged SUBVOL_FSCRYPT"
[ "$(grep -c SUBVOL_FSCRYPT /tmp/rv.roots)" = 4 ] ||
	fail "expected 4 encrypted subvolumes: $(grep -E 'flags 0x' /tmp/rv.roots)"
echo "ok: vol.1, vol.2, evol.1, evol.2, nested.1 and nested.2 received without the key, the first four as the source's no-key trees; the last four flagged encrypted"

step "with the key: names, contents, ciphertext"
[ "$(fscrypt-ioctl add-key "$R" <"$E2E_KEY")" = "$KEYID" ] || fail "add-key on $R: not key $KEYID"
e2e_add_key
for v in vol.1 vol.2 e/evol.1 e/evol.2 n/nested.1 n/nested.2; do
	tree_modes "$R/$v" >/tmp/rv.dst
	same "$v with the key" "/tmp/rv.${v#*/}.plain" /tmp/rv.dst
	digests "$R/$v" >/tmp/rv.dst
	same "$v contents" "/tmp/rv.${v#*/}.digests" /tmp/rv.dst
done
# Extents that reflinks share on the source are shared on the receiver:
# cloned by raw receive, from the stream itself (bigclone), from the
# parent snapshot or the stream (keep2, m2; the parent of nested.2 is
# found among the destination's entries)
shared() {
	a=$(fscrypt-ioctl extents "$1" | awk '$2 == "reg" { print $7 }' | sort -u | tr '\n' ' ')
	b=$(fscrypt-ioctl extents "$2" | awk '$2 == "reg" { print $7 }' | sort -u | tr '\n' ' ')
	[ -n "$a" ] && [ "$a" = "$b" ] || fail "$1 and $2 do not share their extents: '$a' '$b'"
}
shared "$R/vol.1/enc/big" "$R/vol.1/enc/bigclone"
shared "$R/vol.2/enc/keep" "$R/vol.2/enc/keep2"
shared "$R/n/nested.2/d/m" "$R/n/nested.2/m2"
echo "ok: bigclone, keep2 and m2 share their sources' extents on the receiver"
src=$(fscrypt-ioctl extents "$MNT/snaps/vol.1/enc/big" | awk '$2 == "reg" && $1 == 0 { print $7 }')
dst=$(fscrypt-ioctl extents "$R/vol.1/enc/big" | awk '$2 == "reg" && $1 == 0 { print $7 }')
[ -n "$src" ] && [ -n "$dst" ] || fail "no first extent of big: '$src' '$dst'"
read_bytes "$DISK1" "$src" 131072 >/tmp/rv.ct1
read_bytes "$DISK2" "$dst" 131072 | cmp - /tmp/rv.ct1 || fail "big's first 128 KiB: not the same ciphertext on both disks"
echo "ok: with the key the six snapshots read as the source; big's first extent holds the same ciphertext on both disks"

step "refused: the key present on the receiving side; for a subvolume named in an encrypted directory a destination that is not empty, a subvolume, or of another context; no encrypt feature"
mkdir "$R/again" "$R/again2"
btrfs receive -f /tmp/rv.vol.1.stream "$R/again" >/tmp/rv.out 2>&1 &&
	fail "a raw receive with the key present succeeded"
grep -q "is present on the receiving filesystem" /tmp/rv.out || fail "no message: $(tail -n 3 /tmp/rv.out)"
# An encrypted subvolume's key is found by its root context, before the
# subvolume is made; an incremental's by its parent's root, before the snapshot
btrfs receive -f /tmp/rv.evol.1.stream "$R/again2" >/tmp/rv.out 2>&1 &&
	fail "a raw receive of evol.1 with the key present succeeded"
grep -q "is present on the receiving filesystem" /tmp/rv.out || fail "no message: $(tail -n 3 /tmp/rv.out)"
[ -z "$(ls "$R/again2")" ] || fail "something was made in $R/again2: $(ls "$R/again2")"
btrfs receive -f /tmp/rv.evol.2.stream "$R/again2" >/tmp/rv.out 2>&1 &&
	fail "a raw receive of evol.2 with the key present succeeded"
grep -q "is present on the receiving filesystem" /tmp/rv.out || fail "no message: $(tail -n 3 /tmp/rv.out)"
[ -z "$(ls "$R/again2")" ] || fail "something was made in $R/again2: $(ls "$R/again2")"
drop_caches
fscrypt-ioctl remove-key "$R" "$KEYID" >/dev/null
# nested.1's stored name needs a destination of enc's context
mkdir "$R/n3" "$R/n4"
: >"$R/n3/x"
btrfs receive -f /tmp/rv.nested.1.stream "$R/n3" >/tmp/rv.out 2>&1 && fail "receive of nested.1 into a non-empty directory succeeded"
grep -q "the destination must be empty" /tmp/rv.out || fail "no message: $(tail -n 3 /tmp/rv.out)"
[ "$(ls "$R/n3")" = x ] || fail "something was made in $R/n3: $(ls "$R/n3")"
btrfs subvolume create "$R/sv" >/dev/null
btrfs receive -f /tmp/rv.nested.1.stream "$R/sv" >/tmp/rv.out 2>&1 && fail "receive of nested.1 into a subvolume's root succeeded"
grep -q "not a subvolume" /tmp/rv.out || fail "no message: $(tail -n 3 /tmp/rv.out)"
[ -z "$(ls "$R/sv")" ] || fail "something was made in $R/sv: $(ls "$R/sv")"
pctx=$(btrfs receive --dump -f /tmp/rv.nested.1.stream | sed -n 's/.*fscrypt_parent_context=\([0-9a-f]*\).*/\1/p' | head -n 1)
[ ${#pctx} = 80 ] || fail "no parent context in the dump of nested.1: '$pctx'"
# enc's context with another nonce
fscrypt-ioctl raw-set-context "$R/n4" "$(echo "$pctx" | cut -c1-48)$(head -c 16 /dev/urandom | xxd -p | tr -d '\n')" ||
	fail "raw-set-context n4"
btrfs receive -f /tmp/rv.nested.1.stream "$R/n4" >/tmp/rv.out 2>&1 && fail "receive of nested.1 into a directory of another nonce succeeded"
grep -q "not with the context" /tmp/rv.out || fail "no message: $(tail -n 3 /tmp/rv.out)"
[ -z "$(ls "$R/n4")" ] || fail "something was made in $R/n4: $(ls "$R/n4")"
# An incremental stream whose parent is not found: the empty destination
# does not get the context
mkdir "$R/n5"
btrfs receive -f /tmp/rv.nested.2.stream "$R/n5" >/tmp/rv.out 2>&1 && fail "receive of nested.2 without its parent succeeded"
! fscrypt-ioctl get-policy "$R/n5" >/dev/null 2>&1 || fail "n5 was given a context by a refused stream"
# A subvolume with a plain name into an encrypted destination
btrfs receive -f /tmp/rv.evol.1.stream "$R/n" >/tmp/rv.out 2>&1 && fail "receive of evol.1 into an encrypted directory succeeded"
grep -q "not encrypted on the sending side" /tmp/rv.out || fail "no message: $(tail -n 3 /tmp/rv.out)"
[ "$(ls "$R/n" | wc -l)" = 2 ] || fail "something was made in $R/n: $(ls "$R/n")"
mkfs_btrfs "$DISK3"
mount_btrfs "$DISK3" /mnt/p
btrfs receive -f /tmp/rv.vol.1.stream /mnt/p >/tmp/rv.out 2>&1 && fail "a raw receive without the encrypt feature succeeded"
grep -q "does not have encryption enabled" /tmp/rv.out || fail "no message: $(tail -n 3 /tmp/rv.out)"
[ -z "$(ls /mnt/p)" ] || fail "something was made in /mnt/p: $(ls /mnt/p)"
umount /mnt/p
# With 64 KiB pages (ARCH=arm64-64k), a filesystem of 64 KiB sectors: the
# ciphertext, in data units of the sender's 4 KiB sectors, cannot be
# stored there without the key
if [ -n "${SECTORSIZE:-}" ]; then
	mkfs.btrfs -q -f -O encrypt -s 65536 "$DISK3" >/dev/null
	mount_btrfs "$DISK3" /mnt/p
	btrfs receive -f /tmp/rv.vol.1.stream /mnt/p >/tmp/rv.out 2>&1 &&
		fail "a raw receive onto 64 KiB sectors succeeded"
	grep -q "in data units of 4096 bytes, this filesystem's sectors are of 65536" /tmp/rv.out ||
		fail "no message: $(tail -n 3 /tmp/rv.out)"
	umount /mnt/p
	echo "ok: ciphertext of 4 KiB data units refused on 64 KiB sectors"
fi
echo "ok: refused with a message, nothing made but for the first"

step "refused: a changed byte of an inode context, of an extent context"
btrfs receive --dump -f /tmp/rv.vol.1.stream >/tmp/rv.1.dump || fail "receive --dump of stream 1"
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
flip /tmp/rv.vol.1.stream /tmp/rv.t1.stream "$ictx" 8
mkdir "$R/t0" "$R/t1" "$R/t2"
btrfs receive -f /tmp/rv.t1.stream "$R/t0" >/tmp/rv.out 2>&1 && fail "a stream with a wrong checksum was received"
grep -q -i "crc" /tmp/rv.out || fail "no checksum error: $(tail -n 3 /tmp/rv.out)"
fscrypt-ioctl stream-crc /tmp/rv.t1.stream >/dev/null || fail "stream-crc"
dmesg_mark
btrfs receive -f /tmp/rv.t1.stream "$R/t1" >/tmp/rv.out 2>&1 && fail "a changed inode context was received"
expect_kmsg "not of the encryption policy of directory"
flip /tmp/rv.vol.1.stream /tmp/rv.t2.stream "$ectx" 3
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

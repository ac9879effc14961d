# SPDX-License-Identifier: GPL-2.0
# "btrfs send --raw": a stream of encrypted subvolumes made without their
# keys (stages K4 and K5 of docs/raw-send-plan.md; raw receive comes
# later). Paths through encrypted directories are the no-key names that ls
# shows without the key, an abbreviated one included; no plaintext name or
# symlink target is in the stream; each created encrypted inode carries its
# context as stored (key identifier and nonce), each entry created in an
# encrypted directory its stored name (checked against what its no-key name
# encodes, whole or abbreviated), an encrypted symlink its stored target;
# SUBVOL carries the raw flag and, for an encrypted subvolume, its root
# context and the name and context of the directory that holds it. Orphans
# in an encrypted root directory get 63-byte stored names, also in an
# incremental send (a name swap, a 255-byte rename, a new hard link, a
# directory move). The stream is the same with the key present: nothing is
# decrypted. File data goes as encoded writes of the extents as stored, with
# their contexts: a 1 MiB extent in 128 KiB pieces with the index of their
# first data unit, the rest of an extent whose first sector was overwritten
# from its second sector on, an inline extent as one short data unit,
# compressed extents whole; the device's ciphertext is in the stream, no
# plaintext, and no encrypted file is sent as plain writes. An incremental
# stream with data punches a hole and a preallocated range, sends the size
# of a file grown by fallocate, truncates a cut file before data that ends
# inside a sector, and sends a new file. Refused, with a
# message: a directory that became encrypted between the snapshots, a parent
# that is not a snapshot of the same subvolume, --proto 2 (by progs),
# stream versions other than 3 (by the kernel), and a receive of the raw
# stream of a subvolume named in an encrypted directory into the top of a
# filesystem, whose root would become encrypted (receive: case 62).
. /lib/test.sh
E2E_FS=btrfs

e2e_begin
e2e_make_ref 1 4096 20000
rnd=$(head -c 8 /dev/urandom | xxd -p)
name=MARKERrawname$rnd
target=MARKERrawtarget$rnd

# fill DIR: the reference tree, a marker name, a symlink to a marker target,
# a name of 255 bytes (abbreviated in its no-key form) and a fifo.
fill() {
	e2e_copy_ref "$1"
	echo data >"$1/file-$name"
	ln -s "$target" "$1/sym-$name"
	echo long >"$1/$(name_of_length 255 n)"
	mkfifo "$1/fifo"
}

btrfs subvolume create "$MNT/vol" >/dev/null
e2e_encrypt "$MNT/vol/enc"
fill "$MNT/vol/enc"
# File data: 1 MiB written at once (one extent, sent in 128 KiB pieces), a
# small file (an inline extent) and a compressed one.
data=MARKERrawdata$rnd
marker_file "$MNT/vol/enc/big" 1048576 "$data"
# mid: 300000 bytes in one extent whose first sector is then overwritten, so
# that the rest of it is sent from its second sector on.
sectorsize=$(btrfs inspect-internal dump-super "$DISK1" | awk '$1 == "sectorsize" { print $2 }')
marker_file "$MNT/vol/enc/mid" 300000 "$data"
sync
dd if=/dev/zero of="$MNT/vol/enc/mid" bs="$sectorsize" count=1 conv=notrunc 2>/dev/null
sync
marker_file "$MNT/vol/enc/small" 1000 "$data"
mount -o remount,compress-force=zstd "$MNT"
marker_file "$MNT/vol/enc/comp" 262144 "$data"
sync
mount -o remount,compress=no "$MNT"
echo plain >"$MNT/vol/plain"
mkdir "$MNT/vol/later"
btrfs subvolume create "$MNT/evol" >/dev/null
fscrypt-ioctl set-policy "$MNT/evol" "$KEYID"
fill "$MNT/evol"
marker_file "$MNT/evol/shrink" 50000 "$data"
btrfs subvolume snapshot -r "$MNT/vol" "$MNT/vol-ro" >/dev/null
e2e_encrypt "$MNT/snaps"
btrfs subvolume snapshot -r "$MNT/evol" "$MNT/snaps/snap1" >/dev/null
id1=$(btrfs inspect-internal rootid "$MNT/snaps/snap1")

# raw_send STREAM ARGS...: btrfs send --raw --no-data ARGS to STREAM.
raw_send() {
	out=$1
	shift
	btrfs send -q --raw --no-data -f "$out" "$@" 2>/tmp/send.err ||
		fail "btrfs send --raw --no-data $*: $(cat /tmp/send.err)"
}

# raw_send_data STREAM ARGS...: btrfs send --raw ARGS to STREAM, file data
# included.
raw_send_data() {
	out=$1
	shift
	btrfs send -q --raw -f "$out" "$@" 2>/tmp/send.err ||
		fail "btrfs send --raw $*: $(cat /tmp/send.err)"
}

# no_plaintext STREAM: no marker name or symlink target in STREAM.
no_plaintext() {
	! grep -q -a -F -e "$name" -e "$target" "$1" ||
		fail "$1 holds a plaintext name or symlink target"
	echo "ok: $1 holds no plaintext name or symlink target"
}

# nokey_names_sent DIR DUMP: every entry below DIR, listed without the key,
# is the last component of a rename destination or link of DUMP: the
# stream's paths are the no-key names the receiving kernel resolves.
nokey_names_sent() {
	(cd "$1" && find . -mindepth 1) | sed 's|.*/||' | sort -u >/tmp/names.ls
	awk '$1 == "rename" { for (i = 3; i <= NF; i++) if ($i ~ /^dest=/) print substr($i, 6) }
	     $1 == "link" { print $2 }' "$2" | sed 's|.*/||' | sort -u >/tmp/names.dump
	grep -v -x -F -f /tmp/names.dump /tmp/names.ls >/tmp/names.missing || true
	[ ! -s /tmp/names.missing ] ||
		fail "names listed below $1 that $2 does not create: $(head -3 /tmp/names.missing)"
	grep -q -E '^[A-Za-z0-9_-]{180,}$' /tmp/names.ls ||
		fail "no abbreviated no-key name below $1"
	echo "ok: the $(wc -l </tmp/names.ls) names listed below $1 without the key are those of $2"
}

# nokey_hex NAME: the stored name a no-key NAME stands for, in hex: whole
# for a short name; for an abbreviated one, its first 149 bytes and the
# SHA-256 of the rest.
nokey_hex() {
	b=$(echo "$1" | tr '_-' '/+')
	case $((${#b} % 4)) in
	2) b="$b==" ;;
	3) b="$b=" ;;
	esac
	echo "$b" | base64 -d | xxd -p | tr -d '\n' | cut -c17-
}

# stored_names_match DUMP: in every command of DUMP that carries a stored
# name, it is the one that the no-key name of its path's last component
# stands for.
stored_names_match() {
	n=0
	grep -E 'fscrypt_name(_to)?=' "$1" >/tmp/named
	while read -r line; do
		case $line in
		rename*) path=$(field "$line" dest) hex=$(field "$line" fscrypt_name_to) ;;
		*) path=$(echo "$line" | awk '{ print $2 }') hex=$(field "$line" fscrypt_name) ;;
		esac
		want=$(nokey_hex "${path##*/}")
		if [ ${#hex} -gt 298 ]; then
			sum=$(echo "$hex" | cut -c299- | xxd -r -p | sha256sum | cut -c1-64)
			hex=$(echo "$hex" | cut -c1-298)$sum
		fi
		[ "$hex" = "$want" ] || fail "a stored name that its no-key name does not stand for: $line"
		n=$((n + 1))
	done </tmp/named
	[ $n -gt 0 ] || fail "no stored name in $1"
	echo "ok: the $n stored names of $1 are those of their no-key names"
}

# contexts_sent DUMP INODES: DUMP creates INODES inodes with a context, each
# of 40 bytes with the key identifier $KEYID; their nonces are in
# /tmp/nonces.dump.
contexts_sent() {
	grep -E '^(mkfile|mkdir|symlink) ' "$1" >/tmp/creates
	while read -r line; do
		ctx=$(field "$line" fscrypt_context)
		[ -n "$ctx" ] || continue
		[ ${#ctx} = 80 ] || fail "a context of ${#ctx} hex digits: $line"
		[ "$(echo "$ctx" | cut -c17-48)" = "$KEYID" ] ||
			fail "a context without key $KEYID: $line"
		echo "$ctx" | cut -c49-80
	done </tmp/creates >/tmp/nonces.unsorted
	sort /tmp/nonces.unsorted >/tmp/nonces.dump
	[ "$(wc -l </tmp/nonces.dump)" = "$2" ] ||
		fail "$1 creates $(wc -l </tmp/nonces.dump) inodes with a context, not $2"
	echo "ok: $1 creates $2 inodes with contexts of key $KEYID"
}

step "raw send with the key present"
raw_send /tmp/vol.key.stream "$MNT/vol-ro"
raw_send /tmp/snap1.key.stream "$MNT/snaps/snap1"
# The nonces of the encrypted directories and files (symlinks cannot be
# opened), read with the key.
find "$MNT/vol-ro/enc" \( -type d -o -type f \) >/tmp/enc.paths
while read -r p; do fscrypt-ioctl get-nonce "$p"; done </tmp/enc.paths | sort -u >/tmp/nonces.ls
# Encrypted inodes below vol-ro/enc, enc included: hard links counted once.
inodes=$(find "$MNT/vol-ro/enc" \( -type d -o -type f -o -type l \) -exec stat -c %i {} + |
	sort -u | wc -l)
sinodes=$(find "$MNT/snaps/snap1" -mindepth 1 \( -type d -o -type f -o -type l \) \
	-exec stat -c %i {} + | sort -u | wc -l)
no_plaintext /tmp/vol.key.stream
no_plaintext /tmp/snap1.key.stream
raw_send_data /tmp/vol.data.key.stream "$MNT/vol-ro"
# Samples of the ciphertext of big's and mid's extents on the device, 64
# bytes at the start of each 128 KiB piece.
fscrypt-ioctl extents "$MNT/vol-ro/enc/big" >/tmp/big.extents
awk '$2 == "reg" { n++ } END { exit !n }' /tmp/big.extents || fail "big has no extent: $(cat /tmp/big.extents)"
fscrypt-ioctl extents "$MNT/vol-ro/enc/mid" >>/tmp/big.extents
while read -r off type bytenr dnb eoff nb phys ebyte ctx; do
	at=0
	while [ $at -lt "$nb" ]; do
		read_bytes "$DISK1" $((phys + eoff + at)) 64 | xxd -p | tr -d '\n'
		echo
		at=$((at + 131072))
	done
done </tmp/big.extents >/tmp/big.samples
# And 64 bytes at the start of each of comp's compressed extents.
fscrypt-ioctl extents "$MNT/vol-ro/enc/comp" --compression >/tmp/comp.extents
awk '$2 == "reg" && $10 != 0 { print $7 }' /tmp/comp.extents >/tmp/comp.phys
[ -s /tmp/comp.phys ] || fail "comp has no compressed extent: $(cat /tmp/comp.extents)"
while read -r phys; do
	read_bytes "$DISK1" "$phys" 64 | xxd -p | tr -d '\n'
	echo
done </tmp/comp.phys >>/tmp/big.samples
bigino=$(stat -c %i "$MNT/vol-ro/enc/big")
midino=$(stat -c %i "$MNT/vol-ro/enc/mid")

step "raw send without the key: the same streams"
e2e_remove_key
nokey1=
for p in "$MNT"/snaps/*; do
	[ "$(btrfs inspect-internal rootid "$p")" = "$id1" ] && nokey1=${p##*/}
done
[ -n "$nokey1" ] || fail "no-key name of snap1 not found: $(ls "$MNT/snaps")"
raw_send /tmp/vol.stream "$MNT/vol-ro"
raw_send /tmp/snap1.stream "$MNT/snaps/$nokey1"
cmp -s /tmp/vol.key.stream /tmp/vol.stream || fail "the raw stream of vol-ro differs with the key present"
cmp -s /tmp/snap1.key.stream /tmp/snap1.stream || fail "the raw stream of snap1 differs with the key present"
raw_send_data /tmp/vol.data.stream "$MNT/vol-ro"
cmp -s /tmp/vol.data.key.stream /tmp/vol.data.stream ||
	fail "the raw stream of vol-ro with file data differs with the key present"
echo "ok: the raw streams are the same with and without the key"
# nokey_of INO: the no-key name of inode INO of vol-ro/enc.
nokey_of() { ls -i "$MNT/vol-ro/enc" | awk -v i="$1" '$1 == i { print $2 }'; }
bigpath=./vol-ro/enc/$(nokey_of "$bigino")
midpath=./vol-ro/enc/$(nokey_of "$midino")

step "a subvolume with an encrypted directory: no-key paths, contexts, stored names"
btrfs receive --dump -f /tmp/vol.stream >/tmp/vol.dump || fail "receive --dump of the raw stream"
line=$(grep '^subvol ' /tmp/vol.dump)
[ "$(field "$line" fscrypt_flags)" = "0x1(raw)" ] || fail "SUBVOL without the raw flag: $line"
[ -z "$(field "$line" fscrypt_context)" ] || fail "SUBVOL of an unencrypted subvolume with a context: $line"
nokey_names_sent "$MNT/vol-ro" /tmp/vol.dump
contexts_sent /tmp/vol.dump "$inodes"
grep -v -x -F -f /tmp/nonces.dump /tmp/nonces.ls >/tmp/nonces.missing || true
[ ! -s /tmp/nonces.missing ] || fail "nonces on disk that the stream does not carry: $(head -3 /tmp/nonces.missing)"
echo "ok: the contexts carry the $(wc -l </tmp/nonces.ls) nonces of the files and directories"
# Every entry renamed into enc, or linked there, has its stored name.
grep -E '^(rename|link) ' /tmp/vol.dump | grep -E '(dest=| )\./vol-ro/enc/' >/tmp/enc.moves
[ -s /tmp/enc.moves ] || fail "nothing is renamed or linked into enc"
while read -r line; do
	case $line in
	rename*) n=$(field "$line" fscrypt_name_to) ;;
	*) n=$(field "$line" fscrypt_name) ;;
	esac
	[ -n "$n" ] || fail "an entry of enc without its stored name: $line"
done </tmp/enc.moves
grep -q 'fscrypt_name_to_len=255 ' /tmp/vol.dump || fail "the 255-byte stored name is not sent"
grep -E '^rename ' /tmp/vol.dump | grep -F 'dest=./vol-ro/plain' >/tmp/plain.rename ||
	fail "no rename to ./vol-ro/plain"
grep -q fscrypt_name /tmp/plain.rename && fail "a plaintext entry carries a stored name"
stored_names_match /tmp/vol.dump
# The encrypted symlinks carry their stored targets, never a dest=.
[ "$(grep -c -E '^symlink .*fscrypt_symlink_len=' /tmp/vol.dump)" = 3 ] ||
	fail "not 3 encrypted symlinks with stored targets: $(grep '^symlink' /tmp/vol.dump)"
grep -E '^symlink ' /tmp/vol.dump | grep -q 'dest=' && fail "an encrypted symlink is sent with a target path"
echo "ok: $(wc -l </tmp/enc.moves) entries of enc and 3 symlinks are sent as stored"

step "file data: extents as stored, with their contexts"
grep -q -a -F "$data" /tmp/vol.data.stream && fail "the raw stream holds plaintext file data"
btrfs receive --dump -f /tmp/vol.data.stream >/tmp/vol.data.dump || fail "receive --dump of the raw stream with data"
# Only the unencrypted file is sent as plain writes.
grep '^write ' /tmp/vol.data.dump | grep -v -F ' ./vol-ro/plain ' >/tmp/plain.writes &&
	fail "encrypted files sent as plain writes: $(head -3 /tmp/plain.writes)"
grep '^encoded_write ' /tmp/vol.data.dump >/tmp/ew
[ -s /tmp/ew ] || fail "no encoded write in the raw stream"
while read -r line; do
	[ "$(field "$line" encryption)" = 1 ] || fail "an encoded write that is not encrypted: $line"
	ctx=$(field "$line" fscrypt_extent_context)
	if [ ${#ctx} != 70 ] || [ "$(echo "$ctx" | cut -c7-38)" != "$KEYID" ]; then
		fail "an encoded write without an extent context of key $KEYID: $line"
	fi
done </tmp/ew
# big: 8 pieces of 128 KiB of one extent, the 7 after the first with the
# index of their first data unit.
step_du=$((131072 / sectorsize))
grep -F "encoded_write   $bigpath " /tmp/ew >/tmp/big.ew
[ "$(wc -l </tmp/big.ew)" = 8 ] || fail "big is not sent in 8 pieces of 128 KiB: $(cat /tmp/big.ew)"
[ "$(while read -r l; do field "$l" fscrypt_extent_context; done </tmp/big.ew | sort -u | wc -l)" = 1 ] ||
	fail "the pieces of big carry different contexts"
while read -r l; do field "$l" fscrypt_first_du; done </tmp/big.ew | sort -n | tr '\n' ' ' >/tmp/big.du
want=$(i=1; while [ $i -lt 8 ]; do printf '%d ' $((i * step_du)); i=$((i + 1)); done)
[ "$(cat /tmp/big.du)" = "$want" ] || fail "first data units of big's pieces: $(cat /tmp/big.du), expected $want"
# mid: after its new first sector, pieces of the old extent that start at
# its second sector: the index of their first data unit counts from the
# extent's first sector, the last piece ends at the file's end, its data at
# the next sector boundary.
want=
at=$sectorsize
while [ $at -lt 300000 ]; do
	n=$((300000 - at))
	[ $n -le 131072 ] || n=131072
	want="$want$at $n $(((n + sectorsize - 1) / sectorsize * sectorsize)) $((at / sectorsize));"
	at=$((at + 131072))
done
got=$(grep -F "encoded_write   $midpath " /tmp/ew | tr -d , | while read -r l; do
	off=$(field "$l" offset)
	[ "$off" = 0 ] && continue
	echo "$off $(field "$l" unencoded_file_len) $(field "$l" unencoded_len) $(field "$l" fscrypt_first_du);"
done | sort -n | tr -d '\n')
[ "$got" = "$want" ] || fail "the pieces of mid (offset, length, data length, first data unit): $got, expected $want"
# small: one short data unit of 1000 bytes, padded to 1008. Where sectors
# are smaller than pages (ARCH=arm64-64k) btrfs makes no inline extents.
if [ -z "${SECTORSIZE:-}" ]; then
	grep -q 'len=1008, unencoded_file_len=1000, unencoded_len=1000, .* fscrypt_inline=1' /tmp/ew ||
		fail "the inline extent of small is not sent as one: $(grep fscrypt_inline /tmp/ew)"
else
	! grep -q 'fscrypt_inline=1' /tmp/ew || fail "an inline extent sent where btrfs makes none"
fi
# comp: zstd (2) extents, whole.
[ "$(grep -c 'compression=2, encryption=1' /tmp/ew)" -ge 2 ] ||
	fail "the compressed extents of comp are not sent encoded: $(grep 'compression=2' /tmp/ew)"
xxd -p /tmp/vol.data.stream | tr -d '\n' >/tmp/stream.hex
while read -r sample; do
	grep -q -F "$sample" /tmp/stream.hex || fail "ciphertext of big on the device is not in the stream: $sample"
done </tmp/big.samples
grep -q " fscrypt_data_unit_size=$sectorsize" /tmp/ew || fail "no data unit size $sectorsize: $(head -n 1 /tmp/ew)"
echo "ok: $(wc -l </tmp/ew) encoded writes carry ciphertext and contexts; the device's ciphertext of big and comp is in the stream"

step "an encrypted subvolume: root context, parent directory, 63-byte orphans"
btrfs receive --dump -f /tmp/snap1.stream >/tmp/snap1.dump || fail "receive --dump of the raw stream"
line=$(grep '^subvol ' /tmp/snap1.dump)
[ "$(echo "$line" | awk '{ print $2 }')" = "./$nokey1" ] || fail "SUBVOL path is not the no-key name $nokey1: $line"
[ "$(field "$line" fscrypt_flags)" = "0x1(raw)" ] || fail "SUBVOL without the raw flag: $line"
for f in fscrypt_context fscrypt_name fscrypt_parent_context; do
	[ -n "$(field "$line" $f)" ] || fail "SUBVOL of an encrypted subvolume in an encrypted directory without $f: $line"
done
[ "$(field "$line" fscrypt_context | cut -c17-48)" = "$KEYID" ] || fail "the root context: $line"
contexts_sent /tmp/snap1.dump "$sinodes"
# Orphans are created in the encrypted root directory: a stored name of 63
# bytes, "o<ino>-<gen>-<idx>" padded with '_'.
grep -E '^(mkfile|mkdir|symlink|mkfifo) ' /tmp/snap1.dump >/tmp/snap1.creates
while read -r line; do
	[ "$(field "$line" fscrypt_name_len)" = 63 ] || fail "an orphan without a 63-byte stored name: $line"
	field "$line" fscrypt_name | xxd -r -p | grep -q -E '^o[0-9]+-[0-9]+-[0-9]+_+$' ||
		fail "an orphan's stored name is not a padded orphan name: $line"
done </tmp/snap1.creates
nokey_names_sent "$MNT/snaps/$nokey1" /tmp/snap1.dump
stored_names_match /tmp/snap1.dump
echo "ok: $(wc -l </tmp/snap1.creates) inodes are created under 63-byte orphan names"

step "incremental raw send: an orphan of the encrypted root directory"
e2e_add_key
e=$MNT/evol
mv "$e/f1" "$e/t"
mv "$e/f4096" "$e/f1"
mv "$e/t" "$e/f4096"
rm "$e/sym-$name"
ln -s "$target-2" "$e/sym-$name"
# A 255-byte name renamed (abbreviated no-key names on both sides), a new
# hard link, and a directory moved into a new one (a pending move).
mv "$e/$(name_of_length 255 n)" "$e/$(name_of_length 255 m)"
ln "$e/f20000" "$e/d1/hard2"
mkdir "$e/moved"
mv "$e/d1/d2" "$e/moved/"
# Data: in an existing file, a hole punched (no item with no-holes) and a
# preallocated extent where data was; a file grown by fallocate; a file cut
# to an unaligned size whose last sector is then written; and a new file.
fscrypt-ioctl punch "$e/f20000" 4096 8192
fscrypt-ioctl punch "$e/f20000" 12288 4096
fallocate -o 12288 -l 4096 "$e/f20000"
fallocate -l 40960 "$e/f4096"
truncate -s 30001 "$e/shrink"
echo changed | dd of="$e/shrink" bs=1 seek=29000 conv=notrunc 2>/dev/null
fscrypt-ioctl extents "$e/f20000" >/tmp/f20000.extents
awk '$1 == 12288 && $2 == "prealloc" { n++ } END { exit !n }' /tmp/f20000.extents ||
	fail "no preallocated extent at 12288 of f20000: $(cat /tmp/f20000.extents)"
marker_file "$e/new" 200000 "$data"
btrfs subvolume snapshot -r "$e" "$MNT/snaps/snap2" >/dev/null
id2=$(btrfs inspect-internal rootid "$MNT/snaps/snap2")
e2e_remove_key
nokey2=
for p in "$MNT"/snaps/*; do
	[ "$(btrfs inspect-internal rootid "$p")" = "$id2" ] && nokey2=${p##*/}
done
raw_send /tmp/snap2.stream -p "$MNT/snaps/$nokey1" "$MNT/snaps/$nokey2"
no_plaintext /tmp/snap2.stream
btrfs receive --dump -f /tmp/snap2.stream >/tmp/snap2.dump || fail "receive --dump of the raw incremental stream"
grep '^rename ' /tmp/snap2.dump | grep 'fscrypt_name_to_len=63 ' >/tmp/snap2.orphans ||
	fail "no rename to an orphan: $(grep '^rename' /tmp/snap2.dump | head -3)"
field "$(head -n 1 /tmp/snap2.orphans)" fscrypt_name_to | xxd -r -p | grep -q -E '^o[0-9]+-[0-9]+-[0-9]+_+$' ||
	fail "the orphan's stored name: $(head -n 1 /tmp/snap2.orphans)"
grep -q -E '^symlink .*fscrypt_symlink_len=' /tmp/snap2.dump || fail "the new symlink is not sent as stored"
line=$(grep '^snapshot ' /tmp/snap2.dump)
[ "$(field "$line" fscrypt_flags)" = "0x1(raw)" ] || fail "SNAPSHOT without the raw flag: $line"
if [ -z "$(field "$line" fscrypt_name)" ] || [ -z "$(field "$line" fscrypt_parent_context)" ]; then
	fail "SNAPSHOT in an encrypted directory without its stored name and context: $line"
fi
[ -z "$(field "$line" fscrypt_context)" ] || fail "SNAPSHOT with a root context: $line"
# A file's new name is a link, then an unlink of the old one.
grep '^link ' /tmp/snap2.dump | grep -q 'fscrypt_name_len=255 ' ||
	fail "the renamed 255-byte name is not linked with its stored name"
[ "$(grep '^link ' /tmp/snap2.dump | grep -c 'fscrypt_name=')" -ge 2 ] ||
	fail "the new hard link is not sent with its stored name: $(grep '^link ' /tmp/snap2.dump)"
stored_names_match /tmp/snap2.dump
raw_send_data /tmp/snap2.data.stream -p "$MNT/snaps/$nokey1" "$MNT/snaps/$nokey2"
grep -q -a -F "$data" /tmp/snap2.data.stream && fail "the raw incremental stream holds plaintext file data"
btrfs receive --dump -f /tmp/snap2.data.stream >/tmp/snap2.data.dump ||
	fail "receive --dump of the raw incremental stream with data"
grep -q '^write ' /tmp/snap2.data.dump && fail "plain writes in a raw incremental stream: $(grep '^write ' /tmp/snap2.data.dump | head -3)"
grep -q -E '^fallocate .* mode=3 offset=4096 len=8192$' /tmp/snap2.data.dump ||
	fail "the punched hole is not sent: $(grep '^fallocate' /tmp/snap2.data.dump)"
grep -q -E '^fallocate .* mode=3 offset=12288 len=4096$' /tmp/snap2.data.dump ||
	fail "the preallocated extent is not sent as a hole: $(grep '^fallocate' /tmp/snap2.data.dump)"
# A punch does not grow a file: the new size of the file grown by fallocate
# is sent.
grep -q -E '^truncate .* size=40960$' /tmp/snap2.data.dump ||
	fail "the size of the file grown by fallocate is not sent: $(grep -E '^(truncate|fallocate)' /tmp/snap2.data.dump)"
# The cut file: truncated to its last sector before the data that ends
# inside it (an encoded write must end at the size), then to its size.
grep -E '^(truncate|encoded_write) ' /tmp/snap2.data.dump | tr -d , |
	awk '$NF == "size=28672" { t = NR } $NF == "size=30001" { s = NR }
	     / offset=28672 / && / unencoded_file_len=1329 / { w = NR }
	     END { exit !(t && w && s && t < w && w < s) }' ||
	fail "the cut file is not truncated to 28672, written to 30001 and truncated to 30001: $(grep -E '^(truncate|encoded_write) ' /tmp/snap2.data.dump)"
grep '^encoded_write ' /tmp/snap2.data.dump >/tmp/snap2.ew
# In a changed file an inline extent is sent again (is_extent_unchanged()
# compares regular extents only): the grown file's 1 byte. Where btrfs
# makes no inline extents (ARCH=arm64-64k), the grown file's first sector,
# a regular extent that the growth rewrote, goes whole: 4096 bytes.
grown=1
[ -z "${SECTORSIZE:-}" ] || grown=4096
[ "$(tr -d , </tmp/snap2.ew | awk '{ for (i = 3; i <= NF; i++) if ($i ~ /^unencoded_file_len=/) n += substr($i, 20) } END { print n }')" = $((201329 + grown)) ] ||
	fail "the new file's 200000 bytes, the cut file's last 1329 and the inline byte of the grown file are not sent as encoded writes: $(cat /tmp/snap2.ew)"
grep -v -q 'encryption=1 fscrypt_extent_context=' /tmp/snap2.ew && fail "an encoded write without its context: $(cat /tmp/snap2.ew)"
echo "ok: the incremental raw stream punches a hole and a preallocated range, sends a grown size, truncates before an unaligned end, and sends a new file's 200000 bytes encoded"
echo "ok: the name swap goes through $(wc -l </tmp/snap2.orphans) orphan(s) with 63-byte stored names"

step "refused: contexts changed since the parent, --proto 2"
e2e_add_key
fscrypt-ioctl set-policy "$MNT/vol/later" "$KEYID"
btrfs subvolume snapshot -r "$MNT/vol" "$MNT/vol-ro2" >/dev/null
dmesg_mark
btrfs send -q --raw --no-data -f /tmp/later.stream -p "$MNT/vol-ro" "$MNT/vol-ro2" 2>/tmp/send.err &&
	fail "a raw incremental send over a directory that became encrypted succeeded"
expect_kmsg "has another encryption context than in parent root"
# A parent that is not a snapshot of the same subvolume: other root contexts.
dmesg_mark
btrfs send -q --raw --no-data -f /tmp/unrelated.stream -p "$MNT/vol-ro" "$MNT/snaps/snap1" 2>/tmp/send.err &&
	fail "a raw incremental send from an unrelated parent succeeded"
expect_kmsg "inode 256 of root $id1 has another encryption context than in parent root"
btrfs send -q --raw --no-data --proto 2 -f /tmp/p2.stream "$MNT/vol-ro" 2>/tmp/send.err &&
	fail "raw send with --proto 2 succeeded"
grep -q -- "--raw requires protocol version 3" /tmp/send.err || fail "--raw --proto 2: $(cat /tmp/send.err)"
# The kernel's own checks of the flag, asked for as a caller other than
# progs would: version 3 makes the stream that progs gets, others fail.
# raw_refused VERSION ERRNO: BTRFS_IOC_SEND of vol-ro, raw, with stream
# VERSION (0: no VERSION flag, so version 1) fails with ERRNO.
raw_refused() {
	got=$(fscrypt-ioctl --print-errno send-raw "$MNT/vol-ro" /tmp/k.stream "$1" 2>/dev/null) &&
		fail "BTRFS_IOC_SEND of a raw stream, version $1, succeeded"
	[ "$got" = "$2" ] || fail "BTRFS_IOC_SEND of a raw stream, version $1: $got, expected $2"
}
dmesg_mark
raw_refused 0 EINVAL
expect_kmsg "raw send needs stream version 3, not 1"
dmesg_mark
raw_refused 2 EINVAL
expect_kmsg "raw send needs stream version 3, not 2"
raw_refused 4 EPROTO
fscrypt-ioctl send-raw "$MNT/vol-ro" /tmp/k.stream 3 || fail "BTRFS_IOC_SEND of a raw stream, version 3"
cmp -s /tmp/k.stream /tmp/vol.data.stream || fail "BTRFS_IOC_SEND's raw stream is not the one btrfs send --raw wrote"
echo "ok: the kernel refuses raw streams of versions 1, 2 and 4 (EINVAL, EINVAL, EPROTO)"

step "refused: a raw stream of a subvolume named in an encrypted directory, into a subvolume's root, creates nothing"
mkfs_btrfs_encrypt "$DISK2"
mount_btrfs "$DISK2" /mnt/r
btrfs receive -f /tmp/snap1.stream /mnt/r 2>/tmp/receive.err &&
	fail "a receive of snap1's raw stream into a subvolume's root succeeded"
grep -q "receive it into an empty directory that is not a subvolume" /tmp/receive.err ||
	fail "receive: $(cat /tmp/receive.err)"
[ -z "$(ls /mnt/r)" ] || fail "the refused receive left $(ls /mnt/r)"
umount /mnt/r
no_csum_errors
e2e_umount

# SPDX-License-Identifier: GPL-2.0
# btrfs-progs on what the kernel encrypts. The kernel builds an encrypted
# filesystem: two encrypted directories (AES-256-XTS, and Adiantum with
# DIRECT_KEY) and an unencrypted one, each with files of several sizes, an
# empty file, long names, a subdirectory, a short and a long symlink, a hard
# link, a fifo, a preallocated and a partly written preallocated file, a
# sparse file, a compressed file (compression property, an xattr) and a
# reflink; an encrypted subvolume with a snapshot and a read-only snapshot in
# it; and a second filesystem without no-holes (explicit hole extents).
# Then, unmounted:
# - btrfs check passes in both modes (original and lowmem);
# - dump-tree decodes the context item (modes, key identifier, the file's
#   nonce as FS_IOC_GET_ENCRYPTION_NONCE reads it), the FSCRYPT_CONTEXT and
#   SUBVOL_FSCRYPT flags, the encryption byte and the extent context (the
#   key identifier and nonce that "fscrypt-ioctl extents" reads), the
#   encrypted-name flag, ENCRYPT in dump-super, and prints no byte that is
#   not printable ASCII (encrypted names escaped);
# - on copies corrupted with btrfs-corrupt-block, both modes fail with the
#   message that names the problem: a deleted context item of an encrypted
#   file, a cleared encryption byte of an encrypted extent (in the
#   subvolume), a cleared encrypted-name flag of a dir index in an
#   encrypted directory; and --repair refuses the filesystem.
. /lib/test.sh
E2E_FS=btrfs

mib=128
e2e_begin $mib
enc=$MNT/enc
e2e_encrypt "$enc"
e2e_encrypt "$MNT/adiantum" --contents=adiantum --filenames=adiantum --flags=direct_key
mkdir "$MNT/plain"

step "fill the directories"
long=$(name_of_length 255 L)
for d in "$enc" "$MNT/adiantum" "$MNT/plain"; do
	: >"$d/empty"
	printf x >"$d/one"
	random_file "$d/f4000" 4000
	random_file "$d/f4096" 4096
	random_file "$d/f70000" 70000
	random_file "$d/f1m" 1048576
	mkdir -p "$d/sub/deeper"
	random_file "$d/sub/deeper/nested" 5000
	random_file "$d/$long" 9000
	ln -s sub/deeper/nested "$d/link"
	ln -s "$E2E_LONG_TARGET" "$d/longlink"
	ln "$d/f4000" "$d/sub/hard"
	mkfifo "$d/fifo"
	fallocate -l 1048576 "$d/prealloc"
	fallocate -l 262144 "$d/prealloc-part"
	dd if=/dev/urandom of="$d/prealloc-part" bs=4096 seek=8 count=4 conv=notrunc 2>/dev/null
	dd if=/dev/urandom of="$d/sparse" bs=4096 seek=100 count=2 2>/dev/null
	: >"$d/z"
	btrfs property set "$d/z" compression zstd
	# Whole 64 KiB pages: btrfs compresses nothing else where sectors are
	# smaller than pages (make integration ARCH=arm64-64k).
	yes compressible | head -c 327680 >"$d/z"
	fscrypt-ioctl clone "$d/f1m" "$d/reflink"
done
sync
encrypted_extents "$enc/f1m"
cp /tmp/extents /tmp/f1m.extents
nonce=$(fscrypt-ioctl get-nonce "$enc/f1m")
f1m_ino=$(stat -c %i "$enc/f1m")
f4096_ino=$(stat -c %i "$enc/f4096")
enc_ino=$(stat -c %i "$enc")

step "an encrypted subvolume and its snapshots"
btrfs subvolume create "$MNT/vol" >/dev/null
fscrypt-ioctl set-policy "$MNT/vol" "$KEYID"
random_file "$MNT/vol/file" 20000
mkdir "$MNT/vol/dir"
random_file "$MNT/vol/dir/g" 5000
btrfs subvolume snapshot "$MNT/vol" "$MNT/vol/snap" >/dev/null
btrfs subvolume snapshot -r "$MNT/vol" "$MNT/vol/snap-ro" >/dev/null
random_file "$MNT/vol/snap/new" 7000
random_file "$MNT/vol/file" 20000
sync
encrypted_extents "$MNT/vol/file"
vol_id=$(btrfs inspect-internal rootid "$MNT/vol")
vol_file_ino=$(stat -c %i "$MNT/vol/file")
e2e_umount

# check_passes DEV WHAT: both modes of btrfs check find nothing on DEV.
check_passes() {
	for mode in original lowmem; do
		if ! btrfs check --mode=$mode "$1" >/tmp/check.out 2>&1; then
			tail -n 25 /tmp/check.out
			fail "btrfs check --mode=$mode reports errors on $2"
		fi
		grep -q 'no error found' /tmp/check.out ||
			fail "btrfs check --mode=$mode on $2: no 'no error found'"
		echo "ok: btrfs check --mode=$mode: $2 has no error"
	done
}

step "btrfs check passes in both modes"
check_passes "$DISK1" "the filesystem the kernel encrypted"

step "a filesystem without no-holes: explicit hole extents in encrypted files"
mkfs_btrfs_encrypt -b ${mib}M -O ^no-holes "$DISK2"
mount_btrfs "$DISK2"
fscrypt-ioctl add-key "$MNT" <"$E2E_KEY" >/dev/null
e2e_encrypt "$MNT/holes"
dd if=/dev/urandom of="$MNT/holes/sparse" bs=4096 seek=100 count=2 2>/dev/null
random_file "$MNT/holes/grown" 5000
truncate -s 1000000 "$MNT/holes/grown"
dd if=/dev/urandom of="$MNT/holes/gaps" bs=4096 count=1 2>/dev/null
dd if=/dev/urandom of="$MNT/holes/gaps" bs=4096 seek=50 count=1 conv=notrunc 2>/dev/null
fallocate -l 65536 "$MNT/holes/prealloc"
umount "$MNT"
btrfs inspect-internal dump-tree -t 5 "$DISK2" >/tmp/holes.dump
grep -A 2 'EXTENT_DATA' /tmp/holes.dump | grep -q 'extent data disk byte 0 nr 0' ||
	fail "no explicit hole extent on the filesystem without no-holes"
check_passes "$DISK2" "the filesystem without no-holes"

step "dump-tree and dump-super decode the encryption"
btrfs inspect-internal dump-tree "$DISK1" >/tmp/dump 2>&1
btrfs inspect-internal dump-super "$DISK1" >/tmp/super 2>&1
# expect FILE PATTERN WHAT: a line of FILE matches the extended regex.
expect() {
	grep -q -E -e "$2" "$1" || fail "dump-tree: no $3 (no line matches '$2')"
	echo "ok: $3: $(grep -m 1 -E -e "$2" "$1" | sed 's/^[[:space:]]*//')"
}
expect /tmp/dump "item [0-9]+ key \\($f1m_ino FSCRYPT_INODE_CTX 0\\) itemoff [0-9]+ itemsize 40" "context item of enc/f1m"
expect /tmp/dump "fscrypt context v2 contents_mode 1 \\(AES-256-XTS\\) filenames_mode 4 \\(AES-256-CTS-CBC\\) flags 0x3\\(PAD_32\\)" "decoded v2 context"
expect /tmp/dump "fscrypt context v2 contents_mode 9 \\(Adiantum\\) filenames_mode 9 \\(Adiantum\\) flags 0x7\\(PAD_32\\|DIRECT_KEY\\)" "decoded DIRECT_KEY context"
expect /tmp/dump "master_key_identifier $KEYID\$" "master key identifier"
expect /tmp/dump "^[[:space:]]+nonce $nonce\$" "nonce of enc/f1m"
expect /tmp/dump "flags 0x1000\\(FSCRYPT_CONTEXT\\)\$" "FSCRYPT_CONTEXT inode flag"
expect /tmp/dump "flags 0x1800\\(COMPRESS\\|FSCRYPT_CONTEXT\\)\$" "COMPRESS and FSCRYPT_CONTEXT inode flags"
expect /tmp/dump "flags 0x2\\(SUBVOL_FSCRYPT\\)" "SUBVOL_FSCRYPT root flag"
expect /tmp/dump "flags 0x3\\(RDONLY\\|SUBVOL_FSCRYPT\\)" "read-only snapshot flags"
expect /tmp/dump "extent encryption 141 type 1 \\(fscrypt\\) context size 35\$" "encryption byte"
expect /tmp/dump "extent compression 3 \\(zstd\\)" "compressed extent"
expect /tmp/dump "extent context version 1 contents_mode 1 \\(AES-256-XTS\\) flags 0x0\\(none\\)\$" "extent context"
expect /tmp/dump "extent context version 1 contents_mode 9 \\(Adiantum\\) flags 0x4\\(DIRECT_KEY\\)\$" "DIRECT_KEY extent context"
# The context fscrypt-ioctl extents reads: version, mode, flags, key, nonce.
ctx=$(awk '$1 == 0 { print $9 }' /tmp/f1m.extents)
[ ${#ctx} = 70 ] || fail "enc/f1m: extent context '$ctx' is not 35 bytes"
expect /tmp/dump "extent context key identifier $(echo "$ctx" | cut -c 7-38)\$" "extent key identifier of enc/f1m"
expect /tmp/dump "extent context nonce $(echo "$ctx" | cut -c 39-70)\$" "extent nonce of enc/f1m"
expect /tmp/dump "type FILE encrypted\$" "encrypted name of a file"
expect /tmp/dump "type DIR encrypted\$" "encrypted name of a directory"
expect /tmp/dump "type SYMLINK encrypted\$" "encrypted name of a symlink"
expect /tmp/dump "type FIFO encrypted\$" "encrypted name of a fifo"
expect /tmp/dump "location key \\([0-9]+ ROOT_ITEM [0-9]+\\) type DIR encrypted\$" "encrypted name of a snapshot"
expect /tmp/dump "location key \\([0-9]+ INODE_ITEM 0\\) type FILE\$" "unencrypted name"
expect /tmp/dump "name: f1m\$" "plaintext name"
expect /tmp/super "^[[:space:]]+ENCRYPT \\)\$" "ENCRYPT in dump-super"
grep -q 'UNKNOWN\.41\|DIR_ITEM\.1[23][0-9]' /tmp/dump && fail "dump-tree shows unknown items or types"
if LC_ALL=C grep -n '[^[:print:][:space:]]' /tmp/dump >/tmp/raw; then
	head -c 300 /tmp/raw | od -c | head
	fail "dump-tree wrote bytes that are not printable ASCII ($(wc -l </tmp/raw) lines)"
fi
echo "ok: dump-tree writes printable ASCII only"

# corrupt WHAT CORRUPT-BLOCK-ARGS...: a copy of $DISK1 on $DISK2, corrupted.
corrupt() {
	step "corrupt a copy: $1"
	shift
	dd if="$DISK1" of="$DISK2" bs=1M count=$mib 2>/dev/null
	btrfs-corrupt-block "$@" "$DISK2" >/tmp/corrupt.out 2>&1 || {
		cat /tmp/corrupt.out
		fail "btrfs-corrupt-block $* failed"
	}
}
# check_fails MESSAGE: both modes of btrfs check fail on $DISK2 and print
# MESSAGE (a fixed string).
check_fails() {
	for mode in original lowmem; do
		if btrfs check --mode=$mode "$DISK2" >/tmp/check.out 2>&1; then
			tail -n 10 /tmp/check.out
			fail "btrfs check --mode=$mode passes the corrupted copy"
		fi
		grep -q -F -e "$1" /tmp/check.out || {
			tail -n 20 /tmp/check.out
			fail "btrfs check --mode=$mode: no '$1'"
		}
		echo "ok: btrfs check --mode=$mode fails: $(grep -m 1 -F -e "$1" /tmp/check.out)"
	done
}

corrupt "the context item of enc/f1m deleted" -r 5 -d "$f1m_ino,41,0"
btrfs inspect-internal dump-tree -t 5 "$DISK2" | grep -q "key ($f1m_ino FSCRYPT_INODE_CTX 0)" &&
	fail "the context item is still there"
check_fails "ERROR: root 5 inode $f1m_ino: has the FSCRYPT_CONTEXT flag, but no fscrypt context item"

# The encryption byte is at offset 17 of the file extent item.
corrupt "the encryption byte of vol/file's extent cleared" -r "$vol_id" -I "$vol_file_ino,108,0" --offset 17 --bytes 1 --value 0
btrfs inspect-internal dump-tree -t "$vol_id" "$DISK2" | grep -A 5 "key ($vol_file_ino EXTENT_DATA 0)" >/tmp/item
grep -q 'extent encryption' /tmp/item && fail "the encryption byte is still set: $(cat /tmp/item)"
check_fails "ERROR: root $vol_id inode $vol_file_ino: file extent at offset 0: unencrypted extent (encryption 0) in an encrypted regular file"

# The dir index of enc/f4096, by the index of its inode ref; the type byte
# is at offset 29 of the dir item: FILE without the flag.
index=$(awk -v k="($f4096_ino INODE_REF $enc_ino)" 'index($0, k) { getline; print $2; exit }' /tmp/dump)
[ -n "$index" ] || fail "no inode ref of enc/f4096 in the dump"
corrupt "the encrypted-name flag of enc/f4096's dir index cleared" -r 5 -I "$enc_ino,96,$index" --offset 29 --bytes 1 --value 1
btrfs inspect-internal dump-tree -t 5 "$DISK2" | grep -A 1 "key ($enc_ino DIR_INDEX $index)" | grep -q 'type FILE$' ||
	fail "the dir index still has the flag"
check_fails "ERROR: root 5 inode $enc_ino: directory is encrypted, but its DIR_INDEX[$enc_ino $index] has no encrypted-name flag"

step "--repair refuses an encrypted filesystem"
if btrfs check --repair --force "$DISK2" >/tmp/repair.out 2>&1; then
	fail "btrfs check --repair accepted the encrypted filesystem"
fi
grep -q 'repair of a filesystem with the encrypt feature is not supported' /tmp/repair.out ||
	fail "btrfs check --repair: $(tail -n 3 /tmp/repair.out)"
echo "ok: btrfs check --repair refuses"

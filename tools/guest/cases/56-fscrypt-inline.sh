# SPDX-License-Identifier: GPL-2.0
# Inline extents of encrypted files. A small file in an encrypted directory
# is kept in an inline extent, as in an unencrypted one: after the inline
# header its extent context (a nonce of its own, the directory's key), then
# its data padded to 16 bytes and encrypted, so that max_inline (2048 by
# default) bounds context and ciphertext together: 2000 bytes are inline,
# 2001 are not. Each rewrite, truncation or append gets a new nonce; the
# files read back from the page cache, from disk, after a remount, and give
# ENOKEY without the key; clones copy the extent whole (at offset 0) or
# decrypt it into the destination (at another offset); max_inline=0 and
# compression make no encrypted inline extent compressed; and no plaintext
# is on the device. btrfs makes no inline extents where sectors are smaller
# than pages (ARCH=arm64-64k): there the small files must have regular
# encrypted extents instead.
. /lib/test.sh
# Encryption with the rest of btrfs: on btrfs, whatever E2E_FS says.
E2E_FS=btrfs

mib=128
e2e_begin $mib
enc=$MNT/enc
e2e_encrypt "$enc"
mkdir -p "$REF" "$MNT/plain"
dmesg_mark
subpage=${SECTORSIZE:+1}
# The encryption byte of an fscrypt extent with a 35-byte context
enc_byte=$((1 | 35 << 2))

# extent_line FILE: FILE's only file extent item, as fscrypt-ioctl extents
# prints it (with --compression), in $line.
extent_line() {
	fscrypt-ioctl extents "$1" --compression >/tmp/extents
	[ "$(wc -l </tmp/extents)" = 1 ] || fail "$1: not one extent: $(cat /tmp/extents)"
	line=$(cat /tmp/extents)
}

# expect_inline FILE SIZE: FILE's one extent is inline, encrypted with KEYID,
# uncompressed, SIZE bytes of data in 35 + SIZE rounded up to 16 bytes; its
# nonce in $nonce. Where btrfs makes no inline extents: a regular encrypted
# extent, and its nonce.
expect_inline() {
	extent_line "$1"
	if [ -n "$subpage" ]; then
		encrypted_extents "$1"
		nonce=$(echo "$line" | cut -d ' ' -f 9 | cut -c 39-70)
		return 0
	fi
	set -- "$1" "$2" $line
	stored=$((35 + ($2 + 15) / 16 * 16))
	[ "$3 $4 $5 $6 $7 $8 $9 ${12}" = "0 inline - $stored - $2 - 0" ] &&
		[ "${10}" = "$enc_byte" ] ||
		fail "$1: expected an encrypted inline extent of $2 bytes: $line"
	ctx=${11}
	[ "$(echo "$ctx" | cut -c 1-2)" = 01 ] &&
		[ "$(echo "$ctx" | cut -c 7-38)" = "$KEYID" ] ||
		fail "$1: context $ctx, expected version 1 and key $KEYID"
	nonce=$(echo "$ctx" | cut -c 39-70)
}

# same FILE: FILE reads as $REF/FILE, from the page cache and from disk.
same() {
	cmp "$REF/$1" "$enc/$1" || fail "$1 differs from its reference"
	drop_caches
	cmp "$REF/$1" "$enc/$1" || fail "$1 differs from its reference, from disk"
}

step "small files: inline, encrypted, with a context each"
for size in 1 15 16 17 1000 2000; do
	random_file "$REF/f$size" $size
	cp "$REF/f$size" "$enc/f$size"
done
cp "$REF/f1000" "$enc/copy1000"
cp "$REF/f1000" "$REF/copy1000"
sync
: >/tmp/nonces
for f in f1 f15 f16 f17 f1000 f2000 copy1000; do
	size=$(stat -c %s "$REF/$f")
	expect_inline "$enc/$f" "$size"
	echo "$nonce" >>/tmp/nonces
	same "$f"
	echo "ok: $f ($size bytes)"
done
[ "$(sort -u /tmp/nonces | wc -l)" = 7 ] || fail "nonces not unique: $(cat /tmp/nonces)"

step "2001 bytes: context and ciphertext pass max_inline, a regular extent"
random_file "$REF/f2001" 2001
cp "$REF/f2001" "$enc/f2001"
sync
extent_line "$enc/f2001"
echo "$line" | grep -q '^0 reg ' || fail "f2001: $line"
encrypted_extents "$enc/f2001"
same f2001
if [ -z "$subpage" ]; then
	random_file "$REF/plain2048" 2048
	cp "$REF/plain2048" "$MNT/plain/f"
	sync
	extent_line "$MNT/plain/f"
	[ "$line" = "0 inline - 2048 - 2048 - 0 - 0" ] ||
		fail "an unencrypted file of 2048 bytes: $line"
fi

step "rewrites, truncations and appends get a new nonce"
expect_inline "$enc/f1000" 1000
old=$nonce
random_file "$REF/f1000" 1000
cp "$REF/f1000" "$enc/f1000"
sync
expect_inline "$enc/f1000" 1000
[ "$nonce" != "$old" ] || fail "f1000 rewritten under the same nonce $old"
same f1000
truncate -s 600 "$enc/f1000" "$REF/f1000"
sync
old=$nonce
expect_inline "$enc/f1000" 600
# An inline extent is rewritten whole; a regular extent stays as it was
# (its ciphertext past the new size is never read), with its nonce.
[ -n "$subpage" ] || [ "$nonce" != "$old" ] ||
	fail "f1000 truncated under the same nonce $old"
same f1000
truncate -s 1500 "$enc/f1000" "$REF/f1000"
sync
expect_inline "$enc/f1000" 1500
f1000_nonce=$nonce
same f1000
head -c 300 /dev/urandom >/tmp/tail
cat /tmp/tail >>"$enc/f17"
cat /tmp/tail >>"$REF/f17"
sync
expect_inline "$enc/f17" 317
same f17
# Past a page: the inline extent becomes a regular one.
random_file /tmp/tail 8000
cat /tmp/tail >>"$enc/f2000"
cat /tmp/tail >>"$REF/f2000"
sync
encrypted_extents "$enc/f2000"
grep -q inline /tmp/extents && fail "f2000 kept an inline extent: $(cat /tmp/extents)"
same f2000
echo "ok: f1000 rewritten, truncated down and up; f17 and f2000 appended to"

step "clones: the item copied at offset 0, decrypted into a page elsewhere"
fscrypt-ioctl clone "$enc/f1000" "$enc/clone0"
cp "$REF/f1000" "$REF/clone0"
sync
expect_inline "$enc/clone0" 1500
[ "$nonce" = "$f1000_nonce" ] || fail "clone0 does not share f1000's extent"
same clone0
# At the end of the destination: the block of the source's end may not be
# cloned into the middle of a file (generic_remap_checks()).
random_file "$REF/clone4k" 4096
cp "$REF/clone4k" "$enc/clone4k"
fscrypt-ioctl clone-range "$enc/f15" "$enc/clone4k" 4096
cat "$REF/f15" >>"$REF/clone4k"
same clone4k
sync
encrypted_extents "$enc/clone4k"
grep -q inline /tmp/extents && fail "clone4k has an inline extent: $(cat /tmp/extents)"
same clone4k
echo "ok: clones read as their sources"

step "after a remount: ENOKEY without the key, the same data with it"
e2e_umount
e2e_mount
names=$(ls "$enc" | wc -l)
[ "$names" = "$(ls "$REF" | grep -vc plain2048)" ] || fail "$names names without the key"
first=$(ls "$enc" | head -n 1)
expect_enokey cat "$enc/$first"
e2e_add_key
for f in $(ls "$REF" | grep -v plain2048); do
	cmp "$REF/$f" "$enc/$f" || fail "$f after the remount"
done
echo "ok: $names files"

step "max_inline=0 and compress-force: no inline ciphertext, never compressed"
mount -o remount,max_inline=0 "$MNT"
random_file "$REF/noinline" 500
cp "$REF/noinline" "$enc/noinline"
sync
encrypted_extents "$enc/noinline"
grep -q inline /tmp/extents && fail "an inline extent with max_inline=0"
mount -o remount,max_inline=2048,compress-force=zstd "$MNT"
yes compressible | head -c 1500 >"$REF/compressible"
cp "$REF/compressible" "$enc/compressible"
sync
expect_inline "$enc/compressible" 1500
same noinline
same compressible

step "nothing in plaintext on the device, and btrfs check"
rnd=$(head -c 8 /dev/urandom | xxd -p)
marker_file "$enc/marked" 900 "MARKERinlineenc$rnd"
marker_file "$MNT/plain/marked" 900 "MARKERinlineplain$rnd"
printf '%s\n' "MARKERinlineenc$rnd" "MARKERinlineplain$rnd" >/tmp/markers
sync
expect_inline "$enc/marked" 900
e2e_umount
expect_scan $mib 'MARKERinlineplain*'
btrfs check "$DISK1" >/tmp/check.log 2>&1 || {
	cat /tmp/check.log
	fail "btrfs check"
}
dmesg_since | grep -i -E 'inline extent|EUCLEAN|corrupt|critical' && fail "kernel messages about the extents"
echo "ok: btrfs check passed"

# SPDX-License-Identifier: GPL-2.0
# End to end (E2E_FS, default btrfs): every encrypted file has its own
# 16-byte nonce, so equal plaintexts give different ciphertexts. On btrfs,
# where contents are encrypted per extent, "fscrypt-ioctl extents" shows that
# two files written with the same 64 KiB have encrypted extents (encryption
# byte: fscrypt type and the size of the context) whose contexts name the
# file's key and carry different nonces, and the ciphertexts read from the
# raw device at PHYSICAL (after unmounting) differ from each other and from
# the plaintext.
. /lib/test.sh

e2e_begin
enc=$MNT/enc
e2e_encrypt "$enc"
mkdir -p "$REF"
random_file "$REF/data" 65536

step "two files with the same data"
dd if="$REF/data" of="$enc/a" bs=65536 conv=fsync 2>/dev/null
dd if="$REF/data" of="$enc/b" bs=65536 conv=fsync 2>/dev/null
cmp "$REF/data" "$enc/a" || fail "a does not read back"
cmp "$REF/data" "$enc/b" || fail "b does not read back"

step "file nonces: 16 bytes, different"
na=$(fscrypt-ioctl get-nonce "$enc/a")
nb=$(fscrypt-ioctl get-nonce "$enc/b")
nd=$(fscrypt-ioctl get-nonce "$enc")
echo "nonces: a $na, b $nb, enc $nd"
for n in "$na" "$nb" "$nd"; do
	echo "$n" | grep -qx '[0-9a-f]\{32\}' || fail "nonce '$n' is not 16 bytes"
done
[ "$na" != "$nb" ] || fail "a and b have the same nonce"
[ "$na" != "$nd" ] && [ "$nb" != "$nd" ] || fail "a file has its directory's nonce"
[ "$na" != 00000000000000000000000000000000 ] || fail "a's nonce is zero"

if ! is_btrfs; then
	echo "extent contexts and ciphertext on the device: btrfs only, not checked on $E2E_FS"
	e2e_umount
	exit 0
fi

step "btrfs: encrypted extents with their own contexts"
# extent_check FILE OUT: FILE's extents are regular, with data, encrypted
# with a context that names KEYID; writes "PHYSICAL+OFFSET NUM_BYTES NONCE"
# lines to OUT, the context's last 16 bytes being the extent nonce.
extent_check() {
	fscrypt-ioctl extents "$1" >/tmp/extents
	cat /tmp/extents
	[ -s /tmp/extents ] || fail "$1 has no extents"
	: >"$2"
	while read -r off type bytenr dnb eoff nb phys ebyte ctx; do
		[ "$type" = reg ] && [ "$phys" != - ] || fail "$1: extent at $off: $type at $phys"
		[ "$ebyte" != 0 ] || fail "$1: extent at $off: encryption byte 0"
		[ "$ctx" != - ] || fail "$1: extent at $off: no encryption context"
		# Encryption byte: bits 0-1 type (1 = fscrypt), bits 2-7 context size.
		[ $((ebyte & 3)) = 1 ] || fail "$1: extent at $off: encryption type $((ebyte & 3))"
		[ $((ebyte >> 2)) = $((${#ctx} / 2)) ] ||
			fail "$1: extent at $off: encryption byte $ebyte for a ${#ctx}-digit context"
		# Version 1 context: version, mode, flags, key identifier, nonce.
		[ ${#ctx} = 70 ] || fail "$1: extent at $off: context of ${#ctx} hex digits, expected 70"
		# Version 1, AES-256-XTS (1), no DIRECT_KEY.
		[ "${ctx:0:6}" = 010100 ] || fail "$1: extent at $off: context starts with ${ctx:0:6}"
		[ "${ctx:6:32}" = "$KEYID" ] ||
			fail "$1: extent at $off: context $ctx does not name key $KEYID"
		echo "$((phys + eoff)) $nb ${ctx:38:32}" >>"$2"
	done </tmp/extents
}
extent_check "$enc/a" /tmp/a.extents
extent_check "$enc/b" /tmp/b.extents
cat /tmp/a.extents /tmp/b.extents | awk '{ print $3 }' | sort >/tmp/nonces
[ "$(uniq /tmp/nonces | wc -l)" = "$(wc -l </tmp/nonces)" ] ||
	fail "extents share a nonce: $(uniq -d /tmp/nonces)"

step "btrfs: the ciphertexts on the device"
e2e_umount
drop_caches
# ciphertext EXTENTS OUT: the file's bytes as on the device, in file order.
ciphertext() {
	: >"$2"
	while read -r at len nonce; do
		read_bytes "$DISK1" "$at" "$len" >>"$2"
	done <"$1"
	truncate -s 65536 "$2"
}
ciphertext /tmp/a.extents /tmp/a.cipher
ciphertext /tmp/b.extents /tmp/b.cipher
sha256sum "$REF/data" /tmp/a.cipher /tmp/b.cipher
# unrelated X Y: X and Y differ in nearly every byte, as independent random
# data do (equal by chance: 1 byte in 256, 256 of 65536).
unrelated() {
	differ=$(cmp -l "$1" "$2" | wc -l)
	echo "$1 and $2 differ in $differ of 65536 bytes"
	[ "$differ" -gt 64000 ]
}
unrelated /tmp/a.cipher /tmp/b.cipher || fail "a and b have (nearly) the same ciphertext"
unrelated /tmp/a.cipher "$REF/data" || fail "a is on the device (nearly) in plaintext"
unrelated /tmp/b.cipher "$REF/data" || fail "b is on the device (nearly) in plaintext"

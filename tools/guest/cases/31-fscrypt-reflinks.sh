# SPDX-License-Identifier: GPL-2.0
# Reflinks of encrypted files. Within one policy, a clone (FICLONE) and a
# dedupe (FIDEDUPERANGE) share the source's extents: the same DISK_BYTENR
# and the same encryption context (which carries the extent's nonce), and
# read back byte for byte from the page cache, from disk and after a
# remount; dedupe of different data says so and shares nothing. Between
# different policies (another key, or the same key with other modes) and
# between encrypted and unencrypted files, clone and dedupe must be refused
# with EXDEV and leave the destination as it was: the extents of one policy
# cannot be read under another, and sharing them with an unencrypted file
# would expose ciphertext as its data (or plaintext as encrypted data).
. /lib/test.sh
# Encryption with the rest of btrfs: on btrfs, whatever E2E_FS says.
E2E_FS=btrfs

e2e_begin
enc=$MNT/enc
e2e_encrypt "$enc"
mkdir "$enc/sub"
key1=$KEYID
head -c 64 /dev/urandom >/tmp/key2
key2=$(fscrypt-ioctl add-key "$MNT" </tmp/key2)
mkdir "$MNT/other" "$MNT/adiantum" "$MNT/plain"
fscrypt-ioctl set-policy "$MNT/other" "$key2"
# The same key as enc, other modes: another policy all the same.
fscrypt-ioctl set-policy "$MNT/adiantum" "$key1" --contents=adiantum \
	--filenames=adiantum --flags=direct_key
mkdir -p "$REF"
# Three extents: two fsync'd writes, then a tail that is not block-aligned.
random_file "$REF/src" 1053000
random_file "$REF/other-data" 1053000
dd if="$REF/src" of="$enc/src" bs=65536 count=8 conv=fsync 2>/dev/null
dd if="$REF/src" of="$enc/src" bs=65536 skip=8 seek=8 conv=notrunc,fsync 2>/dev/null
cmp "$REF/src" "$enc/src" || fail "enc/src does not read back"
dmesg_mark

# same_extents A B: A and B have the same extent items (the same
# DISK_BYTENR, offsets, encryption byte and context).
same_extents() {
	fscrypt-ioctl extents "$1" >/tmp/extents.a
	fscrypt-ioctl extents "$2" >/tmp/extents.b
	cmp -s /tmp/extents.a /tmp/extents.b || {
		diff /tmp/extents.a /tmp/extents.b | head -10
		fail "$2 does not share $1's extents"
	}
	echo "ok: $2 shares the $(wc -l </tmp/extents.a) extents of $1"
}

step "clone within one policy"
fscrypt-ioctl clone "$enc/src" "$enc/clone"
fscrypt-ioctl clone "$enc/src" "$enc/sub/clone"
encrypted_extents "$enc/src"
cat /tmp/extents
[ "$(awk '$2 == "reg"' /tmp/extents | wc -l)" -ge 2 ] || fail "enc/src has fewer than 2 extents"
same_extents "$enc/src" "$enc/clone"
same_extents "$enc/src" "$enc/sub/clone"
for f in "$enc/clone" "$enc/sub/clone"; do
	cmp "$REF/src" "$f" || fail "$f does not read back"
done
[ "$(fscrypt-ioctl get-nonce "$enc/clone")" != "$(fscrypt-ioctl get-nonce "$enc/src")" ] ||
	fail "the clone has its source's file nonce"

step "dedupe within one policy"
cp "$REF/src" "$enc/dup"
sync
encrypted_extents "$enc/dup"
awk '{ print $3 }' /tmp/extents >/tmp/dup.bytenr
fscrypt-ioctl extents "$enc/src" | awk '{ print $3 }' | grep -q -x -F -f /tmp/dup.bytenr &&
	fail "the copy shares extents with its source before the dedupe"
out=$(fscrypt-ioctl dedupe "$enc/src" "$enc/dup")
echo "$out"
[ "$out" = "deduped $(stat -c %s "$REF/src")" ] || fail "dedupe: '$out'"
same_extents "$enc/src" "$enc/dup"
cmp "$REF/src" "$enc/dup" || fail "enc/dup does not read back after the dedupe"

step "dedupe of different data within one policy: differs, nothing shared"
cp "$REF/other-data" "$enc/different"
sync
fscrypt-ioctl extents "$enc/different" >/tmp/different.before
out=$(fscrypt-ioctl dedupe "$enc/src" "$enc/different") && fail "dedupe of different data: '$out'"
[ "$out" = differs ] || fail "dedupe of different data: '$out', expected differs"
fscrypt-ioctl extents "$enc/different" | cmp -s /tmp/different.before - ||
	fail "a dedupe of different data changed the extents"
cmp "$REF/other-data" "$enc/different" || fail "enc/different changed"

step "read back from disk and after a remount"
drop_caches
for f in src clone sub/clone dup; do
	cmp "$REF/src" "$enc/$f" || fail "enc/$f from disk"
done
e2e_umount
e2e_mount
e2e_add_key
fscrypt-ioctl add-key "$MNT" </tmp/key2 >/dev/null
for f in src clone sub/clone dup; do
	cmp "$REF/src" "$enc/$f" || fail "enc/$f after the remount"
done
same_extents "$enc/src" "$enc/clone"
# Removing the source leaves the shared extents to the others.
rm "$enc/src"
drop_caches
cmp "$REF/src" "$enc/clone" || fail "enc/clone after its source was removed"
cp "$enc/clone" "$enc/src"
no_csum_errors "within one policy"

step "across policies and with unencrypted files: EXDEV"
cp "$REF/src" "$MNT/other/same"
cp "$REF/src" "$MNT/adiantum/same"
cp "$REF/src" "$MNT/plain/same"
cp "$REF/src" "$MNT/plain/dedupe-src"
sync
# Every refusal is checked; the case fails at the end with all the answers
# that were not EXDEV.
: >/tmp/accepted
# refused NAME ERRNO-ARGS... DST: fscrypt-ioctl ERRNO-ARGS fails with EXDEV
# and DST's extents stay as they were (none for a clone's new file).
refused() {
	what=$1
	shift
	for last; do :; done
	fscrypt-ioctl extents "$last" >/tmp/dst.before 2>/dev/null || : >/tmp/dst.before
	[ "$1" = clone ] && : >/tmp/dst.before
	got=$(fscrypt-ioctl --print-errno "$@" 2>/dev/null) && got="success (${got:-no output})"
	if [ "$got" != EXDEV ]; then
		drop_caches
		if cmp -s "$REF/src" "$last"; then reads="the source's data"
		elif cat "$last" >/dev/null 2>&1; then reads="other data"
		else reads="an I/O error"
		fi
		echo "NOT REFUSED: $what: $got; $last then reads $reads" | tee -a /tmp/accepted
	elif ! fscrypt-ioctl extents "$last" | cmp -s /tmp/dst.before -; then
		echo "CHANGED: $what: EXDEV, but $last's extents changed" | tee -a /tmp/accepted
	else
		echo "ok: $what: EXDEV"
	fi
}
refused "clone to another key's policy" clone "$enc/src" "$MNT/other/clone"
refused "clone to the same key with other modes" clone "$enc/src" "$MNT/adiantum/clone"
refused "clone from encrypted to unencrypted" clone "$enc/src" "$MNT/plain/clone"
refused "clone from unencrypted to encrypted" clone "$MNT/plain/same" "$enc/clone-of-plain"
refused "dedupe to another key's policy" dedupe "$enc/src" "$MNT/other/same"
refused "dedupe to the same key with other modes" dedupe "$enc/src" "$MNT/adiantum/same"
refused "dedupe from encrypted to unencrypted" dedupe "$enc/src" "$MNT/plain/same"
refused "dedupe from unencrypted to encrypted" dedupe "$MNT/plain/dedupe-src" "$enc/dup"
if [ -s /tmp/accepted ]; then
	fail "$(grep -c '^NOT REFUSED' /tmp/accepted || true) of 8 reflinks across policies or with unencrypted files not refused with EXDEV; $(grep -c '^CHANGED' /tmp/accepted || true) refused ones changed their destination"
fi
for f in "$MNT/other/same" "$MNT/adiantum/same" "$MNT/plain/same" "$enc/dup" "$enc/src"; do
	cmp "$REF/src" "$f" || fail "$f changed"
done
no_csum_errors
e2e_umount

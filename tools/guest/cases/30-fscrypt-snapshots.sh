# SPDX-License-Identifier: GPL-2.0
# Snapshots of a subvolume that holds an encrypted directory: a read-write
# and a read-only snapshot (and one taken without the key) read back as the
# original was, share its inodes, nonces, extents and contexts, and list the
# same no-key names without the key; writes to the original (and to the
# read-write snapshot) after the snapshot change nothing in the other ones,
# also after a remount. A new subvolume in an encrypted directory of a
# snapshot gets the directory's policy (case 28); a snapshot of an
# unencrypted subvolume there is refused with EXDEV (snapshots of encrypted
# subvolumes: case 26).
. /lib/test.sh
# Encryption with the rest of btrfs: on btrfs, whatever E2E_FS says.
E2E_FS=btrfs

e2e_begin
dmesg_mark
btrfs subvolume create "$MNT/vol" >/dev/null
enc=$MNT/vol/enc
e2e_encrypt "$enc"

step "an encrypted tree in the subvolume"
e2e_make_ref 0 1 4095 4096 1048577
e2e_copy_ref "$enc"
e2e_check_tree "$enc"
sync

step "snapshots: read-write and read-only"
btrfs subvolume snapshot "$MNT/vol" "$MNT/snap" >/dev/null
btrfs subvolume snapshot -r "$MNT/vol" "$MNT/snap-ro" >/dev/null
for s in snap snap-ro; do
	e2e_check_tree "$MNT/$s/enc"
	fscrypt-ioctl get-policy "$MNT/$s/enc" | cmp -s /tmp/policy - ||
		fail "$s/enc has another policy than vol/enc"
done
# A snapshot shares the original's inodes: same numbers, same nonces, the
# same extents with the same encryption contexts.
(cd "$enc" && find . -type f | sort) >/tmp/files
while read -r f; do
	[ "$(stat -c %i "$enc/$f")" = "$(stat -c %i "$MNT/snap-ro/enc/$f")" ] ||
		fail "$f has another inode number in the snapshot"
	[ "$(fscrypt-ioctl get-nonce "$enc/$f")" = "$(fscrypt-ioctl get-nonce "$MNT/snap-ro/enc/$f")" ] ||
		fail "$f has another nonce in the snapshot"
done </tmp/files
encrypted_extents "$enc/f1048577"
fscrypt-ioctl extents "$MNT/snap-ro/enc/f1048577" | cmp -s /tmp/extents - ||
	fail "f1048577 has other extents or contexts in the snapshot"
echo "ok: the snapshots share inodes, nonces, extents and contexts"

step "writes to the original after the snapshots"
random_file /tmp/new 5000
cp /tmp/new "$enc/f4096"
head -c 70000 /dev/urandom | dd of="$enc/f1048577" bs=4096 seek=10 conv=notrunc 2>/dev/null
printf 'appended' >>"$enc/d1/d2/d3/nested"
truncate -s 100 "$enc/f4095"
rm "$enc/f0"
mv "$enc/d1/longlink" "$enc/renamed-link"
mkdir "$enc/newdir"
echo new >"$enc/newdir/newfile"
cmp -s /tmp/new "$enc/f4096" || fail "the original does not read its new data"
# And to the read-write snapshot: the original and snap-ro keep theirs.
random_file /tmp/new.snap 3000
cp /tmp/new.snap "$MNT/snap/enc/f1"
drop_caches
e2e_check_tree "$MNT/snap-ro/enc"
cmp -s /tmp/new "$enc/f4096" || fail "vol/enc/f4096 changed with the snapshot"
cmp -s "$REF/f1" "$enc/f1" || fail "a write to the snapshot changed vol/enc/f1"
cmp -s /tmp/new.snap "$MNT/snap/enc/f1" || fail "snap/enc/f1 does not read its new data"
cmp -s "$REF/f4096" "$MNT/snap/enc/f4096" || fail "a write to vol changed snap/enc/f4096"
[ ! -e "$MNT/snap/enc/newdir" ] && [ -e "$MNT/snap/enc/f0" ] ||
	fail "names created or removed in vol show in the snapshot"

step "a snapshot taken without the key"
ls -A -i "$MNT/snap-ro/enc" >/tmp/ro.key
e2e_remove_key
btrfs subvolume snapshot -r "$MNT/vol" "$MNT/snap-nokey" >/dev/null

step "without the key: the same no-key names in the snapshots"
ls -A -i "$MNT/snap-ro/enc" >/tmp/ro.nokey
ls -A -i "$MNT/snap/enc" >/tmp/snap.nokey
ls -A -i "$enc" >/tmp/vol.nokey
cat /tmp/ro.nokey
[ "$(wc -l </tmp/ro.nokey)" = "$(wc -l </tmp/ro.key)" ] ||
	fail "$(wc -l </tmp/ro.nokey) no-key names in snap-ro/enc, $(wc -l </tmp/ro.key) names with the key"
awk 'NR == FNR { plain[$2] = 1; next } $2 in plain { print; bad = 1 } END { exit bad }' \
	/tmp/ro.key /tmp/ro.nokey || fail "plaintext names listed without the key"
# The snapshots share the original's directory items: the same ciphertext,
# hence the same no-key names, for the same inodes.
cmp -s /tmp/ro.nokey /tmp/snap.nokey || fail "snap and snap-ro list other no-key names"
awk 'NR == FNR { name[$1] = $2; next } ($1 in name) && name[$1] != $2 {
	print "inode " $1 ": " name[$1] " in snap-ro, " $2 " in vol"; bad = 1 } END { exit bad }' \
	/tmp/ro.nokey /tmp/vol.nokey || fail "an unchanged entry has another no-key name in the original"
ino=$(awk '$2 == "f4096" { print $1 }' /tmp/ro.key)
f=$(awk -v i="$ino" '$1 == i { print $2 }' /tmp/ro.nokey)
[ "$(stat -c %s "$MNT/snap-ro/enc/$f")" = 4096 ] || fail "f4096 by its no-key name '$f'"
expect_enokey cat "$MNT/snap-ro/enc/$f"
expect_enokey touch "$MNT/snap/enc/new-without-key"

step "with the key again, and after a remount"
e2e_add_key
e2e_check_tree "$MNT/snap-ro/enc"
e2e_umount
e2e_mount
e2e_add_key
e2e_check_tree "$MNT/snap-ro/enc"
# snap-nokey: the original as it was when the key was removed.
cmp -s /tmp/new "$MNT/snap-nokey/enc/f4096" || fail "snap-nokey/enc/f4096"
cmp -s "$REF/f1" "$MNT/snap-nokey/enc/f1" || fail "snap-nokey/enc/f1"
[ "$(cat "$MNT/snap-nokey/enc/newdir/newfile")" = new ] || fail "snap-nokey/enc/newdir/newfile"
[ "$(readlink "$MNT/snap-nokey/enc/renamed-link")" = "$E2E_LONG_TARGET" ] ||
	fail "snap-nokey/enc/renamed-link"
fscrypt-ioctl get-policy "$MNT/snap-nokey/enc" | cmp -s /tmp/policy - ||
	fail "snap-nokey/enc has another policy"
cmp -s /tmp/new.snap "$MNT/snap/enc/f1" || fail "snap/enc/f1 after the remount"
cmp -s /tmp/new "$enc/f4096" || fail "vol/enc/f4096 after the remount"

step "deleting the original leaves the snapshots readable"
btrfs subvolume delete "$MNT/vol" >/dev/null
btrfs subvolume sync "$MNT" >/dev/null
drop_caches
e2e_check_tree "$MNT/snap-ro/enc"

# A new subvolume in an encrypted directory is encrypted with its policy
# (case 28); an unencrypted subvolume's snapshot would put unencrypted files
# under an encrypted directory: refused with EXDEV.
step "a subvolume in an encrypted directory of a snapshot; no unencrypted snapshot there"
encs=$MNT/snap/enc
btrfs subvolume create "$encs/subvol" >/dev/null
fscrypt-ioctl get-policy "$encs/subvol" | cmp -s /tmp/policy - || fail "the new subvolume lacks the policy of snap/enc"
echo data >"$encs/subvol/x"
fscrypt-ioctl get-flags "$encs/subvol/x" | grep -q encrypt || fail "a file in the new subvolume is not encrypted"
btrfs subvolume delete "$encs/subvol" >/dev/null
if btrfs subvolume snapshot "$MNT/snap-ro" "$encs/snapshot" >/tmp/err 2>&1; then
	fail "a snapshot of an unencrypted subvolume was created inside an encrypted directory"
fi
grep -q 'Invalid cross-device link' /tmp/err || fail "subvolume snapshot: $(cat /tmp/err)"
echo "ok: snapshot of an unencrypted subvolume into an encrypted directory: EXDEV"
[ ! -e "$encs/subvol" ] && [ ! -e "$encs/snapshot" ] || fail "a subvolume left a name behind"
no_csum_errors
e2e_umount

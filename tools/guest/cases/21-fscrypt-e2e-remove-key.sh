# SPDX-License-Identifier: GPL-2.0
# End to end (E2E_FS, default btrfs): without the key an encrypted directory
# lists no-key names (as many as there are entries), stat works, opening a
# file and creating anything fail with ENOKEY, a symlink reads as an encoded
# target, and a file and an empty directory can be removed by their no-key
# names; with the key back, the other names and data are intact and the
# removed ones are gone, also after a remount.
. /lib/test.sh

e2e_begin
enc=$MNT/enc
e2e_encrypt "$enc"
step "files, directories and a symlink in an encrypted directory"
mkdir -p "$REF/sub" "$REF/gone-dir"
random_file "$REF/a" 10000
random_file "$REF/b" 1
random_file "$REF/c" 200000
random_file "$REF/gone" 3000
random_file "$REF/sub/x" 4096
mkdir "$enc/sub" "$enc/gone-dir"
cp "$REF/a" "$REF/b" "$REF/c" "$REF/gone" "$enc/"
cp "$REF/sub/x" "$enc/sub/x"
ln -s a "$enc/link"
same_digests "$REF" "$enc"
names="a b c gone gone-dir link sub"
[ "$(ls -A "$enc" | tr '\n' ' ')" = "$names " ] || fail "listing: $(ls -A "$enc")"
# Inode numbers identify the entries once their names are no-key names.
ls -A -i "$enc" >/tmp/inodes.key
ino() { awk -v n="$1" '$2 == n { print $1 }' /tmp/inodes.key; }

step "remove the key"
e2e_remove_key
ls -A -i "$enc" >/tmp/inodes.nokey
cat /tmp/inodes.nokey
[ "$(wc -l </tmp/inodes.nokey)" = 7 ] || fail "$(wc -l </tmp/inodes.nokey) names listed without the key, expected 7"
for n in $names; do
	awk -v n="$n" '$2 == n { found = 1 } END { exit !found }' /tmp/inodes.nokey &&
		fail "plaintext name '$n' listed without the key"
done
awk '{ print $1 }' /tmp/inodes.key | sort >/tmp/ino.a
awk '{ print $1 }' /tmp/inodes.nokey | sort >/tmp/ino.b
cmp -s /tmp/ino.a /tmp/ino.b || fail "the no-key listing has other inodes than the listing with the key"
nokey() { awk -v i="$1" '$1 == i { print $2 }' /tmp/inodes.nokey; }

step "stat works by no-key name, open and create fail with ENOKEY"
while read -r i n; do
	[ "$(stat -c %i "$enc/$n")" = "$i" ] || fail "stat of no-key name $n"
done </tmp/inodes.nokey
[ "$(stat -c %s "$enc/$(nokey "$(ino c)")")" = 200000 ] || fail "size of c without the key"
[ -d "$enc/$(nokey "$(ino sub)")" ] || fail "sub is not a directory without the key"
[ -L "$enc/$(nokey "$(ino link)")" ] || fail "link is not a symlink without the key"
expect_enokey cat "$enc/$(nokey "$(ino a)")"
expect_enokey cat "$enc/$(nokey "$(ino sub)")/$(ls "$enc/$(nokey "$(ino sub)")")"
# Without the key, a symlink reads as its encoded ciphertext.
target=$(readlink "$enc/$(nokey "$(ino link)")")
echo "no-key symlink target: $target"
[ -n "$target" ] && [ "$target" != a ] || fail "no-key symlink target '$target'"
expect_enokey touch "$enc/new"
expect_enokey mkdir "$enc/newdir"
expect_enokey ln -s a "$enc/newlink"

step "unlink and rmdir by no-key name"
rm "$enc/$(nokey "$(ino gone)")"
rmdir "$enc/$(nokey "$(ino gone-dir)")"
[ "$(ls -A "$enc" | wc -l)" = 5 ] || fail "$(ls -A "$enc" | wc -l) names left, expected 5"
must_fail rmdir "$enc/$(nokey "$(ino sub)")"
rm "$REF/gone"
rmdir "$REF/gone-dir"

step "add the key again: names and data back, the removed ones gone"
e2e_add_key
[ "$(ls -A "$enc" | tr '\n' ' ')" = "a b c link sub " ] || fail "listing: $(ls -A "$enc")"
[ "$(readlink "$enc/link")" = a ] || fail "symlink target"
same_digests "$REF" "$enc"
touch "$enc/new"
rm "$enc/new"

step "the same after unmount and mount"
e2e_umount
e2e_mount
e2e_add_key
[ "$(ls -A "$enc" | tr '\n' ' ')" = "a b c link sub " ] || fail "listing after remount: $(ls -A "$enc")"
same_digests "$REF" "$enc"
e2e_umount

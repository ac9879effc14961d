# SPDX-License-Identifier: GPL-2.0
# End to end (E2E_FS, default btrfs): the less common ways of adding to and
# changing an encrypted directory. A fifo and a device node get encrypted
# names (the inodes themselves are not encrypted, as fscrypt specifies); an
# O_TMPFILE file made in the directory is encrypted and can be linked in;
# RENAME_EXCHANGE swaps two encrypted names, RENAME_WHITEOUT leaves a
# whiteout with an encrypted name, RENAME_NOREPLACE refuses an existing name;
# a rename into a directory of another policy gives EXDEV. All of it reads
# back after a remount, and without the key the names are no-key names that
# can be removed.
. /lib/test.sh

e2e_begin
enc=$MNT/enc
e2e_encrypt "$enc"
mkdir -p "$REF"
random_file "$REF/a" 5000
random_file "$REF/b" 7000
random_file "$REF/t" 9000
cp "$REF/a" "$enc/a"
cp "$REF/b" "$enc/b"

step "a fifo and a device node"
mkfifo "$enc/fifo"
mknod "$enc/null" c 1 3
[ -p "$enc/fifo" ] || fail "enc/fifo is not a fifo"
[ -c "$enc/null" ] || fail "enc/null is not a character device"
echo discarded >"$enc/null" || fail "writing to enc/null"

step "O_TMPFILE, then linked in"
fscrypt-ioctl tmpfile "$enc" linked <"$REF/t"
cmp "$REF/t" "$enc/linked" || fail "the linked tmpfile differs"
fscrypt-ioctl get-flags "$enc/linked" | grep -q ' encrypt$' || fail "the tmpfile is not encrypted"

step "renameat2: exchange, whiteout, noreplace"
fscrypt-ioctl rename2 "$enc/a" "$enc/b" exchange
cmp "$REF/b" "$enc/a" || fail "exchange: enc/a does not hold b's data"
cmp "$REF/a" "$enc/b" || fail "exchange: enc/b does not hold a's data"
expect_errno EEXIST rename2 "$enc/a" "$enc/b" noreplace
fscrypt-ioctl rename2 "$enc/b" "$enc/c" whiteout
cmp "$REF/a" "$enc/c" || fail "whiteout: enc/c does not hold the data"
[ -c "$enc/b" ] || fail "whiteout: no whiteout left at enc/b"
[ "$(stat -c %t:%T "$enc/b")" = 0:0 ] || fail "whiteout: enc/b is not a 0:0 device"

step "a rename into another policy's directory"
head -c 64 /dev/urandom >/tmp/key2
key2=$(fscrypt-ioctl add-key "$MNT" </tmp/key2)
mkdir "$MNT/other"
fscrypt-ioctl set-policy "$MNT/other" "$key2"
expect_errno EXDEV rename2 "$enc/c" "$MNT/other/c" noreplace
[ -e "$enc/c" ] || fail "a refused rename lost enc/c"

step "remount, the key again: everything is there"
ls -l "$enc" >/tmp/before
e2e_umount
e2e_mount
e2e_add_key
ls -l "$enc" >/tmp/after
cmp -s /tmp/before /tmp/after || { diff /tmp/before /tmp/after; fail "the listing changed across the remount"; }
cmp "$REF/b" "$enc/a" || fail "enc/a after the remount"
cmp "$REF/a" "$enc/c" || fail "enc/c after the remount"
cmp "$REF/t" "$enc/linked" || fail "enc/linked after the remount"
[ -p "$enc/fifo" ] && [ -c "$enc/null" ] && [ -c "$enc/b" ] || fail "special files lost their type"

step "without the key: six no-key names, removed one by one"
e2e_remove_key
ls -A "$enc" >/tmp/nokey
cat /tmp/nokey
[ "$(wc -l </tmp/nokey)" = 6 ] || fail "expected 6 no-key names"
grep -qx -e fifo -e null -e linked /tmp/nokey && fail "a plaintext name without the key"
for n in $(cat /tmp/nokey); do
	rm "$enc/$n" || fail "cannot remove $n by its no-key name"
done
[ -z "$(ls -A "$enc")" ] || fail "names left after removing them all: $(ls -A "$enc")"
rmdir "$enc"
e2e_umount

# SPDX-License-Identifier: GPL-2.0
# "btrfs send" with the key: a stream of a snapshot holding encrypted files
# carries their names, symlink targets and data in plaintext, and "btrfs
# receive" recreates them, in an unencrypted directory and in one encrypted
# with another key (where everything is encrypted anew). Full and incremental
# sends, of a subvolume with an encrypted directory and of an encrypted
# subvolume: renames that orphan an inode (whose temporary name must not hit
# an encrypted name in the same directory), moves, links, a replaced symlink,
# a partial overwrite; clones stay clones; with --compressed-data, encrypted
# extents are sent decrypted, plain ones encoded. Without the key: ENOKEY and
# a kernel message, an empty stream for an encrypted subvolume, and a
# partial stream without a byte of encrypted data or a no-key name for an
# encrypted directory. A snapshot without encrypted files still round-trips.
. /lib/test.sh
# Encryption with the rest of btrfs: on btrfs, whatever E2E_FS says.
E2E_FS=btrfs

e2e_begin
e2e_make_ref 1 4096 150000
rnd=$(head -c 8 /dev/urandom | xxd -p)
data=MARKERsenddata$rnd
name=MARKERsendname$rnd

# fill DIR: the reference tree, a marker file and name, names of 255 bytes
# and with spaces, special files and a reflinked copy.
fill() {
	e2e_copy_ref "$1"
	marker_file "$1/data-$name" 100000 "$data"
	echo long >"$1/$(name_of_length 255 n)"
	echo spaces >"$1/with spaces"
	mkfifo "$1/fifo"
	mknod "$1/null" c 1 3
	fscrypt-ioctl clone "$1/f150000" "$1/copy"
}

btrfs subvolume create "$MNT/vol" >/dev/null
e2e_encrypt "$MNT/vol/enc"
fill "$MNT/vol/enc"
random_file "$MNT/vol/unencrypted" 20000
btrfs subvolume create "$MNT/evol" >/dev/null
fscrypt-ioctl set-policy "$MNT/evol" "$KEYID"
fill "$MNT/evol"
btrfs subvolume create "$MNT/plainvol" >/dev/null
cp -a "$REF/." "$MNT/plainvol/"
btrfs subvolume snapshot -r "$MNT/vol" "$MNT/vol-ro" >/dev/null
btrfs subvolume snapshot -r "$MNT/plainvol" "$MNT/plainvol-ro" >/dev/null

# A name that the incremental send below must not take for its orphan: the
# stream renames f4096 of evol away to "o<ino>-<gen>-0" while f1 takes its
# name. The send must find that name taken, though encrypted on disk.
orphan=o$(stat -c %i "$MNT/evol/f4096")-$(fscrypt-ioctl generation "$MNT/evol/f4096")-0
echo "not to be overwritten" >"$MNT/evol/$orphan"
# Snapshots of evol go to a directory of its policy, not into evol itself.
e2e_encrypt "$MNT/snaps"
btrfs subvolume snapshot -r "$MNT/evol" "$MNT/snaps/snap1" >/dev/null

# Receive puts an incremental stream on the first subvolume it finds with the
# parent's received UUID, so the two copies are on two filesystems: $rp, an
# unencrypted directory, and $re, one encrypted with another key.
mkfs_btrfs_encrypt "$DISK2"
mkfs_btrfs_encrypt "$DISK3"
mount_btrfs "$DISK2" /mnt/rp
mount_btrfs "$DISK3" /mnt/re
rp=/mnt/rp/p
re=/mnt/re/e
head -c 64 /dev/urandom >/tmp/key2
key2=$(fscrypt-ioctl add-key /mnt/re </tmp/key2)
mkdir "$rp" "$re"
fscrypt-ioctl set-policy "$re" "$key2"

# same_tree A B: B has A's names, links, symlink targets and contents.
same_tree() {
	tree_shape "$1" >/tmp/shape.a
	tree_shape "$2" >/tmp/shape.b
	cmp -s /tmp/shape.a /tmp/shape.b || {
		diff /tmp/shape.a /tmp/shape.b | head -20
		fail "the names below $2 differ from $1"
	}
	same_digests "$1" "$2"
	echo "ok: $2: $(wc -l </tmp/shape.b) entries as in $1"
}

# send_ok STREAM ARGS...: btrfs send ARGS to STREAM, which must succeed.
send_ok() {
	out=$1
	shift
	btrfs send -q -f "$out" "$@" || fail "btrfs send $*"
}

# receive_both STREAM: receives STREAM into $rp and $re.
receive_both() {
	for to in "$rp" "$re"; do
		btrfs receive -f "$1" "$to" 2>/tmp/receive.err ||
			fail "btrfs receive of $1 into $to: $(grep -v '^At ' /tmp/receive.err)"
	done
}

# encrypted_below DIR: every file and directory below DIR has key2's policy,
# and each regular file of more than 2000 bytes has extents encrypted with it.
encrypted_below() {
	sync
	find "$1" -type f -o -type d >/tmp/entries
	while read -r p; do
		fscrypt-ioctl get-policy "$p" | grep -qx "key $key2" ||
			fail "$p: not encrypted with the receiving side's key"
		if [ -f "$p" ] && [ "$(stat -c %s "$p")" -gt 2000 ]; then
			encrypted_extents "$p" "$key2"
		fi
	done </tmp/entries
	echo "ok: $(wc -l </tmp/entries) entries below $1 are encrypted with the receiving side's key"
}

step "full send of a snapshot with an encrypted directory"
send_ok /tmp/vol.stream "$MNT/vol-ro"
grep -q -F "$data" /tmp/vol.stream || fail "the stream does not carry the file data in plaintext"
btrfs receive --dump -f /tmp/vol.stream >/tmp/vol.dump
grep -q -F "./vol-ro/enc/data-$name " /tmp/vol.dump || fail "the stream does not carry the plaintext name"
grep -q "^clone *\./vol-ro/enc/copy .*from=\./vol-ro/enc/f150000" /tmp/vol.dump ||
	fail "the reflinked copy is not sent as a clone: $(grep copy /tmp/vol.dump | head -3)"
receive_both /tmp/vol.stream
same_tree "$MNT/vol-ro" "$rp/vol-ro"
same_tree "$MNT/vol-ro" "$re/vol-ro"
encrypted_below "$re/vol-ro"

step "full send of a snapshot of an encrypted subvolume"
send_ok /tmp/snap1.stream "$MNT/snaps/snap1"
grep -q -F "$data" /tmp/snap1.stream || fail "the stream does not carry the file data in plaintext"
receive_both /tmp/snap1.stream
same_tree "$MNT/snaps/snap1" "$rp/snap1"
same_tree "$MNT/snaps/snap1" "$re/snap1"
encrypted_below "$re/snap1"

step "incremental send of the encrypted subvolume"
e=$MNT/evol
mv "$e/f1" "$e/t"
mv "$e/f4096" "$e/f1"
mv "$e/t" "$e/f4096"
mkdir "$e/moved"
mv "$e/d1/d2" "$e/moved/"
rmdir "$e/d1/empty"
ln "$e/f150000" "$e/hard2"
rm "$e/moved/d2/hard"
rm "$e/link"
ln -s "moved/d2/d3/nested-$name" "$e/link"
mv "$e/moved/d2/d3/nested" "$e/moved/d2/d3/nested-$name"
random_file /tmp/4k 4096
dd if=/tmp/4k of="$e/f150000" bs=4096 seek=10 conv=notrunc 2>/dev/null
random_file "$e/new" 30000
btrfs subvolume snapshot -r "$e" "$MNT/snaps/snap2" >/dev/null
send_ok /tmp/snap2.stream -p "$MNT/snaps/snap1" "$MNT/snaps/snap2"
btrfs receive --dump -f /tmp/snap2.stream >/tmp/snap2.dump
grep -q -E "^rename +\./snap2/f4096 +dest=\./snap2/o[0-9]+-[0-9]+-1$" /tmp/snap2.dump ||
	fail "no orphan rename past the taken name $orphan: $(grep -m 3 -E '/o[0-9]+-' /tmp/snap2.dump)"
receive_both /tmp/snap2.stream
same_tree "$MNT/snaps/snap2" "$rp/snap2"
same_tree "$MNT/snaps/snap2" "$re/snap2"
encrypted_below "$re/snap2"
[ "$(cat "$re/snap2/$orphan")" = "not to be overwritten" ] || fail "the receiver's $orphan was overwritten"

step "incremental send with --compressed-data: encrypted extents decrypted, plain ones encoded"
mount -o remount,compress-force=zstd "$MNT"
# Whole 64 KiB pages: with sectors smaller than pages (ARCH=arm64-64k), btrfs
# compresses whole pages only.
marker_file "$MNT/vol/enc/comp" 262144 "$data"
marker_file "$MNT/vol/pcomp" 262144 "plain compressible data"
sync
btrfs subvolume snapshot -r "$MNT/vol" "$MNT/vol-ro2" >/dev/null
send_ok /tmp/vol2.stream --proto 2 --compressed-data -p "$MNT/vol-ro" "$MNT/vol-ro2"
btrfs receive --dump -f /tmp/vol2.stream >/tmp/vol2.dump
grep -q "^encoded_write *\./vol-ro2/pcomp " /tmp/vol2.dump || fail "the plain file is not sent encoded"
grep -q "^write *\./vol-ro2/enc/comp " /tmp/vol2.dump || fail "the encrypted file is not sent as plaintext writes"
grep -q "^encoded_write *\./vol-ro2/enc/" /tmp/vol2.dump && fail "an encrypted extent is sent encoded"
receive_both /tmp/vol2.stream
same_tree "$MNT/vol-ro2" "$rp/vol-ro2"
same_tree "$MNT/vol-ro2" "$re/vol-ro2"
encrypted_below "$re/vol-ro2"

step "without the key: ENOKEY and a kernel message"
umount /mnt/rp /mnt/re
id1=$(btrfs inspect-internal rootid "$MNT/snaps/snap1")
id2=$(btrfs inspect-internal rootid "$MNT/snaps/snap2")
e2e_remove_key
# snap1 and snap2 by their no-key names
for n in $(ls "$MNT/snaps"); do
	case $(btrfs inspect-internal rootid "$MNT/snaps/$n") in
	"$id1") nokey1=$MNT/snaps/$n ;;
	"$id2") nokey2=$MNT/snaps/$n ;;
	esac
done
[ -n "${nokey1:-}" ] && [ -n "${nokey2:-}" ] || fail "no-key names of the snapshots not found: $(ls "$MNT/snaps")"
dmesg_mark
must_fail btrfs send -q -f /tmp/nokey.stream "$nokey1"
[ ! -s /tmp/nokey.stream ] || fail "a refused send of an encrypted subvolume wrote $(stat -c %s /tmp/nokey.stream) bytes"
expect_kmsg "send: inode 256 of root $id1 is encrypted and its key is not present"
dmesg_mark
must_fail btrfs send -q -f /tmp/nokey.stream -p "$nokey1" "$nokey2"
[ ! -s /tmp/nokey.stream ] || fail "a refused incremental send wrote $(stat -c %s /tmp/nokey.stream) bytes"
expect_kmsg "send: inode 256 of root $id2 is encrypted and its key is not present"
dmesg_mark
btrfs send -q -f /tmp/nokey.stream "$MNT/vol-ro" 2>/tmp/send.err && fail "send of an encrypted directory without its key succeeded"
grep -q "Required key not available" /tmp/send.err || fail "send without the key: $(cat /tmp/send.err)"
expect_kmsg "send: inode [0-9]* of root [0-9]* is encrypted and its key is not present"
grep -q -F "$data" /tmp/nokey.stream && fail "the partial stream carries encrypted data"
# Every path of the partial stream is a plaintext one: no no-key name.
btrfs receive --dump -f /tmp/nokey.stream 2>/dev/null | awk '{ print $2 }' >/tmp/nokey.paths || true
grep -v -E '^\./vol-ro(/|/(enc|unencrypted|o[0-9]+-[0-9]+-[0-9]+))?$' /tmp/nokey.paths >/tmp/nokey.bad &&
	fail "paths of the partial stream that are not plaintext: $(head -3 /tmp/nokey.bad)"
echo "ok: the partial stream has $(wc -l </tmp/nokey.paths) commands, all on plaintext paths"

step "with the key again, send works; the key is then removable"
e2e_add_key
send_ok /tmp/again.stream "$MNT/vol-ro"
cmp -s /tmp/vol.stream /tmp/again.stream || fail "the stream differs from the first send's"
e2e_remove_key

step "a snapshot without encrypted files still round-trips"
mount_btrfs "$DISK2" /mnt/rp
send_ok /tmp/plain.stream "$MNT/plainvol-ro"
btrfs receive -f /tmp/plain.stream "$rp" 2>/dev/null
same_digests "$REF" "$rp/plainvol-ro"
no_csum_errors
umount /mnt/rp
e2e_umount

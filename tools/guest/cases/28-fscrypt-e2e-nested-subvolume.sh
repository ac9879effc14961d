# SPDX-License-Identifier: GPL-2.0
# A new subvolume inside an encrypted directory (issue 15): its root directory
# inherits the directory's policy, its name in the directory is encrypted,
# and its root item gets SUBVOL_FSCRYPT, so that its snapshots follow the
# rules of encrypted subvolumes (case 26). Without the key it shows a no-key
# name, cannot be created, and can be deleted by its no-key name. A snapshot
# of an unencrypted subvolume is refused in an encrypted directory with EXDEV
# and a kernel message: its files would be unencrypted there. Its path holds
# an encrypted name, so a mount or deletion by id is refused with a message
# (EOPNOTSUPP) and /proc/mounts shows no subvol= for it; by path, both work.
# Subvolumes nest deeper: one in the encrypted root directory of another,
# and its snapshot in an encrypted directory of that one.
. /lib/test.sh

mkfs_btrfs_encrypt "$DISK1"
mount_btrfs "$DISK1"
head -c 64 /dev/urandom >/tmp/key
keyid=$(fscrypt-ioctl add-key "$MNT" </tmp/key)
mkdir "$MNT/home"
fscrypt-ioctl set-policy "$MNT/home" "$keyid"
mkdir -p "$REF/d"
random_file "$REF/f" 200000
random_file "$REF/d/g" 3000

step "a subvolume created in an encrypted directory is encrypted"
btrfs subvolume create "$MNT/home/vol" >/dev/null
[ "$(stat -c %i "$MNT/home/vol")" = 256 ] || fail "home/vol is not a subvolume"
cp "$REF/f" "$MNT/home/vol/f"
mkdir "$MNT/home/vol/d"
cp "$REF/d/g" "$MNT/home/vol/d/g"
# Nested deeper: a subvolume whose parent is the encrypted root directory of
# a subvolume, and a snapshot in a plain encrypted directory of the subvolume.
btrfs subvolume create "$MNT/home/vol/inner" >/dev/null
echo inner >"$MNT/home/vol/inner/x"
btrfs subvolume snapshot "$MNT/home/vol/inner" "$MNT/home/vol/d/inner-snap" >/dev/null
# From disk, not from the caches of the inodes just created. commit=1: the
# cleaner, which "subvolume sync" waits for, runs after each periodic commit.
umount "$MNT"
mount_btrfs "$DISK1" "$MNT" commit=1
fscrypt-ioctl add-key "$MNT" </tmp/key >/dev/null
for d in home/vol home/vol/inner home/vol/d/inner-snap; do
	fscrypt-ioctl get-flags "$MNT/$d" | grep -q encrypt || fail "$d: its root directory is not encrypted"
	fscrypt-ioctl get-policy "$MNT/$d" | grep -qx "key $keyid" || fail "$d: its root directory lacks the policy"
done
fscrypt-ioctl get-flags "$MNT/home/vol/d/g" | grep -q encrypt || fail "a file in the subvolume is not encrypted"
[ "$(cat "$MNT/home/vol/d/inner-snap/x")" = inner ] || fail "the snapshot of the inner subvolume"
btrfs subvolume delete "$MNT/home/vol/d/inner-snap" "$MNT/home/vol/inner" >/dev/null
btrfs subvolume sync "$MNT" >/dev/null
same_digests "$REF" "$MNT/home/vol/"

step "its snapshots follow the rules of encrypted subvolumes"
btrfs subvolume snapshot -r "$MNT/home/vol" "$MNT/home/vol-ro" >/dev/null
same_digests "$REF" "$MNT/home/vol-ro/"
mkdir "$MNT/other"
set_adiantum_policy "$MNT/other" "$keyid"
dmesg_mark
if btrfs subvolume snapshot "$MNT/home/vol" "$MNT/other/snap" 2>/tmp/err; then
	fail "a snapshot of the subvolume was created in a directory of another policy"
fi
grep -q "cross-device" /tmp/err || fail "snapshot under another policy: not EXDEV: $(cat /tmp/err)"
expect_kmsg "snapshot of encrypted subvolume .* cannot be created in directory .* of another encryption policy"
btrfs subvolume snapshot -r "$MNT/home/vol" "$MNT/vol-plain-dir" >/dev/null
fscrypt-ioctl get-policy "$MNT/vol-plain-dir" | grep -qx "key $keyid" || fail "a snapshot in an unencrypted directory lost the policy"
same_digests "$REF" "$MNT/vol-plain-dir/"
btrfs subvolume delete "$MNT/vol-plain-dir" >/dev/null
btrfs subvolume sync "$MNT" >/dev/null

step "by id: mount and delete refused with a message, by path they work"
id=$(btrfs inspect-internal rootid "$MNT/home/vol")
mkdir -p /tmp/m2
dmesg_mark
if mount -t btrfs -o "subvolid=$id" "$DISK1" /tmp/m2 2>/tmp/err; then
	fail "a mount by subvolid= of a subvolume in an encrypted directory"
fi
expect_kmsg "subvolume $id is in an encrypted directory: mount it with subvol=PATH, not by id"
mount -t btrfs -o subvol=home/vol "$DISK1" /tmp/m2 || fail "mount by subvol=home/vol"
cmp "$REF/f" /tmp/m2/f || fail "the file through the mount by path"
grep " /tmp/m2 " /proc/mounts | grep -q "subvolid=$id" || fail "/proc/mounts lacks subvolid=$id"
grep " /tmp/m2 " /proc/mounts | grep -q "subvol=" && fail "/proc/mounts shows a subvol= path with ciphertext"
umount /tmp/m2
dmesg_mark
if btrfs subvolume delete -i "$id" "$MNT" >/tmp/err 2>&1; then
	fail "a deletion by id of a subvolume in an encrypted directory"
fi
grep -q "Operation not supported" /tmp/err || fail "delete by id: not EOPNOTSUPP: $(cat /tmp/err)"
expect_kmsg "subvolume $id is in an encrypted directory: delete it by path, not by id"
[ -d "$MNT/home/vol/d" ] || fail "the refused deletion removed something"

step "a snapshot of an unencrypted subvolume is refused in an encrypted directory"
btrfs subvolume create "$MNT/plain" >/dev/null
echo data >"$MNT/plain/x"
dmesg_mark
if btrfs subvolume snapshot "$MNT/plain" "$MNT/home/plain-snap" 2>/tmp/err; then
	fail "a snapshot of an unencrypted subvolume was created in an encrypted directory"
fi
grep -q "cross-device" /tmp/err || fail "unencrypted snapshot: not EXDEV: $(cat /tmp/err)"
expect_kmsg "snapshot of unencrypted subvolume .* cannot be created in encrypted directory"
[ ! -e "$MNT/home/plain-snap" ] || fail "a refused snapshot left a name"

step "the name and the root flag on disk"
umount "$MNT"
btrfs inspect-internal dump-tree -t root "$DISK1" >/tmp/roots
[ "$(grep -c 'flags 0x2(SUBVOL_FSCRYPT)' /tmp/roots)" = 1 ] ||
	fail "expected one root item with SUBVOL_FSCRYPT (home/vol): $(grep -E 'flags 0x' /tmp/roots)"
grep -q 'flags 0x3(RDONLY|SUBVOL_FSCRYPT)' /tmp/roots || fail "the read-only snapshot lacks SUBVOL_FSCRYPT"
btrfs inspect-internal dump-tree -t 5 "$DISK1" >/tmp/fstree
grep -q 'name: vol$' /tmp/fstree && fail "the subvolume's name is stored in plaintext in its dir items"
grep -q 'name: vol$' /tmp/roots && fail "the subvolume's name is stored in plaintext in its root refs"
volid=$(awk '/ROOT_ITEM 0\)/ { id = substr($4, 2) + 0 } /flags 0x2\(SUBVOL_FSCRYPT\)/ { print id; exit }' /tmp/roots)
[ -n "$volid" ] || fail "no root id for home/vol in the root tree"
btrfs inspect-internal dump-tree -t "$volid" "$DISK1" >/tmp/voltree
grep -q 'key (256 FSCRYPT_INODE_CTX 0)' /tmp/voltree ||
	fail "no context item of inode 256 in tree $volid: $(grep 'key (256 ' /tmp/voltree)"
btrfs check "$DISK1" >/tmp/check 2>&1 || fail "btrfs check: $(tail -n 5 /tmp/check)"

step "without the key: a no-key name, no new subvolume, delete by no-key name"
mount_btrfs "$DISK1" "$MNT" commit=1
ls "$MNT/home" >/tmp/names
grep -qx vol /tmp/names && fail "the subvolume's name is visible without the key"
[ "$(wc -l </tmp/names)" = 2 ] || fail "expected 2 no-key names: $(cat /tmp/names)"
expect_enokey btrfs subvolume create "$MNT/home/vol2"
delete_rw_subvol_by_nokey_name "$MNT/home" 1

step "the key again: the read-only snapshot is intact"
fscrypt-ioctl add-key "$MNT" </tmp/key >/dev/null
[ ! -e "$MNT/home/vol" ] || fail "the deleted subvolume is back"
same_digests "$REF" "$MNT/home/vol-ro/"
btrfs subvolume delete "$MNT/home/vol-ro" >/dev/null
btrfs subvolume sync "$MNT" >/dev/null
umount "$MNT"
btrfs check "$DISK1" >/tmp/check 2>&1 || fail "btrfs check after the deletions: $(tail -n 5 /tmp/check)"

# SPDX-License-Identifier: GPL-2.0
# fs-verity is refused on encrypted files: btrfs keeps the Merkle tree in
# items of the subvolume tree, which are not encrypted, so it would store
# the hashes of the plaintext blocks in the clear. FS_IOC_ENABLE_VERITY on
# an encrypted file fails with EOPNOTSUPP and a kernel message, writes no
# verity item and leaves the file as it was; on an unencrypted file of the
# same filesystem it works (so the refusal is about encryption, not about
# fs-verity missing from the kernel), and its items are on disk.
. /lib/test.sh
E2E_FS=btrfs

e2e_begin
enc=$MNT/enc
e2e_encrypt "$enc"
mkdir -p "$REF"
random_file "$REF/f" 200000
cp "$REF/f" "$MNT/plain"
cp "$REF/f" "$enc/f"
sync

step "an unencrypted file gets fs-verity"
fscrypt-ioctl enable-verity "$MNT/plain"
fscrypt-ioctl get-flags "$MNT/plain" | grep -q ' verity$' || fail "no verity flag on the unencrypted file"
echo more 2>/dev/null >>"$MNT/plain" && fail "a verity file was opened for writing"
cmp "$REF/f" "$MNT/plain" || fail "the verity file reads back different"

step "an encrypted file is refused, with a message"
dmesg_mark
expect_errno EOPNOTSUPP enable-verity "$enc/f"
ino=$(stat -c %i "$enc/f")
expect_kmsg "verity: inode $ino of root 5 is encrypted, fs-verity on encrypted files is not supported"
fscrypt-ioctl get-flags "$enc/f" | grep -q verity && fail "the refused file has the verity flag"
cmp "$REF/f" "$enc/f" || fail "the refused file changed"
echo more >>"$enc/f" || fail "the refused file cannot be written"
cp "$REF/f" /tmp/g
echo more >>/tmp/g

step "on disk: verity items for the unencrypted file only"
plain_ino=$(stat -c %i "$MNT/plain")
umount "$MNT"
btrfs inspect-internal dump-tree -t 5 "$DISK1" >/tmp/fstree
grep -q "key ($plain_ino VERITY_DESC_ITEM " /tmp/fstree || fail "no verity descriptor of the unencrypted file"
grep -q "key ($plain_ino VERITY_MERKLE_ITEM " /tmp/fstree || fail "no Merkle tree of the unencrypted file"
grep -qE "key \($ino VERITY_(DESC|MERKLE)_ITEM " /tmp/fstree && fail "verity items of the encrypted file"
grep -q "key (ORPHAN ORPHAN_ITEM $ino)" /tmp/fstree && fail "an orphan item left for the refused file"
btrfs check "$DISK1" >/tmp/check 2>&1 || fail "btrfs check: $(tail -n 5 /tmp/check)"

step "after a remount, with the key"
mount_btrfs "$DISK1"
e2e_add_key
cmp /tmp/g "$enc/f" || fail "the encrypted file after the remount"
fscrypt-ioctl get-flags "$MNT/plain" | grep -q ' verity$' || fail "the verity flag is gone after the remount"
cmp "$REF/f" "$MNT/plain" || fail "the verity file after the remount"
umount "$MNT"

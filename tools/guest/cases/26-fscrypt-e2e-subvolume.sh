# SPDX-License-Identifier: GPL-2.0
# Whole-subvolume encryption: a policy on the root directory of an empty
# subvolume encrypts everything in it; its snapshots are encrypted with the
# same policy, may be created in a directory of that policy (where their
# names are encrypted too), and are refused with EXDEV and a kernel message
# in an unencrypted place. Without the key, the snapshot shows a no-key name
# and can be deleted by it. Writes to the subvolume after a snapshot leave
# the snapshot unchanged.
. /lib/test.sh

mkfs_btrfs_encrypt "$DISK1"
mount_btrfs "$DISK1"
head -c 64 /dev/urandom >/tmp/key
keyid=$(fscrypt-ioctl add-key "$MNT" </tmp/key)
mkdir -p "$REF/d"
random_file "$REF/f" 300000
random_file "$REF/d/g" 5000

step "encrypt a whole subvolume"
btrfs subvolume create "$MNT/sub" >/dev/null
fscrypt-ioctl set-policy "$MNT/sub" "$keyid"
cp "$REF/f" "$MNT/sub/f"
mkdir "$MNT/sub/d"
cp "$REF/d/g" "$MNT/sub/d/g"
fscrypt-ioctl get-flags "$MNT/sub/d/g" | grep -q encrypt || fail "a file in the subvolume is not encrypted"
fscrypt-ioctl get-policy "$MNT/sub/d" | grep -qx "key $keyid" || fail "a directory in the subvolume lacks the policy"

step "a snapshot in an unencrypted place is refused"
dmesg_mark
btrfs subvolume snapshot "$MNT/sub" "$MNT/out" 2>/tmp/err && fail "snapshot created in an unencrypted directory"
grep -q "cross-device" /tmp/err || fail "snapshot did not fail with EXDEV: $(cat /tmp/err)"
[ ! -e "$MNT/out" ] || fail "a refused snapshot left $MNT/out"
dmesg_since | grep -q "snapshot of encrypted subvolume .* must be created in a directory with its encryption policy" ||
	fail "no kernel message for the refused snapshot"

step "a snapshot in a directory of the same policy"
btrfs subvolume snapshot "$MNT/sub" "$MNT/sub/snap" >/dev/null
btrfs subvolume snapshot -r "$MNT/sub" "$MNT/sub/snap-ro" >/dev/null
fscrypt-ioctl get-policy "$MNT/sub/snap" | grep -qx "key $keyid" || fail "the snapshot lost the policy"
same_digests "$REF" "$MNT/sub/snap/"
random_file /tmp/new 4096
cp /tmp/new "$MNT/sub/f"
cmp -s "$REF/f" "$MNT/sub/snap/f" || fail "a write to the subvolume changed the snapshot"
cmp -s "$REF/f" "$MNT/sub/snap-ro/f" || fail "a write to the subvolume changed the read-only snapshot"
cp /tmp/new "$REF/f"

step "remount: the subvolume stays encrypted"
umount "$MNT"
mount_btrfs "$DISK1"
btrfs subvolume snapshot "$MNT/sub" "$MNT/out" 2>/dev/null && fail "snapshot outside allowed after a remount"
fscrypt-ioctl add-key "$MNT" </tmp/key >/dev/null
cmp "$REF/f" "$MNT/sub/f" || fail "the subvolume's file after the remount"
cmp "$REF/d/g" "$MNT/sub/snap/d/g" || fail "the snapshot's file after the remount"

step "without the key: no-key names, and the snapshot deleted by its"
fscrypt-ioctl remove-key "$MNT" "$keyid"
drop_caches
ls -a "$MNT/sub" >/tmp/names
cat /tmp/names
grep -qx snap /tmp/names && fail "the snapshot's name is visible without the key"
[ "$(grep -vc '^\.\.*$' /tmp/names)" = 4 ] || fail "expected 4 no-key names (f, d, snap, snap-ro)"
delete_rw_subvol_by_nokey_name "$MNT/sub" 3

step "the key again: the rest is intact"
fscrypt-ioctl add-key "$MNT" </tmp/key >/dev/null
[ ! -e "$MNT/sub/snap" ] || fail "the deleted snapshot is back"
cmp "$REF/d/g" "$MNT/sub/snap-ro/d/g" || fail "the read-only snapshot"
cmp "$REF/f" "$MNT/sub/f" || fail "the subvolume"
umount "$MNT"

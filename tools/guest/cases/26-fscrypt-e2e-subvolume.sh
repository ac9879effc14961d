# SPDX-License-Identifier: GPL-2.0
# Whole-subvolume encryption: a policy on the root directory of an empty
# subvolume encrypts everything in it; its snapshots are encrypted with the
# same policy. They go where fscrypt lets an encrypted directory be moved:
# in an unencrypted directory, or in one of that policy (where their names
# are encrypted too); in a directory of another policy, creating one and
# renaming one there are refused with EXDEV (with a kernel message for the
# snapshot). Without the key, the snapshot shows a no-key name and can be
# deleted by it. Writes to the subvolume after a snapshot leave the snapshot
# unchanged.
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

step "a snapshot in an unencrypted directory keeps the policy"
btrfs subvolume snapshot "$MNT/sub" "$MNT/out" >/dev/null
fscrypt-ioctl get-policy "$MNT/out" | grep -qx "key $keyid" || fail "the snapshot in an unencrypted directory lost the policy"
same_digests "$REF" "$MNT/out/"

step "a snapshot in a directory of another policy is refused, and so is a rename there"
mkdir "$MNT/other"
set_adiantum_policy "$MNT/other" "$keyid"
dmesg_mark
btrfs subvolume snapshot "$MNT/sub" "$MNT/other/snap" 2>/tmp/err && fail "snapshot created under another policy"
grep -q "cross-device" /tmp/err || fail "snapshot did not fail with EXDEV: $(cat /tmp/err)"
[ -z "$(ls -A "$MNT/other")" ] || fail "a refused snapshot left $(ls -A "$MNT/other")"
expect_kmsg "snapshot of encrypted subvolume .* cannot be created in directory .* of another encryption policy"
expect_errno EXDEV rename2 "$MNT/out" "$MNT/other/out" noreplace
[ -d "$MNT/out" ] || fail "the refused rename moved the snapshot"

step "a rename into a directory of the same policy and out again"
fscrypt-ioctl rename2 "$MNT/out" "$MNT/sub/out" noreplace
same_digests "$REF" "$MNT/sub/out/"
fscrypt-ioctl rename2 "$MNT/sub/out" "$MNT/out" noreplace
same_digests "$REF" "$MNT/out/"
btrfs subvolume delete "$MNT/out" >/dev/null

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
# Without the key: only a root flag that survived names the other policy.
dmesg_mark
btrfs subvolume snapshot "$MNT/sub" "$MNT/other/snap" 2>/tmp/err && fail "snapshot under another policy allowed after a remount"
grep -q "cross-device" /tmp/err || fail "snapshot after the remount: not EXDEV: $(cat /tmp/err)"
expect_kmsg "snapshot of encrypted subvolume .* cannot be created in directory .* of another encryption policy"
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

step "without the key: a snapshot in an unencrypted directory, mounted by id"
# Its name is plaintext there, so neither needs the key.
btrfs subvolume snapshot -r "$MNT/sub" "$MNT/nokey-snap" >/dev/null
id=$(btrfs inspect-internal rootid "$MNT/nokey-snap")
mkdir -p /tmp/m2
mount -t btrfs -o "subvolid=$id" "$DISK1" /tmp/m2 || fail "mount by subvolid=$id of a snapshot in an unencrypted directory"
grep " /tmp/m2 " /proc/mounts | grep -q "subvol=/nokey-snap" || fail "/proc/mounts: $(grep " /tmp/m2 " /proc/mounts)"
[ "$(ls /tmp/m2 | wc -l)" = 3 ] || fail "expected 3 no-key names in the snapshot: $(ls /tmp/m2)"
umount /tmp/m2

step "the key again: the rest is intact"
fscrypt-ioctl add-key "$MNT" </tmp/key >/dev/null
cmp "$REF/f" "$MNT/nokey-snap/f" || fail "the snapshot taken without the key"
cmp "$REF/d/g" "$MNT/nokey-snap/d/g" || fail "the snapshot taken without the key (d/g)"
[ ! -e "$MNT/sub/snap" ] || fail "the deleted snapshot is back"
cmp "$REF/d/g" "$MNT/sub/snap-ro/d/g" || fail "the read-only snapshot"
cmp "$REF/f" "$MNT/sub/f" || fail "the subvolume"
umount "$MNT"

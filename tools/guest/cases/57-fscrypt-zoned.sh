# SPDX-License-Identifier: GPL-2.0
# Encryption on zoned filesystems: zoned allocation would split an extent,
# and so its IVs, after its data was encrypted, so every way to encryption
# is refused there with a message that says why: mkfs.btrfs -O encrypt and
# btrfstune --enable-encrypt (errors), the sysfs feature file and
# BTRFS_IOC_SET_FEATURES (EOPNOTSUPP), and FS_IOC_SET_ENCRYPTION_POLICY
# (EOPNOTSUPP, naming zoned filesystems rather than advising to enable the
# feature). The device is null_blk, zoned and memory-backed by the kernel
# command line of tools/integration.
. /lib/test.sh

ZDEV=/dev/nullb0
[ -b "$ZDEV" ] || fail "no $ZDEV: the kernel needs CONFIG_BLK_DEV_NULL_BLK, and the null_blk options of tools/integration"
zoned=$(cat /sys/block/nullb0/queue/zoned)
[ "$zoned" = host-managed ] || fail "$ZDEV is not a host-managed zoned device: $zoned"

step "mkfs.btrfs -O encrypt refuses a zoned device"
mkfs.btrfs -f -O encrypt "$ZDEV" >/tmp/57.out 2>&1 && fail "mkfs.btrfs -O encrypt made a zoned filesystem"
grep -q "cannot enable encrypt in zoned mode" /tmp/57.out || fail "mkfs.btrfs -O encrypt: $(tail -n 3 /tmp/57.out)"

step "a zoned filesystem, without the feature"
mkfs.btrfs -f "$ZDEV" >/tmp/57.out 2>&1 || fail "mkfs.btrfs on $ZDEV: $(tail -n 3 /tmp/57.out)"
mount_btrfs "$ZDEV"
fsid=$(mounted_fsid)
f=/sys/fs/btrfs/$fsid/features/encrypt
[ "$(cat /sys/fs/btrfs/"$fsid"/features/zoned 2>/dev/null)" = 1 ] ||
	fail "the filesystem on $ZDEV is not zoned"

step "the sysfs feature file: EOPNOTSUPP and a message"
dmesg_mark
sh -c "echo 1 >$f" 2>/tmp/57.err && fail "the encrypt feature was enabled on a zoned filesystem through sysfs"
grep -q "not supported" /tmp/57.err || fail "sysfs write: $(cat /tmp/57.err)"
expect_kmsg "the encrypt feature cannot be enabled: encryption is not supported on zoned filesystems"
[ "$(cat "$f")" = 0 ] || fail "a refused sysfs write set the encrypt feature"

step "BTRFS_IOC_SET_FEATURES: EOPNOTSUPP and a message"
dmesg_mark
expect_errno EOPNOTSUPP set-feature-encrypt "$MNT"
expect_kmsg "the encrypt feature cannot be enabled: encryption is not supported on zoned filesystems"
[ "$(cat "$f")" = 0 ] || fail "a refused BTRFS_IOC_SET_FEATURES set the encrypt feature"

step "a policy: EOPNOTSUPP, and the message names zoned filesystems"
mkdir "$MNT/d"
dmesg_mark
expect_errno EOPNOTSUPP set-policy "$MNT/d" 00112233445566778899aabbccddeeff
expect_kmsg "encryption is not supported on zoned filesystems"
if dmesg_since | grep -q "root can enable it"; then
	fail "the refusal on a zoned filesystem advises enabling the feature"
fi
umount "$MNT"
! incompat_encrypt "$ZDEV" || fail "the encrypt bit reached the zoned filesystem"

step "btrfstune --enable-encrypt refuses a zoned filesystem"
btrfstune --enable-encrypt "$ZDEV" >/tmp/57.out 2>&1 && fail "btrfstune enabled encryption on a zoned filesystem"
grep -q "cannot enable encrypt on a zoned filesystem" /tmp/57.out || fail "btrfstune: $(tail -n 3 /tmp/57.out)"
! incompat_encrypt "$ZDEV" || fail "btrfstune set the encrypt bit on a zoned filesystem"

# SPDX-License-Identifier: GPL-2.0
# The encrypt incompat feature is offered (the test kernel has
# CONFIG_BTRFS_DEBUG and CONFIG_FS_ENCRYPTION) but not set by mkfs: a new
# filesystem does not have it, and btrfs says at load that it has fscrypt.
. /lib/test.sh

step "btrfs lists the encrypt feature as supported"
[ -e /sys/fs/btrfs/features/encrypt ] ||
	fail "/sys/fs/btrfs/features/encrypt is missing: $(ls /sys/fs/btrfs/features | tr '\n' ' ')"

step "the module banner reports fscrypt=yes"
dmesg | grep 'Btrfs loaded' | grep -q 'fscrypt=yes' ||
	fail "banner: $(dmesg | grep 'Btrfs loaded')"

step "a new filesystem does not have the feature"
mkfs_btrfs "$DISK1"
mount_btrfs "$DISK1"
fsid=$(ls /sys/fs/btrfs | grep -E '^[0-9a-f-]{36}$' | head -n 1)
[ -n "$fsid" ] || fail "no /sys/fs/btrfs/<fsid> for the mounted filesystem"
[ ! -e "/sys/fs/btrfs/$fsid/features/encrypt" ] ||
	fail "a new filesystem has the encrypt feature set"
umount "$MNT"

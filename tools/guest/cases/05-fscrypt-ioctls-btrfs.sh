# SPDX-License-Identifier: GPL-2.0
# The fscrypt ioctls on btrfs answer as the unpatched 6.1 kernel does:
# btrfs_ioctl() does not know them and returns ENOTTY, which fscrypt tools
# read as "this filesystem does not support encryption". The series replaces
# this case once btrfs implements them.
. /lib/test.sh

mkfs_btrfs "$DISK1"
mount_btrfs "$DISK1"
mkdir "$MNT/empty"
echo data >"$MNT/file"
head -c 64 /dev/urandom >/tmp/key
keyid=00112233445566778899aabbccddeeff

expect_errno ENOTTY set-policy "$MNT/empty" "$keyid"
expect_errno ENOTTY set-policy "$MNT/empty" 0011223344556677
expect_errno ENOTTY get-policy "$MNT/empty"
expect_errno ENOTTY get-policy-v1 "$MNT/empty"
expect_errno ENOTTY add-key "$MNT" </tmp/key
expect_errno ENOTTY remove-key "$MNT" "$keyid"
expect_errno ENOTTY remove-key "$MNT" "$keyid" --all-users
expect_errno ENOTTY key-status "$MNT" "$keyid"
expect_errno ENOTTY get-nonce "$MNT/file"

step "FS_IOC_GETFLAGS works and shows no encrypt flag"
flags=$(fscrypt-ioctl get-flags "$MNT/file")
echo "$flags"
case $flags in *encrypt*) fail "unencrypted file reports the encrypt flag" ;; esac

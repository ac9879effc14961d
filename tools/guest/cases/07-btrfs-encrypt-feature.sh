# SPDX-License-Identifier: GPL-2.0
# Encryption is the administrator's opt-in. The test kernel offers the encrypt
# feature (CONFIG_BTRFS_FS_ENCRYPTION), but a filesystem has it only when root
# enables it: mkfs.btrfs -O encrypt, btrfstune --enable-encrypt on an
# unmounted filesystem, or /sys/fs/btrfs/<UUID>/features/encrypt. Without it
# every fscrypt ioctl is EOPNOTSUPP (what fscrypt tools read as "encryption
# not enabled"), and a user who owns an empty directory cannot set the
# incompat bit that older kernels and progs refuse.
. /lib/test.sh

# as_user CMD...: run a shell command line as uid/gid 1000.
mkdir -p /etc
grep -q "^user:" /etc/passwd 2>/dev/null ||
	echo 'user:x:1000:1000:user:/tmp:/bin/sh' >>/etc/passwd
as_user() { su -s /bin/sh user -c "$*"; }

# encrypt_feature: the mounted filesystem's features/encrypt (0 or 1).
encrypt_feature() {
	f=/sys/fs/btrfs/$(mounted_fsid)/features/encrypt
	[ -e "$f" ] || fail "$f is missing: the feature should be settable"
	cat "$f"
}

step "btrfs lists the encrypt feature as supported, the banner says fscrypt=yes"
[ -e /sys/fs/btrfs/features/encrypt ] ||
	fail "/sys/fs/btrfs/features/encrypt is missing: $(ls /sys/fs/btrfs/features | tr '\n' ' ')"
dmesg | grep 'Btrfs loaded' | grep -q 'fscrypt=yes' ||
	fail "banner: $(dmesg | grep 'Btrfs loaded')"

step "a new filesystem does not have the feature"
mkfs_btrfs "$DISK1"
! incompat_encrypt "$DISK1" || fail "mkfs without -O encrypt set the encrypt bit"
mount_btrfs "$DISK1"
[ "$(encrypt_feature)" = 0 ] || fail "a new filesystem has the encrypt feature set"

step "without the feature, a user's policy is refused with EOPNOTSUPP and a message"
mkdir "$MNT/user"
chown 1000:1000 "$MNT/user"
head -c 64 /dev/urandom >/tmp/07.key
chmod 0644 /tmp/07.key
dmesg_mark
out=$(as_user "fscrypt-ioctl --print-errno set-policy $MNT/user 00112233445566778899aabbccddeeff" 2>/dev/null) &&
	fail "set-policy succeeded without the encrypt feature"
[ "$out" = EOPNOTSUPP ] || fail "set-policy as uid 1000: expected EOPNOTSUPP, got '$out'"
dmesg_since | grep -q "encryption is not enabled on this filesystem.*features/encrypt" ||
	fail "no kernel message saying how to enable encryption: $(dmesg_since | tail -n 3)"
echo "ok: $(dmesg_since | grep -o 'encryption is not enabled.*' | head -n 1)"
[ "$(encrypt_feature)" = 0 ] || fail "a refused policy set the encrypt feature"

step "without the feature, the other fscrypt ioctls are EOPNOTSUPP (fscrypt tools: not enabled)"
expect_errno EOPNOTSUPP get-policy "$MNT/user"
expect_errno EOPNOTSUPP get-policy-v1 "$MNT/user"
expect_errno EOPNOTSUPP add-key "$MNT" </tmp/07.key
expect_errno EOPNOTSUPP key-status "$MNT" 00112233445566778899aabbccddeeff

step "a user cannot enable the feature through sysfs"
f=/sys/fs/btrfs/$(mounted_fsid)/features/encrypt
ls -l "$f"
must_fail as_user "echo 1 >$f"
[ "$(encrypt_feature)" = 0 ] || fail "uid 1000 enabled the encrypt feature"
umount "$MNT"
! incompat_encrypt "$DISK1" || fail "the encrypt bit reached the disk without root"

step "root enables it on the mounted filesystem; then the owner may set a policy"
mount_btrfs "$DISK1"
echo 1 >"/sys/fs/btrfs/$(mounted_fsid)/features/encrypt"
[ "$(encrypt_feature)" = 1 ] || fail "writing 1 did not enable the feature"
dmesg | grep -q "Setting encrypt feature flag" || fail "no kernel message for the feature set through sysfs"
# fscrypt tools: ENODATA is "supported, this directory is not encrypted".
expect_errno ENODATA get-policy "$MNT/user"
keyid=$(as_user "fscrypt-ioctl add-key $MNT </tmp/07.key")
[ ${#keyid} = 32 ] || fail "add-key as uid 1000 printed '$keyid'"
as_user "fscrypt-ioctl set-policy $MNT/user $keyid" || fail "set-policy as uid 1000 failed"
as_user "echo secret >$MNT/user/file"
[ "$(fscrypt-ioctl get-policy "$MNT/user" | head -n 1)" != "" ] || fail "no policy on $MNT/user"
echo "ok: uid 1000 encrypted $MNT/user with key $keyid"
umount "$MNT"
incompat_encrypt "$DISK1" || fail "the encrypt bit set through sysfs is not on disk"
btrfs check "$DISK1" >/tmp/07.check 2>&1 || {
	tail -n 5 /tmp/07.check
	fail "btrfs check fails on the filesystem encrypted by uid 1000"
}

step "BTRFS_IOC_SET_FEATURES: root enables it, a user cannot"
mkfs_btrfs "$DISK2"
mount_btrfs "$DISK2"
out=$(as_user "fscrypt-ioctl --print-errno set-feature-encrypt $MNT" 2>/dev/null) &&
	fail "uid 1000 enabled the encrypt feature with BTRFS_IOC_SET_FEATURES"
[ "$out" = EPERM ] || fail "set-feature-encrypt as uid 1000: expected EPERM, got '$out'"
[ "$(encrypt_feature)" = 0 ] || fail "a refused BTRFS_IOC_SET_FEATURES set the encrypt feature"
fscrypt-ioctl set-feature-encrypt "$MNT"
[ "$(encrypt_feature)" = 1 ] || fail "BTRFS_IOC_SET_FEATURES did not enable the feature"
umount "$MNT"
incompat_encrypt "$DISK2" || fail "the encrypt bit set by BTRFS_IOC_SET_FEATURES is not on disk"

step "btrfstune --enable-encrypt on an unmounted filesystem"
mkfs_btrfs "$DISK2"
mount_btrfs "$DISK2"
must_fail btrfstune --enable-encrypt "$DISK2"
umount "$MNT"
! incompat_encrypt "$DISK2" || fail "btrfstune changed a mounted filesystem"
btrfstune --enable-encrypt "$DISK2" || fail "btrfstune --enable-encrypt failed"
incompat_encrypt "$DISK2" || fail "btrfstune did not set the encrypt bit"
mount_btrfs "$DISK2"
[ "$(encrypt_feature)" = 1 ] || fail "the kernel does not see the bit btrfstune set"
umount "$MNT"

step "mkfs.btrfs -O encrypt"
mkfs_btrfs_encrypt "$DISK2"
incompat_encrypt "$DISK2" || fail "mkfs -O encrypt did not set the encrypt bit"
mount_btrfs "$DISK2"
[ "$(encrypt_feature)" = 1 ] || fail "the kernel does not see the bit mkfs set"
umount "$MNT"

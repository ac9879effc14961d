# SPDX-License-Identifier: GPL-2.0
# Reference run of fscrypt-ioctl against a filesystem that has fscrypt today
# (ext4 with the encrypt feature): every subcommand the btrfs cases rely on
# gives the answers the fscrypt documentation promises.
. /lib/test.sh

step "ext4 without the encrypt feature refuses policies with EOPNOTSUPP"
/sbin/mke2fs -q -F -t ext4 "$DISK2"
mkdir -p /mnt/ext4
mount -t ext4 "$DISK2" /mnt/ext4
mkdir /mnt/ext4/d
expect_errno EOPNOTSUPP set-policy /mnt/ext4/d 00112233445566778899aabbccddeeff
umount /mnt/ext4

step "ext4 with the encrypt feature"
/sbin/mke2fs -q -F -t ext4 -O encrypt "$DISK2"
mount -t ext4 "$DISK2" /mnt/ext4
head -c 64 /dev/urandom >/tmp/key
keyid=$(fscrypt-ioctl add-key /mnt/ext4 </tmp/key)
echo "key identifier $keyid"
[ ${#keyid} = 32 ] || fail "add-key printed '$keyid', not a 32-hex-digit identifier"
[ "$(fscrypt-ioctl key-status /mnt/ext4 "$keyid" | head -1)" = present ] || fail "key not present"

mkdir /mnt/ext4/enc /mnt/ext4/full
echo x >/mnt/ext4/full/f
expect_errno ENOTEMPTY set-policy /mnt/ext4/full "$keyid"
expect_errno EINVAL set-policy /mnt/ext4/enc "$keyid" --version=255
fscrypt-ioctl set-policy /mnt/ext4/enc "$keyid"
fscrypt-ioctl get-policy /mnt/ext4/enc >/tmp/policy
cat /tmp/policy
grep -qx "version 2" /tmp/policy || fail "policy version"
grep -qx "contents aes-256-xts" /tmp/policy || fail "contents mode"
grep -qx "filenames aes-256-cts" /tmp/policy || fail "filenames mode"
grep -qx "key $keyid" /tmp/policy || fail "key identifier"
expect_errno EEXIST set-policy /mnt/ext4/enc 00112233445566778899aabbccddeeff

step "files, nonces and flags"
mkdir -p "$REF"
random_file "$REF/one" 10000
cp "$REF/one" /mnt/ext4/enc/one
cp "$REF/one" /mnt/ext4/enc/two
n1=$(fscrypt-ioctl get-nonce /mnt/ext4/enc/one)
n2=$(fscrypt-ioctl get-nonce /mnt/ext4/enc/two)
echo "nonces $n1 $n2"
[ ${#n1} = 32 ] || fail "nonce is not 16 bytes"
[ "$n1" != "$n2" ] || fail "two files share a nonce"
fscrypt-ioctl get-flags /mnt/ext4/enc/one | grep -q encrypt || fail "no encrypt flag"
expect_errno ENODATA get-nonce /mnt/ext4/full/f

step "remove the key: nokey names, ENOKEY on open"
fscrypt-ioctl remove-key /mnt/ext4 "$keyid"
[ "$(fscrypt-ioctl key-status /mnt/ext4 "$keyid" | head -1)" = absent ] || fail "key still present"
ls /mnt/ext4/enc | grep -qx one && fail "plaintext name visible without the key"
[ "$(ls /mnt/ext4/enc | wc -l)" = 2 ] || fail "nokey listing does not show two names"
must_fail cat "/mnt/ext4/enc/$(ls /mnt/ext4/enc | head -1)"
must_fail touch /mnt/ext4/enc/new

step "add the key again: names and data back"
fscrypt-ioctl add-key /mnt/ext4 </tmp/key >/dev/null
cmp "$REF/one" /mnt/ext4/enc/one || fail "data differs after the key came back"
umount /mnt/ext4

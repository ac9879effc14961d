#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What "make demo" shows: the patched kernel, a btrfs filesystem made by
# btrfs-progs on a virtual disk, and how btrfs answers the fscrypt ioctls.
. /lib/test.sh
set -x
uname -a
mkfs.btrfs -f -L demo "$DISK1"
mount_btrfs "$DISK1"
btrfs filesystem show "$MNT"
btrfs subvolume create "$MNT/home"
echo "hello from btrfs on $(uname -r)" >"$MNT/home/hello.txt"
btrfs subvolume snapshot -r "$MNT/home" "$MNT/home-snap"
cat "$MNT/home-snap/hello.txt"
btrfs filesystem df "$MNT"
mkdir "$MNT/private"
fscrypt-ioctl set-policy "$MNT/private" 00112233445566778899aabbccddeeff || true
dmesg | grep -i -E 'btrfs|fscrypt' | tail -5
umount "$MNT"

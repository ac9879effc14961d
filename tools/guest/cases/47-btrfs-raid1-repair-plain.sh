# SPDX-License-Identifier: GPL-2.0
# Case 33 on unencrypted files (PLAIN=1, lib.sh): read repair from the
# other RAID1 copy and scrub, as btrfs does them without encryption. The
# baseline that the storage layer's rework must keep.
PLAIN=1
. /cases/33-fscrypt-raid1-repair.sh

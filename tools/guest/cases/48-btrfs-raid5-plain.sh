# SPDX-License-Identifier: GPL-2.0
# Case 34 on unencrypted files (PLAIN=1, lib.sh): RAID5 scrub rebuilding a
# zeroed disk, a degraded read and a replace, as btrfs does them without
# encryption. The baseline that the storage layer's rework must keep.
PLAIN=1
. /cases/34-fscrypt-raid5.sh

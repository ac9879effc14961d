# SPDX-License-Identifier: GPL-2.0
# Case 38 on unencrypted files (PLAIN=1, lib.sh): fsync'd files, names and
# links survive a power cut through log replay, as btrfs does it without
# encryption. The baseline that the storage layer's rework must keep.
PLAIN=1
. /cases/38-fscrypt-crash.sh

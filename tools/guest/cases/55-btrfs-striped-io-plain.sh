# SPDX-License-Identifier: GPL-2.0
# Case 54 on unencrypted files (PLAIN=1, lib.sh): bios split at stripe
# boundaries on RAID10, for buffered, direct, compressed and encoded I/O,
# and read repair of a block in the middle of a split bio.
PLAIN=1
. /cases/54-fscrypt-striped-io.sh

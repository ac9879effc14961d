# SPDX-License-Identifier: GPL-2.0
# Case 52 on unencrypted files (PLAIN=1, lib.sh): read repair on the
# compressed, direct and encoded read paths, and a block bad in both copies,
# as btrfs does them without encryption.
PLAIN=1
. /cases/52-fscrypt-read-repair-paths.sh

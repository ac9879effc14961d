# SPDX-License-Identifier: GPL-2.0
# Case 37 on unencrypted files (PLAIN=1, lib.sh): O_DIRECT writes and
# reads, aligned and not, done as direct I/O since nothing is encrypted;
# the data is on the device as written. The baseline that the storage
# layer's rework must keep.
PLAIN=1
. /cases/37-fscrypt-direct-io.sh

# SPDX-License-Identifier: GPL-2.0
# Helpers for the integration cases (sourced by each /cases/*.sh, run with sh -e).

DISK1=/dev/vda
DISK2=/dev/vdb
# Corrupt images made by tools/mkfixtures (fresh every boot)
FIXTURE_EXTENT=/dev/vdc
FIXTURE_DIRNAME=/dev/vdd
MNT=/mnt/scratch
REF=/tmp/ref

fail() {
	echo "FAILED: $*"
	exit 1
}

step() { echo "-- $*"; }

# A file of SIZE random bytes (SIZE as head -c takes it).
random_file() { head -c "$2" /dev/urandom >"$1"; }

# sha256 of every regular file below DIR, by relative name, sorted.
digests() { (cd "$1" && find . -type f | sort | xargs -r sha256sum); }

same_digests() {
	digests "$1" >/tmp/digests.a
	digests "$2" >/tmp/digests.b
	cmp -s /tmp/digests.a /tmp/digests.b || {
		diff /tmp/digests.a /tmp/digests.b | head -20
		fail "contents of $2 differ from $1"
	}
}

drop_caches() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

mkfs_btrfs() { mkfs.btrfs -q -f "$@" >/dev/null; }

mount_btrfs() {
	mkdir -p "${2:-$MNT}"
	mount -t btrfs ${3:+-o "$3"} "$1" "${2:-$MNT}"
}

# Run fscrypt-ioctl and require that it fails with the errno named ERRNO.
expect_errno() {
	want=$1
	shift
	got=$(fscrypt-ioctl --print-errno "$@" 2>/dev/null) && got=success
	[ "$got" = "$want" ] || fail "fscrypt-ioctl $*: expected $want, got ${got:-no errno}"
	echo "ok: fscrypt-ioctl $1 answers $want"
}

# Require that a command fails (with any error).
must_fail() {
	if "$@" 2>/dev/null; then fail "expected failure: $*"; fi
	return 0
}

# The kernel log since the last dmesg_mark (not "dmesg -c": later cases, and
# the harness's log check, need the whole log).
dmesg_mark() { DMESG_MARK=$(dmesg | wc -l); }
dmesg_since() { dmesg | tail -n +$((DMESG_MARK + 1)); }

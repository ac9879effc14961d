# SPDX-License-Identifier: GPL-2.0
# Helpers for the integration cases (sourced by each /cases/*.sh, run with sh -e).

DISK1=/dev/vda
DISK2=/dev/vdb
# Corrupt images made by tools/mkfixtures (fresh every boot)
FIXTURE_EXTENT=/dev/vdc
FIXTURE_DIRNAME=/dev/vdd
# Two more scratch disks, for multi-device filesystems (RAID5, replace)
DISK3=/dev/vde
DISK4=/dev/vdf
MNT=/mnt/scratch
REF=/tmp/ref

# PLAIN=1: an encryption case runs its steps on unencrypted files, as the
# baseline of the data paths that it tests (the *-plain cases set it and
# source the case). No encrypt feature and no key; e2e_encrypt only makes
# the directory, encrypted_extents requires unencrypted extents,
# expect_enokey requires success and expect_scan finds every marker.
PLAIN=${PLAIN:-0}
is_plain() { [ "$PLAIN" = 1 ]; }

fail() {
	FAILED=1
	echo "FAILED: $*"
	exit 1
}

step() {
	STEP=$*
	echo "-- $*"
}

# name_failures: from now on, a case that sh -e ends because a command failed
# also ends with a FAILED line that names its step.
# It also stops a copy of the kernel log (klog_begin) and puts back what
# set_for_case changed.
name_failures() {
	trap 'rc=$?; klog_stop; restore_settings; [ $rc = 0 ] || [ -n "${FAILED:-}" ] ||
		echo "FAILED: a command failed (exit $rc) in step: ${STEP:-setup}"' EXIT
}

# set_for_case FILE VALUE: writes VALUE to FILE (a /proc/sys or debugfs
# setting), and its old value back when the case ends (name_failures), or at
# restore_settings; the first value is what comes back when one is set twice.
set_for_case() {
	mkdir -p /tmp/case.restore
	_n=$(ls /tmp/case.restore | wc -l)
	{ echo "$1"; cat "$1"; } >"/tmp/case.restore/$((_n + 1000))" ||
		fail "set_for_case: cannot read $1"
	echo "$2" >"$1" || fail "cannot write '$2' to $1"
}

restore_settings() {
	[ -d /tmp/case.restore ] || return 0
	for _f in $(ls -r /tmp/case.restore); do
		_p=$(head -n 1 "/tmp/case.restore/$_f")
		# Gone with what it belonged to (a filesystem's bdi): nothing to do.
		[ -e "$_p" ] || continue
		tail -n +2 "/tmp/case.restore/$_f" >"$_p" || echo "could not restore $_p"
	done
	rm -rf /tmp/case.restore
}

# A file of SIZE random bytes (SIZE as head -c takes it).
random_file() { head -c "$2" /dev/urandom >"$1"; }

# sha256 of every regular file below DIR, by relative name, sorted.
digests() { (cd "$1" && find . -type f | sort | while read -r f; do sha256sum "$f"; done); }

same_digests() {
	digests "$1" >/tmp/digests.a
	digests "$2" >/tmp/digests.b
	cmp -s /tmp/digests.a /tmp/digests.b || {
		diff /tmp/digests.a /tmp/digests.b | head -20
		fail "contents of $2 differ from $1"
	}
}

# same WHAT A B: files A and B are the same; else their diff, and WHAT fails.
same() {
	cmp -s "$2" "$3" || {
		diff "$2" "$3" | head -20
		fail "$1 differ: $2, $3"
	}
}

# tree_modes DIR: one line per entry below DIR, sorted by path: its type and
# permissions (hex), link count, path, and a symlink's target; no sizes.
tree_modes() {
	(cd "$1" && find . | sort | while read -r p; do
		t=
		[ ! -L "$p" ] || t=" -> $(readlink "$p")"
		echo "$(stat -c '%f %h' "$p") $p$t"
	done)
}

drop_caches() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

# With SECTORSIZE (sectorsize= on the kernel command line: 4096 on a kernel
# with 64 KiB pages, for subpage), that sector size, else mkfs's default, the
# page size.
mkfs_btrfs() { mkfs.btrfs -q -f ${SECTORSIZE:+-s "$SECTORSIZE"} "$@" >/dev/null; }

# A filesystem on which users may set encryption policies: the administrator
# opts in with the encrypt feature (case 07 checks the other ways to do so).
mkfs_btrfs_encrypt() {
	if is_plain; then mkfs_btrfs "$@"; else mkfs_btrfs -O encrypt "$@"; fi
}

mount_btrfs() {
	mkdir -p "${2:-$MNT}"
	mount -t btrfs ${3:+-o "$3"} "$1" "${2:-$MNT}"
}

# field LINE NAME: the value of NAME= in LINE, a line of space-separated
# name=value fields (fscrypt-ioctl encoded-read's META, receive --dump).
field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# Run fscrypt-ioctl and require that it fails with the errno named ERRNO.
expect_errno() {
	want=$1
	shift
	got=$(fscrypt-ioctl --print-errno "$@" 2>/dev/null) && got=success
	[ "$got" = "$want" ] || fail "fscrypt-ioctl $*: expected $want, got ${got:-no errno}"
	echo "ok: fscrypt-ioctl $1 answers $want"
}

# expect_errno_user ERRNO ARGS...: fscrypt-ioctl ARGS (no spaces in any)
# run as uid 1000 fails with the errno named ERRNO.
expect_errno_user() {
	want=$1
	shift
	mkdir -p /etc
	grep -q "^user:" /etc/passwd 2>/dev/null ||
		echo 'user:x:1000:1000:user:/tmp:/bin/sh' >>/etc/passwd
	got=$(su -s /bin/sh user -c "fscrypt-ioctl --print-errno $*" 2>/dev/null) && got=success
	[ "$got" = "$want" ] || fail "fscrypt-ioctl $* as uid 1000: expected $want, got ${got:-no errno}"
	echo "ok: uid 1000 gets $want from fscrypt-ioctl $1"
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

# read_bytes FILE OFFSET LENGTH: LENGTH bytes of FILE (or a device) from byte
# OFFSET, to stdout. Sync and drop_caches first to read a device as it is on
# disk.
read_bytes() {
	dd if="$1" bs=65536 skip="$2" count="$3" iflag=skip_bytes,count_bytes 2>/dev/null
}

# raid1_copies MNT BYTENR: where the two copies of the data at logical
# address BYTENR are, as "DEVICE OFFSET" in $dev_a $at_a and $dev_b $at_b.
raid1_copies() {
	btrfs filesystem show "$1" | awk '$1 == "devid" { print $2, $NF }' >/tmp/devs
	fscrypt-ioctl chunks "$1" >/tmp/chunks
	awk -v b="$2" '$1 <= b && b < $1 + $2' /tmp/chunks >/tmp/chunk
	read -r _logical _length _profile _devlen _stripes </tmp/chunk ||
		fail "no chunk holds logical address $2"
	[ "$_profile" = data/raid1 ] || fail "data at $2 in a $_profile chunk, expected data/raid1"
	echo "$_stripes" | tr ',' '\n' | while IFS=: read -r devid start; do
		dev=$(awk -v d="$devid" '$1 == d { print $2 }' /tmp/devs)
		[ -n "$dev" ] || fail "no device for devid $devid"
		echo "$dev $((start + $2 - _logical))"
	done >/tmp/copies
	{ read -r dev_a at_a; read -r dev_b at_b; } </tmp/copies
	[ "$(wc -l </tmp/copies)" = 2 ] && [ "$dev_a" != "$dev_b" ] ||
		fail "expected two copies on two devices: $(cat /tmp/copies)"
}

# corrupt_block DEV AT BLOCK: overwrites block BLOCK (4 KiB) of the data at
# byte AT of DEV.
corrupt_block() {
	dd if=/dev/urandom of="$1" bs=4096 count=1 seek=$(($2 + $3 * 4096)) \
		oflag=seek_bytes conv=notrunc,fsync 2>/dev/null
}

# no_csum_errors [WHAT]: the kernel logged no checksum failure and no
# repair since dmesg_mark.
no_csum_errors() {
	if dmesg_since | grep -E 'csum failed|checksum error|csum mismatch|read error corrected|fixed up error|unable to fixup' >/tmp/csum.kmsg; then
		head -n 5 /tmp/csum.kmsg
		fail "checksum errors in the kernel log${1:+ ($1)}"
	fi
	echo "ok: no checksum errors in the kernel log${1:+ ($1)}"
}

# scrub_counts MNT: btrfs scrub start -B -R (wait, raw counters) on MNT; sets
# SCRUB_CSUM, SCRUB_CORRECTED, SCRUB_UNCORRECTABLE, SCRUB_OTHER (read,
# verify and super errors) and SCRUB_DATA (data bytes scrubbed). Fails when
# scrub fails other than by finding uncorrectable errors (exit status 3).
scrub_counts() {
	rc=0
	btrfs scrub start -B -R "$1" >/tmp/scrub.out 2>&1 || rc=$?
	cat /tmp/scrub.out
	[ $rc = 0 ] || [ $rc = 3 ] || fail "btrfs scrub start $1 failed (exit $rc)"
	grep -q '^Status: *finished' /tmp/scrub.out || fail "the scrub of $1 did not finish"
	awk '$1 ~ /^[a-z_]+:$/ { sub(":", "", $1); v[$1] += $2 }
	     END { print v["csum_errors"] + 0, v["corrected_errors"] + 0,
		   v["uncorrectable_errors"] + 0,
		   v["read_errors"] + v["verify_errors"] + v["super_errors"],
		   v["data_bytes_scrubbed"] + 0, ("data_bytes_scrubbed" in v) }' \
		/tmp/scrub.out >/tmp/scrub.counts
	read -r SCRUB_CSUM SCRUB_CORRECTED SCRUB_UNCORRECTABLE SCRUB_OTHER SCRUB_DATA found </tmp/scrub.counts
	[ "$found" = 1 ] || fail "no raw counters in the output of btrfs scrub"
	echo "scrub: csum errors $SCRUB_CSUM, corrected $SCRUB_CORRECTED," \
		"uncorrectable $SCRUB_UNCORRECTABLE, other $SCRUB_OTHER, data $SCRUB_DATA bytes"
}

# scrub_clean MNT: scrub finds no error at all, and checks some data.
scrub_clean() {
	scrub_counts "$1"
	[ "$SCRUB_CSUM $SCRUB_CORRECTED $SCRUB_UNCORRECTABLE $SCRUB_OTHER" = "0 0 0 0" ] ||
		fail "scrub of $1 found errors: csum $SCRUB_CSUM, corrected $SCRUB_CORRECTED, uncorrectable $SCRUB_UNCORRECTABLE, other $SCRUB_OTHER"
	[ "$SCRUB_DATA" -gt 0 ] || fail "scrub of $1 checked no data"
	echo "ok: scrub of $1: no errors"
}

# marker_file FILE BYTES MARKER: FILE of BYTES bytes of MARKER lines.
marker_file() { yes "$3" | head -c "$2" >"$1"; }

# encrypted_extents FILE [KEYID]: FILE's regular extents with data (at
# least one) are fscrypt-encrypted with a context naming KEYID (default
# $KEYID); their lines of "fscrypt-ioctl extents" are in /tmp/extents.
encrypted_extents() {
	fscrypt-ioctl extents "$1" >/tmp/extents
	if is_plain; then
		awk '$2 == "reg" && $3 != 0 { n++; if ($8 != 0 || $9 != "-") bad = 1 }
		     END { exit bad || !n }' /tmp/extents ||
			fail "$1: extents with data, none encrypted, expected: $(cat /tmp/extents)"
		return 0
	fi
	awk -v key="${2:-$KEYID}" '
		$2 != "reg" || $3 == 0 { next }
		{ n++ }
		$8 % 4 != 1 || $9 == "-" || substr($9, 7, 32) != key {
			print "extent at " $1 ": encryption byte " $8 ", context " $9; bad = 1 }
		END { if (!n) { print "no extent with data"; bad = 1 } exit bad }' \
		/tmp/extents >/tmp/extents.bad || {
		cat /tmp/extents.bad
		fail "$1: extents not encrypted with key ${2:-$KEYID}"
	}
}

# End-to-end encryption cases (20-25): the filesystem under test is $E2E_FS
# (btrfs, or ext4 to check the cases themselves where fscrypt already works),
# from e2e_fs= on the kernel command line (tools/integration: E2E_FS=).
E2E_FS=${E2E_FS:-btrfs}
E2E_KEY=/tmp/e2e.key

is_btrfs() { [ "$E2E_FS" = btrfs ]; }

# e2e_mkfs [MIB]: a fresh $E2E_FS on $DISK1, MIB MiB large when given (so
# that a scan of the device can stop there), else the whole disk.
e2e_mkfs() {
	case $E2E_FS in
	btrfs)	mkfs_btrfs_encrypt ${1:+-b "${1}M"} "$DISK1" ;;
	# stable_inodes: ext4 then accepts the IV_INO_LBLK_* policies (case 24).
	ext4)	/sbin/mke2fs -q -F -t ext4 -b 4096 -O encrypt,stable_inodes "$DISK1" ${1:+"${1}M"} ;;
	*)	fail "unknown E2E_FS '$E2E_FS'" ;;
	esac
}

e2e_mount() {
	mkdir -p "$MNT"
	mount -t "$E2E_FS" "$DISK1" "$MNT"
}

e2e_umount() {
	umount "$MNT"
	! grep -q " $MNT " /proc/mounts || fail "$MNT is still mounted"
}

# e2e_add_key: adds the key in $E2E_KEY to $MNT; sets KEYID.
e2e_add_key() {
	if is_plain; then KEYID=plain; return 0; fi
	KEYID=$(fscrypt-ioctl add-key "$MNT" <"$E2E_KEY")
	[ ${#KEYID} = 32 ] || fail "add-key printed '$KEYID'"
	[ "$(fscrypt-ioctl key-status "$MNT" "$KEYID" | head -n 1)" = present ] ||
		fail "key $KEYID not present after add-key"
}

# e2e_remove_key: removes the key completely (no file still busy). Cached
# dentries and inodes of the encrypted files pin it: drop them first.
e2e_remove_key() {
	drop_caches
	is_plain && return 0
	out=$(fscrypt-ioctl remove-key "$MNT" "$KEYID")
	[ "$out" = removed ] || fail "remove-key: '$out'"
	[ "$(fscrypt-ioctl key-status "$MNT" "$KEYID" | head -n 1)" = absent ] ||
		fail "key $KEYID still present after remove-key"
}

# e2e_begin [MIB]: fresh filesystem, mounted on $MNT, a new random key added.
e2e_begin() {
	name_failures
	step "fresh $E2E_FS on $DISK1${1:+ ($1 MiB)}, a new key"
	e2e_mkfs "$@"
	e2e_mount
	head -c 64 /dev/urandom >"$E2E_KEY"
	e2e_add_key
}

# e2e_encrypt DIR [set-policy options]: makes DIR an empty directory with a
# policy for KEYID and checks that the policy reads back.
e2e_encrypt() {
	dir=$1
	shift
	mkdir "$dir"
	is_plain && return 0
	fscrypt-ioctl set-policy "$dir" "$KEYID" "$@"
	fscrypt-ioctl get-policy "$dir" >/tmp/policy
	grep -qx "key $KEYID" /tmp/policy || fail "$dir: policy: $(cat /tmp/policy)"
	fscrypt-ioctl get-flags "$dir" | grep -q ' encrypt$' || fail "$dir: no encrypt flag"
}

# tree_shape DIR: one line per entry below DIR, sorted by name: its type, for
# files the link count, for symlinks the target.
tree_shape() {
	(cd "$1" && find . | sort | while read -r p; do
		if [ -L "$p" ]; then
			echo "l $p -> $(readlink "$p")"
		elif [ -d "$p" ]; then
			echo "d $p"
		else
			echo "f $(stat -c %h "$p") $p"
		fi
	done)
}

# delete_rw_subvol_by_nokey_name DIR LEFT: without the key, deletes by its
# no-key name the one writable subvolume (root directory: inode 256) among
# the entries of DIR, and checks that LEFT entries remain.
delete_rw_subvol_by_nokey_name() {
	victim=
	for n in $(ls "$1"); do
		[ "$(stat -c %i "$1/$n")" = 256 ] &&
			btrfs subvolume show "$1/$n" 2>/dev/null | grep -q "Flags:.*-$" && victim=$n
	done
	[ -n "$victim" ] || fail "no writable subvolume among the no-key names of $1"
	btrfs subvolume delete "$1/$victim" >/dev/null
	[ "$(ls "$1" | wc -l)" = "$2" ] ||
		fail "deleting $1/$victim by its no-key name did not remove exactly one entry"
}

# expect_enokey CMD...: CMD fails with ENOKEY ("Required key not available").
expect_enokey() {
	if is_plain; then
		"$@" || fail "unencrypted, must work: $*"
		echo "ok (unencrypted): $*"
		return 0
	fi
	if "$@" 2>/tmp/enokey.err; then fail "expected ENOKEY, succeeded: $*"; fi
	grep -q 'Required key not available' /tmp/enokey.err ||
		fail "expected ENOKEY: $*: $(cat /tmp/enokey.err)"
	echo "ok: ENOKEY: $*"
}

# A name of LENGTH bytes: the character C repeated.
name_of_length() { head -c "$1" /dev/zero | tr '\0' "$2"; }

# The fsid of the mounted btrfs (one at a time in these cases).
mounted_fsid() { ls /sys/fs/btrfs | grep -E '^[0-9a-f-]{36}$' | head -n 1; }

# incompat_encrypt DEV: whether the superblock on DEV has the encrypt bit (15).
incompat_encrypt() {
	flags=$(btrfs inspect-internal dump-super "$1" | awk '$1 == "incompat_flags" { print $2 }')
	[ -n "$flags" ] || fail "no incompat_flags in dump-super of $1"
	[ $((flags & 0x8000)) != 0 ]
}

# set_adiantum_policy DIR KEYID: a policy other than the default one, with
# the same key (Adiantum contents and names, DIRECT_KEY).
set_adiantum_policy() {
	fscrypt-ioctl set-policy "$1" "$2" --contents=adiantum \
		--filenames=adiantum --flags=direct_key
}

# The kernel message of a refused policy: needs dmesg_mark before.
expect_kmsg() {
	dmesg_since | grep -q "$1" || fail "no kernel message '$1': $(dmesg_since | tail -n 3)"
	echo "ok: kernel message '$1'"
}

# The long symlink target of the reference tree: 240 bytes.
E2E_LONG_TARGET=$(name_of_length 200 t)/../target-$(name_of_length 29 u)

# e2e_tree_links ROOT: the directories and links of the reference tree, in
# ROOT, which has its files already.
e2e_tree_links() {
	mkdir -p "$1/d1/empty"
	ln -s d1/d2/d3/nested "$1/link"
	ln -s "$E2E_LONG_TARGET" "$1/d1/longlink"
	ln "$1/f1" "$1/d1/d2/hard"
}

# e2e_make_ref SIZE...: the reference tree in $REF (tmpfs): random files
# fSIZE, d1/d2/d3/nested, an empty directory, a short and a long symlink and
# a hard link; its shape and digests are kept for e2e_check_tree. Needs a
# size 1 (the hard link's target).
e2e_make_ref() {
	mkdir -p "$REF/d1/d2/d3"
	for size in "$@"; do
		random_file "$REF/f$size" "$size"
	done
	random_file "$REF/d1/d2/d3/nested" 5000
	e2e_tree_links "$REF"
	tree_shape "$REF" >/tmp/e2e.ref.shape
	digests "$REF" >/tmp/e2e.ref.digests
}

# e2e_copy_ref DIR: the same tree in DIR (an empty directory).
e2e_copy_ref() {
	mkdir -p "$1/d1/d2/d3"
	cp "$REF"/f* "$1/"
	cp "$REF/d1/d2/d3/nested" "$1/d1/d2/d3/nested"
	e2e_tree_links "$1"
}

# e2e_check_tree DIR: DIR holds the reference tree, byte for byte: names,
# types, link counts, symlink targets, contents; every file and directory
# has the encrypt flag and DIR's policy; the symlink leads to its file, the
# hard link is the same inode.
e2e_check_tree() {
	tree_shape "$1" >/tmp/shape.b
	cmp -s /tmp/e2e.ref.shape /tmp/shape.b || {
		diff /tmp/e2e.ref.shape /tmp/shape.b | head -20
		fail "the names below $1 differ from the reference tree"
	}
	digests "$1" >/tmp/digests.b
	cmp -s /tmp/e2e.ref.digests /tmp/digests.b || {
		diff /tmp/e2e.ref.digests /tmp/digests.b | head -20
		fail "contents below $1 differ from the reference tree"
	}
	[ "$(readlink "$1/d1/longlink")" = "$E2E_LONG_TARGET" ] || fail "long symlink target"
	cmp -s "$REF/d1/d2/d3/nested" "$1/link" || fail "reading through the symlink"
	[ "$(stat -c %i "$1/f1")" = "$(stat -c %i "$1/d1/d2/hard")" ] ||
		fail "the hard link is not the same inode"
	if is_plain; then
		echo "ok: $1: $(wc -l </tmp/shape.b) entries, names and contents as in the reference"
		return 0
	fi
	fscrypt-ioctl get-policy "$1" >/tmp/policy.root
	find "$1" -type f -o -type d >/tmp/entries
	while read -r p; do
		fscrypt-ioctl get-flags "$p" | grep -q ' encrypt$' || fail "$p: no encrypt flag"
		fscrypt-ioctl get-policy "$p" | cmp -s /tmp/policy.root - ||
			fail "$p: policy differs from $1's"
	done </tmp/entries
	echo "ok: $1: $(wc -l </tmp/shape.b) entries, names, contents, flags and policies as in the reference"
}

# scan_device DEV BYTES MARKERS: where each string of the file MARKERS (one
# a line, of letters, digits, '_' and '-' only) is in the first BYTES bytes
# of DEV, as "COUNT MARKER" lines: COUNT is the number of runs of those
# characters on DEV that contain the marker, 0 when none does. Sync, unmount
# and drop_caches first.
scan_device() {
	head -c "$2" "$1" | tr -cs 'A-Za-z0-9_-' '\n' >/tmp/scan.runs
	while read -r m; do
		echo "$(grep -c -F -e "$m" /tmp/scan.runs) $m"
	done <"$3"
	rm -f /tmp/scan.runs
}

# Two-phase cases: power_cut ends phase 1 of a case with a reset, as a power
# cut would, without syncing anything: what the filesystem had not written
# to its disks by then is lost. The host boots the guest again on the same
# disks and runs the case again with PHASE=2 (tools/guest/init), so a case
# that calls power_cut reads as
#	if [ "$PHASE" = 1 ]; then ...; power_cut; fi
#	... phase 2 ...
# /tmp does not survive: keep what phase 2 needs with phase_save.
PHASE=${PHASE:-1}

power_cut() {
	[ "$PHASE" = 1 ] || fail "power_cut in phase $PHASE"
	[ -n "${CASE_NAME:-}" ] && [ -c "${RESULTS:-}" ] ||
		fail "power_cut needs the integration init (CASE_NAME, RESULTS)"
	step "power cut (the guest resets now; phase 2 runs after the next boot)"
	# Phase 1's output goes to the console now: the case never ends.
	sed 's/^/  case| /' "$CASE_LOG" >/dev/console
	echo "POWER-CUT $CASE_NAME $(($(date +%s) - CASE_T0))" >"$RESULTS"
	# Time for the consoles to reach the host; sleep writes nothing.
	sleep 2
	echo b >/proc/sysrq-trigger
	sleep 30
	fail "the guest did not reset"
}

# sb_generation: the generation of $DISK1's superblock (the last committed
# transaction), read past the page cache.
sb_generation() {
	dd if="$DISK1" bs=4096 skip=16 count=1 iflag=direct 2>/dev/null |
		dd bs=8 skip=9 count=1 2>/dev/null | od -An -tu8 | tr -d ' '
}

# crash_phase2: phase 2 of a case whose phase 1 kept its files, the key
# (key) and its identifier (keyid) in /tmp/phase: those back, E2E_KEY and
# KEYID set, and $DISK1 mounted without the key, which must replay the log
# tree that phase 1's fsyncs wrote.
crash_phase2() {
	step "phase 2: what phase 1 kept"
	phase_load /tmp/phase
	cp /tmp/phase/key "$E2E_KEY"
	KEYID=$(cat /tmp/phase/keyid)
	step "mount after the power cut: log replay, without the key"
	dmesg_mark
	e2e_mount
	dmesg_since | grep -E 'tree-log|log replay' || true
	dmesg_since | grep -q 'start tree-log replay' ||
		fail "no log replay at mount: the fsync'd changes were not in the log tree"
}

# phase_save DIR: keeps DIR's files (a tar archive) for phase 2, on $DISK4,
# which a two-phase case must leave alone; phase_load DIR gets them back.
phase_save() {
	tar -cf /tmp/phase.tar -C "$1" .
	dd if=/tmp/phase.tar of="$DISK4" bs=1M conv=fsync 2>/dev/null
	sha256sum </tmp/phase.tar | cut -d ' ' -f 1 >/tmp/phase.sum
	stat -c %s /tmp/phase.tar >>/tmp/phase.sum
	# The digest and size, at 1 GiB, to check what phase 2 reads.
	dd if=/tmp/phase.sum of="$DISK4" bs=1M seek=1024 conv=fsync 2>/dev/null
	rm /tmp/phase.tar
}

phase_load() {
	read_bytes "$DISK4" 1073741824 200 | { read -r sum && read -r size &&
		echo "$sum $size"; } >/tmp/phase.sum || fail "phase_load: nothing saved on $DISK4"
	read -r sum size </tmp/phase.sum
	read_bytes "$DISK4" 0 "$size" >/tmp/phase.tar
	[ "$(sha256sum </tmp/phase.tar | cut -d ' ' -f 1)" = "$sum" ] ||
		fail "phase_load: the archive on $DISK4 is not the one phase 1 saved"
	mkdir -p "$1"
	tar -xf /tmp/phase.tar -C "$1"
	rm /tmp/phase.tar
}

# expect_scan MIB FOUND [SKIP]: scan the first MIB MiB of $DISK1 for the
# markers in /tmp/markers (scan_device); the markers matching the pattern
# FOUND, written unencrypted, must be found (which shows the scan works),
# those matching SKIP are not judged, and every other one, written encrypted,
# must not be on the device.
expect_scan() {
	step "scan the first $1 MiB of $DISK1"
	scan_device "$DISK1" $(($1 * 1048576)) /tmp/markers >/tmp/scan
	cat /tmp/scan
	while read -r n m; do
		# shellcheck disable=SC2254 # FOUND and SKIP are patterns
		case $m in
		$2)	[ "$n" -gt 0 ] || fail "the scan does not find $m, written unencrypted" ;;
		${3:-/})	;;
		*)	if is_plain; then
				[ "$n" -gt 0 ] || fail "the scan does not find $m (PLAIN=1)"
			else
				[ "$n" = 0 ] || fail "$m is on the device in plaintext ($n times)"
			fi ;;
		esac
	done </tmp/scan
}

# Fault injection (kunitconfig/debug.config): failslab and fail_page_alloc,
# set in debugfs, aimed with task-filter=Y at the tasks that set their
# make-it-fail (fscrypt-ioctl fail-write and fail-sync do, around their
# system calls). Every setting is put back when the case ends (set_for_case).
DEBUGFS=/sys/kernel/debug

# fault_init: debugfs mounted, the kernel has both fault attributes.
fault_init() {
	[ -d "$DEBUGFS/fail_page_alloc" ] || grep -q " $DEBUGFS debugfs" /proc/mounts ||
		mount -t debugfs none "$DEBUGFS"
	for _a in failslab fail_page_alloc; do
		[ -f "$DEBUGFS/$_a/probability" ] ||
			fail "no $DEBUGFS/$_a: a kernel without CONFIG_FAULT_INJECTION_DEBUG_FS, CONFIG_FAILSLAB, CONFIG_FAIL_PAGE_ALLOC"
	done
	[ -f /proc/self/make-it-fail ] || fail "no /proc/self/make-it-fail"
}

# fault_set ATTR NAME=VALUE...: the settings NAME of the fault attribute ATTR
# (failslab, fail_page_alloc), in the order given (probability last, to
# start it once the others are set).
fault_set() {
	_attr=$1
	shift
	for _nv in "$@"; do
		set_for_case "$DEBUGFS/$_attr/${_nv%%=*}" "${_nv#*=}"
	done
}

# fault_times ATTR: how many failures ATTR may still inject ("times").
fault_times() { cat "$DEBUGFS/$1/times"; }

# What tools/check-kernel-log fails on: keep the two alike.
KLOG_PATTERN='WARNING:|BUG:|kernel BUG at|Oops|general protection fault|Kernel panic|'
KLOG_PATTERN=$KLOG_PATTERN'KASAN:|UBSAN:|possible (circular|recursive) locking|inconsistent lock state|'
KLOG_PATTERN=$KLOG_PATTERN'DEBUG_LOCKS_WARN_ON|lockdep is turned off|blocked for more than|'
KLOG_PATTERN=$KLOG_PATTERN'rcu: .*(stall|Stall)|Call [Tt]race:|Transaction aborted'

# klog_begin ... klog_end: the kernel messages in between, in /tmp/klog, for
# klog_check. With verbose=2, fault injection prints a stack dump for each
# failure it injects (but into allocations with __GFP_NOWARN), which the
# host's check of the whole console log (tools/check-kernel-log) would take
# for a bug: in between, only errors and worse (console log level 4: "BUG:",
# oopses, hung tasks) reach the console, and klog_check does the host's check
# on the rest, less those dumps. (An injected page allocation failure makes
# no "page allocation failure" report: the allocator returns before it.)
klog_begin() {
	KLOG_TAG=klog-$$-$(date +%s)
	rm -f /tmp/klog.raw /tmp/klog
	cat /dev/kmsg >/tmp/klog.raw &
	KLOG_PID=$!
	KLOG_PRINTK=$(cat /proc/sys/kernel/printk)
	set_for_case /proc/sys/kernel/printk 4
	echo "$KLOG_TAG begin" >/dev/kmsg
}

klog_end() {
	echo "$KLOG_TAG end" >/dev/kmsg
	_i=0
	until grep -q "$KLOG_TAG end" /tmp/klog.raw; do
		_i=$((_i + 1))
		[ $_i -le 100 ] || fail "the copy of the kernel log stopped (records lost?)"
		usleep 100000
	done
	echo "$KLOG_PRINTK" >/proc/sys/kernel/printk
	klog_stop
	# /dev/kmsg records: "LEVEL,SEQ,USEC,FLAGS;TEXT", then " KEY=VALUE" lines.
	sed -n "/$KLOG_TAG begin/,/$KLOG_TAG end/p" /tmp/klog.raw | grep -v '^ ' |
		sed 's/^[^;]*;//' >/tmp/klog
	rm -f /tmp/klog.raw
}

klog_stop() {
	[ -n "${KLOG_PID:-}" ] || return 0
	kill "$KLOG_PID" 2>/dev/null || true
	wait "$KLOG_PID" 2>/dev/null || true
	KLOG_PID=
}

# klog_check [WHAT]: /tmp/klog (klog_end) shows nothing that
# tools/check-kernel-log fails on, once the stack dumps of injected failures
# are left out: from each "FAULT_INJECTION: forcing a failure" to the end of
# its stack dump (at most 80 lines).
klog_check() {
	awk '/FAULT_INJECTION: forcing a failure/ { skip = 80 }
	     skip > 0 { skip--; if ($0 ~ /<\/TASK>/) skip = 0; next } { print }' \
		/tmp/klog >/tmp/klog.judged
	if grep -n -E "$KLOG_PATTERN|page allocation failure" /tmp/klog.judged >/tmp/klog.bad; then
		head -n 5 /tmp/klog.bad
		_first=$(head -n 1 /tmp/klog.bad | cut -d: -f1)
		echo "context:"
		sed -n "$((_first > 3 ? _first - 3 : 1)),$((_first + 25))p" /tmp/klog.judged
		fail "kernel log: $(wc -l </tmp/klog.bad) suspicious line(s)${1:+ ($1)}"
	fi
	echo "ok: kernel log${1:+ ($1)}: no warning, BUG, lockdep report, hung task or" \
		"allocation failure report; $(grep -c 'FAULT_INJECTION: forcing a failure' /tmp/klog) injected failures logged"
}

# klog_fault_sites: where the failures logged in /tmp/klog (verbose=2) were
# injected, as "COUNT CALLER < ITS CALLER < ..." lines, the most frequent
# first: the first frames of each stack dump above the allocator's.
klog_fault_sites() {
	awk '/FAULT_INJECTION: forcing a failure/ { if (on) print w; on = 1; n = 0; w = ""; next }
	     on && /<\/TASK>/ { print w; on = 0; next }
	     !on || !/^ *[A-Za-z_][A-Za-z0-9_.]*\+0x/ { next }
	     { f = $1; sub(/\+0x.*/, "", f) }
	     f ~ /^(dump_stack|should_fail|__should_fail|slab_pre_alloc|kmem_cache_alloc|__kmem_cache_alloc|__kmalloc|kmalloc|kzalloc|kvmalloc|__kvmalloc|alloc_pages|__alloc_pages|folio_alloc|__folio_alloc|allocate_slab|___slab_alloc|__slab_alloc|new_slab|mempool_alloc|prepare_alloc_pages)/ { next }
	     n < 4 { w = w (n ? " < " : "") f; n++ }
	     END { if (on) print w }' /tmp/klog | sort | uniq -c | sort -rn
}

# hung_task_timeout SECONDS: a task blocked that long is reported
# ("blocked for more than"), for the rest of the case.
hung_task_timeout() {
	[ -f /proc/sys/kernel/hung_task_timeout_secs ] ||
		fail "no hung_task_timeout_secs: a kernel without CONFIG_DETECT_HUNG_TASK"
	set_for_case /proc/sys/kernel/hung_task_timeout_secs "$1"
}

# no_hung_tasks [WHAT]: no hung task report since dmesg_mark.
no_hung_tasks() {
	if dmesg_since | grep -A 12 'blocked for more than' >/tmp/hung.kmsg; then
		head -n 25 /tmp/hung.kmsg
		fail "hung task${1:+ ($1)}"
	fi
}

# e2e_bdi: the sysfs folder of the backing device (bdi) of the filesystem
# on $DISK1 that $MNT has, whose writeback the flusher does.
e2e_bdi() {
	if is_btrfs; then
		for _d in /sys/fs/btrfs/*/devices/"${DISK1#/dev/}"; do
			[ -e "$_d" ] && readlink -f "${_d%/devices/*}/bdi" && return
		done
		fail "no btrfs bdi for $DISK1 in /sys/fs/btrfs"
	else
		readlink -f "/sys/block/${DISK1#/dev/}/bdi"
	fi
}

# no_background_writeback: dirty pages of $MNT's filesystem stay dirty
# until written by the case or expired (dirty_expire_centisecs: 300 s), for
# the rest of the case. A freshly mounted filesystem's bdi has no share yet
# of the background threshold of dirty memory (that share follows its recent
# writeback), so the flusher writes back at once whatever is dirty there: a
# min_ratio of 50 % gives it half of that threshold (about 90 MiB here).
no_background_writeback() {
	set_for_case "$(e2e_bdi)/min_ratio" 50
	set_for_case /proc/sys/vm/dirty_expire_centisecs 30000
}

# task_state PID: its state letter (R, S, D, ...), nothing when it is gone
# (or Z, not yet waited for).
task_state() {
	_s=$(cut -d ' ' -f 3 "/proc/$1/stat" 2>/dev/null) || true
	[ "$_s" = Z ] || echo "$_s"
}

# SPDX-License-Identifier: GPL-2.0
# The guest side of "make bench" (tools/bench/bench), in the initramfs as
# /bench/guest.sh: every row on $DISK1, the timed workloads with bench-io,
# the table, where the time goes (function profiler) and the memory held
# by a file of many extents.
#
#   sh /bench/guest.sh full|tiny
#
# "tiny" is the smoke run of the integration case 90-bench-smoke: the same
# steps with sizes that take seconds. Rows that cannot run (dm-crypt and
# AF_ALG without cryptsetup or without kernel support, as in the integration
# guest) print "n/a" with the reason.
# Prints "R RUN ROW WORKLOAD VALUE" lines as it goes, then the table between
# "==== table" and "==== end of table"; exits non-zero if a measurement failed.
. /lib/test.sh

size=${1:-full}
case $size in
full)	file_mib=128 rand=2000 dirs=2 files=1000 runs=5 extents=10000 ;;
tiny)	file_mib=4 rand=32 dirs=2 files=16 runs=2 extents=64 ;;
*)	echo "usage: guest.sh full|tiny" >&2; exit 2 ;;
esac
namelen=200
filesize=1000
raw=/tmp/bench.raw
: >"$raw"
failed=0
# Keep going when a measurement fails: its cell shows "?" and the exit status
# says so.
set +e
export DM_DISABLE_UDEV=1
mkdir -p /run/cryptsetup
TRACING=/sys/kernel/tracing
[ -d $TRACING ] && [ ! -e $TRACING/trace ] && mount -t tracefs tracefs $TRACING 2>/dev/null

ROWS="btrfs btrfs-fscrypt btrfs-adiantum ext4 ext4-fscrypt dmcrypt-btrfs raw-aes-xts raw-adiantum"
# BENCH_ROWS (make bench ROWS=...): some of the rows only, in this order.
if [ -n "${BENCH_ROWS:-}" ]; then
	want=" $BENCH_ROWS "
	some=
	for row in $ROWS; do
		case $want in *" $row "*) some="$some $row" ;; esac
	done
	[ -n "$some" ] || { echo "no known row in '$BENCH_ROWS'" >&2; exit 2; }
	ROWS=${some# }
fi
# wanted ROW: ROW is one of $ROWS (btrfs-noinline goes with btrfs).
wanted() {
	case " $ROWS " in *" ${1%-noinline} "*) return 0 ;; esac
	return 1
}
WORKLOADS="seqwrite seqread randread randwrite create lsR stat remove reflink par4write fragread bgwrite send"

# Why a row cannot run on this kernel, or nothing.
unavailable() {
	case $1 in
	dmcrypt-* | raw-*)
		command -v cryptsetup >/dev/null || { echo "no cryptsetup in the initramfs"; return; } ;;
	esac
	case $1 in
	dmcrypt-btrfs)
		grep -q ' crypt_ctr$' /proc/kallsyms || echo "no dm-crypt in this kernel" ;;
	raw-*)	grep -q ' af_alg_accept$' /proc/kallsyms || echo "no AF_ALG in this kernel" ;;
	esac
}

record() { echo "R $1 $2 $3 $4" | tee -a "$raw"; }

# The functions whose calls and time the profile pass counts: HKDF
# expansions (per-file, per-extent and name hash keys), keys set on a crypto
# transform (setkey: a new transform, or a miss of the pool of transforms),
# bounce pages (ext4 allocates its own inline, one per
# fscrypt_encrypt_pagecache_blocks()), the cipher per data unit (skcipher
# calls less those of names), name en- and decryption, the key setups of
# inodes, and dm-crypt's cipher.
PROFILED="fscrypt_hkdf_expand crypto_skcipher_setkey fscrypt_alloc_bounce_page
	fscrypt_encrypt_pagecache_blocks crypto_skcipher_encrypt crypto_skcipher_decrypt
	fscrypt_fname_encrypt fname_decrypt fscrypt_setup_encryption_info crypt_convert"

# idle_ms: the time the CPU has been idle (waiting for the disk: under
# icount this is host time), from /proc/stat, in ms.
idle_ms() { awk '$1 == "cpu" { print ($5 + $6) * 10; exit }' /proc/stat; }

# measure RUN ROW WORKLOAD CMD...: run one bench-io workload, record its
# rate; with PROFILE=1, with the function profiler on around it.
measure() {
	run=$1 row=$2 wl=$3
	shift 3
	if [ "${PROFILE:-0}" = 1 ]; then
		idle0=$(idle_ms)
		echo 1 >$TRACING/function_profile_enabled
	fi
	out=$("$@" 2>/tmp/bench.err)
	rc=$?
	if [ "${PROFILE:-0}" = 1 ]; then
		echo 0 >$TRACING/function_profile_enabled
		idle1=$(idle_ms)
	fi
	value=${out%% *}
	if [ $rc != 0 ] || [ -z "$value" ]; then
		echo "ERROR: $row $wl: $(cat /tmp/bench.err)"
		failed=1
		value="?"
	fi
	if [ "${PROFILE:-0}" = 1 ]; then
		echo "P $row $wl rate $value"
		echo "P $row $wl idle 0 $((idle1 - idle0))"
		awk -v p="P $row $wl" '$2 ~ /^[0-9]+$/ && NF >= 4 { print p, $1, $2, $3 }' \
			$TRACING/trace_stat/function*
	else
		record "$run" "$row" "$wl" "$value"
	fi
}

DEV=$DISK1
# setup ROW: a fresh filesystem for ROW mounted on $MNT; W is the folder to
# work in (encrypted for the fscrypt rows).
setup() {
	DEV=$DISK1
	case $1 in
	dmcrypt-btrfs)
		head -c 64 /dev/urandom >/tmp/dm.key
		cryptsetup open --type plain --cipher aes-xts-plain64 --key-size 512 \
			--sector-size 4096 --key-file /tmp/dm.key "$DISK1" bench \
			>/tmp/mkfs.err 2>&1 || { cat /tmp/mkfs.err; return 1; }
		DEV=/dev/mapper/bench ;;
	esac
	# mkfs.btrfs warns about the previous row's filesystem.
	case $1 in
	ext4*)	/sbin/mke2fs -q -F -t ext4 -b 4096 -O encrypt "$DEV" 2>/tmp/mkfs.err ;;
	# Every btrfs row has the encrypt feature, as every ext4 row has ext4's.
	*)	mkfs_btrfs -O encrypt "$DEV" 2>/tmp/mkfs.err ;;
	esac || { cat /tmp/mkfs.err; return 1; }
	mkdir -p "$MNT"
	opts=defaults
	# Only in the profile pass: btrfs without inline extents, as encrypted
	# files are, to tell that cost from the cost of encryption.
	[ "$1" = btrfs-noinline ] && opts=max_inline=0
	case $1 in
	ext4*)	mount -t ext4 -o "$opts" "$DEV" "$MNT" || return 1 ;;
	*)	mount -t btrfs -o "$opts" "$DEV" "$MNT" || return 1 ;;
	esac
	W=$MNT/w
	mkdir "$W" || return 1
	case $1 in
	*-fscrypt | *-adiantum)
		head -c 64 /dev/urandom >/tmp/bench.key
		key=$(fscrypt-ioctl add-key "$MNT" </tmp/bench.key) || return 1
		case $1 in
		*-adiantum) fscrypt-ioctl set-policy "$W" "$key" --contents=adiantum \
				--filenames=adiantum --flags=direct_key || return 1 ;;
		*)	fscrypt-ioctl set-policy "$W" "$key" || return 1 ;;
		esac ;;
	esac
}

teardown() {
	umount "$MNT"
	[ "$DEV" = "$DISK1" ] || cryptsetup close bench
}

# workloads RUN ROW: every workload once on the mounted ROW.
workloads() {
	measure "$1" "$2" seqwrite bench-io seqwrite "$W/big" "$file_mib"
	drop_caches
	measure "$1" "$2" seqread bench-io seqread "$W/big"
	drop_caches
	measure "$1" "$2" randread bench-io randread "$W/big" "$rand"
	case $2 in
	ext4*)	;;
	*)	measure "$1" "$2" reflink bench-io clone "$W/big" "$W/clone" ;;
	esac
	measure "$1" "$2" randwrite bench-io randwrite "$W/big" "$rand"
	rm -f "$W/big" "$W/clone"
	sync
	mkdir "$W/t"
	measure "$1" "$2" create bench-io mkfiles "$W/t" "$dirs" "$files" "$namelen" "$filesize"
	drop_caches
	measure "$1" "$2" lsR bench-io run $((dirs * files)) ls -lR "$W/t"
	# send before stat: remove follows stat on every row, so that it finds
	# the dentries stat left, on btrfs as on ext4 (which has no send); the
	# snapshot is cleaned up before anything else is measured (the cleaner
	# waits for its next wakeup, up to the 30 s commit interval: not in the
	# smoke run, whose figures do not count).
	case $2 in
	ext4*)	;;
	*)	btrfs subvolume snapshot -r "$MNT" "$MNT/snap" >/dev/null
		drop_caches
		measure "$1" "$2" send bench-io run $((dirs * files)) \
			btrfs send -q -f /dev/null "$MNT/snap"
		btrfs subvolume delete "$MNT/snap" >/dev/null
		[ "$size" = tiny ] || btrfs subvolume sync "$MNT" >/dev/null ;;
	esac
	drop_caches
	measure "$1" "$2" stat bench-io stat "$W/t" "$dirs" "$files" "$namelen"
	measure "$1" "$2" remove bench-io rmfiles "$W/t" "$dirs" "$files" "$namelen"
	rmdir "$W/t"
	mkdir "$W/p"
	measure "$1" "$2" par4write bench-io parwrite "$W/p" 4 "$file_mib"
	rm -rf "$W/p"
	sync
	measure "$1" "$2" bgwrite bench-io bgwrite "$W/bg" "$file_mib"
	rm -f "$W/bg"
	sync
	# A file of $extents extents, written in random order (not timed), then
	# read with a cold cache: what each extent's key costs to a reader.
	if bench-io fragment "$W/frag" "$extents" 2>/tmp/bench.err; then
		drop_caches
		measure "$1" "$2" fragread bench-io extread "$W/frag" "$extents"
	else
		echo "ERROR: $2 fragread: $(cat /tmp/bench.err)"
		failed=1
		[ "${PROFILE:-0}" = 1 ] || record "$1" "$2" fragread "?"
	fi
	rm -f "$W/frag"
}

# raw_cipher RUN ROW: the kernel's cipher through AF_ALG (cryptsetup
# benchmark: 64 KiB requests, in memory), encryption as "seqwrite",
# decryption as "seqread".
raw_cipher() {
	case $2 in
	raw-aes-xts) spec="-c aes-xts-plain64 -s 512" ;;
	raw-adiantum) spec="-c xchacha12,aes-adiantum-plain64 -s 256" ;;
	esac
	# shellcheck disable=SC2086 # spec is two options
	line=$(cryptsetup benchmark $spec 2>/tmp/bench.err | tail -n 1)
	# shellcheck disable=SC2086 # one field per word
	set -- "$1" "$2" $line
	# "aes-xts 512b 1234.5 MiB/s 1200.1 MiB/s"
	if [ $# = 8 ] && [ "$6" = MiB/s ]; then
		record "$1" "$2" seqwrite "$5"
		record "$1" "$2" seqread "$7"
	else
		echo "ERROR: $2: cryptsetup benchmark: $line $(cat /tmp/bench.err)"
		failed=1
		record "$1" "$2" seqwrite "?"
		record "$1" "$2" seqread "?"
	fi
}

# The labels of the rows, in the legend under the table.
legend() {
	cat <<-EOF
	# btrfs           btrfs, default mkfs and mount options
	# btrfs-fscrypt   btrfs + fscrypt v2 policy, AES-256-XTS contents, AES-256-CTS names
	# btrfs-adiantum  btrfs + fscrypt v2 policy, Adiantum contents and names, DIRECT_KEY
	# ext4            ext4 (mkfs -O encrypt), default options
	# ext4-fscrypt    ext4 + fscrypt v2 policy, AES-256-XTS contents, AES-256-CTS names
	# dmcrypt-btrfs   btrfs on dm-crypt, plain aes-xts-plain64, 512-bit key, 4 KiB sectors
	# raw-aes-xts     the kernel's AES-256-XTS through AF_ALG (cryptsetup benchmark: 64 KiB
	#                 requests, in memory): encryption under seqwrite, decryption under seqread
	# raw-adiantum    the same for Adiantum (xchacha12,aes-adiantum-plain64)
	# vs-BASE         the row above divided by its unencrypted row BASE (1.00: as fast)
	# seqwrite: write with fsync; seqread, randread, lsR, stat: cold cache; randwrite:
	# then fsync; create, remove: then syncfs; lsR: ls -lR; reflink: FICLONE, fsync;
	# par4write: 4 writers, a file each, fsync; fragread: a file of many 4 KiB
	# extents written in random order, read with a cold cache; bgwrite: seqwrite
	# with syncfs instead of fsync (written back by the flusher, in the background);
	# send: btrfs send of a read-only snapshot holding the create tree, cold cache
	EOF
}

# print_table: medians, spreads and ratios of the R lines in $raw.
print_table() {
	echo "==== table"
	echo "bench: $(date -u '+%Y-%m-%d %H:%M UTC'), kernel $(uname -r), $size sizes: a $file_mib MiB file, $rand random 4 KiB I/Os,"
	echo "bench: $((dirs * files)) files of $filesize bytes with $namelen-byte names in $dirs directories; median of $runs runs ±(max-min)/median"
	awk -v rows="$ROWS" -v wls="$WORKLOADS" '
	function fmt(v) { return v >= 100 ? sprintf("%.0f", v) : v >= 10 ? sprintf("%.1f", v) : sprintf("%.2f", v) }
	function base(r) { return r ~ /^(btrfs-|dmcrypt-)/ ? "btrfs" : r == "ext4-fscrypt" ? "ext4" : "" }
	function applies(r, w) {
		if (r ~ /^raw-/) return w == "seqwrite" || w == "seqread"
		if (r ~ /^ext4/) return w != "reflink" && w != "send"
		return 1
	}
	$1 == "NA" { na[$2] = 1 }
	$1 == "R" { k = $3 SUBSEP $4; n[k]++; v[k, n[k]] = $5; if ($5 == "?") bad[k] = 1 }
	END {
		nr = split(rows, R, " "); nw = split(wls, W, " ")
		unit["seqwrite"] = unit["seqread"] = unit["reflink"] = "MiB/s"
		unit["randread"] = unit["randwrite"] = "IOPS"
		unit["create"] = unit["lsR"] = unit["stat"] = unit["remove"] = unit["send"] = "files/s"
		unit["par4write"] = unit["bgwrite"] = "MiB/s"; unit["fragread"] = "extents/s"
		line = sprintf("%-16s", "row")
		for (j = 1; j <= nw; j++) line = line sprintf(" %12s", W[j])
		print line
		line = sprintf("%-16s", "")
		for (j = 1; j <= nw; j++) line = line sprintf(" %12s", unit[W[j]])
		print line
		for (i = 1; i <= nr; i++) {
			r = R[i]; line = sprintf("%-16s", r)
			for (j = 1; j <= nw; j++) {
				w = W[j]; k = r SUBSEP w
				if (!applies(r, w)) cell = "-"
				else if (r in na) cell = "n/a"
				else if (!n[k] || bad[k]) cell = "?"
				else {
					m = n[k]
					for (a = 1; a <= m; a++) s[a] = v[k, a] + 0
					for (a = 2; a <= m; a++)
						for (b = a; b > 1 && s[b - 1] > s[b]; b--) { t = s[b]; s[b] = s[b - 1]; s[b - 1] = t }
					med[k] = m % 2 ? s[(m + 1) / 2] : (s[m / 2] + s[m / 2 + 1]) / 2
					spread = med[k] > 0 ? (s[m] - s[1]) / med[k] * 100 : 0
					cell = fmt(med[k]) "±" sprintf("%.0f", spread) "%"
				}
				# "±" is two bytes: one more for the same width.
				line = line sprintf(cell ~ /±/ ? " %13s" : " %12s", cell)
			}
			print line
			b0 = base(r)
			if (b0 == "") continue
			line = sprintf("%-16s", "  vs-" b0)
			for (j = 1; j <= nw; j++) {
				w = W[j]; k = r SUBSEP w; kb = b0 SUBSEP w
				if (!applies(r, w)) cell = "-"
				else if (r in na) cell = "n/a"
				else if (!(k in med) || !(kb in med) || med[kb] == 0) cell = "?"
				else { ratio[k] = med[k] / med[kb]; cell = sprintf("%.2f", ratio[k]) }
				line = line sprintf(" %12s", cell)
			}
			print line
		}
		print ""
		for (j = 1; j <= nw; j++) {
			w = W[j]; a = "btrfs-fscrypt" SUBSEP w; e = "ext4-fscrypt" SUBSEP w
			if (!((a in ratio) && (e in ratio))) continue
			printf "target %-9s btrfs-fscrypt/btrfs %.2f >= ext4-fscrypt/ext4 %.2f: %s\n",
				w, ratio[a], ratio[e], (ratio[a] >= ratio[e] ? "met" : "MISSED")
		}
		nd = split("seqwrite seqread bgwrite", D, " ")
		for (j = 1; j <= nd; j++) {
			w = D[j]; a = "btrfs-fscrypt" SUBSEP w; d = "dmcrypt-btrfs" SUBSEP w
			if (!((a in med) && (d in med))) continue
			printf "target %-9s btrfs-fscrypt %s >= dmcrypt-btrfs %s MiB/s: %s\n",
				w, fmt(med[a]), fmt(med[d]), (med[a] >= med[d] ? "met" : "MISSED")
		}
	}' "$raw"
	grep '^NA ' "$raw" | while read -r _ row why; do echo "n/a $row: $why"; done
	echo
	legend
	echo "==== end of table"
}

# profile_rows: one more pass of the encrypted rows and their bases with the
# function profiler: calls of (and time in, children included) key
# derivation, transform allocation, bounce pages, the cipher and key setups.
profile_rows() {
	: >$TRACING/set_ftrace_filter
	for f in $PROFILED; do
		echo "$f" >>$TRACING/set_ftrace_filter || echo "ERROR: cannot profile $f"
	done
	echo "profiling: $(cat $TRACING/set_ftrace_filter | tr '\n' ' ')"
	PROFILE=1
	for row in btrfs btrfs-noinline btrfs-fscrypt btrfs-adiantum ext4 ext4-fscrypt \
		dmcrypt-btrfs; do
		case $skip in *" $row "*) continue ;; esac
		wanted "$row" || continue
		setup "$row" && workloads 0 "$row"
		teardown 2>/dev/null
	done >/tmp/bench.profile
	PROFILE=0
	: >$TRACING/set_ftrace_filter
	grep '^P ' /tmp/bench.profile
	awk -v mib="$file_mib" -v nrand="$rand" -v nfiles=$((dirs * files)) '
	$1 != "P" { print; next }
	$4 == "rate" {
		k = $2 " " $3; keys[++nk] = k
		amount = nfiles
		if ($3 ~ /^(seq|reflink)/) amount = mib
		if ($3 ~ /^rand/) amount = nrand
		ms[k] = 0
		if ($5 + 0 > 0) ms[k] = amount / $5 * 1000
		next
	}
	{
		# The profiler cuts names at 30 characters.
		f = $4
		if (f ~ /^fscrypt_encrypt_pagecache_bl/) f = "fscrypt_encrypt_pagecache_blocks"
		k = $2 " " $3; hits[k, f] = $5; us[k, f] = $6
	}
	END {
		printf "%-25s %13s %13s %13s %6s %13s %13s %6s\n", "", "", "derive", "keys", "",
			"units", "names", ""
		printf "%-25s %6s %6s %6s %6s %6s %6s %6s %6s %6s %6s %6s %6s %6s\n", "row workload",
			"ms", "idle", "calls", "ms", "calls", "ms", "bounce", "calls", "ms", "calls", "ms",
			"inodes"
		for (i = 1; i <= nk; i++) {
			k = keys[i]
			# Data units: every skcipher call but those of names.
			uh = hits[k, "crypto_skcipher_encrypt"] + hits[k, "crypto_skcipher_decrypt"] -
				hits[k, "fscrypt_fname_encrypt"] - hits[k, "fname_decrypt"]
			uu = us[k, "crypto_skcipher_encrypt"] + us[k, "crypto_skcipher_decrypt"] -
				us[k, "fscrypt_fname_encrypt"] - us[k, "fname_decrypt"]
			if (k ~ /^dmcrypt/) { uh = hits[k, "crypt_convert"]; uu = us[k, "crypt_convert"] }
			printf "%-25s %6.0f %6d %6d %6.1f %6d %6.1f %6d %6d %6.0f %6d %6.1f %6d\n", k,
				ms[k], us[k, "idle"],
				hits[k, "fscrypt_hkdf_expand"], us[k, "fscrypt_hkdf_expand"] / 1000,
				hits[k, "crypto_skcipher_setkey"], us[k, "crypto_skcipher_setkey"] / 1000,
				hits[k, "fscrypt_alloc_bounce_page"] + hits[k, "fscrypt_encrypt_pagecache_blocks"],
				uh, uu / 1000,
				hits[k, "fscrypt_fname_encrypt"] + hits[k, "fname_decrypt"],
				(us[k, "fscrypt_fname_encrypt"] + us[k, "fname_decrypt"]) / 1000,
				hits[k, "fscrypt_setup_encryption_info"]
		}
		print "ms: the workload (from its rate), idle: of which the CPU was idle (disk waits, 10 ms"
		print "resolution); derive: HKDF expansions (keys of files, extents and"
		print "name hashes); keys: keys set on a transform (setkey); bounce: bounce pages;"
		print "units: data units en- or decrypted (dmcrypt-btrfs: crypt_convert() calls, one a bio) and"
		print "the time in the cipher; names: names en- or decrypted; inodes: key setups of inodes;"
		print "btrfs-noinline: btrfs mounted with max_inline=0 (small files in data extents, as encrypted ones were before patch 32)"
	}' /tmp/bench.profile | sed '1i ==== where the time goes (one run with the function profiler; time includes callees)'
	echo "==== end of profile"
}

# now_cs: centiseconds since boot (busybox date has no %N).
now_cs() { awk '{ printf "%d\n", $1 * 100 }' /proc/uptime; }
# slab_kib: the memory of all slab caches, in KiB.
slab_kib() { awk '/^Slab:/ { print $2 }' /proc/meminfo; }
# slab_caches FILE: "NAME BYTES" for every slab cache.
slab_caches() { awk 'NR > 2 { print $1, $15 * $6 * 4096 }' /proc/slabinfo >"$1"; }

# memory_rows: the slab held by reading a file of $extents extents, on btrfs
# and the two encrypted btrfs rows, and what dropping the caches gives back.
memory_rows() {
	echo "==== memory: a file of $extents 4 KiB extents (one every 8 KiB), read with a cold cache"
	printf "%-15s %8s %14s %14s %12s %14s %12s\n" row extents "slab read KiB" "B per extent" \
		"freed KiB" "cached KiB" "us per new"
	for row in btrfs btrfs-fscrypt btrfs-adiantum; do
		wanted "$row" || continue
		t0=$(now_cs)
		if ! setup "$row" || ! bench-io fragment "$W/frag" "$extents"; then
			echo "ERROR: memory $row: setup failed"
			failed=1
			teardown 2>/dev/null
			continue
		fi
		t1=$(now_cs)
		n=$(fscrypt-ioctl extents "$W/frag" | grep -c ' reg ')
		drop_caches
		s0=$(slab_kib); slab_caches /tmp/slab.0
		c0=$(awk '/^Cached:/ { print $2 }' /proc/meminfo)
		cat "$W/frag" >/dev/null
		s1=$(slab_kib); slab_caches /tmp/slab.1
		c1=$(awk '/^Cached:/ { print $2 }' /proc/meminfo)
		drop_caches
		s2=$(slab_kib)
		printf "%-15s %8d %14d %14d %12d %14d %12d\n" "$row" "$n" $((s1 - s0)) \
			$(((s1 - s0) * 1024 / (n > 0 ? n : 1))) $((s1 - s2)) $((c1 - c0)) \
			$(((t1 - t0) * 10000 / (n > 0 ? n : 1)))
		if [ "$row" = btrfs-fscrypt ]; then
			awk 'NR == FNR { b[$1] = $2; next } $2 > b[$1] { print $2 - b[$1], $1 }' \
				/tmp/slab.0 /tmp/slab.1 |
				sort -rn | head -n 6 | awk '{ printf "  %-22s +%d KiB\n", $2, $1 / 1024 }' \
				>/tmp/slab.top
		fi
		teardown 2>/dev/null
	done
	echo "us per new: setup and writing the file, per extent (an encrypted row minus"
	echo "the btrfs row: what a new extent costs, key derivation and encryption included)"
	echo "slab caches that grew most for btrfs-fscrypt:"
	cat /tmp/slab.top 2>/dev/null
	echo "==== end of memory"
}

echo "bench: $size run on $(uname -r), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
grep -qw aes /proc/cpuinfo && echo "bench: the guest CPU has AES-NI" ||
	echo "bench: the guest CPU has no AES-NI"
grep -E '^(name|driver)' /proc/crypto | paste - - | grep -E 'xts\(aes\)|adiantum|crc32c' | sort -u
skip=
for row in $ROWS; do
	why=$(unavailable "$row")
	[ -z "$why" ] && continue
	echo "NA $row $why" | tee -a "$raw"
	skip="$skip $row "
done

# Runs outside, rows inside: a slow patch on the host (other work on its
# CPUs) spreads over every row instead of landing on one.
run=1
while [ $run -le $runs ]; do
	for row in $ROWS; do
		case $skip in *" $row "*) continue ;; esac
		case $row in
		raw-*)	raw_cipher "$run" "$row"; continue ;;
		esac
		if setup "$row"; then
			workloads "$run" "$row"
		else
			echo "ERROR: $row: setup failed"
			failed=1
		fi
		teardown 2>/dev/null
	done
	run=$((run + 1))
done

print_table
if [ -e $TRACING/function_profile_enabled ]; then
	profile_rows
else
	echo "(no function profiler in this kernel: no profile)"
fi
memory_rows
exit $failed

# SPDX-License-Identifier: GPL-2.0
# Smoke run of make bench's guest script (tools/bench/guest.sh) with tiny
# sizes, so that the benchmark cannot rot: the table has every row and every
# workload, each cell a figure (median±spread), "-" where the workload does
# not apply, or "n/a" for a row that cannot run here (only the dm-crypt and
# AF_ALG rows: the integration initramfs has no cryptsetup, the integration
# kernel no dm-crypt and no AF_ALG); every encrypted
# row has its ratio line, the targets are evaluated, and the memory section
# measured a file of the extents asked for. The figures are not checked.
. /lib/test.sh
name_failures

step "guest.sh tiny"
if ! sh /bench/guest.sh tiny >/tmp/bench.out 2>&1; then
	tail -n 30 /tmp/bench.out
	fail "guest.sh tiny failed"
fi
sed -n '/^==== table/,/^==== end of table/p' /tmp/bench.out >/tmp/table
sed -n '/^==== memory/,/^==== end of memory/p' /tmp/bench.out >/tmp/memory
cat /tmp/table /tmp/memory

step "a complete table"
# Every workload of tools/bench/guest.sh, in the order of its columns.
workloads="seqwrite seqread randread randwrite create lsR stat remove reflink par4write fragread bgwrite send"
# shellcheck disable=SC2086 # one word per column
set -- $workloads
ncells=$#
[ "$(grep '^row ' /tmp/table | tr -s ' ')" = "row $workloads" ] ||
	fail "the header is not 'row $workloads': $(grep '^row ' /tmp/table)"
# check_cells ROW WORDS...: ROW's cells, one per workload, are a median±spread
# (or a ratio with RATIO=1), "-", or "n/a" where the row may be unavailable.
check_cells() {
	row=$1
	shift
	[ $# = "$ncells" ] || fail "$row: $# cells, expected $ncells: $*"
	for cell in "$@"; do
		case $cell in
		-) ;;
		n/a)	case $row in dmcrypt-btrfs | raw-* | vs-btrfs) ;;
			*) fail "$row: n/a" ;;
			esac ;;
		*)	if [ "${RATIO:-0}" = 1 ]; then
				echo "$cell" | grep -qE '^[0-9]+\.[0-9]{2}$'
			else
				echo "$cell" | grep -qE '^[0-9.]+±[0-9]+%$'
			fi || fail "$row: cell '$cell'" ;;
		esac
	done
}
for row in btrfs btrfs-fscrypt btrfs-adiantum ext4 ext4-fscrypt dmcrypt-btrfs \
	raw-aes-xts raw-adiantum; do
	line=$(grep "^$row " /tmp/table) || fail "no row $row"
	# shellcheck disable=SC2086 # one cell per word
	check_cells $line
done
# The four ratio lines, in the order of their rows.
[ "$(grep -c '^  vs-' /tmp/table)" = 4 ] || fail "$(grep -c '^  vs-' /tmp/table) ratio lines, expected 4"
grep '^  vs-' /tmp/table | while read -r line; do
	# shellcheck disable=SC2086 # one cell per word
	RATIO=1 check_cells $line
done
# Where the row is missing the cells are n/a, and its reason is given.
for row in dmcrypt-btrfs raw-aes-xts raw-adiantum; do
	if grep -q "^$row .*n/a" /tmp/table; then
		grep -q "^n/a $row: " /tmp/table || fail "$row is n/a without a reason"
	fi
done
[ "$(grep -c '^target ' /tmp/table)" -ge 10 ] || fail "targets not evaluated"
! grep -qE '^target reflink .*: (met|MISSED)$' /tmp/table || fail "reflink compared with ext4"
! grep -qE '^target send .*: (met|MISSED)$' /tmp/table || fail "send compared with ext4"
for row in ext4 ext4-fscrypt; do
	[ "$(grep "^$row " /tmp/table | awk '{ print $NF }')" = - ] || fail "$row has a send figure"
done
! grep -q "^ERROR" /tmp/bench.out || fail "an ERROR line"

step "the memory section"
for row in btrfs btrfs-fscrypt btrfs-adiantum; do
	awk -v r="$row" '$1 == r && $2 == 64 { found = 1 } END { exit !found }' /tmp/memory ||
		fail "memory: no $row line with 64 extents"
done

# SPDX-License-Identifier: GPL-2.0
# End to end (E2E_FS, default btrfs): writing encrypted files while slab
# and page allocations fail at random. Thirteen files are written to an
# encrypted directory, each from the pattern of its own seed, and written
# back (sync_file_range), by a task (fscrypt-ioctl fail-write) whose
# allocations fail with probability 20 % (failslab and fail_page_alloc,
# sleeping allocations included, aimed at it with make-it-fail), up to a
# number of failures per file and kind: none for the first file (a
# control); 1 to 8 for four files while they are written and written back;
# 1 to 64 for four files while they are written back (extent allocation
# and its key, encryption); and 1 to 64 for four files while their pages
# are written back once their extent is allocated (encryption, bounce
# pages, bios). Then each is fsync'd with no failure injected. A write or
# writeback
# may fail (ENOMEM); nothing may go wrong in the kernel: no warning, BUG,
# lockdep report, hung task or aborted transaction in the kernel log (less
# the stack dumps of the injected failures: lib.sh klog_check), and the
# filesystem stays writable. After a remount, every file whose write,
# writeback and fsync succeeded reads back as written, the others read
# without errors, and (btrfs) scrub finds no error and the extents of the
# files written are encrypted.
#
# The failures stop before fsync: there btrfs runs its log tree or a
# transaction commit, where ENOMEM aborts the transaction by design
# (__btrfs_free_extent, for one), which says nothing about encryption.
. /lib/test.sh

e2e_begin
enc=$MNT/enc
e2e_encrypt "$enc"
fault_init
hung_task_timeout 10
for a in failslab fail_page_alloc; do
	fault_set $a interval=1 times=0 space=0 verbose=2 \
		verbose_ratelimit_burst=1000000 ignore-gfp-wait=N task-filter=Y
done
fault_set fail_page_alloc ignore-gfp-highmem=N min-order=0
fault_set failslab probability=20
fault_set fail_page_alloc probability=20

step "thirteen files written and written back by a task whose allocations fail"
# NAME SIZE SEED FAILURES (per kind) WHEN (fscrypt-ioctl fail-write --when)
cat >/tmp/files <<EOF
f0 300001 420 0 all
f1 1048576 421 1 all
f2 65536 422 2 all
f3 524288 423 4 all
f4 1000003 424 8 all
f5 131072 425 1 writeback
f6 786432 426 4 writeback
f7 262144 427 16 writeback
f8 1048576 428 64 writeback
f9 131072 429 1 pages
f10 786432 430 4 pages
f11 262144 431 16 pages
f12 1048576 432 64 pages
EOF
dmesg_mark
klog_begin
: >/tmp/results
broken=
while read -r name size seed n when; do
	echo "$n" >"$DEBUGFS/failslab/times"
	echo "$n" >"$DEBUGFS/fail_page_alloc/times"
	rc=0
	fscrypt-ioctl fail-write "$enc/$name" "$size" "$seed" --when="$when" >/tmp/fw.out 2>&1 || rc=$?
	slab=$((n - $(fault_times failslab)))
	page=$((n - $(fault_times fail_page_alloc)))
	case $rc in
	0) ok=ok ;;
	3) ok=failed ;;
	*)
		broken="fscrypt-ioctl fail-write $name could not run (exit $rc): $(cat /tmp/fw.out)"
		echo "$broken"
		break
		;;
	esac
	echo "$name $size $seed $ok $when slab=$slab page=$page $(cat /tmp/fw.out)" | tee -a /tmp/results
done </tmp/files
echo 0 >"$DEBUGFS/failslab/probability"
echo 0 >"$DEBUGFS/fail_page_alloc/probability"
klog_end

step "the injected failures and the kernel log"
slab=$(sed -n 's/.* slab=\([0-9]*\) .*/\1/p' /tmp/results | awk '{ s += $1 } END { print s + 0 }')
page=$(sed -n 's/.* page=\([0-9]*\) .*/\1/p' /tmp/results | awk '{ s += $1 } END { print s + 0 }')
logged=$(grep -c 'FAULT_INJECTION: forcing a failure' /tmp/klog || true)
# verbose=2: a stack dump after each logged failure; which went through
# fscrypt (a frame "fscrypt_...+0x...")?
in_fscrypt=$(awk '/FAULT_INJECTION: forcing a failure/ { n += hit; hit = 0; on = 1; next }
	on && /^ *(\? )?fscrypt_[a-z0-9_.]*\+0x/ { hit = 1 }
	on && /<\/TASK>/ { on = 0 } END { print n + hit }' /tmp/klog)
echo "injected: $slab slab and $page page allocation failures;" \
	"$logged logged (allocations with __GFP_NOWARN are not), $in_fscrypt of them in fscrypt code"
echo "where the logged failures were injected:"
klog_fault_sites | head -n 20
awk '$4 == "ok"' /tmp/results >/tmp/ok
awk '$4 != "ok"' /tmp/results >/tmp/failed
echo "$(wc -l </tmp/ok) file(s) written, written back and fsync'd; $(wc -l </tmp/failed) with a failure"
klog_check "writes with failing allocations"
no_hung_tasks "writes with failing allocations"
[ -z "$broken" ] || fail "$broken"
grep -q '^f0 .* ok all slab=0 page=0 ' /tmp/results ||
	fail "the control file f0 (no failure injected) was not written"
[ $((slab + page)) -gt 0 ] || fail "no failure was injected"
touch "$enc/still-writable" || fail "$MNT is no longer writable"
rm "$enc/still-writable"

step "after a remount: the files written without failure are intact, the others readable"
e2e_umount
dmesg_mark
e2e_mount
e2e_add_key
while read -r name size seed ok _; do
	cat "$enc/$name" >/dev/null || fail "$name: read error ($(dmesg_since | tail -n 3))"
	if fscrypt-ioctl pattern-check "$enc/$name" "$size" "$seed" >/tmp/check; then
		echo "$name: as written ($ok)"
	elif [ "$ok" = ok ]; then
		fail "$name: write, writeback and fsync succeeded, but it does not read back as written: $(cat /tmp/check)"
	else
		echo "$name: not as written, allowed (a write, writeback or fsync failed): $(cat /tmp/check)"
	fi
done </tmp/results
no_csum_errors "reading the files"
if is_btrfs; then
	scrub_clean "$MNT"
	while read -r name _; do
		encrypted_extents "$enc/$name"
	done </tmp/ok
fi
e2e_umount

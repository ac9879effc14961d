# SPDX-License-Identifier: GPL-2.0
# Writeback of an encrypted file does not wait for ever for bounce pages
# when the page allocator fails. A 1 MiB file is written to an encrypted
# directory and left dirty (its first page is synced, which allocates its
# extent); then a task whose every page allocation fails (fail_page_alloc:
# probability 100, sleeping allocations included, aimed at it with
# make-it-fail) writes it back with sync_file_range(WAIT_BEFORE | WRITE |
# WAIT_AFTER) (fscrypt-ioctl fail-sync). Every bounce page then comes from
# fscrypt's mempool (fscrypto.num_prealloc_crypto_pages, 4 pages in the
# integration boot): writeback that takes each page of a bio with a
# sleeping allocation while the pages before it wait in that unsubmitted
# bio empties the pool, then waits for a page that only its own bio can
# give back, for ever (in mempool_alloc(), which the hung task detector
# does not report: it wakes every 5 s to try again); writeback that takes
# all but the first page of a bio without sleeping submits the bio when the
# pool is empty and waits for its completion. The sync must return within
# 60 s, with success, after at least one injected failure per page it
# writes (every bounce page is asked of the page allocator first), with no
# hung task and nothing in the kernel log; the file reads back as written
# with cold caches and after a remount, encrypted. On a hang the case shows
# the task's stack, turns the injection off so that the task can finish,
# and fails.
#
# On btrfs, whatever E2E_FS says: ext4 of this kernel, whose writeback
# submits the bio and retries too, waits in the same place with its default
# dioread_nolock (bounce pages of a bio to unwritten extents are freed only
# once the writer is done with the range), and passes with nodioread_nolock.
. /lib/test.sh
E2E_FS=btrfs

size=1048576
# The pages that the sync with failures writes: all but the first.
pages=$((size / 4096 - 1))
deadline=60
# As good as no limit; the failures injected are what it went down by.
budget=100000000

e2e_begin
enc=$MNT/enc
e2e_encrypt "$enc"
fault_init
pool=$(cat /sys/module/fscrypto/parameters/num_prealloc_crypto_pages)
echo "fscrypt bounce page pool: $pool pages"

step "a $((size / 1024)) KiB file in $enc, written, its first page synced"
# Neither a transaction commit nor the flusher writes it meanwhile: its
# writeback would give the sync back bounce pages that it waits for.
mount -o remount,commit=300 "$MNT"
no_background_writeback
mkdir -p "$REF"
random_file "$REF/f" "$size"
cp "$REF/f" "$enc/f"
# btrfs allocates extents at writeback, for all of the dirty range that a
# page starts: syncing the first page allocates the file's extent, its
# ordered extent and key, before any failure is injected (allocations that
# a failure would end with ENOMEM, not with a wait: the first slab of a
# cache, for one). What the sync with failures then allocates is what
# writing the pages needs: bounce pages, and each part's checksums, which
# are allocated with __GFP_NOFAIL (fail_page_alloc leaves those alone; a
# new slab for them once failed this case, after another order of cases).
fscrypt-ioctl sync-range "$enc/f" 0 4096
dirty=$(awk '$1 == "Dirty:" { print $2 }' /proc/meminfo)
echo "dirty: $dirty KiB"
[ "$dirty" -ge $((size / 1024 - 4)) ] ||
	fail "only $dirty KiB dirty: the file was written back before the sync"

step "sync_file_range of the file in a task whose page allocations all fail"
hung_task_timeout 10
# verbose=2: a stack dump of each failure but those of allocations with
# __GFP_NOWARN (the bounce pages' first tries, and their mempool's).
fault_set fail_page_alloc interval=1 times=$budget space=0 verbose=2 \
	verbose_ratelimit_burst=1000000 ignore-gfp-wait=N ignore-gfp-highmem=N \
	min-order=0 task-filter=Y probability=100
dmesg_mark
klog_begin
t0=$(date +%s)
fscrypt-ioctl fail-sync "$enc/f" >/tmp/sync.out 2>&1 &
pid=$!
hung=
while [ -n "$(task_state $pid)" ]; do
	if [ $(($(date +%s) - t0)) -ge $deadline ]; then
		hung=$(task_state $pid)
		break
	fi
	usleep 200000
done
dt=$(($(date +%s) - t0))
injected=$((budget - $(fault_times fail_page_alloc)))
if [ -n "$hung" ]; then
	echo "the sync has not returned after $dt s (task state $hung), $injected failures injected; its stack:"
	cat "/proc/$pid/stack" >/tmp/hung.stack || true
	head -n 8 /tmp/hung.stack
	where=$(head -n 3 /tmp/hung.stack |
		awk '{ sub(/.*\] /, ""); sub(/\+0x.*/, ""); printf "%s%s", (NR > 1 ? " < " : ""), $0 }')
	step "injection off: the task must finish now"
	echo 0 >"/proc/$pid/make-it-fail" || true
	echo 0 >"$DEBUGFS/fail_page_alloc/probability"
	# mempool_alloc() tries again every 5 s.
	i=0
	while [ -n "$(task_state $pid)" ]; do
		i=$((i + 1))
		[ $i -le 150 ] || fail "writeback of $enc/f hung, and still hangs with the injection off"
		usleep 200000
	done
fi
rc=0
wait $pid || rc=$?
klog_end
cat /tmp/sync.out
echo "sync_file_range: $dt s, $injected page allocation failures injected for $pages pages"
[ -z "$hung" ] ||
	fail "writeback of $enc/f hung: no progress in $deadline s once the page allocator failed, waiting in $where (it returned $(($(date +%s) - t0)) s after the start, once the injection was off)"
logged=$(grep -c 'FAULT_INJECTION: forcing a failure' /tmp/klog || true)
echo "$logged of them logged (allocations without __GFP_NOWARN)"
[ "$rc" = 0 ] && grep -qx 'sync=ok' /tmp/sync.out || {
	grep -A 40 'FAULT_INJECTION: forcing a failure' /tmp/klog | head -n 80
	fail "sync_file_range with failing page allocations: $(cat /tmp/sync.out) (exit $rc)"
}
[ "$injected" -ge $pages ] ||
	fail "$injected failures injected, fewer than the $pages bounce pages: the injection missed the bounce page allocations"
klog_check "sync with failing page allocations"
no_hung_tasks "sync with failing page allocations"
dirty=$(awk '$1 == "Dirty:" { print $2 }' /proc/meminfo)
echo "dirty after the sync: $dirty KiB"

step "the file reads back as written, with cold caches and after a remount"
echo 0 >"$DEBUGFS/fail_page_alloc/probability"
drop_caches
same_digests "$REF" "$enc"
encrypted_extents "$enc/f"
e2e_umount
e2e_mount
e2e_add_key
same_digests "$REF" "$enc"
no_csum_errors
e2e_umount

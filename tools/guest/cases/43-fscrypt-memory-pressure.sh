# SPDX-License-Identifier: GPL-2.0
# End to end (E2E_FS, default btrfs): writeback of encrypted files under
# memory pressure. All but about 80 MiB of the guest's available memory is
# pinned (a file in a tmpfs: there is no swap), then four writers at once
# each write and fsync six 10 MiB files to an encrypted directory, from the
# pattern of each file's own seed: 240 MiB, three times the memory left, so
# that page cache, bounce pages (fscrypt's pool has 4 pages in the
# integration boot) and the filesystem's own allocations compete for it.
# Every writer must finish, with no error, within 240 s, with no hung task
# (hung_task_timeout_secs 20) and nothing in the kernel log (no allocation
# failure report, no OOM kill either), having made the kernel reclaim at
# least half of what did not fit; after a remount, still under pressure,
# every file reads back as written.
. /lib/test.sh

keep_mib=80
writers=4
files=6
size=$((10 * 1048576))
deadline=240

e2e_begin
enc=$MNT/enc
e2e_encrypt "$enc"
hung_task_timeout 20

avail() { awk '$1 == "MemAvailable:" { print int($2 / 1024) }' /proc/meminfo; }
# Pages reclaimed so far (by kswapd and by allocating tasks).
reclaimed() { awk '$1 ~ /^pgsteal_(kswapd|direct)$/ { n += $2 } END { print n + 0 }' /proc/vmstat; }

step "pin all but $keep_mib MiB of the available memory"
before=$(avail)
pin=$((before - keep_mib))
[ "$pin" -gt 0 ] || fail "only $before MiB available"
mkdir -p /mnt/ballast
mount -t tmpfs -o size=$((pin + 1))m ballast /mnt/ballast
t0=$(date +%s)
fallocate -l $((pin * 1048576)) /mnt/ballast/pin
echo "available: $before MiB before, $(avail) MiB with $pin MiB pinned" \
	"($(($(date +%s) - t0)) s); to write: $((writers * files * size / 1048576)) MiB"
[ "$(avail)" -le $((keep_mib + 32)) ] || fail "$(avail) MiB still available after pinning"

step "$writers writers, $files files of $((size / 1048576)) MiB each, write and fsync"
# writer W: writes and fsyncs its files, w$W-0 ... ; "done" at the end.
writer() {
	i=0
	while [ $i -lt $files ]; do
		f=$enc/w$1-$i
		fscrypt-ioctl pattern $size $(($1 * 100 + i)) >"$f" || { echo "$f: write failed"; exit 1; }
		sync "$f" || { echo "$f: fsync failed"; exit 1; }
		i=$((i + 1))
	done
	echo "done"
}
dmesg_mark
r0=$(reclaimed)
t0=$(date +%s)
pids=
for w in $(seq $writers); do
	writer "$w" >/tmp/writer.$w 2>&1 &
	pids="$pids $!"
done
low=$(avail)
while :; do
	left=0
	for p in $pids; do
		[ -z "$(task_state "$p")" ] || left=$((left + 1))
	done
	[ $left -gt 0 ] || break
	a=$(avail)
	[ "$a" -ge "$low" ] || low=$a
	if [ $(($(date +%s) - t0)) -ge $deadline ]; then
		echo "$left writer(s) still running after $deadline s; tasks in D state:"
		for s in /proc/[0-9]*/stat; do
			d=${s%/stat}
			[ "$(cut -d ' ' -f 3 "$s" 2>/dev/null)" = D ] || continue
			echo "$(cat "$d/comm" 2>/dev/null) (${d#/proc/}):"
			cat "$d/stack" 2>/dev/null | head -n 20
		done
		umount /mnt/ballast || true
		fail "the writers did not finish in $deadline s under memory pressure"
	fi
	sleep 1
done
dt=$(($(date +%s) - t0))
for w in $(seq $writers); do
	grep -qx 'done' /tmp/writer.$w || fail "writer $w: $(cat /tmp/writer.$w)"
done
total=$((writers * files * size / 1048576))
r=$((($(reclaimed) - r0) / 256))
echo "written in $dt s ($((total / (dt > 0 ? dt : 1))) MiB/s); available memory at least $low MiB meanwhile; $r MiB reclaimed"
# What did not fit had to be reclaimed: the writers were under pressure.
[ "$r" -ge $(((total - keep_mib) / 2)) ] ||
	fail "only $r MiB of memory reclaimed while writing $total MiB with $keep_mib MiB available: no memory pressure"
no_hung_tasks "writers under memory pressure"
if dmesg_since | grep -E "$KLOG_PATTERN|page allocation failure|Out of memory" >/tmp/pressure.kmsg; then
	head -n 20 /tmp/pressure.kmsg
	fail "kernel log under memory pressure"
fi

step "after a remount, still under pressure: every file as written"
e2e_umount
e2e_mount
e2e_add_key
t0=$(date +%s)
for w in $(seq $writers); do
	i=0
	while [ $i -lt $files ]; do
		f=$enc/w$w-$i
		fscrypt-ioctl pattern-check "$f" $size $((w * 100 + i)) >/tmp/check 2>&1 ||
			fail "$f does not read back as written: $(cat /tmp/check) ($(dmesg_since | tail -n 3))"
		i=$((i + 1))
	done
done
echo "ok: $((writers * files)) files as written (checked in $(($(date +%s) - t0)) s)"
is_btrfs && encrypted_extents "$enc/w1-0"
no_csum_errors
e2e_umount
umount /mnt/ballast

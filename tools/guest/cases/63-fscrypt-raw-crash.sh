# SPDX-License-Identifier: GPL-2.0
# Crash safety of raw receive's data operations (patches 40 and 45; lib.sh:
# power_cut). Phase 1: a committed encrypted file of 512 KiB in one extent
# is read encoded in its 4 parts of 128 KiB (3 with version 2 contexts);
# raw-write puts them into a committed empty file of the same directory and
# raw-clone shares the original's extent with another, both given by O_PATH
# descriptors, with the key present, as raw receive does when the stream's
# key is added later; both files are fsync'd, the superblock's generation
# shows that no transaction was committed since, and the power is cut.
# Phase 2: the mount, without the key, replays the log tree; with the key
# both files read as the original, the written one's extents carry the
# parts' contexts (version 2 ones included: the log copies whole items)
# and the clone shares the original's extent; btrfs check passes after a
# clean unmount.
. /lib/test.sh
E2E_FS=btrfs

if [ "$PHASE" = 1 ]; then
	e2e_begin
	# No periodic transaction commit before the power cut.
	mount -o remount,commit=300 "$MNT"
	enc=$MNT/enc
	e2e_encrypt "$enc"
	rm -rf /tmp/phase
	mkdir -p /tmp/phase
	random_file /tmp/phase/big 524288
	cp /tmp/phase/big "$enc/big"
	touch "$enc/w" "$enc/c"
	sync
	k=0
	while [ $k -lt 4 ]; do
		fscrypt-ioctl encoded-read "$enc/big" $((k * 131072)) "/tmp/rc.p$k" >"/tmp/rc.m$k" ||
			fail "encoded read of part $k"
		field "$(cat "/tmp/rc.m$k")" context >>/tmp/phase/ctx
		k=$((k + 1))
	done
	gen=$(sb_generation)
	echo "superblock generation $gen"

	step "raw write and raw clone, fsync'd, only in the log tree"
	for k in 1 0 3 2; do
		fscrypt-ioctl raw-write "$enc" "$enc/w" $((k * 131072)) "/tmp/rc.p$k" "$(cat "/tmp/rc.m$k")" >/dev/null ||
			fail "raw write of part $k"
	done
	fscrypt-ioctl raw-clone "$enc" "$enc/c" "$enc/big" 0 0 524288 || fail "raw clone of big"
	exec 3<"$enc/w" 4<"$enc/c"
	fscrypt-ioctl fsync-fd 3 || fail "fsync of w"
	fscrypt-ioctl fsync-fd 4 || fail "fsync of c"
	exec 3<&- 4<&-
	echo "superblock generation $(sb_generation)"
	[ "$(sb_generation)" = "$gen" ] ||
		fail "a transaction was committed after the raw operations (generation $gen, now $(sb_generation)): log replay would not be tested"
	fscrypt-ioctl extents "$enc/big" | awk '$2 == "reg" { print $7 }' >/tmp/phase/bigphys
	cp "$E2E_KEY" /tmp/phase/key
	echo "$KEYID" >/tmp/phase/keyid
	phase_save /tmp/phase
	power_cut
fi

crash_phase2
enc=$MNT/enc
[ "$(fscrypt-ioctl key-status "$MNT" "$KEYID" | head -n 1)" = absent ] || fail "the key is present"
[ "$(ls "$enc" | wc -l)" = 3 ] || fail "$enc: $(ls "$enc")"
echo "ok: the log tree replayed without the key"

step "with the key: both files read as the original"
e2e_add_key
cmp /tmp/phase/big "$enc/w" || fail "w does not read as big"
cmp /tmp/phase/big "$enc/c" || fail "c does not read as big"
fscrypt-ioctl extents "$enc/w" | awk '$2 == "reg" { print $9 }' | cmp - /tmp/phase/ctx ||
	fail "w's extents do not carry the parts' contexts"
fscrypt-ioctl extents "$enc/c" | awk '$2 == "reg" { print $7 }' | cmp - /tmp/phase/bigphys ||
	fail "c does not share big's extent"
echo "ok: w holds the 4 parts with their contexts, c shares big's extent"

step "btrfs check after a clean unmount"
e2e_umount
btrfs check --readonly "$DISK1" >/tmp/check 2>&1 || fail "btrfs check: $(tail -n 5 /tmp/check)"
echo "ok: btrfs check passes"
no_csum_errors

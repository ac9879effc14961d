# SPDX-License-Identifier: GPL-2.0
# "btrfs send" and encryption. A send stream carries names, symlink targets
# and file data as plaintext for "btrfs receive" to write; for encrypted
# inodes btrfs holds only ciphertext, and send must never pass that off as
# file data or names. So the kernel refuses to send a snapshot that holds
# encrypted inodes: EOPNOTSUPP from the send ioctl, with a kernel message
# naming send and encryption, with and without the key. A snapshot without
# encrypted files, of the same filesystem, still sends and receives byte
# for byte. When send is refused, the case tells what the stream and the
# received files would have been.
. /lib/test.sh
# Encryption with the rest of btrfs: on btrfs, whatever E2E_FS says.
E2E_FS=btrfs

e2e_begin
btrfs subvolume create "$MNT/vol" >/dev/null
btrfs subvolume create "$MNT/plainvol" >/dev/null
enc=$MNT/vol/enc
e2e_encrypt "$enc"
rnd=$(head -c 8 /dev/urandom | xxd -p)
data=MARKERsenddata$rnd
name=MARKERsendname$rnd
mkdir -p "$REF/enc" "$REF/plain"
marker_file "$REF/enc/data-$name" 200000 "$data"
random_file "$REF/enc/random" 70000
random_file "$REF/plain/file" 100000
mkdir "$REF/plain/dir"
random_file "$REF/plain/dir/nested" 5000
cp "$REF/enc/data-$name" "$REF/enc/random" "$enc/"
ln -s "data-$name" "$enc/link"
cp -a "$REF/plain/." "$MNT/plainvol/"
cp "$REF/plain/file" "$MNT/vol/unencrypted"
btrfs subvolume snapshot -r "$MNT/vol" "$MNT/vol-ro" >/dev/null
btrfs subvolume snapshot -r "$MNT/plainvol" "$MNT/plainvol-ro" >/dev/null
mkfs_btrfs_encrypt "$DISK2"
recv=/mnt/recv
mount_btrfs "$DISK2" "$recv"

step "send and receive of a snapshot without encrypted files"
btrfs send -f /tmp/plain.stream "$MNT/plainvol-ro" 2>&1
btrfs receive -f /tmp/plain.stream "$recv" 2>&1
[ -d "$recv/plainvol-ro" ] || fail "btrfs receive made no plainvol-ro"
same_digests "$REF/plain" "$recv/plainvol-ro"

# diagnose: what the stream of a send that should have been refused holds.
diagnose() {
	if grep -q -F "$data" /tmp/enc.stream; then
		echo "the stream carries the file data in plaintext"
	else
		echo "the stream does not carry the file data in plaintext"
	fi
	grep -q -F "$name" /tmp/enc.stream || echo "the stream does not carry the plaintext name"
	rm -rf "${recv:?}/vol-ro" 2>/dev/null || btrfs subvolume delete "$recv/vol-ro" >/dev/null 2>&1 || true
	if btrfs receive -f /tmp/enc.stream "$recv" >/tmp/recv.out 2>&1; then
		echo "btrfs receive took it; received below enc: $(ls "$recv/vol-ro/enc" 2>&1 | tr '\n' ' ')"
		if cmp -s "$REF/enc/random" "$recv/vol-ro/enc/random"; then
			echo "enc/random was received as plaintext"
		else
			echo "enc/random was not received as its plaintext"
		fi
	else
		echo "btrfs receive failed: $(tail -n 1 /tmp/recv.out)"
	fi
}

# send_refused SNAPSHOT WHEN: btrfs send of SNAPSHOT fails with EOPNOTSUPP
# and a kernel message about send and encryption; what else happened goes
# to /tmp/send.problems, for the end of the case.
send_refused() {
	dmesg_mark
	rm -f /tmp/enc.stream
	if btrfs send -f /tmp/enc.stream "$1" >/tmp/send.out 2>&1; then
		cat /tmp/send.out
		diagnose | tee /tmp/diagnosis
		echo "$2: btrfs send succeeded (expected EOPNOTSUPP): $(tr '\n' ';' </tmp/diagnosis)" >>/tmp/send.problems
		return 0
	fi
	cat /tmp/send.out
	dmesg_since | grep -i 'send' || true
	if ! grep -q 'Operation not supported' /tmp/send.out; then
		partial="no stream written"
		if [ -s /tmp/enc.stream ]; then
			partial="a partial stream of $(stat -c %s /tmp/enc.stream) bytes"
			grep -q -F "$data" /tmp/enc.stream && partial="$partial with the file data in plaintext"
		fi
		echo "$2: btrfs send failed, but not with EOPNOTSUPP: $(grep -m 1 ERROR /tmp/send.out); kernel: $(dmesg_since | grep -i -m 1 'send'); $partial" >>/tmp/send.problems
	elif ! dmesg_since | grep -i 'send' | grep -q -i 'encrypt'; then
		echo "$2: EOPNOTSUPP, but no kernel message about send and encryption" >>/tmp/send.problems
	else
		echo "ok: $2: btrfs send of $1: EOPNOTSUPP"
	fi
}

: >/tmp/send.problems
step "send of a snapshot with encrypted files, with the key: refused"
send_refused "$MNT/vol-ro" "with the key"

step "the same without the key"
e2e_remove_key
send_refused "$MNT/vol-ro" "without the key"
if [ -s /tmp/send.problems ]; then
	cat /tmp/send.problems
	fail "btrfs send of a snapshot with encrypted files was not refused with EOPNOTSUPP and a kernel message ($(wc -l </tmp/send.problems) time(s), above)"
fi

step "the snapshot without encrypted files still sends"
btrfs subvolume delete "$recv/plainvol-ro" >/dev/null
btrfs send -f /tmp/plain.stream "$MNT/plainvol-ro" 2>&1
btrfs receive -f /tmp/plain.stream "$recv" 2>&1
[ -d "$recv/plainvol-ro" ] || fail "btrfs receive made no plainvol-ro"
same_digests "$REF/plain" "$recv/plainvol-ro"
no_csum_errors
umount "$recv"
e2e_umount

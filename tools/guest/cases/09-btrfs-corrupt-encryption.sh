# SPDX-License-Identifier: GPL-2.0
# Images that claim encryption without the encrypt incompat feature
# (made by tools/mkfixtures, checksums intact): the tree-checker refuses
# the leaf (-EUCLEAN) with a log line naming the item, at mount or at first
# access; nothing is read, nothing oopses. 6.1 reports every tree block that
# fails the checker at read time to user space as EIO ("read time tree block
# corruption detected"), so the case requires the failure and the log lines,
# not a particular errno.
. /lib/test.sh

# try_read IMAGE PATH: mount IMAGE read-only and read PATH; print the error
try_read() {
	if ! mount -t btrfs -o ro "$1" "$MNT" 2>/tmp/err; then
		cat /tmp/err
		return 0
	fi
	if cat "$MNT/$2" >/dev/null 2>/tmp/err && ls -l "$MNT" >/dev/null 2>>/tmp/err; then
		umount "$MNT"
		fail "$2 on $1 read without an error"
	fi
	cat /tmp/err
	umount "$MNT"
}

# expect_corrupt IMAGE PATH MESSAGE: the access fails and the kernel log
# names the problem
expect_corrupt() {
	dmesg_mark
	out=$(try_read "$1" "$2")
	echo "$out"
	case $out in
	*"Structure needs cleaning"* | *"Input/output error"*) ;;
	*) fail "expected EUCLEAN or EIO, got: $out" ;;
	esac
	dmesg_since | grep 'corrupt leaf' | grep -q "$3" ||
		fail "no 'corrupt leaf ... $3' in the kernel log: $(dmesg_since | tail -n 5)"
	dmesg_since | grep -q 'tree block corruption detected' ||
		fail "no 'tree block corruption detected' in the kernel log"
	dmesg_since | grep 'corrupt leaf' | head -n 1
}

mkdir -p "$MNT"

step "file extent item marked encrypted"
expect_corrupt "$FIXTURE_EXTENT" data "without the encrypt feature"

step "dir item with the encrypted-name flag"
expect_corrupt "$FIXTURE_DIRNAME" data "encrypted name without the encrypt feature"

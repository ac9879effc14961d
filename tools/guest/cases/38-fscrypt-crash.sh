# SPDX-License-Identifier: GPL-2.0
# Crash safety of encrypted files and names, in two boots (lib.sh:
# power_cut). Phase 1: after a transaction commit, in an encrypted
# directory, new subdirectories are made, a committed file is overwritten
# in part, another renamed into a new subdirectory and a third removed, all
# fsync'd (this may commit the transaction: btrfs does so for some renames
# and removals). Then, only in the log tree (commit=300, and the
# superblock's generation checked): new files, one with a long name, files
# in the new subdirectories, a new file renamed after its first fsync, a
# hard link, a short and a long symlink, all fsync'd with their
# directories, and a new empty file and a new directory fsync'd only
# through their parent (their context items must be logged with them);
# and the power is cut. Phase 2: the mount, without the key,
# replays the log tree; without the key the directory lists as many no-key
# names as it should; with the key every fsync'd file, name and link is
# there as written, encrypted with the directory's policy, and the removed
# and renamed names are gone; the same after a clean remount.
. /lib/test.sh
# Encryption with the rest of btrfs: on btrfs, whatever E2E_FS says.
E2E_FS=btrfs

name_failures

if [ "$PHASE" = 1 ]; then
	e2e_begin
	# No periodic transaction commit before the power cut.
	mount -o remount,commit=300 "$MNT"
	enc=$MNT/enc
	e2e_encrypt "$enc"
	mkdir -p "$REF"
	random_file "$REF/committed" 100000
	random_file "$REF/to-move" 3000
	random_file /tmp/gone 2000
	cp "$REF/committed" "$REF/to-move" /tmp/gone "$enc/"
	sync

	step "new directories; committed names: an overwrite, a rename, a removal; fsync"
	random_file /tmp/patch 10000
	dd if=/tmp/patch of="$REF/committed" bs=10000 seek=4 conv=notrunc 2>/dev/null
	dd if=/tmp/patch of="$enc/committed" bs=10000 seek=4 conv=notrunc 2>/dev/null
	mkdir "$REF/sub" "$enc/sub" "$REF/sub/new" "$enc/sub/new"
	mv "$REF/to-move" "$REF/sub/moved"
	mv "$enc/to-move" "$enc/sub/moved"
	rm "$enc/gone"
	sync "$enc/committed" "$enc/sub/moved" "$enc/sub/new" "$enc/sub" "$enc"
	# These may have committed the transaction: btrfs falls back to a
	# full commit for some renames and removals. From here on nothing
	# may: what follows is only in the log tree.
	gen=$(sb_generation)
	echo "superblock generation $gen"

	step "new files, names and links; fsync"
	long=long-$(name_of_length 200 n)
	random_file "$REF/a" 300000
	random_file "$REF/b" 5000
	random_file "$REF/small" 100
	random_file "$REF/$long" 20000
	random_file "$REF/sub/x" 70000
	random_file "$REF/sub/y" 1
	random_file "$REF/c-renamed" 40000
	random_file "$REF/sub/new/z" 12345
	for f in a b small "$long" sub/x sub/y sub/new/z; do
		cp "$REF/$f" "$enc/$f"
	done
	# A new file, fsync'd, renamed, fsync'd again.
	cp "$REF/c-renamed" "$enc/c"
	sync "$enc/c"
	mv "$enc/c" "$enc/c-renamed"
	ln "$REF/a" "$REF/sub/hard-a"
	ln "$enc/a" "$enc/sub/hard-a"
	ln -s a "$REF/link"
	ln -s a "$enc/link"
	ln -s "$E2E_LONG_TARGET" "$REF/sub/longlink"
	ln -s "$E2E_LONG_TARGET" "$enc/sub/longlink"
	# Logged only with the directory: an empty file and a directory.
	touch "$REF/dir-fsync-only" "$enc/dir-fsync-only"
	mkdir "$REF/late-dir" "$enc/late-dir"
	(cd "$enc" && sync a b small "$long" c-renamed sub/x sub/y sub/new/z sub/new sub .)
	echo "superblock generation $(sb_generation)"
	[ "$(sb_generation)" = "$gen" ] ||
		fail "a transaction was committed after the fsyncs (generation $gen, now $(sb_generation)): log replay would not be tested"

	step "keep the key and the reference tree's shape and digests for phase 2"
	mkdir -p /tmp/phase
	cp "$E2E_KEY" /tmp/phase/key
	echo "$KEYID" >/tmp/phase/keyid
	is_plain || cp /tmp/policy /tmp/phase/policy
	tree_shape "$REF" >/tmp/phase/shape
	digests "$REF" >/tmp/phase/digests
	ls -A "$REF" >/tmp/phase/top
	cat /tmp/phase/shape
	phase_save /tmp/phase
	power_cut
fi

crash_phase2
enc=$MNT/enc
if ! is_plain; then
	[ "$(fscrypt-ioctl key-status "$MNT" "$KEYID" | head -n 1)" = absent ] ||
		fail "the key is present"
	ls -A "$enc" >/tmp/nokey
	cat /tmp/nokey
	[ "$(wc -l </tmp/nokey)" = "$(wc -l </tmp/phase/top)" ] ||
		fail "$(wc -l </tmp/nokey) no-key names in $enc, expected $(wc -l </tmp/phase/top)"
	grep -x -F -f /tmp/phase/top /tmp/nokey && fail "plaintext names without the key"
	expect_enokey touch "$enc/new-without-key"
fi

# check_crash_tree: $enc holds the reference tree: names, types, link
# counts, symlink targets, contents, the hard link; every entry encrypted
# with the directory's policy, and the data extents encrypted.
check_crash_tree() {
	tree_shape "$enc" >/tmp/shape.b
	cmp -s /tmp/phase/shape /tmp/shape.b || {
		diff /tmp/phase/shape /tmp/shape.b | head -20
		fail "the names below $enc differ from the reference tree"
	}
	digests "$enc" >/tmp/digests.b
	cmp -s /tmp/phase/digests /tmp/digests.b || {
		diff /tmp/phase/digests /tmp/digests.b | head -20
		fail "contents below $enc differ from the reference tree"
	}
	[ "$(readlink "$enc/sub/longlink")" = "$E2E_LONG_TARGET" ] || fail "long symlink target"
	[ "$(sha256sum <"$enc/link" | cut -d ' ' -f 1)" = "$(awk '$2 == "./a" { print $1 }' /tmp/phase/digests)" ] ||
		fail "reading through the symlink"
	[ "$(stat -c %i "$enc/a")" = "$(stat -c %i "$enc/sub/hard-a")" ] ||
		fail "the hard link is not the same inode"
	find "$enc" -type f -o -type d >/tmp/entries
	while ! is_plain && read -r p; do
		fscrypt-ioctl get-flags "$p" | grep -q ' encrypt$' || fail "$p: no encrypt flag"
		fscrypt-ioctl get-policy "$p" | cmp -s /tmp/phase/policy - || fail "$p: another policy"
	done </tmp/entries
	for f in a committed "$(grep '^long-' /tmp/phase/top)" c-renamed sub/x sub/moved sub/new/z; do
		encrypted_extents "$enc/$f"
	done
	echo "ok: $enc: $(wc -l </tmp/shape.b) entries as in the reference, encrypted"
}

step "with the key: every fsync'd file, name and link"
e2e_add_key
check_crash_tree
[ ! -e "$enc/gone" ] && [ ! -e "$enc/to-move" ] && [ ! -e "$enc/c" ] ||
	fail "a removed or renamed name is back"
no_csum_errors "log replay"

step "after a clean remount"
e2e_umount
dmesg_mark
e2e_mount
dmesg_since | grep -q 'start tree-log replay' && fail "a second log replay"
e2e_add_key
check_crash_tree
e2e_umount

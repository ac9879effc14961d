# SPDX-License-Identifier: GPL-2.0
# BTRFS_IOC_FSCRYPT_RAW, LINK and RENAME (patch 41): the names of a raw
# send stream replayed without the key, as raw receive will replay them.
# The source: an encrypted subvolume (evol, its root directory encrypted,
# so that its orphans have 63-byte stored names) and an encrypted directory
# in a plain subvolume (vol/enc, plain orphan names moved into it), each
# with the reference tree (hard link, symlinks), a fifo and a 255-byte name;
# then, for an incremental stream, a name swap, a directory move, a hard
# link added and one removed, a 255-byte rename, a symlink replaced, a new
# and a removed file. On a second filesystem without the key, the creations
# of "btrfs send --raw --no-data" go through raw-create, its renames through
# raw-rename, its links through raw-link, its removals and modes through
# plain calls; the no-key tree (names, types, modes, link counts, symlink
# targets) and the directory nonces must equal the source's after the full
# stream and after the incremental one. With the key added, the plaintext
# tree and the files' nonces too. Refused, with their errnos: uid 1000,
# another policy's directory and an unencrypted inode into an encrypted
# directory (with a message), an existing name, a directory into its own
# subtree, a 15-byte ciphertext name, "..", a directory linked, a subvolume
# moved, an entry of another filesystem, a read-only snapshot. btrfs check
# passes on both filesystems.
. /lib/test.sh
E2E_FS=btrfs

e2e_begin
e2e_make_ref 1 4096 20000
umask 022
R=/mnt/r

# hex N: N random bytes in hex.
hex() { head -c "$1" /dev/urandom | xxd -p | tr -d '\n'; }

# nonces DIR [files]: "PATH NONCE" of the directories below DIR, and with
# "files" of its regular files too (which cannot be opened without the key).
nonces() {
	(cd "$1" && find . \( -type d -o -type f \) | sort | while read -r p; do
		[ -d "$p" ] || [ -n "${2:-}" ] || continue
		n=$(fscrypt-ioctl get-nonce "$p" 2>/dev/null) || n=unencrypted
		echo "$p $n"
	done)
}

# fill DIR: the reference tree, a fifo and a 255-byte name.
fill() {
	e2e_copy_ref "$1"
	mkfifo "$1/fifo"
	echo long >"$1/$(name_of_length 255 n)"
	chmod 0700 "$1/d1"
}

# change DIR: the changes of the incremental stream.
change() {
	mv "$1/f1" "$1/tmp" && mv "$1/f4096" "$1/f1" && mv "$1/tmp" "$1/f4096"
	mkdir "$1/moved"
	mv "$1/d1/d2" "$1/moved/"
	ln "$1/f20000" "$1/moved/hard2"
	rm "$1/moved/d2/hard"
	mv "$1/d1/longlink" "$1/$(name_of_length 255 m)"
	rm "$1/link" && ln -s moved/d2/d3/nested "$1/link"
	echo new >"$1/new"
	rm "$1/$(name_of_length 255 n)"
}

# replay DUMP PREFIX DEST: the namespace commands of the raw stream dumped in
# DUMP (its subvolume's paths start with PREFIX) made again below DEST with
# raw-create, raw-rename, raw-link, rm, rmdir and chmod, without the key (a
# fifo under a plain name, which is not encrypted, with mkfifo). A
# new subvolume's root context goes on DEST with raw-set-context; data,
# sizes, times and owners are not replayed.
replay() {
	while read -r cmd path rest; do
		rel=${path#"$2"}
		rel=${rel#/}
		dir=$3/${rel%/*}
		[ "$rel" != "${rel%/*}" ] || dir=$3
		name=$(field "$rest" fscrypt_name)
		[ -n "$name" ] || name=$(printf %s "${rel##*/}" | xxd -p | tr -d '\n')
		ctx=$(field "$rest" fscrypt_context)
		case $cmd in
		subvol)
			[ -z "$ctx" ] || fscrypt-ioctl raw-set-context "$3" "$ctx" ||
				fail "raw-set-context of the root context on $3" ;;
		mkfifo)
			if [ -z "$(field "$rest" fscrypt_name)" ]; then
				# A plain name, unencrypted: made with the usual call
				mkfifo "$dir/${rel##*/}" || fail "mkfifo $path"
			else
				fscrypt-ioctl raw-create "$dir" fifo "$name" || fail "raw-create $cmd $path"
			fi ;;
		mkfile|mkdir|symlink)
			type=$(echo "$cmd" | sed 's/mkfile/reg/; s/mkdir/dir/; s/symlink/lnk/')
			sym=$(field "$rest" fscrypt_symlink)
			fscrypt-ioctl raw-create "$dir" "$type" "$name" \
				${ctx:+--ctx="$ctx"} ${sym:+--symlink="$sym"} ||
				fail "raw-create $cmd $path" ;;
		rename)
			to=$(field "$rest" dest)
			to=${to#"$2"/}
			tdir=$3/${to%/*}
			[ "$to" != "${to%/*}" ] || tdir=$3
			tname=$(field "$rest" fscrypt_name_to)
			[ -n "$tname" ] || tname=$(printf %s "${to##*/}" | xxd -p | tr -d '\n')
			fscrypt-ioctl raw-rename "$tdir" "$3/$rel" "$tname" ||
				fail "raw-rename $path to $to" ;;
		link)
			fscrypt-ioctl raw-link "$dir" "$3/$(field "$rest" dest)" "$name" ||
				fail "raw-link $path" ;;
		unlink) rm "$3/$rel" || fail "unlink $path" ;;
		rmdir) rmdir "$3/$rel" || fail "rmdir $path" ;;
		chmod) chmod "$(field "$rest" mode)" "$3/$rel" || fail "chmod $path" ;;
		esac
	done <"$1"
}

# count WHAT DUMP: the number of WHAT commands in DUMP.
count() { awk -v c="$1" '$1 == c { n++ } END { print n + 0 }' "$2"; }

step "source on $DISK1: evol and vol/enc, snapshots before and after changes"
btrfs subvolume create "$MNT/evol" >/dev/null
fscrypt-ioctl set-policy "$MNT/evol" "$KEYID"
fill "$MNT/evol"
btrfs subvolume create "$MNT/vol" >/dev/null
e2e_encrypt "$MNT/vol/enc"
fill "$MNT/vol/enc"
mkdir "$MNT/snaps"
for s in evol vol; do
	btrfs subvolume snapshot -r "$MNT/$s" "$MNT/snaps/$s.1" >/dev/null
done
change "$MNT/evol"
change "$MNT/vol/enc"
for s in evol vol; do
	btrfs subvolume snapshot -r "$MNT/$s" "$MNT/snaps/$s.2" >/dev/null
	tree_modes "$MNT/snaps/$s.2" >"/tmp/rr.$s.2.plain"
	nonces "$MNT/snaps/$s.2" files >"/tmp/rr.$s.2.nonces"
done
e2e_remove_key
for s in evol vol; do
	for n in 1 2; do
		tree_modes "$MNT/snaps/$s.$n" >"/tmp/rr.$s.$n.nokey"
		nonces "$MNT/snaps/$s.$n" >"/tmp/rr.$s.$n.dnonces"
	done
	btrfs send -q --raw --no-data -f "/tmp/rr.$s.1.stream" "$MNT/snaps/$s.1" 2>/tmp/rr.err ||
		fail "send --raw of $s.1: $(cat /tmp/rr.err)"
	btrfs send -q --raw --no-data -p "$MNT/snaps/$s.1" -f "/tmp/rr.$s.2.stream" \
		"$MNT/snaps/$s.2" 2>/tmp/rr.err || fail "send --raw -p of $s.2: $(cat /tmp/rr.err)"
	for n in 1 2; do
		btrfs receive --dump -f "/tmp/rr.$s.$n.stream" >"/tmp/rr.$s.$n.dump" ||
			fail "receive --dump of $s.$n"
	done
done
# The incremental streams swap names through an orphan, link and unlink.
for s in evol vol; do
	d=/tmp/rr.$s.2.dump
	[ "$(count rename "$d")" -ge 5 ] && [ "$(count link "$d")" -ge 1 ] &&
		[ "$(count unlink "$d")" -ge 2 ] || fail "$s.2: not the renames, links and unlinks expected: $(cut -c1-60 "$d")"
	grep -q "^rename .* dest=[^ ]*/o[0-9]" "$d" ||
		grep -q "^rename .* fscrypt_name_to_len=63 " "$d" || fail "$s.2: no rename to an orphan"
done
grep -q "^rename .* fscrypt_name_to_len=63 " /tmp/rr.evol.2.dump ||
	fail "evol.2: no 63-byte orphan name"
echo "ok: the incremental streams move entries through orphans, add and remove links"

step "replayed on $DISK2 without the key"
mkfs_btrfs_encrypt "$DISK2"
mount_btrfs "$DISK2" "$R"
mkdir "$R/evol" "$R/vol"
for s in evol vol; do
	replay "/tmp/rr.$s.1.dump" "./$s.1" "$R/$s"
	tree_modes "$R/$s" >/tmp/rr.dst
	same "$s.1 without the key: names, types, modes, links or targets" "/tmp/rr.$s.1.nokey" /tmp/rr.dst
	nonces "$R/$s" >/tmp/rr.dst
	same "$s.1: directory nonces" "/tmp/rr.$s.1.dnonces" /tmp/rr.dst
	replay "/tmp/rr.$s.2.dump" "./$s.2" "$R/$s"
	tree_modes "$R/$s" >/tmp/rr.dst
	same "$s.2 without the key: names, types, modes, links or targets" "/tmp/rr.$s.2.nokey" /tmp/rr.dst
	nonces "$R/$s" >/tmp/rr.dst
	same "$s.2: directory nonces" "/tmp/rr.$s.2.dnonces" /tmp/rr.dst
	echo "ok: $s.1 then $s.2 replayed without the key: $(wc -l </tmp/rr.dst) directories, same no-key tree"
done

step "refused: LINK and RENAME"
enc=$R/vol/enc
# A context of enc's policy with a new nonce (one of its files' with
# another nonce), and one of another key.
ctx=$(field "$(grep -m 1 '^mkfile' /tmp/rr.vol.1.dump)" fscrypt_context)
newctx=$(echo "$ctx" | cut -c1-48)$(hex 16)
otherctx=$(echo "$ctx" | cut -c1-16)$(hex 16)$(hex 16)
fscrypt-ioctl raw-create "$R/vol" dir "$(printf other | xxd -p)" --ctx="$otherctx" ||
	fail "raw-create of a directory of another key"
# Two new files of enc with known stored names: n1 at its no-key name $f.
ls "$enc" >/tmp/rr.before
n1=$(hex 32)
fscrypt-ioctl raw-create "$enc" reg "$n1" --ctx="$newctx" || fail "raw-create in enc"
f=$(ls "$enc" | grep -vxF -f /tmp/rr.before)
[ "$(echo "$f" | wc -w)" = 1 ] || fail "not one new entry in enc: $f"
n2=$(hex 32)
fscrypt-ioctl raw-link "$enc" "$enc/$f" "$n2" || fail "raw-link in enc"
[ "$(stat -c %h "$enc/$f")" = 2 ] || fail "raw-link: link count $(stat -c %h "$enc/$f")"
expect_errno_user EPERM raw-rename "$enc" "$enc/$f" "$(hex 32)"
dmesg_mark
expect_errno EXDEV raw-rename "$R/vol/other" "$enc/$f" "$(hex 32)"
expect_kmsg "not of the encryption policy of directory"
expect_errno EXDEV raw-link "$R/vol/other" "$enc/$f" "$(hex 32)"
echo plain >"$R/vol/plain"
expect_errno EXDEV raw-rename "$enc" "$R/vol/plain" "$(hex 32)"
expect_errno EEXIST raw-rename "$enc" "$enc/$f" "$n2"
expect_errno EEXIST raw-link "$enc" "$enc/$f" "$n1"
sub=$(for n in $(ls "$enc"); do [ -d "$enc/$n" ] && [ ! -L "$enc/$n" ] && echo "$n"; done | head -n 1)
[ -n "$sub" ] || fail "no directory in $enc"
expect_errno EINVAL raw-rename "$enc/$sub" "$enc/$sub" "$(hex 32)"
expect_errno EINVAL raw-rename "$enc" "$enc/$f" "$(hex 15)"
expect_errno EINVAL raw-rename "$R/vol" "$R/vol/plain" "$(printf .. | xxd -p)"
expect_errno EPERM raw-link "$enc" "$enc/$sub" "$(hex 32)"
btrfs subvolume create "$R/vol/sv" >/dev/null
expect_errno EINVAL raw-rename "$R/vol" "$R/vol/sv" "$(printf sv2 | xxd -p)"
mkfs_btrfs_encrypt "$DISK3"
mount_btrfs "$DISK3" /mnt/p
expect_errno EXDEV raw-rename /mnt/p "$R/vol/plain" "$(printf p | xxd -p)"
umount /mnt/p
btrfs subvolume snapshot -r "$R" "$R/ro" >/dev/null
expect_errno EROFS raw-rename "$R/ro/vol" "$R/ro/vol/plain" "$(printf p2 | xxd -p)"
# A rename out of the encrypted directory and back, under its stored name
n3=$(hex 32)
fscrypt-ioctl raw-rename "$R/vol" "$enc/$f" "$(printf out | xxd -p)" || fail "raw-rename out of enc"
[ -f "$R/vol/out" ] && [ ! -e "$enc/$f" ] || fail "raw-rename out of enc: $(ls "$R/vol")"
fscrypt-ioctl raw-rename "$enc" "$R/vol/out" "$n3" || fail "raw-rename back into enc"
[ ! -e "$R/vol/out" ] || fail "raw-rename back into enc left vol/out"
ls "$enc" | grep -vxF -f /tmp/rr.before >/tmp/rr.new
[ "$(wc -l </tmp/rr.new)" = 2 ] || fail "not two new names in enc: $(cat /tmp/rr.new)"
while read -r n; do rm "$enc/$n"; done </tmp/rr.new
rm -r "$R/vol/other" "$R/vol/plain"
btrfs subvolume delete "$R/vol/sv" >/dev/null
for s in evol vol; do
	tree_modes "$R/$s" >/tmp/rr.dst
	same "$s after the refusals" "/tmp/rr.$s.2.nokey" /tmp/rr.dst
done
echo "ok: uid 1000, other policies, existing names, loops, bad names, a directory link, a subvolume, another filesystem and a read-only snapshot are refused"

step "with the key: plaintext names and nonces"
[ "$(fscrypt-ioctl add-key "$R" <"$E2E_KEY")" = "$KEYID" ] || fail "add-key on $R: not key $KEYID"
# No drop_caches: the no-key names of the entries made, linked and moved
# without the key must not resolve any more.
awk '$3 != "." { print $3 }' /tmp/rr.evol.2.nokey >/tmp/rr.paths
while read -r p; do
	[ ! -e "$R/evol/$p" ] && [ ! -L "$R/evol/$p" ] || fail "no-key path $p resolves with the key"
done </tmp/rr.paths
echo "ok: the $(wc -l </tmp/rr.paths) no-key paths of evol no longer resolve"
for s in evol vol; do
	tree_modes "$R/$s" >/tmp/rr.dst
	same "$s with the key" "/tmp/rr.$s.2.plain" /tmp/rr.dst
	nonces "$R/$s" files >/tmp/rr.dst
	same "$s nonces with the key" "/tmp/rr.$s.2.nonces" /tmp/rr.dst
done
echo "ok: with the key, evol and vol show the source's plaintext names, modes, links, targets and nonces"

step "btrfs check of both filesystems"
umount "$R"
btrfs check --readonly "$DISK2" >/tmp/check 2>&1 || fail "btrfs check $DISK2: $(tail -n 5 /tmp/check)"
e2e_umount
btrfs check --readonly "$DISK1" >/tmp/check 2>&1 || fail "btrfs check $DISK1: $(tail -n 5 /tmp/check)"
echo "ok: btrfs check finds no error on either disk"
no_csum_errors

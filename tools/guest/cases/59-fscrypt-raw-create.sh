# SPDX-License-Identifier: GPL-2.0
# BTRFS_IOC_FSCRYPT_RAW, SET_CONTEXT and CREATE (patch 39): encrypted
# entries made again, without their key, from what a raw send stream
# carries. On $DISK1, vol/enc holds an empty file, a directory with a file,
# a 255-byte name, a short and a long symlink to marker targets, a fifo, a
# character device (the test kernel has no AF_UNIX, so no socket), and
# vol/enc2 a file; "btrfs send --raw --no-data" of a read-only snapshot
# gives each inode's type, context, stored name, stored symlink target,
# permissions and device, and its no-key path. On a fresh filesystem
# ($DISK2) with no key added, raw-create makes them again under their
# parents' no-key paths (enc2 with mkdir and raw-set-context). Without the
# key, the no-key names, types, permissions, devices, symlink targets and
# directory nonces are the source's; once the key is added (the dentries
# made without it give way to plaintext ones, no drop_caches), the plaintext
# names, symlink targets and the nonces of files too, and a raw create with
# the key present shows its plaintext name and refuses a random ciphertext.
# Refused, with their errnos: a caller without CAP_SYS_ADMIN, a filesystem
# without the encrypt feature, a read-only snapshot; SET_CONTEXT on a file,
# a non-empty directory, a subvolume's root (with a message), over another
# context, with an invalid one (with a message); CREATE with another key's
# context (with a message), a name of 0, 15 or 256 bytes, a missing or extra
# context, a fifo with a device, a symlink length that does not match, a
# symlink target too long, an existing name (also after drop_caches);
# nonzero flags or reserved words, an unknown op. SUBVOL and SNAPSHOT
# (patch 44) make encrypted subvolumes, flagged, named as stored in an
# encrypted directory and by a plain name in a plain one, and refuse another
# key's context (with a message), no context, bad and existing names, a
# read-only parent, a snapshot of an unencrypted subvolume into an
# encrypted directory (with a message) or into an unencrypted one, and a
# source that is not a subvolume. btrfs check passes on the rebuilt filesystem.
. /lib/test.sh
E2E_FS=btrfs

e2e_begin
# The source is made under umask 022: its modes come out the same whether
# raw-create applies the umask or not.
umask 022
rnd=$(head -c 8 /dev/urandom | xxd -p)
target=MARKERrawtarget$rnd
long_target=$(name_of_length 180 t)/$target
R=/mnt/r

# hex N: N random bytes in hex.
hex() { head -c "$1" /dev/urandom | xxd -p | tr -d '\n'; }

# shape DIR: one line per entry of enc and enc2 below DIR (them included),
# by path: its type, permissions and device numbers, a symlink's target.
shape() {
	(cd "$1" && find enc enc2 | sort | while read -r p; do
		t=
		[ ! -L "$p" ] || t=" -> $(readlink "$p")"
		echo "$(stat -c '%F %a %t:%T' "$p") $p$t"
	done)
}

# nonces DIR [files]: "PATH NONCE" of the directories of shape DIR, and with
# "files" of its regular files too (which cannot be opened without the key).
nonces() {
	(cd "$1" && find enc enc2 \( -type d -o -type f \) | sort | while read -r p; do
		[ -d "$p" ] || [ -n "${2:-}" ] || continue
		echo "$p $(fscrypt-ioctl get-nonce "$p")"
	done)
}

step "source: vol/enc and vol/enc2 on $DISK1, read-only snapshot"
btrfs subvolume create "$MNT/vol" >/dev/null
e=$MNT/vol/enc
e2e_encrypt "$e"
: >"$e/file"
mkdir "$e/d"
: >"$e/d/g"
: >"$e/$(name_of_length 255 n)"
ln -s "$target" "$e/sym"
ln -s "$long_target" "$e/longsym"
mkfifo "$e/fifo"
mknod "$e/null" c 1 3
e2e_encrypt "$MNT/vol/enc2"
: >"$MNT/vol/enc2/f"
btrfs subvolume snapshot -r "$MNT/vol" "$MNT/vol-ro" >/dev/null
shape "$MNT/vol-ro" >/tmp/src.shape
nonces "$MNT/vol-ro" files >/tmp/src.nonces
e2e_remove_key
shape "$MNT/vol-ro" >/tmp/src.nokey.shape
nonces "$MNT/vol-ro" >/tmp/src.nokey.nonces
btrfs send -q --raw --no-data -f /tmp/vol.stream "$MNT/vol-ro" 2>/tmp/send.err ||
	fail "btrfs send --raw --no-data: $(cat /tmp/send.err)"
btrfs receive --dump -f /tmp/vol.stream >/tmp/vol.dump || fail "receive --dump of the raw stream"

step "the inodes of the stream: where they end up, stored names, contexts"
# entries DUMP: one line per inode that DUMP creates, parents first:
# "DEPTH TYPE PATH NAME CTX SYMLINK MODE DEV". PATH is where it ends up (the
# destination of the rename from its orphan name: a no-key path), NAME its
# stored name in hex (from that rename, or from its creation when it has
# none; - under the plain root), CTX its context, SYMLINK its stored target,
# MODE its permissions (chmod; none for symlinks), DEV its device (mknod);
# TYPE a type of raw-create; - for what it has not.
entries() {
	awk 'function field(k, i) {
		for (i = 3; i <= NF; i++)
			if (index($i, k "=") == 1)
				return substr($i, length(k) + 2)
		return "-"
	}
	BEGIN { t["mkfile"] = "reg"; t["mkdir"] = "dir"; t["symlink"] = "lnk"
		t["mkfifo"] = "fifo"; t["mksock"] = "sock" }
	$1 ~ /^(mkfile|mkdir|symlink|mkfifo|mksock|mknod)$/ {
		n++; at[$2] = n; path[n] = $2; name[n] = field("fscrypt_name")
		ctx[n] = field("fscrypt_context"); sym[n] = field("fscrypt_symlink")
		type[n] = t[$1]; dev[n] = "-"
		if ($1 == "mknod") {
			type[n] = field("mode") ~ /^6/ ? "blk" : "chr"; dev[n] = field("dev")
		}
	}
	$1 == "rename" && ($2 in at) { path[at[$2]] = field("dest"); name[at[$2]] = field("fscrypt_name_to") }
	$1 == "chmod" { mode[$2] = field("mode") }
	END {
		for (i = 1; i <= n; i++) {
			p = path[i]
			m = (p in mode) ? mode[p] : "-"
			print gsub("/", "/", p), type[i], path[i], name[i], ctx[i], sym[i], m, dev[i]
		}
	}' "$1" | sort -n
}
entries /tmp/vol.dump >/tmp/entries
cat /tmp/entries
[ "$(awk '{ print $2 }' /tmp/entries | sort | uniq -c | awk '{ printf "%s%s ", $1, $2 }')" = \
	"1chr 3dir 1fifo 2lnk 4reg " ] || fail "not the 11 inodes of enc and enc2 in the stream"
# Below enc and enc2 every entry has a stored name; files, directories and
# symlinks have a context of 40 bytes and the key, other inodes none.
awk -v key="$KEYID" '$1 > 2 && $4 == "-" { print "no stored name: " $0 }
	$2 ~ /^(reg|dir|lnk)$/ && (length($5) != 80 || substr($5, 17, 32) != key) { print "context: " $0 }
	$2 !~ /^(reg|dir|lnk)$/ && $5 != "-" { print "a context: " $0 }' /tmp/entries >/tmp/entries.bad
[ ! -s /tmp/entries.bad ] || fail "$(head -n 3 /tmp/entries.bad)"
[ "$(awk '$1 == 2 { print $3 }' /tmp/entries | sort | tr '\n' ' ')" = "./vol-ro/enc ./vol-ro/enc2 " ] ||
	fail "enc and enc2 do not end up below the plain root"
echo "ok: the stream creates the 11 inodes of enc and enc2, with their stored names and contexts"

step "rebuilt on $DISK2 without the key"
mkfs_btrfs_encrypt "$DISK2"
mount_btrfs "$DISK2" "$R"
mkdir "$R/vol-ro"
# rebuild: each inode of /tmp/entries made again below $R with raw-create,
# in its parent's no-key path; enc2 with mkdir and raw-set-context. Its path
# is looked up first: the negative dentry cached then must not hide it.
rebuild() {
	while read -r depth type path name ctx sym mode dev; do
		rel=${path#./}
		opts=
		[ "$ctx" = - ] || opts="--ctx=$ctx"
		[ "$sym" = - ] || opts="$opts --symlink=$sym"
		[ "$mode" = - ] || opts="$opts --mode=$mode"
		if [ "$dev" != - ]; then
			dev=$((dev))
			opts="$opts --rdev=$(((dev >> 8) & 0xfff)):$(((dev & 0xff) | ((dev >> 12) & 0xfff00)))"
		fi
		[ "$name" != - ] || name=$(printf %s "${rel##*/}" | xxd -p | tr -d '\n')
		[ ! -e "$R/$rel" ] || fail "$path exists before it is made"
		if [ "$rel" = vol-ro/enc2 ]; then
			mkdir "$R/$rel"
			fscrypt-ioctl raw-set-context "$R/$rel" "$ctx" || fail "raw-set-context $rel"
		else
			# shellcheck disable=SC2086 # opts: options without spaces
			fscrypt-ioctl raw-create "$R/${rel%/*}" "$type" "$name" $opts ||
				fail "raw-create of $type $path (depth $depth)"
		fi
		[ -e "$R/$rel" ] || [ -L "$R/$rel" ] || fail "$path is not there once made"
	done </tmp/entries
}
rebuild
shape "$R/vol-ro" >/tmp/dst.nokey.shape
same "no-key names, types, permissions, devices or symlink targets" /tmp/src.nokey.shape /tmp/dst.nokey.shape
nonces "$R/vol-ro" >/tmp/dst.nokey.nonces
same "directory nonces without the key" /tmp/src.nokey.nonces /tmp/dst.nokey.nonces
echo "ok: without the key, the $(wc -l </tmp/dst.nokey.shape) entries have the source's no-key names, types, permissions, devices and symlink targets, and the directories its nonces"

step "refused: no CAP_SYS_ADMIN, no encrypt feature, a read-only snapshot"
# ctx_of PATH: the context of the entry of /tmp/entries that ends up at PATH.
ctx_of() { awk -v p="$1" '$3 == p { print $5 }' /tmp/entries; }
encctx=$(ctx_of ./vol-ro/enc)
# A context of enc's policy with a new nonce, and one of another key.
newctx=$(echo "$encctx" | cut -c1-48)$(hex 16)
otherctx=$(echo "$encctx" | cut -c1-16)$(hex 16)$(hex 16)
mkdir "$R/vol-ro/empty"
expect_errno_user EPERM raw-set-context "$R/vol-ro/empty" "$newctx"
mkfs_btrfs "$DISK3"
mount_btrfs "$DISK3" /mnt/p
mkdir /mnt/p/d
dmesg_mark
expect_errno EOPNOTSUPP raw-set-context /mnt/p/d "$newctx"
expect_kmsg "encryption is not enabled"
expect_errno EOPNOTSUPP raw-create /mnt/p dir "$(printf e | xxd -p)" --ctx="$newctx"
umount /mnt/p
# The same context again would succeed on a writable enc.
expect_errno EROFS raw-set-context "$MNT/vol-ro/enc" "$encctx"
expect_errno EROFS raw-create "$MNT/vol-ro/enc" reg "$(hex 32)" --ctx="$newctx"

step "refused: SET_CONTEXT"
echo plain >"$R/vol-ro/plain"
expect_errno ENOTDIR raw-set-context "$R/vol-ro/plain" "$newctx"
mkdir "$R/vol-ro/full"
: >"$R/vol-ro/full/x"
expect_errno ENOTEMPTY raw-set-context "$R/vol-ro/full" "$newctx"
btrfs subvolume create "$R/sv" >/dev/null
sv=$(btrfs inspect-internal rootid "$R/sv")
dmesg_mark
expect_errno EINVAL raw-set-context "$R/sv" "$newctx"
expect_kmsg "raw: cannot set a context on the root directory of subvolume $sv"
expect_errno EEXIST raw-set-context "$R/vol-ro/enc" "$newctx"
fscrypt-ioctl raw-set-context "$R/vol-ro/enc" "$encctx" || fail "raw-set-context of enc's own context"
dmesg_mark
expect_errno EINVAL raw-set-context "$R/vol-ro/empty" "$(echo "$newctx" | cut -c1-78)"
expect_kmsg "Refusing an unrecognized or unsupported encryption context (39 bytes)"
expect_errno EINVAL raw-set-context "$R/vol-ro/empty" ""
expect_errno EINVAL raw-set-context "$R/vol-ro/empty" "${newctx}00"
echo "ok: SET_CONTEXT refuses a file, a non-empty directory, a subvolume root, another context and invalid ones; enc's own context is taken"

step "refused: CREATE"
enc=$R/vol-ro/enc
dmesg_mark
expect_errno EXDEV raw-create "$enc" reg "$(hex 32)" --ctx="$otherctx"
expect_kmsg "Refusing an encryption context of another policy than its directory's"
expect_errno EINVAL raw-create "$enc" reg "" --ctx="$newctx"
expect_errno EINVAL raw-create "$enc" reg "$(hex 15)" --ctx="$newctx"
expect_errno ENAMETOOLONG raw-create "$enc" reg "$(hex 256)" --ctx="$newctx"
expect_errno EINVAL raw-create "$enc" reg "$(hex 32)"
expect_errno EINVAL raw-create "$enc" fifo "$(hex 32)" --ctx="$newctx"
expect_errno EINVAL raw-create "$enc" fifo "$(hex 32)" --rdev=1:3
# A le16 of 33 before 32 bytes of target; a target of 32000 bytes.
expect_errno EINVAL raw-create "$enc" lnk "$(hex 32)" --ctx="$newctx" --symlink="2100$(hex 32)"
expect_errno ENAMETOOLONG raw-create "$enc" lnk "$(hex 32)" --ctx="$newctx" --symlink="007d$(hex 32000)"
# The stored name and context of a file of enc.
awk '$2 == "reg" && $1 == 3 && index($3, "./vol-ro/enc/") == 1 { print $4, $5; exit }' \
	/tmp/entries >/tmp/exists
read -r exname exctx </tmp/exists
expect_errno EEXIST raw-create "$enc" reg "$exname" --ctx="$exctx"
drop_caches
expect_errno EEXIST raw-create "$enc" reg "$exname" --ctx="$exctx"
expect_errno EINVAL raw-op "$enc" 2 --flags=1
expect_errno EINVAL raw-op "$enc" 2 --reserved=1
expect_errno EOPNOTSUPP raw-op "$enc" 99
# Nothing was made; the no-key dentries are back in the cache.
shape "$R/vol-ro" >/tmp/dst.nokey.shape
same "entries after the refusals" /tmp/src.nokey.shape /tmp/dst.nokey.shape
echo "ok: CREATE refuses another key, bad names, contexts, devices and symlinks, an existing name, flags, reserved words and op 99"

step "SUBVOL and SNAPSHOT without the key"
# In a directory of enc's policy, outside vol-ro: subvolumes given a context
# of that policy, and a snapshot of one, named as stored.
mkdir "$R/s"
fscrypt-ioctl raw-set-context "$R/s" "$(echo "$encctx" | cut -c1-48)$(hex 16)" || fail "raw-set-context s"
fscrypt-ioctl raw-subvol "$R/s" "$(hex 32)" --ctx="$newctx" || fail "raw-subvol in s"
subvol=$R/s/$(ls "$R/s")
[ "$(stat -c %i "$subvol")" = 256 ] || fail "$subvol is not a subvolume"
fscrypt-ioctl get-policy "$subvol" >/dev/null || fail "$subvol has no policy"
: >"$R/sv/f"
fscrypt-ioctl raw-snapshot "$R/s" "$subvol" "$(hex 32)" || fail "raw-snapshot in s"
[ "$(ls "$R/s" | wc -l)" = 2 ] || fail "s: $(ls "$R/s")"
# A plain name in an unencrypted directory: an encrypted subvolume
fscrypt-ioctl raw-subvol "$R" "$(printf esv | xxd -p)" --ctx="$newctx" || fail "raw-subvol esv"
fscrypt-ioctl get-policy "$R/esv" >/dev/null || fail "esv has no policy"
sync
btrfs inspect-internal dump-tree -t root "$DISK2" >/tmp/roots
[ "$(grep -c "SUBVOL_FSCRYPT" /tmp/roots)" = 3 ] ||
	fail "expected 3 encrypted subvolumes (two in s, esv): $(grep -E 'flags 0x' /tmp/roots)"
echo "ok: raw subvolumes and a snapshot in an encrypted directory, and an encrypted subvolume in a plain one, all flagged encrypted"
dmesg_mark
expect_errno EXDEV raw-subvol "$R/s" "$(hex 32)" --ctx="$otherctx"
expect_kmsg "Refusing an encryption context of another policy than its directory's"
expect_errno EINVAL raw-subvol "$R/s" "$(hex 32)"
expect_errno EINVAL raw-subvol "$R" "$(printf psv | xxd -p)"
expect_errno EINVAL raw-subvol "$R/s" "$(hex 15)" --ctx="$newctx"
expect_errno EINVAL raw-subvol "$R" "$(printf 'a/b' | xxd -p)" --ctx="$newctx"
expect_errno EEXIST raw-subvol "$R" "$(printf esv | xxd -p)" --ctx="$newctx"
expect_errno EROFS raw-subvol "$MNT/vol-ro" "$(printf x | xxd -p)"
dmesg_mark
expect_errno EXDEV raw-snapshot "$R/s" "$R/sv" "$(hex 32)"
expect_kmsg "snapshot of unencrypted subvolume"
expect_errno EINVAL raw-snapshot "$R" "$R/sv" "$(printf sv2 | xxd -p)"
expect_errno EINVAL raw-snapshot "$R/s" "$R/vol-ro/enc" "$(hex 32)"
[ "$(ls "$R/s" | wc -l)" = 2 ] || fail "s after the refusals: $(ls "$R/s")"
echo "ok: SUBVOL refuses another key, no context, bad and existing names, a read-only subvolume; SNAPSHOT an unencrypted source in an encrypted directory, an unencrypted destination, a source that is not a subvolume"

step "with the key: plaintext names, symlink targets, devices, nonces"
[ "$(fscrypt-ioctl add-key "$R" <"$E2E_KEY")" = "$KEYID" ] || fail "add-key on $R: not key $KEYID"
# No drop_caches: the no-key dentries cached above must not stay.
shape "$R/vol-ro" >/tmp/dst.shape
same "plaintext names, types, permissions, devices or symlink targets" /tmp/src.shape /tmp/dst.shape
[ "$(readlink "$enc/sym")" = "$target" ] || fail "enc/sym: $(readlink "$enc/sym")"
[ "$(readlink "$enc/longsym")" = "$long_target" ] || fail "enc/longsym: $(readlink "$enc/longsym")"
[ "$(stat -c '%F %t:%T' "$enc/null")" = "character special file 1:3" ] ||
	fail "enc/null: $(stat -c '%F %t:%T' "$enc/null")"
if [ ! -p "$enc/fifo" ] || [ ! -f "$enc/d/g" ]; then
	fail "types below enc: $(ls -lR "$enc")"
fi
nonces "$R/vol-ro" files >/tmp/dst.nonces
same "nonces with the key" /tmp/src.nonces /tmp/dst.nonces
echo "ok: with the key, the names, symlink targets (markers), the device 1:3 and the $(wc -l </tmp/dst.nonces) nonces are the source's"
# With the key present, CREATE takes the stored name that the plaintext
# encrypts to, and the entry shows at once under its plaintext name; a
# ciphertext that is not a name's is refused: 48 random bytes, as names of
# this policy (flags 03: padded to 32 bytes) are 32 or 64 bytes long here.
# (32 random bytes would mostly be a valid name's: one without NUL or '/'.)
line=$(awk '$3 ~ /^\.\/vol-ro\/enc2\// && $2 == "reg"' /tmp/entries)
set -- $line
rm "$R/vol-ro/enc2/f"
fscrypt-ioctl raw-create "$R/vol-ro/enc2" reg "$4" "--ctx=$5" || fail "raw-create with the key present"
[ -f "$R/vol-ro/enc2/f" ] || fail "the entry made with the key present is not enc2/f: $(ls "$R/vol-ro/enc2")"
got=$(fscrypt-ioctl --print-errno raw-create "$R/vol-ro/enc2" reg "$(hex 48)" "--ctx=$5" 2>/dev/null) &&
	fail "raw-create of a random ciphertext with the key present succeeded"
[ "$got" = EINVAL ] || fail "raw-create of a random ciphertext with the key present: $got, expected EINVAL"
echo "ok: with the key present, raw-create makes enc2/f again under its plaintext name and refuses a ciphertext that is not a name's"

step "btrfs check of $DISK2"
umount "$R"
btrfs check --readonly "$DISK2" >/tmp/check 2>&1 || fail "btrfs check: $(tail -n 5 /tmp/check)"
echo "ok: btrfs check finds no error on $DISK2"
no_csum_errors
e2e_umount

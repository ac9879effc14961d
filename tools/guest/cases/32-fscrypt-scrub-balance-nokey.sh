# SPDX-License-Identifier: GPL-2.0
# Scrub and balance need no key: with an encrypted tree written and its key
# removed, "btrfs scrub" finds no errors, a full balance relocates every
# chunk (data, metadata, system) without touching the no-key names, and a
# second scrub is clean. With the key back, each extent has moved to
# another logical address but kept its encryption byte and context, the
# device holds the same ciphertext at the new place, and every file, name
# and link reads back as written, also after a remount.
. /lib/test.sh
# Encryption with the rest of btrfs: on btrfs, whatever E2E_FS says.
E2E_FS=btrfs

e2e_begin
enc=$MNT/enc
e2e_encrypt "$enc"
e2e_make_ref 0 1 4095 4096 65537 1048577 3145728
e2e_copy_ref "$enc"
e2e_check_tree "$enc"
sync

step "the extents and their ciphertext before (as root with the key)"
# extents_of FILE...: "NAME FILE_OFFSET BYTENR NUM_BYTES ENCRYPTION CONTEXT
# SHA256" for each regular extent with data, SHA256 being that of its
# DISK_NUM_BYTES bytes on the device at PHYSICAL.
extents_of() {
	drop_caches
	for f in "$@"; do
		fscrypt-ioctl extents "$enc/$f" | while read -r off type bytenr dnb eoff nb phys ebyte ctx; do
			[ "$type" = reg ] && [ "$bytenr" != 0 ] || continue
			sum=$(read_bytes "$DISK1" "$phys" "$dnb" | sha256sum | cut -d ' ' -f 1)
			echo "$f $off $bytenr $nb $ebyte $ctx $sum"
		done
	done
}
files="f4095 f4096 f65537 f1048577 f3145728 d1/d2/d3/nested"
extents_of $files >/tmp/before
cat /tmp/before
[ "$(wc -l </tmp/before)" -ge 6 ] || fail "only $(wc -l </tmp/before) extents with data"
awk '$5 % 4 != 1 || $6 == "-" { print; bad = 1 } END { exit bad }' /tmp/before ||
	fail "extents without an encryption context"
(cd "$enc" && find . | sort) >/tmp/names.key

step "remove the key"
e2e_remove_key
(cd "$enc" && find . | sort) >/tmp/names.nokey
[ "$(wc -l </tmp/names.nokey)" = "$(wc -l </tmp/names.key)" ] || fail "no-key listing"
grep -q -x './f4096' /tmp/names.nokey && fail "plaintext names without the key"
dmesg_mark

step "scrub without the key"
scrub_clean "$MNT"

step "full balance without the key"
btrfs filesystem df "$MNT"
btrfs balance start --full-balance "$MNT" >/tmp/balance 2>&1 || {
	cat /tmp/balance
	fail "balance failed"
}
cat /tmp/balance
n=$(sed -n 's/.*had to relocate \([0-9]*\) out of.*/\1/p' /tmp/balance)
[ "${n:-0}" -ge 3 ] || fail "the balance relocated ${n:-no} chunks, expected data, metadata and system"
(cd "$enc" && find . | sort) >/tmp/names.after
cmp -s /tmp/names.nokey /tmp/names.after || {
	diff /tmp/names.nokey /tmp/names.after | head
	fail "the no-key names changed with the balance"
}
expect_enokey cat "$enc/$(cd "$enc" && find . -maxdepth 1 -type f | head -n 1)"

step "scrub again without the key"
scrub_clean "$MNT"
no_csum_errors "scrub and balance without the key"

step "with the key: moved extents, same contexts and ciphertext"
e2e_add_key
extents_of $files >/tmp/after
cat /tmp/after
[ "$(wc -l </tmp/after)" = "$(wc -l </tmp/before)" ] || fail "$(wc -l </tmp/after) extents after, $(wc -l </tmp/before) before"
# Joined by file and offset: the bytenr changed, nothing else did.
awk 'NR == FNR { b[$1 " " $2] = $0; next }
     { k = $1 " " $2; if (!(k in b)) { print "new extent " k; bad = 1; next }
       split(b[k], o, " ")
       if (o[3] == $3) { print k ": still at " $3; bad = 1 }
       if (o[4] != $4 || o[5] != $5 || o[6] != $6) { print k ": length, encryption byte or context changed"; bad = 1 }
       if (o[7] != $7) { print k ": other bytes on the device after the move"; bad = 1 } }
     END { exit bad }' /tmp/before /tmp/after || fail "the balance did not move the extents as they were"
echo "ok: every extent moved, with its context and ciphertext"
e2e_check_tree "$enc"
drop_caches
e2e_check_tree "$enc"

step "after a remount"
e2e_umount
e2e_mount
e2e_add_key
e2e_check_tree "$enc"
no_csum_errors
e2e_umount

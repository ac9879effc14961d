# SPDX-License-Identifier: GPL-2.0
# Truncation and holes in encrypted files: a sequence of truncations up and
# down (to sizes that are not block-aligned), hole punches (aligned, not
# aligned, across data and holes, past the end, all of the file) and writes
# beyond the end of the file is applied to an encrypted file and to a
# reference copy in /tmp; after every operation the two read the same,
# from the page cache and from disk, and at the end also after a remount
# with the key. The remaining data extents are encrypted; without the key,
# the file has the reference's size.
. /lib/test.sh
# Encryption with the rest of btrfs: on btrfs, whatever E2E_FS says.
E2E_FS=btrfs

e2e_begin
enc=$MNT/enc
e2e_encrypt "$enc"
mkdir -p "$REF"
dmesg_mark
n=0

# op DESCRIPTION CMD...: CMD FILE on the encrypted file and on the reference
# (FILE is appended as CMD's last argument), then both read the same, from
# the page cache and, after sync and dropping the caches, from disk.
op() {
	what=$1
	shift
	n=$((n + 1))
	"$@" "$enc/f"
	"$@" "$REF/f"
	check "$n: $what"
	drop_caches
	check "$n: $what, from disk"
}
check() {
	[ "$(stat -c %s "$enc/f")" = "$(stat -c %s "$REF/f")" ] ||
		fail "$1: size $(stat -c %s "$enc/f"), expected $(stat -c %s "$REF/f")"
	cmp "$REF/f" "$enc/f" || fail "$1: the encrypted file differs from the reference"
	echo "ok: $1 ($(stat -c %s "$REF/f") bytes)"
}
# write_at OFFSET LENGTH FILE: LENGTH new random bytes (the same for both
# files of an op: made when FILE is the encrypted one) at OFFSET.
write_at() {
	[ "$3" = "$enc/f" ] && random_file /tmp/chunk "$2"
	dd if=/tmp/chunk of="$3" bs=65536 seek="$1" oflag=seek_bytes conv=notrunc 2>/dev/null
}
size() { truncate -s "$1" "$2"; }
punch() { fscrypt-ioctl punch "$3" "$1" "$2"; }

step "truncate up and down, punch holes, write beyond the end"
op "write 300000 bytes" write_at 0 300000
op "truncate up to 1000000" size 1000000
op "truncate down to 123457" size 123457
op "truncate up to 500000 (the old tail reads as zeros)" size 500000
op "write 10000 bytes at 800000, past the end" write_at 800000 10000
op "punch 4096 at 4096" punch 4096 4096
op "punch 20001 at 10000" punch 10000 20001
op "punch 10000 at 795000, across a hole and data" punch 795000 10000
op "write 5000 bytes at 2000, into punched blocks" write_at 2000 5000
op "punch 1000000 at 700000, past the end" punch 700000 1000000
op "truncate down to 4095" size 4095
op "truncate up to 70000" size 70000
op "write 1 byte at 2097152" write_at 2097152 1
op "write 100000 bytes at 60000" write_at 60000 100000
sync
encrypted_extents "$enc/f"
cat /tmp/extents
op "punch all of it" punch 0 2097153
op "write 3000 bytes at 1000 into the hole" write_at 1000 3000
op "truncate down to 0" size 0
op "write 200000 bytes at 0 again" write_at 0 200000
op "truncate down to 199999" size 199999

step "the same in a file fsync'd before each truncation"
# Without drop_caches in between: the truncation works on the cached pages.
random_file "$REF/g" 300000
dd if="$REF/g" of="$enc/g" bs=65536 conv=fsync 2>/dev/null
truncate -s 150001 "$enc/g" "$REF/g"
truncate -s 400000 "$enc/g" "$REF/g"
cmp "$REF/g" "$enc/g" || fail "g after truncations down and up"
fscrypt-ioctl punch "$enc/g" 100 300
fscrypt-ioctl punch "$REF/g" 100 300
cmp "$REF/g" "$enc/g" || fail "g after a punch inside a block"
drop_caches
cmp "$REF/g" "$enc/g" || fail "g from disk"

step "after a remount: without the key, then with it"
e2e_umount
e2e_mount
sizes=$(find "$enc" -type f | xargs stat -c %s | sort -n | tr '\n' ' ')
[ "$sizes" = "$(stat -c %s "$REF/f" "$REF/g" | sort -n | tr '\n' ' ')" ] ||
	fail "sizes without the key: $sizes"
e2e_add_key
check "after the remount"
cmp "$REF/g" "$enc/g" || fail "g after the remount"
encrypted_extents "$enc/f"
encrypted_extents "$enc/g"
no_csum_errors
e2e_umount

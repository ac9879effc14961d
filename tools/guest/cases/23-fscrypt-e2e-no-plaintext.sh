# SPDX-License-Identifier: GPL-2.0
# End to end (E2E_FS, default btrfs): nothing of an encrypted directory is
# on disk in plaintext. Unique markers in file contents (a file under 2 KiB,
# inline on btrfs, and multi-block files, fsync'd or not), in names (files,
# a directory, a long name, a renamed file, a hard link) and in symlink
# targets (short and long) never appear on the raw device after sync and
# unmount, while the markers written in an unencrypted directory of the same
# filesystem (contents and a name) do, which shows that the scan finds them.
# Symlink targets of up to 4095 bytes are either refused or read back.
. /lib/test.sh

mib=128
e2e_begin $mib
enc=$MNT/enc
plain=$MNT/plain
e2e_encrypt "$enc"
mkdir "$plain"

rnd=$(head -c 8 /dev/urandom | xxd -p)
data=MARKERencdata$rnd
name=MARKERencname$rnd
link=MARKERenclink$rnd
pdata=MARKERplaindata$rnd
pname=MARKERplainname$rnd
printf '%s\n' "$data" "$name" "$link" "$pdata" "$pname" >/tmp/markers

step "write markers"
# marker_file FILE BYTES MARKER: FILE of BYTES bytes of MARKER lines.
marker_file() { yes "$3" | head -c "$2" >"$1"; }
marker_file "$enc/small" 1000 "$data"
marker_file "$enc/multi" 262144 "$data"
marker_file /tmp/synced 40000 "$data"
dd if=/tmp/synced of="$enc/synced-$name" conv=fsync 2>/dev/null
mkdir "$enc/dir-$name"
marker_file "$enc/dir-$name/f-$name-$(name_of_length 150 n)" 5000 "$data"
echo x >"$enc/before-$name"
mv "$enc/before-$name" "$enc/renamed-$name"
ln "$enc/small" "$enc/hardlink-$name"
ln -s "$link" "$enc/shortlink"
longlink=$link/$(name_of_length 100 s)/$link/$(name_of_length 100 t)
ln -s "$longlink" "$enc/longlink"
: >/tmp/links.made
for len in 4095 4094 4093 4000; do
	if ln -s "$(name_of_length "$len" L)" "$enc/link$len" 2>/tmp/ln.err; then
		echo "$len" >>/tmp/links.made
	else
		grep -q "too long" /tmp/ln.err || fail "ln -s of $len bytes: $(cat /tmp/ln.err)"
	fi
done
marker_file "$plain/$pname" 1000 "$pdata"
marker_file "$plain/big" 65536 "$pdata"
# Check that the data went in as written.
[ "$(grep -c -x -F "$data" "$enc/multi")" = $((262144 / (${#data} + 1))) ] ||
	fail "$enc/multi does not read back"
[ "$(readlink "$enc/shortlink")" = "$link" ] || fail "short symlink target"
sync
e2e_umount
drop_caches

expect_scan $mib "MARKERplain*"

step "the encrypted files are intact"
e2e_mount
e2e_add_key
cmp "$enc/synced-$name" /tmp/synced || fail "synced file"
[ "$(readlink "$enc/longlink")" = "$longlink" ] || fail "long symlink target"
[ "$(grep -c -x -F "$data" "$enc/dir-$name/f-$name-$(name_of_length 150 n)")" -gt 0 ] ||
	fail "long-named file"

# Whatever target symlink() accepts, readlink() must return, from disk (a new
# symlink's target is cached): it is stored with a 2-byte length and padded,
# so the longest is a few bytes under PATH_MAX (btrfs 4094 bytes, ext4 4093).
while read -r len; do
	[ "$(readlink "$enc/link$len")" = "$(name_of_length "$len" L)" ] ||
		fail "a symlink target of $len bytes was created but does not read back"
	echo "ok: a target of $len bytes reads back"
done </tmp/links.made
[ "$E2E_FS" != btrfs ] || grep -q -x 4094 /tmp/links.made ||
	fail "btrfs refused a symlink target of 4094 bytes"
e2e_umount

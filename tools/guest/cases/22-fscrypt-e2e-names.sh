# SPDX-License-Identifier: GPL-2.0
# End to end (E2E_FS, default btrfs): encrypted names of 1, 16, 17, 149, 150
# and 255 bytes, and 300 names in one directory, are all listed, looked up
# and removed one at a time, with the key by their names and without it by
# their no-key names (names whose ciphertext is over 149 bytes get the
# abbreviated, hashed no-key form); every removal removes exactly that entry.
. /lib/test.sh

e2e_begin
# Two encrypted directories, in the unencrypted root so that their own
# names stay readable without the key.
lens=$MNT/lens
many=$MNT/many
e2e_encrypt "$lens"
e2e_encrypt "$many"

# count DIR: the number of entries in DIR.
count() { ls -A "$1" | wc -l; }

# remove_one DIR NAME: removes DIR/NAME, which must take exactly one entry.
remove_one() {
	before=$(count "$1")
	rm "$1/$2"
	[ ! -e "$1/$2" ] || fail "$1/$2 still there after rm"
	[ "$(count "$1")" = $((before - 1)) ] ||
		fail "removing $2 took $((before - $(count "$1"))) entries from $1"
}

# check_names DIR LIST: DIR holds exactly the names in LIST ("VALUE NAME"
# lines), each a file that contains VALUE.
check_names() {
	awk '{ print $2 }' "$2" | sort >/tmp/names.want
	ls -A "$1" | sort >/tmp/names.got
	cmp -s /tmp/names.want /tmp/names.got || {
		diff /tmp/names.want /tmp/names.got | head -10
		fail "$1: $(wc -l </tmp/names.got) names listed, $(wc -l </tmp/names.want) expected"
	}
	while read -r value name; do
		[ -f "$1/$name" ] || fail "lookup of $name in $1"
		read -r got <"$1/$name"
		[ "$got" = "$value" ] || fail "$1/$name holds '$got', expected '$value'"
	done <"$2"
	echo "ok: $1: $(wc -l <"$2") names listed, looked up and read"
}

step "names of 1, 16, 17, 149, 150 and 255 bytes"
: >/tmp/lens.list
set -- a b c d e f
for len in 1 16 17 149 150 255; do
	name=$(name_of_length "$len" "$1")
	shift
	echo "$len" >"$lens/$name"
	echo "$len $name" >>/tmp/lens.list
done
must_fail touch "$lens/$(name_of_length 256 g)"
check_names "$lens" /tmp/lens.list

step "300 names in one directory, half of them long"
long=$(name_of_length 200 L)
: >/tmp/many.list
i=0
while [ $i -lt 300 ]; do
	name=e$i
	[ $((i % 2)) = 0 ] || name=$name-$long
	echo "$i" >"$many/$name"
	echo "$i $name" >>/tmp/many.list
	i=$((i + 1))
done
check_names "$many" /tmp/many.list

step "remove names with the key"
grep -v -E '^(17|150) ' /tmp/lens.list >/tmp/lens.left
grep -E '^(17|150) ' /tmp/lens.list >/tmp/lens.gone
while read -r value name; do
	remove_one "$lens" "$name"
done </tmp/lens.gone
check_names "$lens" /tmp/lens.left
# Every third entry of many.
awk '$1 % 3 == 0' /tmp/many.list >/tmp/many.gone
awk '$1 % 3 != 0' /tmp/many.list >/tmp/many.left
while read -r value name; do
	remove_one "$many" "$name"
done </tmp/many.gone
check_names "$many" /tmp/many.left

step "without the key: no-key names, looked up and removed"
ls -A -i "$lens" >/tmp/lens.ino
ls -A -i "$many" >/tmp/many.ino
e2e_remove_key
# nokey_names DIR LIST INODES OUT: DIR lists as many no-key names as LIST
# has names, none of them a plaintext name, unique, each of an inode that
# DIR had with the key (INODES: "ls -i" then) and each found by lookup;
# writes "VALUE LENGTH NOKEY-NAME" lines to OUT, LENGTH being that of the
# plaintext name.
nokey_names() {
	ls -A -i "$1" >/tmp/nokey.ino
	[ "$(wc -l </tmp/nokey.ino)" = "$(wc -l <"$2")" ] ||
		fail "$1: $(wc -l </tmp/nokey.ino) no-key names, expected $(wc -l <"$2")"
	[ "$(awk '{ print $2 }' /tmp/nokey.ino | sort -u | wc -l)" = "$(wc -l <"$2")" ] ||
		fail "$1: no-key names are not unique"
	awk 'NR == FNR { plain[$2] = 1; next } $2 in plain { print; bad = 1 }
	     END { exit bad }' "$2" /tmp/nokey.ino || fail "$1: plaintext names listed without the key"
	awk 'FILENAME == ARGV[1] { value[$2] = $1; len[$2] = length($2); next }
	     FILENAME == ARGV[2] { v[$1] = value[$2]; l[$1] = len[$2]; next }
	     !($1 in v) { print "unknown inode " $1 > "/dev/stderr"; bad = 1; next }
	     { print v[$1], l[$1], $2 }
	     END { exit bad }' "$2" "$3" /tmp/nokey.ino >"$4" ||
		fail "$1: the no-key listing has inodes that were not there with the key"
	while read -r value len name; do
		[ -f "$1/$name" ] || fail "lookup of no-key name $name ($len-byte name) in $1"
	done <"$4"
	echo "ok: $1: $(wc -l <"$4") no-key names listed and looked up"
}

# Names whose ciphertext (padded to 32 bytes) is over 149 bytes get the
# abbreviated no-key name: base64url of 189 bytes, 252 characters.
check_nokey_lengths() {
	awk '($2 >= 149) != (length($3) == 252) {
		print "a " $2 "-byte name has a " length($3) "-character no-key name"; bad = 1 }
	     END { exit bad }' "$1" || fail "no-key name lengths"
}

nokey_names "$lens" /tmp/lens.left /tmp/lens.ino /tmp/lens.nokey
cat /tmp/lens.nokey
check_nokey_lengths /tmp/lens.nokey
nokey_names "$many" /tmp/many.left /tmp/many.ino /tmp/many.nokey
check_nokey_lengths /tmp/many.nokey
must_fail cat "$lens/$(awk 'NR == 1 { print $3 }' /tmp/lens.nokey)"

step "remove by no-key name, one at a time"
while read -r value len name; do
	remove_one "$lens" "$name"
done </tmp/lens.nokey
[ "$(count "$lens")" = 0 ] || fail "$lens is not empty"
# The entries of many with a value of 1 modulo 3.
awk '$1 % 3 == 1' /tmp/many.nokey >/tmp/many.nokey.gone
while read -r value len name; do
	remove_one "$many" "$name"
done </tmp/many.nokey.gone
awk '$1 % 3 == 2' /tmp/many.left >/tmp/many.left2
[ "$(count "$many")" = "$(wc -l </tmp/many.left2)" ] || fail "$(count "$many") names left in $many"

step "with the key again: exactly the names not removed"
e2e_add_key
[ "$(count "$lens")" = 0 ] || fail "$lens: $(ls -A "$lens")"
check_names "$many" /tmp/many.left2
rmdir "$lens"
e2e_umount

# SPDX-License-Identifier: GPL-2.0
# End to end (E2E_FS, default btrfs): a DIRECT_KEY policy with Adiantum for
# contents and names holds files, directories and links that read back byte
# for byte, also after a remount; on btrfs, policies with IV_INO_LBLK_64,
# IV_INO_LBLK_32 or version 1 are refused with EINVAL and a kernel message
# (ext4 accepts them: there the case checks that they work); a policy on a
# non-empty directory is refused with ENOTEMPTY.
. /lib/test.sh

e2e_begin
adiantum=$MNT/adiantum
e2e_encrypt "$adiantum" --contents=adiantum --filenames=adiantum --flags=direct_key
cat /tmp/policy
grep -qx "version 2" /tmp/policy || fail "policy version"
grep -qx "contents adiantum" /tmp/policy || fail "contents mode"
grep -qx "filenames adiantum" /tmp/policy || fail "filenames mode"
grep -qx "flags direct_key" /tmp/policy || fail "policy flags"

step "Adiantum, DIRECT_KEY: files, directories and links read back"
e2e_make_ref 0 1 4095 4096 65537 1048577
e2e_copy_ref "$adiantum"
e2e_check_tree "$adiantum"
drop_caches
e2e_check_tree "$adiantum"
e2e_umount
e2e_mount
e2e_add_key
e2e_check_tree "$adiantum"

step "IV_INO_LBLK_64, IV_INO_LBLK_32 and v1 policies"
mkdir "$MNT/lblk64" "$MNT/lblk32" "$MNT/v1"
# A 16-hex-digit key descriptor makes fscrypt-ioctl set a v1 policy, whose
# version byte is FSCRYPT_POLICY_V1 = 0 (--version=1 would be an invalid
# version, refused everywhere).
v1desc=0123456789abcdef
head -c 64 /dev/urandom | fscrypt-ioctl add-key "$MNT" --v1-descriptor=$v1desc
if is_btrfs; then
	dmesg_mark
	expect_errno EINVAL set-policy "$MNT/lblk64" "$KEYID" --flags=iv_ino_lblk_64
	expect_kmsg "Can't use IV_INO_LBLK_64 policy"
	dmesg_mark
	expect_errno EINVAL set-policy "$MNT/lblk32" "$KEYID" --flags=iv_ino_lblk_32
	expect_kmsg "Can't use IV_INO_LBLK_32 policy"
	dmesg_mark
	expect_errno EINVAL set-policy "$MNT/v1" $v1desc
	expect_kmsg "Can't use v1 policy"
	for d in lblk64 lblk32 v1; do
		expect_errno ENODATA get-policy "$MNT/$d"
		echo x >"$MNT/$d/file"
	done
else
	echo "$E2E_FS accepts these policies (btrfs refuses them): check that they work"
	fscrypt-ioctl set-policy "$MNT/lblk64" "$KEYID" --flags=iv_ino_lblk_64
	fscrypt-ioctl get-policy "$MNT/lblk64" | grep -qx "flags iv_ino_lblk_64" || fail "lblk64 policy"
	fscrypt-ioctl set-policy "$MNT/lblk32" "$KEYID" --flags=iv_ino_lblk_32
	fscrypt-ioctl get-policy "$MNT/lblk32" | grep -qx "flags iv_ino_lblk_32" || fail "lblk32 policy"
	fscrypt-ioctl set-policy "$MNT/v1" $v1desc
	fscrypt-ioctl get-policy "$MNT/v1" | grep -qx "key $v1desc" || fail "v1 policy"
	for d in lblk64 lblk32 v1; do
		echo "data of $d" >"$MNT/$d/file"
		[ "$(cat "$MNT/$d/file")" = "data of $d" ] || fail "$d/file"
		fscrypt-ioctl get-flags "$MNT/$d/file" | grep -q ' encrypt$' || fail "$d/file not encrypted"
	done
fi

step "a policy on a non-empty directory: ENOTEMPTY"
mkdir "$MNT/full" "$MNT/full2"
echo x >"$MNT/full/file"
mkdir "$MNT/full2/sub"
expect_errno ENOTEMPTY set-policy "$MNT/full" "$KEYID"
expect_errno ENOTEMPTY set-policy "$MNT/full2" "$KEYID" --contents=adiantum \
	--filenames=adiantum --flags=direct_key
expect_errno ENODATA get-policy "$MNT/full"
[ "$(cat "$MNT/full/file")" = x ] || fail "full/file changed"
e2e_umount

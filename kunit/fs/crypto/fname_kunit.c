// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for no-key names made and parsed without a key:
 * fscrypt_fname_disk_to_nokey() and fscrypt_nokey_to_fname(), which a
 * filesystem uses to pass encrypted names on without decrypting them.
 *
 * The known answers come from tools/nokey-kat.py in the btrfs-fscrypt
 * project, which computes them with Python's base64 and hashlib from the
 * layout of struct fscrypt_nokey_name, independently of this code, for the
 * ciphertext name C[i] = (i * 7 + 3) & 0xff and a dirhash of 0 (the dirhash
 * is kept in CPU byte order, so only 0 gives the same answer on every
 * architecture).
 */

#include <kunit/test.h>
#include <linux/ctype.h>
#include <linux/string.h>

#include "fscrypt_private.h"

/* A ciphertext name is at least one AES block, and at most NAME_MAX bytes */
#define FN_MIN_NAME	16
#define FN_MAX_NAME	255

static const char fn_kat_32[] =
	"AAAAAAAAAAADChEYHyYtNDtCSVBXXmVsc3qBiI-WnaSrsrnAx87V3A";

static const char fn_kat_200[] =
	"AAAAAAAAAAADChEYHyYtNDtCSVBXXmVsc3qBiI-WnaSrsrnAx87V3OPq8fj_Bg0UGyIpMDc-"
	"RUxTWmFob3Z9hIuSmaCnrrW8w8rR2N_m7fT7AgkQFx4lLDM6QUhPVl1ka3J5gIeOlZyjqrG4"
	"v8bN1Nvi6fD3_gUMExohKC82PURLUllgZ251fIOKkZifpq20u8LJ0Nfe5ezz-gEIDxmbsS_8"
	"obxlvvzP8xEySbTGhLoNfzRlbnxr7eJS93ib";

static void fn_fill(u8 *name, unsigned int len)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		name[i] = (i * 7 + 3) & 0xff;
}

/* The no-key name of the first @len bytes of C, in @out (NAME_MAX + 1). */
static int fn_encode(u8 *name, unsigned int len, u32 hash, u32 minor_hash,
		     char *out, u32 *out_len)
{
	const struct fscrypt_str iname = FSTR_INIT(name, len);
	struct fscrypt_str oname = FSTR_INIT((unsigned char *)out, NAME_MAX);
	int err;

	err = fscrypt_fname_disk_to_nokey(hash, minor_hash, &iname, &oname);
	*out_len = oname.len;
	return err;
}

static bool fn_is_base64url(const char *s, u32 len)
{
	u32 i;

	for (i = 0; i < len; i++)
		if (!isalnum(s[i]) && s[i] != '-' && s[i] != '_')
			return false;
	return true;
}

struct fn_len_case {
	unsigned int len;
	bool abbreviated;
};

static const struct fn_len_case fn_len_cases[] = {
	{ .len = 16 },			/* the shortest ciphertext name */
	{ .len = 17 },
	{ .len = 32 },
	{ .len = 148 },
	{ .len = 149 },			/* the longest kept whole */
	{ .len = 150, .abbreviated = true },
	{ .len = 200, .abbreviated = true },
	{ .len = FN_MAX_NAME, .abbreviated = true },
};

static void fn_len_case_desc(const struct fn_len_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%u-byte name", c->len);
}

KUNIT_ARRAY_PARAM(fn_len, fn_len_cases, fn_len_case_desc);

/*
 * A name's no-key form is a legal name (base64url, so no '/' or NUL), and
 * parses back into a name that matches the ciphertext, and only it, with the
 * dirhash it was made with.
 */
static void test_nokey_round_trip(struct kunit *test)
{
	const struct fn_len_case *c = test->param_value;
	const u32 hash = 0x12345678, minor_hash = 0x9abcdef0;
	u8 name[FN_MAX_NAME + 1];
	char nokey[NAME_MAX + 1];
	struct fscrypt_name fname;
	struct qstr qname;
	u32 len;

	fn_fill(name, sizeof(name));
	KUNIT_ASSERT_EQ(test, fn_encode(name, c->len, hash, minor_hash,
					nokey, &len), 0);
	KUNIT_EXPECT_TRUE(test, fn_is_base64url(nokey, len));

	qname = (struct qstr)QSTR_INIT(nokey, len);
	KUNIT_ASSERT_EQ(test, fscrypt_nokey_to_fname(&qname, &fname), 0);
	KUNIT_EXPECT_TRUE(test, fname.is_nokey_name);
	KUNIT_EXPECT_EQ(test, fname.hash, hash);
	KUNIT_EXPECT_EQ(test, fname.minor_hash, minor_hash);
	if (c->abbreviated) {
		KUNIT_EXPECT_EQ(test, fname.disk_name.len, 0);
	} else {
		KUNIT_EXPECT_EQ(test, fname.disk_name.len, c->len);
		KUNIT_EXPECT_EQ(test, memcmp(fname.disk_name.name, name, c->len), 0);
	}

	KUNIT_EXPECT_TRUE(test, fscrypt_match_name(&fname, name, c->len));
	/* A name one byte shorter or longer, or with its last byte changed */
	KUNIT_EXPECT_FALSE(test, fscrypt_match_name(&fname, name, c->len - 1));
	if (c->len < FN_MAX_NAME)
		KUNIT_EXPECT_FALSE(test,
				   fscrypt_match_name(&fname, name, c->len + 1));
	name[c->len - 1] ^= 0x01;
	KUNIT_EXPECT_FALSE(test, fscrypt_match_name(&fname, name, c->len));
	fscrypt_free_filename(&fname);
}

/* The format is what readdir shows without the key, byte for byte. */
static void test_nokey_known_answers(struct kunit *test)
{
	u8 name[FN_MAX_NAME];
	char nokey[NAME_MAX + 1];
	u32 len;

	fn_fill(name, sizeof(name));
	KUNIT_ASSERT_EQ(test, fn_encode(name, 32, 0, 0, nokey, &len), 0);
	KUNIT_EXPECT_EQ(test, len, strlen(fn_kat_32));
	KUNIT_EXPECT_EQ(test, memcmp(nokey, fn_kat_32, len), 0);

	KUNIT_ASSERT_EQ(test, fn_encode(name, 200, 0, 0, nokey, &len), 0);
	KUNIT_EXPECT_EQ(test, len, strlen(fn_kat_200));
	KUNIT_EXPECT_EQ(test, memcmp(nokey, fn_kat_200, len), 0);
}

/* Names that differ after the 149-byte prefix get different no-key names. */
static void test_nokey_abbreviated_names_differ(struct kunit *test)
{
	u8 name[FN_MAX_NAME];
	char a[NAME_MAX + 1], b[NAME_MAX + 1];
	u32 a_len, b_len;

	fn_fill(name, sizeof(name));
	KUNIT_ASSERT_EQ(test, fn_encode(name, 200, 0, 0, a, &a_len), 0);

	/* The same bytes, one more */
	KUNIT_ASSERT_EQ(test, fn_encode(name, 201, 0, 0, b, &b_len), 0);
	KUNIT_ASSERT_EQ(test, a_len, b_len);
	KUNIT_EXPECT_NE(test, memcmp(a, b, a_len), 0);

	/* The last byte changed */
	name[199] ^= 0x80;
	KUNIT_ASSERT_EQ(test, fn_encode(name, 200, 0, 0, b, &b_len), 0);
	KUNIT_ASSERT_EQ(test, a_len, b_len);
	KUNIT_EXPECT_NE(test, memcmp(a, b, a_len), 0);
}

/* A stored name shorter than a cipher block cannot be a ciphertext name. */
static void test_nokey_short_name_is_corrupt(struct kunit *test)
{
	static const unsigned int lens[] = { 1, 2, FN_MIN_NAME - 1 };
	u8 name[FN_MIN_NAME];
	char nokey[NAME_MAX + 1];
	unsigned int i;
	u32 len;

	fn_fill(name, sizeof(name));
	for (i = 0; i < ARRAY_SIZE(lens); i++)
		KUNIT_EXPECT_EQ_MSG(test, fn_encode(name, lens[i], 0, 0, nokey,
						    &len), -EUCLEAN,
				    "length %u", lens[i]);
}

struct fn_bad_case {
	const char *desc;
	const char *nokey;
};

static const struct fn_bad_case fn_bad_cases[] = {
	{ "empty", "" },
	/* 3 bytes decoded, fewer than the dirhash and one name byte */
	{ "too short", "AAAA" },
	{ "not base64url", "AAAAAAAAAAADChEYHyYtNDtCSVBXXmVsc3qBiI+WnaSrsrnAx87V3A" },
	{ "slash", "AAAAAAAAAAADChEYHyYtNDtCSVBXXmVsc3qBiI/WnaSrsrnAx87V3A" },
	/* 160 bytes decoded: past the prefix, short of a whole digest */
	{ "partial digest",
	  "AAAAAAAAAAADChEYHyYtNDtCSVBXXmVsc3qBiI-WnaSrsrnAx87V3OPq8fj_Bg0UGyIpMDc-"
	  "RUxTWmFob3Z9hIuSmaCnrrW8w8rR2N_m7fT7AgkQFx4lLDM6QUhPVl1ka3J5gIeOlZyjqrG4"
	  "v8bN1Nvi6fD3_gUMExohKC82PURLUllgZ251fIOKkZifpq20u8LJ0Nfe5ezz-gEIDxYdJA" },
	/* One character more than the longest no-key name */
	{ "too long",
	  "AAAAAAAAAAADChEYHyYtNDtCSVBXXmVsc3qBiI-WnaSrsrnAx87V3OPq8fj_Bg0UGyIpMDc-"
	  "RUxTWmFob3Z9hIuSmaCnrrW8w8rR2N_m7fT7AgkQFx4lLDM6QUhPVl1ka3J5gIeOlZyjqrG4"
	  "v8bN1Nvi6fD3_gUMExohKC82PURLUllgZ251fIOKkZifpq20u8LJ0Nfe5ezz-gEIDxmbsS_8"
	  "obxlvvzP8xEySbTGhLoNfzRlbnxr7eJS93ibA" },
};

static void fn_bad_case_desc(const struct fn_bad_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(fn_bad, fn_bad_cases, fn_bad_case_desc);

/* What is not a no-key name is not found, and leaves nothing to free. */
static void test_nokey_malformed(struct kunit *test)
{
	const struct fn_bad_case *c = test->param_value;
	const struct qstr qname = QSTR_INIT(c->nokey, strlen(c->nokey));
	struct fscrypt_name fname;

	KUNIT_EXPECT_EQ(test, fscrypt_nokey_to_fname(&qname, &fname), -ENOENT);
	KUNIT_EXPECT_NULL(test, fname.crypto_buf.name);
}

static struct kunit_case fscrypt_nokey_name_test_cases[] = {
	KUNIT_CASE_PARAM(test_nokey_round_trip, fn_len_gen_params),
	KUNIT_CASE(test_nokey_known_answers),
	KUNIT_CASE(test_nokey_abbreviated_names_differ),
	KUNIT_CASE(test_nokey_short_name_is_corrupt),
	KUNIT_CASE_PARAM(test_nokey_malformed, fn_bad_gen_params),
	{}
};

static struct kunit_suite fscrypt_nokey_name_test_suite = {
	.name = "fscrypt-nokey-name",
	.test_cases = fscrypt_nokey_name_test_cases,
};

kunit_test_suite(fscrypt_nokey_name_test_suite);

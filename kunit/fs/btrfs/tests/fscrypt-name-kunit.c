// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for btrfs_fscrypt_match_name(): directory entry names are
 * written into a real extent buffer of several pages, and looked up as
 * plaintext names, as ciphertext names and as fscrypt no-key names, short
 * ones (the whole ciphertext) and abbreviated ones (a prefix and the SHA-256
 * of the rest).
 */

#include <kunit/test.h>
#include <crypto/sha2.h>
#include <linux/sizes.h>
#include "btrfs-tests.h"
#include "../ctree.h"
#include "../extent_io.h"
#include "../fscrypt.h"

#define FN_NODESIZE	SZ_16K
#define FN_SECTORSIZE	SZ_4K

struct fn_ctx {
	struct btrfs_fs_info *fs_info;
	struct extent_buffer *eb;
	u8 name[BTRFS_NAME_LEN];
};

static int fn_init(struct kunit *test)
{
	struct fn_ctx *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	int i;

	if (!c)
		return -ENOMEM;
	test->priv = c;
	c->fs_info = btrfs_alloc_dummy_fs_info(FN_NODESIZE, FN_SECTORSIZE);
	if (!c->fs_info)
		return -ENOMEM;
	c->eb = alloc_dummy_extent_buffer(c->fs_info, 0);
	if (!c->eb)
		return -ENOMEM;
	/* A name of arbitrary bytes, as a ciphertext name is */
	for (i = 0; i < BTRFS_NAME_LEN; i++)
		c->name[i] = (i * 37 + 11) & 0xff;
	return 0;
}

static void fn_exit(struct kunit *test)
{
	struct fn_ctx *c = test->priv;

	if (!c)
		return;
	free_extent_buffer(c->eb);
	btrfs_free_dummy_fs_info(c->fs_info);
}

/* Put @len bytes of the test name at @offset of the leaf */
static unsigned long fn_put(struct fn_ctx *c, unsigned long offset, u32 len)
{
	write_extent_buffer(c->eb, c->name, offset, len);
	return offset;
}

static struct fscrypt_name fn_plain(const u8 *name, u32 len)
{
	struct fscrypt_name fname = {
		.disk_name = { .name = (unsigned char *)name, .len = len },
	};

	return fname;
}

/* The no-key name fscrypt decodes for the first @len bytes of the name */
static struct fscrypt_name fn_nokey(struct kunit *test, const u8 *name,
				    u32 len)
{
	struct fscrypt_nokey_name *nk;
	struct fscrypt_name fname = { .is_nokey_name = true };
	const u32 prefix = sizeof(nk->bytes);

	if (!IS_ENABLED(CONFIG_FS_ENCRYPTION))
		kunit_skip(test, "no-key names need CONFIG_FS_ENCRYPTION");
	nk = kunit_kzalloc(test, sizeof(*nk), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, nk);
	fname.crypto_buf.name = (unsigned char *)nk;
	if (len <= prefix) {
		memcpy(nk->bytes, name, len);
		fname.crypto_buf.len = offsetof(struct fscrypt_nokey_name,
						bytes[len]);
		fname.disk_name.name = nk->bytes;
		fname.disk_name.len = len;
	} else {
		memcpy(nk->bytes, name, prefix);
		sha256(name + prefix, len - prefix, nk->sha256);
		fname.crypto_buf.len = FSCRYPT_NOKEY_NAME_MAX;
	}
	return fname;
}

static bool fn_match(struct fn_ctx *c, const struct fscrypt_name *fname,
		     unsigned long offset, u32 len)
{
	return btrfs_fscrypt_match_name(fname, c->eb, offset, len);
}

static void test_plaintext_names(struct kunit *test)
{
	struct fn_ctx *c = test->priv;
	unsigned long at = fn_put(c, 100, 20);
	struct fscrypt_name same = fn_plain(c->name, 20);
	struct fscrypt_name shorter = fn_plain(c->name, 19);
	u8 other[20];
	struct fscrypt_name differs;

	memcpy(other, c->name, sizeof(other));
	other[19] ^= 0x01;
	differs = fn_plain(other, sizeof(other));

	KUNIT_EXPECT_TRUE(test, fn_match(c, &same, at, 20));
	KUNIT_EXPECT_FALSE(test, fn_match(c, &differs, at, 20));
	KUNIT_EXPECT_FALSE(test, fn_match(c, &shorter, at, 20));
	KUNIT_EXPECT_FALSE(test, fn_match(c, &same, at, 21));
}

/* Up to 149 bytes, a no-key name holds the whole ciphertext name */
static void test_short_nokey_names(struct kunit *test)
{
	static const u32 lens[] = { 1, 16, 17, 148, 149 };
	struct fn_ctx *c = test->priv;
	int i;

	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		unsigned long at = fn_put(c, 300, lens[i]);
		struct fscrypt_name nk = fn_nokey(test, c->name, lens[i]);

		KUNIT_EXPECT_TRUE_MSG(test, fn_match(c, &nk, at, lens[i]),
				      "length %u", lens[i]);
		KUNIT_EXPECT_FALSE_MSG(test, fn_match(c, &nk, at, lens[i] + 1),
				       "length %u + 1", lens[i]);
	}
}

/* From 150 bytes on, the rest of the name is matched by its SHA-256 */
static void test_abbreviated_nokey_names(struct kunit *test)
{
	static const u32 lens[] = { 150, 200, BTRFS_NAME_LEN };
	struct fn_ctx *c = test->priv;
	int i;

	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		unsigned long at = fn_put(c, 1000, lens[i]);
		struct fscrypt_name nk = fn_nokey(test, c->name, lens[i]);

		KUNIT_EXPECT_TRUE_MSG(test, fn_match(c, &nk, at, lens[i]),
				      "length %u", lens[i]);
		/* A longer or shorter entry has another digest */
		KUNIT_EXPECT_FALSE_MSG(test, fn_match(c, &nk, at, lens[i] - 1),
				       "length %u - 1", lens[i]);
	}
}

/* The name crosses from one page of the leaf into the next */
static void test_name_across_pages(struct kunit *test)
{
	struct fn_ctx *c = test->priv;
	unsigned long at, prefix_across;
	struct fscrypt_name nk, plain;

	/* A leaf of one page (64 KiB pages) has no page boundary to cross. */
	if (FN_NODESIZE < 3 * PAGE_SIZE)
		kunit_skip(test, "a %u-byte leaf is not 3 pages of %lu bytes",
			   FN_NODESIZE, PAGE_SIZE);
	at = fn_put(c, PAGE_SIZE - 100, 200);
	nk = fn_nokey(test, c->name, 200);
	plain = fn_plain(c->name, 200);
	prefix_across = fn_put(c, 2 * PAGE_SIZE - 50, 200);
	KUNIT_EXPECT_TRUE(test, fn_match(c, &nk, at, 200));
	KUNIT_EXPECT_TRUE(test, fn_match(c, &plain, at, 200));
	/* Here the page boundary falls inside the 149-byte prefix */
	KUNIT_EXPECT_TRUE(test, fn_match(c, &nk, prefix_across, 200));
}

static void test_digest_differs_in_last_byte(struct kunit *test)
{
	struct fn_ctx *c = test->priv;
	unsigned long at = fn_put(c, 500, 200);
	struct fscrypt_name nk = fn_nokey(test, c->name, 200);
	struct fscrypt_nokey_name *n = (void *)nk.crypto_buf.name;

	n->sha256[SHA256_DIGEST_SIZE - 1] ^= 0x80;
	KUNIT_EXPECT_FALSE(test, fn_match(c, &nk, at, 200));
}

static void test_prefix_differs(struct kunit *test)
{
	struct fn_ctx *c = test->priv;
	unsigned long at = fn_put(c, 500, 200);
	struct fscrypt_name nk = fn_nokey(test, c->name, 200);
	struct fscrypt_nokey_name *n = (void *)nk.crypto_buf.name;

	n->bytes[148] ^= 0x01;
	KUNIT_EXPECT_FALSE(test, fn_match(c, &nk, at, 200));
	n->bytes[148] ^= 0x01;
	n->bytes[0] ^= 0x01;
	KUNIT_EXPECT_FALSE(test, fn_match(c, &nk, at, 200));
}

/* An entry's name that differs only after the prefix */
static void test_suffix_differs(struct kunit *test)
{
	struct fn_ctx *c = test->priv;
	struct fscrypt_name nk = fn_nokey(test, c->name, 200);
	unsigned long at = fn_put(c, 500, 200);
	u8 byte = c->name[199] ^ 0x01;

	write_extent_buffer(c->eb, &byte, at + 199, 1);
	KUNIT_EXPECT_FALSE(test, fn_match(c, &nk, at, 200));
}

static struct kunit_case fscrypt_name_test_cases[] = {
	KUNIT_CASE(test_plaintext_names),
	KUNIT_CASE(test_short_nokey_names),
	KUNIT_CASE(test_abbreviated_nokey_names),
	KUNIT_CASE(test_name_across_pages),
	KUNIT_CASE(test_digest_differs_in_last_byte),
	KUNIT_CASE(test_prefix_differs),
	KUNIT_CASE(test_suffix_differs),
	{}
};

static int fn_suite_init(struct kunit_suite *suite)
{
	return btrfs_init_test_fs();
}

static void fn_suite_exit(struct kunit_suite *suite)
{
	btrfs_destroy_test_fs();
}

static struct kunit_suite fscrypt_name_test_suite = {
	.name = "btrfs-fscrypt-name",
	.suite_init = fn_suite_init,
	.suite_exit = fn_suite_exit,
	.init = fn_init,
	.exit = fn_exit,
	.test_cases = fscrypt_name_test_cases,
};

kunit_test_suite(fscrypt_name_test_suite);

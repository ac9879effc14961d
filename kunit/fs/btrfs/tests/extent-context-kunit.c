// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the encryption byte of file extent items: bits 0-1 hold the
 * encryption type, bits 2-7 the size of the extent context that follows the
 * item.  Every byte a kernel writes must read back as what was packed, and
 * every byte it could read from disk must be classified.
 */

#include <kunit/test.h>
#include "../fscrypt.h"

/* Every valid (type, size) pair packs into a byte that unpacks to it */
static void test_valid_pairs_round_trip(struct kunit *test)
{
	u32 size;
	u8 byte;
	int ret;

	ret = btrfs_pack_encryption(BTRFS_ENCRYPTION_NONE, 0, &byte);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, byte, 0);
	for (size = 1; size <= BTRFS_ENCRYPTION_CTX_SIZE_MAX; size++) {
		byte = 0;
		ret = btrfs_pack_encryption(BTRFS_ENCRYPTION_FSCRYPT, size,
					    &byte);
		KUNIT_ASSERT_EQ_MSG(test, ret, 0, "size %u", size);
		KUNIT_EXPECT_EQ(test, btrfs_encryption_type(byte),
				BTRFS_ENCRYPTION_FSCRYPT);
		KUNIT_EXPECT_EQ(test, btrfs_encryption_ctx_size(byte), size);
		KUNIT_EXPECT_TRUE(test, btrfs_encryption_valid(byte));
	}
}

/* The format as documented: type in the low 2 bits, size above */
static void test_layout(struct kunit *test)
{
	u8 byte;

	KUNIT_ASSERT_EQ(test, btrfs_pack_encryption(1, 35, &byte), 0);
	KUNIT_EXPECT_EQ(test, byte, (35 << 2) | 1);
	KUNIT_ASSERT_EQ(test, btrfs_pack_encryption(1, 63, &byte), 0);
	KUNIT_EXPECT_EQ(test, byte, 0xfd);
}

/* Sizes that do not fit, and contexts where there is no encryption */
static void test_sizes_refused(struct kunit *test)
{
	static const u32 fscrypt_sizes[] = { 0, 64, 255, 256, 1000 };
	static const u32 none_sizes[] = { 1, 35, 63 };
	u8 byte = 0x5a;
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(fscrypt_sizes); i++) {
		ret = btrfs_pack_encryption(BTRFS_ENCRYPTION_FSCRYPT,
					    fscrypt_sizes[i], &byte);
		KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL, "size %u",
				    fscrypt_sizes[i]);
	}
	for (i = 0; i < ARRAY_SIZE(none_sizes); i++) {
		ret = btrfs_pack_encryption(BTRFS_ENCRYPTION_NONE,
					    none_sizes[i], &byte);
		KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL, "size %u",
				    none_sizes[i]);
	}
	/* A refused pack leaves the output alone */
	KUNIT_EXPECT_EQ(test, byte, 0x5a);
}

static void test_unknown_types(struct kunit *test)
{
	u8 byte;
	u8 type;

	for (type = BTRFS_NR_ENCRYPTION_TYPES; type < 8; type++) {
		int ret = btrfs_pack_encryption(type, 35, &byte);

		KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL, "type %u", type);
	}
	/* Bytes read from disk with type 2 or 3 are reported as invalid */
	KUNIT_EXPECT_FALSE(test, btrfs_encryption_valid(0x02));
	KUNIT_EXPECT_FALSE(test, btrfs_encryption_valid(0x03));
	KUNIT_EXPECT_FALSE(test, btrfs_encryption_valid((35 << 2) | 2));
	KUNIT_EXPECT_FALSE(test, btrfs_encryption_valid((35 << 2) | 3));
}

/* Of the 256 bytes, exactly "none" and fscrypt with 1..63 bytes are valid */
static void test_every_byte_classified(struct kunit *test)
{
	unsigned int byte, valid = 0;

	for (byte = 0; byte < 256; byte++) {
		bool want = byte == 0 ||
			    (btrfs_encryption_type(byte) ==
			     BTRFS_ENCRYPTION_FSCRYPT &&
			     btrfs_encryption_ctx_size(byte) > 0);

		KUNIT_EXPECT_EQ_MSG(test, btrfs_encryption_valid(byte), want,
				    "byte 0x%02x", byte);
		valid += btrfs_encryption_valid(byte);
	}
	KUNIT_EXPECT_EQ(test, valid, 1U + BTRFS_ENCRYPTION_CTX_SIZE_MAX);
}

/* fscrypt's extent contexts fit the 6 bits of the size */
static void test_fscrypt_context_fits(struct kunit *test)
{
	u8 byte;
	int ret;

	KUNIT_EXPECT_LE(test, FSCRYPT_EXTENT_CONTEXT_MAX_SIZE,
			BTRFS_ENCRYPTION_CTX_SIZE_MAX);
	ret = btrfs_pack_encryption(BTRFS_ENCRYPTION_FSCRYPT,
				    FSCRYPT_EXTENT_CONTEXT_V1_SIZE, &byte);
	KUNIT_EXPECT_EQ(test, ret, 0);
}

static struct kunit_case extent_context_test_cases[] = {
	KUNIT_CASE(test_valid_pairs_round_trip),
	KUNIT_CASE(test_layout),
	KUNIT_CASE(test_sizes_refused),
	KUNIT_CASE(test_unknown_types),
	KUNIT_CASE(test_every_byte_classified),
	KUNIT_CASE(test_fscrypt_context_fits),
	{}
};

static struct kunit_suite extent_context_test_suite = {
	.name = "btrfs-extent-context",
	.test_cases = extent_context_test_cases,
};

kunit_test_suite(extent_context_test_suite);

// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for encryption of file contents per extent: IVs, per-extent
 * keys, one block of ciphertext per mode, filename IVs, I/O limits at extent
 * boundaries, extent contexts and the policies such a filesystem accepts.
 *
 * The known answers below come from tools/fscrypt-kat.py in the btrfs-fscrypt
 * project, which computes them with Python's hashlib, hmac and an AES
 * library, independently of this code.  Its inputs:
 *   master key M  = 00 01 02 ... 3f (64 bytes)
 *   nonces NA     = a0 a1 ... af, NB = 5a * 16, NC = 00 * 15 || 01
 *   plaintext P[i] = (i * 29 + (i >> 8)) & 0xff, 4096 bytes
 *
 * The tests use a made-up superblock and inodes: nothing here needs a
 * mounted filesystem.
 */

#include <kunit/test.h>
#include <crypto/sha2.h>
#include <crypto/skcipher.h>
#include <linux/ktime.h>
#include <linux/pagemap.h>
#include <linux/vmstat.h>

#include "fscrypt_private.h"

#define KT_BLOCK_SIZE	4096
#define KT_BLKBITS	12

static const u8 kt_nonce_na[16] = {
	0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7,
	0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf,
};

static const u8 kt_nonce_nb[16] = {
	0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a,
	0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a,
};

static const u8 kt_nonce_nc[16] = {
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
};

static const u8 kt_key_id[FSCRYPT_KEY_IDENTIFIER_SIZE] = {
	0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
	0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x00,
};

/* Known answers, pasted from the output of tools/fscrypt-kat.py */

/* per-extent key, AES-256-XTS, nonce NA */
static const u8 kat_extent_key_na[64] = {
	0x8c, 0xa9, 0xce, 0x47, 0x29, 0x13, 0x25, 0x7a,
	0x0d, 0x98, 0xf8, 0xc0, 0xe1, 0x4f, 0xf6, 0x71,
	0x5a, 0x22, 0xe6, 0x72, 0xac, 0xeb, 0xe1, 0xf3,
	0x2b, 0x24, 0x64, 0x9a, 0xb5, 0x76, 0x95, 0xb9,
	0xa0, 0x22, 0xb7, 0xfe, 0xc6, 0x71, 0xaf, 0xc4,
	0xdc, 0x00, 0xa1, 0x17, 0x60, 0xb2, 0xb1, 0x4f,
	0xb7, 0xb9, 0x5f, 0x81, 0x2d, 0x7e, 0xdc, 0x01,
	0x59, 0x5d, 0xe8, 0xef, 0x1d, 0xbe, 0xb2, 0xf2,
};

/* per-extent key, AES-256-XTS, nonce NB */
static const u8 kat_extent_key_nb[64] = {
	0x24, 0xbf, 0x9d, 0x6e, 0xda, 0x7e, 0x57, 0xd7,
	0x1e, 0x4f, 0xa8, 0xe9, 0xa6, 0xa3, 0xcd, 0x03,
	0xc2, 0x6c, 0x69, 0x78, 0x42, 0xfc, 0x59, 0x9e,
	0x7b, 0xae, 0xc7, 0x47, 0x65, 0x24, 0x64, 0x39,
	0x34, 0x6d, 0xbe, 0x25, 0xc6, 0x3a, 0x3b, 0x6d,
	0x88, 0xef, 0x5c, 0x8b, 0xc1, 0xe8, 0x41, 0xf0,
	0x51, 0xa9, 0xaa, 0xec, 0x4e, 0xd8, 0x87, 0xdf,
	0x7b, 0xe9, 0xb5, 0xbe, 0x42, 0xd9, 0xe0, 0xd1,
};

/* per-extent key, AES-256-XTS, nonce NC */
static const u8 kat_extent_key_nc[64] = {
	0xc9, 0xd7, 0xdb, 0x7b, 0xfd, 0xf6, 0x11, 0xb1,
	0x33, 0xb2, 0xa7, 0x40, 0xb3, 0x94, 0x6f, 0xc4,
	0xcb, 0x30, 0xac, 0x7f, 0x6f, 0x63, 0xb9, 0xd6,
	0x60, 0x9a, 0x30, 0x66, 0x77, 0xed, 0x06, 0x95,
	0x3e, 0x9a, 0x4b, 0xd5, 0x56, 0x31, 0x73, 0xdf,
	0x6e, 0x46, 0x7f, 0x45, 0xad, 0x0e, 0x74, 0xd4,
	0x2b, 0x2f, 0x8e, 0x9d, 0xd4, 0xfe, 0x59, 0xc4,
	0xa0, 0xda, 0xb3, 0x8e, 0x88, 0x63, 0x50, 0x3e,
};

/* DIRECT_KEY per-mode key, Adiantum */
static const u8 kat_direct_key_adiantum[32] = {
	0x9e, 0xfb, 0x31, 0x53, 0x4e, 0x24, 0x4d, 0xd4,
	0xc2, 0x51, 0xdd, 0x5d, 0x54, 0x0c, 0x71, 0x4a,
	0xb1, 0xcf, 0xcf, 0xaf, 0x00, 0x08, 0xa8, 0x70,
	0xcc, 0x29, 0x8b, 0x52, 0xb3, 0x2b, 0x7d, 0x39,
};

/* master key identifier */
static const u8 kat_master_key_identifier[16] = {
	0x86, 0x99, 0xc2, 0xc5, 0x37, 0x07, 0x40, 0x5d,
	0xa5, 0xab, 0xa5, 0xae, 0x4d, 0x85, 0x83, 0xc0,
};

/* AES-256-XTS, key NA, block 5: first 32 bytes */
static const u8 kat_xts_ct_head[32] = {
	0xa0, 0x95, 0xf4, 0x67, 0x48, 0xbc, 0x18, 0xb2,
	0xa5, 0xc8, 0xa4, 0xac, 0x4d, 0x1c, 0x1c, 0xd5,
	0x91, 0x0a, 0x1e, 0x18, 0x40, 0x68, 0x1e, 0xa5,
	0xff, 0xe6, 0xb3, 0x38, 0x14, 0xdf, 0x94, 0x22,
};

/* AES-256-XTS, key NA, block 5: SHA-256 of the 4096 bytes */
static const u8 kat_xts_ct_sha256[32] = {
	0x0e, 0x0e, 0xb5, 0x72, 0x01, 0xf4, 0x83, 0x15,
	0xb8, 0xb1, 0xbd, 0x4e, 0xf4, 0x77, 0x66, 0x3a,
	0x31, 0x30, 0x34, 0x16, 0xbf, 0xf1, 0x35, 0xeb,
	0x4e, 0x4f, 0x3e, 0x0f, 0x19, 0xfa, 0x44, 0xc9,
};

/* Adiantum DIRECT_KEY, block 7, nonce NB: first 32 bytes */
static const u8 kat_adiantum_ct_head[32] = {
	0xaf, 0x44, 0x57, 0x5b, 0xf9, 0x14, 0x3b, 0xb4,
	0x9d, 0xcd, 0x10, 0xf7, 0xc5, 0x43, 0xbd, 0x31,
	0xc2, 0xd0, 0x73, 0x9a, 0x9c, 0x57, 0xfb, 0x85,
	0x37, 0xac, 0xf1, 0x68, 0x72, 0x80, 0x28, 0xd4,
};

/* Adiantum DIRECT_KEY, block 7, nonce NB: SHA-256 of the 4096 bytes */
static const u8 kat_adiantum_ct_sha256[32] = {
	0xae, 0xb4, 0xa4, 0x9f, 0xf1, 0xb5, 0x58, 0x27,
	0x14, 0xbc, 0x85, 0x6d, 0xab, 0x80, 0x2a, 0x0e,
	0x41, 0xb5, 0x03, 0x37, 0x46, 0xf6, 0x79, 0x30,
	0x12, 0xed, 0x7e, 0xa5, 0x00, 0x7a, 0x81, 0x5c,
};

/* Adiantum DIRECT_KEY, block 0, nonce NC: first 32 bytes */
static const u8 kat_adiantum0_ct_head[32] = {
	0x7a, 0xe4, 0x61, 0xee, 0x8a, 0x91, 0x01, 0x77,
	0x75, 0x9d, 0x2f, 0xb6, 0x43, 0x32, 0x9b, 0x3e,
	0x7e, 0x6b, 0xac, 0x4e, 0x1f, 0xf9, 0x9e, 0x66,
	0x1b, 0xe3, 0xe3, 0x34, 0x6e, 0xde, 0xd0, 0xc8,
};

/* Adiantum DIRECT_KEY, block 0, nonce NC: SHA-256 of the 4096 bytes */
static const u8 kat_adiantum0_ct_sha256[32] = {
	0x96, 0xb7, 0xf5, 0xf9, 0x11, 0x9f, 0x5f, 0x76,
	0x67, 0x4e, 0x6e, 0xa6, 0x45, 0x6c, 0x13, 0x55,
	0xfa, 0x9e, 0x4f, 0x6a, 0xec, 0xb9, 0x0d, 0xda,
	0xab, 0x98, 0xeb, 0x06, 0xf6, 0x28, 0xf4, 0x25,
};

/* Compare bytes and show both sides in hex when they differ. */
#define KT_EXPECT_BYTES(test, got, want, len)				\
	do {								\
		const u8 *__got = (got), *__want = (want);		\
		size_t __len = (len);					\
									\
		KUNIT_EXPECT_EQ_MSG(test, memcmp(__got, __want, __len), 0, \
				    "got  %*phN\nwant %*phN",		\
				    (int)__len, __got, (int)__len, __want); \
	} while (0)

/* The made-up filesystem: its extents, as (first block, number of blocks) */
struct kt_extent {
	u64 start;
	u64 len;
};

static const struct kt_extent kt_extents[] = {
	{ 0, 8 }, { 8, 1 }, { 9, 31 }, /* then a hole from block 40 */
};

static int kt_get_extent_context(const struct inode *inode, u64 lblk,
				 void *ctx, size_t len, u64 *index,
				 u64 *nr_blocks)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(kt_extents); i++) {
		const struct kt_extent *e = &kt_extents[i];

		if (lblk < e->start || lblk >= e->start + e->len)
			continue;
		if (index)
			*index = lblk - e->start;
		if (nr_blocks)
			*nr_blocks = e->start + e->len - lblk;
		return 0;
	}
	return -ENODATA;
}

static int kt_set_extent_context(void *extent, const void *ctx, size_t len)
{
	memcpy(extent, ctx, len);
	return 0;
}

static bool kt_has_stable_inodes(struct super_block *sb)
{
	return true;
}

static void kt_get_ino_and_lblk_bits(struct super_block *sb,
				     int *ino_bits_ret, int *lblk_bits_ret)
{
	*ino_bits_ret = 32;
	*lblk_bits_ret = 32;
}

static const struct fscrypt_operations kt_extent_cop = {
	.get_extent_context = kt_get_extent_context,
	.set_extent_context = kt_set_extent_context,
	/* Offered so that only the extent rule can refuse IV_INO_LBLK_* */
	.has_stable_inodes = kt_has_stable_inodes,
	.get_ino_and_lblk_bits = kt_get_ino_and_lblk_bits,
};

/* A filesystem that encrypts per inode, as ext4 does */
static const struct fscrypt_operations kt_inode_cop = {
	.has_stable_inodes = kt_has_stable_inodes,
	.get_ino_and_lblk_bits = kt_get_ino_and_lblk_bits,
};

static struct super_block *kt_sb(struct kunit *test,
				 const struct fscrypt_operations *cop)
{
	struct super_block *sb = kunit_kzalloc(test, sizeof(*sb), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, sb);
	sb->s_cop = cop;
	sb->s_blocksize = KT_BLOCK_SIZE;
	sb->s_blocksize_bits = KT_BLKBITS;
	strscpy(sb->s_id, "kunit", sizeof(sb->s_id));
	return sb;
}

static struct inode *kt_inode(struct kunit *test, struct super_block *sb,
			      umode_t mode, bool encrypted)
{
	struct inode *inode = kunit_kzalloc(test, sizeof(*inode), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, inode);
	inode->i_sb = sb;
	inode->i_mode = mode;
	inode->i_ino = 257;
	inode->i_blkbits = KT_BLKBITS;
	if (encrypted)
		inode->i_flags |= S_ENCRYPTED;
	return inode;
}

/* Give @inode a key setup with @policy, as if its key had been added */
static struct fscrypt_info *kt_set_info(struct kunit *test,
					struct inode *inode,
					const struct fscrypt_policy_v2 *policy,
					const u8 *nonce)
{
	struct fscrypt_info *ci = kunit_kzalloc(test, sizeof(*ci), GFP_KERNEL);
	u8 mode = S_ISREG(inode->i_mode) ? policy->contents_encryption_mode :
					   policy->filenames_encryption_mode;

	KUNIT_ASSERT_NOT_NULL(test, ci);
	ci->ci_inode = inode;
	ci->ci_mode = &fscrypt_modes[mode];
	ci->ci_policy.v2 = *policy;
	memcpy(ci->ci_nonce, nonce, FSCRYPT_FILE_NONCE_SIZE);
	inode->i_crypt_info = ci;
	return ci;
}

static struct fscrypt_extent_info *kt_extent_info(struct kunit *test,
						  struct super_block *sb,
						  u8 mode, u8 flags,
						  const u8 *nonce)
{
	struct fscrypt_extent_info *ei;

	ei = fscrypt_alloc_extent_info(sb, &fscrypt_modes[mode], flags,
				       kt_key_id, nonce);
	KUNIT_ASSERT_NOT_NULL(test, ei);
	return ei;
}

/* ---- IVs ---- */

struct kt_iv_case {
	const char *desc;
	u8 mode;
	u8 flags;
	const u8 *nonce;
	u64 index;
	u8 iv[32];
};

static const struct kt_iv_case kt_iv_cases[] = {
	{
		.desc = "direct key, NA, block 0",
		.mode = FSCRYPT_MODE_ADIANTUM,
		.flags = FSCRYPT_POLICY_FLAG_DIRECT_KEY,
		.nonce = kt_nonce_na, .index = 0,
		.iv = { 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
			0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7,
			0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf,
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 },
	}, {
		.desc = "direct key, NA, block 1",
		.mode = FSCRYPT_MODE_ADIANTUM,
		.flags = FSCRYPT_POLICY_FLAG_DIRECT_KEY,
		.nonce = kt_nonce_na, .index = 1,
		.iv = { 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
			0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7,
			0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf,
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 },
	}, {
		.desc = "direct key, NB, block 2^32",
		.mode = FSCRYPT_MODE_ADIANTUM,
		.flags = FSCRYPT_POLICY_FLAG_DIRECT_KEY,
		.nonce = kt_nonce_nb, .index = 1ULL << 32,
		.iv = { 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
			0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a,
			0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a,
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 },
	}, {
		.desc = "direct key, NB, block 0x0123456789abcdef",
		.mode = FSCRYPT_MODE_ADIANTUM,
		.flags = FSCRYPT_POLICY_FLAG_DIRECT_KEY,
		.nonce = kt_nonce_nb, .index = 0x0123456789abcdefULL,
		.iv = { 0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01,
			0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a,
			0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a, 0x5a,
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 },
	}, {
		.desc = "direct key, NC, largest block index",
		.mode = FSCRYPT_MODE_ADIANTUM,
		.flags = FSCRYPT_POLICY_FLAG_DIRECT_KEY,
		.nonce = kt_nonce_nc, .index = FSCRYPT_EXTENT_MAX_INDEX,
		.iv = { 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 },
	}, {
		.desc = "per-extent key, NA, block 5: no nonce in the IV",
		.mode = FSCRYPT_MODE_AES_256_XTS, .flags = 0,
		.nonce = kt_nonce_na, .index = 5,
		.iv = { 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 },
	}, {
		.desc = "per-extent key, NB, block 2^32",
		.mode = FSCRYPT_MODE_AES_256_XTS, .flags = 0,
		.nonce = kt_nonce_nb, .index = 1ULL << 32,
		.iv = { 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
			0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 },
	},
};

static void kt_iv_desc(const struct kt_iv_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kt_iv, kt_iv_cases, kt_iv_desc);

static void test_extent_iv(struct kunit *test)
{
	const struct kt_iv_case *c = test->param_value;
	struct super_block *sb = kt_sb(test, &kt_extent_cop);
	struct fscrypt_extent_info *ei;
	union fscrypt_iv iv;

	ei = kt_extent_info(test, sb, c->mode, c->flags, c->nonce);
	memset(&iv, 0xcc, sizeof(iv));
	fscrypt_generate_extent_iv(&iv, c->index, ei);
	KT_EXPECT_BYTES(test, iv.raw, c->iv, fscrypt_modes[c->mode].ivsize);
	fscrypt_put_extent_info(ei);
}

/* ---- key derivation ---- */

/* The master key M of the known answers: 00 01 02 ... 3f */
static void kt_master_key_bytes(u8 master[64])
{
	int i;

	for (i = 0; i < 64; i++)
		master[i] = i;
}

static void kt_init_hkdf(struct kunit *test, struct fscrypt_hkdf *hkdf)
{
	u8 master[64];

	kt_master_key_bytes(master);
	KUNIT_ASSERT_EQ(test, fscrypt_init_hkdf(hkdf, master, sizeof(master)),
			0);
}

static void test_per_extent_key(struct kunit *test)
{
	static const struct {
		const u8 *nonce;
		const u8 *key;
	} cases[] = {
		{ kt_nonce_na, kat_extent_key_na },
		{ kt_nonce_nb, kat_extent_key_nb },
		{ kt_nonce_nc, kat_extent_key_nc },
	};
	struct fscrypt_hkdf hkdf;
	u8 key[64];
	int i, err;

	kt_init_hkdf(test, &hkdf);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		memset(key, 0, sizeof(key));
		err = fscrypt_derive_extent_key(&hkdf, cases[i].nonce, key,
						sizeof(key));
		KUNIT_EXPECT_EQ(test, err, 0);
		KT_EXPECT_BYTES(test, key, cases[i].key, sizeof(key));
	}
	fscrypt_destroy_hkdf(&hkdf);
}

/*
 * The script's HKDF against two derivations the kernel already had: if these
 * pass and test_per_extent_key fails, the fault is in the new derivation.
 */
static void test_existing_derivations(struct kunit *test)
{
	const u8 mode_num = FSCRYPT_MODE_ADIANTUM;
	struct fscrypt_hkdf hkdf;
	u8 out[32];
	int err;

	kt_init_hkdf(test, &hkdf);
	err = fscrypt_hkdf_expand(&hkdf, HKDF_CONTEXT_KEY_IDENTIFIER, NULL, 0,
				  out, FSCRYPT_KEY_IDENTIFIER_SIZE);
	KUNIT_EXPECT_EQ(test, err, 0);
	KT_EXPECT_BYTES(test, out, kat_master_key_identifier,
			FSCRYPT_KEY_IDENTIFIER_SIZE);
	err = fscrypt_hkdf_expand(&hkdf, HKDF_CONTEXT_DIRECT_KEY, &mode_num, 1,
				  out, 32);
	KUNIT_EXPECT_EQ(test, err, 0);
	KT_EXPECT_BYTES(test, out, kat_direct_key_adiantum, 32);
	fscrypt_destroy_hkdf(&hkdf);
}

/* ---- one block of ciphertext per mode ---- */

static struct page *kt_plaintext_page(struct kunit *test)
{
	u8 *p = kunit_kmalloc(test, PAGE_SIZE, GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, p);
	for (i = 0; i < KT_BLOCK_SIZE; i++)
		p[i] = (i * 29 + (i >> 8)) & 0xff;
	return virt_to_page(p);
}

/*
 * Encrypt P as block @index of the extent of @ei into a bounce page, compare
 * with the known answer, then decrypt the bounce page in place and get P back.
 */
static void kt_check_block(struct kunit *test, struct fscrypt_extent_info *ei,
			   u64 index, const u8 *head, const u8 *digest)
{
	struct page *page = kt_plaintext_page(test);
	struct page *bounce;
	u8 sum[SHA256_DIGEST_SIZE];
	int err;

	KUNIT_ASSERT_EQ(test, fscrypt_initialize(0), 0);
	bounce = fscrypt_encrypt_extent_blocks(ei, page, KT_BLOCK_SIZE, 0,
					       index, GFP_NOFS);
	KUNIT_ASSERT_FALSE(test, IS_ERR(bounce));
	KUNIT_EXPECT_PTR_EQ(test, fscrypt_pagecache_page(bounce), page);
	KT_EXPECT_BYTES(test, page_address(bounce), head, 32);
	sha256(page_address(bounce), KT_BLOCK_SIZE, sum);
	KT_EXPECT_BYTES(test, sum, digest, sizeof(sum));

	err = fscrypt_decrypt_extent_blocks(ei, bounce, KT_BLOCK_SIZE, 0, index);
	KUNIT_EXPECT_EQ(test, err, 0);
	KT_EXPECT_BYTES(test, page_address(bounce), page_address(page),
			KT_BLOCK_SIZE);
	fscrypt_free_bounce_page(bounce);
}

static void test_aes_xts_block(struct kunit *test)
{
	struct super_block *sb = kt_sb(test, &kt_extent_cop);
	struct fscrypt_extent_info *ei;
	struct fscrypt_hkdf hkdf;
	u8 key[64];
	int err;

	kt_init_hkdf(test, &hkdf);
	err = fscrypt_derive_extent_key(&hkdf, kt_nonce_na, key, sizeof(key));
	fscrypt_destroy_hkdf(&hkdf);
	KUNIT_ASSERT_EQ(test, err, 0);

	ei = kt_extent_info(test, sb, FSCRYPT_MODE_AES_256_XTS, 0,
			    kt_nonce_na);
	KUNIT_ASSERT_EQ(test, fscrypt_set_extent_raw_key(ei, key), 0);
	kt_check_block(test, ei, 5, kat_xts_ct_head, kat_xts_ct_sha256);
	fscrypt_put_extent_info(ei);
}

static void kt_set_adiantum_key(struct kunit *test,
				struct fscrypt_extent_info *ei)
{
	int err = fscrypt_set_extent_raw_key(ei, kat_direct_key_adiantum);

	KUNIT_ASSERT_EQ(test, err, 0);
}

static void test_adiantum_block(struct kunit *test)
{
	struct super_block *sb = kt_sb(test, &kt_extent_cop);
	struct fscrypt_extent_info *ei;

	ei = kt_extent_info(test, sb, FSCRYPT_MODE_ADIANTUM,
			    FSCRYPT_POLICY_FLAG_DIRECT_KEY, kt_nonce_nb);
	kt_set_adiantum_key(test, ei);
	kt_check_block(test, ei, 7, kat_adiantum_ct_head,
		       kat_adiantum_ct_sha256);
	fscrypt_put_extent_info(ei);

	ei = kt_extent_info(test, sb, FSCRYPT_MODE_ADIANTUM,
			    FSCRYPT_POLICY_FLAG_DIRECT_KEY, kt_nonce_nc);
	kt_set_adiantum_key(test, ei);
	kt_check_block(test, ei, 0, kat_adiantum0_ct_head,
		       kat_adiantum0_ct_sha256);
	fscrypt_put_extent_info(ei);
}

/*
 * The last block index an extent can have works both ways.  (One more is a
 * caller bug: it warns, so it is not exercised here.)
 */
static void test_block_index_limit(struct kunit *test)
{
	struct super_block *sb = kt_sb(test, &kt_extent_cop);
	struct page *page = kt_plaintext_page(test);
	struct fscrypt_extent_info *ei;
	int err;

	ei = kt_extent_info(test, sb, FSCRYPT_MODE_ADIANTUM,
			    FSCRYPT_POLICY_FLAG_DIRECT_KEY, kt_nonce_na);
	kt_set_adiantum_key(test, ei);
	err = fscrypt_encrypt_extent_blocks_inplace(ei, page, KT_BLOCK_SIZE, 0,
						    FSCRYPT_EXTENT_MAX_INDEX,
						    GFP_NOFS);
	KUNIT_EXPECT_EQ(test, err, 0);
	KUNIT_EXPECT_NE(test, memcmp(page_address(page),
				     page_address(kt_plaintext_page(test)),
				     KT_BLOCK_SIZE), 0);
	err = fscrypt_decrypt_extent_blocks(ei, page, KT_BLOCK_SIZE, 0,
					    FSCRYPT_EXTENT_MAX_INDEX);
	KUNIT_EXPECT_EQ(test, err, 0);
	KT_EXPECT_BYTES(test, page_address(page),
			page_address(kt_plaintext_page(test)), KT_BLOCK_SIZE);
	fscrypt_put_extent_info(ei);
}

/* ---- extent infos prepared for a file, as a filesystem gets them ---- */

/*
 * A master key as FS_IOC_ADD_ENCRYPTION_KEY leaves it, with one active
 * reference for the secret and one for the file's key setup.  Only its
 * references matter here: a file derives extent keys with its extent KDF.
 */
static struct fscrypt_master_key *kt_master_key(struct kunit *test,
						struct super_block *sb)
{
	struct fscrypt_master_key *mk;

	mk = kunit_kzalloc(test, sizeof(*mk), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mk);
	mk->mk_sb = sb;
	init_rwsem(&mk->mk_sem);
	refcount_set(&mk->mk_active_refs, 2);
	refcount_set(&mk->mk_struct_refs, 1);
	return mk;
}

/* The extent KDF of master key M, with one reference */
static struct fscrypt_extent_kdf *kt_extent_kdf(struct kunit *test)
{
	struct fscrypt_extent_kdf *kdf;
	u8 master[64];

	kt_master_key_bytes(master);
	kdf = fscrypt_new_extent_kdf(master, sizeof(master));
	KUNIT_ASSERT_FALSE(test, IS_ERR(kdf));
	return kdf;
}

/*
 * An encrypted regular file whose key is set up with @mk; with a plain v2
 * policy it holds the extent KDF of M.
 */
static struct inode *kt_keyed_file(struct kunit *test, struct super_block *sb,
				   struct fscrypt_master_key *mk, u8 mode,
				   u8 flags)
{
	struct fscrypt_policy_v2 policy = {
		.version = FSCRYPT_POLICY_V2,
		.contents_encryption_mode = mode,
		.filenames_encryption_mode = mode == FSCRYPT_MODE_ADIANTUM ?
			FSCRYPT_MODE_ADIANTUM : FSCRYPT_MODE_AES_256_CTS,
		.flags = flags,
	};
	struct inode *inode = kt_inode(test, sb, S_IFREG, true);
	struct fscrypt_info *ci;

	memcpy(policy.master_key_identifier, kt_key_id, sizeof(kt_key_id));
	ci = kt_set_info(test, inode, &policy, kt_nonce_nc);
	ci->ci_master_key = mk;
	if (!(flags & FSCRYPT_POLICY_FLAG_DIRECT_KEY))
		ci->ci_extent_kdf = kt_extent_kdf(test);
	return inode;
}

static void kt_make_context(u8 *ctx, u8 mode, u8 flags, const u8 *nonce)
{
	ctx[0] = FSCRYPT_EXTENT_CONTEXT_V1;
	ctx[1] = mode;
	ctx[2] = flags;
	memcpy(&ctx[3], kt_key_id, FSCRYPT_KEY_IDENTIFIER_SIZE);
	memcpy(&ctx[3 + FSCRYPT_KEY_IDENTIFIER_SIZE], nonce, 16);
}

/*
 * The whole path of a plain v2 file: load an extent's context, derive its key
 * from the master key, encrypt, compare with the known answer.
 */
static void test_load_per_extent_key(struct kunit *test)
{
	struct super_block *sb = kt_sb(test, &kt_extent_cop);
	struct fscrypt_master_key *mk = kt_master_key(test, sb);
	struct inode *inode = kt_keyed_file(test, sb, mk,
					    FSCRYPT_MODE_AES_256_XTS, 0);
	struct fscrypt_extent_kdf *kdf = inode->i_crypt_info->ci_extent_kdf;
	struct fscrypt_extent_info *ei, *fresh;
	u8 ctx[35];

	/*
	 * The master key's own reference, which FS_IOC_REMOVE_ENCRYPTION_KEY
	 * drops: the file goes on deriving with its reference.
	 */
	refcount_inc(&kdf->refs);
	fscrypt_put_extent_kdf(kdf);
	KUNIT_EXPECT_EQ(test, refcount_read(&kdf->refs), 1);

	kt_make_context(ctx, FSCRYPT_MODE_AES_256_XTS, 0, kt_nonce_na);
	ei = fscrypt_load_extent_info(inode, ctx, sizeof(ctx));
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(ei), "error %ld", PTR_ERR(ei));
	KUNIT_EXPECT_EQ(test, refcount_read(&mk->mk_active_refs), 3);
	kt_check_block(test, ei, 5, kat_xts_ct_head, kat_xts_ct_sha256);

	/* A new extent gets a nonce of its own, hence another key */
	fresh = fscrypt_new_extent_info(inode);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(fresh), "error %ld",
			       PTR_ERR(fresh));
	KUNIT_EXPECT_NE(test, memcmp(fresh->nonce, kt_nonce_na, 16), 0);
	KUNIT_EXPECT_EQ(test, refcount_read(&mk->mk_active_refs), 4);

	fscrypt_put_extent_info(fresh);
	fscrypt_put_extent_info(ei);
	KUNIT_EXPECT_EQ(test, refcount_read(&mk->mk_active_refs), 2);
	fscrypt_put_extent_kdf(kdf);
}

/* The same for DIRECT_KEY: the file's per-mode key, the nonce in the IV */
static void test_load_direct_key(struct kunit *test)
{
	struct super_block *sb = kt_sb(test, &kt_extent_cop);
	struct fscrypt_master_key *mk = kt_master_key(test, sb);
	struct inode *inode = kt_keyed_file(test, sb, mk, FSCRYPT_MODE_ADIANTUM,
					    FSCRYPT_POLICY_FLAG_DIRECT_KEY);
	struct fscrypt_info *ci = inode->i_crypt_info;
	struct crypto_skcipher *tfm;
	struct fscrypt_extent_info *ei;
	u8 ctx[35];

	tfm = fscrypt_allocate_skcipher(ci->ci_mode, kat_direct_key_adiantum,
					inode);
	KUNIT_ASSERT_FALSE(test, IS_ERR(tfm));
	ci->ci_enc_key.tfm = tfm;

	kt_make_context(ctx, FSCRYPT_MODE_ADIANTUM,
			FSCRYPT_POLICY_FLAG_DIRECT_KEY, kt_nonce_nb);
	ei = fscrypt_load_extent_info(inode, ctx, sizeof(ctx));
	KUNIT_EXPECT_FALSE_MSG(test, IS_ERR(ei), "error %ld", PTR_ERR(ei));
	if (!IS_ERR(ei)) {
		KUNIT_EXPECT_PTR_EQ(test, ei->key.tfm, tfm);
		kt_check_block(test, ei, 7, kat_adiantum_ct_head,
			       kat_adiantum_ct_sha256);
		fscrypt_put_extent_info(ei);
	}
	KUNIT_EXPECT_EQ(test, refcount_read(&mk->mk_active_refs), 2);
	crypto_free_skcipher(tfm);
}

/* Contexts that do not belong to the file, and keys that are gone */
static void test_load_refused(struct kunit *test)
{
	struct super_block *sb = kt_sb(test, &kt_extent_cop);
	struct fscrypt_master_key *mk = kt_master_key(test, sb);
	struct inode *inode = kt_keyed_file(test, sb, mk,
					    FSCRYPT_MODE_AES_256_XTS, 0);
	struct inode *locked = kt_inode(test, sb, S_IFREG, true);
	u8 ctx[36];

	kt_make_context(ctx, FSCRYPT_MODE_AES_256_XTS, 0, kt_nonce_na);
	ctx[35] = 0;
	KUNIT_EXPECT_EQ(test, PTR_ERR(fscrypt_load_extent_info(inode, ctx, 34)),
			-EUCLEAN);
	KUNIT_EXPECT_EQ(test, PTR_ERR(fscrypt_load_extent_info(inode, ctx, 36)),
			-EUCLEAN);
	ctx[0] = 2;
	KUNIT_EXPECT_EQ(test, PTR_ERR(fscrypt_load_extent_info(inode, ctx, 35)),
			-EUCLEAN);
	kt_make_context(ctx, FSCRYPT_MODE_ADIANTUM, 0, kt_nonce_na);
	KUNIT_EXPECT_EQ(test, PTR_ERR(fscrypt_load_extent_info(inode, ctx, 35)),
			-EUCLEAN);
	kt_make_context(ctx, FSCRYPT_MODE_AES_256_XTS,
			FSCRYPT_POLICY_FLAG_DIRECT_KEY, kt_nonce_na);
	KUNIT_EXPECT_EQ(test, PTR_ERR(fscrypt_load_extent_info(inode, ctx, 35)),
			-EUCLEAN);
	kt_make_context(ctx, FSCRYPT_MODE_AES_256_XTS, 0, kt_nonce_na);
	ctx[3] ^= 1;	/* another master key */
	KUNIT_EXPECT_EQ(test, PTR_ERR(fscrypt_load_extent_info(inode, ctx, 35)),
			-EUCLEAN);

	/* Without the file's key, or with no extent KDF in its key setup */
	kt_make_context(ctx, FSCRYPT_MODE_AES_256_XTS, 0, kt_nonce_na);
	KUNIT_EXPECT_EQ(test, PTR_ERR(fscrypt_load_extent_info(locked, ctx, 35)),
			-ENOKEY);
	KUNIT_EXPECT_EQ(test, PTR_ERR(fscrypt_new_extent_info(locked)), -ENOKEY);
	fscrypt_put_extent_kdf(inode->i_crypt_info->ci_extent_kdf);
	inode->i_crypt_info->ci_extent_kdf = NULL;
	KUNIT_EXPECT_EQ(test, PTR_ERR(fscrypt_load_extent_info(inode, ctx, 35)),
			-ENOKEY);
	KUNIT_EXPECT_EQ(test, PTR_ERR(fscrypt_new_extent_info(inode)), -ENOKEY);

	/* No reference was left behind */
	KUNIT_EXPECT_EQ(test, refcount_read(&mk->mk_active_refs), 2);
}

/* ---- filename IVs ---- */

static void test_fname_iv_differs_from_extent_ivs(struct kunit *test)
{
	static const u64 indices[] = { 0, 1, 1ULL << 32,
				       FSCRYPT_EXTENT_MAX_INDEX };
	const struct fscrypt_policy_v2 policy = {
		.version = FSCRYPT_POLICY_V2,
		.contents_encryption_mode = FSCRYPT_MODE_ADIANTUM,
		.filenames_encryption_mode = FSCRYPT_MODE_ADIANTUM,
		.flags = FSCRYPT_POLICY_FLAG_DIRECT_KEY,
	};
	const struct fscrypt_policy_v2 plain_policy = {
		.version = FSCRYPT_POLICY_V2,
		.contents_encryption_mode = FSCRYPT_MODE_AES_256_XTS,
		.filenames_encryption_mode = FSCRYPT_MODE_AES_256_CTS,
	};
	struct super_block *sb = kt_sb(test, &kt_extent_cop);
	struct super_block *inode_sb = kt_sb(test, &kt_inode_cop);
	struct inode *dir = kt_inode(test, sb, S_IFDIR, true);
	struct inode *inode_dir = kt_inode(test, inode_sb, S_IFDIR, true);
	struct fscrypt_extent_info *ei;
	union fscrypt_iv fname_iv, iv;
	int i;

	/* The worst case: the extent nonce equals the directory's nonce. */
	kt_set_info(test, dir, &policy, kt_nonce_na);
	ei = kt_extent_info(test, sb, FSCRYPT_MODE_ADIANTUM,
			    FSCRYPT_POLICY_FLAG_DIRECT_KEY, kt_nonce_na);
	fscrypt_generate_fname_iv(&fname_iv, dir->i_crypt_info);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(fname_iv.lblk_num), U64_MAX);
	for (i = 0; i < ARRAY_SIZE(indices); i++) {
		fscrypt_generate_extent_iv(&iv, indices[i], ei);
		KUNIT_EXPECT_NE_MSG(test, memcmp(iv.raw, fname_iv.raw, 32), 0,
				    "block %llu", indices[i]);
	}

	/*
	 * Unchanged where contents are encrypted per inode: block 0, which
	 * would collide with block 0 of an extent with the same nonce.
	 */
	kt_set_info(test, inode_dir, &policy, kt_nonce_na);
	fscrypt_generate_fname_iv(&fname_iv, inode_dir->i_crypt_info);
	fscrypt_generate_extent_iv(&iv, 0, ei);
	KT_EXPECT_BYTES(test, fname_iv.raw, iv.raw, 32);
	fscrypt_put_extent_info(ei);

	/*
	 * Also unchanged for plain v2 policies: names use the per-file key,
	 * data the per-extent keys, so their IVs cannot meet.
	 */
	dir = kt_inode(test, sb, S_IFDIR, true);
	kt_set_info(test, dir, &plain_policy, kt_nonce_na);
	fscrypt_generate_fname_iv(&fname_iv, dir->i_crypt_info);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(fname_iv.lblk_num), 0ULL);
}

/* ---- I/O limits ---- */

struct kt_limit_case {
	const char *desc;
	u64 lblk;
	u64 nr_blocks;
	u64 expected;
};

static const struct kt_limit_case kt_limit_cases[] = {
	{ "inside the first extent", 0, 4, 4 },
	{ "up to the boundary", 0, 8, 8 },
	{ "across the boundary", 0, 9, 8 },
	{ "last block before the boundary", 7, 5, 1 },
	{ "one-block extent", 8, 10, 1 },
	{ "after the boundary", 9, 100, 31 },
	{ "one block", 3, 1, 1 },
	{ "no block", 3, 0, 0 },
	{ "in a hole", 40, 3, 1 },
};

static void kt_limit_desc(const struct kt_limit_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kt_limit, kt_limit_cases, kt_limit_desc);

static void test_limit_io_blocks(struct kunit *test)
{
	const struct kt_limit_case *c = test->param_value;
	struct super_block *sb = kt_sb(test, &kt_extent_cop);
	struct inode *inode = kt_inode(test, sb, S_IFREG, true);

	u64 nr = fscrypt_limit_io_blocks(inode, c->lblk, c->nr_blocks);

	KUNIT_EXPECT_EQ(test, nr, c->expected);
}

/* Unencrypted files and inode-based filesystems are not limited */
static void test_limit_io_blocks_unchanged(struct kunit *test)
{
	const struct fscrypt_policy_v2 policy = {
		.version = FSCRYPT_POLICY_V2,
		.contents_encryption_mode = FSCRYPT_MODE_AES_256_XTS,
		.filenames_encryption_mode = FSCRYPT_MODE_AES_256_CTS,
	};
	struct super_block *sb = kt_sb(test, &kt_extent_cop);
	struct super_block *inode_sb = kt_sb(test, &kt_inode_cop);
	struct inode *plain = kt_inode(test, sb, S_IFREG, false);
	struct inode *other = kt_inode(test, inode_sb, S_IFREG, true);

	kt_set_info(test, other, &policy, kt_nonce_na);
	KUNIT_EXPECT_EQ(test, fscrypt_limit_io_blocks(plain, 0, 100), 100ULL);
	KUNIT_EXPECT_EQ(test, fscrypt_limit_io_blocks(other, 0, 100), 100ULL);
}

/* ---- extent contexts ---- */

static bool kt_matches(const u8 *buf, u8 mode, u8 flags, const u8 *key_id)
{
	return fscrypt_extent_context_matches(buf, mode, flags, key_id);
}

static void test_extent_context(struct kunit *test)
{
	const u8 mode = FSCRYPT_MODE_AES_256_XTS;
	struct super_block *sb = kt_sb(test, &kt_extent_cop);
	struct fscrypt_extent_info *ei;
	struct fscrypt_extent_context *ctx;
	struct inode *inode;
	u8 buf[FSCRYPT_EXTENT_CONTEXT_MAX_SIZE];
	u8 want[FSCRYPT_EXTENT_CONTEXT_MAX_SIZE];
	u8 other_id[FSCRYPT_KEY_IDENTIFIER_SIZE];
	size_t len;

	ei = kt_extent_info(test, sb, mode, 0, kt_nonce_nb);
	len = fscrypt_extent_info_to_context(ei, buf);
	fscrypt_put_extent_info(ei);
	ctx = (struct fscrypt_extent_context *)buf;

	KUNIT_EXPECT_EQ(test, len, (size_t)35);
	KUNIT_EXPECT_EQ(test, ctx->version, FSCRYPT_EXTENT_CONTEXT_V1);
	KT_EXPECT_BYTES(test, ctx->nonce, kt_nonce_nb, 16);
	KUNIT_EXPECT_TRUE(test, fscrypt_extent_context_valid(buf, len));
	KUNIT_EXPECT_TRUE(test, kt_matches(buf, mode, 0, kt_key_id));

	/* The filesystem receives exactly these bytes */
	memcpy(want, buf, len);
	ei = kt_extent_info(test, sb, mode, 0, kt_nonce_nb);
	memset(buf, 0, sizeof(buf));
	inode = kt_inode(test, sb, S_IFREG, true);
	KUNIT_EXPECT_EQ(test, fscrypt_set_extent_context(inode, ei, buf), 0);
	KT_EXPECT_BYTES(test, buf, want, len);
	fscrypt_put_extent_info(ei);

	/* Wrong sizes and versions are not valid */
	KUNIT_EXPECT_FALSE(test, fscrypt_extent_context_valid(buf, 0));
	KUNIT_EXPECT_FALSE(test, fscrypt_extent_context_valid(buf, len - 1));
	KUNIT_EXPECT_FALSE(test, fscrypt_extent_context_valid(buf, len + 1));
	ctx->version = 2;
	KUNIT_EXPECT_FALSE(test, fscrypt_extent_context_valid(buf, len));
	ctx->version = FSCRYPT_EXTENT_CONTEXT_V1;

	/* Another mode, key derivation or master key does not match */
	memcpy(other_id, kt_key_id, sizeof(other_id));
	other_id[15] ^= 1;
	KUNIT_EXPECT_FALSE(test, kt_matches(buf, FSCRYPT_MODE_ADIANTUM, 0,
					    kt_key_id));
	KUNIT_EXPECT_FALSE(test, kt_matches(buf, mode,
					    FSCRYPT_POLICY_FLAG_DIRECT_KEY,
					    kt_key_id));
	KUNIT_EXPECT_FALSE(test, kt_matches(buf, mode, 0, other_id));
	/* Padding flags do not matter for the contents */
	KUNIT_EXPECT_TRUE(test, kt_matches(buf, mode,
					   FSCRYPT_POLICY_FLAGS_PAD_32,
					   kt_key_id));
}

static void test_new_nonces_differ(struct kunit *test)
{
	static const u8 zero[16];
	struct super_block *sb = kt_sb(test, &kt_extent_cop);
	struct fscrypt_extent_info *a, *b;

	a = kt_extent_info(test, sb, FSCRYPT_MODE_AES_256_XTS, 0, NULL);
	b = kt_extent_info(test, sb, FSCRYPT_MODE_AES_256_XTS, 0, NULL);
	KUNIT_EXPECT_NE(test, memcmp(a->nonce, b->nonce, 16), 0);
	KUNIT_EXPECT_NE(test, memcmp(a->nonce, zero, 16), 0);
	fscrypt_put_extent_info(a);
	fscrypt_put_extent_info(b);
}

/* ---- policies ---- */

struct kt_policy_case {
	const char *desc;
	union fscrypt_policy policy;
	bool on_extent_fs;
	bool on_inode_fs;
};

#define KT_V1(contents, names, fl) { .v1 = { .version = FSCRYPT_POLICY_V1, \
	.contents_encryption_mode = (contents),				\
	.filenames_encryption_mode = (names), .flags = (fl) } }
#define KT_V2(contents, names, fl) { .v2 = { .version = FSCRYPT_POLICY_V2, \
	.contents_encryption_mode = (contents),				\
	.filenames_encryption_mode = (names), .flags = (fl) } }

static const struct kt_policy_case kt_policy_cases[] = {
	{ "v2 AES-256-XTS/CTS",
	  KT_V2(FSCRYPT_MODE_AES_256_XTS, FSCRYPT_MODE_AES_256_CTS, 0),
	  true, true },
	{ "v2 AES-256-XTS/HCTR2",
	  KT_V2(FSCRYPT_MODE_AES_256_XTS, FSCRYPT_MODE_AES_256_HCTR2, 0),
	  true, true },
	{ "v2 Adiantum DIRECT_KEY",
	  KT_V2(FSCRYPT_MODE_ADIANTUM, FSCRYPT_MODE_ADIANTUM,
		FSCRYPT_POLICY_FLAG_DIRECT_KEY), true, true },
	{ "v2 AES-256-XTS/CTS DIRECT_KEY (modes differ)",
	  KT_V2(FSCRYPT_MODE_AES_256_XTS, FSCRYPT_MODE_AES_256_CTS,
		FSCRYPT_POLICY_FLAG_DIRECT_KEY), false, false },
	{ "v2 IV_INO_LBLK_64",
	  KT_V2(FSCRYPT_MODE_AES_256_XTS, FSCRYPT_MODE_AES_256_CTS,
		FSCRYPT_POLICY_FLAG_IV_INO_LBLK_64), false, true },
	{ "v2 IV_INO_LBLK_32",
	  KT_V2(FSCRYPT_MODE_AES_256_XTS, FSCRYPT_MODE_AES_256_CTS,
		FSCRYPT_POLICY_FLAG_IV_INO_LBLK_32), false, true },
	{ "v1 AES-256-XTS/CTS",
	  KT_V1(FSCRYPT_MODE_AES_256_XTS, FSCRYPT_MODE_AES_256_CTS, 0),
	  false, true },
	{ "v1 Adiantum DIRECT_KEY",
	  KT_V1(FSCRYPT_MODE_ADIANTUM, FSCRYPT_MODE_ADIANTUM,
		FSCRYPT_POLICY_FLAG_DIRECT_KEY), false, true },
};

static void kt_policy_desc(const struct kt_policy_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kt_policy, kt_policy_cases, kt_policy_desc);

static void test_policy_acceptance(struct kunit *test)
{
	const struct kt_policy_case *c = test->param_value;
	struct inode *dir = kt_inode(test, kt_sb(test, &kt_extent_cop),
				     S_IFDIR, false);
	struct inode *inode_dir = kt_inode(test, kt_sb(test, &kt_inode_cop),
					   S_IFDIR, false);

	bool on_extent_fs = fscrypt_supported_policy(&c->policy, dir);
	bool on_inode_fs = fscrypt_supported_policy(&c->policy, inode_dir);

	KUNIT_EXPECT_EQ_MSG(test, on_extent_fs, c->on_extent_fs,
			    "extent-based filesystem");
	KUNIT_EXPECT_EQ_MSG(test, on_inode_fs, c->on_inode_fs,
			    "inode-based filesystem");
}

static void test_have_same_policy(struct kunit *test)
{
	struct fscrypt_policy_v2 policy = {
		.version = FSCRYPT_POLICY_V2,
		.contents_encryption_mode = FSCRYPT_MODE_AES_256_XTS,
		.filenames_encryption_mode = FSCRYPT_MODE_AES_256_CTS,
	};
	struct super_block *sb = kt_sb(test, &kt_extent_cop);
	struct inode *a = kt_inode(test, sb, S_IFREG, true);
	struct inode *b = kt_inode(test, sb, S_IFREG, true);
	struct inode *c = kt_inode(test, sb, S_IFREG, true);
	struct inode *plain1 = kt_inode(test, sb, S_IFREG, false);
	struct inode *plain2 = kt_inode(test, sb, S_IFREG, false);

	memcpy(policy.master_key_identifier, kt_key_id, 16);
	kt_set_info(test, a, &policy, kt_nonce_na);
	/* Another file of the same policy has its own nonce */
	kt_set_info(test, b, &policy, kt_nonce_nb);
	policy.master_key_identifier[0] ^= 1;
	kt_set_info(test, c, &policy, kt_nonce_na);

	KUNIT_EXPECT_EQ(test, fscrypt_have_same_policy(a, b), 1);
	KUNIT_EXPECT_EQ(test, fscrypt_have_same_policy(a, c), 0);
	KUNIT_EXPECT_EQ(test, fscrypt_have_same_policy(a, plain1), 0);
	KUNIT_EXPECT_EQ(test, fscrypt_have_same_policy(plain1, a), 0);
	KUNIT_EXPECT_EQ(test, fscrypt_have_same_policy(plain1, plain2), 1);
}

/*
 * Not a pass/fail check of speed: reports what a prepared per-extent key
 * costs, the time of a derivation plus transform, and the memory each one
 * holds, so that changes to the cache can be compared.
 */
static void test_per_extent_key_cost(struct kunit *test)
{
	enum { N = 256 };
	struct super_block *sb = kt_sb(test, &kt_extent_cop);
	struct fscrypt_extent_info **eis;
	struct fscrypt_hkdf hkdf;
	unsigned long slab_before, slab_after;
	u64 t0, t1;
	u8 key[64];
	int i, err;

	eis = kunit_kcalloc(test, N, sizeof(*eis), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, eis);
	kt_init_hkdf(test, &hkdf);
	slab_before = global_node_page_state_pages(NR_SLAB_UNRECLAIMABLE_B);
	t0 = ktime_get_ns();
	for (i = 0; i < N; i++) {
		eis[i] = kt_extent_info(test, sb, FSCRYPT_MODE_AES_256_XTS, 0,
					NULL);
		err = fscrypt_derive_extent_key(&hkdf, eis[i]->nonce, key,
						sizeof(key));
		if (!err)
			err = fscrypt_set_extent_raw_key(eis[i], key);
		KUNIT_ASSERT_EQ(test, err, 0);
	}
	t1 = ktime_get_ns();
	slab_after = global_node_page_state_pages(NR_SLAB_UNRECLAIMABLE_B);
	for (i = 0; i < N; i++)
		fscrypt_put_extent_info(eis[i]);
	fscrypt_destroy_hkdf(&hkdf);
	memzero_explicit(key, sizeof(key));

	kunit_info(test, "per-extent key, AES-256-XTS (%s): %llu ns and about %ld bytes of slab each (%d keys)\n",
		   fscrypt_modes[FSCRYPT_MODE_AES_256_XTS].cipher_str,
		   (t1 - t0) / N,
		   (long)(slab_after - slab_before) * (long)PAGE_SIZE / N, N);
}

static struct kunit_case fscrypt_extent_test_cases[] = {
	KUNIT_CASE_PARAM(test_extent_iv, kt_iv_gen_params),
	KUNIT_CASE(test_per_extent_key),
	KUNIT_CASE(test_existing_derivations),
	KUNIT_CASE(test_aes_xts_block),
	KUNIT_CASE(test_adiantum_block),
	KUNIT_CASE(test_block_index_limit),
	KUNIT_CASE(test_load_per_extent_key),
	KUNIT_CASE(test_load_direct_key),
	KUNIT_CASE(test_load_refused),
	KUNIT_CASE(test_fname_iv_differs_from_extent_ivs),
	KUNIT_CASE_PARAM(test_limit_io_blocks, kt_limit_gen_params),
	KUNIT_CASE(test_limit_io_blocks_unchanged),
	KUNIT_CASE(test_extent_context),
	KUNIT_CASE(test_new_nonces_differ),
	KUNIT_CASE_PARAM(test_policy_acceptance, kt_policy_gen_params),
	KUNIT_CASE(test_have_same_policy),
	KUNIT_CASE(test_per_extent_key_cost),
	{}
};

static struct kunit_suite fscrypt_extent_test_suite = {
	.name = "fscrypt-extent",
	.test_cases = fscrypt_extent_test_cases,
};

kunit_test_suite(fscrypt_extent_test_suite);

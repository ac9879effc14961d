// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for encryption of file contents per extent: IVs, per-extent
 * keys, one block of ciphertext per mode, the life of a master key and of the
 * keys derived from it, the filesystem's transforms, filename IVs, extent
 * contexts and the policies such a filesystem accepts.
 * Also extents shorter than a block, encrypted as one data unit.
 * And the checks of inode and extent contexts given without the key.
 *
 * The known answers below come from tools/fscrypt-kat.py in the btrfs-fscrypt
 * project, which computes them with Python's hashlib, hmac and an AES
 * library, independently of this code.  Its inputs:
 *   master key M  = 00 01 02 ... 3f (64 bytes)
 *   nonces NA     = a0 a1 ... af, NB = 5a * 16, NC = 00 * 15 || 01
 *   plaintext P[i] = (i * 29 + (i >> 8)) & 0xff, 4096 bytes
 *   short extents: P[0..999] and 8 zero bytes (1008), IV of block 0
 *
 * The tests use a made-up superblock and inodes: nothing here needs a
 * mounted filesystem.
 */

#include <kunit/test.h>
#include <asm/unaligned.h>
#include <crypto/sha2.h>
#include <crypto/skcipher.h>
#include <linux/bio.h>
#include <linux/pagemap.h>

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

/* AES-256-XTS, key NA, short extent: first 32 bytes */
static const u8 kat_xts_short_ct_head[32] = {
	0x07, 0x34, 0x4c, 0x6c, 0xfa, 0x72, 0x3a, 0xfa,
	0x49, 0x2e, 0x20, 0xe8, 0x8e, 0xdd, 0x8e, 0x14,
	0x44, 0x2b, 0x30, 0x55, 0xdd, 0xa4, 0x0b, 0x0e,
	0xc3, 0xde, 0xf5, 0xc0, 0xc4, 0xf8, 0xb0, 0xb0,
};

/* AES-256-XTS, key NA, short extent: SHA-256 of the 1008 bytes */
static const u8 kat_xts_short_ct_sha256[32] = {
	0x73, 0x87, 0xdf, 0xb9, 0xe6, 0x11, 0xaf, 0x3a,
	0xcd, 0xd3, 0x3f, 0xc7, 0x68, 0xb1, 0xd2, 0x3f,
	0xab, 0x4d, 0x3d, 0x75, 0xca, 0x8d, 0xfb, 0x5f,
	0x7d, 0x1e, 0x4a, 0x2e, 0xf7, 0x17, 0x38, 0xb9,
};

/* Adiantum DIRECT_KEY, nonce NC, short extent: first 32 bytes */
static const u8 kat_adiantum_short_ct_head[32] = {
	0x0c, 0x3b, 0x59, 0xed, 0x12, 0x0d, 0x0c, 0x31,
	0x50, 0x6b, 0x84, 0x2d, 0xeb, 0xad, 0xe9, 0x6a,
	0x29, 0x52, 0xe4, 0xb3, 0x1f, 0x1c, 0x95, 0xe5,
	0xad, 0xc5, 0x5f, 0x3c, 0xbb, 0x77, 0x02, 0x2e,
};

/* Adiantum DIRECT_KEY, nonce NC, short extent: SHA-256 of the 1008 bytes */
static const u8 kat_adiantum_short_ct_sha256[32] = {
	0x62, 0x29, 0x4f, 0xc4, 0xf1, 0xb1, 0x89, 0x25,
	0xca, 0x63, 0xae, 0xb9, 0xfa, 0xd2, 0xc3, 0x1f,
	0xf2, 0xfe, 0x9f, 0x31, 0xd4, 0xf7, 0x73, 0x8f,
	0x4b, 0xbe, 0x57, 0x50, 0xea, 0xf8, 0x20, 0x2a,
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
	.flags = FS_CFLG_EXTENT_ENCRYPTION,
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

	ei = fscrypt_alloc_extent_info(NULL, &fscrypt_modes[mode],
				       sb->s_blocksize_bits, flags, kt_key_id,
				       nonce, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ei);
	return ei;
}

/* The transforms of @mode, as a filesystem gets them with its first file */
static struct fscrypt_extent_tfm_pool *kt_pool(struct kunit *test, u8 mode)
{
	struct fscrypt_extent_tfm_pool *pool;

	pool = fscrypt_create_extent_tfm_pool(&fscrypt_modes[mode]);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(pool), "error %ld",
			       PTR_ERR(pool));
	return pool;
}

/* Give @ei the key @key, to be set on the transforms of @pool */
static void kt_set_key(struct fscrypt_extent_info *ei,
		       struct fscrypt_extent_tfm_pool *pool, const u8 *key)
{
	ei->pool = pool;
	ei->key_id = fscrypt_new_extent_key_id();
	memcpy(ei->raw_key, key, ei->mode->keysize);
}

/* How many transforms of @pool have a key other than the blank one set */
static unsigned int kt_nr_keyed(const struct fscrypt_extent_tfm_pool *pool)
{
	unsigned int i, n = 0;

	for (i = 0; i < pool->nr_tfms; i++)
		n += pool->tfms[i].key_id != 0;
	return n;
}

/* How many transforms of @pool are idle: all of them between calls */
static unsigned int kt_nr_idle(struct fscrypt_extent_tfm_pool *pool)
{
	struct fscrypt_extent_tfm *et;
	unsigned int n = 0;

	spin_lock(&pool->lock);
	list_for_each_entry(et, &pool->idle, lru)
		n++;
	spin_unlock(&pool->lock);
	return n;
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
 * Encrypt @page as block @index of the extent of @ei into a bounce page, with
 * fscrypt_encrypt_extent_bio() as a filesystem writes a one-page bio back.
 */
static struct page *kt_encrypt_page(struct kunit *test,
				    struct fscrypt_extent_info *ei,
				    struct page *page, u64 index)
{
	struct bio_vec src_vec, dst_vec;
	struct bio src, dst;
	struct bvec_iter iter;
	struct page *bounce;
	int err;

	KUNIT_ASSERT_EQ(test, fscrypt_initialize(0), 0);
	bio_init(&src, NULL, &src_vec, 1, REQ_OP_WRITE);
	__bio_add_page(&src, page, KT_BLOCK_SIZE, 0);
	bio_init(&dst, NULL, &dst_vec, 1, REQ_OP_WRITE);
	iter = src.bi_iter;
	err = fscrypt_encrypt_extent_bio(ei, &src, &iter, index, &dst);
	KUNIT_ASSERT_EQ(test, err, 0);
	KUNIT_ASSERT_EQ(test, dst.bi_vcnt, 1);
	KUNIT_EXPECT_EQ(test, iter.bi_size, 0);
	bounce = dst_vec.bv_page;
	KUNIT_EXPECT_PTR_EQ(test, fscrypt_pagecache_page(bounce), page);
	bio_uninit(&src);
	bio_uninit(&dst);
	return bounce;
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

	bounce = kt_encrypt_page(test, ei, page, index);
	KT_EXPECT_BYTES(test, page_address(bounce), head, 32);
	sha256(page_address(bounce), KT_BLOCK_SIZE, sum);
	KT_EXPECT_BYTES(test, sum, digest, sizeof(sum));

	err = fscrypt_decrypt_extent_blocks(ei, bounce, KT_BLOCK_SIZE, 0, index);
	KUNIT_EXPECT_EQ(test, err, 0);
	KT_EXPECT_BYTES(test, page_address(bounce), page_address(page),
			KT_BLOCK_SIZE);
	fscrypt_free_bounce_page(bounce);
}

/* Encrypt P with @ei into a bounce page and decrypt it back */
static void kt_check_roundtrip(struct kunit *test,
			       struct fscrypt_extent_info *ei)
{
	struct page *page = kt_plaintext_page(test);
	struct page *bounce;

	bounce = kt_encrypt_page(test, ei, page, 0);
	KUNIT_EXPECT_NE(test, memcmp(page_address(bounce), page_address(page),
				     KT_BLOCK_SIZE), 0);
	KUNIT_EXPECT_EQ(test, fscrypt_decrypt_extent_blocks(ei, bounce,
							    KT_BLOCK_SIZE, 0,
							    0), 0);
	KT_EXPECT_BYTES(test, page_address(bounce), page_address(page),
			KT_BLOCK_SIZE);
	fscrypt_free_bounce_page(bounce);
}

static bool kt_pool_has_key(const struct fscrypt_extent_tfm_pool *pool,
			    u64 key_id)
{
	unsigned int i;

	for (i = 0; i < pool->nr_tfms; i++)
		if (pool->tfms[i].key_id == key_id)
			return true;
	return false;
}

/*
 * The extent of the AES-256-XTS known answer: nonce NA, with the key derived
 * from the test master key, set to be used on a new pool returned in *@pool.
 */
static struct fscrypt_extent_info *
kt_xts_kat_extent(struct kunit *test, struct fscrypt_extent_tfm_pool **pool)
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
	*pool = kt_pool(test, FSCRYPT_MODE_AES_256_XTS);
	ei = kt_extent_info(test, sb, FSCRYPT_MODE_AES_256_XTS, 0,
			    kt_nonce_na);
	kt_set_key(ei, *pool, key);
	memzero_explicit(key, sizeof(key));
	return ei;
}

static void test_aes_xts_block(struct kunit *test)
{
	struct fscrypt_extent_tfm_pool *pool;
	struct fscrypt_extent_info *ei = kt_xts_kat_extent(test, &pool);

	kt_check_block(test, ei, 5, kat_xts_ct_head, kat_xts_ct_sha256);
	fscrypt_put_extent_info(ei);
	fscrypt_destroy_extent_tfm_pool(pool);
}

static void test_adiantum_block(struct kunit *test)
{
	struct super_block *sb = kt_sb(test, &kt_extent_cop);
	struct fscrypt_extent_tfm_pool *pool = kt_pool(test,
						       FSCRYPT_MODE_ADIANTUM);
	struct fscrypt_extent_info *ei;

	ei = kt_extent_info(test, sb, FSCRYPT_MODE_ADIANTUM,
			    FSCRYPT_POLICY_FLAG_DIRECT_KEY, kt_nonce_nb);
	kt_set_key(ei, pool, kat_direct_key_adiantum);
	kt_check_block(test, ei, 7, kat_adiantum_ct_head,
		       kat_adiantum_ct_sha256);
	fscrypt_put_extent_info(ei);

	ei = kt_extent_info(test, sb, FSCRYPT_MODE_ADIANTUM,
			    FSCRYPT_POLICY_FLAG_DIRECT_KEY, kt_nonce_nc);
	kt_set_key(ei, pool, kat_direct_key_adiantum);
	kt_check_block(test, ei, 0, kat_adiantum0_ct_head,
		       kat_adiantum0_ct_sha256);
	fscrypt_put_extent_info(ei);
	fscrypt_destroy_extent_tfm_pool(pool);
}

/* ---- an extent shorter than a block ---- */

#define KT_SHORT_DATA	1000
#define KT_SHORT_LEN	1008

/*
 * P's first 1000 bytes and 8 zero bytes, at @offs in a page of their own, as
 * a filesystem pads an inline extent before it encrypts it.
 */
static struct page *kt_short_page(struct kunit *test, unsigned int offs)
{
	struct page *plain = kt_plaintext_page(test);
	u8 *p = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	memcpy(p + offs, page_address(plain), KT_SHORT_DATA);
	return virt_to_page(p);
}

/*
 * Encrypt the short extent at @offs, compare with the known answer, check
 * that nothing around it changed, and decrypt it back.  (A length that is not
 * a multiple of 16 or more than a block is a caller bug: it warns, so it is
 * not exercised here.)
 */
static void kt_check_short(struct kunit *test, struct fscrypt_extent_info *ei,
			   unsigned int offs, const u8 *head, const u8 *digest)
{
	struct page *page = kt_short_page(test, offs);
	struct page *want = kt_short_page(test, offs);
	u8 *p = page_address(page);
	u8 sum[SHA256_DIGEST_SIZE];

	KUNIT_ASSERT_EQ(test, fscrypt_encrypt_short_extent(ei, page,
							   KT_SHORT_LEN, offs),
			0);
	KT_EXPECT_BYTES(test, p + offs, head, 32);
	sha256(p + offs, KT_SHORT_LEN, sum);
	KT_EXPECT_BYTES(test, sum, digest, sizeof(sum));
	KUNIT_EXPECT_NULL(test, memchr_inv(p, 0, offs));
	KUNIT_EXPECT_NULL(test, memchr_inv(p + offs + KT_SHORT_LEN, 0,
					   PAGE_SIZE - offs - KT_SHORT_LEN));

	KUNIT_ASSERT_EQ(test, fscrypt_decrypt_short_extent(ei, page,
							   KT_SHORT_LEN, offs),
			0);
	KT_EXPECT_BYTES(test, p, page_address(want), PAGE_SIZE);
}

static void test_short_extent(struct kunit *test)
{
	struct super_block *sb = kt_sb(test, &kt_extent_cop);
	struct fscrypt_extent_tfm_pool *pool;
	struct fscrypt_extent_info *ei = kt_xts_kat_extent(test, &pool);
	struct page *page, *bounce;

	kt_check_short(test, ei, 0, kat_xts_short_ct_head,
		       kat_xts_short_ct_sha256);
	/* Where it is in the page does not change the ciphertext. */
	kt_check_short(test, ei, 512, kat_xts_short_ct_head,
		       kat_xts_short_ct_sha256);

	/* XTS: the start of block 0 of the extent, as a whole block. */
	page = kt_short_page(test, 0);
	bounce = kt_encrypt_page(test, ei, page, 0);
	KT_EXPECT_BYTES(test, page_address(bounce), kat_xts_short_ct_head, 32);
	fscrypt_free_bounce_page(bounce);

	fscrypt_put_extent_info(ei);
	fscrypt_destroy_extent_tfm_pool(pool);

	pool = kt_pool(test, FSCRYPT_MODE_ADIANTUM);
	ei = kt_extent_info(test, sb, FSCRYPT_MODE_ADIANTUM,
			    FSCRYPT_POLICY_FLAG_DIRECT_KEY, kt_nonce_nc);
	kt_set_key(ei, pool, kat_direct_key_adiantum);
	kt_check_short(test, ei, 0, kat_adiantum_short_ct_head,
		       kat_adiantum_short_ct_sha256);
	fscrypt_put_extent_info(ei);
	fscrypt_destroy_extent_tfm_pool(pool);
}

/*
 * The last block index an extent can have works both ways.  (One more is a
 * caller bug: it warns, so it is not exercised here.)
 */
static void test_block_index_limit(struct kunit *test)
{
	struct super_block *sb = kt_sb(test, &kt_extent_cop);
	struct page *page = kt_plaintext_page(test);
	struct fscrypt_extent_tfm_pool *pool = kt_pool(test,
						       FSCRYPT_MODE_ADIANTUM);
	struct fscrypt_extent_info *ei;
	int err;

	ei = kt_extent_info(test, sb, FSCRYPT_MODE_ADIANTUM,
			    FSCRYPT_POLICY_FLAG_DIRECT_KEY, kt_nonce_na);
	kt_set_key(ei, pool, kat_direct_key_adiantum);
	err = fscrypt_encrypt_extent_blocks_inplace(ei, page, KT_BLOCK_SIZE, 0,
						    FSCRYPT_EXTENT_MAX_INDEX);
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
	fscrypt_destroy_extent_tfm_pool(pool);
}

/*
 * fscrypt_decrypt_extent_bio() decrypts each segment of the bio in place with
 * the index of its own first block: two pages encrypted as blocks 5 and 6 of
 * the extent (block 5 is the known answer) come back as the plaintext.
 */
static void test_decrypt_bio(struct kunit *test)
{
	struct fscrypt_extent_tfm_pool *pool;
	struct fscrypt_extent_info *ei;
	struct page *plain = kt_plaintext_page(test);
	struct page *pages[2];
	struct bio_vec bvecs[2];
	struct bvec_iter iter;
	struct bio bio;
	u8 sum[SHA256_DIGEST_SIZE];
	int i, err;

	ei = kt_xts_kat_extent(test, &pool);

	bio_init(&bio, NULL, bvecs, ARRAY_SIZE(bvecs), REQ_OP_READ);
	for (i = 0; i < ARRAY_SIZE(pages); i++) {
		pages[i] = kt_plaintext_page(test);
		err = fscrypt_encrypt_extent_blocks_inplace(ei, pages[i],
							    KT_BLOCK_SIZE, 0,
							    5 + i);
		KUNIT_ASSERT_EQ(test, err, 0);
		__bio_add_page(&bio, pages[i], KT_BLOCK_SIZE, 0);
	}
	sha256(page_address(pages[0]), KT_BLOCK_SIZE, sum);
	KT_EXPECT_BYTES(test, sum, kat_xts_ct_sha256, sizeof(sum));
	KUNIT_EXPECT_NE(test, memcmp(page_address(pages[0]),
				     page_address(pages[1]), KT_BLOCK_SIZE), 0);

	/* The bio's own iterator is used up once it completes. */
	iter = bio.bi_iter;
	bio.bi_iter.bi_size = 0;
	KUNIT_EXPECT_EQ(test, fscrypt_decrypt_extent_bio(ei, &bio, &iter, 5),
			0);
	for (i = 0; i < ARRAY_SIZE(pages); i++)
		KT_EXPECT_BYTES(test, page_address(pages[i]),
				page_address(plain), KT_BLOCK_SIZE);
	bio_uninit(&bio);
	fscrypt_put_extent_info(ei);
	fscrypt_destroy_extent_tfm_pool(pool);
}

/*
 * fscrypt_encrypt_extent_bio() fills the bio it is given and stops there: three
 * pages written as blocks 5 to 7 of the extent go into a bio with room for
 * two, then into a second one.  Each bounce page holds its page encrypted
 * with the index of its own block (block 5 is the known answer) and points
 * back to it, and the iterator ends past the pages done.
 */
static void test_encrypt_bio(struct kunit *test)
{
	struct fscrypt_extent_tfm_pool *pool;
	struct fscrypt_extent_info *ei;
	struct page *pages[3], *expect[3];
	struct bio_vec src_vecs[3], dst_vecs[2];
	struct bvec_iter iter;
	struct bio src, dst;
	u8 sum[SHA256_DIGEST_SIZE];
	int i, err;

	KUNIT_ASSERT_EQ(test, fscrypt_initialize(0), 0);
	ei = kt_xts_kat_extent(test, &pool);

	bio_init(&src, NULL, src_vecs, ARRAY_SIZE(src_vecs), REQ_OP_WRITE);
	for (i = 0; i < ARRAY_SIZE(pages); i++) {
		pages[i] = kt_plaintext_page(test);
		/* Pages 1 and 2 differ from P, so that a swap would show. */
		((u8 *)page_address(pages[i]))[100] ^= i;
		expect[i] = virt_to_page(kunit_kmalloc(test, PAGE_SIZE,
						       GFP_KERNEL));
		memcpy(page_address(expect[i]), page_address(pages[i]),
		       KT_BLOCK_SIZE);
		err = fscrypt_encrypt_extent_blocks_inplace(ei, expect[i],
							    KT_BLOCK_SIZE, 0,
							    5 + i);
		KUNIT_ASSERT_EQ(test, err, 0);
		__bio_add_page(&src, pages[i], KT_BLOCK_SIZE, 0);
	}

	iter = src.bi_iter;
	bio_init(&dst, NULL, dst_vecs, ARRAY_SIZE(dst_vecs), REQ_OP_WRITE);
	KUNIT_EXPECT_EQ(test, fscrypt_encrypt_extent_bio(ei, &src, &iter, 5,
							 &dst), 0);
	KUNIT_ASSERT_EQ(test, dst.bi_vcnt, 2);
	KUNIT_EXPECT_EQ(test, iter.bi_size, KT_BLOCK_SIZE);
	KUNIT_EXPECT_EQ(test, kt_nr_idle(pool), pool->nr_tfms);
	for (i = 0; i < 2; i++) {
		struct page *bounce = dst_vecs[i].bv_page;

		KUNIT_EXPECT_PTR_EQ(test, fscrypt_pagecache_page(bounce),
				    pages[i]);
		KT_EXPECT_BYTES(test, page_address(bounce),
				page_address(expect[i]), KT_BLOCK_SIZE);
		if (i == 0) {
			sha256(page_address(bounce), KT_BLOCK_SIZE, sum);
			KT_EXPECT_BYTES(test, sum, kat_xts_ct_sha256,
					sizeof(sum));
		}
		fscrypt_free_bounce_page(bounce);
	}
	bio_uninit(&dst);

	bio_init(&dst, NULL, dst_vecs, ARRAY_SIZE(dst_vecs), REQ_OP_WRITE);
	KUNIT_EXPECT_EQ(test, fscrypt_encrypt_extent_bio(ei, &src, &iter, 7,
							 &dst), 0);
	KUNIT_ASSERT_EQ(test, dst.bi_vcnt, 1);
	KUNIT_EXPECT_EQ(test, iter.bi_size, 0);
	KUNIT_EXPECT_PTR_EQ(test, fscrypt_pagecache_page(dst_vecs[0].bv_page),
			    pages[2]);
	KT_EXPECT_BYTES(test, page_address(dst_vecs[0].bv_page),
			page_address(expect[2]), KT_BLOCK_SIZE);
	fscrypt_free_bounce_page(dst_vecs[0].bv_page);
	bio_uninit(&dst);
	bio_uninit(&src);

	fscrypt_put_extent_info(ei);
	fscrypt_destroy_extent_tfm_pool(pool);
}

/*
 * Blocks smaller than pages, as with 4 KiB sectors on 64 KiB pages: 1 KiB
 * blocks in a bio of one two-page vector, from its second block on.  Each
 * bounce page holds the blocks of its page at their offsets, each block
 * encrypted alone with its own index, and the transform is back in the pool.
 */
static void test_encrypt_bio_small_blocks(struct kunit *test)
{
	const unsigned int bs = 1024;
	struct super_block *sb = kt_sb(test, &kt_extent_cop);
	struct fscrypt_extent_tfm_pool *pool;
	struct fscrypt_extent_info *ei;
	struct bio_vec src_vecs[2], dst_vecs[4];
	struct bvec_iter iter;
	struct bio src, dst;
	u8 *plain, *expect;
	u8 key[64];
	unsigned int i;

	KUNIT_ASSERT_EQ(test, fscrypt_initialize(0), 0);
	sb->s_blocksize = bs;
	sb->s_blocksize_bits = ilog2(bs);
	pool = kt_pool(test, FSCRYPT_MODE_AES_256_XTS);
	ei = kt_extent_info(test, sb, FSCRYPT_MODE_AES_256_XTS, 0,
			    kt_nonce_nb);
	/* XTS refuses a key whose two halves are equal. */
	for (i = 0; i < sizeof(key); i++)
		key[i] = i * 13 + 1;
	kt_set_key(ei, pool, key);

	/* kmalloc() of two pages: page aligned and physically contiguous */
	plain = kunit_kmalloc(test, 2 * PAGE_SIZE, GFP_KERNEL);
	expect = kunit_kmalloc(test, 2 * PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, plain);
	KUNIT_ASSERT_NOT_NULL(test, expect);
	for (i = 0; i < 2 * PAGE_SIZE; i++)
		plain[i] = (i * 7 + (i >> 10)) & 0xff;
	memcpy(expect, plain, 2 * PAGE_SIZE);
	for (i = 0; i < 2 * PAGE_SIZE / bs; i++) {
		u8 *block = expect + i * bs;
		int err;

		err = fscrypt_encrypt_extent_blocks_inplace(ei,
							    virt_to_page(block),
							    bs,
							    offset_in_page(block),
							    i);
		KUNIT_ASSERT_EQ(test, err, 0);
	}

	bio_init(&src, NULL, src_vecs, ARRAY_SIZE(src_vecs), REQ_OP_WRITE);
	__bio_add_page(&src, virt_to_page(plain), 2 * PAGE_SIZE, 0);
	iter = src.bi_iter;
	bio_advance_iter(&src, &iter, bs);
	bio_init(&dst, NULL, dst_vecs, ARRAY_SIZE(dst_vecs), REQ_OP_WRITE);
	KUNIT_EXPECT_EQ(test, fscrypt_encrypt_extent_bio(ei, &src, &iter, 1,
							 &dst), 0);
	KUNIT_EXPECT_EQ(test, kt_nr_idle(pool), pool->nr_tfms);
	KUNIT_EXPECT_EQ(test, iter.bi_size, 0);
	KUNIT_ASSERT_EQ(test, dst.bi_vcnt, 2);
	for (i = 0; i < 2; i++) {
		struct bio_vec *bv = &dst_vecs[i];
		unsigned int offs = i ? 0 : bs;

		KUNIT_EXPECT_EQ(test, bv->bv_offset, offs);
		KUNIT_EXPECT_EQ(test, bv->bv_len, PAGE_SIZE - offs);
		KUNIT_EXPECT_PTR_EQ(test, fscrypt_pagecache_page(bv->bv_page),
				    virt_to_page(plain) + i);
		KT_EXPECT_BYTES(test, page_address(bv->bv_page) + offs,
				expect + i * PAGE_SIZE + offs, PAGE_SIZE - offs);
		fscrypt_free_bounce_page(bv->bv_page);
	}
	bio_uninit(&dst);
	bio_uninit(&src);

	fscrypt_put_extent_info(ei);
	memzero_explicit(key, sizeof(key));
	fscrypt_destroy_extent_tfm_pool(pool);
}

/* ---- the keys of a file, from FS_IOC_ADD_ENCRYPTION_KEY to eviction ---- */

/* What ->get_context returns: the v2 context kt_unlocked_file() stored */
static int kt_get_context(struct inode *inode, void *ctx, size_t len)
{
	const struct fscrypt_context_v2 *stored = inode->i_private;

	if (len < sizeof(*stored))
		return -ERANGE;
	memcpy(ctx, stored, sizeof(*stored));
	return sizeof(*stored);
}

static const struct fscrypt_operations kt_keyed_cop = {
	.flags = FS_CFLG_EXTENT_ENCRYPTION,
	.get_context = kt_get_context,
	.set_extent_context = kt_set_extent_context,
};

/* Add master key M as FS_IOC_ADD_ENCRYPTION_KEY does; return it */
static struct fscrypt_master_key *kt_add_master_key(struct kunit *test,
						    struct super_block *sb)
{
	struct fscrypt_key_specifier spec = {
		.type = FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER,
	};
	struct fscrypt_master_key *mk;
	u8 master[64];
	int err;

	kt_master_key_bytes(master);
	err = fscrypt_add_master_key_for_test(sb, master, sizeof(master),
					      spec.u.identifier);
	memzero_explicit(master, sizeof(master));
	KUNIT_ASSERT_EQ(test, err, 0);
	KT_EXPECT_BYTES(test, spec.u.identifier, kat_master_key_identifier,
			FSCRYPT_KEY_IDENTIFIER_SIZE);
	/* A structural reference, for the test to look at it throughout */
	mk = fscrypt_find_master_key(sb, &spec);
	KUNIT_ASSERT_NOT_NULL(test, mk);
	return mk;
}

/*
 * An encrypted regular file with a v2 policy of M, whose key is set up as
 * when it is opened (fscrypt_get_encryption_info()).  Its i_crypt_info is
 * NULL if M is not present.
 */
static struct inode *kt_unlocked_file(struct kunit *test,
				      struct super_block *sb, u8 mode,
				      u8 flags)
{
	struct inode *inode = kt_inode(test, sb, S_IFREG, true);
	struct fscrypt_context_v2 *ctx;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->version = FSCRYPT_CONTEXT_V2;
	ctx->contents_encryption_mode = mode;
	ctx->filenames_encryption_mode = mode == FSCRYPT_MODE_ADIANTUM ?
		FSCRYPT_MODE_ADIANTUM : FSCRYPT_MODE_AES_256_CTS;
	ctx->flags = flags;
	memcpy(ctx->master_key_identifier, kat_master_key_identifier,
	       FSCRYPT_KEY_IDENTIFIER_SIZE);
	memcpy(ctx->nonce, kt_nonce_nc, FSCRYPT_FILE_NONCE_SIZE);
	inode->i_private = ctx;
	KUNIT_ASSERT_EQ(test, fscrypt_get_encryption_info(inode, false), 0);
	return inode;
}

static void kt_make_context(u8 *ctx, u8 mode, u8 flags, const u8 *key_id,
			    const u8 *nonce)
{
	ctx[0] = FSCRYPT_EXTENT_CONTEXT_V1;
	ctx[1] = mode;
	ctx[2] = flags;
	memcpy(&ctx[3], key_id, FSCRYPT_KEY_IDENTIFIER_SIZE);
	memcpy(&ctx[3 + FSCRYPT_KEY_IDENTIFIER_SIZE], nonce, 16);
}

/* kt_make_context() as version 2, whose IVs start at data unit @first_du */
static void kt_make_context_v2(u8 *ctx, u8 mode, u8 flags, const u8 *key_id,
			       const u8 *nonce, u32 first_du)
{
	kt_make_context(ctx, mode, flags, key_id, nonce);
	ctx[0] = FSCRYPT_EXTENT_CONTEXT_V2;
	put_unaligned_le32(first_du, &ctx[FSCRYPT_EXTENT_CONTEXT_V1_SIZE]);
}

static struct fscrypt_extent_info *kt_load(struct kunit *test,
					   struct inode *inode, u8 mode,
					   u8 flags, const u8 *nonce)
{
	struct fscrypt_extent_info *ei;
	u8 ctx[35];

	kt_make_context(ctx, mode, flags, kat_master_key_identifier, nonce);
	ei = fscrypt_load_extent_info(inode, ctx, sizeof(ctx));
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(ei), "error %ld", PTR_ERR(ei));
	return ei;
}

/* FS_IOC_REMOVE_ENCRYPTION_KEY once the last user claim is gone */
static void kt_remove_secret(struct kunit *test, struct fscrypt_master_key *mk)
{
	int err;

	down_write(&mk->mk_sem);
	err = fscrypt_remove_master_key_secret(mk);
	up_write(&mk->mk_sem);
	KUNIT_EXPECT_EQ(test, err, 0);
}

/*
 * A plain v2 file: the extent keys are the known answers before and after
 * the master key is removed; no new file can be unlocked after the removal;
 * the key counts as incompletely removed while the file is in use, and when
 * it is evicted, the secret and every key set on a transform are wiped.
 */
static void test_key_lifetime_per_extent(struct kunit *test)
{
	const u8 mode = FSCRYPT_MODE_AES_256_XTS;
	struct super_block *sb = kt_sb(test, &kt_keyed_cop);
	struct fscrypt_master_key *mk = kt_add_master_key(test, sb);
	struct fscrypt_extent_info *ei, *fresh, *after;
	struct fscrypt_extent_tfm_pool *pool;
	struct inode *inode, *other;

	KUNIT_EXPECT_EQ(test, refcount_read(&mk->mk_active_refs), 1);
	inode = kt_unlocked_file(test, sb, mode, 0);
	KUNIT_ASSERT_NOT_NULL(test, inode->i_crypt_info);
	KUNIT_EXPECT_PTR_EQ(test, inode->i_crypt_info->ci_master_key, mk);
	KUNIT_EXPECT_EQ(test, refcount_read(&mk->mk_active_refs), 2);
	/* No per-file transform: only the filesystem's pool */
	KUNIT_EXPECT_NULL(test, inode->i_crypt_info->ci_enc_key.tfm);
	pool = inode->i_crypt_info->ci_extent_pool;
	KUNIT_ASSERT_NOT_NULL(test, pool);

	ei = kt_load(test, inode, mode, 0, kt_nonce_na);
	KT_EXPECT_BYTES(test, ei->raw_key, kat_extent_key_na, 64);
	kt_check_block(test, ei, 5, kat_xts_ct_head, kat_xts_ct_sha256);
	KUNIT_EXPECT_GE(test, kt_nr_keyed(pool), 1U);

	/* A new extent gets a nonce of its own, hence another key */
	fresh = fscrypt_new_extent_info(inode);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(fresh), "error %ld",
			       PTR_ERR(fresh));
	KUNIT_EXPECT_NE(test, memcmp(fresh->nonce, kt_nonce_na, 16), 0);
	KUNIT_EXPECT_NE(test, memcmp(fresh->raw_key, ei->raw_key, 64), 0);
	KUNIT_EXPECT_NE(test, fresh->key_id, ei->key_id);

	kt_remove_secret(test, mk);
	KUNIT_EXPECT_FALSE(test, is_master_key_secret_present(&mk->mk_secret));
	/* What FS_IOC_GET_ENCRYPTION_KEY_STATUS reads as incompletely removed */
	KUNIT_EXPECT_EQ(test, refcount_read(&mk->mk_active_refs), 1);

	other = kt_unlocked_file(test, sb, mode, 0);
	KUNIT_EXPECT_NULL(test, other->i_crypt_info);

	/* The file in use derives the same keys after the removal */
	after = kt_load(test, inode, mode, 0, kt_nonce_na);
	KT_EXPECT_BYTES(test, after->raw_key, kat_extent_key_na, 64);
	kt_check_block(test, after, 5, kat_xts_ct_head, kat_xts_ct_sha256);
	fscrypt_put_extent_info(after);
	fscrypt_put_extent_info(fresh);
	fscrypt_put_extent_info(ei);

	/* Eviction drops the last active reference */
	fscrypt_put_encryption_info(inode);
	KUNIT_EXPECT_EQ(test, refcount_read(&mk->mk_active_refs), 0);
	KUNIT_EXPECT_NULL(test, mk->mk_secret.hkdf.hmac_tfm);
	KUNIT_EXPECT_EQ(test, kt_nr_keyed(pool), 0U);

	fscrypt_put_master_key(mk);
	fscrypt_destroy_keyring(sb);
}

/*
 * DIRECT_KEY: every extent has the per-mode key, the nonce goes into the IV.
 * Adding the key again while a file still uses it keeps the HKDF state the
 * file derives with.
 */
static void test_key_lifetime_direct_key(struct kunit *test)
{
	const u8 mode = FSCRYPT_MODE_ADIANTUM;
	const u8 flags = FSCRYPT_POLICY_FLAG_DIRECT_KEY;
	struct super_block *sb = kt_sb(test, &kt_keyed_cop);
	struct fscrypt_master_key *mk = kt_add_master_key(test, sb);
	struct crypto_shash *hmac = mk->mk_secret.hkdf.hmac_tfm;
	struct fscrypt_extent_info *ei, *other;
	struct inode *inode;

	inode = kt_unlocked_file(test, sb, mode, flags);
	KUNIT_ASSERT_NOT_NULL(test, inode->i_crypt_info);
	ei = kt_load(test, inode, mode, flags, kt_nonce_nb);
	KT_EXPECT_BYTES(test, ei->raw_key, kat_direct_key_adiantum, 32);
	kt_check_block(test, ei, 7, kat_adiantum_ct_head,
		       kat_adiantum_ct_sha256);
	/* One key for all extents of the master key and mode */
	other = kt_load(test, inode, mode, flags, kt_nonce_nc);
	KUNIT_EXPECT_EQ(test, other->key_id, ei->key_id);
	kt_check_block(test, other, 0, kat_adiantum0_ct_head,
		       kat_adiantum0_ct_sha256);
	fscrypt_put_extent_info(other);

	kt_remove_secret(test, mk);
	KUNIT_EXPECT_EQ(test, refcount_read(&mk->mk_active_refs), 1);
	KUNIT_EXPECT_TRUE(test, mk->mk_hkdf_retained);
	KUNIT_EXPECT_PTR_EQ(test, kt_add_master_key(test, sb), mk);
	fscrypt_put_master_key(mk);	/* kt_add_master_key()'s reference */
	KUNIT_EXPECT_TRUE(test, is_master_key_secret_present(&mk->mk_secret));
	KUNIT_EXPECT_PTR_EQ(test, mk->mk_secret.hkdf.hmac_tfm, hmac);
	KUNIT_EXPECT_EQ(test, refcount_read(&mk->mk_active_refs), 2);

	fscrypt_put_extent_info(ei);
	fscrypt_put_encryption_info(inode);
	KUNIT_EXPECT_EQ(test, refcount_read(&mk->mk_active_refs), 1);
	fscrypt_put_master_key(mk);
	fscrypt_destroy_keyring(sb);
}

/*
 * The pool is an LRU cache of keys: more extents than transforms all get
 * their own key set when used, and a key used again soon finds its transform
 * still set.  The ciphertext is always that of the extent's own key.
 */
static void test_pool_lru(struct kunit *test)
{
	struct super_block *sb = kt_sb(test, &kt_extent_cop);
	struct fscrypt_extent_tfm_pool *pool =
		kt_pool(test, FSCRYPT_MODE_AES_256_XTS);
	struct fscrypt_extent_info *known, **eis;
	unsigned int i, n = pool->nr_tfms * 3;
	struct fscrypt_hkdf hkdf;
	u8 key[64];

	eis = kunit_kcalloc(test, n, sizeof(*eis), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, eis);
	kt_init_hkdf(test, &hkdf);
	KUNIT_ASSERT_EQ(test, fscrypt_derive_extent_key(&hkdf, kt_nonce_na,
							key, sizeof(key)), 0);
	fscrypt_destroy_hkdf(&hkdf);
	known = kt_extent_info(test, sb, FSCRYPT_MODE_AES_256_XTS, 0,
			       kt_nonce_na);
	kt_set_key(known, pool, key);

	for (i = 0; i < n; i++) {
		eis[i] = kt_extent_info(test, sb, FSCRYPT_MODE_AES_256_XTS, 0,
					NULL);
		get_random_bytes(key, sizeof(key));
		kt_set_key(eis[i], pool, key);
		kt_check_roundtrip(test, eis[i]);
		/* The known key between the others: it must not be evicted */
		if (i % 2 == 0)
			kt_check_block(test, known, 5, kat_xts_ct_head,
				       kat_xts_ct_sha256);
	}
	KUNIT_EXPECT_EQ(test, kt_nr_keyed(pool), pool->nr_tfms);
	KUNIT_EXPECT_TRUE(test, kt_pool_has_key(pool, known->key_id));
	KUNIT_EXPECT_FALSE(test, kt_pool_has_key(pool, eis[0]->key_id));

	fscrypt_wipe_extent_tfm_pool(pool);
	KUNIT_EXPECT_EQ(test, kt_nr_keyed(pool), 0U);
	/* A wiped transform gets the key again when it is needed */
	kt_check_block(test, known, 5, kat_xts_ct_head, kat_xts_ct_sha256);

	for (i = 0; i < n; i++)
		fscrypt_put_extent_info(eis[i]);
	fscrypt_put_extent_info(known);
	memzero_explicit(key, sizeof(key));
	fscrypt_destroy_extent_tfm_pool(pool);
}

/* Contexts that do not belong to the file, and files without their key */
static void test_load_refused(struct kunit *test)
{
	const u8 mode = FSCRYPT_MODE_AES_256_XTS;
	struct super_block *sb = kt_sb(test, &kt_keyed_cop);
	struct fscrypt_master_key *mk = kt_add_master_key(test, sb);
	struct inode *inode = kt_unlocked_file(test, sb, mode, 0);
	struct inode *locked = kt_inode(test, sb, S_IFREG, true);
	const u8 *id = kat_master_key_identifier;
	u8 ctx[36];

	KUNIT_ASSERT_NOT_NULL(test, inode->i_crypt_info);
	kt_make_context(ctx, mode, 0, id, kt_nonce_na);
	ctx[35] = 0;
	KUNIT_EXPECT_EQ(test, PTR_ERR(fscrypt_load_extent_info(inode, ctx, 34)),
			-EUCLEAN);
	KUNIT_EXPECT_EQ(test, PTR_ERR(fscrypt_load_extent_info(inode, ctx, 36)),
			-EUCLEAN);
	ctx[0] = 2;
	KUNIT_EXPECT_EQ(test, PTR_ERR(fscrypt_load_extent_info(inode, ctx, 35)),
			-EUCLEAN);
	kt_make_context(ctx, FSCRYPT_MODE_ADIANTUM, 0, id, kt_nonce_na);
	KUNIT_EXPECT_EQ(test, PTR_ERR(fscrypt_load_extent_info(inode, ctx, 35)),
			-EUCLEAN);
	kt_make_context(ctx, mode, FSCRYPT_POLICY_FLAG_DIRECT_KEY, id,
			kt_nonce_na);
	KUNIT_EXPECT_EQ(test, PTR_ERR(fscrypt_load_extent_info(inode, ctx, 35)),
			-EUCLEAN);
	kt_make_context(ctx, mode, 0, id, kt_nonce_na);
	ctx[3] ^= 1;	/* another master key */
	KUNIT_EXPECT_EQ(test, PTR_ERR(fscrypt_load_extent_info(inode, ctx, 35)),
			-EUCLEAN);

	/* A file whose key is not set up */
	kt_make_context(ctx, mode, 0, id, kt_nonce_na);
	KUNIT_EXPECT_EQ(test, PTR_ERR(fscrypt_load_extent_info(locked, ctx, 35)),
			-ENOKEY);
	KUNIT_EXPECT_EQ(test, PTR_ERR(fscrypt_new_extent_info(locked)), -ENOKEY);

	fscrypt_put_encryption_info(inode);
	fscrypt_put_master_key(mk);
	fscrypt_destroy_keyring(sb);
}

/*
 * A version 2 context says that the extent's IVs start at data unit F: it is
 * the same key as version 1's, and its block i is the known answer of block
 * F + i of the extent it was cut from.  It is written back as the same 39
 * bytes.  Version 2 with F = 0, and the sizes of the other version, are not
 * valid.
 */
static void test_first_data_unit(struct kunit *test)
{
	const u8 mode = FSCRYPT_MODE_AES_256_XTS;
	struct super_block *sb = kt_sb(test, &kt_keyed_cop);
	struct fscrypt_master_key *mk = kt_add_master_key(test, sb);
	struct inode *inode = kt_unlocked_file(test, sb, mode, 0);
	const u8 *id = kat_master_key_identifier;
	struct fscrypt_extent_tfm_pool *pool;
	struct fscrypt_extent_info *ei, *whole;
	union fscrypt_iv iv, want;
	u8 ctx[FSCRYPT_EXTENT_CONTEXT_MAX_SIZE];
	u8 buf[FSCRYPT_EXTENT_CONTEXT_MAX_SIZE];

	KUNIT_ASSERT_NOT_NULL(test, inode->i_crypt_info);
	kt_make_context_v2(ctx, mode, 0, id, kt_nonce_na, 3);
	KUNIT_EXPECT_TRUE(test, fscrypt_extent_context_valid(ctx, 39));
	KUNIT_EXPECT_FALSE(test, fscrypt_extent_context_valid(ctx, 35));
	KUNIT_EXPECT_FALSE(test, fscrypt_extent_context_valid(ctx, 40));
	ei = fscrypt_load_extent_info(inode, ctx, 39);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(ei), "error %ld", PTR_ERR(ei));
	KUNIT_EXPECT_EQ(test, ei->first_du, 3U);
	KT_EXPECT_BYTES(test, ei->raw_key, kat_extent_key_na, 64);
	KUNIT_ASSERT_EQ(test, fscrypt_initialize(0), 0);
	kt_check_block(test, ei, 2, kat_xts_ct_head, kat_xts_ct_sha256);

	whole = kt_load(test, inode, mode, 0, kt_nonce_na);
	KUNIT_EXPECT_EQ(test, whole->first_du, 0U);
	fscrypt_generate_extent_iv(&iv, 2, ei);
	fscrypt_generate_extent_iv(&want, 5, whole);
	KT_EXPECT_BYTES(test, iv.raw, want.raw, ei->mode->ivsize);
	KUNIT_EXPECT_EQ(test, fscrypt_extent_info_to_context(ei, 0, buf),
			(size_t)FSCRYPT_EXTENT_CONTEXT_V2_SIZE);
	KT_EXPECT_BYTES(test, buf, ctx, FSCRYPT_EXTENT_CONTEXT_V2_SIZE);
	KUNIT_EXPECT_EQ(test, fscrypt_extent_info_to_context(whole, 0, buf),
			(size_t)FSCRYPT_EXTENT_CONTEXT_V1_SIZE);
	KUNIT_EXPECT_EQ(test, buf[0], FSCRYPT_EXTENT_CONTEXT_V1);

	/* A part cut from either starts where it was in the whole */
	memset(buf, 0, sizeof(buf));
	KUNIT_EXPECT_EQ(test, fscrypt_set_extent_part_context(inode, whole, 3,
							      buf), 0);
	KT_EXPECT_BYTES(test, buf, ctx, FSCRYPT_EXTENT_CONTEXT_V2_SIZE);
	kt_make_context_v2(ctx, mode, 0, id, kt_nonce_na, 3 + 32);
	KUNIT_EXPECT_EQ(test, fscrypt_set_extent_part_context(inode, ei, 32,
							      buf), 0);
	KT_EXPECT_BYTES(test, buf, ctx, FSCRYPT_EXTENT_CONTEXT_V2_SIZE);
	KUNIT_EXPECT_EQ(test, fscrypt_set_extent_part_context(inode, ei,
							      U32_MAX - 3,
							      buf), 0);
	KUNIT_EXPECT_EQ(test, get_unaligned_le32(&buf[35]), U32_MAX);
	KUNIT_EXPECT_EQ(test, fscrypt_set_extent_part_context(inode, ei,
							      U32_MAX - 2,
							      buf), -EOVERFLOW);
	fscrypt_put_extent_info(whole);
	fscrypt_put_extent_info(ei);

	/* Version 2 that starts at 0, or version 1 of 39 bytes */
	kt_make_context_v2(ctx, mode, 0, id, kt_nonce_na, 0);
	KUNIT_EXPECT_FALSE(test, fscrypt_extent_context_valid(ctx, 39));
	KUNIT_EXPECT_EQ(test, PTR_ERR(fscrypt_load_extent_info(inode, ctx, 39)),
			-EUCLEAN);
	kt_make_context_v2(ctx, mode, 0, id, kt_nonce_na, 3);
	ctx[0] = FSCRYPT_EXTENT_CONTEXT_V1;
	KUNIT_EXPECT_FALSE(test, fscrypt_extent_context_valid(ctx, 39));

	/* DIRECT_KEY: the nonce stays in the IV, the index moves by F */
	pool = kt_pool(test, FSCRYPT_MODE_ADIANTUM);
	ei = kt_extent_info(test, sb, FSCRYPT_MODE_ADIANTUM,
			    FSCRYPT_POLICY_FLAG_DIRECT_KEY, kt_nonce_nb);
	ei->first_du = 4;
	kt_set_key(ei, pool, kat_direct_key_adiantum);
	kt_check_block(test, ei, 3, kat_adiantum_ct_head,
		       kat_adiantum_ct_sha256);
	fscrypt_put_extent_info(ei);
	fscrypt_destroy_extent_tfm_pool(pool);

	fscrypt_put_encryption_info(inode);
	fscrypt_put_master_key(mk);
	fscrypt_destroy_keyring(sb);
}

/* The error of importing @ctx, or 0 (and the extent info put) on success */
static long kt_import_err(struct inode *inode, const u8 *ctx, size_t len)
{
	struct fscrypt_extent_info *ei;

	ei = fscrypt_import_extent_info(inode, ctx, len);
	if (IS_ERR(ei))
		return PTR_ERR(ei);
	fscrypt_put_extent_info(ei);
	return 0;
}

/*
 * A context handed in with ciphertext: accepted only if it is of the file's
 * policy, refused with -EINVAL (the caller's mistake, not corruption), and
 * then the same key as the extent it came from.
 */
static void test_import(struct kunit *test)
{
	const u8 mode = FSCRYPT_MODE_AES_256_XTS;
	struct super_block *sb = kt_sb(test, &kt_keyed_cop);
	struct fscrypt_master_key *mk = kt_add_master_key(test, sb);
	struct inode *inode = kt_unlocked_file(test, sb, mode, 0);
	struct inode *locked = kt_inode(test, sb, S_IFREG, true);
	const u8 *id = kat_master_key_identifier;
	struct fscrypt_extent_info *loaded, *imported;
	u8 ctx[FSCRYPT_EXTENT_CONTEXT_MAX_SIZE];

	kt_make_context(ctx, mode, 0, id, kt_nonce_na);
	loaded = kt_load(test, inode, mode, 0, kt_nonce_na);
	imported = fscrypt_import_extent_info(inode, ctx, 35);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(imported), "error %ld",
			       PTR_ERR(imported));
	KUNIT_EXPECT_NE(test, loaded->key_id, imported->key_id);
	KT_EXPECT_BYTES(test, imported->raw_key, loaded->raw_key,
			loaded->mode->keysize);
	KT_EXPECT_BYTES(test, imported->nonce, kt_nonce_na, 16);
	KUNIT_ASSERT_EQ(test, fscrypt_initialize(0), 0);
	kt_check_roundtrip(test, imported);
	fscrypt_put_extent_info(imported);
	fscrypt_put_extent_info(loaded);

	/* A part of another extent: its IVs start where the context says */
	kt_make_context_v2(ctx, mode, 0, id, kt_nonce_na, 9);
	imported = fscrypt_import_extent_info(inode, ctx, 39);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(imported), "error %ld",
			       PTR_ERR(imported));
	KUNIT_EXPECT_EQ(test, imported->first_du, 9U);
	fscrypt_put_extent_info(imported);
	kt_make_context_v2(ctx, mode, 0, id, kt_nonce_na, 0);
	KUNIT_EXPECT_EQ(test, kt_import_err(inode, ctx, 39), -EINVAL);
	kt_make_context(ctx, mode, 0, id, kt_nonce_na);

	ctx[35] = 0;
	KUNIT_EXPECT_EQ(test, kt_import_err(inode, ctx, 34),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kt_import_err(inode, ctx, 36),
			-EINVAL);
	ctx[0] = 2;
	KUNIT_EXPECT_EQ(test, kt_import_err(inode, ctx, 35),
			-EINVAL);
	kt_make_context(ctx, FSCRYPT_MODE_ADIANTUM, 0, id, kt_nonce_na);
	KUNIT_EXPECT_EQ(test, kt_import_err(inode, ctx, 35),
			-EINVAL);
	kt_make_context(ctx, mode, FSCRYPT_POLICY_FLAG_DIRECT_KEY, id,
			kt_nonce_na);
	KUNIT_EXPECT_EQ(test, kt_import_err(inode, ctx, 35),
			-EINVAL);
	kt_make_context(ctx, mode, 0, id, kt_nonce_na);
	ctx[3] ^= 1;	/* another master key */
	KUNIT_EXPECT_EQ(test, kt_import_err(inode, ctx, 35),
			-EINVAL);
	kt_make_context(ctx, mode, 0, id, kt_nonce_na);
	KUNIT_EXPECT_EQ(test, kt_import_err(locked, ctx, 35),
			-ENOKEY);

	fscrypt_put_encryption_info(inode);
	fscrypt_put_master_key(mk);
	fscrypt_destroy_keyring(sb);
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
	len = fscrypt_extent_info_to_context(ei, 0, buf);
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

/* ---- contexts given without the key (raw receive) ---- */

/* The stored v2 context of the directory and files below: AES-256-XTS/CTS */
static void kt_v2_context(struct fscrypt_context_v2 *ctx, const u8 *nonce)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->version = FSCRYPT_CONTEXT_V2;
	ctx->contents_encryption_mode = FSCRYPT_MODE_AES_256_XTS;
	ctx->filenames_encryption_mode = FSCRYPT_MODE_AES_256_CTS;
	memcpy(ctx->master_key_identifier, kt_key_id,
	       FSCRYPT_KEY_IDENTIFIER_SIZE);
	memcpy(ctx->nonce, nonce, FSCRYPT_FILE_NONCE_SIZE);
}

/* An encrypted inode whose stored context is @stored; no key is set up */
static struct inode *kt_keyless_inode(struct kunit *test, umode_t mode,
				      struct fscrypt_context_v2 *stored)
{
	struct inode *inode = kt_inode(test, kt_sb(test, &kt_keyed_cop), mode,
				       true);

	inode->i_private = stored;
	return inode;
}

/* Give @inode the key setup of its stored context, as if it were unlocked */
static void kt_unlock(struct kunit *test, struct inode *inode)
{
	const struct fscrypt_context_v2 *stored = inode->i_private;
	struct fscrypt_policy_v2 policy = {
		.version = FSCRYPT_POLICY_V2,
		.contents_encryption_mode = stored->contents_encryption_mode,
		.filenames_encryption_mode = stored->filenames_encryption_mode,
		.flags = stored->flags,
	};

	memcpy(policy.master_key_identifier, stored->master_key_identifier,
	       FSCRYPT_KEY_IDENTIFIER_SIZE);
	kt_set_info(test, inode, &policy, stored->nonce);
}

struct kt_raw_ctx_case {
	const char *desc;
	size_t offset;		/* the byte of the copied context changed */
	u8 xor;			/* what it is XORed with */
	size_t size;		/* the size given, if not a v2 context's */
	int in_dir;		/* the result in the encrypted directory */
	int in_plain_dir;	/* the result in an unencrypted directory */
};

#define KT_CTX_AT(field) offsetof(struct fscrypt_context_v2, field)

static const struct kt_raw_ctx_case kt_raw_ctx_cases[] = {
	{ "the directory's policy, another nonce",
	  KT_CTX_AT(nonce[5]), 0x01, 0, 0, 0 },
	{ "version 3", KT_CTX_AT(version), 0x01, 0, -EINVAL, -EINVAL },
	{ "version 1 of a v2 size", KT_CTX_AT(version), 0x03, 0,
	  -EINVAL, -EINVAL },
	{ "a v1 context", KT_CTX_AT(version), 0x03,
	  sizeof(struct fscrypt_context_v1), -EINVAL, -EINVAL },
	{ "one byte short", KT_CTX_AT(version), 0,
	  sizeof(struct fscrypt_context_v2) - 1, -EINVAL, -EINVAL },
	{ "one byte long", KT_CTX_AT(version), 0,
	  sizeof(struct fscrypt_context_v2) + 1, -EINVAL, -EINVAL },
	{ "unknown contents mode", KT_CTX_AT(contents_encryption_mode), 0x7e,
	  0, -EINVAL, -EINVAL },
	{ "HCTR2 names", KT_CTX_AT(filenames_encryption_mode),
	  FSCRYPT_MODE_AES_256_CTS ^ FSCRYPT_MODE_AES_256_HCTR2, 0,
	  -EXDEV, 0 },
	{ "padding flags", KT_CTX_AT(flags), FSCRYPT_POLICY_FLAGS_PAD_32, 0,
	  -EXDEV, 0 },
	{ "IV_INO_LBLK_64", KT_CTX_AT(flags), FSCRYPT_POLICY_FLAG_IV_INO_LBLK_64,
	  0, -EINVAL, -EINVAL },
	{ "DIRECT_KEY with AES-256-XTS", KT_CTX_AT(flags),
	  FSCRYPT_POLICY_FLAG_DIRECT_KEY, 0, -EINVAL, -EINVAL },
	{ "a reserved byte", KT_CTX_AT(__reserved[2]), 0x01, 0,
	  -EINVAL, -EINVAL },
	{ "another master key", KT_CTX_AT(master_key_identifier[15]), 0x01, 0,
	  -EXDEV, 0 },
};

static void kt_raw_ctx_desc(const struct kt_raw_ctx_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kt_raw_ctx, kt_raw_ctx_cases, kt_raw_ctx_desc);

/*
 * A copied inode context is accepted in a directory of its policy, with or
 * without the directory's key, and anywhere in an unencrypted directory if
 * this kernel supports it on an extent-encrypting filesystem.
 */
static void test_check_raw_context(struct kunit *test)
{
	const struct kt_raw_ctx_case *c = test->param_value;
	struct fscrypt_context_v2 *stored, *plain_ctx;
	struct inode *dir, *plain_dir;
	u8 buf[sizeof(struct fscrypt_context_v2) + 8];
	size_t size = c->size ?: sizeof(struct fscrypt_context_v2);

	stored = kunit_kzalloc(test, sizeof(*stored), GFP_KERNEL);
	plain_ctx = kunit_kzalloc(test, sizeof(*plain_ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, stored);
	KUNIT_ASSERT_NOT_NULL(test, plain_ctx);
	kt_v2_context(stored, kt_nonce_na);
	dir = kt_keyless_inode(test, S_IFDIR, stored);
	plain_dir = kt_inode(test, dir->i_sb, S_IFDIR, false);

	memset(buf, 0, sizeof(buf));
	kt_v2_context((struct fscrypt_context_v2 *)buf, kt_nonce_nb);
	buf[c->offset] ^= c->xor;

	KUNIT_EXPECT_EQ_MSG(test, fscrypt_check_raw_context(dir, buf, size),
			    c->in_dir, "encrypted directory, no key");
	KUNIT_EXPECT_EQ_MSG(test,
			    fscrypt_check_raw_context(plain_dir, buf, size),
			    c->in_plain_dir, "unencrypted directory");
	kt_unlock(test, dir);
	KUNIT_EXPECT_EQ_MSG(test, fscrypt_check_raw_context(dir, buf, size),
			    c->in_dir, "encrypted directory, key set up");
	/* The directory's own context is one it accepts */
	KUNIT_EXPECT_EQ(test, fscrypt_check_raw_context(dir, stored,
							sizeof(*stored)), 0);
}

/*
 * A size the int of fscrypt_policy_from_context() would truncate to a valid
 * one, and a directory whose own context this kernel does not recognize.
 */
static void test_check_raw_context_refusals(struct kunit *test)
{
	struct fscrypt_context_v2 *stored, ctx;
	struct inode *dir;

	stored = kunit_kzalloc(test, sizeof(*stored), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, stored);
	kt_v2_context(stored, kt_nonce_na);
	dir = kt_keyless_inode(test, S_IFDIR, stored);
	kt_v2_context(&ctx, kt_nonce_nb);

	if (sizeof(size_t) > 4) {
		size_t huge = (size_t)U32_MAX + 1 + sizeof(ctx);

		KUNIT_EXPECT_EQ(test, fscrypt_check_raw_context(dir, &ctx, huge),
				-EINVAL);
	}
	KUNIT_EXPECT_EQ(test, fscrypt_check_raw_context(dir, &ctx, sizeof(ctx)),
			0);
	stored->version = 3;
	KUNIT_EXPECT_EQ(test, fscrypt_check_raw_context(dir, &ctx, sizeof(ctx)),
			-EXDEV);
}

/*
 * A copied extent context is accepted for a file of its policy, with or
 * without the file's key: the nonce is free, the rest must match.
 */
static void test_check_extent_context(struct kunit *test)
{
	const size_t v1 = FSCRYPT_EXTENT_CONTEXT_V1_SIZE;
	struct fscrypt_context_v2 *stored;
	struct fscrypt_extent_context ectx = {
		.version = FSCRYPT_EXTENT_CONTEXT_V1,
		.contents_encryption_mode = FSCRYPT_MODE_AES_256_XTS,
	};
	struct fscrypt_extent_context bad;
	struct inode *file, *dir, *plain, *inode_fs_file;
	int pass;

	stored = kunit_kzalloc(test, sizeof(*stored), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, stored);
	kt_v2_context(stored, kt_nonce_na);
	/* Padding flags concern names, not contents */
	stored->flags = FSCRYPT_POLICY_FLAGS_PAD_16;
	file = kt_keyless_inode(test, S_IFREG, stored);
	dir = kt_keyless_inode(test, S_IFDIR, stored);
	plain = kt_inode(test, file->i_sb, S_IFREG, false);
	memcpy(ectx.master_key_identifier, kt_key_id,
	       FSCRYPT_KEY_IDENTIFIER_SIZE);
	memcpy(ectx.nonce, kt_nonce_nc, FSCRYPT_EXTENT_NONCE_SIZE);

	for (pass = 0; pass < 2; pass++) {
		if (pass)
			kt_unlock(test, file);
		KUNIT_EXPECT_EQ(test, fscrypt_check_extent_context(file, &ectx,
								   v1),
				0);
		KUNIT_EXPECT_EQ(test, fscrypt_check_extent_context(file, &ectx,
								   v1 - 1),
				-EINVAL);

		bad = ectx;
		bad.version ^= 0x03;
		KUNIT_EXPECT_EQ(test, fscrypt_check_extent_context(file, &bad,
								   v1),
				-EINVAL);
		bad = ectx;
		bad.contents_encryption_mode = FSCRYPT_MODE_ADIANTUM;
		KUNIT_EXPECT_EQ(test, fscrypt_check_extent_context(file, &bad,
								   v1),
				-EINVAL);
		bad = ectx;
		bad.flags = FSCRYPT_POLICY_FLAG_DIRECT_KEY;
		KUNIT_EXPECT_EQ(test, fscrypt_check_extent_context(file, &bad,
								   v1),
				-EINVAL);
		bad = ectx;
		bad.master_key_identifier[0] ^= 0x01;
		KUNIT_EXPECT_EQ(test, fscrypt_check_extent_context(file, &bad,
								   v1),
				-EINVAL);
		/* A part of another extent, with where its IVs start */
		bad = ectx;
		bad.version = FSCRYPT_EXTENT_CONTEXT_V2;
		bad.first_du = cpu_to_le32(33);
		KUNIT_EXPECT_EQ(test, fscrypt_check_extent_context(file, &bad,
								   sizeof(bad)),
				0);
		bad.first_du = 0;
		KUNIT_EXPECT_EQ(test, fscrypt_check_extent_context(file, &bad,
								   sizeof(bad)),
				-EINVAL);
		bad = ectx;
		bad.nonce[15] ^= 0x01;
		KUNIT_EXPECT_EQ(test, fscrypt_check_extent_context(file, &bad,
								   v1),
				0);
	}
	/* Only encrypted regular files have extents with contexts */
	KUNIT_EXPECT_EQ(test, fscrypt_check_extent_context(dir, &ectx,
							   v1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, fscrypt_check_extent_context(plain, &ectx,
							   v1),
			-EINVAL);
	/* ... on a filesystem that encrypts per extent */
	inode_fs_file = kt_inode(test, kt_sb(test, &kt_inode_cop), S_IFREG,
				 true);
	KUNIT_EXPECT_EQ(test, fscrypt_check_extent_context(inode_fs_file, &ectx,
							   v1),
			-EINVAL);
	/* ... with a policy supported for extents */
	stored = kunit_kzalloc(test, sizeof(*stored), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, stored);
	kt_v2_context(stored, kt_nonce_na);
	stored->flags = FSCRYPT_POLICY_FLAG_IV_INO_LBLK_64;
	file = kt_keyless_inode(test, S_IFREG, stored);
	KUNIT_EXPECT_EQ(test, fscrypt_check_extent_context(file, &ectx,
							   v1),
			-EINVAL);
}

/*
 * An extent info made without the key from a given context gives the
 * context back as it came, and has no key to en- or decrypt with.
 */
static void test_nokey_extent_info(struct kunit *test)
{
	struct fscrypt_extent_context ectx = {
		.version = FSCRYPT_EXTENT_CONTEXT_V2,
		.contents_encryption_mode = FSCRYPT_MODE_AES_256_XTS,
		.first_du = cpu_to_le32(33),
	};
	u8 buf[FSCRYPT_EXTENT_CONTEXT_MAX_SIZE];
	struct fscrypt_context_v2 *stored;
	struct fscrypt_extent_info *ei;
	struct inode *file;

	stored = kunit_kzalloc(test, sizeof(*stored), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, stored);
	kt_v2_context(stored, kt_nonce_na);
	file = kt_keyless_inode(test, S_IFREG, stored);
	memcpy(ectx.master_key_identifier, kt_key_id,
	       FSCRYPT_KEY_IDENTIFIER_SIZE);
	memcpy(ectx.nonce, kt_nonce_nc, FSCRYPT_EXTENT_NONCE_SIZE);

	ei = fscrypt_nokey_extent_info(file, &ectx, sizeof(ectx));
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(ei), "error %ld", PTR_ERR(ei));
	KUNIT_EXPECT_NULL(test, ei->pool);
	KUNIT_EXPECT_EQ(test, ei->key_id, 0ULL);
	KUNIT_EXPECT_EQ(test, ei->first_du, 33U);
	KUNIT_EXPECT_EQ(test, fscrypt_extent_info_to_context(ei, 0, buf),
			sizeof(ectx));
	KT_EXPECT_BYTES(test, buf, (const u8 *)&ectx, sizeof(ectx));
	fscrypt_put_extent_info(ei);

	/* Version 1: the 35 bytes without a first data unit */
	ectx.version = FSCRYPT_EXTENT_CONTEXT_V1;
	ei = fscrypt_nokey_extent_info(file, &ectx,
				       FSCRYPT_EXTENT_CONTEXT_V1_SIZE);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(ei), "error %ld", PTR_ERR(ei));
	KUNIT_EXPECT_EQ(test, ei->first_du, 0U);
	KUNIT_EXPECT_EQ(test, fscrypt_extent_info_to_context(ei, 0, buf),
			(size_t)FSCRYPT_EXTENT_CONTEXT_V1_SIZE);
	KT_EXPECT_BYTES(test, buf, (const u8 *)&ectx,
			FSCRYPT_EXTENT_CONTEXT_V1_SIZE);
	fscrypt_put_extent_info(ei);

	/* Checked as fscrypt_check_extent_context() checks it */
	ectx.master_key_identifier[0] ^= 0x01;
	ei = fscrypt_nokey_extent_info(file, &ectx,
				       FSCRYPT_EXTENT_CONTEXT_V1_SIZE);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(ei), -EINVAL);
	if (!IS_ERR(ei))
		fscrypt_put_extent_info(ei);
}

static struct kunit_case fscrypt_extent_test_cases[] = {
	KUNIT_CASE_PARAM(test_extent_iv, kt_iv_gen_params),
	KUNIT_CASE(test_per_extent_key),
	KUNIT_CASE(test_existing_derivations),
	KUNIT_CASE(test_aes_xts_block),
	KUNIT_CASE(test_adiantum_block),
	KUNIT_CASE(test_short_extent),
	KUNIT_CASE(test_block_index_limit),
	KUNIT_CASE(test_decrypt_bio),
	KUNIT_CASE(test_encrypt_bio),
	KUNIT_CASE(test_encrypt_bio_small_blocks),
	KUNIT_CASE(test_key_lifetime_per_extent),
	KUNIT_CASE(test_key_lifetime_direct_key),
	KUNIT_CASE(test_pool_lru),
	KUNIT_CASE(test_load_refused),
	KUNIT_CASE(test_first_data_unit),
	KUNIT_CASE(test_import),
	KUNIT_CASE(test_fname_iv_differs_from_extent_ivs),
	KUNIT_CASE(test_extent_context),
	KUNIT_CASE(test_new_nonces_differ),
	KUNIT_CASE_PARAM(test_policy_acceptance, kt_policy_gen_params),
	KUNIT_CASE(test_have_same_policy),
	KUNIT_CASE_PARAM(test_check_raw_context, kt_raw_ctx_gen_params),
	KUNIT_CASE(test_check_raw_context_refusals),
	KUNIT_CASE(test_check_extent_context),
	KUNIT_CASE(test_nokey_extent_info),
	{}
};

/* The bounce page pool, which any test may be the first to use */
static int kt_init(struct kunit *test)
{
	return fscrypt_initialize(0);
}

static struct kunit_suite fscrypt_extent_test_suite = {
	.name = "fscrypt-extent",
	.init = kt_init,
	.test_cases = fscrypt_extent_test_cases,
};

kunit_test_suite(fscrypt_extent_test_suite);

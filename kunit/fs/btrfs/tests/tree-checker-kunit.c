// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the tree-checker's validation of file extent items.
 *
 * Each test builds a leaf in memory with the btrfs test helpers, puts one or
 * two items in it and checks what btrfs_check_leaf_full() says.
 * The relaxed check, which ignores item contents, must accept every leaf built
 * here: that shows a rejection comes from the item's contents and not from a
 * badly built leaf.
 *
 * Encryption adds items and flags, each tested with and without the encrypt
 * feature: encrypted file extents with their extent contexts, encrypted names
 * in dir items, fscrypt context items, and the inode and root flags.
 */

#include <kunit/test.h>
#include <linux/sizes.h>
#include "btrfs-tests.h"
#include "../ctree.h"
#include "../disk-io.h"
#include "../extent_io.h"
#include "../tree-checker.h"
#include "../fscrypt.h"

#define TC_SECTORSIZE	SZ_4K
#define TC_NODESIZE	SZ_4K
#define TC_INO		BTRFS_FIRST_FREE_OBJECTID
#define TC_BYTENR	SZ_1M

struct tc_leaf {
	struct btrfs_fs_info *fs_info;
	struct btrfs_root *root;
	struct extent_buffer *leaf;
	int nr_items;
};

static int tc_init(struct kunit *test)
{
	struct tc_leaf *t;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	test->priv = t;

	t->fs_info = btrfs_alloc_dummy_fs_info(TC_NODESIZE, TC_SECTORSIZE);
	if (!t->fs_info)
		return -ENOMEM;
	t->root = btrfs_alloc_dummy_root(t->fs_info);
	if (IS_ERR(t->root)) {
		int ret = PTR_ERR(t->root);

		t->root = NULL;
		return ret;
	}
	t->leaf = alloc_dummy_extent_buffer(t->fs_info, TC_NODESIZE);
	if (!t->leaf)
		return -ENOMEM;
	/* The root owns the leaf from now on and frees it with itself. */
	t->root->node = t->leaf;
	btrfs_set_header_level(t->leaf, 0);
	btrfs_set_header_nritems(t->leaf, 0);
	btrfs_set_header_owner(t->leaf, BTRFS_FS_TREE_OBJECTID);
	return 0;
}

static void tc_exit(struct kunit *test)
{
	struct tc_leaf *t = test->priv;

	if (!t)
		return;
	btrfs_free_dummy_root(t->root);
	btrfs_free_dummy_fs_info(t->fs_info);
}

/* Give the dummy filesystem the encrypt incompat feature */
static void tc_set_encrypt_feature(struct tc_leaf *t)
{
	struct btrfs_super_block *sb = t->fs_info->super_copy;

	btrfs_set_super_incompat_flags(sb, btrfs_super_incompat_flags(sb) |
				       BTRFS_FEATURE_INCOMPAT_ENCRYPT);
}

/* Append a zeroed item to the leaf; items must be added in key order. */
static unsigned long tc_add_item(struct tc_leaf *t, u64 ino, u8 type,
				 u64 offset, u32 size)
{
	struct btrfs_key key = { .objectid = ino, .type = type, .offset = offset };
	struct btrfs_path path = { 0 };
	int slot = t->nr_items++;
	unsigned long ptr;

	path.nodes[0] = t->leaf;
	path.slots[0] = slot;
	btrfs_setup_item_for_insert(t->root, &path, &key, size);
	ptr = btrfs_item_ptr_offset(t->leaf, slot);
	memzero_extent_buffer(t->leaf, ptr, size);
	return ptr;
}

struct fe_case {
	const char *desc;
	u8 type;
	u8 compression;
	u8 encryption;
	u64 key_offset;
	u64 disk_bytenr;
	u64 disk_num_bytes;
	u64 offset;
	u64 num_bytes;
	u64 ram_bytes;
	/* Added to the size the item should have. */
	s32 size_delta;
	/* Bytes of extent context after the item, and their version byte */
	u32 ctx_size;
	u8 ctx_version;
	/* Version 2: where the IVs start, after the version 1 fields */
	u32 ctx_first_du;
	bool encrypt_feature;
	int expect;
};

/*
 * A valid regular extent of 16K; cases change one thing of it by naming a
 * field again after REG_16K, which -Woverride-init (from btrfs's -Wextra)
 * would warn about.
 */
#define REG_16K .type = BTRFS_FILE_EXTENT_REG, .disk_bytenr = TC_BYTENR,	\
	.disk_num_bytes = SZ_16K, .num_bytes = SZ_16K, .ram_bytes = SZ_16K

/* An fscrypt extent context as the encryption byte describes it */
#define FSCRYPT_CTX(size, version)					\
	.encryption = BTRFS_ENCRYPTION_FSCRYPT |				\
		      ((size) << BTRFS_ENCRYPTION_CTX_SIZE_SHIFT),		\
	.ctx_size = (size), .ctx_version = (version)
#define ENCRYPTED FSCRYPT_CTX(FSCRYPT_EXTENT_CONTEXT_V1_SIZE,		\
			      FSCRYPT_EXTENT_CONTEXT_V1), .encrypt_feature = true
#define ENCRYPTED_V2(first_du)						\
	FSCRYPT_CTX(FSCRYPT_EXTENT_CONTEXT_V2_SIZE,			\
		    FSCRYPT_EXTENT_CONTEXT_V2),				\
	.ctx_first_du = (first_du), .encrypt_feature = true

__diag_push();
__diag_ignore_all("-Woverride-init", "cases override fields of REG_16K");
static const struct fe_case fe_cases[] = {
	{ "regular extent", REG_16K, .expect = 0 },
	{ "regular extent referencing part of its data", REG_16K,
	  .offset = SZ_4K, .num_bytes = SZ_8K, .expect = 0 },
	{ "hole", .type = BTRFS_FILE_EXTENT_REG, .num_bytes = SZ_16K,
	  .ram_bytes = SZ_16K, .expect = 0 },
	{ "preallocated extent", REG_16K, .type = BTRFS_FILE_EXTENT_PREALLOC,
	  .expect = 0 },
	{ "zstd-compressed regular extent", REG_16K, .disk_num_bytes = SZ_4K,
	  .compression = BTRFS_COMPRESS_ZSTD, .expect = 0 },
	{ "inline extent", .type = BTRFS_FILE_EXTENT_INLINE, .ram_bytes = 100,
	  .expect = 0 },
	{ "compressed inline extent", .type = BTRFS_FILE_EXTENT_INLINE,
	  .compression = BTRFS_COMPRESS_ZLIB, .ram_bytes = SZ_4K, .expect = 0 },
	{ "type out of range", REG_16K, .type = BTRFS_NR_FILE_EXTENT_TYPES,
	  .expect = -EUCLEAN },
	{ "compression out of range", REG_16K,
	  .compression = BTRFS_NR_COMPRESS_TYPES, .expect = -EUCLEAN },
	{ "encryption set", REG_16K, .encryption = 1, .expect = -EUCLEAN },
	{ "inline extent at a non-zero file offset", .key_offset = SZ_4K,
	  .type = BTRFS_FILE_EXTENT_INLINE, .ram_bytes = 100, .expect = -EUCLEAN },
	{ "inline extent whose ram_bytes is not its data size",
	  .type = BTRFS_FILE_EXTENT_INLINE, .ram_bytes = 100, .size_delta = 1,
	  .expect = -EUCLEAN },
	{ "regular extent item with trailing bytes", REG_16K, .size_delta = 17,
	  .expect = -EUCLEAN },
	{ "regular extent item one byte short", REG_16K, .size_delta = -1,
	  .expect = -EUCLEAN },
	{ "item shorter than the inline header", REG_16K,
	  .size_delta = (s32)BTRFS_FILE_EXTENT_INLINE_DATA_START -
			(s32)sizeof(struct btrfs_file_extent_item) - 1,
	  .expect = -EUCLEAN },
	{ "unaligned file offset", REG_16K, .key_offset = 1000,
	  .expect = -EUCLEAN },
	{ "unaligned disk_bytenr", REG_16K, .disk_bytenr = TC_BYTENR + 512,
	  .expect = -EUCLEAN },
	{ "unaligned disk_num_bytes", REG_16K, .disk_num_bytes = SZ_16K - 1,
	  .expect = -EUCLEAN },
	{ "unaligned offset", REG_16K, .offset = 1, .expect = -EUCLEAN },
	{ "unaligned num_bytes", REG_16K, .num_bytes = SZ_4K + 1,
	  .expect = -EUCLEAN },
	{ "unaligned ram_bytes", REG_16K, .ram_bytes = SZ_16K + 8,
	  .expect = -EUCLEAN },
	{ "extent end past the largest file offset", REG_16K,
	  .key_offset = round_down(U64_MAX, TC_SECTORSIZE), .expect = -EUCLEAN },
	{ "encrypted regular extent", REG_16K, ENCRYPTED, .expect = 0 },
	{ "encrypted extent without the encrypt feature",
	  REG_16K, ENCRYPTED, .encrypt_feature = false, .expect = -EUCLEAN },
	{ "encrypted extent, item one byte short of its context", REG_16K,
	  ENCRYPTED, .size_delta = -1, .expect = -EUCLEAN },
	{ "encrypted extent, item one byte longer than its context", REG_16K,
	  ENCRYPTED, .size_delta = 1, .expect = -EUCLEAN },
	{ "encrypted extent, context of a size fscrypt does not write",
	  REG_16K, FSCRYPT_CTX(34, FSCRYPT_EXTENT_CONTEXT_V1),
	  .encrypt_feature = true, .expect = -EUCLEAN },
	{ "encrypted extent, unknown context version", REG_16K,
	  FSCRYPT_CTX(FSCRYPT_EXTENT_CONTEXT_V1_SIZE, 2),
	  .encrypt_feature = true, .expect = -EUCLEAN },
	{ "encrypted extent, version 2 context", REG_16K, ENCRYPTED_V2(3),
	  .expect = 0 },
	{ "encrypted extent, version 2 context starting at data unit 0",
	  REG_16K, ENCRYPTED_V2(0), .expect = -EUCLEAN },
	{ "encrypted extent, version 1 context of version 2's size", REG_16K,
	  ENCRYPTED_V2(3), .ctx_version = FSCRYPT_EXTENT_CONTEXT_V1,
	  .expect = -EUCLEAN },
	{ "encrypted extent, unknown encryption type", REG_16K, ENCRYPTED,
	  .encryption = 2 | (FSCRYPT_EXTENT_CONTEXT_V1_SIZE <<
			     BTRFS_ENCRYPTION_CTX_SIZE_SHIFT),
	  .expect = -EUCLEAN },
	{ "fscrypt encryption without a context", REG_16K,
	  .encryption = BTRFS_ENCRYPTION_FSCRYPT, .encrypt_feature = true,
	  .expect = -EUCLEAN },
	{ "context on a preallocated extent", REG_16K, ENCRYPTED,
	  .type = BTRFS_FILE_EXTENT_PREALLOC, .expect = -EUCLEAN },
	{ "encrypted inline extent", .type = BTRFS_FILE_EXTENT_INLINE,
	  .ram_bytes = 100, ENCRYPTED, .expect = 0 },
	{ "encrypted inline extent of 2000 bytes",
	  .type = BTRFS_FILE_EXTENT_INLINE, .ram_bytes = 2000, ENCRYPTED,
	  .expect = 0 },
	{ "encrypted inline extent without the encrypt feature",
	  .type = BTRFS_FILE_EXTENT_INLINE, .ram_bytes = 100, ENCRYPTED,
	  .encrypt_feature = false, .expect = -EUCLEAN },
	{ "encrypted inline extent, data not padded to 16 bytes",
	  .type = BTRFS_FILE_EXTENT_INLINE, .ram_bytes = 100, ENCRYPTED,
	  .size_delta = -12, .expect = -EUCLEAN },
	{ "encrypted inline extent, item one byte longer",
	  .type = BTRFS_FILE_EXTENT_INLINE, .ram_bytes = 100, ENCRYPTED,
	  .size_delta = 1, .expect = -EUCLEAN },
	{ "encrypted inline extent of no data",
	  .type = BTRFS_FILE_EXTENT_INLINE, .ram_bytes = 0, ENCRYPTED,
	  .expect = -EUCLEAN },
	/* An item that large would not fit the test leaf: a short one. */
	{ "encrypted inline extent larger than a sector",
	  .type = BTRFS_FILE_EXTENT_INLINE, .ram_bytes = TC_SECTORSIZE + 16,
	  ENCRYPTED, .size_delta = -TC_SECTORSIZE, .expect = -EUCLEAN },
	{ "compressed encrypted inline extent",
	  .type = BTRFS_FILE_EXTENT_INLINE, .ram_bytes = 100, ENCRYPTED,
	  .compression = BTRFS_COMPRESS_ZLIB, .expect = -EUCLEAN },
	{ "encrypted inline extent, unknown context version",
	  .type = BTRFS_FILE_EXTENT_INLINE, .ram_bytes = 100,
	  FSCRYPT_CTX(FSCRYPT_EXTENT_CONTEXT_V1_SIZE, 2),
	  .encrypt_feature = true, .expect = -EUCLEAN },
	{ "encrypted inline extent, version 2 context",
	  .type = BTRFS_FILE_EXTENT_INLINE, .ram_bytes = 100, ENCRYPTED_V2(3),
	  .expect = -EUCLEAN },
};

__diag_pop();

static void fe_case_desc(const struct fe_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(fe, fe_cases, fe_case_desc);

static u32 fe_item_size(const struct fe_case *c)
{
	u32 size = sizeof(struct btrfs_file_extent_item);

	if (c->type == BTRFS_FILE_EXTENT_INLINE) {
		size = BTRFS_FILE_EXTENT_INLINE_DATA_START;
		/* Uncompressed inline data is stored as is; else 64 bytes. */
		if (c->compression)
			size += 64;
		else if (c->ctx_size)	/* encrypted: padded to 16 bytes */
			size += round_up(c->ram_bytes, 16);
		else
			size += c->ram_bytes;
	}
	size += c->ctx_size;
	return size + c->size_delta;
}

/*
 * A context starts with its version, and a version 2 one has its first data
 * unit after the version 1 fields; the rest stays zero.
 */
static void fe_fill_ctx(struct extent_buffer *leaf, unsigned long ctx,
			const struct fe_case *c)
{
	const __le32 first_du = cpu_to_le32(c->ctx_first_du);

	write_extent_buffer(leaf, &c->ctx_version, ctx, 1);
	if (c->ctx_size == FSCRYPT_EXTENT_CONTEXT_V2_SIZE)
		write_extent_buffer(leaf, &first_du,
				    ctx + FSCRYPT_EXTENT_CONTEXT_V1_SIZE,
				    sizeof(first_du));
}

static void fe_fill(struct extent_buffer *leaf, unsigned long ptr,
		    const struct fe_case *c)
{
	struct btrfs_file_extent_item *fi = (void *)ptr;

	/* Never write past the item: some cases make it too short. */
	if (fe_item_size(c) < BTRFS_FILE_EXTENT_INLINE_DATA_START)
		return;
	btrfs_set_file_extent_generation(leaf, fi, 1);
	btrfs_set_file_extent_ram_bytes(leaf, fi, c->ram_bytes);
	btrfs_set_file_extent_compression(leaf, fi, c->compression);
	btrfs_set_file_extent_encryption(leaf, fi, c->encryption);
	btrfs_set_file_extent_type(leaf, fi, c->type);
	/* An encrypted inline extent's context follows the inline header. */
	if (c->type == BTRFS_FILE_EXTENT_INLINE && c->ctx_size)
		fe_fill_ctx(leaf, btrfs_file_extent_inline_start(fi), c);
	/* Inline data starts where disk_bytenr would be. */
	if (c->type == BTRFS_FILE_EXTENT_INLINE || fe_item_size(c) < sizeof(*fi))
		return;
	btrfs_set_file_extent_disk_bytenr(leaf, fi, c->disk_bytenr);
	btrfs_set_file_extent_disk_num_bytes(leaf, fi, c->disk_num_bytes);
	btrfs_set_file_extent_offset(leaf, fi, c->offset);
	btrfs_set_file_extent_num_bytes(leaf, fi, c->num_bytes);
	if (fe_item_size(c) > sizeof(*fi))
		fe_fill_ctx(leaf, ptr + sizeof(*fi), c);
}

static void fe_add(struct tc_leaf *t, u64 ino, const struct fe_case *c)
{
	unsigned long ptr;

	ptr = tc_add_item(t, ino, BTRFS_EXTENT_DATA_KEY, c->key_offset,
			  fe_item_size(c));
	fe_fill(t->leaf, ptr, c);
}

static void test_file_extent_item(struct kunit *test)
{
	const struct fe_case *c = test->param_value;
	struct tc_leaf *t = test->priv;

	if (c->encrypt_feature)
		tc_set_encrypt_feature(t);
	fe_add(t, TC_INO, c);
	KUNIT_ASSERT_EQ(test, btrfs_check_leaf_relaxed(t->leaf), 0);
	KUNIT_EXPECT_EQ_MSG(test, btrfs_check_leaf_full(t->leaf), c->expect,
			    "%s", c->desc);
}

static const struct fe_case fe_reg_at_0 = { "first", REG_16K };
static const struct fe_case fe_reg_at_16k = { "adjacent", REG_16K,
					      .key_offset = SZ_16K };
static const struct fe_case fe_reg_at_8k = { "overlapping", REG_16K,
					     .key_offset = SZ_8K };

static void test_adjacent_extents(struct kunit *test)
{
	struct tc_leaf *t = test->priv;

	fe_add(t, TC_INO, &fe_reg_at_0);
	fe_add(t, TC_INO, &fe_reg_at_16k);
	KUNIT_EXPECT_EQ(test, btrfs_check_leaf_full(t->leaf), 0);
}

static void test_overlapping_extents(struct kunit *test)
{
	struct tc_leaf *t = test->priv;

	fe_add(t, TC_INO, &fe_reg_at_0);
	fe_add(t, TC_INO, &fe_reg_at_8k);
	KUNIT_ASSERT_EQ(test, btrfs_check_leaf_relaxed(t->leaf), 0);
	KUNIT_EXPECT_EQ(test, btrfs_check_leaf_full(t->leaf), -EUCLEAN);
}

/* In a subvolume tree an inode's extents follow an item of the same inode. */
static void test_extent_after_other_inode(struct kunit *test)
{
	struct tc_leaf *t = test->priv;

	fe_add(t, TC_INO, &fe_reg_at_0);
	fe_add(t, TC_INO + 1, &fe_reg_at_0);
	KUNIT_ASSERT_EQ(test, btrfs_check_leaf_relaxed(t->leaf), 0);
	KUNIT_EXPECT_EQ(test, btrfs_check_leaf_full(t->leaf), -EUCLEAN);
}

/* ---- items and flags of encryption ---- */

struct di_case {
	const char *desc;
	u8 key_type;
	u8 type_byte;
	bool encrypt_feature;
	int expect;
};

static const struct di_case di_cases[] = {
	{ "plaintext name", BTRFS_DIR_ITEM_KEY, BTRFS_FT_REG_FILE, false, 0 },
	{ "encrypted name", BTRFS_DIR_ITEM_KEY,
	  BTRFS_FT_REG_FILE | BTRFS_FT_ENCRYPTED, true, 0 },
	{ "encrypted name in a dir index", BTRFS_DIR_INDEX_KEY,
	  BTRFS_FT_DIR | BTRFS_FT_ENCRYPTED, true, 0 },
	{ "encrypted name without the encrypt feature", BTRFS_DIR_ITEM_KEY,
	  BTRFS_FT_REG_FILE | BTRFS_FT_ENCRYPTED, false, -EUCLEAN },
	{ "encrypted xattr name", BTRFS_XATTR_ITEM_KEY,
	  BTRFS_FT_XATTR | BTRFS_FT_ENCRYPTED, true, -EUCLEAN },
	{ "file type out of range under the flag", BTRFS_DIR_ITEM_KEY,
	  BTRFS_FT_MAX | BTRFS_FT_ENCRYPTED, true, -EUCLEAN },
	{ "unknown flag", BTRFS_DIR_ITEM_KEY, BTRFS_FT_REG_FILE | 0x40, true,
	  -EUCLEAN },
};

static void di_case_desc(const struct di_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(di, di_cases, di_case_desc);

static void test_dir_item_type(struct kunit *test)
{
	const struct di_case *c = test->param_value;
	struct tc_leaf *t = test->priv;
	const bool xattr = c->key_type == BTRFS_XATTR_ITEM_KEY;
	const char *name = xattr ? "user.test" : "name";
	const u32 name_len = strlen(name);
	struct btrfs_disk_key location = { 0 };
	struct btrfs_dir_item *di;
	u64 offset;

	if (c->encrypt_feature)
		tc_set_encrypt_feature(t);
	offset = c->key_type == BTRFS_DIR_INDEX_KEY ? 2 :
		 btrfs_name_hash(name, name_len);
	di = (void *)tc_add_item(t, TC_INO, c->key_type, offset,
				 sizeof(*di) + name_len);
	if (!xattr) {
		btrfs_set_disk_key_objectid(&location, TC_INO + 1);
		btrfs_set_disk_key_type(&location, BTRFS_INODE_ITEM_KEY);
	}
	btrfs_set_dir_item_key(t->leaf, di, &location);
	btrfs_set_dir_type(t->leaf, di, c->type_byte);
	btrfs_set_dir_name_len(t->leaf, di, name_len);
	btrfs_set_dir_data_len(t->leaf, di, 0);
	btrfs_set_dir_transid(t->leaf, di, 1);
	write_extent_buffer(t->leaf, name, (unsigned long)(di + 1), name_len);

	KUNIT_ASSERT_EQ(test, btrfs_check_leaf_relaxed(t->leaf), 0);
	KUNIT_EXPECT_EQ_MSG(test, btrfs_check_leaf_full(t->leaf), c->expect,
			    "%s", c->desc);
}

/* The leaf is rejected without the encrypt feature and accepted with it */
static void tc_expect_needs_encrypt_feature(struct kunit *test,
					    struct tc_leaf *t)
{
	KUNIT_ASSERT_EQ(test, btrfs_check_leaf_relaxed(t->leaf), 0);
	KUNIT_EXPECT_EQ_MSG(test, btrfs_check_leaf_full(t->leaf), -EUCLEAN,
			    "without the encrypt feature");
	tc_set_encrypt_feature(t);
	KUNIT_EXPECT_EQ_MSG(test, btrfs_check_leaf_full(t->leaf), 0,
			    "with the encrypt feature");
}

/* An fscrypt context item of @size bytes for inode @ino */
static void tc_add_ctx_item(struct tc_leaf *t, u64 ino, u64 offset, u32 size)
{
	unsigned long ptr = tc_add_item(t, ino, BTRFS_FSCRYPT_INODE_CTX_KEY,
					offset, size);
	u8 version = 2;	/* FSCRYPT_CONTEXT_V2 */

	if (size)
		write_extent_buffer(t->leaf, &version, ptr, 1);
}

static void test_fscrypt_ctx_item(struct kunit *test)
{
	struct tc_leaf *t = test->priv;

	tc_add_ctx_item(t, TC_INO, 0, FSCRYPT_SET_CONTEXT_MAX_SIZE);
	tc_expect_needs_encrypt_feature(test, t);
}

static void test_fscrypt_ctx_item_too_long(struct kunit *test)
{
	struct tc_leaf *t = test->priv;

	tc_set_encrypt_feature(t);
	tc_add_ctx_item(t, TC_INO, 0, FSCRYPT_SET_CONTEXT_MAX_SIZE + 1);
	KUNIT_EXPECT_EQ(test, btrfs_check_leaf_full(t->leaf), -EUCLEAN);
}

static void test_fscrypt_ctx_item_empty(struct kunit *test)
{
	struct tc_leaf *t = test->priv;

	tc_set_encrypt_feature(t);
	tc_add_ctx_item(t, TC_INO, 0, 0);
	KUNIT_EXPECT_EQ(test, btrfs_check_leaf_full(t->leaf), -EUCLEAN);
}

static void test_fscrypt_ctx_item_offset(struct kunit *test)
{
	struct tc_leaf *t = test->priv;

	tc_set_encrypt_feature(t);
	tc_add_ctx_item(t, TC_INO, 1, FSCRYPT_SET_CONTEXT_MAX_SIZE);
	KUNIT_EXPECT_EQ(test, btrfs_check_leaf_full(t->leaf), -EUCLEAN);
}

/* The item must follow items of its own inode */
static void test_fscrypt_ctx_item_after_other_inode(struct kunit *test)
{
	struct tc_leaf *t = test->priv;

	tc_set_encrypt_feature(t);
	fe_add(t, TC_INO, &fe_reg_at_0);
	tc_add_ctx_item(t, TC_INO + 1, 0, FSCRYPT_SET_CONTEXT_MAX_SIZE);
	KUNIT_ASSERT_EQ(test, btrfs_check_leaf_relaxed(t->leaf), 0);
	KUNIT_EXPECT_EQ(test, btrfs_check_leaf_full(t->leaf), -EUCLEAN);
}

/* An inode item of the given mode and btrfs inode flags */
static void tc_add_inode_item(struct tc_leaf *t, umode_t mode, u64 flags)
{
	struct btrfs_inode_item *ii;

	ii = (void *)tc_add_item(t, TC_INO, BTRFS_INODE_ITEM_KEY, 0,
				 sizeof(*ii));
	btrfs_set_inode_mode(t->leaf, ii, mode);
	btrfs_set_inode_nlink(t->leaf, ii, 1);
	btrfs_set_inode_flags(t->leaf, ii, flags);
}

static void test_inode_fscrypt_flag(struct kunit *test)
{
	struct tc_leaf *t = test->priv;

	tc_add_inode_item(t, S_IFREG | 0644, BTRFS_INODE_FSCRYPT_CONTEXT);
	tc_expect_needs_encrypt_feature(test, t);
}

/* The context flag, with the feature, on an inode of each type */
struct ifl_case {
	const char *desc;
	umode_t mode;
	int expect;
};

static const struct ifl_case ifl_cases[] = {
	{ "regular file", S_IFREG | 0644, 0 },
	{ "directory", S_IFDIR | 0755, 0 },
	{ "symlink", S_IFLNK | 0777, 0 },
	{ "fifo", S_IFIFO | 0644, -EUCLEAN },
	{ "character device", S_IFCHR | 0644, -EUCLEAN },
	{ "block device", S_IFBLK | 0644, -EUCLEAN },
	{ "socket", S_IFSOCK | 0644, -EUCLEAN },
};

static void ifl_case_desc(const struct ifl_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ifl, ifl_cases, ifl_case_desc);

static void test_inode_fscrypt_flag_type(struct kunit *test)
{
	const struct ifl_case *c = test->param_value;
	struct tc_leaf *t = test->priv;

	tc_set_encrypt_feature(t);
	tc_add_inode_item(t, c->mode, BTRFS_INODE_FSCRYPT_CONTEXT);
	KUNIT_ASSERT_EQ(test, btrfs_check_leaf_relaxed(t->leaf), 0);
	KUNIT_EXPECT_EQ_MSG(test, btrfs_check_leaf_full(t->leaf), c->expect,
			    "%s", c->desc);
}

/* A subvolume's root item with the given root flags */
static void tc_add_root_item(struct tc_leaf *t, u64 flags)
{
	struct btrfs_root_item ri = { 0 };
	unsigned long ptr;

	btrfs_set_header_owner(t->leaf, BTRFS_ROOT_TREE_OBJECTID);
	ptr = tc_add_item(t, BTRFS_FIRST_FREE_OBJECTID, BTRFS_ROOT_ITEM_KEY, 0,
			  sizeof(ri));
	btrfs_set_root_flags(&ri, flags);
	write_extent_buffer(t->leaf, &ri, ptr, sizeof(ri));
}

static void test_root_fscrypt_flag(struct kunit *test)
{
	struct tc_leaf *t = test->priv;

	tc_add_root_item(t, BTRFS_ROOT_SUBVOL_FSCRYPT);
	tc_expect_needs_encrypt_feature(test, t);
}

/* The checks above pass plain items, so a rejection comes from the flag */
static void test_plain_inode_and_root_items(struct kunit *test)
{
	struct tc_leaf *t = test->priv;

	tc_add_inode_item(t, S_IFREG | 0644, 0);
	KUNIT_EXPECT_EQ(test, btrfs_check_leaf_full(t->leaf), 0);
	t->nr_items = 0;
	btrfs_set_header_nritems(t->leaf, 0);
	tc_add_root_item(t, BTRFS_ROOT_SUBVOL_RDONLY);
	KUNIT_EXPECT_EQ(test, btrfs_check_leaf_full(t->leaf), 0);
}

static int tc_suite_init(struct kunit_suite *suite)
{
	return btrfs_init_test_fs();
}

static void tc_suite_exit(struct kunit_suite *suite)
{
	btrfs_destroy_test_fs();
}

static struct kunit_case tree_checker_test_cases[] = {
	KUNIT_CASE_PARAM(test_file_extent_item, fe_gen_params),
	KUNIT_CASE(test_adjacent_extents),
	KUNIT_CASE(test_overlapping_extents),
	KUNIT_CASE(test_extent_after_other_inode),
	KUNIT_CASE_PARAM(test_dir_item_type, di_gen_params),
	KUNIT_CASE(test_fscrypt_ctx_item),
	KUNIT_CASE(test_fscrypt_ctx_item_too_long),
	KUNIT_CASE(test_fscrypt_ctx_item_empty),
	KUNIT_CASE(test_fscrypt_ctx_item_offset),
	KUNIT_CASE(test_fscrypt_ctx_item_after_other_inode),
	KUNIT_CASE(test_inode_fscrypt_flag),
	KUNIT_CASE_PARAM(test_inode_fscrypt_flag_type, ifl_gen_params),
	KUNIT_CASE(test_root_fscrypt_flag),
	KUNIT_CASE(test_plain_inode_and_root_items),
	{}
};

static struct kunit_suite tree_checker_test_suite = {
	.name = "btrfs-tree-checker",
	.suite_init = tc_suite_init,
	.suite_exit = tc_suite_exit,
	.init = tc_init,
	.exit = tc_exit,
	.test_cases = tree_checker_test_cases,
};

kunit_test_suite(tree_checker_test_suite);

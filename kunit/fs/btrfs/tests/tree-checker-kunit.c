// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the tree-checker's validation of file extent items.
 *
 * Each test builds a leaf in memory with the btrfs test helpers, puts one or
 * two EXTENT_DATA items in it and checks what btrfs_check_leaf_full() says.
 * The relaxed check, which ignores item contents, must accept every leaf built
 * here: that shows a rejection comes from the item's contents and not from a
 * badly built leaf.
 */

#include <kunit/test.h>
#include <linux/sizes.h>
#include "btrfs-tests.h"
#include "../ctree.h"
#include "../disk-io.h"
#include "../extent_io.h"
#include "../tree-checker.h"

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
	int expect;
};

/* A valid regular extent of 16K; cases change one thing of it. */
#define REG_16K .type = BTRFS_FILE_EXTENT_REG, .disk_bytenr = TC_BYTENR,	\
	.disk_num_bytes = SZ_16K, .num_bytes = SZ_16K, .ram_bytes = SZ_16K

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
	  .size_delta = BTRFS_FILE_EXTENT_INLINE_DATA_START -
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
};

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
		size += c->compression ? 64 : c->ram_bytes;
	}
	return size + c->size_delta;
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
	/* Inline data starts where disk_bytenr would be. */
	if (c->type == BTRFS_FILE_EXTENT_INLINE || fe_item_size(c) < sizeof(*fi))
		return;
	btrfs_set_file_extent_disk_bytenr(leaf, fi, c->disk_bytenr);
	btrfs_set_file_extent_disk_num_bytes(leaf, fi, c->disk_num_bytes);
	btrfs_set_file_extent_offset(leaf, fi, c->offset);
	btrfs_set_file_extent_num_bytes(leaf, fi, c->num_bytes);
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

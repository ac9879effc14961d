// SPDX-License-Identifier: GPL-2.0
/*
 * Command-line wrapper around the fscrypt ioctls for filesystem tests run from
 * shell scripts.  Failures name the errno so tests can assert on exact errors.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/btrfs.h>
#include <linux/btrfs_tree.h>
#include <linux/fs.h>
#include <linux/fscrypt.h>
#include <linux/fsverity.h>

#ifndef FSCRYPT_MODE_AES_256_HCTR2
#define FSCRYPT_MODE_AES_256_HCTR2	10
#endif

#define __noreturn	__attribute__((noreturn))
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define MAX_POSITIONAL	6
#define MAX_OPTIONS	8

static const char *progname = "fscrypt-ioctl";
static bool print_errno;

struct name_value {
	const char *name;
	unsigned int value;
};

static const struct name_value modes[] = {
	{ "aes-256-xts", FSCRYPT_MODE_AES_256_XTS },
	{ "aes-256-cts", FSCRYPT_MODE_AES_256_CTS },
	{ "aes-128-cbc", FSCRYPT_MODE_AES_128_CBC },
	{ "aes-128-cts", FSCRYPT_MODE_AES_128_CTS },
	{ "adiantum", FSCRYPT_MODE_ADIANTUM },
	{ "aes-256-hctr2", FSCRYPT_MODE_AES_256_HCTR2 },
};

static const struct name_value policy_flags[] = {
	{ "direct_key", FSCRYPT_POLICY_FLAG_DIRECT_KEY },
	{ "iv_ino_lblk_64", FSCRYPT_POLICY_FLAG_IV_INO_LBLK_64 },
	{ "iv_ino_lblk_32", FSCRYPT_POLICY_FLAG_IV_INO_LBLK_32 },
};

static const struct name_value key_statuses[] = {
	{ "absent", FSCRYPT_KEY_STATUS_ABSENT },
	{ "present", FSCRYPT_KEY_STATUS_PRESENT },
	{ "incompletely removed", FSCRYPT_KEY_STATUS_INCOMPLETELY_REMOVED },
};

/* FSCRYPT_POLICY_FLAGS_PAD_N encodes log2(N) - 2. */
static const struct name_value paddings[] = {
	{ "4", FSCRYPT_POLICY_FLAGS_PAD_4 },
	{ "8", FSCRYPT_POLICY_FLAGS_PAD_8 },
	{ "16", FSCRYPT_POLICY_FLAGS_PAD_16 },
	{ "32", FSCRYPT_POLICY_FLAGS_PAD_32 },
};

static const char usage_text[] =
	"Usage: %s [--print-errno] COMMAND [ARGS...]\n"
	"\n"
	"Commands:\n"
	"  set-policy DIR KEYSPEC [--contents=MODE] [--filenames=MODE]\n"
	"             [--flags=LIST] [--padding=4|8|16|32] [--version=N]\n"
	"  get-policy PATH          (FS_IOC_GET_ENCRYPTION_POLICY_EX)\n"
	"  get-policy-v1 PATH       (FS_IOC_GET_ENCRYPTION_POLICY)\n"
	"  add-key MNT [--hex=HEX] [--v1-descriptor=16HEX]\n"
	"  remove-key MNT KEYSPEC [--all-users]\n"
	"  key-status MNT KEYSPEC\n"
	"  get-nonce FILE\n"
	"  get-flags FILE\n"
	"  generation FILE          (FS_IOC_GETVERSION: the inode's generation)\n"
	"  enable-verity FILE       (FS_IOC_ENABLE_VERITY: SHA-256, page-size blocks)\n"
	"  clone SRC DST            (FICLONE: DST shares all of SRC's extents)\n"
	"  clone-range SRC DST OFFSET\n"
	"                           (FICLONERANGE: all of SRC into DST at OFFSET)\n"
	"  dedupe SRC DST           (FIDEDUPERANGE: all of SRC onto DST at offset 0)\n"
	"  punch FILE OFFSET LENGTH (fallocate PUNCH_HOLE | KEEP_SIZE)\n"
	"  send-raw SUBVOL OUT VERSION\n"
	"                           (btrfs, as root: BTRFS_IOC_SEND with the raw\n"
	"                           flag and stream VERSION, 0 for no VERSION flag)\n"
	"  stream-crc STREAM        (a btrfs send stream's command checksums\n"
	"                           computed again, in place, after an edit)\n"
	"  raw-set-context DIR CTXHEX\n"
	"                           (btrfs, as root: BTRFS_IOC_FSCRYPT_RAW\n"
	"                           SET_CONTEXT: the empty DIR gets the context\n"
	"                           CTXHEX as stored, no key needed)\n"
	"  raw-create DIR TYPE NAMEHEX [--ctx=HEX] [--symlink=HEX] [--mode=OCTAL]\n"
	"             [--rdev=MAJOR:MINOR]\n"
	"                           (btrfs, as root: BTRFS_IOC_FSCRYPT_RAW CREATE\n"
	"                           of an entry of DIR with the stored name\n"
	"                           NAMEHEX, the context --ctx and, for lnk, the\n"
	"                           stored target --symlink (le16 length and\n"
	"                           ciphertext); TYPE reg, dir, lnk, fifo, sock,\n"
	"                           chr or blk; --mode the permissions (default\n"
	"                           0755 dir, 0777 lnk, 0644 others))\n"
	"  raw-op DIR OP [--flags=N] [--reserved=N]\n"
	"                           (btrfs, as root: BTRFS_IOC_FSCRYPT_RAW of op\n"
	"                           OP, every other field 0 but flags and\n"
	"                           reserved[0]: probes of the checks)\n"
	"  extents FILE [--compression]\n"
	"                           (btrfs, as root: FILE's file extent items)\n"
	"  chunks PATH              (btrfs, as root: the chunks of PATH's filesystem)\n"
	"  rename2 OLD NEW exchange|whiteout|noreplace\n"
	"                           (renameat2 with that flag)\n"
	"  set-feature-encrypt PATH (btrfs, as root: BTRFS_IOC_SET_FEATURES of\n"
	"                           the encrypt incompat bit on PATH's filesystem)\n"
	"  tmpfile DIR NAME         (O_TMPFILE in DIR with stdin's data, then\n"
	"                           linked as DIR/NAME)\n"
	"  pattern SIZE SEED        (SIZE bytes of the pattern of SEED to stdout)\n"
	"  pattern-check FILE SIZE SEED\n"
	"                           (FILE holds exactly that: exit status 0, or 1\n"
	"                           and where it differs)\n"
	"  fail-write FILE SIZE SEED [--when=all|writeback|pages]\n"
	"                           (FILE made anew: SIZE bytes of the pattern of\n"
	"                           SEED written and written back with make-it-fail\n"
	"                           set, then fsync without)\n"
	"  fail-sync FILE [--fsync] (sync_file_range WAIT_BEFORE|WRITE|WAIT_AFTER,\n"
	"                           or fsync, of FILE, with make-it-fail set)\n"
	"  fsync-fd FD              (fsync of the open file descriptor FD)\n"
	"  sync-range FILE OFFSET LENGTH\n"
	"                           (sync_file_range WAIT_BEFORE|WRITE|WAIT_AFTER)\n"
	"  encoded-read FILE OFFSET OUT\n"
	"                           (btrfs, as root: BTRFS_IOC_ENCODED_READ at\n"
	"                           OFFSET; the encoded data to OUT, and its\n"
	"                           metadata to stdout as META)\n"
	"  encoded-write FILE OFFSET IN META\n"
	"                           (btrfs, as root: BTRFS_IOC_ENCODED_WRITE of\n"
	"                           IN's bytes at OFFSET with the metadata META)\n"
	"  raw-write DIR FILE OFFSET IN META\n"
	"                           (btrfs, as root: BTRFS_IOC_FSCRYPT_RAW WRITE\n"
	"                           on DIR: the encoded write of encoded-write to\n"
	"                           the encrypted FILE, opened O_PATH: no key\n"
	"                           needed)\n"
	"  raw-link DIR PATH NAMEHEX\n"
	"  raw-rename DIR PATH NAMEHEX\n"
	"                           (btrfs, as root: BTRFS_IOC_FSCRYPT_RAW LINK or\n"
	"                           RENAME: link the inode at PATH, or move the\n"
	"                           entry PATH, opened O_PATH, to the stored name\n"
	"                           NAMEHEX in DIR: no key needed)\n"
	"  raw-setsize DIR FILE SIZE\n"
	"  raw-punch DIR FILE OFFSET LEN\n"
	"                           (btrfs, as root: BTRFS_IOC_FSCRYPT_RAW SETSIZE\n"
	"                           or PUNCH on DIR: set the size of the encrypted\n"
	"                           FILE, opened O_PATH, or punch a hole in it: no\n"
	"                           key needed)\n"
	"  raw-subvol DIR NAMEHEX [--ctx=HEX]\n"
	"  raw-snapshot DIR SRC NAMEHEX\n"
	"                           (btrfs, as root: BTRFS_IOC_FSCRYPT_RAW SUBVOL\n"
	"                           or SNAPSHOT: a subvolume with the root context\n"
	"                           --ctx, or a snapshot of the subvolume SRC, named\n"
	"                           NAMEHEX as stored in DIR: no key needed)\n"
	"  raw-clone DIR DST SRC SRCOFF DSTOFF LEN\n"
	"                           (btrfs, as root: BTRFS_IOC_FSCRYPT_RAW CLONE\n"
	"                           on DIR: LEN bytes of the encrypted SRC at\n"
	"                           SRCOFF shared at DSTOFF of the encrypted DST,\n"
	"                           both opened O_PATH: no key needed)\n"
	"  help\n"
	"\n"
	"KEYSPEC is a 32-hex-digit v2 key identifier or a 16-hex-digit v1 descriptor.\n"
	"MODE: aes-256-xts, aes-256-cts, aes-128-cbc, aes-128-cts, adiantum,\n"
	"      aes-256-hctr2 (defaults: aes-256-xts contents, aes-256-cts filenames)\n"
	"LIST: comma-separated direct_key, iv_ino_lblk_64, iv_ino_lblk_32, or none\n"
	"--version=N stores a raw policy version byte (0-255), valid or not.\n"
	"add-key reads the raw key (1-64 bytes) from stdin unless --hex is given.\n"
	"--print-errno: when a syscall fails, also print its errno name on stdout.\n"
	"\n"
	"extents prints one line per EXTENT_DATA item of FILE (BTRFS_IOC_TREE_SEARCH\n"
	"in FILE's subvolume), in file order:\n"
	"  FILE_OFFSET TYPE DISK_BYTENR DISK_NUM_BYTES OFFSET NUM_BYTES PHYSICAL\n"
	"  ENCRYPTION CONTEXT_HEX\n"
	"TYPE is inline, reg or prealloc; numbers are decimal bytes; ENCRYPTION is\n"
	"the item's encryption byte (decimal); CONTEXT_HEX the bytes after a reg or\n"
	"prealloc item, or the context after the header of an encrypted inline item\n"
	"(the extent's encryption context; its size is ENCRYPTION >> 2), or -.\n"
	"PHYSICAL is where\n"
	"DISK_BYTENR lies on the device of stripe 0 of its chunk (the device itself\n"
	"on a single-device filesystem); - for holes (DISK_BYTENR 0) and inline\n"
	"extents, ? in a striped (RAID0/10/5/6) chunk. Inline extents show - for\n"
	"DISK_BYTENR and OFFSET, the bytes stored in the item as DISK_NUM_BYTES and\n"
	"ram_bytes as NUM_BYTES. --compression adds a last column COMPRESSION, the\n"
	"item's compression byte (0 none, 1 zlib, 2 lzo, 3 zstd).\n"
	"\n"
	"dedupe prints \"deduped N\" (bytes) when the ranges were the same and\n"
	"shared, \"differs\" (exit status 1) when their data differ; an error the\n"
	"kernel reports for the destination is reported like a failed syscall.\n"
	"\n"
	"chunks prints one line per chunk item (BTRFS_IOC_TREE_SEARCH in the chunk\n"
	"tree), in logical order:\n"
	"  LOGICAL LENGTH TYPE/PROFILE DEVICE_LENGTH DEVID:OFFSET[,DEVID:OFFSET...]\n"
	"TYPE is data, metadata, system or a combination (data+metadata); PROFILE\n"
	"single, dup, raid0, raid1, raid1c3, raid1c4, raid10, raid5 or raid6.\n"
	"DEVICE_LENGTH is the bytes the chunk takes on each of its stripes' devices;\n"
	"one DEVID:OFFSET per stripe says where. In a single, dup or raid1* chunk\n"
	"logical address L is at OFFSET + (L - LOGICAL) on every stripe's device.\n"
	"\n"
	"The pattern of SEED (a number) is a pseudo-random byte stream that depends\n"
	"only on SEED, so a file written with it can be checked later without a\n"
	"copy (pattern-check).\n"
	"\n"
	"fail-write and fail-sync set /proc/thread-self/make-it-fail while their\n"
	"system calls run, so that the fault injection of debugfs (failslab,\n"
	"fail_page_alloc) with task-filter=Y fails allocations made for them, and\n"
	"clear it before printing. Their memory is locked and prefaulted first:\n"
	"the injected failures hit the kernel's allocations, not their page faults.\n"
	"fail-write writes (write()) and writes back (sync_file_range WAIT_BEFORE|\n"
	"WRITE|WAIT_AFTER) with make-it-fail set, then clears it and fsyncs: the\n"
	"failures hit the allocations of the data's way to the disk (page cache,\n"
	"delalloc, extent allocation, encryption, bios), not those of the log tree\n"
	"or transaction commit that fsync then runs. It prints \"written=N\n"
	"write=R writeback=R fsync=R\", where N is the bytes that write() took and\n"
	"each R is ok or the errno name of the failure (after a failure the next\n"
	"steps run all the same); exit status 0 when all succeeded, 3 when one\n"
	"failed. --when=writeback sets make-it-fail for the writeback only,\n"
	"--when=pages only once the first page is written back (which, on btrfs,\n"
	"allocates the extent of all that was written): for the writing of the\n"
	"other pages. fail-sync prints \"sync=ok\" or \"sync=ERRNO\" (exit status\n"
	"0 or 3). Both exit with 1 when they could not start (open, make-it-fail).\n"
	"\n"
	"META is one line of space-separated fields: len=N unencoded_len=N\n"
	"unencoded_offset=N compression=N encryption=N context=HEX|- (the\n"
	"encryption context, with encryption=1: fscrypt) data_unit=N (the bytes\n"
	"per data unit of the ciphertext, 0 without). encoded-read prints it\n"
	"followed by bytes=N (the size of the encoded data); encoded-write takes\n"
	"it as encoded-read printed it (bytes= is ignored) and prints\n"
	"\"written N\".\n";

static void __noreturn __printf(1, 2) usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n\n");
	fprintf(stderr, usage_text, progname);
	exit(2);
}

/* Exactly one line on stderr, so test logs stay greppable. */
static int report_syscall_error(const char *what, const char *path, int err)
{
	const char *name = strerrorname_np(err);

	if (!name)
		name = "EUNKNOWN";
	fprintf(stderr, "%s: %s on %s: %s (%s)\n", progname, what, path,
		strerror(err), name);
	if (print_errno)
		printf("%s\n", name);
	return 1;
}

static int path_ioctl_named(const char *path, unsigned long request,
			    const char *request_name, void *arg)
{
	int fd, ret, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return report_syscall_error("open", path, errno);
	ret = ioctl(fd, request, arg);
	err = errno;
	close(fd);
	return ret < 0 ? report_syscall_error(request_name, path, err) : 0;
}

/* Stringify the request so error messages name the exact ioctl used. */
#define path_ioctl(path, request, arg) \
	path_ioctl_named(path, request, #request, arg)

/* Takes a length so that items of a comma-separated list can be looked up. */
static int name_to_value(const struct name_value *table, size_t n,
			 const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strlen(table[i].name) == len && !strncmp(table[i].name, name, len))
			return (int)table[i].value;
	return -1;
}

static int hex_digit_value(char c)
{
	static const char digits[] = "0123456789abcdef";
	const char *p = c ? strchr(digits, c | 0x20) : NULL;

	return p ? (int)(p - digits) : -1;
}

/* Succeeds only if @hex is exactly 2 * @len hex digits. */
static bool parse_hex(const char *hex, __u8 *out, size_t len)
{
	size_t i;

	if (strlen(hex) != 2 * len)
		return false;
	for (i = 0; i < len; i++) {
		int hi = hex_digit_value(hex[2 * i]);
		int lo = hex_digit_value(hex[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return false;
		out[i] = (__u8)(hi << 4 | lo);
	}
	return true;
}

static void print_hex_line(const __u8 *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		printf("%02x", buf[i]);
	putchar('\n');
}

static void parse_keyspec(const char *str, struct fscrypt_key_specifier *spec)
{
	memset(spec, 0, sizeof(*spec));
	if (parse_hex(str, spec->u.identifier, FSCRYPT_KEY_IDENTIFIER_SIZE))
		spec->type = FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER;
	else if (parse_hex(str, spec->u.descriptor, FSCRYPT_KEY_DESCRIPTOR_SIZE))
		spec->type = FSCRYPT_KEY_SPEC_TYPE_DESCRIPTOR;
	else
		usage_error("invalid KEYSPEC '%s': need 32 or 16 hex digits", str);
}

static __u8 parse_named(const struct name_value *table, size_t n,
			const char *what, const char *name)
{
	int value = name_to_value(table, n, name, strlen(name));

	if (value < 0)
		usage_error("unknown %s '%s'", what, name);
	return (__u8)value;
}

#define PARSE_NAMED(table, what, name) \
	parse_named(table, ARRAY_SIZE(table), what, name)

static void print_named(const char *prefix, const struct name_value *table,
			size_t n, unsigned int value)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (table[i].value == value) {
			printf("%s%s\n", prefix, table[i].name);
			return;
		}
	}
	printf("%sunknown(%u)\n", prefix, value);
}

#define PRINT_NAMED(prefix, table, value) \
	print_named(prefix, table, ARRAY_SIZE(table), value)

static __u8 parse_flag_list(const char *list)
{
	__u8 flags = 0;

	while (*list) {
		size_t len = strcspn(list, ",");
		int flag = name_to_value(policy_flags, ARRAY_SIZE(policy_flags),
					 list, len);

		if (flag >= 0)
			flags |= (__u8)flag;
		else if (len != 4 || strncmp(list, "none", 4))
			usage_error("unknown policy flag at '%s'", list);
		list += len;
		if (*list == ',')
			list++;
	}
	return flags;
}

static __u8 parse_byte(const char *str)
{
	char *end;
	unsigned long val;

	errno = 0;
	val = strtoul(str, &end, 0);
	if (errno || end == str || *end || str[0] == '-' || val > 255)
		usage_error("'%s' is not a number from 0 to 255", str);
	return (__u8)val;
}

/* The padding bits are not flags in the usual sense; they get their own line. */
static void print_policy_flags(__u8 flags)
{
	const char *sep = "";
	size_t i;

	flags &= (__u8)~FSCRYPT_POLICY_FLAGS_PAD_MASK;
	printf("flags %s", flags ? "" : "none");
	for (i = 0; i < ARRAY_SIZE(policy_flags); i++) {
		if (flags & policy_flags[i].value) {
			printf("%s%s", sep, policy_flags[i].name);
			sep = ",";
			flags &= (__u8)~policy_flags[i].value;
		}
	}
	if (flags)
		printf("%s0x%02x", sep, flags);
	putchar('\n');
}

/* v1 and v2 policies share their first four bytes, so print from those. */
static void print_policy(const __u8 *head, const __u8 *key, size_t key_len)
{
	printf("version %u\n", head[0]);
	PRINT_NAMED("contents ", modes, head[1]);
	PRINT_NAMED("filenames ", modes, head[2]);
	print_policy_flags(head[3]);
	printf("padding %u\n", 4u << (head[3] & FSCRYPT_POLICY_FLAGS_PAD_MASK));
	printf("key ");
	print_hex_line(key, key_len);
}

struct cmd_args {
	const char *pos[MAX_POSITIONAL];
	int npos;
	const char *opts[MAX_OPTIONS];
	int nopts;
};

/* Matches "@name=VALUE" and points @val at VALUE. */
static bool match_option(const char *opt, const char *name, const char **val)
{
	size_t len = strlen(name);

	if (strncmp(opt, name, len) || opt[len] != '=')
		return false;
	*val = opt + len + 1;
	return true;
}

static int cmd_set_policy(const struct cmd_args *args)
{
	/* A union, so that a bogus --version can't make the kernel read past it. */
	union {
		struct fscrypt_policy_v1 v1;
		struct fscrypt_policy_v2 v2;
	} policy;
	struct fscrypt_key_specifier spec;
	__u8 contents = FSCRYPT_MODE_AES_256_XTS;
	__u8 filenames = FSCRYPT_MODE_AES_256_CTS;
	__u8 flags = 0, padding = FSCRYPT_POLICY_FLAGS_PAD_32;
	int i, version = -1;
	const char *val;

	parse_keyspec(args->pos[1], &spec);
	for (i = 0; i < args->nopts; i++) {
		const char *opt = args->opts[i];

		if (match_option(opt, "--contents", &val))
			contents = PARSE_NAMED(modes, "mode", val);
		else if (match_option(opt, "--filenames", &val))
			filenames = PARSE_NAMED(modes, "mode", val);
		else if (match_option(opt, "--flags", &val))
			flags = parse_flag_list(val);
		else if (match_option(opt, "--padding", &val))
			padding = PARSE_NAMED(paddings, "padding", val);
		else if (match_option(opt, "--version", &val))
			version = parse_byte(val);
		else
			usage_error("set-policy: unknown option '%s'", opt);
	}

	memset(&policy, 0, sizeof(policy));
	if (spec.type == FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER) {
		policy.v2.version = FSCRYPT_POLICY_V2;
		memcpy(policy.v2.master_key_identifier, spec.u.identifier,
		       FSCRYPT_KEY_IDENTIFIER_SIZE);
	} else {
		policy.v1.version = FSCRYPT_POLICY_V1;
		memcpy(policy.v1.master_key_descriptor, spec.u.descriptor,
		       FSCRYPT_KEY_DESCRIPTOR_SIZE);
	}
	policy.v1.contents_encryption_mode = contents;
	policy.v1.filenames_encryption_mode = filenames;
	policy.v1.flags = flags | padding;
	if (version >= 0)
		policy.v1.version = (__u8)version;
	return path_ioctl(args->pos[0], FS_IOC_SET_ENCRYPTION_POLICY, &policy);
}

static int cmd_get_policy(const struct cmd_args *args)
{
	struct fscrypt_get_policy_ex_arg arg;
	const __u8 *head = (const __u8 *)&arg.policy;

	memset(&arg, 0, sizeof(arg));
	arg.policy_size = sizeof(arg.policy);
	if (path_ioctl(args->pos[0], FS_IOC_GET_ENCRYPTION_POLICY_EX, &arg))
		return 1;
	if (arg.policy.version == FSCRYPT_POLICY_V1) {
		print_policy(head, arg.policy.v1.master_key_descriptor,
			     FSCRYPT_KEY_DESCRIPTOR_SIZE);
	} else if (arg.policy.version == FSCRYPT_POLICY_V2) {
		print_policy(head, arg.policy.v2.master_key_identifier,
			     FSCRYPT_KEY_IDENTIFIER_SIZE);
	} else {
		fprintf(stderr, "%s: %s: unrecognized policy version %u\n",
			progname, args->pos[0], arg.policy.version);
		return 1;
	}
	return 0;
}

static int cmd_get_policy_v1(const struct cmd_args *args)
{
	struct fscrypt_policy_v1 policy;

	memset(&policy, 0, sizeof(policy));
	if (path_ioctl(args->pos[0], FS_IOC_GET_ENCRYPTION_POLICY, &policy))
		return 1;
	print_policy((const __u8 *)&policy, policy.master_key_descriptor,
		     FSCRYPT_KEY_DESCRIPTOR_SIZE);
	return 0;
}

/* Reads one byte beyond @max (the buffer must allow it) to catch long keys. */
static __u32 read_key_from_stdin(__u8 *buf, size_t max)
{
	size_t len = fread(buf, 1, max + 1, stdin);

	if (ferror(stdin))
		exit(report_syscall_error("read", "stdin", errno));
	if (len == 0 || len > max)
		usage_error("key on stdin must be 1 to %zu bytes", max);
	return (__u32)len;
}

static __u32 parse_key_hex(const char *hex, __u8 *buf, size_t max)
{
	size_t len = strlen(hex) / 2;

	if (len == 0 || len > max || !parse_hex(hex, buf, len))
		usage_error("--hex needs an even number (2 to %zu) of hex digits",
			    2 * max);
	return (__u32)len;
}

static int cmd_add_key(const struct cmd_args *args)
{
	/* Gives the flexible raw[] array room for a key, plus one probe byte. */
	union {
		struct fscrypt_add_key_arg arg;
		__u8 buf[sizeof(struct fscrypt_add_key_arg) + FSCRYPT_MAX_KEY_SIZE + 1];
	} u;
	struct fscrypt_add_key_arg *arg = &u.arg;
	const char *hex = NULL, *val;
	int i, ret;

	memset(&u, 0, sizeof(u));
	arg->key_spec.type = FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER;
	for (i = 0; i < args->nopts; i++) {
		const char *opt = args->opts[i];

		if (match_option(opt, "--hex", &val)) {
			hex = val;
		} else if (match_option(opt, "--v1-descriptor", &val)) {
			if (!parse_hex(val, arg->key_spec.u.descriptor,
				       FSCRYPT_KEY_DESCRIPTOR_SIZE))
				usage_error("--v1-descriptor needs 16 hex digits");
			arg->key_spec.type = FSCRYPT_KEY_SPEC_TYPE_DESCRIPTOR;
		} else {
			usage_error("add-key: unknown option '%s'", opt);
		}
	}

	if (hex)
		arg->raw_size = parse_key_hex(hex, arg->raw, FSCRYPT_MAX_KEY_SIZE);
	else
		arg->raw_size = read_key_from_stdin(arg->raw, FSCRYPT_MAX_KEY_SIZE);
	ret = path_ioctl(args->pos[0], FS_IOC_ADD_ENCRYPTION_KEY, arg);
	/* Master keys shouldn't outlive their use, even in a test tool. */
	explicit_bzero(arg->raw, FSCRYPT_MAX_KEY_SIZE + 1);
	if (!ret && arg->key_spec.type == FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER)
		print_hex_line(arg->key_spec.u.identifier, FSCRYPT_KEY_IDENTIFIER_SIZE);
	return ret;
}

static int cmd_remove_key(const struct cmd_args *args)
{
	struct fscrypt_remove_key_arg arg;
	const char *path = args->pos[0];
	int i, ret;

	for (i = 0; i < args->nopts; i++)
		if (strcmp(args->opts[i], "--all-users"))
			usage_error("remove-key: unknown option '%s'", args->opts[i]);
	memset(&arg, 0, sizeof(arg));
	parse_keyspec(args->pos[1], &arg.key_spec);
	if (args->nopts)
		ret = path_ioctl(path, FS_IOC_REMOVE_ENCRYPTION_KEY_ALL_USERS, &arg);
	else
		ret = path_ioctl(path, FS_IOC_REMOVE_ENCRYPTION_KEY, &arg);
	if (ret)
		return ret;
	if (!arg.removal_status_flags)
		printf("removed\n");
	if (arg.removal_status_flags & FSCRYPT_KEY_REMOVAL_STATUS_FLAG_FILES_BUSY)
		printf("files still busy\n");
	if (arg.removal_status_flags & FSCRYPT_KEY_REMOVAL_STATUS_FLAG_OTHER_USERS)
		printf("other users\n");
	return 0;
}

static int cmd_key_status(const struct cmd_args *args)
{
	struct fscrypt_get_key_status_arg arg;

	memset(&arg, 0, sizeof(arg));
	parse_keyspec(args->pos[1], &arg.key_spec);
	if (path_ioctl(args->pos[0], FS_IOC_GET_ENCRYPTION_KEY_STATUS, &arg))
		return 1;
	PRINT_NAMED("", key_statuses, arg.status);
	printf("users %u\n", arg.user_count);
	printf("added-by-self %s\n",
	       arg.status_flags & FSCRYPT_KEY_STATUS_FLAG_ADDED_BY_SELF ? "yes" : "no");
	return 0;
}

static int cmd_get_nonce(const struct cmd_args *args)
{
	__u8 nonce[16];

	if (path_ioctl(args->pos[0], FS_IOC_GET_ENCRYPTION_NONCE, nonce))
		return 1;
	print_hex_line(nonce, sizeof(nonce));
	return 0;
}

static int cmd_generation(const struct cmd_args *args)
{
	/* As for FS_IOC_GETFLAGS, the kernel copies an int. */
	int generation = 0;

	if (path_ioctl(args->pos[0], FS_IOC_GETVERSION, &generation))
		return 1;
	printf("%u\n", (unsigned int)generation);
	return 0;
}

static int cmd_get_flags(const struct cmd_args *args)
{
	/* The kernel copies an int, despite the "long" in the ioctl number. */
	int flags = 0;

	if (path_ioctl(args->pos[0], FS_IOC_GETFLAGS, &flags))
		return 1;
	printf("flags 0x%x%s%s\n", (unsigned int)flags,
	       flags & FS_ENCRYPT_FL ? " encrypt" : "",
	       flags & FS_VERITY_FL ? " verity" : "");
	return 0;
}

static int cmd_enable_verity(const struct cmd_args *args)
{
	/* Linux 6.1 takes only Merkle tree blocks of the page size. */
	struct fsverity_enable_arg arg = {
		.version = 1,
		.hash_algorithm = FS_VERITY_HASH_ALG_SHA256,
		.block_size = (__u32)sysconf(_SC_PAGESIZE),
	};

	/* path_ioctl() opens read-only, as fs-verity needs: no writer left. */
	return path_ioctl(args->pos[0], FS_IOC_ENABLE_VERITY, &arg);
}

static int cmd_clone(const struct cmd_args *args)
{
	int src, dst, ret, err;

	src = open(args->pos[0], O_RDONLY | O_CLOEXEC);
	if (src < 0)
		return report_syscall_error("open", args->pos[0], errno);
	dst = open(args->pos[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (dst < 0) {
		err = errno;
		close(src);
		return report_syscall_error("open", args->pos[1], err);
	}
	ret = ioctl(dst, FICLONE, src);
	err = errno;
	close(dst);
	close(src);
	return ret < 0 ? report_syscall_error("FICLONE", args->pos[1], err) : 0;
}

static int cmd_rename2(const struct cmd_args *args)
{
	static const struct name_value rename_flags[] = {
		{ "exchange", RENAME_EXCHANGE },
		{ "whiteout", RENAME_WHITEOUT },
		{ "noreplace", RENAME_NOREPLACE },
	};
	unsigned int flag = parse_named(rename_flags, ARRAY_SIZE(rename_flags),
					"rename2 flag", args->pos[2]);

	if (renameat2(AT_FDCWD, args->pos[0], AT_FDCWD, args->pos[1], flag) < 0)
		return report_syscall_error("renameat2", args->pos[0], errno);
	return 0;
}

/*
 * The encrypt incompat bit (1 << 15), which the system's linux/btrfs.h may
 * not define yet.
 */
#define BTRFS_FEATURE_INCOMPAT_ENCRYPT_BIT	(1ULL << 15)

static int cmd_set_feature_encrypt(const struct cmd_args *args)
{
	/* [0]: the bits to change, [1]: their new values */
	struct btrfs_ioctl_feature_flags flags[2] = {
		{ .incompat_flags = BTRFS_FEATURE_INCOMPAT_ENCRYPT_BIT },
		{ .incompat_flags = BTRFS_FEATURE_INCOMPAT_ENCRYPT_BIT },
	};
	int fd, ret, err;

	fd = open(args->pos[0], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return report_syscall_error("open", args->pos[0], errno);
	ret = ioctl(fd, BTRFS_IOC_SET_FEATURES, flags);
	err = errno;
	close(fd);
	return ret < 0 ?
	       report_syscall_error("BTRFS_IOC_SET_FEATURES", args->pos[0], err) : 0;
}

/* Copy all of stdin to fd. */
static int copy_stdin(int fd)
{
	char buf[65536];
	ssize_t n;

	while ((n = read(STDIN_FILENO, buf, sizeof(buf))) > 0)
		if (write(fd, buf, n) != n)
			return -1;
	return n < 0 ? -1 : 0;
}

static int cmd_tmpfile(const struct cmd_args *args)
{
	char path[4096];
	int fd, err;

	fd = open(args->pos[0], O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
	if (fd < 0)
		return report_syscall_error("open(O_TMPFILE)", args->pos[0], errno);
	if (copy_stdin(fd) < 0 || fsync(fd) < 0) {
		err = errno;
		close(fd);
		return report_syscall_error("write", args->pos[0], err);
	}
	snprintf(path, sizeof(path), "%s/%s", args->pos[0], args->pos[1]);
	if (linkat(fd, "", AT_FDCWD, path, AT_EMPTY_PATH) < 0) {
		err = errno;
		close(fd);
		return report_syscall_error("linkat", path, err);
	}
	close(fd);
	return 0;
}

static int cmd_dedupe(const struct cmd_args *args)
{
	union {
		struct file_dedupe_range range;
		__u8 buf[sizeof(struct file_dedupe_range) +
			 sizeof(struct file_dedupe_range_info)];
	} u;
	struct file_dedupe_range_info *info = &u.range.info[0];
	struct stat st;
	int src, dst, ret, err;

	src = open(args->pos[0], O_RDONLY | O_CLOEXEC);
	if (src < 0)
		return report_syscall_error("open", args->pos[0], errno);
	if (fstat(src, &st) < 0) {
		err = errno;
		close(src);
		return report_syscall_error("fstat", args->pos[0], err);
	}
	/* Dedupe needs the destination open for writing (or its owner, root). */
	dst = open(args->pos[1], O_RDWR | O_CLOEXEC);
	if (dst < 0) {
		err = errno;
		close(src);
		return report_syscall_error("open", args->pos[1], err);
	}
	memset(&u, 0, sizeof(u));
	u.range.src_offset = 0;
	u.range.src_length = (__u64)st.st_size;
	u.range.dest_count = 1;
	info->dest_fd = dst;
	info->dest_offset = 0;
	ret = ioctl(src, FIDEDUPERANGE, &u.range);
	err = errno;
	close(dst);
	close(src);
	if (ret < 0)
		return report_syscall_error("FIDEDUPERANGE", args->pos[0], err);
	if (info->status < 0)
		return report_syscall_error("FIDEDUPERANGE", args->pos[1], -info->status);
	if (info->status == FILE_DEDUPE_RANGE_DIFFERS) {
		printf("differs\n");
		return 1;
	}
	printf("deduped %llu\n", (unsigned long long)info->bytes_deduped);
	return 0;
}

static __u64 parse_u64(const char *str)
{
	char *end;
	unsigned long long val;

	errno = 0;
	val = strtoull(str, &end, 0);
	if (errno || end == str || *end || str[0] == '-')
		usage_error("'%s' is not a number", str);
	return (__u64)val;
}

static off_t parse_offset(const char *str)
{
	char *end;
	long long val;

	errno = 0;
	val = strtoll(str, &end, 0);
	if (errno || end == str || *end || val < 0)
		usage_error("'%s' is not a byte count", str);
	return (off_t)val;
}

static int cmd_punch(const struct cmd_args *args)
{
	off_t off = parse_offset(args->pos[1]), len = parse_offset(args->pos[2]);
	int fd, ret, err;

	fd = open(args->pos[0], O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return report_syscall_error("open", args->pos[0], errno);
	ret = fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, len);
	err = errno;
	close(fd);
	return ret < 0 ? report_syscall_error("fallocate", args->pos[0], err) : 0;
}

/*
 * The raw send flag of the series, which the system's linux/btrfs.h does not
 * have. send-raw asks for a raw stream as a caller other than btrfs-progs
 * would, so that the kernel's own checks of the flag can be tested.
 */
#define SEND_FLAG_RAW 0x20

static int cmd_send_raw(const struct cmd_args *args)
{
	struct btrfs_ioctl_send_args sa = { .flags = SEND_FLAG_RAW };
	int fd, out, ret, err;
	char *end;

	errno = 0;
	sa.version = strtoul(args->pos[2], &end, 10);
	if (errno || end == args->pos[2] || *end)
		usage_error("'%s' is not a stream version", args->pos[2]);
	if (sa.version)
		sa.flags |= BTRFS_SEND_FLAG_VERSION;
	fd = open(args->pos[0], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return report_syscall_error("open", args->pos[0], errno);
	out = open(args->pos[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (out < 0) {
		err = errno;
		close(fd);
		return report_syscall_error("open", args->pos[1], err);
	}
	sa.send_fd = out;
	ret = ioctl(fd, BTRFS_IOC_SEND, &sa);
	err = errno;
	close(out);
	close(fd);
	return ret < 0 ? report_syscall_error("BTRFS_IOC_SEND", args->pos[0], err) : 0;
}

/* CRC32C as btrfs computes it (btrfs_crc32c(0, ...)): no inversions */
static __u32 crc32c_raw(__u32 crc, const __u8 *p, size_t len)
{
	int k;

	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78 & -(crc & 1));
	}
	return crc;
}

/*
 * stream-crc: each command of a send stream (a 10-byte header: le32 length,
 * le16 command, le32 CRC32C of header and data with the CRC field 0) gets
 * its checksum again, so that a test can edit a stream's attributes and see
 * the receiver judge them rather than the checksum.
 */
static int cmd_stream_crc(const struct cmd_args *args)
{
	static const char magic[] = "btrfs-stream";
	const char *path = args->pos[0];
	__u8 *buf = NULL;
	size_t size = 0, at, n;
	int fd, ret = 1;
	ssize_t got;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return report_syscall_error("open", path, errno);
	for (;;) {
		__u8 *more = realloc(buf, size + 65536);

		if (!more)
			goto out;
		buf = more;
		got = read(fd, buf + size, 65536);
		if (got < 0) {
			ret = report_syscall_error("read", path, errno);
			goto out;
		}
		if (!got)
			break;
		size += got;
	}
	if (size < sizeof(magic) + 4 || memcmp(buf, magic, sizeof(magic))) {
		fprintf(stderr, "%s: %s: not a btrfs send stream\n", progname, path);
		goto out;
	}
	for (at = sizeof(magic) + 4, n = 0; at < size; n++) {
		__u32 len = 0, crc;

		if (size - at >= 10) {
			memcpy(&len, buf + at, sizeof(len));
			len = le32toh(len);
		}
		if (size - at < 10 || size - at - 10 < len) {
			fprintf(stderr, "%s: %s: command %zu cut short\n", progname, path, n);
			goto out;
		}
		memset(buf + at + 6, 0, sizeof(crc));
		crc = htole32(crc32c_raw(0, buf + at, 10 + len));
		memcpy(buf + at + 6, &crc, sizeof(crc));
		at += 10 + len;
	}
	if (pwrite(fd, buf, size, 0) != (ssize_t)size) {
		ret = report_syscall_error("write", path, errno);
		goto out;
	}
	printf("%zu commands\n", n);
	ret = 0;
out:
	free(buf);
	close(fd);
	return ret;
}

/*
 * BTRFS_IOC_FSCRYPT_RAW of the series (patch 39), which the system's
 * linux/btrfs.h does not have: struct btrfs_ioctl_fscrypt_raw_args.
 */
struct raw_args {
	__u32 op;
	__u32 flags;		/* must be 0 */
	__u64 name;		/* pointer to the stored name */
	__u64 name_len;
	__u64 ctx;		/* pointer to an fscrypt context */
	__u64 ctx_len;
	__u64 data;		/* pointer to a symlink target as stored */
	__u64 data_len;
	__u64 mode;
	__u64 rdev;		/* new_encode_dev() */
	__s64 target_fd;	/* WRITE, LINK, RENAME, SETSIZE, PUNCH: O_PATH will do;
				 * SNAPSHOT: the source's root directory */
	__u64 offset;		/* PUNCH */
	__u64 len;		/* SETSIZE, PUNCH */
	__u64 reserved[9];	/* must be 0 */
};
_Static_assert(sizeof(struct raw_args) == 168, "struct btrfs_ioctl_fscrypt_raw_args");

#define RAW_IOC		_IOW(BTRFS_IOCTL_MAGIC, 80, struct raw_args)
#define RAW_SET_CONTEXT	1
#define RAW_CREATE	2
#define RAW_WRITE	3
#define RAW_LINK	4
#define RAW_RENAME	5
#define RAW_SETSIZE	6
#define RAW_PUNCH	7
#define RAW_SUBVOL	8
#define RAW_SNAPSHOT	9
#define RAW_CLONE	10
#define RAW_PTR(buf)	((__u64)(uintptr_t)(buf))

/* Room beyond the kernel's limits, for the probes of those limits. */
static __u8 raw_name[512], raw_ctx[64], raw_data[65536];

static int raw_ioctl(const char *dir, struct raw_args *ra)
{
	return path_ioctl_named(dir, RAW_IOC, "BTRFS_IOC_FSCRYPT_RAW", ra);
}

/* Up to @max bytes from an even number of hex digits, none included. */
static __u64 parse_hex_arg(const char *what, const char *hex, __u8 *buf, size_t max)
{
	size_t len = strlen(hex) / 2;

	if (strlen(hex) % 2 || len > max || !parse_hex(hex, buf, len))
		usage_error("%s needs an even number (0 to %zu) of hex digits", what, 2 * max);
	return len;
}

static int cmd_raw_set_context(const struct cmd_args *args)
{
	struct raw_args ra = { .op = RAW_SET_CONTEXT, .ctx = RAW_PTR(raw_ctx) };

	ra.ctx_len = parse_hex_arg("CTXHEX", args->pos[1], raw_ctx, sizeof(raw_ctx));
	return raw_ioctl(args->pos[0], &ra);
}

/* MAJOR:MINOR as new_encode_dev() encodes it. */
static __u64 parse_rdev(const char *str)
{
	unsigned long major, minor;
	char *end;

	errno = 0;
	major = strtoul(str, &end, 10);
	if (errno || end == str || *end != ':' || major > 0xfff)
		usage_error("--rdev: '%s' is not MAJOR:MINOR", str);
	str = end + 1;
	minor = strtoul(str, &end, 10);
	if (errno || end == str || *end || minor > 0xfffff)
		usage_error("--rdev: '%s' is not MAJOR:MINOR", str);
	return (minor & 0xff) | (major << 8) | ((minor & ~0xffUL) << 12);
}

static int cmd_raw_create(const struct cmd_args *args)
{
	/* The types, with their default permissions */
	static const struct name_value types[] = {
		{ "reg", S_IFREG | 0644 }, { "dir", S_IFDIR | 0755 },
		{ "lnk", S_IFLNK | 0777 }, { "fifo", S_IFIFO | 0644 },
		{ "sock", S_IFSOCK | 0644 }, { "chr", S_IFCHR | 0644 },
		{ "blk", S_IFBLK | 0644 },
	};
	struct raw_args ra = { .op = RAW_CREATE, .name = RAW_PTR(raw_name) };
	int type = name_to_value(types, ARRAY_SIZE(types), args->pos[1],
				 strlen(args->pos[1]));
	const char *val;
	char *end;
	int i;

	if (type < 0)
		usage_error("raw-create: unknown TYPE '%s'", args->pos[1]);
	ra.mode = (__u64)type;
	ra.name_len = parse_hex_arg("NAMEHEX", args->pos[2], raw_name, sizeof(raw_name));
	for (i = 0; i < args->nopts; i++) {
		const char *opt = args->opts[i];

		if (match_option(opt, "--ctx", &val)) {
			ra.ctx = RAW_PTR(raw_ctx);
			ra.ctx_len = parse_hex_arg("--ctx", val, raw_ctx, sizeof(raw_ctx));
		} else if (match_option(opt, "--symlink", &val)) {
			ra.data = RAW_PTR(raw_data);
			ra.data_len = parse_hex_arg("--symlink", val, raw_data,
						    sizeof(raw_data));
		} else if (match_option(opt, "--mode", &val)) {
			errno = 0;
			ra.mode = (ra.mode & S_IFMT) | strtoull(val, &end, 8);
			if (errno || end == val || *end)
				usage_error("--mode: '%s' is not an octal number", val);
		} else if (match_option(opt, "--rdev", &val)) {
			ra.rdev = parse_rdev(val);
		} else {
			usage_error("raw-create: unknown option '%s'", opt);
		}
	}
	return raw_ioctl(args->pos[0], &ra);
}

static int cmd_raw_op(const struct cmd_args *args)
{
	struct raw_args ra = { .op = (__u32)parse_u64(args->pos[1]) };
	const char *val;
	int i;

	for (i = 0; i < args->nopts; i++) {
		if (match_option(args->opts[i], "--flags", &val))
			ra.flags = (__u32)parse_u64(val);
		else if (match_option(args->opts[i], "--reserved", &val))
			ra.reserved[0] = parse_u64(val);
		else
			usage_error("raw-op: unknown option '%s'", args->opts[i]);
	}
	return raw_ioctl(args->pos[0], &ra);
}

/* Little-endian fields of on-disk btrfs items, which need not be aligned. */
static __u64 get_le64(const __u8 *p)
{
	__u64 v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

static __u16 get_le16(const __u8 *p)
{
	__u16 v;

	memcpy(&v, p, sizeof(v));
	return le16toh(v);
}

/* Called for each item found; returns 0 to go on, non-zero to stop with it. */
typedef int (*search_fn)(const struct btrfs_ioctl_search_header *sh,
			 const __u8 *item, void *ctx);

/*
 * Calls @fn on every item of tree @tree_id (0: the subvolume of @fd) with a
 * key from (@objectid, @type, @min_offset) to (@objectid, @type, @max_offset),
 * in key order.  One BTRFS_IOC_TREE_SEARCH returns as many items as fit in its
 * buffer, so search again after the last offset returned until the kernel
 * finds nothing more.
 */
static int search_items(int fd, const char *path, __u64 tree_id,
			__u64 objectid, __u8 type, __u64 min_offset,
			__u64 max_offset, search_fn fn, void *ctx)
{
	struct btrfs_ioctl_search_args args;
	struct btrfs_ioctl_search_key *sk = &args.key;
	struct btrfs_ioctl_search_header sh;
	__u64 last = 0;
	size_t pos;
	__u32 i;
	int ret;

	for (;;) {
		memset(&args, 0, sizeof(args));
		sk->tree_id = tree_id;
		sk->min_objectid = objectid;
		sk->max_objectid = objectid;
		sk->min_type = type;
		sk->max_type = type;
		sk->min_offset = min_offset;
		sk->max_offset = max_offset;
		sk->min_transid = 0;
		sk->max_transid = (__u64)-1;
		sk->nr_items = (__u32)-1;
		if (ioctl(fd, BTRFS_IOC_TREE_SEARCH, &args) < 0)
			return report_syscall_error("BTRFS_IOC_TREE_SEARCH", path, errno);
		if (sk->nr_items == 0)
			return 0;
		pos = 0;
		for (i = 0; i < sk->nr_items; i++) {
			if (pos + sizeof(sh) > sizeof(args.buf)) {
				fprintf(stderr, "%s: %s: search result overruns its buffer\n",
					progname, path);
				return 1;
			}
			memcpy(&sh, args.buf + pos, sizeof(sh));
			pos += sizeof(sh);
			if (pos + sh.len > sizeof(args.buf)) {
				fprintf(stderr, "%s: %s: item of %u bytes overruns the buffer\n",
					progname, path, sh.len);
				return 1;
			}
			if (sh.objectid == objectid && sh.type == type) {
				ret = fn(&sh, (const __u8 *)args.buf + pos, ctx);
				if (ret)
					return ret;
			}
			pos += sh.len;
			last = sh.offset;
		}
		if (last >= max_offset)
			return 0;
		min_offset = last + 1;
	}
}

struct stripe {
	__u64 devid;
	__u64 offset;
};

struct chunk {
	__u64 start;
	__u64 length;
	__u64 type;
	__u16 num_stripes;
	__u16 sub_stripes;
	struct stripe *stripes;
};

struct chunk_list {
	struct chunk *chunks;
	size_t n;
	size_t alloc;
	const char *path;
};

static int add_chunk(const struct btrfs_ioctl_search_header *sh,
		     const __u8 *item, void *ctx)
{
	const size_t first_stripe = offsetof(struct btrfs_chunk, stripe);
	struct chunk_list *list = ctx;
	struct chunk *c;
	__u16 num_stripes, i;

	num_stripes = sh->len < sizeof(struct btrfs_chunk) ? 0 :
		      get_le16(item + offsetof(struct btrfs_chunk, num_stripes));
	if (num_stripes == 0 ||
	    sh->len < first_stripe + num_stripes * sizeof(struct btrfs_stripe)) {
		fprintf(stderr, "%s: %s: chunk item at %llu is too short\n", progname,
			list->path, (unsigned long long)sh->offset);
		return 1;
	}
	if (list->n == list->alloc) {
		list->alloc = list->alloc ? 2 * list->alloc : 16;
		list->chunks = realloc(list->chunks, list->alloc * sizeof(*c));
		if (!list->chunks) {
			fprintf(stderr, "%s: out of memory\n", progname);
			return 1;
		}
	}
	c = &list->chunks[list->n++];
	c->start = sh->offset;
	c->length = get_le64(item + offsetof(struct btrfs_chunk, length));
	c->type = get_le64(item + offsetof(struct btrfs_chunk, type));
	c->num_stripes = num_stripes;
	c->sub_stripes = get_le16(item + offsetof(struct btrfs_chunk, sub_stripes));
	c->stripes = calloc(num_stripes, sizeof(*c->stripes));
	if (!c->stripes) {
		fprintf(stderr, "%s: out of memory\n", progname);
		list->n--;
		return 1;
	}
	for (i = 0; i < num_stripes; i++) {
		const __u8 *st = item + first_stripe + i * sizeof(struct btrfs_stripe);

		c->stripes[i].devid = get_le64(st + offsetof(struct btrfs_stripe, devid));
		c->stripes[i].offset = get_le64(st + offsetof(struct btrfs_stripe, offset));
	}
	return 0;
}

static int read_chunks(int fd, struct chunk_list *list)
{
	/* The chunk tree is small; read all of it at once. */
	return search_items(fd, list->path, BTRFS_CHUNK_TREE_OBJECTID,
			    BTRFS_FIRST_CHUNK_TREE_OBJECTID, BTRFS_CHUNK_ITEM_KEY,
			    0, (__u64)-1, add_chunk, list);
}

static void free_chunks(struct chunk_list *list)
{
	size_t i;

	for (i = 0; i < list->n; i++)
		free(list->chunks[i].stripes);
	free(list->chunks);
}

struct extent_walk {
	int fd;
	const char *path;
	struct chunk_list chunks;
	bool chunks_read;
	bool compression;
};

/* The device offset of logical address @bytenr, in @buf ("?" if striped). */
static int physical_of(struct extent_walk *w, __u64 bytenr, char *buf, size_t size)
{
	const __u64 striped = BTRFS_BLOCK_GROUP_RAID0 | BTRFS_BLOCK_GROUP_RAID10 |
			      BTRFS_BLOCK_GROUP_RAID56_MASK;
	size_t i;

	if (!w->chunks_read) {
		w->chunks.path = w->path;
		if (read_chunks(w->fd, &w->chunks))
			return 1;
		w->chunks_read = true;
	}
	for (i = 0; i < w->chunks.n; i++) {
		const struct chunk *c = &w->chunks.chunks[i];

		if (bytenr < c->start || bytenr - c->start >= c->length)
			continue;
		if (c->type & striped)
			snprintf(buf, size, "?");
		else
			snprintf(buf, size, "%llu", (unsigned long long)
				 (c->stripes[0].offset + (bytenr - c->start)));
		return 0;
	}
	fprintf(stderr, "%s: %s: no chunk covers logical address %llu\n",
		progname, w->path, (unsigned long long)bytenr);
	return 1;
}

static int print_extent(const struct btrfs_ioctl_search_header *sh,
			const __u8 *item, void *ctx)
{
	/* The inline data start where disk_bytenr would be. */
	const size_t inline_start = offsetof(struct btrfs_file_extent_item, disk_bytenr);
	const size_t fixed = sizeof(struct btrfs_file_extent_item);
	static const char * const types[] = {
		[BTRFS_FILE_EXTENT_INLINE] = "inline",
		[BTRFS_FILE_EXTENT_REG] = "reg",
		[BTRFS_FILE_EXTENT_PREALLOC] = "prealloc",
	};
	struct extent_walk *w = ctx;
	char physical[32];
	__u8 type, encryption, compression;
	__u64 bytenr;
	size_t i;

	if (sh->len < inline_start) {
		fprintf(stderr, "%s: %s: file extent item at %llu is %u bytes\n",
			progname, w->path, (unsigned long long)sh->offset, sh->len);
		return 1;
	}
	type = item[offsetof(struct btrfs_file_extent_item, type)];
	encryption = item[offsetof(struct btrfs_file_extent_item, encryption)];
	compression = item[offsetof(struct btrfs_file_extent_item, compression)];
	if (type == BTRFS_FILE_EXTENT_INLINE) {
		/* An encrypted one: its context, then the ciphertext. */
		size_t ctx_end = inline_start + (encryption >> 2);

		printf("%llu inline - %u - %llu - %u ",
		       (unsigned long long)sh->offset, sh->len - (__u32)inline_start,
		       (unsigned long long)get_le64(item + offsetof(struct btrfs_file_extent_item,
								   ram_bytes)),
		       encryption);
		if (ctx_end == inline_start || ctx_end > sh->len)
			printf("-");
		else
			for (i = inline_start; i < ctx_end; i++)
				printf("%02x", item[i]);
		if (w->compression)
			printf(" %u", compression);
		putchar('\n');
		return 0;
	}
	if (type >= ARRAY_SIZE(types) || sh->len < fixed) {
		fprintf(stderr, "%s: %s: file extent item at %llu: type %u, %u bytes\n",
			progname, w->path, (unsigned long long)sh->offset, type, sh->len);
		return 1;
	}
	bytenr = get_le64(item + offsetof(struct btrfs_file_extent_item, disk_bytenr));
	if (!bytenr)
		snprintf(physical, sizeof(physical), "-");
	else if (physical_of(w, bytenr, physical, sizeof(physical)))
		return 1;
	printf("%llu %s %llu %llu %llu %llu %s %u ",
	       (unsigned long long)sh->offset, types[type],
	       (unsigned long long)bytenr,
	       (unsigned long long)get_le64(item + offsetof(struct btrfs_file_extent_item,
							   disk_num_bytes)),
	       (unsigned long long)get_le64(item + offsetof(struct btrfs_file_extent_item,
							   offset)),
	       (unsigned long long)get_le64(item + offsetof(struct btrfs_file_extent_item,
							   num_bytes)),
	       physical, encryption);
	if (sh->len == fixed)
		printf("-");
	for (i = fixed; i < sh->len; i++)
		printf("%02x", item[i]);
	if (w->compression)
		printf(" %u", compression);
	putchar('\n');
	return 0;
}

static int cmd_extents(const struct cmd_args *args)
{
	struct extent_walk w = { .path = args->pos[0] };
	struct stat st;
	int i, ret;

	for (i = 0; i < args->nopts; i++) {
		if (strcmp(args->opts[i], "--compression"))
			usage_error("extents: unknown option '%s'", args->opts[i]);
		w.compression = true;
	}
	w.fd = open(w.path, O_RDONLY | O_CLOEXEC);
	if (w.fd < 0)
		return report_syscall_error("open", w.path, errno);
	if (fstat(w.fd, &st) < 0) {
		ret = report_syscall_error("fstat", w.path, errno);
	} else {
		/* Tree 0 is the subvolume that holds the open file. */
		ret = search_items(w.fd, w.path, 0, st.st_ino, BTRFS_EXTENT_DATA_KEY,
				   0, (__u64)-1, print_extent, &w);
	}
	free_chunks(&w.chunks);
	close(w.fd);
	if (fflush(stdout))
		ret = report_syscall_error("write", "stdout", errno);
	return ret;
}

static const struct name_value chunk_types[] = {
	{ "data", BTRFS_BLOCK_GROUP_DATA },
	{ "system", BTRFS_BLOCK_GROUP_SYSTEM },
	{ "metadata", BTRFS_BLOCK_GROUP_METADATA },
};

static const struct name_value chunk_profiles[] = {
	{ "raid0", BTRFS_BLOCK_GROUP_RAID0 },
	{ "raid1", BTRFS_BLOCK_GROUP_RAID1 },
	{ "dup", BTRFS_BLOCK_GROUP_DUP },
	{ "raid10", BTRFS_BLOCK_GROUP_RAID10 },
	{ "raid5", BTRFS_BLOCK_GROUP_RAID5 },
	{ "raid6", BTRFS_BLOCK_GROUP_RAID6 },
	{ "raid1c3", BTRFS_BLOCK_GROUP_RAID1C3 },
	{ "raid1c4", BTRFS_BLOCK_GROUP_RAID1C4 },
};

/* How many stripes of @c hold distinct data (the rest: copies or parity). */
static __u64 data_stripes(const struct chunk *c)
{
	if (c->type & BTRFS_BLOCK_GROUP_RAID0)
		return c->num_stripes;
	if (c->type & BTRFS_BLOCK_GROUP_RAID10)
		return c->sub_stripes ? c->num_stripes / c->sub_stripes : 0;
	if (c->type & BTRFS_BLOCK_GROUP_RAID5)
		return c->num_stripes - 1u;
	if (c->type & BTRFS_BLOCK_GROUP_RAID6)
		return c->num_stripes - 2u;
	return 1;	/* single, dup, raid1* */
}

static void print_chunk(const struct chunk *c)
{
	const char *sep = "", *profile = "single";
	__u64 per_device = data_stripes(c);
	size_t i;

	printf("%llu %llu ", (unsigned long long)c->start,
	       (unsigned long long)c->length);
	for (i = 0; i < ARRAY_SIZE(chunk_types); i++) {
		if (c->type & chunk_types[i].value) {
			printf("%s%s", sep, chunk_types[i].name);
			sep = "+";
		}
	}
	if (!*sep)
		printf("none");
	for (i = 0; i < ARRAY_SIZE(chunk_profiles); i++)
		if (c->type & chunk_profiles[i].value)
			profile = chunk_profiles[i].name;
	printf("/%s ", profile);
	if (per_device)
		printf("%llu ", (unsigned long long)(c->length / per_device));
	else
		printf("? ");
	for (i = 0; i < c->num_stripes; i++)
		printf("%s%llu:%llu", i ? "," : "",
		       (unsigned long long)c->stripes[i].devid,
		       (unsigned long long)c->stripes[i].offset);
	putchar('\n');
}

static int cmd_chunks(const struct cmd_args *args)
{
	struct chunk_list list = { .path = args->pos[0] };
	size_t i;
	int fd, ret;

	fd = open(list.path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return report_syscall_error("open", list.path, errno);
	ret = read_chunks(fd, &list);
	/* Chunk items are keyed by their logical address: already in order. */
	for (i = 0; !ret && i < list.n; i++)
		print_chunk(&list.chunks[i]);
	free_chunks(&list);
	close(fd);
	if (fflush(stdout))
		ret = report_syscall_error("write", "stdout", errno);
	return ret;
}

/* SplitMix64: the 8-byte word @k of the pattern of @seed. */
static __u64 pattern_word(__u64 seed, __u64 k)
{
	__u64 x = seed * 0x9e3779b97f4a7c15ULL + k;

	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* Bytes @off to @off + @len of the pattern of @seed; @off is 8-aligned. */
static void fill_pattern(__u8 *buf, size_t len, __u64 seed, __u64 off)
{
	size_t i;

	for (i = 0; i < len; i += 8) {
		__u64 w = htole64(pattern_word(seed, (off + i) / 8));

		memcpy(buf + i, &w, len - i < 8 ? len - i : 8);
	}
}

#define IO_CHUNK	65536

/* Pattern and I/O buffer: in .bss, so that mlockall() populates it. */
static __u8 io_buf[IO_CHUNK];

static int write_all(int fd, const __u8 *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, buf, len);
		if (n < 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static int cmd_clone_range(const struct cmd_args *args)
{
	struct file_clone_range range = { .dest_offset = parse_u64(args->pos[2]) };
	int src, dst, ret, err;

	src = open(args->pos[0], O_RDONLY | O_CLOEXEC);
	if (src < 0)
		return report_syscall_error("open", args->pos[0], errno);
	dst = open(args->pos[1], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (dst < 0) {
		err = errno;
		close(src);
		return report_syscall_error("open", args->pos[1], err);
	}
	/* src_length 0: to the end of SRC. */
	range.src_fd = src;
	ret = ioctl(dst, FICLONERANGE, &range);
	err = errno;
	close(dst);
	close(src);
	return ret < 0 ? report_syscall_error("FICLONERANGE", args->pos[1], err) : 0;
}

static int cmd_pattern(const struct cmd_args *args)
{
	__u64 size = parse_u64(args->pos[0]), seed = parse_u64(args->pos[1]);
	__u64 off;
	size_t len;

	for (off = 0; off < size; off += len) {
		len = size - off < IO_CHUNK ? (size_t)(size - off) : IO_CHUNK;
		fill_pattern(io_buf, len, seed, off);
		if (write_all(STDOUT_FILENO, io_buf, len))
			return report_syscall_error("write", "stdout", errno);
	}
	return 0;
}

static int cmd_pattern_check(const struct cmd_args *args)
{
	static __u8 want[IO_CHUNK];
	const char *path = args->pos[0];
	__u64 size = parse_u64(args->pos[1]), seed = parse_u64(args->pos[2]);
	__u64 off = 0;
	size_t len, got, i;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return report_syscall_error("open", path, errno);
	for (;;) {
		/* Up to a chunk, and one byte more at the end to see a longer file. */
		len = size - off < IO_CHUNK ? (size_t)(size - off) + 1 : IO_CHUNK;
		for (got = 0; got < len; got += (size_t)n) {
			n = read(fd, io_buf + got, len - got);
			if (n < 0) {
				n = errno;
				close(fd);
				return report_syscall_error("read", path, (int)n);
			}
			if (n == 0)
				break;
		}
		if (off + got > size) {
			close(fd);
			printf("%s: longer than %llu bytes\n", path, (unsigned long long)size);
			return 1;
		}
		fill_pattern(want, got, seed, off);
		for (i = 0; i < got; i++) {
			if (io_buf[i] != want[i]) {
				close(fd);
				printf("%s: differs at byte %llu\n", path,
				       (unsigned long long)(off + i));
				return 1;
			}
		}
		off += got;
		if (got < len)
			break;
	}
	close(fd);
	if (off < size) {
		printf("%s: %llu bytes, expected %llu\n", path,
		       (unsigned long long)off, (unsigned long long)size);
		return 1;
	}
	return 0;
}

/*
 * Fault injection aimed at this thread: /proc/thread-self/make-it-fail, open
 * before anything fails (the open itself allocates), written to switch.
 */
static int make_it_fail_open(void)
{
	int fd = open("/proc/thread-self/make-it-fail", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		fd = open("/proc/self/make-it-fail", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		report_syscall_error("open", "/proc/thread-self/make-it-fail", errno);
	return fd;
}

static int make_it_fail_set(int fd, bool on)
{
	if (pwrite(fd, on ? "1" : "0", 1, 0) != 1)
		return report_syscall_error("write", "/proc/thread-self/make-it-fail", errno);
	return 0;
}

/* Touches @n more bytes of stack, so that later calls fault in nothing. */
static __attribute__((noinline)) void prefault_stack(size_t n)
{
	volatile __u8 pad[65536];
	size_t i;

	for (i = 0; i < sizeof(pad); i += 4096)
		pad[i] = 0;
	if (n > sizeof(pad))
		prefault_stack(n - sizeof(pad));
}

/*
 * Everything this process will touch while the faults are on is present
 * and stays so: a failed page fault would not tell anything about the
 * kernel code under test.
 */
static void prefault(void)
{
	prefault_stack(4 * 65536);
	memset(io_buf, 0, sizeof(io_buf));
	/* Best effort: root may lock memory, others get no guarantee. */
	mlockall(MCL_CURRENT | MCL_FUTURE);
	/* stdio allocates its buffer at the first output: do it now. */
	fflush(stdout);
}

/*
 * open() PATH with FLAGS, and /proc/thread-self/make-it-fail into *MIF, with
 * everything prefaulted, as the fail-* commands need before they turn
 * failures on. Returns the file descriptor, or -1 after a message.
 */
static int open_for_failures(const char *path, int flags, int *mif)
{
	int fd = open(path, flags | O_CLOEXEC, 0644);

	if (fd < 0) {
		report_syscall_error("open", path, errno);
		return -1;
	}
	*mif = make_it_fail_open();
	if (*mif < 0) {
		close(fd);
		return -1;
	}
	prefault();
	return fd;
}

static const char *errno_name(int err)
{
	const char *name = strerrorname_np(err);

	return name ? name : "EUNKNOWN";
}

static int cmd_fail_write(const struct cmd_args *args)
{
	const char *path = args->pos[0];
	__u64 size = parse_u64(args->pos[1]), seed = parse_u64(args->pos[2]);
	__u64 done = 0;
	int fd, mif, write_err = 0, writeback_err = 0, fsync_err = 0;
	enum { FAIL_ALL, FAIL_WRITEBACK, FAIL_PAGES } when = FAIL_ALL;
	const char *val;
	size_t len, pos;
	ssize_t n = 0;
	int i;

	for (i = 0; i < args->nopts; i++) {
		if (!match_option(args->opts[i], "--when", &val))
			usage_error("fail-write: unknown option '%s'", args->opts[i]);
		if (!strcmp(val, "all"))
			when = FAIL_ALL;
		else if (!strcmp(val, "writeback"))
			when = FAIL_WRITEBACK;
		else if (!strcmp(val, "pages"))
			when = FAIL_PAGES;
		else
			usage_error("fail-write: --when=%s: all, writeback or pages", val);
	}
	fd = open_for_failures(path, O_WRONLY | O_CREAT | O_TRUNC, &mif);
	if (fd < 0)
		return 1;
	if (when == FAIL_ALL && make_it_fail_set(mif, true)) {
		close(mif);
		close(fd);
		return 1;
	}
	/* Short writes go on where they stopped; the first error ends it. */
	while (done < size && !write_err) {
		len = size - done < IO_CHUNK ? (size_t)(size - done) : IO_CHUNK;
		fill_pattern(io_buf, len, seed, done);
		for (pos = 0; pos < len; pos += (size_t)n, done += (__u64)n) {
			n = write(fd, io_buf + pos, len - pos);
			if (n <= 0) {
				write_err = n < 0 ? errno : EIO;
				break;
			}
		}
	}
	if (when == FAIL_PAGES && sync_file_range(fd, 0, 4096, SYNC_FILE_RANGE_WAIT_BEFORE |
						 SYNC_FILE_RANGE_WRITE |
						 SYNC_FILE_RANGE_WAIT_AFTER) < 0)
		writeback_err = errno;
	if (when != FAIL_ALL && make_it_fail_set(mif, true)) {
		close(mif);
		close(fd);
		return 1;
	}
	if (sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WAIT_BEFORE |
			    SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER) < 0)
		writeback_err = errno;
	if (make_it_fail_set(mif, false)) {
		close(mif);
		close(fd);
		return 1;
	}
	close(mif);
	if (fsync(fd) < 0)
		fsync_err = errno;
	close(fd);
	printf("written=%llu write=%s writeback=%s fsync=%s\n",
	       (unsigned long long)done,
	       write_err ? errno_name(write_err) : "ok",
	       writeback_err ? errno_name(writeback_err) : "ok",
	       fsync_err ? errno_name(fsync_err) : "ok");
	return write_err || writeback_err || fsync_err ? 3 : 0;
}

static int cmd_fail_sync(const struct cmd_args *args)
{
	const char *path = args->pos[0];
	bool use_fsync = false;
	int i, fd, mif, ret, err = 0;

	for (i = 0; i < args->nopts; i++) {
		if (strcmp(args->opts[i], "--fsync"))
			usage_error("fail-sync: unknown option '%s'", args->opts[i]);
		use_fsync = true;
	}
	fd = open_for_failures(path, O_RDWR, &mif);
	if (fd < 0)
		return 1;
	if (make_it_fail_set(mif, true)) {
		close(mif);
		close(fd);
		return 1;
	}
	if (use_fsync)
		ret = fsync(fd);
	else
		ret = sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WAIT_BEFORE |
				      SYNC_FILE_RANGE_WRITE |
				      SYNC_FILE_RANGE_WAIT_AFTER);
	if (ret < 0)
		err = errno;
	ret = make_it_fail_set(mif, false);
	close(mif);
	close(fd);
	if (ret)
		return 1;
	printf("sync=%s\n", err ? errno_name(err) : "ok");
	return err ? 3 : 0;
}

static int cmd_sync_range(const struct cmd_args *args)
{
	off_t off = parse_offset(args->pos[1]), len = parse_offset(args->pos[2]);
	int fd, ret, err;

	fd = open(args->pos[0], O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return report_syscall_error("open", args->pos[0], errno);
	ret = sync_file_range(fd, off, len, SYNC_FILE_RANGE_WAIT_BEFORE |
			      SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
	err = errno;
	close(fd);
	return ret < 0 ? report_syscall_error("sync_file_range", args->pos[0], err) : 0;
}

static int cmd_fsync_fd(const struct cmd_args *args)
{
	__u64 fd = parse_u64(args->pos[0]);

	if (fd > 65535)
		usage_error("'%s' is not a file descriptor", args->pos[0]);
	if (fsync((int)fd) < 0)
		return report_syscall_error("fsync", args->pos[0], errno);
	return 0;
}

/*
 * struct btrfs_ioctl_encoded_io_args as the series extends it: the encryption
 * context and the data unit size take 48 of the 64 reserved bytes.  The
 * system's linux/btrfs.h may not have the fields yet; the size, and so the
 * ioctl numbers, are the same.
 */
#define ENCODED_CONTEXT_MAX	40
struct encoded_io_args {
	const struct iovec *iov;
	unsigned long iovcnt;
	__s64 offset;
	__u64 flags;
	__u64 len;
	__u64 unencoded_len;
	__u64 unencoded_offset;
	__u32 compression;
	__u32 encryption;
	__u32 encryption_context_size;
	__u8 encryption_context[ENCODED_CONTEXT_MAX];
	__u32 encryption_data_unit_size;
	__u8 reserved[16];
};
_Static_assert(sizeof(struct encoded_io_args) ==
	       sizeof(struct btrfs_ioctl_encoded_io_args), "encoded I/O args");

#define ENCODED_BUF_SIZE	(256 * 1024)
static __u8 encoded_buf[ENCODED_BUF_SIZE];

static void print_encoded_meta(const struct encoded_io_args *a)
{
	__u32 i;

	printf("len=%llu unencoded_len=%llu unencoded_offset=%llu compression=%u encryption=%u context=",
	       (unsigned long long)a->len, (unsigned long long)a->unencoded_len,
	       (unsigned long long)a->unencoded_offset, a->compression,
	       a->encryption);
	if (!a->encryption_context_size)
		putchar('-');
	for (i = 0; i < a->encryption_context_size && i < ENCODED_CONTEXT_MAX; i++)
		printf("%02x", a->encryption_context[i]);
	printf(" data_unit=%u", a->encryption_data_unit_size);
}

/*
 * One encoded I/O ioctl on @path opened with @flags, with the data in @iov:
 * its result, or -1.
 */
static int encoded_ioctl(const char *path, int flags, unsigned long request,
			 const char *name, struct encoded_io_args *a,
			 const struct iovec *iov)
{
	int fd, ret;

	a->iov = iov;
	a->iovcnt = 1;
	fd = open(path, flags | O_CLOEXEC);
	if (fd < 0) {
		report_syscall_error("open", path, errno);
		return -1;
	}
	ret = ioctl(fd, request, a);
	if (ret < 0)
		report_syscall_error(name, path, errno);
	close(fd);
	return ret;
}

static int cmd_encoded_read(const struct cmd_args *args)
{
	struct encoded_io_args a = { .offset = (__s64)parse_offset(args->pos[1]) };
	struct iovec iov = { .iov_base = encoded_buf, .iov_len = sizeof(encoded_buf) };
	int out, ret;

	ret = encoded_ioctl(args->pos[0], O_RDONLY, BTRFS_IOC_ENCODED_READ,
			    "BTRFS_IOC_ENCODED_READ", &a, &iov);
	if (ret < 0)
		return 1;
	out = open(args->pos[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (out < 0)
		return report_syscall_error("open", args->pos[2], errno);
	if (write_all(out, encoded_buf, ret) || close(out))
		return report_syscall_error("write", args->pos[2], errno);
	print_encoded_meta(&a);
	printf(" bytes=%d\n", ret);
	return 0;
}

/* One "name=value" field of META into @a; 0, or 1 for an unknown name. */
static int parse_encoded_field(struct encoded_io_args *a, const char *name,
			       const char *val)
{
	size_t hex_len = strlen(val);

	if (!strcmp(name, "len"))
		a->len = parse_u64(val);
	else if (!strcmp(name, "unencoded_len"))
		a->unencoded_len = parse_u64(val);
	else if (!strcmp(name, "unencoded_offset"))
		a->unencoded_offset = parse_u64(val);
	else if (!strcmp(name, "compression"))
		a->compression = (__u32)parse_u64(val);
	else if (!strcmp(name, "encryption"))
		a->encryption = (__u32)parse_u64(val);
	else if (!strcmp(name, "data_unit"))
		a->encryption_data_unit_size = (__u32)parse_u64(val);
	else if (!strcmp(name, "context") && !strcmp(val, "-"))
		a->encryption_context_size = 0;
	else if (!strcmp(name, "context")) {
		if (hex_len % 2 || hex_len / 2 > ENCODED_CONTEXT_MAX ||
		    !parse_hex(val, a->encryption_context, hex_len / 2))
			usage_error("context: need 2 to %d hex digits", 2 * ENCODED_CONTEXT_MAX);
		a->encryption_context_size = hex_len / 2;
	} else if (strcmp(name, "bytes"))
		return 1;
	return 0;
}

/*
 * The encoded write of IN's bytes with the metadata META into @a and @iov
 * (its data in encoded_buf), the arguments of encoded-write and raw-write.
 */
static int load_encoded_write(struct encoded_io_args *a, struct iovec *iov,
			      const char *offset, const char *in_path, const char *meta_arg)
{
	char *meta = strdup(meta_arg), *field, *save = NULL;
	int in;
	ssize_t n;

	a->offset = (__s64)parse_offset(offset);
	if (!meta)
		return report_syscall_error("strdup", "META", errno);
	for (field = strtok_r(meta, " ", &save); field; field = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(field, '=');

		if (!eq)
			usage_error("META: '%s' is not name=value", field);
		*eq = '\0';
		if (parse_encoded_field(a, field, eq + 1))
			usage_error("META: unknown field '%s'", field);
	}
	free(meta);
	in = open(in_path, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return report_syscall_error("open", in_path, errno);
	n = read(in, encoded_buf, sizeof(encoded_buf));
	close(in);
	if (n < 0)
		return report_syscall_error("read", in_path, errno);
	iov->iov_base = encoded_buf;
	iov->iov_len = n;
	a->iov = iov;
	a->iovcnt = 1;
	return 0;
}

static int cmd_encoded_write(const struct cmd_args *args)
{
	struct encoded_io_args a = { 0 };
	struct iovec iov;
	int ret;

	if (load_encoded_write(&a, &iov, args->pos[1], args->pos[2], args->pos[3]))
		return 1;
	ret = encoded_ioctl(args->pos[0], O_WRONLY, BTRFS_IOC_ENCODED_WRITE,
			    "BTRFS_IOC_ENCODED_WRITE", &a, &iov);
	if (ret < 0)
		return 1;
	printf("written %d\n", ret);
	return 0;
}

/* BTRFS_FSCRYPT_RAW_WRITE: encoded-write to a file opened O_PATH */
static int cmd_raw_write(const struct cmd_args *args)
{
	struct raw_args ra = { .op = RAW_WRITE };
	struct encoded_io_args a = { 0 };
	struct iovec iov;
	int fd, target, ret, err;

	if (load_encoded_write(&a, &iov, args->pos[2], args->pos[3], args->pos[4]))
		return 1;
	ra.data = RAW_PTR(&a);
	ra.data_len = sizeof(a);
	target = open(args->pos[1], O_PATH | O_CLOEXEC);
	if (target < 0)
		return report_syscall_error("open O_PATH", args->pos[1], errno);
	ra.target_fd = target;
	fd = open(args->pos[0], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		close(target);
		return report_syscall_error("open", args->pos[0], err);
	}
	ret = ioctl(fd, RAW_IOC, &ra);
	err = errno;
	close(fd);
	close(target);
	if (ret < 0)
		return report_syscall_error("BTRFS_IOC_FSCRYPT_RAW", args->pos[0], err);
	printf("written %d\n", ret);
	return 0;
}

/*
 * BTRFS_IOC_FSCRYPT_RAW on DIR with target_fd the entry PATH, opened O_PATH
 * and O_NOFOLLOW: a symlink is itself the entry, as for rename(2).
 */
static int raw_on_path(const char *dir, const char *path, struct raw_args *ra)
{
	int target, ret;

	target = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (target < 0)
		return report_syscall_error("open O_PATH", path, errno);
	ra->target_fd = target;
	ret = raw_ioctl(dir, ra);
	close(target);
	return ret;
}

/* BTRFS_FSCRYPT_RAW_LINK or _RENAME of the entry PATH */
static int raw_link_or_rename(const struct cmd_args *args, __u32 op)
{
	struct raw_args ra = { .op = op, .name = RAW_PTR(raw_name) };

	ra.name_len = parse_hex_arg("NAMEHEX", args->pos[2], raw_name, sizeof(raw_name));
	return raw_on_path(args->pos[0], args->pos[1], &ra);
}

static int cmd_raw_setsize(const struct cmd_args *args)
{
	struct raw_args ra = { .op = RAW_SETSIZE, .len = parse_u64(args->pos[2]) };

	return raw_on_path(args->pos[0], args->pos[1], &ra);
}

static int cmd_raw_punch(const struct cmd_args *args)
{
	struct raw_args ra = {
		.op = RAW_PUNCH,
		.offset = parse_u64(args->pos[2]),
		.len = parse_u64(args->pos[3]),
	};

	return raw_on_path(args->pos[0], args->pos[1], &ra);
}

static int cmd_raw_link(const struct cmd_args *args)
{
	return raw_link_or_rename(args, RAW_LINK);
}

static int cmd_raw_rename(const struct cmd_args *args)
{
	return raw_link_or_rename(args, RAW_RENAME);
}

static int cmd_raw_subvol(const struct cmd_args *args)
{
	struct raw_args ra = { .op = RAW_SUBVOL, .name = RAW_PTR(raw_name) };
	const char *val;
	int i;

	ra.name_len = parse_hex_arg("NAMEHEX", args->pos[1], raw_name, sizeof(raw_name));
	for (i = 0; i < args->nopts; i++) {
		if (!match_option(args->opts[i], "--ctx", &val))
			usage_error("raw-subvol: unknown option '%s'", args->opts[i]);
		ra.ctx = RAW_PTR(raw_ctx);
		ra.ctx_len = parse_hex_arg("--ctx", val, raw_ctx, sizeof(raw_ctx));
	}
	return raw_ioctl(args->pos[0], &ra);
}

/* BTRFS_FSCRYPT_RAW_SNAPSHOT: the source is opened as a directory */
static int cmd_raw_snapshot(const struct cmd_args *args)
{
	struct raw_args ra = { .op = RAW_SNAPSHOT, .name = RAW_PTR(raw_name) };
	int src, ret;

	ra.name_len = parse_hex_arg("NAMEHEX", args->pos[2], raw_name, sizeof(raw_name));
	src = open(args->pos[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (src < 0)
		return report_syscall_error("open", args->pos[1], errno);
	ra.target_fd = src;
	ret = raw_ioctl(args->pos[0], &ra);
	close(src);
	return ret;
}

/* BTRFS_FSCRYPT_RAW_CLONE: both files opened O_PATH, as raw receive does */
static int cmd_raw_clone(const struct cmd_args *args)
{
	struct btrfs_ioctl_clone_range_args clone = {
		.src_offset = parse_u64(args->pos[3]),
		.src_length = parse_u64(args->pos[5]),
		.dest_offset = parse_u64(args->pos[4]),
	};
	struct raw_args ra = {
		.op = RAW_CLONE,
		.data = RAW_PTR(&clone),
		.data_len = sizeof(clone),
	};
	int src, ret;

	src = open(args->pos[2], O_PATH | O_CLOEXEC);
	if (src < 0)
		return report_syscall_error("open O_PATH", args->pos[2], errno);
	clone.src_fd = src;
	ret = raw_on_path(args->pos[0], args->pos[1], &ra);
	close(src);
	return ret;
}

static const struct command {
	const char *name;
	int (*fn)(const struct cmd_args *args);
	int npos;
	bool takes_options;
} commands[] = {
	{ "set-policy", cmd_set_policy, 2, true },
	{ "get-policy", cmd_get_policy, 1, false },
	{ "get-policy-v1", cmd_get_policy_v1, 1, false },
	{ "add-key", cmd_add_key, 1, true },
	{ "remove-key", cmd_remove_key, 2, true },
	{ "key-status", cmd_key_status, 2, false },
	{ "get-nonce", cmd_get_nonce, 1, false },
	{ "get-flags", cmd_get_flags, 1, false },
	{ "generation", cmd_generation, 1, false },
	{ "enable-verity", cmd_enable_verity, 1, false },
	{ "clone", cmd_clone, 2, false },
	{ "clone-range", cmd_clone_range, 3, false },
	{ "dedupe", cmd_dedupe, 2, false },
	{ "punch", cmd_punch, 3, false },
	{ "send-raw", cmd_send_raw, 3, false },
	{ "stream-crc", cmd_stream_crc, 1, false },
	{ "raw-set-context", cmd_raw_set_context, 2, false },
	{ "raw-create", cmd_raw_create, 3, true },
	{ "raw-op", cmd_raw_op, 2, true },
	{ "raw-write", cmd_raw_write, 5, false },
	{ "raw-link", cmd_raw_link, 3, false },
	{ "raw-rename", cmd_raw_rename, 3, false },
	{ "raw-setsize", cmd_raw_setsize, 3, false },
	{ "raw-punch", cmd_raw_punch, 4, false },
	{ "raw-subvol", cmd_raw_subvol, 2, true },
	{ "raw-snapshot", cmd_raw_snapshot, 3, false },
	{ "raw-clone", cmd_raw_clone, 6, false },
	{ "extents", cmd_extents, 1, true },
	{ "chunks", cmd_chunks, 1, false },
	{ "rename2", cmd_rename2, 3, false },
	{ "set-feature-encrypt", cmd_set_feature_encrypt, 1, false },
	{ "tmpfile", cmd_tmpfile, 2, false },
	{ "pattern", cmd_pattern, 2, false },
	{ "pattern-check", cmd_pattern_check, 3, false },
	{ "fail-write", cmd_fail_write, 3, true },
	{ "fail-sync", cmd_fail_sync, 1, true },
	{ "fsync-fd", cmd_fsync_fd, 1, false },
	{ "sync-range", cmd_sync_range, 3, false },
	{ "encoded-read", cmd_encoded_read, 3, false },
	{ "encoded-write", cmd_encoded_write, 4, false },
};

/* Options may come anywhere after the command, mixed with positionals. */
static int run_command(const struct command *cmd, int argc, char **argv)
{
	struct cmd_args args = { .npos = 0 };
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "--", 2)) {
			if (!cmd->takes_options || args.nopts == MAX_OPTIONS)
				usage_error("%s: unexpected option '%s'", cmd->name, argv[i]);
			args.opts[args.nopts++] = argv[i];
		} else {
			if (args.npos == cmd->npos)
				usage_error("%s: unexpected argument '%s'", cmd->name, argv[i]);
			args.pos[args.npos++] = argv[i];
		}
	}
	if (args.npos != cmd->npos)
		usage_error("%s: expected %d argument(s), got %d", cmd->name,
			    cmd->npos, args.npos);
	return cmd->fn(&args);
}

int main(int argc, char **argv)
{
	int argi = 1;
	size_t i;

	for (; argi < argc && argv[argi][0] == '-'; argi++) {
		if (!strcmp(argv[argi], "--help") || !strcmp(argv[argi], "-h")) {
			printf(usage_text, progname);
			return 0;
		}
		if (strcmp(argv[argi], "--print-errno"))
			usage_error("unknown global option '%s'", argv[argi]);
		print_errno = true;
	}
	if (argi >= argc)
		usage_error("no command given");
	if (!strcmp(argv[argi], "help")) {
		printf(usage_text, progname);
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, argv[argi]))
			return run_command(&commands[i], argc - argi - 1, argv + argi + 1);
	usage_error("unknown command '%s'", argv[argi]);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The timed workloads of "make bench" (tools/bench/guest.sh), one per call:
 * each prints one line "RATE UNIT", the time measured around the system
 * calls only (CLOCK_MONOTONIC), so that the guest shell's own cost stays out.
 *
 *   bench-io seqwrite FILE MIB       write MIB MiB in 1 MiB writes, fsync: MiB/s
 *   bench-io bgwrite FILE MIB        the same, then syncfs instead of fsync (the
 *                                    flusher writes it back): MiB/s
 *   bench-io seqread FILE            read FILE in 1 MiB reads: MiB/s
 *   bench-io randread FILE COUNT     COUNT 4 KiB preads at random offsets: IOPS
 *   bench-io randwrite FILE COUNT    COUNT 4 KiB pwrites at random offsets, fsync: IOPS
 *   bench-io clone SRC DST           FICLONE SRC into a new DST, fsync: MiB/s of SRC
 *   bench-io mkfiles DIR D N LEN SIZE  D directories of N files with LEN-byte
 *                                    names and SIZE bytes each, syncfs: files/s
 *   bench-io stat DIR D N LEN        stat every file by name, shuffled: files/s
 *   bench-io rmfiles DIR D N LEN     unlink every file, rmdir, syncfs: files/s
 *   bench-io run COUNT CMD ARG...    run CMD (stdout to /dev/null): COUNT/s
 *   bench-io parwrite DIR N MIB      N processes each write MIB/N MiB to a file
 *                                    of their own in DIR, 1 MiB writes, fsync:
 *                                    MiB/s of them all
 *   bench-io fragment FILE COUNT     COUNT 4 KiB blocks 8 KiB apart, written in
 *                                    random order, fsync (COUNT extents on
 *                                    btrfs); prints nothing
 *   bench-io extread FILE COUNT      read FILE in 1 MiB reads: COUNT/s (the
 *                                    extents of a fragment FILE per second)
 *
 * Random offsets come from a fixed seed: every row does the same I/O.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>

#define MIB	(1024 * 1024)
#define BLOCK	4096

static void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "bench-io: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (errno)
		fprintf(stderr, ": %s", strerror(errno));
	fputc('\n', stderr);
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A buffer of pseudo-random bytes: nothing along the way can shortcut it. */
static char *random_buffer(size_t size)
{
	uint64_t *buf = aligned_alloc(BLOCK, size);
	size_t i;

	if (!buf)
		die("out of memory");
	for (i = 0; i < size / sizeof(*buf); i++)
		buf[i] = next_random();
	return (char *)buf;
}

static long number(const char *s)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(s, &end, 10);
	if (errno || *end || n < 0)
		die("not a number: '%s'", s);
	return n;
}

static void result(double count, double seconds, const char *unit)
{
	if (seconds <= 0)
		seconds = 1e-9;
	printf("%.1f %s\n", count / seconds, unit);
}

static void write_all(int fd, const char *buf, size_t len, off_t off)
{
	ssize_t n;

	while (len) {
		n = off < 0 ? write(fd, buf, len) : pwrite(fd, buf, len, off);
		if (n <= 0)
			die("write");
		buf += n;
		len -= n;
		if (off >= 0)
			off += n;
	}
}

/*
 * Write @mib MiB to @path in 1 MiB writes, then fsync it, or with @use_syncfs
 * syncfs its filesystem: sync(2) has the flusher write back first, without
 * waiting on each write (no REQ_SYNC), as it writes back in the background.
 */
static void seqwrite(const char *path, long mib, int use_syncfs)
{
	char *buf = random_buffer(MIB);
	double t0;
	long i;
	int fd;

	t0 = now();
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("open %s", path);
	for (i = 0; i < mib; i++) {
		buf[0] = i;	/* no two MiB alike */
		write_all(fd, buf, MIB, -1);
	}
	if (use_syncfs ? syncfs(fd) : fsync(fd))
		die("%s %s", use_syncfs ? "syncfs" : "fsync", path);
	if (close(fd))
		die("close %s", path);
	result(mib, now() - t0, "MiB/s");
}

/* Read @path in 1 MiB reads; return the bytes read and the time taken. */
static double read_file(const char *path, double *seconds)
{
	char *buf = random_buffer(MIB);
	double t0, total = 0;
	ssize_t n;
	int fd;

	t0 = now();
	fd = open(path, O_RDONLY);
	if (fd < 0)
		die("open %s", path);
	while ((n = read(fd, buf, MIB)) > 0)
		total += n;
	if (n < 0)
		die("read %s", path);
	close(fd);
	*seconds = now() - t0;
	free(buf);
	return total;
}

static void seqread(const char *path)
{
	double seconds, total = read_file(path, &seconds);

	result(total / MIB, seconds, "MiB/s");
}

static void extread(const char *path, long count)
{
	double seconds;

	read_file(path, &seconds);
	result(count, seconds, "extents/s");
}

/* @writers processes, each writing @mib / @writers MiB to its own file. */
static void parwrite(const char *dir, long writers, long mib)
{
	long per = mib / writers, w;
	int status;
	double t0;

	if (writers < 1 || per < 1)
		die("parwrite: %ld MiB for %ld writers", mib, writers);
	t0 = now();
	for (w = 0; w < writers; w++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (pid == 0) {
			char *buf = random_buffer(MIB);
			char path[4096];
			long i;
			int fd;

			snprintf(path, sizeof(path), "%s/w%ld", dir, w);
			fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd < 0)
				die("open %s", path);
			for (i = 0; i < per; i++) {
				buf[0] = i;
				buf[1] = w;
				write_all(fd, buf, MIB, -1);
			}
			if (fsync(fd) || close(fd))
				die("fsync %s", path);
			_exit(0);
		}
	}
	for (w = 0; w < writers; w++) {
		if (wait(&status) < 0)
			die("wait");
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			errno = 0;
			die("a writer failed (status 0x%x)", status);
		}
	}
	result(per * writers, now() - t0, "MiB/s");
}

static void random_io(const char *path, long count, int writing)
{
	char *buf = random_buffer(BLOCK);
	struct stat st;
	off_t blocks;
	double t0;
	long i;
	int fd;

	fd = open(path, writing ? O_RDWR : O_RDONLY);
	if (fd < 0 || fstat(fd, &st))
		die("open %s", path);
	blocks = st.st_size / BLOCK;
	if (!blocks)
		die("%s is smaller than a block", path);
	/* Random reads: no readahead, every read goes to the disk. */
	posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	t0 = now();
	for (i = 0; i < count; i++) {
		off_t off = (next_random() % blocks) * BLOCK;

		if (writing) {
			write_all(fd, buf, BLOCK, off);
		} else if (pread(fd, buf, BLOCK, off) != BLOCK) {
			die("pread %s", path);
		}
	}
	if (writing && fsync(fd))
		die("fsync %s", path);
	result(count, now() - t0, "IOPS");
	close(fd);
}

static void clone_file(const char *src, const char *dst)
{
	struct stat st;
	double t0;
	int in, out;

	in = open(src, O_RDONLY);
	if (in < 0 || fstat(in, &st))
		die("open %s", src);
	t0 = now();
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (out < 0)
		die("open %s", dst);
	if (ioctl(out, FICLONE, in))
		die("FICLONE %s %s", src, dst);
	if (fsync(out) || close(out))
		die("fsync %s", dst);
	result((double)st.st_size / MIB, now() - t0, "MiB/s");
	close(in);
}

/* The path of file F of directory D: a LEN-byte name, unique in its first bytes. */
static void file_name(char *out, const char *dir, long d, long f, long len)
{
	int n = sprintf(out, "%s/d%ld/", dir, d);
	int m = sprintf(out + n, "f%06ld-", f);

	memset(out + n + m, 'x', len - m);
	out[n + len] = 0;
}

static long parse_files(char **argv, const char **dir, long *dirs, long *len)
{
	long files;

	*dir = argv[0];
	*dirs = number(argv[1]);
	files = number(argv[2]);
	*len = number(argv[3]);
	if (*len < 8 || *len > 255)
		die("name length %ld: 8 to 255", *len);
	return files;
}

static void syncfs_of(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY);

	if (fd < 0 || syncfs(fd) || close(fd))
		die("syncfs %s", dir);
}

static void mkfiles(char **argv)
{
	const char *dir;
	long dirs, len, files = parse_files(argv, &dir, &dirs, &len);
	long size = number(argv[4]), d, f;
	char *buf = random_buffer(size + BLOCK);
	char path[4096];
	double t0 = now();
	int fd;

	for (d = 0; d < dirs; d++) {
		snprintf(path, sizeof(path), "%s/d%ld", dir, d);
		if (mkdir(path, 0755))
			die("mkdir %s", path);
		for (f = 0; f < files; f++) {
			file_name(path, dir, d, f, len);
			fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
			if (fd < 0)
				die("create %s", path);
			write_all(fd, buf + f % BLOCK, size, -1);
			close(fd);
		}
	}
	syncfs_of(dir);
	result(dirs * files, now() - t0, "files/s");
}

static void stat_files(char **argv)
{
	const char *dir;
	long dirs, len, files = parse_files(argv, &dir, &dirs, &len);
	long total = dirs * files, i, j, tmp;
	long *order = malloc(total * sizeof(*order));
	char path[4096];
	struct stat st;
	double t0;

	if (!order)
		die("out of memory");
	for (i = 0; i < total; i++)
		order[i] = i;
	for (i = total - 1; i > 0; i--) {
		j = next_random() % (i + 1);
		tmp = order[i];
		order[i] = order[j];
		order[j] = tmp;
	}
	t0 = now();
	for (i = 0; i < total; i++) {
		file_name(path, dir, order[i] / files, order[i] % files, len);
		if (stat(path, &st))
			die("stat %s", path);
	}
	result(total, now() - t0, "files/s");
}

static void rmfiles(char **argv)
{
	const char *dir;
	long dirs, len, files = parse_files(argv, &dir, &dirs, &len);
	char path[4096];
	double t0 = now();
	long d, f;

	for (d = 0; d < dirs; d++) {
		for (f = 0; f < files; f++) {
			file_name(path, dir, d, f, len);
			if (unlink(path))
				die("unlink %s", path);
		}
		snprintf(path, sizeof(path), "%s/d%ld", dir, d);
		if (rmdir(path))
			die("rmdir %s", path);
	}
	syncfs_of(dir);
	result(dirs * files, now() - t0, "files/s");
}

static void run(long count, char **argv)
{
	double t0 = now();
	int status, fd;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		fd = open("/dev/null", O_WRONLY);
		if (fd < 0 || dup2(fd, 1) < 0)
			die("/dev/null");
		execvp(argv[0], argv);
		die("exec %s", argv[0]);
	}
	if (waitpid(pid, &status, 0) < 0)
		die("waitpid");
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		errno = 0;
		die("%s failed (status 0x%x)", argv[0], status);
	}
	result(count, now() - t0, "files/s");
}

static void fragment(const char *path, long count)
{
	char *buf = random_buffer(BLOCK);
	long *order = malloc(count * sizeof(*order));
	long i, j, t;
	int fd;

	if (!order)
		die("malloc");
	/* Every block once, in random order (Fisher-Yates). */
	for (i = 0; i < count; i++)
		order[i] = i;
	for (i = count - 1; i > 0; i--) {
		j = next_random() % (i + 1);
		t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("open %s", path);
	for (i = 0; i < count; i++)
		write_all(fd, buf, BLOCK, (off_t)order[i] * 2 * BLOCK);
	if (fsync(fd) || close(fd))
		die("fsync %s", path);
	free(order);
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	errno = 0;
	if (!strcmp(cmd, "seqwrite") && argc == 4)
		seqwrite(argv[2], number(argv[3]), 0);
	else if (!strcmp(cmd, "bgwrite") && argc == 4)
		seqwrite(argv[2], number(argv[3]), 1);
	else if (!strcmp(cmd, "seqread") && argc == 3)
		seqread(argv[2]);
	else if (!strcmp(cmd, "randread") && argc == 4)
		random_io(argv[2], number(argv[3]), 0);
	else if (!strcmp(cmd, "randwrite") && argc == 4)
		random_io(argv[2], number(argv[3]), 1);
	else if (!strcmp(cmd, "clone") && argc == 4)
		clone_file(argv[2], argv[3]);
	else if (!strcmp(cmd, "mkfiles") && argc == 7)
		mkfiles(argv + 2);
	else if (!strcmp(cmd, "stat") && argc == 6)
		stat_files(argv + 2);
	else if (!strcmp(cmd, "rmfiles") && argc == 6)
		rmfiles(argv + 2);
	else if (!strcmp(cmd, "run") && argc >= 4)
		run(number(argv[2]), argv + 3);
	else if (!strcmp(cmd, "fragment") && argc == 4)
		fragment(argv[2], number(argv[3]));
	else if (!strcmp(cmd, "extread") && argc == 4)
		extread(argv[2], number(argv[3]));
	else if (!strcmp(cmd, "parwrite") && argc == 5)
		parwrite(argv[2], number(argv[3]), number(argv[4]));
	else
		die("usage: see the comment at the top of tools/bench/bench-io.c");
	return 0;
}

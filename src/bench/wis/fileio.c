/* fileio: loops and set-up shared by the file tests; see fileio.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE		/* O_DIRECT */
#endif
#include "bench/wis/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Out of line so the loops keep only a compare and a jump.  A refused
 * O_DIRECT transfer is the filesystem's limit, not a failure of the test.
 */
static noreturn __attribute__((cold, noinline)) void
io_fail(struct wis_task *t, int fd, const char *what, ssize_t n, size_t want)
{
	int err = errno;
	int flags;

	if (n >= 0)
		wis_task_fail(t, WIS_FAILED, "%s: %zd of %zu bytes", what, n,
			      want);
	flags = fcntl(fd, F_GETFL);
	if (err == EINVAL && flags >= 0 && (flags & O_DIRECT))
		wis_task_fail(t, WIS_UNSUPPORTED,
			      "the filesystem of %s refuses O_DIRECT %s: %s",
			      t->env->dir, what, strerror(err));
	errno = err;
	wis_task_fail_errno(t, "%s", what);
}

size_t fileio_per_task_size(const struct wis_env *env)
{
	size_t size = (size_t)env->nr_tasks * wis_page_size();

	return size > FILEIO_FILE_SIZE ? size : FILEIO_FILE_SIZE;
}

enum wis_status fileio_env_probe_direct(struct wis_env *env, const char *path)
{
	size_t page = wis_page_size();
	enum wis_status status = WIS_OK;
	void *buf = NULL;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0) {
		if (errno == EINVAL)
			return wis_env_fail(env, WIS_UNSUPPORTED,
					    "the filesystem of %s refuses O_DIRECT (open: %s)",
					    env->dir, strerror(errno));
		return wis_env_fail(env, WIS_ERROR, "open %s: %s", path,
				    strerror(errno));
	}
	/* the tasks' first pass then reads the device, as every later one */
	if (fdatasync(fd)) {
		status = wis_env_fail(env, WIS_ERROR, "fdatasync %s: %s", path,
				      strerror(errno));
		close(fd);
		return status;
	}
	if (posix_memalign(&buf, page, page)) {
		close(fd);
		return wis_env_fail(env, WIS_ERROR, "allocate %zu bytes", page);
	}
	n = pread(fd, buf, page, 0);
	if (n < 0 && errno == EINVAL)
		status = wis_env_fail(env, WIS_UNSUPPORTED,
				      "the filesystem of %s refuses O_DIRECT (read: %s)",
				      env->dir, strerror(errno));
	else if (n < 0)
		status = wis_env_fail(env, WIS_ERROR, "O_DIRECT read %s: %s",
				      path, strerror(errno));
	else if ((size_t)n != page)
		status = wis_env_fail(env, WIS_ERROR,
				      "O_DIRECT read %s: %zd of %zu bytes",
				      path, n, page);
	free(buf);
	close(fd);
	return status;
}

int fileio_task_open_direct(struct wis_task *t, const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);

	if (fd < 0 && errno == EINVAL)
		wis_task_fail(t, WIS_UNSUPPORTED,
			      "the filesystem of %s refuses O_DIRECT (open: %s)",
			      t->env->dir, strerror(errno));
	if (fd < 0)
		wis_task_fail_errno(t, "open %s O_DIRECT", path);
	return fd;
}

void fileio_task_dir(struct wis_task *t, char *dir, const char *name)
{
	wis_task_path(t, dir, t->env->dir, name);
	if (mkdir(dir, 0700))
		wis_task_fail_errno(t, "mkdir %s", dir);
}

void fileio_task_join(struct wis_task *t, char *path, const char *dir,
		      const char *name)
{
	int n = snprintf(path, WIS_PATH_MAX, "%s/%s", dir, name);

	if (n < 0 || n >= WIS_PATH_MAX)
		wis_task_fail(t, WIS_FAILED, "path too long: %s/%s", dir, name);
}

/* Same flags as upstream: no O_CLOEXEC, which would add nothing but differ. */
noreturn void fileio_open_loop(struct wis_task *t, const char *path)
{
	struct wis_counter *ops = t->ops;

	for (;;) {
		int fd = open(path, O_RDWR);

		if (WIS_UNLIKELY(fd < 0))
			wis_task_fail_errno(t, "open %s", path);
		if (WIS_UNLIKELY(close(fd)))
			wis_task_fail_errno(t, "close %s", path);
		wis_inc(ops, 1);
	}
}

noreturn void fileio_unlink_loop(struct wis_task *t, const char *path)
{
	struct wis_counter *ops = t->ops;

	for (;;) {
		int fd = open(path, O_RDWR | O_CREAT, 0600);

		if (WIS_UNLIKELY(fd < 0))
			wis_task_fail_errno(t, "create %s", path);
		if (WIS_UNLIKELY(close(fd)))
			wis_task_fail_errno(t, "close %s", path);
		if (WIS_UNLIKELY(unlink(path)))
			wis_task_fail_errno(t, "unlink %s", path);
		wis_inc(ops, 1);
	}
}

/*
 * The kernel only writes revents, so the array needs no refilling between
 * calls (upstream refills it; that is user-space work, not the operation).
 */
noreturn void fileio_poll_loop(struct wis_task *t, struct pollfd *pfd,
			       nfds_t nfds)
{
	struct wis_counter *ops = t->ops;

	for (;;) {
		if (WIS_UNLIKELY(poll(pfd, nfds, 0) < 0))
			wis_task_fail_errno(t, "poll");
		wis_inc(ops, 1);
	}
}

/*
 * Page-aligned buffers: no transfer straddles a page boundary, whatever
 * the allocator or stack layout would have given, and O_DIRECT accepts them.
 */
static void *io_buf(struct wis_task *t, size_t len)
{
	return wis_task_alloc(t, len, wis_page_size());
}

noreturn void fileio_pread_loop(struct wis_task *t, int fd, off_t offset)
{
	struct wis_counter *ops = t->ops;
	char *buf = io_buf(t, FILEIO_BUF_SIZE);

	for (;;) {
		ssize_t n = pread(fd, buf, FILEIO_BUF_SIZE, offset);

		if (WIS_UNLIKELY(n != FILEIO_BUF_SIZE))
			io_fail(t, fd, "pread", n, FILEIO_BUF_SIZE);
		wis_inc(ops, 1);
	}
}

noreturn void fileio_pwrite_loop(struct wis_task *t, int fd, off_t offset)
{
	struct wis_counter *ops = t->ops;
	char *buf = io_buf(t, FILEIO_BUF_SIZE);

	for (;;) {
		ssize_t n = pwrite(fd, buf, FILEIO_BUF_SIZE, offset);

		if (WIS_UNLIKELY(n != FILEIO_BUF_SIZE))
			io_fail(t, fd, "pwrite", n, FILEIO_BUF_SIZE);
		wis_inc(ops, 1);
	}
}

noreturn void fileio_readseek_loop(struct wis_task *t, int fd, off_t offset)
{
	struct wis_counter *ops = t->ops;
	char *buf = io_buf(t, FILEIO_BUF_SIZE);

	for (;;) {
		ssize_t n;

		if (WIS_UNLIKELY(lseek(fd, offset, SEEK_SET) != offset))
			wis_task_fail_errno(t, "lseek");
		n = read(fd, buf, FILEIO_BUF_SIZE);
		if (WIS_UNLIKELY(n != FILEIO_BUF_SIZE))
			io_fail(t, fd, "read", n, FILEIO_BUF_SIZE);
		wis_inc(ops, 1);
	}
}

noreturn void fileio_writeseek_loop(struct wis_task *t, int fd, off_t offset)
{
	struct wis_counter *ops = t->ops;
	char *buf = io_buf(t, FILEIO_BUF_SIZE);

	for (;;) {
		ssize_t n;

		if (WIS_UNLIKELY(lseek(fd, offset, SEEK_SET) != offset))
			wis_task_fail_errno(t, "lseek");
		n = write(fd, buf, FILEIO_BUF_SIZE);
		if (WIS_UNLIKELY(n != FILEIO_BUF_SIZE))
			io_fail(t, fd, "write", n, FILEIO_BUF_SIZE);
		wis_inc(ops, 1);
	}
}

noreturn void fileio_write_loop(struct wis_task *t, int fd, size_t wrap)
{
	struct wis_counter *ops = t->ops;
	char *buf = io_buf(t, FILEIO_BUF_SIZE);
	size_t left = wrap / FILEIO_BUF_SIZE;

	for (;;) {
		ssize_t n = write(fd, buf, FILEIO_BUF_SIZE);

		if (WIS_UNLIKELY(n != FILEIO_BUF_SIZE))
			io_fail(t, fd, "write", n, FILEIO_BUF_SIZE);
		wis_inc(ops, 1);
		if (WIS_UNLIKELY(!--left)) {
			left = wrap / FILEIO_BUF_SIZE;
			if (WIS_UNLIKELY(lseek(fd, 0, SEEK_SET)))
				wis_task_fail_errno(t, "lseek");
		}
	}
}

noreturn void fileio_read_loop(struct wis_task *t, int fd, size_t len)
{
	struct wis_counter *ops = t->ops;
	char *buf = io_buf(t, len);

	for (;;) {
		ssize_t n = read(fd, buf, len);

		if (WIS_UNLIKELY(n != (ssize_t)len)) {
			/* sizes are multiples of len: only EOF is short */
			if (n != 0)
				io_fail(t, fd, "read", n, len);
			if (WIS_UNLIKELY(lseek(fd, 0, SEEK_SET)))
				wis_task_fail_errno(t, "lseek");
		}
		/* the read that hits EOF counts too, as upstream's does */
		wis_inc(ops, 1);
	}
}

#include "bench/wis/common.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

size_t wis_page_size(void)
{
	static size_t page;

	if (!page)
		page = (size_t)sysconf(_SC_PAGESIZE);
	return page;
}

void wis_task_path(struct wis_task *t, char *buf, const char *dir,
		   const char *name)
{
	int n = snprintf(buf, WIS_PATH_MAX, "%s/%s.%u", dir, name, t->nr);

	if (n < 0 || n >= WIS_PATH_MAX)
		wis_task_fail(t, WIS_FAILED, "path too long: %s/%s", dir, name);
}

/* Fill fd with `size` bytes of non-zero data; 0 or -errno. */
static int fill_file(int fd, size_t size)
{
	char buf[64 * 1024];
	size_t done = 0;

	memset(buf, 0x5a, sizeof(buf));
	while (done < size) {
		size_t n = size - done < sizeof(buf) ? size - done : sizeof(buf);
		ssize_t w = write(fd, buf, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		done += (size_t)w;
	}
	return lseek(fd, 0, SEEK_SET) < 0 ? -errno : 0;
}

/* Create path with the given size; fd or -errno. */
static int create_file(const char *path, size_t size, bool sparse,
		       int extra_flags)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | extra_flags,
		      0600);
	int err;

	if (fd < 0)
		return -errno;
	if (size) {
		err = sparse ? (ftruncate(fd, (off_t)size) ? -errno : 0)
			     : fill_file(fd, size);
		if (err) {
			close(fd);
			return err;
		}
	}
	return fd;
}

int wis_task_create_file(struct wis_task *t, const char *path, size_t size,
			 bool sparse, int extra_flags)
{
	int fd = create_file(path, size, sparse, extra_flags);

	if (fd < 0) {
		errno = -fd;
		wis_task_fail_errno(t, "create %s", path);
	}
	return fd;
}

int wis_task_own_file(struct wis_task *t, const char *dir, const char *name,
		      size_t size, bool sparse)
{
	char path[WIS_PATH_MAX];
	int fd;

	wis_task_path(t, path, dir, name);
	fd = wis_task_create_file(t, path, size, sparse, 0);
	if (unlink(path))
		wis_task_fail_errno(t, "unlink %s", path);
	return fd;
}

int wis_task_open(struct wis_task *t, const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC);

	if (fd < 0)
		wis_task_fail_errno(t, "open %s", path);
	return fd;
}

void *wis_task_alloc(struct wis_task *t, size_t size, size_t align)
{
	void *p = NULL;

	if (align < sizeof(void *))
		align = sizeof(void *);
	if (posix_memalign(&p, align, size)) {
		errno = ENOMEM;
		wis_task_fail_errno(t, "allocate %zu bytes", size);
	}
	memset(p, 0, size);
	return p;
}

int wis_env_create_file(struct wis_env *env, const char *path, size_t size,
			bool sparse, int extra_flags)
{
	int fd = create_file(path, size, sparse, extra_flags);

	if (fd < 0) {
		wis_env_fail(env, WIS_ERROR, "create %s: %s", path,
			     strerror(-fd));
		return -1;
	}
	return fd;
}

int wis_env_path(struct wis_env *env, char *buf, const char *dir,
		 const char *name)
{
	int n = snprintf(buf, WIS_PATH_MAX, "%s/%s", dir, name);

	if (n < 0 || n >= WIS_PATH_MAX) {
		wis_env_fail(env, WIS_ERROR, "path too long: %s/%s", dir, name);
		return -1;
	}
	return 0;
}

enum wis_status wis_env_shared_file(struct wis_env *env, char *path,
				    const char *name, size_t size)
{
	int fd;

	if (wis_env_path(env, path, env->dir, name))
		return WIS_ERROR;
	fd = wis_env_create_file(env, path, size, false, 0);
	if (fd < 0)
		return WIS_ERROR;
	close(fd);
	return WIS_OK;
}

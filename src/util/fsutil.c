#define _GNU_SOURCE
#include "util/fsutil.h"
#include "util/lifetime.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int make_temp_dir(const char *base, const char *prefix, char **out)
{
	char *path;

	*out = NULL;
	/* inside this process's root: the watchdog or a sweep removes it */
	if (!base || !*base)
		base = lifetime_tmp_root();
	if (!base || !*base)
		base = getenv("TMPDIR");
	if (!base || !*base)
		base = "/tmp";
	if (asprintf(&path, "%s/%s.XXXXXX", base, prefix) < 0)
		return -ENOMEM;
	if (!mkdtemp(path)) {
		int err = -errno;

		free(path);
		return err;
	}
	*out = path;
	return 0;
}

static int remove_one(const char *path, const struct stat *sb, int type,
		      struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	if ((type == FTW_DP ? rmdir(path) : unlink(path)) && errno != ENOENT)
		return -errno;
	return 0;
}

int remove_tree(const char *path)
{
	int ret = nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);

	if (ret == -1)
		return errno == ENOENT ? 0 : -errno;
	return ret;
}

int make_dirs(const char *path)
{
	char *p, *copy = strdup(path);
	struct stat st;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	/* each prefix in turn; the whole path last */
	for (p = copy + 1;; p++) {
		char c = *p;

		if (c && c != '/')
			continue;
		*p = '\0';
		if (mkdir(copy, 0777) && errno != EEXIST) {
			ret = -errno;
			break;
		}
		if (!c)
			break;
		*p = c;
	}
	free(copy);
	if (!ret && stat(path, &st))
		ret = -errno;
	else if (!ret && !S_ISDIR(st.st_mode))
		ret = -ENOTDIR;
	return ret;
}

int write_file_atomic(const char *path, const char *tmp, const void *data, size_t len,
		      bool sync)
{
	char *own = NULL;
	size_t done = 0;
	int fd, ret = 0;

	if (!tmp) {
		if (asprintf(&own, "%s.tmp", path) < 0)
			return -ENOMEM;
		tmp = own;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	while (done < len) {
		ssize_t n = write(fd, (const char *)data + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n < 0 ? -errno : -EIO;
			break;
		}
		done += (size_t)n;
	}
	if (!ret && sync && fsync(fd))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
out:
	free(own);
	return ret;
}

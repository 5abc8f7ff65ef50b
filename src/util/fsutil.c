#define _GNU_SOURCE
#include "util/fsutil.h"
#include "util/lifetime.h"
#include "util/strbuf.h"

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

/*
 * The last lines_wanted lines of a file (a build log), joined, onto out; they start with
 * "..." when the part of the log read (its last FILE_TAIL_MAX bytes) began
 * inside them.  Nothing when the log cannot be read.
 */
void file_tail(const char *path, unsigned lines_wanted, struct strbuf *out)
{
	char buf[FILE_TAIL_MAX + 1];
	size_t n = 0, start;
	FILE *f = fopen(path, "r");
	long size = 0, from = 0;
	int lines = 0;

	if (!f)
		return;
	if (!fseek(f, 0, SEEK_END) && (size = ftell(f)) > 0) {
		from = size > FILE_TAIL_MAX ? size - FILE_TAIL_MAX : 0;
		if (!fseek(f, from, SEEK_SET))
			n = fread(buf, 1, FILE_TAIL_MAX, f);
	}
	fclose(f);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		n--;
	for (start = n; start > 0; start--)
		if (buf[start - 1] == '\n' && ++lines == (int)lines_wanted)
			break;
	if (!start && from > 0)
		strbuf_addstr(out, "...");
	for (size_t i = start; i < n; i++)
		strbuf_addch(out, buf[i] == '\n' || buf[i] == '\r' || buf[i] == '\t' ||
				  !buf[i] ? ' ' : buf[i]);
}

char *path_join(const char *dir, const char *name)
{
	size_t n = strlen(dir);
	char *p;

	return asprintf(&p, "%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/", name) < 0 ?
	       NULL : p;
}

#define _GNU_SOURCE
#include "util/fsutil.h"
#include "util/lifetime.h"

#include <errno.h>
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

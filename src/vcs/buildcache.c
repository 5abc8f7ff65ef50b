/*
 * buildcache.c - the persistent build cache (vcs/buildcache.h,
 * docs/build-cache.md): where it is, the key, entries and their locks,
 * LRU eviction, list and clean.
 */
#define _GNU_SOURCE
#include "vcs/buildcache.h"
#include "vcs/git.h"
#include "record/import.h"
#include "util/bug.h"
#include "util/fsutil.h"
#include "util/parse.h"
#include "util/strbuf.h"
#include "util/vec.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

/* info is small: a repository path, an argv, some environment values */
#define INFO_MAX (1 << 20)

const char *const buildcache_env_names[] = {
	"CC", "CXX", "CPP", "CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS", "LDLIBS",
	"PATH", "ARCH", "CROSS_COMPILE", "LLVM", "LLVM_IAS", "KCFLAGS", "KCPPFLAGS",
	"KAFLAGS", "KRUSTFLAGS", "PKG_CONFIG_PATH", "PKG_CONFIG_LIBDIR",
	"PKG_CONFIG_SYSROOT_DIR", "O",
	NULL
};
#define KBUILD_PREFIX "KBUILD_"

/* ---- where, how large ---- */

int buildcache_parse_max(const char *s, unsigned long long *out)
{
	char num[32];
	size_t len;
	unsigned shift = 0;
	unsigned long n;

	if (!s)
		return -EINVAL;
	if (!strcmp(s, "off")) {
		*out = 0;
		return 0;
	}
	len = strlen(s);
	if (len && !isdigit((unsigned char)s[len - 1])) {
		switch (toupper((unsigned char)s[len - 1])) {
		case 'K': shift = 10; break;
		case 'M': shift = 20; break;
		case 'G': shift = 30; break;
		case 'T': shift = 40; break;
		default: return -EINVAL;
		}
		len--;
	}
	if (!len || len >= sizeof(num))
		return len ? -ERANGE : -EINVAL;
	memcpy(num, s, len);
	num[len] = '\0';
	switch (parse_ulong(num, 0, ULONG_MAX, &n)) {
	case PARSE_OK:
		break;
	case PARSE_TOO_LARGE:
		return -ERANGE;
	default:
		return -EINVAL;
	}
	if (shift && n > (ULLONG_MAX >> shift))
		return -ERANGE;
	*out = (unsigned long long)n << shift;
	return 0;
}

/* path made absolute from the working directory; NULL when out of memory */
static char *absolute_path(const char *path)
{
	char *cwd, *abs = NULL;

	if (path[0] == '/')
		return strdup(path);
	cwd = getcwd(NULL, 0);
	if (!cwd)
		return NULL;
	if (asprintf(&abs, "%s/%s", cwd, path) < 0)
		abs = NULL;
	free(cwd);
	return abs;
}

int buildcache_open(struct buildcache *bc, struct strbuf *err)
{
	const char *dir = getenv("PERFBOT_BUILD_CACHE");
	const char *max = getenv("PERFBOT_BUILD_CACHE_MAX");
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int ret;

	memset(bc, 0, sizeof(*bc));
	bc->max = BUILDCACHE_DEFAULT_MAX;
	if (max && *max) {
		ret = buildcache_parse_max(max, &bc->max);
		if (ret) {
			strbuf_setf(err, "PERFBOT_BUILD_CACHE_MAX: '%s' is %s (bytes, or a "
				    "number with K, M, G or T; 0 or off: no build cache)",
				    max, ret == -ERANGE ? "too large" : "not a size");
			return -EINVAL;
		}
	}
	if (dir && *dir) {
		bc->dir = absolute_path(dir);
	} else if (xdg && xdg[0] == '/') {	/* a relative one is invalid per XDG */
		if (asprintf(&bc->dir, "%s/perfbot/builds", xdg) < 0)
			bc->dir = NULL;
	} else if (home && home[0] == '/') {
		if (asprintf(&bc->dir, "%s/.cache/perfbot/builds", home) < 0)
			bc->dir = NULL;
	} else {
		strbuf_setf(err, "no directory for the build cache: set PERFBOT_BUILD_CACHE "
			    "(or HOME), or PERFBOT_BUILD_CACHE_MAX=off");
		return -EINVAL;
	}
	if (!bc->dir) {
		strbuf_setf(err, "build cache: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	return 0;
}

void buildcache_close(struct buildcache *bc)
{
	free(bc->dir);
	memset(bc, 0, sizeof(*bc));
}

/* ---- the key ---- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of the variables in the key: the fixed list, then KBUILD_* sorted. */
struct names {
	const char **v;
	size_t n, cap;
};

static int env_names(struct names *out)
{
	size_t fixed;

	for (size_t i = 0; buildcache_env_names[i]; i++)
		if (vec_push(out, buildcache_env_names[i]))
			return -ENOMEM;
	fixed = out->n;
	for (char **e = environ; e && *e; e++) {
		if (strncmp(*e, KBUILD_PREFIX, strlen(KBUILD_PREFIX)) || !strchr(*e, '='))
			continue;
		if (vec_push(out, (const char *)*e))
			return -ENOMEM;
	}
	/* "KBUILD_X=..." entries: sorted by the whole string, then cut at '=' below */
	if (out->n - fixed > 1)
		qsort(out->v + fixed, out->n - fixed, sizeof(*out->v), cmp_str);
	return 0;
}

/* The value of the i-th name (a KBUILD_ entry is "NAME=VALUE"); NULL: unset. */
static const char *env_value(const char *entry, char *name, size_t size)
{
	const char *eq = strchr(entry, '=');

	if (!eq) {
		snprintf(name, size, "%s", entry);
		return getenv(entry);
	}
	snprintf(name, size, "%.*s", (int)(eq - entry), entry);
	return eq + 1;
}

static void add0(struct strbuf *sb, const char *s)
{
	strbuf_addstr(sb, s);
	strbuf_addch(sb, '\0');
}

int buildcache_key(const struct buildcache_desc *d, char key[BUILDCACHE_KEY_LEN + 1])
{
	struct strbuf sb = STRBUF_INIT;
	struct names names = { 0 };
	char name[256];
	size_t argc = 0;
	int ret = env_names(&names);

	if (ret)
		goto out;
	for (char *const *a = d->build; a && *a; a++)
		argc++;
	add0(&sb, "perfbot build cache key 1");
	add0(&sb, "repo");
	add0(&sb, d->repo_id ? d->repo_id : "");
	add0(&sb, "commit");
	add0(&sb, d->sha ? d->sha : "");
	/* a count: no build and an empty argv differ, and so do word splits */
	strbuf_addf(&sb, "build %s%zu", d->build ? "" : "none ", argc);
	strbuf_addch(&sb, '\0');
	for (char *const *a = d->build; a && *a; a++)
		add0(&sb, *a);
	for (size_t i = 0; i < names.n; i++) {
		const char *v = env_value(names.v[i], name, sizeof(name));

		add0(&sb, "env");
		add0(&sb, name);
		/* unset and empty differ */
		add0(&sb, v ? "set" : "unset");
		add0(&sb, v ? v : "");
	}
	if (strbuf_error(&sb)) {
		ret = -ENOMEM;
		goto out;
	}
	import_sha256(sb.buf, sb.len, key);
out:
	vec_free(&names);
	strbuf_release(&sb);
	return ret;
}

/* ---- locks ---- */

/* flock(fd, op), waiting unless op has LOCK_NB; *stop ends a wait. */
static int lock_op(int fd, int op, volatile sig_atomic_t *stop)
{
	for (;;) {
		if (stop && *stop)
			return -ECANCELED;
		if (!flock(fd, op))
			return 0;
		if (errno == EINTR)
			continue;	/* *stop checked above */
		return errno == EWOULDBLOCK ? -EWOULDBLOCK : -errno;
	}
}

/* Is fd still the file at path (a remover unlinks a lock file it holds)? */
static bool still_there(int fd, const char *path)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && stat(path, &b) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Open and lock path with op; the fd or a negative errno. */
static int lock_path(const char *path, int op, volatile sig_atomic_t *stop)
{
	for (;;) {
		int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644), ret;

		if (fd < 0)
			return -errno;
		ret = lock_op(fd, op, stop);
		if (ret) {
			close(fd);
			return ret;
		}
		if (still_there(fd, path))
			return fd;
		close(fd);	/* removed while we waited: the new one */
	}
}

/* ---- entries ---- */

static bool is_key(const char *s)
{
	size_t n = 0;

	for (; isxdigit((unsigned char)s[n]) && !isupper((unsigned char)s[n]); n++)
		;
	return n == BUILDCACHE_KEY_LEN && !s[n];
}

static char *entry_file(const char *dir, const char *key, const char *name)
{
	char *p = NULL;

	if (asprintf(&p, "%s/%s%s%s", dir, key, name[0] == '.' ? "" : "/", name) < 0)
		return NULL;
	return p;
}

static bool exists(const char *path)
{
	struct stat st;

	return path && lstat(path, &st) == 0;
}

/*
 * Remove an entry's directory: its checkout's git registration first
 * (an interrupted build's worktree is still registered), then the files.
 */
static int remove_entry_dir(const char *dir)
{
	char *tree = NULL;
	struct stat st;

	if (lstat(dir, &st))
		return errno == ENOENT ? 0 : -errno;
	if (asprintf(&tree, "%s/tree", dir) >= 0) {
		git_worktree_detach(tree);
		free(tree);
	}
	return remove_tree(dir);
}

static void entry_zero(struct buildcache_entry *e)
{
	memset(e, 0, sizeof(*e));
	e->lock_fd = -1;
}

void buildcache_release(struct buildcache_entry *e)
{
	if (e->lock_fd >= 0)
		close(e->lock_fd);
	free(e->dir);
	free(e->tree);
	free(e->log);
	entry_zero(e);
}

/* Remove the entry while it is held exclusively, then release it. */
static void remove_held(struct buildcache_entry *e, const char *lock)
{
	remove_entry_dir(e->dir);
	if (lock)
		unlink(lock);
	buildcache_release(e);
}

static char *lock_file(const char *dir, const char *key)
{
	return entry_file(dir, key, ".lock");
}

void buildcache_abandon(struct buildcache_entry *e)
{
	char *lock = NULL;

	if (e->dir && asprintf(&lock, "%s.lock", e->dir) < 0)
		lock = NULL;
	/* held exclusively: nobody else is in it; the lock file goes too */
	remove_held(e, lock);
	free(lock);
}

static void touch(const char *path)
{
	utimensat(AT_FDCWD, path, NULL, 0);
}

int buildcache_get(struct buildcache *bc, const struct buildcache_desc *d,
		   volatile sig_atomic_t *stop, struct buildcache_entry *e,
		   struct strbuf *err)
{
	char *lock = NULL, *ok = NULL;
	int ret, fd = -1;

	entry_zero(e);
	ret = buildcache_key(d, e->key);
	if (ret)
		goto nomem;
	ret = make_dirs(bc->dir);
	if (ret) {
		strbuf_setf(err, "build cache: %s: %s", bc->dir, strerror(-ret));
		goto fail;
	}
	e->dir = entry_file(bc->dir, e->key, "");
	if (e->dir)
		e->dir[strlen(e->dir) - 1] = '\0';	/* "<dir>/<key>/" */
	e->tree = entry_file(bc->dir, e->key, "tree");
	e->log = entry_file(bc->dir, e->key, "build.log");
	ok = entry_file(bc->dir, e->key, "ok");
	lock = lock_file(bc->dir, e->key);
	if (!e->dir || !e->tree || !e->log || !ok || !lock)
		goto nomem;
	for (;;) {
		/* shared first: an entry in use by another perfbot is not waited for */
		fd = lock_path(lock, LOCK_SH, stop);
		if (fd < 0) {
			ret = fd;
			goto lock_failed;
		}
		if (exists(ok))
			goto hit;
		/* build it, or find another perfbot's build once it is done */
		ret = lock_op(fd, LOCK_EX, stop);
		if (ret)
			goto lock_failed;
		if (!still_there(fd, lock)) {
			close(fd);	/* removed in between: start again */
			continue;
		}
		if (!exists(ok))
			break;
		ret = lock_op(fd, LOCK_SH, stop);
		if (ret)
			goto lock_failed;
		if (still_there(fd, lock) && exists(ok))
			goto hit;
		close(fd);
	}
	/* a miss: whatever an earlier attempt left is never used */
	ret = remove_entry_dir(e->dir);
	if (!ret)
		ret = mkdir(e->dir, 0755) ? -errno : 0;
	if (ret) {
		strbuf_setf(err, "build cache: %s: %s", e->dir, strerror(-ret));
		unlink(lock);
		goto fail;
	}
	e->lock_fd = fd;
	free(lock);
	free(ok);
	return BUILDCACHE_MISS;
hit:
	touch(ok);
	e->lock_fd = fd;
	free(lock);
	free(ok);
	return BUILDCACHE_HIT;
lock_failed:
	fd = -1;
	if (ret != -ECANCELED)
		strbuf_setf(err, "build cache: %s: %s", lock, strerror(-ret));
	else
		strbuf_setf(err, "build cache: stopped while waiting for %s", lock);
	goto fail;
nomem:
	ret = -ENOMEM;
	strbuf_setf(err, "build cache: %s", strerror(ENOMEM));
fail:
	if (fd >= 0)
		close(fd);
	free(lock);
	free(ok);
	buildcache_release(e);
	return ret;
}

bool buildcache_has(const struct buildcache *bc, const struct buildcache_desc *d)
{
	char key[BUILDCACHE_KEY_LEN + 1], *ok;
	bool has;

	if (!buildcache_on(bc) || buildcache_key(d, key))
		return false;
	ok = entry_file(bc->dir, key, "ok");
	has = exists(ok);
	free(ok);
	return has;
}

/* ---- size, info, ok ---- */

/* Disk usage of what dirfd holds, not following symlinks. */
static unsigned long long usage_at(int dirfd, int depth)
{
	unsigned long long total = 0;
	struct dirent *de;
	DIR *d = fdopendir(dirfd);

	if (!d) {
		close(dirfd);
		return 0;
	}
	while ((de = readdir(d))) {
		struct stat st;
		int fd;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		total += (unsigned long long)st.st_blocks * 512;
		if (S_ISDIR(st.st_mode) && depth < 256 &&
		    (fd = openat(dirfd, de->d_name,
				 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) >= 0)
			total += usage_at(fd, depth + 1);
	}
	closedir(d);
	return total;
}

static unsigned long long disk_usage(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	return fd < 0 ? 0 : usage_at(fd, 0);
}

/* text to path through path.tmp and a rename: whole or absent */
static int write_atomic(const char *path, const char *text)
{
	return write_file_atomic(path, NULL, text, strlen(text), false);
}

static char *info_text(const struct buildcache_desc *d, unsigned long long size)
{
	json_t *j = json_object(), *argv = d->build ? json_array() : json_null();
	json_t *env = json_object();
	struct names names = { 0 };
	char name[256], *text = NULL;

	if (!j || !argv || !env || env_names(&names))
		goto out;
	for (char *const *a = d->build; a && *a; a++)
		json_array_append_new(argv, json_string(*a));
	for (size_t i = 0; i < names.n; i++) {
		const char *v = env_value(names.v[i], name, sizeof(name));

		if (v)
			json_object_set_new(env, name, json_string(v));
	}
	json_object_set_new(j, "repo", json_string(d->repo_id ? d->repo_id : ""));
	json_object_set_new(j, "sha", json_string(d->sha ? d->sha : ""));
	json_object_set(j, "build", argv);
	json_object_set(j, "env", env);
	json_object_set_new(j, "created", json_integer((json_int_t)time(NULL)));
	json_object_set_new(j, "size", json_integer((json_int_t)size));
	text = json_dumps(j, JSON_INDENT(1) | JSON_SORT_KEYS);
out:
	vec_free(&names);
	json_decref(argv);
	json_decref(env);
	json_decref(j);
	return text;
}

int buildcache_commit(struct buildcache *bc, const struct buildcache_desc *d,
		      struct buildcache_entry *e, struct strbuf *err)
{
	char *info = NULL, *ok = NULL, *text = NULL, *lock = NULL;
	int ret = -ENOMEM;

	BUG_ON(e->lock_fd < 0);
	if (asprintf(&info, "%s/info", e->dir) < 0 || asprintf(&ok, "%s/ok", e->dir) < 0 ||
	    asprintf(&lock, "%s.lock", e->dir) < 0)
		goto out;
	text = info_text(d, disk_usage(e->dir));
	if (!text)
		goto out;
	ret = write_atomic(info, text);
	if (!ret)
		ret = write_atomic(ok, "");
	if (ret)
		goto out;
	/* others may use it now; the new entry is never evicted by this pass */
	ret = lock_op(e->lock_fd, LOCK_SH, NULL);
	if (!ret && !(still_there(e->lock_fd, lock) && exists(ok)))
		ret = -ESTALE;	/* a `cache clean` between the two locks */
	if (!ret)
		buildcache_evict(bc, e->key);
out:
	if (ret) {
		strbuf_setf(err, "build cache: %s: %s", e->dir ? e->dir : bc->dir,
			    ret == -ESTALE ? "removed by another perfbot as it was stored"
					   : strerror(-ret));
		buildcache_abandon(e);
	}
	free(info);
	free(ok);
	free(text);
	free(lock);
	return ret;
}

/* ---- list, evict, clean ---- */

static void item_release(struct buildcache_item *it)
{
	free(it->repo);
	free(it->sha);
	if (it->build)
		for (char **a = it->build; *a; a++)
			free(*a);
	free(it->build);
	memset(it, 0, sizeof(*it));
}

void buildcache_items_release(struct buildcache_items *items)
{
	for (size_t i = 0; i < items->n; i++)
		item_release(&items->v[i]);
	vec_free(items);
}

static char *json_text(json_t *o, const char *name)
{
	const char *s = json_string_value(json_object_get(o, name));

	return s ? strdup(s) : NULL;
}

/* What info says; fields it lacks stay empty (an info is untrusted). */
static void read_info(const char *path, struct buildcache_item *it)
{
	json_t *j = json_load_file(path, JSON_REJECT_DUPLICATES, NULL), *b;
	json_int_t v;
	size_t n;

	if (!json_is_object(j))
		goto out;
	it->repo = json_text(j, "repo");
	it->sha = json_text(j, "sha");
	v = json_integer_value(json_object_get(j, "size"));
	it->size = v > 0 ? (unsigned long long)v : 0;
	v = json_integer_value(json_object_get(j, "created"));
	it->created = v > 0 ? (time_t)v : 0;
	b = json_object_get(j, "build");
	if (json_is_array(b) && (it->build = calloc(json_array_size(b) + 1,
						    sizeof(char *)))) {
		n = 0;
		for (size_t i = 0; i < json_array_size(b); i++) {
			const char *s = json_string_value(json_array_get(b, i));

			if (s && (it->build[n] = strdup(s)))
				n++;
		}
	}
out:
	json_decref(j);
}

/* Is the key's lock held by someone?  Probed with LOCK_EX|LOCK_NB. */
static bool held(const char *dir, const char *key)
{
	char *lock = lock_file(dir, key);
	int fd = lock ? open(lock, O_RDONLY | O_CLOEXEC) : -1;
	bool busy = false;

	if (fd >= 0) {
		busy = flock(fd, LOCK_EX | LOCK_NB) != 0;
		close(fd);
	}
	free(lock);
	return busy;
}

static int by_use(const void *a, const void *b)
{
	const struct buildcache_item *x = a, *y = b;

	if (x->complete != y->complete)
		return x->complete ? -1 : 1;
	if (x->used != y->used)
		return x->used > y->used ? -1 : 1;
	if (x->used_nsec != y->used_nsec)
		return x->used_nsec > y->used_nsec ? -1 : 1;
	return strcmp(x->key, y->key);
}

/*
 * The entries (directories named by a key, or lock files without one,
 * a leftover of an interrupted removal).
 */
static int scan(const char *dir, struct buildcache_items *out, struct strbuf *err)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int ret = 0;

	if (!d) {
		if (errno == ENOENT)
			return 0;
		ret = -errno;
		strbuf_setf(err, "build cache: %s: %s", dir, strerror(-ret));
		return ret;
	}
	while ((de = readdir(d))) {
		char name[BUILDCACHE_KEY_LEN + 8], *ok, *info;
		struct buildcache_item *it;
		size_t len = strlen(de->d_name);
		struct stat st;

		if (len == BUILDCACHE_KEY_LEN + 5 && !strcmp(de->d_name + BUILDCACHE_KEY_LEN, ".lock")) {
			/* a lock file alone */
			memcpy(name, de->d_name, BUILDCACHE_KEY_LEN);
			name[BUILDCACHE_KEY_LEN] = '\0';
			if (!is_key(name))
				continue;
			ok = entry_file(dir, name, "");
			len = ok && exists(ok) ? 1 : 0;
			free(ok);
			if (len)
				continue;	/* listed with its directory */
		} else if (is_key(de->d_name)) {
			memcpy(name, de->d_name, BUILDCACHE_KEY_LEN + 1);
		} else {
			continue;	/* not ours */
		}
		it = vec_push_zero(out);
		if (!it) {
			ret = -ENOMEM;
			strbuf_setf(err, "build cache: %s", strerror(ENOMEM));
			break;
		}
		memcpy(it->key, name, BUILDCACHE_KEY_LEN + 1);
		ok = entry_file(dir, name, "ok");
		info = entry_file(dir, name, "info");
		if (ok && lstat(ok, &st) == 0) {
			it->complete = true;
			it->used = st.st_mtim.tv_sec;
			it->used_nsec = st.st_mtim.tv_nsec;
		}
		if (info && exists(info))
			read_info(info, it);
		free(ok);
		free(info);
		it->in_use = held(dir, name);
	}
	closedir(d);
	if (!ret && out->n > 1)
		qsort(out->v, out->n, sizeof(*out->v), by_use);
	return ret;
}

int buildcache_list(const struct buildcache *bc, struct buildcache_items *out,
		    struct strbuf *err)
{
	return scan(bc->dir, out, err);
}

/* Remove the key's entry if nobody holds it: 1 removed, 0 in use. */
static int remove_if_free(const char *dir, const char *key)
{
	char *lock = lock_file(dir, key), *path = entry_file(dir, key, "");
	int fd, ret = 0;

	if (!lock || !path)
		goto out;
	fd = lock_path(lock, LOCK_EX | LOCK_NB, NULL);
	if (fd < 0)
		goto out;
	path[strlen(path) - 1] = '\0';
	remove_entry_dir(path);
	unlink(lock);
	close(fd);
	ret = 1;
out:
	free(lock);
	free(path);
	return ret;
}

int buildcache_evict(struct buildcache *bc, const char *keep_key)
{
	struct buildcache_items items = { 0 };
	unsigned long long total = 0;
	int removed = 0;

	if (scan(bc->dir, &items, NULL))
		goto out;
	for (size_t i = 0; i < items.n; i++)
		if (items.v[i].complete)
			total += items.v[i].size;
	/* leftovers first: an interrupted build is never used */
	for (size_t i = 0; i < items.n; i++)
		if (!items.v[i].complete && !items.v[i].in_use)
			removed += remove_if_free(bc->dir, items.v[i].key);
	/* then from the least recently used (the list is most recent first) */
	for (size_t i = items.n; i-- > 0 && total > bc->max;) {
		struct buildcache_item *it = &items.v[i];

		if (!it->complete || (keep_key && !strcmp(it->key, keep_key)))
			continue;
		if (remove_if_free(bc->dir, it->key)) {
			total -= it->size < total ? it->size : total;
			removed++;
		}
	}
out:
	buildcache_items_release(&items);
	return removed;
}

int buildcache_clean(const struct buildcache *bc, struct buildcache_items *removed,
		     struct buildcache_items *kept, struct strbuf *err)
{
	struct buildcache_items items = { 0 };
	int ret = scan(bc->dir, &items, err);

	for (size_t i = 0; !ret && i < items.n; i++) {
		struct buildcache_items *to =
			remove_if_free(bc->dir, items.v[i].key) ? removed : kept;
		struct buildcache_item *it = vec_push_zero(to);

		if (!it) {
			ret = -ENOMEM;
			strbuf_setf(err, "build cache: %s", strerror(ENOMEM));
			break;
		}
		*it = items.v[i];	/* moved */
		memset(&items.v[i], 0, sizeof(items.v[i]));
	}
	buildcache_items_release(&items);
	return ret;
}

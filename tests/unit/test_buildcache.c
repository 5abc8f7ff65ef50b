/*
 * Unit tests: vcs/buildcache (the persistent build cache): what the key
 * depends on (and that MAKEFLAGS is not part of it), the cap's grammar
 * and errors, where the cache is, LRU eviction skipping entries in use,
 * and that an entry whose build did not finish is never handed out.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/fsutil.h"
#include "vcs/buildcache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SHA1 "0123456789abcdef0123456789abcdef01234567"
#define SHA2 "89abcdef0123456789abcdef0123456789abcdef"

static char *const make_argv[] = { "make", "-j8", NULL };

static void key_of(const char *repo, const char *sha, char *const *build, char *key)
{
	struct buildcache_desc d = { .repo_id = repo, .sha = sha, .build = build };

	assert_int_equal(buildcache_key(&d, key), 0);
	assert_int_equal(strlen(key), BUILDCACHE_KEY_LEN);
}

/* The key of a fixed build under the current environment. */
static void base_key(char *key)
{
	key_of("/src/proj/.git", SHA1, make_argv, key);
}

static void set_or_unset(const char *name, const char *value)
{
	if (value)
		setenv(name, value, 1);
	else
		unsetenv(name);
}

/* Changing one variable changes the key (or not), and restoring it restores it. */
static void env_changes_key(const char *name, const char *value, bool changes)
{
	char before[BUILDCACHE_KEY_LEN + 1], after[BUILDCACHE_KEY_LEN + 1];
	char *saved = getenv(name) ? strdup(getenv(name)) : NULL;

	base_key(before);
	setenv(name, value, 1);
	base_key(after);
	if (changes)
		assert_string_not_equal(before, after);
	else
		assert_string_equal(before, after);
	set_or_unset(name, saved);
	base_key(after);
	assert_string_equal(before, after);
	free(saved);
}

static void key_inputs(void **state)
{
	char a[BUILDCACHE_KEY_LEN + 1], b[BUILDCACHE_KEY_LEN + 1];
	char *const split[] = { "make", "-j", "8", NULL };
	char *const joined[] = { "make -j8", NULL };
	char *const empty[] = { NULL };

	(void)state;
	base_key(a);
	base_key(b);
	assert_string_equal(a, b);	/* the same inputs, the same key */
	key_of("/src/other/.git", SHA1, make_argv, b);
	assert_string_not_equal(a, b);
	key_of("/src/proj/.git", SHA2, make_argv, b);
	assert_string_not_equal(a, b);
	key_of("/src/proj/.git", SHA1, split, b);
	assert_string_not_equal(a, b);
	key_of("/src/proj/.git", SHA1, joined, b);
	assert_string_not_equal(a, b);
	key_of("/src/proj/.git", SHA1, NULL, b);
	assert_string_not_equal(a, b);
	key_of("/src/proj/.git", SHA1, empty, a);
	assert_string_not_equal(a, b);	/* no build is not an empty build */

	unsetenv("CC");
	env_changes_key("CC", "clang", true);
	env_changes_key("CC", "", true);	/* set and empty is not unset */
	env_changes_key("CFLAGS", "-O3", true);
	env_changes_key("PATH", "/opt/cross/bin:/usr/bin", true);
	env_changes_key("CROSS_COMPILE", "aarch64-linux-gnu-", true);
	env_changes_key("KBUILD_BUILD_USER", "robot", true);
	env_changes_key("KBUILD_OTHER_THING", "x", true);
	/* make's jobserver descriptors differ between runs */
	env_changes_key("MAKEFLAGS", "-j2 --jobserver-auth=3,4", false);
	env_changes_key("MFLAGS", "-j2", false);
	env_changes_key("HOME", "/somewhere/else", false);
}

static void parse_max(void **state)
{
	static const struct { const char *s; unsigned long long v; } good[] = {
		{ "0", 0 }, { "off", 0 }, { "512", 512 }, { "1k", 1024 },
		{ "1K", 1024 }, { "3M", 3ULL << 20 }, { "20G", 20ULL << 30 },
		{ "2t", 2ULL << 40 }, { "18446744073709551615", 18446744073709551615ULL },
	};
	static const struct { const char *s; int err; } bad[] = {
		{ "", -EINVAL }, { "G", -EINVAL }, { "12X", -EINVAL }, { "-1", -EINVAL },
		{ "1.5G", -EINVAL }, { "01", -EINVAL }, { " 1", -EINVAL }, { "1 G", -EINVAL },
		{ "0x10", -EINVAL }, { "OFF", -EINVAL }, { "1GB", -EINVAL },
		{ "18446744073709551616", -ERANGE }, { "16777216T", -ERANGE },
	};
	unsigned long long v;

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		v = 42;
		assert_int_equal(buildcache_parse_max(good[i].s, &v), 0);
		assert_true(v == good[i].v);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 42;
		if (buildcache_parse_max(bad[i].s, &v) != bad[i].err)
			fail_msg("'%s' not refused with %d", bad[i].s, bad[i].err);
		assert_true(v == 42);	/* untouched */
	}
}

static void where_and_cap(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct buildcache bc;
	char *cwd = getcwd(NULL, 0), want[4096];

	(void)state;
	unsetenv("PERFBOT_BUILD_CACHE_MAX");
	setenv("PERFBOT_BUILD_CACHE", "/c/builds", 1);
	assert_int_equal(buildcache_open(&bc, &err), 0);
	assert_string_equal(bc.dir, "/c/builds");
	assert_true(bc.max == BUILDCACHE_DEFAULT_MAX);
	assert_true(buildcache_on(&bc));
	buildcache_close(&bc);

	setenv("PERFBOT_BUILD_CACHE", "rel/dir", 1);	/* made absolute */
	assert_int_equal(buildcache_open(&bc, &err), 0);
	snprintf(want, sizeof(want), "%s/rel/dir", cwd);
	assert_string_equal(bc.dir, want);
	buildcache_close(&bc);

	unsetenv("PERFBOT_BUILD_CACHE");
	setenv("XDG_CACHE_HOME", "/xdg", 1);
	setenv("HOME", "/home/u", 1);
	assert_int_equal(buildcache_open(&bc, &err), 0);
	assert_string_equal(bc.dir, "/xdg/perfbot/builds");
	buildcache_close(&bc);
	setenv("XDG_CACHE_HOME", "relative", 1);	/* invalid per XDG: ignored */
	assert_int_equal(buildcache_open(&bc, &err), 0);
	assert_string_equal(bc.dir, "/home/u/.cache/perfbot/builds");
	buildcache_close(&bc);
	unsetenv("XDG_CACHE_HOME");
	unsetenv("HOME");
	assert_int_equal(buildcache_open(&bc, &err), -EINVAL);
	assert_non_null(strstr(err.buf, "PERFBOT_BUILD_CACHE"));
	buildcache_close(&bc);

	setenv("PERFBOT_BUILD_CACHE", "/c/builds", 1);
	setenv("PERFBOT_BUILD_CACHE_MAX", "off", 1);
	assert_int_equal(buildcache_open(&bc, &err), 0);
	assert_false(buildcache_on(&bc));
	assert_string_equal(bc.dir, "/c/builds");	/* for cache list|clean */
	buildcache_close(&bc);
	setenv("PERFBOT_BUILD_CACHE_MAX", "20 G", 1);
	assert_int_equal(buildcache_open(&bc, &err), -EINVAL);
	assert_non_null(strstr(err.buf, "PERFBOT_BUILD_CACHE_MAX: '20 G' is not a size"));
	buildcache_close(&bc);
	unsetenv("PERFBOT_BUILD_CACHE_MAX");
	unsetenv("PERFBOT_BUILD_CACHE");
	strbuf_release(&err);
	free(cwd);
}

/* ---- entries in a cache of the test's own ---- */

struct fixture {
	char *tmp;
	struct buildcache bc;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	assert_int_equal(make_temp_dir(NULL, "perfbot-test-buildcache", &f->tmp), 0);
	assert_int_equal(asprintf(&f->bc.dir, "%s/cache", f->tmp) > 0, 1);
	f->bc.max = BUILDCACHE_DEFAULT_MAX;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(remove_tree(f->tmp), 0);
	free(f->tmp);
	buildcache_close(&f->bc);
	free(f);
	return 0;
}

static struct buildcache_desc desc_of(const char *sha)
{
	return (struct buildcache_desc){ .repo_id = "/r/.git", .sha = sha,
					 .build = make_argv };
}

/* A fake 40-hex sha from a number. */
static void sha_of(int i, char *sha)
{
	snprintf(sha, 41, "%040x", i + 1);
}

static void write_file(const char *dir, const char *name, size_t bytes)
{
	char path[4096];
	char *buf = malloc(bytes + 1);
	int fd;

	assert_non_null(buf);
	memset(buf, 'x', bytes);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, bytes), (ssize_t)bytes);
	close(fd);
	free(buf);
}

/* The entry of sha built: a miss, a tree with a file, committed; held shared. */
static void build(struct fixture *f, const char *sha, struct buildcache_entry *e)
{
	struct buildcache_desc d = desc_of(sha);
	struct strbuf err = STRBUF_INIT;

	assert_int_equal(buildcache_get(&f->bc, &d, NULL, e, &err), BUILDCACHE_MISS);
	assert_true(e->lock_fd >= 0);
	assert_int_equal(mkdir(e->tree, 0755), 0);
	write_file(e->tree, "prog", 64 * 1024);
	if (buildcache_commit(&f->bc, &d, e, &err))
		fail_msg("%s", err.buf);
	strbuf_release(&err);
}

static void set_used(struct fixture *f, const char *sha, time_t t)
{
	struct buildcache_desc d = desc_of(sha);
	char key[BUILDCACHE_KEY_LEN + 1], path[4096];
	struct timespec ts[2] = { { t, 0 }, { t, 0 } };

	assert_int_equal(buildcache_key(&d, key), 0);
	snprintf(path, sizeof(path), "%s/%s/ok", f->bc.dir, key);
	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
}

/* The shas of the complete entries, in list order, joined by spaces. */
static void cached(struct fixture *f, char *out, size_t size)
{
	struct buildcache_items items = { 0 };
	struct strbuf err = STRBUF_INIT;
	size_t len = 0;

	assert_int_equal(buildcache_list(&f->bc, &items, &err), 0);
	out[0] = '\0';
	for (size_t i = 0; i < items.n; i++)
		if (items.v[i].complete)
			len += (size_t)snprintf(out + len, size - len, "%s%.4s", len ? " " : "",
						items.v[i].sha + 36);
	buildcache_items_release(&items);
	strbuf_release(&err);
}

static void hit_and_reuse(void **state)
{
	struct fixture *f = *state;
	struct buildcache_entry e, again;
	struct buildcache_desc d = desc_of(SHA1);
	struct strbuf err = STRBUF_INIT;
	char path[4096];

	assert_false(buildcache_has(&f->bc, &d));
	build(f, SHA1, &e);
	assert_true(buildcache_has(&f->bc, &d));
	/* held by one user, taken by another at once (shared) */
	assert_int_equal(buildcache_get(&f->bc, &d, NULL, &again, &err), BUILDCACHE_HIT);
	assert_string_equal(again.tree, e.tree);
	snprintf(path, sizeof(path), "%s/prog", again.tree);
	assert_int_equal(access(path, R_OK), 0);
	buildcache_release(&again);
	buildcache_release(&e);
	/* released: still there */
	assert_int_equal(buildcache_get(&f->bc, &d, NULL, &again, &err), BUILDCACHE_HIT);
	buildcache_release(&again);
	strbuf_release(&err);
}

static void partial_never_returned(void **state)
{
	struct fixture *f = *state;
	struct buildcache_entry e;
	struct buildcache_desc d = desc_of(SHA2);
	struct buildcache_items items = { 0 }, removed = { 0 }, kept = { 0 };
	struct strbuf err = STRBUF_INIT;
	char path[4096], stale[4096];

	/* a build that never finished: perfbot died before ok */
	assert_int_equal(buildcache_get(&f->bc, &d, NULL, &e, &err), BUILDCACHE_MISS);
	assert_int_equal(mkdir(e.tree, 0755), 0);
	write_file(e.tree, "half-built.o", 100);
	snprintf(path, sizeof(path), "%s/ok.tmp", e.dir);	/* killed inside the write */
	write_file(e.dir, "ok.tmp", 0);
	snprintf(stale, sizeof(stale), "%s/half-built.o", e.tree);
	buildcache_release(&e);
	assert_false(buildcache_has(&f->bc, &d));
	assert_int_equal(buildcache_list(&f->bc, &items, &err), 0);
	assert_int_equal(items.n, 1);
	assert_false(items.v[0].complete);
	assert_false(items.v[0].in_use);
	buildcache_items_release(&items);

	/* wanted again: a miss, and nothing of the earlier attempt is left */
	assert_int_equal(buildcache_get(&f->bc, &d, NULL, &e, &err), BUILDCACHE_MISS);
	assert_int_not_equal(access(stale, F_OK), 0);
	assert_int_not_equal(access(e.tree, F_OK), 0);
	/* while it builds, clean keeps it */
	assert_int_equal(buildcache_clean(&f->bc, &removed, &kept, &err), 0);
	assert_int_equal(removed.n, 0);
	assert_int_equal(kept.n, 1);
	assert_true(kept.v[0].in_use);
	buildcache_items_release(&kept);
	buildcache_release(&e);	/* died again */
	/* and once the lock is free, clean removes the leftover */
	assert_int_equal(buildcache_clean(&f->bc, &removed, &kept, &err), 0);
	assert_int_equal(removed.n, 1);
	assert_int_equal(kept.n, 0);
	buildcache_items_release(&removed);
	assert_int_equal(buildcache_list(&f->bc, &items, &err), 0);
	assert_int_equal(items.n, 0);

	/* a failed build leaves nothing, not even its lock file */
	assert_int_equal(buildcache_get(&f->bc, &d, NULL, &e, &err), BUILDCACHE_MISS);
	snprintf(path, sizeof(path), "%s.lock", e.dir);
	buildcache_abandon(&e);
	assert_int_not_equal(access(path, F_OK), 0);
	assert_int_equal(buildcache_list(&f->bc, &items, &err), 0);
	assert_int_equal(items.n, 0);
	strbuf_release(&err);
}

static void lru_eviction(void **state)
{
	struct fixture *f = *state;
	struct buildcache_entry e[6], held;
	struct buildcache_items items = { 0 };
	struct buildcache_items removed = { 0 }, kept = { 0 };
	struct strbuf err = STRBUF_INIT;
	struct buildcache_desc d;
	char sha[6][41], list[256];
	unsigned long long size;

	for (int i = 0; i < 6; i++)
		sha_of(i, sha[i]);
	/* A B C D built, used in that order (A least recently) */
	for (int i = 0; i < 4; i++) {
		build(f, sha[i], &e[i]);
		buildcache_release(&e[i]);
		set_used(f, sha[i], 1000000 + i * 60);
	}
	cached(f, list, sizeof(list));
	assert_string_equal(list, "0004 0003 0002 0001");	/* most recent first */
	assert_int_equal(buildcache_list(&f->bc, &items, &err), 0);
	size = items.v[0].size;
	assert_true(size >= 64 * 1024);
	for (size_t i = 1; i < items.n; i++)	/* the same content, the same size */
		assert_true(items.v[i].size == size);
	buildcache_items_release(&items);

	/* B (the second least recent) in use; room for 3.5 entries */
	d = desc_of(sha[1]);
	assert_int_equal(buildcache_get(&f->bc, &d, NULL, &held, &err), BUILDCACHE_HIT);
	set_used(f, sha[1], 1000000 + 60);	/* the get made it recent: not for this test */
	f->bc.max = size * 7 / 2;
	/* E: five entries, two must go: A, then C (B is in use), not D */
	build(f, sha[4], &e[4]);
	cached(f, list, sizeof(list));
	assert_string_equal(list, "0005 0004 0002");
	/* E is held now: F evicts the least recent entry not in use -- D */
	buildcache_release(&held);
	set_used(f, sha[1], 1000000 + 240);	/* B more recent than D now */
	build(f, sha[5], &e[5]);
	cached(f, list, sizeof(list));
	assert_string_equal(list, "0006 0005 0002");
	/* the new entry stays even when it alone is over the cap */
	buildcache_release(&e[4]);
	buildcache_release(&e[5]);
	f->bc.max = 1;
	assert_int_equal(buildcache_evict(&f->bc, NULL), 3);
	cached(f, list, sizeof(list));
	assert_string_equal(list, "");
	assert_int_equal(buildcache_clean(&f->bc, &removed, &kept, &err), 0);
	assert_int_equal(removed.n + kept.n, 0);
	strbuf_release(&err);
}

static void new_entry_never_evicted(void **state)
{
	struct fixture *f = *state;
	struct buildcache_entry e;
	char list[256];

	f->bc.max = 1;	/* smaller than any entry */
	build(f, SHA1, &e);
	cached(f, list, sizeof(list));
	assert_string_equal(list, "4567");
	buildcache_release(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(key_inputs),
		cmocka_unit_test(parse_max),
		cmocka_unit_test(where_and_cap),
		cmocka_unit_test_setup_teardown(hit_and_reuse, setup, teardown),
		cmocka_unit_test_setup_teardown(partial_never_returned, setup, teardown),
		cmocka_unit_test_setup_teardown(lru_eviction, setup, teardown),
		cmocka_unit_test_setup_teardown(new_entry_never_evicted, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

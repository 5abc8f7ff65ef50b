/*
 * cache.c - perfbot cache list|clean: the persistent build cache
 * (vcs/buildcache.h, docs/build-cache.md) shown and emptied.
 */
#define _GNU_SOURCE
#include "cmd/cmdutil.h"
#include "cmd/cmds.h"
#include "util/quote.h"
#include "util/strbuf.h"
#include "vcs/buildcache.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char cache_usage[] =
	"usage: perfbot cache list [--json]\n"
	"       perfbot cache clean\n"
	"\n"
	"The persistent build cache: the built checkouts of commits that\n"
	"bisect, run --repo and compare --measure keep across invocations, so\n"
	"that no commit is built twice with the same build command and\n"
	"environment.\n"
	"\n"
	"  list    every entry: key, commit, size, last use, repository and\n"
	"          build command (an interrupted build is listed as a leftover,\n"
	"          never used); then the total, the cap and the directory\n"
	"  clean   remove every entry and leftover that no running perfbot\n"
	"          holds; says what it removed and what it kept in use\n"
	"  --json  list as one JSON document\n"
	"  -h, --help  show this help\n"
	"\n"
	"Environment: PERFBOT_BUILD_CACHE (the directory; default\n"
	"$XDG_CACHE_HOME/perfbot/builds, else ~/.cache/perfbot/builds),\n"
	"PERFBOT_BUILD_CACHE_MAX (the size cap: bytes, or with K, M, G or T;\n"
	"default 20G; 0 or off: builds are not kept after perfbot exits).\n"
	"docs/build-cache.md has the key, the eviction and what is never reused.\n"
	"Exit status: 0 done, 1 the directory cannot be read, 2 bad usage or a\n"
	"bad PERFBOT_BUILD_CACHE_MAX.\n";

#define usage_error(...) cmd_usage_error("cache", __VA_ARGS__)

static void human(unsigned long long n, char *buf, size_t size)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = (double)n;
	int u = -1;

	if (n < 1024) {
		snprintf(buf, size, "%llu B", n);
		return;
	}
	while (v >= 1024 && u < 3) {
		v /= 1024;
		u++;
	}
	snprintf(buf, size, "%.1f %s", v, unit[u]);
}

static void when(time_t t, char *buf, size_t size)
{
	struct tm tm;

	if (!t || !localtime_r(&t, &tm) || !strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, size, "%-19s", "-");
}

/* The repository as the user knows it: its common dir without "/.git". */
static void put_repo(const char *id)
{
	size_t n;

	if (!id) {
		fputs("?", stdout);
		return;
	}
	n = strlen(id);
	if (n > 5 && !strcmp(id + n - 5, "/.git")) {
		char *dir = strndup(id, n - 5);

		quote_fputs(dir ? dir : id, stdout);
		free(dir);
		return;
	}
	quote_fputs(id, stdout);
}

static void put_build(char **build)
{
	if (!build) {
		fputs("(checkout only)", stdout);
		return;
	}
	for (char **a = build; *a; a++) {
		if (a != build)
			putchar(' ');
		quote_fputs(*a, stdout);
	}
}

/* One entry's line: key, commit, size, last use, [in use,] repository, build. */
static void put_item(const struct buildcache_item *it, const char *verb)
{
	char size[32], used[32];

	if (verb)
		printf("%-8s ", verb);
	if (!it->complete) {
		printf("%.12s  leftover of an interrupted build or removal, never used%s\n",
		       it->key, it->in_use ? " (being built)" : "");
		return;
	}
	human(it->size, size, sizeof(size));
	when(it->used, used, sizeof(used));
	printf("%.12s  %-12.12s  %10s  %s  %s", it->key, it->sha ? it->sha : "?", size, used,
	       it->in_use ? "in use  " : "");
	put_repo(it->repo);
	fputs("  ", stdout);
	put_build(it->build);
	putchar('\n');
}

static json_t *item_json(const struct buildcache_item *it)
{
	json_t *j = json_object(), *b = it->build ? json_array() : json_null();

	if (!j || !b) {
		json_decref(j);
		json_decref(b);
		return NULL;
	}
	for (char **a = it->build; a && *a; a++)
		json_array_append_new(b, json_str(*a));
	json_object_set_new(j, "key", json_string(it->key));
	json_object_set_new(j, "complete", json_boolean(it->complete));
	json_object_set_new(j, "in_use", json_boolean(it->in_use));
	json_object_set_new(j, "repo", json_str(it->repo));
	json_object_set_new(j, "sha", json_str(it->sha));
	json_object_set_new(j, "build", b);
	json_object_set_new(j, "size", json_integer((json_int_t)it->size));
	json_object_set_new(j, "created", json_integer((json_int_t)it->created));
	json_object_set_new(j, "used", json_integer((json_int_t)it->used));
	return j;
}

static unsigned long long total_of(const struct buildcache_items *items)
{
	unsigned long long total = 0;

	for (size_t i = 0; i < items->n; i++)
		if (items->v[i].complete)
			total += items->v[i].size;
	return total;
}

static void put_summary(const struct buildcache *bc, unsigned long long total)
{
	char t[32], cap[32];

	human(total, t, sizeof(t));
	human(bc->max, cap, sizeof(cap));
	printf("total %s, cap %s, in ", t,
	       buildcache_on(bc) ? cap : "off (PERFBOT_BUILD_CACHE_MAX)");
	quote_fputs(bc->dir, stdout);
	putchar('\n');
}

static int cache_list(const struct buildcache *bc, bool json)
{
	struct buildcache_items items = { 0 };
	struct strbuf err = STRBUF_INIT;
	int ret = buildcache_list(bc, &items, &err);

	if (ret) {
		ret = cmd_failure("cache", "%s", err.buf);
		goto out;
	}
	if (json) {
		json_t *j = json_object(), *a = json_array();

		for (size_t i = 0; j && a && i < items.n; i++)
			json_array_append_new(a, item_json(&items.v[i]));
		if (j && a) {
			json_object_set_new(j, "dir", json_str(bc->dir));
			json_object_set_new(j, "cap", json_integer((json_int_t)bc->max));
			json_object_set_new(j, "total", json_integer((json_int_t)total_of(&items)));
			json_object_set(j, "entries", a);
		}
		json_decref(a);
		ret = cmd_print_json("cache", j) ? EXIT_FAILED : EXIT_OK;
		goto out;
	}
	if (!items.n)
		printf("no builds cached\n");
	else
		printf("%-12s  %-12s  %10s  %-19s  %s\n", "KEY", "COMMIT", "SIZE", "LAST USED",
		       "REPOSITORY  BUILD");
	for (size_t i = 0; i < items.n; i++)
		put_item(&items.v[i], NULL);
	put_summary(bc, total_of(&items));
	ret = EXIT_OK;
out:
	buildcache_items_release(&items);
	strbuf_release(&err);
	return ret;
}

static int cache_clean(const struct buildcache *bc)
{
	struct buildcache_items removed = { 0 }, kept = { 0 };
	struct strbuf err = STRBUF_INIT;
	char size[32];
	int ret = buildcache_clean(bc, &removed, &kept, &err);

	for (size_t i = 0; i < removed.n; i++)
		put_item(&removed.v[i], "removed");
	for (size_t i = 0; i < kept.n; i++)
		put_item(&kept.v[i], "kept");
	if (ret) {
		ret = cmd_failure("cache", "%s", err.buf);
	} else {
		human(total_of(&removed), size, sizeof(size));
		printf("removed %zu entr%s (%s), kept %zu in use, in ", removed.n,
		       removed.n == 1 ? "y" : "ies", size, kept.n);
		quote_fputs(bc->dir, stdout);
		putchar('\n');
		ret = EXIT_OK;
	}
	buildcache_items_release(&removed);
	buildcache_items_release(&kept);
	strbuf_release(&err);
	return ret;
}

/*
 * The options from optind on, up to the first operand: 0, -1 when help
 * was shown, or the usage error printed.
 */
static int take_options(int argc, char **argv, bool *json)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(cache_usage, stdout);
			return -1;
		case 'j':
			*json = true;
			break;
		default:
			return usage_error("unknown option '%s' (see perfbot cache --help)",
					   argv[optind - 1]);
		}
	}
	return 0;
}

int cmd_cache(int argc, char **argv)
{
	struct strbuf err = STRBUF_INIT;
	struct buildcache bc;
	const char *sub;
	bool json = false;
	int ret;

	opterr = 0;
	optind = 1;
	ret = take_options(argc, argv, &json);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (optind >= argc) {
		fputs(cache_usage, stderr);
		return EXIT_USAGE;
	}
	sub = argv[optind++];
	/* options after the subcommand: list --json */
	ret = take_options(argc, argv, &json);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (strcmp(sub, "list") && strcmp(sub, "clean"))
		return usage_error("unknown subcommand '%s' (list or clean)", sub);
	if (optind < argc)
		return usage_error("cache %s: unexpected argument '%s'", sub, argv[optind]);
	if (json && strcmp(sub, "list"))
		return usage_error("--json goes with cache list");
	if (buildcache_open(&bc, &err)) {
		ret = usage_error("%s", err.buf);
		strbuf_release(&err);
		return ret;
	}
	ret = !strcmp(sub, "list") ? cache_list(&bc, json) : cache_clean(&bc);
	buildcache_close(&bc);
	strbuf_release(&err);
	return ret;
}

/*
 * db.c - perfbot db: the store as a whole.  `db copy FROM TO` copies a
 * history between stores, SQLite or PostgreSQL either way
 * (docs/store.md "Copying a history"; the work is store/copy.c's).
 */
#define _GNU_SOURCE
#include "cmd/cmds.h"
#include "cmd/cmdutil.h"
#include "store/copy.h"
#include "store/store.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define usage_error(...) cmd_usage_error("db", __VA_ARGS__)
#define failure(...) cmd_failure("db", __VA_ARGS__)

static const char db_usage[] =
	"usage: perfbot db copy FROM TO [--runs-only] [--batch N]\n"
	"\n"
	"Copy the runs of the store FROM into the store TO (a path of an SQLite\n"
	"file or a postgresql:// URL, either way), each run once: runs TO holds\n"
	"already, copied before or made there, are not copied again, so a copy\n"
	"cut off (^C, kill -9, the server gone) is finished by running it again.\n"
	"The runs get TO's ids; each keeps its origin in its environment\n"
	"(store.origin), and its import hash.  FROM is only read.  Bisections\n"
	"and the robot's state are not copied: a FROM that holds any is refused\n"
	"unless --runs-only.\n"
	"\n"
	"      --runs-only       copy the runs although FROM holds bisections or\n"
	"                        the robot's state (they stay behind, counted)\n"
	"      --batch N         runs per transaction (default 500)\n"
	"  -h, --help            show this help\n"
	"\n"
	"Exit status: 0 copied (or nothing to copy), 1 a store cannot be read or\n"
	"written (the batches committed stay), 2 bad usage, FROM and TO one\n"
	"store, or FROM holding more than runs without --runs-only.\n";

/* The error on its own line (cmd_usage_error() keeps a message to one), then the usage. */
#define usage_and_help(...) (usage_error(__VA_ARGS__), fputs(db_usage, stderr), EXIT_USAGE)

/* 12,345 */
static void thousands(char *buf, size_t len, size_t n)
{
	char digits[32];
	size_t nd = (size_t)snprintf(digits, sizeof(digits), "%zu", n), o = 0;

	for (size_t i = 0; i < nd && o + 2 < len; i++) {
		if (i && (nd - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
}

struct progress {
	bool tty;
	long delay_ms;		/* PERFBOT_TEST_COPY_DELAY_MS: a test hook */
};

static void progress(void *ctx, size_t copied, size_t to_copy)
{
	struct progress *p = ctx;
	char a[32], b[32];

	if (p->tty) {
		thousands(a, sizeof(a), copied);
		thousands(b, sizeof(b), to_copy);
		fprintf(stderr, "\rcopied %s of %s runs", a, b);
		fflush(stderr);
	}
	/* the e2e test kills a copy between batches: it needs time to */
	if (p->delay_ms > 0)
		nanosleep(&(struct timespec){ p->delay_ms / 1000,
					      p->delay_ms % 1000 * 1000000 }, NULL);
}

static long test_delay(void)
{
	const char *v = getenv("PERFBOT_TEST_COPY_DELAY_MS");
	long ms = v ? strtol(v, NULL, 10) : 0;

	return ms > 0 && ms < 60000 ? ms : 0;
}

/* One file named twice, however spelled: refused before TO is opened. */
static bool same_file(const char *a, const char *b)
{
	char *ra, *rb;
	bool same;

	if (!strcmp(a, b))
		return true;
	ra = realpath(a, NULL);
	rb = realpath(b, NULL);
	same = ra && rb && !strcmp(ra, rb);
	free(ra);
	free(rb);
	return same;
}

static int db_copy(int argc, char **argv)
{
	const char *loc[2] = { NULL, NULL };
	struct store_copy_opts o = { 0 };
	struct store_copy_counts c;
	struct progress p = { isatty(STDERR_FILENO), test_delay() };
	struct store *from = NULL, *to = NULL;
	struct strbuf err = STRBUF_INIT, rest = STRBUF_INIT;
	char *shown[2] = { NULL, NULL }, n1[32], n2[32], n3[32];
	size_t nloc = 0;
	int ret = EXIT_OK, e;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(db_usage, stdout);
			return EXIT_OK;
		} else if (!strcmp(argv[i], "--runs-only")) {
			o.runs_only = true;
		} else if (!strcmp(argv[i], "--batch") || !strncmp(argv[i], "--batch=", 8)) {
			const char *v = argv[i][7] == '=' ? argv[i] + 8 : argv[++i];
			char *end;
			long n;

			if (!v)
				return usage_error("option '--batch' needs a value");
			errno = 0;
			n = strtol(v, &end, 10);
			if (errno || end == v || *end || n < 1 || n > 1000000)
				return usage_error("invalid --batch '%s': a number of runs from 1 to 1000000",
						   v);
			o.batch_runs = (size_t)n;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return usage_and_help("unknown option '%s'", argv[i]);
		} else if (nloc < 2) {
			loc[nloc++] = argv[i];
		} else {
			return usage_and_help("db copy takes two stores, FROM and TO");
		}
	}
	if (nloc < 2)
		return usage_and_help("db copy needs two stores, FROM and TO");
	if (!*loc[0] || !*loc[1])
		return usage_error("a store's location cannot be empty");
	for (int i = 0; i < 2; i++)
		if (!(shown[i] = store_location_shown(loc[i]))) {
			ret = failure("out of memory");
			goto out;
		}
	if (same_file(loc[0], loc[1])) {
		ret = usage_error("FROM and TO are one store: %s", shown[0]);
		goto out;
	}
	/* FROM first, read-only: a missing FROM is said before TO is made */
	if ((e = store_open(loc[0], STORE_READ, &from, &err)) ||
	    (e = store_open(loc[1], STORE_WRITE, &to, &err))) {
		ret = failure("%s", strbuf_error(&err) ? "out of memory" : err.buf);
		goto out;
	}
	o.progress = progress;
	o.ctx = &p;
	e = store_copy(from, to, &o, &c, &err);
	if (p.tty && c.copied)
		fputc('\n', stderr);
	if (e) {
		const char *m = strbuf_error(&err) ? "out of memory" : err.buf;

		if (e == -EXDEV || e == -ENOTSUP)
			ret = usage_error("%s", m);
		else
			ret = failure("%s (%zu runs copied before)", m, c.copied);
		goto out;
	}
	thousands(n1, sizeof(n1), c.copied);
	thousands(n2, sizeof(n2), c.present);
	thousands(n3, sizeof(n3), c.from_runs);
	printf("%s copied, %s already there (%s runs in %s) into %s\n", n1, n2, n3,
	       shown[0], shown[1]);
	if (c.bisections || c.alerts || c.reports || c.points || c.kexec_boots) {
		/* what --runs-only left: said, never silently dropped */
		store_copy_describe_rest(&rest, &c);
		printf("not copied (--runs-only): %s\n", strbuf_error(&rest) ? "?" : rest.buf);
	}
out:
	store_close(from);
	store_close(to);
	free(shown[0]);
	free(shown[1]);
	strbuf_release(&err);
	strbuf_release(&rest);
	return ret;
}

int cmd_db(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(db_usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : EXIT_OK;
	}
	if (!strcmp(argv[1], "copy"))
		return db_copy(argc - 1, argv + 1);
	return usage_and_help("unknown subcommand '%s'", argv[1]);
}

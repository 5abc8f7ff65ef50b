/*
 * import.c - perfbot import: results made elsewhere (LKP's matrix.json, a
 * CSV) into the store, so that they can be listed and compared like
 * perfbot's own runs, and tests can start from exact numbers.
 */
#define _GNU_SOURCE
#include "cmd/cmds.h"
#include "cmd/cmdutil.h"
#include "record/import.h"
#include "record/lkp_result.h"
#include "record/record.h"
#include "run/env.h"
#include "store/store.h"
#include "util/quote.h"
#include "util/strbuf.h"
#include "util/vec.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define usage_error(...) cmd_usage_error("import", __VA_ARGS__)

static const char import_usage[] =
	"usage: perfbot import lkp-matrix|csv FILE --commit C --job NAME\n"
	"                      [--param K=V ...] [--testbox T] [--machine LINE]\n"
	"                      [--testcase TC] [--force] [--db PATH]\n"
	"       perfbot import lkp-result DIR... [--force] [--db PATH]\n"
	"\n"
	"Load results made elsewhere into the store, one run record per run in\n"
	"FILE, all of atomic job NAME at commit C.  Nothing is written unless\n"
	"the whole file is valid; all its runs are written in one transaction.\n"
	"A file whose content was imported already (its SHA-256 is stored with\n"
	"the runs) is refused, naming the runs it became.\n"
	"\n"
	"  lkp-matrix  LKP's matrix.json: an object of stat name -> array of\n"
	"              per-run values; run i has every stat's i-th value that is\n"
	"              a number (null: the run lacks the stat).  Keys that are\n"
	"              not arrays of numbers (stats_source, ...) are skipped.\n"
	"  csv         a header line 'run,stat,value', then one line per value;\n"
	"              run is an integer id, and the lines of one id are one\n"
	"              run.  Fields may be in double quotes.\n"
	"  lkp-result  LKP result roots (.../COMMIT/N/ run directories, a\n"
	"              commit's directory, or any directory above: walked): each\n"
	"              run directory's job.yaml gives the job (named as perfbot\n"
	"              job split names it), parameters, testbox (tbox_group),\n"
	"              commit, kconfig, compiler, rootfs and machine; its\n"
	"              stats.json (else its column of the commit's matrix.json)\n"
	"              the stats.  A run imported before is not imported again\n"
	"              (--force: it is).  All runs are read and checked before\n"
	"              any is written; each is written in a transaction of its own.\n"
	"\n"
	"      --commit C        the commit the results are of (required)\n"
	"      --job NAME        the atomic job they are of (required)\n"
	"      --param K=V       a parameter of the job they ran (repeatable), as\n"
	"                        perfbot run stores a job's (nr_task=100%): compare\n"
	"                        -s K=V selects them\n"
	"      --testbox T       the machine they ran on (default: this hostname)\n"
	"      --machine LINE    its test machine line, as reports name it (\"112\n"
	"                        threads Intel(R) Xeon(R) ... with 128G memory\";\n"
	"                        default: none, reports name the testbox)\n"
	"      --testcase TC     default: the first stat name's part before '.'\n"
	"                        that is not a monitor's (dmesg, proc-vmstat, ...),\n"
	"                        else NAME's part before the first '-'\n"
	"      --force           import a file imported before once more (its runs\n"
	"                        are then in the store twice)\n"
	CMD_DB_USAGE
	"  -h, --help            show this help\n"
	"\n"
	"Exit status: 0 imported, 1 a file that cannot be read or parsed, a file\n"
	"imported already, or a store that cannot be written, 2 bad usage (also\n"
	"lkp-result's DIR that holds no LKP run).\n";

struct import_opts {
	const char *format, *file, *commit, *job, *testbox, *testcase;
	char **dirs;		/* lkp-result: the DIRs, as given */
	size_t nr_dirs;
	const char *machine;	/* the runs' env machine; NULL: none */
	struct { const char **v; size_t n, cap; } params;	/* "K=V", as given */
	bool force;
};

#define failure(...) cmd_failure("import", __VA_ARGS__)

static int parse_args(int argc, char **argv, struct import_opts *o)
{
	enum { OPT_TESTCASE = 256, OPT_COMMIT, OPT_JOB, OPT_TESTBOX, OPT_PARAM, OPT_FORCE,
	       OPT_MACHINE };
	static const struct option longopts[] = {
		{ "testcase", required_argument, NULL, OPT_TESTCASE },
		{ "param", required_argument, NULL, OPT_PARAM },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "commit", required_argument, NULL, OPT_COMMIT },
		{ "job", required_argument, NULL, OPT_JOB },
		{ "testbox", required_argument, NULL, OPT_TESTBOX },
		{ "machine", required_argument, NULL, OPT_MACHINE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, idx;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", longopts, &idx)) != -1) {
		const char **to = NULL;

		switch (c) {
		case OPT_TESTCASE:
			to = &o->testcase;
			break;
		case OPT_COMMIT:
			to = &o->commit;
			break;
		case OPT_JOB:
			to = &o->job;
			break;
		case OPT_TESTBOX:
			to = &o->testbox;
			break;
		case OPT_MACHINE:
			to = &o->machine;
			break;
		case OPT_PARAM: {
			const char *eq = strchr(optarg, '=');

			if (!eq || eq == optarg)
				return usage_error("--param '%s': expected KEY=VALUE", optarg);
			for (size_t i = 0; i < o->params.n; i++)
				if (!strncmp(o->params.v[i], optarg, (size_t)(eq - optarg) + 1))
					return usage_error("--param '%s': %.*s given twice", optarg,
							   (int)(eq - optarg), optarg);
			if (vec_push(&o->params, optarg))
				return failure("out of memory");
			continue;
		}
		case OPT_FORCE:
			o->force = true;
			continue;
		case 'h':
			fputs(import_usage, stdout);
			return -1;
		case ':':
			return usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
		if (!*optarg)
			return usage_error("--%s needs a value", longopts[idx].name);
		*to = optarg;
	}
	if (optind == argc)
		return usage_error("which format? perfbot import lkp-matrix|csv FILE --commit C --job NAME, or perfbot import lkp-result DIR...");
	o->format = argv[optind++];
	if (!strcmp(o->format, "lkp-result")) {
		if (optind == argc)
			return usage_error("lkp-result needs a DIR: an LKP result root");
		/* job.yaml says all of it: an option would contradict it */
		if (o->commit || o->job || o->testbox || o->testcase || o->machine || o->params.n)
			return usage_error("lkp-result takes the commit, job, parameters, testbox "
					   "and machine from each run's job.yaml: only --force and "
					   "--db go with it");
		o->dirs = argv + optind;
		o->nr_dirs = (size_t)(argc - optind);
		return 0;
	}
	if (strcmp(o->format, "lkp-matrix") && strcmp(o->format, "csv"))
		return usage_error("unknown format '%s': expected lkp-matrix, csv or lkp-result",
				   o->format);
	if (optind == argc)
		return usage_error("%s needs a FILE", o->format);
	o->file = argv[optind++];
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (!o->commit)
		return usage_error("--commit is required: the commit the results are of");
	if (!o->job)
		return usage_error("--job is required: the atomic job the results are of");
	return 0;
}

/* This machine's name, as perfbot run records it. */
static char *local_testbox(void)
{
	struct strmap env = { 0 };
	char *host = NULL;

	if (!env_capture(&env, NULL))
		host = strmap_get(&env, "testbox") ? strdup(strmap_get(&env, "testbox")) : NULL;
	strmap_release(&env);
	return host;
}

/* Identity and provenance, the same for every run of the file. */
static int set_identity(struct import_data *d, const struct import_opts *o,
			const char *testbox, const char *testcase)
{
	struct timespec now;
	double started;
	int err = 0;

	clock_gettime(CLOCK_REALTIME, &now);
	started = (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
	for (size_t i = 0; !err && i < d->nr; i++) {
		struct run_record *r = &d->runs[i];

		err |= record_set_str(&r->testbox, testbox);
		err |= record_set_str(&r->testcase, testcase);
		err |= record_set_str(&r->job, o->job);
		err |= record_set_str(&r->commit, o->commit);
		err |= strmap_set(&r->env, "testbox", testbox);
		/* a report's "test machine" line (docs/report.md); a run's is env_capture()'s */
		if (o->machine)
			err |= strmap_set(&r->env, "machine", o->machine);
		err |= strmap_set(&r->env, "imported_from", o->file);
		err |= strmap_set(&r->env, "import_format", o->format);
		for (size_t k = 0; k < o->params.n; k++) {
			const char *kv = o->params.v[k], *eq = strchr(kv, '=');
			char *key = strndup(kv, (size_t)(eq - kv));

			err |= !key || strmap_set(&r->params, key, eq + 1);
			free(key);
		}
		r->status = RUN_COMPLETE;
		/* the file keeps no times: the runs are as old as the import */
		r->started = started;
		r->duration_s = 0;
	}
	return err ? -ENOMEM : 0;
}

/*
 * Whether content with this hash is in the store already: 0 (not), or
 * EXIT_FAILED after saying what it was imported as, when and from where.
 */
static int already_imported(struct store *s, const struct import_opts *o,
			    const char *hash)
{
	struct run_record first = { 0 };
	struct strbuf msg = STRBUF_INIT;
	int64_t *ids = NULL;
	size_t n = 0;
	const char *from, *format;
	char when[64] = "?";
	struct tm tm;
	time_t t;

	if (store_import_runs(s, hash, &ids, &n))
		return failure("%s", store_error(s));
	if (!n)
		return 0;
	if (store_get_run(s, ids[0], &first)) {
		failure("%s", store_error(s));
		free(ids);
		return EXIT_FAILED;
	}
	t = (time_t)first.started;
	/* as `perfbot results show` prints a run's start */
	if (gmtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	from = strmap_get(&first.env, "imported_from");
	format = strmap_get(&first.env, "import_format");
	strbuf_addf(&msg, "%s was imported already (the same content, SHA-256 %.12s...)"
		    " as %s %" PRId64, o->file, hash, n == 1 ? "run" : "runs", ids[0]);
	if (n > 1 && ids[n - 1] - ids[0] == (int64_t)(n - 1))
		strbuf_addf(&msg, "%s%" PRId64, n == 2 ? " and " : " to ", ids[n - 1]);
	else
		/* not one range (some deleted, or imported with --force) */
		for (size_t i = 1; i < n; i++)
			strbuf_addf(&msg, "%s%" PRId64, i + 1 == n ? " and " : ", ", ids[i]);
	strbuf_addf(&msg, " (%zu run%s of %s at %s on %s), imported %s from %s",
		    n, n == 1 ? "" : "s", first.job, first.commit, first.testbox, when,
		    from ? from : "?");
	if (format)
		strbuf_addf(&msg, " (%s)", format);
	strbuf_addstr(&msg, "; nothing imported: `perfbot results delete");
	for (size_t i = 0; i < n; i++)
		strbuf_addf(&msg, " %" PRId64, ids[i]);
	strbuf_addf(&msg, " --yes` deletes %s, --force imports the file again",
		    n == 1 ? "it" : "them");
	failure("%s", strbuf_error(&msg) ? "out of memory" : msg.buf);
	strbuf_release(&msg);
	run_record_release(&first);
	free(ids);
	return EXIT_FAILED;
}

static int import(const struct import_opts *o)
{
	struct import_data d = { 0 };
	struct store *s = NULL;
	struct strbuf file = STRBUF_INIT, err = STRBUF_INIT;
	const char *db;
	char *text, *testbox = NULL, *testcase = NULL;
	char hash[IMPORT_HASH_LEN + 1];
	size_t len = 0;
	int ret = EXIT_FAILED, e;

	e = strbuf_read_file(&file, o->file, 0);
	text = file.buf;
	len = file.len;
	if (e) {
		failure("cannot read %s: %s", o->file, strerror(-e));
		goto out;
	}
	if (!strcmp(o->format, "csv"))
		e = import_csv(text, len, &d, &err);
	else
		e = import_lkp_matrix(text, len, &d, &err);
	if (e) {
		/* positions come first in err: FILE:LINE[:COLUMN]: as compilers say it */
		failure("%s:%s%s", o->file, isdigit((unsigned char)err.buf[0]) ? "" : " ",
			err.buf);
		goto out;
	}
	testbox = o->testbox ? strdup(o->testbox) : local_testbox();
	if (o->testcase)
		testcase = strdup(o->testcase);
	else if (d.testcase)
		testcase = strdup(d.testcase);
	else
		testcase = strndup(o->job, strcspn(o->job, "-"));
	if (!testbox || !testcase || set_identity(&d, o, testbox, testcase)) {
		failure("out of memory");
		goto out;
	}
	import_sha256(text, len, hash);
	db = cmd_store_location("import");
	if (!db || cmd_store_open("import", STORE_WRITE, &s))
		goto out;
	if (!o->force) {
		/* said before anything is written; the write checks again under its lock */
		e = already_imported(s, o, hash);
		if (e)
			goto out;
	}
	e = store_put_import(s, d.runs, d.nr, hash, !o->force, NULL);
	if (e == -EEXIST) {
		/* another import of the same content came in between */
		if (!already_imported(s, o, hash))
			failure("%s", store_error(s));
		goto out;
	}
	if (e) {
		failure("%s (nothing was imported)", store_error(s));
		goto out;
	}
	if (d.skipped)
		printf("skipped %zu non-numeric key%s\n", d.skipped, d.skipped == 1 ? "" : "s");
	printf("imported %zu run%s of %s at %s into %s\n", d.nr, d.nr == 1 ? "" : "s",
	       o->job, o->commit, db);
	ret = EXIT_OK;
out:
	store_close(s);
	import_data_release(&d);
	strbuf_release(&file);
	strbuf_release(&err);
	free(testbox);
	free(testcase);
	return ret;
}

/* ---- lkp-result: LKP result roots (docs/import.md "lkp-result") ---- */

/* What lkp_result_read() said, as this command says it: EXIT_USAGE or EXIT_FAILED. */
static int lkp_result_failure(int e, const struct lkp_result_error *err)
{
	if (err->job_file) {
		/* as every job file's error: no command name before its position */
		fputs("perfbot: ", stderr);
		quote_line_fputs(err->msg.buf, stderr);
		fputc('\n', stderr);
		return EXIT_FAILED;
	}
	/* a DIR given that is no LKP result is the user's mistake */
	if (e == -ENOENT)
		return usage_error("%s", err->msg.buf);
	return failure("%s", err->msg.buf);
}

static int import_lkp_result(const struct import_opts *o)
{
	struct lkp_runs runs = { 0 };
	struct lkp_result_error err = { .msg = STRBUF_INIT };
	struct store *s = NULL;
	struct timespec now;
	size_t added = 0, there = 0;
	const char *db;
	int ret = EXIT_FAILED, e;

	/* LKP keeps no start per run that all its results share: the import's */
	clock_gettime(CLOCK_REALTIME, &now);
	/* every run read and checked before the store is opened */
	e = lkp_result_read(o->dirs, o->nr_dirs, (double)now.tv_sec + now.tv_nsec * 1e-9,
			    &runs, &err);
	if (e) {
		ret = lkp_result_failure(e, &err);
		goto out;
	}
	db = cmd_store_location("import");
	if (!db || cmd_store_open("import", STORE_WRITE, &s))
		goto out;
	/*
	 * One transaction per run, its identity checked inside it: a run is
	 * all there or not at all, two imports of one tree at once store it
	 * once, and an import cut off part way is finished by running it
	 * again.  (SQLite in WAL mode does not sync each commit: about 3 ms
	 * a run of 1,000 stats, bench/RESULTS.md "Issue 18: lkp-result".)
	 */
	for (size_t i = 0; i < runs.n; i++) {
		const struct lkp_run *run = &runs.v[i];

		e = run->twin ? -EEXIST :
		    store_put_import(s, &run->rec, 1, run->hash, !o->force, NULL);
		if (e == -EEXIST) {
			there++;
			continue;
		}
		if (e) {
			failure("%s: %s (%zu runs imported before it)", run->dir, store_error(s),
				added);
			goto out;
		}
		added++;
	}
	printf("%zu run%s imported, %zu already there, into %s\n", added,
	       added == 1 ? "" : "s", there, db);
	ret = EXIT_OK;
out:
	store_close(s);
	lkp_runs_release(&runs);
	lkp_result_error_release(&err);
	return ret;
}

int cmd_import(int argc, char **argv)
{
	struct import_opts o = { 0 };
	int ret = parse_args(argc, argv, &o);

	if (!ret)
		ret = o.dirs ? import_lkp_result(&o) : import(&o);
	vec_free(&o.params);
	return ret < 0 ? EXIT_OK : ret;
}

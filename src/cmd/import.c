/*
 * import.c - perfbot import: results made elsewhere (LKP's matrix.json, a
 * CSV) into the store, so that they can be listed and compared like
 * perfbot's own runs, and tests can start from exact numbers.
 */
#define _GNU_SOURCE
#include "cmd/cmds.h"
#include "cmd/cmdutil.h"
#include "record/import.h"
#include "record/record.h"
#include "run/env.h"
#include "store/store.h"
#include "util/strbuf.h"
#include "util/vec.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* below a DIR given: LKP's /result/TESTCASE/PARAMS/TBOX/ROOTFS/KCONFIG/COMPILER/COMMIT/N is 9 */
#define LKP_MAX_DEPTH 16

struct vec_str {
	char **v;
	size_t n, cap;
};

struct lkp_run {
	char *dir;			/* the run directory, as found under a DIR given */
	struct run_record rec;
	char hash[IMPORT_HASH_LEN + 1];	/* the run's identity (lkp_identity()) */
	bool twin;			/* an earlier run of this import has its identity */
};

struct lkp_runs {
	struct lkp_run *v;
	size_t n, cap;
	/* the commit's matrix.json last read, for the runs without stats.json */
	char *matrix_path;
	struct import_data matrix;
	bool matrix_read;
};

static void lkp_runs_release(struct lkp_runs *runs)
{
	for (size_t i = 0; i < runs->n; i++) {
		free(runs->v[i].dir);
		run_record_release(&runs->v[i].rec);
	}
	free(runs->v);
	free(runs->matrix_path);
	import_data_release(&runs->matrix);
}

static char *path_join(const char *dir, const char *name)
{
	char *p;

	return asprintf(&p, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", name) < 0 ?
	       NULL : p;
}

static bool is_file(const char *dir, const char *name)
{
	char *p = path_join(dir, name);
	struct stat st;
	bool yes = p && !stat(p, &st) && S_ISREG(st.st_mode);

	free(p);
	return yes;
}

/* The last component of a path (without trailing slashes), malloc'd. */
static char *base_name(const char *path)
{
	size_t len = strlen(path);
	const char *start;

	while (len > 1 && path[len - 1] == '/')
		len--;
	start = path + len;
	while (start > path && start[-1] != '/')
		start--;
	return strndup(start, (size_t)(path + len - start));
}

/* The directory a run directory is in (its commit's), malloc'd. */
static char *parent_dir(const char *path)
{
	char *copy = strdup(path), *slash;
	size_t len;

	if (!copy)
		return NULL;
	len = strlen(copy);
	while (len > 1 && copy[len - 1] == '/')
		copy[--len] = '\0';
	slash = strrchr(copy, '/');
	if (!slash) {
		free(copy);
		return strdup(".");
	}
	if (slash == copy)
		slash[1] = '\0';
	else
		*slash = '\0';
	return copy;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The run directories at or under dir (those holding job.yaml), in name
 * order, into out; symlinks are not followed (a result tree may link
 * back up).  A directory that cannot be read is an error (EXIT_FAILED).
 */
static int find_runs(const char *dir, unsigned depth, struct vec_str *out)
{
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int ret = 0;
	DIR *d;

	if (is_file(dir, "job.yaml")) {
		char *copy = strdup(dir);

		if (!copy || vec_push(out, copy)) {
			free(copy);
			return failure("out of memory");
		}
		return 0;
	}
	if (depth >= LKP_MAX_DEPTH)
		return 0;
	d = opendir(dir);
	if (!d)
		return failure("cannot read %s: %s", dir, strerror(errno));
	while ((e = readdir(d))) {
		char *sub;
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		sub = path_join(dir, e->d_name);
		if (!sub) {
			ret = failure("out of memory");
			break;
		}
		/* lstat: a symlink is no directory here, so never followed */
		if (lstat(sub, &st) || !S_ISDIR(st.st_mode)) {
			free(sub);
			continue;
		}
		if (vec_reserve_((void **)&names, &cap, n + 1, sizeof(*names))) {
			free(sub);
			ret = failure("out of memory");
			break;
		}
		names[n++] = sub;
	}
	closedir(d);
	if (names)
		qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++) {
		if (!ret)
			ret = find_runs(names[i], depth + 1, out);
		free(names[i]);
	}
	free(names);
	return ret;
}

/*
 * The run's stats: its stats.json, else its column of the commit's
 * matrix.json (the column whose stats_source is .../<N>/stats.json).
 */
static int lkp_stats(struct lkp_runs *runs, const char *dir, struct run_record *rec)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct import_data one = { 0 };
	char *path = path_join(dir, "stats.json"), *parent = NULL, *n = NULL, *want = NULL;
	int ret = EXIT_FAILED, e;

	if (!path)
		return failure("out of memory");
	if (is_file(dir, "stats.json")) {
		e = strbuf_read_file(&text, path, 0);
		if (e)
			failure("cannot read %s: %s", path, strerror(-e));
		else if (import_lkp_stats(text.buf, text.len, &one, &err))
			failure("%s:%s%s", path, isdigit((unsigned char)err.buf[0]) ? "" : " ",
				err.buf);
		else {
			rec->stats = one.runs[0].stats;
			memset(&one.runs[0].stats, 0, sizeof(one.runs[0].stats));
			ret = 0;
		}
		goto out;
	}
	parent = parent_dir(dir);
	n = base_name(dir);
	if (!parent || !n || asprintf(&want, "/%s/stats.json", n) < 0) {
		want = NULL;
		failure("out of memory");
		goto out;
	}
	if (!runs->matrix_path || strcmp(runs->matrix_path, parent)) {
		char *mpath = path_join(parent, "matrix.json");

		import_data_release(&runs->matrix);
		free(runs->matrix_path);
		runs->matrix_path = parent;
		parent = NULL;
		runs->matrix_read = false;
		if (!mpath) {
			failure("out of memory");
			goto out;
		}
		if (is_file(runs->matrix_path, "matrix.json")) {
			e = strbuf_read_file(&text, mpath, 0);
			if (e)
				failure("cannot read %s: %s", mpath, strerror(-e));
			else if (import_lkp_matrix(text.buf, text.len, &runs->matrix, &err))
				failure("%s:%s%s", mpath,
					isdigit((unsigned char)err.buf[0]) ? "" : " ", err.buf);
			else
				runs->matrix_read = true;
			if (e || !runs->matrix_read) {
				free(mpath);
				goto out;
			}
		}
		free(mpath);
	}
	for (size_t i = 0; runs->matrix_read && runs->matrix.sources && i < runs->matrix.nr; i++) {
		const char *src = runs->matrix.sources[i];
		size_t sl = src ? strlen(src) : 0, wl = strlen(want);

		if (!src || sl < wl || strcmp(src + sl - wl, want))
			continue;
		for (size_t k = 0; k < runs->matrix.runs[i].stats.n; k++) {
			const struct stat_value *sv = &runs->matrix.runs[i].stats.v[k];

			if (statmap_add(&rec->stats, sv->name, sv->value)) {
				failure("out of memory");
				goto out;
			}
		}
		statmap_finish(&rec->stats);
		ret = 0;
		goto out;
	}
	if (runs->matrix_read)
		failure("%s is not an LKP run: it has no stats.json, and %s/matrix.json has no "
			"column for it (no stats_source ending in %s)", dir, runs->matrix_path, want);
	else
		failure("%s is not an LKP run: it has job.yaml but no stats.json (nor a matrix.json "
			"beside it, in %s)", dir, runs->matrix_path);
out:
	import_data_release(&one);
	strbuf_release(&text);
	strbuf_release(&err);
	free(path);
	free(parent);
	free(n);
	free(want);
	return ret;
}

/*
 * LKP's test machine line, as perfbot run's env `machine`: "88 threads
 * Intel(R) Xeon(R) CPU E5-2699 v4 @ 2.20GHz with 64G memory" from the
 * host file's nr_cpu, brand (else model) and memory; NULL when one lacks.
 */
static char *lkp_machine(const struct strmap *keys)
{
	const char *cpus = strmap_get(keys, "nr_cpu"), *mem = strmap_get(keys, "memory");
	const char *cpu = strmap_get(keys, "brand");
	char *line;

	if (!cpu)
		cpu = strmap_get(keys, "model");
	if (!cpus || !mem || !cpu)
		return NULL;
	return asprintf(&line, "%s threads %s with %s memory", cpus, cpu, mem) < 0 ? NULL : line;
}

/*
 * The run's identity: where LKP put it (job.yaml's result_root, else the
 * directory's real path) and its stats, whatever file they were read
 * from: the same run imported from another copy of the tree, or from the
 * commit's matrix once its stats.json is gone, is the same run.
 */
static int lkp_identity(const char *dir, const struct strmap *keys, struct lkp_run *run)
{
	struct strbuf sb = STRBUF_INIT;
	const char *root = strmap_get(keys, "result_root");
	char *real = root ? NULL : realpath(dir, NULL);

	strbuf_addf(&sb, "perfbot lkp-result 1\n%s\n", root ? root : real ? real : dir);
	for (size_t i = 0; i < run->rec.stats.n; i++)
		strbuf_addf(&sb, "%s\t%.17g\n", run->rec.stats.v[i].name, run->rec.stats.v[i].value);
	free(real);
	if (strbuf_error(&sb)) {
		strbuf_release(&sb);
		return -ENOMEM;
	}
	import_sha256(sb.buf, sb.len, run->hash);
	strbuf_release(&sb);
	return 0;
}

/* LKP's run states (lib/job.sh's last_state) as perfbot's statuses. */
static int lkp_status(struct run_record *r)
{
	const double *incomplete = statmap_get(&r->stats, "last_state.is_incomplete_run");
	const double *failed = statmap_get(&r->stats, "last_state.exit_fail");

	r->status = RUN_COMPLETE;
	if (incomplete && *incomplete == 1) {
		r->status = RUN_INCOMPLETE;
		return strmap_set(&r->env, "last_state.reason",
				  "LKP: last_state.is_incomplete_run 1");
	}
	if (failed && *failed == 1) {
		r->status = RUN_FAILED;
		return strmap_set(&r->env, "last_state.reason", "LKP: last_state.exit_fail 1");
	}
	return 0;
}

/* One run directory read whole into a record; EXIT_FAILED after saying why. */
static int lkp_read_run(struct lkp_runs *runs, const char *dir, double started)
{
	struct strmap keys = { 0 };
	struct atomic_job job;
	struct job_error jerr;
	struct lkp_run *run;
	struct run_record *r;
	char *jpath = path_join(dir, "job.yaml"), *name = NULL, *parent = NULL;
	char *pname = NULL, *machine = NULL;
	const char *testbox, *commit;
	int ret = EXIT_FAILED, err = 0;

	if (!jpath || vec_reserve_((void **)&runs->v, &runs->cap, runs->n + 1, sizeof(*runs->v))) {
		free(jpath);
		return failure("out of memory");
	}
	if (job_load_lkp_run(jpath, &job, &keys, &jerr)) {
		cmd_print_job_error(&jerr);
		job_error_release(&jerr);
		strmap_release(&keys);
		free(jpath);
		return EXIT_FAILED;
	}
	run = &runs->v[runs->n];
	memset(run, 0, sizeof(*run));
	r = &run->rec;
	if (lkp_stats(runs, dir, r))
		goto out;
	name = base_name(dir);
	parent = parent_dir(dir);
	pname = parent ? base_name(parent) : NULL;
	if (!name || !pname) {
		failure("out of memory");
		goto out;
	}
	/* LKP compares within a tbox_group: its result path names the group */
	testbox = strmap_get(&keys, "tbox_group");
	if (!testbox)
		testbox = strmap_get(&keys, "testbox");
	commit = strmap_get(&keys, "commit");
	/* LKP's layout .../COMMIT/N: a local run's job.yaml may name none */
	if (!commit && all_digits(name))
		commit = pname;
	if (!testbox || !commit) {
		failure("%s: no %s: LKP's job.yaml names it (%s)", jpath,
			testbox ? "commit" : "tbox_group or testbox",
			testbox ? "or the run is in .../COMMIT/N/" : "the machine the run is of");
		goto out;
	}
	machine = lkp_machine(&keys);
	err |= record_set_str(&r->testbox, testbox);
	err |= record_set_str(&r->testcase, job.testcase);
	err |= record_set_str(&r->job, job.name);
	err |= record_set_str(&r->commit, commit);
	err |= record_set_str(&r->job_text, job.text);
	for (size_t i = 0; i < job.nr_params; i++)
		err |= strmap_set(&r->params, job.params[i].key, job.params[i].value);
	err |= strmap_set(&r->env, "testbox", testbox);
	if (machine)
		err |= strmap_set(&r->env, "machine", machine);
	/* as perfbot run records what the job gives: job.kconfig, job.compiler, ... */
	for (size_t i = 0; i < job.recorded.n; i++) {
		char *key;

		if (asprintf(&key, "job.%s", job.recorded.v[i].key) < 0) {
			err = 1;
			break;
		}
		err |= strmap_set(&r->env, key, job.recorded.v[i].value);
		free(key);
	}
	if (job.kpi)
		err |= strmap_set(&r->env, "kpi", job.kpi);
	if (strmap_get(&keys, "testbox"))
		err |= strmap_set(&r->env, "lkp.testbox", strmap_get(&keys, "testbox"));
	if (strmap_get(&keys, "result_root"))
		err |= strmap_set(&r->env, "lkp.result_root", strmap_get(&keys, "result_root"));
	err |= strmap_set(&r->env, "imported_from", dir);
	err |= strmap_set(&r->env, "import_format", "lkp-result");
	err |= strmap_set(&r->env, "import_run", name);
	err |= lkp_status(r);
	/* LKP keeps no start per run that all its results share: the import's */
	r->started = started;
	r->duration_s = 0;
	if (err || lkp_identity(dir, &keys, run) || !(run->dir = strdup(dir))) {
		failure("out of memory");
		goto out;
	}
	runs->n++;
	ret = 0;
out:
	if (ret) {
		run_record_release(r);
		free(run->dir);
	}
	atomic_job_release(&job);
	strmap_release(&keys);
	free(jpath);
	free(name);
	free(parent);
	free(pname);
	free(machine);
	return ret;
}

/* Every run under the DIRs, read and checked before the store is opened. */
static int lkp_read_dirs(const struct import_opts *o, struct lkp_runs *runs)
{
	struct vec_str dirs = { 0 };
	struct timespec now;
	int ret = 0;

	clock_gettime(CLOCK_REALTIME, &now);
	for (size_t i = 0; !ret && i < o->nr_dirs; i++) {
		size_t before = dirs.n;
		struct stat st;

		if (stat(o->dirs[i], &st))
			ret = usage_error("%s: %s", o->dirs[i], strerror(errno));
		else if (!S_ISDIR(st.st_mode))
			ret = usage_error("%s is not a directory: lkp-result takes LKP result "
					  "directories (perfbot import lkp-matrix reads a matrix.json)",
					  o->dirs[i]);
		else
			ret = find_runs(o->dirs[i], 0, &dirs);
		if (!ret && dirs.n == before)
			ret = usage_error("%s is not an LKP result: no job.yaml in it or in a "
					  "directory under it%s (an LKP run directory .../COMMIT/N/ "
					  "holds job.yaml and stats.json: docs/import.md)", o->dirs[i],
					  is_file(o->dirs[i], "matrix.json") ?
					  ", only a matrix.json (perfbot import lkp-matrix FILE reads it "
					  "without the job)" : "");
	}
	for (size_t i = 0; !ret && i < dirs.n; i++)
		ret = lkp_read_run(runs, dirs.v[i], (double)now.tv_sec + now.tv_nsec * 1e-9);
	for (size_t i = 0; i < dirs.n; i++)
		free(dirs.v[i]);
	free(dirs.v);
	return ret;
}

static int cmp_run_hash(const void *a, const void *b, void *arg)
{
	const struct lkp_run *v = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(v[x].hash, v[y].hash);

	return c ? c : (x > y) - (x < y);
}

/*
 * Mark the runs found twice in this import (DIRs that overlap, a copy
 * beside its original): stored once, even with --force.  O(n log n).
 */
static int mark_twins(struct lkp_runs *runs)
{
	size_t *order = malloc((runs->n ? runs->n : 1) * sizeof(*order));

	if (!order)
		return failure("out of memory");
	for (size_t i = 0; i < runs->n; i++)
		order[i] = i;
	qsort_r(order, runs->n, sizeof(*order), cmp_run_hash, runs->v);
	for (size_t i = 1; i < runs->n; i++)
		if (!strcmp(runs->v[order[i - 1]].hash, runs->v[order[i]].hash))
			runs->v[order[i]].twin = true;
	free(order);
	return 0;
}

static int import_lkp_result(const struct import_opts *o)
{
	struct lkp_runs runs = { 0 };
	struct store *s = NULL;
	size_t added = 0, there = 0;
	const char *db;
	int ret = lkp_read_dirs(o, &runs);

	if (!ret)
		ret = mark_twins(&runs);
	if (ret)
		goto out;
	ret = EXIT_FAILED;
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
		int e = run->twin ? -EEXIST :
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

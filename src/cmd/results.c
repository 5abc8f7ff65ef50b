/*
 * results.c - perfbot results: list what the store holds, one line per
 * group of runs (testbox, atomic job, commit) with its KPI, or show one
 * run in full.
 */
#define _GNU_SOURCE
#include "cmd/cmdutil.h"
#include "cmd/cmds.h"
#include "record/record.h"
#include "report/report.h"
#include "report/tabular.h"
#include "stats/summary.h"
#include "store/store.h"
#include "util/parse.h"
#include "util/quote.h"
#include "util/strbuf.h"
#include "util/vec.h"

#include <errno.h>
#include <inttypes.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char results_usage[] =
	"usage: perfbot results [--db PATH] [--testcase T] [--commit C] [--job NAME]\n"
	"                       [--testbox HOST] [--json | --format FMT]\n"
	"       perfbot results show RUN_ID [--db PATH] [--json | --format FMT]\n"
	"                       [--stat PATTERN ...]\n"
	"       perfbot results delete [RUN_ID ...] [--commit C [--testcase T]\n"
	"                       [--job NAME] [--testbox HOST]] [-n | --yes] [--db PATH]\n"
	"\n"
	"List the stored results: one line per group of runs of one atomic job\n"
	"on one testbox at one commit, with how many runs completed, failed or\n"
	"were left incomplete (and, when any were, how many could not run there:\n"
	"unsupported), and the group's KPI as mean ± %stddev over its complete\n"
	"runs, or 'unsupported here: REASON' when no run could.  'show' prints\n"
	"one run in full: its fields, parameters, environment, every stat and the\n"
	"job it ran.\n"
	"\n"
	"'delete' removes runs with everything they hold (parameters,\n"
	"environment, stats, declarations): the runs given by id, and every run\n"
	"of commit C that the other filters select.  It lists them, and deletes\n"
	"them, in one transaction, only with --yes; -n only lists them.\n"
	"Bisections are left as they are (a finished one keeps its result; a\n"
	"resumed one measures a deleted commit again).\n"
	"\n"
	CMD_DB_USAGE
	"      --testcase T      only runs of testcase T (will-it-scale, hackbench, ...)\n"
	"      --commit C        only runs of commit C: a full sha, a unique prefix of\n"
	"                        at least 4 digits, or a label (kernel release)\n"
	"      --job NAME        only runs of the atomic job NAME\n"
	"      --testbox HOST    only runs on HOST\n"
	"      --json            print JSON instead of text\n"
	"      --format FMT      text (default), json, csv or markdown (a table:\n"
	"                        the list, or show's stats)\n"
	"      --stat PATTERN    show: only the stats matching the glob PATTERN\n"
	"                        (repeatable: any of them)\n"
	"  -n, --dry-run         delete: list what would be deleted, delete nothing\n"
	"      --yes             delete: delete what is listed\n"
	"  -h, --help            show this help\n"
	"\n"
	"The KPI of a group is the stat its runs' environment names as 'kpi',\n"
	"else the first its runs declare a KPI, else (runs that declare none)\n"
	"the first stored of will-it-scale.per_thread_ops,\n"
	"will-it-scale.per_process_ops, hackbench.throughput,\n"
	"netperf.Throughput_Mbps, netperf.Throughput_tps and\n"
	"<testcase>.time.elapsed_time, as its latest complete run has them.\n"
	"\n"
	"Exit status: 0 done (delete -n: listed; a selection of no run), 1 no\n"
	"database, a database that cannot be read or written, 2 bad usage: an\n"
	"unknown or ambiguous commit, an unknown run id, delete without --yes\n"
	"or -n (the runs are listed, nothing is deleted).\n";

struct results_opts {
	struct store_filter filter;
	bool json;
	bool tabular;		/* --format csv|markdown */
	enum tabular_format format;
	const char *format_name;
	/* show --stat: globs into argv */
	const char **stats;
	size_t nr_stats;
	bool show;
	int64_t run_id;
	/* delete */
	bool del, yes, dry_run;
	struct { int64_t *v; size_t n, cap; } ids;
};

#define usage_error(...) cmd_usage_error("results", __VA_ARGS__)

#define failure(...) cmd_failure("results", __VA_ARGS__)

/* `delete [RUN_ID ...]` and its options, already read by getopt. */
static int parse_delete(int argc, char **argv, struct results_opts *o,
			const char *filter_opt)
{
	unsigned long id;

	o->del = true;
	for (optind++; optind < argc; optind++) {
		if (parse_ulong(argv[optind], 1, INT64_MAX, &id) != PARSE_OK)
			return usage_error("invalid run id '%s': expected a number of at least 1",
					   argv[optind]);
		if (vec_push(&o->ids, (int64_t)id))
			return failure("out of memory");
	}
	if (!o->ids.n && !filter_opt)
		return usage_error("delete what? give run ids, or --commit C");
	/* a filter alone would select the runs of every commit */
	if (!o->filter.commit && filter_opt)
		return usage_error("delete %s needs --commit: which commit's runs?", filter_opt);
	if (o->yes && o->dry_run)
		return usage_error("--yes and -n contradict each other");
	if (o->json || o->tabular)
		return usage_error("%s is for listing and show, not for delete",
				   o->json ? "--json" : "--format");
	if (o->nr_stats)
		return usage_error("--stat is for show, not for delete");
	return 0;
}

static int parse_args(int argc, char **argv, struct results_opts *o)
{
	enum { OPT_TESTCASE = 256, OPT_COMMIT, OPT_JOB, OPT_TESTBOX, OPT_JSON, OPT_YES,
	       OPT_FORMAT, OPT_STAT };
	static const struct option longopts[] = {
		{ "testcase", required_argument, NULL, OPT_TESTCASE },
		{ "commit", required_argument, NULL, OPT_COMMIT },
		{ "job", required_argument, NULL, OPT_JOB },
		{ "testbox", required_argument, NULL, OPT_TESTBOX },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "stat", required_argument, NULL, OPT_STAT },
		{ "yes", no_argument, NULL, OPT_YES },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *filter_opt = NULL;
	unsigned long id;
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":hn", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_TESTCASE:
			o->filter.testcase = optarg;
			filter_opt = "--testcase";
			break;
		case OPT_COMMIT:
			o->filter.commit = optarg;
			filter_opt = "--commit";
			break;
		case OPT_JOB:
			o->filter.job = optarg;
			filter_opt = "--job";
			break;
		case OPT_TESTBOX:
			o->filter.testbox = optarg;
			filter_opt = "--testbox";
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_FORMAT: {
			bool json;
			int f;

			if (cmd_parse_format("results", optarg, &json, &f))
				return EXIT_USAGE;
			o->format_name = optarg;
			o->json |= json;
			o->tabular = f >= 0;
			o->format = f >= 0 ? (enum tabular_format)f : o->format;
			break;
		}
		case OPT_STAT:
			if (!*optarg)
				return usage_error("invalid --stat '%s': expected a stat name or a"
						   " glob (will-it-scale.*)", optarg);
			if (!o->stats && !(o->stats = calloc(argc, sizeof(*o->stats))))
				return failure("out of memory");
			o->stats[o->nr_stats++] = optarg;
			break;
		case OPT_YES:
			o->yes = true;
			break;
		case 'n':
			o->dry_run = true;
			break;
		case 'h':
			fputs(results_usage, stdout);
			return -1;
		case ':':
			return usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (o->json && o->tabular)
		return usage_error("--json and --format %s do not go together", o->format_name);
	if (optind < argc && !strcmp(argv[optind], "delete"))
		return parse_delete(argc, argv, o, filter_opt);
	if (o->yes || o->dry_run)
		return usage_error("%s is for delete", o->yes ? "--yes" : "-n");
	if (optind < argc) {
		if (strcmp(argv[optind], "show"))
			return usage_error("unexpected argument '%s'", argv[optind]);
		o->show = true;
		if (++optind == argc)
			return usage_error("show needs a run id: perfbot results show RUN_ID");
		if (parse_ulong(argv[optind], 1, INT64_MAX, &id) != PARSE_OK)
			return usage_error("invalid run id '%s': expected a number of at least 1",
					   argv[optind]);
		o->run_id = (int64_t)id;
		if (++optind < argc)
			return usage_error("unexpected argument '%s'", argv[optind]);
		if (filter_opt)
			return usage_error("%s is for listing, not for show", filter_opt);
	}
	if (!o->show && o->nr_stats)
		return usage_error("--stat is for show: perfbot results show RUN_ID --stat PATTERN");
	return 0;
}

/* ---- the listing ---- */

struct kpi {
	char *name;		/* owned; NULL: no KPI found */
	struct summary sum;
	/* owned: why, when every run of the group was unsupported here */
	char *unsupported;
};

struct group_line {
	const struct store_group *g;
	struct kpi kpi;
};

static bool find_sample(const struct store_samples *sm, const char *name,
			size_t *at)
{
	for (size_t i = 0; i < sm->nr; i++) {
		if (!strcmp(sm->names[i], name)) {
			*at = i;
			return true;
		}
	}
	return false;
}

/*
 * The group's KPI over its complete runs; 0 or a negative errno.  Its name
 * comes from the latest complete run (a failed one may lack the stat).
 */
static int group_kpi(struct store *s, const struct store_group *g, struct kpi *k)
{
	struct run_record run = { 0 };
	struct store_samples sm;
	int64_t *ids = NULL;
	size_t nids = 0, at;
	const char *name;
	int err;

	memset(k, 0, sizeof(*k));
	err = store_group_runs(s, g->testbox, g->job, g->commit, &ids, &nids);
	for (size_t i = nids; !err && i-- > 0;) {
		run_record_release(&run);
		err = store_get_run(s, ids[i], &run);
		if (err || run.status == RUN_COMPLETE || !g->runs_complete)
			break;
	}
	if (err || !nids)
		goto out;
	if (run.status == RUN_UNSUPPORTED && !g->runs_complete && !g->runs_failed &&
	    !g->runs_incomplete) {
		const char *why = strmap_get(&run.env, "last_state.reason");

		k->unsupported = strdup(why ? why : "");
		if (!k->unsupported)
			err = -ENOMEM;
		goto out;
	}
	name = run_record_kpi(&run);
	if (!name)
		goto out;
	k->name = strdup(name);
	if (!k->name) {
		err = -ENOMEM;
		goto out;
	}
	if (!g->runs_complete)
		goto out;
	err = store_load_samples(s, g->testbox, g->job, g->commit, &sm);
	if (err)
		goto out;
	if (find_sample(&sm, k->name, &at))
		summarize(sm.values[at], sm.counts[at], &k->sum);
	store_samples_release(&sm);
out:
	run_record_release(&run);
	free(ids);
	return err;
}

static double pct_stddev(const struct summary *sum)
{
	return sum->mean != 0 ? 100 * sum->stddev / fabs(sum->mean) : 0;
}

/* A mean as people read it: integers for big numbers, 6 digits else. */
static void format_mean(char *buf, size_t len, double v)
{
	if (fabs(v) >= 1e5 && fabs(v) < 1e15)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.6g", v);
}

/* The KPI column: a name is up to 4 KiB, a reason 64 KiB, so no fixed buffer. */
static void format_kpi(struct strbuf *sb, const struct kpi *k)
{
	char mean[64];

	if (k->unsupported) {
		strbuf_addf(sb, "unsupported here%s%s", *k->unsupported ? ": " : "",
			    k->unsupported);
		return;
	}
	if (!k->name) {
		strbuf_addstr(sb, "-");
		return;
	}
	if (!k->sum.n) {
		strbuf_addf(sb, "%s -", k->name);
		return;
	}
	format_mean(mean, sizeof(mean), k->sum.mean);
	if (k->sum.n < 2)
		strbuf_addf(sb, "%s %s", k->name, mean);
	else
		strbuf_addf(sb, "%s %s ±%.1f%%", k->name, mean, pct_stddev(&k->sum));
}

/* A sha as git abbreviates it; a label (kernel release) stays whole. */
static int commit_width(const char *commit)
{
	size_t n = strlen(commit);

	if (n > 12 && strspn(commit, "0123456789abcdef") == n)
		return 12;
	return (int)n;
}

/* 0, or -ENOMEM (a line may be printed without its KPI) */
static int print_groups_text(const struct group_line *lines, size_t n)
{
	int wbox = strlen("testbox"), wjob = strlen("job"), wcommit = strlen("commit");
	bool unsupported = false;

	for (size_t i = 0; i < n; i++) {
		const struct store_group *g = lines[i].g;
		int b = (int)quote_width(g->testbox), j = (int)quote_width(g->job),
		    c = commit_width(g->commit);

		wbox = b > wbox ? b : wbox;
		wjob = j > wjob ? j : wjob;
		wcommit = c > wcommit ? c : wcommit;
		unsupported |= g->runs_unsupported > 0;
	}
	/* the column is there when it says something: most stores have none */
	printf("%-*s  %-*s  %-*s  %8s %6s %10s%s  %s\n", wbox, "testbox", wjob, "job",
	       wcommit, "commit", "complete", "failed", "incomplete",
	       unsupported ? " unsupported" : "", "kpi (mean ±%stddev)");
	for (size_t i = 0; i < n; i++) {
		const struct store_group *g = lines[i].g;
		struct strbuf kpi = STRBUF_INIT;

		format_kpi(&kpi, &lines[i].kpi);
		if (strbuf_error(&kpi))
			return strbuf_error(&kpi);
		/* names are quoted (util/quote.h) before they are measured */
		quote_fpad(g->testbox, (size_t)wbox, stdout);
		fputs("  ", stdout);
		quote_fpad(g->job, (size_t)wjob, stdout);
		fputs("  ", stdout);
		if (commit_width(g->commit) < (int)strlen(g->commit))
			printf("%-*.*s", wcommit, commit_width(g->commit), g->commit);
		else
			quote_fpad(g->commit, (size_t)wcommit, stdout);
		printf("  %8zu %6zu %10zu", g->runs_complete, g->runs_failed,
		       g->runs_incomplete);
		if (unsupported)
			printf(" %11zu", g->runs_unsupported);
		fputs("  ", stdout);
		quote_line_fputs(kpi.buf, stdout);
		putchar('\n');
		strbuf_release(&kpi);
	}
	return 0;
}

/* The list as a table: the JSON's fields, a column each. */
static int print_groups_tabular(const struct group_line *lines, size_t n,
				enum tabular_format f)
{
	static const struct tabular_column cols[] = {
		{ "testbox", false }, { "testcase", false }, { "job", false },
		{ "commit", false }, { "runs_complete", true }, { "runs_failed", true },
		{ "runs_incomplete", true }, { "runs_unsupported", true },
		{ "last_run_id", true }, { "kpi", false }, { "kpi_n", true },
		{ "kpi_mean", true }, { "kpi_stddev", true }, { "kpi_stddev_pct", true },
		{ "unsupported", false },
	};
	struct tabular t;

	tabular_begin(&t, stdout, f, cols, sizeof(cols) / sizeof(cols[0]));
	for (size_t i = 0; i < n; i++) {
		const struct store_group *g = lines[i].g;
		const struct kpi *k = &lines[i].kpi;
		bool have = k->name && k->sum.n;

		tabular_cell(&t, g->testbox);
		tabular_cell(&t, g->testcase);
		tabular_cell(&t, g->job);
		tabular_cell(&t, g->commit);
		tabular_cellf(&t, "%zu", g->runs_complete);
		tabular_cellf(&t, "%zu", g->runs_failed);
		tabular_cellf(&t, "%zu", g->runs_incomplete);
		tabular_cellf(&t, "%zu", g->runs_unsupported);
		tabular_cellf(&t, "%lld", (long long)g->last_run_id);
		tabular_cell(&t, k->name);
		tabular_cellf(&t, "%zu", k->name ? k->sum.n : 0);
		tabular_number(&t, have ? k->sum.mean : NAN);
		tabular_number(&t, have ? k->sum.stddev : NAN);
		tabular_number(&t, have ? pct_stddev(&k->sum) : NAN);
		tabular_cell(&t, k->unsupported);
		tabular_end_row(&t);
	}
	return tabular_finish(&t);
}

static json_t *number_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *kpi_json(const struct kpi *k)
{
	if (!k->name || k->unsupported)
		return json_null();
	if (!k->sum.n)
		return json_pack("{s:o, s:I, s:n, s:n, s:n}", "name", json_str(k->name),
				 "n", (json_int_t)0, "mean", "stddev", "stddev_pct");
	return json_pack("{s:o, s:I, s:o, s:o, s:o}", "name", json_str(k->name),
			 "n", (json_int_t)k->sum.n, "mean", number_or_null(k->sum.mean),
			 "stddev", number_or_null(k->sum.stddev),
			 "stddev_pct", number_or_null(pct_stddev(&k->sum)));
}

static int print_groups_json(const struct group_line *lines, size_t n)
{
	json_t *arr = json_array();
	int err;

	for (size_t i = 0; arr && i < n; i++) {
		const struct store_group *g = lines[i].g;

		if (json_array_append_new(arr, json_pack(
			"{s:o, s:o, s:o, s:o, s:I, s:I, s:I, s:I, s:I, s:o, s:o, s:o}",
			"testbox", json_str(g->testbox), "testcase", json_str(g->testcase),
			"job", json_str(g->job), "commit", json_str(g->commit),
			"runs_complete", (json_int_t)g->runs_complete,
			"runs_failed", (json_int_t)g->runs_failed,
			"runs_incomplete", (json_int_t)g->runs_incomplete,
			"runs_unsupported", (json_int_t)g->runs_unsupported,
			"last_run_id", (json_int_t)g->last_run_id,
			"last_started", number_or_null(g->last_started),
			"kpi", kpi_json(&lines[i].kpi),
			"unsupported", json_str(lines[i].kpi.unsupported)))) {
			json_decref(arr);
			arr = NULL;
		}
	}
	err = !arr || json_dumpf(arr, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	if (!err)
		putchar('\n');
	json_decref(arr);
	return err ? -ENOMEM : 0;
}

/*
 * A commit as the store resolves it: 0, or EXIT_USAGE for one it does not
 * hold or an ambiguous prefix (as compare and report say it: the user named
 * it, nothing was started), EXIT_FAILED when the store cannot be read.
 */
static int resolve_commit(struct store *s, const char *given, char **full)
{
	int err = store_resolve_commit(s, given, full);

	if (err == -ENOENT)
		return usage_error("unknown commit '%s' (%s)", given, store_error(s));
	if (err == -EEXIST)
		return usage_error("%s", store_error(s));
	if (err)
		return failure("%s", store_error(s));
	return 0;
}

static int list_results(struct store *s, struct results_opts *o)
{
	struct store_group *groups = NULL;
	struct group_line *lines = NULL;
	char *commit = NULL;
	size_t n = 0;
	int ret = EXIT_FAILED, err;

	if (o->filter.commit) {
		ret = resolve_commit(s, o->filter.commit, &commit);
		if (ret)
			goto out;
		ret = EXIT_FAILED;
		o->filter.commit = commit;
	}
	err = store_list_groups(s, &o->filter, &groups, &n);
	if (err) {
		failure("%s", store_error(s));
		goto out;
	}
	lines = calloc(n ? n : 1, sizeof(*lines));
	if (!lines) {
		failure("out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		lines[i].g = &groups[i];
		err = group_kpi(s, &groups[i], &lines[i].kpi);
		if (err) {
			failure("%s", err == -ENOMEM ? "out of memory" : store_error(s));
			goto out;
		}
	}
	if (o->json) {
		if (print_groups_json(lines, n)) {
			failure("cannot write JSON");
			goto out;
		}
	} else if (o->tabular) {
		if (print_groups_tabular(lines, n, o->format)) {
			failure("cannot write the table: %s", strerror(EIO));
			goto out;
		}
	} else if (n && print_groups_text(lines, n)) {
		failure("out of memory");
		goto out;
	}
	ret = EXIT_OK;
out:
	for (size_t i = 0; lines && i < n; i++) {
		free(lines[i].kpi.name);
		free(lines[i].kpi.unsupported);
	}
	free(lines);
	store_groups_release(groups, n);
	free(commit);
	return ret;
}

/* ---- one run ---- */


static int strmap_width(const struct strmap *m)
{
	int w = 0;

	for (size_t i = 0; i < m->n; i++) {
		int k = (int)quote_width(m->v[i].key);

		w = k > w ? k : w;
	}
	return w;
}

static void print_strmap(const char *title, const struct strmap *m)
{
	int w = strmap_width(m);

	printf("\n%s (%zu)\n", title, m->n);
	for (size_t i = 0; i < m->n; i++)
	{
		fputs("  ", stdout);
		quote_fpad(m->v[i].key, (size_t)w, stdout);
		fputs("  ", stdout);
		quote_fputs(m->v[i].value, stdout);
		putchar('\n');
	}
}

static void print_field(const char *label, const char *value)
{
	fputs(label, stdout);
	quote_fputs(value ? value : "", stdout);
	putchar('\n');
}

/* Is stat i of the run one --stat lists (every one without --stat)? */
static bool stat_listed(const struct results_opts *o, const struct run_record *r, size_t i)
{
	return report_stat_listed(&(struct report){ .stats = o->stats, .nr_stats = o->nr_stats },
				  r->stats.v[i].name);
}

static void print_run_text(const struct results_opts *o, int64_t id, const struct run_record *r)
{
	char when[64];
	int w = 0;

	cmd_format_utc(when, sizeof(when), r->started);
	printf("run         %lld\n", (long long)id);
	print_field("testbox     ", r->testbox);
	print_field("testcase    ", r->testcase);
	print_field("job         ", r->job);
	print_field("commit      ", r->commit);
	printf("status      %s", run_status_name(r->status));
	if (r->status == RUN_UNSUPPORTED && strmap_get(&r->env, "last_state.reason")) {
		fputs(": ", stdout);
		quote_line_fputs(strmap_get(&r->env, "last_state.reason"), stdout);
	}
	putchar('\n');
	printf("started     %s (%.3f)\n", when, r->started);
	printf("duration    %.3f s\n", r->duration_s);
	print_strmap("params", &r->params);
	print_strmap("env", &r->env);
	for (size_t i = 0; i < r->stats.n; i++) {
		int k = (int)quote_width(r->stats.v[i].name);

		w = k > w ? k : w;
	}
	printf("\nstats (%zu", r->stats.n);
	if (o->nr_stats) {
		size_t listed = 0;

		for (size_t i = 0; i < r->stats.n; i++)
			listed += stat_listed(o, r, i);
		printf(", %zu shown", listed);
	}
	printf(")\n");
	for (size_t i = 0; i < r->stats.n; i++)
	{
		if (!stat_listed(o, r, i))
			continue;
		fputs("  ", stdout);
		quote_fpad(r->stats.v[i].name, (size_t)w, stdout);
		printf("  %.15g\n", r->stats.v[i].value);
	}
	if (r->job_text) {
		const char *p = r->job_text;

		printf("\njob\n");
		while (*p) {
			size_t len = strcspn(p, "\n");

			char *line = strndup(p, len);

			fputs("  ", stdout);
			quote_line_fputs(line ? line : "?", stdout);
			putchar('\n');
			free(line);
			p += len + (p[len] == '\n');
		}
	}
}

static json_t *strmap_json(const struct strmap *m)
{
	json_t *o = json_object();

	for (size_t i = 0; o && i < m->n; i++)
		json_object_set_lossy(o, m->v[i].key, json_str(m->v[i].value));
	return o;
}

/* The run's (listed) stats as a table of name and value, unrounded. */
static int print_run_tabular(const struct results_opts *o, const struct run_record *r)
{
	static const struct tabular_column cols[] = { { "stat", false }, { "value", true } };
	struct tabular t;

	tabular_begin(&t, stdout, o->format, cols, 2);
	t.precision = 17;	/* the stored value, as --json writes it */
	for (size_t i = 0; i < r->stats.n; i++) {
		if (!stat_listed(o, r, i))
			continue;
		tabular_cell(&t, r->stats.v[i].name);
		tabular_number(&t, r->stats.v[i].value);
		tabular_end_row(&t);
	}
	return tabular_finish(&t);
}

static int print_run_json(const struct results_opts *o, int64_t id, const struct run_record *r)
{
	json_t *stats = json_object(), *root;
	int err;

	for (size_t i = 0; stats && i < r->stats.n; i++)
		if (stat_listed(o, r, i))
			json_object_set_lossy(stats, r->stats.v[i].name,
				      number_or_null(r->stats.v[i].value));
	/* whatever an old database holds is shown, bad bytes as U+FFFD */
	root = json_pack("{s:I, s:o, s:o, s:o, s:o, s:s, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "id", (json_int_t)id, "testbox", json_str(r->testbox),
			 "testcase", json_str(r->testcase), "job", json_str(r->job),
			 "commit", json_str(r->commit),
			 "status", run_status_name(r->status),
			 "started", number_or_null(r->started),
			 "duration_s", number_or_null(r->duration_s),
			 "params", strmap_json(&r->params), "env", strmap_json(&r->env),
			 "stats", stats, "job_text", json_str(r->job_text));
	/* full precision: these are the stored values, not a summary */
	err = !root || json_dumpf(root, stdout, JSON_INDENT(2));
	if (!err)
		putchar('\n');
	json_decref(root);
	return err ? -ENOMEM : 0;
}

static int show_run(struct store *s, const struct results_opts *o)
{
	struct run_record r;
	int err = store_get_run(s, o->run_id, &r);

	if (err == -ENOENT)
		return usage_error("%s", store_error(s));
	if (err)
		return failure("%s", store_error(s));
	if (o->nr_stats) {
		size_t listed = 0;

		for (size_t i = 0; i < r.stats.n; i++)
			listed += stat_listed(o, &r, i);
		if (!listed) {
			fprintf(stderr, "perfbot: results: run %lld has no stat matching --stat",
				(long long)o->run_id);
			for (size_t i = 0; i < o->nr_stats; i++) {
				fputs(i ? ", " : " ", stderr);
				quote_fputs(o->stats[i], stderr);
			}
			fputc('\n', stderr);
		}
	}
	if (o->json) {
		err = print_run_json(o, o->run_id, &r);
		if (err)
			failure("cannot write JSON");
	} else if (o->tabular) {
		err = print_run_tabular(o, &r);
		if (err)
			failure("cannot write the table: %s", strerror(EIO));
	} else {
		print_run_text(o, o->run_id, &r);
	}
	run_record_release(&r);
	return err ? EXIT_FAILED : EXIT_OK;
}

/* ---- deleting runs ---- */

static int cmp_id(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* The runs of the commit's groups that the filters select, added to ids. */
static int select_commit_runs(struct store *s, struct results_opts *o)
{
	struct store_group *groups = NULL;
	char *commit = NULL;
	size_t n = 0;
	int ret = resolve_commit(s, o->filter.commit, &commit);

	if (ret)
		return ret;
	ret = EXIT_FAILED;
	o->filter.commit = commit;
	if (store_list_groups(s, &o->filter, &groups, &n)) {
		failure("%s", store_error(s));
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		int64_t *ids = NULL;
		size_t nr = 0;

		/* the filter takes a prefix: "6.1" must not select "6.1.0-13" */
		if (strcmp(groups[i].commit, commit))
			continue;
		if (store_group_runs(s, groups[i].testbox, groups[i].job, groups[i].commit,
				     &ids, &nr)) {
			failure("%s", store_error(s));
			goto out;
		}
		for (size_t k = 0; k < nr; k++) {
			if (vec_push(&o->ids, ids[k])) {
				free(ids);
				failure("out of memory");
				goto out;
			}
		}
		free(ids);
	}
	ret = 0;
out:
	store_groups_release(groups, n);
	o->filter.commit = NULL;
	free(commit);
	return ret;
}

/* One line per run: what it is, so that the user sees what goes. */
static int list_runs(struct store *s, const struct results_opts *o, const char *verb)
{
	/* every id known before a line is printed: an unknown one lists nothing */
	for (size_t i = 0; i < o->ids.n; i++) {
		struct run_record r;
		int err = store_get_run(s, o->ids.v[i], &r);

		if (err == -ENOENT)
			return usage_error("%s", store_error(s));
		if (err)
			return failure("%s", store_error(s));
		run_record_release(&r);
	}
	for (size_t i = 0; i < o->ids.n; i++) {
		struct run_record r;
		char when[64];
		int err = store_get_run(s, o->ids.v[i], &r);

		if (err == -ENOENT)
			return usage_error("%s", store_error(s));
		if (err)
			return failure("%s", store_error(s));
		cmd_format_utc(when, sizeof(when), r.started);
		printf("%s run %" PRId64 ": ", verb, o->ids.v[i]);
		quote_fputs(r.testbox, stdout);
		fputs("  ", stdout);
		quote_fputs(r.job, stdout);
		fputs("  ", stdout);
		quote_fputs(r.commit, stdout);
		printf("  %s  %s\n", run_status_name(r.status), when);
		run_record_release(&r);
	}
	return 0;
}

static int delete_runs(struct store **sp, struct results_opts *o, const char *db)
{
	struct store *s = *sp;
	size_t n = 0;
	int ret;

	if (o->filter.commit && (ret = select_commit_runs(s, o)))
		return ret;
	/* sorted, each once: an id given and also of the commit is one run */
	qsort(o->ids.v, o->ids.n, sizeof(*o->ids.v), cmp_id);
	for (size_t i = 0; i < o->ids.n; i++)
		if (!n || o->ids.v[n - 1] != o->ids.v[i])
			o->ids.v[n++] = o->ids.v[i];
	o->ids.n = n;
	if (!n) {
		printf("no run matches: nothing to delete\n");
		return EXIT_OK;
	}
	ret = list_runs(s, o, o->yes ? "deleting" : "would delete");
	if (ret)
		return ret;
	if (o->dry_run) {
		printf("would delete %zu run%s from %s (-n: nothing deleted)\n", n,
		       n == 1 ? "" : "s", db);
		return EXIT_OK;
	}
	if (!o->yes)
		return usage_error("%zu run%s not deleted: give --yes to delete %s (-n only lists them)",
				   n, n == 1 ? "" : "s", n == 1 ? "it" : "them");
	/*
	 * Exactly the runs listed: opened for writing only now, so that a
	 * missing database is not created; a run gone meanwhile fails the
	 * whole deletion, and a run added meanwhile was not listed.
	 */
	store_close(*sp);
	*sp = NULL;
	if (cmd_store_open("results", STORE_WRITE, sp))
		return EXIT_FAILED;
	if (store_delete_runs(*sp, o->ids.v, n))
		return failure("%s (nothing was deleted)", store_error(*sp));
	printf("deleted %zu run%s from %s\n", n, n == 1 ? "" : "s", db);
	return EXIT_OK;
}

int cmd_results(int argc, char **argv)
{
	struct results_opts o = { 0 };
	struct store *s = NULL;
	const char *db;
	int ret = parse_args(argc, argv, &o);

	if (ret) {
		vec_free(&o.ids);
		free(o.stats);
		return ret < 0 ? EXIT_OK : ret;
	}
	ret = cmd_store_open("results", STORE_READ, &s);
	if (!ret && o.del) {
		db = cmd_store_location("results");
		ret = db ? delete_runs(&s, &o, db) : EXIT_FAILED;
	} else if (!ret) {
		ret = o.show ? show_run(s, &o) : list_results(s, &o);
	}
	store_close(s);
	vec_free(&o.ids);
	free(o.stats);
	return ret;
}

/*
 * compare.c - perfbot compare: what changed between commits, for every
 * atomic job that has complete runs on all of them, as LKP's table
 * (docs/design.md §7), perf stat's ratio lines, or JSON.
 */
#define _GNU_SOURCE
#include "cmd/cmds.h"
#include "cmd/cmdutil.h"
#include "cmd/gather.h"
#include "cmd/cmpopts.h"
#include "report/report.h"
#include "record/record.h"
#include "stats/compare.h"
#include "stats/ttest.h"
#include "store/store.h"
#include "util/parse.h"
#include "util/quote.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define usage_error(...) cmd_usage_error("compare", __VA_ARGS__)

static const char compare_usage[] =
	"usage: perfbot compare [--db PATH] [-s KEY=VALUE ...] [--testbox HOST] [--repo DIR]\n"
	"                       [--all] [--ci] [--json] [--min-change [PATTERN=]PCT ...]\n"
	"                       [--alpha A]\n"
	"                       [--format text|perf-stat] BASE OTHER [OTHER ...]\n"
	"\n"
	"Compare the stored runs of OTHER commits with BASE's, stat by stat, for\n"
	"every atomic job (and testbox) with complete runs on all of them.  Each\n"
	"commit is a full sha, a unique prefix, a label, or with --repo a tag or\n"
	"branch of that repository.  A stat's verdict is\n"
	"changed, same or unknown (more runs would decide): the job's KPI by\n"
	"Welch's t-test at alpha with a 1% floor, failure stats (dmesg.*,\n"
	"*.exit_fail, last_state.*) by Fisher's exact test, every other stat by\n"
	"Welch's test through Benjamini-Hochberg at q = alpha with a 5% floor.\n"
	"Verdicts need 3 runs a side; with fewer the numbers are still shown.\n"
	"\n"
	CMD_DB_USAGE
	"  -s, --set KEY=VALUE   only jobs whose parameter KEY is VALUE (repeatable)\n"
	"      --testbox HOST    only runs on HOST\n"
	"      --repo DIR        resolve commits the store does not know by name\n"
	"                        (tags, branches) with git in DIR\n"
	"      --all             every stat with its verdict, not only the changed\n"
	"      --ci              add the 95% interval of %change and the p-value\n"
	"      --json            everything, machine-readable (docs/compare.md)\n"
	"      --min-change PCT  the smallest change reported, for every family\n"
	"                        (default: 1 for KPIs, 5 for the others)\n"
	"      --min-change PATTERN=PCT\n"
	"                        the smallest change of the stats matching the\n"
	"                        glob PATTERN (repeatable; the last match wins)\n"
	"      --alpha A         the KPI and failure tests' alpha and the others'\n"
	"                        false discovery rate (default 0.05)\n"
	"      --format FMT      text (LKP's table, default) or perf-stat (each\n"
	"                        KPI as perf stat -r prints it, and the ratios)\n"
	"  -h, --help            show this help\n"
	"\n"
	"Exit status: 0 compared, 1 no atomic job has complete runs on all the\n"
	"commits or the database cannot be read, 2 bad usage or unknown commit.\n";

enum format { FORMAT_TEXT, FORMAT_PERF_STAT };

struct compare_args {
	struct cmpopts sel;	/* -s, --testbox, --repo, --min-change, --alpha */
	bool all, ci, json;
	enum format format;
	char **given;		/* the commits as given, into argv */
	size_t nr_commits;
};

#define failure(...) cmd_failure("compare", __VA_ARGS__)

static int parse_args(int argc, char **argv, struct compare_args *a)
{
	enum { OPT_ALL = 256, OPT_CI, OPT_JSON, OPT_FORMAT };
	static const struct option longopts[] = {
		CMPOPTS_LONGOPTS,
		{ "all", no_argument, NULL, OPT_ALL },
		{ "ci", no_argument, NULL, OPT_CI },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret = cmpopts_init(&a->sel, "compare", argc);

	if (ret)
		return ret;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":hs:", longopts, NULL)) != -1) {
		ret = cmpopts_option(&a->sel, c, optarg);
		if (ret >= 0) {
			if (ret)
				return ret;
			continue;
		}
		switch (c) {
		case OPT_ALL:
			a->all = true;
			break;
		case OPT_CI:
			a->ci = true;
			break;
		case OPT_JSON:
			a->json = true;
			break;
		case OPT_FORMAT:
			if (!strcmp(optarg, "text"))
				a->format = FORMAT_TEXT;
			else if (!strcmp(optarg, "perf-stat"))
				a->format = FORMAT_PERF_STAT;
			else
				return usage_error("invalid --format '%s': expected text or perf-stat",
						   optarg);
			break;
		case 'h':
			fputs(compare_usage, stdout);
			return -1;
		case ':':
			return usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind < 2)
		return usage_error("needs at least two commits: perfbot compare BASE OTHER");
	a->given = argv + optind;
	a->nr_commits = argc - optind;
	return cmpopts_finish(&a->sel);
}

/* ---- text ---- */

static void print_job_header(const struct gather_job *jb)
{
	const struct strmap *p = &jb->run.params;

	/* names from the store are quoted for the terminal (util/quote.h) */
	fputs("testbox: ", stdout);
	quote_fputs(jb->g->testbox, stdout);
	fputs("\njob: ", stdout);
	quote_fputs(jb->g->job, stdout);
	putchar('\n');
	if (p->n) {
		printf("params:");
		for (size_t i = 0; i < p->n; i++) {
			putchar(' ');
			quote_fputs(p->v[i].key, stdout);
			putchar('=');
			quote_fputs(p->v[i].value, stdout);
		}
		putchar('\n');
	}
	putchar('\n');
}

/* ---- perf-stat ---- */

static void print_perf_stat(const struct compare_args *a, char **commits,
			    const struct stat_row *rows, size_t n,
			    const struct compare_opts *o)
{
	size_t shown = 0;

	for (size_t i = 0; i < n; i++) {
		const struct stat_row *r = &rows[i];
		bool is_time = strstr(r->name, "time") != NULL;

		if (r->family != FAMILY_KPI)
			continue;
		for (size_t j = 0; j < a->nr_commits; j++) {
			const struct summary *s = j ? &r->vs[j - 1].s : &r->base;

			printf("%-16.16s %14.6g +- %-10.4g ", commits[j], s->mean, s->sem);
			quote_fputs(r->name, stdout);
			printf(" ( +- %.2f%% )\n",
			       s->mean ? 100 * s->sem / fabs(s->mean) : 0);
		}
		putchar('\n');
		for (size_t j = 1; j < a->nr_commits; j++) {
			const struct summary *s = &r->vs[j - 1].s;
			struct ratio_interval ri = ratio_interval(&r->base, s, o->level);
			const char *word;

			if (is_time)
				word = ri.ratio > 1 ? "slowdown" : "speedup";
			else
				word = report_direction_word(r->name, ri.ratio - 1);
			printf("%.5g / %.5g = %.4f ( %.2f%% ) %s", s->mean, r->base.mean,
			       ri.ratio, 100 * (ri.ratio - 1), word ? word : "change");
			if (isfinite(ri.low))
				printf(", %.0f%% interval %.4f .. %.4f", 100 * o->level,
				       ri.low, ri.high);
			printf(" [%s]\n", verdict_name(r->vs[j - 1].verdict));
		}
		shown++;
	}
	if (!shown)
		printf("no KPI stat to show (the default format shows every stat)\n");
}

/* ---- JSON ---- */

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *summary_json(const struct summary *s)
{
	return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "n", (json_int_t)s->n, "mean", num(s->mean),
			 "stddev", num(s->stddev),
			 "stddev_pct", num(s->mean ? 100 * s->stddev / fabs(s->mean) : 0),
			 "sem", num(s->sem), "min", num(s->min), "max", num(s->max),
			 "median", num(s->median), "mad", num(s->mad));
}

static const char *family_name(enum stat_family f)
{
	return f == FAMILY_KPI ? "kpi" : f == FAMILY_FAILURE ? "failure" : "other";
}

static json_t *row_json(const struct stat_row *r, char **commits, size_t ncols)
{
	json_t *vs = json_array(), *base = summary_json(&r->base);

	if (base && r->family == FAMILY_FAILURE) {
		json_object_set_new(base, "fails", json_integer(r->base_fails));
		json_object_set_new(base, "runs", json_integer(r->base_runs));
	}
	for (size_t j = 0; vs && j < ncols; j++) {
		const struct stat_vs *v = &r->vs[j];
		json_t *o = summary_json(&v->s);
		const char *dir = v->verdict == VERDICT_CHANGED ?
				  report_direction_word(r->name, v->change.pct) : NULL;

		if (!o || json_object_update_new(o, json_pack(
			"{s:o, s:o, s:o, s:o, s:b, s:o, s:o, s:o, s:s, s:s?, s:I, s:I, s:o}",
			"commit", json_str(commits[j + 1]), "pct", num(v->change.pct),
			"low", num(v->change.low), "high", num(v->change.high),
			"absolute", v->change.absolute, "p", num(v->p), "q", num(v->q),
			"mwu_p", num(v->mwu_p), "verdict", verdict_name(v->verdict),
			"direction", dir, "fails", (json_int_t)v->fails,
			"runs", (json_int_t)v->runs, "reproduction", num(v->reproduction))) ||
		    json_array_append_new(vs, o)) {
			json_decref(vs);
			vs = NULL;
		}
	}
	return json_pack("{s:o, s:s, s:o, s:o}", "name", json_str(r->name),
			 "family", family_name(r->family), "base", base, "vs", vs);
}

static json_t *job_json(const struct gather_job *jb, char **commits, size_t ncommits,
			const struct sample_set *sets, const struct stat_row *rows,
			size_t n, const char *kpi)
{
	json_t *params = json_object(), *stats = json_array(), *runs = json_array();

	for (size_t i = 0; params && i < jb->run.params.n; i++)
		json_object_set_lossy(params, jb->run.params.v[i].key,
				      json_str(jb->run.params.v[i].value));
	for (size_t j = 0; runs && j < ncommits; j++)
		json_array_append_new(runs, json_integer(sets[j].nr_runs));
	for (size_t i = 0; stats && i < n; i++) {
		if (json_array_append_new(stats, row_json(&rows[i], commits, ncommits - 1))) {
			json_decref(stats);
			stats = NULL;
		}
	}
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "testbox", json_str(jb->g->testbox), "testcase",
			 json_str(jb->g->testcase), "job", json_str(jb->g->job),
			 "params", params, "kpi", json_str(kpi),
			 "runs", runs, "stats", stats);
}

/* ---- one job ---- */

static void print_few_runs(const struct compare_args *a, char **commits,
			   const struct sample_set *sets)
{
	for (size_t j = 0; j < a->nr_commits; j++) {
		unsigned missing = compare_runs_missing(&sets[j]);

		if (missing)
			printf("verdicts need 3 runs a side: commit %s has %zu (%u more needed)\n",
			       commits[j], sets[j].nr_runs, missing);
	}
}

static int print_table(const struct compare_args *a, char **commits,
		       const struct gather_job *jb)
{
	struct report_commit *rc = calloc(a->nr_commits, sizeof(*rc));
	struct report_job rj = {
		.testbox = jb->g->testbox, .testcase = jb->g->testcase,
		.job = jb->g->job, .params = &jb->run.params, .kpi = jb->kpis[0],
		.sets = jb->sets, .rows = jb->rows, .nr_rows = jb->nr_rows,
	};
	struct report r = {
		.commits = rc, .ncommits = a->nr_commits, .jobs = &rj, .njobs = 1,
		.show_all = a->all,
	};
	int err;

	if (!rc)
		return failure("out of memory");
	for (size_t j = 0; j < a->nr_commits; j++)
		rc[j].id = commits[j];
	err = report_write_table(stdout, &r, &rj, a->ci);
	free(rc);
	return err ? failure("cannot write the table: %s", strerror(-err)) : EXIT_OK;
}

static int compare_job(struct store *s, const struct compare_args *a,
		       const struct gather *ga, struct gather_job *jb,
		       const struct compare_opts *base_opts, json_t *jobs_json)
{
	struct compare_opts o = *base_opts;
	int ret = gather_compare(s, ga, jb, &o);

	if (ret)
		return ret;
	o.kpis = jb->kpis;
	if (a->json) {
		if (json_array_append_new(jobs_json, job_json(jb, ga->commits, a->nr_commits,
							      jb->sets, jb->rows, jb->nr_rows,
							      jb->kpis[0])))
			return failure("out of memory");
		return EXIT_OK;
	}
	print_job_header(jb);
	if (a->format == FORMAT_PERF_STAT)
		print_perf_stat(a, ga->commits, jb->rows, jb->nr_rows, &o);
	else if ((ret = print_table(a, ga->commits, jb)))
		return ret;
	print_few_runs(a, ga->commits, jb->sets);
	return EXIT_OK;
}

/* ---- the command ---- */

static int run_compare(struct store *s, const struct compare_args *a)
{
	struct gather ga = {
		.who = "compare", .testbox = a->sel.testbox, .repo = a->sel.repo,
		.sets = a->sel.sets,
		.nr_sets = a->sel.nr_sets, .given = a->given, .nr_commits = a->nr_commits,
	};
	json_t *jobs_json = NULL;
	struct compare_opts o;
	int ret = gather_jobs(s, &ga);

	if (ret)
		goto out;
	ret = EXIT_FAILED;
	cmpopts_apply(&a->sel, &o);
	if (a->json) {
		jobs_json = json_array();
		if (!jobs_json) {
			failure("out of memory");
			goto out;
		}
	}
	for (size_t i = 0; i < ga.njobs; i++) {
		if (i && !a->json)
			putchar('\n');
		ret = compare_job(s, a, &ga, &ga.jobs[i], &o, jobs_json);
		if (ret)
			goto out;
	}
	if (a->json) {
		json_t *given = json_array(), *full = json_array();

		for (size_t j = 0; given && full && j < a->nr_commits; j++) {
			json_array_append_new(given, json_str(a->given[j]));
			json_array_append_new(full, json_str(ga.commits[j]));
		}
		ret = cmd_print_json("compare", json_pack(
			"{s:o, s:o, s:{s:f, s:f, s:f, s:f, s:f}, s:O}",
			"given", given, "commits", full, "opts", "alpha", o.alpha,
			"q", o.q, "kpi_min_pct", o.kpi_min_pct,
			"other_min_pct", o.other_min_pct, "level", o.level,
			"jobs", jobs_json)) ? EXIT_FAILED : EXIT_OK;
	}
out:
	json_decref(jobs_json);
	gather_release(&ga);
	return ret;
}

int cmd_compare(int argc, char **argv)
{
	struct compare_args a = { 0 };
	struct store *s = NULL;
	int ret = parse_args(argc, argv, &a);

	if (ret)
		ret = ret < 0 ? EXIT_OK : ret;
	else if (!(ret = cmpopts_open_store(&a.sel, &s)))
		ret = run_compare(s, &a);
	store_close(s);
	cmpopts_release(&a.sel);
	return ret;
}

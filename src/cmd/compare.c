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
#include "util/bug.h"
#include "util/parse.h"
#include "util/quote.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define usage_error(...) cmd_usage_error("compare", __VA_ARGS__)

/*
 * printf() arguments, in order: the thresholds (stats/compare.h), so that
 * the help cannot say other numbers than the code uses.
 */
static const char compare_usage[] =
	"usage: perfbot compare [--db PATH] [-s KEY=VALUE ...] [--testbox HOST] [--repo DIR]\n"
	"                       [--all] [--ci] [--json] [--min-change [PATTERN=]PCT ...]\n"
	"                       [--alpha A]\n"
	"                       [--format text|perf-stat] BASE OTHER [OTHER ...]\n"
	"\n"
	"Compare the stored runs of OTHER commits with BASE's, stat by stat, for\n"
	"every atomic job (and testbox) with complete runs on all of them; a job\n"
	"whose runs on a commit were all unsupported there is named as such.\n"
	"Each commit is a full sha, a unique prefix, a label, or with --repo a\n"
	"tag or branch of that repository.  A stat's verdict is changed, same\n"
	"or unknown (more runs would decide): the job's KPIs by\n"
	"Welch's t-test at alpha with a %1$g%% floor, failure stats (dmesg.*,\n"
	"*.exit_fail, last_state.*) by Fisher's exact test, every other stat by\n"
	"Welch's test through Benjamini-Hochberg at q = alpha with a %2$g%% floor.\n"
	"Verdicts need %3$d runs a side; with fewer the numbers are still shown.\n"
	"\n"
	CMD_DB_USAGE
	"  -s, --set KEY=VALUE   only jobs whose parameter KEY is VALUE (repeatable)\n"
	"      --testbox HOST    only runs on HOST\n"
	"      --repo DIR        resolve commits the store does not know by name\n"
	"                        (tags, branches) with git in DIR\n"
	"      --all             every stat with its verdict, not only the changed\n"
	"      --ci              add the %4$g%% interval of %%change and the p-value\n"
	"      --json            everything, machine-readable (docs/compare.md)\n"
	"      --min-change PCT  the smallest change reported, for every family\n"
	"                        (default: %1$g for KPIs, %2$g for the others)\n"
	"      --min-change PATTERN=PCT\n"
	"                        the smallest change of the stats matching the\n"
	"                        glob PATTERN (repeatable; the last match wins)\n"
	"      --alpha A         the KPI and failure tests' alpha and the others'\n"
	"                        false discovery rate (default %5$g)\n"
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

enum { OPT_ALL = 256, OPT_CI, OPT_JSON, OPT_FORMAT };

static int own_option(int c, const char *arg, void *ctx)
{
	struct compare_args *a = ctx;

	switch (c) {
	case OPT_ALL:
		a->all = true;
		return 0;
	case OPT_CI:
		a->ci = true;
		return 0;
	case OPT_JSON:
		a->json = true;
		return 0;
	case OPT_FORMAT:
		if (!strcmp(arg, "text"))
			a->format = FORMAT_TEXT;
		else if (!strcmp(arg, "perf-stat"))
			a->format = FORMAT_PERF_STAT;
		else
			return usage_error("invalid --format '%s': expected text or perf-stat",
					   arg);
		return 0;
	case 'h':
		printf(compare_usage, COMPARE_KPI_MIN_PCT, COMPARE_OTHER_MIN_PCT,
		       COMPARE_MIN_RUNS, 100 * COMPARE_LEVEL, COMPARE_ALPHA);
		return -1;
	}
	BUG("option %d is in longopts but not handled", c);
}

static int parse_args(int argc, char **argv, struct compare_args *a)
{
	static const struct option longopts[] = {
		CMPOPTS_LONGOPTS,
		{ "all", no_argument, NULL, OPT_ALL },
		{ "ci", no_argument, NULL, OPT_CI },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ret = cmpopts_init(&a->sel, "compare", argc);

	if (!ret)
		ret = cmpopts_parse(&a->sel, argc, argv, longopts, own_option, a);
	if (ret)
		return ret;
	if (argc - optind < 2)
		return usage_error("needs at least two commits: perfbot compare BASE OTHER");
	a->given = argv + optind;
	a->nr_commits = argc - optind;
	return cmpopts_finish(&a->sel);
}

/* ---- perf-stat ---- */

/*
 * A time's change reads as a slowdown or a speedup: a stat declared in a
 * unit of time, or undeclared with "time" in its name.
 */
static bool is_time(const struct stat_row *r)
{
	static const char *const units[] = { "s", "ms", "us", "ns", NULL };

	if (!r->unit)
		return strstr(r->name, "time") != NULL;
	for (const char *const *u = units; *u; u++)
		if (!strcmp(r->unit, *u))
			return true;
	return false;
}

static void print_perf_stat(const struct report *rp, const struct report_job *jb,
			    const struct compare_opts *o)
{
	size_t shown = 0;

	for (size_t i = 0; i < jb->nr_rows; i++) {
		const struct stat_row *r = &jb->rows[i];

		if (r->family != FAMILY_KPI)
			continue;
		for (size_t j = 0; j < rp->ncommits; j++) {
			const struct summary *s = j ? &r->vs[j - 1].s : &r->base;

			printf("%-16.16s %14.6g +- %-10.4g ", rp->commits[j].id, s->mean,
			       s->sem);
			quote_fputs(r->name, stdout);
			printf(" ( +- %.2f%% )\n",
			       s->mean ? 100 * s->sem / fabs(s->mean) : 0);
		}
		putchar('\n');
		for (size_t j = 1; j < rp->ncommits; j++) {
			const struct stat_vs *v = &r->vs[j - 1];
			const struct summary *s = &v->s;
			struct ratio_interval ri = ratio_interval(&r->base, s, o->level);
			const char *word;

			if (is_time(r))
				word = ri.ratio > 1 ? "slowdown" : "speedup";
			else
				word = report_better_word(r->better, ri.ratio - 1);
			printf("%.5g / %.5g = %.4f ( %.2f%% ) %s", s->mean, r->base.mean,
			       ri.ratio, 100 * (ri.ratio - 1), word ? word : "change");
			/* the verdict's own interval, never one that contradicts it */
			if (isfinite(v->change.low) && !v->change.absolute)
				printf(", %g%% interval of the change %+.2f%% .. %+.2f%%",
				       100 * o->level, v->change.low, v->change.high);
			printf(" [%s]\n", verdict_name(v->verdict));
		}
		shown++;
	}
	if (!shown)
		printf("no KPI stat to show (the default format shows every stat)\n");
}

/* ---- one job ---- */

static int print_job(const struct compare_args *a, const struct report *r,
		     const struct report_job *jb, const struct compare_opts *o)
{
	int err = 0;

	if (a->format != FORMAT_PERF_STAT)
		err = report_write_job(stdout, r, jb, a->ci, 0);
	else {
		report_write_job_header(stdout, jb, 0);
		if (!report_write_unsupported(stdout, r, jb))
			print_perf_stat(r, jb, o);
		report_write_few_runs(stdout, r, jb);
	}
	if (err || ferror(stdout))
		return failure("cannot write the table: %s", strerror(err ? -err : EIO));
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
	struct compare_opts o;
	int ret = gather_jobs(s, &ga);

	if (ret)
		goto out;
	cmpopts_apply(&a->sel, &o);
	ga.report.opts = &o;
	ga.report.show_all = a->all;
	/* a job at a time, so a long comparison shows what it has */
	for (size_t i = 0; i < ga.njobs && !ret; i++) {
		ret = gather_compare(s, &ga, &ga.jobs[i], &o);
		if (ret || a->json)
			continue;
		if (i)
			putchar('\n');
		ret = print_job(a, &ga.report, &ga.report_jobs[i], &o);
	}
	if (!ret && a->json) {
		int err = report_json(stdout, &ga.report);

		if (err)
			ret = failure("cannot write the JSON result: %s", strerror(-err));
	}
out:
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

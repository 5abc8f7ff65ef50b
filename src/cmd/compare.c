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
#include "cmd/measure.h"
#include "report/report.h"
#include "report/tabular.h"
#include "record/record.h"
#include "stats/compare.h"
#include "stats/ttest.h"
#include "store/store.h"
#include "util/bug.h"
#include "util/parse.h"
#include "util/interrupt.h"
#include "util/quote.h"
#include "run/runner.h"
#include "job/job.h"
#include "vcs/git.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <unistd.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define usage_error(...) cmd_usage_error("compare", __VA_ARGS__)

/*
 * printf() arguments, in order: the thresholds (stats/compare.h), so that
 * the help cannot say other numbers than the code uses.
 */
static const char compare_usage[] =
	"usage: perfbot compare [--db PATH] [-s KEY=VALUE ...] [--testbox HOST] [--repo DIR]\n"
	"                       [--all] [--ci] [--json] [--min-change [PATTERN=]PCT ...]\n"
	"                       [--alpha A] [--stat PATTERN ...] [--color WHEN]\n"
	"                       [--format text|perf-stat|csv|markdown] BASE OTHER [OTHER ...]\n"
	"   or: perfbot compare --measure --repo DIR [--tip BRANCH ...] [--runs N]\n"
	"                       [--max-runs N] [options above] JOB.yaml BASE [OTHER ...]\n"
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
	"      --stat PATTERN    only the stats matching the glob PATTERN\n"
	"                        (repeatable: any of them) are shown\n"
	"      --format FMT      text (LKP's table, default), perf-stat (each\n"
	"                        KPI as perf stat -r prints it, and the ratios),\n"
	"                        csv or markdown (the table's rows, one table)\n"
	CMD_COLOR_USAGE
	"      --tip BRANCH      add BRANCH's head in --repo as a column\n"
	"                        (repeatable): is it still there at the tip?\n"
	"\n"
	"With --measure, the commits are built and JOB.yaml's atomic jobs run on\n"
	"them here, into the store, until every KPI of every commit against BASE\n"
	"is decided (same; changed on interleaved runs; small, new or gone) or each\n"
	"commit has --max-runs runs: the commits' runs alternate (A B A B ...), %6$d\n"
	"a commit first, twice as many each round while undecided.  What the store\n"
	"has counts; interrupted and run again, it goes on where it stopped.\n"
	"      --measure         make the runs the verdicts lack (needs --repo)\n"
	"      --runs N          the first round's runs a commit (default %6$d)\n"
	"      --max-runs N      the most runs a commit gets (default %7$d)\n"
	"      --on TESTBOX      the runs made by that box's worker (or any box of\n"
	"                        that class), not here: each queued and waited for\n"
	"                        in turn (a PostgreSQL store: docs/fleet.md)\n"
	"  -h, --help            show this help\n"
	"\n"
	"Exit status: 0 compared, 1 no atomic job has complete runs on all the\n"
	"commits, a commit cannot be measured (--measure) or the database cannot\n"
	"be read, 2 bad usage or unknown commit, 128+N interrupted by signal N.\n";

enum format { FORMAT_TEXT, FORMAT_PERF_STAT, FORMAT_TABULAR };

struct compare_args {
	struct cmpopts sel;	/* -s, --testbox, --repo, --min-change, --alpha */
	bool all, ci, json;
	enum format format;
	enum tabular_format tabular;	/* FORMAT_TABULAR's */
	const char *format_name;
	bool measure;
	unsigned long first_runs, max_runs;	/* --measure */
	const char *job_path;	/* --measure */
	const char *on;		/* --measure --on TESTBOX: the fleet's box */
	char **tips;		/* --tip BRANCH, into argv */
	size_t nr_tips;
	char **given;		/* the commits as given: argv's, then the tips */
	char **given_alloc;	/* given's array, to free */
	size_t nr_commits;
	/* --measure: the jobs measured (NULL-terminated), the commits' names and subjects */
	const char *const *only_jobs;
	const char *const *labels;
	const struct git_commit *info;
	const bool *is_tip;
	const double *since;	/* [only_jobs]: each job's window */
};

#define failure(...) cmd_failure("compare", __VA_ARGS__)

enum { OPT_ALL = 256, OPT_CI, OPT_JSON, OPT_FORMAT, OPT_MEASURE, OPT_TIP, OPT_RUNS,
       OPT_MAX_RUNS, OPT_ON };

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
		else if (tabular_format_parse(arg, &a->tabular))
			a->format = FORMAT_TABULAR;
		else
			return usage_error("invalid --format '%s': expected text, perf-stat, csv"
					   " or markdown", arg);
		a->format_name = arg;
		return 0;
	case OPT_MEASURE:
		a->measure = true;
		return 0;
	case OPT_TIP:
		if (!*arg || *arg == '-')
			return usage_error("invalid --tip '%s': expected a branch", arg);
		a->tips[a->nr_tips++] = (char *)arg;
		return 0;
	case OPT_RUNS:
		if (parse_ulong(arg, COMPARE_MIN_RUNS, 1000, &a->first_runs) != PARSE_OK)
			return usage_error("invalid --runs '%s': expected a number of runs from %d to 1000",
					   arg, COMPARE_MIN_RUNS);
		return 0;
	case OPT_MAX_RUNS:
		if (parse_ulong(arg, COMPARE_MIN_RUNS, 100000, &a->max_runs) != PARSE_OK)
			return usage_error("invalid --max-runs '%s': expected a number of runs from %d to 100000",
					   arg, COMPARE_MIN_RUNS);
		return 0;
	case OPT_ON:
		if (!*arg)
			return usage_error("--on needs a test box's or a class's name (perfbot"
					   " queue boxes)");
		a->on = arg;
		return 0;
	case 'h':
		printf(compare_usage, COMPARE_KPI_MIN_PCT, COMPARE_OTHER_MIN_PCT,
		       COMPARE_MIN_RUNS, 100 * COMPARE_LEVEL, COMPARE_ALPHA,
		       MEASURE_FIRST_RUNS, MEASURE_MAX_RUNS);
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
		{ "measure", no_argument, NULL, OPT_MEASURE },
		{ "tip", required_argument, NULL, OPT_TIP },
		{ "runs", required_argument, NULL, OPT_RUNS },
		{ "max-runs", required_argument, NULL, OPT_MAX_RUNS },
		{ "on", required_argument, NULL, OPT_ON },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ret = cmpopts_init(&a->sel, "compare", argc);
	size_t n;

	a->first_runs = MEASURE_FIRST_RUNS;
	a->max_runs = MEASURE_MAX_RUNS;
	/* at most one --tip per argument: room for them all */
	a->tips = calloc(argc ? argc : 1, sizeof(*a->tips));
	if (!ret && !a->tips)
		ret = failure("out of memory");
	if (!ret)
		ret = cmpopts_parse(&a->sel, argc, argv, longopts, own_option, a);
	if (ret)
		return ret;
	if (a->json && a->format != FORMAT_TEXT)
		return usage_error("--json and --format %s do not go together", a->format_name);
	if (a->nr_tips && !a->sel.repo)
		return usage_error("--tip %s needs --repo DIR: the repository whose branch it is",
				   a->tips[0]);
	if (!a->measure && (a->first_runs != MEASURE_FIRST_RUNS ||
			    a->max_runs != MEASURE_MAX_RUNS))
		return usage_error("--runs and --max-runs go with --measure");
	if (!a->measure && a->on)
		return usage_error("--on goes with --measure: where the runs are made");
	if (a->measure) {
		if (!a->sel.repo)
			return usage_error("--measure needs --repo DIR: the repository whose commits to build");
		if (optind >= argc)
			return usage_error("--measure needs a job file: perfbot compare --measure"
					   " --repo DIR JOB.yaml BASE OTHER");
		a->job_path = argv[optind++];
		if (a->first_runs > a->max_runs)
			return usage_error("--runs %lu is more than --max-runs %lu", a->first_runs,
					   a->max_runs);
	}
	n = argc - optind;
	if (n + a->nr_tips < 2 || !n)
		return usage_error("needs at least two commits: perfbot compare %sBASE OTHER",
				   a->measure ? "--measure --repo DIR JOB.yaml " : "");
	/* the commits, then the tips: one array, argv's entries first */
	a->given = a->given_alloc = calloc(n + a->nr_tips, sizeof(*a->given));
	if (!a->given)
		return failure("out of memory");
	memcpy(a->given, argv + optind, n * sizeof(*a->given));
	memcpy(a->given + n, a->tips, a->nr_tips * sizeof(*a->given));
	a->nr_commits = n + a->nr_tips;
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
			    const struct compare_opts *o, bool colour)
{
	size_t shown = 0;

	for (size_t i = 0; i < jb->nr_rows; i++) {
		const struct stat_row *r = &jb->rows[i];

		if (r->family != FAMILY_KPI || !report_stat_listed(rp, r->name))
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
			enum colour c = report_verdict_colour(r->better, v);

			printf("%.5g / %.5g = %.4f ( %.2f%% ) ", s->mean, r->base.mean,
			       ri.ratio, 100 * (ri.ratio - 1));
			colour_fputs(stdout, colour, c, word ? word : "change");
			/* the verdict's own interval, never one that contradicts it */
			if (isfinite(v->change.low) && !v->change.absolute)
				printf(", %g%% interval of the change %+.2f%% .. %+.2f%%",
				       100 * o->level, v->change.low, v->change.high);
			fputs(" [", stdout);
			colour_fputs(stdout, colour, c, verdict_name(v->verdict));
			fputs("]\n", stdout);
		}
		shown++;
	}
	if (!shown)
		printf("no KPI stat to show (the default format shows every stat)\n");
}

/*
 * LKP's list of the commits above the table, with their subjects: which
 * column is what (--measure knows them from the repository).
 */
static void print_commits(const struct compare_args *a, const struct gather *ga)
{
	printf("commit:\n");
	for (size_t j = 0; j < ga->nr_commits; j++) {
		printf("  %.10s", ga->commits[j]);
		if (a->info[j].subject) {
			fputs(" (\"", stdout);
			quote_line_fputs(a->info[j].subject, stdout);
			fputs("\")", stdout);
		}
		if (a->is_tip[j]) {
			fputs("  the tip of ", stdout);
			quote_line_fputs(a->labels[j], stdout);
		}
		putchar('\n');
	}
	putchar('\n');
}

/* ---- one job ---- */

static int print_job(const struct compare_args *a, const struct report *r,
		     const struct report_job *jb, const struct compare_opts *o)
{
	int err = 0;

	if (jb->since > 0) {
		char when[64];

		cmd_format_utc(when, sizeof(when), jb->since);
		printf("%s: the runs since %s, which alternate between the commits (earlier"
		       " ones were taken apart and are left out)\n", jb->job, when);
	}
	if (a->format != FORMAT_PERF_STAT)
		err = report_write_job(stdout, r, jb, a->ci, 0);
	else {
		report_write_job_header(stdout, jb, 0);
		if (!report_write_unsupported(stdout, r, jb))
			print_perf_stat(r, jb, o, r->colour);
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
		.sets = a->sel.sets, .only_jobs = a->only_jobs, .since = a->since,
		.nr_sets = a->sel.nr_sets, .given = a->given, .nr_commits = a->nr_commits,
	};
	struct compare_opts o;
	int ret = gather_jobs(s, &ga);

	if (ret)
		goto out;
	for (size_t j = 0; a->labels && j < ga.nr_commits; j++) {
		ga.report_commits[j].given = a->labels[j];
		ga.report_commits[j].subject = a->info[j].subject;
		ga.report_commits[j].author = a->info[j].author;
		ga.report_commits[j].date = a->info[j].date;
	}
	cmpopts_apply(&a->sel, &o);
	ga.report.opts = &o;
	ga.report.show_all = a->all;
	cmpopts_apply_stats(&a->sel, &ga.report);
	/* the terminal's text only: never JSON, CSV or Markdown */
	ga.report.colour = !a->json && a->format != FORMAT_TABULAR &&
			   colour_for(a->sel.colour, stdout);
	if (a->labels && !a->json && a->format == FORMAT_TEXT)
		print_commits(a, &ga);
	/* a job at a time, so a long comparison shows what it has */
	for (size_t i = 0; i < ga.njobs && !ret; i++) {
		ret = gather_compare(s, &ga, &ga.jobs[i], &o);
		if (ret || a->json || a->format == FORMAT_TABULAR)
			continue;
		if (i)
			putchar('\n');
		ret = print_job(a, &ga.report, &ga.report_jobs[i], &o);
	}
	if (!ret)
		cmpopts_warn_no_stat(&a->sel, &ga.report);
	if (!ret && a->json) {
		int err = report_json(stdout, &ga.report);

		if (err)
			ret = failure("cannot write the JSON result: %s", strerror(-err));
	}
	if (!ret && a->format == FORMAT_TABULAR) {
		int err = report_tabular(stdout, &ga.report, a->tabular, a->ci);

		if (err)
			ret = failure("cannot write the table: %s", strerror(-err));
	}
out:
	gather_release(&ga);
	return ret;
}

/* ---- --measure ---- */

/* The jobs of a->job_path, checked; exit status or 0. */
static int load_jobs(const struct compare_args *a, struct atomic_job **jobs, size_t *nr)
{
	struct job_error jerr = { 0 };
	bool depends = false;

	if (job_load(a->job_path, a->sel.sets, a->sel.nr_sets, jobs, nr, &jerr)) {
		cmd_print_job_error(&jerr);
		job_error_release(&jerr);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < *nr; i++) {
		if (runner_check_job(&(*jobs)[i], &jerr)) {
			cmd_print_job_error(&jerr);
			job_error_release(&jerr);
			return EXIT_USAGE;
		}
		depends |= (*jobs)[i].build || (*jobs)[i].exec.argv || (*jobs)[i].kernel.present;
	}
	if (!depends)
		return usage_error("%s: nothing in the job depends on the commit: --measure needs"
				   " a job with build:, exec: or kernel:", a->job_path);
	return 0;
}

/*
 * The commits in the repository, full; a tip that is one of the commits
 * already (or another tip) is not a column twice.  Exit status or 0.
 */
static int resolve_measured(struct compare_args *a, const char *repo,
			    const struct atomic_job *jobs, size_t nr_jobs, char **shas,
			    const char **labels, struct git_commit *info, bool *is_tip,
			    size_t *n)
{
	size_t given = a->nr_commits - a->nr_tips;

	*n = 0;
	for (size_t j = 0; j < a->nr_commits; j++) {
		struct strbuf err = STRBUF_INIT;
		char *sha = NULL;
		size_t dup = *n;
		int ret = git_resolve(repo, a->given[j], &sha, &err);

		if (!ret) {
			ret = cmd_kernel_jobs_fit(repo, a->given[j], sha, jobs, nr_jobs, false, &err);
			if (ret == -EINVAL) {
				usage_error("%s", err.buf);
				strbuf_release(&err);
				free(sha);
				return EXIT_USAGE;
			}
			if (ret)
				ret = -EIO;
		}
		if (ret) {
			ret = ret == -ENOENT || ret == -EINVAL ?
				usage_error("unknown commit '%s' in %s: %s", a->given[j], repo, err.buf) :
				failure("%s: %s", a->given[j], err.buf);
			strbuf_release(&err);
			free(sha);
			return ret;
		}
		strbuf_release(&err);
		for (size_t k = 0; k < *n; k++)
			if (!strcmp(shas[k], sha))
				dup = k;
		if (dup < *n && j < given) {
			free(sha);
			return usage_error("'%s' and '%s' are the same commit %.12s", labels[dup],
					   a->given[j], shas[dup]);
		}
		if (dup < *n) {
			fprintf(stderr, "perfbot: compare: --tip %s is %s (%.12s): one column\n",
				a->given[j], labels[dup], shas[dup]);
			free(sha);
			continue;
		}
		shas[*n] = sha;
		labels[*n] = a->given[j];
		is_tip[*n] = j >= given;
		git_commit_info(repo, sha, &info[*n]);	/* a subject is a nicety */
		++*n;
	}
	if (*n < 2)
		return usage_error("needs at least two different commits");
	return 0;
}

static int measure_then_compare(struct compare_args *a)
{
	struct atomic_job *jobs = NULL;
	size_t nr = 0, n = 0;
	char **shas = calloc(a->nr_commits, sizeof(*shas));
	const char **labels = calloc(a->nr_commits, sizeof(*labels));
	const char **names = NULL;
	double *since = NULL;
	struct git_commit *info = calloc(a->nr_commits, sizeof(*info));
	bool *is_tip = calloc(a->nr_commits, sizeof(*is_tip));
	char repo[PATH_MAX], host[256];
	struct commit_runner_fleet fleet = { .testbox = a->on };
	struct compare_opts o;
	struct measure_tally tally;
	struct store *s = NULL;
	int ret = 0, measured;

	if (!shas || !labels || !info || !is_tip)
		ret = failure("out of memory");
	else if (!realpath(a->sel.repo, repo))
		ret = usage_error("--repo '%s': %s", a->sel.repo, strerror(errno));
	if (!ret)
		ret = load_jobs(a, &jobs, &nr);
	if (!ret)
		ret = resolve_measured(a, repo, jobs, nr, shas, labels, info, is_tip, &n);
	if (!ret && (!(names = calloc(nr + 1, sizeof(*names))) ||
		     !(since = calloc(nr + 1, sizeof(*since)))))
		ret = failure("out of memory");
	if (ret)
		goto out;
	for (size_t i = 0; i < nr; i++)
		names[i] = jobs[i].name;
	if (gethostname(host, sizeof(host)))
		snprintf(host, sizeof(host), "unknown");
	host[sizeof(host) - 1] = '\0';
	/* on the fleet, the runs are the box's, and only its runs are compared */
	if (a->on)
		snprintf(host, sizeof(host), "%s", a->on);
	if (a->sel.testbox && strcmp(a->sel.testbox, host)) {
		ret = usage_error("--testbox %s with --measure: the runs are made %s %s",
				  a->sel.testbox, a->on ? "by" : "here, on", host);
		goto out;
	}
	for (size_t j = 0; a->on && j < nr; j++)
		if (jobs[j].kernel.present && jobs[j].kernel.boot == JOB_BOOT_KEXEC) {
			ret = usage_error("%s: boot: kexec reboots the box it runs on: not with"
					  " --on (compare there)", jobs[j].name);
			goto out;
		}
	ret = cmd_lifetime_start("compare");
	if (ret)
		goto out;
	if (git_worktree_prune_own(repo) < 0)
		fprintf(stderr, "perfbot: compare: warning: cannot look for perfbot's stale worktrees in %s\n",
			repo);
	ret = cmd_store_open("compare", STORE_WRITE, &s);
	if (ret)
		goto out;
	fleet.s = s;
	if (a->on) {
		struct strbuf why = STRBUF_INIT;
		char *selector = NULL;
		int err;

		/* refused before anything runs: a SQLite store, a box or class unknown */
		err = commit_runner_fleet_resolve(&fleet, &selector, &why);
		if (err)
			ret = err == -ESRCH ? usage_error("%s", why.buf) : failure("%s", why.buf);
		else	/* a class's runs are compared as one population (docs/fleet.md) */
			snprintf(host, sizeof(host), "%s", selector);
		/* and only the runs of the box (or class) are compared, not others' */
		a->sel.testbox = host;
		free(selector);
		strbuf_release(&why);
		if (ret)
			goto out;
	}
	interrupt_install();
	cmpopts_apply(&a->sel, &o);
	measured = measure_commits(s, jobs, nr, &(struct measure_spec){
		.repo = repo, .testbox = host, .shas = shas, .labels = labels, .nr_commits = n,
		.first_runs = (unsigned)a->first_runs, .max_runs = (unsigned)a->max_runs,
		.opts = &o, .fleet = a->on ? &fleet : NULL,
	}, since, &tally);
	if (!tally.runs && !tally.builds)
		fprintf(stderr, "perfbot: compare: nothing measured");
	else
		fprintf(stderr, "perfbot: compare: measured %zu runs", tally.runs);
	if (tally.failed_runs)
		fprintf(stderr, " (%zu failed)", tally.failed_runs);
	if (*tally.boxes)
		fprintf(stderr, " on %s (by %s)", host, tally.boxes);
	if (tally.runs || tally.builds)
		fprintf(stderr, ", %zu builds", tally.builds);
	if (tally.reused)
		fprintf(stderr, ", %zu from the build cache", tally.reused);
	if (tally.build_failures)
		fprintf(stderr, " (%zu failed)", tally.build_failures);
	fputc('\n', stderr);
	if (measured > 128 || interrupted) {
		fprintf(stderr, "perfbot: compare: interrupted; the runs made are stored: the same"
			" command goes on from here\n");
		ret = measured > 128 ? measured : 128 + interrupted;
		goto out;
	}
	if (measured && measured != EXIT_FAILED) {
		ret = measured;
		goto out;
	}
	a->given = shas;
	a->nr_commits = n;
	a->only_jobs = names;
	a->labels = labels;
	a->info = info;
	a->is_tip = is_tip;
	a->since = since;
	ret = run_compare(s, a);
	if (!ret)
		ret = measured;
out:
	store_close(s);
	atomic_jobs_release(jobs, nr);
	for (size_t j = 0; j < n; j++) {
		free(shas[j]);
		git_commit_release(&info[j]);
	}
	free(shas);
	free(labels);
	free(info);
	free(is_tip);
	free(names);
	free(since);
	return ret;
}

int cmd_compare(int argc, char **argv)
{
	struct compare_args a = { 0 };
	struct store *s = NULL;
	int ret = parse_args(argc, argv, &a);

	if (ret)
		ret = ret < 0 ? EXIT_OK : ret;
	else if (a.measure)
		ret = measure_then_compare(&a);
	else if (!(ret = cmpopts_open_store(&a.sel, &s)))
		ret = run_compare(s, &a);
	store_close(s);
	cmpopts_release(&a.sel);
	free(a.tips);
	free(a.given_alloc);
	return ret;
}

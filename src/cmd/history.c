/*
 * history.c - perfbot history JOB (docs/history.md): one metric over a
 * branch's history as the robot tested it.  The points are the heads
 * `perfbot watch` tested on the branch, in order (store.h, "The robot");
 * each holds every complete run of (testbox, JOB, the point's commit);
 * the change points of that series come from stats/changepoint.h (the
 * detector the robot's analysis uses, with its defaults); the alerts are
 * the robot's on the same (tree, branch, testbox, job, metric).  This
 * file reads the store, runs the detector and fills report/history.h's
 * struct; the report module writes it.
 *
 * Defaults: the job's KPI (run_record_kpi() of its newest run at the
 * points), the only tree/branch with points, the only testbox with runs
 * of the job at them; where there are several, a usage error lists them.
 */
#define _GNU_SOURCE
#include "cmd/cmds.h"
#include "cmd/cmdutil.h"
#include "cmd/series.h"
#include "report/history.h"
#include "report/tabular.h"
#include "stats/changepoint.h"
#include "store/store.h"
#include "util/parse.h"
#include "util/quote.h"
#include "util/strbuf.h"
#include "util/vec.h"
#include "vcs/git.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define WHO "history"
#define usage_error(...) cmd_usage_error(WHO, __VA_ARGS__)
#define failure(...) cmd_failure(WHO, __VA_ARGS__)

/* at most this many choices named in a usage error, then "..." */
#define MAX_LISTED 20

static const char history_usage[] =
	"usage: perfbot history JOB [--metric M] [--branch B] [--tree T] [--testbox T]\n"
	"                       [--format text|html|json|csv|markdown] [--repo DIR] [--db PATH]\n"
	"                       [--color WHEN]\n"
	"\n"
	"A metric over a branch's history as perfbot watch tested it: each head\n"
	"the robot tested on the branch, in order, with every run's value of the\n"
	"metric, the change points of that series (stats/changepoint: p, %change,\n"
	"tentative) and the robot's alerts on it with their state (docs/history.md).\n"
	"\n"
	"  JOB                   the atomic job, as stored (a unique prefix will do)\n"
	"      --metric M        the stat (default: the job's KPI)\n"
	"      --branch B        the branch (default: the only one with points)\n"
	"      --tree T          the tree of the registry (default: the only one)\n"
	"      --testbox T       the machine (default: the only one with runs)\n"
	"      --format F        text (default), html (one self-contained page with\n"
	"                        an SVG plot), json (\"schema\": \"perfbot-history\"),\n"
	"                        csv or markdown (a row per point)\n"
	"      --repo DIR        the repository: the commits' subjects are shown\n"
	CMD_COLOR_USAGE
	CMD_DB_USAGE
	"  -h, --help            show this help\n"
	"\n"
	"Exit status: 0, 1 the store could not be read or the output written,\n"
	"2 bad usage (also a job, branch, testbox or metric the store does not\n"
	"hold, or a branch the robot never tested).\n";

enum format { FORMAT_TEXT, FORMAT_HTML, FORMAT_JSON, FORMAT_TABULAR };

struct opts {
	const char *job, *metric, *branch, *tree, *testbox, *repo;
	enum format format;
	enum tabular_format tabular;	/* FORMAT_TABULAR's */
	enum colour_when colour;	/* --color: the text's change points */
};

/* Distinct strings, in the order first seen (borrowed). */
struct names {
	const char **v;
	size_t n, cap;
};

static int names_add(struct names *ns, const char *s)
{
	for (size_t i = 0; i < ns->n; i++)
		if (!strcmp(ns->v[i], s))
			return 0;
	return vec_push(ns, s);
}

/* "a, b, c" quoted for a message, at most MAX_LISTED of them. */
static char *names_list(const char *const *v, size_t n)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < n && i < MAX_LISTED; i++) {
		char *q = quote_c(v[i], false);

		strbuf_addf(&sb, "%s%s", i ? ", " : "", q ? q : "?");
		free(q);
	}
	if (n > MAX_LISTED)
		strbuf_addf(&sb, ", ... (%zu in all)", n);
	if (strbuf_error(&sb)) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "metric", required_argument, NULL, 'm' },
		{ "branch", required_argument, NULL, 'b' },
		{ "tree", required_argument, NULL, 't' },
		{ "testbox", required_argument, NULL, 'x' },
		{ "format", required_argument, NULL, 'f' },
		{ "repo", required_argument, NULL, 'r' },
		{ "color", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'm':
		case 'b':
		case 't':
		case 'x':
		case 'r':
			if (!*optarg)
				return usage_error("%s needs a value", argv[optind - 1]);
			*(c == 'm' ? &o->metric : c == 'b' ? &o->branch : c == 't' ? &o->tree :
			  c == 'x' ? &o->testbox : &o->repo) = optarg;
			break;
		case 'f':
			if (!strcmp(optarg, "text"))
				o->format = FORMAT_TEXT;
			else if (!strcmp(optarg, "html"))
				o->format = FORMAT_HTML;
			else if (!strcmp(optarg, "json"))
				o->format = FORMAT_JSON;
			else if (tabular_format_parse(optarg, &o->tabular))
				o->format = FORMAT_TABULAR;
			else
				return usage_error("unknown format '%s' (text, html, json, csv or"
						   " markdown)", optarg);
			break;
		case 'C':
			if (cmd_colour_option(WHO, optarg, &o->colour))
				return EXIT_USAGE;
			break;
		case 'h':
			fputs(history_usage, stdout);
			return -1;
		case ':':
			return usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			return usage_error("unknown option '%s' (see perfbot history --help)",
					   argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return usage_error("needs a job: perfbot history JOB (--help)");
	if (optind != argc - 1)
		return usage_error("one job, not %d arguments ('%s' too)", argc - optind,
				   argv[optind + 1]);
	o->job = argv[optind];
	if (!*o->job)
		return usage_error("the job name is empty");
	if (o->repo) {
		struct stat st;

		if (stat(o->repo, &st) || !S_ISDIR(st.st_mode))
			return usage_error("--repo '%s' is not a directory", o->repo);
	}
	return 0;
}

/* ---- what the store holds ---- */

struct ctx {
	struct store *s;
	struct opts o;
	const char *tree, *branch, *job, *testbox;	/* resolved; borrowed */
	char *metric;
	struct store_branch *br;
	size_t nbr;
	struct store_point *pts;
	size_t npts;
	struct store_group *groups;	/* every group of the store */
	size_t ngroups;
	struct store_samples *samples;	/* [npts] */
	struct store_alert *alerts;
	size_t nalerts;
};

static void ctx_release(struct ctx *c)
{
	if (c->samples)
		for (size_t i = 0; i < c->npts; i++)
			store_samples_release(&c->samples[i]);
	free(c->samples);
	store_points_release(c->pts, c->npts);
	store_branches_release(c->br, c->nbr);
	store_groups_release(c->groups, c->ngroups);
	store_alerts_release(c->alerts, c->nalerts);
	free(c->metric);
}

static int store_failed(struct ctx *c)
{
	return failure("%s", store_error(c->s));
}

/* The (tree, branch): given, or the only one with points. */
static int pick_branch(struct ctx *c)
{
	struct names all = { 0 };
	const struct store_branch *pick = NULL;
	size_t matches = 0;
	char *list;
	int ret;

	if (store_branches(c->s, &c->br, &c->nbr))
		return store_failed(c);
	for (size_t i = 0; i < c->nbr; i++) {
		const struct store_branch *b = &c->br[i];

		if ((c->o.tree && strcmp(b->tree, c->o.tree)) ||
		    (c->o.branch && strcmp(b->branch, c->o.branch)))
			continue;
		pick = b;
		matches++;
	}
	if (matches == 1) {
		c->tree = pick->tree;
		c->branch = pick->branch;
		return 0;
	}
	/* the choices, as TREE/BRANCH */
	for (size_t i = 0; i < c->nbr; i++) {
		char *tb = NULL;

		if (asprintf(&tb, "%s/%s", c->br[i].tree, c->br[i].branch) < 0 ||
		    vec_push(&all, tb)) {
			free(tb);
			for (size_t k = 0; k < all.n; k++)
				free((char *)all.v[k]);
			vec_free(&all);
			return failure("out of memory");
		}
	}
	list = names_list(all.v, all.n);
	if (!c->nbr)
		ret = usage_error("no points: the robot never tested a branch (perfbot watch "
				  "writes them) in this database");
	else if (!matches && c->o.branch)
		ret = usage_error("no points: the robot never tested branch '%s'%s%s (branches "
				  "with points: %s)", c->o.branch, c->o.tree ? " of tree " : "",
				  c->o.tree ? c->o.tree : "", list ? list : "?");
	else if (!matches)
		ret = usage_error("no points: the robot never tested a branch of tree '%s' "
				  "(branches with points: %s)", c->o.tree, list ? list : "?");
	else
		ret = usage_error("%zu branches have points: choose one with --branch%s (%s)",
				  matches, c->o.tree ? "" : " and --tree", list ? list : "?");
	free(list);
	for (size_t k = 0; k < all.n; k++)
		free((char *)all.v[k]);
	vec_free(&all);
	return ret;
}

static bool is_point(const struct ctx *c, const char *sha)
{
	for (size_t i = 0; i < c->npts; i++)
		if (!strcmp(c->pts[i].sha, sha))
			return true;
	return false;
}

/* JOB: as stored, else a unique prefix of a stored job's name. */
static int pick_job(struct ctx *c)
{
	struct store_filter none = { 0 };
	struct names jobs = { 0 }, prefixed = { 0 };
	struct suggest sg;
	int ret = 0;

	if (store_list_groups(c->s, &none, &c->groups, &c->ngroups))
		return store_failed(c);
	for (size_t i = 0; i < c->ngroups && !ret; i++)
		if (names_add(&jobs, c->groups[i].job))
			ret = failure("out of memory");
	for (size_t i = 0; i < jobs.n && !ret; i++) {
		if (!strcmp(jobs.v[i], c->o.job)) {
			c->job = jobs.v[i];
			break;
		}
		if (!strncmp(jobs.v[i], c->o.job, strlen(c->o.job)) &&
		    vec_push(&prefixed, jobs.v[i]))
			ret = failure("out of memory");
	}
	if (ret || c->job)
		goto out;
	if (prefixed.n == 1) {
		c->job = prefixed.v[0];
		goto out;
	}
	if (prefixed.n > 1) {
		char *list = names_list(prefixed.v, prefixed.n);

		ret = usage_error("job '%s' is ambiguous: %s", c->o.job, list ? list : "?");
		free(list);
		goto out;
	}
	suggest_init(&sg, c->o.job);
	for (size_t i = 0; i < jobs.n; i++)
		suggest_add(&sg, jobs.v[i]);
	if (suggest_result(&sg))
		ret = usage_error("unknown job '%s': no run of it in the store; did you mean "
				  "'%s'?", c->o.job, suggest_result(&sg));
	else
		ret = usage_error("unknown job '%s': no run of it in the store (perfbot "
				  "results lists them)", c->o.job);
out:
	vec_free(&jobs);
	vec_free(&prefixed);
	return ret;
}

/* The testbox: given, or the only one with runs of the job at the points. */
static int pick_testbox(struct ctx *c)
{
	struct names boxes = { 0 }, anywhere = { 0 };
	char *list = NULL;
	int ret = 0;

	for (size_t i = 0; i < c->ngroups && !ret; i++) {
		const struct store_group *g = &c->groups[i];

		if (strcmp(g->job, c->job))
			continue;
		if (names_add(&anywhere, g->testbox) ||
		    (is_point(c, g->commit) && names_add(&boxes, g->testbox)))
			ret = failure("out of memory");
	}
	if (ret)
		goto out;
	if (c->o.testbox) {
		for (size_t i = 0; i < boxes.n; i++)
			if (!strcmp(boxes.v[i], c->o.testbox))
				c->testbox = boxes.v[i];
		if (c->testbox)
			goto out;
		list = names_list(boxes.n ? boxes.v : anywhere.v, boxes.n ? boxes.n : anywhere.n);
		ret = usage_error("no run of %s on testbox '%s' at the points of %s/%s (%s: %s)",
				  c->job, c->o.testbox, c->tree, c->branch,
				  boxes.n ? "testboxes with runs there" : "testboxes with runs of it",
				  list ? list : "?");
	} else if (boxes.n == 1) {
		c->testbox = boxes.v[0];
	} else if (!boxes.n) {
		ret = usage_error("no run of %s at the points of %s/%s: the robot did not run it "
				  "on that branch", c->job, c->tree, c->branch);
	} else {
		list = names_list(boxes.v, boxes.n);
		ret = usage_error("%s ran on %zu testboxes at the points of %s/%s: choose one "
				  "with --testbox (%s)", c->job, boxes.n, c->tree, c->branch,
				  list ? list : "?");
	}
out:
	free(list);
	vec_free(&boxes);
	vec_free(&anywhere);
	return ret;
}

/* The metric: given (and held by a run), or the KPI of the newest run. */
static int pick_metric(struct ctx *c)
{
	const struct store_group *newest = NULL;
	struct run_record run = { 0 };
	struct suggest sg;
	const char *kpi;

	if (c->o.metric) {
		for (size_t i = 0; i < c->npts; i++)
			if (series_stat_index(&c->samples[i], c->o.metric) >= 0) {
				c->metric = strdup(c->o.metric);
				return c->metric ? 0 : failure("out of memory");
			}
		suggest_init(&sg, c->o.metric);
		for (size_t i = 0; i < c->npts; i++)
			for (size_t k = 0; k < c->samples[i].nr; k++)
				suggest_add(&sg, c->samples[i].names[k]);
		if (suggest_result(&sg))
			return usage_error("no stat '%s' in the runs of %s at the points of %s/%s; "
					   "did you mean '%s'?", c->o.metric, c->job, c->tree,
					   c->branch, suggest_result(&sg));
		return usage_error("no stat '%s' in the runs of %s at the points of %s/%s",
				   c->o.metric, c->job, c->tree, c->branch);
	}
	for (size_t i = 0; i < c->ngroups; i++) {
		const struct store_group *g = &c->groups[i];

		if (strcmp(g->job, c->job) || strcmp(g->testbox, c->testbox) ||
		    !is_point(c, g->commit) || !g->runs_complete)
			continue;
		if (!newest || g->last_run_id > newest->last_run_id)
			newest = g;
	}
	if (!newest)
		return usage_error("no complete run of %s on %s at the points of %s/%s: no metric "
				   "to show", c->job, c->testbox, c->tree, c->branch);
	if (store_get_run(c->s, newest->last_run_id, &run))
		return store_failed(c);
	kpi = run_record_kpi(&run);
	c->metric = kpi ? strdup(kpi) : NULL;
	run_record_release(&run);
	if (!kpi)
		return usage_error("%s declares no KPI: choose a stat with --metric", c->job);
	return c->metric ? 0 : failure("out of memory");
}

static int write_out(const struct opts *o, const struct history *hist)
{
	struct history coloured = *hist;
	const struct history *h = &coloured;
	const char *why = NULL;
	int ret;

	coloured.colour = o->format == FORMAT_TEXT && colour_for(o->colour, stdout);
	if (report_history_check(h, &why))
		return failure("the history does not hold together: %s", why);
	ret = o->format == FORMAT_HTML ? report_history_html(stdout, h) :
	      o->format == FORMAT_JSON ? report_history_json(stdout, h) :
	      o->format == FORMAT_TABULAR ? report_history_tabular(stdout, h, o->tabular) :
					 report_history_text(stdout, h);
	if (ret == -ENOMEM)
		return failure("out of memory");
	if (ret)
		return failure("cannot write the history: %s", strerror(-ret));
	return EXIT_OK;
}

/* With --repo, each point's subject (git, read only); NULL where unknown. */
static int subjects(struct ctx *c, struct git_commit **commits, const char ***subj)
{
	*commits = calloc(c->npts, sizeof(**commits));
	*subj = calloc(c->npts, sizeof(**subj));
	if (!*commits || !*subj)
		return failure("out of memory");
	for (size_t i = 0; i < c->npts; i++)
		if (!git_commit_info(c->o.repo, c->pts[i].sha, &(*commits)[i]))
			(*subj)[i] = (*commits)[i].subject;
	return 0;
}

int cmd_history(int argc, char **argv)
{
	struct ctx c = { 0 };
	struct series se = { 0 };
	struct git_commit *commits = NULL;
	const char **subj = NULL;
	struct strbuf err = STRBUF_INIT;
	int ret = parse_args(argc, argv, &c.o);

	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	ret = cmd_store_open(WHO, STORE_READ, &c.s);
	if (ret)
		return ret;
	ret = pick_branch(&c);
	if (!ret && store_points(c.s, c.tree, c.branch, &c.pts, &c.npts))
		ret = store_failed(&c);
	if (!ret && !c.npts)
		ret = usage_error("no points: the robot never tested %s/%s", c.tree, c.branch);
	if (!ret)
		ret = pick_job(&c);
	if (!ret)
		ret = pick_testbox(&c);
	if (!ret && !(c.samples = calloc(c.npts, sizeof(*c.samples))))
		ret = failure("out of memory");
	for (size_t i = 0; !ret && i < c.npts; i++)
		if (store_load_samples(c.s, c.testbox, c.job, c.pts[i].sha, &c.samples[i]))
			ret = store_failed(&c);
	if (!ret)
		ret = pick_metric(&c);
	if (!ret && c.o.repo)
		ret = subjects(&c, &commits, &subj);
	if (!ret && store_alerts(c.s, NULL, &c.alerts, &c.nalerts))
		ret = store_failed(&c);
	if (ret)
		goto out;
	ret = series_build(&se, &(struct history){ .tree = c.tree, .branch = c.branch,
			   .testbox = c.testbox, .job = c.job, .metric = c.metric },
			   c.pts, c.npts, c.samples, subj, c.alerts, c.nalerts, &err);
	if (ret == -ENOMEM)
		ret = failure("out of memory");
	else if (ret)
		ret = failure("the change points of %s: %s", c.metric, err.buf);
	else
		ret = write_out(&c.o, &se.h);
out:
	series_release(&se);
	for (size_t i = 0; commits && i < c.npts; i++)
		git_commit_release(&commits[i]);
	free(commits);
	free(subj);
	strbuf_release(&err);
	ctx_release(&c);
	store_close(c.s);
	return ret;
}

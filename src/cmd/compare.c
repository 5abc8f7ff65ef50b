/*
 * compare.c - perfbot compare: what changed between commits, for every
 * atomic job that has complete runs on all of them, as LKP's table
 * (DESIGN.md §7), perf stat's ratio lines, or JSON.
 */
#define _GNU_SOURCE
#include "cmd/cmds.h"
#include "cmd/cmdutil.h"
#include "record/record.h"
#include "stats/compare.h"
#include "stats/ttest.h"
#include "store/store.h"

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
	"usage: perfbot compare [--db PATH] [-s KEY=VALUE ...] [--testbox HOST]\n"
	"                       [--all] [--ci] [--json] [--min-change PCT] [--alpha A]\n"
	"                       [--format text|perf-stat] BASE OTHER [OTHER ...]\n"
	"\n"
	"Compare the stored runs of OTHER commits with BASE's, stat by stat, for\n"
	"every atomic job (and testbox) with complete runs on all of them.  Each\n"
	"commit is a full sha, a unique prefix or a label.  A stat's verdict is\n"
	"changed, same or unknown (more runs would decide): the job's KPI by\n"
	"Welch's t-test at alpha with a 1% floor, failure stats (dmesg.*,\n"
	"*.exit_fail, last_state.*) by Fisher's exact test, every other stat by\n"
	"Welch's test through Benjamini-Hochberg at q = alpha with a 5% floor.\n"
	"Verdicts need 3 runs a side; with fewer the numbers are still shown.\n"
	"\n"
	"      --db PATH         the results database (default: $PERFBOT_DB, else\n"
	"                        $XDG_DATA_HOME/perfbot/results.db, else\n"
	"                        ~/.local/share/perfbot/results.db)\n"
	"  -s, --set KEY=VALUE   only jobs whose parameter KEY is VALUE (repeatable)\n"
	"      --testbox HOST    only runs on HOST\n"
	"      --all             every stat with its verdict, not only the changed\n"
	"      --ci              add the 95% interval of %change and the p-value\n"
	"      --json            everything, machine-readable (docs/compare.md)\n"
	"      --min-change PCT  the smallest change reported, for every family\n"
	"                        (default: 1 for KPIs, 5 for the others)\n"
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
	const char *db;
	char *db_owned;
	const char *testbox;
	char **sets;		/* KEY=VALUE, pointing into argv */
	size_t nr_sets;
	bool all, ci, json;
	enum format format;
	bool have_min;
	double min_change;
	double alpha;
	char **given;		/* the commits as given, into argv */
	size_t nr_commits;
};

/* One atomic job on one testbox that every commit has complete runs of. */
struct job {
	const struct store_group *g;	/* the base's group */
	struct run_record run;		/* the base's latest run: params, KPI */
};

static int failure(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int failure(const char *fmt, ...)
{
	va_list ap;

	fputs("perfbot: compare: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_FAILED;
}

static bool parse_number(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return *s && !*end && !errno && isfinite(*out);
}

static int parse_args(int argc, char **argv, struct compare_args *a)
{
	enum { OPT_DB = 256, OPT_TESTBOX, OPT_ALL, OPT_CI, OPT_JSON, OPT_MIN,
	       OPT_ALPHA, OPT_FORMAT };
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, OPT_DB },
		{ "set", required_argument, NULL, 's' },
		{ "testbox", required_argument, NULL, OPT_TESTBOX },
		{ "all", no_argument, NULL, OPT_ALL },
		{ "ci", no_argument, NULL, OPT_CI },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "min-change", required_argument, NULL, OPT_MIN },
		{ "alpha", required_argument, NULL, OPT_ALPHA },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	a->alpha = 0.05;
	a->sets = calloc(argc, sizeof(*a->sets));
	if (!a->sets)
		return failure("out of memory");
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":hs:", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_DB:
			if (!*optarg)
				return usage_error("--db needs a path");
			a->db = optarg;
			break;
		case 's':
			if (!strchr(optarg, '=') || *optarg == '=')
				return usage_error("invalid -s '%s': expected KEY=VALUE", optarg);
			a->sets[a->nr_sets++] = optarg;
			break;
		case OPT_TESTBOX:
			a->testbox = optarg;
			break;
		case OPT_ALL:
			a->all = true;
			break;
		case OPT_CI:
			a->ci = true;
			break;
		case OPT_JSON:
			a->json = true;
			break;
		case OPT_MIN:
			if (!parse_number(optarg, &a->min_change) || a->min_change < 0)
				return usage_error("invalid --min-change '%s': expected a percentage of at least 0",
						   optarg);
			a->have_min = true;
			break;
		case OPT_ALPHA:
			if (!parse_number(optarg, &a->alpha) || a->alpha <= 0 || a->alpha >= 1)
				return usage_error("invalid --alpha '%s': expected a number between 0 and 1",
						   optarg);
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
	if (!a->db) {
		a->db = a->db_owned = store_default_location();
		if (!a->db)
			return failure("no database location: give --db PATH or set PERFBOT_DB (no home directory is known)");
	}
	return 0;
}

/* ---- which jobs ---- */

static const struct store_group *find_group(const struct store_group *gs, size_t n,
					    const struct store_group *like)
{
	for (size_t i = 0; i < n; i++)
		if (gs[i].runs_complete && !strcmp(gs[i].testbox, like->testbox) &&
		    !strcmp(gs[i].job, like->job))
			return &gs[i];
	return NULL;
}

/*
 * -s matches the parameters of the base's latest run (every run of an
 * atomic job has the same), or its testcase: the job name alone cannot
 * tell which parameter a part of it came from.
 */
static bool job_matches(const struct compare_args *a, const struct run_record *r)
{
	for (size_t i = 0; i < a->nr_sets; i++) {
		const char *eq = strchr(a->sets[i], '=');
		size_t klen = eq - a->sets[i];
		char key[256];
		const char *v;

		snprintf(key, sizeof(key), "%.*s", (int)klen, a->sets[i]);
		v = strmap_get(&r->params, key);
		if (!v && !strcmp(key, "testcase"))
			v = r->testcase;
		if (!v || strcmp(v, eq + 1))
			return false;
	}
	return true;
}

/* ---- text ---- */

/* As LKP shows means: 4 significant digits for huge ones, else fixed. */
static void format_number(char *buf, size_t len, double v)
{
	double m = fabs(v);

	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (m >= 1e9)
		snprintf(buf, len, "%.4g", v);
	else if (m >= 1000 || m == 0 || v == rint(v))
		snprintf(buf, len, "%.0f", v);
	else if (m >= 100)
		snprintf(buf, len, "%.1f", v);
	else if (m >= 0.01)
		snprintf(buf, len, "%.2f", v);
	else
		snprintf(buf, len, "%.2e", v);
}

/* "± N%" fills 6 columns, but '±' takes 2 bytes: pad by hand. */
static void print_mean(int width, const struct summary *s)
{
	char num[64];
	double rel = s->mean != 0 ? 100 * s->stddev / fabs(s->mean) : 0;

	format_number(num, sizeof(num), s->mean);
	printf("%*s", width, num);
	if (rel > 2)
		printf(" ±%3.0f%%", rel);
	else
		printf("      ");
}

static void format_change(char *buf, size_t len, const struct pct_change *c)
{
	if (!isfinite(c->pct))
		snprintf(buf, len, "-");
	else if (c->absolute)
		snprintf(buf, len, "%+.1f", c->pct);
	else
		snprintf(buf, len, "%+.1f%%", c->pct);
}

/* +1 higher is better, -1 lower is better, 0 unknown. */
static int direction(const char *name)
{
	size_t n = strlen(name);

	if ((n > 4 && !strcmp(name + n - 4, "_ops")) || strstr(name, "throughput") ||
	    strstr(name, "Throughput_") || strstr(name, "workload"))
		return 1;
	if (strstr(name, "time") || strstr(name, "latency") ||
	    compare_is_failure_stat(name))
		return -1;
	return 0;
}

static const char *direction_word(const char *name, double change)
{
	int d = direction(name);

	if (!d || change == 0 || !isfinite(change))
		return NULL;
	return (d > 0) == (change > 0) ? "improvement" : "regression";
}

static bool row_changed(const struct stat_row *r, size_t ncols)
{
	for (size_t j = 0; j < ncols; j++)
		if (r->vs[j].verdict == VERDICT_CHANGED)
			return true;
	return false;
}

static void print_mark(const struct compare_args *a, const struct stat_row *r,
		       size_t ncols)
{
	for (size_t j = 0; j < ncols; j++) {
		const struct stat_vs *v = &r->vs[j];
		const char *dir = v->verdict == VERDICT_CHANGED ?
				  direction_word(r->name, v->change.pct) : NULL;

		if (j)
			printf("  |");
		if (a->all || v->verdict != VERDICT_CHANGED)
			printf("  %s", verdict_name(v->verdict));
		if (dir)
			printf("  %s", dir);
		if (a->ci) {
			const char *unit = v->change.absolute ? "" : "%";

			if (isfinite(v->change.low))
				printf("  [%+.1f%s, %+.1f%s]", v->change.low, unit,
				       v->change.high, unit);
			printf("  p=%.3g", v->p);
			if (r->family == FAMILY_OTHER)
				printf(" q=%.3g", v->q);
		}
	}
}

static void print_commits(const struct compare_args *a, char **commits)
{
	printf("%-16.16s", commits[0]);
	/* the last column unpadded: no trailing blanks after a short label */
	for (size_t j = 1; j < a->nr_commits; j++)
		printf(j + 1 < a->nr_commits ? " %-27.27s" : " %.27s", commits[j]);
	printf("\n----------------");
	for (size_t j = 1; j < a->nr_commits; j++)
		printf(" ---------------------------");
	putchar('\n');
}

static void print_failure_row(const struct compare_args *a, const struct stat_row *r,
			      size_t ncols)
{
	char buf[64];

	if (r->base_fails)
		snprintf(buf, sizeof(buf), "%u:%u", r->base_fails, r->base_runs);
	else
		snprintf(buf, sizeof(buf), ":%u", r->base_runs);
	printf("%13s   ", buf);
	for (size_t j = 0; j < ncols; j++) {
		const struct stat_vs *v = &r->vs[j];
		char rep[32];

		snprintf(rep, sizeof(rep), "%+.0f%%", v->reproduction);
		if (v->fails)
			snprintf(buf, sizeof(buf), "%u:%u", v->fails, v->runs);
		else
			snprintf(buf, sizeof(buf), ":%u", v->runs);
		printf("%11s%14s   ", v->reproduction ? rep : "", buf);
	}
	printf("  %s", r->name);
	print_mark(a, r, ncols);
	putchar('\n');
}

static void print_numeric_row(const struct compare_args *a, const struct stat_row *r,
			      size_t ncols)
{
	print_mean(10, &r->base);
	for (size_t j = 0; j < ncols; j++) {
		char change[64];

		format_change(change, sizeof(change), &r->vs[j].change);
		printf("%11s", change);
		print_mean(11, &r->vs[j].s);
	}
	printf("  %s", r->name);
	print_mark(a, r, ncols);
	putchar('\n');
}

static void print_table(const struct compare_args *a, char **commits,
			const struct stat_row *rows, size_t n, bool show_all)
{
	size_t ncols = a->nr_commits - 1, shown = 0;
	bool header = false;

	print_commits(a, commits);
	for (size_t i = 0; i < n; i++) {
		if (rows[i].family != FAMILY_FAILURE || !(show_all || row_changed(&rows[i], ncols)))
			continue;
		if (!header) {
			printf("       fail:runs");
			for (size_t j = 0; j < ncols; j++)
				printf("  %%reproduction    fail:runs");
			printf("\n           |");
			for (size_t j = 0; j < ncols; j++)
				printf("             |             |");
			putchar('\n');
			header = true;
		}
		print_failure_row(a, &rows[i], ncols);
		shown++;
	}
	header = false;
	for (size_t i = 0; i < n; i++) {
		if (rows[i].family == FAMILY_FAILURE || !(show_all || row_changed(&rows[i], ncols)))
			continue;
		if (!header) {
			printf("         %%stddev");
			for (size_t j = 0; j < ncols; j++)
				printf("     %%change         %%stddev");
			printf("\n             \\");
			for (size_t j = 0; j < ncols; j++)
				printf("          |                \\");
			putchar('\n');
			header = true;
		}
		print_numeric_row(a, &rows[i], ncols);
		shown++;
	}
	if (!shown)
		printf("no stat changed (%zu compared; --all shows them)\n", n);
}

static void print_job_header(const struct job *jb)
{
	const struct strmap *p = &jb->run.params;

	printf("testbox: %s\njob: %s\n", jb->g->testbox, jb->g->job);
	if (p->n) {
		printf("params:");
		for (size_t i = 0; i < p->n; i++)
			printf(" %s=%s", p->v[i].key, p->v[i].value);
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

			printf("%-16.16s %14.6g +- %-10.4g %s ( +- %.2f%% )\n",
			       commits[j], s->mean, s->sem, r->name,
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
				word = direction_word(r->name, ri.ratio - 1);
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
	return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "n", (json_int_t)s->n, "mean", num(s->mean),
			 "stddev", num(s->stddev),
			 "stddev_pct", num(s->mean ? 100 * s->stddev / fabs(s->mean) : 0),
			 "sem", num(s->sem), "min", num(s->min), "max", num(s->max),
			 "median", num(s->median));
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
				  direction_word(r->name, v->change.pct) : NULL;

		if (!o || json_object_update_new(o, json_pack(
			"{s:s, s:o, s:o, s:o, s:b, s:o, s:o, s:o, s:s, s:s?, s:I, s:I, s:o}",
			"commit", commits[j + 1], "pct", num(v->change.pct),
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
	return json_pack("{s:s, s:s, s:o, s:o}", "name", r->name,
			 "family", family_name(r->family), "base", base, "vs", vs);
}

static json_t *job_json(const struct job *jb, char **commits, size_t ncommits,
			const struct sample_set *sets, const struct stat_row *rows,
			size_t n, const char *kpi)
{
	json_t *params = json_object(), *stats = json_array(), *runs = json_array();

	for (size_t i = 0; params && i < jb->run.params.n; i++)
		json_object_set_new(params, jb->run.params.v[i].key,
				    json_string(jb->run.params.v[i].value));
	for (size_t j = 0; runs && j < ncommits; j++)
		json_array_append_new(runs, json_integer(sets[j].nr_runs));
	for (size_t i = 0; stats && i < n; i++) {
		if (json_array_append_new(stats, row_json(&rows[i], commits, ncommits - 1))) {
			json_decref(stats);
			stats = NULL;
		}
	}
	return json_pack("{s:s, s:s, s:s, s:o, s:s?, s:o, s:o}",
			 "testbox", jb->g->testbox, "testcase", jb->g->testcase,
			 "job", jb->g->job, "params", params, "kpi", kpi,
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

static int compare_job(struct store *s, const struct compare_args *a,
		       char **commits, const struct job *jb,
		       const struct compare_opts *base_opts, json_t *jobs_json)
{
	struct store_samples *sm = calloc(a->nr_commits, sizeof(*sm));
	struct sample_set *sets = calloc(a->nr_commits, sizeof(*sets));
	struct compare_opts o = *base_opts;
	const char *kpi = run_record_kpi(&jb->run);
	const char *kpis[] = { kpi, NULL };
	struct stat_row *rows = NULL;
	size_t n = 0, loaded = 0;
	bool few = false;
	int ret = EXIT_FAILED, err;

	if (!sm || !sets) {
		failure("out of memory");
		goto out;
	}
	o.kpis = kpis;
	for (; loaded < a->nr_commits; loaded++) {
		err = store_load_samples(s, jb->g->testbox, jb->g->job, commits[loaded],
					 &sm[loaded]);
		if (err) {
			failure("%s", store_error(s));
			goto out;
		}
		sets[loaded] = (struct sample_set){
			.commit = commits[loaded], .nr = sm[loaded].nr,
			.names = sm[loaded].names, .values = sm[loaded].values,
			.counts = sm[loaded].counts, .nr_runs = sm[loaded].nr_runs,
		};
		few |= compare_runs_missing(&sets[loaded]) > 0;
	}
	err = compare_sets(sets, a->nr_commits, &o, &rows, &n);
	if (err) {
		failure("cannot compare: %s", strerror(-err));
		goto out;
	}
	if (a->json) {
		if (json_array_append_new(jobs_json, job_json(jb, commits, a->nr_commits,
							      sets, rows, n, kpi))) {
			failure("out of memory");
			goto out;
		}
	} else {
		print_job_header(jb);
		if (a->format == FORMAT_PERF_STAT)
			print_perf_stat(a, commits, rows, n, &o);
		else
			/* too few runs: no verdict, so show every number */
			print_table(a, commits, rows, n, a->all || few);
		print_few_runs(a, commits, sets);
	}
	ret = EXIT_OK;
out:
	compare_release(rows, n);
	for (size_t j = 0; sm && j < loaded; j++)
		store_samples_release(&sm[j]);
	free(sm);
	free(sets);
	return ret;
}

/* ---- the command ---- */

static int resolve_commits(struct store *s, const struct compare_args *a,
			   char **commits)
{
	for (size_t j = 0; j < a->nr_commits; j++) {
		int err = store_resolve_commit(s, a->given[j], &commits[j]);

		if (err == -ENOENT)
			return usage_error("unknown commit '%s' (%s)", a->given[j], store_error(s));
		if (err == -EEXIST)
			return usage_error("%s", store_error(s));
		if (err)
			return failure("%s", store_error(s));
	}
	return 0;
}

static void no_job_error(const struct compare_args *a)
{
	fputs("perfbot: compare: no atomic job has complete runs on all of ", stderr);
	for (size_t j = 0; j < a->nr_commits; j++)
		fprintf(stderr, "%s%s", j ? ", " : "", a->given[j]);
	fputc('\n', stderr);
}

static int run_compare(struct store *s, const struct compare_args *a)
{
	char **commits = calloc(a->nr_commits, sizeof(*commits));
	struct store_group **groups = calloc(a->nr_commits, sizeof(*groups));
	size_t *ngroups = calloc(a->nr_commits, sizeof(*ngroups));
	struct job *jobs = NULL;
	size_t njobs = 0;
	json_t *jobs_json = NULL;
	struct compare_opts o;
	int ret = EXIT_FAILED;

	if (!commits || !groups || !ngroups) {
		failure("out of memory");
		goto out;
	}
	ret = resolve_commits(s, a, commits);
	if (ret)
		goto out;
	ret = EXIT_FAILED;
	for (size_t j = 0; j < a->nr_commits; j++) {
		struct store_filter f = { .commit = commits[j], .testbox = a->testbox };

		if (store_list_groups(s, &f, &groups[j], &ngroups[j])) {
			failure("%s", store_error(s));
			goto out;
		}
	}
	jobs = calloc(ngroups[0] ? ngroups[0] : 1, sizeof(*jobs));
	if (!jobs) {
		failure("out of memory");
		goto out;
	}
	for (size_t i = 0; i < ngroups[0]; i++) {
		const struct store_group *g = &groups[0][i];
		bool everywhere = g->runs_complete > 0;

		for (size_t j = 1; everywhere && j < a->nr_commits; j++)
			everywhere = find_group(groups[j], ngroups[j], g) != NULL;
		if (!everywhere)
			continue;
		jobs[njobs].g = g;
		if (store_get_run(s, g->last_run_id, &jobs[njobs].run)) {
			failure("%s", store_error(s));
			goto out;
		}
		if (job_matches(a, &jobs[njobs].run))
			njobs++;
		else
			run_record_release(&jobs[njobs].run);
	}
	if (!njobs) {
		no_job_error(a);
		goto out;
	}
	compare_opts_init(&o);
	o.alpha = o.q = a->alpha;
	if (a->have_min)
		o.kpi_min_pct = o.other_min_pct = a->min_change;
	if (a->json) {
		jobs_json = json_array();
		if (!jobs_json) {
			failure("out of memory");
			goto out;
		}
	}
	for (size_t i = 0; i < njobs; i++) {
		if (i && !a->json)
			putchar('\n');
		ret = compare_job(s, a, commits, &jobs[i], &o, jobs_json);
		if (ret)
			goto out;
	}
	if (a->json) {
		json_t *given = json_array(), *full = json_array();

		for (size_t j = 0; given && full && j < a->nr_commits; j++) {
			json_array_append_new(given, json_string(a->given[j]));
			json_array_append_new(full, json_string(commits[j]));
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
	for (size_t i = 0; i < njobs; i++)
		run_record_release(&jobs[i].run);
	free(jobs);
	for (size_t j = 0; j < a->nr_commits; j++) {
		if (groups)
			store_groups_release(groups[j], ngroups ? ngroups[j] : 0);
		if (commits)
			free(commits[j]);
	}
	free(groups);
	free(ngroups);
	free(commits);
	return ret;
}

int cmd_compare(int argc, char **argv)
{
	struct compare_args a = { 0 };
	struct store *s = NULL;
	char err[1024];
	int ret = parse_args(argc, argv, &a);

	if (ret) {
		ret = ret < 0 ? EXIT_OK : ret;
		goto out;
	}
	if (store_open(a.db, STORE_READ, &s, err, sizeof(err))) {
		ret = failure("%s", err);
		goto out;
	}
	ret = run_compare(s, &a);
out:
	store_close(s);
	free(a.db_owned);
	free(a.sets);
	return ret;
}

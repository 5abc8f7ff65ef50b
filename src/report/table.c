/*
 * table.c - LKP's comparison table of one job (docs/design.md §7): the one
 * printer that perfbot compare and every report format share, and the
 * numbers and words every format writes the same way.
 */
#include "report/report.h"
#include "report/internal.h"
#include "util/bug.h"
#include "util/quote.h"
#include "util/vec.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void report_format_number(char *buf, size_t len, double v)
{
	double m = fabs(v);

	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (m < 1000)
		snprintf(buf, len, "%.2f", v);
	else if (m > 1e8)
		snprintf(buf, len, "%.4g", v);
	else
		snprintf(buf, len, "%lld", (long long)v);	/* truncated, as Ruby's %d */
}

void report_format_change(char *buf, size_t len, const struct pct_change *c)
{
	const char *unit = c->absolute ? "" : "%";

	if (!isfinite(c->pct))
		snprintf(buf, len, "-");
	else if (fabs(c->pct) < 100000)
		snprintf(buf, len, "%+.1f%s", c->pct, unit);
	else
		snprintf(buf, len, "%+.2g%s", c->pct, unit);
}

void report_format_reproduction(char *buf, size_t len, double pct)
{
	if (!isfinite(pct))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.0f%%", pct);
}

double report_population_stddev(const struct summary *s)
{
	if (s->n < 2)
		return 0;
	return s->stddev * sqrt((double)(s->n - 1) / (double)s->n);
}

bool report_lkp_stddev(const struct summary *s, long long *pct)
{
	double sd, rel;

	/* LKP's stddev is -1 for fewer than 2 values: never above 2 */
	if (s->n < 2 || !isfinite(s->mean) || !isfinite(s->stddev))
		return false;
	sd = report_population_stddev(s);
	rel = s->mean != 0 ? 100 * sd / s->mean : sd;
	if (!(rel > 2) || rel > 1e15)
		return false;
	*pct = (long long)rel;
	return true;
}

/* A mean in LKP's 10 columns, then " ±NNN%" or 6 blanks ('±' is 2 bytes). */
static void print_mean(FILE *out, const struct summary *s)
{
	char num[64];
	long long rel;

	report_format_number(num, sizeof(num), s->mean);
	fprintf(out, "%10s", num);
	if (report_lkp_stddev(s, &rel))
		fprintf(out, " ±%3lld%%", rel);
	else
		fputs("      ", out);
}

const char *report_better_word(int better, double change)
{
	if (better == STAT_BETTER_NONE || change == 0 || !isfinite(change))
		return NULL;
	return (better == STAT_BETTER_HIGHER) == (change > 0) ? "improvement"
							      : "regression";
}

const char *report_direction_word(const char *name, double change)
{
	return report_better_word(stat_rule_better(name), change);
}

enum colour report_change_colour(int better, double change)
{
	const char *w = report_better_word(better, change);

	if (!w)
		return COLOUR_CHANGE;
	return !strcmp(w, "regression") ? COLOUR_BAD : COLOUR_GOOD;
}

enum colour report_verdict_colour(int better, const struct stat_vs *v)
{
	switch (v->verdict) {
	case VERDICT_CHANGED:
		return report_change_colour(better, v->change.pct);
	case VERDICT_NEW:
	case VERDICT_GONE:
		return COLOUR_CHANGE;
	case VERDICT_SAME:
		return COLOUR_DIM;
	default:
		return COLOUR_PLAIN;
	}
}

int report_row_changed(const struct stat_row *r, size_t ncols)
{
	for (size_t j = 0; j < ncols; j++)
		if (r->vs[j].verdict == VERDICT_CHANGED)
			return 1;
	return 0;
}

/* LKP's floor for what its compare shows: 1% for perf metrics, else 5%. */
static double lkp_floor(const struct report_job *j, const struct stat_row *row)
{
	size_t tl = j && j->testcase ? strlen(j->testcase) : 0;

	if (row->kpi || row->family == FAMILY_KPI ||
	    (tl && !strncmp(row->name, j->testcase, tl) && row->name[tl] == '.'))
		return 1;
	return 5;
}

static bool moved(const struct stat_row *row, const struct stat_vs *v, double floor)
{
	double a = row->base.mean, b = v->s.mean, lo, hi;

	if (!isfinite(a) || !isfinite(b) || a == b)
		return false;
	if (a <= 0 || b <= 0)
		return true;	/* LKP's ratio is then its maximum, 5 */
	lo = a < b ? a : b;
	hi = a < b ? b : a;
	return hi / lo > 1 + floor / 100;
}

bool report_row_shown(const struct report *r, const struct report_job *j,
		      const struct stat_row *row)
{
	size_t ncols = r->ncommits - 1;

	if (r->show_all)
		return true;
	for (size_t c = 0; c < ncols; c++) {
		const struct stat_vs *v = &row->vs[c];

		switch (v->verdict) {
		case VERDICT_CHANGED:
		case VERDICT_NEW:
		case VERDICT_GONE:
			return true;
		default:
			break;
		}
		if (row->family == FAMILY_FAILURE) {
			if (v->reproduction != 0 && isfinite(v->reproduction))
				return true;
		} else if (moved(row, v, lkp_floor(j, row))) {
			return true;
		}
	}
	return false;
}

/*
 * The %change a table shows: LKP's, of the means it shows beside it
 * (stat_vs.mean_pct), so that a reader holding a robot's email reads the
 * same number; the verdict's own change (of the trimmed means) where the
 * change is absolute or LKP's cannot be computed.
 */
struct pct_change report_table_change(const struct stat_vs *v)
{
	struct pct_change c = v->change;

	if (!c.absolute && isfinite(v->mean_pct))
		c.pct = v->mean_pct;
	return c;
}

/*
 * Where outlying runs pull the means' %change away from the verdict's
 * (trimmed means): the verdict's own number, so that "+0.4% ... regression"
 * never stands unexplained.  Differs: another sign, or more than a point
 * and a fifth apart.
 */
static void outlier_note(struct strbuf *sb, const struct stat_vs *v)
{
	double t = v->change.pct, m = v->mean_pct;

	if (v->change.absolute || !isfinite(t) || !isfinite(m))
		return;
	if ((t > 0) == (m > 0) && fabs(t - m) <= fmax(1.0, 0.2 * fabs(t)))
		return;
	strbuf_addf(sb, " (trimmed means %+.1f%%: outlying runs)", t);
}

void report_verdict_words(struct strbuf *sb, const struct stat_row *row,
			  size_t col, bool full)
{
	const struct stat_vs *v = &row->vs[col];
	const char *dir;

	switch (v->verdict) {
	case VERDICT_CHANGED:
		dir = report_better_word(row->better, v->change.pct);
		if (full || !dir)
			strbuf_addstr(sb, "changed");
		if (dir)
			strbuf_addf(sb, "%s%s", full ? "  " : "", dir);
		break;
	case VERDICT_UNKNOWN:
		strbuf_addstr(sb, "unknown");
		if (v->disturbed)
			strbuf_addstr(sb, " — machine disturbed");
		else if (v->more_runs)
			strbuf_addf(sb, " — %u more run%s", v->more_runs,
				    v->more_runs == 1 ? "" : "s");
		break;
	default:
		strbuf_addstr(sb, verdict_name(v->verdict));
		break;
	}
	outlier_note(sb, v);
}

void report_column_disturbance(const struct report_job *j, size_t col,
			       struct compare_disturbance *out)
{
	if (j->disturbance) {
		*out = j->disturbance[col];
		return;
	}
	*out = (struct compare_disturbance){ .differs = false };
	if (j->sets && j->sets[0].names && j->sets[col + 1].names)
		compare_disturbance(&j->sets[0], &j->sets[col + 1], out);
}

void report_disturbance_words(struct strbuf *sb, const struct compare_disturbance *d)
{
	const char *unit = d->what && strstr(d->what, "runnable") ? "tasks" : "CPUs";

	if (d->what)
		strbuf_addf(sb, "machine disturbed: %s %.2f vs %.2f %s, limit %.2f — no verdict",
			    d->what, d->base, d->other, unit, d->limit);
	else
		strbuf_addstr(sb, "machine disturbed — no verdict");
}

/*
 * The column's KPI verdict counts for a report: changed, not disturbed,
 * and -- unless `apart` asks for exactly those -- not between runs taken
 * one commit after the other (compare_order()).
 */
static bool counts(const struct report_job *j, const struct stat_row *row, size_t col,
		   bool apart)
{
	struct compare_disturbance d;
	struct compare_order_info oi;

	if (row->vs[col].verdict != VERDICT_CHANGED || row->vs[col].disturbed)
		return false;
	report_column_disturbance(j, col, &d);
	if (d.differs)
		return false;
	compare_order(&j->sets[0], &j->sets[col + 1], &oi);
	return (oi.order == COMPARE_ORDER_APART) == apart;
}

/* The first column where row counts (ncols when none). */
static size_t first_count(const struct report_job *j, const struct stat_row *row,
			  size_t ncols, bool apart)
{
	size_t c = 0;

	while (c < ncols && !counts(j, row, c, apart))
		c++;
	return c;
}

static double size_at(const struct stat_row *row, size_t col)
{
	double p = fabs(row->vs[col].change.pct);

	return isfinite(p) ? p : 0;
}

/*
 * The one KPI job j offers (report_headline()): its own KPI where it
 * counts somewhere, else the KPI row that counts first, the largest
 * |%change| among those.  NULL when none counts.
 */
static const struct stat_row *job_kpi(const struct report_job *j, size_t ncols, bool apart,
				      size_t *col)
{
	const struct stat_row *best = NULL;
	size_t best_col = ncols;

	for (size_t k = 0; k < j->nr_rows; k++) {
		const struct stat_row *rw = &j->rows[k];
		size_t c;

		if (rw->family != FAMILY_KPI)
			continue;
		c = first_count(j, rw, ncols, apart);
		if (c == ncols)
			continue;
		if (j->kpi && !strcmp(rw->name, j->kpi)) {
			*col = c;
			return rw;
		}
		if (c < best_col || (c == best_col && size_at(rw, c) > size_at(best, c))) {
			best = rw;
			best_col = c;
		}
	}
	*col = best_col;
	return best;
}

static bool find_headline(const struct report *r, bool apart, size_t *job, size_t *col,
			  const struct stat_row **row)
{
	size_t ncols = r->ncommits < 2 ? 0 : r->ncommits - 1;
	const struct stat_row *best = NULL;
	size_t best_job = 0, best_col = ncols;

	for (size_t i = 0; i < r->njobs; i++) {
		size_t c;
		const struct stat_row *rw;

		if (r->headline_testbox && (!r->jobs[i].testbox ||
					    strcmp(r->jobs[i].testbox, r->headline_testbox)))
			continue;
		rw = job_kpi(&r->jobs[i], ncols, apart, &c);
		if (!rw)
			continue;
		/* the first commit where a KPI changed, then the largest change */
		if (c < best_col || (c == best_col && size_at(rw, c) > size_at(best, c))) {
			best = rw;
			best_job = i;
			best_col = c;
		}
	}
	if (!best)
		return false;
	*job = best_job;
	*col = best_col;
	if (row)
		*row = best;
	return true;
}

bool report_headline(const struct report *r, size_t *job, size_t *col,
		     const struct stat_row **row)
{
	return find_headline(r, false, job, col, row);
}

bool report_change_apart(const struct report *r, size_t *job, size_t *col,
			 const struct stat_row **row)
{
	return find_headline(r, true, job, col, row);
}

bool report_lead(const struct report *r, size_t *job, size_t *col,
		 const struct stat_row **row)
{
	return report_headline(r, job, col, row) || report_change_apart(r, job, col, row);
}

const struct stat_row *report_job_change(const struct report *r,
					 const struct report_job *j, size_t *col)
{
	struct report one = *r;
	const struct stat_row *row = NULL;
	size_t job;

	one.jobs = j;
	one.njobs = 1;
	/* every box's job has its change; which one leads is the caller's */
	one.headline_testbox = NULL;
	return report_lead(&one, &job, col, &row) ? row : NULL;
}

const char *report_change_word(const struct stat_row *row, size_t col)
{
	const char *w = report_better_word(row->better, row->vs[col].change.pct);

	return w ? w : "change";
}

void report_lead_words(struct strbuf *sb, const struct stat_row *row, size_t col)
{
	if (row)
		strbuf_addf(sb, "perfbot noticed a %.1f%% %s of ",
			    fabs(row->vs[col].change.pct), report_change_word(row, col));
	else
		strbuf_addstr(sb, "perfbot noticed no significant change of ");
}

/*
 * A reader must know whether drift of the machine could have made the
 * change (stats/compare.h, compare_order()).
 */
void report_order_words(struct strbuf *sb, const struct report_job *j, size_t col)
{
	struct compare_order_info oi;

	compare_order(&j->sets[0], &j->sets[col + 1], &oi);
	switch (oi.order) {
	case COMPARE_ORDER_INTERLEAVED:
		strbuf_addf(sb, "The runs of both commits were interleaved (%u changes of\n"
			    "commit in time order), so drift of the machine fell on both.\n",
			    oi.switches);
		break;
	case COMPARE_ORDER_APART:
		strbuf_addstr(sb, "NOT CONFIRMED on interleaved runs: every run of one commit was\n"
			      "taken before the other's, and drift of the machine alone can make\n"
			      "such a difference.\n");
		break;
	case COMPARE_ORDER_UNKNOWN:
		strbuf_addstr(sb, "The order of the runs is not known (imported results, or one\n"
			      "run a side): the change is not confirmed on interleaved runs.\n");
		break;
	}
}

/* Whole: a KPI's name may be 4 KiB. */
void report_impact_line(struct strbuf *sb, const struct report_job *j,
			const struct stat_row *row, size_t col)
{
	strbuf_reset(sb);
	strbuf_addf(sb, "%s: %s %.1f%% %s", j->testcase ? j->testcase : j->job,
		    row->name, fabs(row->vs[col].change.pct), report_change_word(row, col));
}

const struct stat_row *report_impact(const struct report *r, size_t headline,
				     size_t i, size_t *col)
{
	return i == headline ? NULL : report_job_change(r, &r->jobs[i], col);
}

static bool has_key(const struct report_idents *iv, const char *key)
{
	for (size_t i = 0; i < iv->n; i++)
		if (!strcmp(iv->v[i].key, key))
			return true;
	return false;
}

/* A value the machine could not give ("unavailable: no cpufreq") is none. */
static const char *known(const char *v)
{
	return v && *v && strncmp(v, "unavailable", 11) ? v : NULL;
}

static int cmp_ident(const void *a, const void *b)
{
	return strcmp(((const struct report_ident *)a)->key,
		      ((const struct report_ident *)b)->key);
}

/* LKP's blocks end "cpufreq_governor: performance", "ucode: 0xb00002e". */
int report_identity(const struct report_job *j, bool sorted, struct report_idents *out)
{
	static const char *const recorded[] = { "cpufreq_governor", "ucode", "kconfig",
						"boot", "compiler", "rootfs" };

	for (size_t i = 0; j->params && i < j->params->n; i++)
		if (vec_push(out, ((struct report_ident){ j->params->v[i].key,
							  j->params->v[i].value })))
			return -ENOMEM;
	for (size_t i = 0; j->env && i < sizeof(recorded) / sizeof(recorded[0]); i++) {
		char key[64];
		const char *v;

		if (has_key(out, recorded[i]))
			continue;
		snprintf(key, sizeof(key), "job.%s", recorded[i]);
		v = strmap_get(j->env, key);
		if (!v && !strcmp(recorded[i], "cpufreq_governor"))
			v = known(strmap_get(j->env, "cpufreq_governor"));
		if (!v && !strcmp(recorded[i], "ucode"))
			v = known(strmap_get(j->env, "microcode"));
		if (v && vec_push(out, ((struct report_ident){ recorded[i], v })))
			return -ENOMEM;
	}
	if (sorted && out->n)
		qsort(out->v, out->n, sizeof(*out->v), cmp_ident);
	return 0;
}

int report_job_unsupported(const struct report *r, const struct report_job *j)
{
	for (size_t c = 0; j->unsupported && c < r->ncommits; c++)
		if (j->unsupported[c])
			return 1;
	return 0;
}

static void print_mark(FILE *out, const struct report *rp, int with_ci,
		       const struct stat_row *r, size_t ncols)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t j = 0; j < ncols; j++) {
		const struct stat_vs *v = &r->vs[j];

		strbuf_reset(&sb);
		report_verdict_words(&sb, r, j, rp->show_all);
		fprintf(out, "%s  ", j ? "  |" : "");
		colour_fputs(out, rp->colour, report_verdict_colour(r->better, v),
			     sb.len ? sb.buf : "?");
		if (with_ci) {
			const char *unit = v->change.absolute ? "" : "%";

			if (isfinite(v->change.low))
				fprintf(out, "  [%+.1f%s, %+.1f%s]", v->change.low, unit,
					v->change.high, unit);
			fprintf(out, "  p=%.3g", v->p);
			if (r->family == FAMILY_OTHER)
				fprintf(out, " q=%.3g", v->q);
		}
	}
	strbuf_release(&sb);
}

/*
 * LKP's commit line: the base's first 16 characters right-aligned in 16
 * columns, each other's first 27 in 27, one blank apart (no blank after
 * the last, as no line of the table ends in one).
 */
static void print_commits(FILE *out, const struct report *rp)
{
	fprintf(out, "%16.16s", rp->commits[0].id);
	for (size_t j = 1; j < rp->ncommits; j++)
		fprintf(out, " %27.27s", rp->commits[j].id);
	fputs("\n----------------", out);
	for (size_t j = 1; j < rp->ncommits; j++)
		fputs(" ---------------------------", out);
	fputc('\n', out);
}

/* LKP's fails:runs: the count in 11 columns (blank for 0), ':', runs in 4. */
static void print_fails(FILE *out, unsigned fails, unsigned runs)
{
	if (fails)
		fprintf(out, "%11u", fails);
	else
		fputs("           ", out);
	fprintf(out, ":%-4u", runs);
}

static void print_failure_row(FILE *out, const struct report *rp, int with_ci,
			      const struct stat_row *r, size_t ncols)
{
	print_fails(out, r->base_fails, r->base_runs);
	for (size_t j = 0; j < ncols; j++) {
		const struct stat_vs *v = &r->vs[j];
		char rep[64];

		char cellbuf[80];

		report_format_reproduction(rep, sizeof(rep), v->reproduction);
		/* "%10.0f%% ": the number in 10 columns, then "% " */
		snprintf(cellbuf, sizeof(cellbuf), "%11s ", rep);
		colour_fputs(out, rp->colour, report_verdict_colour(r->better, v), cellbuf);
		print_fails(out, v->fails, v->runs);
	}
	fputs("  ", out);
	quote_fputs(r->name, out);
	print_mark(out, rp, with_ci, r, ncols);
	fputc('\n', out);
}

static void print_numeric_row(FILE *out, const struct report *rp, int with_ci,
			      const struct stat_row *r, size_t ncols)
{
	print_mean(out, &r->base);
	for (size_t j = 0; j < ncols; j++) {
		char change[64];
		struct pct_change table = report_table_change(&r->vs[j]);
		const struct pct_change *c = &table;

		/* "%+10.1f%% " or, for a difference, "%+10.1f  " */
		char cellbuf[80];

		report_format_change(change, sizeof(change), c);
		if (c->absolute || !isfinite(c->pct))
			snprintf(cellbuf, sizeof(cellbuf), "%10s  ", change);
		else
			snprintf(cellbuf, sizeof(cellbuf), "%11s ", change);
		/* the padding is the plain text's; only the number is coloured */
		colour_fputs(out, rp->colour, report_verdict_colour(r->better, &r->vs[j]),
			     cellbuf);
		print_mean(out, &r->vs[j].s);
	}
	fputs("  ", out);
	quote_fputs(r->name, out);
	print_mark(out, rp, with_ci, r, ncols);
	fputc('\n', out);
}

/* LKP's two blocks: the failure stats', then the numbers'. */
static const struct block {
	bool failure;
	const char *title, *title_per_commit;	/* the column names */
	const char *guide, *guide_per_commit;	/* the lines down to the numbers */
	void (*row)(FILE *, const struct report *, int, const struct stat_row *, size_t);
} blocks[] = {
	{ true, "       fail:runs", "  %reproduction    fail:runs",
	  "           |", "             |             |", print_failure_row },
	{ false, "         %stddev", "     %change         %stddev",
	  "             \\", "          |                \\", print_numeric_row },
};

static size_t print_block(FILE *out, const struct report *rp,
			  const struct report_job *jb, int with_ci, bool show_all,
			  const struct block *b)
{
	size_t ncols = rp->ncommits - 1, shown = 0;

	for (size_t i = 0; i < jb->nr_rows; i++) {
		const struct stat_row *r = &jb->rows[i];

		if ((r->family == FAMILY_FAILURE) != b->failure ||
		    !report_stat_listed(rp, r->name) ||
		    !(show_all || report_row_shown(rp, jb, r)))
			continue;
		if (!shown) {
			fputs(b->title, out);
			for (size_t j = 0; j < ncols; j++)
				fputs(b->title_per_commit, out);
			fputc('\n', out);
			fputs(b->guide, out);
			for (size_t j = 0; j < ncols; j++)
				fputs(b->guide_per_commit, out);
			fputc('\n', out);
		}
		b->row(out, rp, with_ci, r, ncols);
		shown++;
	}
	return shown;
}

bool report_stat_listed(const struct report *r, const char *name)
{
	for (size_t i = 0; i < r->nr_stats; i++)
		if (!fnmatch(r->stats[i], name, 0))
			return true;
	return !r->nr_stats;
}

bool report_row_listed(const struct report *r, const struct report_job *j,
		       const struct stat_row *row)
{
	return report_stat_listed(r, row->name) &&
	       (report_table_show_all(r, j) || report_row_shown(r, j, row));
}

bool report_table_show_all(const struct report *r, const struct report_job *j)
{
	if (r->show_all)
		return true;
	/* too few runs: no verdict, so show every number */
	for (size_t c = 0; j->sets && c < r->ncommits; c++)
		if (compare_runs_missing(&j->sets[c]))
			return true;
	return false;
}

int report_write_table(FILE *out, const struct report *rp,
		       const struct report_job *jb, int with_ci)
{
	bool show_all = report_table_show_all(rp, jb);
	size_t shown = 0;

	/* a base and a commit against it: the columns are ncommits - 1 */
	BUG_ON(rp->ncommits < 2);
	print_commits(out, rp);
	for (size_t b = 0; b < sizeof(blocks) / sizeof(blocks[0]); b++)
		shown += print_block(out, rp, jb, with_ci, show_all, &blocks[b]);
	if (!shown && rp->nr_stats)
		fprintf(out, "no stat matching --stat changed (%zu compared; --all shows them)\n",
			jb->nr_rows);
	else if (!shown)
		fprintf(out, "no stat changed (%zu compared; --all shows them)\n",
			jb->nr_rows);
	return report_write_disturbed(out, rp, jb);
}

int report_write_disturbed(FILE *out, const struct report *rp,
			   const struct report_job *jb)
{
	struct strbuf sb = STRBUF_INIT;
	int err;

	for (size_t c = 0; c + 1 < rp->ncommits; c++) {
		struct compare_disturbance d;

		report_column_disturbance(jb, c, &d);
		if (!d.differs)
			continue;
		strbuf_reset(&sb);
		report_disturbance_words(&sb, &d);
		fputs("commit ", out);
		quote_fputs(rp->commits[c + 1].id, out);
		fputs(": ", out);
		quote_line_fputs(sb.buf, out);
		fputc('\n', out);
	}
	/*
	 * A KPI that changed between runs taken apart: the table's verdict
	 * stands (it is the numbers'), but the reader must know that time
	 * alone may have made it, and why no email will say so.
	 */
	for (size_t c = 0; c + 1 < rp->ncommits; c++) {
		struct compare_order_info oi;
		bool kpi_changed = false;

		for (size_t i = 0; i < jb->nr_rows && !kpi_changed; i++)
			kpi_changed = jb->rows[i].family == FAMILY_KPI &&
				      jb->rows[i].vs[c].verdict == VERDICT_CHANGED &&
				      !jb->rows[i].vs[c].disturbed;
		if (!kpi_changed)
			continue;
		compare_order(&jb->sets[0], &jb->sets[c + 1], &oi);
		if (oi.order != COMPARE_ORDER_APART)
			continue;
		fputs("commit ", out);
		quote_fputs(rp->commits[c + 1].id, out);
		fputs(": runs taken apart from the base's (every run of one commit "
		      "before the other's): not confirmed on interleaved runs, no email\n", out);
	}
	err = strbuf_error(&sb);
	strbuf_release(&sb);
	if (err)
		return err;
	return ferror(out) ? -EIO : 0;
}

void report_field(FILE *out, const char *label, const char *value)
{
	fputs(label, out);
	quote_fputs(value, out);
	fputc('\n', out);
}

void report_write_job_header(FILE *out, const struct report_job *j, int full)
{
	report_field(out, "testbox: ", j->testbox);
	if (full)
		report_field(out, "testcase: ", j->testcase ? j->testcase : "-");
	report_field(out, "job: ", j->job);
	if (full && j->machine)
		report_field(out, "test machine: ", j->machine);
	if (full && j->kpi)
		report_field(out, "kpi: ", j->kpi);
	if (j->params && j->params->n) {
		fputs("params:", out);
		for (size_t i = 0; i < j->params->n; i++) {
			fputc(' ', out);
			quote_fputs(j->params->v[i].key, out);
			fputc('=', out);
			quote_fputs(j->params->v[i].value, out);
		}
		fputc('\n', out);
	}
	fputc('\n', out);
}

static void print_reason(FILE *out, const char *reason)
{
	fputs("unsupported here", out);
	if (*reason) {
		fputs(": ", out);
		quote_line_fputs(reason, out);
	}
	fputc('\n', out);
}

bool report_unsupported_alike(const struct report *r, const struct report_job *j)
{
	for (size_t c = 0; c < r->ncommits; c++)
		if (!j->unsupported[c] || strcmp(j->unsupported[c], j->unsupported[0]))
			return false;
	return true;
}

int report_write_unsupported(FILE *out, const struct report *r,
			     const struct report_job *j)
{
	if (!report_job_unsupported(r, j))
		return 0;
	if (report_unsupported_alike(r, j)) {
		print_reason(out, j->unsupported[0]);
		return 1;
	}
	for (size_t c = 0; c < r->ncommits; c++) {
		if (!j->unsupported[c])
			continue;
		fputs("commit ", out);
		quote_fputs(r->commits[c].id, out);
		fputs(": ", out);
		print_reason(out, j->unsupported[c]);
	}
	return 1;
}

void report_write_few_runs(FILE *out, const struct report *r,
			   const struct report_job *j)
{
	if (report_job_unsupported(r, j))
		return;
	for (size_t c = 0; c < r->ncommits; c++) {
		unsigned missing = compare_runs_missing(&j->sets[c]);

		if (!missing)
			continue;
		fprintf(out, "verdicts need %u runs a side: commit ", COMPARE_MIN_RUNS);
		quote_fputs(r->commits[c].id, out);
		fprintf(out, " has %zu (%u more needed)\n", j->sets[c].nr_runs, missing);
	}
}

int report_write_job(FILE *out, const struct report *r,
		     const struct report_job *j, int with_ci, int full_header)
{
	int err = 0;

	report_write_job_header(out, j, full_header);
	if (!report_write_unsupported(out, r, j))
		err = report_write_table(out, r, j, with_ci);
	report_write_few_runs(out, r, j);
	if (err)
		return err;
	return ferror(out) ? -EIO : 0;
}

/*
 * table.c - LKP's comparison table of one job (docs/design.md §7): the one
 * printer that perfbot compare and every report format share, and the
 * numbers and words every format writes the same way.
 */
#include "report/report.h"
#include "report/internal.h"
#include "util/bug.h"
#include "util/quote.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

void report_format_number(char *buf, size_t len, double v)
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

double report_shown_stddev_pct(const struct summary *s)
{
	double rel = s->mean != 0 ? 100 * s->stddev / fabs(s->mean) : 0;

	return rel > 2 ? rel : 0;
}

/* "± N%" fills 6 columns, but '±' takes 2 bytes: pad by hand. */
static void print_mean(FILE *out, int width, const struct summary *s)
{
	char num[64];
	double rel = report_shown_stddev_pct(s);

	report_format_number(num, sizeof(num), s->mean);
	fprintf(out, "%*s", width, num);
	if (rel)
		fprintf(out, " ±%3.0f%%", rel);
	else
		fputs("      ", out);
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

int report_row_changed(const struct stat_row *r, size_t ncols)
{
	for (size_t j = 0; j < ncols; j++)
		if (r->vs[j].verdict == VERDICT_CHANGED)
			return 1;
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
	for (size_t j = 0; j < ncols; j++) {
		const struct stat_vs *v = &r->vs[j];
		const char *dir = v->verdict == VERDICT_CHANGED ?
				  report_better_word(r->better, v->change.pct) : NULL;

		if (j)
			fputs("  |", out);
		if (rp->show_all || v->verdict != VERDICT_CHANGED)
			fprintf(out, "  %s", verdict_name(v->verdict));
		if (dir)
			fprintf(out, "  %s", dir);
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
}

static void print_commits(FILE *out, const struct report *rp)
{
	fprintf(out, "%-16.16s", rp->commits[0].id);
	/* the last column unpadded: no trailing blanks after a short label */
	for (size_t j = 1; j < rp->ncommits; j++)
		fprintf(out, j + 1 < rp->ncommits ? " %-27.27s" : " %.27s",
			rp->commits[j].id);
	fputs("\n----------------", out);
	for (size_t j = 1; j < rp->ncommits; j++)
		fputs(" ---------------------------", out);
	fputc('\n', out);
}

static void print_failure_row(FILE *out, const struct report *rp, int with_ci,
			      const struct stat_row *r, size_t ncols)
{
	char buf[64];

	if (r->base_fails)
		snprintf(buf, sizeof(buf), "%u:%u", r->base_fails, r->base_runs);
	else
		snprintf(buf, sizeof(buf), ":%u", r->base_runs);
	fprintf(out, "%13s   ", buf);
	for (size_t j = 0; j < ncols; j++) {
		const struct stat_vs *v = &r->vs[j];
		char rep[32];

		snprintf(rep, sizeof(rep), "%+.0f%%", v->reproduction);
		if (v->fails)
			snprintf(buf, sizeof(buf), "%u:%u", v->fails, v->runs);
		else
			snprintf(buf, sizeof(buf), ":%u", v->runs);
		fprintf(out, "%11s%14s   ", v->reproduction ? rep : "", buf);
	}
	fputs("  ", out);
	quote_fputs(r->name, out);
	print_mark(out, rp, with_ci, r, ncols);
	fputc('\n', out);
}

static void print_numeric_row(FILE *out, const struct report *rp, int with_ci,
			      const struct stat_row *r, size_t ncols)
{
	print_mean(out, 10, &r->base);
	for (size_t j = 0; j < ncols; j++) {
		char change[64];

		format_change(change, sizeof(change), &r->vs[j].change);
		fprintf(out, "%11s", change);
		print_mean(out, 11, &r->vs[j].s);
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
		    !(show_all || report_row_changed(r, ncols)))
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

int report_write_table(FILE *out, const struct report *rp,
		       const struct report_job *jb, int with_ci)
{
	bool show_all = rp->show_all;
	size_t shown = 0;

	/* a base and a commit against it: the columns are ncommits - 1 */
	BUG_ON(rp->ncommits < 2);
	/* too few runs: no verdict, so show every number */
	for (size_t j = 0; j < rp->ncommits; j++)
		if (compare_runs_missing(&jb->sets[j]))
			show_all = true;
	print_commits(out, rp);
	for (size_t b = 0; b < sizeof(blocks) / sizeof(blocks[0]); b++)
		shown += print_block(out, rp, jb, with_ci, show_all, &blocks[b]);
	if (!shown)
		fprintf(out, "no stat changed (%zu compared; --all shows them)\n",
			jb->nr_rows);
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

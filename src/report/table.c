/*
 * table.c - LKP's comparison table of one job (docs/design.md §7): the one
 * printer that perfbot compare and every report format share.
 */
#include "report/report.h"
#include "util/quote.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

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
static void print_mean(FILE *out, int width, const struct summary *s)
{
	char num[64];
	double rel = s->mean != 0 ? 100 * s->stddev / fabs(s->mean) : 0;

	format_number(num, sizeof(num), s->mean);
	fprintf(out, "%*s", width, num);
	if (rel > 2)
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

const char *report_direction_word(const char *name, double change)
{
	int d = compare_stat_direction(name);

	if (!d || change == 0 || !isfinite(change))
		return NULL;
	return (d > 0) == (change > 0) ? "improvement" : "regression";
}

int report_row_changed(const struct stat_row *r, size_t ncols)
{
	for (size_t j = 0; j < ncols; j++)
		if (r->vs[j].verdict == VERDICT_CHANGED)
			return 1;
	return 0;
}

static void print_mark(FILE *out, const struct report *rp, int with_ci,
		       const struct stat_row *r, size_t ncols)
{
	for (size_t j = 0; j < ncols; j++) {
		const struct stat_vs *v = &r->vs[j];
		const char *dir = v->verdict == VERDICT_CHANGED ?
				  report_direction_word(r->name, v->change.pct) : NULL;

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

int report_write_table(FILE *out, const struct report *rp,
		       const struct report_job *jb, int with_ci)
{
	size_t ncols = rp->ncommits - 1, shown = 0, n = jb->nr_rows;
	const struct stat_row *rows = jb->rows;
	bool header = false, show_all = rp->show_all;

	/* too few runs: no verdict, so show every number */
	for (size_t j = 0; j < rp->ncommits; j++)
		if (compare_runs_missing(&jb->sets[j]))
			show_all = true;
	print_commits(out, rp);
	for (size_t i = 0; i < n; i++) {
		if (rows[i].family != FAMILY_FAILURE ||
		    !(show_all || report_row_changed(&rows[i], ncols)))
			continue;
		if (!header) {
			fputs("       fail:runs", out);
			for (size_t j = 0; j < ncols; j++)
				fputs("  %reproduction    fail:runs", out);
			fputs("\n           |", out);
			for (size_t j = 0; j < ncols; j++)
				fputs("             |             |", out);
			fputc('\n', out);
			header = true;
		}
		print_failure_row(out, rp, with_ci, &rows[i], ncols);
		shown++;
	}
	header = false;
	for (size_t i = 0; i < n; i++) {
		if (rows[i].family == FAMILY_FAILURE ||
		    !(show_all || report_row_changed(&rows[i], ncols)))
			continue;
		if (!header) {
			fputs("         %stddev", out);
			for (size_t j = 0; j < ncols; j++)
				fputs("     %change         %stddev", out);
			fputs("\n             \\", out);
			for (size_t j = 0; j < ncols; j++)
				fputs("          |                \\", out);
			fputc('\n', out);
			header = true;
		}
		print_numeric_row(out, rp, with_ci, &rows[i], ncols);
		shown++;
	}
	if (!shown)
		fprintf(out, "no stat changed (%zu compared; --all shows them)\n", n);
	return ferror(out) ? -EIO : 0;
}

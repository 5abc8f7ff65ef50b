/*
 * compare_tabular.c - a comparison as one CSV or Markdown table
 * (report_tabular(), report.h): the rows the text table shows, through
 * the one tabular writer (tabular.h).
 */
#define _GNU_SOURCE
#include "report/report.h"
#include "report/internal.h"
#include "report/tabular.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Per other commit: %change, mean, verdict (with_ci: low, high, p). */
#define PER_COMMIT 3
#define PER_COMMIT_CI 3
/* testbox, job, stat, unit, the base's mean */
#define LEADING 5

/* "WORD ID" into *out (NULL when out of memory: asprintf() leaves it undefined). */
static int name(char **out, const char *word, const char *id)
{
	if (asprintf(out, "%s %s", word, id) >= 0)
		return 0;
	*out = NULL;
	return -ENOMEM;
}

static const char *const ci_names[PER_COMMIT_CI] = { "low", "high", "p" };

static void put_row(struct tabular *t, const struct report *r, const struct report_job *j,
		    const struct stat_row *row, int with_ci, struct strbuf *sb)
{
	tabular_cell(t, j->testbox);
	tabular_cell(t, j->job);
	tabular_cell(t, row->name);
	tabular_cell(t, row->unit);
	tabular_number(t, row->base.mean);
	for (size_t c = 0; c + 1 < r->ncommits; c++) {
		const struct stat_vs *v = &row->vs[c];

		/* the %change the text table shows: LKP's, of the means beside it */
		tabular_number(t, report_table_change(v).pct);
		tabular_number(t, v->s.mean);
		strbuf_reset(sb);
		report_verdict_words(sb, row, c, r->show_all);
		tabular_cell(t, sb->len ? sb->buf : "?");
		if (with_ci) {
			tabular_number(t, v->change.low);
			tabular_number(t, v->change.high);
			tabular_number(t, v->p);
		}
	}
	tabular_end_row(t);
}

int report_tabular(FILE *out, const struct report *r, int format, int with_ci)
{
	size_t per = PER_COMMIT + (with_ci ? PER_COMMIT_CI : 0);
	size_t ncols = LEADING + per * (r->ncommits - 1);
	struct tabular_column *cols = calloc(ncols, sizeof(*cols));
	char **names = calloc(ncols, sizeof(*names));
	struct strbuf sb = STRBUF_INIT;
	struct tabular t;
	int err = 0;

	if (r->ncommits < 2) {
		free(cols);
		free(names);
		return -EINVAL;
	}
	if (!cols || !names)
		err = -ENOMEM;
	/* the commits' ids name their columns: a pasted table says which is which */
	for (size_t c = 0; !err && c + 1 < r->ncommits; c++) {
		const char *id = r->commits[c + 1].id;
		size_t k = LEADING + c * per;

		err = name(&names[k], "%change", id);
		if (!err)
			err = name(&names[k + 1], "mean", id);
		if (!err)
			err = name(&names[k + 2], "verdict", id);
		for (size_t i = 0; !err && with_ci && i < PER_COMMIT_CI; i++)
			err = name(&names[k + PER_COMMIT + i], ci_names[i], id);
	}
	if (!err)
		err = name(&names[LEADING - 1], "mean", r->commits[0].id);
	if (!err) {
		static const char *const leading[LEADING - 1] = { "testbox", "job", "stat", "unit" };

		for (size_t i = 0; i < ncols; i++) {
			cols[i].name = i < LEADING - 1 ? leading[i] : names[i];
			cols[i].numeric = i >= LEADING - 1 && strncmp(cols[i].name, "verdict ", 8);
		}
		tabular_begin(&t, out, (enum tabular_format)format, cols, ncols);
		for (size_t i = 0; i < r->njobs; i++) {
			const struct report_job *j = &r->jobs[i];

			for (size_t k = 0; k < j->nr_rows; k++)
				if (report_row_listed(r, j, &j->rows[k]))
					put_row(&t, r, j, &j->rows[k], with_ci, &sb);
		}
		err = strbuf_error(&sb);
		if (!err)
			err = tabular_finish(&t);
	}
	for (size_t i = 0; names && i < ncols; i++)
		free(names[i]);
	free(names);
	free(cols);
	strbuf_release(&sb);
	return err;
}

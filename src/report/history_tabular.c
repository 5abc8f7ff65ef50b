/*
 * history_tabular.c - a metric's history as one CSV or Markdown table
 * (report_history_tabular(), history.h), through the tabular writer.
 */
#include "report/history.h"
#include "report/tabular.h"
#include "stats/summary.h"

#include <errno.h>
#include <math.h>

int report_history_tabular(FILE *out, const struct history *h, int format)
{
	static const struct tabular_column cols[] = {
		{ "seq", true }, { "commit", false }, { "base", false }, { "subject", false },
		{ "tested", true }, { "n", true }, { "mean", true }, { "stddev", true },
		{ "min", true }, { "max", true }, { "change_pct", true }, { "change", false },
	};
	struct tabular t;
	size_t c = 0;

	if (report_history_check(h, NULL))
		return -EINVAL;
	tabular_begin(&t, out, (enum tabular_format)format, cols,
		      sizeof(cols) / sizeof(cols[0]));
	for (size_t i = 0; i < h->nr_points; i++) {
		const struct history_point *p = &h->points[i];
		/* the change point before this point, if any: changes are in index order */
		const struct history_change *ch = NULL;
		struct summary s = { 0 };

		while (c < h->nr_changes && h->changes[c].index < i)
			c++;
		if (c < h->nr_changes && h->changes[c].index == i)
			ch = &h->changes[c];
		if (p->n)
			summarize(p->values, p->n, &s);
		tabular_cellf(&t, "%lld", (long long)p->seq);
		tabular_cell(&t, p->sha);
		tabular_cell(&t, p->base);
		tabular_cell(&t, p->subject);
		tabular_number(&t, p->tested);
		tabular_cellf(&t, "%zu", p->n);
		tabular_number(&t, p->n ? s.mean : NAN);
		tabular_number(&t, p->n > 1 ? s.stddev : NAN);
		tabular_number(&t, p->n ? s.min : NAN);
		tabular_number(&t, p->n ? s.max : NAN);
		tabular_number(&t, ch ? ch->pct : NAN);
		tabular_cell(&t, !ch ? NULL : ch->tentative ? "tentative" : "change");
		tabular_end_row(&t);
	}
	return tabular_finish(&t);
}

/*
 * bisect_html.c - a bisection's report as one self-contained HTML page
 * (bisect_report.h; docs/report.md, "html"): report_html()'s style sheet
 * and SVG frame (internal.h), every string escaped, no script, nothing
 * fetched.
 */
#include "report/bisect_report.h"
#include "report/bisect_internal.h"
#include "report/internal.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

static const char bisect_css[] =
	"svg .good{stroke:#070;stroke-width:1.5;stroke-dasharray:6 3}\n"
	"svg .bad{stroke:#b00;stroke-width:1.5;stroke-dasharray:6 3}\n"
	"svg .culprit{stroke:#c00;stroke-width:2}\n"
	"svg .pbad{fill:none;stroke:#8a4fc0;stroke-width:1.5}\n"
	"svg .skip{font-size:12px;text-anchor:middle;fill:#777}\n"
	"svg .label{font-size:11px;fill:#444}\n"
	"svg .run.base-good{fill:#070}\n"
	"svg .run.base-bad{fill:#b00}\n"
	"svg .commit.end-good{fill:#070}\n"
	"svg .commit.end-bad{fill:#b00}\n"
	"svg .label.culprit{fill:#c00;stroke:none;font-family:monospace;text-anchor:middle}\n"
	"tr.culprit td{background:#fee}\n"
	"p.warn{color:#b00;font-weight:bold}\n";

static void html_num(FILE *out, const struct bisect_view *v, double x)
{
	char buf[64];

	fprintf(out, "<td class=\"num\">");
	report_html_puts(out, rb_qty(buf, sizeof(buf), v, x));
	fputs("</td>", out);
}

static void html_count(FILE *out, long n)
{
	if (n >= 0)
		fprintf(out, "<td class=\"num\">%ld</td>", n);
	else
		fputs("<td class=\"num\">-</td>", out);
}

static void html_change_cells(FILE *out, const struct bisect_view *v,
			      const struct bisect_change *c)
{
	bool changed = c->verdict && !strcmp(c->verdict, "changed");
	const char *dir = changed ? rb_direction(v, c->pct) : NULL;

	if (!rb_change_known(c)) {
		fputs("<td colspan=\"4\">not computed</td>", out);
		return;
	}
	fprintf(out, "<td class=\"num\">%+.1f%%</td>", c->pct);
	if (rb_interval_shown(c))
		fprintf(out, "<td class=\"num\">[%+.1f%%, %+.1f%%]</td>", c->low, c->high);
	else if (isfinite(c->low) && isfinite(c->high))
		fputs("<td>holds 0, against the verdict: outlier runs</td>", out);
	else
		fputs("<td></td>", out);
	if (isfinite(c->p))
		fprintf(out, "<td class=\"num\">%.2g</td>", c->p);
	else
		fputs("<td></td>", out);
	/* a change by its direction, as the comparison page colours it */
	fprintf(out, "<td class=\"v-%s%s%s\">", changed ?
		"changed" : c->verdict && !strcmp(c->verdict, "same") ? "same" : "other",
		dir ? " " : "", dir ? dir : "");
	report_html_puts(out, c->verdict ? c->verdict : "-");
	fputs("</td>", out);
}

/* " (given)" */
static void html_given(FILE *out, const char *given)
{
	if (!given)
		return;
	fputs(" (", out);
	report_html_puts(out, given);
	fputc(')', out);
}

static void html_sample_row(FILE *out, const struct bisect_view *v, const char *what,
			    const char *sha, const char *given, const struct bisect_sample *s)
{
	fprintf(out, "<tr><td>%s</td><td class=\"name\">", what);
	report_html_short_id(out, sha);
	html_given(out, given);
	fputs("</td>", out);
	double med, mad;

	html_count(out, s->n);
	html_num(out, v, s->mean);
	html_num(out, v, s->stddev);
	if (rb_robust(s, &med, &mad)) {
		html_num(out, v, med);
		html_num(out, v, mad);
	} else {
		fputs("<td></td><td></td>", out);
	}
	fputs("</tr>\n", out);
}

/* The medians' change when outliers make them tell it better. */
static void html_median_change(FILE *out, const struct bisect_sample *a,
			       const struct bisect_sample *b)
{
	double m = rb_median_change(a, b);

	if (isfinite(m))
		fprintf(out, "<p>The medians differ by %+.1f%% (outlier runs move the means).</p>\n",
			m);
}

static void html_change_table(FILE *out, const struct bisect_view *v,
			      const struct bisect_change *c)
{
	fputs("<table>\n<tr><th>%change</th><th>95% interval</th><th>p</th>"
	      "<th>verdict</th><th>direction</th></tr>\n<tr>", out);
	html_change_cells(out, v, c);
	if (rb_change_known(c)) {
		fputs("<td>", out);
		report_html_puts(out, rb_change_word(v, c->pct));
		fputs("</td>", out);
	}
	fputs("</tr>\n</table>\n", out);
}

static const char sample_head[] =
	"<table>\n<tr><th></th><th>commit</th><th>runs</th><th>mean</th>"
	"<th>stddev</th><th>median</th><th>MAD</th></tr>\n";

static void html_baseline(FILE *out, const struct bisect_view *v,
			  const struct bisect_level *lv)
{
	fputs(sample_head, out);
	html_sample_row(out, v, "good", lv->good.commit.sha, lv->good.given,
			&lv->baseline.good);
	html_sample_row(out, v, "bad", lv->bad.commit.sha, lv->bad.given, &lv->baseline.bad);
	fputs("</table>\n", out);
	html_change_table(out, v, &lv->baseline.change);
	html_median_change(out, &lv->baseline.good, &lv->baseline.bad);
}

static void html_confirmation(FILE *out, const struct bisect_view *v,
			      const struct bisect_level *lv)
{
	const struct bisect_confirmation *c = &lv->confirmation;

	fputs(sample_head, out);
	html_sample_row(out, v, "parent", c->parent.sha, NULL, &c->parent);
	html_sample_row(out, v, "culprit", c->culprit.sha, NULL, &c->culprit);
	fputs("</table>\n", out);
	html_change_table(out, v, &c->change);
	html_median_change(out, &c->parent, &c->culprit);
	if (isfinite(c->parent.others_cpu) && isfinite(c->culprit.others_cpu))
		fprintf(out, "<p>Other processes' CPU while they ran: %.2f and %.2f CPUs, mean a run.</p>\n",
			c->parent.others_cpu, c->culprit.others_cpu);
	if (c->disturbed) {
		fputs("<p class=\"warn\">The two were disturbed differently (", out);
		report_html_puts(out, c->disturbed);
		fputs("): no verdict.</p>\n", out);
	}
}

static void html_entries(FILE *out, const struct bisect_entries *a)
{
	char p[32];

	fputs("<table>\n<tr><th>P(first bad)</th><th>commit</th><th>subject</th></tr>\n", out);
	for (size_t i = 0; i < a->n; i++) {
		const struct bisect_entry *e = &a->v[i];

		fprintf(out, "<tr><td class=\"num\">%s</td><td class=\"name\">",
			rb_prob(p, sizeof(p), e->probability));
		report_html_puts(out, e->commit.sha);
		fputs("</td><td>", out);
		report_html_puts(out, e->commit.subject);
		if (rb_skipped(e))
			fputs(" <em>(skipped: could not be built)</em>", out);
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

static void html_commit_row(FILE *out, const struct bisect_view *v,
			    const struct bisect_level *lv, const struct bisect_entry *e,
			    bool is_culprit)
{
	const char *state = rb_state(e);
	double first = rb_first_bad_p(lv, e);
	char p[32];

	fprintf(out, "<tr%s>", is_culprit ? " class=\"culprit\"" : "");
	html_count(out, e->index);
	fputs("<td class=\"name\">", out);
	report_html_short_id(out, e->commit.sha);
	fputs("</td><td>", out);
	report_html_puts(out, state ? state : rb_skipped(e) ? "skipped" : "-");
	fputs("</td>", out);
	html_count(out, e->n);
	html_num(out, v, e->mean);
	fprintf(out, "<td class=\"num\">%s</td>", isfinite(first) ? rb_prob(p, sizeof(p), first) : "-");
	fprintf(out, "<td class=\"num\">%s</td><td>", rb_prob(p, sizeof(p), e->p_bad));
	report_html_puts(out, e->commit.subject);
	if (e->note) {
		fputs(e->commit.subject ? " <em>(" : "<em>(", out);
		report_html_puts(out, e->note);
		fputs(")</em>", out);
	}
	if (is_culprit)
		fputs(" <strong>first bad commit</strong>", out);
	fputs("</td></tr>\n", out);
}

static void html_commit_table(FILE *out, const struct bisect_view *v,
			      const struct bisect_level *lv)
{
	const char *culprit = rb_culprit_sha(lv);

	if (!lv->commits.n) {
		fputs(lv->candidates == 1 ?
		      "<p>No commit measured while searching: the one candidate is the bad "
		      "commit, whose runs are in the baseline and the confirmation.</p>\n" :
		      "<p>No commit measured while searching.</p>\n", out);
		return;
	}
	fputs("<table class=\"cmp\">\n<tr><th>index</th><th>commit</th><th>state</th>"
	      "<th>runs</th><th>mean</th><th>P(first bad)</th><th>P(bad)</th>"
	      "<th>subject</th></tr>\n", out);
	for (size_t i = 0; i < lv->commits.n; i++)
		html_commit_row(out, v, lv, &lv->commits.v[i],
				culprit && !strcmp(culprit, lv->commits.v[i].commit.sha));
	fputs("</table>\n<p>P(first bad): the probability that the commit is the first bad "
	      "one; P(bad): that it is bad, i.e. that the first bad commit is it or an "
	      "earlier one.</p>\n", out);
}

/* ---- the plot ---- */

/*
 * The x axis: slot 0 the good commit, slot i + 1 candidate i (the bad
 * commit is the last candidate).  Candidates are the commits in
 * good..bad, so the good commit has no index of its own.
 */
struct slots {
	size_t n;	/* slots in all */
	long bad;	/* the bad commit's candidate index */
};

static double slot_x(const struct slots *sl, long index)
{
	return report_plot_x((double)(index + 1), sl->n);
}

/* The candidates, or as many as the highest index measured; the bad one last. */
static struct slots plot_slots(const struct bisect_level *lv)
{
	size_t n = lv->candidates > 0 ? (size_t)lv->candidates : 0;
	struct slots sl;

	for (size_t i = 0; i < lv->commits.n; i++)
		if (lv->commits.v[i].index >= 0 && (size_t)lv->commits.v[i].index >= n)
			n = (size_t)lv->commits.v[i].index + 1;
	/* without a count the bad commit gets a slot after every index seen */
	sl.bad = lv->candidates > 0 ? lv->candidates - 1 : (long)n;
	sl.n = 1 + ((size_t)sl.bad + 1 > n ? (size_t)sl.bad + 1 : n);
	return sl;
}

static void hline(FILE *out, const struct report_axis *a, const char *cls,
		  const char *label, double y0)
{
	double y;

	if (!isfinite(y0))
		return;
	y = report_axis_y(a, y0);
	fprintf(out, "<line class=\"%s\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n",
		cls, MARGIN_L, y, PLOT_W - MARGIN_R, y);
	fprintf(out, "<text class=\"label\" x=\"%d\" y=\"%.1f\">%s</text>\n",
		PLOT_W - MARGIN_R - 60, y - 4, label);
}

static void widen_sample(struct report_axis *a, const struct bisect_sample *s)
{
	for (size_t k = 0; s->present && k < s->values.n; k++)
		report_axis_widen(a, s->values.v[k]);
	report_axis_widen(a, s->mean);
}

/* The y axis over every run shown and both baseline means; false: nothing to show. */
static bool plot_axis(const struct bisect_level *lv, struct report_axis *a)
{
	bool any = false;

	for (size_t i = 0; i < lv->commits.n; i++) {
		const struct bisect_entry *e = &lv->commits.v[i];

		for (size_t k = 0; k < e->values.n; k++) {
			report_axis_widen(a, e->values.v[k]);
			any = true;
		}
		if (!e->values.present && isfinite(e->mean)) {
			report_axis_widen(a, e->mean);
			any = true;
		}
	}
	widen_sample(a, &lv->baseline.good);
	widen_sample(a, &lv->baseline.bad);
	if (!any && !isfinite(a->lo))
		return false;
	report_axis_pad(a);
	return true;
}

/* The first bad commit as a red vertical line labelled with its sha. */
static void plot_culprit(FILE *out, const struct bisect_level *lv, const struct slots *sl)
{
	double top = MARGIN_T, bottom = PLOT_H - MARGIN_B, x;
	long idx = lv->culprit.index;

	if (lv->status != BISECT_STATUS_FOUND || !lv->have_culprit)
		return;
	for (size_t i = 0; idx < 0 && i < lv->commits.n; i++)
		if (!strcmp(lv->commits.v[i].commit.sha, lv->culprit.commit.sha))
			idx = lv->commits.v[i].index;
	if (idx < 0)
		return;
	x = slot_x(sl, idx);
	fprintf(out, "<line class=\"culprit\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
		x, top, x, bottom);
	fprintf(out, "<text class=\"label culprit\" x=\"%.1f\" y=\"%.1f\">", x, top - 6);
	report_html_short_id(out, lv->culprit.commit.sha);
	fputs("</text>\n", out);
}

/* The dots of n values in a slot at x, spread sideways (5 abreast). */
static void plot_dots(FILE *out, const char *cls, double x, double spread,
		      const double *v, size_t n, const struct report_axis *a)
{
	for (size_t k = 0; k < n; k++)
		fprintf(out, "<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\"/>\n", cls,
			x + ((double)(k % 5) - 2) * spread, report_axis_y(a, v[k]));
}

/*
 * Each run a dot in its commit's slot, spread sideways; a skip a cross.
 * The good and bad commits' own runs (the baseline's) in theirs, in their
 * colours: without them the plot shows no level to compare a candidate to.
 */
static void plot_runs(FILE *out, const struct bisect_level *lv, const struct slots *sl,
		      const struct report_axis *a)
{
	double bottom = PLOT_H - MARGIN_B;
	double spread = fmin(2.5, (PLOT_W - MARGIN_L - MARGIN_R) / (double)sl->n / 6);
	const struct bisect_sample *good = &lv->baseline.good, *bad = &lv->baseline.bad;

	if (good->present)
		plot_dots(out, "run base-good", slot_x(sl, -1), spread, good->values.v,
			  good->values.n, a);
	if (bad->present)
		plot_dots(out, "run base-bad", slot_x(sl, sl->bad), spread, bad->values.v,
			  bad->values.n, a);
	for (size_t i = 0; i < lv->commits.n; i++) {
		const struct bisect_entry *e = &lv->commits.v[i];
		double x;

		if (e->index < 0)
			continue;
		x = slot_x(sl, e->index);
		if (rb_skipped(e) && !e->values.present) {
			fprintf(out, "<text class=\"skip\" x=\"%.1f\" y=\"%.1f\">&#215;</text>\n",
				x, bottom - 4);
			continue;
		}
		plot_dots(out, "run", x, spread, e->values.v, e->values.n, a);
		if (!e->values.present && isfinite(e->mean))
			plot_dots(out, "run", x, 0, &e->mean, 1, a);
	}
}

/* P(bad), purple: 0 at the bottom of the frame, 1 at the top. */
static void plot_p_bad(FILE *out, const struct bisect_level *lv, const struct slots *sl)
{
	double top = MARGIN_T, bottom = PLOT_H - MARGIN_B;
	bool started = false;

	for (size_t i = 0; i < lv->commits.n; i++) {
		const struct bisect_entry *e = &lv->commits.v[i];

		if (e->index < 0 || !isfinite(e->p_bad))
			continue;
		fprintf(out, "%s%.1f,%.1f", started ? " " : "<polyline class=\"pbad\" points=\"",
			slot_x(sl, e->index), bottom - fmin(1, fmax(0, e->p_bad)) * (bottom - top));
		started = true;
	}
	if (started)
		fputs("\"/>\n", out);
}

/*
 * x ticks at 1, 2 or 5 times a power of ten of the index; "good" under
 * the good commit's slot and "bad" under the bad one's, in place of a
 * number that would overlap them (11px text: about 24 units for "good").
 */
static void plot_x_ticks(FILE *out, const struct slots *sl)
{
	size_t n = sl->n - 1;
	double step = n > 1 ? fmax(1, report_nice_step((double)(n - 1))) : 1;
	int y = PLOT_H - MARGIN_B + 16;

	for (double t = 0; t < (double)n; t += step)
		if (fabs(slot_x(sl, (long)t) - slot_x(sl, -1)) >= 24 &&
		    fabs(slot_x(sl, (long)t) - slot_x(sl, sl->bad)) >= 20)
			fprintf(out, "<text class=\"commit\" x=\"%.1f\" y=\"%d\">%.0f</text>\n",
				slot_x(sl, (long)t), y, t);
	fprintf(out, "<text class=\"commit end-good\" x=\"%.1f\" y=\"%d\">good</text>\n",
		slot_x(sl, -1), y);
	fprintf(out, "<text class=\"commit end-bad\" x=\"%.1f\" y=\"%d\">bad</text>\n",
		slot_x(sl, sl->bad), y);
}

/*
 * Every sample of every candidate measured (dots) over its index, the
 * good and bad commits' runs and means (dashed), the culprit (vertical
 * line), each skipped commit (a cross at the bottom) and P(bad).
 */
static void html_plot(FILE *out, const struct bisect_view *v, const struct bisect_level *lv)
{
	struct slots sl = plot_slots(lv);
	struct report_axis a = { INFINITY, -INFINITY };

	if (!plot_axis(lv, &a))
		return;
	fputs("<figure>\n", out);
	report_svg_begin(out, v->metric);
	report_svg_y_ticks(out, &a);
	plot_x_ticks(out, &sl);
	report_svg_axis_labels(out, "commit: the good one, then the candidates by index, "
			       "oldest first", v->metric, v->r->unit);
	hline(out, &a, "good", "good mean", lv->baseline.good.mean);
	hline(out, &a, "bad", "bad mean", lv->baseline.bad.mean);
	plot_culprit(out, lv, &sl);
	plot_runs(out, lv, &sl, &a);
	plot_p_bad(out, lv, &sl);
	fputs("</svg>\n<figcaption>", out);
	report_html_puts(out, v->metric);
	if (v->r->unit && *v->r->unit) {
		fputs(" in ", out);
		report_html_puts(out, v->r->unit);
	}
	fputs(": every run of each candidate measured (dots) by its index among the "
	      "candidates, the good commit's runs (green dots, left) and the bad commit's "
	      "(red dots, the last candidate) with their means (green and red dashes), the "
	      "first bad commit (red line), commits that could not be built (&#215;) and "
	      "P(bad), the probability that the commit is bad (purple: 0 at the bottom, 1 at "
	      "the top)</figcaption>\n</figure>\n", out);
}

/* ---- the page ---- */


static void html_facts(FILE *out, const struct bisect_view *v, const struct bisect_level *lv)
{
	double conf = rb_confidence(v, lv);

	fputs("<dl>\n", out);
	report_html_dl(out, "status", bisect_status_name(lv->status));
	fputs("<dt>good</dt><dd class=\"name\">", out);
	report_html_puts(out, lv->good.commit.sha);
	html_given(out, lv->good.given);
	fputs("</dd>\n<dt>bad</dt><dd class=\"name\">", out);
	report_html_puts(out, lv->bad.commit.sha);
	html_given(out, lv->bad.given);
	fputs("</dd>\n", out);
	if (lv->candidates >= 0)
		fprintf(out, "<dt>candidates</dt><dd>%ld</dd>\n", lv->candidates);
	if (lv->runs >= 0)
		fprintf(out, "<dt>runs</dt><dd>%ld</dd>\n", lv->runs);
	if (lv->builds >= 0)
		fprintf(out, "<dt>builds</dt><dd>%ld (%ld failed)</dd>\n", lv->builds,
			lv->build_failures > 0 ? lv->build_failures : 0);
	if (isfinite(conf))
		fprintf(out, "<dt>stops at</dt><dd>%.10g%%</dd>\n", 100 * conf);
	fputs("</dl>\n", out);
}

static void html_found(FILE *out, const struct bisect_view *v, const struct bisect_level *lv,
		       bool inner)
{
	const struct bisect_entry *c = &lv->culprit, *next = rb_best_other(lv, c->commit.sha);
	char p[32];

	fprintf(out, "<h3>%s</h3>\n<p class=\"name\">", inner ?
		"First bad commit inside the merged branch" : "First bad commit");
	report_html_puts(out, c->commit.sha);
	fputs("</p>\n<p>", out);
	report_html_puts(out, c->commit.subject);
	fputs("</p>\n<dl>\n", out);
	report_html_dl(out, "author", c->commit.author);
	report_html_dl(out, "date", c->commit.date);
	if (isfinite(c->probability))
		report_html_dl(out, "P(first bad)", rb_prob(p, sizeof(p), c->probability));
	if (next && isfinite(next->probability)) {
		fputs("<dt>next likely, P(first bad)</dt><dd class=\"name\">", out);
		report_html_short_id(out, next->commit.sha);
		fprintf(out, " %s</dd>\n", rb_prob(p, sizeof(p), next->probability));
	}
	fputs("</dl>\n", out);
	if (lv->confirmation.present) {
		fputs("<h3>Confirmation: the commit against its parent</h3>\n", out);
		html_confirmation(out, v, lv);
		if (!bisect_level_confirmed(lv))
			fputs("<p class=\"warn\">The confirmation did not show the change: "
			      "treat this commit as a suspect.</p>\n", out);
	} else {
		fputs("<p class=\"warn\">Not confirmed against its parent.</p>\n", out);
	}
}

static void html_level(FILE *out, const struct bisect_view *v, const struct bisect_level *lv,
		       bool inner)
{
	html_facts(out, v, lv);
	if (lv->status == BISECT_STATUS_FOUND && lv->have_culprit)
		html_found(out, v, lv, inner);
	if (lv->status == BISECT_STATUS_RANGE) {
		fputs("<h3>The first bad commit is one of these</h3>\n", out);
		html_entries(out, &lv->range);
	}
	if (lv->status == BISECT_STATUS_UNDECIDED || lv->status == BISECT_STATUS_RUNNING)
		fprintf(out, "<p>%s after %ld runs.</p>\n", lv->status == BISECT_STATUS_UNDECIDED ?
			"Not decided" : "Still running", lv->runs >= 0 ? lv->runs : lv->runs_search);
	if (lv->best.n && lv->status != BISECT_STATUS_RANGE) {
		fputs("<h3>Most likely first bad commits</h3>\n", out);
		html_entries(out, &lv->best);
	}
	if (lv->message) {
		fputs("<p>", out);
		report_html_puts(out, lv->message);
		fputs("</p>\n", out);
	}
	if (rb_has_baseline(lv)) {
		fputs("<h3>Baseline: the good and bad commits</h3>\n", out);
		html_baseline(out, v, lv);
	}
	html_plot(out, v, lv);
	fputs("<h3>Commits measured</h3>\n", out);
	html_commit_table(out, v, lv);
	if (!lv->merge)
		return;
	fputs("<section>\n<h2>Inside the merged branch</h2>\n<p>The first bad commit on "
	      "the first-parent line is the merge <span class=\"name\">", out);
	report_html_puts(out, lv->merge->commit.sha);
	fputs("</span> ", out);
	report_html_puts(out, lv->merge->commit.subject);
	fputs("</p>\n", out);
	if (rb_inner(lv))
		html_level(out, v, rb_inner(lv), true);
	else
		fputs("<p>not bisected inside the merged branch</p>\n", out);
	fputs("</section>\n", out);
}

static void html_params(FILE *out, const struct bisect_params *params)
{
	if (!params->n)
		return;
	fputs("<dt>parameters</dt><dd>", out);
	for (size_t i = 0; i < params->n; i++) {
		const struct bisect_param *p = &params->v[i];

		fputs(i ? ", " : "", out);
		report_html_puts(out, p->key);
		fputc('=', out);
		if (p->kind == BISECT_PARAM_STRING)
			report_html_puts(out, p->string);
		else
			fprintf(out, "%.10g", p->kind == BISECT_PARAM_INTEGER ?
				(double)p->integer : p->real);
	}
	fputs("</dd>\n", out);
}

/* "perfbot bisection 3" */
static void html_title(FILE *out, const struct bisect_result *r)
{
	fputs("perfbot bisection", out);
	if (r->id >= 0)
		fprintf(out, " %lld", (long long)r->id);
}

int report_bisect_html(FILE *out, const struct bisect_result *r)
{
	struct bisect_view v;
	const struct bisect_level *lv;
	const struct bisect_change *ch;

	if (rb_view(&v, r))
		return -EINVAL;
	lv = rb_blamed(v.top);
	ch = rb_headline(&v, lv);
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>",
	      out);
	html_title(out, r);
	fputs(": ", out);
	report_html_puts(out, v.metric);
	fprintf(out, "</title>\n<style>\n%s%s</style>\n</head>\n<body>\n", report_html_css,
		bisect_css);
	fputs("<h1>", out);
	html_title(out, r);
	fprintf(out, ": %s</h1>\n", rb_status_line(r->level.status));
	if (r->level.status == BISECT_STATUS_FOUND && ch) {
		fprintf(out, "<p>perfbot bisected a %.1f%% %s of <span class=\"name\">",
			fabs(ch->pct), rb_change_word(&v, ch->pct));
		report_html_puts(out, v.metric);
		fputs("</span> to <span class=\"name\">", out);
		report_html_short_id(out, lv->culprit.commit.sha);
		fputs("</span> ", out);
		report_html_puts(out, lv->culprit.commit.subject);
		fputs("</p>\n", out);
	}
	fputs("<dl>\n", out);
	report_html_dl(out, "metric", v.metric);
	if (r->unit && *r->unit)
		report_html_dl(out, "unit", r->unit);
	if (r->higher_is_better >= 0)
		report_html_dl(out, "better", r->higher_is_better ? "higher" : "lower");
	report_html_dl(out, "repository", r->repo);
	report_html_dl(out, "origin", r->origin_url);
	report_html_dl(out, "job", v.job);
	report_html_dl(out, "testcase", r->testcase);
	report_html_dl(out, "testbox", r->testbox);
	report_html_dl(out, "machine", r->machine);
	html_params(out, &r->params);
	fputs("</dl>\n<section>\n<h2>Bisection</h2>\n", out);
	html_level(out, &v, v.top, false);
	fputs("</section>\n", out);
	if (r->job_text) {
		fputs("<details><summary>job to reproduce</summary><pre>", out);
		report_html_puts(out, r->job_text);
		fputs("</pre></details>\n", out);
	}
	fputs("</body>\n</html>\n", out);
	if (fflush(out) || ferror(out))
		return -EIO;
	return 0;
}

/*
 * history.c - a metric over a branch's history, as text, JSON and one
 * HTML page (history.h; docs/history.md).  The plot and the page use
 * report_html()'s style sheet and SVG frame (internal.h); every string
 * from the series goes through report_html_puts() on the page and
 * quote_fputs() on a terminal.
 */
#include "report/history.h"
#include "report/internal.h"
#include "record/record.h"
#include "stats/summary.h"
#include "util/quote.h"
#include "util/strbuf.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* What a reader checks before it reads on; bump on any incompatible change. */
#define SCHEMA_NAME "perfbot-history"
#define SCHEMA_VERSION 1

int report_history_check(const struct history *h, const char **why)
{
	const char *dummy;

	if (!why)
		why = &dummy;
	*why = NULL;
	if (!h || !h->tree || !h->branch || !h->testbox || !h->job || !h->metric)
		*why = "a name of the series is missing";
	else if (!h->nr_points || !h->points)
		*why = "the series has no point";
	else if ((h->nr_changes && !h->changes) || (h->nr_alerts && !h->alerts))
		*why = "changes or alerts counted but not given";
	for (size_t i = 0; !*why && i < h->nr_points; i++) {
		const struct history_point *p = &h->points[i];

		if (!p->sha)
			*why = "a point without a commit";
		else if (i && p->seq <= h->points[i - 1].seq)
			*why = "points not in increasing order of seq";
		else if (p->n && !p->values)
			*why = "a point's values counted but not given";
		for (size_t k = 0; !*why && k < p->n; k++)
			if (!isfinite(p->values[k]))
				*why = "a value that is not finite";
	}
	for (size_t i = 0; !*why && i < h->nr_changes; i++) {
		size_t idx = h->changes[i].index;

		if (idx < 1 || idx >= h->nr_points)
			*why = "a change point outside the series";
		else if (i && idx <= h->changes[i - 1].index)
			*why = "change points not in increasing order";
	}
	for (size_t i = 0; !*why && i < h->nr_alerts; i++)
		if (!h->alerts[i].state || !h->alerts[i].before || !h->alerts[i].after)
			*why = "an alert without its state or points";
	return *why ? -EINVAL : 0;
}

size_t report_history_find(const struct history *h, const char *sha)
{
	/* the newest first: a rebased branch may hold a sha twice */
	for (size_t i = h->nr_points; sha && i-- > 0;)
		if (!strcmp(h->points[i].sha, sha))
			return i;
	return SIZE_MAX;
}

/* Does alert a span change point c (before < c's index <= after)? */
static bool alert_spans(const struct history *h, const struct history_alert *a,
			const struct history_change *c)
{
	size_t b = report_history_find(h, a->before), e = report_history_find(h, a->after);

	return b != SIZE_MAX && e != SIZE_MAX && b < c->index && c->index <= e;
}

const char *report_history_change_state(const struct history *h,
				       const struct history_change *c)
{
	/* the newest alert spanning it: the robot's latest word on it */
	for (size_t i = h->nr_alerts; i-- > 0;)
		if (alert_spans(h, &h->alerts[i], c))
			return h->alerts[i].state;
	return c->tentative ? "tentative" : "detected";
}

static const char *better_word(int better)
{
	return better > 0 ? "higher" : better < 0 ? "lower" : NULL;
}

static bool has_unit(const struct history *h)
{
	return h->unit && *h->unit;
}

static int finish(FILE *out)
{
	if (fflush(out) || ferror(out))
		return -EIO;
	return 0;
}

/* ---- text ---- */

static void num(char *buf, size_t len, double v)
{
	report_format_number(buf, len, v);
}

/* "| +10.1%" or "? +10.1%" for a change before point i, "A3" for alerts ending at it */
static void text_marks(struct strbuf *sb, const struct history *h, size_t i)
{
	for (size_t c = 0; c < h->nr_changes; c++)
		if (h->changes[c].index == i)
			strbuf_addf(sb, "%s%c %+.1f%%", sb->len ? " " : "",
				    h->changes[c].tentative ? '?' : '|', h->changes[c].pct);
	for (size_t a = 0; a < h->nr_alerts; a++)
		if (report_history_find(h, h->alerts[a].after) == i)
			strbuf_addf(sb, "%sA%" PRId64, sb->len ? " " : "", h->alerts[a].id);
}

/* A point's marks: coloured as the first change point there, if any. */
static enum colour point_colour(const struct history *h, size_t i)
{
	for (size_t c = 0; c < h->nr_changes; c++)
		if (h->changes[c].index == i)
			return report_change_colour(h->better, h->changes[c].pct);
	return COLOUR_PLAIN;
}

static void text_field(FILE *out, const char *label, const char *value)
{
	fprintf(out, "%-9s ", label);
	quote_fputs(value, out);
	fputc('\n', out);
}

/* "seq 7 a2b550d1f2f2", or the sha alone when it is no point of the series */
static void text_point_ref(FILE *out, const struct history *h, const char *sha)
{
	size_t i = report_history_find(h, sha);
	char id[13];

	snprintf(id, sizeof(id), "%s", sha ? sha : "?");
	if (i != SIZE_MAX)
		fprintf(out, "seq %" PRId64 " ", h->points[i].seq);
	quote_fputs(id, out);
	if (i == SIZE_MAX)
		fputs(" (not a point)", out);
}

static void text_alert(FILE *out, const struct history *h, const struct history_alert *a)
{
	char id[13];

	fprintf(out, "  alert %" PRId64 "  ", a->id);
	quote_fputs(a->state, out);
	if (a->how) {
		fputs("  ", out);
		quote_fputs(a->how, out);
	}
	if (isfinite(a->pct))
		fprintf(out, "  %+.1f%%", a->pct);
	fputs("  ", out);
	text_point_ref(out, h, a->before);
	fputs(" .. ", out);
	text_point_ref(out, h, a->after);
	if (a->culprit) {
		snprintf(id, sizeof(id), "%s", a->culprit);
		fputs("  culprit ", out);
		quote_fputs(id, out);
	}
	if (a->report_id)
		fprintf(out, "  report %" PRId64, a->report_id);
	if (a->bisect_id)
		fprintf(out, "  bisection %" PRId64, a->bisect_id);
	fputc('\n', out);
	if (a->note) {
		fputs("      ", out);
		quote_line_fputs(a->note, out);
		fputc('\n', out);
	}
}

static void text_change(FILE *out, const struct history *h, const struct history_change *c)
{
	char b[64], a[64];
	bool any = false;

	char pct[64];

	num(b, sizeof(b), c->before);
	num(a, sizeof(a), c->after);
	snprintf(pct, sizeof(pct), "%+.1f%%", c->pct);
	fputs("  ", out);
	colour_fputs(out, h->colour, report_change_colour(h->better, c->pct), pct);
	fputs("  ", out);
	text_point_ref(out, h, h->points[c->index - 1].sha);
	fputs(" -> ", out);
	text_point_ref(out, h, h->points[c->index].sha);
	fprintf(out, "  %s -> %s", b, a);
	if (has_unit(h)) {
		fputc(' ', out);
		quote_fputs(h->unit, out);
	}
	fprintf(out, "  p %.2g", c->p);
	if (c->outliers)
		fprintf(out, "  (%zu outlier point%s set aside)", c->outliers,
			c->outliers == 1 ? "" : "s");
	if (c->tentative)
		fputs("  TENTATIVE: too few points after it yet", out);
	for (size_t i = 0; i < h->nr_alerts; i++) {
		if (!alert_spans(h, &h->alerts[i], c))
			continue;
		fprintf(out, "%s%" PRId64 " (", any ? ", " : "  alert ", h->alerts[i].id);
		quote_fputs(h->alerts[i].state, out);
		fputc(')', out);
		any = true;
	}
	fputc('\n', out);
}

int report_history_text(FILE *out, const struct history *h)
{
	struct strbuf *marks;
	size_t marks_w = 5, tentative = 0;
	struct strbuf row = STRBUF_INIT;
	bool any_subject = false;
	const char *why;
	int ret = 0;

	if (report_history_check(h, &why))
		return -EINVAL;
	marks = calloc(h->nr_points, sizeof(*marks));
	if (!marks)
		return -ENOMEM;
	for (size_t i = 0; i < h->nr_points; i++) {
		marks[i] = (struct strbuf)STRBUF_INIT;
		text_marks(&marks[i], h, i);
		if (strbuf_error(&marks[i]))
			ret = -ENOMEM;
		if (marks[i].len > marks_w)
			marks_w = marks[i].len;
	}
	for (size_t c = 0; c < h->nr_changes; c++)
		tentative += h->changes[c].tentative;
	if (ret)
		goto out;

	fputs("perfbot history of ", out);
	quote_fputs(h->metric, out);
	if (has_unit(h) || better_word(h->better)) {
		fputs(" (", out);
		if (has_unit(h))
			quote_fputs(h->unit, out);
		if (better_word(h->better))
			fprintf(out, "%s%s is better", has_unit(h) ? ", " : "",
				better_word(h->better));
		fputc(')', out);
	}
	fputc('\n', out);
	text_field(out, "job:", h->job);
	text_field(out, "testbox:", h->testbox);
	text_field(out, "tree:", h->tree);
	text_field(out, "branch:", h->branch);
	fprintf(out, "points:   %zu, change points: %zu (%zu tentative), alerts: %zu\n\n",
		h->nr_points, h->nr_changes, tentative, h->nr_alerts);

	for (size_t i = 0; i < h->nr_points; i++)
		any_subject |= h->points[i].subject != NULL;
	row = (struct strbuf)STRBUF_INIT;
	strbuf_addf(&row, "%6s  %-12s  %4s  %12s ± %-10s  %-23s  %-*s  %s", "seq", "commit",
		    "runs", "mean", "stddev", "min..max", (int)marks_w, "marks",
		    any_subject ? "subject" : "");
	strbuf_rtrim(&row);
	fprintf(out, "%s\n", row.buf);
	for (size_t i = 0; i < h->nr_points; i++) {
		const struct history_point *p = &h->points[i];
		char id[13], mean[64], sd[64], lo[64], hi[64], range[140], *qid;
		struct summary s;

		snprintf(id, sizeof(id), "%s", p->sha);
		qid = quote_c(id, false);
		strbuf_reset(&row);
		strbuf_addf(&row, "%6" PRId64 "  %s", p->seq, qid ? qid : "?");
		strbuf_addchars(&row, ' ', qid && quote_width(id) < 12 ? 12 - quote_width(id) : 0);
		free(qid);
		if (p->n) {
			summarize(p->values, p->n, &s);
			num(mean, sizeof(mean), s.mean);
			num(sd, sizeof(sd), s.stddev);
			num(lo, sizeof(lo), s.min);
			num(hi, sizeof(hi), s.max);
			snprintf(range, sizeof(range), "%s..%s", lo, hi);
			strbuf_addf(&row, "  %4zu  %12s ± %-10s  %-23s", p->n, mean,
				    p->n > 1 ? sd : "-", range);
		} else {
			strbuf_addf(&row, "  %4d  %12s   %-10s  %-23s", 0, "-", "", "no run of it");
		}
		strbuf_addstr(&row, "  ");
		/* the codes around the marks, the padding after: widths are the plain text's */
		if (h->colour && marks[i].len && point_colour(h, i) != COLOUR_PLAIN)
			strbuf_addf(&row, "%s%s%s", colour_start(point_colour(h, i)),
				    marks[i].buf, COLOUR_RESET);
		else
			strbuf_addstr(&row, marks[i].buf);
		strbuf_addchars(&row, ' ', marks_w - marks[i].len);
		/* no blanks at the end of a line */
		if (!p->subject)
			strbuf_rtrim(&row);
		else
			strbuf_addstr(&row, "  ");
		if (strbuf_error(&row)) {
			ret = -ENOMEM;
			goto out;
		}
		fputs(row.buf, out);
		if (p->subject)
			quote_fputs(p->subject, out);
		fputc('\n', out);
	}
	fprintf(out, "\nchange points (%zu)%s\n", h->nr_changes, h->nr_changes ? ":" : "");
	for (size_t c = 0; c < h->nr_changes; c++)
		text_change(out, h, &h->changes[c]);
	fprintf(out, "alerts (%zu)%s\n", h->nr_alerts, h->nr_alerts ? ":" : "");
	for (size_t a = 0; a < h->nr_alerts; a++)
		text_alert(out, h, &h->alerts[a]);
	ret = finish(out);
out:
	strbuf_release(&row);
	for (size_t i = 0; i < h->nr_points; i++)
		strbuf_release(&marks[i]);
	free(marks);
	return ret;
}

/* ---- JSON ---- */

/* JSON has no NaN or infinity: null says "not known". */
static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* 0 means none: null */
static json_t *jid(int64_t id)
{
	return id ? json_integer(id) : json_null();
}

/* The index of sha among the points, or null. */
static json_t *jindex(const struct history *h, const char *sha)
{
	size_t i = report_history_find(h, sha);

	return i == SIZE_MAX ? json_null() : json_integer((json_int_t)i);
}

/* Append, or drop the array: a NULL member makes the caller's pack fail. */
static void append(json_t **arr, json_t *v)
{
	if (*arr && (!v || json_array_append_new(*arr, v))) {
		json_decref(*arr);
		*arr = NULL;
	}
}

static json_t *point_json(const struct history_point *p)
{
	json_t *runs = json_array();
	struct summary s = { 0 };

	for (size_t k = 0; k < p->n; k++)
		append(&runs, json_real(p->values[k]));
	if (p->n)
		summarize(p->values, p->n, &s);
	return json_pack("{s:I, s:o, s:o, s:o, s:o, s:I, s:o, s:o, s:o, s:o, s:o}",
			 "seq", (json_int_t)p->seq, "commit", json_str(p->sha),
			 "base", json_str(p->base), "subject", json_str(p->subject),
			 "tested", jnum(p->tested), "n", (json_int_t)p->n,
			 "mean", p->n ? jnum(s.mean) : json_null(),
			 "stddev", p->n > 1 ? jnum(s.stddev) : json_null(),
			 "min", p->n ? jnum(s.min) : json_null(),
			 "max", p->n ? jnum(s.max) : json_null(), "runs", runs);
}

static json_t *change_json(const struct history *h, const struct history_change *c)
{
	json_t *alerts = json_array();

	for (size_t i = 0; i < h->nr_alerts; i++)
		if (alert_spans(h, &h->alerts[i], c))
			append(&alerts, json_integer(h->alerts[i].id));
	return json_pack("{s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:I, s:o}",
			 "index", (json_int_t)c->index,
			 "seq_before", (json_int_t)h->points[c->index - 1].seq,
			 "seq_after", (json_int_t)h->points[c->index].seq,
			 "commit_before", json_str(h->points[c->index - 1].sha),
			 "commit_after", json_str(h->points[c->index].sha),
			 "before", jnum(c->before), "after", jnum(c->after), "pct", jnum(c->pct),
			 "p", jnum(c->p), "tentative", c->tentative,
			 "outliers", (json_int_t)c->outliers, "alerts", alerts);
}

static json_t *alert_json(const struct history *h, const struct history_alert *a)
{
	return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "id", (json_int_t)a->id, "state", json_str(a->state),
			 "how", json_str(a->how), "before", json_str(a->before),
			 "after", json_str(a->after), "index_before", jindex(h, a->before),
			 "index_after", jindex(h, a->after), "pct", jnum(a->pct),
			 "culprit", json_str(a->culprit), "bisect", jid(a->bisect_id),
			 "report", jid(a->report_id), "note", json_str(a->note));
}

static json_t *detector_json(const struct cp_opts *o)
{
	if (!o)
		return json_null();
	return json_pack("{s:s, s:I, s:o, s:I, s:I, s:o, s:o, s:o}", "method",
			 "perfbot-changepoint", "window", (json_int_t)o->window,
			 "alpha", jnum(o->alpha), "min_side", (json_int_t)o->min_side,
			 "min_tail", (json_int_t)o->min_tail, "tail_alpha", jnum(o->tail_alpha),
			 "min_pct", jnum(o->min_pct), "outlier_k", jnum(o->outlier_k));
}

int report_history_json(FILE *out, const struct history *h)
{
	json_t *points = json_array(), *changes = json_array(), *alerts = json_array();
	json_t *root;
	const char *why, *better;
	int err = 0;

	if (report_history_check(h, &why)) {
		json_decref(points);
		json_decref(changes);
		json_decref(alerts);
		return -EINVAL;
	}
	for (size_t i = 0; i < h->nr_points; i++)
		append(&points, point_json(&h->points[i]));
	for (size_t i = 0; i < h->nr_changes; i++)
		append(&changes, change_json(h, &h->changes[i]));
	for (size_t i = 0; i < h->nr_alerts; i++)
		append(&alerts, alert_json(h, &h->alerts[i]));
	better = better_word(h->better);
	root = json_pack("{s:s, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "schema", SCHEMA_NAME, "version", SCHEMA_VERSION,
			 "tree", json_str(h->tree), "branch", json_str(h->branch),
			 "testbox", json_str(h->testbox), "job", json_str(h->job),
			 "metric", json_str(h->metric),
			 "unit", has_unit(h) ? json_str(h->unit) : json_null(),
			 "better", better ? json_string(better) : json_null(),
			 "detector", detector_json(h->detector), "points", points,
			 "changes", changes, "alerts", alerts);
	err = report_json_dump(out, root);
	return err ? err : finish(out);
}

/* ---- HTML ---- */

static const char history_css[] =
	"svg .meanline{fill:none;stroke:#222;stroke-width:1.5}\n"
	"svg .cp{stroke:#c00;stroke-width:2}\n"
	"svg .cp.tentative{stroke:#e08020;stroke-dasharray:5 3}\n"
	"svg .cplabel{font-size:11px;text-anchor:middle;fill:#c00}\n"
	"svg .cplabel.tentative{fill:#b06000}\n"
	"svg .alert{stroke:#8a4fc0;stroke-width:3}\n"
	"svg .alertlabel{font-size:11px;fill:#8a4fc0}\n"
	"tr.cp td{background:#fee}\n"
	"td.marks{font-family:monospace;color:#b00}\n"
	"svg .pt{fill:transparent}\n"
	"svg .pt:hover{fill:#4a7fc0;fill-opacity:0.12}\n"
	"svg .cpstate{font-size:10px;text-anchor:middle;fill:#c00}\n";


static void html_num(FILE *out, double v)
{
	char buf[64];

	report_format_number(buf, sizeof(buf), v);
	fprintf(out, "<td class=\"num\">%s</td>", buf);
}

/* "metric (unit)": the y axis' label */
static void html_metric_unit(FILE *out, const struct history *h)
{
	report_html_puts(out, h->metric);
	if (has_unit(h)) {
		fputs(" (", out);
		report_html_puts(out, h->unit);
		fputc(')', out);
	}
}

static void plot_axis(const struct history *h, struct report_axis *a)
{
	for (size_t i = 0; i < h->nr_points; i++)
		for (size_t k = 0; k < h->points[i].n; k++)
			report_axis_widen(a, h->points[i].values[k]);
	report_axis_pad(a);
}

/* Every run a dot at its point, spread sideways; the means joined. */
static void plot_runs(FILE *out, const struct history *h, const struct report_axis *a)
{
	size_t n = h->nr_points;
	double spread = fmin(2.5, (PLOT_W - MARGIN_L - MARGIN_R) / (double)n / 6);
	bool started = false;

	for (size_t i = 0; i < n; i++) {
		const struct history_point *p = &h->points[i];
		double x = report_plot_x((double)i, n);

		for (size_t k = 0; k < p->n; k++)
			fprintf(out, "<circle class=\"run\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" "
				"data-i=\"%zu\" data-dx=\"%.2f\" data-v=\"%.10g\"/>\n",
				x + ((double)(k % 5) - 2) * spread, report_axis_y(a, p->values[k]), i,
				((double)(k % 5) - 2) * spread, p->values[k]);
	}
	for (size_t i = 0; i < n; i++) {
		const struct history_point *p = &h->points[i];
		struct summary s;

		if (!p->n)
			continue;
		summarize(p->values, p->n, &s);
		fprintf(out, "%s%.1f,%.1f", started ? " " : "<polyline class=\"meanline\" points=\"",
			report_plot_x((double)i, n), report_axis_y(a, s.mean));
		started = true;
	}
	if (!started)
		return;
	/* the means by index, for the page's script to redraw the line */
	fputs("\" data-m=\"", out);
	started = false;
	for (size_t i = 0; i < n; i++) {
		struct summary s;

		if (!h->points[i].n)
			continue;
		summarize(h->points[i].values, h->points[i].n, &s);
		fprintf(out, "%s%zu,%.10g", started ? " " : "", i, s.mean);
		started = true;
	}
	fputs("\"/>\n", out);
}

/* A vertical line between the points either side, its %change above. */
static void plot_changes(FILE *out, const struct history *h)
{
	size_t n = h->nr_points;
	double top = MARGIN_T, bottom = PLOT_H - MARGIN_B;

	for (size_t c = 0; c < h->nr_changes; c++) {
		const struct history_change *ch = &h->changes[c];
		double x = report_plot_x((double)ch->index - 0.5, n);
		const char *cls = ch->tentative ? "cp tentative" : "cp";

		const char *state = report_history_change_state(h, ch);
		const struct history_point *at = &h->points[ch->index];

		/* data-sha: the first point after it, where a reader looks for it */
		fprintf(out, "<line class=\"%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			"data-i=\"%zu\" data-sha=\"", cls, x, top, x, bottom, ch->index);
		report_html_puts(out, at->sha);
		fputs("\" data-state=\"", out);
		report_html_puts(out, state);
		fprintf(out, "\"><title>change point: %+.1f%%%s, ", ch->pct,
			ch->tentative ? " (tentative)" : "");
		report_html_puts(out, state);
		fprintf(out, ", at seq %" PRId64 " ", at->seq);
		report_html_short_id(out, at->sha);
		if (at->subject) {
			fputs(" ", out);
			report_html_puts(out, at->subject);
		}
		fputs("</title></line>\n", out);
		fprintf(out, "<text class=\"cp%s\" x=\"%.1f\" y=\"%.1f\" data-i=\"%zu\">%+.1f%%%s"
			"</text>\n", ch->tentative ? "label tentative" : "label", x,
			/* neighbours' labels on two rows: above the frame, inside it */
			c % 2 ? top + 12 : top - 6, ch->index, ch->pct,
			ch->tentative ? "?" : "");
		/* the state in words, not only as a colour */
		fprintf(out, "<text class=\"cpstate\" x=\"%.1f\" y=\"%.1f\" data-i=\"%zu\">", x,
			c % 2 ? top + 23 : top + 10, ch->index);
		report_html_puts(out, state);
		fputs("</text>\n", out);
	}
}

/* Each alert: a bar under the points it spans, "alert N: state" beside it. */
static void plot_alerts(FILE *out, const struct history *h)
{
	size_t n = h->nr_points, row = 0;
	double bottom = PLOT_H - MARGIN_B;

	for (size_t i = 0; i < h->nr_alerts; i++) {
		const struct history_alert *al = &h->alerts[i];
		size_t b = report_history_find(h, al->before), e = report_history_find(h, al->after);
		double x1, x2, y = bottom - 6 - 14 * (double)(row % 4);

		if (e == SIZE_MAX)
			continue;
		x2 = report_plot_x((double)e, n);
		x1 = b != SIZE_MAX && b < e ? report_plot_x((double)b, n) : x2 - 4;
		fprintf(out, "<line class=\"alert\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			"data-i1=\"%.1f\" data-i2=\"%zu\"/>\n", x1, y, x2, y,
			b != SIZE_MAX && b < e ? (double)b : (double)e - 0.1, e);
		/* the label inside the frame, on the side with room */
		if (x2 > (PLOT_W + MARGIN_L - MARGIN_R) / 2.0)
			fprintf(out, "<text class=\"alertlabel\" text-anchor=\"end\" x=\"%.1f\" y=\"%.1f\">",
				x1 - 4, y + 4);
		else
			fprintf(out, "<text class=\"alertlabel\" x=\"%.1f\" y=\"%.1f\">", x2 + 4,
				y + 4);
		fprintf(out, "alert %" PRId64 ": ", al->id);
		report_html_puts(out, al->state);
		fputs("</text>\n", out);
		row++;
	}
}

/*
 * A band over each point, its <title> naming the commit, its subject and
 * the mean: the tooltip, with scripts off too.  Cost: a rect a point.
 */
static void plot_point_titles(FILE *out, const struct history *h)
{
	size_t n = h->nr_points;
	double w = (PLOT_W - MARGIN_L - MARGIN_R) / (double)n;

	for (size_t i = 0; i < n; i++) {
		const struct history_point *p = &h->points[i];
		struct summary s;
		char mean[64];

		fprintf(out, "<rect class=\"pt\" x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" "
			"data-i=\"%zu\" data-seq=\"%" PRId64 "\"><title>seq %" PRId64 " ",
			report_plot_x((double)i, n) - w / 2, MARGIN_T, w, PLOT_H - MARGIN_T - MARGIN_B,
			i, p->seq, p->seq);
		report_html_short_id(out, p->sha);
		if (p->subject) {
			fputs(" ", out);
			report_html_puts(out, p->subject);
		}
		if (p->n) {
			summarize(p->values, p->n, &s);
			report_format_number(mean, sizeof(mean), s.mean);
			fprintf(out, ": mean %s of %zu run%s", mean, p->n, p->n == 1 ? "" : "s");
		} else {
			fputs(": no run", out);
		}
		fputs("</title></rect>\n", out);
	}
}

/* x ticks: the points' seq at 1, 2 or 5 times a power of ten of the index */
static void plot_x_ticks(FILE *out, const struct history *h)
{
	size_t n = h->nr_points;
	double step = n > 1 ? fmax(1, round(report_nice_step((double)(n - 1)))) : 1;

	fputs("<g class=\"xticks\">", out);
	for (double t = 0; t < (double)n; t += step)
		fprintf(out, "<text class=\"commit\" x=\"%.1f\" y=\"%d\">%" PRId64 "</text>\n",
			report_plot_x(t, n), PLOT_H - MARGIN_B + 16, h->points[(size_t)t].seq);
	fputs("</g>\n", out);
}

static void html_plot(FILE *out, const struct history *h)
{
	struct report_axis a = { INFINITY, -INFINITY };
	struct strbuf title = STRBUF_INIT;
	strbuf_addf(&title, "%s of %s on %s/%s, %s", h->metric, h->job, h->tree, h->branch,
		    h->testbox);
	plot_axis(h, &a);
	fputs("<figure class=\"history\">\n", out);
	report_svg_begin(out, strbuf_error(&title) ? h->metric : title.buf);
	fprintf(out, "<desc>Every run's value of the metric at each of the %zu points the "
		"robot tested (dots), the points' means (line), %zu change point%s (red "
		"vertical lines, dashed when tentative) and %zu alert%s (purple bars).</desc>\n",
		h->nr_points, h->nr_changes, h->nr_changes == 1 ? "" : "s", h->nr_alerts,
		h->nr_alerts == 1 ? "" : "s");
	fputs("<g class=\"yticks\">", out);
	report_svg_y_ticks(out, &a);
	fputs("</g>\n", out);
	plot_x_ticks(out, h);
	plot_point_titles(out, h);
	report_svg_axis_labels(out, "point (the robot's seq on the branch), oldest first",
			       h->metric, has_unit(h) ? h->unit : NULL);
	plot_runs(out, h, &a);
	plot_changes(out, h);
	plot_alerts(out, h);
	fputs("</svg>\n<figcaption>", out);
	html_metric_unit(out, h);
	fputs(": every run (dots) of each point the robot tested on the branch, oldest "
	      "first; the points' means (black line); change points (red lines between the "
	      "points either side, labelled with the %change; orange dashes and \"?\" when "
	      "tentative); the robot's alerts (purple bars from the point before to the point "
	      "after, labelled with their state)</figcaption>\n</figure>\n", out);
	strbuf_release(&title);
}

static void html_point_ref(FILE *out, const struct history *h, const char *sha)
{
	size_t i = report_history_find(h, sha);

	if (i != SIZE_MAX)
		fprintf(out, "%" PRId64 " ", h->points[i].seq);
	fputs("<span class=\"name\">", out);
	report_html_short_id(out, sha);
	fputs("</span>", out);
	if (i == SIZE_MAX)
		fputs(" (not a point)", out);
}

static void html_points(FILE *out, const struct history *h, const struct history_html_opts *o)
{
	bool site = o && o->site;

	fprintf(out, "<table>\n<tr><th>seq</th><th>commit</th><th>runs</th><th>mean</th>"
		"<th>stddev</th><th>min</th><th>max</th><th>marks</th><th>subject</th>%s</tr>\n",
		site ? "<th>every run's value, oldest first</th>" : "");
	for (size_t i = 0; i < h->nr_points; i++) {
		const struct history_point *p = &h->points[i];
		struct strbuf marks = STRBUF_INIT;
		struct summary s;

		text_marks(&marks, h, i);
		fprintf(out, "<tr%s><td class=\"num\">%" PRId64 "</td><td class=\"name\">",
			strchr(marks.buf, '|') ? " class=\"cp\"" : "", p->seq);
		if (site && o->run_ids && o->run_ids[i]) {
			/* the newest run at the point, in full */
			fprintf(out, "<a href=\"run-%" PRId64 ".html\">", o->run_ids[i]);
			report_html_short_id(out, p->sha);
			fputs("</a>", out);
		} else {
			report_html_short_id(out, p->sha);
		}
		fprintf(out, "</td><td class=\"num\">%zu</td>", p->n);
		if (p->n) {
			summarize(p->values, p->n, &s);
			html_num(out, s.mean);
			if (p->n > 1)
				html_num(out, s.stddev);
			else
				fputs("<td></td>", out);
			html_num(out, s.min);
			html_num(out, s.max);
		} else {
			fputs("<td colspan=\"4\">no run</td>", out);
		}
		fputs("<td class=\"marks\">", out);
		report_html_puts(out, marks.buf);
		fputs("</td><td>", out);
		report_html_puts(out, p->subject);
		fputs("</td>", out);
		if (site) {
			fputs("<td class=\"vals\">", out);
			for (size_t k = 0; k < p->n; k++) {
				char v[64];

				report_format_number(v, sizeof(v), p->values[k]);
				fprintf(out, "%s%s", k ? " " : "", v);
			}
			fputs("</td>", out);
		}
		fputs("</tr>\n", out);
		strbuf_release(&marks);
	}
	fputs("</table>\n<p>marks: <code>|</code> a change point between this point and the "
	      "one before (<code>?</code> tentative), with its %change; <code>A</code><em>N</em> "
	      "alert <em>N</em> ends at this point.</p>\n", out);
}

static void html_changes(FILE *out, const struct history *h)
{
	if (!h->nr_changes) {
		fputs("<p>No change point in this history.</p>\n", out);
		return;
	}
	fputs("<table>\n<tr><th>before</th><th>after</th><th>level before</th>"
	      "<th>level after</th><th>%change</th><th>p</th><th>state</th><th>alerts</th>"
	      "</tr>\n", out);
	for (size_t c = 0; c < h->nr_changes; c++) {
		const struct history_change *ch = &h->changes[c];
		bool any = false;

		fputs("<tr><td>", out);
		html_point_ref(out, h, h->points[ch->index - 1].sha);
		fputs("</td><td>", out);
		html_point_ref(out, h, h->points[ch->index].sha);
		fputs("</td>", out);
		html_num(out, ch->before);
		html_num(out, ch->after);
		fprintf(out, "<td class=\"num\">%+.1f%%</td><td class=\"num\">%.2g</td><td>%s",
			ch->pct, ch->p, ch->tentative ? "tentative" : "change");
		if (ch->outliers)
			fprintf(out, " (%zu outlier point%s set aside)", ch->outliers,
				ch->outliers == 1 ? "" : "s");
		fputs("</td><td>", out);
		for (size_t i = 0; i < h->nr_alerts; i++) {
			if (!alert_spans(h, &h->alerts[i], ch))
				continue;
			fprintf(out, "%s%" PRId64 " (", any ? ", " : "", h->alerts[i].id);
			report_html_puts(out, h->alerts[i].state);
			fputc(')', out);
			any = true;
		}
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

static void html_alerts(FILE *out, const struct history *h, const struct history_html_opts *o)
{
	bool site = o && o->site;

	if (!h->nr_alerts) {
		fputs("<p>The robot has no alert on this metric of this branch.</p>\n", out);
		return;
	}
	fputs("<table>\n<tr><th>alert</th><th>state</th><th>found by</th><th>%change</th>"
	      "<th>before</th><th>after</th><th>culprit</th><th>report</th><th>note</th></tr>\n",
	      out);
	for (size_t i = 0; i < h->nr_alerts; i++) {
		const struct history_alert *a = &h->alerts[i];

		if (site)
			fprintf(out, "<tr><td class=\"num\"><a href=\"alert-%" PRId64 ".html\">%"
				PRId64 "</a></td><td>", a->id, a->id);
		else
			fprintf(out, "<tr><td class=\"num\">%" PRId64 "</td><td>", a->id);
		report_html_puts(out, a->state);
		fputs("</td><td>", out);
		report_html_puts(out, a->how);
		fputs("</td>", out);
		if (isfinite(a->pct))
			fprintf(out, "<td class=\"num\">%+.1f%%</td>", a->pct);
		else
			fputs("<td></td>", out);
		fputs("<td>", out);
		html_point_ref(out, h, a->before);
		fputs("</td><td>", out);
		html_point_ref(out, h, a->after);
		fputs("</td><td class=\"name\">", out);
		if (a->culprit)
			report_html_short_id(out, a->culprit);
		if (site && a->bisect_id)
			fprintf(out, " (<a href=\"bisect-%" PRId64 ".html\">bisection %" PRId64
				"</a>)", a->bisect_id, a->bisect_id);
		fputs("</td><td class=\"num\">", out);
		if (a->report_id)
			fprintf(out, "%" PRId64, a->report_id);
		fputs("</td><td>", out);
		report_html_puts(out, a->note);
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

static void html_title(FILE *out, const struct history *h)
{
	fputs("perfbot history: ", out);
	report_html_puts(out, h->metric);
	fputs(" of ", out);
	report_html_puts(out, h->job);
	fputs(" on ", out);
	report_html_puts(out, h->tree);
	fputc('/', out);
	report_html_puts(out, h->branch);
}

/*
 * The series page's script (history_html_opts.interactive): zoom and pan
 * (buttons, the wheel, dragging), a log scale and values relative to a
 * reference point's mean, by moving the plot's own elements -- their
 * data-i (the point's index), data-v (a run's value) and the meanline's
 * data-m -- and redrawing the ticks.  The page reads the same without it.
 */
static const char plot_script[] =
	"(function () {\n"
	"  var fig = document.querySelector(\"figure.history\"), svg = fig && fig.querySelector(\"svg\");\n"
	"  if (!svg) return;\n"
	"  var NS = svg.namespaceURI, L = 90, R = 620, T = 20, B = 250;\n"
	"  var q = function (s) { return Array.prototype.slice.call(svg.querySelectorAll(s)); };\n"
	"  var pts = q(\"rect.pt\"), runs = q(\"circle.run\"), n = pts.length, lo = 0, hi = n;\n"
	"  var ml = svg.querySelector(\"polyline.meanline\"), means = {}, seqs = [];\n"
	"  var ylabel = svg.querySelector(\".ylabel\"), ytext = ylabel ? ylabel.textContent : \"\";\n"
	"  var log = document.getElementById(\"plot-log\"), ref = document.getElementById(\"plot-ref\");\n"
	"  var say = document.getElementById(\"plot-status\");\n"
	"  if (ml) ml.getAttribute(\"data-m\").split(\" \").forEach(function (p) {\n"
	"    var a = p.split(\",\"); means[+a[0]] = +a[1];\n"
	"  });\n"
	"  pts.forEach(function (r) { seqs[+r.getAttribute(\"data-i\")] = r.getAttribute(\"data-seq\"); });\n"
	"  function refIndex() {\n"
	"    var v = ref.value.trim(), i = seqs.indexOf(v);\n"
	"    return v === \"\" || i < 0 || !(means[i] > 0) ? -1 : i;\n"
	"  }\n"
	"  function el(name, attrs, text) {\n"
	"    var e = document.createElementNS(NS, name);\n"
	"    for (var k in attrs) e.setAttribute(k, attrs[k]);\n"
	"    if (text !== undefined) e.textContent = text;\n"
	"    return e;\n"
	"  }\n"
	"  function nice(range) {\n"
	"    var m = Math.pow(10, Math.floor(Math.log10(range / 4))), r = range / 4 / m;\n"
	"    return (r < 1.5 ? 1 : r < 3.5 ? 2 : r < 7.5 ? 5 : 10) * m;\n"
	"  }\n"
	"  function draw() {\n"
	"    var ri = refIndex(), lg = log.checked, w = (R - L) / (hi - lo);\n"
	"    var f = function (v) {\n"
	"      if (ri >= 0) v = v / means[ri];\n"
	"      return lg ? (v > 0 ? Math.log10(v) : NaN) : v;\n"
	"    };\n"
	"    var inv = function (t) { return lg ? Math.pow(10, t) : t; };\n"
	"    var X = function (i) { return L + (i - lo + 0.5) * w; };\n"
	"    var vis = function (i) { return i >= lo && i < hi; };\n"
	"    var a = Infinity, b = -Infinity;\n"
	"    runs.forEach(function (c) {\n"
	"      var y = f(+c.getAttribute(\"data-v\"));\n"
	"      if (vis(+c.getAttribute(\"data-i\")) && isFinite(y)) { a = Math.min(a, y); b = Math.max(b, y); }\n"
	"    });\n"
	"    if (!isFinite(a)) { a = 0; b = 1; }\n"
	"    if (b - a <= Math.abs(b) * 1e-12) { var p = b ? Math.abs(b) * 0.05 : 1; a -= p; b += p; }\n"
	"    else { var d = (b - a) * 0.08; a -= d; b += d; }\n"
	"    var Y = function (t) { return B - (t - a) / (b - a) * (B - T); };\n"
	"    var show = function (e, on) { e.style.display = on ? \"\" : \"none\"; };\n"
	"    runs.forEach(function (c) {\n"
	"      var i = +c.getAttribute(\"data-i\"), y = f(+c.getAttribute(\"data-v\"));\n"
	"      show(c, vis(i) && isFinite(y));\n"
	"      c.setAttribute(\"cx\", X(i) + (+c.getAttribute(\"data-dx\")) * Math.min(1, n / (hi - lo)));\n"
	"      if (isFinite(y)) c.setAttribute(\"cy\", Y(y));\n"
	"    });\n"
	"    if (ml) ml.setAttribute(\"points\", Object.keys(means).filter(function (i) {\n"
	"      return vis(+i) && isFinite(f(means[i]));\n"
	"    }).map(function (i) { return X(+i) + \",\" + Y(f(means[i])); }).join(\" \"));\n"
	"    q(\"line.cp\").forEach(function (e) {\n"
	"      var x = X(+e.getAttribute(\"data-i\") - 0.5);\n"
	"      e.setAttribute(\"x1\", x); e.setAttribute(\"x2\", x);\n"
	"      show(e, x > L && x < R);\n"
	"    });\n"
	"    q(\"text.cplabel, text.cpstate\").forEach(function (e) {\n"
	"      var x = X(+e.getAttribute(\"data-i\") - 0.5);\n"
	"      e.setAttribute(\"x\", x); show(e, x > L && x < R);\n"
	"    });\n"
	"    q(\"line.alert\").forEach(function (e) {\n"
	"      var x1 = Math.max(L, X(+e.getAttribute(\"data-i1\"))), x2 = Math.min(R, X(+e.getAttribute(\"data-i2\")));\n"
	"      e.setAttribute(\"x1\", x1); e.setAttribute(\"x2\", x2); show(e, x1 < x2);\n"
	"    });\n"
	"    q(\"text.alertlabel\").forEach(function (e) { show(e, lo === 0 && hi === n); });\n"
	"    pts.forEach(function (r) {\n"
	"      var i = +r.getAttribute(\"data-i\");\n"
	"      r.setAttribute(\"x\", X(i) - w / 2); r.setAttribute(\"width\", w); show(r, vis(i));\n"
	"    });\n"
	"    var yg = svg.querySelector(\"g.yticks\"), xg = svg.querySelector(\"g.xticks\");\n"
	"    yg.textContent = \"\";\n"
	"    var st = nice(b - a);\n"
	"    for (var t = Math.ceil(a / st) * st; t <= b + st * 1e-9; t += st) {\n"
	"      var v = inv(t), y = Y(t);\n"
	"      yg.appendChild(el(\"line\", { \"class\": \"grid\", x1: L, y1: y, x2: R, y2: y }));\n"
	"      yg.appendChild(el(\"text\", { \"class\": \"tick\", x: L - 6, y: y + 4 },\n"
	"        ri >= 0 ? ((v - 1) * 100).toFixed(1) + \"%\" : Number(v.toPrecision(4)).toString()));\n"
	"    }\n"
	"    xg.textContent = \"\";\n"
	"    var xs = Math.max(1, Math.round(nice(Math.max(1, hi - lo - 1))));\n"
	"    for (var i = lo; i < hi; i += xs)\n"
	"      xg.appendChild(el(\"text\", { \"class\": \"commit\", x: X(i), y: B + 16 }, seqs[i]));\n"
	"    if (ylabel) ylabel.textContent = (ri >= 0 ? \"change against seq \" + seqs[ri] + \" of \" : \"\") +\n"
	"      ytext + (lg ? \" (log scale)\" : \"\");\n"
	"    say.textContent = \"showing points \" + seqs[lo] + \" to \" + seqs[hi - 1] +\n"
	"      (ri >= 0 ? \", relative to seq \" + seqs[ri] : \"\") + (lg ? \", log scale\" : \"\") +\n"
	"      (ref.value.trim() !== \"\" && ri < 0 ? \" (no point with seq \" + ref.value.trim() + \" and a positive mean)\" : \"\");\n"
	"  }\n"
	"  function zoom(k, c) {\n"
	"    var w = Math.max(3, Math.min(n, Math.round((hi - lo) * k)));\n"
	"    c = c === undefined ? (lo + hi) / 2 : c;\n"
	"    lo = Math.max(0, Math.min(n - w, Math.round(c - w / 2))); hi = lo + w; draw();\n"
	"  }\n"
	"  function pan(d) {\n"
	"    var w = hi - lo, s = Math.max(1, Math.round(w * d));\n"
	"    lo = Math.max(0, Math.min(n - w, lo + s)); hi = lo + w; draw();\n"
	"  }\n"
	"  document.getElementById(\"plot-controls\").hidden = false;\n"
	"  document.getElementById(\"plot-controls\").addEventListener(\"click\", function (ev) {\n"
	"    var a = ev.target.getAttribute && ev.target.getAttribute(\"data-act\");\n"
	"    if (a === \"in\") zoom(0.5);\n"
	"    else if (a === \"out\") zoom(2);\n"
	"    else if (a === \"left\") pan(-0.5);\n"
	"    else if (a === \"right\") pan(0.5);\n"
	"    else if (a === \"reset\") { lo = 0; hi = n; log.checked = false; ref.value = \"\"; draw(); }\n"
	"  });\n"
	"  log.addEventListener(\"change\", draw);\n"
	"  ref.addEventListener(\"change\", draw);\n"
	"  svg.addEventListener(\"wheel\", function (ev) {\n"
	"    ev.preventDefault();\n"
	"    var box = svg.getBoundingClientRect(), x = (ev.clientX - box.left) * 640 / box.width;\n"
	"    zoom(ev.deltaY < 0 ? 0.8 : 1.25, lo + (x - L) / (R - L) * (hi - lo));\n"
	"  }, { passive: false });\n"
	"  var drag = null;\n"
	"  svg.addEventListener(\"pointerdown\", function (ev) { drag = { x: ev.clientX, lo: lo }; });\n"
	"  window.addEventListener(\"pointerup\", function () { drag = null; });\n"
	"  svg.addEventListener(\"pointermove\", function (ev) {\n"
	"    if (!drag) return;\n"
	"    var box = svg.getBoundingClientRect(), w = hi - lo;\n"
	"    var d = Math.round(-(ev.clientX - drag.x) * 640 / box.width / (R - L) * w);\n"
	"    var nl = Math.max(0, Math.min(n - w, drag.lo + d));\n"
	"    if (nl !== lo) { lo = nl; hi = nl + w; draw(); }\n"
	"  });\n"
	"  draw();\n"
	"})();\n";

/* The controls: hidden until the script shows them (useless without it). */
static void html_controls(FILE *out, const struct history *h)
{
	fprintf(out, "<div id=\"plot-controls\" class=\"controls\" role=\"group\" "
		"aria-label=\"plot controls\" hidden>\n"
		"<button type=\"button\" data-act=\"in\">zoom in</button>\n"
		"<button type=\"button\" data-act=\"out\">zoom out</button>\n"
		"<button type=\"button\" data-act=\"left\">&larr; earlier</button>\n"
		"<button type=\"button\" data-act=\"right\">later &rarr;</button>\n"
		"<button type=\"button\" data-act=\"reset\">reset</button>\n"
		"<label><input type=\"checkbox\" id=\"plot-log\"> log scale</label>\n"
		"<label>relative to the point with seq <input type=\"number\" id=\"plot-ref\" "
		"min=\"%" PRId64 "\" max=\"%" PRId64 "\" size=\"6\"></label>\n"
		"<output id=\"plot-status\" aria-live=\"polite\"></output>\n</div>\n",
		h->points[0].seq, h->points[h->nr_points - 1].seq);
}

int report_history_html(FILE *out, const struct history *h)
{
	return report_history_html_opts(out, h, NULL);
}

int report_history_html_opts(FILE *out, const struct history *h,
			     const struct history_html_opts *o)
{
	const char *why;

	if (report_history_check(h, &why))
		return -EINVAL;
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>",
	      out);
	html_title(out, h);
	fprintf(out, "</title>\n<style>\n%s%s%s</style>\n</head>\n<body>\n%s<h1>",
		report_html_css, history_css, o && o->css ? o->css : "",
		o && o->nav ? o->nav : "");
	html_title(out, h);
	fputs("</h1>\n<dl>\n", out);
	report_html_dl(out, "metric", h->metric);
	if (has_unit(h))
		report_html_dl(out, "unit", h->unit);
	report_html_dl(out, "better", better_word(h->better));
	report_html_dl(out, "job", h->job);
	report_html_dl(out, "testbox", h->testbox);
	report_html_dl(out, "tree", h->tree);
	report_html_dl(out, "branch", h->branch);
	fprintf(out, "<dt>points</dt><dd>%zu</dd>\n<dt>change points</dt><dd>%zu</dd>\n"
		"<dt>alerts</dt><dd>%zu</dd>\n</dl>\n", h->nr_points, h->nr_changes, h->nr_alerts);
	if (o && o->interactive)
		html_controls(out, h);
	html_plot(out, h);
	fputs("<section>\n<h2>Change points</h2>\n", out);
	html_changes(out, h);
	fputs("</section>\n<section>\n<h2>Alerts</h2>\n", out);
	html_alerts(out, h, o);
	fputs("</section>\n<section>\n<h2>Points</h2>\n", out);
	html_points(out, h, o);
	fputs("</section>\n", out);
	if (o && o->interactive)
		fprintf(out, "<script>\n%s</script>\n", plot_script);
	fputs("</body>\n</html>\n", out);
	return finish(out);
}

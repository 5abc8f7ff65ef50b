/*
 * html.c - the report as one self-contained HTML5 file (docs/design.md §9).
 *
 * Self-contained because reports are mailed, archived and opened offline:
 * inline CSS, SVG plots drawn here, no script, no external reference.
 * Every string from the input goes through report_html_puts(): stat
 * names hold '<', '&' and quotes (dmesg.WARNING:at_<function>), and commit
 * subjects are whatever a developer typed.  The helpers bisect.c shares
 * are declared in internal.h.
 */
#include "report/report.h"
#include "report/internal.h"
#include "util/quote.h"
#include "util/vec.h"
#include "stats/ttest.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void report_html_puts(FILE *out, const char *s)
{
	size_t len, n;

	if (!s)
		return;
	len = strlen(s);
	for (size_t i = 0; i < len; i += n) {
		n = 1;
		switch (s[i]) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&#39;", out);
			break;
		default:
			/*
			 * A page is UTF-8: an invalid byte (an old store, a
			 * commit in another encoding) or a control character
			 * HTML forbids becomes U+FFFD, so the name still shows.
			 */
			n = utf8_char_len(s + i, len - i);
			if (!n || ((unsigned char)s[i] < 0x20 && s[i] != '\t' &&
				   s[i] != '\n') || s[i] == 0x7f) {
				fputs("\xef\xbf\xbd", out);
				n = 1;
			} else {
				fwrite(s + i, 1, n, out);
			}
		}
	}
}

/* Commit ids are 40-hex shas or labels; 12 characters tell them apart. */
void report_html_short_id(FILE *out, const char *id)
{
	char buf[13];

	snprintf(buf, sizeof(buf), "%s", id ? id : "?");
	report_html_puts(out, buf);
}

static void put_mean(FILE *out, const struct summary *s)
{
	char num[64];
	long long rel;

	report_format_number(num, sizeof(num), s->mean);
	fprintf(out, "<td class=\"num\">%s", num);
	if (report_lkp_stddev(s, &rel))
		fprintf(out, " &plusmn;%lld%%", rel);
	fputs("</td>", out);
}

static void put_change(FILE *out, const struct pct_change *c)
{
	char buf[64];

	report_format_change(buf, sizeof(buf), c);
	fprintf(out, "<td class=\"num\">%s</td>", buf);
}

/*
 * One class a verdict, its name with a dash for the space: v-changed,
 * v-small, v-new, v-gone, v-unknown, v-few-runs, ...
 */
static void put_verdict_class(FILE *out, enum verdict v)
{
	for (const char *c = verdict_name(v); *c; c++)
		fputc(*c == ' ' ? '-' : *c, out);
}

/*
 * A change's direction as a class beside v-changed: a regression red, an
 * improvement green, a change neither way is better by neutral blue.
 * Never colour alone: the cell's words say it too.
 */
static const char *direction_class(const struct stat_row *row, size_t col)
{
	const struct stat_vs *v = &row->vs[col];
	const char *w = v->verdict == VERDICT_CHANGED ?
			report_better_word(row->better, v->change.pct) : NULL;

	return !w ? "" : !strcmp(w, "regression") ? " regression" : " improvement";
}

static void put_verdict(FILE *out, const struct stat_row *row, size_t col)
{
	struct strbuf sb = STRBUF_INIT;
	const struct stat_vs *v = &row->vs[col];

	report_verdict_words(&sb, row, col, true);
	fputs("<td class=\"v-", out);
	put_verdict_class(out, v->verdict);
	fprintf(out, "%s%s\">", direction_class(row, col), v->disturbed ? " disturbed" : "");
	report_html_puts(out, strbuf_error(&sb) ? verdict_name(v->verdict) : sb.buf);
	fputs("</td>", out);
	strbuf_release(&sb);
}

/* The rows the text table shows (report_write_table()), no other. */
static bool row_shown(const struct report *r, const struct report_job *j,
		      const struct stat_row *row)
{
	return report_row_listed(r, j, row);
}

static void put_fails(FILE *out, unsigned fails, unsigned runs)
{
	/* ":2" as LKP writes it: no failure reads at a glance */
	if (fails)
		fprintf(out, "<td class=\"num\">%u:%u</td>", fails, runs);
	else
		fprintf(out, "<td class=\"num\">:%u</td>", runs);
}

static void commit_headers(FILE *out, const struct report *r, const char *first,
			   const char *per_commit)
{
	fputs("<tr><th rowspan=\"2\">stat</th><th>", out);
	report_html_short_id(out, r->commits[0].id);
	fputs(" (base)</th>", out);
	for (size_t c = 1; c < r->ncommits; c++) {
		fputs("<th colspan=\"3\">", out);
		report_html_short_id(out, r->commits[c].id);
		fputs("</th>", out);
	}
	fprintf(out, "</tr>\n<tr><th>%s</th>", first);
	for (size_t c = 1; c < r->ncommits; c++)
		fprintf(out, "%s<th>verdict</th>", per_commit);
	fputs("</tr>\n", out);
}

static size_t failure_table(FILE *out, const struct report *r,
			    const struct report_job *j)
{
	size_t shown = 0;

	for (size_t i = 0; i < j->nr_rows; i++) {
		const struct stat_row *row = &j->rows[i];

		if (row->family != FAMILY_FAILURE || !row_shown(r, j, row))
			continue;
		if (!shown++) {
			fputs("<table class=\"cmp\">\n", out);
			commit_headers(out, r, "fails:runs",
				       "<th>%reproduction</th><th>fails:runs</th>");
		}
		fputs("<tr><td class=\"name\">", out);
		report_html_puts(out, row->name);
		fputs("</td>", out);
		put_fails(out, row->base_fails, row->base_runs);
		for (size_t c = 0; c + 1 < r->ncommits; c++) {
			const struct stat_vs *v = &row->vs[c];

			char rep[64];

			report_format_reproduction(rep, sizeof(rep), v->reproduction);
			fprintf(out, "<td class=\"num\">%s</td>", rep);
			put_fails(out, v->fails, v->runs);
			put_verdict(out, row, c);
		}
		fputs("</tr>\n", out);
	}
	if (shown)
		fputs("</table>\n", out);
	return shown;
}

static size_t numeric_table(FILE *out, const struct report *r,
			    const struct report_job *j)
{
	size_t shown = 0;

	for (size_t i = 0; i < j->nr_rows; i++) {
		const struct stat_row *row = &j->rows[i];

		if (row->family == FAMILY_FAILURE || !row_shown(r, j, row))
			continue;
		if (!shown++) {
			fputs("<table class=\"cmp\">\n", out);
			commit_headers(out, r, "mean &plusmn;%stddev",
				       "<th>%change</th><th>mean &plusmn;%stddev</th>");
		}
		fprintf(out, "<tr%s><td class=\"name\">",
			row->family == FAMILY_KPI ? " class=\"kpi\"" : "");
		report_html_puts(out, row->name);
		fputs("</td>", out);
		put_mean(out, &row->base);
		for (size_t c = 0; c + 1 < r->ncommits; c++) {
			struct pct_change shown = report_table_change(&row->vs[c]);

			put_change(out, &shown);
			put_mean(out, &row->vs[c].s);
			put_verdict(out, row, c);
		}
		fputs("</tr>\n", out);
	}
	if (shown)
		fputs("</table>\n", out);
	return shown;
}

/* ---- plots ---- */

/* The samples of `name` in one commit's set (names are sorted), or NULL. */
static const double *set_values(const struct sample_set *s, const char *name,
				size_t *n)
{
	size_t lo = 0, hi = s->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int cmp = strcmp(s->names[mid], name);

		if (!cmp) {
			*n = s->counts[mid];
			return s->values[mid];
		}
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*n = 0;
	return NULL;
}

static const struct summary *row_summary(const struct stat_row *row, size_t c)
{
	return c ? &row->vs[c - 1].s : &row->base;
}

/* The level of every interval the report shows (stats/compare.h). */
static double level_of(const struct report *r)
{
	return r->opts ? r->opts->level : COMPARE_LEVEL;
}

double report_axis_y(const struct report_axis *a, double v)
{
	return MARGIN_T + (a->hi - v) / (a->hi - a->lo) * (PLOT_H - MARGIN_T - MARGIN_B);
}

double report_plot_x(double c, size_t n)
{
	return MARGIN_L + (c + 0.5) * (PLOT_W - MARGIN_L - MARGIN_R) / (double)n;
}

void report_axis_widen(struct report_axis *a, double v)
{
	if (!isfinite(v))
		return;
	if (v < a->lo)
		a->lo = v;
	if (v > a->hi)
		a->hi = v;
}

/* 1, 2 or 5 times a power of ten: tick labels a reader can add up. */
double report_nice_step(double range)
{
	double raw = range / 4, mag = pow(10, floor(log10(raw))), norm = raw / mag;

	if (norm < 1.5)
		return mag;
	if (norm < 3)
		return 2 * mag;
	if (norm < 7)
		return 5 * mag;
	return 10 * mag;
}

void report_svg_y_ticks(FILE *out, const struct report_axis *a)
{
	double step = report_nice_step(a->hi - a->lo);
	int decimals = step >= 1 ? 0 : (int)ceil(-log10(step));

	for (int i = 0;; i++) {
		/* by index, not by adding steps: no drift, no "-0" */
		double t = (ceil(a->lo / step) + i) * step, y = report_axis_y(a, t);

		if (t > a->hi + step * 1e-9)
			break;
		if (fabs(t) < step * 1e-9)
			t = 0;
		fprintf(out, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>",
			MARGIN_L, y, PLOT_W - MARGIN_R, y);
		if (fabs(t) >= 1e9)
			fprintf(out, "<text class=\"tick\" x=\"%d\" y=\"%.1f\">%.4g</text>\n",
				MARGIN_L - 6, y + 4, t);
		else
			fprintf(out, "<text class=\"tick\" x=\"%d\" y=\"%.1f\">%.*f</text>\n",
				MARGIN_L - 6, y + 4, decimals, t);
	}
}

void report_axis_pad(struct report_axis *a)
{
	if (!isfinite(a->lo)) {
		a->lo = 0;
		a->hi = 1;
	}
	/* a constant stat would divide by a zero range: give it room */
	if (a->hi - a->lo <= fabs(a->hi) * 1e-12) {
		double pad = a->hi != 0 ? fabs(a->hi) * 0.05 : 1;

		a->lo -= pad;
		a->hi += pad;
	} else {
		double pad = (a->hi - a->lo) * 0.08;

		a->lo -= pad;
		a->hi += pad;
	}
}

static void svg_begin(FILE *out, const char *title, bool file)
{
	/* HTML5 parses inline SVG without xmlns: no URL in a page at all */
	fprintf(out, "<svg %sviewBox=\"0 0 %d %d\" "
		"width=\"%d\" height=\"%d\" role=\"img\"><title>",
		file ? "xmlns=\"http://www.w3.org/2000/svg\" " : "", PLOT_W, PLOT_H,
		PLOT_W, PLOT_H);
	report_html_puts(out, title);
	fputs("</title>\n", out);
	fprintf(out, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n",
		MARGIN_L, MARGIN_T, PLOT_W - MARGIN_L - MARGIN_R,
		PLOT_H - MARGIN_T - MARGIN_B);
}

void report_svg_begin(FILE *out, const char *title)
{
	svg_begin(out, title, false);
}

void report_svg_begin_file(FILE *out, const char *title)
{
	svg_begin(out, title, true);
}

void report_svg_axis_labels(FILE *out, const char *x, const char *y, const char *unit)
{
	double ymid = (MARGIN_T + PLOT_H - MARGIN_B) / 2.0;
	size_t len = strlen(y) + (unit && *unit ? strlen(unit) + 3 : 0);

	fprintf(out, "<text class=\"axis\" x=\"%.1f\" y=\"%d\">",
		(PLOT_W + MARGIN_L - MARGIN_R) / 2.0, PLOT_H - 12);
	report_html_puts(out, x);
	/* .ylabel: a page's script rewrites it (a series page's log/relative) */
	fprintf(out, "</text>\n<text class=\"axis ylabel\" x=\"14\" y=\"%.1f\" "
		"transform=\"rotate(-90 14 %.1f)\"", ymid, ymid);
	/* about 36 characters fit beside the frame: a longer name is squeezed */
	if (len > 36)
		fprintf(out, " textLength=\"%d\" lengthAdjust=\"spacingAndGlyphs\"",
			PLOT_H - MARGIN_T - MARGIN_B);
	fputc('>', out);
	report_html_puts(out, y);
	if (unit && *unit) {
		fputs(" (", out);
		report_html_puts(out, unit);
		fputc(')', out);
	}
	fputs("</text>\n", out);
}

static void plot(FILE *out, const struct report *r, const struct report_job *j,
		 const struct stat_row *row)
{
	size_t n = r->ncommits;
	struct report_axis a = { INFINITY, -INFINITY };
	bool trend_started = false;

	for (size_t c = 0; c < n; c++) {
		const struct summary *s = row_summary(row, c);
		size_t cnt;
		const double *v = set_values(&j->sets[c], row->name, &cnt);
		double h = mean_half_interval(s, level_of(r));

		for (size_t k = 0; k < cnt; k++)
			report_axis_widen(&a, v[k]);
		if (s->n) {
			report_axis_widen(&a, s->mean);
			if (isfinite(h)) {
				report_axis_widen(&a, s->mean - h);
				report_axis_widen(&a, s->mean + h);
			}
		}
	}
	report_axis_pad(&a);

	fputs("<figure>\n", out);
	report_svg_begin(out, row->name);
	report_svg_y_ticks(out, &a);
	report_svg_axis_labels(out, "commit", row->name, row->unit);

	if (n > 2) {
		for (size_t c = 0; c < n; c++) {
			const struct summary *s = row_summary(row, c);

			if (!s->n)
				continue;
			fprintf(out, "%s%.1f,%.1f", trend_started ? " " :
				"<polyline class=\"trend\" points=\"", report_plot_x(c, n),
				report_axis_y(&a, s->mean));
			trend_started = true;
		}
		if (trend_started)
			fputs("\"/>\n", out);
	}

	for (size_t c = 0; c < n; c++) {
		const struct summary *s = row_summary(row, c);
		bool changed = c && row->vs[c - 1].verdict == VERDICT_CHANGED;
		const char *dir = changed ? direction_class(row, c - 1) : "";
		double x = report_plot_x(c, n), h = mean_half_interval(s, level_of(r));
		size_t cnt;
		const double *v = set_values(&j->sets[c], row->name, &cnt);

		fprintf(out, "<text class=\"commit\" x=\"%.1f\" y=\"%d\">", x,
			PLOT_H - MARGIN_B + 18);
		report_html_short_id(out, r->commits[c].id);
		fputs("</text>\n", out);
		if (s->n && isfinite(h))
			fprintf(out, "<line class=\"ci\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
				x, report_axis_y(&a, s->mean - h), x, report_axis_y(&a, s->mean + h));
		/* spread equal values sideways, or 5 identical runs look like 1 */
		for (size_t k = 0; k < cnt; k++)
			if (isfinite(v[k]))
				fprintf(out, "<circle class=\"run\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\"/>\n",
					x + 18 + (double)(k % 5) * 4, report_axis_y(&a, v[k]));
		if (s->n)
			fprintf(out, "<line class=\"%s%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
				changed ? "mean changed" : "mean", dir, x - 12,
				report_axis_y(&a, s->mean), x + 12, report_axis_y(&a, s->mean));
	}
	fputs("</svg>\n<figcaption>", out);
	report_html_puts(out, row->name);
	if (row->unit && *row->unit) {
		fputs(" in ", out);
		report_html_puts(out, row->unit);
	}
	fprintf(out, ": every run (dots), each commit's mean (bar: red where it changed "
		"for the worse, green for the better, blue where neither is better) "
		"and its %g%% interval (vertical line)</figcaption>\n</figure>\n",
		100 * level_of(r));
}

static bool wants_plot(const struct report *r, const struct report_job *j,
		       const struct stat_row *row)
{
	if (row->family != FAMILY_KPI)
		return false;
	return report_row_changed(row, r->ncommits - 1) ||
	       (j->kpi && !strcmp(row->name, j->kpi));
}

/* ---- the page ---- */

const char report_html_css[] =
	"body{font-family:sans-serif;margin:1.5em;color:#222;background:#fff}\n"
	"table{border-collapse:collapse;margin:0.8em 0}\n"
	"th,td{border:1px solid #ccc;padding:2px 8px}\n"
	"th{background:#eef}\n"
	"td.num{text-align:right;font-family:monospace}\n"
	"td.name{font-family:monospace}\n"
	"tr.kpi td.name{font-weight:bold}\n"
	/* a change by its direction; never colour alone: the words say it */
	".v-changed{color:#06c;font-weight:bold}\n"
	".v-changed.regression,.lead .regression{color:#b00;font-weight:bold}\n"
	".v-changed.improvement,.lead .improvement{color:#070;font-weight:bold}\n"
	".lead .change{color:#06c;font-weight:bold}\n"
	".v-same{color:#070}\n"
	".v-other,.v-few-runs{color:#777}\n"
	".v-small{color:#a60}\n"
	".v-new,.v-gone{color:#06c;font-weight:bold}\n"
	".v-unknown{color:#777;font-style:italic}\n"
	".disturbed{color:#a0a}\n"
	"p.few-runs{color:#777}\n"
	".lead p.headline{font-size:1.2em}\n"
	"table.impact th{text-align:left}\n"
	"table.impact tbody{border-top:2px solid #88a}\n"
	".unsupported{color:#777;font-style:italic}\n"
	"dt{font-weight:bold;float:left;clear:left;width:8em}\n"
	"dd{margin-left:9em}\n"
	"section{border-top:2px solid #88a;margin-top:1.5em}\n"
	"figure{margin:1em 0}\n"
	"svg .frame{fill:#fafafa;stroke:#888}\n"
	"svg .grid{stroke:#ddd}\n"
	"svg .tick{font-size:11px;text-anchor:end;fill:#444}\n"
	"svg .commit{font-size:11px;text-anchor:middle;font-family:monospace;fill:#222}\n"
	"svg .run{fill:#4a7fc0;fill-opacity:0.7}\n"
	"svg .mean{stroke:#222;stroke-width:3}\n"
	"svg .mean.changed{stroke:#06c}\n"
	"svg .mean.changed.regression{stroke:#c00}\n"
	"svg .mean.changed.improvement{stroke:#070}\n"
	"svg .axis{font-size:12px;text-anchor:middle;fill:#222}\n"
	"svg .ci{stroke:#e08020;stroke-width:2}\n"
	"svg .trend{fill:none;stroke:#999;stroke-dasharray:4 3}\n";

/* As the text says it: once when every commit gives the same reason. */
static void unsupported(FILE *out, const struct report *r, const struct report_job *j)
{
	bool same = report_unsupported_alike(r, j);

	for (size_t c = 0; c < r->ncommits; c++) {
		const char *why = j->unsupported[c];

		if (!why || (same && c))
			continue;
		fputs("<p class=\"unsupported\">", out);
		if (!same) {
			fputs("commit ", out);
			report_html_short_id(out, r->commits[c].id);
			fputs(": ", out);
		}
		fputs("unsupported here", out);
		if (*why) {
			fputs(": ", out);
			report_html_puts(out, why);
		}
		fputs("</p>\n", out);
	}
}

static int few_runs(FILE *out, const struct report *r, const struct report_job *j)
{
	report_write_few_runs(out, r, j);
	return 0;
}

/*
 * The lines the text writes under a job's table, each a paragraph of
 * class cls: the same words, from the same writer (table.c).
 */
static int text_notes(FILE *out, const char *cls, const struct report *r,
		      const struct report_job *j,
		      int (*write)(FILE *, const struct report *, const struct report_job *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	int err;

	if (!mem)
		return -ENOMEM;
	err = write(mem, r, j);
	if (fclose(mem) && !err)
		err = -ENOMEM;
	for (char *line = buf, *nl; !err && line && *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		fprintf(out, "<p class=\"%s\">", cls);
		report_html_puts(out, line);
		fputs("</p>\n", out);
		if (!nl)
			break;
	}
	free(buf);
	return err;
}

static int job_section(FILE *out, const struct report *r, const struct report_job *j)
{
	size_t shown;
	int err = 0;

	fputs("<section>\n<h2>", out);
	report_html_puts(out, j->testcase ? j->testcase : "job");
	fputs(": ", out);
	report_html_puts(out, j->job);
	fputs("</h2>\n<dl>\n", out);
	report_html_dl(out, "testbox", j->testbox);
	report_html_dl(out, "job", j->job);
	report_html_dl(out, "machine", j->machine);
	report_html_dl(out, "KPI", j->kpi);
	if (j->params && j->params->n) {
		fputs("<dt>parameters</dt><dd>", out);
		for (size_t i = 0; i < j->params->n; i++) {
			if (i)
				fputs(", ", out);
			report_html_puts(out, j->params->v[i].key);
			fputc('=', out);
			report_html_puts(out, j->params->v[i].value);
		}
		fputs("</dd>\n", out);
	}
	fputs("</dl>\n", out);

	if (report_job_unsupported(r, j)) {
		unsupported(out, r, j);
		shown = 1;
	} else {
		shown = failure_table(out, r, j);
		shown += numeric_table(out, r, j);
	}
	if (!shown)
		fprintf(out, "<p>no stat changed (%zu compared)</p>\n", j->nr_rows);
	if (!report_job_unsupported(r, j))
		err = text_notes(out, "disturbed", r, j, report_write_disturbed) ?:
		      text_notes(out, "few-runs", r, j, few_runs);

	for (size_t i = 0; i < j->nr_rows; i++)
		if (wants_plot(r, j, &j->rows[i]))
			plot(out, r, j, &j->rows[i]);

	if (j->job_text) {
		fputs("<details><summary>job to reproduce</summary><pre>", out);
		report_html_puts(out, j->job_text);
		fputs("</pre></details>\n", out);
	}
	fputs("</section>\n", out);
	return err;
}

/* ---- what the report leads with: the email's head (text.c) ---- */

/* "key: value" (or "key=value") a line, as the email's blocks. */
static void put_idents(FILE *out, const struct report_idents *ids, const char *sep)
{
	for (size_t k = 0; k < ids->n; k++) {
		if (k)
			fputs("<br>", out);
		report_html_puts(out, ids->v[k].key);
		fputs(sep, out);
		report_html_puts(out, ids->v[k].value);
	}
}

/* The email's "In addition to that" table: the other jobs whose KPI changed. */
static int impact(FILE *out, const struct report *r, size_t headline)
{
	struct strbuf sb = STRBUF_INIT;
	size_t shown = 0;
	int err = 0;

	for (size_t i = 0; i < r->njobs && !err; i++) {
		const struct report_job *j = &r->jobs[i];
		struct report_idents ids = { 0 };
		size_t col;
		const struct stat_row *row = report_impact(r, headline, i, &col);

		if (!row)
			continue;
		report_impact_line(&sb, j, row, col);
		err = strbuf_error(&sb) ?: report_identity(j, true, &ids);
		if (!err) {
			if (!shown++)
				fputs("<h3>In addition to that, the commit also has significant "
				      "impact on the following tests:</h3>\n<table class=\"impact\">\n",
				      out);
			/* the word is the class: improvement, regression or change */
			fprintf(out, "<tbody>\n<tr><th>testcase: change</th><td class=\"%s\">",
				report_change_word(row, col));
			report_html_puts(out, sb.buf);
			fputs("</td></tr>\n<tr><th>test machine</th><td>", out);
			report_html_puts(out, j->machine ? j->machine : j->testbox);
			fputs("</td></tr>\n", out);
			if (ids.n) {
				fputs("<tr><th>test parameters</th><td class=\"name\">", out);
				put_idents(out, &ids, "=");
				fputs("</td></tr>\n", out);
			}
			fputs("</tbody>\n", out);
		}
		vec_free(&ids);
	}
	if (shown)
		fputs("</table>\n", out);
	strbuf_release(&sb);
	return err;
}

/*
 * The head of the email (report_email()): the sentence it leads with, the
 * commit, testcase, test machine and parameters, how the runs were taken,
 * the other jobs that changed, and the caller's "How sure".
 */
static int lead(FILE *out, const struct report *r)
{
	size_t job = r->njobs, col = 0;
	const struct stat_row *row = NULL;
	const struct report_job *h;
	const struct report_commit *c;
	struct report_idents ids = { 0 };
	struct strbuf words = STRBUF_INIT, order = STRBUF_INIT;
	int err;

	if (r->ncommits < 2 || !r->njobs)
		return 0;
	if (!report_lead(r, &job, &col, &row))
		job = r->njobs;
	h = &r->jobs[row ? job : 0];
	c = &r->commits[row ? col + 1 : r->ncommits - 1];
	report_lead_words(&words, row, col);
	if (row)
		report_order_words(&order, h, col);
	err = strbuf_error(&words) ?: strbuf_error(&order) ?: report_identity(h, false, &ids);
	if (err)
		goto out;
	/* the word is the class: improvement, regression or change */
	fprintf(out, "<section class=\"lead\">\n<p class=\"headline %s\">",
		row ? report_change_word(row, col) : "none");
	report_html_puts(out, words.buf);
	report_html_puts(out, row ? row->name : h->kpi ? h->kpi : "the KPI");
	fputs(" on:</p>\n<dl>\n<dt>commit</dt><dd><span class=\"name\">", out);
	report_html_puts(out, c->id);
	fputs("</span>", out);
	if (c->subject) {
		fputs(" (&quot;", out);
		report_html_puts(out, c->subject);
		fputs("&quot;)", out);
	}
	fputs("</dd>\n", out);
	report_html_dl(out, "author", c->author);
	report_html_dl(out, "date", c->date);
	report_html_dl(out, "in testcase", h->testcase ? h->testcase : h->job);
	report_html_dl(out, "test machine", h->machine ? h->machine : h->testbox);
	if (ids.n) {
		fputs("<dt>parameters</dt><dd class=\"name\">", out);
		put_idents(out, &ids, ": ");
		fputs("</dd>\n", out);
	}
	fputs("</dl>\n", out);
	if (order.len) {
		fputs("<p class=\"order\">", out);
		report_html_puts(out, order.buf);
		fputs("</p>\n", out);
	}
	err = impact(out, r, job);
	if (!err && r->evidence && *r->evidence) {
		fputs("<h3>How sure</h3>\n<pre>", out);
		report_html_puts(out, r->evidence);
		fputs("</pre>\n", out);
	}
	fputs("</section>\n", out);
out:
	vec_free(&ids);
	strbuf_release(&words);
	strbuf_release(&order);
	return err;
}

int report_html(FILE *out, const struct report *r)
{
	int err;

	if (!out || !r || !r->ncommits || !r->commits)
		return -EINVAL;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<title>perfbot report: ", out);
	report_html_short_id(out, r->commits[0].id);
	if (r->ncommits > 1) {
		fputs(" .. ", out);
		report_html_short_id(out, r->commits[r->ncommits - 1].id);
	}
	fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", report_html_css);
	fputs("<h1>perfbot report</h1>\n", out);
	err = lead(out, r);
	if (err)
		return err;
	fputs("<dl>\n", out);
	report_html_dl(out, "repository", r->repo_url);
	report_html_dl(out, "branch", r->branch);
	report_html_dl(out, "reported by", r->reported_by);
	fputs("</dl>\n<h2>Commits</h2>\n<table>\n"
	      "<tr><th>#</th><th>commit</th><th>subject</th></tr>\n", out);
	for (size_t c = 0; c < r->ncommits; c++) {
		const struct report_commit *k = &r->commits[c];

		fprintf(out, "<tr><td>%zu%s</td><td class=\"name\">", c,
			c ? "" : " (base)");
		report_html_puts(out, k->id);
		fputs("</td><td>", out);
		report_html_puts(out, k->subject);
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);

	for (size_t i = 0; i < r->njobs && !err; i++)
		err = job_section(out, r, &r->jobs[i]);
	if (err)
		return err;
	if (!r->njobs)
		fputs("<p>no job ran on every commit</p>\n", out);

	fputs("</body>\n</html>\n", out);
	if (fflush(out) || ferror(out))
		return -EIO;
	return 0;
}

void report_html_dl(FILE *out, const char *term, const char *value)
{
	if (!value)
		return;
	fprintf(out, "<dt>%s</dt><dd>", term);
	report_html_puts(out, value);
	fputs("</dd>\n", out);
}

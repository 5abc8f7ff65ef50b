/*
 * site.c - perfbot publish's pages (site.h; docs/publish.md).  Every page
 * shares report_html_css and site_css inline and the same <nav>; every
 * string from the store goes through report_html_puts() (the feed's too:
 * its output is valid XML text).  Links are relative: the site is one
 * directory, read from file:// or any static server.
 */
#include "report/site.h"
#include "report/internal.h"
#include "stats/summary.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char site_css[] =
	"nav{margin:0 0 1em;padding:0.4em 0;border-bottom:1px solid #88a}\n"
	"nav a{margin-right:1.2em}\n"
	"nav a[aria-current]{font-weight:bold;text-decoration:none;color:#222}\n"
	"svg.spark{vertical-align:middle}\n"
	"svg.spark polyline{fill:none;stroke:#4a7fc0;stroke-width:1.5}\n"
	"svg.spark line{stroke:#c00;stroke-width:1.5}\n"
	".state{font-weight:bold}\n"
	".state-reported,.state-confirmed,.state-found,.state-bisecting{color:#b00}\n"
	".state-tentative{color:#b06000}\n"
	".state-ignored,.state-invalid,.state-explained,.state-no-culprit{color:#777}\n"
	".facts{border:1px solid #88a;padding:0.5em 1em;margin:1em 0;background:#f6f6ff}\n"
	".controls{margin:0.5em 0}\n"
	".controls button,.controls input{margin-right:0.5em}\n"
	"td.vals{font-family:monospace;font-size:90%}\n"
	"pre{background:#f6f6f6;padding:0.5em;overflow:auto}\n";

static int finish(FILE *out)
{
	if (fflush(out) || ferror(out))
		return -EIO;
	return 0;
}

/* "2026-12-05 04:31 UTC"; "" when not known */
static void utc(char *buf, size_t len, double t, bool iso)
{
	struct tm tm;
	time_t s = (time_t)t;

	if (!isfinite(t) || t <= 0 || !gmtime_r(&s, &tm)) {
		snprintf(buf, len, "%s", iso ? "1970-01-01T00:00:00Z" : "");
		return;
	}
	strftime(buf, len, iso ? "%Y-%m-%dT%H:%M:%SZ" : "%Y-%m-%d %H:%M UTC", &tm);
}

/* The site's navigation; current: the page's own name (or NULL). */
static void nav(FILE *out, const char *current)
{
	static const char *const pages[][2] = {
		{ SITE_INDEX, "overview" }, { SITE_ALERTS, "alerts" },
		{ SITE_MACHINES, "machines" }, { SITE_FEED, "feed (Atom)" },
	};

	fputs("<nav aria-label=\"site\">", out);
	for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]); i++)
		fprintf(out, "<a href=\"%s\"%s>%s</a>", pages[i][0],
			current && !strcmp(current, pages[i][0]) ? " aria-current=\"page\"" : "",
			pages[i][1]);
	fputs("</nav>\n", out);
}

/* <!DOCTYPE html> ... <body><nav>: title is escaped. */
static void head(FILE *out, const char *title, const char *current)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width\">\n<title>", out);
	report_html_puts(out, title);
	fprintf(out, "</title>\n<link rel=\"alternate\" type=\"application/atom+xml\" "
		"href=\"%s\" title=\"perfbot: changes\">\n<style>\n%s%s</style>\n</head>\n"
		"<body>\n", SITE_FEED, report_html_css, site_css);
	nav(out, current);
	fputs("<h1>", out);
	report_html_puts(out, title);
	fputs("</h1>\n", out);
}

static int foot(FILE *out)
{
	fputs("</body>\n</html>\n", out);
	return finish(out);
}

/* <span class="state state-WORD">WORD</span>: a word, not only a colour */
static void state_word(FILE *out, const char *state)
{
	fputs("<span class=\"state state-", out);
	for (const char *p = state; p && *p; p++)
		fputc((*p >= 'a' && *p <= 'z') || *p == '-' ? *p : '_', out);
	fputs("\">", out);
	report_html_puts(out, state);
	fputs("</span>", out);
}

static void pct_cell(FILE *out, double pct)
{
	if (isfinite(pct))
		fprintf(out, "<td class=\"num\">%+.1f%%</td>", pct);
	else
		fputs("<td></td>", out);
}

static void tree_branch(FILE *out, const char *tree, const char *branch)
{
	report_html_puts(out, tree);
	fputc('/', out);
	report_html_puts(out, branch);
}

/* ---- the overview ---- */

#define SPARK_W 160
#define SPARK_H 28

/* The points' means as a line, change points as red ticks. */
static void sparkline(FILE *out, const struct history *h)
{
	double lo = INFINITY, hi = -INFINITY, *m = calloc(h->nr_points, sizeof(double));
	size_t n = h->nr_points, with = 0;
	bool started = false;

	fputs("<svg class=\"spark\" viewBox=\"0 0 160 28\" width=\"160\" height=\"28\" "
	      "role=\"img\" aria-label=\"", out);
	report_html_puts(out, h->metric);
	fprintf(out, " over %zu points, %zu change point%s\"><title>", n, h->nr_changes,
		h->nr_changes == 1 ? "" : "s");
	report_html_puts(out, h->metric);
	fprintf(out, ": the mean of each of %zu points, oldest first</title>", n);
	for (size_t i = 0; m && i < n; i++) {
		struct summary s;

		m[i] = NAN;
		if (!h->points[i].n)
			continue;
		summarize(h->points[i].values, h->points[i].n, &s);
		m[i] = s.mean;
		lo = fmin(lo, s.mean);
		hi = fmax(hi, s.mean);
		with++;
	}
	if (hi <= lo) {
		lo -= 1;
		hi += 1;
	}
	for (size_t i = 0; m && with && i < n; i++) {
		if (!isfinite(m[i]))
			continue;
		fprintf(out, "%s%.1f,%.1f", started ? " " : "<polyline points=\"",
			n > 1 ? 2 + (SPARK_W - 4) * (double)i / (double)(n - 1) : SPARK_W / 2.0,
			SPARK_H - 3 - (SPARK_H - 6) * (m[i] - lo) / (hi - lo));
		started = true;
	}
	if (started)
		fputs("\"/>", out);
	for (size_t c = 0; c < h->nr_changes; c++) {
		double x = 2 + (SPARK_W - 4) * ((double)h->changes[c].index - 0.5) /
			   (double)(n > 1 ? n - 1 : 1);

		fprintf(out, "<line x1=\"%.1f\" y1=\"2\" x2=\"%.1f\" y2=\"%d\"/>", x, x, SPARK_H - 2);
	}
	fputs("</svg>", out);
	free(m);
}

/* Is alert a of series h? */
static bool alert_of(const struct site_alert *a, const struct history *h)
{
	return !strcmp(a->tree, h->tree) && !strcmp(a->branch, h->branch) &&
	       !strcmp(a->testbox, h->testbox) && !strcmp(a->job, h->job) &&
	       !strcmp(a->metric, h->metric);
}

/* The newest alert of the series, else its last change point. */
static void latest_change(FILE *out, const struct history *h, const struct site_alert *alerts,
			  size_t nalerts)
{
	const struct site_alert *last = NULL;

	for (size_t i = 0; i < nalerts; i++)
		if (alert_of(&alerts[i], h) && (!last || alerts[i].id > last->id))
			last = &alerts[i];
	if (last) {
		fprintf(out, "<a href=\"alert-%" PRId64 ".html\">alert %" PRId64 "</a> ", last->id,
			last->id);
		state_word(out, last->state);
		if (isfinite(last->pct))
			fprintf(out, " %+.1f%%", last->pct);
		return;
	}
	if (h->nr_changes) {
		const struct history_change *c = &h->changes[h->nr_changes - 1];

		fputs("change point ", out);
		state_word(out, report_history_change_state(h, c));
		fprintf(out, " %+.1f%% at seq %" PRId64, c->pct, h->points[c->index].seq);
		return;
	}
	fputs("none", out);
}

int report_site_index(FILE *out, const struct site_series *s, size_t n,
		      const struct site_alert *alerts, size_t nalerts, const char *generated)
{
	size_t open = 0;

	for (size_t i = 0; i < nalerts; i++)
		open += !strcmp(alerts[i].state, "confirmed") || !strcmp(alerts[i].state, "tentative") ||
			!strcmp(alerts[i].state, "bisecting") || !strcmp(alerts[i].state, "found");
	head(out, "perfbot: performance histories", SITE_INDEX);
	fprintf(out, "<p>%zu series, %zu alert%s (%zu open). ", n, nalerts,
		nalerts == 1 ? "" : "s", open);
	if (generated) {
		fputs("Published from ", out);
		report_html_puts(out, generated);
		fputs(".", out);
	}
	fputs("</p>\n", out);
	if (!n) {
		fputs("<p>No series: the robot (perfbot watch) has tested no branch with runs "
		      "that match.</p>\n", out);
		return foot(out);
	}
	fputs("<table>\n<tr><th>tree/branch</th><th>testbox</th><th>job</th><th>KPI</th>"
	      "<th>history</th><th>points</th><th>latest change</th></tr>\n", out);
	for (size_t i = 0; i < n; i++) {
		const struct history *h = s[i].h;

		fputs("<tr><td>", out);
		tree_branch(out, h->tree, h->branch);
		fputs("</td><td>", out);
		report_html_puts(out, h->testbox);
		fprintf(out, "</td><td class=\"name\"><a href=\"%s\">", s[i].page);
		report_html_puts(out, h->job);
		fputs("</a></td><td class=\"name\">", out);
		report_html_puts(out, h->metric);
		fputs("</td><td>", out);
		sparkline(out, h);
		fprintf(out, "</td><td class=\"num\">%zu</td><td>", h->nr_points);
		latest_change(out, h, alerts, nalerts);
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
	return foot(out);
}

/* ---- a series ---- */

int report_site_series(FILE *out, const struct history *h, const int64_t *run_ids)
{
	char *navbuf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&navbuf, &len);
	struct history_html_opts o = { .css = site_css, .site = true, .run_ids = run_ids,
				       .interactive = true };
	int ret;

	if (!mem)
		return -ENOMEM;
	nav(mem, NULL);
	if (fclose(mem)) {
		free(navbuf);
		return -ENOMEM;
	}
	o.nav = navbuf;
	ret = report_history_html_opts(out, h, &o);
	free(navbuf);
	return ret;
}

/* ---- alerts ---- */

/* The alert's job, linking its series' page when the site has it. */
static void job_link(FILE *out, const struct site_alert *a)
{
	if (a->series_page)
		fprintf(out, "<a href=\"%s\">", a->series_page);
	report_html_puts(out, a->job);
	if (a->series_page)
		fputs("</a>", out);
}

static void bisect_link(FILE *out, int64_t id)
{
	if (id)
		fprintf(out, "<a href=\"bisect-%" PRId64 ".html\">bisection %" PRId64 "</a>", id, id);
}

static void alert_row(FILE *out, const struct site_alert *a)
{
	fprintf(out, "<tr><td class=\"num\"><a href=\"alert-%" PRId64 ".html\">%" PRId64
		"</a></td><td>", a->id, a->id);
	state_word(out, a->state);
	fputs("</td>", out);
	pct_cell(out, a->pct);
	fputs("<td class=\"name\">", out);
	job_link(out, a);
	fputs("</td><td class=\"name\">", out);
	report_html_puts(out, a->metric);
	fputs("</td><td>", out);
	report_html_puts(out, a->testbox);
	fputs("</td><td>", out);
	tree_branch(out, a->tree, a->branch);
	fputs("</td><td class=\"name\">", out);
	report_html_short_id(out, a->before);
	fputs(" .. ", out);
	report_html_short_id(out, a->after);
	fputs("</td><td>", out);
	bisect_link(out, a->bisect_id);
	fputs("</td><td>", out);
	report_html_puts(out, a->note);
	fputs("</td></tr>\n", out);
}

static void bisect_row(FILE *out, const struct site_bisect *b)
{
	char when[64];

	utc(when, sizeof(when), b->updated, false);
	fputs("<li>", out);
	bisect_link(out, b->id);
	fputs(" ", out);
	state_word(out, b->status);
	if (b->job) {
		fputs(" of ", out);
		report_html_puts(out, b->job);
	}
	if (b->testbox) {
		fputs(" on ", out);
		report_html_puts(out, b->testbox);
	}
	if (b->metric) {
		fputs(" (", out);
		report_html_puts(out, b->metric);
		fputs(")", out);
	}
	fprintf(out, ", %s</li>\n", when);
}

static const char alert_head[] =
	"<table>\n<tr><th>alert</th><th>state</th><th>%change</th><th>job</th><th>metric</th>"
	"<th>testbox</th><th>tree/branch</th><th>between</th><th>bisection</th><th>note</th></tr>\n";

static bool same(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

int report_site_alerts(FILE *out, const struct site_alert *a, size_t na,
		       const struct site_bisect *b, size_t nb)
{
	const char **culprits = calloc(na + nb + 1, sizeof(*culprits));
	size_t nc = 0;

	if (!culprits)
		return -ENOMEM;
	/* the culprits in order of first mention, newest alert first */
	for (size_t i = na; i-- > 0;) {
		bool seen = false;

		for (size_t k = 0; k < nc && !seen; k++)
			seen = same(culprits[k], a[i].culprit);
		if (!seen && a[i].culprit)
			culprits[nc++] = a[i].culprit;
	}
	for (size_t i = nb; i-- > 0;) {
		bool seen = false;

		for (size_t k = 0; k < nc && !seen; k++)
			seen = same(culprits[k], b[i].culprit);
		if (!seen && b[i].culprit)
			culprits[nc++] = b[i].culprit;
	}
	head(out, "perfbot: alerts", SITE_ALERTS);
	fprintf(out, "<p>%zu alert%s and %zu bisection%s, grouped by culprit (the commit a "
		"bisection named), newest first.  States: tentative (seen, not yet confirmed), "
		"confirmed, bisecting, found, reported, explained, no-culprit, invalid, "
		"ignored.</p>\n", na, na == 1 ? "" : "s", nb, nb == 1 ? "" : "s");
	/* culprits[nc] stays NULL: the group of those without one */
	for (size_t k = 0; k <= nc; k++) {
		size_t shown = 0, bshown = 0;

		for (size_t i = 0; i < na; i++)
			shown += same(a[i].culprit, culprits[k]);
		for (size_t i = 0; i < nb; i++)
			bshown += same(b[i].culprit, culprits[k]);
		if (!shown && !bshown)
			continue;
		fputs("<section>\n<h2>", out);
		if (culprits[k]) {
			fputs("culprit <span class=\"name\">", out);
			report_html_short_id(out, culprits[k]);
			fputs("</span>", out);
		} else {
			fputs("no culprit (yet)", out);
		}
		fputs("</h2>\n", out);
		if (shown) {
			fputs(alert_head, out);
			for (size_t i = na; i-- > 0;)
				if (same(a[i].culprit, culprits[k]))
					alert_row(out, &a[i]);
			fputs("</table>\n", out);
		}
		if (bshown) {
			fputs("<ul>\n", out);
			for (size_t i = nb; i-- > 0;)
				if (same(b[i].culprit, culprits[k]))
					bisect_row(out, &b[i]);
			fputs("</ul>\n", out);
		}
		fputs("</section>\n", out);
	}
	if (!na && !nb)
		fputs("<p>The robot has found no change and run no bisection.</p>\n", out);
	free(culprits);
	return foot(out);
}

/* ---- machines ---- */

int report_site_machines(FILE *out, const struct site_machine *m, size_t n)
{
	bool fleet = false;

	for (size_t i = 0; i < n; i++)
		fleet |= m[i].fleet;
	head(out, "perfbot: machines", SITE_MACHINES);
	fprintf(out, "<p>%zu test box%s: the machine line of each box's newest run%s.</p>\n", n,
		n == 1 ? "" : "es",
		fleet ? ", and the fleet's registration (perfbot queue boxes)" : "");
	fprintf(out, "<table>\n<tr><th>testbox</th><th>machine</th><th>complete runs</th>"
		"<th>newest run</th>%s</tr>\n", fleet ? "<th>fleet state</th><th>CPUs</th>"
		"<th>memory</th><th>arch</th><th>kernel</th><th>last seen</th>"
		"<th>items done</th><th>attempts failed</th>" : "");
	for (size_t i = 0; i < n; i++) {
		char when[64];

		fputs("<tr><td class=\"name\">", out);
		report_html_puts(out, m[i].testbox);
		fputs("</td><td>", out);
		report_html_puts(out, m[i].machine);
		utc(when, sizeof(when), m[i].last, false);
		fprintf(out, "</td><td class=\"num\">%zu</td><td>%s</td>", m[i].runs, when);
		if (fleet && m[i].fleet) {
			fputs("<td>", out);
			state_word(out, m[i].state);
			if (m[i].why) {
				fputs(": ", out);
				report_html_puts(out, m[i].why);
			}
			utc(when, sizeof(when), m[i].seen, false);
			fprintf(out, "</td><td class=\"num\">%d</td><td class=\"num\">%" PRId64
				" MiB</td><td>", m[i].cpus, m[i].mem_mb);
			report_html_puts(out, m[i].arch);
			fputs("</td><td>", out);
			report_html_puts(out, m[i].kernel);
			fprintf(out, "</td><td>%s</td><td class=\"num\">%" PRId64 "</td>"
				"<td class=\"num\">%" PRId64 "</td>", when, m[i].done, m[i].failed);
		} else if (fleet) {
			fputs("<td colspan=\"8\">not registered in the fleet</td>", out);
		}
		fputs("</tr>\n", out);
	}
	fputs("</table>\n", out);
	return foot(out);
}

/* ---- a run ---- */

static void strmap_table(FILE *out, const struct strmap *m, const char *what)
{
	if (!m->n) {
		fprintf(out, "<p>No %s.</p>\n", what);
		return;
	}
	fputs("<table>\n<tr><th>key</th><th>value</th></tr>\n", out);
	for (size_t i = 0; i < m->n; i++) {
		fputs("<tr><td class=\"name\">", out);
		report_html_puts(out, m->v[i].key);
		fputs("</td><td>", out);
		report_html_puts(out, m->v[i].value);
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
}

int report_site_run(FILE *out, int64_t id, const struct run_record *r)
{
	char title[64], when[64], num[64];
	const char *kpi = run_record_kpi(r);

	snprintf(title, sizeof(title), "perfbot: run %" PRId64, id);
	head(out, title, NULL);
	fputs("<dl>\n", out);
	report_html_dl(out, "job", r->job);
	report_html_dl(out, "testcase", r->testcase);
	report_html_dl(out, "testbox", r->testbox);
	report_html_dl(out, "commit", r->commit);
	report_html_dl(out, "status", run_status_name(r->status));
	utc(when, sizeof(when), r->started, false);
	report_html_dl(out, "started", when);
	snprintf(num, sizeof(num), "%.1f s", r->duration_s);
	report_html_dl(out, "duration", num);
	report_html_dl(out, "machine", strmap_get(&r->env, "machine"));
	report_html_dl(out, "KPI", kpi);
	fputs("</dl>\n<section>\n<h2>Stats</h2>\n", out);
	if (!r->stats.n) {
		fputs("<p>No stat.</p>\n", out);
	} else {
		fputs("<table>\n<tr><th>stat</th><th>value</th><th>unit</th></tr>\n", out);
		for (size_t i = 0; i < r->stats.n; i++) {
			const struct stat_value *v = &r->stats.v[i];
			const struct stat_meta *m = stat_meta_find(&r->meta, v->name);

			fprintf(out, "<tr%s><td class=\"name\">",
				kpi && !strcmp(kpi, v->name) ? " class=\"kpi\"" : "");
			report_html_puts(out, v->name);
			/* every digit: this is the record */
			fprintf(out, "</td><td class=\"num\">%.10g</td><td>", v->value);
			if (m)
				report_html_puts(out, m->unit);
			fputs("</td></tr>\n", out);
		}
		fputs("</table>\n", out);
	}
	fputs("</section>\n<section>\n<h2>Parameters</h2>\n", out);
	strmap_table(out, &r->params, "parameter");
	fputs("</section>\n<section>\n<h2>Environment</h2>\n", out);
	strmap_table(out, &r->env, "environment");
	if (r->job_text) {
		fputs("</section>\n<section>\n<h2>The atomic job</h2>\n<pre>", out);
		report_html_puts(out, r->job_text);
		fputs("</pre>\n", out);
	}
	fputs("</section>\n", out);
	return foot(out);
}

/* ---- the feed ---- */

static bool feed_worthy(const struct site_alert *a)
{
	return !strcmp(a->state, "confirmed") || !strcmp(a->state, "reported") ||
	       !strcmp(a->state, "found");
}

int report_site_feed(FILE *out, const char *store_id, const struct site_alert *a, size_t n)
{
	double newest = 0;
	char when[64];

	for (size_t i = 0; i < n; i++)
		if (feed_worthy(&a[i]) && a[i].updated > newest)
			newest = a[i].updated;
	utc(when, sizeof(when), newest, true);
	/* the namespace is a name, not a reference: nothing is fetched */
	fputs("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
	      "<feed xmlns=\"http://www.w3.org/2005/Atom\">\n", out);
	fprintf(out, "<title>perfbot: confirmed and reported changes</title>\n"
		"<id>urn:perfbot:%s</id>\n<updated>%s</updated>\n"
		"<link rel=\"alternate\" href=\"%s\"/>\n"
		"<author><name>perfbot</name></author>\n", store_id, when, SITE_ALERTS);
	for (size_t i = n; i-- > 0;) {
		const struct site_alert *e = &a[i];

		if (!feed_worthy(e))
			continue;
		utc(when, sizeof(when), e->updated, true);
		fprintf(out, "<entry>\n<id>urn:perfbot:%s:alert:%" PRId64 "</id>\n<title>", store_id,
			e->id);
		report_html_puts(out, e->job);
		fputs(" ", out);
		report_html_puts(out, e->metric);
		if (isfinite(e->pct))
			fprintf(out, " %+.1f%%", e->pct);
		fputs(" on ", out);
		tree_branch(out, e->tree, e->branch);
		fputs(" (", out);
		report_html_puts(out, e->state);
		fprintf(out, ")</title>\n<updated>%s</updated>\n<link rel=\"alternate\" "
			"href=\"alert-%" PRId64 ".html\"/>\n<summary>alert %" PRId64 ": ", when,
			e->id, e->id);
		report_html_puts(out, e->state);
		fputs(", testbox ", out);
		report_html_puts(out, e->testbox);
		fputs(", between ", out);
		report_html_short_id(out, e->before);
		fputs(" and ", out);
		report_html_short_id(out, e->after);
		if (e->culprit) {
			fputs(", culprit ", out);
			report_html_short_id(out, e->culprit);
		}
		fputs("</summary>\n</entry>\n", out);
	}
	fputs("</feed>\n", out);
	return finish(out);
}

/* ---- pages of other writers ---- */

static void alert_facts(FILE *out, const struct site_alert *a)
{
	fprintf(out, "<div class=\"facts\">\n<p><strong>alert %" PRId64 "</strong> ", a->id);
	state_word(out, a->state);
	if (isfinite(a->pct))
		fprintf(out, " %+.1f%%", a->pct);
	fputs(": ", out);
	report_html_puts(out, a->metric);
	fputs(" of ", out);
	job_link(out, a);
	fputs(" on ", out);
	report_html_puts(out, a->testbox);
	fputs(", ", out);
	tree_branch(out, a->tree, a->branch);
	fputs(", between <span class=\"name\">", out);
	report_html_short_id(out, a->before);
	fputs("</span> and <span class=\"name\">", out);
	report_html_short_id(out, a->after);
	fputs("</span>", out);
	if (a->culprit) {
		fputs(", culprit <span class=\"name\">", out);
		report_html_short_id(out, a->culprit);
		fputs("</span>", out);
	}
	if (a->bisect_id) {
		fputs(" (", out);
		bisect_link(out, a->bisect_id);
		fputs(")", out);
	}
	fputs(".</p>\n", out);
	if (a->note) {
		fputs("<p>", out);
		report_html_puts(out, a->note);
		fputs("</p>\n", out);
	}
	fputs("</div>\n", out);
}

/* page (a whole document) with the nav and a's facts (a may be NULL) spliced in after <body>. */
static int splice(FILE *out, const char *page, const struct site_alert *a)
{
	/* <body> or <body class=...>: after its '>' */
	const char *body = strstr(page, "<body");

	if (!body || !(body = strchr(body, '>')))
		return -EINVAL;
	body++;
	if (*body == '\n')
		body++;
	/* the site's style rules join the page's own */
	const char *style = strstr(page, "</style>");

	if (style && style < body) {
		fwrite(page, 1, (size_t)(style - page), out);
		fputs(site_css, out);
		fwrite(style, 1, (size_t)(body - style), out);
	} else {
		fwrite(page, 1, (size_t)(body - page), out);
	}
	nav(out, NULL);
	if (a)
		alert_facts(out, a);
	fputs(body, out);
	return finish(out);
}

int report_site_alert(FILE *out, const struct site_alert *a, const char *page, const char *why)
{
	char title[64];

	if (page)
		return splice(out, page, a);
	snprintf(title, sizeof(title), "perfbot: alert %" PRId64, a->id);
	head(out, title, NULL);
	alert_facts(out, a);
	fputs("<p>No comparison: ", out);
	report_html_puts(out, why);
	fputs("</p>\n", out);
	return foot(out);
}

int report_site_bisect(FILE *out, const char *page)
{
	return splice(out, page, NULL);
}

int report_site_message(FILE *out, const char *title, const char *text)
{
	head(out, title, NULL);
	fputs("<p>", out);
	report_html_puts(out, text);
	fputs("</p>\n", out);
	return foot(out);
}

/*
 * Unit tests: report/history (perfbot history's writers).  A series built
 * by hand -- eight points with a step at the fifth, a tentative change at
 * the eighth, a point without runs, two alerts (one ending at a point no
 * longer in the history), hostile names everywhere -- written as text,
 * JSON and HTML to a memstream: every run in the JSON, the markers where
 * the change points are, every name escaped on the page and quoted on a
 * terminal, and the series' rules refused with nothing written.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "report/history.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NPTS 8
#define NRUNS 4

/* names as users and git may write them */
#define TREE "tree<&>"
#define BRANCH "feat/\"quote'\"<b>"
#define JOB "job<script>alert(1)</script>"
#define METRIC "dmesg.WARNING:at_<foo>&bar"
#define UNIT "<u>"
#define SUBJECT "fix <img src=x onerror=alert(1)> & \"more\""
#define STATE "<state>&"
#define NOTE "a note\nwith a line break and \033[31mcolour"

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

struct fixture {
	char shas[NPTS][41];
	double v[NPTS][NRUNS];
	struct history_point points[NPTS];
	struct history_change changes[2];
	struct history_alert alerts[2];
	struct cp_opts opts;
	struct history h;
};

/*
 * Points 0..7: 100 + k/10 before the step, 110 + k/10 from point 4 on;
 * point 2 has no run; point 4's subject is hostile, point 6's is not
 * valid UTF-8.  A change at 4 (+10%), a tentative one at 7.  Alert 1
 * spans 3..4, alert 2 ends at a sha that is no point.
 */
static void build(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	for (size_t i = 0; i < NPTS; i++) {
		snprintf(f->shas[i], sizeof(f->shas[i]), "%02zx%038d", 0xa0 + i, 0);
		for (size_t k = 0; k < NRUNS; k++)
			f->v[i][k] = (i >= 4 ? 110 : 100) + (i == 7 ? 5 : 0) + (double)k / 10;
		f->points[i] = (struct history_point){
			.seq = (int64_t)(i * 2 + 1), .sha = f->shas[i], .tested = 1.7e9 + (double)i,
			.values = f->v[i], .n = i == 2 ? 0 : NRUNS,
			.base = i ? f->shas[i - 1] : NULL,
		};
	}
	f->points[4].subject = SUBJECT;
	f->points[6].subject = "bad \xff byte";
	f->changes[0] = (struct history_change){ .index = 4, .p = 1e-9, .before = 100.15,
						 .after = 110.15, .pct = 10.0 };
	f->changes[1] = (struct history_change){ .index = 7, .p = 0.004, .before = 110.15,
						 .after = 115.15, .pct = 4.5, .tentative = true,
						 .outliers = 1 };
	f->alerts[0] = (struct history_alert){
		.id = 1, .before = f->shas[3], .after = f->shas[4], .how = "head",
		.state = "reported <x>", .pct = 9.9, .culprit = f->shas[4], .bisect_id = 2,
		.report_id = 3, .note = NULL,
	};
	f->alerts[1] = (struct history_alert){
		.id = 7, .before = f->shas[0], .after = "ffffffffffffffffffffffffffffffffffffffff",
		.how = NULL, .state = STATE, .pct = NAN, .note = NOTE,
	};
	cp_opts_init(&f->opts);
	f->h = (struct history){
		.tree = TREE, .branch = BRANCH, .testbox = "box", .job = JOB, .metric = METRIC,
		.unit = UNIT, .better = -1, .points = f->points, .nr_points = NPTS,
		.changes = f->changes, .nr_changes = 2, .alerts = f->alerts, .nr_alerts = 2,
		.detector = &f->opts,
	};
}

enum fmt { TEXT, JSON, HTML };

/* Write h; the caller frees the text.  *ret: the writer's return. */
static char *render(const struct history *h, enum fmt fmt, int *ret)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	*ret = fmt == TEXT ? report_history_text(f, h) :
	       fmt == JSON ? report_history_json(f, h) : report_history_html(f, h);
	assert_int_equal(fclose(f), 0);
	assert_non_null(buf);
	assert_int_equal(strlen(buf), len);
	return buf;
}

static char *render_ok(const struct history *h, enum fmt fmt)
{
	int ret;
	char *buf = render(h, fmt, &ret);

	assert_int_equal(ret, 0);
	return buf;
}

/* The line of text that holds needle (a copy), or NULL. */
static char *line_with(const char *text, const char *needle)
{
	const char *p = strstr(text, needle), *b, *e;

	if (!p)
		return NULL;
	for (b = p; b > text && b[-1] != '\n'; b--)
		;
	e = strchr(p, '\n');
	return strndup(b, e ? (size_t)(e - b) : strlen(b));
}

static void text_lines(void **state)
{
	struct fixture f;
	char *text, *line, id[13];
	const char *prev = NULL;

	(void)state;
	build(&f);
	text = render_ok(&f.h, TEXT);
	/* a line per point, in order, each with its seq and short sha */
	for (size_t i = 0; i < NPTS; i++) {
		const char *at;

		snprintf(id, sizeof(id), "%.12s", f.shas[i]);
		at = strstr(text, id);
		assert_non_null(at);
		assert_true(!prev || at > prev);
		prev = at;
		line = line_with(text, id);
		assert_non_null(line);
		/* the markers where the change points and alerts are, nowhere else */
		assert_int_equal(count(line, "| +10.0%") != 0, i == 4);
		assert_int_equal(count(line, "? +4.5%") != 0, i == 7);
		assert_int_equal(count(line, " A1") != 0, i == 4);
		if (i == 2)
			assert_non_null(strstr(line, "no run of it"));
		else
			assert_non_null(strstr(line, "   4  "));
		/* no blank at the end of a line */
		assert_true(line[strlen(line) - 1] != ' ');
		free(line);
	}
	line = line_with(text, "110.15 ± ");
	assert_non_null(line);	/* point 4's mean, as LKP prints it */
	free(line);
	/* the change points and the alerts listed below the table */
	assert_non_null(strstr(text, "change points (2):"));
	line = line_with(text, "  +10.0%  seq 7 ");
	assert_non_null(line);
	assert_non_null(strstr(line, "seq 9 "));
	assert_non_null(strstr(line, "alert 1 (reported <x>)"));
	assert_null(strstr(line, "TENTATIVE"));
	free(line);
	line = line_with(text, "  +4.5%  seq 13 ");
	assert_non_null(line);
	assert_non_null(strstr(line, "TENTATIVE"));
	assert_non_null(strstr(line, "1 outlier point set aside"));
	free(line);
	assert_non_null(strstr(text, "alerts (2):"));
	line = line_with(text, "alert 7");
	assert_non_null(line);
	assert_non_null(strstr(line, "(not a point)"));
	free(line);
	/* hostile names: quoted, control characters escaped, one line each */
	assert_null(strstr(text, "\033"));
	assert_non_null(strstr(text, "a note\\nwith"));
	assert_non_null(strstr(text, "\"feat/\\\"quote'\\\"<b>\""));
	assert_non_null(strstr(text, "bad \\377 byte"));
	assert_non_null(strstr(text, "(" UNIT ", lower is better)"));
	free(text);
}

static void json_every_run(void **state)
{
	struct fixture f;
	json_error_t jerr;
	json_t *doc, *points, *changes, *alerts, *c;
	char *text;

	(void)state;
	build(&f);
	text = render_ok(&f.h, JSON);
	doc = json_loads(text, 0, &jerr);
	assert_non_null(doc);
	assert_string_equal(json_string_value(json_object_get(doc, "schema")), "perfbot-history");
	assert_int_equal(json_integer_value(json_object_get(doc, "version")), 1);
	/* names round-trip as they were, only made valid UTF-8 */
	assert_string_equal(json_string_value(json_object_get(doc, "tree")), TREE);
	assert_string_equal(json_string_value(json_object_get(doc, "branch")), BRANCH);
	assert_string_equal(json_string_value(json_object_get(doc, "job")), JOB);
	assert_string_equal(json_string_value(json_object_get(doc, "metric")), METRIC);
	assert_string_equal(json_string_value(json_object_get(doc, "unit")), UNIT);
	assert_string_equal(json_string_value(json_object_get(doc, "better")), "lower");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "detector"),
							    "min_side")), 3);
	points = json_object_get(doc, "points");
	assert_int_equal(json_array_size(points), NPTS);
	for (size_t i = 0; i < NPTS; i++) {
		json_t *p = json_array_get(points, i), *runs = json_object_get(p, "runs");

		assert_int_equal(json_integer_value(json_object_get(p, "seq")), i * 2 + 1);
		assert_string_equal(json_string_value(json_object_get(p, "commit")), f.shas[i]);
		assert_int_equal(json_array_size(runs), f.points[i].n);
		for (size_t k = 0; k < f.points[i].n; k++)
			assert_true(json_real_value(json_array_get(runs, k)) == f.v[i][k]);
		if (!f.points[i].n)
			assert_true(json_is_null(json_object_get(p, "mean")));
		else
			assert_true(fabs(json_real_value(json_object_get(p, "mean")) -
					 (f.v[i][0] + 0.15)) < 1e-9);
	}
	assert_string_equal(json_string_value(json_object_get(json_array_get(points, 4),
							      "subject")), SUBJECT);
	assert_string_equal(json_string_value(json_object_get(json_array_get(points, 6),
							      "subject")), "bad \xef\xbf\xbd byte");
	changes = json_object_get(doc, "changes");
	assert_int_equal(json_array_size(changes), 2);
	c = json_array_get(changes, 0);
	assert_int_equal(json_integer_value(json_object_get(c, "index")), 4);
	assert_string_equal(json_string_value(json_object_get(c, "commit_before")), f.shas[3]);
	assert_string_equal(json_string_value(json_object_get(c, "commit_after")), f.shas[4]);
	assert_int_equal(json_integer_value(json_object_get(c, "seq_after")), 9);
	assert_true(json_is_false(json_object_get(c, "tentative")));
	assert_int_equal(json_integer_value(json_array_get(json_object_get(c, "alerts"), 0)), 1);
	assert_true(json_is_true(json_object_get(json_array_get(changes, 1), "tentative")));
	alerts = json_object_get(doc, "alerts");
	assert_int_equal(json_array_size(alerts), 2);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(alerts, 0),
							    "index_after")), 4);
	assert_true(json_is_null(json_object_get(json_array_get(alerts, 1), "index_after")));
	assert_true(json_is_null(json_object_get(json_array_get(alerts, 1), "pct")));
	assert_true(json_is_null(json_object_get(json_array_get(alerts, 1), "report")));
	assert_string_equal(json_string_value(json_object_get(json_array_get(alerts, 1),
							      "state")), STATE);
	json_decref(doc);
	free(text);
}

/* The x of the first "<line class=\"CLS\" x1=" after from. */
static double line_x(const char *from, const char *cls)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "<line class=\"%s\" x1=\"", cls);
	p = strstr(from, pat);
	assert_non_null(p);
	return strtod(p + strlen(pat), NULL);
}

static void html_page(void **state)
{
	struct fixture f;
	char *html;
	const char *svg, *end;
	size_t runs = 0;
	double x;

	(void)state;
	build(&f);
	html = render_ok(&f.h, HTML);
	assert_true(!strncmp(html, "<!DOCTYPE html>", 15));
	assert_non_null(strstr(html, "</html>"));
	/* nothing fetched, nothing run */
	assert_null(strstr(html, "http://"));
	assert_null(strstr(html, "https://"));
	assert_null(strstr(html, "<script"));
	assert_null(strstr(html, "<img"));
	/* every hostile name escaped, none raw */
	assert_null(strstr(html, TREE));
	assert_null(strstr(html, JOB));
	assert_null(strstr(html, METRIC));
	assert_null(strstr(html, STATE));
	assert_null(strstr(html, "\033"));
	assert_null(strstr(html, "\xff"));
	assert_non_null(strstr(html, "tree&lt;&amp;&gt;"));
	assert_non_null(strstr(html, "feat/&quot;quote&#39;&quot;&lt;b&gt;"));
	assert_non_null(strstr(html, "job&lt;script&gt;alert(1)&lt;/script&gt;"));
	assert_non_null(strstr(html, "fix &lt;img src=x"));
	assert_non_null(strstr(html, "bad \xef\xbf\xbd byte"));
	/* one plot, accessible: a title, a description, both axes labelled with the unit */
	assert_int_equal(count(html, "<svg"), 1);
	assert_int_equal(count(html, "</svg>"), 1);
	svg = strstr(html, "<svg");
	end = strstr(html, "</svg>");
	assert_non_null(strstr(svg, "<title>dmesg.WARNING:at_&lt;foo&gt;&amp;bar of"));
	assert_non_null(strstr(svg, "<desc>"));
	assert_non_null(strstr(svg, "dmesg.WARNING:at_&lt;foo&gt;&amp;bar (&lt;u&gt;)</text>"));
	assert_non_null(strstr(svg, "oldest first</text>"));
	/* every run a dot */
	for (size_t i = 0; i < NPTS; i++)
		runs += f.points[i].n;
	assert_int_equal(count(svg, "<circle class=\"run\""), runs);
	assert_true(count(svg, "<circle") == runs && strstr(svg, "<circle") < end);
	assert_int_equal(count(svg, "<polyline class=\"meanline\""), 1);
	/* the change points: between the points either side, labelled */
	assert_int_equal(count(svg, "<line class=\"cp\""), 1);
	assert_int_equal(count(svg, "<line class=\"cp tentative\""), 1);
	x = line_x(svg, "cp");
	assert_true(x > 90 + 4 * (640 - 110) / 8.0 - 1 && x < 90 + 4 * (640 - 110) / 8.0 + 1);
	assert_non_null(strstr(svg, ">+10.0%</text>"));
	assert_non_null(strstr(svg, ">+4.5%?</text>"));
	/* alerts labelled with their state; one whose point is gone is not drawn */
	assert_non_null(strstr(svg, ">alert 1: reported &lt;x&gt;</text>"));
	assert_null(strstr(html, "reported <x>"));
	assert_null(strstr(svg, "alert 7:"));
	assert_int_equal(count(svg, "<line class=\"alert\""), 1);
	/* the tables: the alert gone from the plot is listed, its state escaped */
	assert_non_null(strstr(end, "&lt;state&gt;&amp;"));
	assert_non_null(strstr(end, "(not a point)"));
	assert_int_equal(count(end, "<tr class=\"cp\">"), 1);
	assert_non_null(strstr(strstr(end, "<tr class=\"cp\">"), ">9</td>"));
	assert_null(strstr(html, "nan"));
	assert_null(strstr(html, "inf"));
	free(html);
}

/* A series that breaks a rule: -EINVAL from every writer, nothing written. */
static void refused(void **state)
{
	static const enum fmt fmts[] = { TEXT, JSON, HTML };
	struct fixture f;
	const char *why;

	(void)state;
	for (int bad = 0; bad < 7; bad++) {
		build(&f);
		switch (bad) {
		case 0: f.h.metric = NULL; break;
		case 1: f.h.nr_points = 0; break;
		case 2: f.points[3].seq = f.points[2].seq; break;
		case 3: f.v[5][1] = NAN; break;
		case 4: f.changes[0].index = 0; break;
		case 5: f.changes[1].index = NPTS; break;
		case 6: f.alerts[1].state = NULL; break;
		}
		assert_int_equal(report_history_check(&f.h, &why), -EINVAL);
		assert_non_null(why);
		for (size_t k = 0; k < 3; k++) {
			int ret;
			char *out = render(&f.h, fmts[k], &ret);

			assert_int_equal(ret, -EINVAL);
			assert_string_equal(out, "");
			free(out);
		}
	}
	build(&f);
	assert_int_equal(report_history_check(&f.h, &why), 0);
	assert_null(why);
	assert_int_equal(report_history_check(NULL, NULL), -EINVAL);
}

/* One point, one run, no change, no alert, no unit: still a whole page. */
static void smallest(void **state)
{
	double v = 3.5;
	struct history_point p = { .seq = 1, .sha = "c0ffee", .values = &v, .n = 1,
				   .tested = NAN };
	struct history h = { .tree = "t", .branch = "b", .testbox = "x", .job = "j",
			     .metric = "m", .points = &p, .nr_points = 1 };
	char *out;
	json_t *doc;

	(void)state;
	out = render_ok(&h, TEXT);
	assert_non_null(strstr(out, "change points (0)\n"));
	assert_non_null(strstr(out, "alerts (0)\n"));
	assert_non_null(strstr(out, "c0ffee"));
	free(out);
	out = render_ok(&h, JSON);
	doc = json_loads(out, 0, NULL);
	assert_non_null(doc);
	assert_true(json_is_null(json_object_get(doc, "unit")));
	assert_true(json_is_null(json_object_get(doc, "detector")));
	assert_true(json_is_null(json_object_get(json_array_get(json_object_get(doc, "points"), 0),
						 "stddev")));
	assert_true(json_is_null(json_object_get(json_array_get(json_object_get(doc, "points"), 0),
						 "tested")));
	json_decref(doc);
	free(out);
	out = render_ok(&h, HTML);
	assert_int_equal(count(out, "<circle class=\"run\""), 1);
	assert_non_null(strstr(out, "No change point"));
	assert_null(strstr(out, "nan"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(text_lines),
		cmocka_unit_test(json_every_run),
		cmocka_unit_test(html_page),
		cmocka_unit_test(refused),
		cmocka_unit_test(smallest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

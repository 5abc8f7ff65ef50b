/*
 * test_report_site.c - perfbot publish's pages (report/site.h) written to
 * a memstream from hostile names: every string escaped, links only to
 * the site's own pages, the overview's sparkline and latest change, the
 * alerts grouped by culprit, the feed's stable ids, a comparison page
 * spliced with the nav and the alert's facts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "report/site.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EVIL "<script>alert(1)</script>&\"'"
#define EVIL_ESC "&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&#39;"
#define SHA_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define SHA_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

typedef int (*writer)(FILE *out, const void *ctx);

static char *render(writer w, const void *ctx)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(w(f, ctx), 0);
	assert_int_equal(fclose(f), 0);
	/* nothing raw from the input, nothing external */
	assert_null(strstr(buf, "<script>alert"));
	assert_null(strstr(buf, "href=\"http"));
	assert_null(strstr(buf, "src="));
	return buf;
}

static const double vals[4][3] = { { 10, 11, 10.5 }, { 10, 10.2, 9.9 }, { 20, 21, 20.5 },
				   { 20.2, 20, 19.9 } };

static struct history_point points[4] = {
	{ .seq = 1, .sha = SHA_A, .values = vals[0], .n = 3, .subject = EVIL },
	{ .seq = 2, .sha = SHA_A "1", .values = vals[1], .n = 3 },
	{ .seq = 3, .sha = SHA_B, .values = vals[2], .n = 3, .subject = EVIL },
	{ .seq = 4, .sha = SHA_B "1", .values = vals[3], .n = 3 },
};
static const struct history_change changes[1] = {
	{ .index = 2, .p = 1e-9, .before = 10.1, .after = 20.2, .pct = 100 },
};
static const struct history_alert halerts[1] = {
	{ .id = 7, .before = SHA_A "1", .after = SHA_B, .how = "head", .state = "reported",
	  .pct = 100, .culprit = SHA_B },
};
static const struct history hist = {
	.tree = EVIL, .branch = "main", .testbox = "box", .job = EVIL, .metric = "m.ops",
	.points = points, .nr_points = 4, .changes = changes, .nr_changes = 1,
	.alerts = halerts, .nr_alerts = 1,
};
static const struct site_alert salerts[2] = {
	{ .id = 7, .tree = EVIL, .branch = "main", .testbox = "box", .job = EVIL,
	  .metric = "m.ops", .before = SHA_A "1", .after = SHA_B, .how = "head",
	  .state = "reported", .pct = 100, .culprit = SHA_B, .bisect_id = 3, .note = EVIL,
	  .created = 1.7e9, .updated = 1.7e9 + 60, .series_page = "series-x-1.html" },
	{ .id = 8, .tree = "t", .branch = "b", .testbox = "box", .job = "j", .metric = "m",
	  .before = SHA_A, .after = SHA_B, .state = "tentative", .pct = NAN,
	  .created = 1.7e9, .updated = 1.7e9 },
};

static int w_index(FILE *out, const void *ctx)
{
	struct site_series s = { &hist, "series-x-1.html" };

	(void)ctx;
	return report_site_index(out, &s, 1, salerts, 2, EVIL);
}

static void index_page(void **state)
{
	char *html = render(w_index, NULL);

	(void)state;
	assert_true(!strncmp(html, "<!DOCTYPE html>", 15));
	assert_non_null(strstr(html, EVIL_ESC));
	assert_non_null(strstr(html, "<a href=\"series-x-1.html\">"));
	/* a sparkline with its text alternative; the latest change in words */
	assert_int_equal(count(html, "<svg class=\"spark\""), 1);
	assert_non_null(strstr(html, "role=\"img\" aria-label=\"m.ops over 4 points, 1 change point\""));
	assert_non_null(strstr(html, "<a href=\"alert-7.html\">alert 7</a> <span class=\"state "
				     "state-reported\">reported</span> +100.0%"));
	assert_non_null(strstr(html, "2 alerts (1 open)"));
	free(html);
}

static int w_series(FILE *out, const void *ctx)
{
	static const int64_t runs[4] = { 0, 11, 12, 0 };

	(void)ctx;
	return report_site_series(out, &hist, runs);
}

static void series_page(void **state)
{
	char *html = render(w_series, NULL);

	(void)state;
	/* the marker at the first point after the change, with its state */
	assert_non_null(strstr(html, "data-sha=\"" SHA_B "\" data-state=\"reported\""));
	assert_non_null(strstr(html, "<text class=\"cpstate\""));
	/* tooltips: the commit and its (escaped) subject */
	assert_non_null(strstr(html, "<title>seq 3 bbbbbbbbbbbb " EVIL_ESC ": mean 20.50 of 3 runs"));
	/* links: runs, the alert, the nav; the script and its hidden controls */
	assert_non_null(strstr(html, "<a href=\"run-11.html\">"));
	assert_null(strstr(html, "run-0.html"));
	assert_non_null(strstr(html, "<a href=\"alert-7.html\">7</a>"));
	assert_non_null(strstr(html, "<nav aria-label=\"site\">"));
	assert_int_equal(count(html, "<script>"), 1);
	assert_non_null(strstr(html, "id=\"plot-controls\" class=\"controls\" role=\"group\" "
				     "aria-label=\"plot controls\" hidden>"));
	/* every run's value in the table */
	assert_non_null(strstr(html, "<td class=\"vals\">20.00 21.00 20.50</td>"));
	free(html);
}

static int w_alerts(FILE *out, const void *ctx)
{
	const struct site_bisect b[2] = {
		{ .id = 3, .status = "found", .job = EVIL, .culprit = SHA_B, .updated = 1.7e9 },
		{ .id = 4, .status = "running", .updated = 1.7e9 },
	};

	(void)ctx;
	return report_site_alerts(out, salerts, 2, b, 2);
}

static void alerts_page(void **state)
{
	char *html = render(w_alerts, NULL), *group, *none;

	(void)state;
	group = strstr(html, "<h2>culprit <span class=\"name\">bbbbbbbbbbbb</span></h2>");
	none = strstr(html, "<h2>no culprit (yet)</h2>");
	assert_non_null(group);
	assert_non_null(none);
	assert_true(group < none);
	/* the culprit's group: its alert and its bisection; the other group the rest */
	assert_true(strstr(group, "href=\"alert-7.html\"") < none);
	assert_true(strstr(group, "href=\"bisect-3.html\"") < none);
	assert_true(strstr(none, "href=\"alert-8.html\"") != NULL);
	assert_true(strstr(none, "href=\"bisect-4.html\"") != NULL);
	assert_non_null(strstr(html, "<span class=\"state state-tentative\">tentative</span>"));
	free(html);
}

static int w_feed(FILE *out, const void *ctx)
{
	(void)ctx;
	return report_site_feed(out, "0123456789abcdef0123456789abcdef", salerts, 2);
}

static void feed(void **state)
{
	char *xml = render(w_feed, NULL);

	(void)state;
	assert_true(!strncmp(xml, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed", 44));
	/* only the reported alert; its id stable, its time UTC */
	assert_int_equal(count(xml, "<entry>"), 1);
	assert_non_null(strstr(xml, "<id>urn:perfbot:0123456789abcdef0123456789abcdef:alert:7</id>"));
	assert_non_null(strstr(xml, "<updated>2023-11-14T22:14:20Z</updated>"));
	assert_non_null(strstr(xml, "href=\"alert-7.html\""));
	assert_non_null(strstr(xml, EVIL_ESC));
	free(xml);
}

static int w_alert(FILE *out, const void *ctx)
{
	return report_site_alert(out, &salerts[0], ctx, "why");
}

static void alert_page(void **state)
{
	static const char page[] = "<!DOCTYPE html>\n<html>\n<head>\n<style>\nbody{}\n</style>\n"
				   "</head>\n<body>\n<h1>comparison</h1>\n</body>\n</html>\n";
	char *html = render(w_alert, page), *nav, *h1;

	(void)state;
	nav = strstr(html, "<nav");
	h1 = strstr(html, "<h1>comparison</h1>");
	assert_non_null(nav);
	assert_non_null(h1);
	/* after <body>, before the comparison: the nav, then the alert's facts */
	assert_true(strstr(html, "<body>") < nav && nav < h1);
	assert_true(strstr(html, "<div class=\"facts\">") < h1);
	assert_non_null(strstr(html, "nav a{"));	/* the site's style joined the page's */
	assert_non_null(strstr(html, "(<a href=\"bisect-3.html\">bisection 3</a>)"));
	free(html);
	/* a body with attributes: the nav still goes inside it */
	html = render(w_alert, "<html><head></head><body class=\"r\"><h1>c</h1></body></html>");
	assert_non_null(strstr(html, "<body class=\"r\"><nav"));
	free(html);
	/* no comparison: a page of the facts and why */
	html = render(w_alert, NULL);
	assert_non_null(strstr(html, "<p>No comparison: why</p>"));
	free(html);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(index_page),
		cmocka_unit_test(series_page),
		cmocka_unit_test(alerts_page),
		cmocka_unit_test(feed),
		cmocka_unit_test(alert_page),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Unit tests: report/bisect*.c.  The fixture
 * tests/fixtures/bisect-result.json (a found culprit with its
 * confirmation, a skipped commit, 40 candidates), found at the path of
 * this source file (CMake compiles it by its absolute path), and variants
 * of it made with jansson: a range, undecided, no change, a merge, and
 * broken documents.  Each is read as `report --bisect` reads a stored
 * one (record/bisect_result.h), then written.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "record/bisect_result.h"
#include "report/bisect_report.h"

#include <jansson.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CULPRIT "ced4ba3a27a96a09598b014649bc1668a00a7958"
#define PARENT "1898cf9aaa9925b674a17baa8528e91f5669d28a"
#define GOOD "24412ef5d15c04ebcc948c60b21a19a54d9e061d"
#define BAD "5735ed2be62f8e2a38100fd83b167c3a8c6db0e7"
#define METRIC "demo.time.elapsed_time"
#define SUBJECT "[perfbot] ced4ba3a27: " METRIC " +5.0% regression"
#define ODD "fix <&> \"quoted\" 'x'"

static json_t *fixture(void)
{
	char path[4096], *slash;
	json_error_t e;
	json_t *r;

	snprintf(path, sizeof(path), "%s", __FILE__);
	slash = strrchr(path, '/');
	assert_non_null(slash);
	snprintf(slash, sizeof(path) - (size_t)(slash - path),
		 "/../fixtures/bisect-result.json");
	r = json_load_file(path, 0, &e);
	if (!r)
		fail_msg("%s: %s", path, e.text);
	return r;
}

enum fmt { TEXT, EMAIL, HTML, JSON };

/* The reader's message about the last document it refused. */
static char why[512];

/*
 * Read document r as a stored one is read, then write it in format f;
 * *ret the reader's refusal or the writer's return; the caller frees the
 * text (empty when the reader refused).
 */
static char *render_ret(const json_t *r, enum fmt f, const struct report_bisect_opts *o,
			int *ret)
{
	struct bisect_result res;
	char *buf = NULL, *text = r ? json_dumps(r, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int read;

	assert_non_null(m);
	why[0] = '\0';
	read = text ? bisect_result_from_json(text, strlen(text), &res, why, sizeof(why))
		    : -EINVAL;
	free(text);
	*ret = read;
	switch (read ? -1 : (int)f) {
	case TEXT:
		*ret = report_bisect_text(m, &res);
		break;
	case EMAIL:
		*ret = report_bisect_email(m, &res, o);
		break;
	case HTML:
		*ret = report_bisect_html(m, &res);
		break;
	case JSON:
		*ret = report_bisect_json(m, &res);
		break;
	}
	if (!read)
		bisect_result_release(&res);
	assert_int_equal(fclose(m), 0);
	assert_non_null(buf);
	assert_int_equal(strlen(buf), len);
	return buf;
}

static char *render(const json_t *r, enum fmt f, const struct report_bisect_opts *o)
{
	int ret;
	char *s = render_ret(r, f, o, &ret);

	assert_int_equal(ret, 0);
	return s;
}

static size_t count_of(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static void has(const char *hay, const char *needle)
{
	if (!strstr(hay, needle)) {
		fprintf(stderr, "missing \"%s\" in:\n%s\n", needle, hay);
		fail();
	}
}

static void lacks(const char *hay, const char *needle)
{
	if (strstr(hay, needle)) {
		fprintf(stderr, "unexpected \"%s\" in:\n%s\n", needle, hay);
		fail();
	}
}

/* The value of header name (a copy), or NULL; checks the message's shape. */
static char *header(const char *msg, const char *name)
{
	const char *end = strstr(msg, "\n\n"), *p = msg;
	size_t n = strlen(name);

	assert_non_null(end);
	while (p < end) {
		const char *nl = strchr(p, '\n');

		/* every header line is "Name: value" (no folding is written) */
		assert_non_null(memchr(p, ':', (size_t)(nl - p)));
		assert_true(p[0] != ' ' && p[0] != '\t');
		if (!strncmp(p, name, n) && p[n] == ':' && p[n + 1] == ' ')
			return strndup(p + n + 2, (size_t)(nl - p - n - 2));
		p = nl + 1;
	}
	return NULL;
}

static void check_lines(const char *msg)
{
	for (const char *p = msg; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		assert_true(n <= 998);
		p += n + (nl != NULL);
	}
}

static void check_subject(const json_t *r, const char *want)
{
	char *m = render(r, EMAIL, NULL), *s = header(m, "Subject");

	assert_non_null(s);
	assert_string_equal(s, want);
	free(s);
	free(m);
}

static void set_str(json_t *o, const char *key, const char *v)
{
	assert_int_equal(json_object_set_new(o, key, json_string(v)), 0);
}

static void test_text_found(void **state)
{
	json_t *r = fixture();
	char *t = render(r, TEXT, NULL);

	(void)state;
	has(t, "bisection 3: found the first bad commit\n");
	has(t, "first bad commit: " CULPRIT " lib: hash with a lookup table instead of a switch\n");
	has(t, "author: Ada Lovelace <ada@example.org>\n");
	has(t, "P(first bad) 99.8%, the probability that it is the first bad commit (stop at 99%, at most 100 runs)");
	/* the confirmation: parent, culprit, %change, interval, p, verdict */
	has(t, "parent   1898cf9aaa99  1.0010 ± 0.0028 (6 runs)");
	has(t, "culprit  ced4ba3a27a9  1.0505 ± 0.0027 (6 runs)");
	has(t, "+5.0% [+4.3%, +5.6%] (95% interval), p=3.4e-11: changed (regression)");
	has(t, "spent: 42 runs (20 searching, 10 on good and bad, 12 confirming), 9 builds (1 failed)");
	/* the table: every commit measured or skipped, the culprit marked */
	has(t, "   17  ced4ba3a27a9  measured       4         1.0510         99.8%     99.9%  lib: hash");
	has(t, "<= first bad commit");
	has(t, "skipped");
	has(t, "build failed (exit 2)");
	free(t);
	json_decref(r);
}

static void test_email_found(void **state)
{
	json_t *r = fixture();
	struct report_bisect_opts o = {
		.from = "robot <robot@example.org>", .to = "dev@example.org",
		.reported_by = "perfbot <perfbot@example.org>",
		.link = "https://bugs.example.org/42",
	};
	char *m = render(r, EMAIL, &o), *v, *body;

	(void)state;
	v = header(m, "Subject");
	assert_string_equal(v, SUBJECT);
	free(v);
	v = header(m, "From");
	assert_string_equal(v, o.from);
	free(v);
	v = header(m, "To");
	assert_string_equal(v, o.to);
	free(v);
	v = header(m, "MIME-Version");
	assert_string_equal(v, "1.0");
	free(v);
	v = header(m, "Content-Type");
	assert_string_equal(v, "text/plain; charset=utf-8");
	free(v);
	v = header(m, "Date");
	assert_non_null(v);
	free(v);
	check_lines(m);
	body = strstr(m, "\n\n") + 2;
	assert_true(!strncmp(body, "perfbot bisected a 5.0% regression of " METRIC " to:\n", 60));
	has(body, "commit: " CULPRIT " (\"lib: hash with a lookup table instead of a switch\")\n");
	has(body, "in testcase: demo\n");
	has(body, "test machine: 2 threads AMD EPYC with 23G memory\n");
	has(body, "\tsize: 100\n");
	has(body, "How sure:\n");
	has(body, "is 99.8%\n(the search stops at 99%).\n");
	has(body, "Double-checked");
	has(body, "+5.0% [+4.3%, +5.6%] (95% interval), p=3.4e-11: changed");
	has(body, "| Reported-by: perfbot <perfbot@example.org>\n");
	has(body, "| Closes: https://bugs.example.org/42\n");
	has(body, "perfbot run --repo repo --commit " CULPRIT " job.yaml\n");
	has(body, "perfbot run --repo repo --commit " PARENT " job.yaml\n");
	has(body, "job.yaml:\n\nsuite: demo\n");
	free(m);

	/* defaults: From as report_email, no To, no tags */
	m = render(r, EMAIL, NULL);
	v = header(m, "From");
	assert_string_equal(v, "perfbot <perfbot@localhost>");
	free(v);
	assert_null(header(m, "To"));
	lacks(m, "Reported-by");
	free(m);
	json_decref(r);
}

static void test_email_long_lines(void **state)
{
	json_t *r = fixture();
	char *big = malloc(5001), *m;

	(void)state;
	memset(big, 'x', 5000);
	big[5000] = '\0';
	set_str(json_object_get(r, "culprit"), "subject", big);
	set_str(r, "job_text", big);
	m = render(r, EMAIL, NULL);
	check_lines(m);
	free(m);
	free(big);
	json_decref(r);
}

static void test_direction(void **state)
{
	json_t *r = fixture();
	struct report_bisect_opts o = { .reported_by = "perfbot <p@example.org>",
					.link = "https://x.example/1" };
	const char *tags = "\n\nReported-by: perfbot <p@example.org>\n"
			   "Closes: https://x.example/1\n";
	char *m;
	size_t n;

	(void)state;
	/* higher_is_better decides, not the name */
	json_object_set_new(r, "higher_is_better", json_true());
	check_subject(r, "[perfbot] ced4ba3a27: " METRIC " +5.0% improvement");
	/* an improvement has nothing to fix: plain tags, at the end */
	m = render(r, EMAIL, &o);
	has(m, "perfbot bisected a 5.0% improvement of " METRIC " to:\n");
	lacks(m, "kindly add");
	n = strlen(m);
	assert_true(n > strlen(tags) && !strcmp(m + n - strlen(tags), tags));
	free(m);
	/* without it the name does, as for every report: "time" is lower-better */
	json_object_del(r, "higher_is_better");
	check_subject(r, SUBJECT);
	set_str(r, "metric", "demo.score");
	check_subject(r, "[perfbot] ced4ba3a27: demo.score +5.0% change");
	json_decref(r);
}

static void test_html(void **state)
{
	json_t *r = fixture();
	char *h;
	size_t open = 0, close = 0;

	(void)state;
	set_str(json_object_get(r, "culprit"), "subject", ODD);
	set_str(json_array_get(json_object_get(r, "commits"), 0), "subject", ODD);
	set_str(r, "job_text", ODD);
	h = render(r, HTML, NULL);
	assert_true(!strncmp(h, "<!DOCTYPE html>", 15));
	has(h, "</html>");
	has(h, "<svg");
	has(h, "class=\"culprit\"");
	has(h, "class=\"good\"");
	has(h, "class=\"bad\"");
	has(h, "class=\"pbad\"");
	has(h, "<circle");
	has(h, "fix &lt;&amp;&gt; &quot;quoted&quot; &#39;x&#39;");
	lacks(h, "<&>");
	lacks(h, "<script");
	lacks(h, "nan");
	lacks(h, "inf<");
	has(h, "99.8%");
	for (const char *p = h; (p = strstr(p, "<svg")); p++)
		open++;
	for (const char *p = h; (p = strstr(p, "</svg>")); p++)
		close++;
	assert_int_equal(open, close);
	/*
	 * the good and bad commits' own runs (the baseline's 5 each) are dots
	 * of their own, in their slots: good left of candidate 0, bad the
	 * last candidate (39 of 40)
	 */
	assert_int_equal(count_of(h, "<circle class=\"run base-good\""), 5);
	assert_int_equal(count_of(h, "<circle class=\"run base-bad\""), 5);
	/* +5% of a time: the verdict cell in the regression's colour, as compare's */
	has(h, "<td class=\"v-changed regression\">changed</td>");
	has(h, "<text class=\"commit end-good\"");
	has(h, "<text class=\"commit end-bad\"");
	/* axis labels: x the commits, y the metric (no unit stored here) */
	has(h, "<text class=\"axis\" x=\"355.0\" y=\"288\">commit: the good one, then the "
	       "candidates by index, oldest first</text>");
	has(h, "transform=\"rotate(-90 14 135.0)\">demo.time.elapsed_time</text>");
	free(h);

	/* with a unit, the y axis names it */
	set_str(r, "unit", "s");
	h = render(r, HTML, NULL);
	has(h, "transform=\"rotate(-90 14 135.0)\">demo.time.elapsed_time (s)</text>");
	free(h);
	json_decref(r);
}

static void test_json(void **state)
{
	json_t *r = fixture(), *back;
	json_error_t e;
	char *j = render(r, JSON, NULL);

	(void)state;
	assert_true(j[strlen(j) - 1] == '\n');
	has(j, "\n  \"status\": \"found\"");
	back = json_loads(j, 0, &e);
	assert_non_null(back);
	assert_true(json_equal(back, r));
	json_decref(back);
	free(j);
	json_decref(r);
}

static json_t *item(const char *sha, const char *subject, double p, int skipped)
{
	json_t *o = json_pack("{s:s, s:s, s:f}", "sha", sha, "subject", subject,
			      "probability", p);

	assert_non_null(o);
	if (skipped >= 0)
		json_object_set_new(o, "skipped", json_boolean(skipped));
	return o;
}

static void test_found_range(void **state)
{
	json_t *r = fixture(), *range = json_array();
	char *t;

	(void)state;
	json_array_append_new(range, item("1111111111111111111111111111111111111111",
					  "lib: new arena allocator", 0.4, 1));
	json_array_append_new(range, item("2222222222222222222222222222222222222222",
					  "demo: warn on a bad size", 0.35, 1));
	json_array_append_new(range, item(CULPRIT, "lib: hash", 0.249, 0));
	json_object_set_new(r, "range", range);
	set_str(r, "status", "found-range");
	json_object_del(r, "culprit");
	json_object_del(r, "confirmation");
	t = render(r, TEXT, NULL);
	has(t, "found a range");
	has(t, "the first bad commit is one of these 3");
	has(t, "  P(first bad) 40.0%     111111111111 lib: new arena allocator [skipped: could not be built]\n");
	has(t, "  P(first bad) 24.9%     ced4ba3a27a9 lib: hash\n");
	lacks(t, "<= first bad commit");
	free(t);
	t = render(r, EMAIL, NULL);
	has(t, "to one of these 3 commits:");
	check_lines(t);
	free(t);
	check_subject(r, "[perfbot] bisect 24412ef5d1..5735ed2be6: " METRIC
		      " +5.0% regression in one of 3 commits");
	t = render(r, HTML, NULL);
	has(t, "The first bad commit is one of these");
	free(t);
	json_decref(r);
}

static void test_undecided(void **state)
{
	json_t *r = fixture();
	char *t;

	(void)state;
	set_str(r, "status", "undecided");
	json_object_del(r, "culprit");
	json_object_del(r, "confirmation");
	json_object_set_new(r, "runs", json_integer(100));
	t = render(r, TEXT, NULL);
	has(t, "bisection 3: undecided\n");
	has(t, "not decided after 100 runs (stop at 99%, at most 100 runs); "
	       "the most likely first bad commits:\n");
	has(t, "  P(first bad) 99.8%     ced4ba3a27a9 lib: hash with a lookup table instead of a switch\n");
	has(t, "  0.09%     ");
	lacks(t, "first bad commit:");
	free(t);
	t = render(r, EMAIL, NULL);
	has(t, "perfbot could not decide which commit caused the 5.0% regression");
	has(t, "The most likely first bad commits so far:");
	free(t);
	check_subject(r, "[perfbot] bisect 24412ef5d1..5735ed2be6: " METRIC ": undecided");
	json_decref(r);
}

static void test_no_change(void **state)
{
	json_t *r = fixture(), *ch;
	char *t;

	(void)state;
	set_str(r, "status", "no-change");
	set_str(r, "message", "good and bad measure the same: nothing to bisect");
	json_object_del(r, "culprit");
	json_object_del(r, "confirmation");
	json_object_del(r, "best");
	json_object_del(r, "commits");
	ch = json_object_get(json_object_get(r, "baseline"), "change");
	json_object_set_new(ch, "pct", json_real(0.2));
	set_str(ch, "verdict", "same");
	t = render(r, TEXT, NULL);
	has(t, "no reproducible change between good and bad\n");
	has(t, "good and bad measure the same: nothing to bisect\n");
	has(t, "  good     24412ef5d15c  1.0000 ± 0.0025 (5 runs)  [v1.0]\n");
	has(t, "  change   +0.2% [+4.6%, +5.4%] (95% interval), p=1.2e-09: same\n");
	has(t, "no commit measured while searching; runs: baseline 5 + 5\n");
	free(t);
	t = render(r, EMAIL, NULL);
	has(t, "perfbot found no reproducible change of " METRIC);
	has(t, "nothing to bisect");
	free(t);
	check_subject(r, "[perfbot] bisect 24412ef5d1..5735ed2be6: " METRIC
		      ": no reproducible change");
	json_decref(r);
}

#define MERGE "3333333333333333333333333333333333333333"
#define INNER "4444444444444444444444444444444444444444"

static void test_merge(void **state)
{
	json_t *r = fixture(), *inner, *merge;
	char *t;

	(void)state;
	inner = json_pack("{s:s, s:{s:s}, s:{s:s}, s:i, s:{s:s, s:s, s:s, s:f, s:i},"
			  " s:{s:{s:s, s:i, s:f, s:f}, s:{s:s, s:i, s:f, s:f}, s:f, s:f, s:f, s:f, s:s},"
			  " s:[{s:s, s:i, s:s, s:i, s:f, s:f}]}",
			  "status", "found",
			  "good", "sha", "5555555555555555555555555555555555555555",
			  "bad", "sha", "6666666666666666666666666666666666666666",
			  "candidates", 6,
			  "culprit", "sha", INNER, "subject", "net: batch the <wakeups>",
			  "author", "B <b@example.org>", "probability", 0.995, "index", 2,
			  "confirmation",
			  "parent", "sha", "7777777777777777777777777777777777777777", "n", 6,
			  "mean", 1.0, "stddev", 0.003,
			  "culprit", "sha", INNER, "n", 6, "mean", 1.05, "stddev", 0.003,
			  "pct", 5.0, "low", 4.2, "high", 5.8, "p", 1e-8, "verdict", "changed",
			  "commits", "sha", INNER, "index", 2, "state", "measured", "n", 3,
			  "mean", 1.05, "p_bad", 0.999);
	assert_non_null(inner);
	merge = json_pack("{s:s, s:s, s:o}", "sha", MERGE, "subject",
			  "Merge branch 'net-next'", "inner", inner);
	assert_non_null(merge);
	json_object_set_new(r, "merge", merge);
	json_object_set_new(r, "culprit", json_pack("{s:s, s:s, s:f, s:i}", "sha", MERGE,
			    "subject", "Merge branch 'net-next'", "probability", 0.999,
			    "index", 17));
	t = render(r, TEXT, NULL);
	has(t, "first bad commit: " MERGE " Merge branch 'net-next'\n");
	has(t, "it is a merge: " MERGE);
	has(t, "inside the merged branch, the first bad commit is " INNER
	       " net: batch the <wakeups> (P(first bad) 99.5%)\n");
	has(t, "--- inside the branch merged by 333333333333: found the first bad commit ---\n");
	free(t);
	t = render(r, EMAIL, NULL);
	has(t, "commit: " INNER " (\"net: batch the <wakeups>\")\n");
	has(t, "merged by: " MERGE " (\"Merge branch 'net-next'\")\n");
	has(t, "On the first-parent line, the first bad commit is the merge\n333333333333");
	has(t, "commits measured inside the branch merged by 333333333333:");
	free(t);
	check_subject(r, "[perfbot] 4444444444: " METRIC " +5.0% regression");
	t = render(r, HTML, NULL);
	has(t, "Inside the merged branch");
	has(t, "net: batch the &lt;wakeups&gt;");
	lacks(t, "<wakeups>");
	free(t);

	/* inside the branch undecided: the merge itself is blamed */
	set_str(inner, "status", "undecided");
	check_subject(r, "[perfbot] 3333333333: " METRIC " +5.0% regression");
	t = render(r, EMAIL, NULL);
	has(t, "The commit is a merge; inside the merged branch the bisection is undecided");
	free(t);
	json_decref(r);
}

/*
 * r is refused with -EINVAL whatever the format, nothing written, and the
 * reader's message starts with what it names (NULL: no document at all).
 */
static void refused_because(const json_t *r, const char *names)
{
	for (enum fmt f = TEXT; f <= JSON; f++) {
		int ret;
		char *s = render_ret(r, f, NULL, &ret);

		assert_int_equal(ret, -EINVAL);
		assert_string_equal(s, "");
		if (names && strncmp(why, names, strlen(names)))
			fail_msg("the message '%s' does not start with '%s'", why, names);
		free(s);
	}
}

#define refused(r) refused_because((r), NULL)

static void test_invalid(void **state)
{
	json_t *r;

	(void)state;
	refused(NULL);
	r = json_array();
	refused_because(r, "not a JSON object");
	json_decref(r);

	r = fixture();
	json_object_del(r, "metric");
	refused_because(r, "metric: missing");
	json_decref(r);

	r = fixture();
	json_object_del(r, "status");
	refused_because(r, "status: missing");
	json_decref(r);

	r = fixture();
	set_str(r, "status", "bogus");
	refused_because(r, "status: not a status");
	json_decref(r);

	r = fixture();
	json_object_del(json_object_get(r, "good"), "sha");
	refused_because(r, "good.sha: missing");
	json_decref(r);

	r = fixture();
	json_object_del(r, "bad");
	refused_because(r, "bad: missing");
	json_decref(r);

	r = fixture();
	json_object_del(r, "culprit");		/* found needs its culprit */
	refused_because(r, "culprit: missing");
	json_decref(r);

	r = fixture();
	set_str(r, "status", "found-range");	/* ... and a range its commits */
	refused_because(r, "range: missing or empty");
	json_decref(r);

	r = fixture();
	set_str(r, "candidates", "40");		/* wrong types */
	refused_because(r, "candidates: expected an integer");
	json_decref(r);

	r = fixture();
	json_object_set_new(r, "higher_is_better", json_integer(0));
	refused_because(r, "higher_is_better: expected true or false");
	json_decref(r);

	r = fixture();
	json_array_append_new(json_object_get(json_array_get(json_object_get(r, "commits"), 0),
					      "values"), json_string("1.0"));
	refused_because(r, "commits[0].values[3]: expected a number");
	json_decref(r);

	r = fixture();
	json_object_set_new(r, "merge", json_pack("{s:s}", "subject", "no sha"));
	refused_because(r, "merge.sha: missing");
	json_decref(r);

	r = fixture();
	json_object_set_new(r, "merge", json_pack("{s:s, s:{s:s}}", "sha", MERGE,
						  "inner", "status", "found"));
	refused_because(r, "merge.inner.good: missing");
	json_decref(r);

	/* null is "not known": accepted like an absent optional field */
	r = fixture();
	json_object_set_new(r, "origin_url", json_null());
	json_object_set_new(r, "candidates", json_null());
	free(render(r, TEXT, NULL));
	json_decref(r);
}

/* The smallest valid document: every writer copes with what is absent. */
/* commits[] entry i of level lv (a json object) */
static json_t *commit_at(json_t *lv, size_t i)
{
	json_t *e = json_array_get(json_object_get(lv, "commits"), i);

	assert_non_null(e);
	return e;
}

/*
 * Issue 13 (a): the culprit's probability (P(first bad) == it, 99.3%) and
 * its row's P(bad) (P(first bad) <= it, 99.7%) are two quantities: each
 * is printed under its own name, and the header's number is the one the
 * table shows for the culprit under the same name, in every format.
 */
static void test_one_probability(void **state)
{
	json_t *r = fixture();
	char *t;

	(void)state;
	json_object_set_new(json_object_get(r, "culprit"), "probability", json_real(0.993));
	json_object_set_new(commit_at(r, 4), "p_bad", json_real(0.997));
	t = render(r, TEXT, NULL);
	has(t, "P(first bad) 99.3%, the probability that it is the first bad commit");
	has(t, "  P(first bad)    P(bad)  subject\n");
	has(t, "   17  ced4ba3a27a9  measured       4         1.0510         99.3%     99.7%  lib: hash");
	has(t, "P(bad): that it is bad, i.e. that the first bad commit is it or an earlier one\n");
	lacks(t, "probability 99.7%");
	lacks(t, "P(first bad) 99.7%");
	free(t);
	t = render(r, EMAIL, NULL);
	has(t, "P(first bad), the probability that ced4ba3a27a9 is the first bad commit, is 99.3%");
	has(t, "         99.3%     99.7%  lib: hash");
	lacks(t, "P(first bad) 99.7%");
	free(t);
	t = render(r, HTML, NULL);
	has(t, "<dt>P(first bad)</dt><dd>99.3%</dd>");
	has(t, "<th>P(first bad)</th><th>P(bad)</th>");
	has(t, "<td class=\"num\">99.3%</td><td class=\"num\">99.7%</td>");
	free(t);
	json_decref(r);
}

/*
 * Issue 13 (b): a merged branch of one candidate (the bad commit itself)
 * needs no search: the report says so and counts the runs its one commit
 * had (3 as the bad side, brought to 8 by the confirmation), never "0
 * runs on 0 of the 1 candidate commits".
 */
static void test_inner_one_candidate(void **state)
{
	json_t *r = fixture(), *inner, *merge;
	char *t;

	(void)state;
	inner = json_pack("{s:s, s:{s:s}, s:{s:s}, s:i, s:i, s:[],"
			  " s:{s:{s:s, s:i, s:f, s:f}, s:{s:s, s:i, s:f, s:f}, s:{s:f, s:s}},"
			  " s:{s:s, s:s, s:f, s:i},"
			  " s:{s:{s:s, s:i, s:f, s:f}, s:{s:s, s:i, s:f, s:f}, s:f, s:f, s:f, s:f, s:s}}",
			  "status", "found",
			  "good", "sha", "5555555555555555555555555555555555555555",
			  "bad", "sha", INNER,
			  "candidates", 1, "runs_search", 0, "commits",
			  "baseline",
			  "good", "sha", "5555555555555555555555555555555555555555", "n", 3,
			  "mean", 1.0, "stddev", 0.003,
			  "bad", "sha", INNER, "n", 3, "mean", 1.05, "stddev", 0.003,
			  "change", "pct", 5.0, "verdict", "changed",
			  "culprit", "sha", INNER, "subject", "net: batch the <wakeups>",
			  "probability", 1.0, "index", 0,
			  "confirmation",
			  "parent", "sha", "5555555555555555555555555555555555555555", "n", 8,
			  "mean", 1.0, "stddev", 0.003,
			  "culprit", "sha", INNER, "n", 8, "mean", 1.05, "stddev", 0.003,
			  "pct", 5.0, "low", 4.2, "high", 5.8, "p", 1e-8, "verdict", "changed");
	assert_non_null(inner);
	merge = json_pack("{s:s, s:s, s:o}", "sha", MERGE, "subject",
			  "Merge branch 'net-next'", "inner", inner);
	assert_non_null(merge);
	json_object_set_new(r, "merge", merge);
	json_object_set_new(r, "culprit", json_pack("{s:s, s:s, s:f, s:i}", "sha", MERGE,
			    "subject", "Merge branch 'net-next'", "probability", 0.999,
			    "index", 17));
	t = render(r, EMAIL, NULL);
	lacks(t, "0 runs on 0");
	has(t, "The bad commit is the only candidate commit, so nothing was searched\n"
	       "(it has 8 runs),\nP(first bad), the probability that 444444444444");
	has(t, "no commit measured while searching (one candidate, the bad commit: nothing to"
	       " search); runs: baseline 3 + 3, confirmation 8 + 8\n");
	lacks(t, "no commit measured\n");
	free(t);
	t = render(r, TEXT, NULL);
	has(t, "no commit measured while searching (one candidate, the bad commit: nothing to"
	       " search)");
	free(t);
	t = render(r, HTML, NULL);
	has(t, "the one candidate is the bad commit, whose runs are in the baseline and the"
	       " confirmation");
	free(t);
	json_decref(r);
}

/*
 * Issue 13 (c): the metric's unit, when the result stores one, beside
 * every mean, stddev, median and MAD in every format; none when it does
 * not (results stored before the unit was).
 */
static void test_units(void **state)
{
	json_t *r = fixture();
	char *t;

	(void)state;
	t = render(r, TEXT, NULL);
	has(t, "parent   1898cf9aaa99  1.0010 ± 0.0028 (6 runs)");
	free(t);
	set_str(r, "unit", "s");
	t = render(r, TEXT, NULL);
	has(t, "metric: " METRIC " in s (lower is better)\n");
	has(t, "parent   1898cf9aaa99  1.0010 s ± 0.0028 s (6 runs)");
	has(t, "culprit  ced4ba3a27a9  1.0505 s ± 0.0027 s (6 runs)");
	has(t, "   17  ced4ba3a27a9  measured       4       1.0510 s         99.8%     99.9%  lib: hash");
	has(t, "+5.0% [+4.3%, +5.6%]");
	free(t);
	t = render(r, EMAIL, NULL);
	has(t, "  good     ");
	has(t, "1.0010 s ± 0.0028 s (6 runs)");
	free(t);
	t = render(r, HTML, NULL);
	has(t, "<dt>unit</dt><dd>s</dd>");
	has(t, "<td class=\"num\">1.0510 s</td>");
	has(t, "<figcaption>" METRIC " in s: every run");
	free(t);
	t = render(r, JSON, NULL);
	has(t, "\"unit\": \"s\"");
	free(t);
	/* a percentage: no blank */
	set_str(r, "unit", "%");
	t = render(r, TEXT, NULL);
	has(t, "1.0010% ± 0.0028% (6 runs)");
	free(t);
	/* a unit that is not a string is refused, by name */
	json_object_set_new(r, "unit", json_integer(1));
	refused_because(r, "unit");
	json_decref(r);
}

/*
 * Issue 13 (d): where the report prints the repository it says what it
 * is: "repository: URL" (the origin) or "repository: /path".
 */
static void test_repository_labelled(void **state)
{
	json_t *r = fixture();
	char *t;

	(void)state;
	t = render(r, EMAIL, NULL);
	has(t, "\nrepository: https://git.example.org/demo.git\n");
	lacks(t, "\nhttps://git.example.org/demo.git\n");
	has(t, "\nrepository: /srv/perfbot/repos/demo\norigin: https://git.example.org/demo.git\n");
	free(t);
	t = render(r, TEXT, NULL);
	has(t, "repository: /srv/perfbot/repos/demo\norigin: https://git.example.org/demo.git\n");
	free(t);
	json_object_del(r, "origin_url");
	t = render(r, EMAIL, NULL);
	has(t, "\nrepository: /srv/perfbot/repos/demo\n\nin testcase:");
	lacks(t, "\n/srv/perfbot/repos/demo\n");
	free(t);
	set_str(r, "status", "undecided");
	t = render(r, EMAIL, NULL);
	has(t, "\nrepository: /srv/perfbot/repos/demo\n");
	lacks(t, "\n/srv/perfbot/repos/demo\n");
	free(t);
	json_decref(r);
}

static void test_minimal(void **state)
{
	json_t *r = json_pack("{s:s, s:s, s:{s:s}, s:{s:s}, s:{s:s}}", "status", "found",
			      "metric", "x", "good", "sha", GOOD, "bad", "sha", BAD,
			      "culprit", "sha", CULPRIT);
	char *t;

	(void)state;
	assert_non_null(r);
	for (enum fmt f = TEXT; f <= JSON; f++) {
		t = render(r, f, NULL);
		lacks(t, "(null)");
		lacks(t, "nan");
		free(t);
	}
	check_subject(r, "[perfbot] ced4ba3a27: x first bad commit");
	for (const char *const *s = (const char *const[]){ "failed", "running", "reset",
							    "undecided", "no-change", NULL };
	     *s; s++) {
		set_str(r, "status", *s);
		for (enum fmt f = TEXT; f <= JSON; f++) {
			t = render(r, f, NULL);
			lacks(t, "(null)");
			free(t);
		}
	}
	json_decref(r);
}

/*
 * A loaded machine: one good run at 7.3 s against a 1.56 s median (the
 * real case printed "good 2.7 ± 2.6" and an interval holding 0 beside
 * "changed").  The medians and MAD are shown beside, the medians' change
 * too, and no interval contradicts the verdict shown with it.
 */
static void test_outliers(void **state)
{
	json_t *r = fixture(), *base = json_object_get(r, "baseline");
	char *t, *h;

	(void)state;
	json_object_set_new(base, "good", json_pack("{s:i, s:f, s:f, s:[fffff]}",
		"n", 5, "mean", 2.708, "stddev", 2.5658,
		"values", 1.55, 1.56, 1.56, 1.57, 7.3));
	json_object_set_new(base, "bad", json_pack("{s:i, s:f, s:f, s:[fffff]}",
		"n", 5, "mean", 1.932, "stddev", 0.013,
		"values", 1.92, 1.92, 1.93, 1.94, 1.95));
	json_object_set_new(base, "change", json_pack("{s:f, s:f, s:f, s:f, s:s}",
		"pct", -28.7, "low", -105.0, "high", 47.5, "p", 0.004, "verdict", "changed"));
	t = render(r, TEXT, NULL);
	has(t, "(5 runs); median 1.56");
	has(t, ", MAD 0.01");
	has(t, "medians  +23.7%");
	has(t, "-28.7% (the means' interval holds 0, against the verdict: outlier runs)");
	lacks(t, "[-105.0%");
	/* the fixture's confirmation has no outlier: mean ± stddev alone */
	lacks(t, "(6 runs); median");
	h = render(r, HTML, NULL);
	has(h, "<th>median</th><th>MAD</th>");
	has(h, "The medians differ by +23.7%");
	lacks(h, "[-105.0%");
	free(t);
	free(h);
	json_decref(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_found),
		cmocka_unit_test(test_email_found),
		cmocka_unit_test(test_email_long_lines),
		cmocka_unit_test(test_direction),
		cmocka_unit_test(test_html),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_found_range),
		cmocka_unit_test(test_undecided),
		cmocka_unit_test(test_no_change),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_minimal),
		cmocka_unit_test(test_outliers),
		cmocka_unit_test(test_one_probability),
		cmocka_unit_test(test_inner_one_candidate),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_repository_labelled),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

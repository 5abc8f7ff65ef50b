/*
 * Unit tests: util/colour (the decision per stream, the codes around a
 * padded cell) and report_verdict_colour() (what each verdict looks like).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "report/history.h"
#include "report/report.h"
#include "util/colour.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void parse(void **state)
{
	enum colour_when w = COLOUR_NEVER;

	(void)state;
	assert_int_equal(colour_parse("auto", &w), 0);
	assert_int_equal(w, COLOUR_AUTO);
	assert_int_equal(colour_parse("always", &w), 0);
	assert_int_equal(w, COLOUR_ALWAYS);
	assert_int_equal(colour_parse("never", &w), 0);
	assert_int_equal(w, COLOUR_NEVER);
	assert_int_equal(colour_parse("true", &w), 0);
	assert_int_equal(w, COLOUR_ALWAYS);
	assert_int_equal(colour_parse("false", &w), 0);
	assert_int_equal(w, COLOUR_NEVER);
	assert_int_equal(colour_parse("bogus", &w), -EINVAL);
	assert_int_equal(colour_parse("", &w), -EINVAL);
	assert_int_equal(colour_parse("Always", &w), -EINVAL);
}

static void decision(void **state)
{
	(void)state;
	/* auto: a tty with a real TERM */
	assert_true(colour_decide(COLOUR_AUTO, true, "xterm", NULL));
	assert_false(colour_decide(COLOUR_AUTO, false, "xterm", NULL));	/* a pipe */
	assert_false(colour_decide(COLOUR_AUTO, true, "dumb", NULL));
	assert_false(colour_decide(COLOUR_AUTO, true, NULL, NULL));
	assert_false(colour_decide(COLOUR_AUTO, true, "", NULL));
	/* NO_COLOR: set and not empty turns auto off; empty does not */
	assert_false(colour_decide(COLOUR_AUTO, true, "xterm", "1"));
	assert_true(colour_decide(COLOUR_AUTO, true, "xterm", ""));
	/* the command line wins over everything */
	assert_true(colour_decide(COLOUR_ALWAYS, false, "dumb", "1"));
	assert_true(colour_decide(COLOUR_ALWAYS, false, NULL, NULL));
	assert_false(colour_decide(COLOUR_NEVER, true, "xterm", NULL));
}

static char *put(bool on, enum colour c, const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	colour_fputs(f, on, c, s);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void padded_cells(void **state)
{
	char *s;

	(void)state;
	s = put(true, COLOUR_BAD, "     -20.0% ");
	assert_string_equal(s, "     \033[31m-20.0%\033[m ");
	free(s);
	s = put(true, COLOUR_GOOD, "improvement");
	assert_string_equal(s, "\033[32mimprovement\033[m");
	free(s);
	s = put(true, COLOUR_DIM, "same");
	assert_string_equal(s, "\033[2msame\033[m");
	free(s);
	s = put(true, COLOUR_CHANGE, "new");
	assert_string_equal(s, "\033[1;33mnew\033[m");
	free(s);
	/* off, plain, or only blanks: the text as it is */
	s = put(false, COLOUR_BAD, "  x ");
	assert_string_equal(s, "  x ");
	free(s);
	s = put(true, COLOUR_PLAIN, "unknown");
	assert_string_equal(s, "unknown");
	free(s);
	s = put(true, COLOUR_BAD, "   ");
	assert_string_equal(s, "   ");
	free(s);
}

static struct stat_vs vs(enum verdict v, double pct)
{
	struct stat_vs r;

	memset(&r, 0, sizeof(r));
	r.verdict = v;
	r.change.pct = pct;
	return r;
}

static void verdict_colours(void **state)
{
	struct stat_vs v;

	(void)state;
	v = vs(VERDICT_CHANGED, -20);
	assert_int_equal(report_verdict_colour(STAT_BETTER_HIGHER, &v), COLOUR_BAD);
	assert_int_equal(report_verdict_colour(STAT_BETTER_LOWER, &v), COLOUR_GOOD);
	assert_int_equal(report_verdict_colour(STAT_BETTER_NONE, &v), COLOUR_CHANGE);
	v = vs(VERDICT_CHANGED, 20);
	assert_int_equal(report_verdict_colour(STAT_BETTER_HIGHER, &v), COLOUR_GOOD);
	assert_int_equal(report_verdict_colour(STAT_BETTER_LOWER, &v), COLOUR_BAD);
	v = vs(VERDICT_SAME, 0.1);
	assert_int_equal(report_verdict_colour(STAT_BETTER_HIGHER, &v), COLOUR_DIM);
	v = vs(VERDICT_NEW, NAN);
	assert_int_equal(report_verdict_colour(STAT_BETTER_HIGHER, &v), COLOUR_CHANGE);
	v = vs(VERDICT_GONE, NAN);
	assert_int_equal(report_verdict_colour(STAT_BETTER_HIGHER, &v), COLOUR_CHANGE);
	v = vs(VERDICT_UNKNOWN, 20);
	assert_int_equal(report_verdict_colour(STAT_BETTER_HIGHER, &v), COLOUR_PLAIN);
	v = vs(VERDICT_FEW_RUNS, 20);
	assert_int_equal(report_verdict_colour(STAT_BETTER_HIGHER, &v), COLOUR_PLAIN);
	v = vs(VERDICT_SMALL, -0.5);
	assert_int_equal(report_verdict_colour(STAT_BETTER_HIGHER, &v), COLOUR_PLAIN);
	assert_int_equal(report_change_colour(STAT_BETTER_HIGHER, -3), COLOUR_BAD);
	assert_int_equal(report_change_colour(STAT_BETTER_NONE, -3), COLOUR_CHANGE);
}

/* The text of a 3-point history with a -10% step at point 2. */
static char *history_text(bool colour, int better)
{
	static const double v[3][2] = { { 100, 101 }, { 100, 99 }, { 90, 91 } };
	static const char *const shas[3] = {
		"a000000000000000000000000000000000000000",
		"b000000000000000000000000000000000000000",
		"c000000000000000000000000000000000000000",
	};
	struct history_point pts[3];
	struct history_change ch = { .index = 2, .p = 1e-6, .before = 100, .after = 90.5,
				     .pct = -9.5 };
	struct history h = {
		.tree = "t", .branch = "b", .testbox = "box", .job = "job", .metric = "m_ops",
		.better = better, .points = pts, .nr_points = 3, .changes = &ch, .nr_changes = 1,
		.colour = colour,
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	for (int i = 0; i < 3; i++)
		pts[i] = (struct history_point){ .seq = i + 1, .sha = shas[i], .tested = NAN,
						 .values = v[i], .n = 2 };
	assert_non_null(f);
	assert_int_equal(report_history_text(f, &h), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* s without its SGR sequences, in place. */
static char *strip(char *s)
{
	char *w = s;

	for (const char *r = s; *r;) {
		if (r[0] == '\033' && r[1] == '[') {
			r += 2;
			while (*r && *r != 'm')
				r++;
			r += *r == 'm';
			continue;
		}
		*w++ = *r++;
	}
	*w = '\0';
	return s;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static void history_colours(void **state)
{
	char *on = history_text(true, STAT_BETTER_HIGHER);
	char *off = history_text(false, STAT_BETTER_HIGHER);
	char *lower = history_text(true, STAT_BETTER_LOWER);
	char *none = history_text(true, STAT_BETTER_NONE);

	(void)state;
	/* the mark at point 3 and the change point's line, red: lower is worse */
	assert_int_equal(count(on, "\033[31m"), 2);
	assert_non_null(strstr(on, "\033[31m| -9.5%\033[m"));
	assert_non_null(strstr(on, "\033[31m-9.5%\033[m"));
	assert_null(strchr(off, '\033'));
	assert_int_equal(count(lower, "\033[32m"), 2);
	assert_int_equal(count(none, "\033[1;33m"), 2);
	/* the same text, the same columns, once the codes are gone */
	assert_string_equal(strip(on), off);
	free(on);
	free(off);
	free(lower);
	free(none);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse),
		cmocka_unit_test(decision),
		cmocka_unit_test(padded_cells),
		cmocka_unit_test(verdict_colours),
		cmocka_unit_test(history_colours),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests: util/parse (task counts, durations, integers, edit distance). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <limits.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/parse.h"

static void task_count_absolute(void **state)
{
	unsigned n = 0;

	(void)state;
	assert_int_equal(parse_task_count("1", 2, 4096, &n), PARSE_OK);
	assert_int_equal(n, 1);
	assert_int_equal(parse_task_count("16", 2, 4096, &n), PARSE_OK);
	assert_int_equal(n, 16);
	assert_int_equal(parse_task_count("4096", 2, 4096, &n), PARSE_OK);
	assert_int_equal(n, 4096);
}

static void task_count_percent(void **state)
{
	unsigned n = 0;

	(void)state;
	/* on 88 CPUs, as in the seed reports */
	assert_int_equal(parse_task_count("50%", 88, 4096, &n), PARSE_OK);
	assert_int_equal(n, 44);
	assert_int_equal(parse_task_count("100%", 88, 4096, &n), PARSE_OK);
	assert_int_equal(n, 88);
	assert_int_equal(parse_task_count("200%", 88, 4096, &n), PARSE_OK);
	assert_int_equal(n, 176);
	/* rounded down */
	assert_int_equal(parse_task_count("50%", 3, 4096, &n), PARSE_OK);
	assert_int_equal(n, 1);
	assert_int_equal(parse_task_count("12.5%", 88, 4096, &n), PARSE_OK);
	assert_int_equal(n, 11);
	/* at least 1 */
	assert_int_equal(parse_task_count("1%", 2, 4096, &n), PARSE_OK);
	assert_int_equal(n, 1);
	assert_int_equal(parse_task_count("50%", 2, 4096, &n), PARSE_OK);
	assert_int_equal(n, 1);
	assert_int_equal(parse_task_count("100%", 2, 4096, &n), PARSE_OK);
	assert_int_equal(n, 2);
	assert_int_equal(parse_task_count("200%", 2, 4096, &n), PARSE_OK);
	assert_int_equal(n, 4);
}

static void task_count_errors(void **state)
{
	unsigned n = 77;

	(void)state;
	assert_int_equal(parse_task_count("0", 2, 4096, &n), PARSE_TOO_SMALL);
	assert_int_equal(parse_task_count("-1", 2, 4096, &n), PARSE_TOO_SMALL);
	assert_int_equal(parse_task_count("4097", 2, 4096, &n), PARSE_TOO_LARGE);
	assert_int_equal(parse_task_count("99999999999999999999", 2, 4096, &n),
			 PARSE_TOO_LARGE);
	assert_int_equal(parse_task_count("300000%", 2, 4096, &n), PARSE_TOO_LARGE);
	assert_int_equal(parse_task_count("0%", 2, 4096, &n), PARSE_TOO_SMALL);
	assert_int_equal(parse_task_count("-5%", 2, 4096, &n), PARSE_TOO_SMALL);
	assert_int_equal(parse_task_count("%", 2, 4096, &n), PARSE_SYNTAX);
	assert_int_equal(parse_task_count("abc%", 2, 4096, &n), PARSE_SYNTAX);
	assert_int_equal(parse_task_count("5%%", 2, 4096, &n), PARSE_SYNTAX);
	assert_int_equal(parse_task_count("abc", 2, 4096, &n), PARSE_SYNTAX);
	assert_int_equal(parse_task_count("", 2, 4096, &n), PARSE_SYNTAX);
	assert_int_equal(parse_task_count("2x", 2, 4096, &n), PARSE_SYNTAX);
	assert_int_equal(parse_task_count(" 2", 2, 4096, &n), PARSE_SYNTAX);
	assert_int_equal(parse_task_count("1.5", 2, 4096, &n), PARSE_SYNTAX);
	assert_int_equal(parse_task_count("nan%", 2, 4096, &n), PARSE_SYNTAX);
	assert_int_equal(n, 77);	/* untouched on error */
}

static void durations(void **state)
{
	double d = -1;

	(void)state;
	assert_int_equal(parse_duration("0.3", &d), PARSE_OK);
	assert_float_equal(d, 0.3, 1e-12);
	assert_int_equal(parse_duration("300ms", &d), PARSE_OK);
	assert_float_equal(d, 0.3, 1e-12);
	assert_int_equal(parse_duration("5s", &d), PARSE_OK);
	assert_float_equal(d, 5, 1e-12);
	assert_int_equal(parse_duration("2m", &d), PARSE_OK);
	assert_float_equal(d, 120, 1e-12);
	assert_int_equal(parse_duration("1h", &d), PARSE_OK);
	assert_float_equal(d, 3600, 1e-12);
	assert_int_equal(parse_duration("-1", &d), PARSE_OK);
	assert_float_equal(d, -1, 1e-12);
	assert_int_equal(parse_duration(".5", &d), PARSE_OK);
	assert_float_equal(d, 0.5, 1e-12);
	d = 42;
	assert_int_equal(parse_duration("", &d), PARSE_SYNTAX);
	assert_int_equal(parse_duration("s", &d), PARSE_SYNTAX);
	assert_int_equal(parse_duration("5x", &d), PARSE_SYNTAX);
	assert_int_equal(parse_duration("5 s", &d), PARSE_SYNTAX);
	assert_int_equal(parse_duration("inf", &d), PARSE_SYNTAX);
	assert_int_equal(parse_duration("1e999", &d), PARSE_SYNTAX);
	assert_float_equal(d, 42, 0);
}

static void doubles(void **state)
{
	double d = 7;

	(void)state;
	assert_int_equal(parse_double("0.05", &d), PARSE_OK);
	assert_float_equal(d, 0.05, 1e-15);
	assert_int_equal(parse_double("-3", &d), PARSE_OK);
	assert_float_equal(d, -3, 0);
	assert_int_equal(parse_double("1e-3", &d), PARSE_OK);
	assert_float_equal(d, 1e-3, 1e-18);
	d = 7;
	assert_int_equal(parse_double("", &d), PARSE_SYNTAX);
	assert_int_equal(parse_double("abc", &d), PARSE_SYNTAX);
	assert_int_equal(parse_double("5%", &d), PARSE_SYNTAX);
	assert_int_equal(parse_double(" 5", &d), PARSE_SYNTAX);
	assert_int_equal(parse_double("inf", &d), PARSE_SYNTAX);
	assert_int_equal(parse_double("1e999", &d), PARSE_SYNTAX);
	assert_float_equal(d, 7, 0);	/* untouched on error */
}

static void ulongs(void **state)
{
	unsigned long v = 0;

	(void)state;
	assert_int_equal(parse_ulong("7", 1, 10, &v), PARSE_OK);
	assert_int_equal(v, 7);
	assert_int_equal(parse_ulong("0", 1, 10, &v), PARSE_TOO_SMALL);
	assert_int_equal(parse_ulong("-3", 1, 10, &v), PARSE_TOO_SMALL);
	assert_int_equal(parse_ulong("11", 1, 10, &v), PARSE_TOO_LARGE);
	assert_int_equal(parse_ulong("+3", 1, 10, &v), PARSE_SYNTAX);
	assert_int_equal(parse_ulong("3k", 1, 10, &v), PARSE_SYNTAX);
	assert_int_equal(v, 7);
}

/* The one grammar (docs/jobs.md "Numbers"): each bad form of issue 10. */
static void grammar(void **state)
{
	unsigned long v = 5;
	unsigned n = 5;
	double d = 5;

	(void)state;
	/* hex, sign, leading zeros, blanks: never a number */
	static const char *const bad_int[] = {
		"0x10", "+3", "010", "00", " 1", "1 ", "1.0", "1e3", "", "-", "0b1", "١",
	};
	for (size_t i = 0; i < sizeof(bad_int) / sizeof(bad_int[0]); i++) {
		assert_int_equal(parse_ulong(bad_int[i], 0, 100, &v), PARSE_SYNTAX);
		assert_int_equal(parse_task_count(bad_int[i], 4, 100, &n), PARSE_SYNTAX);
	}
	assert_int_equal(parse_ulong("-010", 0, 100, &v), PARSE_SYNTAX);
	assert_int_equal(parse_ulong("99999999999999999999", 0, ULONG_MAX, &v),
			 PARSE_TOO_LARGE);
	assert_int_equal(parse_ulong("18446744073709551616", 0, ULONG_MAX, &v),
			 PARSE_TOO_LARGE);
	assert_int_equal(v, 5);
	assert_int_equal(parse_ulong("18446744073709551615", 0, ULONG_MAX, &v), PARSE_OK);
	assert_true(v == ULONG_MAX);
	assert_int_equal(parse_ulong("0", 0, 1, &v), PARSE_OK);
	assert_int_equal(v, 0);

	static const char *const bad_duration[] = {
		"0x10", "+3", "010", "05s", "0x1p3", "inf", "nan", "1e3", "1e3s",
		"5.", ".", "-.", "1..5", "5ss", "5S", "5 m",
	};
	for (size_t i = 0; i < sizeof(bad_duration) / sizeof(bad_duration[0]); i++)
		if (parse_duration(bad_duration[i], &d) != PARSE_SYNTAX)
			fail_msg("duration '%s' parsed", bad_duration[i]);
	assert_float_equal(d, 5, 0);
	assert_int_equal(parse_duration("0.5", &d), PARSE_OK);
	assert_float_equal(d, 0.5, 0);
	assert_int_equal(parse_duration("0", &d), PARSE_OK);
	assert_float_equal(d, 0, 0);

	static const char *const bad_real[] = {
		"0x10", "+3", "010", "0x1p3", "inf", "-inf", "nan", "1e", "1e+", "5.", "1,5",
	};
	for (size_t i = 0; i < sizeof(bad_real) / sizeof(bad_real[0]); i++)
		if (parse_double(bad_real[i], &d) != PARSE_SYNTAX)
			fail_msg("real '%s' parsed", bad_real[i]);
	assert_int_equal(parse_double("2.5E+2", &d), PARSE_OK);
	assert_float_equal(d, 250, 0);
	assert_int_equal(parse_double("0", &d), PARSE_OK);
	assert_int_equal(parse_double("-0.5", &d), PARSE_OK);
	assert_float_equal(d, -0.5, 0);

	assert_int_equal(parse_task_count("010%", 4, 100, &n), PARSE_SYNTAX);
	assert_int_equal(parse_task_count("+50%", 4, 100, &n), PARSE_SYNTAX);
	assert_int_equal(parse_task_count("1e2%", 4, 100, &n), PARSE_SYNTAX);
	assert_int_equal(parse_task_count("0x10%", 4, 100, &n), PARSE_SYNTAX);
	assert_int_equal(n, 5);
}

/* A sane upper bound per kind. */
static void bounds(void **state)
{
	unsigned n = 5;
	double d = 5;

	(void)state;
	/* durations: 30 days, whatever the unit */
	assert_int_equal(parse_duration("2592000", &d), PARSE_OK);
	assert_float_equal(d, 2592000, 0);
	assert_int_equal(parse_duration("720h", &d), PARSE_OK);
	assert_int_equal(parse_duration("43200m", &d), PARSE_OK);
	d = 5;
	assert_int_equal(parse_duration("2592000.5", &d), PARSE_TOO_LARGE);
	assert_int_equal(parse_duration("721h", &d), PARSE_TOO_LARGE);
	assert_int_equal(parse_duration("43201m", &d), PARSE_TOO_LARGE);
	assert_int_equal(parse_duration("2592000001ms", &d), PARSE_TOO_LARGE);
	assert_int_equal(parse_duration("99999999999999999999", &d), PARSE_TOO_LARGE);
	assert_int_equal(parse_duration("-721h", &d), PARSE_TOO_LARGE);
	assert_float_equal(d, 5, 0);
	/* percentages: 1000%, even where the task cap would allow more */
	assert_int_equal(parse_task_count("1000%", 2, 100000, &n), PARSE_OK);
	assert_int_equal(n, 20);
	assert_int_equal(parse_task_count("1000.5%", 2, 100000, &n), PARSE_TOO_LARGE);
	assert_int_equal(parse_task_count("100000000000000000000%", 2, 100000, &n),
			 PARSE_TOO_LARGE);
	assert_int_equal(n, 20);
}

static void edit_distances(void **state)
{
	(void)state;
	assert_int_equal(edit_distance("futex1", "futex1"), 0);
	assert_int_equal(edit_distance("futx1", "futex1"), 1);
	assert_int_equal(edit_distance("", "abc"), 3);
	assert_int_equal(edit_distance("kitten", "sitting"), 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(task_count_absolute),
		cmocka_unit_test(task_count_percent),
		cmocka_unit_test(task_count_errors),
		cmocka_unit_test(durations),
		cmocka_unit_test(doubles),
		cmocka_unit_test(ulongs),
		cmocka_unit_test(grammar),
		cmocka_unit_test(bounds),
		cmocka_unit_test(edit_distances),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

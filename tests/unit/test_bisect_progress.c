/*
 * Unit tests: the progress line's "N of M candidates left" of a bisection
 * (vcs/bisect_session.h, bisect_candidates_left(), issue 13 point 6e).
 * The fewest candidates holding 99% of P(first bad) rises when a sample
 * contradicts the model and spreads the posterior; the figure shown must
 * never go back up, and must be that set's size whenever the set shrinks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "vcs/bisect.h"
#include "vcs/bisect_session.h"

#include <math.h>
#include <stdint.h>

static const struct bisect_model gauss = {
	.good_mean = 0, .good_scale = 1, .bad_mean = 3, .bad_scale = 1, .df = INFINITY,
};

static void test_left_never_rises(void **state)
{
	/* commit 7 looks bad, then good twice: the posterior spreads again */
	static const struct { size_t i; double v; } samples[] = {
		{ 7, 3.1 }, { 3, -0.2 }, { 5, 2.9 }, { 5, 0.1 }, { 5, -0.3 }, { 7, 0.2 },
		{ 7, -0.1 }, { 11, 3.2 }, { 9, 2.8 }, { 8, 3.0 },
	};
	struct bisect *b = bisect_new(16, &gauss);
	size_t shown = 16, raw, prev_raw = SIZE_MAX;
	bool rose = false;

	(void)state;
	assert_non_null(b);
	assert_int_equal(bisect_candidates_left(b, shown), 16);
	for (size_t k = 0; k < sizeof(samples) / sizeof(samples[0]); k++) {
		size_t now;

		assert_int_equal(bisect_add_sample(b, samples[k].i, samples[k].v), 0);
		raw = bisect_candidates_left(b, SIZE_MAX);
		rose |= prev_raw != SIZE_MAX && raw > prev_raw;
		prev_raw = raw;
		now = bisect_candidates_left(b, shown);
		assert_true(now <= shown);
		assert_int_equal(now, raw < shown ? raw : shown);
		assert_true(now >= 1);
		shown = now;
	}
	/* the case the figure is for: the 99% set itself went back up */
	assert_true(rose);
	bisect_free(b);
}

/* One candidate holding all: 1 left; a uniform posterior: all of them. */
static void test_left_bounds(void **state)
{
	struct bisect *b = bisect_new(4, &gauss);

	(void)state;
	assert_non_null(b);
	assert_int_equal(bisect_candidates_left(b, SIZE_MAX), 4);
	for (int k = 0; k < 20; k++) {
		assert_int_equal(bisect_add_sample(b, 1, 3.0), 0);
		assert_int_equal(bisect_add_sample(b, 0, 0.0), 0);
	}
	assert_int_equal(bisect_candidates_left(b, SIZE_MAX), 1);
	assert_int_equal(bisect_candidates_left(b, 4), 1);
	bisect_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_left_never_rises),
		cmocka_unit_test(test_left_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

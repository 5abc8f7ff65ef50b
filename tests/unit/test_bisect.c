/*
 * Unit tests: vcs/bisect, the pure decision of a noisy bisection.
 * Hand-computed posteriors for tiny cases, the choice of the next commit,
 * skips, and seeded searches that must name the planted commit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "vcs/bisect.h"
#include "record/bisect_result.h"
#include "vcs/bisect_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct bisect_model unit_gauss = {
	.good_mean = 0, .good_scale = 1, .bad_mean = 3, .bad_scale = 1,
	.df = INFINITY,
};

/*
 * Estimated sides by hand: G = {0, 2}, B = {10, 12}, one sample 11 at
 * commit 0 of 2.  h = 0 groups {0, 2} and {10, 12, 11}: S = 2 + 2 = 4;
 * h = 1 groups {0, 2, 11} and {10, 12}: S = 68.667 + 2.  N = 5, so
 * P(h) ~ S^(-3/2) / sqrt(n_good n_bad).
 */
static void estimated_posterior_by_hand(void **state)
{
	const double good[] = { 0, 2 }, bad[] = { 10, 12 };
	struct bisect *b = bisect_new_estimated(2, good, 2, bad, 2);
	double w0 = pow(4, -1.5) / sqrt(2.0 * 3), w1 = pow(2 + 206.0 / 3, -1.5) / sqrt(3.0 * 2);

	(void)state;
	assert_non_null(b);
	assert_float_equal(bisect_posterior(b, 0), 0.5, 1e-12);
	assert_int_equal(bisect_add_sample(b, 0, 11), 0);
	assert_float_equal(bisect_posterior(b, 0), w0 / (w0 + w1), 1e-9);
	/* a sample of G joins the good group under every hypothesis */
	assert_int_equal(bisect_add_sample(b, BISECT_GOOD, 1), 0);
	assert_true(bisect_posterior(b, 0) > w0 / (w0 + w1));
	assert_int_equal(bisect_total_samples(b), 1);
	bisect_free(b);
	/* too few, or not finite */
	assert_null(bisect_new_estimated(2, good, 1, bad, 1));
	assert_null(bisect_new_estimated(2, good, 0, bad, 2));
	assert_null(bisect_new_estimated(0, good, 2, bad, 2));
	{
		const double nan_side[] = { 1, NAN };

		assert_null(bisect_new_estimated(2, good, 2, nan_side, 2));
	}
}

static void prior_is_uniform_and_first_choice_is_the_middle(void **state)
{
	struct bisect *b = bisect_new(9, &unit_gauss);
	struct bisect_step s;

	(void)state;
	assert_non_null(b);
	for (size_t i = 0; i < 9; i++)
		assert_float_equal(bisect_posterior(b, i), 1.0 / 9, 1e-12);
	bisect_next(b, 0.99, &s);
	assert_int_equal(s.state, BISECT_MEASURE);
	/* P(bad) of commit 3 is 4/9, of 4 is 5/9: a tie, the first wins */
	assert_int_equal(s.commit, 3);
	bisect_free(b);
}

/*
 * Two candidates, one sample x at commit 0.  h = 0: commit 0 bad, so its
 * likelihood is N(x; 3, 1); h = 1: good, N(x; 0, 1).  With x = 3:
 * P(h = 0) = 1 / (1 + exp(-4.5)).
 */
static void posterior_by_hand(void **state)
{
	struct bisect *b = bisect_new(2, &unit_gauss);
	double want = 1 / (1 + exp(-4.5));
	struct bisect_step s;

	(void)state;
	assert_int_equal(bisect_add_sample(b, 0, 3), 0);
	assert_float_equal(bisect_posterior(b, 0), want, 1e-12);
	assert_float_equal(bisect_posterior(b, 1), 1 - want, 1e-12);
	assert_float_equal(bisect_p_bad(b, 0), want, 1e-12);
	assert_float_equal(bisect_p_bad(b, 1), 1, 0);
	/* want = 0.98901 */
	bisect_next(b, 0.98, &s);
	assert_int_equal(s.state, BISECT_FOUND);
	assert_int_equal(s.commit, 0);
	assert_float_equal(s.p, want, 1e-12);
	assert_int_equal(s.best, 0);
	/* a stricter confidence wants more */
	bisect_next(b, 0.99, &s);
	assert_int_equal(s.state, BISECT_MEASURE);
	assert_int_equal(s.commit, 0);
	assert_int_equal(bisect_add_sample(b, 5, 1), -EINVAL);
	assert_int_equal(bisect_add_sample(b, 0, NAN), -EINVAL);
	bisect_free(b);
}

/*
 * A sample halfway between the sides says nothing: the commit stays
 * closest to P(bad) = 1/2 and is measured again, not passed over.
 */
static void ambiguous_commit_measured_again(void **state)
{
	struct bisect *b = bisect_new(4, &unit_gauss);
	struct bisect_step s;

	(void)state;
	bisect_next(b, 0.99, &s);
	assert_int_equal(s.commit, 1);	/* P(bad): 1/4, 1/2, 3/4 */
	for (int k = 0; k < 5; k++) {
		assert_int_equal(bisect_add_sample(b, 1, 1.5), 0);
		assert_float_equal(bisect_posterior(b, 0), 0.25, 1e-12);
		bisect_next(b, 0.99, &s);
		assert_int_equal(s.state, BISECT_MEASURE);
		assert_int_equal(s.commit, 1);
	}
	assert_int_equal(bisect_samples(b, 1), 5);
	bisect_free(b);
}

/* A skipped commit is never chosen; the culprit among skips is a range. */
static void skips_make_a_range(void **state)
{
	struct bisect *b = bisect_new(5, &unit_gauss);
	struct bisect_step s;

	(void)state;
	/* truth: first bad = 2, which cannot be built */
	bisect_skip(b, 2);
	for (int k = 0; k < 4; k++) {
		bisect_add_sample(b, 1, 0);
		bisect_add_sample(b, 3, 3);
	}
	bisect_next(b, 0.99, &s);
	assert_int_equal(s.state, BISECT_FOUND_RANGE);
	assert_int_equal(s.first, 2);
	assert_int_equal(s.last, 3);
	assert_int_equal(s.commit, 3);
	assert_true(s.p >= 0.99);
	/* each of the two holds half: no single commit is named */
	assert_float_equal(bisect_posterior(b, 2), bisect_posterior(b, 3), 1e-12);
	bisect_free(b);

	/* every candidate but B skipped: B and all before it are the range */
	b = bisect_new(3, &unit_gauss);
	bisect_skip(b, 0);
	bisect_skip(b, 1);
	bisect_next(b, 0.99, &s);
	assert_int_equal(s.state, BISECT_FOUND_RANGE);
	assert_int_equal(s.first, 0);
	assert_int_equal(s.last, 2);
	assert_float_equal(s.p, 1, 1e-12);
	bisect_free(b);
}

/* ---- seeded searches ---- */

struct sim {
	size_t culprit;
	double d;
	uint64_t rng;
	int skip_at;		/* -1: none */
};

static double uniform(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return ((double)(*s >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(uint64_t *s)
{
	return sqrt(-2 * log(uniform(s))) * cos(2 * M_PI * uniform(s));
}

static int measure(void *ctx, size_t i, double *value)
{
	struct sim *sim = ctx;

	if (sim->skip_at >= 0 && i == (size_t)sim->skip_at)
		return BISECT_SKIP;
	if (i == BISECT_GOOD || i == BISECT_BAD) {
		*value = (i == BISECT_BAD ? sim->d : 0) + gauss(&sim->rng);
		return 0;
	}
	*value = (i >= sim->culprit ? sim->d : 0) + gauss(&sim->rng);
	return 0;
}

static int measure_fails(void *ctx, size_t i, double *value)
{
	(void)ctx;
	(void)i;
	(void)value;
	return -EINTR;
}

/* A budget the caller keeps: 3 measurements, then BISECT_STOP. */
struct budget {
	struct sim sim;
	unsigned left, asked;
};

static int measure_on_budget(void *ctx, size_t i, double *value)
{
	struct budget *bg = ctx;

	bg->asked++;
	if (!bg->left)
		return BISECT_STOP;
	bg->left--;
	return measure(&bg->sim, i, value);
}

static void searches_find_the_culprit(void **state)
{
	struct bisect_model m = unit_gauss;
	unsigned right = 0, trials = 200;

	(void)state;
	for (unsigned t = 0; t < trials; t++) {
		struct sim sim = { .d = 3, .rng = 0x9E3779B97F4A7C15u * (t + 1),
				   .skip_at = -1 };
		struct bisect_search s = { .confidence = 0.99, .measure = measure,
					   .ctx = &sim };
		struct bisect *b = bisect_new(1000, &m);
		struct bisect_step st;

		sim.culprit = (size_t)(uniform(&sim.rng) * 1000);
		assert_int_equal(bisect_run(b, &s, &st), 0);
		assert_int_equal(st.state, BISECT_FOUND);
		right += st.commit == sim.culprit;
		/* it measured a handful of commits, not hundreds */
		assert_true(bisect_total_samples(b) < 60);
		bisect_free(b);
	}
	/* 0.99 confidence: at most a few percent wrong */
	assert_true(right >= trials * 97 / 100);
}

/* The same with the sides known only by 5 runs each, as perfbot bisects. */
static void estimated_searches_find_the_culprit(void **state)
{
	unsigned right = 0, trials = 200;

	(void)state;
	for (unsigned t = 0; t < trials; t++) {
		struct sim sim = { .d = 3, .rng = 0xD1B54A32D192ED03u * (t + 1),
				   .skip_at = -1 };
		struct bisect_search s = { .confidence = 0.99, .measure = measure,
					   .ctx = &sim, .max_samples = 500 };
		double good[5], bad[5];
		struct bisect *b;
		struct bisect_step st;

		for (int k = 0; k < 5; k++) {
			good[k] = gauss(&sim.rng);
			bad[k] = 3 + gauss(&sim.rng);
		}
		b = bisect_new_estimated(1000, good, 5, bad, 5);
		sim.culprit = (size_t)(uniform(&sim.rng) * 1000);
		assert_int_equal(bisect_run(b, &s, &st), 0);
		assert_int_equal(st.state, BISECT_FOUND);
		right += st.commit == sim.culprit;
		assert_true(bisect_total_samples(b) < 80);
		bisect_free(b);
	}
	assert_true(right >= trials * 97 / 100);
}

static void search_around_a_skip_and_stops(void **state)
{
	struct bisect_model m = unit_gauss;
	struct sim sim = { .d = 3, .rng = 42, .culprit = 300, .skip_at = 299 };
	struct bisect_search s = { .confidence = 0.99, .measure = measure,
				   .ctx = &sim };
	struct bisect *b = bisect_new(1000, &m);
	struct bisect_step st;

	(void)state;
	assert_int_equal(bisect_run(b, &s, &st), 0);
	/* 299 could not be measured: 300 alone can never be told from it */
	if (st.state == BISECT_FOUND_RANGE) {
		assert_int_equal(st.first, 299);
		assert_int_equal(st.last, 300);
	} else {
		assert_int_equal(st.state, BISECT_FOUND);
		assert_int_equal(st.commit, 300);
	}
	assert_true(bisect_is_skipped(b, 299));
	bisect_free(b);

	/* a budget ends the search where it stands */
	sim = (struct sim){ .d = 0.2, .rng = 7, .culprit = 500, .skip_at = -1 };
	m.bad_mean = 0.2;
	b = bisect_new(1000, &m);
	s.max_samples = 25;
	assert_int_equal(bisect_run(b, &s, &st), 0);
	assert_int_equal(st.state, BISECT_MEASURE);
	assert_int_equal(bisect_total_samples(b), 25);
	bisect_free(b);

	/* the caller's budget (BISECT_STOP) ends it too, undecided, nothing added */
	{
		struct budget bg = { .sim = { .d = 3, .rng = 11, .culprit = 500,
					      .skip_at = -1 }, .left = 3 };

		m = unit_gauss;
		b = bisect_new(1000, &m);
		s = (struct bisect_search){ .confidence = 0.99, .measure = measure_on_budget,
					    .ctx = &bg };
		assert_int_equal(bisect_run(b, &s, &st), 0);
		assert_int_equal(st.state, BISECT_MEASURE);
		assert_int_equal(bisect_total_samples(b), 3);
		assert_int_equal(bg.asked, 4);
		bisect_free(b);
	}

	/* an error from the measurement aborts, samples kept */
	b = bisect_new(10, &m);
	bisect_add_sample(b, 4, 0);
	s = (struct bisect_search){ .confidence = 0.99, .measure = measure_fails };
	assert_int_equal(bisect_run(b, &s, &st), -EINTR);
	assert_int_equal(bisect_total_samples(b), 1);
	bisect_free(b);
}

/*
 * One slow spike of a good commit, far beyond even the bad side, next to
 * a tight baseline: it must not name that commit.  Truth: first bad = 6.
 */
static void one_outlier_names_nothing(void **state)
{
	const double good[] = { 98.35, 98.40, 98.44 }, bad[] = { 103.2, 103.16, 103.25 };
	struct bisect *b = bisect_new_estimated(10, good, 3, bad, 3);
	struct bisect_step st;

	(void)state;
	bisect_add_sample(b, 2, 98.41);
	bisect_add_sample(b, 7, 103.3);
	bisect_add_sample(b, 5, 106.86);	/* the spike: commit 5 is good */
	bisect_next(b, 0.99, &st);
	/* a Gaussian with the baseline's 0.05 SD would call 5 bad for sure */
	assert_false(st.state == BISECT_FOUND && st.commit == 5);
	/* replicated, the commit reads good again */
	bisect_add_sample(b, 5, 98.46);
	bisect_add_sample(b, 5, 98.38);
	assert_true(bisect_p_bad(b, 5) < 0.5);
	bisect_free(b);
}

/* The stored spec of a bisection reads back as written, unset fields too. */
static void spec_round_trip(void **state)
{
	struct bisect_spec in = {
		.repo = "/src/demo", .good = "0da1ef17", .bad = "518f61a5",
		.good_given = "v1.0", .bad_given = "main", .metric = NULL,
		.job_path = "/jobs/demo.yaml", .job_text = "testcase: demo\n",
		.build = "make -j2 'CFLAGS=-O2 -g'", .testbox = "vm",
		.confidence = 0.995, .max_runs = 77,
	}, out;
	char *text = NULL;

	(void)state;
	assert_int_equal(bisect_spec_to_json(&in, &text), 0);
	assert_int_equal(bisect_spec_from_json(text, &out), 0);
	assert_string_equal(out.repo, in.repo);
	assert_string_equal(out.good, in.good);
	assert_string_equal(out.bad_given, in.bad_given);
	assert_null(out.metric);
	assert_string_equal(out.job_text, in.job_text);
	assert_string_equal(out.build, in.build);
	assert_float_equal(out.confidence, 0.995, 0);
	assert_int_equal(out.max_runs, 77);
	bisect_spec_release(&out);
	free(text);

	in.metric = "demo.time_ms";
	in.build = NULL;
	in.good_given = NULL;
	assert_int_equal(bisect_spec_to_json(&in, &text), 0);
	assert_int_equal(bisect_spec_from_json(text, &out), 0);
	assert_string_equal(out.metric, "demo.time_ms");
	assert_null(out.build);
	assert_null(out.good_given);
	bisect_spec_release(&out);
	free(text);

	assert_int_equal(bisect_spec_from_json("{\"repo\": 1}", &out), -EINVAL);
	assert_int_equal(bisect_spec_from_json("not json", &out), -EINVAL);
}

/*
 * The metric's direction: what a run declares of it wins over the name
 * (a "time" stat declared higher-better stays so); a run that declares
 * nothing of it leaves the rule to decide.
 */
static void direction_declared_wins(void **state)
{
	struct session ss = { .metric = "demo.time_ops" };
	struct run_record r = { 0 };

	(void)state;
	assert_int_equal(stat_meta_set(&r.meta, "demo.other", "s", STAT_BETTER_LOWER, false), 0);
	measure_note_direction(&ss, &r);
	assert_false(ss.declared_better);
	assert_int_equal(stat_rule_better(ss.metric), STAT_BETTER_HIGHER);
	ss.metric = "demo.elapsed_time";
	assert_int_equal(stat_meta_set(&r.meta, "demo.elapsed_time", "s", STAT_BETTER_HIGHER,
				       true), 0);
	measure_note_direction(&ss, &r);
	assert_true(ss.declared_better);
	assert_int_equal(ss.better, STAT_BETTER_HIGHER);
	/* the first declaration settles it */
	r.meta.v[1].better = STAT_BETTER_LOWER;
	measure_note_direction(&ss, &r);
	assert_int_equal(ss.better, STAT_BETTER_HIGHER);
	stat_meta_release(&r.meta);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(estimated_posterior_by_hand),
		cmocka_unit_test(prior_is_uniform_and_first_choice_is_the_middle),
		cmocka_unit_test(posterior_by_hand),
		cmocka_unit_test(ambiguous_commit_measured_again),
		cmocka_unit_test(skips_make_a_range),
		cmocka_unit_test(searches_find_the_culprit),
		cmocka_unit_test(estimated_searches_find_the_culprit),
		cmocka_unit_test(search_around_a_skip_and_stops),
		cmocka_unit_test(one_outlier_names_nothing),
		cmocka_unit_test(spec_round_trip),
		cmocka_unit_test(direction_declared_wins),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * verdict_power - how often perfbot's KPI verdict (Welch at alpha 0.05,
 * 1% floor: stats/compare.h's COMPARE_*) and LKP's range rule call a stat
 * "changed", at 1% noise, for a range of true shifts and run counts.
 * Shift 0 rows are false alarms, the others detection power.  Seeded:
 * the table is the same every run.
 *
 * LKP's rule lives only here, as the yardstick; perfbot never uses it.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "stats/compare.h"
#include "stats/summary.h"
#include "stats/ttest.h"
#include "stats/verdict.h"

#define CV 0.01
#define TRIALS 1000
#define MAX_RUNS 10

/* own PRNG, xorshift64* + Box-Muller: same numbers on every libc */
static uint64_t rng_state = 0x5eedbe4c;

static double uniform(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return ((double)((rng_state * 0x2545F4914F6CDD1DULL) >> 11) + 0.5) /
	       9007199254740992.0;
}

static double normal(void)
{
	static double spare;
	static bool has_spare;
	double m, v;

	if (has_spare) {
		has_spare = false;
		return spare;
	}
	m = sqrt(-2 * log(uniform()));
	v = 2 * M_PI * uniform();
	spare = m * sin(v);
	has_spare = true;
	return m * cos(v);
}

static void draw(double mean, int n, struct summary *s)
{
	double x[MAX_RUNS];

	for (int i = 0; i < n; i++)
		x[i] = mean * (1 + CV * normal());
	summarize(x, (size_t)n, s);
}

/* hi's runs all above lo's median, and hi's median above all of lo's */
static bool lkp_above(const struct summary *lo, const struct summary *hi)
{
	return hi->min > lo->median && hi->median > lo->max;
}

/*
 * LKP's rule as the brief states it: at least 3 runs a side, the ranges
 * separated as above (either way), and the medians more than 1% apart.
 */
static bool lkp_changed(const struct summary *a, const struct summary *b)
{
	double r;

	if (a->n < 3 || b->n < 3 || a->median <= 0 || b->median <= 0)
		return false;
	r = b->median / a->median;
	if (r < 1)
		r = 1 / r;
	return r > 1.01 && (lkp_above(a, b) || lkp_above(b, a));
}

static bool perfbot_changed(const struct summary *a, const struct summary *b)
{
	struct verdict_input in = {
		.a = a, .b = b, .p = welch_test(a, b).p,
		.min_size_pct = COMPARE_KPI_MIN_PCT, .alpha = COMPARE_ALPHA,
		.level = COMPARE_LEVEL,
	};

	return decide(&in, NULL) == VERDICT_CHANGED;
}

int main(void)
{
	static const double shifts[] = { 0, 0.5, 1, 2, 5 };
	static const int runs[] = { 3, 5, 10 };
	struct timespec t0, t1;
	long calls = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	printf("CV 1%%, %d trials per row; perfbot: Welch alpha %g, %g%% floor; "
	       "LKP: range rule, medians > 1%% apart\n\n", TRIALS, COMPARE_ALPHA,
	       COMPARE_KPI_MIN_PCT);
	printf("%7s %5s %12s %9s\n", "shift", "runs", "perfbot %", "LKP %");
	for (size_t s = 0; s < sizeof(shifts) / sizeof(shifts[0]); s++) {
		for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
			int pb = 0, lkp = 0;

			for (int t = 0; t < TRIALS; t++) {
				struct summary a, b;

				draw(100, runs[r], &a);
				draw(100 * (1 + shifts[s] / 100), runs[r], &b);
				pb += perfbot_changed(&a, &b);
				lkp += lkp_changed(&a, &b);
				calls++;
			}
			printf("%6.1f%% %5d %12.1f %9.1f\n", shifts[s], runs[r],
			       100.0 * pb / TRIALS, 100.0 * lkp / TRIALS);
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* the cost of a compare of thousands of stats is mostly this */
	printf("\n%.1f us per stat (draw, summaries, Welch, interval, verdict)\n",
	       ((double)(t1.tv_sec - t0.tv_sec) * 1e9 +
		(double)(t1.tv_nsec - t0.tv_nsec)) / 1e3 / (double)calls);
	return 0;
}

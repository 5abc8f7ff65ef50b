/*
 * verdict_power - how often the KPI verdict calls a stat "changed", under
 * six noise models, for true shifts of 0 (false alarms), 1, 2 and 5%
 * (power), at 3, 5 and 10 runs a side.  Side by side:
 *
 *   yuen.1   perfbot's verdict: Yuen's trimmed-mean test through decide(),
 *            alpha 0.05, 1% floor, trimmed as summary.h's SUMMARY_TRIM
 *            says: floor(0.1 n) a side, at least 1 from 5 runs on;
 *   yuen.2   the same trimmed floor(0.2 n) a side (the other candidate;
 *            a plain floor(0.1 n) is Welch below 10 runs and yuen.1 at 10);
 *   welch    the verdict before issue 12: Welch's test on the means with
 *            the delta-method ratio interval, decide() as it was (copied
 *            below as the baseline);
 *   LKP      LKP's range rule (below), the yardstick.
 *
 * Noise models, every one scaled to a CV of 1% around the mean (a
 * standardised noise z, mean 0 and sd 1, and a value mean (1 + 0.01 z)):
 *   normal     z ~ N(0, 1);
 *   lognormal  exp(0.05 Z) standardised: the skew of a lognormal of
 *              shape 0.05, at CV 1% (at its own CV of 5% no test reaches
 *              the power targets with 3 runs);
 *   t3         Student's t with 3 degrees of freedom / sqrt(3): heavy tails;
 *   bimodal    two normal modes 3 of their sds apart, 70/30, standardised
 *              (the modes are 1.8% apart at CV 1%);
 *   outlier    normal, and one run a side (the first) 20% high;
 *   poisson    counts, Poisson with mean 10^4 (CV 1%), shifted in mean.
 * The shift lowers the other side (b = a (1 - shift)), as issue 12's
 * -5% regression.  Seeded: the table is the same every run.
 *
 * LKP's rule lives only here, as the yardstick; perfbot never uses it.
 * Usage: verdict_power [TRIALS]  (default 1000 per cell)
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_rng.h"
#include "stats/compare.h"
#include "stats/summary.h"
#include "stats/ttest.h"
#include "stats/verdict.h"

#define CV 0.01
#define MAX_RUNS 10

/* seeded: the same table on every run (bench_rng.h) */
static struct bench_rng rng = { .state = 0x5eedbe4c };

static double uniform(void)
{
	return bench_uniform(&rng);
}

static double normal(void)
{
	return bench_normal(&rng);
}

/* Poisson(lambda) by inversion from the mode outwards: ~sqrt(lambda) steps */
static double poisson(double lambda)
{
	double mode = floor(lambda), u = uniform();
	double pm = exp(mode * log(lambda) - lambda - lgamma(mode + 1));
	double lo = mode, hi = mode, plo = pm, phi = pm, acc = pm;

	if (u < acc)
		return mode;
	for (;;) {
		/* take the more probable neighbour next */
		double pl = lo > 0 ? plo * lo / lambda : 0;
		double ph = phi * lambda / (hi + 1);

		if (pl > ph) {
			lo--;
			plo = pl;
			acc += pl;
			if (u < acc)
				return lo;
		} else {
			hi++;
			phi = ph;
			acc += ph;
			if (u < acc)
				return hi;
		}
		if (!(ph > 0) && !(pl > 0))
			return hi;
	}
}

enum model { NORMAL, LOGNORMAL, T3, BIMODAL, OUTLIER, POISSON, NMODELS };

static const char *const model_names[] = {
	"normal", "lognormal", "t3", "bimodal", "outlier", "poisson",
};

/* standardised noise: mean 0, sd 1 */
static double noise(enum model m)
{
	double z = normal(), c;

	switch (m) {
	case LOGNORMAL: {
		const double s = 0.05, mu = exp(s * s / 2);

		return (exp(s * z) - mu) / (mu * sqrt(exp(s * s) - 1));
	}
	case T3:
		c = 0;
		for (int i = 0; i < 3; i++) {
			double w = normal();

			c += w * w;
		}
		return z / sqrt(c / 3) / sqrt(3);
	case BIMODAL:
		/* 0.3 of the runs 3 sds up: mean 0.9, variance 1 + 9 0.21 */
		return (z + (uniform() < 0.3 ? 3 : 0) - 0.9) / sqrt(2.89);
	default:
		return z;
	}
}

static void draw(enum model m, double mean, int n, double *x)
{
	for (int i = 0; i < n; i++) {
		if (m == POISSON)
			x[i] = poisson(mean * 100);	/* mean 100 -> 10^4 */
		else
			x[i] = mean * (1 + CV * noise(m));
	}
	if (m == OUTLIER)
		x[0] *= 1.2;
}

/* hi's runs all above lo's median, and hi's median above all of lo's */
static bool lkp_above(const struct summary *lo, const struct summary *hi)
{
	return hi->min > lo->median && hi->median > lo->max;
}

/*
 * LKP's rule: at least 3 runs a side, the ranges separated as above
 * (either way), and the medians more than 1% apart.
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

/*
 * The verdict before issue 12 (main at b8c5318), copied as the baseline:
 * Welch's p on the means, %change and its delta-method ratio interval,
 * changed when p < alpha and |%change| >= the floor.
 */
static bool welch_changed(const struct summary *a, const struct summary *b)
{
	double p = welch_test(a, b).p, pct;

	if (a->n < VERDICT_MIN_RUNS || b->n < VERDICT_MIN_RUNS)
		return false;
	if (a->stddev == 0 && b->stddev == 0 && a->mean == b->mean)
		return false;
	if (isnan(p))
		return false;
	pct = a->mean ? 100 * (b->mean / a->mean - 1) : b->mean - a->mean;
	return p < COMPARE_ALPHA && fabs(pct) >= COMPARE_KPI_MIN_PCT;
}

/* perfbot's KPI verdict on summaries trimmed at some gamma */
static bool yuen_changed(const struct summary *a, const struct summary *b)
{
	struct verdict_input in = {
		.a = a, .b = b, .p = yuen_test(a, b).p,
		.min_size_pct = COMPARE_KPI_MIN_PCT, .alpha = COMPARE_ALPHA,
		.level = COMPARE_LEVEL,
	};

	return decide(&in, NULL) == VERDICT_CHANGED;
}

enum method { YUEN1, YUEN2, WELCH, LKP, NMETHODS };

int main(int argc, char **argv)
{
	static const double shifts[] = { 0, 1, 2, 5 };
	static const int runs[] = { 3, 5, 10 };
	int trials = argc > 1 ? atoi(argv[1]) : 1000;
	struct timespec t0, t1;
	long calls = 0;

	if (trials <= 0) {
		fprintf(stderr, "verdict_power: TRIALS must be a positive number\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	printf("CV 1%% in every model, %d trials per cell, shift = other side lower by that much;\n"
	       "%% of trials called \"changed\" (shift 0: false alarms; else power).\n"
	       "yuen.1: perfbot (Yuen, trim floor(%.2g n), >= 1 from %d runs, alpha %g, %g%% floor, decide());\n"
	       "yuen.2: trim floor(0.2 n); "
	       "welch: the verdict before issue 12; LKP: range rule, medians > 1%% apart\n\n",
	       trials, SUMMARY_TRIM, SUMMARY_TRIM_MIN_N, COMPARE_ALPHA, COMPARE_KPI_MIN_PCT);
	printf("| %-9s | %4s | %5s | %6s | %6s | %6s | %6s |\n", "model", "runs", "shift",
	       "yuen.1", "yuen.2", "welch", "LKP");
	printf("|-----------|------|-------|--------|--------|--------|--------|\n");
	for (int m = 0; m < NMODELS; m++) {
		for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
			for (size_t s = 0; s < sizeof(shifts) / sizeof(shifts[0]); s++) {
				int hits[NMETHODS] = { 0 };

				for (int t = 0; t < trials; t++) {
					double xa[MAX_RUNS], xb[MAX_RUNS];
					struct summary a2, b2, a1, b1;

					draw((enum model)m, 100, runs[r], xa);
					draw((enum model)m, 100 * (1 - shifts[s] / 100), runs[r], xb);
					summarize_trim(xa, (size_t)runs[r], 0.2, &a2);
					summarize_trim(xb, (size_t)runs[r], 0.2, &b2);
					summarize(xa, (size_t)runs[r], &a1);
					summarize(xb, (size_t)runs[r], &b1);
					hits[YUEN2] += yuen_changed(&a2, &b2);
					hits[YUEN1] += yuen_changed(&a1, &b1);
					hits[WELCH] += welch_changed(&a2, &b2);
					hits[LKP] += lkp_changed(&a2, &b2);
					calls++;
				}
				printf("| %-9s | %4d | %4.0f%% | %6.1f | %6.1f | %6.1f | %6.1f |\n",
				       model_names[m], runs[r], shifts[s],
				       100.0 * hits[YUEN1] / trials, 100.0 * hits[YUEN2] / trials,
				       100.0 * hits[WELCH] / trials, 100.0 * hits[LKP] / trials);
			}
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("\n%.1f us per trial (draws, 4 summaries, 4 verdicts)\n",
	       ((double)(t1.tv_sec - t0.tv_sec) * 1e9 +
		(double)(t1.tv_nsec - t0.tv_nsec)) / 1e3 / (double)calls);
	return 0;
}

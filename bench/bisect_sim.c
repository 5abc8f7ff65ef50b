/*
 * bisect_sim - how often perfbot's noisy bisection (src/vcs/bisect.c,
 * docs/design.md §8) names the right commit, and how many runs it spends,
 * beside plain binary search.  Usage: bisect_sim [TRIALS] (default 1000).
 *
 * Simulated: 1,000 candidate commits, oldest first; the known good G is
 * just before candidate 0, the known bad B is candidate 999.  The first
 * bad commit (the culprit) is uniform over the 1,000 candidates; a sample
 * of a commit before it is N(0, 1), of the culprit or a later commit
 * N(d, 1): d is the step in units of the noise's sigma, d in
 * {0.5, 1, 2, 3, 5}, TRIALS trials per d.  Three methods per trial:
 *
 *   known:     the engine with the true model (good N(0,1), bad N(d,1),
 *              df = INFINITY), bisect_run() at confidence 0.99;
 *   estimated: the engine as the real tool runs it: the sides known only
 *              by 5 samples of G and 5 of B (bisect_new_estimated(): the
 *              means and the noise integrated out), the engine asking for
 *              more samples of G and B when it needs them ("side runs");
 *              the first 10 baseline runs are counted in neither column;
 *   binary:    plain bisection, 3 runs per commit, the commit called bad
 *              iff the mean of its 3 runs is above d/2 (the true means'
 *              midpoint); runs = 3 x steps.
 *
 * Two more rows per d repeat "estimated" and "binary" with outliers, the
 * slow spikes of real timings: 5% of all samples (G's and B's too) are
 * 6 sigma higher.
 *
 * The engine gets no run limit but a safety cap of CAP samples; a search
 * that hits it names no commit and counts as wrong (the count is shown).
 * "right": the commit named (step.commit at BISECT_FOUND) is the culprit.
 * "commits": distinct candidates measured at least once.
 *
 * Shared across methods: each trial's seed comes from (d's index, trial);
 * the culprit is drawn from it, and the k-th sample ever taken of commit i
 * in that trial is the same number in all three methods (the noise is a
 * hash of (seed, i, k), not a stream consumed in order), so where the
 * methods measure the same commit they see the same values.  G's baseline
 * samples are stream "commit 1000", B's are commit 999's (never measured
 * otherwise: B is known bad).  Seeded: the table is the same every run.
 */
#include "vcs/bisect.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N 1000			/* candidates; B is N - 1 */
#define CONFIDENCE 0.99
#define CAP 2000		/* safety cap on the engine's samples */
#define BASELINE 5		/* samples of G and of B for the estimated model */
#define BIN_RUNS 3		/* plain bisection's runs per commit */
#define STREAM_G N		/* noise stream of G's samples */
/* the outlier rows: this share of all samples is this many sigma high */
#define OUTLIER_SHARE 0.05
#define OUTLIER_SIZE 6.0

enum { KNOWN, ESTIMATED, BINARY, ESTIMATED_OUT, BINARY_OUT, METHODS };
static const char *const method_name[METHODS] = {
	"engine, known model", "engine, estimated model", "binary search, 3 runs",
	"estimated, 5% outliers", "binary, 5% outliers",
};

/* splitmix64's finaliser: a good 64-bit mix, same on every platform */
static uint64_t mix(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ULL;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}

static double unit(uint64_t h)
{
	return ((double)(h >> 11) + 0.5) / 9007199254740992.0;
}

/* the k-th N(0, 1) sample of stream i in the trial of this seed */
static double noise(uint64_t seed, uint64_t i, uint64_t k)
{
	uint64_t h = mix(seed ^ mix((i << 32) | k));

	return sqrt(-2 * log(unit(h))) * cos(2 * M_PI * unit(mix(h)));
}

struct sim {
	uint64_t seed;
	size_t culprit;
	double d;
	unsigned count[N + 1];	/* samples taken of each stream */
	size_t runs, commits;	/* candidates' samples, distinct candidates */
	size_t side_runs;	/* samples of G and B the engine asked for */
	bool outliers;		/* OUTLIER_SHARE of samples OUTLIER_SIZE slower */
};

static double sample(struct sim *s, size_t i)
{
	unsigned k = s->count[i]++;

	if (i < N) {
		s->runs++;
		s->commits += k == 0;
	}
	return (i >= s->culprit && i < N ? s->d : 0) + noise(s->seed, i, k) +
	       (s->outliers && unit(mix(s->seed ^ mix((i << 32) | k) ^ 0xA5A5A5A5ULL))
			       < OUTLIER_SHARE ? OUTLIER_SIZE : 0);
}

static int measure(void *ctx, size_t i, double *value)
{
	struct sim *s = ctx;

	if (i == BISECT_GOOD || i == BISECT_BAD) {
		s->side_runs++;
		*value = sample(s, i == BISECT_GOOD ? STREAM_G : N - 1);
		return 0;
	}
	*value = sample(s, i);
	return 0;
}

static void sim_reset(struct sim *s)
{
	memset(s->count, 0, sizeof(s->count));
	s->runs = s->commits = s->side_runs = 0;
}

struct result {
	bool right, capped;
	size_t runs, commits, side_runs;
};

/* a search with engine b (freed here); -errno on failure */
static int engine(struct sim *s, struct bisect *b, struct result *r)
{
	struct bisect_search search = {
		.confidence = CONFIDENCE, .max_samples = CAP,
		.measure = measure, .ctx = s,
	};
	struct bisect_step st;
	int ret;

	if (!b)
		return -ENOMEM;
	ret = bisect_run(b, &search, &st);
	bisect_free(b);
	if (ret)
		return ret;
	r->capped = st.state == BISECT_MEASURE;
	r->right = st.state == BISECT_FOUND && st.commit == s->culprit;
	r->runs = s->runs;
	r->commits = s->commits;
	r->side_runs = s->side_runs;
	return 0;
}

/* plain bisection: lo known good (-1 is G), hi known bad */
static void binary(struct sim *s, struct result *r)
{
	long lo = -1, hi = N - 1;

	while (hi - lo > 1) {
		long mid = lo + (hi - lo) / 2;
		double sum = 0;

		for (int k = 0; k < BIN_RUNS; k++)
			sum += sample(s, (size_t)mid);
		if (sum / BIN_RUNS > s->d / 2)
			hi = mid;
		else
			lo = mid;
	}
	r->capped = false;
	r->right = (size_t)hi == s->culprit;
	r->runs = s->runs;
	r->commits = s->commits;
	r->side_runs = 0;
}

struct tally {
	size_t right, capped, runs_sum, commits_sum, side_sum;
	size_t *runs;		/* [trials], for the percentile */
	double right_pct, mean_runs, mean_commits, mean_side;
	size_t p95;
};

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

static void finish(struct tally *t, size_t trials)
{
	qsort(t->runs, trials, sizeof(*t->runs), cmp_size);
	/* nearest rank: the smallest value with >= 95 % of trials at or below */
	t->p95 = t->runs[(trials * 95 + 99) / 100 - 1];
	t->right_pct = 100.0 * (double)t->right / (double)trials;
	t->mean_runs = (double)t->runs_sum / (double)trials;
	t->mean_commits = (double)t->commits_sum / (double)trials;
	t->mean_side = (double)t->side_sum / (double)trials;
}

static void check(bool *all, const char *what, double d, const char *method,
		  double got, bool ok, const char *want)
{
	printf("%s  d = %g, %s: %s %.2f (target %s)\n", ok ? "PASS" : "FAIL", d,
	       method, what, got, want);
	*all = *all && ok;
}

int main(int argc, char **argv)
{
	static const double ds[] = { 0.5, 1, 2, 3, 5 };
	enum { NDS = sizeof(ds) / sizeof(ds[0]) };
	static struct tally tally[NDS][METHODS];
	static struct sim sim;
	size_t trials = 1000;
	double lg = log2(N);
	struct timespec t0, t1;
	bool all = true;

	if (argc > 2) {
		fprintf(stderr, "usage: bisect_sim [TRIALS]\n");
		return 2;
	}
	if (argc == 2) {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(argv[1], &end, 10);
		if (errno || end == argv[1] || *end || v == 0 || v > 10000000) {
			fprintf(stderr, "bisect_sim: bad trial count '%s'\n", argv[1]);
			return 2;
		}
		trials = v;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	printf("%d candidates, culprit uniform, noise N(0,1), step d sigma; "
	       "%zu seeded trials per d\n", N, trials);
	printf("engine: confidence %.2f, cap %d samples; estimated sides from "
	       "%d + %d baseline runs (in no column), then G and B as the engine asks "
	       "(\"side runs\")\n", CONFIDENCE, CAP, BASELINE, BASELINE);
	printf("binary: %d runs per commit, bad iff mean > d/2\n", BIN_RUNS);
	printf("noiseless minimum: ceil(log2(%d)) = %.0f runs\n\n", N, ceil(lg));

	for (size_t di = 0; di < NDS; di++) {
		for (int me = 0; me < METHODS; me++) {
			tally[di][me].runs = calloc(trials, sizeof(size_t));
			if (!tally[di][me].runs) {
				fprintf(stderr, "bisect_sim: out of memory\n");
				return 1;
			}
		}
		for (size_t t = 0; t < trials; t++) {
			struct bisect_model known = {
				.good_mean = 0, .good_scale = 1,
				.bad_mean = ds[di], .bad_scale = 1, .df = INFINITY,
			};
			double good[BASELINE], bad[BASELINE];
			struct result r[METHODS];
			int ret;

			sim.seed = mix(((uint64_t)(di + 1) << 32) ^ t ^ 0xb15ec7b15ec7ULL);
			sim.d = ds[di];
			sim.culprit = (size_t)(unit(mix(sim.seed)) * N);

			sim_reset(&sim);
			ret = engine(&sim, bisect_new(N, &known), &r[KNOWN]);

			for (int out = 0; out < 2 && !ret; out++) {
				sim.outliers = out;
				sim_reset(&sim);
				for (int k = 0; k < BASELINE; k++) {
					good[k] = sample(&sim, STREAM_G);
					bad[k] = sample(&sim, N - 1);
				}
				/* B's samples are not candidates' runs here */
				sim.runs = sim.commits = 0;
				ret = engine(&sim, bisect_new_estimated(N, good, BASELINE,
									bad, BASELINE),
					     &r[out ? ESTIMATED_OUT : ESTIMATED]);
				sim_reset(&sim);
				binary(&sim, &r[out ? BINARY_OUT : BINARY]);
			}
			sim.outliers = false;
			if (ret) {
				fprintf(stderr, "bisect_sim: d %g trial %zu: %s\n",
					ds[di], t, strerror(-ret));
				return 1;
			}

			for (int me = 0; me < METHODS; me++) {
				struct tally *ty = &tally[di][me];

				ty->right += r[me].right;
				ty->capped += r[me].capped;
				ty->runs_sum += r[me].runs;
				ty->commits_sum += r[me].commits;
				ty->side_sum += r[me].side_runs;
				ty->runs[t] = r[me].runs;
			}
		}
		for (int me = 0; me < METHODS; me++)
			finish(&tally[di][me], trials);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);

	printf("%4s  %-24s %8s %10s %9s %13s %11s %7s\n", "d", "method", "right %",
	       "mean runs", "p95 runs", "mean commits", "side runs", "capped");
	for (size_t di = 0; di < NDS; di++) {
		for (int me = 0; me < METHODS; me++) {
			const struct tally *ty = &tally[di][me];

			printf("%4g  %-24s %8.1f %10.1f %9zu %13.2f %11.1f %7zu\n", ds[di],
			       method_name[me], ty->right_pct, ty->mean_runs,
			       ty->p95, ty->mean_commits, ty->mean_side, ty->capped);
		}
	}
	printf("\n(estimated: %d baseline runs come before every search, in no "
	       "column)\n\n", 2 * BASELINE);

	for (size_t di = 0; di < NDS; di++) {
		for (int me = KNOWN; me <= ESTIMATED; me++) {
			const struct tally *ty = &tally[di][me];
			const char *name = me == KNOWN ? "known model" : "estimated model";

			if (ds[di] == 3) {
				check(&all, "right %", 3, name, ty->right_pct,
				      ty->right_pct >= 99.5, ">= 99.5");
				check(&all, "mean commits", 3, name, ty->mean_commits,
				      ty->mean_commits <= lg + 3, "<= log2(1000) + 3 = 12.97");
				check(&all, "mean runs (+ side runs)", 3, name,
				      ty->mean_runs + ty->mean_side,
				      ty->mean_runs + ty->mean_side <= 2 * ceil(lg),
				      "<= 2 x 10 = 20");
			} else if (ds[di] == 1) {
				check(&all, "right %", 1, name, ty->right_pct,
				      ty->right_pct >= 95, ">= 95");
			}
		}
	}
	printf("%s\n", all ? "all targets met" : "some targets missed");
	printf("\n%.2f s for %zu trials x %zu settings x 5 methods\n",
	       (double)(t1.tv_sec - t0.tv_sec) +
		       (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9,
	       trials, (size_t)NDS);
	for (size_t di = 0; di < NDS; di++)
		for (int me = 0; me < METHODS; me++)
			free(tally[di][me].runs);
	return 0;
}

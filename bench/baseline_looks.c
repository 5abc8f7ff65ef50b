/*
 * baseline_looks - how often a bisection's baseline calls noise a change,
 * and how soon it sees a real one, when it looks at its verdict at set
 * numbers of runs of each side (vcs/bisect_session.c, baseline()).  Each look is
 * compare's KPI verdict (Yuen's trimmed-mean test through decide(), 1%
 * floor) at a per-look alpha; the schedules:
 *   every pair 3..10 at 0.05    before CI's t1620 failure: 3 runs a
 *                               side, then a look after every pair;
 *   every pair 3..10 at 0.05/8  the same, Bonferroni over its 8 looks;
 *   3 5 10 20 at 0.05/4         fewer looks, so each is less strict,
 *                               and up to 20;
 *   3 5 10 20, 1/2 1/4 1/8 1/8  what the baseline does now: the same
 *                               looks, half of alpha spent at the first.
 * Good and bad runs are normal with a CV of 1% (a quiet machine) or 4%
 * (CI's t1620 under ctest -j2: 104..115 ms around 107), and the bad side
 * is slower by 0 (the false alarms), 2, 5 or 30% (the e2e tests' step).
 * Printed: the share of trials ending "changed" and the runs a side they
 * took on average.  Seeded: the same table on every run.
 * Usage: baseline_looks [TRIALS]  (default 10000 per cell)
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_rng.h"
#include "stats/compare.h"
#include "stats/summary.h"
#include "stats/ttest.h"
#include "stats/verdict.h"

/* when the baseline looks: the runs a side at each look and its alpha, 0-terminated */
struct schedule {
	const char *name;
	size_t at[24];
	double alpha[24];
};

#define A COMPARE_ALPHA
static const struct schedule schedules[] = {
	{ "every pair 3..10, 0.05", { 3, 4, 5, 6, 7, 8, 9, 10 }, { A, A, A, A, A, A, A, A } },
	{ "every pair 3..10, 0.05/8", { 3, 4, 5, 6, 7, 8, 9, 10 },
	  { A / 8, A / 8, A / 8, A / 8, A / 8, A / 8, A / 8, A / 8 } },
	{ "3 5 10 20, 0.05/4", { 3, 5, 10, 20 }, { A / 4, A / 4, A / 4, A / 4 } },
	{ "3 5 10 20, 1/2 1/4 1/8 1/8", { 3, 5, 10, 20 }, { A / 2, A / 4, A / 8, A / 8 } },
};
#undef A
#define RUNS_MAX 20

/* seeded: the same table on every run (bench_rng.h) */
static struct bench_rng rng = { .state = 0x5eedba5e };

static double normal(void)
{
	return bench_normal(&rng);
}

/* One look, as bisect_assemble.c's assemble_judge() makes it. */
static enum verdict look(const double *g, const double *b, size_t n, double alpha)
{
	struct summary sg, sb;
	struct welch w;

	summarize(g, n, &sg);
	summarize(b, n, &sb);
	w = yuen_test(&sg, &sb);
	return decide(&(struct verdict_input){
			.a = &sg, .b = &sb, .p = w.p, .min_size_pct = COMPARE_KPI_MIN_PCT,
			.alpha = alpha,
			.level = alpha == COMPARE_ALPHA ? COMPARE_LEVEL : 1 - alpha,
		}, NULL);
}

/* One baseline: true when it ends "changed"; *runs the runs a side it took. */
static bool baseline(const struct schedule *sc, double cv, double step, size_t *runs)
{
	double g[RUNS_MAX], b[RUNS_MAX];
	size_t n = 0;
	enum verdict v = VERDICT_UNKNOWN;

	for (size_t k = 0; k < sizeof(sc->at) / sizeof(*sc->at) && sc->at[k]; k++) {
		while (n < sc->at[k]) {
			g[n] = 100 * (1 + cv * normal());
			b[n] = 100 * (1 + step) * (1 + cv * normal());
			n++;
		}
		v = look(g, b, n, sc->alpha[k]);
		if (v == VERDICT_CHANGED || v == VERDICT_SAME)
			break;
	}
	*runs = n;
	return v == VERDICT_CHANGED;
}

int main(int argc, char **argv)
{
	static const double cvs[] = { 0.01, 0.04 };
	static const double steps[] = { 0, 0.02, 0.05, 0.30 };
	long trials = argc > 1 ? strtol(argv[1], NULL, 10) : 10000;

	if (trials < 1) {
		fprintf(stderr, "usage: baseline_looks [TRIALS]\n");
		return 2;
	}
	printf("a bisection's baseline, looking as it goes; %ld trials a cell\n", trials);
	printf("%-4s %-5s %-28s %9s %12s\n", "CV", "step", "looks, alpha each", "changed",
	       "runs a side");
	for (size_t c = 0; c < sizeof(cvs) / sizeof(*cvs); c++)
		for (size_t s = 0; s < sizeof(steps) / sizeof(*steps); s++)
			for (size_t k = 0; k < sizeof(schedules) / sizeof(*schedules); k++) {
				long changed = 0, runs = 0;
				char cv[16], step[16];

				for (long t = 0; t < trials; t++) {
					size_t n;

					changed += baseline(&schedules[k], cvs[c], steps[s], &n);
					runs += (long)n;
				}
				snprintf(cv, sizeof(cv), "%.0f%%", 100 * cvs[c]);
				snprintf(step, sizeof(step), "%.0f%%", 100 * steps[s]);
				printf("%-4s %-5s %-28s %8.2f%% %12.2f\n", cv, step,
				       schedules[k].name, 100.0 * (double)changed / (double)trials,
				       (double)runs / (double)trials);
			}
	return 0;
}

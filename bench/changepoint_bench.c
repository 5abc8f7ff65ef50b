/*
 * changepoint_bench - how well stats/changepoint finds steps in a metric's
 * history, beside Perfherder's plain window t-test, and what it costs.
 *
 * Accuracy: HISTORIES synthetic histories (default 1000) of 100-500
 * points, level 100, noise sd 1 (1 sigma = 1%), RUNS runs a point
 * (default 1); a quarter have no step, the others 1 to 3 steps of
 * 1, 2, 3 or 5 sigma (sign at random) at random places at least 10 points
 * apart and from either end; 5% of the points are outliers (the whole
 * point 6 to 12 sigma off, either way).  A detected change counts for a
 * step when it is within +-1 point of it (one detection per step).
 *
 * Confirmation, modelled as the robot does it (issue 14 point 3): a second,
 * independent sample of 10 runs of the point two before the detected index
 * and of the point one after it (so that an index off by one still has the
 * step between them), each at the point's true level without its outlier
 * offset (outliers are transient), and compare's KPI verdict on them
 * (Yuen's test through decide(): alpha 0.05, 1% floor): confirmed when it
 * says "changed".
 *
 * Perfherder (the baseline): at each point i with 12 points before and 12
 * from it, t = |mean_fore - mean_back| / sqrt(var_back/12 + var_fore/12);
 * a change at i when t > 7 and t is the largest within 12 points either
 * way (Perfherder's analyze(): back and fore window 12, t threshold 7).
 *
 * Cost: cp_detect() on 100 series of 10,000 points (noise and outliers,
 * a step every ~2,000 points), and cp_update() for one point added to a
 * series of 10,000 (1,000 appends in a row, each given the previous
 * result); false changes per 10,000 points on those 100 series with the
 * steps left out (pure noise with 5% outliers).
 *
 * Seeded: the figures are the same every run (timings aside).
 * Usage: changepoint_bench [HISTORIES [RUNS]]
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stats/changepoint.h"
#include "bench_rng.h"
#include "stats/compare.h"
#include "stats/summary.h"
#include "stats/ttest.h"
#include "stats/verdict.h"

#define LEVEL 100.0
#define SIGMA 1.0
#define MAX_RUNS 16
#define CONFIRM_RUNS 10
#define MAX_STEPS 3

/* seeded: the same table on every run (bench_rng.h) */
static struct bench_rng rng = { .state = 0x5eedc4a9e };

static double uniform(void)
{
	return bench_uniform(&rng);
}

static double normal(void)
{
	return bench_normal(&rng);
}

static size_t pick(size_t lo, size_t hi)	/* uniform in [lo, hi] */
{
	return lo + (size_t)(uniform() * (double)(hi - lo + 1));
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

struct history {
	size_t n, runs;
	double *level;		/* true level of each point (steps, no outlier) */
	double *vals;		/* n * runs values */
	struct cp_point *pts;
	size_t steps[MAX_STEPS], nsteps;
	double size[MAX_STEPS];	/* in sigmas */
};

static void make(struct history *h, size_t n, size_t runs, size_t nsteps,
		 const double *sizes, double outlier_rate)
{
	h->n = n;
	h->runs = runs;
	h->level = malloc(n * sizeof(double));
	h->vals = malloc(n * runs * sizeof(double));
	h->pts = malloc(n * sizeof(*h->pts));
	if (!h->level || !h->vals || !h->pts) {
		perror("changepoint_bench");
		exit(1);
	}
	h->nsteps = 0;
	/* places: at least 10 from either end and from each other */
	while (h->nsteps < nsteps) {
		size_t at = pick(10, n - 10);
		bool ok = true;

		for (size_t k = 0; k < h->nsteps; k++)
			if (at + 10 > h->steps[k] && h->steps[k] + 10 > at)
				ok = false;
		if (!ok)
			continue;
		h->steps[h->nsteps] = at;
		h->size[h->nsteps] = sizes[h->nsteps] * (uniform() < 0.5 ? -1 : 1);
		h->nsteps++;
	}
	for (size_t i = 0; i < n; i++) {
		double lv = LEVEL, off = 0;

		for (size_t k = 0; k < h->nsteps; k++)
			if (i >= h->steps[k])
				lv += h->size[k] * SIGMA;
		h->level[i] = lv;
		if (uniform() < outlier_rate)
			off = (6 + 6 * uniform()) * SIGMA * (uniform() < 0.5 ? -1 : 1);
		for (size_t r = 0; r < runs; r++)
			h->vals[i * runs + r] = lv + off + SIGMA * normal();
		h->pts[i] = (struct cp_point){ h->vals + i * runs, runs };
	}
}

static void unmake(struct history *h)
{
	free(h->level);
	free(h->vals);
	free(h->pts);
}

/* the robot's confirmation of a change at `at`, modelled as above */
static bool confirm(const struct history *h, size_t at)
{
	size_t b = at >= 2 ? at - 2 : 0, a = at + 1 < h->n ? at + 1 : h->n - 1;
	double xa[CONFIRM_RUNS], xb[CONFIRM_RUNS];
	struct summary sa, sb;
	struct verdict_input in;

	for (int r = 0; r < CONFIRM_RUNS; r++) {
		xa[r] = h->level[b] + SIGMA * normal();
		xb[r] = h->level[a] + SIGMA * normal();
	}
	summarize(xa, CONFIRM_RUNS, &sa);
	summarize(xb, CONFIRM_RUNS, &sb);
	in = (struct verdict_input){
		.a = &sa, .b = &sb, .p = yuen_test(&sa, &sb).p,
		.min_size_pct = COMPARE_KPI_MIN_PCT, .alpha = COMPARE_ALPHA,
		.level = COMPARE_LEVEL,
	};
	return decide(&in, NULL) == VERDICT_CHANGED;
}

/* Perfherder's analyze() on the points' means: indices of changes */
static size_t perfherder(const struct history *h, size_t *out, size_t cap)
{
	const size_t W = 12;
	size_t n = h->n, k = 0;
	double *m = malloc(n * sizeof(double)), *t = calloc(n, sizeof(double));

	if (!m || !t) {
		perror("changepoint_bench");
		exit(1);
	}
	for (size_t i = 0; i < n; i++) {
		m[i] = 0;
		for (size_t r = 0; r < h->runs; r++)
			m[i] += h->vals[i * h->runs + r];
		m[i] /= (double)h->runs;
	}
	for (size_t i = W; i + W <= n; i++) {
		double mb = 0, mf = 0, vb = 0, vf = 0, se;

		for (size_t j = i - W; j < i; j++)
			mb += m[j];
		for (size_t j = i; j < i + W; j++)
			mf += m[j];
		mb /= (double)W;
		mf /= (double)W;
		for (size_t j = i - W; j < i; j++)
			vb += (m[j] - mb) * (m[j] - mb);
		for (size_t j = i; j < i + W; j++)
			vf += (m[j] - mf) * (m[j] - mf);
		vb /= (double)(W - 1);
		vf /= (double)(W - 1);
		se = sqrt(vb / (double)W + vf / (double)W);
		t[i] = se > 0 ? fabs(mf - mb) / se : (mf != mb ? INFINITY : 0);
	}
	for (size_t i = W; i + W <= n; i++) {
		bool top = t[i] > 7;

		for (size_t j = i > W ? i - W : 0; top && j < i + W && j < n; j++)
			if (j != i && (t[j] > t[i] || (t[j] == t[i] && j < i)))
				top = false;
		if (top && k < cap)
			out[k++] = i;
	}
	free(m);
	free(t);
	return k;
}

struct tally {
	size_t steps[6], found[6], confirmed[6];	/* by size: 1, 2, 3, 5 sigma */
	size_t det, det_true, conf, conf_true;
	size_t false_null, false_null_conf, null_points;
};

static int size_slot(double s)
{
	s = fabs(s);
	return s < 1.5 ? 0 : s < 2.5 ? 1 : s < 4 ? 2 : 3;
}

static void score(const struct history *h, const size_t *at, size_t nat,
		  struct tally *t)
{
	bool used[MAX_STEPS] = { false };

	for (size_t k = 0; k < h->nsteps; k++)
		t->steps[size_slot(h->size[k])]++;
	for (size_t d = 0; d < nat; d++) {
		bool hit = false, conf = confirm(h, at[d]);

		for (size_t k = 0; k < h->nsteps && !hit; k++) {
			if (!used[k] && at[d] + 1 >= h->steps[k] && at[d] <= h->steps[k] + 1) {
				used[k] = hit = true;
				t->found[size_slot(h->size[k])]++;
				if (conf)
					t->confirmed[size_slot(h->size[k])]++;
			}
		}
		t->det++;
		t->det_true += hit;
		t->conf += conf;
		t->conf_true += hit && conf;
		if (!h->nsteps) {
			t->false_null++;
			t->false_null_conf += conf;
		}
	}
	if (!h->nsteps)
		t->null_points += h->n;
}

static void print_tally(const char *name, const struct tally *t)
{
	static const char *const sizes[] = { "1", "2", "3", "5" };

	printf("| %-11s |", name);
	for (int s = 0; s < 4; s++)
		printf(" %5.3f / %5.3f |", t->steps[s] ? (double)t->found[s] / (double)t->steps[s] : 0,
		       t->steps[s] ? (double)t->confirmed[s] / (double)t->steps[s] : 0);
	printf(" %5.3f / %5.3f | %6.2f / %5.2f |\n",
	       t->det ? (double)t->det_true / (double)t->det : 1,
	       t->conf ? (double)t->conf_true / (double)t->conf : 1,
	       t->null_points ? 1e4 * (double)t->false_null / (double)t->null_points : 0,
	       t->null_points ? 1e4 * (double)t->false_null_conf / (double)t->null_points : 0);
	(void)sizes;
}

int main(int argc, char **argv)
{
	static const double all_sizes[] = { 1, 2, 3, 5 };
	long histories = argc > 1 ? atol(argv[1]) : 1000;
	long runs = argc > 2 ? atol(argv[2]) : 1;
	struct tally tc = { 0 }, tp = { 0 };
	struct cp_opts o;
	size_t tentative = 0;
	double t0, t1, worst;

	if (histories <= 0 || runs <= 0 || runs > MAX_RUNS) {
		fprintf(stderr, "changepoint_bench: usage: changepoint_bench [HISTORIES [RUNS (1-%d)]]\n",
			MAX_RUNS);
		return 2;
	}
	cp_opts_init(&o);
	printf("%ld histories of 100-500 points, %ld run(s) a point, noise sd 1%%, "
	       "5%% outlier points (6-12 sd); a quarter with no step, the rest 1-3 steps "
	       "of 1, 2, 3, 5 sd.\n"
	       "changepoint: window %zu, alpha %g, min_side %zu, min_tail %zu, tail_alpha %g, "
	       "outlier_k %g.\n"
	       "Each cell: detected / confirmed (10 fresh runs of the points 2 before and 1 after, "
	       "compare's verdict \"changed\").\n\n",
	       histories, runs, o.window, o.alpha, o.min_side, o.min_tail, o.tail_alpha, o.outlier_k);

	t0 = now();
	for (long i = 0; i < histories; i++) {
		struct history h;
		size_t n = pick(100, 500), ns = uniform() < 0.25 ? 0 : pick(1, MAX_STEPS);
		double sizes[MAX_STEPS];
		struct cp_change *ch;
		size_t nch, at[1024], nat = 0;

		for (size_t k = 0; k < MAX_STEPS; k++)
			sizes[k] = all_sizes[pick(0, 3)];
		make(&h, n, (size_t)runs, ns, sizes, 0.05);
		if (cp_detect(h.pts, h.n, &o, &ch, &nch, NULL)) {
			fprintf(stderr, "changepoint_bench: cp_detect failed\n");
			return 1;
		}
		for (size_t k = 0; k < nch && nat < 1024; k++) {
			tentative += ch[k].tentative;
			at[nat++] = ch[k].index;
		}
		free(ch);
		score(&h, at, nat, &tc);
		nat = perfherder(&h, at, 1024);
		score(&h, at, nat, &tp);
		unmake(&h);
	}
	t1 = now();
	printf("| method      | 1 sd rec.     | 2 sd rec.     | 3 sd rec.     | 5 sd rec.     "
	       "| precision     | false / 10k pts (no-step histories) |\n");
	printf("|-------------|---------------|---------------|---------------|---------------"
	       "|---------------|----------------|\n");
	print_tally("changepoint", &tc);
	print_tally("perfherder", &tp);
	printf("\n(%zu of changepoint's detections tentative; %.2f s in all)\n\n", tentative, t1 - t0);

	/* cost and pure noise: 100 series of 10,000 points */
	{
		enum { NS = 100, LEN = 10000 };
		struct history *hs = malloc(NS * sizeof(*hs));
		double tsum = 0, tn = 0;
		size_t fp = 0, fpc = 0, fpt = 0;

		if (!hs)
			return 1;
		for (int k = 0; k < NS; k++)
			make(&hs[k], LEN, (size_t)runs, 0, all_sizes, 0.05);
		t0 = now();
		for (int k = 0; k < NS; k++) {
			struct cp_change *ch;
			size_t nch;

			if (cp_detect(hs[k].pts, LEN, &o, &ch, &nch, NULL))
				return 1;
			for (size_t j = 0; j < nch; j++) {
				if (ch[j].tentative)
					fpt++;
				else
					fp++;
				fpc += confirm(&hs[k], ch[j].index);
			}
			free(ch);
		}
		t1 = now();
		printf("pure noise (5%% outliers), %d series of %d points: %zu changes (%.2f per 10,000 "
		       "points) + %zu tentative; %zu confirmed (%.3f per 10,000)\n",
		       NS, LEN, fp, 1e4 * (double)fp / (NS * (double)LEN), fpt, fpc,
		       1e4 * (double)fpc / (NS * (double)LEN));
		printf("cost: cp_detect on %d series of %d points: %.3f s (%.2f ms a series)\n",
		       NS, LEN, t1 - t0, (t1 - t0) * 1e3 / NS);

		/* one point added, 1,000 times in a row, to the first series */
		{
			struct cp_change *old, *nw;
			size_t nold, nnew;
			const size_t from = LEN - 1000;

			if (cp_detect(hs[0].pts, from, &o, &old, &nold, NULL))
				return 1;
			worst = 0;
			for (size_t n = from + 1; n <= LEN; n++) {
				double a = now(), b;

				if (cp_update(hs[0].pts, n, old, nold, &o, &nw, &nnew, NULL))
					return 1;
				b = now();
				tsum += b - a;
				tn++;
				worst = fmax(worst, b - a);
				free(old);
				old = nw;
				nold = nnew;
			}
			free(old);
			printf("cost: cp_update, one point added to a series of ~10,000: %.3f ms mean, "
			       "%.3f ms max over %.0f appends\n", tsum / tn * 1e3, worst * 1e3, tn);
		}
		for (int k = 0; k < NS; k++)
			unmake(&hs[k]);
		free(hs);
	}
	return 0;
}

/*
 * Unit tests: stats/mannwhitney, stats/fisher and stats/bh, against values
 * computed independently of this code (sources next to each number).  The
 * exact Mann-Whitney p is checked against a brute-force permutation count
 * and a generating function written here, not against the code's own
 * recursion.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "stats/bh.h"
#include "stats/fisher.h"
#include "stats/mannwhitney.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* deterministic test data: a 64-bit LCG (Knuth's MMIX constants) */
static uint64_t lcg_state;

static double uniform(void)
{
	lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(lcg_state >> 11) / 9007199254740992.0;
}

/* U of a straight from its definition: pairs a > b, half the ties */
static double u_by_pairs(const double *a, size_t na, const double *b, size_t nb)
{
	double u = 0;

	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < nb; j++)
			u += a[i] > b[j] ? 1 : a[i] == b[j] ? 0.5 : 0;
	return u;
}

/*
 * The permutation test by brute force: every way of choosing which na of
 * the pooled values are "a" (a bit mask), U of each, and the two-sided p
 * as R defines it: 2 min(P(U <= u), P(U >= u)), capped at 1.
 */
static double brute_p(const double *a, size_t na, const double *b, size_t nb)
{
	double pool[24], x[24], y[24], u = u_by_pairs(a, na, b, nb);
	size_t n = na + nb;
	double le = 0, ge = 0, total = 0;

	assert_true(n <= 20);
	memcpy(pool, a, na * sizeof(*a));
	memcpy(pool + na, b, nb * sizeof(*b));
	for (uint32_t mask = 0; mask < (1u << n); mask++) {
		size_t nx = 0, ny = 0;
		double v;

		if ((size_t)__builtin_popcount(mask) != na)
			continue;
		for (size_t i = 0; i < n; i++) {
			if (mask & (1u << i))
				x[nx++] = pool[i];
			else
				y[ny++] = pool[i];
		}
		v = u_by_pairs(x, nx, y, ny);
		total++;
		le += v <= u;
		ge += v >= u;
	}
	return fmin(1, 2 * fmin(le, ge) / total);
}

/*
 * The null distribution of U (no ties) by its generating function, the
 * Gaussian binomial [n+m, n]_q = prod_{i=1..n} (1 - q^(m+i)) / (1 - q^i):
 * multiply by (1 - q^(m+i)), then divide by (1 - q^i) as a running sum.
 * Another route than the code's recursion, and fast for n = m = 40.
 */
static double gf_p(size_t n, size_t m, double u)
{
	size_t w = n * m + 1;
	double *c = calloc(w + 1, sizeof(*c)), le = 0, ge = 0, total = 0;

	assert_non_null(c);
	c[0] = 1;
	for (size_t i = 1; i <= n; i++) {
		for (size_t v = w; v-- > m + i;)
			c[v] -= c[v - m - i];
		for (size_t v = i; v < w; v++)
			c[v] += c[v - i];
	}
	for (size_t v = 0; v < w; v++) {
		total += c[v];
		le += (double)v <= u ? c[v] : 0;
		ge += (double)v >= u ? c[v] : 0;
	}
	free(c);
	return fmin(1, 2 * fmin(le, ge) / total);
}

static void mwu_textbook(void **state)
{
	/*
	 * Hollander & Wolfe (1973) p. 69, the example of R's ?wilcox.test:
	 * permeability constants, W = 35 and one-sided exact p = 0.1272, so
	 * two-sided 0.2544 (R's output, 4 decimals).
	 */
	const double x[] = { 0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64,
			     0.73, 1.46 };
	const double y[] = { 1.15, 0.88, 0.90, 0.74, 1.21 };
	struct mwu r;

	(void)state;
	r = mann_whitney(x, 10, y, 5);
	assert_true(r.exact);
	assert_float_equal(r.u, 35, 0);
	assert_float_equal(r.p, 0.2544, 0.00005);
	assert_float_equal(r.p, brute_p(x, 10, y, 5), 1e-12);
	/* swapped: U' = n m - U = 15, same two-sided p */
	r = mann_whitney(y, 5, x, 10);
	assert_float_equal(r.u, 15, 0);
	assert_float_equal(r.p, brute_p(x, 10, y, 5), 1e-12);
}

static void mwu_small_by_hand(void **state)
{
	/*
	 * 3 vs 3, every a above every b: U = 9, the one arrangement of
	 * C(6, 3) = 20 that extreme on each side, p = 2/20 = 0.1.
	 */
	const double a[] = { 4, 5, 6 }, b[] = { 1, 2, 3 };
	/* 1 vs 1: U is 0 or 1 with probability 1/2 each, p = min(1, 2/2) */
	const double one[] = { 2 }, other[] = { 1 };
	struct mwu r;

	(void)state;
	r = mann_whitney(a, 3, b, 3);
	assert_true(r.exact);
	assert_float_equal(r.u, 9, 0);
	assert_float_equal(r.p, 0.1, 1e-15);
	r = mann_whitney(b, 3, a, 3);
	assert_float_equal(r.u, 0, 0);
	assert_float_equal(r.p, 0.1, 1e-15);
	r = mann_whitney(one, 1, other, 1);
	assert_float_equal(r.u, 1, 0);
	assert_float_equal(r.p, 1, 0);
}

static void mwu_exact_vs_brute_force(void **state)
{
	double a[12], b[12];

	(void)state;
	lcg_state = 42;
	/* every split of n + m <= 12, three random data sets each */
	for (size_t na = 1; na <= 11; na++) {
		for (size_t nb = 1; na + nb <= 12; nb++) {
			for (int rep = 0; rep < 3; rep++) {
				struct mwu r;

				for (size_t i = 0; i < na; i++)
					a[i] = uniform() + 0.1 * rep;
				for (size_t i = 0; i < nb; i++)
					b[i] = uniform();
				r = mann_whitney(a, na, b, nb);
				assert_true(r.exact);
				assert_float_equal(r.u, u_by_pairs(a, na, b, nb), 0);
				assert_float_equal(r.p, brute_p(a, na, b, nb), 1e-12);
			}
		}
	}
}

static void mwu_exact_vs_generating_function(void **state)
{
	double a[20], b[20];

	(void)state;
	/* the generating function agrees with brute force where both run */
	{
		const double x[] = { 1, 4, 6, 9, 11 };
		const double y[] = { 2, 3, 5, 7, 8, 10, 12 };

		assert_float_equal(gf_p(5, 7, u_by_pairs(x, 5, y, 7)),
				   brute_p(x, 5, y, 7), 1e-12);
	}
	/* up to the exact limit, 20 x 20, where brute force cannot go */
	lcg_state = 7;
	for (size_t na = 13; na <= 20; na += 7) {
		for (size_t nb = 2; nb <= 20; nb += 6) {
			struct mwu r;

			for (size_t i = 0; i < na; i++)
				a[i] = uniform() + 0.15;
			for (size_t i = 0; i < nb; i++)
				b[i] = uniform();
			r = mann_whitney(a, na, b, nb);
			assert_true(r.exact);
			assert_float_equal(r.p, gf_p(na, nb, r.u), 1e-12);
		}
	}
}

static void mwu_normal_vs_exact(void **state)
{
	/*
	 * Past 20 a side the code goes normal; the exact p of the same U
	 * (generating function) must be close: within 0.01 at 25 x 30.
	 */
	double a[25], b[30];

	(void)state;
	lcg_state = 2024;
	for (int rep = 0; rep < 20; rep++) {
		struct mwu r;

		for (size_t i = 0; i < 25; i++)
			a[i] = uniform() + 0.02 * rep;
		for (size_t i = 0; i < 30; i++)
			b[i] = uniform();
		r = mann_whitney(a, 25, b, 30);
		assert_false(r.exact);
		assert_float_equal(r.u, u_by_pairs(a, 25, b, 30), 0);
		assert_float_equal(r.p, gf_p(25, 30, r.u), 0.01);
	}
}

static void mwu_ties(void **state)
{
	/*
	 * By hand.  a = {1, 2, 2, 3}, b = {2, 3, 4, 5}: pooled sorted
	 * 1 2 2 2 3 3 4 5, ranks 1, 2 2 2 (avg of 2..4 = 3), 5.5 5.5, 7, 8.
	 * Rank sum of a = 1 + 3 + 3 + 5.5 = 12.5, U = 12.5 - 10 = 2.5
	 * (pairs: 1 beats none, each 2 ties one 2 -> 0.5 + 0.5, 3 beats
	 * the 2 and ties the 3 -> 1.5; total 2.5).  Ties: t = 3 and 2,
	 * sum t^3 - t = 24 + 6 = 30; N = 8; sigma^2 = 16/12 (9 - 30/56) =
	 * 11.285714, sigma = 3.359422.  U - mu = 2.5 - 8 = -5.5, corrected
	 * -5.0, z = -1.488351, p = 2 (1 - Phi(1.488351)) = 0.136658
	 * (the arithmetic checked with Python's math.erfc; the printed z
	 * table at 1.49 gives 2 (1 - 0.93189) = 0.1362).
	 */
	const double a[] = { 1, 2, 2, 3 }, b[] = { 2, 3, 4, 5 };
	double a_copy[4], b_copy[4];
	struct mwu r;

	(void)state;
	memcpy(a_copy, a, sizeof(a));
	memcpy(b_copy, b, sizeof(b));
	r = mann_whitney(a_copy, 4, b_copy, 4);
	assert_false(r.exact);	/* ties: no exact distribution */
	assert_float_equal(r.u, 2.5, 0);
	assert_float_equal(r.p, 0.136658, 1e-6);
	assert_memory_equal(a_copy, a, sizeof(a));	/* inputs untouched */
	assert_memory_equal(b_copy, b, sizeof(b));
}

static void mwu_edges(void **state)
{
	const double a[] = { 3, 1, 2 }, same[] = { 5, 5, 5 }, nan[] = { 1, NAN };
	struct mwu r;

	(void)state;
	r = mann_whitney(a, 0, a, 3);
	assert_true(isnan(r.p));
	r = mann_whitney(a, 3, NULL, 0);
	assert_true(isnan(r.p));
	r = mann_whitney(a, 3, nan, 2);
	assert_true(isnan(r.p));
	/* all equal: U = n m / 2, nothing to see */
	r = mann_whitney(same, 3, same, 2);
	assert_float_equal(r.u, 3, 0);
	assert_float_equal(r.p, 1, 0);
}

static void fisher_reference(void **state)
{
	(void)state;
	/*
	 * Fisher's lady tasting tea: 3 of 4 right vs 1 of 4.  Margins 4/4
	 * and 4/4; P(x) = C(4,x) C(4,4-x) / 70 = 1, 16, 36, 16, 1 over 70;
	 * tables as likely as 16/70 or less: 34/70 = 0.4857143.
	 */
	assert_float_equal(fisher_exact(3, 4, 1, 4), 34.0 / 70, 1e-12);
	assert_float_equal(fisher_exact(1, 4, 3, 4), 34.0 / 70, 1e-12);
	/*
	 * By hand: 1 of 3 fails vs 4 of 5.  k = 5 fails of N = 8, side a
	 * holds 3: P(x) = C(5,x) C(3,3-x) / C(8,3) = 1, 15, 30, 10 over 56;
	 * observed x = 1 (15/56), kept 1 + 15 + 10 = 26/56 = 0.4642857.
	 */
	assert_float_equal(fisher_exact(1, 3, 4, 5), 26.0 / 56, 1e-12);
	/* DESIGN's 2:2 vs :2: P = 1/6, 4/6, 1/6 -> 2/6 */
	assert_float_equal(fisher_exact(2, 2, 0, 2), 1.0 / 3, 1e-12);
	/* 0/5 vs 5/5: the two extremes, 1/252 each of C(10,5) = 252 */
	assert_float_equal(fisher_exact(0, 5, 5, 5), 2.0 / 252, 1e-12);
	/* the observed table is the likeliest one: p = 1 */
	assert_float_equal(fisher_exact(2, 4, 2, 4), 1, 1e-12);
	assert_float_equal(fisher_exact(0, 10, 0, 10), 1, 1e-12);
}

static void fisher_large(void **state)
{
	/*
	 * 0/1000 vs 10/1000: only the two extremes (all 10 fails on one
	 * side) are as unlikely, each C(1000,10) / C(2000,10) =
	 * prod_{i<10} (1000 - i) / (2000 - i); a product, no lgamma.
	 */
	double tail = 1;

	(void)state;
	for (int i = 0; i < 10; i++)
		tail *= (1000.0 - i) / (2000.0 - i);
	assert_float_equal(fisher_exact(0, 1000, 10, 1000) / (2 * tail), 1, 1e-9);
}

static void fisher_edges(void **state)
{
	(void)state;
	assert_true(isnan(fisher_exact(0, 0, 1, 3)));	/* no runs on a */
	assert_true(isnan(fisher_exact(1, 3, 0, 0)));
	assert_true(isnan(fisher_exact(4, 3, 0, 3)));	/* fails > runs */
	assert_float_equal(fisher_exact(3, 3, 3, 3), 1, 1e-12);
}

static void bh_by_hand(void **state)
{
	/*
	 * Sorted 0.005 0.01 0.03 0.04, m = 4: p m / rank = 0.02 0.02 0.04
	 * 0.04, already monotone; back in input order 0.02 0.04 0.04 0.02.
	 */
	const double p[] = { 0.01, 0.04, 0.03, 0.005 };
	const double want[] = { 0.02, 0.04, 0.04, 0.02 };
	/* same with NaN mixed in: they stay NaN and m stays 4 */
	const double pn[] = { NAN, 0.01, 0.04, NAN, 0.03, 0.005 };
	/* 0.8 m / 1 = 1.6 > 0.9 m / 2 = 0.9: the step-up takes the min */
	const double pm[] = { 0.9, 0.8 };
	double q[6];

	(void)state;
	benjamini_hochberg(p, 4, q);
	for (int i = 0; i < 4; i++)
		assert_float_equal(q[i], want[i], 1e-15);
	benjamini_hochberg(pn, 6, q);
	assert_true(isnan(q[0]) && isnan(q[3]));
	assert_float_equal(q[1], 0.02, 1e-15);
	assert_float_equal(q[2], 0.04, 1e-15);
	assert_float_equal(q[4], 0.04, 1e-15);
	assert_float_equal(q[5], 0.02, 1e-15);
	benjamini_hochberg(pm, 2, q);
	assert_float_equal(q[0], 0.9, 1e-15);
	assert_float_equal(q[1], 0.9, 1e-15);
	/* in place */
	memcpy(q, p, sizeof(p));
	benjamini_hochberg(q, 4, q);
	for (int i = 0; i < 4; i++)
		assert_float_equal(q[i], want[i], 1e-15);
	/* nothing to adjust: no crash */
	benjamini_hochberg(p, 0, q);
	q[0] = 0;
	benjamini_hochberg(pn, 1, q);
	assert_true(isnan(q[0]));
}

static void bh_paper(void **state)
{
	/*
	 * Benjamini & Hochberg (1995), section 4: 15 p-values; at q = 0.05
	 * the procedure rejects the 4 smallest.  By hand, q of the 4th is
	 * 0.0095 * 15 / 4 = 0.035625, of the 5th min over ranks 5.. of
	 * p 15 / rank = 0.0201 * 3 = 0.0603.
	 */
	const double p[] = { 0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278,
			     0.0298, 0.0344, 0.0459, 0.3240, 0.4262, 0.5719,
			     0.6528, 0.7590, 1.000 };
	double q[15];
	int rejected = 0;

	(void)state;
	benjamini_hochberg(p, 15, q);
	for (int i = 0; i < 15; i++)
		rejected += q[i] <= 0.05;
	assert_int_equal(rejected, 4);
	assert_float_equal(q[3], 0.035625, 1e-12);
	assert_float_equal(q[4], 0.0603, 1e-12);
	assert_float_equal(q[14], 1, 0);
}

/* the definition, O(n^2): q_i = min over p_j >= p_i of p_j m / rank_j */
static double bh_naive(const double *p, size_t n, size_t i)
{
	size_t m = 0;
	double best = 1;

	for (size_t j = 0; j < n; j++)
		m += !isnan(p[j]);
	for (size_t j = 0; j < n; j++) {
		size_t rank = 0;

		if (isnan(p[j]) || p[j] < p[i])
			continue;
		/* the largest rank among ties: the step-up reaches it */
		for (size_t k = 0; k < n; k++)
			rank += !isnan(p[k]) && p[k] <= p[j];
		best = fmin(best, p[j] * (double)m / (double)rank);
	}
	return best;
}

static void bh_vs_definition(void **state)
{
	double p[400], q[400];

	(void)state;
	lcg_state = 99;
	for (size_t i = 0; i < 400; i++) {
		/* small p, some ties (rounded), some NaN */
		p[i] = round(pow(uniform(), 3) * 1000) / 1000;
		if (i % 37 == 5)
			p[i] = NAN;
	}
	benjamini_hochberg(p, 400, q);
	for (size_t i = 0; i < 400; i++) {
		if (isnan(p[i])) {
			assert_true(isnan(q[i]));
			continue;
		}
		assert_float_equal(q[i], bh_naive(p, 400, i), 1e-12);
	}
}

static int cmp_pair(const void *x, const void *y)
{
	const double *a = x, *b = y;

	return (a[0] > b[0]) - (a[0] < b[0]);
}

static void bh_large(void **state)
{
	/* 20,000 stats, as one big comparison: q >= p, <= 1, monotone in p */
	size_t n = 20000;
	double *p = malloc(n * sizeof(*p)), *q = malloc(n * sizeof(*q));
	double (*pq)[2] = malloc(n * sizeof(*pq));

	(void)state;
	assert_non_null(p);
	assert_non_null(q);
	assert_non_null(pq);
	lcg_state = 1;
	for (size_t i = 0; i < n; i++)
		p[i] = i % 1000 == 0 ? 1e-7 * uniform() : uniform();
	benjamini_hochberg(p, n, q);
	for (size_t i = 0; i < n; i++) {
		assert_true(q[i] >= p[i] && q[i] <= 1);
		pq[i][0] = p[i];
		pq[i][1] = q[i];
	}
	qsort(pq, n, sizeof(*pq), cmp_pair);
	for (size_t i = 1; i < n; i++)
		assert_true(pq[i][1] >= pq[i - 1][1]);
	/* the 20 tiny p (< 1e-7) survive: q <= 1e-7 * 20000 / 1 = 2e-3 */
	for (size_t i = 0; i < 20; i++)
		assert_true(pq[i][1] <= 2e-3);
	free(p);
	free(q);
	free(pq);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mwu_textbook),
		cmocka_unit_test(mwu_small_by_hand),
		cmocka_unit_test(mwu_exact_vs_brute_force),
		cmocka_unit_test(mwu_exact_vs_generating_function),
		cmocka_unit_test(mwu_normal_vs_exact),
		cmocka_unit_test(mwu_ties),
		cmocka_unit_test(mwu_edges),
		cmocka_unit_test(fisher_reference),
		cmocka_unit_test(fisher_large),
		cmocka_unit_test(fisher_edges),
		cmocka_unit_test(bh_by_hand),
		cmocka_unit_test(bh_paper),
		cmocka_unit_test(bh_vs_definition),
		cmocka_unit_test(bh_large),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

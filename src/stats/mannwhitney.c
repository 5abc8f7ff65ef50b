#include "stats/mannwhitney.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Above this the exact counts get large and the normal one is good. */
#define MWU_EXACT_MAX 20

struct tagged {
	double v;
	bool from_a;
};

static int cmp_tagged(const void *x, const void *y)
{
	double p = ((const struct tagged *)x)->v, q = ((const struct tagged *)y)->v;

	return (p > q) - (p < q);
}

/* The pooled sample of a compare is small: insertion sort, no allocation. */
#define SMALL_POOL 64

static void sort_tagged(struct tagged *t, size_t n)
{
	if (n > SMALL_POOL) {
		qsort(t, n, sizeof(*t), cmp_tagged);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		struct tagged v = t[i];
		size_t j = i;

		for (; j > 0 && t[j - 1].v > v.v; j--)
			t[j] = t[j - 1];
		t[j] = v;
	}
}

/*
 * The null distribution of U for sizes n, m: f(i, j, v), the number of
 * arrangements of i a's and j b's with U = v.  The largest value is either
 * an a, beating all j b's, or a b, beating nothing, so
 * f(i, j, v) = f(i - 1, j, v - j) + f(i, j - 1, v).  Rolling over i keeps
 * two (m + 1) x (n m + 1) layers.  The counts stay below C(40, 20) ~ 1.4e11,
 * exact in a double.
 *
 * A comparison asks for the same sizes for thousands of stats, so the last
 * distribution is kept, per thread (the function stays thread-safe).
 */
static _Thread_local struct {
	size_t n, m;
	double *below;		/* [n m + 1] cumulative counts, NULL when none */
	double total;
} null_dist;

/* The cumulative counts below[v] = f(n, m, 0) + ... + f(n, m, v); NULL when out of memory. */
static const double *null_distribution(size_t n, size_t m, double *total)
{
	size_t w = n * m + 1;
	double *prev, *cur, *below, sum = 0;

	if (null_dist.below && null_dist.n == n && null_dist.m == m) {
		*total = null_dist.total;
		return null_dist.below;
	}
	prev = calloc((m + 1) * w, sizeof(*prev));
	cur = calloc((m + 1) * w, sizeof(*cur));
	below = malloc(w * sizeof(*below));
	if (!prev || !cur || !below) {
		free(prev);
		free(cur);
		free(below);
		return NULL;
	}
	/* i = 0: only b's, U = 0 whatever j */
	for (size_t j = 0; j <= m; j++)
		prev[j * w] = 1;
	for (size_t i = 1; i <= n; i++) {
		double *t;

		for (size_t j = 0; j <= m; j++) {
			double *c = cur + j * w, *p = prev + j * w;

			for (size_t v = 0; v < w; v++) {
				c[v] = v >= j ? p[v - j] : 0;
				if (j)
					c[v] += cur[(j - 1) * w + v];
			}
		}
		t = prev;
		prev = cur;
		cur = t;
	}
	for (size_t v = 0; v < w; v++) {
		sum += prev[m * w + v];
		below[v] = sum;
	}
	free(prev);
	free(cur);
	free(null_dist.below);
	null_dist.below = below;
	null_dist.n = n;
	null_dist.m = m;
	null_dist.total = *total = sum;
	return below;
}

/* P(U <= u) and P(U >= u) under the null; false when out of memory. */
static bool exact_tails(size_t n, size_t m, size_t u, double *le, double *ge)
{
	double total;
	const double *below = null_distribution(n, m, &total);

	if (!below)
		return false;
	*le = below[u] / total;
	*ge = (total - (u ? below[u - 1] : 0)) / total;
	return true;
}

struct mwu mann_whitney(const double *a, size_t na, const double *b, size_t nb)
{
	struct mwu r = { .u = NAN, .p = NAN, .exact = false };
	size_t n = na + nb;
	struct tagged pool[SMALL_POOL], *all;
	double rank_sum = 0, ties = 0, mu, sigma, z;
	bool tied = false;

	if (!na || !nb)
		return r;
	all = n <= SMALL_POOL ? pool : malloc(n * sizeof(*all));
	if (!all)
		return r;
	for (size_t i = 0; i < na; i++)
		all[i] = (struct tagged){ a[i], true };
	for (size_t i = 0; i < nb; i++)
		all[na + i] = (struct tagged){ b[i], false };
	for (size_t i = 0; i < n; i++) {
		if (isnan(all[i].v)) {
			if (all != pool)
				free(all);
			return r;
		}
	}
	if (all == pool) {
		/* two short sorts and a merge beat one sort of the pool */
		struct tagged merged[SMALL_POOL];
		size_t i = 0, j = na, k = 0;

		sort_tagged(all, na);
		sort_tagged(all + na, nb);
		while (i < na && j < n)
			merged[k++] = all[j].v < all[i].v ? all[j++] : all[i++];
		while (i < na)
			merged[k++] = all[i++];
		while (j < n)
			merged[k++] = all[j++];
		memcpy(all, merged, n * sizeof(*all));
	} else {
		sort_tagged(all, n);
	}
	/* a run of t equal values shares the average of ranks i+1 .. i+t */
	for (size_t i = 0, j; i < n; i = j) {
		double t, avg;

		for (j = i + 1; j < n && all[j].v == all[i].v; j++)
			;
		t = (double)(j - i);
		avg = (double)(i + 1 + j) / 2;
		for (size_t k = i; k < j; k++)
			if (all[k].from_a)
				rank_sum += avg;
		if (t > 1) {
			tied = true;
			ties += t * t * t - t;
		}
	}
	if (all != pool)
		free(all);
	/* each a's rank counts itself, the a's below it and the b's below it */
	r.u = rank_sum - (double)na * (double)(na + 1) / 2;

	if (!tied && na <= MWU_EXACT_MAX && nb <= MWU_EXACT_MAX) {
		double le, ge;

		if (exact_tails(na, nb, (size_t)r.u, &le, &ge)) {
			r.p = fmin(1, 2 * fmin(le, ge));
			r.exact = true;
			return r;
		}
	}
	mu = (double)na * (double)nb / 2;
	sigma = sqrt((double)na * (double)nb / 12 *
		     ((double)(n + 1) - ties / ((double)n * (double)(n - 1))));
	if (sigma == 0) {
		r.p = 1;	/* every value equal: U = mu */
		return r;
	}
	/* the continuity correction moves U half a step towards mu */
	z = r.u - mu;
	z = (z - copysign(0.5, z) * (z != 0)) / sigma;
	r.p = fmin(1, erfc(fabs(z) / sqrt(2)));
	return r;
}

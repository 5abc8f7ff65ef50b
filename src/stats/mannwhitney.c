#include "stats/mannwhitney.h"

#include <math.h>
#include <stdlib.h>

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
	double *f;		/* [n m + 1], NULL when none */
	double total;
} null_dist;

static const double *null_distribution(size_t n, size_t m, double *total)
{
	size_t w = n * m + 1;
	double *prev, *cur, *f;

	if (null_dist.f && null_dist.n == n && null_dist.m == m) {
		*total = null_dist.total;
		return null_dist.f;
	}
	prev = calloc((m + 1) * w, sizeof(*prev));
	cur = calloc((m + 1) * w, sizeof(*cur));
	f = malloc(w * sizeof(*f));
	if (!prev || !cur || !f) {
		free(prev);
		free(cur);
		free(f);
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
	*total = 0;
	for (size_t v = 0; v < w; v++) {
		f[v] = prev[m * w + v];
		*total += f[v];
	}
	free(prev);
	free(cur);
	free(null_dist.f);
	null_dist.f = f;
	null_dist.n = n;
	null_dist.m = m;
	null_dist.total = *total;
	return f;
}

/* P(U <= u) and P(U >= u) under the null; false when out of memory. */
static bool exact_tails(size_t n, size_t m, size_t u, double *le, double *ge)
{
	double total, below = 0, above = 0;
	const double *f = null_distribution(n, m, &total);

	if (!f)
		return false;
	for (size_t v = 0; v <= n * m; v++) {
		if (v <= u)
			below += f[v];
		if (v >= u)
			above += f[v];
	}
	*le = below / total;
	*ge = above / total;
	return true;
}

struct mwu mann_whitney(const double *a, size_t na, const double *b, size_t nb)
{
	struct mwu r = { .u = NAN, .p = NAN, .exact = false };
	size_t n = na + nb;
	struct tagged *all;
	double rank_sum = 0, ties = 0, mu, sigma, z;
	bool tied = false;

	if (!na || !nb)
		return r;
	all = malloc(n * sizeof(*all));
	if (!all)
		return r;
	for (size_t i = 0; i < na; i++)
		all[i] = (struct tagged){ a[i], true };
	for (size_t i = 0; i < nb; i++)
		all[na + i] = (struct tagged){ b[i], false };
	for (size_t i = 0; i < n; i++) {
		if (isnan(all[i].v)) {
			free(all);
			return r;
		}
	}
	qsort(all, n, sizeof(*all), cmp_tagged);
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

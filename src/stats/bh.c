#include "stats/bh.h"

#include <math.h>
#include <stdlib.h>

struct ranked {
	double p;
	size_t i;
};

static int cmp_ranked(const void *x, const void *y)
{
	const struct ranked *a = x, *b = y;

	if (a->p != b->p)
		return (a->p > b->p) - (a->p < b->p);
	/* equal p get equal q anyway; the index only makes the order total */
	return (a->i > b->i) - (a->i < b->i);
}

void benjamini_hochberg(const double *p, size_t n, double *q)
{
	struct ranked *r;
	size_t m = 0;
	double run = 1;

	for (size_t i = 0; i < n; i++)
		m += !isnan(p[i]);
	r = malloc((m ? m : 1) * sizeof(*r));
	if (!r) {
		for (size_t i = 0; i < n; i++)
			q[i] = isnan(p[i]) ? NAN : fmin(1, p[i] * (double)m);
		return;
	}
	for (size_t i = 0, k = 0; i < n; i++) {
		if (isnan(p[i]))
			q[i] = NAN;
		else
			r[k++] = (struct ranked){ p[i], i };
	}
	qsort(r, m, sizeof(*r), cmp_ranked);
	/*
	 * From the largest p down, the running minimum makes q monotone in p;
	 * each q[i] is written only after its own p[i] was read (r holds a
	 * copy), so q may alias p.
	 */
	for (size_t k = m; k-- > 0;) {
		run = fmin(run, r[k].p * (double)m / (double)(k + 1));
		q[r[k].i] = run;
	}
	free(r);
}

#include "stats/fisher.h"

#include <math.h>

static double log_choose(double n, double k)
{
	return lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1);
}

/*
 * log P(x fails land on side a), with k fails among N = na + nb runs:
 * C(k, x) C(N - k, na - x) / C(N, na).
 */
static double log_hyper(double x, double k, double na, double nb)
{
	return log_choose(k, x) + log_choose(na + nb - k, na - x) -
	       log_choose(na + nb, na);
}

double fisher_exact(unsigned a_fail, unsigned a_runs, unsigned b_fail,
		    unsigned b_runs)
{
	/* doubles: the sums of two unsigned must not wrap */
	double na = a_runs, nb = b_runs, k = (double)a_fail + b_fail;
	double lo, hi, obs, p = 0;

	if (!a_runs || !b_runs || a_fail > a_runs || b_fail > b_runs)
		return NAN;
	lo = fmax(0, k - nb);
	hi = fmin(k, na);
	obs = log_hyper(a_fail, k, na, nb);
	for (double x = lo; x <= hi; x++) {
		double d = log_hyper(x, k, na, nb);

		/* d <= obs (1 + 1e-7), in logs */
		if (d <= obs + log1p(1e-7))
			p += exp(d);
	}
	return fmin(1, p);
}

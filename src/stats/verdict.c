#include "stats/verdict.h"

#include <math.h>

#include "stats/ttest.h"

/* z_0.8: the standard errors beyond the quantile for 80% power */
#define Z_POWER 0.8416212335729143

/* The power of two of the largest of four magnitudes (0 when none is finite and non-zero). */
static int exponent_of(double w, double x, double y, double z)
{
	double big = fmax(fmax(fabs(w), fabs(x)), fmax(fabs(y), fabs(z)));

	return big > 0 && isfinite(big) ? ilogb(big) : 0;
}

/*
 * The change and its interval as verdict.h says, every quotient taken on
 * the trimmed means and standard errors divided by 2^e (exact).
 */
static struct pct_change change_of(const struct summary *a, const struct summary *b,
				   double level, bool points)
{
	struct pct_change c = { .low = NAN, .high = NAN };
	int e = exponent_of(a->tmean, b->tmean, a->tsem, b->tsem);
	double ta = ldexp(a->tmean, -e), tb = ldexp(b->tmean, -e);
	double se = hypot(ldexp(a->tsem, -e), ldexp(b->tsem, -e));
	double d = tb - ta, unit, half;

	c.absolute = points || ta == 0;
	/* relative: 100 / |T_a| per scaled unit; absolute: back to the stat's unit */
	unit = c.absolute ? ldexp(1, e) : 100 / fabs(ta);
	c.pct = d * unit;
	if (!a->n || !b->n)
		c.pct = NAN;
	if (a->h < 2 || b->h < 2 || isnan(c.pct))
		return c;
	if (se == 0) {
		c.low = c.high = c.pct;
		return c;
	}
	half = t_quantile(1 - (1 - level) / 2, yuen_df(a, b)) * se;
	c.low = (d - half) * unit;
	c.high = (d + half) * unit;
	return c;
}

struct pct_change pct_change_interval(const struct summary *a,
				      const struct summary *b, double level)
{
	return change_of(a, b, level, false);
}

/* The floor that applies: in points, a percentage, or none for a zero base. */
static double floor_of(const struct verdict_input *in, const struct pct_change *c)
{
	return c->absolute && !in->points ? 0 : in->min_size_pct;
}

enum verdict decide(const struct verdict_input *in, struct pct_change *out)
{
	const struct summary *a = in->a, *b = in->b;
	struct pct_change c = change_of(a, b, in->level, in->points);
	double min = floor_of(in, &c);

	if (out)
		*out = c;
	if (a->n < VERDICT_MIN_RUNS || b->n < VERDICT_MIN_RUNS)
		return VERDICT_FEW_RUNS;
	if (a->stddev == 0 && b->stddev == 0 && a->mean == b->mean)
		return VERDICT_SAME;
	/* the trimmed samples are one constant: as sure as above */
	if (c.pct == 0 && c.low == 0 && c.high == 0)
		return VERDICT_SAME;
	if (isnan(in->p))
		return VERDICT_UNKNOWN;
	/* NaN bounds fail every comparison: never significant, never same */
	if (in->p < in->alpha && (c.low > 0 || c.high < 0))
		return fabs(c.pct) >= min ? VERDICT_CHANGED : VERDICT_SMALL;
	if (c.low > -min && c.high < min)
		return VERDICT_SAME;
	return VERDICT_UNKNOWN;
}

unsigned verdict_more_runs(const struct verdict_input *in)
{
	const struct summary *a = in->a, *b = in->b;
	struct pct_change c = change_of(a, b, in->level, in->points);
	double min = floor_of(in, &c), est = fabs(c.pct), margin, unit, va, vb, var;
	double n = 0, q = 1.959963984540054;
	size_t have = a->n > b->n ? a->n : b->n;
	int e;

	if (a->h < 2 || b->h < 2 || !isfinite(c.pct) || isnan(min))
		return 0;
	margin = est >= min ? est : min - est;
	if (!(margin > 0))
		return 0;
	/* per-run variances in the units of pct, scaled as change_of() does */
	e = exponent_of(a->tmean, b->tmean, a->tsem, b->tsem);
	unit = c.absolute ? 1 : 100 / fabs(ldexp(a->tmean, -e));
	va = ldexp(a->tsem, -e) * unit;
	vb = ldexp(b->tsem, -e) * unit;
	var = va * va * (double)a->n + vb * vb * (double)b->n;
	if (c.absolute)
		margin = ldexp(margin, -e);
	if (!(var > 0) || !isfinite(var))
		return 0;
	/* n = (t + z)^2 var / margin^2, t's degrees of freedom from n: a few rounds */
	for (int i = 0; i < 4; i++) {
		double h, df;

		n = ceil((q + Z_POWER) * (q + Z_POWER) * var / (margin * margin));
		if (!(n < VERDICT_MORE_RUNS_MAX))
			return VERDICT_MORE_RUNS_MAX;
		if (n < 3)
			n = 3;
		h = n - 2 * floor(SUMMARY_TRIM * n + 1e-9);
		df = 2 * (h - 1);
		q = t_quantile(1 - (1 - in->level) / 2, df);
	}
	n = ceil((q + Z_POWER) * (q + Z_POWER) * var / (margin * margin));
	if (n <= (double)have)
		n = (double)have + 1;
	return n >= VERDICT_MORE_RUNS_MAX ? VERDICT_MORE_RUNS_MAX : (unsigned)n;
}

const char *verdict_name(enum verdict v)
{
	switch (v) {
	case VERDICT_SAME:
		return "same";
	case VERDICT_CHANGED:
		return "changed";
	case VERDICT_UNKNOWN:
		return "unknown";
	case VERDICT_FEW_RUNS:
		return "few runs";
	case VERDICT_SMALL:
		return "small";
	case VERDICT_NEW:
		return "new";
	case VERDICT_GONE:
		return "gone";
	}
	return "?";
}

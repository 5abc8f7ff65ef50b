#include "stats/verdict.h"

#include <math.h>

#include "stats/ttest.h"

struct pct_change pct_change_interval(const struct summary *a,
				      const struct summary *b, double level)
{
	struct pct_change c = { .low = NAN, .high = NAN };
	struct ratio_interval r;

	if (a->mean == 0) {
		struct welch w = welch_test(a, b);
		double se = hypot(a->sem, b->sem);

		c.absolute = true;
		c.pct = b->mean - a->mean;
		if (isnan(w.df))
			return c;
		if (se == 0) {
			c.low = c.high = c.pct;
			return c;
		}
		/* the interval that goes with Welch's test of the difference */
		se *= t_quantile(1 - (1 - level) / 2, w.df);
		c.low = c.pct - se;
		c.high = c.pct + se;
		return c;
	}
	r = ratio_interval(a, b, level);
	c.pct = 100 * (r.ratio - 1);
	c.low = 100 * (r.low - 1);
	c.high = 100 * (r.high - 1);
	return c;
}

enum verdict decide(const struct verdict_input *in, struct pct_change *out)
{
	const struct summary *a = in->a, *b = in->b;
	double min = in->min_size_pct;
	struct pct_change c = pct_change_interval(a, b, in->level);

	if (out)
		*out = c;
	if (a->n < VERDICT_MIN_RUNS || b->n < VERDICT_MIN_RUNS)
		return VERDICT_FEW_RUNS;
	if (a->stddev == 0 && b->stddev == 0 && a->mean == b->mean)
		return VERDICT_SAME;
	if (isnan(in->p))
		return VERDICT_UNKNOWN;
	if (in->p < in->alpha && fabs(c.pct) >= min)
		return VERDICT_CHANGED;
	/* NaN bounds fail both comparisons and fall through to UNKNOWN */
	if (c.low > -min && c.high < min)
		return VERDICT_SAME;
	return VERDICT_UNKNOWN;
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

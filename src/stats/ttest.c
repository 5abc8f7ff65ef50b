#include "stats/ttest.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>

/*
 * The continued fraction of I_x(a, b), by the modified Lentz method; it
 * converges fast for x < (a + 1) / (a + b + 2), and the symmetry
 * I_x(a, b) = 1 - I_{1-x}(b, a) covers the other side.
 */
static double incbeta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), f;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	f = d;
	for (int m = 1; m <= 1000; m++) {
		double num, delta;

		/* even step */
		num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
		d = 1 + num * d;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		c = 1 + num / c;
		if (fabs(c) < tiny)
			c = tiny;
		f *= d * c;
		/* odd step */
		num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
		d = 1 + num * d;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		c = 1 + num / c;
		if (fabs(c) < tiny)
			c = tiny;
		delta = d * c;
		f *= delta;
		if (fabs(delta - 1) < 1e-15)
			break;
	}
	return f;
}

double incbeta(double a, double b, double x)
{
	double front;

	if (!(a > 0) || !(b > 0) || isnan(x))
		return NAN;
	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	/* x^a (1-x)^b / (a B(a, b)), in logs to stay in range */
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
		    b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * incbeta_cf(a, b, x) / a;
	return 1 - front * incbeta_cf(b, a, 1 - x) / b;
}

double t_cdf(double t, double df)
{
	double tail;

	if (isnan(t) || !(df > 0))
		return NAN;
	if (isinf(t))
		return t > 0 ? 1 : 0;
	/* P(|T| > |t|) = I_{df/(df+t^2)}(df/2, 1/2) */
	tail = incbeta(df / 2, 0.5, df / (df + t * t));
	return t > 0 ? 1 - tail / 2 : tail / 2;
}

/* log of the density's constant factor: Gamma((df+1)/2) / (Gamma(df/2) sqrt(df pi)) */
static double t_log_norm(double df)
{
	return lgamma((df + 1) / 2) - lgamma(df / 2) - 0.5 * log(df * M_PI);
}

/* The density of Student's t with df degrees of freedom at t. */
static double t_pdf(double t, double df, double log_norm)
{
	return exp(log_norm - (df + 1) / 2 * log1p(t * t / df));
}

/*
 * A first guess: the normal quantile (Abramowitz & Stegun 26.2.23, error
 * below 4.5e-4) with the first Cornish-Fisher terms for t.
 */
static double t_guess(double p, double df)
{
	double q = p < 0.5 ? p : 1 - p;
	double r = sqrt(-2 * log(q));
	double z = r - (2.515517 + 0.802853 * r + 0.010328 * r * r) /
		       (1 + 1.432788 * r + 0.189269 * r * r + 0.001308 * r * r * r);
	double z3 = z * z * z, z5 = z3 * z * z;
	double t = z + (z3 + z) / (4 * df) +
		   (5 * z5 + 16 * z3 + 3 * z) / (96 * df * df);

	return p < 0.5 ? -t : t;
}

/* Newton's steps must move less than this, relative, to stop. */
#define T_QUANTILE_TOL 1e-12

/*
 * Halley's method from the Cornish-Fisher guess: its error cubes each
 * step, so where the guess is good (df of 3 and more, error ~1e-3) two
 * steps, one incomplete beta each, give full precision; it stops when a
 * step moves less than 1e-8, which leaves an error near (1e-8)^3.  false
 * when the residual grows, a step crosses to the wrong sign or the steps
 * do not settle, for the bracketed search to take over.
 */
static bool t_quantile_halley(double p, double df, double log_norm, double *out)
{
	double t = t_guess(p, df), prev_f = NAN;

	if (df < 3 || !isfinite(t))
		return false;
	for (int i = 0; i < 8; i++) {
		double f = t_cdf(t, df) - p, d1, d2, next;

		/* a residual that grows means the method is not converging */
		if (!isnan(prev_f) && fabs(f) > fabs(prev_f))
			return false;
		d1 = t_pdf(t, df, log_norm);
		d2 = -d1 * (df + 1) * t / (df + t * t);
		next = t - 2 * f * d1 / (2 * d1 * d1 - f * d2);
		if (!isfinite(next) || (next > 0) != (p > 0.5))
			return false;
		if (fabs(next - t) <= 1e-8 * fmax(1, fabs(t))) {
			*out = next;
			return true;
		}
		prev_f = f;
		t = next;
	}
	return false;
}

double t_quantile(double p, double df)
{
	double lo = -1, hi = 1, t, log_norm;

	if (!(p > 0 && p < 1) || !(df > 0))
		return NAN;
	if (p == 0.5)
		return 0;
	log_norm = t_log_norm(df);
	/* a compare computes this for every stat: the fast way first */
	if (t_quantile_halley(p, df, log_norm, &t))
		return t;
	/* a bracket keeps Newton safe where the tails are heavy (df ~ 1) */
	while (t_cdf(lo, df) > p)
		lo *= 2;
	while (t_cdf(hi, df) < p)
		hi *= 2;
	t = t_guess(p, df);
	if (!(t > lo && t < hi))
		t = (lo + hi) / 2;
	/* Newton again, a step that leaves the bracket replaced by bisection */
	for (int i = 0; i < 100; i++) {
		double f = t_cdf(t, df) - p, next;

		if (f < 0)
			lo = t;
		else
			hi = t;
		next = t - f / t_pdf(t, df, log_norm);
		if (!(next > lo && next < hi))
			next = (lo + hi) / 2;
		if (fabs(next - t) <= T_QUANTILE_TOL * fmax(1, fabs(t)))
			return next;
		t = next;
	}
	return t;
}

/*
 * Welch-Satterthwaite degrees of freedom from two standard errors and the
 * degrees of freedom of each side, (va + vb)^2 / (va^2 / fa + vb^2 / fb)
 * with v = se^2: scaled by the larger se so that neither 1e300 nor a
 * subnormal over- or underflows.  NaN when both are 0.
 */
static double satterthwaite(double sa, double fa, double sb, double fb)
{
	double big = fmax(sa, sb), va, vb;

	if (!(big > 0))
		return NAN;
	va = (sa / big) * (sa / big);
	vb = (sb / big) * (sb / big);
	return (va + vb) * (va + vb) / (va * va / fa + vb * vb / fb);
}

/* The power of two of the largest of four magnitudes: dividing by it is exact. */
static int common_exponent(double w, double x, double y, double z)
{
	double big = fmax(fmax(fabs(w), fabs(x)), fmax(fabs(y), fabs(z)));

	return big > 0 && isfinite(big) ? ilogb(big) : 0;
}

/*
 * The two-sample t test of locations ma, mb with standard errors sa, sb
 * on ha, hb values (Welch: means, sems, n; Yuen: trimmed means, their
 * standard errors, the values kept), every quotient taken on values
 * scaled by a common power of two.
 */
static struct welch two_sample(double ma, double sa, size_t ha,
			       double mb, double sb, size_t hb)
{
	struct welch w = { .t = NAN, .df = NAN, .p = NAN };
	int e = common_exponent(ma, mb, sa, sb);
	double d, se;

	if (ha < 2 || hb < 2)
		return w;
	d = ldexp(mb, -e) - ldexp(ma, -e);
	se = hypot(ldexp(sa, -e), ldexp(sb, -e));
	if (se == 0) {
		/* two constant samples: equal or not, there is no doubt */
		w.t = d == 0 ? 0 : copysign(INFINITY, d);
		w.df = (double)(ha + hb - 2);
		w.p = d == 0 ? 1 : 0;
		return w;
	}
	w.t = d / se;
	w.df = satterthwaite(sa, (double)(ha - 1), sb, (double)(hb - 1));
	w.p = 2 * t_cdf(-fabs(w.t), w.df);
	return w;
}

struct welch welch_test(const struct summary *a, const struct summary *b)
{
	return two_sample(a->mean, a->sem, a->n, b->mean, b->sem, b->n);
}

struct welch yuen_test(const struct summary *a, const struct summary *b)
{
	return two_sample(a->tmean, a->tsem, a->h, b->tmean, b->tsem, b->h);
}

double yuen_df(const struct summary *a, const struct summary *b)
{
	if (a->h < 2 || b->h < 2)
		return NAN;
	return satterthwaite(a->tsem, (double)(a->h - 1), b->tsem, (double)(b->h - 1));
}

double mean_half_interval(const struct summary *s, double level)
{
	if (s->n < 2)
		return NAN;
	return t_quantile(1 - (1 - level) / 2, (double)(s->n - 1)) * s->sem;
}

struct ratio_interval ratio_interval(const struct summary *a,
				     const struct summary *b, double level)
{
	struct ratio_interval r = { .low = NAN, .high = NAN };
	double rel, se, df, q;

	r.ratio = a->mean != 0 ? b->mean / a->mean : NAN;
	if (a->n < 2 || b->n < 2 || isnan(r.ratio) || b->mean == 0)
		return r;
	rel = hypot(a->sem / a->mean, b->sem / b->mean);
	se = fabs(r.ratio) * rel;
	df = a->n > 1 && b->n > 1 ?
		     satterthwaite(a->sem, (double)(a->n - 1), b->sem, (double)(b->n - 1)) : NAN;
	if (se == 0 || isnan(df)) {
		r.low = r.high = r.ratio;
		return r;
	}
	q = t_quantile(1 - (1 - level) / 2, df);
	r.low = r.ratio - q * se;
	r.high = r.ratio + q * se;
	return r;
}

/*
 * changepoint.c - change points in a metric's history (changepoint.h,
 * docs/changepoint.md).
 *
 * Everything works on the "clean" sequence: the points that are not
 * outliers, in order, each with the mean of its runs (y, centred on the
 * first point and divided by a power of two so that every square is
 * finite) and 1 / its number of runs.  A cut is a clean index: the first
 * clean point after a change.
 */
#include "stats/changepoint.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stats/summary.h"
#include "stats/ttest.h"
#include "util/bug.h"
#include "util/strbuf.h"
#include "util/vec.h"

void cp_opts_init(struct cp_opts *o)
{
	*o = (struct cp_opts){
		.window = 50,
		.alpha = 0.001,
		.min_side = 3,
		.min_tail = 2,
		.tail_alpha = 0.01,
		.min_pct = 0,
		.outlier_k = 5,
	};
}

struct series {
	const struct cp_opts *o;
	size_t n;		/* points given (the region) */
	size_t offset;		/* index of the region's first point in the history */
	size_t N;		/* clean points, the last 2 points always among them */
	size_t Nmain;		/* those the split and merge passes see: all but the last 2 */
	size_t *idx;		/* clean j -> index in the region */
	double *y;		/* clean j: its runs' mean, centred and scaled */
	double *ninv;		/* clean j: 1 / runs */
	long double *p1, *p2;	/* prefix sums of y and y^2 over clean points */
	size_t *nout;		/* prefix count of outliers over the region's points */
	double sw2, dfw;	/* pooled within-point variance (scaled) and its df */
	double center, scale;
};

struct cuts {
	size_t *v;
	size_t n, cap;
};

struct test {
	double t, p, df;
	double ml, mr;		/* weighted means, scaled and centred */
};

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median5(const double *x)
{
	double s[5];

	memcpy(s, x, sizeof(s));
	qsort(s, 5, sizeof(s[0]), cmp_double);
	return s[2];
}

/* the median of x[0..n-1], 1 <= n <= 3 */
static double median_small(const double *x, size_t n)
{
	double a = x[0], b, c;

	if (n == 1)
		return a;
	b = x[1];
	if (n == 2)
		return a / 2 + b / 2;
	c = x[2];
	return fmax(fmin(a, b), fmin(fmax(a, b), c));
}

/* median of x[0..n-1], n >= 1; sorts x */
static double median_inplace(double *x, size_t n)
{
	qsort(x, n, sizeof(x[0]), cmp_double);
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

static int check_opts(const struct cp_opts *o, struct strbuf *err)
{
	if (!(o->alpha > 0 && o->alpha < 1)) {
		strbuf_setf(err, "changepoint: alpha %g is not in (0, 1)", o->alpha);
		return -EINVAL;
	}
	if (!(o->tail_alpha > 0 && o->tail_alpha < 1)) {
		strbuf_setf(err, "changepoint: tail_alpha %g is not in (0, 1)", o->tail_alpha);
		return -EINVAL;
	}
	if (o->min_side < 2) {
		strbuf_setf(err, "changepoint: min_side %zu is under 2", o->min_side);
		return -EINVAL;
	}
	if (o->window < 2 * o->min_side || o->window > SIZE_MAX / 8) {
		strbuf_setf(err, "changepoint: window %zu is under 2 min_side (%zu)",
			    o->window, 2 * o->min_side);
		return -EINVAL;
	}
	if (o->min_tail >= o->min_side) {
		strbuf_setf(err, "changepoint: min_tail %zu is not under min_side %zu",
			    o->min_tail, o->min_side);
		return -EINVAL;
	}
	if (!(o->min_pct >= 0) || !isfinite(o->min_pct)) {
		strbuf_setf(err, "changepoint: min_pct %g is not a finite number >= 0", o->min_pct);
		return -EINVAL;
	}
	if (!(o->outlier_k >= 0) || !isfinite(o->outlier_k)) {
		strbuf_setf(err, "changepoint: outlier_k %g is not a finite number >= 0",
			    o->outlier_k);
		return -EINVAL;
	}
	return 0;
}

static int check_points(const struct cp_point *pts, size_t n, size_t offset,
			struct strbuf *err)
{
	if (n && !pts) {
		strbuf_setf(err, "changepoint: %zu points but no array", n);
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		if (!pts[i].n || !pts[i].v) {
			strbuf_setf(err, "changepoint: point %zu has no value", offset + i);
			return -EINVAL;
		}
		for (size_t k = 0; k < pts[i].n; k++) {
			if (!isfinite(pts[i].v[k])) {
				strbuf_setf(err, "changepoint: point %zu run %zu: value %g is not finite",
					    offset + i, k, pts[i].v[k]);
				return -EINVAL;
			}
		}
	}
	return 0;
}

static void series_free(struct series *s)
{
	free(s->idx);
	free(s->y);
	free(s->ninv);
	free(s->p1);
	free(s->p2);
	free(s->nout);
}

/*
 * Summaries, outlier points, the clean sequence and its prefix sums.
 * pts[0..n-1] were checked.
 */
static int series_init(struct series *s, const struct cp_point *pts, size_t n,
		       size_t offset, const struct cp_opts *o)
{
	double *mean = NULL, *sd = NULL, *r = NULL;
	unsigned char *out = NULL;
	double big = 0, ssw = 0;
	int ret = -ENOMEM;

	memset(s, 0, sizeof(*s));
	s->o = o;
	s->n = n;
	s->offset = offset;
	mean = malloc((n + 1) * sizeof(*mean));
	sd = malloc((n + 1) * sizeof(*sd));
	r = malloc((n + 1) * sizeof(*r));
	out = calloc(n + 1, 1);
	s->idx = malloc((n + 1) * sizeof(*s->idx));
	s->y = malloc((n + 1) * sizeof(*s->y));
	s->ninv = malloc((n + 1) * sizeof(*s->ninv));
	s->p1 = malloc((n + 1) * sizeof(*s->p1));
	s->p2 = malloc((n + 1) * sizeof(*s->p2));
	s->nout = malloc((n + 1) * sizeof(*s->nout));
	if (!mean || !sd || !r || !out || !s->idx || !s->y || !s->ninv ||
	    !s->p1 || !s->p2 || !s->nout)
		goto done;

	for (size_t i = 0; i < n; i++) {
		struct summary sm;

		if (pts[i].n == 1) {
			mean[i] = pts[i].v[0];
			sd[i] = 0;
		} else {
			summarize_trim(pts[i].v, pts[i].n, 0, &sm);
			mean[i] = sm.mean;
			sd[i] = sm.stddev;
		}
		big = fmax(big, fmax(fabs(mean[i]), sd[i]));
	}
	/* a power of two at least as large as every |mean| and sd */
	s->scale = 1;
	if (big > 0) {
		int e;

		frexp(big, &e);
		s->scale = ldexp(1, e);
	}
	s->center = n ? mean[0] : 0;
	for (size_t i = 0; i < n; i++) {
		double v = sd[i] / s->scale;

		mean[i] = mean[i] / s->scale - s->center / s->scale;
		ssw += v * v * (double)(pts[i].n - 1);
		s->dfw += (double)(pts[i].n - 1);
	}

	/*
	 * Outlier points: further than outlier_k robust sigmas (the MAD of
	 * the deviations below), the same way, from the median of the 3
	 * points before and from that of the 3 points after (the side there
	 * is, near an end); or from the median of the 5 points around it
	 * (the last 5 near the end).  A point at a step is near one of the
	 * two sides and has the majority of its 5 on its own side, so steps
	 * are kept; the first rule misses an outlier just before a step in
	 * the step's direction, the second a step point with an outlier 2
	 * points away (bench/changepoint_bench: the union places 5-sigma
	 * steps best).  The last 2 points, where a step has them in the
	 * minority, are set aside from the split and merge passes only, and
	 * the tail pass looks at them.
	 */
	if (o->outlier_k > 0 && n >= 7) {
		double sigma, *fwd = sd;	/* sd was pooled above: its room is reused */

		for (size_t i = 0; i < n; i++) {
			size_t na = n - 1 - i < 3 ? n - 1 - i : 3;

			r[i] = i >= 3 ? mean[i] - median_small(mean + i - 3, 3) : NAN;
			fwd[i] = na ? mean[i] - median_small(mean + i + 1, na) : NAN;
		}
		{
			size_t m = 0;
			double *a = malloc(n * sizeof(*a));

			if (!a)
				goto done;
			for (size_t i = 3; i < n; i++)
				a[m++] = fabs(r[i]);
			/* the deviations are centred on 0: their MAD about 0 */
			sigma = 1.4826 * median_inplace(a, m);
			if (!(sigma > 0)) {
				double ss = 0;

				for (size_t i = 3; i < n; i++)
					ss += r[i] * r[i];
				sigma = sqrt(ss / (double)m);
			}
			free(a);
		}
		for (size_t i = 0; sigma > 0 && i < n; i++) {
			double lim = o->outlier_k * sigma, b = r[i], f = fwd[i];

			size_t lo = i < 2 ? 0 : i - 2;

			if (lo + 5 > n)
				lo = n - 5;
			if (isnan(b))
				out[i] = fabs(f) > lim;
			else if (isnan(f))
				out[i] = fabs(b) > lim;
			else
				out[i] = fabs(b) > lim && fabs(f) > lim && (b > 0) == (f > 0);
			if (fabs(mean[i] - median5(mean + lo)) > lim)
				out[i] = 1;
		}
	}

	s->nout[0] = 0;
	for (size_t i = 0; i < n; i++)
		s->nout[i + 1] = s->nout[i] + out[i];
	s->p1[0] = s->p2[0] = 0;
	for (size_t i = 0; i < n; i++) {
		size_t j = s->N;

		if (out[i] && i + 2 < n)
			continue;
		s->idx[j] = i;
		s->y[j] = mean[i];
		s->ninv[j] = 1.0 / (double)pts[i].n;
		s->p1[j + 1] = s->p1[j] + mean[i];
		s->p2[j + 1] = s->p2[j] + (long double)mean[i] * mean[i];
		s->N++;
	}
	s->Nmain = s->N >= 2 ? s->N - 2 : 0;
	s->sw2 = s->dfw > 0 ? ssw / s->dfw : 0;
	ret = 0;
done:
	free(mean);
	free(sd);
	free(r);
	free(out);
	if (ret)
		series_free(s);
	return ret;
}

/*
 * The best place to split clean [a, b): the tau with at least min_side
 * points a side that maximises the between-sides sum of squares,
 * kl kr / (kl + kr) (mean_l - mean_r)^2 (the least-squares step, the
 * likelihood's under normal noise).  Returns the number of places
 * searched, 0 when the segment is too short.
 */
static size_t best_split(const struct series *s, size_t a, size_t b, size_t *tau)
{
	size_t ms = s->o->min_side, best = 0;
	long double top = -1;

	if (b - a < 2 * ms)
		return 0;
	for (size_t t = a + ms; t + ms <= b; t++) {
		long double kl = (long double)(t - a), kr = (long double)(b - t);
		long double d = (s->p1[t] - s->p1[a]) / kl - (s->p1[b] - s->p1[t]) / kr;
		long double q = kl * kr / (kl + kr) * d * d;

		if (q > top) {
			top = q;
			best = t;
		}
	}
	*tau = best;
	return b - a - 2 * ms + 1;
}

/*
 * The t-test of clean [a, tau) against clean [c, d) (c = tau for two
 * adjacent segments; c > tau for one point at the tail), on the points'
 * means with variance components: a point's mean varies by sb2 + sw2 / n
 * (sw2 from the runs, pooled over the series; sb2, between commits,
 * from the points' scatter about their side's mean beyond what sw2
 * explains).  Each side's mean is weighted by 1 / that variance; the
 * degrees of freedom are the points' (kl + kr - 2) plus the runs' share.
 */
static void seg_test(const struct series *s, size_t a, size_t tau, size_t c,
		     size_t d, struct test *r)
{
	double kl = (double)(tau - a), kr = (double)(d - c);
	double ml = 0, mr = 0, ss = 0, inv = 0, dfb, within, sb2 = 0;
	double wl = 0, wml = 0, wr = 0, wmr = 0, se, frac;

	BUG_ON(tau <= a || d <= c || c < tau || d > s->N);
	for (size_t j = a; j < tau; j++) {
		ml += s->y[j];
		inv += s->ninv[j];
	}
	for (size_t j = c; j < d; j++) {
		mr += s->y[j];
		inv += s->ninv[j];
	}
	ml /= kl;
	mr /= kr;
	for (size_t j = a; j < tau; j++)
		ss += (s->y[j] - ml) * (s->y[j] - ml);
	for (size_t j = c; j < d; j++)
		ss += (s->y[j] - mr) * (s->y[j] - mr);
	dfb = kl + kr - 2;
	within = s->sw2 * inv / (kl + kr);
	if (dfb > 0)
		sb2 = fmax(0, ss / dfb - within);
	if (!(sb2 + within > 0)) {
		/* every point the same as its side's others, no run spread */
		r->ml = ml;
		r->mr = mr;
		r->df = fmax(1, dfb);
		r->t = mr == ml ? 0 : mr > ml ? INFINITY : -INFINITY;
		r->p = mr == ml ? 1 : 0;
		return;
	}
	for (size_t j = a; j < tau; j++) {
		double w = 1 / (sb2 + s->sw2 * s->ninv[j]);

		wl += w;
		wml += w * s->y[j];
	}
	for (size_t j = c; j < d; j++) {
		double w = 1 / (sb2 + s->sw2 * s->ninv[j]);

		wr += w;
		wmr += w * s->y[j];
	}
	r->ml = wml / wl;
	r->mr = wmr / wr;
	se = sqrt(1 / wl + 1 / wr);
	frac = within / (sb2 + within);
	r->df = fmax(1, dfb + frac * s->dfw);
	r->t = (r->mr - r->ml) / se;
	if (isinf(r->t))
		r->p = 0;
	else
		r->p = incbeta(r->df / 2, 0.5, r->df / (r->df + r->t * r->t));
}

/* 100 (after - before) / |before|, the difference when before is 0 */
static double pct_of(const struct series *s, const struct test *r)
{
	double before = s->center + r->ml * s->scale;
	double diff = (r->mr - r->ml) * s->scale;

	return before != 0 ? 100 * diff / fabs(before) : diff;
}

static bool big_enough(const struct series *s, const struct test *r)
{
	return !(s->o->min_pct > 0) || fabs(pct_of(s, r)) >= s->o->min_pct;
}

/* binary segmentation of clean [a, b) */
static int split_rec(const struct series *s, size_t a, size_t b, struct cuts *cuts)
{
	struct test r;
	size_t tau, npos = best_split(s, a, b, &tau);
	int ret;

	if (!npos)
		return 0;
	seg_test(s, a, tau, tau, b, &r);
	if (!(fmin(1, r.p * (double)npos) < s->o->alpha) || !big_enough(s, &r))
		return 0;
	if (vec_push(cuts, tau))
		return -ENOMEM;
	ret = split_rec(s, a, tau, cuts);
	return ret ? ret : split_rec(s, tau, b, cuts);
}

/* cut j's neighbours and its corrected test; p 2 when it is too small */
static double cut_p(const struct series *s, const struct cuts *c, size_t j, struct test *r)
{
	size_t a = j ? c->v[j - 1] : 0, b = j + 1 < c->n ? c->v[j + 1] : s->Nmain;
	size_t npos = b - a - 2 * s->o->min_side + 1;

	seg_test(s, a, c->v[j], c->v[j], b, r);
	if (!big_enough(s, r))
		return 2;
	return fmin(1, r->p * (double)npos);
}

/* drop the weakest cut while one is not significant between its neighbours */
static void merge(const struct series *s, struct cuts *c)
{
	while (c->n) {
		struct test r;
		double worst = -1;
		size_t wj = 0;

		for (size_t j = 0; j < c->n; j++) {
			double p = cut_p(s, c, j, &r);

			if (p > worst) {
				worst = p;
				wj = j;
			}
		}
		if (worst < s->o->alpha)
			return;
		memmove(c->v + wj, c->v + wj + 1, (c->n - wj - 1) * sizeof(c->v[0]));
		c->n--;
	}
}

static int analyse(const struct series *s, struct cuts *c, struct cp_change *tail)
{
	const struct cp_opts *o = s->o;
	size_t N = s->Nmain, step = o->window / 2;
	int ret;

	tail->index = SIZE_MAX;
	/* split pass over the whole */
	ret = split_rec(s, 0, N, c);
	if (ret)
		return ret;
	/* split passes over overlapping windows */
	for (size_t w = 0; w + 2 * o->min_side <= N; w += step) {
		size_t e = w + o->window < N ? w + o->window : N, a = w, n0;

		if (c->n)
			qsort(c->v, c->n, sizeof(c->v[0]), cmp_size);
		n0 = c->n;
		for (size_t j = 0; j <= n0; j++) {
			size_t b = j < n0 ? c->v[j] : e;

			if (b <= a)
				continue;
			if (b > e)
				b = e;
			ret = split_rec(s, a, b, c);
			if (ret)
				return ret;
			a = b;
			if (b == e)
				break;
		}
		if (e == N)
			break;
	}
	if (c->n)
		qsort(c->v, c->n, sizeof(c->v[0]), cmp_size);
	merge(s, c);
	/* each cut to the best place between its neighbours, then again */
	for (size_t j = 0; j < c->n; j++) {
		size_t a = j ? c->v[j - 1] : 0, b = j + 1 < c->n ? c->v[j + 1] : N, tau;

		if (best_split(s, a, b, &tau))
			c->v[j] = tau;
	}
	merge(s, c);

	/*
	 * The tail: the last 2 points are left out of the passes above (a
	 * step there is in the minority of every neighbourhood), so a step
	 * in the last min_tail .. min_side + 1 points is looked for here.
	 * Its place is the least-squares one among those; every point after
	 * it must be beyond the segment before, the same way, each alone at
	 * p < tail_alpha (corrected for the places tried): one outlier at the
	 * end is no step.  It is a change when min_side points or more follow
	 * it and the test of the two sides gives p < alpha, corrected as a
	 * split of the last segment is; tentative otherwise.
	 */
	N = s->N;
	{
		size_t last = c->n ? c->v[c->n - 1] : 0;
		size_t kmin = o->min_tail ? o->min_tail : o->min_side, kmax = o->min_side + 1;
		size_t ntried = kmax - kmin + 1, order[8], nk = 0;
		long double q[8];

		BUG_ON(ntried > 8);
		/* the places tried, best (least squares) first */
		for (size_t k = kmin; k <= kmax; k++) {
			long double kl, kr, d;
			size_t at;

			if (k >= N || N - k < last + o->min_side)
				continue;
			kl = (long double)(N - k - last);
			kr = (long double)k;
			d = (s->p1[N - k] - s->p1[last]) / kl - (s->p1[N] - s->p1[N - k]) / kr;
			q[nk] = kl * kr / (kl + kr) * d * d;
			for (at = nk; at > 0 && q[order[at - 1]] < q[nk]; at--)
				order[at] = order[at - 1];
			order[at] = nk;
			nk++;
		}
		for (size_t r = 0; r < nk; r++) {
			size_t best = kmax, seen = 0;
			struct test all, one;
			double worst = 0, p;
			bool ok = true;
			size_t at, npos = N - last - 2 * o->min_side + 1;

			/* the order[r]-th candidate k */
			for (size_t k = kmin; k <= kmax; k++) {
				if (k >= N || N - k < last + o->min_side)
					continue;
				if (seen++ == order[r]) {
					best = k;
					break;
				}
			}
			at = N - best;
			seg_test(s, last, at, at, N, &all);
			for (size_t j = at; j < N && ok; j++) {
				seg_test(s, last, at, j, j + 1, &one);
				if ((one.t > 0) != (all.t > 0) || one.t == 0)
					ok = false;
				worst = fmax(worst, fmin(1, one.p * (double)ntried));
			}
			if (!ok || !(worst < o->tail_alpha) || !big_enough(s, &all))
				continue;
			p = N - last >= 2 * o->min_side ? fmin(1, all.p * (double)npos) : 1;
			tail->tentative = best < o->min_side || !(p < o->alpha);
			if (!o->min_tail && tail->tentative)
				continue;
			tail->index = at;
			tail->start = last;
			tail->p = tail->tentative ? worst : p;
			tail->t = all.t;
			tail->before = all.ml;
			tail->after = all.mr;
			break;
		}
	}
	return 0;
}

/* the change at clean cut tau between clean a and b, in history indices */
static void fill(const struct series *s, size_t a, size_t tau, size_t b,
		 const struct test *r, double p, struct cp_change *out)
{
	out->index = s->offset + s->idx[tau];
	out->start = s->offset + (a ? s->idx[a] : 0);
	out->end = s->offset + (b < s->Nmain ? s->idx[b] : s->n);
	out->p = p;
	out->t = r->t;
	out->before = s->center + r->ml * s->scale;
	out->after = s->center + r->mr * s->scale;
	out->pct = pct_of(s, r);
	out->outliers = s->nout[out->end - s->offset] - s->nout[out->start - s->offset];
	out->tentative = false;
}

/* analyse pts[0..n-1] (history indices from offset) and append to *res */
static int run(const struct cp_point *pts, size_t n, size_t offset,
	       const struct cp_opts *o, struct cp_change **res, size_t *nres)
{
	struct series s;
	struct cuts c = { 0 };
	struct cp_change tail = { .index = SIZE_MAX };
	struct cp_change *v;
	size_t add;
	int ret;

	ret = series_init(&s, pts, n, offset, o);
	if (ret)
		return ret;
	ret = analyse(&s, &c, &tail);
	if (ret)
		goto done;
	add = c.n + (tail.index != SIZE_MAX);
	if (!add)
		goto done;
	v = realloc(*res, (*nres + add) * sizeof(*v));
	if (!v) {
		ret = -ENOMEM;
		goto done;
	}
	*res = v;
	for (size_t j = 0; j < c.n; j++) {
		struct test r;
		double p = cut_p(&s, &c, j, &r);
		size_t a = j ? c.v[j - 1] : 0, b = j + 1 < c.n ? c.v[j + 1] : s.Nmain;

		fill(&s, a, c.v[j], b, &r, p, &v[(*nres)++]);
	}
	if (tail.index != SIZE_MAX) {
		struct test r = { .t = tail.t, .ml = tail.before, .mr = tail.after };

		fill(&s, tail.start, tail.index, s.N, &r, tail.p, &v[(*nres)++]);
		v[*nres - 1].tentative = tail.tentative;
	}
done:
	vec_free(&c);
	series_free(&s);
	return ret;
}

int cp_detect(const struct cp_point *pts, size_t n, const struct cp_opts *o,
	      struct cp_change **out, size_t *nr, struct strbuf *err)
{
	int ret;

	*out = NULL;
	*nr = 0;
	ret = check_opts(o, err);
	if (!ret)
		ret = check_points(pts, n, 0, err);
	if (!ret)
		ret = run(pts, n, 0, o, out, nr);
	if (ret) {
		free(*out);
		*out = NULL;
		*nr = 0;
		if (ret == -ENOMEM)
			strbuf_setf(err, "changepoint: out of memory");
	}
	return ret;
}

int cp_update(const struct cp_point *pts, size_t n, const struct cp_change *old,
	      size_t nold, const struct cp_opts *o, struct cp_change **out,
	      size_t *nr, struct strbuf *err)
{
	size_t W, start, keep = 0;
	bool at_old = false;
	int ret;

	*out = NULL;
	*nr = 0;
	ret = check_opts(o, err);
	if (ret)
		return ret;
	if (nold && !old) {
		strbuf_setf(err, "changepoint: %zu old changes but no array", nold);
		return -EINVAL;
	}
	W = o->window;
	start = n > 2 * W ? n - 2 * W : 0;
	for (size_t i = 0; i < nold; i++) {
		size_t c = old[i].index;

		if (c >= n || (i && c <= old[i - 1].index)) {
			strbuf_setf(err, "changepoint: old change %zu at point %zu: beyond the %zu points or out of order",
				    i, c, n);
			return -EINVAL;
		}
	}
	for (size_t i = 0; i < nold; i++) {
		size_t c = old[i].index;

		if (!old[i].tentative && c + W <= n && c + 4 * W >= n && c >= start) {
			start = c;
			at_old = true;
		}
	}
	/* a tentative change is looked at again, with a window before it */
	for (size_t i = 0; i < nold; i++) {
		if (old[i].tentative && old[i].index < start + W) {
			size_t s = old[i].index > W ? old[i].index - W : 0;

			if (s < start) {
				start = s;
				at_old = false;
				for (size_t k = 0; k < nold; k++)
					if (!old[k].tentative && old[k].index == s)
						at_old = true;
			}
		}
	}
	ret = check_points(pts + start, n - start, start, err);
	if (ret)
		return ret;
	for (size_t i = 0; i < nold; i++)
		if (!old[i].tentative &&
		    (old[i].index < start || (at_old && old[i].index == start)))
			keep++;
	if (keep) {
		*out = malloc(keep * sizeof(**out));
		if (!*out) {
			strbuf_setf(err, "changepoint: out of memory");
			return -ENOMEM;
		}
		for (size_t i = 0; i < nold; i++)
			if (!old[i].tentative &&
			    (old[i].index < start || (at_old && old[i].index == start)))
				(*out)[(*nr)++] = old[i];
	}
	ret = run(pts + start, n - start, start, o, out, nr);
	if (ret) {
		free(*out);
		*out = NULL;
		*nr = 0;
		strbuf_setf(err, "changepoint: out of memory");
	}
	return ret;
}

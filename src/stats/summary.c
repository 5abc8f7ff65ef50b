#include "stats/summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* A compare sorts two small samples per stat, tens of thousands of times. */
#define SMALL_SAMPLE 32

static void sort_doubles(double *x, size_t n)
{
	if (n > SMALL_SAMPLE) {
		qsort(x, n, sizeof(*x), cmp_double);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		double v = x[i];
		size_t j = i;

		for (; j > 0 && x[j - 1] > v; j--)
			x[j] = x[j - 1];
		x[j] = v;
	}
}

/*
 * Values whose squares stay normal doubles need no scaling: |x| within
 * 2^-400 .. 2^400 (squared sums of thousands of them stay far inside
 * 2^-1022 .. 2^1023).
 */
#define SCALE_LIMIT 0x1p400

/* Values trimmed a side: floor(gamma n), at least 1 from SUMMARY_TRIM_MIN_N values on. */
static size_t trim_count(size_t n, double gamma)
{
	/* the 1e-9 keeps 0.2 * 10 from flooring below 2 on any libm */
	size_t g = (size_t)floor(gamma * (double)n + 1e-9);

	if (gamma > 0 && n >= SUMMARY_TRIM_MIN_N && g < 1)
		g = 1;
	return g;
}

/* The trimmed mean and Yuen's standard error from the sorted sample. */
static void trim(const double *sorted, size_t n, size_t g, struct summary *out)
{
	size_t h = n - 2 * g;
	double sum = 0, wsum = 0, wmean, sq = 0;

	for (size_t i = g; i < n - g; i++)
		sum += sorted[i];
	out->tmean = sum / (double)h;
	out->h = h;
	/* the winsorized sample: the g lowest raised to sorted[g], the g highest lowered */
	wsum = sum + (double)g * (sorted[g] + sorted[n - 1 - g]);
	wmean = wsum / (double)n;
	for (size_t i = 0; i < n; i++) {
		double w = i < g ? sorted[g] : i >= n - g ? sorted[n - 1 - g] : sorted[i];

		sq += (w - wmean) * (w - wmean);
	}
	out->tsem = h > 1 ? sqrt(sq / ((double)h * (double)(h - 1))) : 0;
}

static void summarize_scaled(const double *x, size_t n, double gamma,
			     struct summary *out)
{
	double sum = 0, sq = 0, small[SMALL_SAMPLE];
	double *sorted;
	size_t g;

	for (size_t i = 0; i < n; i++)
		sum += x[i];
	out->mean = sum / (double)n;
	/* two passes: the textbook one-pass formula cancels badly */
	for (size_t i = 0; i < n; i++)
		sq += (x[i] - out->mean) * (x[i] - out->mean);
	out->stddev = n > 1 ? sqrt(sq / (double)(n - 1)) : 0;
	out->min = out->max = x[0];
	for (size_t i = 1; i < n; i++) {
		out->min = fmin(out->min, x[i]);
		out->max = fmax(out->max, x[i]);
	}
	/* a constant is its own mean, with no spread, not a sum's rounding of it */
	if (out->min == out->max) {
		out->mean = out->median = out->tmean = out->min;
		out->stddev = out->sem = out->tsem = out->mad = 0;
		g = trim_count(n, gamma);
		out->h = 2 * g < n ? n - 2 * g : n;
		return;
	}
	out->sem = out->stddev / sqrt((double)n);
	/* no trimming: the trimmed statistics are the plain ones, bit for bit */
	out->tmean = out->mean;
	out->tsem = out->sem;
	out->h = n;
	sorted = n <= SMALL_SAMPLE ? small : malloc(n * sizeof(*sorted));
	if (!sorted) {
		out->median = out->mad = NAN;
		return;
	}
	memcpy(sorted, x, n * sizeof(*sorted));
	sort_doubles(sorted, n);
	out->median = n % 2 ? sorted[n / 2]
			    : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	g = trim_count(n, gamma);
	if (g > 0 && 2 * g < n)
		trim(sorted, n, g, out);
	/* the sorted copy is no longer needed: reuse it for the deviations */
	for (size_t i = 0; i < n; i++)
		sorted[i] = fabs(sorted[i] - out->median);
	sort_doubles(sorted, n);
	out->mad = n % 2 ? sorted[n / 2]
			 : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	if (sorted != small)
		free(sorted);
}

void summarize_trim(const double *x, size_t n, double gamma, struct summary *out)
{
	double big = 0, small[SMALL_SAMPLE], *y;
	int e;

	memset(out, 0, sizeof(*out));
	out->n = n;
	if (!n)
		return;
	for (size_t i = 0; i < n; i++)
		big = fmax(big, fabs(x[i]));
	if (!isfinite(big) || big == 0 || (big <= SCALE_LIMIT && big >= 1 / SCALE_LIMIT)) {
		summarize_scaled(x, n, gamma, out);
		return;
	}
	/* near overflow or underflow: the same sums on x / 2^e, exact, then scaled back */
	e = ilogb(big);
	y = n <= SMALL_SAMPLE ? small : malloc(n * sizeof(*y));
	if (!y) {
		summarize_scaled(x, n, gamma, out);
		return;
	}
	for (size_t i = 0; i < n; i++)
		y[i] = ldexp(x[i], -e);
	summarize_scaled(y, n, gamma, out);
	if (y != small)
		free(y);
	out->mean = ldexp(out->mean, e);
	out->stddev = ldexp(out->stddev, e);
	out->sem = ldexp(out->sem, e);
	out->min = ldexp(out->min, e);
	out->max = ldexp(out->max, e);
	out->median = ldexp(out->median, e);
	out->mad = ldexp(out->mad, e);
	out->tmean = ldexp(out->tmean, e);
	out->tsem = ldexp(out->tsem, e);
}

void summarize(const double *x, size_t n, struct summary *out)
{
	summarize_trim(x, n, SUMMARY_TRIM, out);
}

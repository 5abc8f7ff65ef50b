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

void summarize(const double *x, size_t n, struct summary *out)
{
	double sum = 0, sq = 0, small[SMALL_SAMPLE];
	double *sorted;

	memset(out, 0, sizeof(*out));
	out->n = n;
	if (!n)
		return;
	for (size_t i = 0; i < n; i++)
		sum += x[i];
	out->mean = sum / (double)n;
	/* two passes: the textbook one-pass formula cancels badly */
	for (size_t i = 0; i < n; i++)
		sq += (x[i] - out->mean) * (x[i] - out->mean);
	out->stddev = n > 1 ? sqrt(sq / (double)(n - 1)) : 0;
	out->sem = out->stddev / sqrt((double)n);
	out->min = out->max = x[0];
	for (size_t i = 1; i < n; i++) {
		out->min = fmin(out->min, x[i]);
		out->max = fmax(out->max, x[i]);
	}
	sorted = n <= SMALL_SAMPLE ? small : malloc(n * sizeof(*sorted));
	if (!sorted) {
		out->median = out->mad = NAN;
		return;
	}
	memcpy(sorted, x, n * sizeof(*sorted));
	sort_doubles(sorted, n);
	out->median = n % 2 ? sorted[n / 2]
			    : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	/* the sorted copy is no longer needed: reuse it for the deviations */
	for (size_t i = 0; i < n; i++)
		sorted[i] = fabs(sorted[i] - out->median);
	sort_doubles(sorted, n);
	out->mad = n % 2 ? sorted[n / 2]
			 : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	if (sorted != small)
		free(sorted);
}

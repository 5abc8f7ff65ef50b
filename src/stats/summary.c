#include "stats/summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void summarize(const double *x, size_t n, struct summary *out)
{
	double sum = 0, sq = 0;
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
	sorted = malloc(n * sizeof(*sorted));
	if (!sorted) {
		out->median = out->mad = NAN;
		return;
	}
	memcpy(sorted, x, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_double);
	out->median = n % 2 ? sorted[n / 2]
			    : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	/* the sorted copy is no longer needed: reuse it for the deviations */
	for (size_t i = 0; i < n; i++)
		sorted[i] = fabs(sorted[i] - out->median);
	qsort(sorted, n, sizeof(*sorted), cmp_double);
	out->mad = n % 2 ? sorted[n / 2]
			 : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
	free(sorted);
}

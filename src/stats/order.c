/*
 * order.c - were two sides' runs interleaved in time (stats/compare.h,
 * compare_order())?  Pure; thread-safe.
 */
#include "stats/compare.h"

#include <math.h>

/* No side's runs can be ordered: no times, one run, or one shared time. */
static bool unordered(const struct sample_set *s)
{
	if (!s->started || s->nr_runs < 2)
		return true;
	return s->started[0] == s->started[s->nr_runs - 1];
}

void compare_order(const struct sample_set *base, const struct sample_set *other,
		   struct compare_order_info *out)
{
	size_t na = base->nr_runs, nb = other->nr_runs, i = 0, j = 0;
	int last = -1;

	*out = (struct compare_order_info){
		.order = COMPARE_ORDER_UNKNOWN,
		.base_first = NAN, .base_last = NAN,
		.other_first = NAN, .other_last = NAN,
	};
	if (unordered(base) || unordered(other))
		return;
	out->needed = (unsigned)(na < nb ? na : nb);
	out->base_first = base->started[0];
	out->base_last = base->started[na - 1];
	out->other_first = other->started[0];
	out->other_last = other->started[nb - 1];
	/* a merge of the two ascending lists, counting the changes of side */
	while (i < na || j < nb) {
		int side = j >= nb || (i < na && base->started[i] <= other->started[j]) ? 0 : 1;

		if (last >= 0 && side != last)
			out->switches++;
		last = side;
		if (side)
			j++;
		else
			i++;
	}
	/* the stretch both sides were measured in, and the runs outside it */
	{
		double from = fmax(out->base_first, out->other_first);
		double to = fmin(out->base_last, out->other_last);

		for (i = 0; i < na; i++)
			out->base_outside += base->started[i] < from || base->started[i] > to;
		for (j = 0; j < nb; j++)
			out->other_outside += other->started[j] < from || other->started[j] > to;
		/* the streaks inside it: the merge again, runs outside skipped */
		unsigned streak = 0;

		last = -1;
		for (i = j = 0; i < na || j < nb;) {
			int side = j >= nb || (i < na && base->started[i] <= other->started[j]) ? 0 : 1;
			double t = side ? other->started[j++] : base->started[i++];
			unsigned *block = side ? &out->other_block : &out->base_block;

			if (t < from || t > to)
				continue;
			streak = side == last ? streak + 1 : 1;
			last = side;
			if (streak > *block)
				*block = streak;
		}
	}
	out->order = out->switches >= out->needed &&
		     out->base_outside <= compare_order_outside_max(na) &&
		     out->other_outside <= compare_order_outside_max(nb) &&
		     out->base_block <= compare_order_outside_max(na) &&
		     out->other_block <= compare_order_outside_max(nb)
		     ? COMPARE_ORDER_INTERLEAVED : COMPARE_ORDER_APART;
}

bool compare_alternate_from(const double *a, size_t na, const double *b, size_t nb,
			    double cut)
{
	size_t ka = 0, kb = 0;
	struct sample_set sa, sb;
	struct compare_order_info oi;

	while (ka < na && a[ka] < cut)
		ka++;
	while (kb < nb && b[kb] < cut)
		kb++;
	na -= ka;
	nb -= kb;
	if (na <= 2 && nb <= 2)
		return (na > nb ? na - nb : nb - na) <= 1;
	if (na < 2 || nb < 2)
		return false;
	sa = (struct sample_set){ .nr_runs = na, .started = a + ka };
	sb = (struct sample_set){ .nr_runs = nb, .started = b + kb };
	compare_order(&sa, &sb, &oi);
	return oi.order == COMPARE_ORDER_INTERLEAVED && oi.base_outside <= 2 &&
	       oi.other_outside <= 2;
}

double compare_window_start(const double *a, size_t na, const double *b, size_t nb)
{
	size_t i = 0, j = 0;
	double last = -INFINITY;

	/* every start time, ascending: the first from which they alternate */
	while (i < na || j < nb) {
		double t = j >= nb || (i < na && a[i] <= b[j]) ? a[i++] : b[j++];

		if (t > last && compare_alternate_from(a, na, b, nb, t))
			return t;
		last = t;
	}
	return (na || nb ? last : 0) + 1e-3;
}

unsigned compare_order_outside_max(size_t n)
{
	return n / 5 > 2 ? (unsigned)(n / 5) : 2;
}

const char *compare_order_name(enum compare_order o)
{
	switch (o) {
	case COMPARE_ORDER_INTERLEAVED:
		return "interleaved";
	case COMPARE_ORDER_APART:
		return "apart";
	case COMPARE_ORDER_UNKNOWN:
		break;
	}
	return "unknown";
}

#include "bench/wis_sweep.h"

#include <math.h>

void wis_sweep_linear(struct wis_sweep_row *rows, size_t n)
{
	double best = 0;

	for (size_t i = 0; i < n; i++) {
		if (rows[i].tasks != 1)
			continue;
		for (int m = 0; m < 2; m++)
			if (rows[i].have[m] && rows[i].ops[m] > best)
				best = rows[i].ops[m];
	}
	for (size_t i = 0; i < n; i++)
		rows[i].linear = best * rows[i].tasks;
}

double wis_sweep_scalability(const struct wis_sweep_row *rows, size_t n,
			     enum wis_mode mode)
{
	for (size_t i = n; i-- > 0;)
		if (rows[i].have[mode])
			return rows[i].linear > 0 ? rows[i].ops[mode] / rows[i].linear
						  : NAN;
	return NAN;
}

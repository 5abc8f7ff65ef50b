/*
 * wis_sweep.h - the 1..N task sweep's table, as will-it-scale's runtest
 * prints it: tasks, processes, processes_idle, threads, threads_idle,
 * linear.  Pure arithmetic over results the caller measured; no state.
 */
#ifndef PERFBOT_BENCH_WIS_SWEEP_H
#define PERFBOT_BENCH_WIS_SWEEP_H

#include "bench/wis.h"

#include <stdbool.h>
#include <stddef.h>

/* One row per task count; index by enum wis_mode. */
struct wis_sweep_row {
	unsigned tasks;
	bool have[2];		/* measured in this mode */
	double ops[2];		/* total ops/s (workload) */
	double idle[2];		/* idle % during the run, -1 if unknown */
	double linear;		/* best 1-task result x tasks */
};

/* Fill every row's linear from the row with tasks == 1 (0 when absent). */
void wis_sweep_linear(struct wis_sweep_row *rows, size_t n);

/*
 * Scalability of a mode: its result at the largest measured task count
 * divided by linear there.  NaN when the mode was not measured.
 */
double wis_sweep_scalability(const struct wis_sweep_row *rows, size_t n,
			     enum wis_mode mode);

#endif

/*
 * hackbench_type.h - hackbench as a struct bench_type (bench.h): one
 * table for LKP's job keys (nr_threads, mode, ipc, iterations, loops,
 * datasize) and rt-tests' options (-g, -f, -l, -s, -p, -T, -P, -i).
 *
 * For a front end that shows more than the stats: run()'s detail is the
 * engine's struct hackbench_result, on_progress's event a const double *
 * (an iteration's seconds), and the phase is "measure".  No state.
 */
#ifndef PERFBOT_BENCH_HACKBENCH_TYPE_H
#define PERFBOT_BENCH_HACKBENCH_TYPE_H

#include "bench/bench.h"
#include "bench/hackbench.h"

enum hackbench_row {
	HB_P_NR_THREADS,
	HB_P_FDS,
	HB_P_LOOPS,
	HB_P_DATASIZE,
	HB_P_IPC,
	HB_P_MODE,
	HB_P_ITERATIONS,
	HB_P_TIMEOUT,
	HB_NR_PARAMS,
};

extern const struct bench_type bench_type_hackbench;

/*
 * The engine's configuration from checked arguments.  In a job (a->job)
 * nr_threads also sets loops to 30000 x CPUs / groups (at least 1), as
 * LKP's hackbench job does, unless loops is given.  No callbacks, no stop.
 */
void hackbench_config_from_args(const struct bench_args *a,
				struct hackbench_config *cfg);

#endif

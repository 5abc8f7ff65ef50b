/*
 * netperf_type.h - the built-in netperf as a struct bench_type (bench.h):
 * one table for LKP's netperf job (nr_threads, test, ip, send_size,
 * cluster, and the generic runtime and timeout) and netperf's options
 * (-t, -n, -l, -4, -6, -m, -M, --timeout).
 *
 * For a front end that shows more than the stats: run()'s detail is the
 * engine's struct netperf_result (per client), and the phase is
 * "measure".  No state.
 */
#ifndef PERFBOT_BENCH_NETPERF_TYPE_H
#define PERFBOT_BENCH_NETPERF_TYPE_H

#include "bench/bench.h"
#include "bench/netperf.h"

enum netperf_row {
	NP_P_TEST,
	NP_P_NR_THREADS,
	NP_P_RUNTIME,
	NP_P_IP,
	NP_P_SEND_SIZE,
	NP_P_RECV_SIZE,
	NP_P_TIMEOUT,
	NP_P_CLUSTER,
	NP_NR_PARAMS,
};

extern const struct bench_type bench_type_netperf;

/* The engine's configuration from checked arguments; no stop, no callbacks. */
void netperf_config_from_args(const struct bench_args *a,
			      struct netperf_config *cfg);

#endif

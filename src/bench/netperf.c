/* netperf: STUB, being written. */
#include "bench/bench.h"

const struct bench_builtin bench_netperf = {
	.name = "netperf",
	.desc = "stub",
};

/* hackbench: STUB, being written. */
#include "bench/bench.h"

const struct bench_builtin bench_hackbench = {
	.name = "hackbench",
	.desc = "stub",
};

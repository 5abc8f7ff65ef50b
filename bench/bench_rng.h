/*
 * bench_rng.h - the simulations' seeded random numbers: xorshift64* and
 * Box-Muller, the same numbers on every libc, so that a benchmark's table
 * is the same on every run and RESULTS.md can quote it.  One state per
 * simulation, used from one thread.
 */
#ifndef PERFBOT_BENCH_RNG_H
#define PERFBOT_BENCH_RNG_H
#include <math.h>
#include <stdbool.h>
#include <stdint.h>

struct bench_rng {
	uint64_t state;		/* the seed, not 0 */
	double spare;		/* Box-Muller's second number */
	bool has_spare;
};

/* Uniform on (0, 1), never 0 or 1. */
static inline double bench_uniform(struct bench_rng *r)
{
	r->state ^= r->state >> 12;
	r->state ^= r->state << 25;
	r->state ^= r->state >> 27;
	return ((double)((r->state * 0x2545F4914F6CDD1DULL) >> 11) + 0.5) /
	       9007199254740992.0;
}

/* Standard normal. */
static inline double bench_normal(struct bench_rng *r)
{
	double m, v;

	if (r->has_spare) {
		r->has_spare = false;
		return r->spare;
	}
	m = sqrt(-2 * log(bench_uniform(r)));
	v = 2 * M_PI * bench_uniform(r);
	r->spare = m * sin(v);
	r->has_spare = true;
	return m * cos(v);
}

#endif

/*
 * counters_cost.c - what counting a command's events costs perfbot stat
 * (util/perfevent.h; issue 18, item 5; figures go to bench/RESULTS.md).
 *
 *   counters_cost [ROUNDS]     (default 2000)
 *
 * Runs `true` ROUNDS times without events and ROUNDS times with perfbot
 * stat's default events armed, alternating (A B A B) so the machine's
 * drift falls on both alike, and prints:
 *   - the wall time exec_run_once() measures (what stat reports), median
 *     and mean of each side, and the difference: the fork copying the
 *     inherited events and the exec enabling them are inside it;
 *   - arming (the perf_event_open calls) and collecting (read, close):
 *     outside the timed region, per run, median and mean;
 *   - how many events were open (those the machine refuses are not asked
 *     again after the first run), and how many runs task-clock missed
 *     (none: every run gets fresh events, util/perfevent.h says why).
 */
#define _GNU_SOURCE
#include "bench/exec.h"
#include "util/perfevent.h"
#include "util/timeutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void report(const char *what, double *x, size_t n)
{
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += x[i];
	qsort(x, n, sizeof(*x), cmp_double);
	printf("  %-34s median %8.1f us   mean %8.1f us\n", what, 1e6 * x[n / 2],
	       1e6 * sum / (double)n);
}

int main(int argc, char **argv)
{
	static const char *const names[] = {
		"task-clock", "context-switches", "cpu-migrations", "page-faults",
		"cycles", "instructions", "branches", "branch-misses", "cache-misses",
	};
	const size_t nr = sizeof(names) / sizeof(names[0]);
	size_t rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 2000;
	char *cmd[] = { "true", NULL };
	struct exec_opts eo = { .timeout_s = 10 };
	struct perfevent_exec s;
	double *plain, *counted, *arm, *collect, values[16];
	double mp, mc;
	size_t open_events = 0, uncounted = 0;

	if (!rounds || perfevent_exec_init(&s, names, nr)) {
		fprintf(stderr, "usage: counters_cost [ROUNDS]\n");
		return 2;
	}
	plain = calloc(rounds, sizeof(*plain));
	counted = calloc(rounds, sizeof(*counted));
	arm = calloc(rounds, sizeof(*arm));
	collect = calloc(rounds, sizeof(*collect));
	if (!plain || !counted || !arm || !collect)
		return 1;
	for (size_t i = 0; i < rounds; i++) {
		struct exec_run r;
		double t0;

		if (exec_run_once(cmd, &eo, &r) || !exec_run_ok(&r))
			return 1;
		plain[i] = r.wall_s;

		t0 = mono_now();
		perfevent_exec_arm(&s);
		arm[i] = mono_now() - t0;
		if (i == 0)
			for (size_t e = 0; e < nr; e++)
				open_events += s.fd[e] >= 0;
		if (exec_run_once(cmd, &eo, &r) || !exec_run_ok(&r))
			return 1;
		counted[i] = r.wall_s;
		t0 = mono_now();
		perfevent_exec_collect(&s, values);
		collect[i] = mono_now() - t0;
		/* task-clock counts wherever perf_event_open works at all */
		uncounted += s.refused[0] == 0 && isnan(values[0]);
	}
	printf("counters_cost: %zu rounds of `true`, %zu of %zu events open\n",
	       rounds, open_events, nr);
	for (size_t e = 0; e < nr; e++)
		if (isnan(values[e]))
			printf("  (%s: %s)\n", names[e], perfevent_why(s.ev[e], s.err[e]));
	printf("  runs whose task-clock was not counted: %zu\n", uncounted);
	report("elapsed, no events", plain, rounds);
	report("elapsed, events armed", counted, rounds);
	mp = plain[rounds / 2];
	mc = counted[rounds / 2];
	printf("  %-34s %+8.1f us (%+.1f%%)\n", "difference of the medians",
	       1e6 * (mc - mp), 100 * (mc - mp) / mp);
	report("arm (not timed)", arm, rounds);
	report("collect (not timed)", collect, rounds);
	perfevent_exec_release(&s);
	free(plain);
	free(counted);
	free(arm);
	free(collect);
	return 0;
}

/*
 * time: the benchmark's own resource use, as GNU time reports it and LKP
 * names it (<testcase>.time.*).  The runner measures the process tree
 * (wait4/RUSAGE_CHILDREN); this monitor only names the numbers.
 */
#include "monitor/monitor_type.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct time_state {
	char *testcase;
};

static int time_open(const struct monitor_ctx *ctx, void **state, struct strbuf *why)
{
	struct time_state *s;

	if (!ctx->testcase || !*ctx->testcase) {
		strbuf_setf(why, "no testcase name to put the stats under");
		return -ENOTSUP;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->testcase = strdup(ctx->testcase);
	if (!s->testcase) {
		free(s);
		return -ENOMEM;
	}
	*state = s;
	return 0;
}

static int time_start(void *state)
{
	(void)state;
	return 0;
}

static double tv_s(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec * 1e-6;
}

static int time_stop(void *state, const struct monitor_end *end,
		     struct statmap *stats, struct strmap *env)
{
	const struct time_state *s = state;
	const struct rusage *ru = end->bench_rusage;
	const char *tc = s->testcase;
	int rc = 0;

	if (end->bench_elapsed_s > 0)
		rc |= statmap_addf(stats, end->bench_elapsed_s,
				   "%s.time.elapsed_time", tc);
	if (!ru)
		/* a benchmark run inside perfbot has no rusage of its own */
		return (rc || strmap_set(env, "monitor.time",
					 "unavailable: no rusage of the benchmark")) ?
			       -ENOMEM : 0;
	rc |= statmap_addf(stats, tv_s(&ru->ru_utime), "%s.time.user_time", tc);
	rc |= statmap_addf(stats, tv_s(&ru->ru_stime), "%s.time.system_time", tc);
	if (end->bench_elapsed_s > 0)
		rc |= statmap_addf(stats,
				   100.0 * (tv_s(&ru->ru_utime) + tv_s(&ru->ru_stime)) /
					   end->bench_elapsed_s,
				   "%s.time.percent_of_cpu_this_job_got", tc);
	/* ru_maxrss is already KiB on Linux, as GNU time prints it */
	rc |= statmap_addf(stats, (double)ru->ru_maxrss,
			   "%s.time.maximum_resident_set_size", tc);
	rc |= statmap_addf(stats, (double)ru->ru_minflt, "%s.time.minor_page_faults", tc);
	rc |= statmap_addf(stats, (double)ru->ru_majflt, "%s.time.major_page_faults", tc);
	rc |= statmap_addf(stats, (double)ru->ru_nvcsw,
			   "%s.time.voluntary_context_switches", tc);
	rc |= statmap_addf(stats, (double)ru->ru_nivcsw,
			   "%s.time.involuntary_context_switches", tc);
	rc |= statmap_addf(stats, (double)ru->ru_inblock, "%s.time.file_system_inputs", tc);
	rc |= statmap_addf(stats, (double)ru->ru_oublock, "%s.time.file_system_outputs", tc);
	return rc ? -ENOMEM : 0;
}

static void time_close(void *state)
{
	struct time_state *s = state;

	free(s->testcase);
	free(s);
}

const struct monitor_type monitor_time = {
	.name = "time",
	.open = time_open,
	.start = time_start,
	.stop = time_stop,
	.close = time_close,
};

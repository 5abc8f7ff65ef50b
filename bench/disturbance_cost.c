/*
 * disturbance_cost.c - what recording a run's disturbance costs perfbot
 * (run/disturbance.h; issue 12, point 0; figures go to bench/RESULTS.md).
 *
 *   disturbance_cost [SECONDS]     (default 10)
 *
 * Prints:
 *   - one start/stop pair without samples (open /proc/stat and
 *     /proc/loadavg, two readings, the sampler thread created and joined),
 *     wall time, mean of 2000;
 *   - one sample (pread of /proc/loadavg and its scan), mean of 100000;
 *   - perfbot's CPU time over a window of SECONDS at the sampling interval
 *     of a long run (1 s) and of a short one (0.1 s), while this thread
 *     sleeps: everything it costs is the sampler's, in CPU-µs per second;
 *   - what the recording reads over that window: others_cpu, runnable,
 *     steal.
 */
#define _GNU_SOURCE
#include "record/record.h"
#include "run/disturbance.h"
#include "util/timeutil.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double self_cpu(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

static void sleep_s(double s)
{
	struct timespec ts = secs_to_timespec(s);

	while (nanosleep(&ts, &ts))
		;
}

static void window(double interval, double secs)
{
	struct run_record rec = { 0 };
	struct disturbance *d;
	double c0 = self_cpu(), c1;
	const double *v;

	d = disturbance_start(NULL, interval);
	sleep_s(secs);
	disturbance_stop(d, &rec);
	c1 = self_cpu();
	statmap_finish(&rec.stats);
	printf("window %.0f s, interval %.1f s: perfbot CPU %.1f us/s (%.4f%% of a CPU)",
	       secs, interval, (c1 - c0) / secs * 1e6, (c1 - c0) / secs * 100);
	v = statmap_get(&rec.stats, STAT_DISTURBANCE_CPU);
	printf("; others_cpu %.3f", v ? *v : -1);
	v = statmap_get(&rec.stats, STAT_DISTURBANCE_RUNNABLE);
	printf(" runnable %.3f", v ? *v : -1);
	v = statmap_get(&rec.stats, STAT_DISTURBANCE_STEAL);
	printf(" steal %.3f\n", v ? *v : -1);
	run_record_release(&rec);
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 10;
	int n = 2000, fd;
	double t0, t1;
	char buf[256];
	unsigned long r, sum = 0;

	if (!(secs > 0)) {
		fprintf(stderr, "usage: disturbance_cost [SECONDS]\n");
		return 2;
	}
	t0 = mono_now();
	for (int i = 0; i < n; i++) {
		struct run_record rec = { 0 };

		disturbance_stop(disturbance_start(NULL, 1000), &rec);
		run_record_release(&rec);
	}
	t1 = mono_now();
	printf("start+stop (no sample): %.1f us\n", (t1 - t0) / n * 1e6);

	fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror("/proc/loadavg");
		return 1;
	}
	n = 100000;
	t0 = mono_now();
	for (int i = 0; i < n; i++) {
		ssize_t k = pread(fd, buf, sizeof(buf) - 1, 0);

		buf[k > 0 ? k : 0] = '\0';
		if (!disturbance_parse_loadavg(buf, &r))
			sum += r;
	}
	t1 = mono_now();
	close(fd);
	printf("one sample (pread + scan of /proc/loadavg): %.2f us (mean running %.2f)\n",
	       (t1 - t0) / n * 1e6, (double)sum / n);

	window(1.0, secs);
	window(0.1, secs);
	return 0;
}

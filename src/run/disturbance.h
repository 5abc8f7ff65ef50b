/*
 * disturbance.h - how disturbed the machine was while one run ran: the
 * three stats of record.h's STAT_DISTURBANCE_*, recorded by the runner
 * for every run (docs/monitors.md, "Disturbance"; docs/design.md §6).
 *
 *   disturbance.others_cpu  (CPUs)  the machine's busy time over the run
 *       (/proc/stat user+nice+system+irq+softirq; guest time is inside
 *       user and nice, steal is apart) minus the CPU time of the
 *       benchmark's processes (getrusage(RUSAGE_CHILDREN): every
 *       benchmark forks its tasks below perfbot and reaps all of them
 *       before run() returns) minus perfbot's own (RUSAGE_SELF: the
 *       runner, the monitor thread, this module's sampler), divided by
 *       the run's wall time, at least 0.
 *   disturbance.runnable    (tasks) the mean, over samples taken while
 *       the benchmark runs, of the runnable tasks (/proc/loadavg's
 *       running count, the kernel's nr_running() -- the number /proc/stat
 *       prints as procs_running, in one short line) minus the sampler
 *       itself, minus the benchmark's and perfbot's average running tasks
 *       (their CPU time / wall time), at least 0.
 *   disturbance.steal       (CPUs)  /proc/stat's steal over the run / wall
 *       time.
 *
 * The window is the whole of the benchmark's run() (fork to reap), not
 * the monitors' measured window: only over it does RUSAGE_CHILDREN hold
 * exactly the benchmark's CPU time.  Accuracy: /proc/stat counts in
 * jiffies (1/USER_HZ, 10 ms) and each field rounds down at both ends,
 * so a run of T s carries about ±0.02 / T CPUs of rounding (a 1 s run:
 * ±0.02); a run shorter than DISTURBANCE_MIN_JIFFIES jiffies (0.2 s)
 * would carry more than a compare can tell from a hog, so it has no
 * others_cpu and no steal.  A run shorter than the sampling interval has
 * no runnable sample and no runnable stat.  Work
 * the kernel charges to no task -- interrupts and softirqs, also those
 * raised for the benchmark (netperf's loopback) -- counts as others'.
 * A benchmark with more runnable tasks than CPUs (hackbench) raises
 * runnable by its own waiting tasks: the same on both sides of a
 * comparison, so compare looks at the difference.
 *
 * What cannot be read is no failure: the stats it feeds are left out and
 * env "disturbance" (or "disturbance.runnable") says "unavailable: why".
 *
 * Ownership: struct disturbance is opaque, from disturbance_start() to
 * disturbance_stop(), which frees it.  Threading: start and stop from the
 * runner's thread; the sampler is an internal thread at SCHED_IDLE (else
 * nice 19) with every signal blocked, so a SIGINT always reaches the
 * thread that waits for the benchmark.
 */
#ifndef PERFBOT_RUN_DISTURBANCE_H
#define PERFBOT_RUN_DISTURBANCE_H

#include "record/record.h"
#include "util/procstat.h"

#include <stdbool.h>

/* Where the machine is read; tests point these elsewhere. */
struct disturbance_paths {
	const char *proc_stat;	/* NULL: /proc/stat */
	const char *loadavg;	/* NULL: /proc/loadavg */
};

/* One instant's readings, at the start and at the end of a run. */
struct disturbance_reading {
	struct cpu_times cpu;	/* the /proc/stat cpu line */
	bool have_cpu;
	double bench_cpu_s;	/* RUSAGE_CHILDREN user + system */
	double self_cpu_s;	/* RUSAGE_SELF user + system */
	double t;		/* CLOCK_MONOTONIC, s */
};

/* The runnable samples taken while the run ran. */
struct disturbance_samples {
	double running_sum;	/* sum of the running counts read */
	unsigned long n;
};

/* The shortest run whose others_cpu and steal are recorded, in jiffies. */
#define DISTURBANCE_MIN_JIFFIES 20

struct disturbance_stats {
	bool have_cpu;		/* others_cpu and steal are set */
	bool too_short;		/* not set: the run was under DISTURBANCE_MIN_JIFFIES */
	bool have_runnable;
	double others_cpu, runnable, steal;
};

/*
 * The arithmetic, pure: from the readings a (start) and b (end), jiffies
 * of clk_tck per second, and the samples.  Nothing is set when no time
 * passed or the clock rate is unknown; others_cpu and steal are not set
 * for a run shorter than DISTURBANCE_MIN_JIFFIES (too_short says so).
 */
void disturbance_compute(const struct disturbance_reading *a,
			 const struct disturbance_reading *b, long clk_tck,
			 const struct disturbance_samples *s,
			 struct disturbance_stats *out);

/* The running count of /proc/loadavg's text ("0.5 0.3 0.1 2/95 123"): 0 or -EPROTO. */
int disturbance_parse_loadavg(const char *text, unsigned long *running);

/*
 * The sampling interval for a run expected to last runtime_s: a tenth of
 * it, between 0.1 s and 1 s.
 */
double disturbance_interval(double runtime_s);

struct disturbance;

/*
 * First readings and the sampler; call just before the benchmark starts.
 * paths may be NULL.  NULL only when out of memory.
 */
struct disturbance *disturbance_start(const struct disturbance_paths *paths,
				      double interval_s);

/*
 * Last readings (just after the benchmark was reaped), the sampler
 * stopped, d freed: the stats into rec->stats with their declarations in
 * rec->meta (unit CPUs or tasks, no direction, not a KPI), what could not
 * be read into rec->env.  0 or -ENOMEM.  d may be NULL (nothing is done).
 */
int disturbance_stop(struct disturbance *d, struct run_record *rec);

#endif

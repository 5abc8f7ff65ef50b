/*
 * monitor.h - system monitors measured beside a benchmark (docs/design.md §6).
 *
 * A monitor set is opened before the benchmark starts (descriptors are
 * opened once and kept: /proc files are re-read with pread at offset 0),
 * started when the benchmark's measurement window opens and stopped when
 * it closes.  Between the two, one low-priority thread (SCHED_IDLE where
 * allowed, else nice 19) samples every monitor that needs samples at the
 * job's interval; counters are reported as their change over the window,
 * gauges as their mean over it.
 *
 * Stat names follow LKP (docs/design.md §6): mpstat.cpu.all.sys%,
 * vmstat.system.cs, proc-vmstat.pgfault, meminfo.MemFree,
 * interrupts.LOC:Local_timer_interrupts, softirqs.SCHED,
 * perf-stat.ps.instructions, <testcase>.time.elapsed_time,
 * dmesg.WARNING:at_kernel/foo.c:#bar ...
 *
 * A monitor that cannot work here (no PMU in a VM, no /dev/kmsg access)
 * is not an error: it is reported in `env` as
 * "monitor.<name>" = "unavailable: <reason>" (per event for perf-stat:
 * "monitor.perf-stat.cycles") and the others go on.
 *
 * Ownership: struct monitor_set is opaque; monitor_set_close() frees it
 * and joins its thread.  Threading: call the monitor_set_* functions from
 * one thread; the sampling thread is internal.  Errors: 0 or a negative
 * errno with a message set in `err`.
 */
#ifndef PERFBOT_MONITOR_MONITOR_H
#define PERFBOT_MONITOR_MONITOR_H

#include "record/record.h"
#include "util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>

struct monitor_ctx {
	double interval_s;	/* sampling interval, > 0 */
	const char *testcase;	/* names <testcase>.time.* */
};

/* Facts only the runner knows when the window closes. */
struct monitor_end {
	const struct rusage *bench_rusage;	/* the benchmark's process tree, or NULL */
	double bench_elapsed_s;			/* the benchmark's wall time */
};

/* The monitors of `category: benchmark` when a job lists none. */
extern const char *const monitor_default_names[];

bool monitor_known(const char *name);
/* The known monitor nearest to `name`, or NULL. */
const char *monitor_suggest(const char *name);

struct monitor_set;

/* names: NULL-terminated; NULL means monitor_default_names. */
int monitor_set_open(const char *const *names, const struct monitor_ctx *ctx,
		     struct monitor_set **out, struct strbuf *err);
/* Open the window: first readings, then the sampling thread. */
int monitor_set_start(struct monitor_set *set, struct strbuf *err);
/*
 * Close the window: last readings, stop the thread, add every stat to
 * `stats` and every unavailable monitor or event to `env`.
 */
int monitor_set_stop(struct monitor_set *set, const struct monitor_end *end,
		     struct statmap *stats, struct strmap *env, struct strbuf *err);
void monitor_set_close(struct monitor_set *set);

#endif

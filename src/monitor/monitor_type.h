/*
 * monitor_type.h - what one monitor implements (internal to src/monitor).
 *
 * Each monitor is one file defining one `const struct monitor_type`,
 * listed in the static table of monitor.c.  The set calls, in order:
 * open (before the window; an -ENOTSUP answer with a reason in `why`
 * makes the monitor "unavailable", any other error fails the set),
 * start (first readings), sample (from the sampling thread, only between
 * start and stop, never concurrently with the other calls), stop (last
 * readings, stats out) and close (frees the state, also after a failed
 * or skipped start).
 *
 * Ownership: the state belongs to the monitor from open to close.
 * Errors: 0 or a negative errno; stop may also write "unavailable"
 * entries to env itself (perf-stat does, per event).
 */
#ifndef PERFBOT_MONITOR_MONITOR_TYPE_H
#define PERFBOT_MONITOR_MONITOR_TYPE_H

#include "monitor/monitor.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct monitor_type {
	const char *name;
	int (*open)(const struct monitor_ctx *ctx, void **state, struct strbuf *why);
	int (*start)(void *state);
	void (*sample)(void *state);	/* NULL: counters only, no samples */
	int (*stop)(void *state, const struct monitor_end *end,
		    struct statmap *stats, struct strmap *env);
	void (*close)(void *state);
};

extern const struct monitor_type monitor_time;
extern const struct monitor_type monitor_proc_stat;
extern const struct monitor_type monitor_vmstat;
extern const struct monitor_type monitor_proc_vmstat;
extern const struct monitor_type monitor_meminfo;
extern const struct monitor_type monitor_interrupts;
extern const struct monitor_type monitor_softirqs;
extern const struct monitor_type monitor_perf_stat;
extern const struct monitor_type monitor_kmsg;

/*
 * A /proc file kept open and re-read whole with pread from offset 0.  The
 * buffer is sized at open and grows only when the file outgrows it, so
 * steady-state sampling allocates nothing.
 */
struct procfile {
	int fd;
	char *buf;
	size_t cap;
	size_t len;
};

/* 0 or a negative errno (the file is then closed). */
int procfile_open(struct procfile *pf, const char *path);
/* Re-read the file into pf->buf (NUL-terminated); 0 or a negative errno. */
int procfile_read(struct procfile *pf);
void procfile_close(struct procfile *pf);

/*
 * A "name value" /proc file (/proc/vmstat, /proc/meminfo) whose names are
 * learnt once at open; each read fills a caller's array of n values in
 * the same order.  A name that appears later is ignored, one that goes
 * keeps its last value.
 */
struct kvfile {
	struct procfile pf;
	size_t n;
	char **names;
};

/* 0, -ENOMEM, or another negative errno (nothing is left open). */
int kvfile_open(struct kvfile *kv, const char *path);
/* 0 or a negative errno (-EPROTO: the text did not parse). */
int kvfile_read(struct kvfile *kv, uint64_t *vals);
void kvfile_close(struct kvfile *kv);

/*
 * A per-CPU table (/proc/interrupts, /proc/softirqs), its rows and CPU
 * columns learnt at open: the shared body of the interrupts and softirqs
 * monitors.  Reports each row's change per CPU and summed.
 */
int irqtable_open(const char *path, const char *prefix, bool softirqs,
		  void **state, struct strbuf *why);
int irqtable_start(void *state);
int irqtable_stop(void *state, const struct monitor_end *end,
		  struct statmap *stats, struct strmap *env);
void irqtable_close(void *state);

#endif

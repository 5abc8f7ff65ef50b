/*
 * parse.h - scanners for the /proc texts and kernel log records the
 * monitors read (internal to src/monitor; exposed for the unit tests).
 *
 * All take NUL-terminated text, allocate nothing and hand each parsed
 * line to a callback, so a monitor can keep its values in arrays sized
 * once at open.  No state.
 */
#ifndef PERFBOT_MONITOR_PARSE_H
#define PERFBOT_MONITOR_PARSE_H

#include "util/procstat.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * "name value" lines (/proc/vmstat) or "Name:   value kB" lines
 * (/proc/meminfo; the unit is ignored, values stay in KiB).  fn gets the
 * line's index among the parsed lines.  Returns the number of lines or
 * -EPROTO at the first malformed line.
 */
typedef void (*mon_kv_fn)(void *arg, size_t idx, const char *name,
			  size_t namelen, uint64_t value);
int mon_parse_kv(const char *text, mon_kv_fn fn, void *arg);

/* What /proc/stat says beyond the per-CPU lines. */
struct mon_stat {
	struct cpu_times cpu;	/* the "cpu " line */
	uint64_t ctxt;		/* context switches since boot */
	uint64_t intr;		/* interrupts since boot (the first intr field) */
	uint64_t procs_running;	/* runnable tasks now, the reader included */
	uint64_t procs_blocked;	/* tasks in uninterruptible I/O wait now */
};

/* 0, or -EPROTO when the cpu line or one of the four fields is missing. */
int mon_parse_stat(const char *text, struct mon_stat *out);

/*
 * The header of /proc/interrupts or /proc/softirqs ("   CPU0   CPU1 ...",
 * only online CPUs are listed).  Stores up to `max` CPU numbers and
 * returns how many columns there are (possibly more than max), or -EPROTO.
 */
int mon_parse_cpu_header(const char *text, unsigned *cpus, size_t max);

/*
 * The rows after that header.  fn gets the row's index, its key named as
 * LKP names it and up to ncpus values (fewer for rows like "ERR:  0"):
 *   " 24:  1  0  IO-APIC  5-edge  ACPI:Ged"  -> "24:IO-APIC.5-edge.ACPI:Ged"
 *   "LOC:  5  6  Local timer interrupts"     -> "LOC:Local_timer_interrupts"
 *   "ERR:  0"                                -> "ERR"
 *   "SCHED:  7  8" (softirqs)                -> "SCHED"
 * keybuf (keylen bytes) and vals (ncpus entries) are the caller's scratch;
 * long keys are truncated; rows of another shape are skipped.  Returns
 * the number of rows (0: none of the expected shape) or -EINVAL.
 */
typedef void (*mon_row_fn)(void *arg, size_t idx, const char *key,
			   const uint64_t *vals, size_t nvals);
int mon_parse_rows(const char *text, size_t ncpus, bool softirqs,
		   uint64_t *vals, char *keybuf, size_t keylen, mon_row_fn fn,
		   void *arg);

/*
 * The message of one /dev/kmsg record ("pri,seq,usec,flags;text\n"
 * followed by " KEY=value" lines); *len gets its length.  NULL when the
 * record is malformed.
 */
const char *mon_kmsg_message(const char *rec, size_t reclen, size_t *len);

/* Whether a kernel log message reports a failure (oops, warning, ...). */
bool mon_kmsg_matches(const char *msg, size_t len);

/*
 * The failure stat's name for a message, without the "dmesg." prefix:
 * numbers and addresses become '#', function offsets (+0x1f/0x30) and
 * "CPU: n PID: n" go, a space becomes '_' between two words and goes
 * elsewhere, and the result stops at ~100 characters:
 * "WARNING: CPU: 1 PID: 123 at kernel/foo.c:42 bar+0x1f/0x30"
 *   -> "WARNING:at_kernel/foo.c:#bar".
 * Returns the length written (out is always NUL-terminated).
 */
size_t mon_kmsg_normalise(const char *msg, size_t len, char *out,
			  size_t outlen);

#endif

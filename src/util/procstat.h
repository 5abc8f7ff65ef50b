/*
 * procstat.h - the machine-wide CPU time line of /proc/stat.
 *
 * Callers keep the descriptor from procstat_open() for the whole
 * measurement and re-read it with procstat_read() (pread at offset 0), so
 * sampling costs one system call and no path lookup.  Stateless otherwise.
 */
#ifndef PERFBOT_UTIL_PROCSTAT_H
#define PERFBOT_UTIL_PROCSTAT_H

#include <stdint.h>

/* Jiffies (USER_HZ) since boot, all CPUs together. */
struct cpu_times {
	uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
};

/* An O_RDONLY|O_CLOEXEC descriptor of /proc/stat, or a negative errno. */
int procstat_open(void);
/* 0, or a negative errno (-EPROTO when the line cannot be parsed). */
int procstat_read(int fd, struct cpu_times *out);
/* Parse the "cpu " line of /proc/stat text; 0 or -EPROTO. */
int procstat_parse(const char *text, struct cpu_times *out);
/* Idle % between two readings (guest time is inside user); -1 if no time passed. */
double cpu_times_idle_pct(const struct cpu_times *a, const struct cpu_times *b);

#endif

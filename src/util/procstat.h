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

/*
 * Jiffies (USER_HZ) since boot, all CPUs together.  guest and guest_nice
 * are already counted inside user and nice (the kernel adds them to both),
 * so totals leave them out.
 */
struct cpu_times {
	uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
	uint64_t guest, guest_nice;
};

/* An O_RDONLY|O_CLOEXEC descriptor of /proc/stat, or a negative errno. */
int procstat_open(void);
/* 0, or a negative errno (-EPROTO when the line cannot be parsed). */
int procstat_read(int fd, struct cpu_times *out);
/* Parse the "cpu " line of /proc/stat text; 0 or -EPROTO. */
int procstat_parse(const char *text, struct cpu_times *out);
/* Idle % between two readings (guest time is inside user); -1 if no time passed. */
double cpu_times_idle_pct(const struct cpu_times *a, const struct cpu_times *b);
/* All jiffies of a reading: user..steal (guest time is inside user and nice). */
uint64_t cpu_times_total(const struct cpu_times *t);

#endif

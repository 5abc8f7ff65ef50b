/*
 * perf-stat: hardware and software event counts over the window through
 * perf_event_open, one counter per event per online CPU, system-wide
 * (pid -1, cpu N).  That counts the whole machine like LKP's
 * `perf stat -a`, not the benchmark's tasks alone: it needs no help from
 * the runner (no inheritance across fork/exec, no pid to race) and is
 * what perfbot can do robustly.  An event this machine cannot count (no
 * PMU in a VM: cycles, instructions; paranoia: EACCES) is reported
 * unavailable in env and the others are still measured.
 */
#include "monitor/monitor_type.h"
#include "util/timeutil.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static const struct perf_event_def {
	const char *name;
	uint32_t type;
	uint64_t config;
} perf_events[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
};

#define NEVENTS (sizeof(perf_events) / sizeof(perf_events[0]))

struct perf_counter {
	int *fds;		/* per CPU slot, -1 where the CPU is offline */
	int err;		/* the reason the event is unavailable, or 0 */
};

struct perf_stat_state {
	size_t ncpus;		/* CPU slots: every configured CPU */
	struct perf_counter ev[NEVENTS];
	double t0;
};

static long perf_open(struct perf_event_attr *attr, int cpu)
{
	return syscall(SYS_perf_event_open, attr, -1, cpu, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

static void close_event(struct perf_stat_state *s, struct perf_counter *c)
{
	for (size_t i = 0; c->fds && i < s->ncpus; i++)
		if (c->fds[i] >= 0)
			close(c->fds[i]);
	free(c->fds);
	c->fds = NULL;
}

static void perf_stat_close(void *state)
{
	struct perf_stat_state *s = state;

	for (size_t e = 0; e < NEVENTS; e++)
		close_event(s, &s->ev[e]);
	free(s);
}

/* 0, or the errno that makes the event unavailable; -ENOMEM */
static int open_event(struct perf_stat_state *s, size_t e)
{
	struct perf_counter *c = &s->ev[e];
	struct perf_event_attr attr;
	size_t opened = 0;

	c->fds = malloc(s->ncpus * sizeof(*c->fds));
	if (!c->fds)
		return -ENOMEM;
	for (size_t i = 0; i < s->ncpus; i++)
		c->fds[i] = -1;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = perf_events[e].type;
	attr.config = perf_events[e].config;
	attr.disabled = 1;
	/* more events than counters get multiplexed: scale by these times */
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	for (size_t i = 0; i < s->ncpus; i++) {
		long fd = perf_open(&attr, (int)i);

		if (fd < 0) {
			if (errno == ENODEV)	/* an offline CPU */
				continue;
			c->err = errno;
			close_event(s, c);
			return 0;
		}
		c->fds[i] = (int)fd;
		opened++;
	}
	if (!opened) {
		c->err = ENODEV;
		close_event(s, c);
	}
	return 0;
}

static const char *why_not(size_t e, int err)
{
	if (err == ENODATA)
		return "never counted (no free counter)";
	if (perf_events[e].type == PERF_TYPE_HARDWARE &&
	    (err == ENOENT || err == EOPNOTSUPP))
		return "no hardware counter for it (no PMU, as in most VMs)";
	if (err == EACCES || err == EPERM)
		return "not permitted (kernel.perf_event_paranoid, CAP_PERFMON)";
	if (err == EMFILE)
		/* one descriptor per event per CPU: 7 x nr_cpus */
		return "too many open files (raise ulimit -n)";
	return strerror(err);
}

static int perf_stat_open(const struct monitor_ctx *ctx, void **state,
			  struct strbuf *why)
{
	struct perf_stat_state *s;
	long n = sysconf(_SC_NPROCESSORS_CONF);
	size_t working = 0;
	int rc = 0;

	(void)ctx;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->ncpus = n > 0 ? (size_t)n : 1;
	for (size_t e = 0; e < NEVENTS; e++) {
		rc = open_event(s, e);
		if (rc)
			goto out;
		working += !s->ev[e].err;
	}
	if (!working) {
		/* a software event's reason: it is not about the PMU */
		strbuf_setf(why, "perf_event_open: %s",
			 why_not(NEVENTS - 1, s->ev[NEVENTS - 1].err));
		rc = -ENOTSUP;
	}
out:
	if (rc) {
		perf_stat_close(s);
		return rc;
	}
	*state = s;
	return 0;
}

static int perf_stat_start(void *state)
{
	struct perf_stat_state *s = state;

	for (size_t e = 0; e < NEVENTS; e++) {
		for (size_t i = 0; !s->ev[e].err && i < s->ncpus; i++) {
			int fd = s->ev[e].fds[i];

			if (fd < 0)
				continue;
			if (ioctl(fd, PERF_EVENT_IOC_RESET, 0) ||
			    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
				s->ev[e].err = errno;
		}
	}
	s->t0 = mono_now();
	return 0;
}

/* The event's count over all CPUs, scaled for multiplexing; -errno. */
static int read_event(struct perf_stat_state *s, size_t e, double *total)
{
	uint64_t running_sum = 0;

	*total = 0;
	for (size_t i = 0; i < s->ncpus; i++) {
		uint64_t v[3];	/* value, time enabled, time running */
		int fd = s->ev[e].fds[i];

		if (fd < 0)
			continue;
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		if (read(fd, v, sizeof(v)) != (ssize_t)sizeof(v))
			return -EIO;
		if (v[2])
			*total += (double)v[0] * ((double)v[1] / (double)v[2]);
		running_sum += v[2];
	}
	/* opened but never scheduled on a counter: not counted at all */
	return running_sum ? 0 : -ENODATA;
}

static int perf_stat_stop(void *state, const struct monitor_end *end,
			  struct statmap *stats, struct strmap *env)
{
	struct perf_stat_state *s = state;
	double dt = mono_now() - s->t0;
	double cycles = -1, instructions = -1;
	int rc = 0;

	(void)end;
	for (size_t e = 0; e < NEVENTS; e++) {
		const char *name = perf_events[e].name;
		double total;
		int err = s->ev[e].err;

		if (!err) {
			int r = read_event(s, e, &total);

			err = r ? -r : 0;
		}
		if (err) {
			struct strbuf key = STRBUF_INIT;

			strbuf_addf(&key, "monitor.perf-stat.%s", name);
			rc |= strbuf_error(&key) ||
			      strmap_setf(env, key.buf, "unavailable: %s", why_not(e, err));
			strbuf_release(&key);
			continue;
		}
		rc |= statmap_addf(stats, total, "perf-stat.total.%s", name);
		if (dt > 0)
			rc |= statmap_addf(stats, total / dt, "perf-stat.ps.%s", name);
		if (!strcmp(name, "cycles"))
			cycles = total;
		else if (!strcmp(name, "instructions"))
			instructions = total;
	}
	if (cycles > 0 && instructions >= 0)
		rc |= statmap_add(stats, "perf-stat.overall.ipc", instructions / cycles);
	return rc ? -ENOMEM : 0;
}

const struct monitor_type monitor_perf_stat = {
	.name = "perf-stat",
	.open = perf_stat_open,
	.start = perf_stat_start,
	.stop = perf_stat_stop,
	.close = perf_stat_close,
};

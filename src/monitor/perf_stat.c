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
#include "util/perfevent.h"
#include "util/timeutil.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* The events it counts, perfbot's names and codes (util/perfevent.h). */
static const enum perfevent_id perf_events[] = {
	PE_CYCLES, PE_INSTRUCTIONS, PE_CACHE_MISSES, PE_BRANCH_MISSES,
	PE_CONTEXT_SWITCHES, PE_CPU_MIGRATIONS, PE_PAGE_FAULTS,
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

static const struct perfevent *event(size_t e)
{
	return &perfevent_table[perf_events[e]];
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
	size_t opened = 0;

	c->fds = malloc(s->ncpus * sizeof(*c->fds));
	if (!c->fds)
		return -ENOMEM;
	for (size_t i = 0; i < s->ncpus; i++)
		c->fds[i] = -1;
	for (size_t i = 0; i < s->ncpus; i++) {
		int fd = perfevent_open_cpu(event(e), (int)i);

		if (fd < 0) {
			if (fd == -ENODEV)	/* an offline CPU */
				continue;
			c->err = -fd;
			close_event(s, c);
			return 0;
		}
		c->fds[i] = fd;
		opened++;
	}
	if (!opened) {
		c->err = ENODEV;
		close_event(s, c);
	}
	return 0;
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
			 perfevent_why(event(NEVENTS - 1), s->ev[NEVENTS - 1].err));
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
		struct perfevent_count c;
		int fd = s->ev[e].fds[i];

		if (fd < 0)
			continue;
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		if (perfevent_read(fd, &c))
			return -EIO;
		*total += perfevent_scaled(&c);
		running_sum += c.running;
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
		const char *name = event(e)->name;
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
			      strmap_setf(env, key.buf, "unavailable: %s", perfevent_why(event(e), err));
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

/*
 * proc-stat: where all CPUs' time went over the window, as mpstat's
 * "all" line and LKP's mpstat.cpu.all.*% name it.  Two readings of the
 * /proc/stat cpu line (start, stop) through one kept-open descriptor.
 */
#include "monitor/monitor_type.h"
#include "util/procstat.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct proc_stat_state {
	int fd;
	struct cpu_times first;
};

static int proc_stat_open(const struct monitor_ctx *ctx, void **state,
			  struct strbuf *why)
{
	struct proc_stat_state *s;
	struct cpu_times t;
	int rc;

	(void)ctx;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->fd = procstat_open();
	if (s->fd < 0) {
		rc = s->fd;
		strbuf_setf(why, "/proc/stat: %s", strerror(-rc));
		goto fail;
	}
	rc = procstat_read(s->fd, &t);
	if (rc) {
		strbuf_setf(why, "/proc/stat: %s", strerror(-rc));
		goto fail;
	}
	*state = s;
	return 0;
fail:
	if (s->fd >= 0)
		close(s->fd);
	free(s);
	return rc == -ENOMEM ? rc : -ENOTSUP;
}

static int proc_stat_start(void *state)
{
	struct proc_stat_state *s = state;

	return procstat_read(s->fd, &s->first);
}

/* b - a, 0 when a counter went backwards (it never should) */
static double delta(uint64_t a, uint64_t b)
{
	return b > a ? (double)(b - a) : 0.0;
}

static int proc_stat_stop(void *state, const struct monitor_end *end,
			  struct statmap *stats, struct strmap *env)
{
	struct proc_stat_state *s = state;
	const struct cpu_times *a = &s->first;
	struct cpu_times b;
	double tot, guest, gnice;
	int rc;

	(void)end;
	rc = procstat_read(s->fd, &b);
	if (rc)
		return rc;
	tot = delta(cpu_times_total(a), cpu_times_total(&b));
	if (tot <= 0)
		return strmap_set(env, "monitor.proc-stat",
				  "unavailable: window shorter than a clock tick") ?
			       -ENOMEM : 0;
	/* mpstat shows guest time apart from the user/nice that hold it */
	guest = delta(a->guest, b.guest);
	gnice = delta(a->guest_nice, b.guest_nice);
	rc = 0;
	rc |= statmap_add(stats, "mpstat.cpu.all.usr%",
			  100 * (delta(a->user, b.user) > guest ?
				 delta(a->user, b.user) - guest : 0) / tot);
	rc |= statmap_add(stats, "mpstat.cpu.all.nice%",
			  100 * (delta(a->nice, b.nice) > gnice ?
				 delta(a->nice, b.nice) - gnice : 0) / tot);
	rc |= statmap_add(stats, "mpstat.cpu.all.sys%",
			  100 * delta(a->system, b.system) / tot);
	rc |= statmap_add(stats, "mpstat.cpu.all.iowait%",
			  100 * delta(a->iowait, b.iowait) / tot);
	rc |= statmap_add(stats, "mpstat.cpu.all.irq%", 100 * delta(a->irq, b.irq) / tot);
	rc |= statmap_add(stats, "mpstat.cpu.all.soft%",
			  100 * delta(a->softirq, b.softirq) / tot);
	rc |= statmap_add(stats, "mpstat.cpu.all.steal%",
			  100 * delta(a->steal, b.steal) / tot);
	rc |= statmap_add(stats, "mpstat.cpu.all.guest%", 100 * guest / tot);
	rc |= statmap_add(stats, "mpstat.cpu.all.gnice%", 100 * gnice / tot);
	rc |= statmap_add(stats, "mpstat.cpu.all.idle%",
			  100 * delta(a->idle, b.idle) / tot);
	return rc ? -ENOMEM : 0;
}

static void proc_stat_close(void *state)
{
	struct proc_stat_state *s = state;

	close(s->fd);
	free(s);
}

const struct monitor_type monitor_proc_stat = {
	.name = "proc-stat",
	.open = proc_stat_open,
	.start = proc_stat_start,
	.stop = proc_stat_stop,
	.close = proc_stat_close,
};

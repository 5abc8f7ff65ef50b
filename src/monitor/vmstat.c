/*
 * vmstat: the columns of `vmstat` that are about the whole window, as LKP
 * names them: vmstat.system.{cs,in} (per second), vmstat.procs.{r,b}
 * (means of the samples) and vmstat.cpu.{us,sy,id,wa,st} (% of CPU time).
 * All from /proc/stat, kept open.
 */
#include "monitor/monitor_type.h"
#include "util/timeutil.h"
#include "monitor/parse.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct vmstat_state {
	struct procfile pf;
	struct mon_stat first;
	double t0;
	double r_sum, b_sum;
	unsigned long nsamples;
};

static int vmstat_open(const struct monitor_ctx *ctx, void **state, struct strbuf *why)
{
	struct vmstat_state *s;
	struct mon_stat st;
	int rc;

	(void)ctx;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	rc = procfile_open(&s->pf, "/proc/stat");
	if (!rc && mon_parse_stat(s->pf.buf, &st))
		rc = -EPROTO;
	if (rc) {
		strbuf_setf(why, "/proc/stat: %s", strerror(-rc));
		procfile_close(&s->pf);
		free(s);
		return rc == -ENOMEM ? rc : -ENOTSUP;
	}
	*state = s;
	return 0;
}

static int take(struct vmstat_state *s, struct mon_stat *st)
{
	int rc = procfile_read(&s->pf);

	if (rc)
		return rc;
	if (mon_parse_stat(s->pf.buf, st))
		return -EPROTO;
	/* procs_running counts the task reading the file: not the load */
	s->r_sum += st->procs_running ? (double)(st->procs_running - 1) : 0;
	s->b_sum += (double)st->procs_blocked;
	s->nsamples++;
	return 0;
}

static int vmstat_start(void *state)
{
	struct vmstat_state *s = state;

	s->r_sum = s->b_sum = 0;
	s->nsamples = 0;
	s->t0 = mono_now();
	return take(s, &s->first);
}

static void vmstat_sample(void *state)
{
	struct mon_stat st;

	take(state, &st);
}

static double delta(uint64_t a, uint64_t b)
{
	return b > a ? (double)(b - a) : 0.0;
}

static int vmstat_stop(void *state, const struct monitor_end *end,
		       struct statmap *stats, struct strmap *env)
{
	struct vmstat_state *s = state;
	const struct mon_stat *a = &s->first;
	struct mon_stat b;
	double dt, tot;
	int rc;

	(void)end;
	(void)env;
	rc = take(s, &b);
	if (rc)
		return rc;
	dt = mono_now() - s->t0;
	rc = 0;
	if (dt > 0) {
		rc |= statmap_add(stats, "vmstat.system.cs", delta(a->ctxt, b.ctxt) / dt);
		rc |= statmap_add(stats, "vmstat.system.in", delta(a->intr, b.intr) / dt);
	}
	rc |= statmap_add(stats, "vmstat.procs.r", s->r_sum / (double)s->nsamples);
	rc |= statmap_add(stats, "vmstat.procs.b", s->b_sum / (double)s->nsamples);
	tot = delta(cpu_times_total(&a->cpu), cpu_times_total(&b.cpu));
	if (tot > 0) {
		/* vmstat's grouping: nice is user time, irq and softirq are system */
		rc |= statmap_add(stats, "vmstat.cpu.us",
				  100 * (delta(a->cpu.user, b.cpu.user) +
					 delta(a->cpu.nice, b.cpu.nice)) / tot);
		rc |= statmap_add(stats, "vmstat.cpu.sy",
				  100 * (delta(a->cpu.system, b.cpu.system) +
					 delta(a->cpu.irq, b.cpu.irq) +
					 delta(a->cpu.softirq, b.cpu.softirq)) / tot);
		rc |= statmap_add(stats, "vmstat.cpu.id",
				  100 * delta(a->cpu.idle, b.cpu.idle) / tot);
		rc |= statmap_add(stats, "vmstat.cpu.wa",
				  100 * delta(a->cpu.iowait, b.cpu.iowait) / tot);
		rc |= statmap_add(stats, "vmstat.cpu.st",
				  100 * delta(a->cpu.steal, b.cpu.steal) / tot);
	}
	return rc ? -ENOMEM : 0;
}

static void vmstat_close(void *state)
{
	struct vmstat_state *s = state;

	procfile_close(&s->pf);
	free(s);
}

const struct monitor_type monitor_vmstat = {
	.name = "vmstat",
	.open = vmstat_open,
	.start = vmstat_start,
	.sample = vmstat_sample,
	.stop = vmstat_stop,
	.close = vmstat_close,
};

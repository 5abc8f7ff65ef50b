/*
 * proc-vmstat: every /proc/vmstat line as proc-vmstat.<name>.  Event
 * counters (pgfault, pgalloc_normal, numa_hit, ...) are their change over
 * the window; the nr_* page counts are gauges, so they are the mean of
 * the samples, as LKP reports them — except the few nr_* that only ever
 * grow (nr_dirtied, nr_written, ...), which are counters.
 */
#include "monitor/monitor_type.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct proc_vmstat_state {
	struct kvfile kv;
	uint64_t *first, *cur;
	double *sum;
	bool *gauge;
	unsigned long nsamples;
};

static bool is_gauge(const char *name)
{
	static const char *const growing[] = {
		"nr_dirtied", "nr_written", "nr_foll_pin_acquired",
		"nr_foll_pin_released", "nr_tlb_", "nr_unstable",
	};

	if (strncmp(name, "nr_", 3))
		return false;
	for (size_t i = 0; i < sizeof(growing) / sizeof(growing[0]); i++)
		if (!strncmp(name, growing[i], strlen(growing[i])))
			return false;
	return true;
}

static void proc_vmstat_close(void *state)
{
	struct proc_vmstat_state *s = state;

	kvfile_close(&s->kv);
	free(s->first);
	free(s->cur);
	free(s->sum);
	free(s->gauge);
	free(s);
}

static int proc_vmstat_open(const struct monitor_ctx *ctx, void **state,
			    struct strbuf *why)
{
	struct proc_vmstat_state *s;
	int rc;

	(void)ctx;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	rc = kvfile_open(&s->kv, "/proc/vmstat");
	if (rc) {
		strbuf_setf(why, "/proc/vmstat: %s", strerror(-rc));
		free(s);
		return rc == -ENOMEM ? rc : -ENOTSUP;
	}
	s->first = calloc(s->kv.n, sizeof(*s->first));
	s->cur = calloc(s->kv.n, sizeof(*s->cur));
	s->sum = calloc(s->kv.n, sizeof(*s->sum));
	s->gauge = calloc(s->kv.n, sizeof(*s->gauge));
	if (!s->first || !s->cur || !s->sum || !s->gauge) {
		proc_vmstat_close(s);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->kv.n; i++)
		s->gauge[i] = is_gauge(s->kv.names[i]);
	*state = s;
	return 0;
}

static int take(struct proc_vmstat_state *s, uint64_t *vals)
{
	int rc = kvfile_read(&s->kv, vals);

	if (rc)
		return rc;
	for (size_t i = 0; i < s->kv.n; i++)
		if (s->gauge[i])
			s->sum[i] += (double)vals[i];
	s->nsamples++;
	return 0;
}

static int proc_vmstat_start(void *state)
{
	struct proc_vmstat_state *s = state;

	memset(s->sum, 0, s->kv.n * sizeof(*s->sum));
	s->nsamples = 0;
	return take(s, s->first);
}

static void proc_vmstat_sample(void *state)
{
	struct proc_vmstat_state *s = state;

	take(s, s->cur);
}

static int proc_vmstat_stop(void *state, const struct monitor_end *end,
			    struct statmap *stats, struct strmap *env)
{
	struct proc_vmstat_state *s = state;
	int rc;

	(void)end;
	(void)env;
	rc = take(s, s->cur);
	if (rc)
		return rc;
	for (size_t i = 0; i < s->kv.n; i++) {
		double v;

		if (s->gauge[i])
			v = s->sum[i] / (double)s->nsamples;
		else
			v = s->cur[i] > s->first[i] ? (double)(s->cur[i] - s->first[i]) : 0;
		if (statmap_addf(stats, v, "proc-vmstat.%s", s->kv.names[i]))
			return -ENOMEM;
	}
	return 0;
}

const struct monitor_type monitor_proc_vmstat = {
	.name = "proc-vmstat",
	.open = proc_vmstat_open,
	.start = proc_vmstat_start,
	.sample = proc_vmstat_sample,
	.stop = proc_vmstat_stop,
	.close = proc_vmstat_close,
};

/*
 * meminfo: every /proc/meminfo line as meminfo.<name>, the mean of the
 * samples (start, every tick, stop).  Sizes stay in KiB as the file gives
 * them; the HugePages_* counts are plain numbers.
 */
#include "monitor/monitor_type.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct meminfo_state {
	struct kvfile kv;
	uint64_t *cur;
	double *sum;
	unsigned long nsamples;
};

static void meminfo_close(void *state)
{
	struct meminfo_state *s = state;

	kvfile_close(&s->kv);
	free(s->cur);
	free(s->sum);
	free(s);
}

static int meminfo_open(const struct monitor_ctx *ctx, void **state, struct strbuf *why)
{
	struct meminfo_state *s;
	int rc;

	(void)ctx;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	rc = kvfile_open(&s->kv, "/proc/meminfo");
	if (rc) {
		strbuf_setf(why, "/proc/meminfo: %s", strerror(-rc));
		free(s);
		return rc == -ENOMEM ? rc : -ENOTSUP;
	}
	s->cur = calloc(s->kv.n, sizeof(*s->cur));
	s->sum = calloc(s->kv.n, sizeof(*s->sum));
	if (!s->cur || !s->sum) {
		meminfo_close(s);
		return -ENOMEM;
	}
	*state = s;
	return 0;
}

static int take(struct meminfo_state *s)
{
	int rc = kvfile_read(&s->kv, s->cur);

	if (rc)
		return rc;
	for (size_t i = 0; i < s->kv.n; i++)
		s->sum[i] += (double)s->cur[i];
	s->nsamples++;
	return 0;
}

static int meminfo_start(void *state)
{
	struct meminfo_state *s = state;

	memset(s->sum, 0, s->kv.n * sizeof(*s->sum));
	s->nsamples = 0;
	return take(s);
}

static void meminfo_sample(void *state)
{
	take(state);
}

static int meminfo_stop(void *state, const struct monitor_end *end,
			struct statmap *stats, struct strmap *env)
{
	struct meminfo_state *s = state;
	int rc;

	(void)end;
	(void)env;
	rc = take(s);
	if (rc)
		return rc;
	for (size_t i = 0; i < s->kv.n; i++)
		if (statmap_addf(stats, s->sum[i] / (double)s->nsamples,
				 "meminfo.%s", s->kv.names[i]))
			return -ENOMEM;
	return 0;
}

const struct monitor_type monitor_meminfo = {
	.name = "meminfo",
	.open = meminfo_open,
	.start = meminfo_start,
	.sample = meminfo_sample,
	.stop = meminfo_stop,
	.close = meminfo_close,
};

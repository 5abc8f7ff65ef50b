/*
 * The per-CPU tables /proc/interrupts and /proc/softirqs: rows and CPU
 * columns learnt once at open, values read into arrays sized then, so
 * the thousands of entries of a big machine cost no allocation per read.
 */
#include "monitor/monitor_type.h"
#include "monitor/parse.h"
#include "util/bug.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct irqtable {
	struct procfile pf;
	const char *prefix;
	bool softirqs;
	size_t ncpus, nrows;
	unsigned *cpus, *hdr;	/* CPU numbers at open / of the last read */
	char **keys;
	size_t *nvals;		/* values of each row (ERR: has one) */
	uint64_t *first, *last;	/* nrows * ncpus */
	uint64_t *scratch;	/* ncpus */
	char *keybuf;		/* keylen bytes, sized at open */
	size_t keylen;
	int err;
	uint64_t *target;
};

static void collect_row(void *arg, size_t idx, const char *key,
			const uint64_t *vals, size_t nvals)
{
	struct irqtable *t = arg;

	(void)vals;
	if (t->err)
		return;
	/* the text counted at open, read again: its rows are the same */
	BUG_ON(idx >= t->nrows);
	t->keys[idx] = strdup(key);
	t->nvals[idx] = nvals;
	if (!t->keys[idx])
		t->err = -ENOMEM;
}

static void count_row(void *arg, size_t idx, const char *key,
		      const uint64_t *vals, size_t nvals)
{
	(void)arg, (void)idx, (void)key, (void)vals, (void)nvals;
}

static void store_row(void *arg, size_t idx, const char *key,
		      const uint64_t *vals, size_t nvals)
{
	struct irqtable *t = arg;
	size_t row = idx;

	/* rows keep their order unless a driver came or went meanwhile */
	if (row >= t->nrows || strcmp(t->keys[row], key)) {
		for (row = 0; row < t->nrows; row++)
			if (!strcmp(t->keys[row], key))
				break;
		if (row == t->nrows)
			return;
	}
	if (nvals > t->ncpus)
		nvals = t->ncpus;
	memcpy(&t->target[row * t->ncpus], vals, nvals * sizeof(*vals));
}

void irqtable_close(void *state)
{
	struct irqtable *t = state;

	procfile_close(&t->pf);
	for (size_t i = 0; i < t->nrows && t->keys; i++)
		free(t->keys[i]);
	free(t->keys);
	free(t->nvals);
	free(t->cpus);
	free(t->hdr);
	free(t->first);
	free(t->last);
	free(t->scratch);
	free(t->keybuf);
	free(t);
}

/* The longest line of text, in bytes without its newline. */
static size_t longest_line(const char *text)
{
	size_t max = 0;

	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");

		if (n > max)
			max = n;
		p += n + (p[n] == '\n');
	}
	return max;
}

int irqtable_open(const char *path, const char *prefix, bool softirqs,
		  void **state, struct strbuf *why)
{
	struct irqtable *t;
	int rc, n;

	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->prefix = prefix;
	t->softirqs = softirqs;
	rc = procfile_open(&t->pf, path);
	if (rc) {
		strbuf_setf(why, "%s: %s", path, strerror(-rc));
		free(t);
		return rc == -ENOMEM ? rc : -ENOTSUP;
	}
	n = mon_parse_cpu_header(t->pf.buf, NULL, 0);
	if (n <= 0)
		goto bad;
	t->ncpus = (size_t)n;
	/*
	 * A row's key is never longer than its line, so none learnt here is
	 * cut, and each is shorter than keylen - 1: a key that a later read
	 * cuts (a driver that came with a longer name) is keylen - 1 bytes
	 * long and can be taken for no learnt row.
	 */
	t->keylen = longest_line(t->pf.buf) + 2;
	t->keybuf = malloc(t->keylen);
	t->cpus = calloc(t->ncpus, sizeof(*t->cpus));
	t->hdr = calloc(t->ncpus, sizeof(*t->hdr));
	t->scratch = calloc(t->ncpus, sizeof(*t->scratch));
	if (!t->keybuf || !t->cpus || !t->hdr || !t->scratch)
		goto nomem;
	mon_parse_cpu_header(t->pf.buf, t->cpus, t->ncpus);
	n = mon_parse_rows(t->pf.buf, t->ncpus, softirqs, t->scratch, t->keybuf,
			   t->keylen, count_row, NULL);
	if (n <= 0)
		goto bad;
	t->nrows = (size_t)n;
	t->keys = calloc(t->nrows, sizeof(*t->keys));
	t->nvals = calloc(t->nrows, sizeof(*t->nvals));
	t->first = calloc(t->nrows * t->ncpus, sizeof(*t->first));
	t->last = calloc(t->nrows * t->ncpus, sizeof(*t->last));
	if (!t->keys || !t->nvals || !t->first || !t->last)
		goto nomem;
	mon_parse_rows(t->pf.buf, t->ncpus, softirqs, t->scratch, t->keybuf,
		       t->keylen, collect_row, t);
	if (t->err)
		goto nomem;
	*state = t;
	return 0;
bad:
	strbuf_setf(why, "%s: unexpected format", path);
	irqtable_close(t);
	return -ENOTSUP;
nomem:
	irqtable_close(t);
	return -ENOMEM;
}

static int take(struct irqtable *t, uint64_t *into)
{
	int rc = procfile_read(&t->pf);

	if (rc)
		return rc;
	/* a CPU that went on- or offline shifts every column: no result */
	if (mon_parse_cpu_header(t->pf.buf, t->hdr, t->ncpus) != (int)t->ncpus ||
	    memcmp(t->hdr, t->cpus, t->ncpus * sizeof(*t->cpus)))
		return -ESTALE;
	t->target = into;
	if (mon_parse_rows(t->pf.buf, t->ncpus, t->softirqs, t->scratch,
			   t->keybuf, t->keylen, store_row, t) < 0)
		return -EPROTO;
	return 0;
}

int irqtable_start(void *state)
{
	struct irqtable *t = state;

	memset(t->first, 0, t->nrows * t->ncpus * sizeof(*t->first));
	return take(t, t->first);
}

int irqtable_stop(void *state, const struct monitor_end *end,
		  struct statmap *stats, struct strmap *env)
{
	struct irqtable *t = state;
	int rc;

	(void)end;
	(void)env;
	memset(t->last, 0, t->nrows * t->ncpus * sizeof(*t->last));
	rc = take(t, t->last);
	if (rc)
		return rc;
	for (size_t r = 0; r < t->nrows; r++) {
		const uint64_t *a = &t->first[r * t->ncpus];
		const uint64_t *b = &t->last[r * t->ncpus];
		double sum = 0;

		for (size_t c = 0; c < t->nvals[r]; c++) {
			double d = b[c] > a[c] ? (double)(b[c] - a[c]) : 0;

			sum += d;
			/* LKP lists one-value rows (ERR:, MIS:) only summed */
			if (t->nvals[r] == t->ncpus &&
			    statmap_addf(stats, d, "%s.CPU%u.%s", t->prefix,
					 t->cpus[c], t->keys[r]))
				return -ENOMEM;
		}
		if (statmap_addf(stats, sum, "%s.%s", t->prefix, t->keys[r]))
			return -ENOMEM;
	}
	return 0;
}

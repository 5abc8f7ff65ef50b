#define _GNU_SOURCE
#include "record/record.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int grow(void **v, size_t *cap, size_t n, size_t size)
{
	size_t ncap;
	void *nv;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 16;
	nv = realloc(*v, ncap * size);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = ncap;
	return 0;
}

int record_set_str(char **field, const char *value)
{
	char *copy = NULL;

	if (value && !(copy = strdup(value)))
		return -ENOMEM;
	free(*field);
	*field = copy;
	return 0;
}

int strmap_set(struct strmap *m, const char *key, const char *value)
{
	struct strmap_entry *e;

	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->v[i].key, key))
			return record_set_str(&m->v[i].value, value);
	if (grow((void **)&m->v, &m->cap, m->n, sizeof(*m->v)))
		return -ENOMEM;
	e = &m->v[m->n];
	e->key = strdup(key);
	e->value = strdup(value);
	if (!e->key || !e->value) {
		free(e->key);
		free(e->value);
		return -ENOMEM;
	}
	m->n++;
	return 0;
}

int strmap_setf(struct strmap *m, const char *key, const char *fmt, ...)
{
	va_list ap;
	char *value;
	int err;

	va_start(ap, fmt);
	err = vasprintf(&value, fmt, ap);
	va_end(ap);
	if (err < 0)
		return -ENOMEM;
	err = strmap_set(m, key, value);
	free(value);
	return err;
}

const char *strmap_get(const struct strmap *m, const char *key)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->v[i].key, key))
			return m->v[i].value;
	return NULL;
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct strmap_entry *)a)->key,
		      ((const struct strmap_entry *)b)->key);
}

void strmap_sort(struct strmap *m)
{
	if (m->n)
		qsort(m->v, m->n, sizeof(*m->v), cmp_entry);
}

void strmap_release(struct strmap *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].key);
		free(m->v[i].value);
	}
	free(m->v);
	memset(m, 0, sizeof(*m));
}

int statmap_add(struct statmap *m, const char *name, double value)
{
	char *copy;

	if (grow((void **)&m->v, &m->cap, m->n, sizeof(*m->v)))
		return -ENOMEM;
	copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	m->v[m->n].name = copy;
	m->v[m->n].value = value;
	m->n++;
	m->sorted = 0;
	return 0;
}

int statmap_addf(struct statmap *m, double value, const char *fmt, ...)
{
	va_list ap;
	char *name;
	int err;

	va_start(ap, fmt);
	err = vasprintf(&name, fmt, ap);
	va_end(ap);
	if (err < 0)
		return -ENOMEM;
	err = statmap_add(m, name, value);
	free(name);
	return err;
}

/* By name, then by insertion order (index), so "last added wins" holds. */
struct ranked {
	struct stat_value sv;
	size_t order;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	int c = strcmp(x->sv.name, y->sv.name);

	if (c)
		return c;
	return (x->order > y->order) - (x->order < y->order);
}

void statmap_finish(struct statmap *m)
{
	struct ranked *r;
	size_t out = 0;

	if (m->sorted || !m->n) {
		m->sorted = 1;
		return;
	}
	r = malloc(m->n * sizeof(*r));
	if (!r)
		return;	/* stays unsorted: statmap_get() falls back to a scan */
	for (size_t i = 0; i < m->n; i++) {
		r[i].sv = m->v[i];
		r[i].order = i;
	}
	qsort(r, m->n, sizeof(*r), cmp_ranked);
	for (size_t i = 0; i < m->n; i++) {
		if (i + 1 < m->n && !strcmp(r[i].sv.name, r[i + 1].sv.name)) {
			free(r[i].sv.name);	/* a later value replaces it */
			continue;
		}
		m->v[out++] = r[i].sv;
	}
	m->n = out;
	m->sorted = 1;
	free(r);
}

const double *statmap_get(const struct statmap *m, const char *name)
{
	size_t lo = 0, hi = m->n;

	if (!m->sorted) {
		for (size_t i = m->n; i-- > 0;)
			if (!strcmp(m->v[i].name, name))
				return &m->v[i].value;
		return NULL;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(m->v[mid].name, name);

		if (!c)
			return &m->v[mid].value;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void statmap_release(struct statmap *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].name);
	free(m->v);
	memset(m, 0, sizeof(*m));
}

const char *run_status_name(enum run_status status)
{
	switch (status) {
	case RUN_COMPLETE:
		return "complete";
	case RUN_FAILED:
		return "failed";
	case RUN_INCOMPLETE:
		return "incomplete";
	}
	return "?";
}

void run_record_release(struct run_record *r)
{
	free(r->testbox);
	free(r->testcase);
	free(r->job);
	free(r->commit);
	free(r->job_text);
	strmap_release(&r->params);
	strmap_release(&r->env);
	statmap_release(&r->stats);
	memset(r, 0, sizeof(*r));
}

const char *run_record_kpi(const struct run_record *r)
{
	static const char *const kpis[] = {
		"will-it-scale.per_thread_ops", "will-it-scale.per_process_ops",
		"hackbench.throughput", "netperf.Throughput_Mbps",
		"netperf.Throughput_tps", NULL,
	};
	const char *kpi = strmap_get(&r->env, "kpi");

	if (kpi && statmap_get(&r->stats, kpi))
		return kpi;
	for (const char *const *k = kpis; *k; k++)
		if (statmap_get(&r->stats, *k))
			return *k;
	for (size_t i = 0; i < r->stats.n; i++) {
		const char *name = r->stats.v[i].name;
		size_t tl = r->testcase ? strlen(r->testcase) : 0;

		if (tl && !strncmp(name, r->testcase, tl) &&
		    !strcmp(name + tl, ".time.elapsed_time"))
			return name;
	}
	return NULL;
}

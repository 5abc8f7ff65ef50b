#define _GNU_SOURCE
#include "record/record.h"
#include "util/vec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int grow(void **v, size_t *cap, size_t n, size_t size)
{
	return vec_reserve_(v, cap, n + 1, size);
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
	case RUN_UNSUPPORTED:
		return "unsupported";
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
	stat_meta_release(&r->meta);
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
	for (size_t i = 0; i < r->meta.n; i++)
		if (r->meta.v[i].kpi && statmap_get(&r->stats, r->meta.v[i].name))
			return r->meta.v[i].name;
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

int stat_meta_set(struct stat_meta_list *l, const char *name,
		  const char *unit, int better, bool kpi)
{
	struct stat_meta *m = NULL;
	char *n2, *u2;

	for (size_t i = 0; i < l->n && !m; i++)
		if (!strcmp(l->v[i].name, name))
			m = &l->v[i];
	n2 = strdup(name);
	u2 = strdup(unit ? unit : "");
	if (!n2 || !u2 || (!m && grow((void **)&l->v, &l->cap, l->n, sizeof(*l->v)))) {
		free(n2);
		free(u2);
		return -ENOMEM;
	}
	if (m) {
		free(m->name);
		free(m->unit);
	} else {
		m = &l->v[l->n++];
	}
	*m = (struct stat_meta){ .name = n2, .unit = u2, .better = better,
				 .kpi = kpi };
	return 0;
}

const struct stat_meta *stat_meta_find(const struct stat_meta_list *l,
				       const char *name)
{
	for (size_t i = 0; l && i < l->n; i++)
		if (!strcmp(l->v[i].name, name))
			return &l->v[i];
	return NULL;
}

void stat_meta_release(struct stat_meta_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].name);
		free(l->v[i].unit);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static bool has_prefix(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

bool stat_is_failure(const char *name)
{
	return has_prefix(name, "dmesg.") || has_prefix(name, "last_state.") ||
	       has_suffix(name, ".exit_fail");
}

bool stat_is_pct(const char *name)
{
	size_t n = strlen(name);

	return n && name[n - 1] == '%';
}

/*
 * Does `word` stand in name as a word of its own: between the start or
 * end and one of . _ - : / % or a blank, in any case?  "time" is a word
 * of "will-it-scale.time.elapsed_time" but not of
 * "interrupts.LOC:Local_timer_interrupts" nor of "uptime.idle".
 */
static bool has_word(const char *name, const char *word)
{
	static const char seps[] = "._-:/% ";
	size_t wl = strlen(word);

	for (const char *p = name; *p; ) {
		size_t n = strcspn(p, seps);

		if (n == wl && !strncasecmp(p, word, wl))
			return true;
		p += n;
		if (*p)
			p++;
	}
	return false;
}

int stat_rule_better(const char *name)
{
	if (stat_is_failure(name))
		return STAT_BETTER_LOWER;
	if (has_suffix(name, "_ops") || strstr(name, "throughput") ||
	    strstr(name, "Throughput") || strstr(name, "workload"))
		return STAT_BETTER_HIGHER;
	if (has_word(name, "time") || has_word(name, "elapsed") ||
	    has_word(name, "latency"))
		return STAT_BETTER_LOWER;
	return STAT_BETTER_NONE;
}

int stat_better(const struct stat_meta_list *l, const char *name)
{
	const struct stat_meta *m = stat_meta_find(l, name);

	return m ? m->better : stat_rule_better(name);
}

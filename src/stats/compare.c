/*
 * compare.c - what changed between commits, stat by stat (docs/design.md §7).
 *
 * The tests themselves live in ttest.c, mannwhitney.c, fisher.c, bh.c and
 * verdict.c; this file only decides which stats meet, which family each
 * belongs to, and feeds them through.
 */
#include "stats/compare.h"
#include "stats/bh.h"
#include "stats/fisher.h"
#include "stats/mannwhitney.h"
#include "stats/ttest.h"
#include "util/bug.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void compare_opts_init(struct compare_opts *o)
{
	*o = (struct compare_opts){
		.alpha = COMPARE_ALPHA,
		.q = COMPARE_Q,
		.kpi_min_pct = COMPARE_KPI_MIN_PCT,
		.other_min_pct = COMPARE_OTHER_MIN_PCT,
		.level = COMPARE_LEVEL,
		.kpis = NULL,
		.rules = NULL,
		.nr_rules = 0,
	};
}

unsigned compare_runs_missing(const struct sample_set *set)
{
	return set->nr_runs >= COMPARE_MIN_RUNS ?
		       0 : COMPARE_MIN_RUNS - (unsigned)set->nr_runs;
}

static bool named_kpi(const char *name, const struct compare_opts *o)
{
	for (const char *const *k = o->kpis; k && *k; k++)
		if (!strcmp(*k, name))
			return true;
	return false;
}

/*
 * The sets' declarations sorted by name, so that each of thousands of
 * rows finds its own by bisection (a list is in the benchmark's order,
 * and may be long): v holds set 0's n[0] entries sorted, then set 1's...
 */
struct meta_index {
	const struct stat_meta **v;
	size_t *n;
	size_t nsets;
};

static int cmp_meta(const void *a, const void *b)
{
	const struct stat_meta *x = *(const struct stat_meta *const *)a;
	const struct stat_meta *y = *(const struct stat_meta *const *)b;

	return strcmp(x->name, y->name);
}

static int meta_index_build(const struct sample_set *sets, size_t nsets,
			    struct meta_index *mi)
{
	size_t total = 0, at = 0;

	*mi = (struct meta_index){ .nsets = nsets };
	for (size_t i = 0; i < nsets; i++)
		total += sets[i].meta ? sets[i].meta->n : 0;
	if (!total)
		return 0;
	mi->v = malloc(total * sizeof(*mi->v));
	mi->n = calloc(nsets, sizeof(*mi->n));
	if (!mi->v || !mi->n) {
		free(mi->v);
		free(mi->n);
		*mi = (struct meta_index){ 0 };
		return -ENOMEM;
	}
	for (size_t i = 0; i < nsets; i++) {
		const struct stat_meta_list *l = sets[i].meta;

		for (size_t k = 0; l && k < l->n; k++)
			mi->v[at + k] = &l->v[k];
		mi->n[i] = l ? l->n : 0;
		qsort(mi->v + at, mi->n[i], sizeof(*mi->v), cmp_meta);
		at += mi->n[i];
	}
	return 0;
}

/* The first set's declaration of `name`, base first; NULL when none has one. */
static const struct stat_meta *meta_find(const struct meta_index *mi,
					 const char *name)
{
	const struct stat_meta key = { .name = (char *)name }, *k = &key, **v = mi->v;

	for (size_t i = 0; v && i < mi->nsets; v += mi->n[i++]) {
		const struct stat_meta **at = bsearch(&k, v, mi->n[i], sizeof(*v), cmp_meta);

		if (at)
			return *at;
	}
	return NULL;
}

static void meta_index_release(struct meta_index *mi)
{
	free(mi->v);
	free(mi->n);
}

/*
 * fails:runs of a failure stat in one set.  A run failed that way when the
 * stat is at least 1 (it counts occurrences: 1, 2, 7 times); 0, a fraction
 * or no value at all is no failure.  A run without the stat did not fail
 * that way, so runs is the set's run count, never fewer than values.
 */
static void count_fails(const struct sample_set *set, long at,
			unsigned *fails, unsigned *runs)
{
	size_t n = set->nr_runs;

	*fails = 0;
	if (at >= 0) {
		for (size_t k = 0; k < set->counts[at]; k++)
			*fails += set->values[at][k] >= COMPARE_FAIL_AT;
		if (set->counts[at] > n)
			n = set->counts[at];
	}
	*runs = (unsigned)n;
}

/* The 0/1 sample behind fails:runs, so that the summary means the rate. */
static void summarize_fails(unsigned fails, unsigned runs, struct summary *s)
{
	double rate = runs ? (double)fails / runs : 0;

	memset(s, 0, sizeof(*s));
	s->n = runs;
	if (!runs)
		return;
	s->mean = rate;
	s->min = fails < runs ? 0 : 1;
	s->max = fails ? 1 : 0;
	s->median = 2 * fails > runs ? 1 : (2 * fails == runs ? 0.5 : 0);
	/* a 0/1 sample deviates from its median only when split evenly */
	s->mad = 2 * fails == runs ? 0.5 : 0;
	if (runs > 1)
		s->stddev = sqrt((double)fails * (runs - fails) /
				 ((double)runs * (runs - 1)));
	s->sem = s->stddev / sqrt((double)runs);
}

/*
 * Fisher's exact test cannot reach p < 0.05 with a handful of runs
 * (2:2 against 0:2 gives p = 1/3), so a differing rate that it does not
 * confirm is UNKNOWN - more runs would decide - and only identical rates
 * (both sides never or always failing included) are SAME.
 */
static void compare_failure(const struct stat_row *row, struct stat_vs *v,
			    const struct compare_opts *o)
{
	double ra = row->base_runs ? (double)row->base_fails / row->base_runs : 0;
	double rb = v->runs ? (double)v->fails / v->runs : 0;

	summarize_fails(v->fails, v->runs, &v->s);
	v->reproduction = 100 * (rb - ra);
	v->change = (struct pct_change){
		.pct = v->reproduction, .low = NAN, .high = NAN, .absolute = true,
	};
	v->p = fisher_exact(row->base_fails, row->base_runs, v->fails, v->runs);
	v->q = v->p;
	v->mwu_p = NAN;
	if (row->base_runs < COMPARE_MIN_RUNS || v->runs < COMPARE_MIN_RUNS)
		v->verdict = VERDICT_FEW_RUNS;
	else if (row->base_fails * v->runs == v->fails * row->base_runs)
		v->verdict = VERDICT_SAME;
	else if (v->p < o->alpha)
		v->verdict = VERDICT_CHANGED;
	else
		v->verdict = VERDICT_UNKNOWN;
}

/* The family's floor unless a rule names the stat; the last match wins. */
static double min_change(const struct stat_row *row, const struct compare_opts *o)
{
	for (size_t i = o->nr_rules; i-- > 0;)
		if (!fnmatch(o->rules[i].pattern, row->name, 0))
			return o->rules[i].pct;
	return row->family == FAMILY_KPI ? o->kpi_min_pct : o->other_min_pct;
}

/*
 * A stat with values on one side only: NEW (absolute: the new side's
 * mean) or GONE (-100%, as LKP prints), when both sides have the runs a
 * verdict needs; FEW_RUNS otherwise, and when neither side has it.
 */
static void decide_one_sided(const struct stat_row *row, struct stat_vs *v)
{
	const struct summary *a = &row->base, *b = &v->s;
	bool enough = row->base_runs >= COMPARE_MIN_RUNS && v->runs >= COMPARE_MIN_RUNS;

	v->change = (struct pct_change){ .pct = NAN, .low = NAN, .high = NAN };
	v->verdict = VERDICT_FEW_RUNS;
	if (!a->n && b->n) {
		v->change.pct = b->mean;
		v->change.absolute = true;
		if (enough && b->n >= COMPARE_MIN_RUNS)
			v->verdict = VERDICT_NEW;
	} else if (a->n && !b->n) {
		v->change.pct = -100;
		if (enough && a->n >= COMPARE_MIN_RUNS)
			v->verdict = VERDICT_GONE;
	}
}

static void decide_numeric(const struct stat_row *row, struct stat_vs *v,
			   const struct compare_opts *o)
{
	bool kpi = row->family == FAMILY_KPI;
	struct verdict_input in = {
		.a = &row->base, .b = &v->s, .p = kpi ? v->p : v->q,
		.min_size_pct = min_change(row, o),
		.alpha = kpi ? o->alpha : o->q,
		.level = o->level,
		/* a percentage changes by points: by its name, or its declared unit */
		.points = stat_is_pct(row->name) || (row->unit && !strcmp(row->unit, "%")),
	};

	v->more_runs = 0;
	if (!row->base.n || !v->s.n) {
		decide_one_sided(row, v);
		return;
	}
	v->verdict = decide(&in, &v->change);
	if (v->verdict == VERDICT_UNKNOWN)
		v->more_runs = verdict_more_runs(&in);
}

static int row_rank(const struct stat_row *r)
{
	switch (r->family) {
	case FAMILY_KPI:
		return 0;
	case FAMILY_FAILURE:
		return 1;
	case FAMILY_OTHER:
		return 2;
	}
	BUG("row %s of family %d", r->name, (int)r->family);
}

/*
 * Every name of any set, once, sorted: a k-way merge of the sets' sorted
 * names.  at[k * nsets + i] is name k's index in set i, or -1.  *names
 * owns only the array.
 */
static int union_names(const struct sample_set *sets, size_t nsets,
		       char ***names, long **at, size_t *nr)
{
	size_t total = 0, n = 0, *cur;
	char **all;
	long *idx;

	for (size_t i = 0; i < nsets; i++)
		total += sets[i].nr;
	if (!total)
		total = 1;
	cur = calloc(nsets, sizeof(*cur));
	all = malloc(total * sizeof(*all));
	idx = malloc(total * nsets * sizeof(*idx));
	if (!cur || !all || !idx) {
		free(cur);
		free(all);
		free(idx);
		return -ENOMEM;
	}
	for (;;) {
		char *least = NULL;

		for (size_t i = 0; i < nsets; i++)
			if (cur[i] < sets[i].nr &&
			    (!least || strcmp(sets[i].names[cur[i]], least) < 0))
				least = sets[i].names[cur[i]];
		if (!least)
			break;
		all[n] = least;
		for (size_t i = 0; i < nsets; i++) {
			long *slot = &idx[n * nsets + i];

			*slot = -1;
			if (cur[i] < sets[i].nr && !strcmp(sets[i].names[cur[i]], least))
				*slot = (long)cur[i]++;
		}
		n++;
	}
	free(cur);
	*names = all;
	*at = idx;
	*nr = n;
	return 0;
}

/* A numeric stat is a row when some side has a value of it. */
static bool on_some_side(const struct sample_set *sets, size_t nsets,
			 const long *at)
{
	for (size_t i = 0; i < nsets; i++)
		if (at[i] >= 0 && sets[i].counts[at[i]])
			return true;
	return false;
}

/* The summary of the stat at index `at` of a set; n = 0 when it has none. */
static void summarize_at(const struct sample_set *set, long at, struct summary *s)
{
	if (at < 0)
		summarize(NULL, 0, s);
	else
		summarize(set->values[at], set->counts[at], s);
}

/* The %change of the means, as LKP prints it; NaN for a base mean of 0 or a missing side. */
static double mean_pct(const struct summary *a, const struct summary *b)
{
	if (!a->n || !b->n || a->mean == 0)
		return NAN;
	/* the ratio first: 1e300 / 1e300, not (1.1e300 - 1e300) * 100 */
	return 100 * (b->mean / fabs(a->mean) - copysign(1, a->mean));
}

/*
 * What a row is: its declaration when a run made one, else the name's
 * rule (record.h: stat_rule_better()) and the KPIs named in opts.
 */
static void describe_row(struct stat_row *row, bool failure,
			 const struct stat_meta *m, const struct compare_opts *o)
{
	row->kpi = (m && m->kpi) || named_kpi(row->name, o);
	row->better = m ? m->better : stat_rule_better(row->name);
	row->unit = m ? m->unit : NULL;
	if (failure)
		row->family = FAMILY_FAILURE;
	else
		row->family = row->kpi ? FAMILY_KPI : FAMILY_OTHER;
}

static int fill_row(const struct sample_set *sets, size_t nsets,
		    const char *name, bool failure, const long *at,
		    const struct meta_index *mi, const struct compare_opts *o,
		    struct stat_row *row)
{
	long at0 = at[0];

	row->name = name;
	row->vs = calloc(nsets - 1, sizeof(*row->vs));
	if (!row->vs)
		return -ENOMEM;
	describe_row(row, failure, meta_find(mi, name), o);
	if (row->family == FAMILY_FAILURE) {
		count_fails(&sets[0], at0, &row->base_fails, &row->base_runs);
		summarize_fails(row->base_fails, row->base_runs, &row->base);
		for (size_t j = 1; j < nsets; j++) {
			struct stat_vs *v = &row->vs[j - 1];

			count_fails(&sets[j], at[j], &v->fails, &v->runs);
			compare_failure(row, v, o);
		}
		return 0;
	}
	summarize_at(&sets[0], at0, &row->base);
	row->base_runs = (unsigned)sets[0].nr_runs;
	for (size_t j = 1; j < nsets; j++) {
		struct stat_vs *v = &row->vs[j - 1];

		summarize_at(&sets[j], at[j], &v->s);
		v->runs = (unsigned)sets[j].nr_runs;
		v->p = v->q = v->mwu_p = NAN;
		v->reproduction = NAN;
		v->mean_pct = mean_pct(&row->base, &v->s);
		if (!row->base.n || !v->s.n)
			continue;
		/* the test of the statistic decide() shows: trimmed means */
		v->p = yuen_test(&row->base, &v->s).p;
		v->q = v->p;
		v->mwu_p = mann_whitney(sets[0].values[at0], sets[0].counts[at0],
					sets[j].values[at[j]], sets[j].counts[at[j]]).p;
	}
	return 0;
}

/* Benjamini-Hochberg over the OTHER family, one column at a time. */
static int adjust_others(struct stat_row *rows, size_t nr, size_t ncols)
{
	double *p = malloc((nr ? nr : 1) * sizeof(*p));
	size_t m;

	if (!p)
		return -ENOMEM;
	for (size_t j = 0; j < ncols; j++) {
		m = 0;
		for (size_t i = 0; i < nr; i++)
			if (rows[i].family == FAMILY_OTHER)
				p[m++] = rows[i].vs[j].p;
		benjamini_hochberg(p, m, p);
		m = 0;
		for (size_t i = 0; i < nr; i++)
			if (rows[i].family == FAMILY_OTHER)
				rows[i].vs[j].q = p[m++];
	}
	free(p);
	return 0;
}

int compare_sets(const struct sample_set *sets, size_t nsets,
		 const struct compare_opts *opts, struct stat_row **rows,
		 size_t *nr_rows)
{
	struct stat_row *r = NULL, *sorted;
	struct meta_index mi = { 0 };
	char **names = NULL;
	size_t nnames = 0, n = 0;
	long *at = NULL;
	int err;

	*rows = NULL;
	*nr_rows = 0;
	if (!sets || nsets < 2 || !opts)
		return -EINVAL;
	err = union_names(sets, nsets, &names, &at, &nnames);
	if (!err)
		err = meta_index_build(sets, nsets, &mi);
	if (err)
		goto out;
	r = calloc(nnames ? nnames : 1, sizeof(*r));
	if (!r) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t k = 0; k < nnames; k++) {
		const long *in = at + k * nsets;
		bool failure = stat_is_failure(names[k]);

		if (!failure && !on_some_side(sets, nsets, in))
			continue;
		err = fill_row(sets, nsets, names[k], failure, in, &mi, opts, &r[n++]);
		if (err)
			goto out;
	}
	err = adjust_others(r, n, nsets - 1);
	if (err)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (r[i].family == FAMILY_FAILURE)
			continue;
		for (size_t j = 0; j < nsets - 1; j++)
			decide_numeric(&r[i], &r[i].vs[j], opts);
	}
	/* a column whose sides ran on a machine disturbed differently decides nothing */
	for (size_t j = 0; j < nsets - 1; j++) {
		struct compare_disturbance d;

		compare_disturbance(&sets[0], &sets[j + 1], &d);
		for (size_t i = 0; d.differs && i < n; i++) {
			struct stat_vs *v = &r[i].vs[j];

			if (r[i].family == FAMILY_FAILURE ||
			    (v->verdict != VERDICT_CHANGED && v->verdict != VERDICT_SMALL))
				continue;
			v->verdict = VERDICT_UNKNOWN;
			v->disturbed = true;
		}
	}
	/* the rows are in name order already: a stable pass per family */
	sorted = malloc((n ? n : 1) * sizeof(*sorted));
	if (!sorted) {
		err = -ENOMEM;
		goto out;
	}
	nnames = 0;
	for (int rank = 0; rank < 3; rank++)
		for (size_t i = 0; i < n; i++)
			if (row_rank(&r[i]) == rank)
				sorted[nnames++] = r[i];
	/* a row no pass took would vanish from every report */
	BUG_ON(nnames != n);
	free(r);
	r = sorted;
	*rows = r;
	*nr_rows = n;
	r = NULL;
out:
	if (r)
		compare_release(r, n);
	meta_index_release(&mi);
	free(names);
	free(at);
	return err;
}

static int cmp_name(const void *key, const void *elt)
{
	return strcmp(key, *(char *const *)elt);
}

/* The mean of a set's stat `name`; false when the set has no value of it. */
static bool set_mean(const struct sample_set *set, const char *name, double *mean)
{
	char **at = set->nr ? bsearch(name, set->names, set->nr, sizeof(*set->names),
				       cmp_name) : NULL;
	size_t i, n;
	double sum = 0;

	if (!at)
		return false;
	i = (size_t)(at - set->names);
	n = set->counts[i];
	if (!n)
		return false;
	for (size_t k = 0; k < n; k++)
		sum += set->values[i][k];
	*mean = sum / (double)n;
	return isfinite(*mean);
}

void compare_disturbance(const struct sample_set *base,
			 const struct sample_set *other,
			 struct compare_disturbance *out)
{
	static const struct {
		const char *name;
		double limit;
	} measures[] = {
		{ STAT_DISTURBANCE_CPU, COMPARE_DISTURBANCE_CPU },
		{ STAT_DISTURBANCE_STEAL, COMPARE_DISTURBANCE_STEAL },
	};

	*out = (struct compare_disturbance){ .differs = false, .base = NAN, .other = NAN,
					     .limit = NAN };
	for (size_t k = 0; k < sizeof(measures) / sizeof(measures[0]); k++) {
		double a, b;

		/* a side that did not record it (imported, older runs): not gated */
		if (!set_mean(base, measures[k].name, &a) ||
		    !set_mean(other, measures[k].name, &b))
			continue;
		if (fabs(b - a) > measures[k].limit) {
			*out = (struct compare_disturbance){
				.differs = true, .what = measures[k].name,
				.base = a, .other = b, .limit = measures[k].limit,
			};
			return;
		}
	}
}

void compare_release(struct stat_row *rows, size_t nr_rows)
{
	for (size_t i = 0; rows && i < nr_rows; i++)
		free(rows[i].vs);
	free(rows);
}

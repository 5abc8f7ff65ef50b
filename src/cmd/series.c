/*
 * series.c - a robot series from what the store holds (series.h): each
 * point's finite values of the metric, the change points of the points
 * that have some (placed back among all points), the alerts of the same
 * series, and the metric's unit and direction.  Cost: O(points x runs)
 * plus the detector's, O(points x window).
 */
#include "cmd/series.h"
#include "record/record.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

long series_stat_index(const struct store_samples *s, const char *name)
{
	for (size_t i = 0; i < s->nr; i++)
		if (!strcmp(s->names[i], name))
			return (long)i;
	return -1;
}

void series_release(struct series *se)
{
	for (size_t i = 0; se->values && i < se->nr; i++)
		free(se->values[i]);
	free(se->values);
	free(se->points);
	free(se->changes);
	free(se->alerts);
	memset(se, 0, sizeof(*se));
}

static int fill_points(struct series *se, const struct store_point *pts, size_t npts,
		       const struct store_samples *samples, const char *const *subjects)
{
	se->points = calloc(npts, sizeof(*se->points));
	se->values = calloc(npts, sizeof(*se->values));
	se->nr = npts;
	if (!se->points || !se->values)
		return -ENOMEM;
	for (size_t i = 0; i < npts; i++) {
		const struct store_samples *s = &samples[i];
		struct history_point *p = &se->points[i];
		long k = series_stat_index(s, se->h.metric);

		p->seq = pts[i].seq;
		p->sha = pts[i].sha;
		p->base = pts[i].base;
		p->tested = pts[i].tested;
		p->subject = subjects ? subjects[i] : NULL;
		if (k >= 0 && s->counts[k]) {
			se->values[i] = malloc(s->counts[k] * sizeof(double));
			if (!se->values[i])
				return -ENOMEM;
			for (size_t r = 0; r < s->counts[k]; r++)
				if (isfinite(s->values[k][r]))
					se->values[i][p->n++] = s->values[k][r];
		}
		p->values = se->values[i];
	}
	se->h.points = se->points;
	se->h.nr_points = npts;
	return 0;
}

/* The change points of the points with runs, placed back among all points. */
static int detect(struct series *se, struct strbuf *err)
{
	size_t npts = se->nr, n = 0, nch = 0, kept = 0;
	struct cp_point *cpts = calloc(npts ? npts : 1, sizeof(*cpts));
	size_t *where = calloc(npts ? npts : 1, sizeof(*where));
	struct cp_change *ch = NULL;
	int ret = 0;

	if (!cpts || !where) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < npts; i++) {
		if (!se->points[i].n)
			continue;
		cpts[n] = (struct cp_point){ se->points[i].values, se->points[i].n };
		where[n++] = i;
	}
	cp_opts_init(&se->cpo);
	if (n && cp_detect(cpts, n, &se->cpo, &ch, &nch, err)) {
		ret = -EINVAL;
		goto out;
	}
	se->changes = calloc(nch ? nch : 1, sizeof(*se->changes));
	if (!se->changes) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nch; i++) {
		if (ch[i].index < 1 || ch[i].index >= n)
			continue;	/* the detector's contract says never */
		se->changes[kept++] = (struct history_change){
			.index = where[ch[i].index], .p = ch[i].p, .before = ch[i].before,
			.after = ch[i].after, .pct = ch[i].pct, .tentative = ch[i].tentative,
			.outliers = ch[i].outliers,
		};
	}
	se->h.changes = se->changes;
	se->h.nr_changes = kept;
	se->h.detector = &se->cpo;
out:
	free(cpts);
	free(where);
	free(ch);
	return ret;
}

static int fill_alerts(struct series *se, const struct store_alert *alerts, size_t nalerts)
{
	const struct history *h = &se->h;
	size_t k = 0;

	se->alerts = calloc(nalerts ? nalerts : 1, sizeof(*se->alerts));
	if (!se->alerts)
		return -ENOMEM;
	for (size_t i = 0; i < nalerts; i++) {
		const struct store_alert *a = &alerts[i];

		if (strcmp(a->tree, h->tree) || strcmp(a->branch, h->branch) ||
		    strcmp(a->testbox, h->testbox) || strcmp(a->job, h->job) ||
		    strcmp(a->metric, h->metric))
			continue;
		se->alerts[k++] = (struct history_alert){
			.id = a->id, .before = a->before, .after = a->after, .how = a->how,
			.state = a->state, .pct = a->pct, .culprit = a->culprit,
			.bisect_id = a->bisect_id, .report_id = a->report_id, .note = a->note,
		};
	}
	se->h.alerts = se->alerts;
	se->h.nr_alerts = k;
	return 0;
}

/* The metric's unit and direction, as the newest point holding it declares. */
static void fill_meta(struct series *se, const struct store_samples *samples, size_t npts)
{
	se->h.better = stat_better(NULL, se->h.metric);
	for (size_t i = npts; i-- > 0;) {
		const struct stat_meta *m = stat_meta_find(&samples[i].meta, se->h.metric);

		if (series_stat_index(&samples[i], se->h.metric) < 0)
			continue;
		se->h.better = stat_better(&samples[i].meta, se->h.metric);
		if (m)
			se->h.unit = m->unit;
		break;
	}
}

int series_build(struct series *se, const struct history *key,
		 const struct store_point *pts, size_t npts,
		 const struct store_samples *samples, const char *const *subjects,
		 const struct store_alert *alerts, size_t nalerts, struct strbuf *err)
{
	int ret;

	memset(se, 0, sizeof(*se));
	se->h = (struct history){
		.tree = key->tree, .branch = key->branch, .testbox = key->testbox,
		.job = key->job, .metric = key->metric,
	};
	ret = fill_points(se, pts, npts, samples, subjects);
	if (!ret)
		ret = detect(se, err);
	if (!ret)
		ret = fill_alerts(se, alerts, nalerts);
	if (!ret)
		fill_meta(se, samples, npts);
	return ret;
}

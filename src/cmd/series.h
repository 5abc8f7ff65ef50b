/*
 * series.h - one series of the robot as report/history.h shows it: the
 * points of a (tree, branch) in order, every complete run's value of one
 * metric at each, the change points the detector finds in it
 * (stats/changepoint.h, its defaults) and the robot's alerts on the same
 * (tree, branch, testbox, job, metric).  perfbot history and perfbot
 * publish build their series here, from what they read of the store, so
 * that the two never disagree.
 *
 * series_build() reads nothing itself: the caller hands it the points, the
 * samples of (testbox, job) at each point and every alert; se->h is then a
 * struct history ready for the writers, pointing into se and into what was
 * handed in (which must outlive se).  Errors: 0, -ENOMEM, or -EINVAL with
 * the detector's message in err.  series_release() after either.  Use from
 * one thread.
 */
#ifndef PERFBOT_CMD_SERIES_H
#define PERFBOT_CMD_SERIES_H

#include "report/history.h"
#include "stats/changepoint.h"
#include "store/store.h"
#include "util/strbuf.h"

struct series {
	struct history h;
	struct history_point *points;
	double **values;		/* [nr_points], owned */
	struct history_change *changes;
	struct history_alert *alerts;
	struct cp_opts cpo;
	size_t nr;			/* points allocated */
};

/*
 * key: tree, branch, testbox, job and metric of the series (borrowed).
 * samples[npts]: store_load_samples() of (testbox, job) at each point
 * (an empty one where none ran).  subjects: [npts] or NULL (NULL entries:
 * unknown).  The unit and direction are those the newest point holding
 * the metric declares.
 */
int series_build(struct series *se, const struct history *key,
		 const struct store_point *pts, size_t npts,
		 const struct store_samples *samples, const char *const *subjects,
		 const struct store_alert *alerts, size_t nalerts, struct strbuf *err);
void series_release(struct series *se);

/* Where stat name is in one point's samples; -1 when it is not. */
long series_stat_index(const struct store_samples *s, const char *name);

#endif

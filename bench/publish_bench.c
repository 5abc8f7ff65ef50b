/*
 * publish_bench.c - the stores perfbot publish's figures are measured on
 * (bench/publish-bench prints them; docs/publish.md, bench/RESULTS.md).
 *
 *   publish_bench DB RUNS          a new store of about RUNS runs
 *   publish_bench --add DB         one more run at the newest point of the
 *                                  first series (the incremental publish)
 *
 * The store is what `perfbot watch` leaves, made through the store API
 * (not by running benchmarks): tree "bench", branches main and next, 10
 * jobs on one test box, 5 runs a point, each run 30 stats (the KPI
 * bench-site.ops, declared higher-is-better, and 29 monitor-like ones);
 * as many points a branch as RUNS asks (RUNS / 100: 10 at 1,000, 1,000 at
 * 100,000).  Job 0 drops 10% at 60% of main's points; the robot's alert
 * on it is there, reported, with its culprit.
 * Values are seeded: the same RUNS give the same store.
 */
#define _GNU_SOURCE
#include "record/record.h"
#include "store/store.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JOBS 10
#define BRANCHES 2
#define RUNS_A_POINT 5
#define STATS 30
#define BATCH 2000

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static double uniform(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

static double noise(void)
{
	return (uniform() + uniform() + uniform() - 1.5) * 0.02;
}

static void sha(char out[41], size_t branch, size_t point)
{
	uint64_t h = 1469598103934665603ULL ^ (branch * 1000003 + point);

	for (int i = 0; i < 40; i++) {
		h = h * 6364136223846793005ULL + 1442695040888963407ULL;
		out[i] = "0123456789abcdef"[(h >> 59) & 15];
	}
	out[40] = '\0';
}

static int make_run(struct run_record *r, size_t job, const char *commit, double level,
		    double started)
{
	char name[64];
	int err = 0;

	memset(r, 0, sizeof(*r));
	snprintf(name, sizeof(name), "bench-site-j%02zu", job);
	err |= record_set_str(&r->testbox, "benchbox");
	err |= record_set_str(&r->testcase, "bench-site");
	err |= record_set_str(&r->job, name);
	err |= record_set_str(&r->commit, commit);
	err |= record_set_str(&r->job_text, "suite: bench-site\n");
	err |= strmap_setf(&r->params, "case", "%zu", job);
	err |= strmap_set(&r->env, "machine", "2 threads AMD EPYC with 4G memory");
	err |= strmap_set(&r->env, "kpi", "bench-site.ops");
	err |= statmap_add(&r->stats, "bench-site.ops", level * (1 + noise()));
	for (int s = 1; s < STATS; s++)
		err |= statmap_addf(&r->stats, 1000 * s * (1 + noise()), "monitor.stat_%02d", s);
	statmap_finish(&r->stats);
	err |= stat_meta_set(&r->meta, "bench-site.ops", "ops/s", 1, true);
	r->status = RUN_COMPLETE;
	r->started = started;
	r->duration_s = 1;
	return err ? -1 : 0;
}

static int flush(struct store *s, struct run_record *runs, size_t *n)
{
	int err = *n ? store_put_runs(s, runs, *n, NULL, NULL) : 0;

	for (size_t i = 0; i < *n; i++)
		run_record_release(&runs[i]);
	*n = 0;
	return err;
}

static int generate(struct store *s, size_t total)
{
	size_t points = total / (JOBS * BRANCHES * RUNS_A_POINT), n = 0;
	static const char *const branch[BRANCHES] = { "main", "next" };
	struct run_record *runs = calloc(BATCH + JOBS * RUNS_A_POINT, sizeof(*runs));
	double t0 = 1.7e9;
	char c[41], prev[41];
	int err = 0;

	if (points < 8)
		points = 8;
	for (size_t b = 0; b < BRANCHES && !err; b++)
		for (size_t p = 0; p < points && !err; p++) {
			sha(c, b, p);
			for (size_t j = 0; j < JOBS && !err; j++) {
				double level = 1e6 * (1 + (double)j);

				if (j == 0 && b == 0 && p >= points * 6 / 10)
					level *= 0.9;
				for (size_t r = 0; r < RUNS_A_POINT && !err; r++)
					err = make_run(&runs[n++], j, c,
						       level, t0 + (double)(b * points + p) * 60 + (double)r);
			}
			if (n >= BATCH)
				err = err ? err : flush(s, runs, &n);
			err = err ? err : store_point_add(s, "bench", branch[b], c, p ? prev : NULL, NULL);
			memcpy(prev, c, sizeof(c));
		}
	err = err ? err : flush(s, runs, &n);
	if (!err) {
		/* the robot's alert on the planted drop, reported, and its bisection */
		struct store_alert a = {
			.tree = "bench", .branch = "main", .testbox = "benchbox",
			.job = "bench-site-j00", .metric = "bench-site.ops", .how = "head",
			.state = "reported", .pct = -10.0,
		};
		char before[41], after[41];

		sha(before, 0, points * 6 / 10 - 1);
		sha(after, 0, points * 6 / 10);
		a.before = before;
		a.after = after;
		a.culprit = after;
		err = store_alert_add(s, &a);
	}
	free(runs);
	return err;
}

/* One run more at the newest point of main's job 0. */
static int add_one(struct store *s)
{
	struct store_point *pts = NULL;
	struct run_record r;
	size_t n = 0;
	int err = store_points(s, "bench", "main", &pts, &n);

	if (!err && !n)
		err = -1;
	if (!err && !(err = make_run(&r, 0, pts[n - 1].sha, 0.9e6, 1.8e9)))
		err = store_put_run(s, &r, NULL);
	if (!err)
		run_record_release(&r);
	store_points_release(pts, n);
	return err;
}

int main(int argc, char **argv)
{
	struct strbuf err = STRBUF_INIT;
	struct store *s = NULL;
	bool add = argc == 3 && !strcmp(argv[1], "--add");
	int ret;

	if (argc != 3) {
		fprintf(stderr, "usage: publish_bench DB RUNS | publish_bench --add DB\n");
		return 2;
	}
	if (store_open(add ? argv[2] : argv[1], STORE_WRITE, &s, &err)) {
		fprintf(stderr, "publish_bench: %s\n", err.buf);
		return 1;
	}
	ret = add ? add_one(s) : generate(s, strtoul(argv[2], NULL, 10));
	if (ret)
		fprintf(stderr, "publish_bench: %s\n", store_error(s));
	store_close(s);
	strbuf_release(&err);
	return ret ? 1 : 0;
}

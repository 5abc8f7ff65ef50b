/*
 * store_bench.c - how fast the result store writes and reads, and how
 * big it grows (docs/store.md; figures go to bench/RESULTS.md).
 *
 *   store_bench [RUNS [STATS]]     (default 10000 runs x 1000 stats)
 *   store_bench --db LOCATION [--db LOCATION ...] [--reps N]
 *
 * (a) one run of 10,000 stats written with store_put_run(): the median
 *     of 20 writes (the first, which interns the names, shown apart),
 *     and the first write of a new connection to a store that has them;
 * (b) RUNS runs x STATS stats stored through store_put_run() (100 jobs x
 *     20 commits x 5 runs at the default size), then both commits of one
 *     job loaded with store_load_samples(), as compare does: the median
 *     of 20 pairs, and the first pair on a fresh connection;
 * (c) the database's size per stored value, after the final checkpoint;
 * (d) the robot's history (perfbot watch): a branch of 10,000 points
 *     read with store_points() (median of 20 reads, the first on a fresh
 *     connection apart), and store_point_add() of one more point onto it
 *     (median of 20 appends).
 *
 * Each run declares a few of its stats (unit, direction, KPI), as a
 * benchmark's stat table does: (a) writes them, (b) loads them with the
 * samples.
 *
 * Everything lives in a temp dir under $TMPDIR, removed at the end.
 *
 * With --db (issue 16), the figures that tell backends apart, side by
 * side, of each LOCATION given (an SQLite file or a postgresql:// URL;
 * run it under tests/pg/with-cluster.sh for a throw-away server):
 * (e) one run of 10,000 stats written, and compare's read
 *     (store_load_samples()) of one group of 10 runs x 20,000 stats: by
 *     its testbox, and by its class (the runs carry fleet.class; the
 *     selector "class:NAME", docs/fleet.md "Classes of identical boxes").
 * Each repetition measures every location in turn, so that the noise of
 * a shared machine falls on all alike; medians of --reps (default 11)
 * and their ratio to the first location.  The runs it writes (testbox
 * "store-bench-PID") are deleted at the end; their stat names stay.
 */
#define _GNU_SOURCE
#include "record/record.h"
#include "store/store.h"
#include "util/fsutil.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define NR_WRITES 20
#define WIDE_STATS 10000
#define NR_LOADS 20
#define RUNS_PER_GROUP 5
#define COMMITS_PER_JOB 20

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* A measurement-like value: a per-stat level with ~1% noise. */
static double value(uint64_t *rng, size_t stat)
{
	*rng = *rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (1000.0 + stat * 37.0) * (1 + ((*rng >> 11) * 0x1.0p-53 - 0.5) / 50);
}

static int make_record(struct run_record *r, size_t nstats)
{
	int err = 0;

	memset(r, 0, sizeof(*r));
	err |= record_set_str(&r->testbox, "benchbox");
	err |= record_set_str(&r->testcase, "will-it-scale");
	err |= record_set_str(&r->job, "job");
	err |= record_set_str(&r->commit, "0");
	err |= record_set_str(&r->job_text, "suite: will-it-scale\nruntime: 300s\n");
	err |= strmap_set(&r->params, "mode", "thread");
	err |= strmap_set(&r->params, "nr_task", "100%");
	for (int i = 0; i < 12; i++)
		err |= strmap_setf(&r->env, "env.key%02d", "value of key %d", i);
	for (size_t i = 0; i < nstats; i++)
		err |= statmap_addf(&r->stats, 0, "monitor%zu.some.stat_name_%05zu",
				    i % 17, i);
	statmap_finish(&r->stats);
	/* the benchmark's own few stats, as its table declares them */
	for (size_t i = 0; i < 3 && i < r->stats.n; i++)
		err |= stat_meta_set(&r->meta, r->stats.v[i].name, i ? "s" : "ops/s",
				     i ? STAT_BETTER_LOWER : STAT_BETTER_HIGHER, !i);
	return err ? -ENOMEM : 0;
}

static struct store *open_store(const char *path)
{
	struct strbuf err = STRBUF_INIT;
	struct store *s;

	if (store_open(path, STORE_WRITE, &s, &err)) {
		fprintf(stderr, "store_bench: %s\n", err.buf);
		s = NULL;
	}
	strbuf_release(&err);
	return s;
}

/* (a) */
static int bench_write(const char *dir)
{
	struct run_record r;
	double t[NR_WRITES], first;
	struct store *s = NULL;
	uint64_t rng = 1;
	char *path = NULL;
	int ret = -1;

	if (asprintf(&path, "%s/write.db", dir) < 0 || make_record(&r, WIDE_STATS))
		goto out;
	s = open_store(path);
	if (!s)
		goto out;
	for (int w = 0; w < NR_WRITES; w++) {
		double t0;

		for (size_t i = 0; i < r.stats.n; i++)
			r.stats.v[i].value = value(&rng, i);
		t0 = now();
		if (store_put_run(s, &r, NULL)) {
			fprintf(stderr, "store_bench: %s\n", store_error(s));
			goto out;
		}
		t[w] = now() - t0;
	}
	first = t[0];
	printf("(a) write one run of %d stats: median %.1f ms of %d writes"
	       " (first, interning the names: %.1f ms; target < 50 ms)\n",
	       WIDE_STATS, median(t, NR_WRITES) * 1e3, NR_WRITES, first * 1e3);
	/* a new process: the names are stored but not in its cache yet */
	store_close(s);
	s = open_store(path);
	if (!s)
		goto out;
	t[0] = now();
	if (store_put_run(s, &r, NULL)) {
		fprintf(stderr, "store_bench: %s\n", store_error(s));
		goto out;
	}
	printf("    first write of a fresh connection, names already stored: %.1f ms\n",
	       (now() - t[0]) * 1e3);
	ret = 0;
out:
	store_close(s);
	run_record_release(&r);
	free(path);
	return ret;
}

/* (b) and (c) */
static int bench_history(const char *dir, size_t nruns, size_t nstats)
{
	size_t ngroups = (nruns + RUNS_PER_GROUP - 1) / RUNS_PER_GROUP;
	size_t njobs = (ngroups + COMMITS_PER_JOB - 1) / COMMITS_PER_JOB;
	double t[NR_LOADS], t0, build, first = 0;
	struct run_record r;
	struct store *s = NULL;
	uint64_t rng = 2;
	char *path = NULL, name[64];
	size_t done = 0, loaded = 0, nmeta;
	struct stat st;
	int ret = -1;

	if (asprintf(&path, "%s/history.db", dir) < 0 || make_record(&r, nstats))
		goto out;
	s = open_store(path);
	if (!s)
		goto out;
	t0 = now();
	/* commits in time order, each job run 5 times at each */
	for (size_t c = 0; c < COMMITS_PER_JOB && done < nruns; c++) {
		snprintf(name, sizeof(name), "%040zx", c * 0x1234567 + 0xabc);
		record_set_str(&r.commit, name);
		for (size_t j = 0; j < njobs && done < nruns; j++) {
			snprintf(name, sizeof(name), "will-it-scale-100%%-thread-test%03zu", j);
			record_set_str(&r.job, name);
			for (int k = 0; k < RUNS_PER_GROUP && done < nruns; k++, done++) {
				for (size_t i = 0; i < r.stats.n; i++)
					r.stats.v[i].value = value(&rng, i);
				r.started = 1.7e9 + done;
				if (store_put_run(s, &r, NULL)) {
					fprintf(stderr, "store_bench: %s\n", store_error(s));
					goto out;
				}
			}
		}
		fprintf(stderr, "\r  %zu/%zu runs stored", done, nruns);
	}
	build = now() - t0;
	fprintf(stderr, "\n");
	printf("(b) stored %zu runs x %zu stats = %zu values in %.1f s (%.0f values/s)\n",
	       done, nstats, done * nstats, build, done * nstats / build);
	store_close(s);

	/* a fresh connection, as a compare command would have */
	s = open_store(path);
	if (!s)
		goto out;
	for (int l = 0; l < NR_LOADS; l++) {
		struct store_samples a, b;
		char ca[64], cb[64];

		snprintf(ca, sizeof(ca), "%040zx", (size_t)(COMMITS_PER_JOB - 2) * 0x1234567 + 0xabc);
		snprintf(cb, sizeof(cb), "%040zx", (size_t)(COMMITS_PER_JOB - 1) * 0x1234567 + 0xabc);
		snprintf(name, sizeof(name), "will-it-scale-100%%-thread-test%03zu",
			 (size_t)l % njobs);
		t0 = now();
		if (store_load_samples(s, "benchbox", name, ca, &a) ||
		    store_load_samples(s, "benchbox", name, cb, &b)) {
			fprintf(stderr, "store_bench: %s\n", store_error(s));
			goto out;
		}
		t[l] = now() - t0;
		if (!l)
			first = t[l];
		loaded = 0;
		for (size_t i = 0; i < a.nr; i++)
			loaded += a.counts[i];
		for (size_t i = 0; i < b.nr; i++)
			loaded += b.counts[i];
		nmeta = a.meta.n == b.meta.n ? a.meta.n : SIZE_MAX;
		store_samples_release(&a);
		store_samples_release(&b);
		if (nmeta != r.meta.n) {
			fprintf(stderr, "store_bench: declarations loaded: %zu of %zu\n",
				nmeta, r.meta.n);
			goto out;
		}
	}
	printf("    load both commits of one job (%zu values): median %.2f ms of %d"
	       " (first, fresh connection: %.2f ms; target < 200 ms)\n",
	       loaded, median(t, NR_LOADS) * 1e3, NR_LOADS, first * 1e3);
	store_close(s);
	s = NULL;

	/* closing the last connection checkpoints the WAL into the file */
	if (stat(path, &st)) {
		perror("store_bench: stat");
		goto out;
	}
	printf("(c) database: %.1f MiB for %zu values: %.1f bytes per value\n",
	       st.st_size / 1048576.0, done * nstats,
	       (double)st.st_size / (done * nstats));
	ret = 0;
out:
	store_close(s);
	run_record_release(&r);
	free(path);
	return ret;
}

#define NR_POINTS 10000

static int bench_points(const char *dir)
{
	double t[NR_LOADS], first = 0;
	struct store_point *p;
	struct store *s = NULL;
	char *path, sha[41];
	int ret = 1;
	size_t n;

	if (asprintf(&path, "%s/watch.db", dir) < 0) {
		path = NULL;
		goto out;
	}
	if (!(s = open_store(path)))
		goto out;
	for (size_t i = 0; i < NR_POINTS; i++) {
		snprintf(sha, sizeof(sha), "%040zx", i * 0x1234567 + 0xabc);
		if (store_point_add(s, "tree", "main", sha, NULL, NULL))
			goto fail;
	}
	store_close(s);
	if (!(s = open_store(path)))
		goto out;
	for (int k = 0; k < NR_LOADS; k++) {
		double t0 = now();

		if (store_points(s, "tree", "main", &p, &n))
			goto fail;
		t[k] = (now() - t0) * 1e3;
		store_points_release(p, n);
		if (n != NR_POINTS) {
			fprintf(stderr, "store_bench: %zu points, not %d\n", n, NR_POINTS);
			goto out;
		}
		if (!k)
			first = t[k];
	}
	printf("(d) store_points() of a branch of %d points: median %.2f ms of %d"
	       " (first on a fresh connection: %.2f ms)\n", NR_POINTS,
	       median(t, NR_LOADS), NR_LOADS, first);
	for (int k = 0; k < NR_LOADS; k++) {
		double t0 = now();

		snprintf(sha, sizeof(sha), "%040x", k + 1);
		if (store_point_add(s, "tree", "main", sha, NULL, NULL))
			goto fail;
		t[k] = (now() - t0) * 1e3;
	}
	printf("    store_point_add() onto it: median %.2f ms of %d\n",
	       median(t, NR_LOADS), NR_LOADS);
	ret = 0;
	goto out;
fail:
	fprintf(stderr, "store_bench: %s\n", store_error(s));
out:
	store_close(s);
	free(path);
	return ret;
}

/* (e) */
#define SIDE_MAX 8
#define LOAD_RUNS 10
#define LOAD_STATS 20000

struct side {
	const char *loc;
	struct store *s;
	double *write, *load, *load_class;	/* [reps] */
	double first_write;
};

static int side_put(struct side *b, struct run_record *r, uint64_t *rng)
{
	for (size_t i = 0; i < r->stats.n; i++)
		r->stats.v[i].value = value(rng, i);
	if (store_put_run(b->s, r, NULL)) {
		fprintf(stderr, "store_bench: %s: %s\n", b->loc, store_error(b->s));
		return -1;
	}
	return 0;
}

/* The runs this bench wrote to b, deleted. */
static int side_clean(struct side *b, const char *testbox)
{
	static const char *const jobs[] = { "bench-write", "bench-load" };
	int ret = 0;

	for (int j = 0; b->s && j < 2; j++) {
		int64_t *ids;
		size_t n;

		if (store_group_runs(b->s, testbox, jobs[j], "0", &ids, &n) ||
		    (n && store_delete_runs(b->s, ids, n))) {
			fprintf(stderr, "store_bench: %s: %s\n", b->loc, store_error(b->s));
			ret = -1;
		}
		if (!ret)
			free(ids);
	}
	return ret;
}

static int bench_sides(struct side *sides, size_t nsides, int reps)
{
	struct run_record wide, load;
	char testbox[64], selector[80];
	uint64_t rng = 3;
	int ret = -1;

	snprintf(testbox, sizeof(testbox), "store-bench-%d", (int)getpid());
	if (make_record(&wide, WIDE_STATS) || make_record(&load, LOAD_STATS))
		goto out;
	record_set_str(&wide.testbox, testbox);
	record_set_str(&load.testbox, testbox);
	record_set_str(&wide.job, "bench-write");
	record_set_str(&load.job, "bench-load");
	/* the load runs are a class's too: the same runs read by the class selector */
	snprintf(selector, sizeof(selector), "%s%s", STORE_CLASS_PREFIX, testbox);
	strmap_set(&load.env, STORE_CLASS_ENV, testbox);
	for (size_t k = 0; k < nsides; k++) {
		struct side *b = &sides[k];
		double t0;

		b->write = calloc(reps, sizeof(double));
		b->load = calloc(reps, sizeof(double));
		b->load_class = calloc(reps, sizeof(double));
		if (!b->write || !b->load || !b->load_class || !(b->s = open_store(b->loc)))
			goto out;
		t0 = now();
		if (side_put(b, &wide, &rng))
			goto out;
		b->first_write = now() - t0;
		for (int i = 0; i < LOAD_RUNS; i++)
			if (side_put(b, &load, &rng))
				goto out;
	}
	for (int rep = 0; rep < reps; rep++) {
		for (size_t k = 0; k < nsides; k++) {
			struct side *b = &sides[k];
			struct store_samples sm;
			size_t values = 0, class_values = 0;
			double t0 = now();

			if (side_put(b, &wide, &rng))
				goto out;
			b->write[rep] = now() - t0;
			t0 = now();
			if (store_load_samples(b->s, testbox, "bench-load", "0", &sm)) {
				fprintf(stderr, "store_bench: %s: %s\n", b->loc, store_error(b->s));
				goto out;
			}
			b->load[rep] = now() - t0;
			for (size_t i = 0; i < sm.nr; i++)
				values += sm.counts[i];
			store_samples_release(&sm);
			t0 = now();
			if (store_load_samples(b->s, selector, "bench-load", "0", &sm)) {
				fprintf(stderr, "store_bench: %s: %s\n", b->loc, store_error(b->s));
				goto out;
			}
			b->load_class[rep] = now() - t0;
			for (size_t i = 0; i < sm.nr; i++)
				class_values += sm.counts[i];
			store_samples_release(&sm);
			if (values != (size_t)LOAD_RUNS * LOAD_STATS || class_values != values) {
				fprintf(stderr, "store_bench: %s: loaded %zu values (by class %zu),"
					" not %d\n", b->loc, values, class_values,
					LOAD_RUNS * LOAD_STATS);
				goto out;
			}
		}
	}
	printf("(e) medians of %d repetitions, the locations alternated:\n", reps);
	printf("    %-10s %14s %14s %18s %10s %10s %16s\n", "backend", "write 10k (ms)",
	       "first (ms)", "load 20k x 10 (ms)", "write/1st", "load/1st", "by class (ms)");
	for (size_t k = 0; k < nsides; k++) {
		double w = median(sides[k].write, reps), l = median(sides[k].load, reps);
		double w0 = median(sides[0].write, reps), l0 = median(sides[0].load, reps);

		printf("    %-10s %14.1f %14.1f %18.1f %10.2f %10.2f %16.1f\n",
		       strncmp(sides[k].loc, "postgres", 8) ? "SQLite" : "PostgreSQL",
		       w * 1e3, sides[k].first_write * 1e3, l * 1e3, w / w0, l / l0,
		       median(sides[k].load_class, reps) * 1e3);
	}
	ret = 0;
out:
	for (size_t k = 0; k < nsides; k++) {
		if (side_clean(&sides[k], testbox))
			ret = -1;
		store_close(sides[k].s);
		free(sides[k].write);
		free(sides[k].load);
		free(sides[k].load_class);
	}
	run_record_release(&wide);
	run_record_release(&load);
	return ret;
}

int main(int argc, char **argv)
{
	size_t nruns = 10000, nstats = 1000, nsides = 0;
	struct side sides[SIDE_MAX] = { 0 };
	char *dir = NULL;
	int ret = 1, reps = 11;

	if (argc > 1 && !strncmp(argv[1], "--", 2)) {
		for (int i = 1; i < argc; i += 2) {
			if (i + 1 < argc && !strcmp(argv[i], "--db") && nsides < SIDE_MAX)
				sides[nsides++].loc = argv[i + 1];
			else if (i + 1 < argc && !strcmp(argv[i], "--reps") &&
				 (reps = atoi(argv[i + 1])) > 0)
				continue;
			else
				nsides = SIDE_MAX + 1;	/* the usage */
		}
		if (nsides && nsides <= SIDE_MAX)
			return bench_sides(sides, nsides, reps) ? 1 : 0;
		fprintf(stderr, "usage: store_bench --db LOCATION [--db LOCATION ...] [--reps N]\n");
		return 2;
	}
	if (argc > 1)
		nruns = strtoul(argv[1], NULL, 10);
	if (argc > 2)
		nstats = strtoul(argv[2], NULL, 10);
	if (argc > 3 || !nruns || !nstats) {
		fprintf(stderr, "usage: store_bench [RUNS [STATS]]\n");
		return 2;
	}
	if (make_temp_dir(NULL, "perfbot-store-bench", &dir)) {
		perror("store_bench: temp dir");
		return 1;
	}
	if (!bench_points(dir) && !bench_write(dir) &&
	    !bench_history(dir, nruns, nstats))
		ret = 0;
	remove_tree(dir);
	free(dir);
	return ret;
}

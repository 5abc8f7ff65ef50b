/*
 * compare_speed - the CPU time of one comparison, store read included:
 * 2 commits x 10 runs x 20,000 stats of one atomic job, loaded with
 * store_load_samples() and compared with compare_sets().  Target: < 100 ms
 * of CPU.  Prints its figures; compare ratios on one machine, not absolute
 * times across machines.  Usage: compare_speed [STATS] [RUNS] [REPEATS]
 */
#define _GNU_SOURCE
#include "record/record.h"
#include "stats/compare.h"
#include "store/store.h"
#include "util/fsutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* A deterministic value around 1000 with ~1% noise; commit 1 shifts 1 in 50 stats. */
static double value(unsigned commit, unsigned run, unsigned stat)
{
	unsigned h = (commit * 2654435761u) ^ (run * 40503u) ^ (stat * 2246822519u);
	double noise = ((double)(h % 2001) - 1000.0) / 100000.0;

	return 1000.0 * (1 + noise) * (commit && stat % 50 == 0 ? 1.05 : 1.0);
}

static int fill_store(const char *db, unsigned stats, unsigned runs)
{
	static const char *const commits[2] = { "base", "new" };
	struct strbuf err = STRBUF_INIT;
	struct store *s;

	if (store_open(db, STORE_WRITE, &s, &err)) {
		fprintf(stderr, "compare_speed: %s\n", err.buf);
		strbuf_release(&err);
		return -1;
	}
	for (unsigned c = 0; c < 2; c++)
		for (unsigned r = 0; r < runs; r++) {
			struct run_record rec = { .status = RUN_COMPLETE };
			int64_t id;

			record_set_str(&rec.testbox, "box");
			record_set_str(&rec.testcase, "t");
			record_set_str(&rec.job, "t-job");
			record_set_str(&rec.commit, commits[c]);
			for (unsigned i = 0; i < stats; i++)
				statmap_addf(&rec.stats, value(c, r, i), "monitor.stat%05u", i);
			statmap_add(&rec.stats, "t.kpi", value(c, r, 0));
			if (store_put_run(s, &rec, &id)) {
				fprintf(stderr, "compare_speed: %s\n", store_error(s));
				run_record_release(&rec);
				store_close(s);
				return -1;
			}
			run_record_release(&rec);
		}
	store_close(s);
	return 0;
}

/* One comparison as perfbot compare makes it; its CPU seconds (load: of which the store's). */
static double one_compare(const char *db, size_t *rows_out, size_t *changed,
			  double *load)
{
	static const char *const kpis[] = { "t.kpi", NULL };
	struct store_samples sm[2] = { 0 };
	struct sample_set sets[2];
	struct compare_opts o;
	struct stat_row *rows = NULL;
	size_t nr = 0;
	struct store *s;
	double t0 = cpu_now(), t;

	if (store_open(db, STORE_READ, &s, NULL))
		return -1;
	for (int c = 0; c < 2; c++) {
		if (store_load_samples(s, "box", "t-job", c ? "new" : "base", &sm[c]))
			return -1;
		sets[c] = (struct sample_set){
			.commit = c ? "new" : "base", .nr = sm[c].nr,
			.names = sm[c].names, .values = sm[c].values,
			.counts = sm[c].counts, .nr_runs = sm[c].nr_runs,
		};
	}
	*load = cpu_now() - t0;
	compare_opts_init(&o);
	o.kpis = kpis;
	if (compare_sets(sets, 2, &o, &rows, &nr))
		return -1;
	t = cpu_now() - t0;
	*rows_out = nr;
	*changed = 0;
	for (size_t i = 0; i < nr; i++)
		*changed += rows[i].vs[0].verdict == VERDICT_CHANGED;
	compare_release(rows, nr);
	store_samples_release(&sm[0]);
	store_samples_release(&sm[1]);
	store_close(s);
	return t;
}

int main(int argc, char **argv)
{
	unsigned stats = argc > 1 ? (unsigned)atoi(argv[1]) : 20000;
	unsigned runs = argc > 2 ? (unsigned)atoi(argv[2]) : 10;
	unsigned repeats = argc > 3 ? (unsigned)atoi(argv[3]) : 11;
	double *t = calloc(repeats, sizeof(*t)), *l = calloc(repeats, sizeof(*l));
	char *dir = NULL, db[512];
	size_t rows = 0, changed = 0;

	if (!t || !l || make_temp_dir(NULL, "perfbot-compare-speed", &dir))
		return 1;
	snprintf(db, sizeof(db), "%s/r.db", dir);
	if (fill_store(db, stats, runs))
		return 1;
	for (unsigned i = 0; i < repeats; i++) {
		t[i] = one_compare(db, &rows, &changed, &l[i]);
		if (t[i] < 0) {
			fprintf(stderr, "compare_speed: the comparison failed\n");
			return 1;
		}
	}
	qsort(t, repeats, sizeof(*t), cmp_double);
	qsort(l, repeats, sizeof(*l), cmp_double);
	printf("compare of 2 commits x %u runs x %u stats (store read included): "
	       "median %.1f ms of CPU over %u repeats (min %.1f, max %.1f); "
	       "%zu rows, %zu changed; target < 100 ms\n", runs, stats,
	       1e3 * t[repeats / 2], repeats, 1e3 * t[0], 1e3 * t[repeats - 1],
	       rows, changed);
	printf("  of which the store read (open + 2 x store_load_samples): median %.1f ms\n",
	       1e3 * l[repeats / 2]);
	remove_tree(dir);
	free(dir);
	free(t);
	free(l);
	return 0;
}

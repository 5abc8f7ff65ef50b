/*
 * queue_bench.c - how fast the fleet's queue hands out work (docs/fleet.md;
 * figures go to bench/RESULTS.md, "Issue 16: the queue").
 *
 *   queue_bench [ITEMS [WORKERS]]    (default 10000 items, 8 workers)
 *
 * The database is $PERFBOT_TEST_PG_URL (tests/pg/with-cluster.sh gives
 * a throw-away one).  ITEMS no-op items are queued with one
 * store_queue_submit() (timed), then WORKERS threads, each with its own
 * connection and box, loop claim -> finish with a tiny run (one stat) until
 * the queue is empty, as workers whose benchmark takes no time would.
 * Printed: the submit's time; each claim's latency (median, p99, max, over
 * every claim of every worker); the wall time from the first claim to the
 * last finish and the throughput in items/s; and a check that every item
 * is done exactly once with its own run.
 */
#define _GNU_SOURCE
#include "record/record.h"
#include "store/store.h"
#include "util/timeutil.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct worker {
	pthread_t thread;
	const char *db;
	char name[32];
	double *lat;		/* each claim's seconds */
	size_t nr_lat, cap;
	size_t done;
	int err;
};

static int tiny_run(struct run_record *r, const char *box, int64_t item)
{
	char commit[32];
	int err = 0;

	memset(r, 0, sizeof(*r));
	snprintf(commit, sizeof(commit), "item-%" PRId64, item);
	err |= record_set_str(&r->testbox, box);
	err |= record_set_str(&r->testcase, "noop");
	err |= record_set_str(&r->job, "noop-0");
	err |= record_set_str(&r->commit, commit);
	err |= statmap_add(&r->stats, "noop.time.elapsed_time", 0.001);
	statmap_finish(&r->stats);
	r->status = RUN_COMPLETE;
	r->started = (double)time(NULL);
	r->duration_s = 0.001;
	return err ? -ENOMEM : 0;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct store_box box = {
		.testbox = w->name, .machine = "bench", .cpus = 8, .mem_mb = 8192,
		.arch = "x86_64", .kernel = "bench",
	};
	struct store *s = NULL;
	struct strbuf err = STRBUF_INIT;

	if ((w->err = store_open(w->db, STORE_WRITE, &s, &err))) {
		fprintf(stderr, "queue_bench: %s\n", err.buf);
		goto out;
	}
	if ((w->err = store_box_register(s, &box)))
		goto fail;
	for (;;) {
		struct store_queue_item it;
		struct run_record r;
		double t0 = mono_now();
		int ret = store_queue_claim(s, w->name, NULL, 60, &it);
		int64_t run_id;

		if (ret == -ENOENT)
			break;
		if (ret) {
			w->err = ret;
			goto fail;
		}
		if (w->nr_lat == w->cap) {
			w->cap = w->cap ? 2 * w->cap : 1024;
			w->lat = realloc(w->lat, w->cap * sizeof(*w->lat));
			if (!w->lat)
				abort();
		}
		w->lat[w->nr_lat++] = mono_now() - t0;
		ret = tiny_run(&r, w->name, it.id);
		if (!ret)
			ret = store_queue_finish(s, it.id, it.attempt, &r, &run_id);
		run_record_release(&r);
		store_queue_item_release(&it);
		if (ret) {
			w->err = ret;
			goto fail;
		}
		w->done++;
	}
	goto out;
fail:
	fprintf(stderr, "queue_bench: %s: %s\n", w->name, store_error(s));
out:
	store_close(s);
	strbuf_release(&err);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *db = getenv("PERFBOT_TEST_PG_URL");
	size_t items = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000;
	size_t nw = argc > 2 ? strtoul(argv[2], NULL, 10) : 8, total = 0, done = 0;
	struct store_queue_item *q;
	struct worker *w;
	struct store *s;
	struct strbuf err = STRBUF_INIT;
	double t0, t1, *all;
	int64_t batch;

	if (!db || !items || !nw) {
		fprintf(stderr, "usage: PERFBOT_TEST_PG_URL=postgresql://... queue_bench [ITEMS [WORKERS]]\n");
		return 2;
	}
	if (store_open(db, STORE_WRITE, &s, &err)) {
		fprintf(stderr, "queue_bench: %s\n", err.buf);
		return 1;
	}
	q = calloc(items, sizeof(*q));
	w = calloc(nw, sizeof(*w));
	if (!q || !w)
		return 1;
	for (size_t i = 0; i < items; i++) {
		q[i].job = "noop-0";
		q[i].testcase = "noop";
		q[i].job_text = "testcase: noop\nexec:\n  cmd: [\"true\"]\n";
		q[i].needs = "";
	}
	t0 = mono_now();
	if (store_queue_submit(s, q, items, &batch, NULL)) {
		fprintf(stderr, "queue_bench: %s\n", store_error(s));
		return 1;
	}
	printf("submit: %zu items in one call: %.3f s\n", items, mono_now() - t0);
	free(q);
	t0 = mono_now();
	for (size_t i = 0; i < nw; i++) {
		w[i].db = db;
		snprintf(w[i].name, sizeof(w[i].name), "bench-%zu", i);
		pthread_create(&w[i].thread, NULL, worker_main, &w[i]);
	}
	for (size_t i = 0; i < nw; i++) {
		pthread_join(w[i].thread, NULL);
		total += w[i].nr_lat;
		done += w[i].done;
		if (w[i].err)
			return 1;
	}
	t1 = mono_now();
	all = malloc(total * sizeof(*all));
	total = 0;
	for (size_t i = 0; i < nw; i++) {
		memcpy(all + total, w[i].lat, w[i].nr_lat * sizeof(*all));
		total += w[i].nr_lat;
		printf("  %s: %zu items\n", w[i].name, w[i].done);
		free(w[i].lat);
	}
	qsort(all, total, sizeof(*all), cmp_double);
	printf("%zu workers: %zu items claimed and finished in %.2f s: %.0f items/s\n", nw, done,
	       t1 - t0, done / (t1 - t0));
	printf("claim latency: median %.2f ms, p99 %.2f ms, max %.2f ms (%zu claims)\n",
	       all[total / 2] * 1e3, all[(size_t)(total * 0.99)] * 1e3, all[total - 1] * 1e3,
	       total);
	{
		struct store_queue_item *list;
		size_t nr, ok = 0;

		if (store_queue_list(s, NULL, &list, &nr))
			return 1;
		for (size_t i = 0; i < nr; i++)
			ok += !strcmp(list[i].state, "done") && list[i].run_id &&
			      list[i].attempt == 1;
		printf("check: %zu of %zu items done at their first attempt with a run\n", ok, nr);
		store_queue_items_release(list, nr);
		if (ok != items)
			return 1;
	}
	free(all);
	free(w);
	store_close(s);
	return 0;
}

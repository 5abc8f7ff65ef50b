/*
 * make_store_seed: write a small store through perfbot's own store API,
 * for the store fuzz target's seeds (make-store-seeds.sh): two groups of
 * runs (complete, failed, incomplete and unsupported; params, env, stats,
 * declared stats, job text) at two commits, and one finished bisection
 * with its log and a mark.  Fixed times, so that the same schema gives
 * the same file.
 *
 *   make_store_seed DB [RESULT_JSON]
 */
#include "store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char spec[] =
	"{\"repo\": \"/src/linux\", \"good\": \"1111111111111111111111111111111111111111\","
	" \"bad\": \"2222222222222222222222222222222222222222\", \"good_given\": \"v6.1\","
	" \"bad_given\": \"HEAD\", \"metric\": \"will-it-scale.per_thread_ops\","
	" \"job_path\": \"jobs/smoke.yaml\", \"job_text\": \"testcase: will-it-scale\\n\","
	" \"testbox\": \"box\", \"confidence\": 0.95, \"max_runs\": 30}";

static int put(struct store *s, const char *commit, const char *job,
	       enum run_status status, double v)
{
	struct run_record r = { 0 };
	int64_t id;
	int ret;

	ret = record_set_str(&r.testbox, "box") ||
	      record_set_str(&r.testcase, "will-it-scale") ||
	      record_set_str(&r.job, job) || record_set_str(&r.commit, commit) ||
	      record_set_str(&r.job_text, "testcase: will-it-scale\nnr_task: 1\n") ||
	      strmap_set(&r.params, "nr_task", "1") ||
	      strmap_set(&r.params, "mode", "thread") ||
	      strmap_set(&r.env, "kpi", "will-it-scale.per_thread_ops") ||
	      strmap_set(&r.env, "kernel", "6.1.0") ||
	      statmap_add(&r.stats, "will-it-scale.per_thread_ops", v) ||
	      statmap_add(&r.stats, "will-it-scale.workload", v * 2) ||
	      statmap_add(&r.stats, "time.elapsed_time", 1.5) ||
	      /* the newest run's declaration counts: they differ by run */
	      stat_meta_set(&r.meta, "will-it-scale.per_thread_ops", "ops/s",
			    STAT_BETTER_HIGHER, true) ||
	      stat_meta_set(&r.meta, "will-it-scale.workload", v > 1500 ? "kops" : "ops",
			    STAT_BETTER_HIGHER, false) ||
	      stat_meta_set(&r.meta, "time.elapsed_time", "s", STAT_BETTER_LOWER, false);
	if (status == RUN_UNSUPPORTED)
		ret = ret || strmap_set(&r.env, "last_state.reason", "no such device");
	r.status = status;
	r.started = 1700000000 + v / 1000;
	r.duration_s = 1.5;
	if (!ret)
		ret = store_put_run(s, &r, &id);
	run_record_release(&r);
	return ret;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;

	if (!f)
		return NULL;
	if (getdelim(&buf, &len, '\0', f) < 0) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

int main(int argc, char **argv)
{
	static const char *const commits[] = {
		"1111111111111111111111111111111111111111",
		"2222222222222222222222222222222222222222",
	};
	struct strbuf open_err = STRBUF_INIT;
	struct store *s;
	char *result = NULL;
	int64_t id;
	int ret = 0;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: make_store_seed DB [RESULT_JSON]\n");
		return 2;
	}
	if (store_open(argv[1], STORE_WRITE, &s, &open_err)) {
		fprintf(stderr, "perfbot: %s\n", open_err.buf);
		return 1;
	}
	for (int c = 0; c < 2 && !ret; c++)
		for (int i = 0; i < 3 && !ret; i++)
			ret = put(s, commits[c], "will-it-scale-1-thread-futex1",
				  i == 2 && c ? RUN_FAILED : RUN_COMPLETE,
				  1000 * (c + 1) + i);
	if (!ret)
		ret = put(s, commits[0], "will-it-scale-1-thread-getppid1",
			  RUN_INCOMPLETE, 5);
	if (!ret)
		ret = put(s, commits[0], "will-it-scale-1-thread-getppid1",
			  RUN_UNSUPPORTED, 6);
	if (!ret && argc == 3) {
		result = slurp(argv[2]);
		ret = result ? 0 : -1;
	}
	if (!ret)
		ret = store_bisect_add(s, "running", spec, &id);
	if (!ret)
		ret = store_bisect_log_add(s, id, "start") ||
		      store_bisect_log_add(s, id, "baseline: good 3 runs, bad 3 runs") ||
		      store_bisect_mark(s, id, commits[1], "skip", "build failed (exit 2)") ||
		      store_bisect_update(s, id, result ? "found" : "no-change", result);
	if (ret)
		fprintf(stderr, "perfbot: cannot write %s: %s\n", argv[1], store_error(s));
	free(result);
	store_close(s);
	return ret ? 1 : 0;
}

/*
 * Unit tests: the fleet's queue in the store (store.h, pg_queue.c).  As
 * unit/test_queue (SQLite) every call is refused with the reason; as
 * unit/test_queue_pg (tests/pg/with-cluster.sh) the queue itself: claims
 * by priority and needs, fencing, leases reaped, attempts, hand-back,
 * the lost COMMIT answer, LISTEN/NOTIFY.
 */
#include "store_backend.h"

#include "record/record.h"
#include "store/store.h"
#include "util/timeutil.h"

#include <errno.h>
#include <math.h>
#include <time.h>
#include <unistd.h>

struct fx {
	char dir[64];
	char *loc;
	struct store *s;
};

static int setup(void **state)
{
	struct fx *f;
	struct strbuf err = STRBUF_INIT;

	/* a skip in setup runs no teardown: skip before making anything */
	test_store_need_pg_cluster();
	f = calloc(1, sizeof(*f));
	snprintf(f->dir, sizeof(f->dir), "/tmp/perfbot-unit.XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	*state = f;
	f->loc = test_store_fresh(f->dir);
	if (store_open(f->loc, STORE_WRITE, &f->s, &err)) {
		print_message("%s\n", err.buf);
		return -1;
	}
	strbuf_release(&err);
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char cmd[128];

	store_close(f->s);
	free(f->loc);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", f->dir);
	if (system(cmd))
		return -1;
	free(f);
	return 0;
}

static void need_pg(void)
{
	if (!test_store_is_pg()) {
		print_message("[  SKIP    ] the queue is PostgreSQL's (unit/test_queue_pg)\n");
		skip();
	}
	test_store_need_pg_cluster();
}

static void sqlite_refused(void **state)
{
	struct fx *f = *state;
	struct store_queue_item it = { .job = "j", .testcase = "t", .job_text = "x" };
	struct store_box box = { .testbox = "a", .machine = "m", .arch = "x", .kernel = "k" };
	struct store_queue_item *list;
	size_t nr;

	if (test_store_is_pg()) {
		print_message("[  SKIP    ] about SQLite (unit/test_queue)\n");
		skip();
	}
	assert_int_equal(store_queue_submit(f->s, &it, 1, NULL, NULL), -ENOTSUP);
	assert_string_equal(store_error(f->s),
			    "the queue needs a PostgreSQL store (--db postgresql://...)");
	assert_int_equal(store_box_register(f->s, &box), -ENOTSUP);
	assert_int_equal(store_queue_claim(f->s, "a", NULL, 10, &it), -ENOTSUP);
	assert_int_equal(store_queue_list(f->s, NULL, &list, &nr), -ENOTSUP);
	assert_int_equal(store_queue_wait(f->s, 0, NULL), -ENOTSUP);
	assert_int_equal(store_queue_release(f->s, "a"), -ENOTSUP);
	assert_int_equal(store_queue_class_set(f->s, "c", (char *[]){ "a", NULL }), -ENOTSUP);
	assert_int_equal(store_queue_class_remove(f->s, "c"), -ENOTSUP);
}

static void box(struct store *s, const char *name, int cpus, char **tags)
{
	struct store_box b = {
		.testbox = (char *)name, .machine = "bench box", .cpus = cpus,
		.mem_mb = 4096, .arch = "x86_64", .kernel = "6.1", .tags = tags,
	};

	assert_int_equal(store_box_register(s, &b), 0);
}

/* Queue one item; returns its id. */
static int64_t submit(struct store *s, int prio, int min_cpus, const char *testbox,
		      char **tags, int max_attempts)
{
	struct store_queue_item it = {
		.priority = prio, .job = "tiny-0", .testcase = "tiny",
		.job_text = "testcase: tiny\n", .needs = "as parsed",
		.parsed = { .min_cpus = min_cpus, .testbox = (char *)testbox, .tags = tags },
		.max_attempts = max_attempts,
	};
	int64_t id = 0;

	assert_int_equal(store_queue_submit(s, &it, 1, NULL, &id), 0);
	assert_true(id > 0);
	return id;
}

static int64_t claim(struct store *s, const char *testbox, char **testcases, double lease,
		     int *attempt)
{
	struct store_queue_item it;
	int ret = store_queue_claim(s, testbox, testcases, lease, &it);
	int64_t id;

	if (ret == -ENOENT)
		return 0;
	if (ret)
		fail_msg("claim: %s", store_error(s));
	assert_string_equal(it.state, "running");
	assert_string_equal(it.box, testbox);
	assert_false(isnan(it.lease_until));
	id = it.id;
	if (attempt)
		*attempt = it.attempt;
	store_queue_item_release(&it);
	return id;
}

static void claims_by_priority_and_needs(void **state)
{
	struct fx *f = *state;
	char *big[] = { "big", NULL }, *other[] = { "other", NULL }, *tiny[] = { "tiny", NULL };
	int64_t plain, tagged, many, only_b;
	int att;

	need_pg();
	box(f->s, "a", 4, big);
	box(f->s, "b", 64, NULL);
	plain = submit(f->s, 0, 0, NULL, NULL, 0);
	tagged = submit(f->s, 5, 0, NULL, big, 0);
	many = submit(f->s, 0, 32, NULL, NULL, 0);
	only_b = submit(f->s, 0, 0, "b", NULL, 0);
	assert_int_equal(claim(f->s, "a", other, 10, NULL), 0);	/* --testcases other */
	assert_int_equal(claim(f->s, "a", tiny, 10, &att), tagged);	/* priority first */
	assert_int_equal(att, 1);
	assert_int_equal(claim(f->s, "a", NULL, 10, NULL), plain);
	assert_int_equal(claim(f->s, "a", NULL, 10, NULL), 0);	/* needs 32 CPUs, or b */
	assert_int_equal(claim(f->s, "b", NULL, 10, NULL), many);
	assert_int_equal(claim(f->s, "b", NULL, 10, NULL), only_b);
	assert_int_equal(store_queue_claim(f->s, "nobody", NULL, 10,
					   &(struct store_queue_item){ 0 }), -ESRCH);
}

/*
 * class=NAME: any member claims, no other box; declarations refused
 * when a box would be in two classes or a name would be a box's and a
 * class's; boxes show their class.
 */
static void classes(void **state)
{
	struct fx *f = *state;
	char *ab[] = { "a", "b", NULL }, *bc[] = { "b", "c", NULL }, *fast[] = { "fast", NULL };
	char *c_only[] = { "c", NULL }, *bx[] = { "b", "x", NULL };
	struct store_queue_item it = {
		.job = "tiny-0", .testcase = "tiny", .job_text = "testcase: tiny\n",
		.needs = "class=fast", .parsed = { .class = "fast" },
	};
	struct store_class *cl;
	struct store_box *bs;
	struct store_queue_item got;
	int64_t id1 = 0, id2 = 0;
	size_t n;

	need_pg();
	box(f->s, "a", 4, NULL);
	box(f->s, "b", 4, NULL);
	box(f->s, "c", 4, NULL);
	assert_int_equal(store_queue_class_set(f->s, "fast", ab), 0);
	assert_int_equal(store_queue_submit(f->s, &it, 1, NULL, &id1), 0);
	assert_int_equal(store_queue_submit(f->s, &it, 1, NULL, &id2), 0);
	assert_int_equal(store_queue_get(f->s, id1, &got), 0);
	assert_string_equal(got.parsed.class, "fast");
	store_queue_item_release(&got);
	assert_int_equal(claim(f->s, "c", NULL, 10, NULL), 0);	/* not of the class */
	assert_int_equal(claim(f->s, "b", NULL, 10, NULL), id1);
	assert_int_equal(claim(f->s, "a", NULL, 10, NULL), id2);

	/* refused, nothing changed: b in two classes, a box's name, a class's name */
	assert_int_equal(store_queue_class_set(f->s, "slow", bc), -EEXIST);
	assert_string_equal(store_error(f->s), "class slow: box b is in class fast already (a box"
			    " is in one class at most: perfbot queue class --remove fast, or"
			    " declare fast without it)");
	assert_int_equal(store_queue_class_set(f->s, "c", ab), -EEXIST);
	assert_string_equal(store_error(f->s), "class c: a test box has that name");
	assert_int_equal(store_queue_class_set(f->s, "slow", fast), -EEXIST);
	assert_string_equal(store_error(f->s), "class slow: box fast: a class has that name");
	assert_int_equal(store_queue_class_set(f->s, "x", c_only), 0);
	assert_int_equal(store_queue_class_set(f->s, "fast", bx), -EEXIST);
	assert_string_equal(store_error(f->s), "class fast: box x: a class has that name");
	assert_int_equal(store_box_register(f->s, &(struct store_box){ .testbox = "fast",
			 .machine = "m", .arch = "x86_64", .kernel = "6.1" }), -EEXIST);
	assert_string_equal(store_error(f->s), "test box fast: a class of boxes has that name"
			    " (perfbot queue class)");

	/* replaced as a whole: a leaves fast, c may join it once x is gone */
	assert_int_equal(store_queue_class_remove(f->s, "x"), 0);
	assert_int_equal(store_queue_class_remove(f->s, "x"), -ENOENT);
	assert_int_equal(store_queue_class_set(f->s, "fast", bc), 0);
	assert_int_equal(store_queue_classes(f->s, &cl, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(cl[0].name, "fast");
	assert_string_equal(cl[0].boxes[0], "b");
	assert_string_equal(cl[0].boxes[1], "c");
	assert_null(cl[0].boxes[2]);
	store_classes_release(cl, n);
	assert_int_equal(store_queue_boxes(f->s, &bs, &n), 0);
	assert_int_equal(n, 3);
	assert_null(bs[0].class);
	assert_string_equal(bs[1].class, "fast");
	assert_string_equal(bs[2].class, "fast");
	store_boxes_release(bs, n);
}

static void fenced_out(void **state)
{
	struct fx *f = *state;
	bool requeued = true;
	int64_t id;
	int att;

	need_pg();
	box(f->s, "a", 4, NULL);
	id = submit(f->s, 0, 0, NULL, NULL, 0);
	assert_int_equal(claim(f->s, "a", NULL, 30, &att), id);
	assert_int_equal(store_queue_heartbeat(f->s, id, att, 30), 0);
	assert_int_equal(store_queue_heartbeat(f->s, id, att + 1, 30), -ESTALE);
	assert_int_equal(store_queue_cancel(f->s, id), 0);
	assert_int_equal(store_queue_heartbeat(f->s, id, att, 30), -ESTALE);
	assert_non_null(strstr(store_error(f->s), "attempt 1 is fenced out (the item is cancelled"));
	assert_int_equal(store_queue_fail(f->s, id, att, "late", &requeued), -ESTALE);
	assert_false(requeued);
	assert_int_equal(store_queue_hand_back(f->s, id, att), -ESTALE);
	assert_int_equal(store_queue_cancel(f->s, id), -EINVAL);
	assert_int_equal(store_queue_heartbeat(f->s, 9999, 1, 30), -ENOENT);
	/* a retry gives new attempts, never an old number */
	assert_int_equal(store_queue_retry(f->s, id), 0);
	assert_int_equal(claim(f->s, "a", NULL, 30, &att), id);
	assert_int_equal(att, 2);
}

static void leases_reaped_then_failed(void **state)
{
	struct fx *f = *state;
	struct store_queue_item it;
	size_t n = 0;
	int64_t id;
	int att;

	need_pg();
	box(f->s, "a", 4, NULL);
	id = submit(f->s, 0, 0, NULL, NULL, 2);
	assert_int_equal(claim(f->s, "a", NULL, 0.05, &att), id);
	usleep(150 * 1000);
	assert_int_equal(store_queue_reap(f->s, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(store_queue_heartbeat(f->s, id, att, 30), -ESTALE);
	assert_int_equal(claim(f->s, "a", NULL, 0.05, &att), id);
	assert_int_equal(att, 2);
	usleep(150 * 1000);
	assert_int_equal(store_queue_reap(f->s, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(store_queue_get(f->s, id, &it), 0);
	assert_string_equal(it.state, "failed");	/* its 2 attempts used */
	assert_string_equal(it.reasons, "attempt 1 on a: lease expired on a\n"
			    "attempt 2 on a: lease expired on a\n");
	assert_true(isnan(it.lease_until));
	store_queue_item_release(&it);
	assert_int_equal(store_queue_reap(f->s, &n), 0);
	assert_int_equal(n, 0);
}

static void fail_and_hand_back(void **state)
{
	struct fx *f = *state;
	struct store_queue_item it;
	bool requeued = false;
	int64_t id;
	int att;

	need_pg();
	box(f->s, "a", 4, NULL);
	id = submit(f->s, 0, 0, NULL, NULL, 2);
	assert_int_equal(claim(f->s, "a", NULL, 30, &att), id);
	assert_int_equal(store_queue_hand_back(f->s, id, att), 0);	/* not counted */
	assert_int_equal(claim(f->s, "a", NULL, 30, &att), id);
	assert_int_equal(att, 2);
	assert_int_equal(store_queue_fail(f->s, id, att, "the run failed: exit 1", &requeued), 0);
	assert_true(requeued);	/* 2 of 3 */
	assert_int_equal(claim(f->s, "a", NULL, 30, &att), id);
	assert_int_equal(store_queue_fail(f->s, id, att, "the run failed: exit 2", &requeued), 0);
	assert_false(requeued);
	assert_int_equal(store_queue_get(f->s, id, &it), 0);
	assert_string_equal(it.state, "failed");
	assert_int_equal(it.max_attempts, 3);
	assert_string_equal(it.reasons, "attempt 2 on a: the run failed: exit 1\n"
			    "attempt 3 on a: the run failed: exit 2\n");
	store_queue_item_release(&it);
}

static void tiny_run(struct run_record *r)
{
	memset(r, 0, sizeof(*r));
	assert_int_equal(record_set_str(&r->testbox, "a"), 0);
	assert_int_equal(record_set_str(&r->testcase, "tiny"), 0);
	assert_int_equal(record_set_str(&r->job, "tiny-0"), 0);
	assert_int_equal(record_set_str(&r->commit, "c1"), 0);
	assert_int_equal(statmap_add(&r->stats, "tiny.time.elapsed_time", 0.5), 0);
	statmap_finish(&r->stats);
	r->status = RUN_COMPLETE;
	r->started = 1.7e9;
	r->duration_s = 0.5;
}

static void finish_once(void **state)
{
	struct fx *f = *state;
	struct store_queue_item it;
	struct run_record r;
	int64_t id, run = 0, again = 0, *ids;
	size_t nr;
	int att, ret;

	need_pg();
	box(f->s, "a", 4, NULL);
	box(f->s, "b", 4, NULL);
	id = submit(f->s, 0, 0, NULL, NULL, 0);
	assert_int_equal(claim(f->s, "a", NULL, 30, &att), id);
	tiny_run(&r);
	ret = store_queue_finish(f->s, id, att, &r, &run);
	assert_int_equal(ret, 0);
	assert_true(run > 0);
	/* the same attempt again (its COMMIT's answer lost): the same run, stored once */
	assert_int_equal(store_queue_finish(f->s, id, att, &r, &again), 0);
	assert_int_equal(again, run);
	assert_int_equal(store_group_runs(f->s, "a", "tiny-0", "c1", &ids, &nr), 0);
	assert_int_equal(nr, 1);
	free(ids);
	/* another attempt's late finish is refused */
	assert_int_equal(store_queue_finish(f->s, id, att + 1, &r, &again), -ESTALE);
	assert_int_equal(store_queue_get(f->s, id, &it), 0);
	assert_string_equal(it.state, "done");
	assert_int_equal(it.run_id, run);
	store_queue_item_release(&it);
	run_record_release(&r);
}

static void quarantine(void **state)
{
	struct fx *f = *state;
	struct store_queue_item it;
	struct store_box *boxes;
	struct run_record r;
	size_t nr;
	int att;

	need_pg();
	box(f->s, "sick", 4, NULL);
	box(f->s, "well", 4, NULL);
	tiny_run(&r);
	for (int i = 0; i < STORE_QUARANTINE_LOST; i++) {
		int64_t id = submit(f->s, 0, 0, NULL, NULL, 0), run;
		int ret;

		assert_int_equal(claim(f->s, "sick", NULL, 30, &att), id);
		assert_int_equal(store_queue_fail(f->s, id, att, "broken", NULL), 0);
		assert_int_equal(claim(f->s, "well", NULL, 30, &att), id);
		ret = store_queue_finish(f->s, id, att, &r, &run);
		assert_int_equal(ret, 0);
	}
	run_record_release(&r);
	submit(f->s, 0, 0, NULL, NULL, 0);
	assert_int_equal(store_queue_claim(f->s, "sick", NULL, 30, &it), -EPERM);
	assert_non_null(strstr(store_error(f->s), "box sick is quarantined: 3 items failed here"
			       " that other boxes completed"));
	assert_int_equal(store_queue_boxes(f->s, &boxes, &nr), 0);
	assert_int_equal(nr, 2);
	assert_string_equal(boxes[0].testbox, "sick");
	assert_string_equal(boxes[0].state, "quarantined");
	assert_int_equal(boxes[0].lost, 3);
	assert_int_equal(boxes[1].done, 3);
	store_boxes_release(boxes, nr);
	assert_int_equal(store_queue_release(f->s, "sick"), 0);
	assert_true(claim(f->s, "sick", NULL, 30, NULL) > 0);
	assert_int_equal(store_queue_release(f->s, "nobody"), -ENOENT);
}

static void notify_wakes(void **state)
{
	struct fx *f = *state;
	struct store *other;
	bool woken = true;
	double t0;

	need_pg();
	/* nothing to say: the wait lasts its timeout */
	t0 = mono_now();
	assert_int_equal(store_queue_wait(f->s, 0.2, &woken), 0);
	assert_false(woken);
	assert_true(mono_now() - t0 >= 0.19);
	assert_int_equal(store_open(f->loc, STORE_WRITE, &other, NULL), 0);
	submit(other, 0, 0, NULL, NULL, 0);
	store_close(other);
	t0 = mono_now();
	assert_int_equal(store_queue_wait(f->s, 10, &woken), 0);
	assert_true(woken);
	assert_true(mono_now() - t0 < 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(sqlite_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(claims_by_priority_and_needs, setup, teardown),
		cmocka_unit_test_setup_teardown(classes, setup, teardown),
		cmocka_unit_test_setup_teardown(fenced_out, setup, teardown),
		cmocka_unit_test_setup_teardown(leases_reaped_then_failed, setup, teardown),
		cmocka_unit_test_setup_teardown(fail_and_hand_back, setup, teardown),
		cmocka_unit_test_setup_teardown(finish_once, setup, teardown),
		cmocka_unit_test_setup_teardown(quarantine, setup, teardown),
		cmocka_unit_test_setup_teardown(notify_wakes, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Unit tests: record/record_json -- a run record to JSON and back,
 * losslessly (every field, NaN and the infinities, subnormals and 17
 * significant digits, insertion order, NULL strings), and bad input
 * refused with the field named.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "record/record_json.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void fill(struct run_record *r)
{
	memset(r, 0, sizeof(*r));
	assert_int_equal(record_set_str(&r->testbox, "vm-guest"), 0);
	assert_int_equal(record_set_str(&r->testcase, "will-it-scale"), 0);
	assert_int_equal(record_set_str(&r->job, "will-it-scale-1-process-futex1"), 0);
	/* commit left NULL */
	assert_int_equal(strmap_set(&r->params, "nr_task", "1"), 0);
	assert_int_equal(strmap_set(&r->params, "mode", "process"), 0);
	assert_int_equal(strmap_set(&r->env, "kernel", "6.1.0 \"quoted\" \xc3\xa9"), 0);
	assert_int_equal(strmap_set(&r->env, "last_state.reason", "line1\nline2\ttab"), 0);
	assert_int_equal(statmap_add(&r->stats, "will-it-scale.per_process_ops", 912345.123456789), 0);
	assert_int_equal(statmap_add(&r->stats, "a.nan", NAN), 0);
	assert_int_equal(statmap_add(&r->stats, "a.inf", INFINITY), 0);
	assert_int_equal(statmap_add(&r->stats, "a.ninf", -INFINITY), 0);
	assert_int_equal(statmap_add(&r->stats, "a.subnormal", 4.9e-324), 0);
	assert_int_equal(statmap_add(&r->stats, "a.tenth", 0.1), 0);
	assert_int_equal(statmap_add(&r->stats, "a.big", 1e300), 0);
	assert_int_equal(statmap_add(&r->stats, "a.int", 42), 0);
	assert_int_equal(statmap_add(&r->stats, "a.negzero", -0.0), 0);
	assert_int_equal(statmap_add(&r->stats, "dmesg.WARNING:at_kernel/futex/waitwake.c:#futex_wake", 2), 0);
	statmap_finish(&r->stats);
	r->status = RUN_FAILED;
	r->started = 1764690000.123456;
	r->duration_s = NAN;
	assert_int_equal(record_set_str(&r->job_text, "suite: will-it-scale\nruntime: 1s\n"), 0);
	assert_int_equal(stat_meta_set(&r->meta, "will-it-scale.per_process_ops", "ops/s",
				       STAT_BETTER_HIGHER, true), 0);
	assert_int_equal(stat_meta_set(&r->meta, "will-it-scale.time.elapsed_time", "s",
				       STAT_BETTER_LOWER, false), 0);
	assert_int_equal(stat_meta_set(&r->meta, "disturbance.steal", "", STAT_BETTER_NONE, false), 0);
}

static bool same_double(double a, double b)
{
	return (isnan(a) && isnan(b)) || !memcmp(&a, &b, sizeof(a));
}

static void same_str(const char *a, const char *b)
{
	if (!a || !b)
		assert_ptr_equal(a, b);
	else
		assert_string_equal(a, b);
}

static void same_map(const struct strmap *a, const struct strmap *b)
{
	assert_int_equal(a->n, b->n);
	for (size_t i = 0; i < a->n; i++) {
		assert_string_equal(a->v[i].key, b->v[i].key);
		assert_string_equal(a->v[i].value, b->v[i].value);
	}
}

static void test_roundtrip(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct run_record a, b;
	char *t1, *t2;

	(void)state;
	fill(&a);
	assert_int_equal(record_to_json(&a, &t1), 0);
	assert_non_null(strstr(t1, "\"schema\": \"perfbot-run\""));
	assert_non_null(strstr(t1, "\"a.nan\": \"nan\""));
	assert_non_null(strstr(t1, "\"a.ninf\": \"-inf\""));
	assert_int_equal(record_from_json(t1, strlen(t1), &b, &err), 0);
	same_str(a.testbox, b.testbox);
	same_str(a.testcase, b.testcase);
	same_str(a.job, b.job);
	same_str(a.commit, b.commit);
	same_str(a.job_text, b.job_text);
	same_map(&a.params, &b.params);
	same_map(&a.env, &b.env);
	assert_int_equal(a.status, b.status);
	assert_true(same_double(a.started, b.started));
	assert_true(same_double(a.duration_s, b.duration_s));
	assert_int_equal(a.stats.n, b.stats.n);
	for (size_t i = 0; i < a.stats.n; i++) {
		const double *v = statmap_get(&b.stats, a.stats.v[i].name);

		assert_non_null(v);
		if (!same_double(*v, a.stats.v[i].value))
			fail_msg("%s: %.17g != %.17g", a.stats.v[i].name, *v, a.stats.v[i].value);
	}
	assert_int_equal(a.meta.n, b.meta.n);
	for (size_t i = 0; i < a.meta.n; i++) {
		assert_string_equal(a.meta.v[i].name, b.meta.v[i].name);
		assert_string_equal(a.meta.v[i].unit, b.meta.v[i].unit);
		assert_int_equal(a.meta.v[i].better, b.meta.v[i].better);
		assert_int_equal(a.meta.v[i].kpi, b.meta.v[i].kpi);
	}
	/* and the same text again */
	assert_int_equal(record_to_json(&b, &t2), 0);
	assert_string_equal(t1, t2);
	free(t1);
	free(t2);
	run_record_release(&a);
	run_record_release(&b);
	strbuf_release(&err);
}

static void bad(const char *text, const char *msg)
{
	struct strbuf err = STRBUF_INIT;
	struct run_record r;

	assert_int_equal(record_from_json(text, strlen(text), &r, &err), -EINVAL);
	if (!strstr(err.buf, msg))
		fail_msg("%s: got '%s', want '%s'", text, err.buf, msg);
	run_record_release(&r);
	strbuf_release(&err);
}

#define HEAD "{\"schema\": \"perfbot-run\", \"version\": 1, "

static void test_bad_input(void **state)
{
	(void)state;
	bad("{", "line 1");
	bad("[]", "schema");
	bad("{\"schema\": \"perfbot-compare\", \"version\": 1}", "schema");
	bad("{\"schema\": \"perfbot-run\", \"version\": 2}", "version is not 1");
	bad(HEAD "\"status\": \"exploded\", \"started\": 0, \"duration_s\": 0}", "unknown status \"exploded\"");
	bad(HEAD "\"status\": \"complete\", \"started\": 0, \"duration_s\": 0, \"stats\": {\"x\": \"many\"}}",
	    "stat \"x\" is not a number");
	bad(HEAD "\"status\": \"complete\", \"started\": 0, \"duration_s\": 0, \"env\": {\"k\": 3}}",
	    "env \"k\" is not a string");
	bad(HEAD "\"status\": \"complete\", \"started\": 0, \"duration_s\": 0, \"meta\": [{\"name\": \"x\", \"better\": 2}]}",
	    "meta entry 0");
	bad(HEAD "\"status\": \"complete\", \"duration_s\": 0}", "started is not a number");
	bad(HEAD "\"testbox\": 7, \"status\": \"complete\", \"started\": 0, \"duration_s\": 0}",
	    "testbox is not a string");
	bad(HEAD "\"status\": \"complete\", \"status\": \"failed\", \"started\": 0, \"duration_s\": 0}",
	    "duplicate");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

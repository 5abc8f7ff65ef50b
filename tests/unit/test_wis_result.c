/* Unit tests: sample aggregation, the sweep's derived columns, the JSON result. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bench/wis_type.h"
#include "bench/wis.h"
#include "bench/wis_json.h"
#include "bench/wis_sweep.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct wis_sample three_samples[] = {
	{ .start_s = 0, .secs = 1, .ops = 100, .total = 100, .min_task = 40, .max_task = 60, .idle_pct = 1 },
	{ .start_s = 1, .secs = 1, .ops = 200, .total = 200, .min_task = 90, .max_task = 110, .idle_pct = 2 },
	/* a short last sample: 150 ops in 0.5 s */
	{ .start_s = 2, .secs = 0.5, .ops = 150, .total = 300, .min_task = 140, .max_task = 160, .idle_pct = -1 },
};

static void summarize(void **state)
{
	struct wis_result r = { .samples = three_samples, .nr_samples = 3 };

	(void)state;
	wis_result_summarize(&r, 2, 12.5);
	assert_float_equal(r.measured_s, 2.5, 1e-12);
	/* weighted by time: 450 ops / 2.5 s, not the mean of the totals (200) */
	assert_float_equal(r.workload, 180, 1e-9);
	assert_float_equal(r.per_task, 90, 1e-9);
	assert_float_equal(r.min, 100, 0);
	assert_float_equal(r.max, 300, 0);
	/* sample stddev of 100, 200, 300 */
	assert_float_equal(r.stddev, 100, 1e-9);
	assert_float_equal(r.idle_pct, 12.5, 0);
	assert_int_equal(r.nr_tasks, 2);
}

static void summarize_edge_cases(void **state)
{
	struct wis_result r = { .samples = three_samples, .nr_samples = 1 };

	(void)state;
	wis_result_summarize(&r, 1, -1);
	assert_float_equal(r.workload, 100, 1e-9);
	assert_float_equal(r.stddev, 0, 0);	/* one sample: no spread, no NaN */
	r.nr_samples = 0;
	wis_result_summarize(&r, 4, -1);
	assert_float_equal(r.workload, 0, 0);
	assert_float_equal(r.per_task, 0, 0);
	assert_false(isnan(r.min) || isnan(r.max) || isinf(r.min));
}

static void sweep_columns(void **state)
{
	struct wis_sweep_row rows[3] = {
		{ .tasks = 1, .have = { true, true }, .ops = { 100, 120 } },
		{ .tasks = 2, .have = { true, true }, .ops = { 190, 200 } },
		{ .tasks = 3, .have = { true, false }, .ops = { 240, 0 } },
	};

	(void)state;
	wis_sweep_linear(rows, 3);
	/* linear = the best 1-task result (threads, 120) x tasks */
	assert_float_equal(rows[0].linear, 120, 0);
	assert_float_equal(rows[1].linear, 240, 0);
	assert_float_equal(rows[2].linear, 360, 0);
	assert_float_equal(wis_sweep_scalability(rows, 3, WIS_PROCESS), 240.0 / 360, 1e-12);
	/* threads stopped at 2 tasks: their last measured row counts */
	assert_float_equal(wis_sweep_scalability(rows, 3, WIS_THREAD), 200.0 / 240, 1e-12);
	rows[0].have[WIS_THREAD] = rows[1].have[WIS_THREAD] = false;
	assert_true(isnan(wis_sweep_scalability(rows, 3, WIS_THREAD)));
}

static const struct wis_json_context ctx = {
	.version = "9.9.9", .cpus_online = 2, .aslr_disabled = true,
};

static void json_result(void **state)
{
	struct wis_config cfg = {
		.test = wis_find_test("futex1"), .nr_tasks = 2, .mode = WIS_THREAD,
		.affinity = true, .warmup_s = 5, .duration_s = 2.5, .interval_s = 1,
	};
	struct wis_result r = { .samples = three_samples, .nr_samples = 3 };
	json_t *j, *samples, *s2;

	(void)state;
	assert_non_null(cfg.test);
	wis_result_summarize(&r, 2, 12.5);
	r.status = WIS_OK;
	j = wis_result_json(&cfg, &r, &ctx);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "test")), "futex1");
	assert_string_equal(json_string_value(json_object_get(j, "mode")), "thread");
	assert_string_equal(json_string_value(json_object_get(j, "status")), "complete");
	assert_true(json_is_false(json_object_get(j, "incomplete")));
	assert_true(json_is_null(json_object_get(j, "reason")));
	assert_int_equal(json_integer_value(json_object_get(j, "tasks")), 2);
	assert_float_equal(json_real_value(json_object_get(j, "per_thread_ops")), 90, 1e-9);
	assert_null(json_object_get(j, "per_process_ops"));
	assert_float_equal(json_real_value(json_object_get(j, "workload")), 180, 1e-9);
	assert_float_equal(json_real_value(json_object_get(j, "samples_stddev")), 100, 1e-9);
	assert_float_equal(json_real_value(json_object_get(j, "idle_pct")), 12.5, 0);
	assert_true(json_is_true(json_object_get(j, "aslr_disabled")));
	samples = json_object_get(j, "samples");
	assert_int_equal(json_array_size(samples), 3);
	s2 = json_array_get(samples, 2);
	assert_int_equal(json_integer_value(json_object_get(s2, "ops")), 150);
	assert_float_equal(json_real_value(json_object_get(s2, "total")), 300, 0);
	/* an unknown idle % is null, never -1 */
	assert_true(json_is_null(json_object_get(s2, "idle_pct")));
	json_decref(j);
}

static void json_incomplete(void **state)
{
	struct wis_config cfg = {
		.test = wis_find_test("getppid1"), .nr_tasks = 1, .mode = WIS_PROCESS,
		.duration_s = 10, .interval_s = 1,
	};
	struct wis_result r = { .samples = three_samples, .nr_samples = 0 };
	json_t *j;

	(void)state;
	wis_result_summarize(&r, 1, -1);
	r.status = WIS_INCOMPLETE;
	strcpy(r.why, "stopped during warm-up");
	j = wis_result_json(&cfg, &r, &ctx);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "status")), "incomplete");
	assert_true(json_is_true(json_object_get(j, "incomplete")));
	assert_string_equal(json_string_value(json_object_get(j, "reason")),
			    "stopped during warm-up");
	/* no samples: no made-up numbers */
	assert_true(json_is_null(json_object_get(j, "per_process_ops")));
	assert_true(json_is_null(json_object_get(j, "workload")));
	assert_int_equal(json_array_size(json_object_get(j, "samples")), 0);
	json_decref(j);
}

static void json_sweep(void **state)
{
	struct wis_config cfg = {
		.test = wis_find_test("futex1"), .duration_s = 1, .interval_s = 1,
	};
	struct wis_sweep_row rows[2] = {
		{ .tasks = 1, .have = { true, false }, .ops = { 100, 0 }, .idle = { 50, 0 } },
		{ .tasks = 2, .have = { true, false }, .ops = { 150, 0 }, .idle = { -1, 0 } },
	};
	json_t *j, *row;

	(void)state;
	wis_sweep_linear(rows, 2);
	j = wis_sweep_json(&cfg, rows, 2, WIS_OK, "", &ctx);
	assert_non_null(j);
	assert_int_equal(json_array_size(json_object_get(j, "rows")), 2);
	row = json_array_get(json_object_get(j, "rows"), 1);
	assert_float_equal(json_real_value(json_object_get(row, "processes")), 150, 0);
	assert_float_equal(json_real_value(json_object_get(row, "linear")), 200, 0);
	assert_true(json_is_null(json_object_get(row, "processes_idle")));
	assert_null(json_object_get(row, "threads"));
	assert_float_equal(json_real_value(json_object_get(
		json_object_get(j, "scalability"), "processes")), 0.75, 1e-12);
	assert_null(json_object_get(json_object_get(j, "scalability"), "threads"));
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(summarize),
		cmocka_unit_test(summarize_edge_cases),
		cmocka_unit_test(sweep_columns),
		cmocka_unit_test(json_result),
		cmocka_unit_test(json_incomplete),
		cmocka_unit_test(json_sweep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Unit tests: the engine end to end in-process (so the sanitizer build
 * covers it): a short run counts, a crash fails, unsupported says why, a
 * stop before the start does nothing, and no task outlives a run.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bench/wis_type.h"
#include "bench/wis.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Private bases for the runs' temp dirs, so leftovers can be seen. */
static char tmp_base[] = "/tmp/perfbot-unit.XXXXXX";
static char shm_base[] = "/dev/shm/perfbot-unit.XXXXXX";

static int make_bases(void **state)
{
	(void)state;
	return !mkdtemp(tmp_base) || !mkdtemp(shm_base);
}

static int remove_bases(void **state)
{
	(void)state;
	return rmdir(tmp_base) || rmdir(shm_base);
}

static struct wis_config short_run(const char *test, enum wis_mode mode,
				   unsigned tasks)
{
	struct wis_config cfg = {
		.test = wis_find_test(test), .nr_tasks = tasks, .mode = mode,
		.affinity = true, .warmup_s = 0.05, .duration_s = 0.2,
		.interval_s = 0.05, .tmp_base = tmp_base, .shm_base = shm_base,
	};

	assert_non_null(cfg.test);
	return cfg;
}

static bool dir_is_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	bool empty = true;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			empty = false;
	closedir(d);
	return empty;
}

/*
 * Nothing outlived the run: every child of ours is gone (reaped) and the
 * temp dirs are removed.
 */
static void assert_no_children(void)
{
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	assert_true(dir_is_empty(tmp_base));
	assert_true(dir_is_empty(shm_base));
}

static void counts(void **state)
{
	(void)state;
	for (int m = 0; m < 2; m++) {
		struct wis_config cfg = short_run("empty", (enum wis_mode)m, 2);
		struct wis_result r;

		assert_int_equal(wis_run(&cfg, &r), WIS_OK);
		assert_int_equal(r.status, WIS_OK);
		/*
		 * 0.2 s in 0.05 s samples: 4 on time; a loaded machine wakes
		 * the sampler late (fewer, longer samples), never early, and
		 * the run stops after its duration -- bounds load cannot
		 * break, which an overrun or a lost sample still does
		 */
		assert_true(r.nr_samples >= 2 && r.nr_samples <= 4);
		assert_true(r.workload > 0);
		assert_true(r.samples[0].min_task > 0);
		assert_true(r.measured_s >= 0.15 && r.measured_s <= 0.7);
		assert_float_equal(r.per_task, r.workload / 2, 1e-6);
		wis_result_release(&r);
		assert_no_children();
	}
}

static void partner_task(void **state)
{
	(void)state;
	for (int m = 0; m < 2; m++) {
		struct wis_config cfg = short_run("context_switch1", (enum wis_mode)m, 1);
		struct wis_result r;

		assert_int_equal(wis_run(&cfg, &r), WIS_OK);
		assert_true(r.workload > 0);
		wis_result_release(&r);
		assert_no_children();
	}
}

static void crash_is_a_failure(void **state)
{
	(void)state;
	for (int m = 0; m < 2; m++) {
		struct wis_config cfg = short_run("selftest-crash", (enum wis_mode)m, 2);
		struct wis_result r;

		cfg.duration_s = 2;
		assert_int_equal(wis_run(&cfg, &r), WIS_FAILED);
		assert_non_null(strstr(r.why, "signal 11"));
		wis_result_release(&r);
		assert_no_children();
	}
}

static void unsupported_says_why(void **state)
{
	struct wis_config cfg = short_run("selftest-unsupported", WIS_THREAD, 1);
	struct wis_result r;

	(void)state;
	assert_int_equal(wis_run(&cfg, &r), WIS_UNSUPPORTED);
	assert_string_equal(r.why, "harness self-test: never supported");
	assert_int_equal(r.nr_samples, 0);
	wis_result_release(&r);
	assert_no_children();
}

static void stop_before_start(void **state)
{
	volatile sig_atomic_t stop = SIGINT;
	struct wis_config cfg = short_run("empty", WIS_PROCESS, 1);
	struct wis_result r;

	(void)state;
	cfg.stop = &stop;
	assert_int_equal(wis_run(&cfg, &r), WIS_INCOMPLETE);
	assert_int_equal(r.nr_samples, 0);
	wis_result_release(&r);
	assert_no_children();
}

static void rejects_bad_config(void **state)
{
	struct wis_config cfg = short_run("empty", WIS_PROCESS, 1);
	struct wis_result r;

	(void)state;
	cfg.duration_s = cfg.interval_s / 2;
	assert_int_equal(wis_run(&cfg, &r), WIS_ERROR);
	wis_result_release(&r);
	cfg = short_run("empty", WIS_PROCESS, 0);
	assert_int_equal(wis_run(&cfg, &r), WIS_ERROR);
	wis_result_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(counts),
		cmocka_unit_test(partner_task),
		cmocka_unit_test(crash_is_a_failure),
		cmocka_unit_test(unsupported_says_why),
		cmocka_unit_test(stop_before_start),
		cmocka_unit_test(rejects_bad_config),
	};

	return cmocka_run_group_tests(tests, make_bases, remove_bases);
}

/* Unit tests: util/procstat (the "cpu" line of /proc/stat, idle %). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/procstat.h"

#include <unistd.h>

static void parse_line(void **state)
{
	struct cpu_times t;

	(void)state;
	assert_int_equal(procstat_parse("cpu  10 2 30 400 5 6 7 8 9 10\ncpu0 1 2 3\n", &t), 0);
	assert_int_equal(t.user, 10);
	assert_int_equal(t.nice, 2);
	assert_int_equal(t.system, 30);
	assert_int_equal(t.idle, 400);
	assert_int_equal(t.iowait, 5);
	assert_int_equal(t.steal, 8);
	/* old kernels: 4 fields */
	assert_int_equal(procstat_parse("cpu  1 2 3 4\n", &t), 0);
	assert_int_equal(t.idle, 4);
	assert_int_equal(t.iowait, 0);
	assert_int_not_equal(procstat_parse("cpu0 1 2 3 4\n", &t), 0);
	assert_int_not_equal(procstat_parse("cpu  1 2\n", &t), 0);
	assert_int_not_equal(procstat_parse("", &t), 0);
}

static void idle_pct(void **state)
{
	struct cpu_times a = { .user = 100, .system = 100, .idle = 800 };
	struct cpu_times b = a;

	(void)state;
	/* 300 jiffies pass, 75 of them idle: 25% */
	b.user += 150;
	b.system += 50;
	b.idle += 75;
	b.iowait += 25;
	assert_float_equal(cpu_times_idle_pct(&a, &b), 25.0, 1e-9);
	/* no time passed: unknown */
	assert_float_equal(cpu_times_idle_pct(&a, &a), -1.0, 0);
	/* counters went backwards (a reset): unknown, not nonsense */
	assert_float_equal(cpu_times_idle_pct(&b, &a), -1.0, 0);
}

static void reads_the_real_file(void **state)
{
	struct cpu_times t;
	int fd = procstat_open();

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(procstat_read(fd, &t), 0);
	assert_true(t.user + t.system + t.idle > 0);
	/* the descriptor stays usable: the monitor's way of sampling */
	assert_int_equal(procstat_read(fd, &t), 0);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_line),
		cmocka_unit_test(idle_pct),
		cmocka_unit_test(reads_the_real_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

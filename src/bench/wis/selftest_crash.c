/*
 * selftest_crash: a task that counts a little and then dies of SIGSEGV, so
 * the tests can check that a crashing benchmark is reported as a failed
 * run and leaves nothing behind.  Hidden from the catalogue.
 */
#include "bench/wis/common.h"

#include <signal.h>
#include <unistd.h>

static noreturn void loop(struct wis_task *t)
{
	struct wis_counter *ops = t->ops;

	for (unsigned i = 0; i < 1000; i++)
		wis_inc(ops, 1);
	usleep(100 * 1000);
	raise(SIGSEGV);
	for (;;)
		pause();
}

const struct wis_test wis_test_selftest_crash = {
	.name = "selftest-crash",
	.desc = "count, then die of SIGSEGV (harness self-test)",
	.loop = loop,
	.hidden = true,
};

/*
 * selftest_unsupported: a test that can never run, to check the
 * "unsupported: <reason>" path end to end.  Hidden from the catalogue.
 */
#include "bench/wis/common.h"

static enum wis_status prepare(struct wis_env *env)
{
	return wis_env_fail(env, WIS_UNSUPPORTED,
			    "harness self-test: never supported");
}

static noreturn void loop(struct wis_task *t)
{
	wis_task_fail(t, WIS_FAILED, "selftest-unsupported must not start");
}

const struct wis_test wis_test_selftest_unsupported = {
	.name = "selftest-unsupported",
	.desc = "always unsupported (harness self-test)",
	.prepare = prepare,
	.loop = loop,
	.hidden = true,
};

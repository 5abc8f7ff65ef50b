/* name: STUB, to be written. */
#include "bench/wis/common.h"

static enum wis_status prepare(struct wis_env *env)
{
	return wis_env_fail(env, WIS_UNSUPPORTED, "not written yet");
}

static noreturn void loop(struct wis_task *t)
{
	wis_task_fail(t, WIS_UNSUPPORTED, "not written yet");
}

const struct wis_test wis_test_name = {
	.name = "name",
	.desc = "stub",
	.prepare = prepare,
	.loop = loop,
};

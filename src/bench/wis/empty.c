/*
 * empty: the harness's own cost -- the counter increment and nothing else.
 * Hidden from the catalogue; bench/wis-fidelity runs it beside futex1.
 */
#include "bench/wis/common.h"

static noreturn void loop(struct wis_task *t)
{
	struct wis_counter *ops = t->ops;

	for (;;)
		wis_inc(ops, 1);
}

const struct wis_test wis_test_empty = {
	.name = "empty",
	.desc = "increment the task's counter, nothing else (harness cost)",
	.loop = loop,
	.hidden = true,
};

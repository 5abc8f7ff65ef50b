/* sched_yield: sched_yield(). */
#include "bench/wis/common.h"

#include <sched.h>

static noreturn void loop(struct wis_task *t)
{
	struct wis_counter *ops = t->ops;

	for (;;) {
		sched_yield();
		wis_inc(ops, 1);
	}
}

const struct wis_test wis_test_sched_yield = {
	.name = "sched_yield",
	.desc = "sched_yield()",
	.loop = loop,
};

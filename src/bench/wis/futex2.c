/* futex2: FUTEX_WAIT with a non-matching expected value (EAGAIN at once). */
#include "bench/wis/common.h"
#include "bench/wis/loops.h"

#include <linux/futex.h>

static noreturn void loop(struct wis_task *t)
{
	wis_futex_wait_loop(t, FUTEX_WAIT);
}

const struct wis_test wis_test_futex2 = {
	.name = "futex2",
	.desc = "futex(FUTEX_WAIT) on a local word with a non-matching value (returns EAGAIN)",
	.loop = loop,
};

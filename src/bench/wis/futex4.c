/* futex4: FUTEX_WAIT_PRIVATE with a non-matching value (EAGAIN at once). */
#include "bench/wis/common.h"
#include "bench/wis/loops.h"

#include <linux/futex.h>

static noreturn void loop(struct wis_task *t)
{
	wis_futex_wait_loop(t, FUTEX_WAIT_PRIVATE);
}

const struct wis_test wis_test_futex4 = {
	.name = "futex4",
	.desc = "futex(FUTEX_WAIT_PRIVATE) on a local word with a non-matching value (returns EAGAIN)",
	.loop = loop,
};

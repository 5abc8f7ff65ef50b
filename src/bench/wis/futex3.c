/* futex3: FUTEX_WAKE_PRIVATE one waiter of a futex word nobody waits on. */
#include "bench/wis/common.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

static noreturn void loop(struct wis_task *t)
{
	struct wis_counter *ops = t->ops;
	unsigned int futex_word = 0;

	for (;;) {
		syscall(SYS_futex, &futex_word, FUTEX_WAKE_PRIVATE, 1, NULL,
			NULL, 0);
		wis_inc(ops, 1);
	}
}

const struct wis_test wis_test_futex3 = {
	.name = "futex3",
	.desc = "futex(FUTEX_WAKE_PRIVATE, 1) on a local futex word nobody waits on",
	.loop = loop,
};

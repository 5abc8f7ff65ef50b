/* getppid1: the raw getppid system call. */
#include "bench/wis/common.h"

#include <sys/syscall.h>
#include <unistd.h>

static noreturn void loop(struct wis_task *t)
{
	struct wis_counter *ops = t->ops;

	for (;;) {
		/* not getppid(): a libc may cache it and skip the kernel */
		syscall(SYS_getppid);
		wis_inc(ops, 1);
	}
}

const struct wis_test wis_test_getppid1 = {
	.name = "getppid1",
	.desc = "getppid() as a raw system call",
	.loop = loop,
};

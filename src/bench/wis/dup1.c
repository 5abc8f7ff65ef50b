/* dup1: dup() then close() a descriptor of an own unlinked file. */
#include "bench/wis/common.h"

#include <unistd.h>

static noreturn void loop(struct wis_task *t)
{
	struct wis_counter *ops = t->ops;
	int fd = wis_task_own_file(t, t->env->dir, "dup1", 0, true);

	for (;;) {
		int fd2 = dup(fd);

		if (WIS_UNLIKELY(fd2 < 0))
			wis_task_fail_errno(t, "dup");
		close(fd2);
		wis_inc(ops, 1);
	}
}

const struct wis_test wis_test_dup1 = {
	.name = "dup1",
	.desc = "dup() then close() a descriptor of an own unlinked file",
	.loop = loop,
};

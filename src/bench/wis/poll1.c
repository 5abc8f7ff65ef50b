/* poll1: poll() one fd of an own file for POLLOUT, timeout 0. */
#include "bench/wis/fileio.h"

static noreturn void loop(struct wis_task *t)
{
	struct pollfd pfd = {
		.fd = wis_task_own_file(t, t->env->dir, "poll1", 0, true),
		.events = POLLOUT,
	};

	fileio_poll_loop(t, &pfd, 1);
}

const struct wis_test wis_test_poll1 = {
	.name = "poll1",
	.desc = "poll() one fd of an own file for POLLOUT, timeout 0",
	.loop = loop,
};

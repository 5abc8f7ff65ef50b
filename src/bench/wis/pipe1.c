/* pipe1: write one byte into an own pipe and read it back (same task). */
#include "bench/wis/common.h"
#include "bench/wis/loops.h"

#include <unistd.h>

static noreturn void loop(struct wis_task *t)
{
	int fds[2];
	char c = 0;

	if (pipe(fds))
		wis_task_fail_errno(t, "pipe");
	wis_echo_loop(t, fds[1], fds[0], &c, 1);
}

const struct wis_test wis_test_pipe1 = {
	.name = "pipe1",
	.desc = "write one byte into an own pipe, then read it back (same task)",
	.loop = loop,
};

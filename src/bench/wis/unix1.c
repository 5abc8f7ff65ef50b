/* unix1: write one byte into an own unix stream socketpair, read it back. */
#include "bench/wis/common.h"
#include "bench/wis/loops.h"

#include <sys/socket.h>

static noreturn void loop(struct wis_task *t)
{
	int fds[2];
	char c = 0;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds))
		wis_task_fail_errno(t, "socketpair");
	wis_echo_loop(t, fds[1], fds[0], &c, 1);
}

const struct wis_test wis_test_unix1 = {
	.name = "unix1",
	.desc = "write one byte into an own unix stream socketpair, then read it back",
	.loop = loop,
};

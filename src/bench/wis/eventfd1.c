/* eventfd1: write 8 bytes to an own eventfd, then read the 8 bytes back. */
#include "bench/wis/common.h"
#include "bench/wis/loops.h"

#include <stdint.h>
#include <sys/eventfd.h>

static noreturn void loop(struct wis_task *t)
{
	/* a read returns the counter (1) and zeroes it for the next write */
	uint64_t val = 1;
	int fd = eventfd(0, EFD_CLOEXEC);

	if (fd < 0)
		wis_task_fail_errno(t, "eventfd");
	wis_echo_loop(t, fd, fd, &val, sizeof(val));
}

const struct wis_test wis_test_eventfd1 = {
	.name = "eventfd1",
	.desc = "write 8 bytes to an own eventfd, then read the 8 bytes back",
	.loop = loop,
};

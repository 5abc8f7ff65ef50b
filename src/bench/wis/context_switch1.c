/*
 * context_switch1: ping-pong one byte over two pipes with a partner task.
 * The partner starts on the task's CPU, as upstream's does: that placement
 * is what the test measures (a same-CPU switch, not a cross-CPU wake-up).
 */
#include "bench/wis/common.h"

#include <fcntl.h>
#include <unistd.h>

struct pipes {
	int ping[2];		/* task -> partner */
	int pong[2];		/* partner -> task */
};

static void setup(struct wis_task *t)
{
	struct pipes *p = wis_task_alloc(t, sizeof(*p), 0);

	if (pipe2(p->ping, O_CLOEXEC) || pipe2(p->pong, O_CLOEXEC))
		wis_task_fail_errno(t, "pipe");
	t->priv = p;
}

static noreturn void partner(struct wis_task *t)
{
	struct pipes *p = t->priv;
	char c;

	for (;;) {
		if (WIS_UNLIKELY(read(p->ping[0], &c, 1) != 1))
			wis_task_fail_errno(t, "partner read");
		if (WIS_UNLIKELY(write(p->pong[1], &c, 1) != 1))
			wis_task_fail_errno(t, "partner write");
	}
}

static noreturn void loop(struct wis_task *t)
{
	struct wis_counter *ops = t->ops;
	struct pipes *p = t->priv;
	char c = 0;

	for (;;) {
		if (WIS_UNLIKELY(write(p->ping[1], &c, 1) != 1))
			wis_task_fail_errno(t, "write");
		if (WIS_UNLIKELY(read(p->pong[0], &c, 1) != 1))
			wis_task_fail_errno(t, "read");
		wis_inc(ops, 2);
	}
}

const struct wis_test wis_test_context_switch1 = {
	.name = "context_switch1",
	.desc = "ping-pong one byte over two pipes with a partner task on the same CPU (2 per round trip)",
	.setup = setup,
	.partner = partner,
	.loop = loop,
};

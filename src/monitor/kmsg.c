/*
 * kmsg: kernel log lines that appear during the window and report a
 * failure (oops, BUG, WARNING, lockups, OOM) as 0/1 failure stats
 * dmesg.<normalised line> = 1 (docs/design.md §6).  Nothing matched: no
 * dmesg.* stat at all.  /dev/kmsg is opened before the window and
 * positioned at its end when the window opens, so only new records count.
 */
#include "monitor/monitor_type.h"
#include "monitor/parse.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* a storm of warnings says no more after this many lines */
#define KMSG_MAX_MATCHES 1000

struct kmsg_state {
	int fd;
};

static int kmsg_open(const struct monitor_ctx *ctx, void **state, struct strbuf *why)
{
	struct kmsg_state *s;

	(void)ctx;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (s->fd < 0) {
		int err = errno;

		strbuf_setf(why, "/dev/kmsg: %s", strerror(err));
		free(s);
		return -ENOTSUP;
	}
	*state = s;
	return 0;
}

static int kmsg_start(void *state)
{
	struct kmsg_state *s = state;

	return lseek(s->fd, 0, SEEK_END) < 0 ? -errno : 0;
}

static int kmsg_stop(void *state, const struct monitor_end *end,
		     struct statmap *stats, struct strmap *env)
{
	struct kmsg_state *s = state;
	/* one record per read, and it must fit: records are < 8 KiB */
	char rec[8192], name[128];
	unsigned matches = 0;

	(void)end;
	(void)env;
	for (;;) {
		const char *msg;
		ssize_t n = read(s->fd, rec, sizeof(rec) - 1);
		size_t len;

		if (n < 0) {
			if (errno == EINTR || errno == EPIPE)
				continue;	/* EPIPE: records were overwritten */
			if (errno == EAGAIN)
				break;
			return -errno;
		}
		if (n == 0)
			break;
		msg = mon_kmsg_message(rec, (size_t)n, &len);
		if (!msg || !mon_kmsg_matches(msg, len))
			continue;
		if (++matches > KMSG_MAX_MATCHES)
			continue;
		if (!mon_kmsg_normalise(msg, len, name, sizeof(name)))
			continue;
		if (statmap_addf(stats, 1, "dmesg.%s", name))
			return -ENOMEM;
	}
	return 0;
}

static void kmsg_close(void *state)
{
	struct kmsg_state *s = state;

	close(s->fd);
	free(s);
}

const struct monitor_type monitor_kmsg = {
	.name = "kmsg",
	.open = kmsg_open,
	.start = kmsg_start,
	.stop = kmsg_stop,
	.close = kmsg_close,
};

#define _GNU_SOURCE
#include "util/perfevent.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define HW(id, n, c) [id] = { n, PERF_TYPE_HARDWARE, PERF_COUNT_HW_##c, 1, "" }
#define SW(id, n, c) [id] = { n, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##c, 1, "" }

const struct perfevent perfevent_table[PE_NR] = {
	/* nanoseconds on the CPU; perf stat prints milliseconds */
	[PE_TASK_CLOCK] = { "task-clock", PERF_TYPE_SOFTWARE,
			    PERF_COUNT_SW_TASK_CLOCK, 1e-6, "msec" },
	SW(PE_CONTEXT_SWITCHES, "context-switches", CONTEXT_SWITCHES),
	SW(PE_CPU_MIGRATIONS, "cpu-migrations", CPU_MIGRATIONS),
	SW(PE_PAGE_FAULTS, "page-faults", PAGE_FAULTS),
	HW(PE_CYCLES, "cycles", CPU_CYCLES),
	HW(PE_INSTRUCTIONS, "instructions", INSTRUCTIONS),
	HW(PE_BRANCHES, "branches", BRANCH_INSTRUCTIONS),
	HW(PE_BRANCH_MISSES, "branch-misses", BRANCH_MISSES),
	HW(PE_CACHE_REFERENCES, "cache-references", CACHE_REFERENCES),
	HW(PE_CACHE_MISSES, "cache-misses", CACHE_MISSES),
};

const struct perfevent *perfevent_find(const char *name)
{
	for (size_t i = 0; i < PE_NR; i++)
		if (!strcmp(perfevent_table[i].name, name))
			return &perfevent_table[i];
	return NULL;
}

/* The one perf_event_open(2) of perfbot: a counting event, disabled. */
static int open_event(const struct perfevent *e, pid_t pid, int cpu,
		      bool for_exec, bool user_only)
{
	struct perf_event_attr attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = e->type;
	attr.config = e->config;
	attr.disabled = 1;
	/* more events than counters get multiplexed: scale by these times */
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	attr.inherit = for_exec;
	attr.enable_on_exec = for_exec;
	attr.exclude_kernel = user_only;
	attr.exclude_hv = user_only;
	fd = syscall(SYS_perf_event_open, &attr, pid, cpu, -1,
		     PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}

int perfevent_open_cpu(const struct perfevent *e, int cpu)
{
	return open_event(e, -1, cpu, false, false);
}

int perfevent_read(int fd, struct perfevent_count *c)
{
	uint64_t v[3];	/* value, time enabled, time running */
	ssize_t n = read(fd, v, sizeof(v));

	if (n < 0)
		return -errno;
	if (n != (ssize_t)sizeof(v))
		return -EIO;
	*c = (struct perfevent_count){ v[0], v[1], v[2] };
	return 0;
}

double perfevent_scaled(const struct perfevent_count *c)
{
	if (!c->running)
		return 0;
	return (double)c->value * ((double)c->enabled / (double)c->running);
}

const char *perfevent_why(const struct perfevent *e, int err)
{
	if (err == ENODATA)
		return "never counted (no free counter)";
	if (e->type == PERF_TYPE_HARDWARE && (err == ENOENT || err == EOPNOTSUPP))
		return "no hardware counter for it (no PMU, as in most VMs)";
	if (err == EACCES || err == EPERM)
		return "not permitted (kernel.perf_event_paranoid, CAP_PERFMON)";
	if (err == EMFILE)
		return "too many open files (raise ulimit -n)";
	return strerror(err);
}

int perfevent_exec_init(struct perfevent_exec *s, const char *const *names,
			size_t nr)
{
	size_t n = nr ? nr : 1;

	memset(s, 0, sizeof(*s));
	s->ev = calloc(n, sizeof(*s->ev));
	s->fd = calloc(n, sizeof(*s->fd));
	s->err = calloc(n, sizeof(*s->err));
	s->refused = calloc(n, sizeof(*s->refused));
	s->user_only = calloc(n, sizeof(*s->user_only));
	if (!s->ev || !s->fd || !s->err || !s->refused || !s->user_only) {
		perfevent_exec_release(s);
		return -ENOMEM;
	}
	s->nr = nr;
	for (size_t i = 0; i < nr; i++)
		s->fd[i] = -1;
	for (size_t i = 0; i < nr; i++) {
		s->ev[i] = perfevent_find(names[i]);
		if (!s->ev[i]) {
			perfevent_exec_release(s);
			return -EINVAL;
		}
	}
	return 0;
}

/* Open event i for the next command: an fd, or -errno. */
static int exec_open(struct perfevent_exec *s, size_t i)
{
	int fd;

	if (s->refused[i])
		return -s->refused[i];
	fd = open_event(s->ev[i], 0, -1, true, s->user_only[i]);
	/* perf stat's fallback: the kernel's part may be what is refused */
	if ((fd == -EACCES || fd == -EPERM) && !s->user_only[i]) {
		/* its error, if any, is the telling one (no PMU) */
		fd = open_event(s->ev[i], 0, -1, true, true);
		s->user_only[i] = fd >= 0;
	}
	/* out of descriptors or memory may pass; the rest will not */
	if (fd < 0 && fd != -EMFILE && fd != -ENFILE && fd != -ENOMEM)
		s->refused[i] = -fd;
	return fd;
}

void perfevent_exec_arm(struct perfevent_exec *s)
{
	for (size_t i = 0; i < s->nr; i++) {
		int fd;

		if (s->fd[i] >= 0)
			continue;
		fd = exec_open(s, i);
		s->fd[i] = fd < 0 ? -1 : fd;
		s->err[i] = fd < 0 ? -fd : 0;
	}
}

void perfevent_exec_collect(struct perfevent_exec *s, double *values)
{
	for (size_t i = 0; i < s->nr; i++) {
		struct perfevent_count c = { 0, 0, 0 };
		int err;

		values[i] = NAN;
		if (s->fd[i] < 0)
			continue;	/* err[i] says why */
		err = perfevent_read(s->fd[i], &c);
		if (!err && !c.running)
			err = -ENODATA;	/* enabled, never on a counter */
		close(s->fd[i]);
		s->fd[i] = -1;
		s->err[i] = -err;
		if (!err)
			values[i] = perfevent_scaled(&c) * s->ev[i]->scale;
	}
}

void perfevent_exec_disarm(struct perfevent_exec *s)
{
	for (size_t i = 0; s->fd && i < s->nr; i++) {
		if (s->fd[i] >= 0)
			close(s->fd[i]);
		s->fd[i] = -1;
	}
}

void perfevent_exec_release(struct perfevent_exec *s)
{
	perfevent_exec_disarm(s);
	free(s->ev);
	free(s->fd);
	free(s->err);
	free(s->refused);
	free(s->user_only);
	memset(s, 0, sizeof(*s));
}

/*
 * The monitor set: the static table of monitor types, the window
 * (open/start/stop/close) and the sampling thread.
 */
#define _GNU_SOURCE
#include "monitor/monitor.h"
#include "monitor/monitor_type.h"
#include "util/parse.h"
#include "util/vec.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static const struct monitor_type *const monitor_table[] = {
	&monitor_time,
	&monitor_proc_stat,
	&monitor_vmstat,
	&monitor_proc_vmstat,
	&monitor_meminfo,
	&monitor_interrupts,
	&monitor_softirqs,
	&monitor_perf_stat,
	&monitor_kmsg,
};

#define NTYPES (sizeof(monitor_table) / sizeof(monitor_table[0]))

/*
 * Not perf-stat: counting software events system-wide puts the kernel's
 * perf hooks on every context switch, which cost context_switch1 4-5 % here
 * (bench/RESULTS.md).  A job that wants it lists it.
 */
const char *const monitor_default_names[] = {
	"time", "proc-stat", "vmstat", "proc-vmstat", "meminfo",
	"interrupts", "softirqs", "kmsg", NULL,
};

static const struct monitor_type *find_type(const char *name)
{
	for (size_t i = 0; i < NTYPES; i++)
		if (!strcmp(monitor_table[i]->name, name))
			return monitor_table[i];
	return NULL;
}

bool monitor_known(const char *name)
{
	return find_type(name) != NULL;
}

const char *monitor_suggest(const char *name)
{
	struct suggest sg;

	suggest_init(&sg, name);
	for (size_t i = 0; i < NTYPES; i++)
		suggest_add(&sg, monitor_table[i]->name);
	return suggest_result(&sg);
}

int procfile_open(struct procfile *pf, const char *path)
{
	int rc;

	pf->buf = NULL;
	pf->cap = pf->len = 0;
	if (vec_reserve_((void **)&pf->buf, &pf->cap, 4096, 1)) {
		pf->fd = -1;
		return -ENOMEM;
	}
	pf->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (pf->fd < 0) {
		rc = -errno;
		goto fail;
	}
	/* a first read sizes the buffer, so sampling does not grow it */
	rc = procfile_read(pf);
	if (rc)
		goto fail;
	return 0;
fail:
	procfile_close(pf);
	return rc;
}

int procfile_read(struct procfile *pf)
{
	size_t len = 0;

	for (;;) {
		ssize_t n;

		/* only when the file outgrew every read before */
		if (vec_reserve_((void **)&pf->buf, &pf->cap, len + 2, 1))
			return -ENOMEM;
		n = pread(pf->fd, pf->buf + len, pf->cap - len - 1, (off_t)len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	pf->buf[len] = '\0';
	pf->len = len;
	return 0;
}

void procfile_close(struct procfile *pf)
{
	if (pf->fd >= 0)
		close(pf->fd);
	free(pf->buf);
	pf->fd = -1;
	pf->buf = NULL;
	pf->cap = pf->len = 0;
}

struct monitor_inst {
	const struct monitor_type *type;
	void *state;
	char *unavailable;	/* the reason, or NULL when it works */
};

struct monitor_set {
	struct monitor_inst *m;
	size_t n;
	double interval_s;
	bool started;
	bool thread_running;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;	/* on CLOCK_MONOTONIC: ticks and stop */
	bool stopping;
};

static int mark_unavailable(struct monitor_inst *mi, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int mark_unavailable(struct monitor_inst *mi, const char *fmt, ...)
{
	struct strbuf why = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&why, fmt, ap);
	va_end(ap);
	if (!why.len)
		strbuf_addstr(&why, "unknown reason");
	free(mi->unavailable);
	mi->unavailable = strbuf_detach(&why, NULL);
	return mi->unavailable ? 0 : -ENOMEM;
}

int monitor_set_open(const char *const *names, const struct monitor_ctx *ctx,
		     struct monitor_set **out, struct strbuf *err)
{
	struct monitor_set *set;
	pthread_condattr_t ca;
	size_t count = 0;
	int rc = 0;

	*out = NULL;
	if (!names)
		names = monitor_default_names;
	if (!ctx || !(ctx->interval_s > 0)) {
		strbuf_setf(err, "monitor interval must be positive");
		return -EINVAL;
	}
	while (names[count])
		count++;
	set = calloc(1, sizeof(*set));
	if (!set)
		return -ENOMEM;
	set->interval_s = ctx->interval_s;
	set->m = calloc(count ? count : 1, sizeof(*set->m));
	if (!set->m) {
		free(set);
		return -ENOMEM;
	}
	pthread_mutex_init(&set->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&set->cond, &ca);
	pthread_condattr_destroy(&ca);

	for (size_t i = 0; i < count; i++) {
		const struct monitor_type *t = find_type(names[i]);
		struct strbuf why = STRBUF_INIT;
		struct monitor_inst *mi;
		bool dup = false;

		if (!t) {
			const char *s = monitor_suggest(names[i]);

			if (s)
				strbuf_setf(err, "unknown monitor '%s' (did you mean '%s'?)",
					names[i], s);
			else
				strbuf_setf(err, "unknown monitor '%s'", names[i]);
			rc = -EINVAL;
			goto out;
		}
		for (size_t j = 0; j < set->n; j++)
			dup |= set->m[j].type == t;
		if (dup)
			continue;
		mi = &set->m[set->n++];
		mi->type = t;
		rc = t->open(ctx, &mi->state, &why);
		if (rc == -ENOTSUP) {
			/* the run goes on without it; env will say why */
			mi->state = NULL;
			rc = mark_unavailable(mi, "%s", why.buf);
		} else if (rc) {
			strbuf_setf(err, "monitor %s: %s", t->name,
				why.len ? why.buf : strerror(-rc));
			mi->state = NULL;
		}
		strbuf_release(&why);
		if (rc)
			goto out;
	}
out:
	if (rc) {
		monitor_set_close(set);
		return rc;
	}
	*out = set;
	return 0;
}

static void lower_priority(void)
{
	struct sched_param sp = { 0 };

	/* best effort: the monitors must not compete with the benchmark */
	if (pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp))
		setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19);
}

static void sample_all(struct monitor_set *set)
{
	for (size_t i = 0; i < set->n; i++) {
		struct monitor_inst *mi = &set->m[i];

		if (!mi->unavailable && mi->type->sample)
			mi->type->sample(mi->state);
	}
}

static void *sampler(void *arg)
{
	struct monitor_set *set = arg;
	long long step_ns = (long long)(set->interval_s * 1e9);
	struct timespec next;

	lower_priority();
	if (step_ns < 1000000)
		step_ns = 1000000;
	clock_gettime(CLOCK_MONOTONIC, &next);
	pthread_mutex_lock(&set->lock);
	while (!set->stopping) {
		struct timespec now;
		int rc = 0;

		next.tv_sec += step_ns / 1000000000LL;
		next.tv_nsec += step_ns % 1000000000LL;
		if (next.tv_nsec >= 1000000000L) {
			next.tv_sec++;
			next.tv_nsec -= 1000000000L;
		}
		while (!set->stopping && rc != ETIMEDOUT)
			rc = pthread_cond_timedwait(&set->cond, &set->lock, &next);
		if (set->stopping)
			break;
		pthread_mutex_unlock(&set->lock);
		sample_all(set);
		pthread_mutex_lock(&set->lock);
		/* starved (SCHED_IDLE on a busy box): skip the missed ticks */
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > next.tv_sec ||
		    (now.tv_sec == next.tv_sec && now.tv_nsec > next.tv_nsec))
			next = now;
	}
	pthread_mutex_unlock(&set->lock);
	return NULL;
}

static void stop_thread(struct monitor_set *set)
{
	if (!set->thread_running)
		return;
	pthread_mutex_lock(&set->lock);
	set->stopping = true;
	pthread_cond_signal(&set->cond);
	pthread_mutex_unlock(&set->lock);
	pthread_join(set->thread, NULL);
	set->thread_running = false;
}

int monitor_set_start(struct monitor_set *set, struct strbuf *err)
{
	bool need_thread = false;
	int rc;

	if (set->started) {
		strbuf_setf(err, "monitors already started");
		return -EALREADY;
	}
	for (size_t i = 0; i < set->n; i++) {
		struct monitor_inst *mi = &set->m[i];

		if (mi->unavailable)
			continue;
		rc = mi->type->start(mi->state);
		if (rc == -ENOMEM)
			return rc;
		if (rc) {
			if (mark_unavailable(mi, "start: %s", strerror(-rc)))
				return -ENOMEM;
			continue;
		}
		need_thread |= mi->type->sample != NULL;
	}
	set->started = true;
	if (!need_thread)
		return 0;
	set->stopping = false;
	rc = pthread_create(&set->thread, NULL, sampler, set);
	if (rc) {
		strbuf_setf(err, "cannot start the monitor thread: %s", strerror(rc));
		return -rc;
	}
	set->thread_running = true;
	return 0;
}

int monitor_set_stop(struct monitor_set *set, const struct monitor_end *end,
		     struct statmap *stats, struct strmap *env, struct strbuf *err)
{
	static const struct monitor_end none = { 0 };
	int rc = 0;

	if (!set->started) {
		strbuf_setf(err, "monitors not started");
		return -EINVAL;
	}
	stop_thread(set);
	set->started = false;
	if (!end)
		end = &none;
	for (size_t i = 0; i < set->n; i++) {
		struct monitor_inst *mi = &set->m[i];

		if (!mi->unavailable) {
			rc = mi->type->stop(mi->state, end, stats, env);
			if (rc == -ENOMEM)
				goto out;
			if (rc) {
				rc = mark_unavailable(mi, "stop: %s", strerror(-rc));
				if (rc)
					goto out;
			}
		}
		if (mi->unavailable) {
			struct strbuf key = STRBUF_INIT;

			strbuf_addf(&key, "monitor.%s", mi->type->name);
			rc = strbuf_error(&key);
			if (!rc)
				rc = strmap_setf(env, key.buf, "unavailable: %s",
						 mi->unavailable);
			strbuf_release(&key);
			if (rc)
				goto out;
		}
	}
out:
	if (rc)
		strbuf_setf(err, "monitors: %s", strerror(-rc));
	return rc;
}

void monitor_set_close(struct monitor_set *set)
{
	if (!set)
		return;
	stop_thread(set);
	for (size_t i = 0; i < set->n; i++) {
		if (set->m[i].state)
			set->m[i].type->close(set->m[i].state);
		free(set->m[i].unavailable);
	}
	pthread_cond_destroy(&set->cond);
	pthread_mutex_destroy(&set->lock);
	free(set->m);
	free(set);
}

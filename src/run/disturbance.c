/*
 * disturbance.c - how disturbed the machine was during a run.  See
 * disturbance.h.
 */
#define _GNU_SOURCE
#include "run/disturbance.h"
#include "util/strbuf.h"
#include "util/timeutil.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define UNIT_CPUS "CPUs"
#define UNIT_TASKS "tasks"

/* ---- arithmetic ------------------------------------------------------------ */

/* b - a in jiffies, 0 when a counter went backwards (it never should) */
static double djiffies(uint64_t a, uint64_t b)
{
	return b > a ? (double)(b - a) : 0.0;
}

/* Time tasks ran or the kernel worked: guest is inside user and nice. */
static double busy_jiffies(const struct cpu_times *a, const struct cpu_times *b)
{
	return djiffies(a->user, b->user) + djiffies(a->nice, b->nice) +
	       djiffies(a->system, b->system) + djiffies(a->irq, b->irq) +
	       djiffies(a->softirq, b->softirq);
}

static double at_least_0(double x)
{
	return x > 0 ? x : 0;
}

void disturbance_compute(const struct disturbance_reading *a,
			 const struct disturbance_reading *b, long clk_tck,
			 const struct disturbance_samples *s,
			 struct disturbance_stats *out)
{
	double dt = b->t - a->t, ours, hz = (double)clk_tck;

	memset(out, 0, sizeof(*out));
	if (!(dt > 0) || clk_tck <= 0)
		return;
	/* CPU time of the benchmark's tasks and of perfbot over the run */
	ours = at_least_0(b->bench_cpu_s - a->bench_cpu_s) +
	       at_least_0(b->self_cpu_s - a->self_cpu_s);
	out->too_short = dt * hz < DISTURBANCE_MIN_JIFFIES;
	if (a->have_cpu && b->have_cpu && !out->too_short) {
		out->have_cpu = true;
		out->others_cpu = at_least_0((busy_jiffies(&a->cpu, &b->cpu) / hz - ours) / dt);
		out->steal = djiffies(a->cpu.steal, b->cpu.steal) / hz / dt;
	}
	if (s && s->n) {
		/* each sample counts the sampler, running as it reads */
		double mean = s->running_sum / (double)s->n - 1;

		out->have_runnable = true;
		out->runnable = at_least_0(mean - ours / dt);
	}
}

int disturbance_parse_loadavg(const char *text, unsigned long *running)
{
	unsigned long r, total;
	int end = 0;

	/* "0.52 0.58 0.59 2/95 12345": running/threads is the fourth field */
	if (sscanf(text, "%*s %*s %*s %lu/%lu%n", &r, &total, &end) != 2 || !end)
		return -EPROTO;
	*running = r;
	return 0;
}

double disturbance_interval(double runtime_s)
{
	double i = runtime_s / 10;

	return i < 0.1 ? 0.1 : i > 1.0 ? 1.0 : i;
}

/* ---- readings ---------------------------------------------------------------- */

struct disturbance {
	int stat_fd, load_fd;		/* -1 when unreadable */
	struct strbuf why_cpu;		/* why there is no CPU reading */
	struct strbuf why_runnable;	/* why there is no runnable sample */
	struct disturbance_reading start;
	struct disturbance_samples samples;	/* the sampler's until joined */
	unsigned long sample_errors;
	int sample_errno;
	double interval_s;

	bool thread_running;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;		/* on CLOCK_MONOTONIC: ticks and stop */
	bool stopping;
	bool started;			/* the sampler is in its loop */
};

static double tv_s(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec * 1e-6;
}

static int read_cpu(struct disturbance *d, struct cpu_times *cpu)
{
	return d->stat_fd < 0 ? -EBADF : procstat_read(d->stat_fd, cpu);
}

static void take(struct disturbance *d, struct disturbance_reading *r)
{
	struct rusage ch, self;
	int rc = read_cpu(d, &r->cpu);

	r->have_cpu = !rc;
	if (rc && d->stat_fd >= 0 && !d->why_cpu.len)
		strbuf_setf(&d->why_cpu, "/proc/stat: %s", strerror(-rc));
	getrusage(RUSAGE_CHILDREN, &ch);
	getrusage(RUSAGE_SELF, &self);
	r->bench_cpu_s = tv_s(&ch.ru_utime) + tv_s(&ch.ru_stime);
	r->self_cpu_s = tv_s(&self.ru_utime) + tv_s(&self.ru_stime);
	r->t = mono_now();
}

static int read_running(int fd, unsigned long *running)
{
	char buf[256];
	ssize_t n;

	do
		n = pread(fd, buf, sizeof(buf) - 1, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return disturbance_parse_loadavg(buf, running);
}

/* Open path or say why not in `why`: the descriptor or -1. */
static int open_proc(const char *path, struct strbuf *why)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		strbuf_setf(why, "%s: %s", path, strerror(errno));
	return fd;
}

/* ---- the sampler ---------------------------------------------------------------- */

static void lower_priority(void)
{
	struct sched_param sp = { 0 };

	/* best effort: the sampler must not compete with the benchmark */
	if (pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp))
		setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19);
}

static void timespec_add_ns(struct timespec *ts, long long ns)
{
	ts->tv_sec += ns / 1000000000LL;
	ts->tv_nsec += ns % 1000000000LL;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

static bool before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

static void *sampler(void *arg)
{
	struct disturbance *d = arg;
	long long step_ns = (long long)(d->interval_s * 1e9);
	struct timespec next, now;

	lower_priority();
	clock_gettime(CLOCK_MONOTONIC, &next);
	pthread_mutex_lock(&d->lock);
	d->started = true;
	pthread_cond_broadcast(&d->cond);
	for (;;) {
		unsigned long running;
		int rc = 0;

		timespec_add_ns(&next, step_ns);
		while (!d->stopping && rc != ETIMEDOUT)
			rc = pthread_cond_timedwait(&d->cond, &d->lock, &next);
		if (d->stopping)
			break;
		pthread_mutex_unlock(&d->lock);
		rc = read_running(d->load_fd, &running);
		if (rc) {
			d->sample_errors++;
			d->sample_errno = -rc;
		} else {
			d->samples.running_sum += (double)running;
			d->samples.n++;
		}
		pthread_mutex_lock(&d->lock);
		/* starved (SCHED_IDLE on a busy box): skip the missed ticks */
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (before(&next, &now))
			next = now;
	}
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

static void start_sampler(struct disturbance *d)
{
	pthread_condattr_t ca;
	sigset_t all, old;
	int rc;

	pthread_mutex_init(&d->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&d->cond, &ca);
	pthread_condattr_destroy(&ca);
	/* the thread inherits a mask that blocks everything: signals go to
	 * the runner's thread, whose waits unblock them (bench/harness.h) */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&d->thread, NULL, sampler, d);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc)
		strbuf_setf(&d->why_runnable, "cannot start the sampler: %s", strerror(rc));
	d->thread_running = !rc;
	/*
	 * The benchmark is forked next, and a fork copies whatever lock
	 * another thread holds at that instant.  A thread's start-up
	 * allocates (ASan's allocator, without fork handlers, left the
	 * leader's first pthread_create waiting on a lock copied held);
	 * the loop the sampler then runs allocates nothing.  So the fork
	 * waits until the sampler is in its loop.
	 */
	pthread_mutex_lock(&d->lock);
	while (d->thread_running && !d->started)
		pthread_cond_wait(&d->cond, &d->lock);
	pthread_mutex_unlock(&d->lock);
}

static void stop_sampler(struct disturbance *d)
{
	if (!d->thread_running)
		return;
	pthread_mutex_lock(&d->lock);
	d->stopping = true;
	pthread_cond_signal(&d->cond);
	pthread_mutex_unlock(&d->lock);
	pthread_join(d->thread, NULL);
	d->thread_running = false;
}

/* ---- start, stop ------------------------------------------------------------------ */

struct disturbance *disturbance_start(const struct disturbance_paths *paths,
				      double interval_s)
{
	const char *stat_path = paths && paths->proc_stat ? paths->proc_stat : "/proc/stat";
	const char *load_path = paths && paths->loadavg ? paths->loadavg : "/proc/loadavg";
	struct disturbance *d = calloc(1, sizeof(*d));
	unsigned long running;
	int rc;

	if (!d)
		return NULL;
	strbuf_init(&d->why_cpu);
	strbuf_init(&d->why_runnable);
	d->interval_s = interval_s > 0.001 ? interval_s : 0.001;
	d->stat_fd = open_proc(stat_path, &d->why_cpu);
	d->load_fd = open_proc(load_path, &d->why_runnable);
	/* a file that opens but does not parse is as unreadable */
	if (d->load_fd >= 0 && (rc = read_running(d->load_fd, &running))) {
		strbuf_setf(&d->why_runnable, "%s: %s", load_path, strerror(-rc));
		close(d->load_fd);
		d->load_fd = -1;
	}
	take(d, &d->start);
	if (d->stat_fd >= 0 && !d->start.have_cpu) {
		close(d->stat_fd);
		d->stat_fd = -1;
	}
	if (d->load_fd >= 0)
		start_sampler(d);
	return d;
}

static int unavailable(struct strmap *env, const char *key, const struct strbuf *why)
{
	return strmap_setf(env, key, "unavailable: %s",
			   strbuf_error(why) ? "out of memory" : why->buf);
}

static int add_stat(struct run_record *rec, const char *name, double v,
		    const char *unit)
{
	return statmap_add(&rec->stats, name, v) |
	       stat_meta_set(&rec->meta, name, unit, STAT_BETTER_NONE, false);
}

int disturbance_stop(struct disturbance *d, struct run_record *rec)
{
	struct disturbance_reading end;
	struct disturbance_stats st;
	int err = 0;

	if (!d)
		return 0;
	stop_sampler(d);
	take(d, &end);
	disturbance_compute(&d->start, &end, sysconf(_SC_CLK_TCK), &d->samples, &st);
	if (st.have_cpu) {
		err |= add_stat(rec, STAT_DISTURBANCE_CPU, st.others_cpu, UNIT_CPUS);
		err |= add_stat(rec, STAT_DISTURBANCE_STEAL, st.steal, UNIT_CPUS);
	} else {
		if (!d->why_cpu.len && st.too_short)
			strbuf_setf(&d->why_cpu,
				    "the run (%.3g s) is too short for /proc/stat's %d jiffies",
				    end.t - d->start.t, DISTURBANCE_MIN_JIFFIES);
		else if (!d->why_cpu.len)
			strbuf_setf(&d->why_cpu, "no time passed");
		err |= unavailable(&rec->env, "disturbance", &d->why_cpu);
	}
	if (st.have_runnable) {
		err |= add_stat(rec, STAT_DISTURBANCE_RUNNABLE, st.runnable, UNIT_TASKS);
	} else {
		/* unreadable from the start: why_runnable says so already */
		if (!d->why_runnable.len && d->sample_errors)
			strbuf_setf(&d->why_runnable, "the running count: %s",
				    strerror(d->sample_errno));
		else if (!d->why_runnable.len)
			strbuf_setf(&d->why_runnable,
				    "no sample in the run's %.3g s (one every %.3g s)",
				    end.t - d->start.t, d->interval_s);
		err |= unavailable(&rec->env, "disturbance.runnable", &d->why_runnable);
	}
	if (d->stat_fd >= 0)
		close(d->stat_fd);
	if (d->load_fd >= 0) {
		/* the sampler's lock and condition exist with the descriptor */
		close(d->load_fd);
		pthread_cond_destroy(&d->cond);
		pthread_mutex_destroy(&d->lock);
	}
	strbuf_release(&d->why_cpu);
	strbuf_release(&d->why_runnable);
	free(d);
	return err ? -ENOMEM : 0;
}

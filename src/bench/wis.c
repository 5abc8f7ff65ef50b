/*
 * wis.c - the will-it-scale engine.  See wis.h for the process layout and
 * why the run is stopped by killing a process group.
 */
#define _GNU_SOURCE
#include "bench/wis.h"
#include "bench/harness.h"
#include "util/fsutil.h"
#include "util/lifetime.h"
#include "util/procstat.h"
#include "util/strbuf.h"
#include "util/timeutil.h"
#include "util/vec.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

/* A task whose setup has not finished by then is taken to be stuck. */
#define READY_TIMEOUT_S 60.0
#define TASK_STACK_SIZE (1024 * 1024)

/*
 * The run in progress, for wis_task_fail(): set in the caller before the
 * leader is forked, so every task inherits it.  A process runs at most
 * one measurement at a time (harness.h), so one pointer.
 */
static const struct harness *wis_harness;

#define fail(out, st, ...) HARNESS_FAIL(out, st, __VA_ARGS__)

noreturn void wis_task_fail(struct wis_task *t, enum wis_status status,
			    const char *fmt, ...)
{
	char msg[WIS_WHY_MAX];
	va_list ap;

	va_start(ap, fmt);
	vfmt_marked(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	harness_die(wis_harness, status, "task %u: %s", t->nr, msg);
}

noreturn void wis_task_fail_errno(struct wis_task *t, const char *fmt, ...)
{
	int err = errno;
	char msg[WIS_WHY_MAX];
	va_list ap;

	va_start(ap, fmt);
	vfmt_marked(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	wis_task_fail(t, err == ENOSYS || err == EOPNOTSUPP ? WIS_UNSUPPORTED
							     : WIS_FAILED,
		      "%s: %s", msg, harness_strerror(err));
}

enum wis_status wis_env_fail(struct wis_env *env, enum wis_status status,
			     const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfmt_marked(env->why, sizeof(env->why), fmt, ap);
	va_end(ap);
	return status;
}

const char *wis_mode_name(enum wis_mode mode)
{
	return mode == WIS_THREAD ? "thread" : "process";
}

const char *wis_status_name(enum wis_status status)
{
	switch (status) {
	case WIS_OK:
		return "complete";
	case WIS_INCOMPLETE:
		return "incomplete";
	case WIS_FAILED:
		return "failed";
	case WIS_UNSUPPORTED:
		return "unsupported";
	case WIS_ERROR:
		return "error";
	}
	return "?";
}

/* ---- CPU placement ---------------------------------------------------- */

/* Rank of `cpu` among its SMT siblings (0 for the first thread of a core). */
static int smt_rank(int cpu)
{
	char path[128], buf[256];
	int fd, first, rank = 0;
	ssize_t n;
	char *p;

	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
		 cpu);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* "0,44" or "0-1": count the siblings listed before cpu */
	for (p = buf; *p && *p != '\n';) {
		first = (int)strtol(p, &p, 10);
		if (*p == '-') {
			int last = (int)strtol(p + 1, &p, 10);

			for (int c = first; c <= last; c++)
				rank += c < cpu;
		} else {
			rank += first < cpu;
		}
		if (*p == ',')
			p++;
		else
			break;
	}
	return rank;
}

/*
 * The CPUs this process may use, first threads of cores first, so that N
 * tasks spread over cores before sharing one (as upstream's hwloc does).
 */
static int usable_cpus(int **out)
{
	cpu_set_t set;
	int *cpus, *rank, n = 0;

	*out = NULL;
	if (sched_getaffinity(0, sizeof(set), &set))
		return -errno;
	cpus = calloc(CPU_SETSIZE, sizeof(*cpus));
	rank = calloc(CPU_SETSIZE, sizeof(*rank));
	if (!cpus || !rank) {
		free(cpus);
		free(rank);
		return -ENOMEM;
	}
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set)) {
			rank[n] = smt_rank(c);
			cpus[n++] = c;
		}
	/* stable insertion sort by rank: n is small and already cpu-ordered */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && rank[j - 1] > rank[j]; j--) {
			int r = rank[j], c = cpus[j];

			rank[j] = rank[j - 1];
			cpus[j] = cpus[j - 1];
			rank[j - 1] = r;
			cpus[j - 1] = c;
		}
	free(rank);
	*out = cpus;
	return n;
}

/* ---- inside the leader and the tasks ------------------------------------ */

struct leader_args {
	const struct harness *h;
	const struct wis_config *cfg;
	const struct wis_env *env;
	struct wis_counter *slots;
	const int *cpus;
	int nr_cpus;
};

struct task_start {
	struct wis_task task;
	const struct wis_test *test;
};

static void *partner_main(void *arg)
{
	struct task_start *ts = arg;

	ts->test->partner(&ts->task);
	return NULL;	/* not reached: partners never return */
}

static noreturn void task_main(struct task_start *ts, enum wis_mode mode)
{
	const struct wis_test *test = ts->test;
	struct wis_task *t = &ts->task;

	if (test->setup)
		test->setup(t);
	if (test->partner) {
		if (mode == WIS_THREAD) {
			pthread_t tid;
			/* a new thread inherits the creating thread's affinity */
			int err = pthread_create(&tid, NULL, partner_main, ts);

			if (err) {
				errno = err;
				wis_task_fail_errno(t, "start partner thread");
			}
		} else {
			pid_t pid = harness_fork_task();	/* inherits affinity too */

			if (pid < 0)
				wis_task_fail_errno(t, "start partner process");
			if (pid == 0) {
				partner_main(ts);
				_exit(HARNESS_EXIT_FAILED);
			}
		}
	}
	test->loop(t);
	abort();	/* not reached: loops never return */
}

static void *task_thread(void *arg)
{
	task_main(arg, WIS_THREAD);
}

static void bind_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	/* best effort: a CPU going offline must not fail the run */
	sched_setaffinity(0, sizeof(set), &set);
}

/* The leader: a child_fork() child, so it has its own group already. */
static int leader_main(void *arg)
{
	const struct leader_args *a = arg;
	const struct wis_config *cfg = a->cfg;
	unsigned n = cfg->nr_tasks;
	struct task_start *starts = calloc(n, sizeof(*starts));
	char name[16];	/* the kernel keeps 15 bytes of a name: cut on purpose */
	int st;

	snprintf(name, sizeof(name), "wis-%s", cfg->test->name);
	prctl(PR_SET_NAME, name);
	if (!starts)
		harness_die(a->h, WIS_ERROR, "leader: out of memory");

	for (unsigned i = 0; i < n; i++) {
		struct task_start *ts = &starts[i];
		int cpu = a->nr_cpus > 0 ? a->cpus[i % (unsigned)a->nr_cpus] : -1;

		ts->test = cfg->test;
		ts->task.nr = i;
		ts->task.env = a->env;
		ts->task.ops = &a->slots[i];
		if (cfg->mode == WIS_THREAD) {
			pthread_attr_t attr;
			pthread_t tid;
			int err;

			pthread_attr_init(&attr);
			pthread_attr_setstacksize(&attr, TASK_STACK_SIZE);
			if (cfg->affinity && cpu >= 0) {
				cpu_set_t set;

				CPU_ZERO(&set);
				CPU_SET(cpu, &set);
				pthread_attr_setaffinity_np(&attr, sizeof(set),
							    &set);
			}
			err = pthread_create(&tid, &attr, task_thread, ts);
			pthread_attr_destroy(&attr);
			if (err)
				harness_die(a->h, WIS_ERROR, "create thread %u: %s",
					    i, harness_strerror(err));
		} else {
			pid_t pid = harness_fork_task();

			if (pid < 0)
				harness_die(a->h, WIS_ERROR, "fork task %u: %s", i,
					    harness_strerror(errno));
			if (pid == 0) {
				if (cfg->affinity && cpu >= 0)
					bind_to_cpu(cpu);
				task_main(ts, WIS_PROCESS);
			}
		}
	}

	if (cfg->mode == WIS_THREAD) {
		/* a failing thread _exit()s the whole leader */
		for (;;)
			pause();
	}
	/* process mode: any task that ends, ends the run */
	if (harness_wait_task(&st) > 0)
		harness_fail_ended(a->h, WIS_FAILED, st, "a task");
	return HARNESS_EXIT_FAILED;
}

/* ---- in the caller ---------------------------------------------------- */

struct run {
	const struct wis_config *cfg;
	struct wis_env env;
	char *dir, *shm_dir;
	struct harness h;	/* its area: the counters */
	struct wis_counter *slots;
	int statfd;
	bool prepared;
};

static int setup_run(struct run *r, struct wis_result *out)
{
	const struct wis_config *cfg = r->cfg;
	const char *shm_base = cfg->shm_base;
	char prefix[96];
	int err;

	snprintf(prefix, sizeof(prefix), "perfbot-wis-%s", cfg->test->name);
	err = make_temp_dir(cfg->tmp_base, prefix, &r->dir);
	if (err)
		return fail(out, WIS_ERROR, "cannot create a temp dir: %s",
			    strerror(-err));
	/* this process's shm root: the watchdog or a sweep removes it */
	if (!shm_base)
		shm_base = lifetime_shm_root();
	if (!shm_base)
		shm_base = getenv("PERFBOT_SHMDIR");
	if (!shm_base || !*shm_base)
		shm_base = "/dev/shm";
	err = make_temp_dir(shm_base, prefix, &r->shm_dir);
	if (err)
		return fail(out, WIS_ERROR, "cannot create a temp dir in %s: %s",
			    shm_base, strerror(-err));

	r->env.dir = r->dir;
	r->env.shm_dir = r->shm_dir;
	r->env.nr_tasks = cfg->nr_tasks;
	r->env.mode = cfg->mode;
	r->statfd = procstat_open();
	return WIS_OK;
}

static enum wis_status start_tasks(struct run *r, struct wis_result *out)
{
	const struct wis_config *cfg = r->cfg;
	struct leader_args a = {
		.h = &r->h, .cfg = cfg, .env = &r->env, .slots = r->slots,
	};
	int *cpus = NULL;
	int err;

	if (cfg->affinity) {
		a.nr_cpus = usable_cpus(&cpus);
		if (a.nr_cpus < 0)
			return fail(out, WIS_ERROR, "cannot read the CPU affinity: %s",
				    strerror(-a.nr_cpus));
		a.cpus = cpus;
	}
	err = harness_start(&r->h, leader_main, &a);
	free(cpus);
	if (err)
		return fail(out, WIS_ERROR, "fork: %s", strerror(-err));
	return WIS_OK;
}

struct ready_count {
	const struct run *r;
	unsigned ready;		/* tasks 0 .. ready-1 have counted */
};

static bool all_counted(void *arg)
{
	struct ready_count *c = arg;
	unsigned n = c->r->cfg->nr_tasks;

	while (c->ready < n &&
	       atomic_load_explicit(&c->r->slots[c->ready].ops,
				    memory_order_relaxed))
		c->ready++;
	return c->ready == n;
}

/* Wait until every task has counted once; WIS_OK, or why not. */
static enum wis_status wait_ready(struct run *r, struct wis_result *out)
{
	struct ready_count c = { .r = r };
	unsigned n = r->cfg->nr_tasks;

	switch (harness_wait_ready(&r->h, mono_now() + READY_TIMEOUT_S,
				   all_counted, &c)) {
	case HARNESS_READY:
		return WIS_OK;
	case HARNESS_STOPPED:
		return fail(out, WIS_INCOMPLETE,
			    "stopped before the tasks were ready");
	case HARNESS_EXITED:
		return WIS_FAILED;	/* the leader says why */
	case HARNESS_DEADLINE:
		break;
	}
	return fail(out, WIS_FAILED,
		    "%u of %u tasks had not counted once after %.0f s",
		    n - c.ready, n, READY_TIMEOUT_S);
}

static void read_counters(const struct run *r, uint64_t *now)
{
	for (unsigned i = 0; i < r->cfg->nr_tasks; i++)
		now[i] = atomic_load_explicit(&r->slots[i].ops,
					      memory_order_relaxed);
}

/* The result's samples grow as a vec (util/vec.h), its capacity kept here. */
static int push_sample(struct wis_result *out, size_t *cap,
		       const struct wis_sample *s)
{
	if (vec_reserve_((void **)&out->samples, cap, out->nr_samples + 1,
			 sizeof(*out->samples)))
		return -ENOMEM;
	out->samples[out->nr_samples++] = *s;
	return 0;
}

/* Sample from the end of warm-up to the duration or a stop. */
static enum wis_status measure(struct run *r, struct wis_result *out,
			       double *idle_pct)
{
	const struct wis_config *cfg = r->cfg;
	unsigned n = cfg->nr_tasks;
	uint64_t *prev = calloc(n, sizeof(*prev)), *now = calloc(n, sizeof(*now));
	struct cpu_times cpu_start = { 0 }, cpu_prev, cpu_now;
	bool have_cpu;
	double t0, t_prev;
	size_t cap = 0;
	enum wis_status status = WIS_OK;
	enum harness_wake w = HARNESS_DEADLINE;

	*idle_pct = -1;
	if (!prev || !now) {
		status = fail(out, WIS_ERROR, "out of memory");
		goto out;
	}
	harness_phase(&r->h, "warm-up");
	w = harness_wait(&r->h, mono_now() + cfg->warmup_s);
	if (w != HARNESS_DEADLINE)
		goto out;
	harness_phase(&r->h, "measure");

	have_cpu = r->statfd >= 0 && !procstat_read(r->statfd, &cpu_start);
	cpu_prev = cpu_start;
	read_counters(r, prev);
	t0 = t_prev = mono_now();
	for (size_t k = 1; w == HARNESS_DEADLINE; k++) {
		double tick = fmin((double)k * cfg->interval_s, cfg->duration_s);
		struct wis_sample s = { 0 };
		double t;

		w = harness_wait(&r->h, t0 + tick);
		if (w == HARNESS_EXITED)
			break;
		read_counters(r, now);
		t = mono_now();
		s.start_s = t_prev - t0;
		s.secs = t - t_prev;
		/* a stop right after a tick leaves nothing worth a sample */
		if (w == HARNESS_STOPPED && s.secs < 1e-3)
			break;
		s.min_task = INFINITY;
		for (unsigned i = 0; i < n; i++) {
			uint64_t d = now[i] - prev[i];
			double rate = (double)d / s.secs;

			s.ops += d;
			s.min_task = fmin(s.min_task, rate);
			s.max_task = fmax(s.max_task, rate);
			prev[i] = now[i];
		}
		s.total = (double)s.ops / s.secs;
		s.idle_pct = -1;
		if (have_cpu && !procstat_read(r->statfd, &cpu_now)) {
			s.idle_pct = cpu_times_idle_pct(&cpu_prev, &cpu_now);
			cpu_prev = cpu_now;
		}
		if (push_sample(out, &cap, &s)) {
			status = fail(out, WIS_ERROR, "out of memory");
			goto out;
		}
		if (cfg->on_sample)
			cfg->on_sample(&s, out->nr_samples - 1, cfg->arg);
		t_prev = t;
		if (tick >= cfg->duration_s)
			break;
	}
	if (have_cpu)
		*idle_pct = cpu_times_idle_pct(&cpu_start, &cpu_prev);
out:
	if (w == HARNESS_STOPPED && status == WIS_OK) {
		if (out->nr_samples)
			fail(out, WIS_INCOMPLETE, "stopped after %zu samples",
			     out->nr_samples);
		else
			fail(out, WIS_INCOMPLETE, "stopped during warm-up");
		status = WIS_INCOMPLETE;
	} else if (w == HARNESS_EXITED && status == WIS_OK) {
		status = WIS_FAILED;
	}
	free(prev);
	free(now);
	return status;
}

static void teardown(struct run *r)
{
	/* cleanup() runs once every task is gone */
	harness_stop(&r->h);
	if (r->prepared && r->cfg->test->cleanup)
		r->cfg->test->cleanup(&r->env);
	if (r->statfd >= 0)
		close(r->statfd);
	if (r->dir)
		remove_tree(r->dir);
	if (r->shm_dir)
		remove_tree(r->shm_dir);
	free(r->dir);
	free(r->shm_dir);
	harness_close(&r->h);
	wis_harness = NULL;
}

enum wis_status wis_run(const struct wis_config *cfg, struct wis_result *out)
{
	struct run r = { .cfg = cfg, .statfd = -1 };
	struct harness_config hc = {
		.area_size = (size_t)cfg->nr_tasks * sizeof(struct wis_counter),
		.stop = cfg->stop, .on_phase = cfg->on_phase, .arg = cfg->arg,
	};
	double idle_pct = -1;
	enum wis_status st;
	int err;

	memset(out, 0, sizeof(*out));
	out->nr_tasks = cfg->nr_tasks;
	out->idle_pct = -1;
	if (!cfg->test || cfg->nr_tasks < 1 || cfg->nr_tasks > WIS_MAX_TASKS ||
	    !(cfg->interval_s > 0) || cfg->duration_s < cfg->interval_s ||
	    cfg->warmup_s < 0)
		return fail(out, WIS_ERROR, "invalid run configuration");
	if (cfg->stop && *cfg->stop)
		return fail(out, WIS_INCOMPLETE, "stopped before the start");

	err = harness_open(&r.h, &hc);
	wis_harness = &r.h;
	r.slots = r.h.area;
	if (err) {
		st = fail(out, WIS_ERROR, "cannot map the counters: %s",
			  strerror(-err));
		goto out;
	}
	st = setup_run(&r, out);
	if (st != WIS_OK)
		goto out;
	if (cfg->test->prepare) {
		st = cfg->test->prepare(&r.env);
		if (st != WIS_OK) {
			fail(out, st, "%s", r.env.why);
			goto out;
		}
	}
	r.prepared = true;
	st = start_tasks(&r, out);
	if (st != WIS_OK)
		goto out;
	st = wait_ready(&r, out);
	if (st == WIS_OK)
		st = measure(&r, out, &idle_pct);
	harness_stop(&r.h);
	/* a task's own report wins, even over a stop at the same time */
	st = harness_outcome(&r.h, st, WIS_FAILED, out->why, sizeof(out->why),
			     "the tasks", true);
	wis_result_summarize(out, cfg->nr_tasks, idle_pct);
out:
	out->status = st;
	teardown(&r);
	return st;
}

void wis_result_summarize(struct wis_result *r, unsigned nr_tasks,
			  double idle_pct)
{
	double ops = 0, sum = 0, sq = 0, mean;
	size_t n = r->nr_samples;

	r->nr_tasks = nr_tasks;
	r->idle_pct = idle_pct;
	r->measured_s = 0;
	r->workload = r->per_task = r->min = r->max = r->stddev = 0;
	if (!n)
		return;
	r->min = INFINITY;
	for (size_t i = 0; i < n; i++) {
		const struct wis_sample *s = &r->samples[i];

		ops += (double)s->ops;
		r->measured_s += s->secs;
		sum += s->total;
		r->min = fmin(r->min, s->total);
		r->max = fmax(r->max, s->total);
	}
	/* weighted by time, so a short last sample counts for what it is */
	r->workload = r->measured_s > 0 ? ops / r->measured_s : 0;
	r->per_task = nr_tasks ? r->workload / nr_tasks : 0;
	mean = sum / (double)n;
	for (size_t i = 0; i < n; i++) {
		double d = r->samples[i].total - mean;

		sq += d * d;
	}
	r->stddev = n > 1 ? sqrt(sq / (double)(n - 1)) : 0;
}

void wis_result_release(struct wis_result *r)
{
	free(r->samples);
	r->samples = NULL;
	r->nr_samples = 0;
}

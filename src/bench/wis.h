/*
 * wis.h - the will-it-scale engine: run one test with N tasks and sample
 * their counters.
 *
 * A test (one file under src/bench/wis/) is a loop that performs one
 * operation and adds to its task's counter.  The engine runs N copies of
 * that loop as processes or threads and reads the counters from the
 * calling process once per interval.
 *
 * Process layout of a run (why: stopping must never deadlock):
 *
 *   caller (perfbot) -- prepare(), sampling, cleanup(); child subreaper
 *     `- leader        own process group; holds the tasks, never counts
 *          |- task 0 .. N-1   (threads of the leader, or its children)
 *          `- partner of each task, when the test has one
 *
 * The run ends with SIGKILL to the whole process group, then every member
 * is reaped by the caller.  No task is ever asked to stop or cancelled, so
 * a task killed inside malloc() or holding a lock cannot hang the exit.
 * Every task and the leader also die with their parent (PR_SET_PDEATHSIG).
 * The leader, the waits, the failure report and the end are the run
 * harness's (bench/harness.h), which hackbench and netperf share.
 *
 * Threading: wis_run() is called from one thread.  While it runs it blocks
 * SIGINT, SIGTERM and SIGHUP and waits with them unblocked, so a handler the
 * caller installed for them wakes it at once; the handler sets *cfg->stop.
 * wis_run() makes the calling process a child subreaper
 * (PR_SET_CHILD_SUBREAPER) so that orphaned task processes are reaped here.
 *
 * Ownership: struct wis_result owns its samples; release them with
 * wis_result_release().  Tests own nothing the engine frees.
 */
#ifndef PERFBOT_BENCH_WIS_H
#define PERFBOT_BENCH_WIS_H

#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdnoreturn.h>

#define WIS_MAX_TASKS 4096
/* Upstream uses 256-byte slots: a whole line plus the adjacent-line prefetch. */
#define WIS_SLOT_SIZE 256
#define WIS_WHY_MAX 256

enum wis_mode { WIS_PROCESS, WIS_THREAD };

/* How a run, a prepare() or a task ended. */
enum wis_status {
	WIS_OK = 0,
	WIS_INCOMPLETE,		/* stopped early (*cfg->stop); samples so far are valid */
	WIS_FAILED,		/* a task failed or died; the reason says which */
	WIS_UNSUPPORTED,	/* cannot run here: missing syscall, fs, permission */
	WIS_ERROR,		/* the harness itself failed (fork, mmap, temp dir) */
};

/*
 * One task's counter, alone in its slot.  Only its task writes it; the
 * caller reads it.  Warm-up starts once every task has counted once, so
 * per-task setup done before a loop's first count is never measured.
 */
struct wis_counter {
	_Atomic uint64_t ops;
	char pad[WIS_SLOT_SIZE - sizeof(uint64_t)];
} __attribute__((aligned(WIS_SLOT_SIZE)));

/*
 * Count n operations.  One writer per counter, so a relaxed load and store
 * suffice: on x86 this is a plain add to memory, no locked instruction.
 */
static inline void wis_inc(struct wis_counter *c, uint64_t n)
{
	atomic_store_explicit(&c->ops,
			      atomic_load_explicit(&c->ops, memory_order_relaxed) + n,
			      memory_order_relaxed);
}

/* What prepare() and cleanup() see; lives in the caller. */
struct wis_env {
	const char *dir;	/* the run's private temp dir (disk filesystem) */
	const char *shm_dir;	/* the run's private dir on tmpfs (/dev/shm) */
	unsigned nr_tasks;
	enum wis_mode mode;
	char why[WIS_WHY_MAX];	/* set with wis_env_fail() */
};

/* What one task sees.  In thread mode each task has its own struct. */
struct wis_task {
	unsigned nr;		/* 0 .. nr_tasks-1: picks own file, offset, dir */
	const struct wis_env *env;
	struct wis_counter *ops;
	void *priv;		/* set by setup(), read by partner() */
};

/*
 * A test.  Hooks run where noted; the loop and the partner never return.
 * Tests keep state shared by all tasks in file-scope variables set by
 * prepare(): the tasks inherit them (fork, or the leader's copy).
 */
struct wis_test {
	const char *name;
	const char *desc;	/* one line: what one loop iteration does */
	/* once, in the caller, before any task starts; returns WIS_OK or
	 * wis_env_fail(env, WIS_UNSUPPORTED|WIS_ERROR, ...) */
	enum wis_status (*prepare)(struct wis_env *env);
	/* in each task, before it counts; may set t->priv; fails through
	 * wis_task_fail() */
	void (*setup)(struct wis_task *t);
	/* optional: started by the engine after setup(), as a thread or a
	 * process like the task and on the task's CPU (it inherits the task's
	 * affinity), as upstream's context_switch1 does */
	/*
	 * partner and loop never return.  Not __noreturn__ on the pointers:
	 * clang makes that part of the type, and the tests' noreturn
	 * (_Noreturn) functions would not convert to it.
	 */
	void (*partner)(struct wis_task *t);
	void (*loop)(struct wis_task *t);
	/* once, in the caller, after every task is gone; only when prepare()
	 * succeeded or there is none (a failing prepare() undoes itself) */
	void (*cleanup)(struct wis_env *env);
	bool hidden;		/* harness self-tests: not in the catalogue listing */
};

/* Record why prepare() failed; returns `status` for a one-line return. */
enum wis_status wis_env_fail(struct wis_env *env, enum wis_status status,
			     const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * End the run from inside a task: the first failure's reason is kept and
 * reported, the task exits.  status is WIS_FAILED or WIS_UNSUPPORTED.
 * wis_task_fail_errno() appends ": <strerror(errno)>"; ENOSYS and
 * EOPNOTSUPP make it WIS_UNSUPPORTED (the kernel or filesystem lacks the
 * operation), anything else WIS_FAILED.
 */
noreturn void wis_task_fail(struct wis_task *t, enum wis_status status,
			    const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
noreturn void wis_task_fail_errno(struct wis_task *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* One sample: the counters' change over one interval. */
struct wis_sample {
	double start_s;		/* since the measurement began */
	double secs;		/* its real length, from CLOCK_MONOTONIC */
	uint64_t ops;		/* all tasks' operations in it */
	double total;		/* ops / secs */
	double min_task;	/* slowest task's ops/s */
	double max_task;	/* fastest task's ops/s */
	double idle_pct;	/* machine idle % from /proc/stat, or -1 */
};

struct wis_config {
	const struct wis_test *test;
	unsigned nr_tasks;	/* 1 .. WIS_MAX_TASKS */
	enum wis_mode mode;
	bool affinity;		/* bind tasks round-robin to the usable CPUs */
	double warmup_s;	/* >= 0 */
	double duration_s;	/* measurement, after warm-up; >= interval_s */
	double interval_s;	/* > 0 */
	const char *tmp_base;	/* NULL: $TMPDIR, else /tmp */
	const char *shm_base;	/* NULL: $PERFBOT_SHMDIR, else /dev/shm */
	volatile sig_atomic_t *stop;	/* may be NULL; non-zero stops the run */
	/* called in the caller after each sample, may be NULL */
	void (*on_sample)(const struct wis_sample *s, size_t idx, void *arg);
	/* called when warm-up starts and when measuring starts, may be NULL */
	void (*on_phase)(const char *phase, void *arg);
	void *arg;
};

struct wis_result {
	enum wis_status status;
	char why[WIS_WHY_MAX];	/* for anything but WIS_OK */
	size_t nr_samples;
	struct wis_sample *samples;
	/* from wis_result_summarize(): */
	double measured_s;	/* sum of sample lengths */
	double workload;	/* total ops/s: all ops / measured_s */
	double per_task;	/* workload / nr_tasks (LKP per_{process,thread}_ops) */
	double min, max, stddev;	/* over the samples' totals; stddev sample (n-1) */
	double idle_pct;	/* over the whole measurement, or -1 */
	unsigned nr_tasks;
	bool aslr_disabled;	/* filled by the caller: it owns the personality */
};

/*
 * Run one measurement.  Returns the result's status; `out` is always
 * initialised and must be released, whatever the status.  Nothing the run
 * started (processes, temp dirs) remains when it returns.
 */
enum wis_status wis_run(const struct wis_config *cfg, struct wis_result *out);

/* Derive workload, per_task, min/max/stddev from the samples. */
void wis_result_summarize(struct wis_result *r, unsigned nr_tasks,
			  double idle_pct);
void wis_result_release(struct wis_result *r);

const char *wis_mode_name(enum wis_mode mode);
const char *wis_status_name(enum wis_status status);

#endif

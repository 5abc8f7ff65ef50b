/*
 * hackbench.c - rt-tests' hackbench inside perfbot.  See hackbench.h for
 * the process layout and why an iteration is stopped by killing a process
 * group.
 *
 * The groups are built as rt-tests builds them: per group, FDS pairs
 * (socketpair or pipe), one per receiver; every sender of the group holds
 * the write ends of all of them and writes LOOPS messages of BYTES bytes
 * down each in turn; each receiver reads FDS x LOOPS messages from its one
 * read end.  Workers report ready on one pair and wait for a byte on
 * another; the clock starts when the leader writes that byte and stops
 * when the last worker has been reaped or joined.
 */
#define _GNU_SOURCE
#include "bench/hackbench.h"
#include "bench/harness.h"
#include "util/parse.h"
#include "util/timeutil.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* A worker whose peer went away first: a consequence, not the cause. */
#define EXIT_PEER_LOST 92
/* Written on the ready pair instead of a ready byte: "I failed, see why". */
#define READY_FAILED '!'
/* Process mode: how often the leader looks for a worker that died early. */
#define READY_POLL_MS 100
/* How long a peer-lost worker's leader looks for the worker that caused it. */
#define CAUSE_GRACE_S 0.2
/* Besides the pairs: stdio, ready and wake, and what perfbot may hold. */
#define NOFILE_SLACK 64

/*
 * Workers run a few calls deep (read, write, poll, and vsnprintf on
 * failure); rt-tests gives them PTHREAD_STACK_MIN.  The sanitizers'
 * redzones need more.  A message up to STACK_BUF_MAX lives on the stack
 * too, as in rt-tests: separate mappings, so no two threads' buffers share
 * a cache line.
 */
#if defined(__SANITIZE_ADDRESS__)
#define WORKER_STACK_BASE (1024 * 1024)
#else
#define WORKER_STACK_BASE (32 * 1024)
#endif
#define STACK_BUF_MAX (16 * 1024)

/*
 * hackbench's part of the harness's shared area (the first failure is the
 * harness's): written by the leader and its workers, reset per iteration.
 */
struct shared {
	/* the first worker that lost its peer, for when no cause is found */
	struct harness_reason peer_lost;
	double seconds;		/* valid when the leader exits with 0 */
};

struct leader;

struct worker {
	struct leader *l;
	bool sender;
	unsigned group, nr;	/* nr within the group's senders or receivers */
	int in_fd;		/* a receiver's read end */
	const int *out_fds;	/* a sender's: its group's write ends */
};

struct leader {
	const struct hackbench_config *cfg;
	const struct harness *h;
	struct shared *sh;
	int ready[2], wake[2];	/* [0] read end, [1] write end */
	/* thread mode: every pair of every group; process mode: one group's */
	int *rd, *wr;
	struct worker *workers;	/* thread mode */
	pthread_t *tids;	/* thread mode */
	unsigned long started;	/* workers started so far */
};

/* ---- the workers ------------------------------------------------------ */

static const char *worker_role(const struct worker *w)
{
	return w->sender ? "sender" : "receiver";
}

/* Record why, and end the iteration: _exit() takes the threads too. */
static noreturn void worker_fail(struct worker *w, const char *what, int err)
{
	harness_die(w->l->h, HACKBENCH_FAILED, "group %u %s %u: %s: %s",
		    w->group, worker_role(w), w->nr, what, harness_strerror(err));
}

/*
 * The other end is gone (EPIPE, ECONNRESET, end of file): some worker
 * died first, and the leader reports that one if it can find it.
 */
static noreturn void worker_lost_peer(struct worker *w, const char *what)
{
	harness_reason_set(&w->l->sh->peer_lost, HACKBENCH_FAILED,
			   "group %u %s %u: %s", w->group, worker_role(w), w->nr,
			   what);
	_exit(EXIT_PEER_LOST);
}

/* Report ready and block until the leader says go. */
static void worker_ready(struct worker *w)
{
	struct pollfd pfd = { .fd = w->l->wake[0], .events = POLLIN };
	char c = '*';
	ssize_t n;

	do {
		n = write(w->l->ready[1], &c, 1);
	} while (n < 0 && errno == EINTR);
	if (n != 1)
		worker_fail(w, "report ready", n < 0 ? errno : EIO);
	/* nobody reads the go byte: it stays readable for every worker */
	while (poll(&pfd, 1, -1) < 0)
		if (errno != EINTR)
			worker_fail(w, "wait for the start", errno);
}

static noreturn void worker_setup_failed(struct worker *w, const char *what,
					 int err)
{
	char c = READY_FAILED;

	harness_fail(w->l->h, HACKBENCH_ERROR, "group %u %s %u: %s: %s",
		     w->group, worker_role(w), w->nr, what, harness_strerror(err));
	/* so the leader need not wait for a ready byte that never comes */
	if (write(w->l->ready[1], &c, 1) < 0)
		_exit(HARNESS_EXIT_FAILED);
	_exit(HARNESS_EXIT_FAILED);
}

static void sender(struct worker *w, char *buf)
{
	const struct hackbench_config *cfg = w->l->cfg;

	memset(buf, '-', cfg->bytes);
	for (unsigned long i = 0; i < cfg->loops; i++) {
		for (unsigned j = 0; j < cfg->fds; j++) {
			size_t done = 0;

			while (done < cfg->bytes) {
				ssize_t n = write(w->out_fds[j], buf + done,
						  cfg->bytes - done);

				if (n < 0 && errno == EINTR)
					continue;
				if (n < 0 && (errno == EPIPE || errno == ECONNRESET))
					worker_lost_peer(w, errno == EPIPE
						? "write: the receiver is gone"
						: "write: the receiver reset the connection");
				if (n < 0)
					worker_fail(w, "write", errno);
				done += (size_t)n;
			}
		}
	}
}

static void receiver(struct worker *w, char *buf)
{
	const struct hackbench_config *cfg = w->l->cfg;
	unsigned long packets = cfg->loops * cfg->fds;

	for (unsigned long i = 0; i < packets; i++) {
		size_t done = 0;

		/* a stream: one message may come in several reads */
		while (done < cfg->bytes) {
			ssize_t n = read(w->in_fd, buf + done, cfg->bytes - done);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				worker_fail(w, "read", errno);
			if (n == 0)
				worker_lost_peer(w, "read: the senders closed early");
			done += (size_t)n;
		}
	}
}

/* Larger messages: not sharing a cache line, nor its prefetched neighbour. */
#define BUF_ALIGN 128

static void worker_run(struct worker *w)
{
	size_t bytes = w->l->cfg->bytes;
	char stack_buf[bytes <= STACK_BUF_MAX ? bytes : 1];
	char *buf = stack_buf, *heap_buf = NULL;

	if (bytes > STACK_BUF_MAX) {
		heap_buf = aligned_alloc(BUF_ALIGN, (bytes + BUF_ALIGN - 1) /
						    BUF_ALIGN * BUF_ALIGN);
		buf = heap_buf;
	}
	if (!buf)
		worker_setup_failed(w, "message buffer", ENOMEM);
	worker_ready(w);
	if (w->sender)
		sender(w, buf);
	else
		receiver(w, buf);
	free(heap_buf);
}

static void *worker_thread(void *arg)
{
	worker_run(arg);
	return NULL;
}

/* ---- the leader ------------------------------------------------------- */

static int fdpair(const struct hackbench_config *cfg, int fds[2])
{
	if (cfg->pipe)
		return pipe(fds) ? -errno : 0;
	return socketpair(AF_UNIX, SOCK_STREAM, 0, fds) ? -errno : 0;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* The pair slots one group uses in l->rd and l->wr. */
static unsigned group_base(const struct leader *l, unsigned g)
{
	return l->cfg->threads ? g * l->cfg->fds : 0;
}

/* In a new worker process: keep only the worker's own ends. */
static void worker_process_fds(struct leader *l, struct worker *w)
{
	unsigned base = group_base(l, w->group);

	close_fd(&l->ready[0]);
	close_fd(&l->wake[1]);
	for (unsigned i = 0; i < l->cfg->fds; i++) {
		if (w->sender || i != w->nr)
			close_fd(&l->rd[base + i]);
		if (!w->sender)
			close_fd(&l->wr[base + i]);
	}
}

static int start_worker(struct leader *l, struct worker *w)
{
	const struct hackbench_config *cfg = l->cfg;
	pid_t pid;

	if (cfg->threads) {
		pthread_attr_t attr;
		int err;

		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, WORKER_STACK_BASE +
					  (cfg->bytes <= STACK_BUF_MAX ? cfg->bytes : 0));
		err = pthread_create(&l->tids[l->started], &attr, worker_thread, w);
		pthread_attr_destroy(&attr);
		if (err) {
			harness_fail(l->h, HACKBENCH_ERROR,
				     "cannot start worker thread %lu: %s",
				     l->started + 1, harness_strerror(err));
			return -err;
		}
		l->started++;
		return 0;
	}
	pid = harness_fork_task();
	if (pid < 0) {
		int err = errno;

		harness_fail(l->h, HACKBENCH_ERROR,
			     "cannot start worker process %lu: %s",
			     l->started + 1, harness_strerror(err));
		return -err;
	}
	if (pid == 0) {
		worker_process_fds(l, w);
		worker_run(w);
		_exit(0);
	}
	l->started++;
	return 0;
}

/* One group: its pairs, FDS receivers, then FDS senders. */
static int start_group(struct leader *l, unsigned g)
{
	const struct hackbench_config *cfg = l->cfg;
	unsigned base = group_base(l, g);
	struct worker *ws = NULL, local;
	int err = 0;

	for (unsigned i = 0; i < cfg->fds; i++) {
		int fds[2];

		err = fdpair(cfg, fds);
		if (err) {
			harness_fail(l->h, HACKBENCH_ERROR,
				     "cannot create a %s for group %u: %s",
				     cfg->pipe ? "pipe" : "socketpair", g,
				     harness_strerror(-err));
			goto out;
		}
		l->rd[base + i] = fds[0];
		l->wr[base + i] = fds[1];
	}
	if (cfg->threads)
		ws = &l->workers[(unsigned long)g * 2 * cfg->fds];
	for (unsigned i = 0; i < 2 * cfg->fds; i++) {
		/* a forked worker has its own copy: one struct will do */
		struct worker *w = ws ? &ws[i] : &local;

		w->l = l;
		w->group = g;
		w->sender = i >= cfg->fds;
		w->nr = w->sender ? i - cfg->fds : i;
		w->in_fd = l->rd[base + w->nr];
		w->out_fds = &l->wr[base];
		err = start_worker(l, w);
		if (err)
			goto out;
		/* the leader has no use for the read ends; rt-tests drops them too */
		if (!cfg->threads && i == cfg->fds - 1)
			for (unsigned j = 0; j < cfg->fds; j++)
				close_fd(&l->rd[base + j]);
	}
out:
	if (!cfg->threads)
		for (unsigned j = 0; j < cfg->fds; j++) {
			close_fd(&l->rd[base + j]);
			close_fd(&l->wr[base + j]);
		}
	return err;
}

/* A worker that only saw another one go: SIGPIPE is rt-tests' EPIPE. */
static bool lost_peer(int st)
{
	return (WIFEXITED(st) && WEXITSTATUS(st) == EXIT_PEER_LOST) ||
	       (WIFSIGNALED(st) && WTERMSIG(st) == SIGPIPE);
}

static void explain_worker_death(struct leader *l, int st)
{
	double until = mono_now() + CAUSE_GRACE_S;
	const char *peer_why;

	/*
	 * The worker whose death this one saw has closed its ends but may
	 * not be a zombie yet: look for it a little while.
	 */
	while (lost_peer(st) && mono_now() < until) {
		int other;
		pid_t pid = waitpid(-1, &other, WNOHANG);

		if (pid > 0 && !lost_peer(other) &&
		    (!WIFEXITED(other) || WEXITSTATUS(other)))
			st = other;
		else if (pid <= 0)
			usleep(1000);
		if (pid < 0 && errno == ECHILD)
			break;
	}
	if (lost_peer(st) && harness_reason_get(&l->sh->peer_lost, &peer_why))
		harness_fail(l->h, HACKBENCH_FAILED, "%s", peer_why);
	else
		harness_fail_ended(l->h, HACKBENCH_FAILED, st, "a worker");
}

/*
 * Read one ready byte per worker.  A worker process that dies first would
 * leave the leader waiting out the whole timeout, so look for one now and
 * then.
 */
static int wait_ready(struct leader *l)
{
	unsigned long got = 0;
	char buf[512];

	while (got < l->started) {
		struct pollfd pfd = { .fd = l->ready[0], .events = POLLIN };
		size_t want = l->started - got < sizeof(buf) ? l->started - got
							     : sizeof(buf);
		ssize_t n;
		int st;

		if (poll(&pfd, 1, READY_POLL_MS) == 0) {
			if (!l->cfg->threads && waitpid(-1, &st, WNOHANG) > 0) {
				explain_worker_death(l, st);
				return -1;
			}
			continue;
		}
		n = read(l->ready[0], buf, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			harness_fail(l->h, HACKBENCH_ERROR, "read the ready %s: %s",
				     l->cfg->pipe ? "pipe" : "socket",
				     n < 0 ? harness_strerror(errno) : "end of file");
			return -1;
		}
		if (memchr(buf, READY_FAILED, (size_t)n))
			return -1;	/* the worker said why */
		got += (unsigned long)n;
	}
	return 0;
}

/* Every worker ends; the first that fails ends the iteration. */
static int reap_workers(struct leader *l)
{
	for (unsigned long i = 0; i < l->started; i++) {
		if (l->cfg->threads) {
			/* a failing thread _exit()s the leader: join cannot fail */
			pthread_join(l->tids[i], NULL);
			continue;
		}
		for (;;) {
			int st;
			pid_t pid = waitpid(-1, &st, 0);

			if (pid < 0 && errno == EINTR)
				continue;
			if (pid < 0) {
				harness_fail(l->h, HACKBENCH_ERROR, "wait for the workers: %s",
					     harness_strerror(errno));
				return -1;
			}
			if (!WIFEXITED(st) || WEXITSTATUS(st)) {
				explain_worker_death(l, st);
				return -1;
			}
			break;
		}
	}
	return 0;
}

/* Open files the leader needs at once: every pair in thread mode. */
static unsigned long nofile_needed(const struct hackbench_config *cfg)
{
	unsigned long pairs = cfg->threads ? (unsigned long)cfg->groups * cfg->fds
					   : cfg->fds;

	return 2 * pairs + 4 + NOFILE_SLACK;
}

static int raise_nofile(struct leader *l)
{
	unsigned long need = nofile_needed(l->cfg);
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 0;	/* let creating the pairs say what is wrong */
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
		rl.rlim_cur = need;
		if (setrlimit(RLIMIT_NOFILE, &rl)) {
			harness_fail(l->h, HACKBENCH_ERROR,
				     "cannot raise the open-file limit to %lu: %s",
				     need, harness_strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* The leader: a child_fork() child, so its own process group. */
static int leader_main(void *arg)
{
	struct leader *l = arg;
	const struct hackbench_config *cfg = l->cfg;
	unsigned long tasks = hackbench_tasks(cfg);
	unsigned long slots = cfg->threads ? (unsigned long)cfg->groups * cfg->fds
					   : cfg->fds;
	double start, end;
	char go = '*';

	prctl(PR_SET_NAME, "hackbench");
	if (raise_nofile(l))
		return HARNESS_EXIT_FAILED;
	l->rd = malloc(slots * sizeof(*l->rd));
	l->wr = malloc(slots * sizeof(*l->wr));
	if (cfg->threads) {
		l->workers = calloc(tasks, sizeof(*l->workers));
		l->tids = calloc(tasks, sizeof(*l->tids));
	}
	if (!l->rd || !l->wr || (cfg->threads && (!l->workers || !l->tids)))
		harness_die(l->h, HACKBENCH_ERROR, "leader: out of memory");
	for (unsigned long i = 0; i < slots; i++)
		l->rd[i] = l->wr[i] = -1;
	if (fdpair(cfg, l->ready) || fdpair(cfg, l->wake))
		harness_die(l->h, HACKBENCH_ERROR, "cannot create the start %s: %s",
			    cfg->pipe ? "pipes" : "socketpairs",
			    harness_strerror(errno));
	for (unsigned g = 0; g < cfg->groups; g++)
		if (start_group(l, g))
			return HARNESS_EXIT_FAILED;
	if (wait_ready(l))
		return HARNESS_EXIT_FAILED;

	start = mono_now();
	if (write(l->wake[1], &go, 1) != 1)
		harness_die(l->h, HACKBENCH_ERROR, "start the workers: %s",
			    harness_strerror(errno));
	if (reap_workers(l))
		return HARNESS_EXIT_FAILED;
	end = mono_now();
	l->sh->seconds = end - start;
	/* the process exit closes every pair and frees the rest */
	return 0;
}

/* ---- in the caller ---------------------------------------------------- */

#define fail(out, st, ...) HARNESS_FAIL(out, st, __VA_ARGS__)

/* "" for a single iteration, else "iteration 2 of 5: " */
static void iteration_prefix(const struct hackbench_config *cfg, unsigned i,
			     char *buf, size_t size)
{
	if (cfg->iterations > 1)
		snprintf(buf, size, "iteration %u of %u: ", i + 1, cfg->iterations);
	else
		buf[0] = '\0';
}

static enum hackbench_status run_iteration(const struct hackbench_config *cfg,
					   struct harness *h, unsigned i,
					   struct hackbench_result *out)
{
	struct shared *sh = h->area;
	struct leader l = {
		.cfg = cfg, .h = h, .sh = sh,
		.ready = { -1, -1 }, .wake = { -1, -1 },
	};
	enum harness_wake w;
	const char *why;
	char pre[48], end[HACKBENCH_WHY_MAX];
	int err, first;

	iteration_prefix(cfg, i, pre, sizeof(pre));
	memset(sh, 0, sizeof(*sh));
	err = harness_start(h, leader_main, &l);
	if (err)
		return fail(out, HACKBENCH_ERROR, "%sfork: %s", pre, strerror(-err));
	w = harness_wait(h, mono_now() + cfg->timeout_s);
	harness_stop(h);

	/* a worker's own report wins, even over a stop at the same moment */
	first = harness_failure(h, &why);
	if (first)
		return fail(out, first, "%s%s", pre, why);
	if (w == HARNESS_EXITED && harness_reason_get(&sh->peer_lost, &why))
		return fail(out, HACKBENCH_FAILED, "%s%s", pre, why);
	switch (w) {
	case HARNESS_STOPPED:
		return fail(out, HACKBENCH_INCOMPLETE, "stopped during iteration %u of %u",
			    i + 1, cfg->iterations);
	case HARNESS_DEADLINE:
		return fail(out, HACKBENCH_FAILED,
			    "%stimeout: the workers had not finished after %g s",
			    pre, cfg->timeout_s);
	case HARNESS_EXITED:
	case HARNESS_READY:	/* not a wait's answer */
		break;
	}
	if (harness_leader_ok(h))
		return HACKBENCH_OK;
	harness_explain(h, "the leader", false, end, sizeof(end));
	return fail(out, HACKBENCH_FAILED, "%s%s", pre, end);
}

static void summarize(const struct hackbench_config *cfg,
		      struct hackbench_result *out)
{
	double sum = 0;

	for (unsigned i = 0; i < out->nr_times; i++)
		sum += out->times[i];
	out->mean_s = out->nr_times ? sum / out->nr_times : 0;
	out->throughput = hackbench_throughput(cfg, out->times, out->nr_times);
}

enum hackbench_status hackbench_run(const struct hackbench_config *cfg,
				    struct hackbench_result *out)
{
	enum hackbench_status st = HACKBENCH_OK;
	struct harness_config hc = {
		.area_size = sizeof(struct shared), .stop = cfg->stop,
		.on_phase = cfg->on_phase, .arg = cfg->arg,
	};
	struct harness h;
	struct shared *sh;
	const char *invalid;
	struct rlimit rl;
	int err;

	memset(out, 0, sizeof(*out));
	invalid = hackbench_config_invalid(cfg);
	if (invalid)
		return fail(out, HACKBENCH_ERROR, "invalid configuration: %s", invalid);
	out->kib = hackbench_kib(cfg);
	if (cfg->stop && *cfg->stop)
		return fail(out, HACKBENCH_INCOMPLETE, "stopped before the start");
	/* known before anything starts: say so rather than fail half-built */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_max != RLIM_INFINITY &&
	    rl.rlim_max < nofile_needed(cfg))
		return fail(out, HACKBENCH_ERROR,
			    "%u groups of %u pairs need %lu open files; the hard limit (ulimit -Hn) is %lu",
			    cfg->groups, cfg->fds, nofile_needed(cfg),
			    (unsigned long)rl.rlim_max);

	err = harness_open(&h, &hc);
	if (err) {
		harness_close(&h);
		return fail(out, HACKBENCH_ERROR, "cannot map the result area: %s",
			    strerror(-err));
	}
	sh = h.area;
	harness_phase(&h, "measure");
	for (unsigned i = 0; i < cfg->iterations; i++) {
		if (i && cfg->stop && *cfg->stop) {
			st = fail(out, HACKBENCH_INCOMPLETE, "stopped after %u of %u iterations",
				  i, cfg->iterations);
			break;
		}
		st = run_iteration(cfg, &h, i, out);
		if (st != HACKBENCH_OK)
			break;
		out->times[out->nr_times++] = sh->seconds;
		if (cfg->on_iteration)
			cfg->on_iteration(i, sh->seconds, cfg->arg);
	}
	harness_close(&h);
	summarize(cfg, out);
	out->status = st;
	return st;
}

/* ---- configuration ---------------------------------------------------- */

void hackbench_config_init(struct hackbench_config *cfg)
{
	*cfg = (struct hackbench_config){
		.groups = HACKBENCH_DEF_GROUPS,
		.fds = HACKBENCH_DEF_FDS,
		.loops = HACKBENCH_DEF_LOOPS,
		.bytes = HACKBENCH_DEF_BYTES,
		.iterations = 1,
		.timeout_s = HACKBENCH_DEF_TIMEOUT_S,
	};
}

unsigned long hackbench_tasks(const struct hackbench_config *cfg)
{
	return 2ul * cfg->groups * cfg->fds;
}

const char *hackbench_config_invalid(const struct hackbench_config *cfg)
{
	if (cfg->groups < 1 || cfg->groups > HACKBENCH_MAX_GROUPS)
		return "group count out of range";
	if (cfg->fds < 1 || cfg->fds > HACKBENCH_MAX_FDS)
		return "fd count out of range";
	if (hackbench_tasks(cfg) > HACKBENCH_MAX_TASKS)
		return "too many tasks";
	if (cfg->loops < 1 || cfg->loops > HACKBENCH_MAX_LOOPS)
		return "loop count out of range";
	if (cfg->bytes < 1 || cfg->bytes > HACKBENCH_MAX_BYTES)
		return "message size out of range";
	if (cfg->iterations < 1 || cfg->iterations > HACKBENCH_MAX_ITERATIONS)
		return "iteration count out of range";
	if (!(cfg->timeout_s > 0) || cfg->timeout_s > HACKBENCH_MAX_TIMEOUT_S)
		return "timeout out of range";
	return NULL;
}

double hackbench_kib(const struct hackbench_config *cfg)
{
	/* up to 2^20 tasks x 2^30 loops x 2^24 bytes: more than 64 bits */
	unsigned __int128 bytes = (unsigned __int128)hackbench_tasks(cfg) *
				  cfg->loops * cfg->bytes;

	return (double)(bytes >> 10);
}

double hackbench_throughput(const struct hackbench_config *cfg,
			    const double *times, unsigned n)
{
	double sum = 0;

	for (unsigned i = 0; i < n; i++)
		sum += times[i];
	return sum > 0 ? (double)n * hackbench_kib(cfg) / sum : 0;
}

const char *hackbench_status_name(enum hackbench_status status)
{
	switch (status) {
	case HACKBENCH_OK:
		return "complete";
	case HACKBENCH_INCOMPLETE:
		return "incomplete";
	case HACKBENCH_FAILED:
		return "failed";
	case HACKBENCH_ERROR:
		return "error";
	}
	return "?";
}

const char *hackbench_mode_name(const struct hackbench_config *cfg)
{
	return cfg->threads ? "threads" : "process";
}

const char *hackbench_ipc_name(const struct hackbench_config *cfg)
{
	return cfg->pipe ? "pipe" : "socket";
}

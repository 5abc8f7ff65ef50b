/*
 * worker.c - perfbot worker: one test box of the fleet (docs/fleet.md).
 * It registers its box, claims the items it meets, runs each as `perfbot
 * run` runs one atomic job at a commit, and finishes it with its run in
 * one transaction fenced by the attempt number.
 *
 * Two threads.  The main one claims, runs (children, signals: the
 * runner's rules) and finishes.  The lease's thread (struct beat) renews
 * the lease every lease/3 seconds on its own connection (libpq: one
 * thread per connection), stops the benchmark when the attempt is fenced
 * out (cancelled, or reaped after a lost lease), and when a SIGTERM's
 * grace period is over; it blocks the signals, so they reach the main
 * thread.  It wakes 4 times a second: the benchmark does not notice.
 *
 * The database may go away at any time: a finished run that cannot be
 * stored goes to the spool (one JSON record per item and attempt,
 * written atomically), uploaded before the next claim; finish's own
 * fence decides whether an upload whose COMMIT's answer was lost is
 * stored already, so a run is never stored twice.
 */
#define _GNU_SOURCE
#include "cmd/cmdutil.h"
#include "cmd/cmds.h"
#include "job/job.h"
#include "queue/needs.h"
#include "record/record_json.h"
#include "run/env.h"
#include "run/runner.h"
#include "store/store.h"
#include "util/fsutil.h"
#include "util/interrupt.h"
#include "util/parse.h"
#include "util/timeutil.h"
#include "vcs/commitrun.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_LEASE_S 60.0
#define DEFAULT_GRACE_S 30.0
/* the longest wait for news of the queue: a lost NOTIFY costs no more */
#define POLL_S 5.0
#define BACKOFF_MIN_S 0.5
#define BACKOFF_MAX_S 10.0

static const char worker_usage[] =
	"usage: perfbot worker --db postgresql://... [options]\n"
	"\n"
	"Be one test box of the fleet: register the box, then claim the queued\n"
	"items it meets (perfbot submit), run each, and store its run; wait for\n"
	"more (LISTEN/NOTIFY, polling every %.0f s) until stopped.\n"
	"\n"
	"      --testbox NAME    the box's name, as its runs are stored (default:\n"
	"                        the host name)\n"
	"      --tags A,B        the box's tags (an item's tag=NAME needs one)\n"
	"      --testcases A,B   accept only items of these testcases (the trust\n"
	"                        model: docs/fleet.md)\n"
	"      --once            run one item (if any) and exit\n"
	"      --max-items N     exit after N items\n"
	"      --lease S         the lease of a claimed item, renewed every S/3\n"
	"                        (default %.0f s): a dead worker's item is queued\n"
	"                        again S after its last renewal\n"
	"      --grace S         on SIGTERM or SIGINT, let the running item end for\n"
	"                        up to S (default %.0f s), else hand it back\n"
	"      --spool DIR       where runs wait while the database is unreachable\n"
	"                        (default: $XDG_STATE_HOME/perfbot/spool/BOX, else\n"
	"                        ~/.local/state/perfbot/spool/BOX)\n"
	CMD_DB_USAGE
	"  -h, --help            show this help\n"
	"\n"
	"Exit status: 0 stopped (by a signal, --once or --max-items), 1 the store\n"
	"failed at the start, 2 bad usage.\n";

struct worker_opts {
	const char *testbox, *tags, *testcases, *spool;
	bool once;
	unsigned long max_items;
	double lease_s, grace_s;
};

#define usage_error(...) cmd_usage_error("worker", __VA_ARGS__)

static int parse_args(int argc, char **argv, struct worker_opts *o)
{
	enum { OPT_BOX = 256, OPT_TAGS, OPT_TC, OPT_ONCE, OPT_MAX, OPT_LEASE, OPT_GRACE,
	       OPT_SPOOL };
	static const struct option longopts[] = {
		{ "testbox", required_argument, NULL, OPT_BOX },
		{ "tags", required_argument, NULL, OPT_TAGS },
		{ "testcases", required_argument, NULL, OPT_TC },
		{ "once", no_argument, NULL, OPT_ONCE },
		{ "max-items", required_argument, NULL, OPT_MAX },
		{ "lease", required_argument, NULL, OPT_LEASE },
		{ "grace", required_argument, NULL, OPT_GRACE },
		{ "spool", required_argument, NULL, OPT_SPOOL },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_BOX:
			if (needs_word_problem(optarg))
				return usage_error("--testbox '%s': %s", optarg,
						   needs_word_problem(optarg));
			o->testbox = optarg;
			break;
		case OPT_TAGS:
			o->tags = optarg;
			break;
		case OPT_TC:
			o->testcases = optarg;
			break;
		case OPT_ONCE:
			o->once = true;
			break;
		case OPT_MAX:
			if (parse_ulong(optarg, 1, 100000000, &o->max_items) != PARSE_OK)
				return usage_error("invalid --max-items '%s': expected 1 or more",
						   optarg);
			break;
		case OPT_LEASE:
			if ((ret = cmd_parse_duration("worker", "--lease", optarg, &o->lease_s)))
				return ret;
			if (o->lease_s < 1)
				return usage_error("invalid --lease '%s': at least 1 s", optarg);
			break;
		case OPT_GRACE:
			if ((ret = cmd_parse_duration("worker", "--grace", optarg, &o->grace_s)))
				return ret;
			if (o->grace_s < 0)
				return usage_error("invalid --grace '%s': 0 or more", optarg);
			break;
		case OPT_SPOOL:
			o->spool = optarg;
			break;
		case 'h':
			printf(worker_usage, POLL_S, DEFAULT_LEASE_S, DEFAULT_GRACE_S);
			return -1;
		case ':':
			return usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	return 0;
}

static void sleep_s(double s)
{
	struct timespec ts = { .tv_sec = (time_t)s, .tv_nsec = (long)(fmod(s, 1) * 1e9) };

	nanosleep(&ts, NULL);	/* a signal ends it early: the caller looks */
}

/* ---- the lease's thread ---- */

struct beat {
	pthread_t thread;
	const char *db;
	int64_t id;
	int attempt;
	double lease_s, grace_s;
	atomic_bool done;		/* the main thread: the run is over */
	volatile sig_atomic_t stop;	/* the runner's stop flag */
	atomic_bool fenced, grace_over;
	struct store *s;		/* its own connection, kept across items */
	pthread_t main;			/* woken by SIGUSR1 once stop is set */
};

/*
 * SIGUSR1 wakes the main thread out of the runner's wait (a ppoll that
 * only a signal or the child ends) to see the stop flag.  SA_RESTART:
 * elsewhere it interrupts nothing.
 */
static void wake_handler(int sig)
{
	(void)sig;
}

static void wake_install(void)
{
	struct sigaction sa = { .sa_handler = wake_handler, .sa_flags = SA_RESTART };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
}

static void *beat_main(void *arg)
{
	struct beat *b = arg;
	double next = mono_now() + b->lease_s / 3, sigterm_at = 0;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	while (!atomic_load(&b->done)) {
		double now;

		sleep_s(0.25);
		now = mono_now();
		if (interrupted && !sigterm_at)
			sigterm_at = now;
		if (sigterm_at && now - sigterm_at > b->grace_s && !atomic_load(&b->grace_over)) {
			atomic_store(&b->grace_over, true);
			b->stop = 1;
		}
		if (b->stop)	/* until the run is over: a wake-up may come between two looks */
			pthread_kill(b->main, SIGUSR1);
		if (now < next)
			continue;
		next = now + b->lease_s / 3;
		if (!b->s && store_open(b->db, STORE_WRITE, &b->s, NULL))
			continue;	/* unreachable: the finish will find out what became of it */
		switch (store_queue_heartbeat(b->s, b->id, b->attempt, b->lease_s)) {
		case 0:
			break;
		case -ESTALE:
		case -ENOENT:
			fprintf(stderr, "perfbot: worker: %s: stopping the run\n", store_error(b->s));
			atomic_store(&b->fenced, true);
			b->stop = 1;
			break;
		default:
			store_close(b->s);
			b->s = NULL;
		}
	}
	return NULL;
}

/* ---- the worker ---- */

struct worker {
	struct worker_opts o;
	const char *db;
	char *spool;
	struct store *s;		/* NULL while the database is unreachable */
	struct store_box box;
	char **testcases;
	struct beat beat;
	double backoff;
	bool said_down, said_quarantined;
	size_t items;
};

/*
 * Whether an error is the database's state rather than an answer about
 * the item or the run: then the run is spooled and the worker connects
 * again.  Only the queue's own answers (fenced out, no such item, a
 * quarantined or unknown box, nothing to claim) and a record the store
 * refuses (a name, a declaration) are answers; a lost connection is not
 * always classified as one (libpq's "server closed the connection
 * unexpectedly" may come as -EIO), so everything else counts as out of
 * reach: a run measured is kept rather than lost.
 */
static bool unreachable(int err)
{
	switch (err) {
	case 0:
	case -ESTALE:
	case -ENOENT:
	case -EPERM:
	case -ESRCH:
	case -EILSEQ:
	case -EINVAL:
	case -ENOTSUP:
		return false;
	default:
		return true;
	}
}

static void drop_store(struct worker *w)
{
	store_close(w->s);
	w->s = NULL;
}

static long long mem_total_mib(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	unsigned long long kib = 0;
	char line[256];

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %llu kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return (long long)(kib / 1024);
}

/* The box as its runs record it (run/env.c's machine line). */
static int box_init(struct worker *w, struct strbuf *err)
{
	struct strmap env = { 0 };
	const char *v;
	int ret = env_capture(&env, err);

	if (!ret) {
		v = w->o.testbox ? w->o.testbox : strmap_get(&env, "testbox");
		w->box.testbox = strdup(v ? v : "localhost");
		w->box.machine = strdup((v = strmap_get(&env, "machine")) ? v : "?");
		w->box.arch = strdup((v = strmap_get(&env, "arch")) ? v : "?");
		w->box.kernel = strdup((v = strmap_get(&env, "kernel")) ? v : "?");
		w->box.cpus = (v = strmap_get(&env, "nr_cpu")) ? atoi(v) : 0;
		w->box.mem_mb = mem_total_mib();
		if (!w->box.testbox || !w->box.machine || !w->box.arch || !w->box.kernel) {
			strbuf_setf(err, "out of memory");
			ret = -ENOMEM;
		}
	}
	strmap_release(&env);
	return ret;
}

static int spool_dir(struct worker *w, struct strbuf *err)
{
	const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	int ret;

	if (w->o.spool)
		w->spool = strdup(w->o.spool);
	else if (state && state[0] == '/')
		ret = asprintf(&w->spool, "%s/perfbot/spool/%s", state, w->box.testbox);
	else if (home && *home)
		ret = asprintf(&w->spool, "%s/.local/state/perfbot/spool/%s", home,
			       w->box.testbox);
	else {
		strbuf_setf(err, "no spool directory: give --spool DIR (no home directory is known)");
		return -ENOENT;
	}
	(void)ret;
	if (!w->spool) {
		strbuf_setf(err, "out of memory");
		return -ENOMEM;
	}
	ret = make_dirs(w->spool);
	if (ret)
		strbuf_setf(err, "cannot create the spool %s: %s", w->spool, strerror(-ret));
	return ret;
}

/*
 * Connected and registered, or not (false, after waiting the backoff): the
 * database may be down for a while, the worker waits for it.
 */
static bool connected(struct worker *w)
{
	struct strbuf err = STRBUF_INIT;
	int ret;

	if (w->s)
		return true;
	ret = store_open(w->db, STORE_WRITE, &w->s, &err);
	if (!ret && (ret = store_box_register(w->s, &w->box))) {
		strbuf_setf(&err, "%s", store_error(w->s));
		drop_store(w);
	}
	if (ret) {
		if (!w->said_down)
			fprintf(stderr, "perfbot: worker: %s; retrying\n", err.buf);
		w->said_down = true;
		sleep_s(w->backoff);
		w->backoff = fmin(w->backoff * 2, BACKOFF_MAX_S);
	} else {
		if (w->said_down)
			fprintf(stderr, "perfbot: worker: connected again\n");
		w->said_down = false;
		w->backoff = BACKOFF_MIN_S;
	}
	strbuf_release(&err);
	return !ret;
}

static char *spool_path(const struct worker *w, int64_t id, int attempt)
{
	char *p = NULL;

	if (asprintf(&p, "%s/item-%" PRId64 "-attempt-%d.json", w->spool, id, attempt) < 0)
		return NULL;
	return p;
}

/* The run kept until the database takes it: 0, or it is lost (said). */
static int spool_put(struct worker *w, int64_t id, int attempt, const struct run_record *rec)
{
	char *text = NULL, *path = spool_path(w, id, attempt), *tmp = NULL;
	int ret = record_to_json(rec, &text);

	if (!ret && (!path || asprintf(&tmp, "%s.tmp", path) < 0))
		ret = -ENOMEM;
	if (!ret)
		ret = write_file_atomic(path, tmp, text, strlen(text), true);
	if (ret)
		fprintf(stderr, "perfbot: worker: item %" PRId64 " attempt %d: cannot spool the run"
			" to %s: %s: the run is lost\n", id, attempt, path ? path : w->spool,
			strerror(-ret));
	else
		fprintf(stderr, "perfbot: worker: item %" PRId64 " attempt %d: the database is"
			" unreachable: run spooled to %s\n", id, attempt, path);
	free(text);
	free(path);
	free(tmp);
	return ret;
}

/*
 * Store the run of attempt (id, attempt) and mark the item done.  0
 * whatever became of it (stored, refused, spooled); the unreachable
 * error when it went to the spool (the caller reconnects).
 */
static int deliver(struct worker *w, int64_t id, int attempt, const struct run_record *rec,
		   bool from_spool)
{
	int64_t run_id = 0;
	int ret = store_queue_finish(w->s, id, attempt, rec, &run_id);

	if (!ret) {
		printf("item %" PRId64 " attempt %d: run %" PRId64 " %s%s\n", id, attempt, run_id,
		       run_status_name(rec->status), from_spool ? " (from the spool)" : "");
		fflush(stdout);
		return 0;
	}
	if (unreachable(ret)) {
		fprintf(stderr, "perfbot: worker: item %" PRId64 " attempt %d: %s\n", id, attempt,
			store_error(w->s));
		if (!from_spool)
			spool_put(w, id, attempt, rec);
		drop_store(w);
		return ret;
	}
	if (ret == -ESTALE || ret == -ENOENT) {
		fprintf(stderr, "perfbot: worker: the run is not stored: %s\n", store_error(w->s));
		return 0;
	}
	/* the store refused the record: a failed attempt, and why */
	fprintf(stderr, "perfbot: worker: item %" PRId64 ": cannot store the run: %s\n", id,
		store_error(w->s));
	{
		char *why = strdup(store_error(w->s));

		ret = store_queue_fail(w->s, id, attempt, why ? why : "cannot store the run", NULL);
		free(why);
	}
	if (unreachable(ret))
		drop_store(w);
	return unreachable(ret) ? ret : 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* Upload what the spool holds: 0 when it is empty, else the database is out of reach. */
static int spool_upload(struct worker *w)
{
	struct dirent **names = NULL;
	int n = scandir(w->spool, &names, NULL, by_name), ret = 0;

	for (int i = 0; i < n; i++) {
		struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
		struct run_record rec = { 0 };
		char *path = NULL;
		int64_t id;
		int attempt, r;

		if (ret || sscanf(names[i]->d_name, "item-%" SCNd64 "-attempt-%d.json", &id,
				  &attempt) != 2 || !strstr(names[i]->d_name, ".json") ||
		    strstr(names[i]->d_name, ".tmp") || strstr(names[i]->d_name, ".refused")) {
			free(names[i]);
			continue;
		}
		path = spool_path(w, id, attempt);
		r = path ? strbuf_read_file(&text, path, 1 << 30) : -ENOMEM;
		if (!r)
			r = record_from_json(text.buf, text.len, &rec, &err);
		if (!r) {
			r = deliver(w, id, attempt, &rec, true);
			if (unreachable(r))
				ret = r;
			else if (unlink(path))
				fprintf(stderr, "perfbot: worker: cannot remove %s: %s\n", path,
					strerror(errno));
		} else {
			char *bad = NULL;

			fprintf(stderr, "perfbot: worker: %s: %s: kept as .refused\n",
				path ? path : names[i]->d_name, err.len ? err.buf : strerror(-r));
			if (path && asprintf(&bad, "%s.refused", path) >= 0)
				rename(path, bad);
			free(bad);
		}
		run_record_release(&rec);
		strbuf_release(&text);
		strbuf_release(&err);
		free(path);
		free(names[i]);
	}
	free(names);
	return ret;
}

static void kernel_label(char *buf, size_t len)
{
	struct utsname u;

	if (uname(&u))
		snprintf(buf, len, "local");
	else
		snprintf(buf, len, "%s", u.release);
}

/* The atomic job of an item, loaded back from its text. */
static int load_item_job(const struct store_queue_item *it, struct atomic_job **jobs,
			 size_t *nr, struct strbuf *why)
{
	struct job_error jerr = { 0 };
	char *dir = NULL, *path = NULL;
	int ret = make_temp_dir(NULL, "item", &dir);

	if (!ret && asprintf(&path, "%s/%s.yaml", dir, it->testcase) < 0)
		ret = -ENOMEM;
	if (!ret)
		ret = write_file_atomic(path, NULL, it->job_text, strlen(it->job_text), false);
	if (ret) {
		strbuf_setf(why, "cannot write the job: %s", strerror(-ret));
	} else if (job_load(path, NULL, 0, jobs, nr, &jerr) ||
		   runner_check_job(&(*jobs)[0], &jerr)) {
		strbuf_setf(why, "the job does not load here: %s", jerr.msg.buf);
		job_error_release(&jerr);
		ret = -EINVAL;
	} else if (*nr != 1) {
		strbuf_setf(why, "the item's text is %zu atomic jobs, not one", *nr);
		ret = -EINVAL;
	}
	if (dir)
		remove_tree(dir);
	free(dir);
	free(path);
	return ret;
}

enum item_end { ITEM_NEXT, ITEM_STOP };

static enum item_end run_item(struct worker *w, const struct store_queue_item *it)
{
	struct atomic_job *jobs = NULL;
	struct strbuf err = STRBUF_INIT;
	struct run_record rec = { 0 };
	struct commit_runner cr = { 0 };
	char label[256];
	bool have_rec = false;
	size_t nr = 0;
	int ret;

	fprintf(stderr, "perfbot: worker: item %" PRId64 " attempt %d/%d: %s%s%.12s\n", it->id,
		it->attempt, it->max_attempts, it->job, it->commit ? " at " : "",
		it->commit ? it->commit : "");
	ret = load_item_job(it, &jobs, &nr, &err);
	w->beat.id = it->id;
	w->beat.attempt = it->attempt;
	w->beat.stop = 0;
	atomic_store(&w->beat.done, false);
	atomic_store(&w->beat.fenced, false);
	atomic_store(&w->beat.grace_over, false);
	if (!ret && pthread_create(&w->beat.thread, NULL, beat_main, &w->beat)) {
		strbuf_setf(&err, "cannot start the lease's thread");
		ret = -EAGAIN;
	} else if (!ret) {
		struct runner_opts ro = {
			.monitors = true, .stop = &w->beat.stop, .warm_up = true,
		};

		if (it->repo && it->commit) {
			ret = commit_runner_open(&cr, it->repo, jobs[0].build, &err);
			if (!ret)
				ret = commit_runner_run(&cr, &jobs[0], it->commit, &ro, &rec, &err);
			commit_runner_close(&cr);
		} else {
			kernel_label(label, sizeof(label));
			ro.commit = it->commit ? it->commit : label;
			ret = runner_run(&jobs[0], &ro, &rec, &err);
		}
		have_rec = !ret;
		atomic_store(&w->beat.done, true);
		pthread_join(w->beat.thread, NULL);
	}
	if (atomic_load(&w->beat.fenced)) {
		fprintf(stderr, "perfbot: worker: item %" PRId64 " attempt %d: fenced out, the run"
			" is dropped\n", it->id, it->attempt);
	} else if (atomic_load(&w->beat.grace_over)) {
		ret = w->s ? store_queue_hand_back(w->s, it->id, it->attempt) : -ENOTCONN;
		fprintf(stderr, "perfbot: worker: item %" PRId64 " attempt %d: %s\n", it->id,
			it->attempt, ret ? "not ended within the grace period; its lease will"
			" expire" : "not ended within the grace period: handed back");
		if (unreachable(ret))
			drop_store(w);
	} else if (have_rec && (rec.status == RUN_COMPLETE || rec.status == RUN_UNSUPPORTED)) {
		record_set_str(&rec.testbox, w->box.testbox);
		strmap_set(&rec.env, "testbox", w->box.testbox);
		/* the population it is compared in: the class's, not the box's alone */
		if (it->parsed.class)
			strmap_set(&rec.env, STORE_CLASS_ENV, it->parsed.class);
		if (!w->s)
			spool_put(w, it->id, it->attempt, &rec);
		else
			deliver(w, it->id, it->attempt, &rec, false);
	} else {
		const char *why = have_rec ? strmap_get(&rec.env, "last_state.reason") : err.buf;
		char *reason = NULL;

		if (asprintf(&reason, "%s%s%s", have_rec ? "the run " : "",
			     have_rec ? run_status_name(rec.status) : "",
			     have_rec ? (why ? ": " : "") : "") < 0)
			reason = NULL;
		{
			struct strbuf line = STRBUF_INIT;

			strbuf_addf(&line, "%s%s", reason ? reason : "", why ? why : "");
			fprintf(stderr, "perfbot: worker: item %" PRId64 " attempt %d failed: %s\n",
				it->id, it->attempt, line.buf);
			ret = w->s ? store_queue_fail(w->s, it->id, it->attempt, line.buf, NULL)
				   : -ENOTCONN;
			if (ret && !unreachable(ret))
				fprintf(stderr, "perfbot: worker: %s\n", store_error(w->s));
			if (unreachable(ret))
				drop_store(w);	/* its lease expires: the reaper fails it */
			strbuf_release(&line);
		}
		free(reason);
	}
	if (have_rec)
		run_record_release(&rec);
	atomic_jobs_release(jobs, nr);
	strbuf_release(&err);
	w->items++;
	return interrupted ? ITEM_STOP : ITEM_NEXT;
}

/* One turn of the loop: false when the worker is to stop. */
static bool turn(struct worker *w)
{
	struct store_queue_item it;
	bool woken;
	int ret;

	if (!connected(w))
		return !(w->o.once && w->items);	/* --once: its item is in the spool */
	if (spool_upload(w)) {
		/* the spool first: nothing is claimed while a run waits */
		drop_store(w);
		sleep_s(w->backoff);
		w->backoff = fmin(w->backoff * 2, BACKOFF_MAX_S);
		return !(w->o.once && w->items);
	}
	ret = store_queue_reap(w->s, NULL);
	if (!ret)
		ret = store_queue_claim(w->s, w->box.testbox, w->testcases, w->o.lease_s, &it);
	if (!ret) {
		w->said_quarantined = false;
		ret = run_item(w, &it) == ITEM_STOP;
		store_queue_item_release(&it);
		return !ret && !w->o.once && (!w->o.max_items || w->items < w->o.max_items);
	}
	if (ret == -ESRCH) {	/* registered again at the next connection */
		drop_store(w);
		return true;
	}
	if (ret == -EPERM) {
		if (!w->said_quarantined)
			fprintf(stderr, "perfbot: worker: %s\n", store_error(w->s));
		w->said_quarantined = true;
	} else if (ret != -ENOENT) {
		/* the database's trouble: connect again, after the backoff */
		fprintf(stderr, "perfbot: worker: %s\n", store_error(w->s));
		drop_store(w);
		if (w->o.once && !unreachable(ret))
			return false;
		sleep_s(w->backoff);
		w->backoff = fmin(w->backoff * 2, BACKOFF_MAX_S);
		return true;
	}
	if (w->o.once) {
		fprintf(stderr, "perfbot: worker: no item for %s\n", w->box.testbox);
		return false;
	}
	ret = store_queue_wait(w->s, POLL_S, &woken);
	if (unreachable(ret))
		drop_store(w);
	return true;
}

int cmd_worker(int argc, char **argv)
{
	struct worker w = {
		.o = { .lease_s = DEFAULT_LEASE_S, .grace_s = DEFAULT_GRACE_S },
		.backoff = BACKOFF_MIN_S,
	};
	struct strbuf err = STRBUF_INIT;
	int ret = parse_args(argc, argv, &w.o);

	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (w.o.testcases && needs_split_words("--testcases", w.o.testcases, &w.testcases, &err)) {
		ret = usage_error("%s", err.buf);
		goto out;
	}
	if (w.o.tags && needs_split_words("--tags", w.o.tags, &w.box.tags, &err)) {
		ret = usage_error("%s", err.buf);
		goto out;
	}
	w.db = cmd_store_location("worker");
	if (!w.db) {
		ret = EXIT_USAGE;
		goto out;
	}
	if ((ret = cmd_lifetime_start("worker")))
		goto out;
	interrupt_install();
	if (box_init(&w, &err) || spool_dir(&w, &err)) {
		ret = cmd_failure("worker", "%s", err.buf);
		goto out;
	}
	/*
	 * The first connection says at once whether this store can hold a
	 * queue; a database not up yet is waited for (a fleet's boxes
	 * boot before its server, or during its restart).
	 */
	while ((ret = store_open(w.db, STORE_WRITE, &w.s, &err)) == -ENOTCONN && !interrupted) {
		if (!w.said_down)
			fprintf(stderr, "perfbot: worker: %s; retrying\n", err.buf);
		w.said_down = true;
		sleep_s(w.backoff);
		w.backoff = fmin(w.backoff * 2, BACKOFF_MAX_S);
	}
	if (!ret && store_box_register(w.s, &w.box))
		strbuf_setf(&err, "%s", store_error(w.s));
	if (ret || err.len) {
		ret = interrupted ? EXIT_OK : cmd_failure("worker", "%s", err.buf);
		goto out;
	}
	w.said_down = false;
	w.backoff = BACKOFF_MIN_S;
	w.beat.db = w.db;
	w.beat.main = pthread_self();
	wake_install();
	w.beat.lease_s = w.o.lease_s;
	w.beat.grace_s = w.o.grace_s;
	fprintf(stderr, "perfbot: worker: box %s (%s), lease %.0f s, spool %s\n", w.box.testbox,
		w.box.machine, w.o.lease_s, w.spool);
	while (!interrupted && turn(&w))
		;
	/* what waits in the spool goes now if it can; else at the next start */
	if (w.s)
		spool_upload(&w);
	ret = EXIT_OK;
out:
	store_close(w.s);
	store_close(w.beat.s);
	store_box_release(&w.box);
	for (size_t i = 0; w.testcases && w.testcases[i]; i++)
		free(w.testcases[i]);
	free(w.testcases);
	free(w.spool);
	strbuf_release(&err);
	return ret;
}

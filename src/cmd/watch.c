/*
 * watch.c - perfbot watch: the robot (docs/watch.md).  Each pass, for
 * every branch of every tree the registry (robot/registry.h) names:
 *
 *  1. a head that moved is measured against its base (the previous
 *     tested head, or the merge base with an upstream branch) as
 *     `compare --measure` does (cmd/measure.h): interleaved rounds until
 *     every KPI is decided, judged on alternating runs only; each KPI
 *     that changed is an alert, confirmed;
 *  2. the head becomes the branch's next point (its history);
 *  3. every confirmed alert is explained by a culprit: one found for
 *     another alert of the branch whose range holds it and that moves
 *     this job too (measured at the culprit against its parent), else a
 *     bisection of the alert's range (vcs/bisect_session.h);
 *  4. every culprit is reported once: an email (report/ as `perfbot
 *     report --format email` writes it, parent / culprit / the branch's
 *     tip as columns, every job the culprit moved) into the outbox, a
 *     Maildir, and to the registry's sendmail.  A culprit already
 *     reported gets the alert added to its record, no mail.
 *
 * Every state is in the store (store.h, "The robot"): points, alerts and
 * their states, bisections, reports.  A pass interrupted (^C, SIGTERM, a
 * crash) and started again goes on: runs are counted from the store, a
 * bisection resumes, a report whose message was not complete is written
 * again under the same name.
 */
#define _GNU_SOURCE
#include "cmd/cmds.h"
#include "cmd/cmdutil.h"
#include "cmd/publish.h"
#include "cmd/gather.h"
#include "cmd/measure.h"
#include "job/job.h"
#include "record/bisect_result.h"
#include "report/report.h"
#include "robot/registry.h"
#include "run/runner.h"
#include "stats/changepoint.h"
#include "stats/compare.h"
#include "store/store.h"
#include "util/fsutil.h"
#include "util/interrupt.h"
#include "util/quote.h"
#include "util/strbuf.h"
#include "util/vec.h"
#include "vcs/bisect_session.h"
#include "vcs/git.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define usage_error(...) cmd_usage_error("watch", __VA_ARGS__)
#define failure(...) cmd_failure("watch", __VA_ARGS__)

/* a bisection's stopping point, as perfbot bisect's default */
#define WATCH_CONFIDENCE 0.99
/* the points of a branch's history searched for change points, at most */
#define WATCH_HISTORY_POINTS 1000

static const char watch_usage[] =
	"usage: perfbot watch REGISTRY [--once] [--db PATH] [--outbox DIR]\n"
	"       perfbot watch check REGISTRY\n"
	"       perfbot watch status [--db PATH]\n"
	"\n"
	"The robot: each pass measures every watched branch's new head against\n"
	"its base, records it in the branch's history, bisects each confirmed\n"
	"change to its culprit and writes one report per culprit into the\n"
	"outbox (a Maildir), and to the registry's sendmail.  State is in the\n"
	"store: a watch interrupted and started again measures nothing twice\n"
	"and writes no report twice (docs/watch.md, docs/registry.md).\n"
	"\n"
	"  REGISTRY              the trees, branches, jobs, report and policy\n"
	"      --once            one pass, then exit\n"
	"      --outbox DIR      write reports there (default: the registry's)\n"
	CMD_DB_USAGE
	"  -h, --help            show this help\n"
	"\n"
	"  check REGISTRY        load and check the registry, print it resolved\n"
	"  status                the branches watched, their last tested head,\n"
	"                        the open alerts and the reports written\n"
	"\n"
	"Exit status: 0 (also when a repository or a job failed: logged and\n"
	"recorded, the others go on; and after SIGTERM: the current run is\n"
	"stored as incomplete), 1 the store cannot be opened or written, 2 a\n"
	"bad registry or bad usage, 130 interrupted by ^C (started again, it\n"
	"goes on from there).\n";

struct watcher {
	struct store *s;
	const struct registry *reg;
	const char *outbox;		/* NULL: no outbox */
	char host[256];		/* the runs' testbox: this machine, or the registry's on: */
	/* on: the fleet's box that makes every run; .testbox NULL: runs made here */
	struct commit_runner_fleet fleet;
	struct compare_opts opts;
	bool failed;			/* a pass had a failure it went past */
};

/* ---- log lines: a timestamp, then what happened ---- */

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void say(const char *fmt, ...)
{
	char stamp[64];
	va_list ap;

	cmd_robot_stamp(stamp, sizeof(stamp));
	fputs(stamp, stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static const char *short12(const char *sha)
{
	static char buf[4][13];
	static int next;
	char *b = buf[next++ % 4];

	snprintf(b, sizeof(buf[0]), "%.12s", sha ? sha : "-");
	return b;
}

static bool stop_now(void)
{
	return interrupted != 0;
}

/* ---- git ---- */

static void chomp(char *s)
{
	size_t n = s ? strlen(s) : 0;

	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
}

/*
 * git -C repo a b [c [d]] (NULL ends the arguments), its first line in
 * *out (malloc'd); 0 or a negative errno.
 */
static int git_line(const char *repo, char **out, const char *a, const char *b,
		    const char *c, const char *d)
{
	int ret = git_cmd(repo, out, NULL, a, b, c, d, NULL);

	if (ret) {
		free(*out);
		*out = NULL;
		return ret;
	}
	chomp(*out);
	if (strchr(*out, '\n'))
		*strchr(*out, '\n') = '\0';
	return 0;
}

static bool is_ancestor(const char *repo, const char *a, const char *b)
{
	return !git_cmd(repo, NULL, NULL, "merge-base", "--is-ancestor", a, b, NULL);
}

/* The first parent of sha, or NULL (a root commit, or git failed). */
static char *parent_of(const char *repo, const char *sha)
{
	char *rev = NULL, *out = NULL;

	if (asprintf(&rev, "%s^1", sha) < 0)
		return NULL;
	if (git_resolve(repo, rev, &out, NULL)) {
		free(out);
		out = NULL;
	}
	free(rev);
	return out;
}

/* The committer date of sha, Unix seconds; NaN when unknown. */
static double commit_time(const char *repo, const char *sha)
{
	char *out = NULL;
	double t = NAN;

	if (!git_line(repo, &out, "show", "-s", "--format=%ct", sha) && out && *out)
		t = strtod(out, NULL);
	free(out);
	return t;
}

struct head {
	char *branch, *sha;
};

struct heads {
	struct head *v;
	size_t n, cap;
};

static void heads_release(struct heads *h)
{
	for (size_t i = 0; i < h->n; i++) {
		free(h->v[i].branch);
		free(h->v[i].sha);
	}
	vec_free(h);
}

/* The tree's branches the registry wants, with their heads, by name. */
static int list_heads(const struct registry_tree *t, struct heads *out)
{
	char *text = NULL;
	int ret = git_cmd(t->repo, &text, NULL, "for-each-ref",
			  "--format=%(objectname) %(refname:short)", "refs/heads", NULL);

	if (ret)
		return ret;
	for (char *line = text, *next; line && *line; line = next) {
		char *sp = strchr(line, ' ');
		struct head h;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!sp)
			continue;
		*sp = '\0';
		if (!registry_branch_wanted(t, sp + 1))
			continue;
		h.sha = strdup(line);
		h.branch = strdup(sp + 1);
		if (!h.sha || !h.branch || vec_push(out, h)) {
			free(h.sha);
			free(h.branch);
			ret = -ENOMEM;
			break;
		}
	}
	free(text);
	return ret;
}

/* A tree with url: its mirror fetched (made on first use). */
static int fetch_tree(const struct registry_tree *t)
{
	struct stat st;
	int ret;

	if (!t->url)
		return 0;
	if (stat(t->repo, &st)) {
		ret = git_cmd(NULL, NULL, NULL, "clone", "--quiet", "--bare", "--", t->url,
			      t->repo, NULL);
		if (ret)
			return ret;
	}
	return git_cmd(t->repo, NULL, NULL, "fetch", "--quiet", "--prune", "origin",
		       "+refs/heads/*:refs/heads/*", NULL);
}

/* ---- jobs ---- */

struct tree_jobs {
	struct atomic_job *v;
	size_t n;
};

static void tree_jobs_release(struct tree_jobs *j)
{
	atomic_jobs_release(j->v, j->n);
	memset(j, 0, sizeof(*j));
}

/* Every atomic job of the tree's job files; a bad one is said and left out. */
static int load_tree_jobs(struct watcher *w, const struct registry_tree *t,
			  struct tree_jobs *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < t->nr_jobs; i++) {
		struct job_error jerr = { 0 };
		struct atomic_job *jobs = NULL, *grown;
		size_t nr = 0, kept = 0;

		if (job_load(t->jobs[i].file, t->jobs[i].set, t->jobs[i].nr_set, &jobs, &nr,
			     &jerr)) {
			cmd_print_job_error(&jerr);
			job_error_release(&jerr);
			w->failed = true;
			continue;
		}
		grown = realloc(out->v, (out->n + nr) * sizeof(*out->v));
		if (!grown) {
			atomic_jobs_release(jobs, nr);
			return -ENOMEM;
		}
		out->v = grown;
		for (size_t k = 0; k < nr; k++) {
			if (jobs[k].kernel.present && jobs[k].kernel.boot == JOB_BOOT_KEXEC) {
				say("%s: %s:%u:%u: boot: kexec would reboot the robot's own machine;"
				    " the job is left out (boot: qemu is watched)", t->name,
				    t->jobs[i].file, jobs[k].kernel.line, jobs[k].kernel.column);
				atomic_job_release(&jobs[k]);
				w->failed = true;
				continue;
			}
			if (runner_check_job(&jobs[k], &jerr)) {
				cmd_print_job_error(&jerr);
				job_error_release(&jerr);
				atomic_job_release(&jobs[k]);
				w->failed = true;
				continue;
			}
			out->v[out->n + kept++] = jobs[k];
		}
		out->n += kept;
		free(jobs);
	}
	return 0;
}

static const struct atomic_job *find_job(const struct tree_jobs *j, const char *name)
{
	for (size_t i = 0; i < j->n; i++)
		if (!strcmp(j->v[i].name, name))
			return &j->v[i];
	return NULL;
}

/* ---- measuring ---- */

/*
 * The jobs measured on shas (the base first) until decided; since[] gets
 * each job's window.  0, or an exit status (128 + signal: interrupted).
 */
static int measure(struct watcher *w, const struct registry_tree *t,
		   const struct atomic_job *jobs, size_t nr, char *const *shas,
		   size_t nr_shas, double not_before, double *since)
{
	struct measure_tally tally;
	struct measure_spec spec = {
		.repo = t->repo, .testbox = w->host, .shas = shas,
		.labels = (const char *const *)shas, .nr_commits = nr_shas,
		.first_runs = MEASURE_FIRST_RUNS, .max_runs = MEASURE_MAX_RUNS,
		.opts = &w->opts, .stamped = true, .not_before = not_before,
		.fleet = w->fleet.testbox ? &w->fleet : NULL,
	};
	int ret = measure_commits(w->s, jobs, nr, &spec, since, &tally);

	if (tally.runs || tally.builds)
		say("%s: measured %zu runs, %zu builds (%zu from the build cache)", t->name,
		    tally.runs, tally.builds, tally.reused);
	if (interrupted)
		return 128 + interrupted;
	return ret;
}

enum runs_from {
	STORED_RUNS,	/* the window of interleaved runs the store holds, and more */
	FRESH_RUNS,	/* runs of their own: none started before now */
};

/* The start of the runs' window: 0 (any), or now. */
static double runs_not_before(enum runs_from runs)
{
	struct timespec now;

	if (runs != FRESH_RUNS)
		return 0;
	clock_gettime(CLOCK_REALTIME, &now);
	return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

/*
 * The KPIs of jobs that changed from `from` to `to`, decided on
 * interleaved runs (`runs`: which); measured first.  *out: the caller's.
 */
static int changes_between(struct watcher *w, const struct registry_tree *t,
			   const struct atomic_job *jobs, size_t nr, const char *from,
			   const char *to, enum runs_from runs, struct measure_change **out,
			   size_t *nr_out)
{
	char *shas[2] = { (char *)from, (char *)to };
	double *since = calloc(nr ? nr : 1, sizeof(*since));
	double not_before = runs_not_before(runs);
	struct measure_spec spec = {
		.repo = t->repo, .testbox = w->host, .shas = shas,
		.labels = (const char *const *)shas, .nr_commits = 2, .opts = &w->opts,
		.not_before = not_before,
	};
	int ret;

	*out = NULL;
	*nr_out = 0;
	if (!since)
		return failure("out of memory");
	ret = measure(w, t, jobs, nr, shas, 2, not_before, since);
	/* a commit that cannot be measured: the others' changes still count */
	if (!ret || ret == EXIT_FAILED)
		ret = measure_changes(w->s, jobs, nr, &spec, since, w->reg->policy.families, out,
				      nr_out) ?: ret;
	free(since);
	return ret;
}

/* ---- alerts ---- */

static int alert_update(struct watcher *w, struct store_alert *a, const char *state,
			const char *note)
{
	char *old = a->state, *old_note = a->note;

	a->state = (char *)state;
	a->note = (char *)note;
	if (store_alert_update(w->s, a)) {
		a->state = old;
		a->note = old_note;
		return failure("%s", store_error(w->s));
	}
	a->state = strdup(state);
	a->note = note ? strdup(note) : NULL;
	free(old);
	free(old_note);
	return a->state ? 0 : failure("out of memory");
}

static int set_str(char **field, const char *value)
{
	char *copy = value ? strdup(value) : NULL;

	if (value && !copy)
		return -ENOMEM;
	free(*field);
	*field = copy;
	return 0;
}

/* A confirmed change of the head against its base: an alert, once. */
static int add_alert(struct watcher *w, const struct registry_tree *t, const char *branch,
		     const struct atomic_job *job, const struct measure_change *c,
		     const char *before, const char *after, const char *how)
{
	struct store_alert a = {
		.tree = (char *)t->name, .branch = (char *)branch, .testbox = w->host,
		.job = job->name, .metric = c->metric, .before = (char *)before,
		.after = (char *)after, .how = (char *)how, .state = "confirmed",
		.pct = c->pct,
	};
	int ret = store_alert_add(w->s, &a);

	if (ret == -EEXIST)
		return 0;
	if (ret)
		return failure("%s", store_error(w->s));
	/* on the fleet, the box whose runs showed it */
	say("%s/%s: alert %" PRId64 ": %s %s %+.1f%% from %s to %s (confirmed on interleaved runs%s%s)",
	    t->name, branch, a.id, job->name, c->metric, c->pct, short12(before), short12(after),
	    w->fleet.testbox ? " of " : "", w->fleet.testbox ? w->host : "");
	return 0;
}

/* ---- one branch's new head ---- */

/*
 * The changes ch[] of the head against base, measured again on runs of
 * their own (a window that starts now): what changes the same way again
 * is kept, the rest dropped, said.  A verdict at compare's alpha is wrong
 * about once in twenty per KPI when nothing changed, and a robot asks at
 * every push; asking twice on independent runs leaves about one in four
 * hundred, while a real change shows again.
 */
static int confirm_afresh(struct watcher *w, const struct registry_tree *t,
			  const struct tree_jobs *jobs, const char *branch, const char *base,
			  const char *head, struct measure_change *ch, size_t *nch)
{
	struct atomic_job *again = calloc(*nch, sizeof(*again));
	size_t *index = calloc(*nch, sizeof(*index));	/* ch[i]'s job in again[] */
	struct measure_change *re = NULL;
	size_t n = 0, nre = 0, kept = 0;
	int ret;

	if (!again || !index) {
		free(again);
		free(index);
		return failure("out of memory");
	}
	/* each job once, however many of its KPIs changed (borrowed copies) */
	for (size_t i = 0; i < *nch; i++) {
		size_t k = 0;

		while (k < n && strcmp(again[k].name, jobs->v[ch[i].job].name))
			k++;
		if (k == n)
			again[n++] = jobs->v[ch[i].job];
		index[i] = k;
	}
	say("%s/%s: head %s: %zu KPI%s changed against %s; measuring again, afresh, to confirm",
	    t->name, branch, short12(head), *nch, *nch == 1 ? "" : "s", short12(base));
	ret = changes_between(w, t, again, n, base, head, FRESH_RUNS, &re, &nre);
	if (ret == EXIT_FAILED) {
		w->failed = true;
		ret = 0;
	}
	for (size_t i = 0; !ret && i < *nch; i++) {
		bool shown_again = false;

		for (size_t k = 0; k < nre && !shown_again; k++)
			shown_again = re[k].job == index[i] && !strcmp(re[k].metric, ch[i].metric) &&
				      (re[k].pct > 0) == (ch[i].pct > 0);
		if (!shown_again) {
			say("%s/%s: head %s: %s %s %+.1f%% did not change again on fresh runs:"
			    " no alert", t->name, branch, short12(head),
			    jobs->v[ch[i].job].name, ch[i].metric, ch[i].pct);
			free(ch[i].metric);
			continue;
		}
		ch[kept++] = ch[i];
	}
	if (!ret)
		*nch = kept;
	measure_changes_release(re, nre);
	free(again);
	free(index);
	return ret;
}

/* The head against one base: every KPI that changed, an alert. */
static int compare_head(struct watcher *w, const struct registry_tree *t,
			const struct tree_jobs *jobs, const char *branch, const char *base,
			const char *head)
{
	struct measure_change *ch = NULL;
	size_t nch = 0;
	int ret;

	say("%s/%s: head %s against %s", t->name, branch, short12(head), short12(base));
	ret = changes_between(w, t, jobs->v, jobs->n, base, head, STORED_RUNS, &ch, &nch);
	if (ret == EXIT_FAILED) {
		w->failed = true;
		ret = 0;
	}
	if (!ret && nch)
		ret = confirm_afresh(w, t, jobs, branch, base, head, ch, &nch);
	for (size_t i = 0; !ret && i < nch; i++)
		ret = add_alert(w, t, branch, &jobs->v[ch[i].job], &ch[i], base, head, "head");
	if (!ret && !nch && !stop_now())
		say("%s/%s: head %s: no KPI changed against %s", t->name, branch, short12(head),
		    short12(base));
	measure_changes_release(ch, nch);
	return ret;
}

static int test_head(struct watcher *w, const struct registry_tree *t,
		     const struct tree_jobs *jobs, const char *branch, const char *head)
{
	struct store_point *pts = NULL;
	size_t npts = 0;
	char *prev = NULL, *upstream = NULL;
	const char *base;
	double age = time(NULL) - commit_time(t->repo, head);
	int ret;

	if (store_points(w->s, t->name, branch, &pts, &npts))
		return failure("%s", store_error(w->s));
	if (npts && !strcmp(pts[npts - 1].sha, head)) {
		store_points_release(pts, npts);
		return 0;
	}
	{
		struct strbuf why = STRBUF_INIT;

		/* a kernel tree: each job builds and boots the kernel (kernel:) */
		if (cmd_kernel_jobs_fit(t->repo, branch, head, jobs->v, jobs->n, false, &why)) {
			say("%s/%s: head %s: %s; not tested", t->name, branch, short12(head),
			    why.buf);
			strbuf_release(&why);
			store_points_release(pts, npts);
			w->failed = true;
			return 0;
		}
		strbuf_release(&why);
	}
	if (isfinite(age) && age > t->max_age_s) {
		say("%s/%s: head %s is %.0f days old, past max_age: not tested", t->name, branch,
		    short12(head), age / 86400);
		store_points_release(pts, npts);
		return 0;
	}
	/* the previous tested head: a rebased branch's is replaced by its merge base */
	if (npts) {
		const char *last = pts[npts - 1].sha;

		if (is_ancestor(t->repo, last, head))
			prev = strdup(last);
		else
			git_line(t->repo, &prev, "merge-base", last, head, NULL);
	}
	store_points_release(pts, npts);
	/* and the base: the merge base with the upstream branch */
	if (t->base == REGISTRY_BASE_UPSTREAM && t->base_branch)
		git_line(t->repo, &upstream, "merge-base", t->base_branch, head, NULL);
	if (prev && !strcmp(prev, head)) {
		free(prev);
		prev = NULL;
	}
	if (upstream && (!strcmp(upstream, head) || (prev && !strcmp(upstream, prev)))) {
		free(upstream);
		upstream = NULL;
	}
	base = upstream ? upstream : prev;
	if (!prev && !upstream) {
		char *shas[1] = { (char *)head };
		double *since = calloc(jobs->n ? jobs->n : 1, sizeof(*since));

		say("%s/%s: head %s: the first point of the branch", t->name, branch,
		    short12(head));
		ret = since ? measure(w, t, jobs->v, jobs->n, shas, 1, 0, since)
			    : failure("out of memory");
		free(since);
	} else {
		ret = prev ? compare_head(w, t, jobs, branch, prev, head) : 0;
		if (!ret && upstream && !stop_now())
			ret = compare_head(w, t, jobs, branch, upstream, head);
	}
	if (ret == EXIT_FAILED) {
		w->failed = true;
		ret = 0;
	}
	if (!ret && !stop_now() &&
	    store_point_add(w->s, t->name, branch, head, base, NULL))
		ret = failure("%s", store_error(w->s));
	free(prev);
	free(upstream);
	return stop_now() ? 128 + interrupted : ret;
}

/* ---- change points over the branch's history ---- */

/* The metric of job: its kpi:, else the KPI its runs at sha declare. */
static char *job_metric(struct watcher *w, const struct atomic_job *job, const char *sha)
{
	struct store_filter f = { .commit = sha, .job = job->name, .testbox = w->host };
	struct store_group *g = NULL;
	struct run_record r;
	size_t n = 0;
	char *metric = NULL;

	if (job->kpi)
		return strdup(job->kpi);
	if (store_list_groups(w->s, &f, &g, &n) || !n) {
		store_groups_release(g, n);
		return NULL;
	}
	if (!store_get_run(w->s, g[0].last_run_id, &r)) {
		const char *kpi = run_record_kpi(&r);

		metric = kpi ? strdup(kpi) : NULL;
		run_record_release(&r);
	}
	store_groups_release(g, n);
	return metric;
}

/* sha's complete runs' values of metric (malloc'd; none: NULL, 0). */
static int point_values(struct watcher *w, const char *job, const char *metric,
			const char *sha, double **v, size_t *n)
{
	struct store_samples sm;

	*v = NULL;
	*n = 0;
	if (store_load_samples(w->s, w->host, job, sha, &sm))
		return failure("%s", store_error(w->s));
	for (size_t i = 0; i < sm.nr; i++) {
		if (strcmp(sm.names[i], metric) || !sm.counts[i])
			continue;
		*v = malloc(sm.counts[i] * sizeof(**v));
		if (!*v) {
			store_samples_release(&sm);
			return failure("out of memory");
		}
		memcpy(*v, sm.values[i], sm.counts[i] * sizeof(**v));
		*n = sm.counts[i];
	}
	store_samples_release(&sm);
	return 0;
}

static bool alert_known(const struct store_alert *all, size_t n, const char *testbox,
			const char *job, const char *metric, const char *before,
			const char *after)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(all[i].testbox, testbox) && !strcmp(all[i].job, job) &&
		    !strcmp(all[i].metric, metric) && !strcmp(all[i].before, before) &&
		    !strcmp(all[i].after, after))
			return true;
	return false;
}

/* The change of metric in ch[] that goes the way pct does, or NULL. */
static const struct measure_change *same_way(const struct measure_change *ch, size_t nch,
					     const char *metric, double pct)
{
	for (size_t i = 0; i < nch; i++)
		if (!strcmp(ch[i].metric, metric) && (ch[i].pct > 0) == (pct > 0))
			return &ch[i];
	return NULL;
}

/*
 * A change point of job's metric between two points: confirmed on runs of
 * both, interleaved (the runs either side, as compare --measure adds
 * them), and again on runs of their own (a window that starts then, as
 * a head's change is: confirm_afresh()), it is an alert; not confirmed,
 * it is recorded as invalid, so that no later pass measures it again.
 * Asking twice matters more here than at a head: a step in a history is
 * what a drifting machine makes, and one verdict at compare's alpha
 * passes one such step in twenty.
 */
static int confirm_change_point(struct watcher *w, const struct registry_tree *t,
				const char *branch, const struct atomic_job *job,
				const char *metric, const struct cp_change *c,
				const char *before, const char *after)
{
	struct measure_change *ch = NULL, *re = NULL;
	const struct measure_change *first = NULL, *again = NULL;
	size_t nch = 0, nre = 0;
	bool confirmed = false;
	int ret;

	say("%s/%s: %s: %s change point %+.1f%% between %s and %s (p %.2g): confirming",
	    t->name, branch, job->name, c->tentative ? "a tentative" : "a", c->pct,
	    short12(before), short12(after), c->p);
	ret = changes_between(w, t, job, 1, before, after, STORED_RUNS, &ch, &nch);
	if (!ret)
		first = same_way(ch, nch, metric, c->pct);
	if (first) {
		say("%s/%s: %s: %s %+.1f%% on interleaved runs; measuring again, afresh, to confirm",
		    t->name, branch, job->name, metric, first->pct);
		ret = changes_between(w, t, job, 1, before, after, FRESH_RUNS, &re, &nre);
		if (!ret)
			again = same_way(re, nre, metric, c->pct);
		if (!ret && !again && !stop_now())
			say("%s/%s: %s: %s %+.1f%% did not change again on fresh runs", t->name,
			    branch, job->name, metric, first->pct);
	}
	if (again) {
		confirmed = true;
		ret = add_alert(w, t, branch, job, again, before, after, "changepoint");
	}
	if (!ret && !confirmed && !stop_now()) {
		struct store_alert a = {
			.tree = (char *)t->name, .branch = (char *)branch, .testbox = w->host,
			.job = job->name, .metric = (char *)metric, .before = (char *)before,
			.after = (char *)after, .how = "changepoint", .state = "invalid",
			.pct = c->pct,
			.note = first ? "not confirmed: it did not change again on fresh runs"
				      : "not confirmed on interleaved runs",
		};
		int e = store_alert_add(w->s, &a);

		if (e && e != -EEXIST)
			ret = failure("%s", store_error(w->s));
		else
			say("%s/%s: %s: the change point is not confirmed on interleaved runs",
			    t->name, branch, job->name);
	}
	measure_changes_release(re, nre);
	measure_changes_release(ch, nch);
	return ret == EXIT_FAILED ? 0 : ret;
}

/* One job's history on the branch: its change points, each confirmed (or refuted) once. */
static int scan_job(struct watcher *w, const struct registry_tree *t, const char *branch,
		    const struct atomic_job *job, char **chain, size_t nchain,
		    const struct store_alert *known, size_t nknown)
{
	struct cp_point *pts = calloc(nchain ? nchain : 1, sizeof(*pts));
	size_t *at = calloc(nchain ? nchain : 1, sizeof(*at)), np = 0;
	char *metric = job_metric(w, job, chain[nchain - 1]);
	struct cp_change *cps = NULL;
	size_t ncp = 0;
	struct cp_opts o;
	int ret = 0;

	if (!pts || !at) {
		ret = failure("out of memory");
		goto out;
	}
	if (!metric)
		goto out;	/* no runs, or no KPI: nothing to follow */
	for (size_t i = 0; i < nchain && !ret; i++) {
		double *v = NULL;
		size_t n = 0;

		ret = point_values(w, job->name, metric, chain[i], &v, &n);
		if (!ret && n) {
			pts[np] = (struct cp_point){ .v = v, .n = n };
			at[np++] = i;
		} else {
			free(v);
		}
	}
	cp_opts_init(&o);
	if (ret || np < 2 * o.min_side)
		goto out;
	if (cp_detect(pts, np, &o, &cps, &ncp, NULL)) {
		ret = failure("change points of %s: out of memory or bad values", job->name);
		goto out;
	}
	for (size_t k = 0; k < ncp && !ret && !stop_now(); k++) {
		const char *before = chain[at[cps[k].index - 1]], *after = chain[at[cps[k].index]];

		if (alert_known(known, nknown, w->host, job->name, metric, before, after))
			continue;
		ret = confirm_change_point(w, t, branch, job, metric, &cps[k], before, after);
	}
out:
	for (size_t i = 0; pts && i < np; i++)
		free((double *)pts[i].v);
	free(pts);
	free(at);
	free(cps);
	free(metric);
	return ret;
}

/*
 * The branch's history -- its points on the head's first-parent line, in
 * the order tested -- searched for change points, job by job: changes too
 * small for one head's comparison but plain over many points.
 */
static int scan_history(struct watcher *w, const struct registry_tree *t,
			const struct tree_jobs *jobs, const char *branch, const char *head)
{
	struct store_point *pts = NULL;
	struct store_alert *known = NULL;
	size_t npts = 0, nknown = 0, nchain = 0;
	char **chain = NULL;
	int ret = 0;

	if (store_points(w->s, t->name, branch, &pts, &npts) ||
	    store_alerts(w->s, NULL, &known, &nknown)) {
		ret = failure("%s", store_error(w->s));
		goto out;
	}
	chain = calloc(npts ? npts : 1, sizeof(*chain));
	if (!chain) {
		ret = failure("out of memory");
		goto out;
	}
	/* a rebased branch keeps its old points by commit, off this line */
	for (size_t i = 0; i < npts; i++) {
		bool dup = false;

		for (size_t k = 0; k < nchain && !dup; k++)
			dup = !strcmp(chain[k], pts[i].sha);
		if (!dup && is_ancestor(t->repo, pts[i].sha, head))
			chain[nchain++] = pts[i].sha;
	}
	/*
	 * The last WATCH_HISTORY_POINTS of the line: each pass reads every
	 * point's runs, and a change older than that was seen long ago.
	 */
	for (size_t j = 0, from = nchain > WATCH_HISTORY_POINTS ? nchain - WATCH_HISTORY_POINTS : 0;
	     j < jobs->n && nchain - from > 1 && !ret && !stop_now(); j++)
		ret = scan_job(w, t, branch, &jobs->v[j], chain + from, nchain - from, known,
			       nknown);
out:
	free(chain);
	store_points_release(pts, npts);
	store_alerts_release(known, nknown);
	return stop_now() ? 128 + interrupted : ret;
}

/* ---- culprits ---- */

/* The deepest culprit a bisection found (inside a merge when it went there). */
static const struct bisect_level *culprit_level(const struct bisect_level *lv)
{
	const struct bisect_level *found = NULL;

	for (; lv; lv = lv->merge ? lv->merge->inner : NULL)
		if (lv->status == BISECT_STATUS_FOUND && lv->have_culprit)
			found = lv;
	return found;
}

/*
 * Did the culprit's confirmation -- it against its parent, measured
 * alternately -- show the alert's change, "changed" the same way?  A
 * bisection on a drifting machine can end on a commit that only time
 * separated from the runs it was compared with; the robot mails no such
 * culprit.  *why: the confirmation's words when it did not.
 */
static bool confirmed(const struct bisect_level *lv, const struct store_alert *a,
		      struct strbuf *why)
{
	const struct bisect_change *c = &lv->confirmation.change;

	if (bisect_level_confirmed(lv) && (c->pct > 0) == (a->pct > 0))
		return true;
	if (!lv->confirmation.present || !c->present || !c->verdict)
		strbuf_setf(why, "the culprit was not confirmed against its parent");
	else
		strbuf_setf(why, "the culprit's confirmation against its parent says %s (%+.2f%%),"
			    " not the alert's change", c->verdict, c->pct);
	return false;
}

static void hook_note(void *ctx, const char *line)
{
	int64_t id = *(const int64_t *)ctx;

	say("bisect %" PRId64 ": %s", id, line);
}

/* The alert's range bisected (or its one commit named); *culprit or NULL. */
static int bisect_alert(struct watcher *w, const struct registry_tree *t,
			const struct atomic_job *job, struct store_alert *a, char **culprit)
{
	struct bisect_spec spec = {
		.repo = t->repo, .good = a->before, .bad = a->after, .metric = a->metric,
		.job_path = job->file, .job_text = job->text, .testbox = w->host,
		.confidence = WATCH_CONFIDENCE, .max_runs = (unsigned)w->reg->policy.bisect_max_runs,
	};
	struct bisect_hooks hooks = {
		.note = hook_note, .ctx = &a->bisect_id,
		.fleet = w->fleet.testbox ? &w->fleet : NULL,
	};
	struct bisect_result result;
	struct strbuf err = STRBUF_INIT;
	char *parent = parent_of(t->repo, a->after), *text = NULL;
	int ret;

	*culprit = NULL;
	/* one commit in the range: it is the culprit, measured already */
	if (parent && !strcmp(parent, a->before)) {
		free(parent);
		*culprit = strdup(a->after);
		return *culprit ? 0 : failure("out of memory");
	}
	free(parent);
	if (!a->bisect_id) {
		if (bisect_spec_to_json(&spec, &text))
			return failure("out of memory");
		if (store_bisect_add(w->s, "running", text, &a->bisect_id)) {
			free(text);
			return failure("%s", store_error(w->s));
		}
		free(text);
		store_bisect_log_add(w->s, a->bisect_id, "start (perfbot watch)");
		ret = alert_update(w, a, "bisecting", NULL);
		if (ret)
			return ret;
	}
	say("%s: alert %" PRId64 ": bisect %" PRId64 " of %s..%s on %s", t->name, a->id,
	    a->bisect_id, short12(a->before), short12(a->after), a->metric);
	ret = bisect_session_run(w->s, a->bisect_id, &spec, job, &hooks, &result, &err);
	if (ret == -EINTR) {
		strbuf_release(&err);
		return 128 + (interrupted ? interrupted : SIGINT);
	}
	if (ret) {
		say("%s: alert %" PRId64 ": bisect %" PRId64 " failed: %s", t->name, a->id,
		    a->bisect_id, err.buf);
		strbuf_release(&err);
		return alert_update(w, a, "no-culprit", "the bisection failed");
	}
	const struct bisect_level *found = culprit_level(&result.level);

	if (found && !confirmed(found, a, &err)) {
		say("%s: alert %" PRId64 ": bisect %" PRId64 " named %s, refused: %s", t->name,
		    a->id, a->bisect_id, short12(found->culprit.commit.sha), err.buf);
		ret = alert_update(w, a, "no-culprit",
				   strbuf_error(&err) ? "the culprit was not confirmed" : err.buf);
		strbuf_release(&err);
		bisect_result_release(&result);
		return ret;
	}
	strbuf_release(&err);
	if (found)
		*culprit = strdup(found->culprit.commit.sha);
	bisect_result_release(&result);
	if (!*culprit)
		return alert_update(w, a, "no-culprit", "the bisection named no commit");
	return 0;
}

/*
 * Does culprit explain alert a -- does a's job change the same way at the
 * culprit against its parent?  Measured, interleaved.
 */
static int explains(struct watcher *w, const struct registry_tree *t,
		    const struct atomic_job *job, const struct store_alert *a,
		    const char *culprit, bool *yes)
{
	char *parent = parent_of(t->repo, culprit);
	struct measure_change *ch = NULL;
	size_t nch = 0;
	int ret;

	*yes = false;
	if (!parent)
		return 0;
	ret = changes_between(w, t, job, 1, parent, culprit, STORED_RUNS, &ch, &nch);
	for (size_t i = 0; !ret && i < nch; i++)
		if (!strcmp(ch[i].metric, a->metric) && (ch[i].pct > 0) == (a->pct > 0))
			*yes = true;
	measure_changes_release(ch, nch);
	free(parent);
	return ret == EXIT_FAILED ? 0 : ret;
}

/* Culprits found so far on the branch, newest alert first. */
static int known_culprits(struct watcher *w, const char *tree, const char *branch,
			  struct store_alert **all, size_t *n)
{
	if (store_alerts(w->s, NULL, all, n))
		return failure("%s", store_error(w->s));
	(void)tree;
	(void)branch;
	return 0;
}

/* Find the culprit of a confirmed (or bisecting) alert. */
static int explain_alert(struct watcher *w, const struct registry_tree *t,
			 const struct tree_jobs *jobs, struct store_alert *a)
{
	const struct atomic_job *job = find_job(jobs, a->job);
	struct store_alert *all = NULL;
	size_t n = 0;
	char *culprit = NULL;
	int ret;

	if (!job)
		return alert_update(w, a, "invalid", "its job is no longer in the registry");
	/* a culprit found for another alert of this branch, in this range? */
	ret = a->bisect_id ? 0 : known_culprits(w, t->name, a->branch, &all, &n);
	for (size_t i = n; !ret && i-- > 0 && !culprit;) {
		const struct store_alert *o = &all[i];
		bool yes = false;

		if (o->id == a->id || !o->culprit || strcmp(o->tree, a->tree) ||
		    strcmp(o->branch, a->branch) || !strcmp(o->culprit, a->before) ||
		    !is_ancestor(t->repo, a->before, o->culprit) ||
		    !is_ancestor(t->repo, o->culprit, a->after))
			continue;
		ret = explains(w, t, job, a, o->culprit, &yes);
		if (!ret && yes) {
			culprit = strdup(o->culprit);
			say("%s: alert %" PRId64 ": %s explains it too (as it does alert %" PRId64 ")",
			    t->name, a->id, short12(o->culprit), o->id);
			if (!culprit)
				ret = failure("out of memory");
		}
	}
	store_alerts_release(all, n);
	if (!ret && !culprit)
		ret = bisect_alert(w, t, job, a, &culprit);
	if (!ret && culprit) {
		ret = set_str(&a->culprit, culprit) ? failure("out of memory")
						     : alert_update(w, a, "found", NULL);
		if (!ret)
			say("%s: alert %" PRId64 ": culprit %s", t->name, a->id, short12(culprit));
	}
	free(culprit);
	return ret;
}

/* ---- reports ---- */

/* "tmp/" and "new/" of a Maildir, made when missing. */
static int maildir_make(const char *dir)
{
	static const char *const subs[] = { "tmp", "new", "cur" };
	char path[4096];

	for (size_t i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, subs[i]);
		if (make_dirs(path))
			return -errno ?: -EIO;
	}
	return 0;
}

/*
 * msg into the Maildir under a name of the report's own, so that writing
 * it again (after a crash) replaces it: tmp/NAME then rename to new/NAME.
 */
static int maildir_put(const char *dir, int64_t report_id, int64_t followup,
		       const char *culprit, double created, const char *msg, size_t len,
		       char **path)
{
	char host[256], name[512], tmp[4096], final[4096];
	int ret;

	*path = NULL;
	if (gethostname(host, sizeof(host)) || !*host)
		snprintf(host, sizeof(host), "localhost");
	host[sizeof(host) - 1] = '\0';
	for (char *p = host; *p; p++)
		if (*p == '/' || *p == ':')
			*p = '_';
	if (followup)
		snprintf(name, sizeof(name), "%.0f.perfbot-report-%" PRId64 "-followup-%" PRId64
			 "-%.12s.%s", created, report_id, followup, culprit, host);
	else
		snprintf(name, sizeof(name), "%.0f.perfbot-report-%" PRId64 "-%.12s.%s", created,
			 report_id, culprit, host);
	if (maildir_make(dir))
		return -EIO;
	snprintf(tmp, sizeof(tmp), "%s/tmp/%s", dir, name);
	snprintf(final, sizeof(final), "%s/new/%s", dir, name);
	ret = write_file_atomic(final, tmp, msg, len, true);
	if (ret)
		return ret;
	*path = strdup(final);
	return *path ? 0 : -ENOMEM;
}

/* The To: of a report: the registry's rules, the culprit's author for `author`. */
static char *recipients(const struct registry_rcpt *r, size_t n, const struct git_commit *c)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < n; i++) {
		const char *who = r[i].kind == REGISTRY_RCPT_ADDRESS ? r[i].address :
				  c && c->author ? c->author : NULL;

		if (who)
			strbuf_addf(&sb, "%s%s", sb.len ? ", " : "", who);
	}
	if (strbuf_error(&sb) || !sb.len) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}


/*
 * "How sure" of a report: each of its alerts' bisection (report/'s
 * words), or how the culprit was found without one.
 */
static void evidence(struct watcher *w, const struct store_alert *alerts, size_t n,
		     struct strbuf *sb)
{
	for (size_t i = 0; i < n; i++) {
		const struct store_alert *a = &alerts[i];
		struct store_bisect b = { 0 };
		struct bisect_result r;
		char err[256];
		bool done = false;

		strbuf_addf(sb, "%s%s %s %+.1f%% from %.12s to %.12s (%s):\n", sb->len ? "\n" : "",
			    a->job, a->metric, a->pct, a->before, a->after,
			    !strcmp(a->how, "changepoint") ? "a change point of the branch's history, "
			    "confirmed on interleaved runs" : "the new head against its base, on "
			    "interleaved runs");
		if (a->bisect_id && !store_bisect_get(w->s, a->bisect_id, &b) &&
		    !bisect_result_load(&r, b.id, b.status, b.result, b.spec, err, sizeof(err))) {
			done = !report_bisect_evidence(sb, &r);
			bisect_result_release(&r);
		}
		store_bisect_release(&b);
		if (done)
			continue;
		if (!a->bisect_id)
			strbuf_addf(sb, "%.12s is the one commit between them, or the culprit of an"
				    " earlier alert that moves this job the same way when measured"
				    " against its parent\n", a->culprit ? a->culprit : "?");
	}
}

/*
 * The email of report rp: parent, culprit and the branch's tip as columns
 * (measured interleaved), every job of its alerts.  *msg: the caller's.
 */
static int compose(struct watcher *w, const struct registry_tree *t, const char *branch,
		   const char *tip, const struct tree_jobs *jobs, const struct store_report *rp,
		   const struct store_alert *alerts, size_t nr_alerts, const char *in_reply_to,
		   char **msg, size_t *len)
{
	const char *culprit = rp->culprit;
	char *parent = parent_of(t->repo, culprit), *url = gather_origin_url(t->repo);
	char *shas[3] = { parent, (char *)culprit, (char *)tip };
	size_t ncols = tip && strcmp(tip, culprit) ? 3 : 2, nj = 0;
	struct atomic_job *sel = calloc(nr_alerts ? nr_alerts : 1, sizeof(*sel));
	const char **names = calloc(nr_alerts + 1, sizeof(*names));
	double *since = calloc(nr_alerts + 1, sizeof(*since));
	struct git_commit gc[3] = { 0 };
	char *to = NULL, *cc = NULL, *link = NULL, *tree_branch = NULL;
	struct strbuf how_sure = STRBUF_INIT, subsystem = STRBUF_INIT;
	struct gather ga = { 0 };
	FILE *mem;
	int ret = 0;

	*msg = NULL;
	*len = 0;
	if (!parent || !sel || !names || !since) {
		ret = parent ? failure("out of memory")
			     : failure("%s has no parent to compare it with", short12(culprit));
		goto out;
	}
	/* the jobs of the report, once each, in the alerts' order */
	for (size_t i = 0; i < nr_alerts; i++) {
		const struct atomic_job *j = find_job(jobs, alerts[i].job);
		bool dup = false;

		for (size_t k = 0; j && k < nj; k++)
			dup |= !strcmp(names[k], j->name);
		if (!j || dup)
			continue;
		sel[nj] = *j;		/* a shallow copy: jobs owns it */
		names[nj++] = j->name;
	}
	if (!nj) {
		ret = failure("report %" PRId64 ": its jobs are no longer in the registry", rp->id);
		goto out;
	}
	ret = measure(w, t, sel, nj, shas, ncols, 0, since);
	if (ret == EXIT_FAILED)
		ret = 0;
	if (ret)
		goto out;
	ga = (struct gather){
		.who = "watch", .testbox = w->host, .only_jobs = names, .since = since,
		.given = shas, .nr_commits = ncols,
	};
	ret = gather_jobs(w->s, &ga);
	for (size_t i = 0; !ret && i < ga.njobs; i++)
		ret = gather_compare(w->s, &ga, &ga.jobs[i], &w->opts);
	if (ret)
		goto out;
	for (size_t j = 0; j < ncols; j++) {
		if (git_commit_info(t->repo, shas[j], &gc[j]))
			continue;
		ga.report_commits[j].subject = gc[j].subject;
		ga.report_commits[j].author = gc[j].author;
		ga.report_commits[j].date = gc[j].date;
	}
	to = recipients(w->reg->report.to, w->reg->report.nr_to, &gc[1]);
	cc = recipients(w->reg->report.cc, w->reg->report.nr_cc, &gc[1]);
	if (w->reg->report.link &&
	    asprintf(&link, "%s%s%" PRId64, w->reg->report.link,
		     w->reg->report.link[strlen(w->reg->report.link) - 1] == '/' ? "" : "/",
		     rp->id) < 0)
		link = NULL;
	if (asprintf(&tree_branch, "%s:%s", t->name, branch) < 0)
		tree_branch = NULL;
	evidence(w, alerts, nr_alerts, &how_sure);
	ga.report.repo_url = url;
	ga.report.repo = t->repo;
	ga.report.branch = tree_branch ? tree_branch : branch;
	ga.report.evidence = strbuf_error(&how_sure) || !how_sure.len ? NULL : how_sure.buf;
	ga.report.from = w->reg->report.from;
	ga.report.to = to;
	ga.report.cc = cc;
	ga.report.in_reply_to = in_reply_to;
	ga.report.reported_by = w->reg->report.reported_by;
	ga.report.link = link;
	ga.report.opts = &w->opts;
	gather_subsystem(&subsystem, t->repo, &ga.report);
	ga.report.subsystem = subsystem.len && !strbuf_error(&subsystem) ? subsystem.buf : NULL;
	mem = open_memstream(msg, len);
	if (!mem) {
		ret = failure("out of memory");
		goto out;
	}
	ret = report_email(mem, &ga.report);
	if (fclose(mem) && !ret)
		ret = -EIO;
	if (ret) {
		free(*msg);
		*msg = NULL;
		ret = failure("cannot write report %" PRId64 ": %s", rp->id, strerror(-ret));
	}
out:
	gather_release(&ga);
	for (size_t j = 0; j < 3; j++)
		git_commit_release(&gc[j]);
	free(sel);
	free(names);
	free(since);
	free(parent);
	free(url);
	free(to);
	free(cc);
	free(link);
	free(tree_branch);
	strbuf_release(&how_sure);
	strbuf_release(&subsystem);
	return ret;
}

/* The alerts of report id (state "reported"), oldest first. */
static int report_alerts(struct watcher *w, int64_t id, struct store_alert **out, size_t *n)
{
	struct store_alert *all = NULL;
	size_t nall = 0, k = 0;

	*out = NULL;
	*n = 0;
	if (store_alerts(w->s, "reported", &all, &nall))
		return failure("%s", store_error(w->s));
	for (size_t i = 0; i < nall; i++) {
		if (all[i].report_id == id)
			all[k++] = all[i];
		else
			store_alert_release(&all[i]);
	}
	*out = all;
	*n = k;
	return 0;
}

/* Write (again) the message of report rp; state "written" (and "sent"). */
static int write_report(struct watcher *w, const struct registry_tree *t, const char *branch,
			const char *tip, const struct tree_jobs *jobs, struct store_report *rp)
{
	struct store_alert *alerts = NULL;
	size_t n = 0, len = 0;
	char *msg = NULL, *path = NULL;
	int ret = report_alerts(w, rp->id, &alerts, &n);

	if (!ret)
		ret = compose(w, t, branch, tip, jobs, rp, alerts, n, NULL, &msg, &len);
	if (ret)
		goto out;
	if (w->outbox) {
		int e = maildir_put(w->outbox, rp->id, 0, rp->culprit, rp->created, msg, len,
				    &path);

		if (e) {
			ret = failure("cannot write report %" PRId64 " into %s: %s", rp->id,
				      w->outbox, strerror(-e));
			goto out;
		}
		say("%s/%s: report %" PRId64 " of %s written: %s", t->name, branch, rp->id,
		    short12(rp->culprit), path);
	}
	if (store_report_update(w->s, rp->id, "written", path)) {
		ret = failure("%s", store_error(w->s));
		goto out;
	}
	if (w->reg->report.sendmail) {
		ret = cmd_pipe_message("watch", w->reg->report.sendmail, msg, len);
		if (!ret && store_report_update(w->s, rp->id, "sent", NULL))
			ret = failure("%s", store_error(w->s));
		if (!ret)
			say("%s/%s: report %" PRId64 " sent", t->name, branch, rp->id);
	}
out:
	store_alerts_release(alerts, n);
	free(msg);
	free(path);
	return ret;
}

/* The Message-ID header of the message at path, or NULL. */
static char *message_id(const char *path)
{
	struct strbuf text = STRBUF_INIT;
	char *id = NULL;

	if (!path || strbuf_read_file(&text, path, 1 << 20) < 0) {
		strbuf_release(&text);
		return NULL;
	}
	for (char *line = text.buf; line && *line && *line != '\n';) {
		char *next = strchr(line, '\n');

		if (next)
			*next++ = '\0';
		if (!strncasecmp(line, "Message-ID: ", 12)) {
			id = strdup(line + 12);
			break;
		}
		line = next;
	}
	strbuf_release(&text);
	return id;
}

/*
 * A later alert of a reported culprit, mailed as a follow-up of its report
 * (registry: follow_up): "Re: " the report, In-Reply-To its Message-ID,
 * the alert's job at parent, culprit and tip.  Its Maildir name is the
 * alert's own, so that writing it again after a crash replaces it.
 */
static int write_followup(struct watcher *w, const struct registry_tree *t, const char *branch,
			  const char *tip, const struct tree_jobs *jobs, struct store_alert *a)
{
	struct store_report rp = { 0 };
	char *id = NULL, *msg = NULL, *path = NULL;
	size_t len = 0;
	int ret;

	if (store_report_get(w->s, a->report_id, &rp))
		return failure("%s", store_error(w->s));
	id = message_id(rp.path);
	ret = compose(w, t, branch, tip, jobs, &rp, a, 1, id ? id : "<unknown>", &msg, &len);
	if (!ret && w->outbox) {
		int e = maildir_put(w->outbox, rp.id, a->id, rp.culprit, rp.created, msg, len, &path);

		if (e)
			ret = failure("cannot write a follow-up of report %" PRId64 " into %s: %s",
				      rp.id, w->outbox, strerror(-e));
		else
			say("%s/%s: alert %" PRId64 ": follow-up of report %" PRId64 " written: %s",
			    t->name, branch, a->id, rp.id, path);
	}
	if (!ret && w->reg->report.sendmail)
		ret = cmd_pipe_message("watch", w->reg->report.sendmail, msg, len);
	if (!ret)
		ret = alert_update(w, a, "explained", "its culprit was reported before;"
				   " mailed in a follow-up");
	store_report_release(&rp);
	free(id);
	free(msg);
	free(path);
	return ret;
}

/* Has report id an alert of a's (testbox, job, direction) already? */
static int in_record(struct watcher *w, const struct store_alert *a, int64_t id, bool *known)
{
	struct store_alert *all = NULL;
	size_t n = 0;

	*known = false;
	if (store_alerts(w->s, NULL, &all, &n))
		return failure("%s", store_error(w->s));
	for (size_t i = 0; i < n && !*known; i++)
		*known = all[i].id != a->id && all[i].report_id == id &&
			 (!strcmp(all[i].state, "reported") || !strcmp(all[i].state, "explained") ||
			  !strcmp(all[i].state, "follow-up")) &&
			 !strcmp(all[i].testbox, a->testbox) && !strcmp(all[i].job, a->job) &&
			 (all[i].pct > 0) == (a->pct > 0);
	store_alerts_release(all, n);
	return 0;
}

/* Every alert with a culprit: into the culprit's report, new or old. */
static int report_found(struct watcher *w, const struct registry_tree *t, const char *branch,
			const char *tip, const struct tree_jobs *jobs)
{
	struct store_alert *found = NULL;
	size_t n = 0;
	int ret = 0;

	if (store_alerts(w->s, "found", &found, &n))
		return failure("%s", store_error(w->s));
	for (size_t i = 0; i < n && !ret; i++) {
		struct store_alert *a = &found[i];
		struct store_report rp = { 0 };
		bool fresh = false;
		int e;

		if (strcmp(a->tree, t->name) || strcmp(a->branch, branch))
			continue;
		e = store_report_find(w->s, a->culprit, &rp);
		if (e == -ENOENT) {
			e = store_report_add(w->s, a->culprit, "writing", &rp);
			fresh = !e;
			if (e == -EEXIST)
				e = 0;
		}
		if (e) {
			ret = failure("%s", store_error(w->s));
			store_report_release(&rp);
			break;
		}
		a->report_id = rp.id;
		/*
		 * Reported once: a later alert of the culprit joins its record,
		 * and is mailed as a follow-up only when the registry asks and
		 * the record has no alert of its (job, testbox, direction) yet.
		 */
		if (fresh || !strcmp(rp.state, "writing")) {
			ret = alert_update(w, a, "reported", NULL);
			if (!ret)
				say("%s/%s: alert %" PRId64 ": into report %" PRId64, t->name, branch,
				    a->id, rp.id);
		} else {
			bool known = false;

			ret = w->reg->report.follow_up ? in_record(w, a, rp.id, &known) : 0;
			if (!ret)
				ret = alert_update(w, a, w->reg->report.follow_up && !known ?
						   "follow-up" : "explained",
						   "its culprit was reported before");
			if (!ret)
				say("%s/%s: alert %" PRId64 ": %s was reported before (report %" PRId64
				    "): recorded%s", t->name, branch, a->id, short12(a->culprit), rp.id,
				    !strcmp(a->state, "follow-up") ? ", a follow-up next" : ", not mailed");
		}
		store_report_release(&rp);
	}
	store_alerts_release(found, n);
	if (ret)
		return ret;
	/* follow-ups asked for and not yet written (also after a crash) */
	if (store_alerts(w->s, "follow-up", &found, &n))
		return failure("%s", store_error(w->s));
	for (size_t i = 0; i < n && !ret && !stop_now(); i++)
		if (!strcmp(found[i].tree, t->name) && !strcmp(found[i].branch, branch))
			ret = write_followup(w, t, branch, tip, jobs, &found[i]);
	store_alerts_release(found, n);
	if (ret)
		return ret;
	/* every report whose message is not complete: written now, or again */
	{
		struct store_report *rps = NULL;
		size_t nr = 0;

		if (store_reports(w->s, &rps, &nr))
			return failure("%s", store_error(w->s));
		for (size_t i = 0; i < nr && !ret && !stop_now(); i++) {
			struct store_alert *as = NULL;
			size_t na = 0;

			if (strcmp(rps[i].state, "writing"))
				continue;
			ret = report_alerts(w, rps[i].id, &as, &na);
			/* a report belongs to the branch of its alerts */
			if (!ret && na && !strcmp(as[0].tree, t->name) &&
			    !strcmp(as[0].branch, branch))
				ret = write_report(w, t, branch, tip, jobs, &rps[i]);
			store_alerts_release(as, na);
		}
		store_reports_release(rps, nr);
	}
	return ret;
}

/* Every open alert of the branch explained, then reported. */
static int resolve_alerts(struct watcher *w, const struct registry_tree *t,
			  const struct tree_jobs *jobs, const char *branch, const char *tip)
{
	struct store_alert *open = NULL;
	size_t n = 0;
	int ret = 0;

	if (store_alerts(w->s, NULL, &open, &n))
		return failure("%s", store_error(w->s));
	for (size_t i = 0; i < n && !ret && !stop_now(); i++) {
		struct store_alert *a = &open[i];

		if (strcmp(a->tree, t->name) || strcmp(a->branch, branch) ||
		    (strcmp(a->state, "confirmed") && strcmp(a->state, "bisecting")))
			continue;
		ret = explain_alert(w, t, jobs, a);
	}
	store_alerts_release(open, n);
	if (!ret && !stop_now())
		ret = report_found(w, t, branch, tip, jobs);
	return stop_now() ? 128 + interrupted : ret;
}

/* ---- a pass ---- */

/*
 * Where a tree given by url alone is mirrored: $XDG_DATA_HOME/perfbot/
 * mirrors/NAME, else ~/.local/share/perfbot/mirrors/NAME (malloc'd).
 */
static char *mirror_path(const char *name)
{
	const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
	char *path = NULL;
	int n;

	if (xdg && *xdg == '/')
		n = asprintf(&path, "%s/perfbot/mirrors/%s", xdg, name);
	else if (home && *home)
		n = asprintf(&path, "%s/.local/share/perfbot/mirrors/%s", home, name);
	else
		return NULL;
	return n < 0 ? NULL : path;
}

static int pass_tree(struct watcher *w, const struct registry_tree *given)
{
	struct registry_tree local = *given;
	const struct registry_tree *t = &local;
	struct heads heads = { 0 };
	struct tree_jobs jobs = { 0 };
	char *mirror = NULL;
	int ret, e;

	if (!local.repo) {
		local.repo = mirror = mirror_path(local.name);
		if (!mirror || make_dirs(mirror)) {
			say("%s: no place for the mirror of %s", local.name, local.url);
			free(mirror);
			w->failed = true;
			return 0;
		}
		rmdir(mirror);	/* git clone makes it */
	}
	e = fetch_tree(t);
	if (e) {
		say("%s: cannot fetch %s: %s", t->name, t->url, strerror(-e));
		w->failed = true;
	}
	e = list_heads(t, &heads);
	if (e) {
		say("%s: cannot read the branches of %s: %s", t->name, t->repo, strerror(-e));
		w->failed = true;
		heads_release(&heads);
		free(mirror);
		return 0;
	}
	ret = load_tree_jobs(w, t, &jobs) ? failure("out of memory") : 0;
	if (!ret && !jobs.n) {
		say("%s: no job to run", t->name);
		w->failed = true;
	}
	if (!ret && git_worktree_prune_own(t->repo) < 0)
		say("%s: cannot look for perfbot's stale worktrees in %s", t->name, t->repo);
	for (size_t i = 0; i < heads.n && !ret && jobs.n && !stop_now(); i++) {
		if (i >= w->reg->policy.max_heads) {
			say("%s: max_heads %lu reached: the other branches wait for the next pass",
			    t->name, w->reg->policy.max_heads);
			break;
		}
		ret = test_head(w, t, &jobs, heads.v[i].branch, heads.v[i].sha);
		if (!ret && !stop_now())
			ret = scan_history(w, t, &jobs, heads.v[i].branch, heads.v[i].sha);
		if (!ret && !stop_now())
			ret = resolve_alerts(w, t, &jobs, heads.v[i].branch, heads.v[i].sha);
	}
	tree_jobs_release(&jobs);
	heads_release(&heads);
	free(mirror);
	return stop_now() ? 128 + interrupted : ret;
}

static int cmp_priority(const void *a, const void *b)
{
	const struct registry_tree *x = *(const struct registry_tree *const *)a;
	const struct registry_tree *y = *(const struct registry_tree *const *)b;

	return (y->priority > x->priority) - (y->priority < x->priority);
}

static int pass(struct watcher *w)
{
	const struct registry_tree **order = calloc(w->reg->nr_trees, sizeof(*order));
	int ret = 0;

	if (!order)
		return failure("out of memory");
	for (size_t i = 0; i < w->reg->nr_trees; i++)
		order[i] = &w->reg->trees[i];
	/* higher priority first; equal ones in file order (a stable pass) */
	for (size_t i = 1; i < w->reg->nr_trees; i++)
		for (size_t k = i; k > 0 && cmp_priority(&order[k - 1], &order[k]) > 0; k--) {
			const struct registry_tree *tmp = order[k];

			order[k] = order[k - 1];
			order[k - 1] = tmp;
		}
	for (size_t i = 0; i < w->reg->nr_trees && !ret && !stop_now(); i++)
		ret = pass_tree(w, order[i]);
	free(order);
	return ret;
}

/*
 * The registry's publish: DIR, after each pass: the same site perfbot
 * publish writes (cmd/publish.h), on the store the robot has open, with
 * the trees' repositories for the commits' subjects.  A site that cannot
 * be written is a failure the robot goes past, as a service does.
 */
static void republish(struct watcher *w)
{
	const char **repos = calloc(w->reg->nr_trees + 1, sizeof(*repos));
	struct publish_opts o = { .who = "watch", .dir = w->reg->report.publish,
				  .since = STORE_ALL_TIME, .repos = repos };
	struct publish_counts c;

	if (!repos) {
		say("cannot publish %s: out of memory", o.dir);
		w->failed = true;
		return;
	}
	for (size_t i = 0; i < w->reg->nr_trees; i++) {
		struct stat st;

		/* a url: tree's mirror may not be there yet */
		if (w->reg->trees[i].repo && !stat(w->reg->trees[i].repo, &st))
			repos[o.nr_repos++] = w->reg->trees[i].repo;
	}
	if (publish_site(w->s, &o, &c)) {
		say("could not publish %s (above); the next pass tries again", o.dir);
		w->failed = true;
	} else {
		say("published %s: %zu pages written, %zu kept, %zu removed", o.dir, c.written,
		    c.kept, c.removed);
	}
	free(repos);
}

/* ---- the commands ---- */

static int load_registry(const char *path, struct registry **reg)
{
	struct job_error jerr = { 0 };
	int ret = registry_load(path, reg, &jerr);

	if (ret == -ENOMEM)
		return failure("out of memory");
	if (ret) {
		cmd_print_job_error(&jerr);
		job_error_release(&jerr);
		return EXIT_USAGE;
	}
	return 0;
}

/* Sleep s seconds, or until a signal asks to stop. */
static void nap(double s)
{
	for (double left = s; left > 0 && !stop_now(); left -= 1) {
		struct timespec ts = { left >= 1 ? 1 : 0,
				       left >= 1 ? 0 : (long)(left * 1e9) };

		nanosleep(&ts, NULL);
	}
}

static int watch_run(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "once", no_argument, NULL, 'o' },
		{ "outbox", required_argument, NULL, 'O' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct watcher w = { 0 };
	struct registry *reg = NULL;
	const char *outbox = NULL;
	bool once = false;
	int c, ret;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			once = true;
			break;
		case 'O':
			if (!*optarg)
				return usage_error("--outbox needs a directory");
			outbox = optarg;
			break;
		case 'h':
			fputs(watch_usage, stdout);
			return EXIT_OK;
		case ':':
			return usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return usage_error(optind >= argc ? "needs a registry: perfbot watch REGISTRY"
						  : "one registry, not %d arguments",
				   argc - optind);
	ret = load_registry(argv[optind], &reg);
	if (ret)
		return ret;
	w.reg = reg;
	w.outbox = outbox ? outbox : reg->report.outbox;
	compare_opts_init(&w.opts);
	if (reg->policy.min_change_set)
		w.opts.kpi_min_pct = reg->policy.min_change_pct;
	if (gethostname(w.host, sizeof(w.host)))
		snprintf(w.host, sizeof(w.host), "unknown");
	w.host[sizeof(w.host) - 1] = '\0';
	ret = cmd_lifetime_start("watch");
	if (!ret)
		ret = cmd_store_open("watch", STORE_WRITE, &w.s);
	if (ret)
		goto out;
	if (reg->policy.on) {
		struct strbuf why = STRBUF_INIT;
		char *selector = NULL;

		/* the checks of bisect --on: a SQLite store, a box or class unknown */
		w.fleet = (struct commit_runner_fleet){ .s = w.s, .testbox = reg->policy.on };
		if (commit_runner_fleet_resolve(&w.fleet, &selector, &why))
			ret = failure("%s: %s", reg->path, why.buf);
		else	/* the runs, alerts and reports are the box's ("class:NAME": the class's) */
			snprintf(w.host, sizeof(w.host), "%s", selector);
		free(selector);
		strbuf_release(&why);
		if (ret)
			goto out;
	}
	interrupt_install();
	say("watching %zu tree%s of %s%s%s%s", reg->nr_trees, reg->nr_trees == 1 ? "" : "s",
	    reg->path, w.fleet.testbox ? ", runs on " : "", w.fleet.testbox ? w.host : "",
	    once ? " (one pass)" : "");
	for (;;) {
		ret = pass(&w);
		if (!ret && !stop_now() && reg->report.publish)
			republish(&w);
		if (ret || once || stop_now())
			break;
		nap(reg->policy.poll_s);
		if (stop_now())
			break;
	}
	if (interrupted == SIGTERM) {
		say("SIGTERM: stopped; the run it cut is stored as incomplete");
		ret = EXIT_OK;
	} else if (interrupted) {
		say("interrupted; perfbot watch goes on from here when started again");
		ret = 128 + interrupted;
	} else if (!ret && w.failed) {
		/* a service: what failed is logged and recorded, the others went on */
		say("the pass went past failures (above)");
	}
out:
	store_close(w.s);
	registry_free(reg);
	return ret;
}

static int watch_check(int argc, char **argv)
{
	struct registry *reg = NULL;
	int ret;

	if (argc != 2)
		return usage_error("check takes one registry: perfbot watch check REGISTRY");
	ret = load_registry(argv[1], &reg);
	if (ret)
		return ret;
	/* the job files too: a job that would not run is a bad registry now */
	for (size_t i = 0; i < reg->nr_trees && !ret; i++) {
		struct watcher w = { .reg = reg };
		struct tree_jobs jobs;

		if (load_tree_jobs(&w, &reg->trees[i], &jobs))
			ret = failure("out of memory");
		else if (w.failed)
			ret = EXIT_USAGE;
		tree_jobs_release(&jobs);
	}
	if (!ret && (registry_describe(stdout, reg) || fflush(stdout)))
		ret = failure("cannot write: %s", strerror(errno));
	registry_free(reg);
	return ret;
}

static int watch_status(int argc, char **argv)
{
	struct store *s = NULL;
	struct store_branch *br = NULL;
	struct store_alert *al = NULL;
	struct store_report *rp = NULL;
	size_t nbr = 0, nal = 0, nrp = 0;
	int ret;

	(void)argv;
	if (argc != 1)
		return usage_error("status takes no argument");
	ret = cmd_store_open("watch", STORE_READ, &s);
	if (ret)
		return ret;
	if (store_branches(s, &br, &nbr) || store_alerts(s, NULL, &al, &nal) ||
	    store_reports(s, &rp, &nrp)) {
		ret = failure("%s", store_error(s));
		goto out;
	}
	printf("branches (%zu):\n", nbr);
	for (size_t i = 0; i < nbr; i++) {
		printf("  ");
		quote_fputs(br[i].tree, stdout);
		putchar('/');
		quote_fputs(br[i].branch, stdout);
		printf("  %zu points, last %s\n", br[i].points, short12(br[i].last.sha));
	}
	printf("alerts (%zu):\n", nal);
	for (size_t i = 0; i < nal; i++) {
		printf("  %" PRId64 "  %-10s ", al[i].id, al[i].state);
		quote_fputs(al[i].job, stdout);
		putchar(' ');
		quote_fputs(al[i].metric, stdout);
		printf(" %+.1f%%  %s..%s", al[i].pct, short12(al[i].before), short12(al[i].after));
		if (al[i].culprit)
			printf("  culprit %s", short12(al[i].culprit));
		putchar('\n');
	}
	printf("reports (%zu):\n", nrp);
	for (size_t i = 0; i < nrp; i++)
		printf("  %" PRId64 "  %-8s %s  %s\n", rp[i].id, rp[i].state, short12(rp[i].culprit),
		       rp[i].path ? rp[i].path : "-");
	if (fflush(stdout))
		ret = failure("cannot write: %s", strerror(errno));
out:
	store_branches_release(br, nbr);
	store_alerts_release(al, nal);
	store_reports_release(rp, nrp);
	store_close(s);
	return ret;
}

int cmd_watch(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "check"))
		return watch_check(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "status"))
		return watch_status(argc - 1, argv + 1);
	if (argc < 2)
		return usage_error("needs a registry: perfbot watch REGISTRY (--help)");
	return watch_run(argc, argv);
}

/*
 * store.c - store.h's entry points: pick the backend a location names,
 * the default location, errors.  The backends do the work.
 */
#define _GNU_SOURCE
#include "record/import.h"
#include "store/internal.h"
#include "util/fsutil.h"
#include "util/quote.h"
#include "util/strbuf.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

int store_vfail(struct strbuf *sb, int err, const char *fmt, va_list ap)
{
	if (!sb)
		return err;
	/* a buffer out of memory before gets its chance again */
	if (strbuf_error(sb))
		strbuf_release(sb);
	else
		strbuf_reset(sb);
	strbuf_vaddf(sb, fmt, ap);
	/*
	 * One line: SQLite quotes a damaged file's schema text, with its
	 * newlines and tabs, into its messages.
	 */
	for (size_t i = 0; i < sb->len; i++)
		if ((unsigned char)sb->buf[i] < 0x20 || sb->buf[i] == 0x7f)
			sb->buf[i] = ' ';
	return err;
}

int store_failf(struct strbuf *sb, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	store_vfail(sb, err, fmt, ap);
	va_end(ap);
	return err;
}

int store_fail(struct store *s, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	store_vfail(&s->err, err, fmt, ap);
	va_end(ap);
	return err;
}

/* Every call starts without a message (store_error() is the last call's). */
static void clear_error(struct store *s)
{
	if (strbuf_error(&s->err))
		strbuf_release(&s->err);
	else
		strbuf_reset(&s->err);
}

int store_busy_ms(void)
{
	const char *v = getenv("PERFBOT_DB_BUSY_MS");
	char *end;
	long ms;

	if (!v || !*v)
		return STORE_BUSY_MS_DEFAULT;
	errno = 0;
	ms = strtol(v, &end, 10);
	if (errno || *end || ms < 0 || ms > 3600 * 1000)
		return STORE_BUSY_MS_DEFAULT;
	return (int)ms;
}

int store_mkdir_parent(const char *path, struct strbuf *err)
{
	char *dir = strdup(path), *slash;
	int ret = 0;

	if (!dir)
		return store_failf(err, -ENOMEM, "out of memory");
	slash = strrchr(dir, '/');
	/* the current directory or / : nothing to make */
	if (slash && slash != dir) {
		*slash = '\0';
		ret = make_dirs(dir);
		if (ret)
			store_failf(err, ret, "cannot create directory %s: %s", dir,
				    strerror(-ret));
	}
	free(dir);
	return ret;
}

char *store_default_location(void)
{
	const char *env = getenv("PERFBOT_DB");
	const char *home;
	char *path;

	if (env && *env)
		return strdup(env);
	env = getenv("XDG_DATA_HOME");
	/* the XDG spec: a relative path is invalid and must be ignored */
	if (env && env[0] == '/') {
		if (asprintf(&path, "%s/perfbot/results.db", env) < 0)
			return NULL;
		return path;
	}
	home = getenv("HOME");
	if (!home || !*home) {
		struct passwd *pw = getpwuid(getuid());

		home = pw ? pw->pw_dir : NULL;
	}
	if (!home || !*home)
		return NULL;
	if (asprintf(&path, "%s/.local/share/perfbot/results.db", home) < 0)
		return NULL;
	return path;
}

static int is_postgres(const char *location)
{
	return !strncmp(location, "postgresql://", 13) ||
	       !strncmp(location, "postgres://", 11);
}

char *store_location_shown(const char *location)
{
	return is_postgres(location) ? pg_location_shown(location) : strdup(location);
}

int store_open(const char *location, enum store_mode mode, struct store **out,
	       struct strbuf *err)
{
	*out = NULL;
	if (!location || !*location)
		return store_failf(err, -EINVAL, "no database location given");
	if (is_postgres(location))
		return pg_store_open(location, mode, out, err);
	return sqlite_store_open(location, mode, out, err);
}

void store_close(struct store *s)
{
	if (s)
		s->ops->close(s);
}

const char *store_error(const struct store *s)
{
	if (!s)
		return "no store";
	/* what was formatted before memory ran out is no whole message */
	return strbuf_error(&s->err) ? "out of memory formatting the message" : s->err.buf;
}

/*
 * The door every backend shares: what a name may hold is decided here,
 * once (docs/store.md "What a name may contain"), so no backend stores a
 * byte the readers and writers of JSON, HTML or a terminal cannot carry.
 * NULL fields are the backend's to refuse or default, but for a declared
 * stat's name (a unit defaults to "").
 */
/* How much of a refused value a message quotes: enough to say which. */
#define REFUSED_HEAD 200

static int refuse_errno(struct store *s, int err, const char *field,
			const char *value, const char *why)
{
	char *q = quote_c(value, true);
	const char *shown = q ? q : "?";
	size_t n = strlen(shown), head = n;

	/*
	 * A refused name may be megabytes (that is one reason to refuse
	 * it): its head, cut between characters and marked.
	 */
	if (n > REFUSED_HEAD) {
		head = REFUSED_HEAD;
		while (head && ((unsigned char)shown[head] & 0xc0) == 0x80)
			head--;
	}
	store_fail(s, err, "%s %.*s%s %s", field, (int)head, shown,
		   head < n ? "..." : "", why);
	free(q);
	return err;
}

static int refuse(struct store *s, const char *field, const char *value,
		  const char *why)
{
	return refuse_errno(s, -EILSEQ, field, value, why);
}

static int check_field(struct store *s, const char *field, const char *value,
		       const char *(*rule)(const char *))
{
	const char *why = value ? rule(value) : NULL;

	return why ? refuse(s, field, value, why) : 0;
}

static int check_record(struct store *s, const struct run_record *r)
{
	int ret;

	if ((ret = check_field(s, "testbox", r->testbox, name_problem)) ||
	    (ret = check_field(s, "testcase", r->testcase, name_problem)) ||
	    (ret = check_field(s, "job", r->job, name_problem)) ||
	    (ret = check_field(s, "commit", r->commit, name_problem)))
		return ret;
	for (size_t i = 0; i < r->params.n; i++)
		if ((ret = check_field(s, "parameter", r->params.v[i].key, name_problem)) ||
		    (ret = check_field(s, "parameter value", r->params.v[i].value,
				       name_problem)))
			return ret;
	for (size_t i = 0; i < r->env.n; i++)
		if ((ret = check_field(s, "environment key", r->env.v[i].key,
				       name_problem)) ||
		    (ret = check_field(s, "environment value", r->env.v[i].value,
				       value_problem)))
			return ret;
	for (size_t i = 0; i < r->stats.n; i++)
		if ((ret = check_field(s, "stat name", r->stats.v[i].name, name_problem)))
			return ret;
	for (size_t i = 0; i < r->meta.n; i++) {
		const struct stat_meta *m = &r->meta.v[i];

		/* what a declaration is, for every backend alike */
		if (!m->name)
			return store_fail(s, -EINVAL, "a declared stat needs a name");
		if ((ret = check_field(s, "declared stat", m->name, name_problem)) ||
		    (ret = check_field(s, "unit", m->unit, name_problem)))
			return ret;
		if (m->better < -1 || m->better > 1) {
			char why[64];

			snprintf(why, sizeof(why), "has better = %d, not -1, 0 or 1",
				 m->better);
			return refuse_errno(s, -EINVAL, "declared stat", m->name, why);
		}
	}
	/* the job's YAML has lines; it must still be text */
	if (r->job_text && !utf8_valid(r->job_text, strlen(r->job_text)))
		return store_fail(s, -EILSEQ, "the job text is not valid UTF-8");
	return 0;
}

int store_put_run(struct store *s, const struct run_record *r, int64_t *run_id)
{
	int ret;

	clear_error(s);
	if ((ret = check_record(s, r)))
		return ret;
	return s->ops->put_run(s, r, run_id);
}

static bool is_sha256_hex(const char *h)
{
	size_t n = 0;

	for (; h && ((*h >= '0' && *h <= '9') || (*h >= 'a' && *h <= 'f')); h++)
		n++;
	return h && !*h && n == 64;
}

int store_put_import(struct store *s, const struct run_record *runs, size_t nr,
		     const char *sha256, bool once, int64_t *ids)
{
	int ret;

	clear_error(s);
	if (!is_sha256_hex(sha256))
		return store_fail(s, -EINVAL, "an import's hash must be 64 lowercase hex digits");
	for (size_t i = 0; i < nr; i++)
		if ((ret = check_record(s, &runs[i])))
			return ret;
	return s->ops->put_import(s, runs, nr, sha256, once, ids);
}

int store_import_runs(struct store *s, const char *sha256, int64_t **ids,
		      size_t *nr)
{
	*ids = NULL;
	*nr = 0;
	clear_error(s);
	if (!is_sha256_hex(sha256))
		return store_fail(s, -EINVAL, "an import's hash must be 64 lowercase hex digits");
	return s->ops->import_runs(s, sha256, ids, nr);
}

int store_delete_runs(struct store *s, const int64_t *ids, size_t nr)
{
	char id[STORE_ID_LEN + 1];
	int ret;

	/*
	 * A store without an id has one derived from its first run: kept
	 * before that run may go, so that copies made of the store before
	 * and after the deletion know its runs for the same (docs/store.md).
	 */
	if (nr && (ret = store_id(s, true, id)))
		return ret;
	clear_error(s);
	return s->ops->delete_runs(s, ids, nr);
}

int store_list_groups(struct store *s, const struct store_filter *f,
		      struct store_group **groups, size_t *nr)
{
	static const struct store_filter all;

	*groups = NULL;
	*nr = 0;
	clear_error(s);
	return s->ops->list_groups(s, f ? f : &all, groups, nr);
}

void store_groups_release(struct store_group *groups, size_t nr)
{
	for (size_t i = 0; groups && i < nr; i++) {
		free(groups[i].testbox);
		free(groups[i].testcase);
		free(groups[i].job);
		free(groups[i].commit);
	}
	free(groups);
}

int store_group_runs(struct store *s, const char *testbox, const char *job,
		     const char *commit, int64_t **ids, size_t *nr)
{
	*ids = NULL;
	*nr = 0;
	clear_error(s);
	return s->ops->group_runs(s, testbox, job, commit, ids, nr);
}

int store_get_run(struct store *s, int64_t run_id, struct run_record *out)
{
	memset(out, 0, sizeof(*out));
	clear_error(s);
	return s->ops->get_run(s, run_id, out);
}

int store_load_samples(struct store *s, const char *testbox, const char *job,
		       const char *commit, struct store_samples *out)
{
	return store_load_samples_since(s, testbox, job, commit, STORE_ALL_TIME, out);
}

int store_load_samples_since(struct store *s, const char *testbox, const char *job,
			     const char *commit, double since, struct store_samples *out)
{
	memset(out, 0, sizeof(*out));
	clear_error(s);
	return s->ops->load_samples(s, testbox, job, commit, since, out);
}

void store_samples_release(struct store_samples *samples)
{
	if (!samples)
		return;
	for (size_t i = 0; i < samples->nr; i++) {
		free(samples->names ? samples->names[i] : NULL);
		free(samples->values ? samples->values[i] : NULL);
	}
	free(samples->names);
	free(samples->values);
	free(samples->counts);
	free(samples->started);
	stat_meta_release(&samples->meta);
	memset(samples, 0, sizeof(*samples));
}

int store_resolve_commit(struct store *s, const char *given, char **full)
{
	*full = NULL;
	clear_error(s);
	return s->ops->resolve_commit(s, given, full);
}

int store_bisect_add(struct store *s, const char *status, const char *spec,
		     int64_t *id)
{
	clear_error(s);
	return s->ops->bisect_add(s, status, spec, id);
}

int store_bisect_get(struct store *s, int64_t id, struct store_bisect *out)
{
	memset(out, 0, sizeof(*out));
	clear_error(s);
	return s->ops->bisect_get(s, id, out);
}

int store_bisect_latest(struct store *s, struct store_bisect *out)
{
	memset(out, 0, sizeof(*out));
	clear_error(s);
	return s->ops->bisect_latest(s, out);
}

int store_bisect_list(struct store *s, struct store_bisect **out, size_t *nr)
{
	*out = NULL;
	*nr = 0;
	clear_error(s);
	return s->ops->bisect_list(s, out, nr);
}

int store_bisect_update(struct store *s, int64_t id, const char *status,
			const char *result)
{
	clear_error(s);
	return s->ops->bisect_update(s, id, status, result);
}

int store_bisect_log_add(struct store *s, int64_t id, const char *text)
{
	clear_error(s);
	return s->ops->bisect_log_add(s, id, text);
}

int store_bisect_log(struct store *s, int64_t id,
		     struct store_bisect_line **lines, size_t *nr)
{
	*lines = NULL;
	*nr = 0;
	clear_error(s);
	return s->ops->bisect_log(s, id, lines, nr);
}

int store_bisect_mark(struct store *s, int64_t id, const char *sha,
		      const char *mark, const char *note)
{
	clear_error(s);
	return s->ops->bisect_mark(s, id, sha, mark, note);
}

int store_bisect_marks(struct store *s, int64_t id,
		       struct store_bisect_mark **marks, size_t *nr)
{
	*marks = NULL;
	*nr = 0;
	clear_error(s);
	return s->ops->bisect_marks(s, id, marks, nr);
}

void store_bisect_release(struct store_bisect *b)
{
	if (!b)
		return;
	free(b->status);
	free(b->spec);
	free(b->result);
	memset(b, 0, sizeof(*b));
}

void store_bisects_release(struct store_bisect *b, size_t nr)
{
	for (size_t i = 0; b && i < nr; i++)
		store_bisect_release(&b[i]);
	free(b);
}

void store_bisect_lines_release(struct store_bisect_line *l, size_t nr)
{
	for (size_t i = 0; l && i < nr; i++)
		free(l[i].text);
	free(l);
}

void store_bisect_marks_release(struct store_bisect_mark *m, size_t nr)
{
	for (size_t i = 0; m && i < nr; i++) {
		free(m[i].sha);
		free(m[i].mark);
		free(m[i].note);
	}
	free(m);
}

/*
 * The robot's state.  What it stores passes the name rule of runs
 * (docs/store.md "What a name may contain"), but an alert's note, any
 * valid UTF-8 text (a message may have lines).
 */
static int check_note(struct store *s, const char *note)
{
	if (note && !utf8_valid(note, strlen(note)))
		return store_fail(s, -EILSEQ, "an alert's note is not valid UTF-8");
	return 0;
}

static int check_refs(struct store *s, const struct store_alert *a)
{
	if (a->bisect_id < 0 || a->report_id < 0)
		return store_fail(s, -EINVAL,
				  "an alert's bisection and report are ids >= 1, or 0 for none"
				  " (bisection %lld, report %lld)",
				  (long long)a->bisect_id, (long long)a->report_id);
	return 0;
}

int store_point_add(struct store *s, const char *tree, const char *branch,
		    const char *sha, const char *base, int64_t *seq)
{
	int ret;

	if (seq)
		*seq = 0;
	clear_error(s);
	if (!tree || !branch || !sha)
		return store_fail(s, -EINVAL, "a point needs a tree, a branch and a commit");
	if ((ret = check_field(s, "tree", tree, name_problem)) ||
	    (ret = check_field(s, "branch", branch, name_problem)) ||
	    (ret = check_field(s, "commit", sha, name_problem)) ||
	    (ret = check_field(s, "base", base, name_problem)))
		return ret;
	return s->ops->point_add(s, tree, branch, sha, base, seq);
}

int store_points(struct store *s, const char *tree, const char *branch,
		 struct store_point **out, size_t *nr)
{
	*out = NULL;
	*nr = 0;
	clear_error(s);
	if (!tree || !branch)
		return store_fail(s, -EINVAL, "the points of a branch need a tree and a branch");
	return s->ops->points(s, tree, branch, out, nr);
}

static void point_release(struct store_point *p)
{
	free(p->sha);
	free(p->base);
	memset(p, 0, sizeof(*p));
}

void store_points_release(struct store_point *p, size_t nr)
{
	for (size_t i = 0; p && i < nr; i++)
		point_release(&p[i]);
	free(p);
}

int store_branches(struct store *s, struct store_branch **out, size_t *nr)
{
	*out = NULL;
	*nr = 0;
	clear_error(s);
	return s->ops->branches(s, out, nr);
}

void store_branches_release(struct store_branch *b, size_t nr)
{
	for (size_t i = 0; b && i < nr; i++) {
		free(b[i].tree);
		free(b[i].branch);
		point_release(&b[i].last);
	}
	free(b);
}

int store_alert_add(struct store *s, struct store_alert *a)
{
	int ret;

	a->id = 0;
	clear_error(s);
	if (!a->tree || !a->branch || !a->testbox || !a->job || !a->metric ||
	    !a->before || !a->after || !a->how || !a->state)
		return store_fail(s, -EINVAL,
				  "an alert needs a tree, a branch, a testbox, a job, a metric,"
				  " the commits before and after, how it was found and a state");
	if ((ret = check_field(s, "tree", a->tree, name_problem)) ||
	    (ret = check_field(s, "branch", a->branch, name_problem)) ||
	    (ret = check_field(s, "testbox", a->testbox, name_problem)) ||
	    (ret = check_field(s, "job", a->job, name_problem)) ||
	    (ret = check_field(s, "metric", a->metric, name_problem)) ||
	    (ret = check_field(s, "commit", a->before, name_problem)) ||
	    (ret = check_field(s, "commit", a->after, name_problem)) ||
	    (ret = check_field(s, "how", a->how, name_problem)) ||
	    (ret = check_field(s, "state", a->state, name_problem)) ||
	    (ret = check_field(s, "culprit", a->culprit, name_problem)) ||
	    (ret = check_note(s, a->note)) || (ret = check_refs(s, a)))
		return ret;
	return s->ops->alert_add(s, a);
}

int store_alert_update(struct store *s, const struct store_alert *a)
{
	int ret;

	clear_error(s);
	if (!a->state)
		return store_fail(s, -EINVAL, "alert %lld needs a state", (long long)a->id);
	if ((ret = check_field(s, "state", a->state, name_problem)) ||
	    (ret = check_field(s, "culprit", a->culprit, name_problem)) ||
	    (ret = check_note(s, a->note)) || (ret = check_refs(s, a)))
		return ret;
	return s->ops->alert_update(s, a);
}

int store_alert_get(struct store *s, int64_t id, struct store_alert *out)
{
	memset(out, 0, sizeof(*out));
	clear_error(s);
	return s->ops->alert_get(s, id, out);
}

int store_alerts(struct store *s, const char *state, struct store_alert **out,
		 size_t *nr)
{
	*out = NULL;
	*nr = 0;
	clear_error(s);
	return s->ops->alerts(s, state, out, nr);
}

void store_alert_release(struct store_alert *a)
{
	if (!a)
		return;
	free(a->tree);
	free(a->branch);
	free(a->testbox);
	free(a->job);
	free(a->metric);
	free(a->before);
	free(a->after);
	free(a->how);
	free(a->state);
	free(a->culprit);
	free(a->note);
	memset(a, 0, sizeof(*a));
}

void store_alerts_release(struct store_alert *a, size_t nr)
{
	for (size_t i = 0; a && i < nr; i++)
		store_alert_release(&a[i]);
	free(a);
}

int store_report_add(struct store *s, const char *culprit, const char *state,
		     struct store_report *out)
{
	int ret;

	if (out)
		memset(out, 0, sizeof(*out));
	clear_error(s);
	if (!culprit || !state)
		return store_fail(s, -EINVAL, "a report needs a culprit and a state");
	if ((ret = check_field(s, "culprit", culprit, name_problem)) ||
	    (ret = check_field(s, "state", state, name_problem)))
		return ret;
	return s->ops->report_add(s, culprit, state, out);
}

int store_report_find(struct store *s, const char *culprit, struct store_report *out)
{
	memset(out, 0, sizeof(*out));
	clear_error(s);
	if (!culprit)
		return store_fail(s, -EINVAL, "finding a report needs a culprit");
	return s->ops->report_find(s, culprit, out);
}

int store_report_get(struct store *s, int64_t id, struct store_report *out)
{
	memset(out, 0, sizeof(*out));
	clear_error(s);
	return s->ops->report_get(s, id, out);
}

int store_reports(struct store *s, struct store_report **out, size_t *nr)
{
	*out = NULL;
	*nr = 0;
	clear_error(s);
	return s->ops->reports(s, out, nr);
}

int store_report_update(struct store *s, int64_t id, const char *state,
			const char *path)
{
	int ret;

	clear_error(s);
	if ((ret = check_field(s, "state", state, name_problem)) ||
	    (ret = check_field(s, "path", path, name_problem)))
		return ret;
	return s->ops->report_update(s, id, state, path);
}

void store_report_release(struct store_report *r)
{
	if (!r)
		return;
	free(r->culprit);
	free(r->state);
	free(r->path);
	memset(r, 0, sizeof(*r));
}

void store_reports_release(struct store_report *r, size_t nr)
{
	for (size_t i = 0; r && i < nr; i++)
		store_report_release(&r[i]);
	free(r);
}

/* ---- kexec boots ---- */

static int check_kexec(struct store *s, const struct store_kexec *k)
{
	int ret;

	if (!k->state)
		return store_fail(s, -EINVAL, "kexec boot %lld needs a state", (long long)k->id);
	if ((ret = check_field(s, "state", k->state, name_problem)) ||
	    (ret = check_field(s, "kernel", k->kernel, name_problem)))
		return ret;
	if (k->reason && !utf8_valid(k->reason, strlen(k->reason)))
		return store_fail(s, -EILSEQ, "a kexec boot's reason is not valid UTF-8");
	if (k->cmdline && !utf8_valid(k->cmdline, strlen(k->cmdline)))
		return store_fail(s, -EILSEQ, "a kexec boot's command line is not valid UTF-8");
	if (k->run_id < 0)
		return store_fail(s, -EINVAL, "a kexec boot's run is an id >= 1, or 0 for none"
				  " (%lld)", (long long)k->run_id);
	return 0;
}

int store_kexec_add(struct store *s, struct store_kexec *k)
{
	int ret;

	k->id = 0;
	clear_error(s);
	if (!k->testbox || !k->sha || !k->job_file || !k->sets || !k->job || !k->release)
		return store_fail(s, -EINVAL,
				  "a kexec boot needs a testbox, a commit, a job file, its sets,"
				  " a job and the release it boots");
	if (!k->runs)
		return store_fail(s, -EINVAL, "a kexec boot makes one run or more");
	if ((ret = check_kexec(s, k)) ||
	    (ret = check_field(s, "testbox", k->testbox, name_problem)) ||
	    (ret = check_field(s, "repo", k->repo, name_problem)) ||
	    (ret = check_field(s, "commit", k->sha, name_problem)) ||
	    (ret = check_field(s, "job file", k->job_file, name_problem)) ||
	    (ret = check_field(s, "job", k->job, name_problem)) ||
	    (ret = check_field(s, "release", k->release, name_problem)))
		return ret;
	if (!utf8_valid(k->sets, strlen(k->sets)) ||
	    (k->continuation && !utf8_valid(k->continuation, strlen(k->continuation))))
		return store_fail(s, -EILSEQ, "a kexec boot's sets or continuation is not valid UTF-8");
	return s->ops->kexec_add(s, k);
}

int store_kexec_update(struct store *s, const struct store_kexec *k, const char *from)
{
	int ret;

	clear_error(s);
	if (!from)
		return store_fail(s, -EINVAL, "kexec boot %lld: a transition needs the state it leaves",
				  (long long)k->id);
	if ((ret = check_kexec(s, k)))
		return ret;
	return s->ops->kexec_update(s, k, from);
}

int store_kexec_get(struct store *s, int64_t id, struct store_kexec *out)
{
	memset(out, 0, sizeof(*out));
	clear_error(s);
	return s->ops->kexec_get(s, id, out);
}

int store_kexec_active(struct store *s, const char *testbox, struct store_kexec *out)
{
	memset(out, 0, sizeof(*out));
	clear_error(s);
	if (!testbox)
		return store_fail(s, -EINVAL, "the active kexec boot of what test box?");
	return s->ops->kexec_active(s, testbox, out);
}

int store_kexec_list(struct store *s, struct store_kexec **out, size_t *nr)
{
	*out = NULL;
	*nr = 0;
	clear_error(s);
	return s->ops->kexec_list(s, out, nr);
}

void store_kexec_release(struct store_kexec *k)
{
	if (!k)
		return;
	free(k->state);
	free(k->reason);
	free(k->testbox);
	free(k->repo);
	free(k->sha);
	free(k->job_file);
	free(k->sets);
	free(k->job);
	free(k->kernel);
	free(k->release);
	free(k->cmdline);
	free(k->continuation);
	memset(k, 0, sizeof(*k));
}

void store_kexecs_release(struct store_kexec *k, size_t nr)
{
	for (size_t i = 0; k && i < nr; i++)
		store_kexec_release(&k[i]);
	free(k);
}

/* ---- copying a history ---- */

#define STORE_ID_KEY "store_id"

static bool is_store_id(const char *v)
{
	size_t n = 0;

	for (; v && ((*v >= '0' && *v <= '9') || (*v >= 'a' && *v <= 'f')); v++)
		n++;
	return v && !*v && n == STORE_ID_LEN;
}

/*
 * The id of a store that has none: derived from what stays of it while
 * it lives -- its first run (id, who, what, where, when, and its origin
 * if it is a copy, so that a fresh copy of a store is not taken for its
 * source) and the perfbot that created it --, or random when it has no
 * run.  SHA-256's first 128 bits.
 */
static int derive_id(struct store *s, char id[STORE_ID_LEN + 1])
{
	struct store_run_ref *refs = NULL;
	struct run_record r;
	struct strbuf in = STRBUF_INIT;
	char *created = NULL, hex[IMPORT_HASH_LEN + 1];
	size_t nr = 0;
	int ret = s->ops->run_refs(s, &refs, &nr);

	if (!ret && !nr) {
		unsigned char b[STORE_ID_LEN / 2];

		if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b))
			return store_fail(s, -EIO, "cannot make a store id: no random bytes");
		for (size_t i = 0; i < sizeof(b); i++)
			snprintf(id + 2 * i, 3, "%02x", b[i]);
		return 0;
	}
	if (!ret)
		ret = s->ops->meta_get(s, "created_with", &created);
	if (!ret)
		ret = store_get_run(s, refs[0].id, &r);
	if (ret)
		goto out;
	strbuf_addf(&in, "%lld%c%s%c%s%c%s%c%s%c%s%c%.17g%c%s", (long long)refs[0].id, 0,
		    refs[0].origin ? refs[0].origin : "", 0, r.testbox, 0, r.testcase, 0,
		    r.job, 0, r.commit, 0, r.started, 0, created ? created : "");
	run_record_release(&r);
	if (strbuf_error(&in)) {
		ret = store_fail(s, -ENOMEM, "out of memory");
		goto out;
	}
	import_sha256(in.buf, in.len, hex);
	memcpy(id, hex, STORE_ID_LEN);
	id[STORE_ID_LEN] = '\0';
out:
	strbuf_release(&in);
	free(created);
	store_run_refs_release(refs, nr);
	return ret;
}

int store_id(struct store *s, bool persist, char id[STORE_ID_LEN + 1])
{
	char *v = NULL;
	int ret;

	id[0] = '\0';
	clear_error(s);
	ret = s->ops->meta_get(s, STORE_ID_KEY, &v);
	if (!ret && v && !is_store_id(v))
		ret = store_fail(s, -EBADMSG, "the database is damaged: its store id '%.40s'"
				 " is not %d hex digits", v, STORE_ID_LEN);
	if (!ret && !v) {
		ret = derive_id(s, id);
		/* another writer may add its own first: the stored one is the id */
		if (!ret && persist && !(ret = s->ops->meta_add(s, STORE_ID_KEY, id)) &&
		    !(ret = s->ops->meta_get(s, STORE_ID_KEY, &v)) && !is_store_id(v))
			ret = store_fail(s, -EBADMSG, "the database is damaged: its store id"
					 " was not kept");
	}
	if (!ret && v)
		memcpy(id, v, STORE_ID_LEN + 1);
	free(v);
	if (ret)
		id[0] = '\0';
	return ret;
}

int store_run_refs(struct store *s, struct store_run_ref **out, size_t *nr)
{
	*out = NULL;
	*nr = 0;
	clear_error(s);
	return s->ops->run_refs(s, out, nr);
}

void store_run_refs_release(struct store_run_ref *r, size_t nr)
{
	for (size_t i = 0; r && i < nr; i++) {
		free(r[i].origin);
		free(r[i].sha256);
	}
	free(r);
}

int store_put_runs(struct store *s, const struct run_record *runs, size_t nr,
		   const char *const *sha256, int64_t *ids)
{
	int ret;

	clear_error(s);
	for (size_t i = 0; i < nr; i++) {
		if (sha256 && sha256[i] && !is_sha256_hex(sha256[i]))
			return store_fail(s, -EINVAL,
					  "an import's hash must be 64 lowercase hex digits");
		if ((ret = check_record(s, &runs[i])))
			return ret;
	}
	return s->ops->put_runs(s, runs, nr, sha256, ids);
}

int store_check_run(struct store *s, const struct run_record *r)
{
	return check_record(s, r);
}

void store_clear_error(struct store *s)
{
	clear_error(s);
}

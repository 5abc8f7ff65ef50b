/*
 * lkp_result.c - LKP result roots read into run records (lkp_result.h).
 */
#define _GNU_SOURCE
#include "record/lkp_result.h"
#include "job/job.h"
#include "util/fsutil.h"
#include "util/vec.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct vec_str {
	char **v;
	size_t n, cap;
};

/* A walk's state: the commit's matrix.json last read, for the runs without stats.json. */
struct reader {
	struct lkp_runs *runs;
	struct lkp_result_error *err;
	char *matrix_path;		/* the commit directory it is in */
	struct import_data matrix;
	bool matrix_read;
};

static int say(struct lkp_result_error *err, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int say(struct lkp_result_error *err, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vsetf(&err->msg, fmt, ap);
	va_end(ap);
	err->job_file = false;
	if (strbuf_error(&err->msg))
		strbuf_setf(&err->msg, "out of memory");
	return ret;
}

static int no_memory(struct lkp_result_error *err)
{
	return say(err, -ENOMEM, "out of memory");
}

/* import.h's message about text read from path: positions first, as compilers say it. */
static int parse_error(struct lkp_result_error *err, int ret, const char *path,
		       const struct strbuf *why)
{
	return say(err, ret, "%s:%s%s", path, isdigit((unsigned char)why->buf[0]) ? "" : " ",
		   why->buf);
}

/* A job file's error, on one line as cmd_print_job_error() prints it. */
static int from_job_error(struct lkp_result_error *err, int ret, const struct job_error *je)
{
	strbuf_reset(&err->msg);
	if (je->file.len) {
		strbuf_addstr(&err->msg, je->file.buf);
		if (je->line)
			strbuf_addf(&err->msg, ":%u:%u", je->line, je->column);
		strbuf_addstr(&err->msg, ": ");
	}
	strbuf_addstr(&err->msg, je->msg.buf);
	if (strbuf_error(&err->msg))
		return no_memory(err);
	err->job_file = true;
	/* a job.yaml found that cannot be read is no missing DIR */
	return ret == -ENOMEM || ret == -EINVAL ? ret : -EIO;
}

static bool is_file(const char *dir, const char *name)
{
	char *p = path_join(dir, name);
	struct stat st;
	bool yes = p && !stat(p, &st) && S_ISREG(st.st_mode);

	free(p);
	return yes;
}

/* The last component of a path (without trailing slashes), malloc'd. */
static char *base_name(const char *path)
{
	size_t len = strlen(path);
	const char *start;

	while (len > 1 && path[len - 1] == '/')
		len--;
	start = path + len;
	while (start > path && start[-1] != '/')
		start--;
	return strndup(start, (size_t)(path + len - start));
}

/* The directory a run directory is in (its commit's), malloc'd. */
static char *parent_dir(const char *path)
{
	char *copy = strdup(path), *slash;
	size_t len;

	if (!copy)
		return NULL;
	len = strlen(copy);
	while (len > 1 && copy[len - 1] == '/')
		copy[--len] = '\0';
	slash = strrchr(copy, '/');
	if (!slash) {
		free(copy);
		return strdup(".");
	}
	if (slash == copy)
		slash[1] = '\0';
	else
		*slash = '\0';
	return copy;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The run directories at or under dir (those holding job.yaml), in name
 * order, into out; symlinks are not followed (a result tree may link
 * back up).  A directory that cannot be read is an error (-EIO).
 */
static int find_runs(const char *dir, unsigned depth, struct vec_str *out,
		     struct lkp_result_error *err)
{
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int ret = 0;
	DIR *d;

	if (is_file(dir, "job.yaml")) {
		char *copy = strdup(dir);

		if (!copy || vec_push(out, copy)) {
			free(copy);
			return no_memory(err);
		}
		return 0;
	}
	if (depth >= LKP_RESULT_MAX_DEPTH)
		return 0;
	d = opendir(dir);
	if (!d)
		return say(err, -EIO, "cannot read %s: %s", dir, strerror(errno));
	while ((e = readdir(d))) {
		char *sub;
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		sub = path_join(dir, e->d_name);
		if (!sub) {
			ret = no_memory(err);
			break;
		}
		/* lstat: a symlink is no directory here, so never followed */
		if (lstat(sub, &st) || !S_ISDIR(st.st_mode)) {
			free(sub);
			continue;
		}
		if (vec_reserve_((void **)&names, &cap, n + 1, sizeof(*names))) {
			free(sub);
			ret = no_memory(err);
			break;
		}
		names[n++] = sub;
	}
	closedir(d);
	if (names)
		qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++) {
		if (!ret)
			ret = find_runs(names[i], depth + 1, out, err);
		free(names[i]);
	}
	free(names);
	return ret;
}

/*
 * The run's stats: its stats.json, else its column of the commit's
 * matrix.json (the column whose stats_source is .../<N>/stats.json).
 */
static int lkp_stats(struct reader *rd, const char *dir, struct run_record *rec)
{
	struct lkp_result_error *err = rd->err;
	struct strbuf text = STRBUF_INIT, why = STRBUF_INIT;
	struct import_data one = { 0 };
	char *path = path_join(dir, "stats.json"), *parent = NULL, *n = NULL, *want = NULL;
	int ret, e;

	if (!path)
		return no_memory(err);
	if (is_file(dir, "stats.json")) {
		e = strbuf_read_file(&text, path, 0);
		if (e)
			ret = say(err, -EIO, "cannot read %s: %s", path, strerror(-e));
		else if ((e = import_lkp_stats(text.buf, text.len, &one, &why)))
			ret = parse_error(err, e, path, &why);
		else {
			rec->stats = one.runs[0].stats;
			memset(&one.runs[0].stats, 0, sizeof(one.runs[0].stats));
			ret = 0;
		}
		goto out;
	}
	parent = parent_dir(dir);
	n = base_name(dir);
	if (!parent || !n || asprintf(&want, "/%s/stats.json", n) < 0) {
		want = NULL;
		ret = no_memory(err);
		goto out;
	}
	if (!rd->matrix_path || strcmp(rd->matrix_path, parent)) {
		char *mpath = path_join(parent, "matrix.json");

		import_data_release(&rd->matrix);
		free(rd->matrix_path);
		rd->matrix_path = parent;
		parent = NULL;
		rd->matrix_read = false;
		if (!mpath) {
			ret = no_memory(err);
			goto out;
		}
		if (is_file(rd->matrix_path, "matrix.json")) {
			e = strbuf_read_file(&text, mpath, 0);
			if (e)
				ret = say(err, -EIO, "cannot read %s: %s", mpath, strerror(-e));
			else if ((e = import_lkp_matrix(text.buf, text.len, &rd->matrix, &why)))
				ret = parse_error(err, e, mpath, &why);
			else
				rd->matrix_read = true;
			if (!rd->matrix_read) {
				free(mpath);
				goto out;
			}
		}
		free(mpath);
	}
	for (size_t i = 0; rd->matrix_read && rd->matrix.sources && i < rd->matrix.nr; i++) {
		const char *src = rd->matrix.sources[i];
		size_t sl = src ? strlen(src) : 0, wl = strlen(want);

		if (!src || sl < wl || strcmp(src + sl - wl, want))
			continue;
		for (size_t k = 0; k < rd->matrix.runs[i].stats.n; k++) {
			const struct stat_value *sv = &rd->matrix.runs[i].stats.v[k];

			if (statmap_add(&rec->stats, sv->name, sv->value)) {
				ret = no_memory(err);
				goto out;
			}
		}
		statmap_finish(&rec->stats);
		ret = 0;
		goto out;
	}
	if (rd->matrix_read)
		ret = say(err, -EINVAL, "%s is not an LKP run: it has no stats.json, and "
			  "%s/matrix.json has no column for it (no stats_source ending in %s)",
			  dir, rd->matrix_path, want);
	else
		ret = say(err, -EINVAL, "%s is not an LKP run: it has job.yaml but no stats.json "
			  "(nor a matrix.json beside it, in %s)", dir, rd->matrix_path);
out:
	import_data_release(&one);
	strbuf_release(&text);
	strbuf_release(&why);
	free(path);
	free(parent);
	free(n);
	free(want);
	return ret;
}

/*
 * LKP's test machine line, as perfbot run's env `machine`: "88 threads
 * Intel(R) Xeon(R) CPU E5-2699 v4 @ 2.20GHz with 64G memory" from the
 * host file's nr_cpu, brand (else model) and memory; NULL when one lacks.
 */
static char *lkp_machine(const struct strmap *keys)
{
	const char *cpus = strmap_get(keys, "nr_cpu"), *mem = strmap_get(keys, "memory");
	const char *cpu = strmap_get(keys, "brand");
	char *line;

	if (!cpu)
		cpu = strmap_get(keys, "model");
	if (!cpus || !mem || !cpu)
		return NULL;
	return asprintf(&line, "%s threads %s with %s memory", cpus, cpu, mem) < 0 ? NULL : line;
}

/*
 * The run's identity: where LKP put it (job.yaml's result_root, else the
 * directory's real path) and its stats, whatever file they were read
 * from: the same run imported from another copy of the tree, or from the
 * commit's matrix once its stats.json is gone, is the same run.
 */
static int lkp_identity(const char *dir, const struct strmap *keys, struct lkp_run *run)
{
	struct strbuf sb = STRBUF_INIT;
	const char *root = strmap_get(keys, "result_root");
	char *real = root ? NULL : realpath(dir, NULL);

	strbuf_addf(&sb, "perfbot lkp-result 1\n%s\n", root ? root : real ? real : dir);
	for (size_t i = 0; i < run->rec.stats.n; i++)
		strbuf_addf(&sb, "%s\t%.17g\n", run->rec.stats.v[i].name, run->rec.stats.v[i].value);
	free(real);
	if (strbuf_error(&sb)) {
		strbuf_release(&sb);
		return -ENOMEM;
	}
	import_sha256(sb.buf, sb.len, run->hash);
	strbuf_release(&sb);
	return 0;
}

/* LKP's run states (lib/job.sh's last_state) as perfbot's statuses. */
static int lkp_status(struct run_record *r)
{
	const double *incomplete = statmap_get(&r->stats, "last_state.is_incomplete_run");
	const double *failed = statmap_get(&r->stats, "last_state.exit_fail");

	r->status = RUN_COMPLETE;
	if (incomplete && *incomplete == 1) {
		r->status = RUN_INCOMPLETE;
		return strmap_set(&r->env, "last_state.reason",
				  "LKP: last_state.is_incomplete_run 1");
	}
	if (failed && *failed == 1) {
		r->status = RUN_FAILED;
		return strmap_set(&r->env, "last_state.reason", "LKP: last_state.exit_fail 1");
	}
	return 0;
}

/* The env and identity of a run whose job.yaml and stats were read: 0 or -ENOMEM. */
static int lkp_describe(struct lkp_run *run, const struct atomic_job *job,
			const struct strmap *keys, const char *dir, const char *testbox,
			const char *commit, const char *name, double started)
{
	struct run_record *r = &run->rec;
	char *machine = lkp_machine(keys);
	int err = 0;

	err |= record_set_str(&r->testbox, testbox);
	err |= record_set_str(&r->testcase, job->testcase);
	err |= record_set_str(&r->job, job->name);
	err |= record_set_str(&r->commit, commit);
	err |= record_set_str(&r->job_text, job->text);
	for (size_t i = 0; i < job->nr_params; i++)
		err |= strmap_set(&r->params, job->params[i].key, job->params[i].value);
	err |= strmap_set(&r->env, "testbox", testbox);
	if (machine)
		err |= strmap_set(&r->env, "machine", machine);
	free(machine);
	/* as perfbot run records what the job gives: job.kconfig, job.compiler, ... */
	for (size_t i = 0; i < job->recorded.n; i++) {
		char *key;

		if (asprintf(&key, "job.%s", job->recorded.v[i].key) < 0)
			return -ENOMEM;
		err |= strmap_set(&r->env, key, job->recorded.v[i].value);
		free(key);
	}
	if (job->kpi)
		err |= strmap_set(&r->env, "kpi", job->kpi);
	if (strmap_get(keys, "testbox"))
		err |= strmap_set(&r->env, "lkp.testbox", strmap_get(keys, "testbox"));
	if (strmap_get(keys, "result_root"))
		err |= strmap_set(&r->env, "lkp.result_root", strmap_get(keys, "result_root"));
	err |= strmap_set(&r->env, "imported_from", dir);
	err |= strmap_set(&r->env, "import_format", "lkp-result");
	err |= strmap_set(&r->env, "import_run", name);
	err |= lkp_status(r);
	r->started = started;
	r->duration_s = 0;
	if (err || lkp_identity(dir, keys, run) || !(run->dir = strdup(dir)))
		return -ENOMEM;
	return 0;
}

/* One run directory read whole into a record, appended to rd->runs. */
static int lkp_read_run(struct reader *rd, const char *dir, double started)
{
	struct lkp_runs *runs = rd->runs;
	struct strmap keys = { 0 };
	struct atomic_job job;
	struct job_error jerr;
	struct lkp_run *run;
	char *jpath = path_join(dir, "job.yaml"), *name = NULL, *parent = NULL;
	char *pname = NULL;
	const char *testbox, *commit;
	int ret;

	if (!jpath || vec_reserve(runs, runs->n + 1)) {
		free(jpath);
		return no_memory(rd->err);
	}
	ret = job_load_lkp_run(jpath, &job, &keys, &jerr);
	if (ret) {
		ret = from_job_error(rd->err, ret, &jerr);
		job_error_release(&jerr);
		strmap_release(&keys);
		free(jpath);
		return ret;
	}
	run = &runs->v[runs->n];
	memset(run, 0, sizeof(*run));
	ret = lkp_stats(rd, dir, &run->rec);
	if (ret)
		goto out;
	name = base_name(dir);
	parent = parent_dir(dir);
	pname = parent ? base_name(parent) : NULL;
	if (!name || !pname) {
		ret = no_memory(rd->err);
		goto out;
	}
	/* LKP compares within a tbox_group: its result path names the group */
	testbox = strmap_get(&keys, "tbox_group");
	if (!testbox)
		testbox = strmap_get(&keys, "testbox");
	commit = strmap_get(&keys, "commit");
	/* LKP's layout .../COMMIT/N: a local run's job.yaml may name none */
	if (!commit && all_digits(name))
		commit = pname;
	if (!testbox || !commit) {
		ret = say(rd->err, -EINVAL, "%s: no %s: LKP's job.yaml names it (%s)", jpath,
			  testbox ? "commit" : "tbox_group or testbox",
			  testbox ? "or the run is in .../COMMIT/N/" : "the machine the run is of");
		goto out;
	}
	ret = lkp_describe(run, &job, &keys, dir, testbox, commit, name, started);
	if (ret) {
		ret = no_memory(rd->err);
		goto out;
	}
	runs->n++;
out:
	if (ret) {
		run_record_release(&run->rec);
		free(run->dir);
	}
	atomic_job_release(&job);
	strmap_release(&keys);
	free(jpath);
	free(name);
	free(parent);
	free(pname);
	return ret;
}

/* The run directories at or under a DIR given; -ENOENT when there is none. */
static int find_dir(const char *dir, struct vec_str *found, struct lkp_result_error *err)
{
	size_t before = found->n;
	struct stat st;
	int ret;

	if (stat(dir, &st))
		return say(err, -ENOENT, "%s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return say(err, -ENOENT, "%s is not a directory: lkp-result takes LKP result "
			   "directories (perfbot import lkp-matrix reads a matrix.json)", dir);
	ret = find_runs(dir, 0, found, err);
	if (!ret && found->n == before)
		ret = say(err, -ENOENT, "%s is not an LKP result: no job.yaml in it or in a "
			  "directory under it%s (an LKP run directory .../COMMIT/N/ holds "
			  "job.yaml and stats.json: docs/import.md)", dir,
			  is_file(dir, "matrix.json") ?
			  ", only a matrix.json (perfbot import lkp-matrix FILE reads it "
			  "without the job)" : "");
	return ret;
}

static int cmp_run_hash(const void *a, const void *b, void *arg)
{
	const struct lkp_run *v = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(v[x].hash, v[y].hash);

	return c ? c : (x > y) - (x < y);
}

/*
 * Mark the runs found twice (DIRs that overlap, a copy beside its
 * original): the caller stores them once.  O(n log n).
 */
static int mark_twins(struct lkp_runs *runs)
{
	size_t *order = malloc((runs->n ? runs->n : 1) * sizeof(*order));

	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < runs->n; i++)
		order[i] = i;
	qsort_r(order, runs->n, sizeof(*order), cmp_run_hash, runs->v);
	for (size_t i = 1; i < runs->n; i++)
		if (!strcmp(runs->v[order[i - 1]].hash, runs->v[order[i]].hash))
			runs->v[order[i]].twin = true;
	free(order);
	return 0;
}

int lkp_result_read(char *const *dirs, size_t nr, double started, struct lkp_runs *out,
		    struct lkp_result_error *err)
{
	struct reader rd = { .runs = out, .err = err };
	struct vec_str found = { 0 };
	int ret = 0;

	memset(out, 0, sizeof(*out));
	strbuf_reset(&err->msg);
	err->job_file = false;
	/* every DIR is checked before any run is read: a typo is said first */
	for (size_t i = 0; !ret && i < nr; i++)
		ret = find_dir(dirs[i], &found, err);
	for (size_t i = 0; !ret && i < found.n; i++)
		ret = lkp_read_run(&rd, found.v[i], started);
	if (!ret && mark_twins(out))
		ret = no_memory(err);
	for (size_t i = 0; i < found.n; i++)
		free(found.v[i]);
	vec_free(&found);
	free(rd.matrix_path);
	import_data_release(&rd.matrix);
	if (ret)
		lkp_runs_release(out);
	return ret;
}

void lkp_runs_release(struct lkp_runs *runs)
{
	for (size_t i = 0; i < runs->n; i++) {
		free(runs->v[i].dir);
		run_record_release(&runs->v[i].rec);
	}
	vec_free(runs);
}

void lkp_result_error_release(struct lkp_result_error *err)
{
	strbuf_release(&err->msg);
	err->job_file = false;
}

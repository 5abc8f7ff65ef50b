/*
 * publish.c - perfbot publish DIR: the static site of what the store
 * holds (publish.h; docs/publish.md).  This file reads the store, builds
 * each series with cmd/series.c, each alert's comparison with
 * cmd/gather.c (as perfbot compare does), each bisection's result as
 * perfbot report --bisect does, and hands report/site.h the structs; the
 * pages go to DIR through site_put(), which writes only what changed.
 *
 * Cost: one store_load_samples() a (series, point) with runs, one
 * store_get_run() a series (its KPI) and a run page, two loads and a
 * compare an alert; every page is rendered each time (the rendering is
 * what tells whether it changed) but only changed ones are written.
 */
#define _GNU_SOURCE
#include "cmd/publish.h"
#include "cmd/cmds.h"
#include "cmd/cmdutil.h"
#include "cmd/gather.h"
#include "cmd/series.h"
#include "record/bisect_result.h"
#include "report/bisect_report.h"
#include "report/report.h"
#include "report/site.h"
#include "util/strbuf.h"
#include "util/vec.h"
#include "vcs/git.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The site's own list of the pages it wrote: what a later publish may remove. */
#define MANIFEST ".perfbot-publish"
#define MANIFEST_HEAD "perfbot publish manifest 1\n"

#define failure(o, ...) cmd_failure((o)->who, __VA_ARGS__)
#define usage(o, ...) cmd_usage_error((o)->who, __VA_ARGS__)

/* ---- writing pages: only those whose bytes changed ---- */

struct names {
	char **v;
	size_t n, cap;
};

static void names_release(struct names *ns)
{
	for (size_t i = 0; i < ns->n; i++)
		free(ns->v[i]);
	vec_free(ns);
}

static int names_add(struct names *ns, const char *s)
{
	char *d = strdup(s);

	if (!d || vec_push(ns, d)) {
		free(d);
		return -ENOMEM;
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool names_has(const struct names *sorted, const char *s)
{
	return sorted->n && bsearch(&s, sorted->v, sorted->n, sizeof(char *), cmp_str);
}

/* A page's name as the site makes them: [A-Za-z0-9._-], not hidden, no path. */
static bool safe_name(const char *s)
{
	if (!*s || *s == '.' || strlen(s) > 200)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '.' || *s == '_' || *s == '-'))
			return false;
	return true;
}

struct site {
	const struct publish_opts *o;
	int dirfd;
	struct names old;	/* the manifest's, sorted */
	struct names now;	/* the pages of this publish */
	struct publish_counts *c;
};

/* The whole file at name in the site, or NULL (absent, unreadable). */
static char *read_at(int dirfd, const char *name, size_t *len)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct stat st;
	char *buf = NULL;
	size_t got = 0;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !(buf = malloc((size_t)st.st_size + 1)))
		goto fail;
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);

		if (r <= 0)
			goto fail;
		got += (size_t)r;
	}
	close(fd);
	buf[got] = '\0';
	*len = got;
	return buf;
fail:
	free(buf);
	close(fd);
	return NULL;
}

/* buf as the site's file name: kept when equal, else a temp file renamed over it. */
static int write_at(struct site *st, const char *name, const char *buf, size_t len, bool *wrote)
{
	size_t have_len = 0;
	char *have = read_at(st->dirfd, name, &have_len), tmp[256];
	int fd, err = 0;

	*wrote = false;
	if (have && have_len == len && !memcmp(have, buf, len)) {
		free(have);
		return 0;
	}
	free(have);
	snprintf(tmp, sizeof(tmp), ".%s.tmp%ld", name, (long)getpid());
	fd = openat(st->dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	for (size_t done = 0; done < len && !err;) {
		ssize_t w = write(fd, buf + done, len - done);

		if (w < 0 && errno != EINTR)
			err = -errno;
		else if (w > 0)
			done += (size_t)w;
	}
	if (close(fd) && !err)
		err = -errno;
	if (!err && renameat(st->dirfd, tmp, st->dirfd, name))
		err = -errno;
	if (err)
		unlinkat(st->dirfd, tmp, 0);
	*wrote = !err;
	return err;
}

/* One page of the site. */
static int site_put(struct site *st, const char *name, const char *buf, size_t len)
{
	bool wrote;
	int err;

	if (names_add(&st->now, name))
		return failure(st->o, "out of memory");
	err = write_at(st, name, buf, len, &wrote);
	if (err)
		return failure(st->o, "cannot write %s/%s: %s", st->o->dir, name, strerror(-err));
	if (wrote) {
		st->c->written++;
		if (st->o->list)
			printf("wrote %s\n", name);
	} else {
		st->c->kept++;
	}
	return 0;
}

/*
 * A page rendered by fn into memory, then put: whole or not at all.
 * The FILE is a memstream; fn returns 0 or a negative errno.
 */
#define RENDER(st, name, call) ({                                              \
	char *buf_ = NULL;                                                     \
	size_t len_ = 0;                                                       \
	FILE *out = open_memstream(&buf_, &len_);                              \
	int err_ = out ? (call) : -ENOMEM;                                     \
	int ret_;                                                              \
	if (out && fclose(out) && !err_)                                       \
		err_ = -ENOMEM;                                                \
	if (err_)                                                              \
		ret_ = failure((st)->o, "cannot make %s: %s", (name), strerror(-err_)); \
	else                                                                   \
		ret_ = site_put((st), (name), buf_, len_);                     \
	free(buf_);                                                            \
	ret_;                                                                  \
})

/* The manifest read into st->old (sorted); none: an empty list. */
static int manifest_read(struct site *st, bool *have)
{
	size_t len = 0;
	char *buf = read_at(st->dirfd, MANIFEST, &len), *line, *save = NULL;

	*have = buf != NULL;
	if (!buf)
		return 0;
	if (strncmp(buf, MANIFEST_HEAD, strlen(MANIFEST_HEAD))) {
		free(buf);
		return usage(st->o, "%s/%s is not a perfbot publish manifest: refusing to write "
			     "into %s", st->o->dir, MANIFEST, st->o->dir);
	}
	for (line = strtok_r(buf + strlen(MANIFEST_HEAD), "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		/* a name the site would not make is never removed: the manifest is a file */
		if (safe_name(line) && names_add(&st->old, line)) {
			free(buf);
			return failure(st->o, "out of memory");
		}
	free(buf);
	if (st->old.n)
		qsort(st->old.v, st->old.n, sizeof(char *), cmp_str);
	return 0;
}

/* Remove the pages of the last publish that this one did not make; write the manifest. */
static int manifest_finish(struct site *st)
{
	struct strbuf sb = STRBUF_INIT;
	bool wrote;
	int err;

	if (st->now.n)
		qsort(st->now.v, st->now.n, sizeof(char *), cmp_str);
	for (size_t i = 0; i < st->old.n; i++) {
		if (names_has(&st->now, st->old.v[i]))
			continue;
		if (unlinkat(st->dirfd, st->old.v[i], 0) && errno != ENOENT)
			return failure(st->o, "cannot remove %s/%s: %s", st->o->dir, st->old.v[i],
				       strerror(errno));
		st->c->removed++;
		if (st->o->list)
			printf("removed %s\n", st->old.v[i]);
	}
	strbuf_addstr(&sb, MANIFEST_HEAD);
	for (size_t i = 0; i < st->now.n; i++)
		strbuf_addf(&sb, "%s\n", st->now.v[i]);
	if (strbuf_error(&sb)) {
		strbuf_release(&sb);
		return failure(st->o, "out of memory");
	}
	err = write_at(st, MANIFEST, sb.buf, sb.len, &wrote);
	strbuf_release(&sb);
	if (err)
		return failure(st->o, "cannot write %s/%s: %s", st->o->dir, MANIFEST, strerror(-err));
	return 0;
}

/* DIR: made when missing; a directory that is not a site must be empty. */
static int site_open(struct site *st)
{
	const struct publish_opts *o = st->o;
	bool have = false;
	DIR *d;
	struct dirent *e;
	int ret;

	if (mkdir(o->dir, 0755) && errno != EEXIST)
		return usage(o, "cannot make the site's directory '%s': %s", o->dir, strerror(errno));
	st->dirfd = open(o->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (st->dirfd < 0)
		return usage(o, "'%s' is not a directory perfbot can open: %s", o->dir,
			     strerror(errno));
	if (faccessat(st->dirfd, ".", W_OK, AT_EACCESS))
		return usage(o, "the site's directory '%s' is not writable: %s", o->dir,
			     strerror(errno));
	ret = manifest_read(st, &have);
	if (ret || have)
		return ret;
	d = fdopendir(dup(st->dirfd));
	if (!d)
		return failure(o, "cannot read '%s': %s", o->dir, strerror(errno));
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			closedir(d);
			return usage(o, "'%s' is not empty and is no site of perfbot publish (it "
				     "has no %s): refusing to write into it", o->dir, MANIFEST);
		}
	closedir(d);
	return 0;
}

/* ---- commit subjects (--repo) ---- */

struct subject {
	char *sha, *subject;	/* into subjects.buf */
};

struct subjects {
	char **bufs;
	size_t nbufs;
	struct subject *v;
	size_t n, cap;
};

static int cmp_subject(const void *a, const void *b)
{
	return strcmp(((const struct subject *)a)->sha, ((const struct subject *)b)->sha);
}

/* Every commit's subject in each repository: one git log each, not one a commit. */
static int subjects_load(const struct publish_opts *o, struct subjects *sj)
{
	sj->bufs = calloc(o->nr_repos ? o->nr_repos : 1, sizeof(char *));
	if (!sj->bufs)
		return failure(o, "out of memory");
	for (size_t r = 0; r < o->nr_repos; r++) {
		struct strbuf err = STRBUF_INIT;
		char *out = NULL, *line, *save = NULL;

		if (git_cmd(o->repos[r], &out, &err, "log", "--all", "--format=%H%x09%s", NULL)) {
			int ret = usage(o, "cannot read the commits of --repo '%s': %s", o->repos[r],
					err.len ? err.buf : "not a git repository");

			strbuf_release(&err);
			free(out);
			return ret;
		}
		strbuf_release(&err);
		sj->bufs[sj->nbufs++] = out;
		for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char *tab = strchr(line, '\t');

			if (!tab)
				continue;
			*tab = '\0';
			if (vec_push(sj, ((struct subject){ line, tab + 1 })))
				return failure(o, "out of memory");
		}
	}
	if (sj->n)
		qsort(sj->v, sj->n, sizeof(*sj->v), cmp_subject);
	return 0;
}

static const char *subject_of(const struct subjects *sj, const char *sha)
{
	struct subject key = { (char *)sha, NULL }, *hit;

	hit = sj->n ? bsearch(&key, sj->v, sj->n, sizeof(*sj->v), cmp_subject) : NULL;
	return hit ? hit->subject : NULL;
}

static void subjects_release(struct subjects *sj)
{
	for (size_t i = 0; i < sj->nbufs; i++)
		free(sj->bufs[i]);
	free(sj->bufs);
	vec_free(sj);
}

/* ---- the series ---- */

struct pub_series {
	struct series se;
	char *unit;			/* copied: the samples are released */
	char *metric;
	const struct store_branch *br;
	const char *testbox, *job;	/* into the groups */
	char page[128];
	int64_t *run_ids;		/* [npts]: the newest run at each point */
};

struct pub {
	struct store *s;
	const struct publish_opts *o;
	struct site st;
	struct subjects sj;
	struct store_branch *br;
	size_t nbr;
	struct store_point **pts;	/* [nbr] */
	size_t *npts;
	struct store_group *groups;
	size_t ngroups;
	struct store_alert *alerts;
	size_t nalerts;
	struct store_bisect *bis;
	size_t nbis;
	struct pub_series *ser;
	size_t nser, capser;
	int64_t *runs;			/* the run pages to write */
	size_t nruns, capruns;
};

/* A stable name for the series' page: readable, and unique by a hash of its key. */
static void series_page_name(struct pub_series *ps)
{
	const char *parts[] = { ps->br->tree, ps->br->branch, ps->testbox, ps->job, ps->metric };
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a 64 */
	size_t k = 0;

	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		for (const char *p = parts[i]; *p; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211ULL;
		h = (h ^ 0xff) * 1099511628211ULL;	/* a separator no name holds */
	}
	k = (size_t)snprintf(ps->page, sizeof(ps->page), "series-");
	for (const char *p = ps->job; *p && k < 60; p++)
		ps->page[k++] = ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
				 (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '-') ?
					*p : '_';
	snprintf(ps->page + k, sizeof(ps->page) - k, "-%016" PRIx64 ".html", h);
}

static int add_run_page(struct pub *p, int64_t id)
{
	if (!id)
		return 0;
	if (p->nruns == p->capruns) {
		size_t cap = p->capruns ? 2 * p->capruns : 64;
		int64_t *v = realloc(p->runs, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->runs = v;
		p->capruns = cap;
	}
	p->runs[p->nruns++] = id;
	return 0;
}

static int cmp_sha_idx(const void *a, const void *b, void *ctx)
{
	const struct store_point *pts = ctx;

	return strcmp(pts[*(const size_t *)a].sha, pts[*(const size_t *)b].sha);
}

/*
 * The group of (testbox, job) at each point of a branch: found by the
 * points' shas sorted once (a group is checked in O(log points)).
 */
struct branch_series {
	const char *testbox, *job;
	const struct store_group **at;	/* [npts] */
};

static int series_of_branch(struct pub *p, size_t b, struct branch_series **out, size_t *nout)
{
	const struct store_point *pts = p->pts[b];
	size_t npts = p->npts[b], *order = calloc(npts ? npts : 1, sizeof(size_t)), n = 0;
	struct branch_series *bs = NULL;

	*out = NULL;
	*nout = 0;
	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < npts; i++)
		order[i] = i;
	qsort_r(order, npts, sizeof(size_t), cmp_sha_idx, (void *)pts);
	for (size_t g = 0; g < p->ngroups; g++) {
		const struct store_group *gr = &p->groups[g];
		size_t lo = 0, hi = npts, k;

		/* the first point with the group's sha */
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (strcmp(pts[order[mid]].sha, gr->commit) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == npts || strcmp(pts[order[lo]].sha, gr->commit))
			continue;
		for (k = 0; k < n; k++)
			if (!strcmp(bs[k].testbox, gr->testbox) && !strcmp(bs[k].job, gr->job))
				break;
		if (k == n) {
			struct branch_series *nb = realloc(bs, (n + 1) * sizeof(*bs));

			if (!nb)
				goto oom;
			bs = nb;
			bs[n] = (struct branch_series){ gr->testbox, gr->job,
							calloc(npts, sizeof(*bs[n].at)) };
			if (!bs[n++].at)
				goto oom;
		}
		/* a rebased branch may hold the sha at several points */
		for (; lo < npts && !strcmp(pts[order[lo]].sha, gr->commit); lo++)
			bs[k].at[order[lo]] = gr;
	}
	free(order);
	*out = bs;
	*nout = n;
	return 0;
oom:
	for (size_t i = 0; i < n; i++)
		free(bs[i].at);
	free(bs);
	free(order);
	return -ENOMEM;
}

/* The KPI of the series: run_record_kpi() of its newest complete run at the points. */
static int series_kpi(struct pub *p, const struct branch_series *bs, size_t npts, char **kpi)
{
	const struct store_group *newest = NULL;
	struct run_record run = { 0 };
	const char *k;

	*kpi = NULL;
	for (size_t i = 0; i < npts; i++)
		if (bs->at[i] && bs->at[i]->runs_complete &&
		    (!newest || bs->at[i]->last_run_id > newest->last_run_id))
			newest = bs->at[i];
	if (!newest)
		return 0;
	if (store_get_run(p->s, newest->last_run_id, &run))
		return failure(p->o, "%s", store_error(p->s));
	k = run_record_kpi(&run);
	if (k && !(*kpi = strdup(k))) {
		run_record_release(&run);
		return failure(p->o, "out of memory");
	}
	run_record_release(&run);
	return 0;
}

/* Which run pages a series links: around its changes and alerts, and its last point. */
static int series_run_pages(struct pub *p, struct pub_series *ps, const struct branch_series *bs)
{
	const struct history *h = &ps->se.h;
	size_t n = h->nr_points;
	bool *want = calloc(n, sizeof(bool));
	int ret = 0;

	if (!want)
		return -ENOMEM;
	want[n - 1] = true;
	for (size_t c = 0; c < h->nr_changes; c++)
		want[h->changes[c].index - 1] = want[h->changes[c].index] = true;
	for (size_t a = 0; a < h->nr_alerts; a++) {
		size_t b = report_history_find(h, h->alerts[a].before);
		size_t e = report_history_find(h, h->alerts[a].after);

		if (b != SIZE_MAX)
			want[b] = true;
		if (e != SIZE_MAX)
			want[e] = true;
	}
	for (size_t i = 0; i < n && !ret; i++) {
		ps->run_ids[i] = want[i] && bs->at[i] ? bs->at[i]->last_run_id : 0;
		ret = add_run_page(p, ps->run_ids[i]);
	}
	free(want);
	return ret;
}

/* One series: its samples, change points, alerts; its page written. */
static int one_series(struct pub *p, size_t b, const struct branch_series *bs)
{
	const struct store_point *pts = p->pts[b];
	size_t npts = p->npts[b];
	struct store_samples *sm = calloc(npts, sizeof(*sm));
	const char **subj = calloc(npts, sizeof(*subj));
	struct strbuf err = STRBUF_INIT;
	struct pub_series *ps;
	char *kpi = NULL;
	int ret = 0, e;

	if (!sm || !subj) {
		ret = failure(p->o, "out of memory");
		goto out;
	}
	ret = series_kpi(p, bs, npts, &kpi);
	if (ret || !kpi)
		goto out;	/* no complete run at any point, or no KPI: no series */
	for (size_t i = 0; i < npts && !ret; i++) {
		subj[i] = subject_of(&p->sj, pts[i].sha);
		if (bs->at[i] && bs->at[i]->runs_complete &&
		    store_load_samples(p->s, bs->testbox, bs->job, pts[i].sha, &sm[i]))
			ret = failure(p->o, "%s", store_error(p->s));
	}
	if (ret)
		goto out;
	if (p->nser == p->capser) {
		size_t cap = p->capser ? 2 * p->capser : 16;
		struct pub_series *v = realloc(p->ser, cap * sizeof(*v));

		if (!v) {
			ret = failure(p->o, "out of memory");
			goto out;
		}
		p->ser = v;
		p->capser = cap;
	}
	ps = &p->ser[p->nser];
	memset(ps, 0, sizeof(*ps));
	ps->br = &p->br[b];
	ps->testbox = bs->testbox;
	ps->job = bs->job;
	ps->metric = kpi;
	kpi = NULL;
	p->nser++;
	e = series_build(&ps->se, &(struct history){ .tree = ps->br->tree,
			 .branch = ps->br->branch, .testbox = ps->testbox, .job = ps->job,
			 .metric = ps->metric }, pts, npts, sm, subj, p->alerts, p->nalerts, &err);
	if (e) {
		ret = e == -ENOMEM ? failure(p->o, "out of memory") :
		      failure(p->o, "the change points of %s: %s", ps->metric, err.buf);
		goto out;
	}
	/* the samples go now: the unit is the only thing kept of them */
	if (ps->se.h.unit && !(ps->unit = strdup(ps->se.h.unit))) {
		ret = failure(p->o, "out of memory");
		goto out;
	}
	ps->se.h.unit = ps->unit;
	/* the subjects' array goes too: the points keep their pointers into sj */
	series_page_name(ps);
	ps->run_ids = calloc(npts, sizeof(*ps->run_ids));
	if (!ps->run_ids || series_run_pages(p, ps, bs)) {
		ret = failure(p->o, "out of memory");
		goto out;
	}
	ret = RENDER(&p->st, ps->page, report_site_series(out, &ps->se.h, ps->run_ids));
	p->st.c->series++;
out:
	for (size_t i = 0; sm && i < npts; i++)
		store_samples_release(&sm[i]);
	free(sm);
	free(subj);
	free(kpi);
	strbuf_release(&err);
	return ret;
}

static bool branch_wanted(const struct publish_opts *o, const struct store_branch *b)
{
	const char *slash;

	if (!o->branch || !strcmp(o->branch, b->branch))
		return true;
	slash = strchr(o->branch, '/');
	/* TREE/BRANCH: a branch name may hold a slash itself */
	return slash && !strncmp(o->branch, b->tree, (size_t)(slash - o->branch)) &&
	       !b->tree[slash - o->branch] && !strcmp(slash + 1, b->branch);
}

static int all_series(struct pub *p)
{
	int ret = 0;

	for (size_t b = 0; b < p->nbr && !ret; b++) {
		struct branch_series *bs;
		size_t nbs;

		if (!branch_wanted(p->o, &p->br[b]) || !p->npts[b])
			continue;
		if (series_of_branch(p, b, &bs, &nbs))
			return failure(p->o, "out of memory");
		for (size_t k = 0; k < nbs && !ret; k++)
			ret = one_series(p, b, &bs[k]);
		for (size_t k = 0; k < nbs; k++)
			free(bs[k].at);
		free(bs);
	}
	return ret;
}

/* ---- alerts, bisections, runs, machines ---- */

static const char *series_page_of(const struct pub *p, const struct store_alert *a)
{
	for (size_t i = 0; i < p->nser; i++) {
		const struct history *h = &p->ser[i].se.h;

		if (!strcmp(h->tree, a->tree) && !strcmp(h->branch, a->branch) &&
		    !strcmp(h->testbox, a->testbox) && !strcmp(h->job, a->job) &&
		    !strcmp(h->metric, a->metric))
			return p->ser[i].page;
	}
	return NULL;
}

static bool alert_wanted(const struct pub *p, const struct store_alert *a)
{
	const struct publish_opts *o = p->o;
	struct store_branch b = { .tree = a->tree, .branch = a->branch };

	return (!o->testbox || !strcmp(o->testbox, a->testbox)) &&
	       (!o->job || !strcmp(o->job, a->job)) && branch_wanted(o, &b) &&
	       a->updated >= o->since;
}

/* An alert's page: its comparison, before against after, as perfbot compare makes it. */
static int alert_page(struct pub *p, struct site_alert *sa)
{
	const char *only[] = { sa->job, NULL };
	char *given[] = { (char *)sa->before, (char *)sa->after };
	struct gather ga = {
		.who = p->o->who, .testbox = sa->testbox, .only_jobs = only, .quiet = true,
		.given = given, .nr_commits = 2,
	};
	struct compare_opts co;
	char name[64], *cmp = NULL;
	size_t len = 0;
	int ret;

	snprintf(name, sizeof(name), "alert-%" PRId64 ".html", sa->id);
	compare_opts_init(&co);
	ret = gather_jobs(p->s, &ga);
	for (size_t i = 0; !ret && i < ga.njobs; i++)
		ret = gather_compare(p->s, &ga, &ga.jobs[i], &co);
	if (!ret && ga.njobs) {
		FILE *m = open_memstream(&cmp, &len);

		ga.report.opts = &co;
		ga.report.branch = sa->branch;
		if (!m || report_html(m, &ga.report)) {
			if (m)
				fclose(m);
			free(cmp);
			gather_release(&ga);
			return failure(p->o, "cannot make %s: out of memory", name);
		}
		fclose(m);
	}
	gather_release(&ga);
	sa->compared = cmp != NULL;
	ret = RENDER(&p->st, name, report_site_alert(out, sa, cmp,
		     "the store has no complete runs of the job on the test box at both "
		     "commits (perfbot compare says why)"));
	free(cmp);
	return ret;
}

/* Does an alert on the site link to bisection id? Then its page is there too. */
static bool bisect_linked(const struct site_alert *sa, size_t na, int64_t id)
{
	for (size_t i = 0; i < na; i++)
		if (sa[i].bisect_id == id)
			return true;
	return false;
}

static int alerts_and_bisections(struct pub *p, struct site_alert **outa, size_t *na,
				 struct site_bisect **outb, size_t *nb,
				 struct bisect_result **results)
{
	struct site_alert *sa = calloc(p->nalerts ? p->nalerts : 1, sizeof(*sa));
	struct site_bisect *sb = calloc(p->nbis ? p->nbis : 1, sizeof(*sb));
	struct bisect_result *br = calloc(p->nbis ? p->nbis : 1, sizeof(*br));
	int ret = 0;

	*outa = sa;
	*outb = sb;
	*results = br;
	*na = *nb = 0;
	if (!sa || !sb || !br)
		return failure(p->o, "out of memory");
	for (size_t i = 0; i < p->nalerts; i++) {
		const struct store_alert *a = &p->alerts[i];

		if (!alert_wanted(p, a))
			continue;
		sa[(*na)++] = (struct site_alert){
			.id = a->id, .tree = a->tree, .branch = a->branch, .testbox = a->testbox,
			.job = a->job, .metric = a->metric, .before = a->before, .after = a->after,
			.how = a->how, .state = a->state, .pct = a->pct, .culprit = a->culprit,
			.bisect_id = a->bisect_id, .report_id = a->report_id, .note = a->note,
			.created = a->created, .updated = a->updated,
			.series_page = series_page_of(p, a),
		};
	}
	for (size_t i = 0; i < *na && !ret; i++)
		ret = alert_page(p, &sa[i]);
	p->st.c->alerts = *na;
	for (size_t i = 0; i < p->nbis && !ret; i++) {
		const struct store_bisect *b = &p->bis[i];
		struct bisect_result *r = &br[*nb];
		char err[512], name[64], msg[700];

		bisect_result_init(r);
		if (bisect_result_load(r, b->id, b->status, b->result, b->spec, err, sizeof(err))) {
			/* its page says so: an alert may link to it */
			bisect_result_release(r);
			bisect_result_init(r);
			sb[(*nb)++] = (struct site_bisect){ .id = b->id, .status = b->status,
							   .created = b->created, .updated = b->updated };
			snprintf(name, sizeof(name), "bisect-%" PRId64 ".html", b->id);
			snprintf(msg, sizeof(msg), "Bisection %" PRId64 " is damaged in the store: %s",
				 b->id, err);
			ret = RENDER(&p->st, name, report_site_message(out, name, msg));
			continue;
		}
		if (!bisect_linked(sa, *na, b->id) &&
		    ((p->o->testbox && (!r->testbox || strcmp(r->testbox, p->o->testbox))) ||
		     (p->o->job && (!r->job || strcmp(r->job, p->o->job))) ||
		     b->updated < p->o->since)) {
			bisect_result_release(r);
			bisect_result_init(r);
			continue;
		}
		sb[(*nb)++] = (struct site_bisect){
			.id = b->id, .status = b->status, .job = r->job, .testbox = r->testbox,
			.metric = r->metric, .created = b->created, .updated = b->updated,
			.culprit = r->level.have_culprit ? r->level.culprit.commit.sha : NULL,
		};
		snprintf(name, sizeof(name), "bisect-%" PRId64 ".html", b->id);
		{
			char *page = NULL;
			size_t len = 0;
			FILE *m = open_memstream(&page, &len);
			int e = m ? report_bisect_html(m, r) : -ENOMEM;

			if (m && fclose(m) && !e)
				e = -ENOMEM;
			ret = e ? failure(p->o, "cannot make %s: %s", name, strerror(-e)) :
				  RENDER(&p->st, name, report_site_bisect(out, page));
			free(page);
		}
	}
	p->st.c->bisections = *nb;
	return ret;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Alert links to runs: the newest run of the job at each end, when a series has it. */
static int run_pages(struct pub *p)
{
	int ret = 0;

	if (p->nruns)
		qsort(p->runs, p->nruns, sizeof(*p->runs), cmp_i64);
	for (size_t i = 0; i < p->nruns && !ret; i++) {
		struct run_record r = { 0 };
		char name[64];

		if (i && p->runs[i] == p->runs[i - 1])
			continue;
		if (store_get_run(p->s, p->runs[i], &r))
			return failure(p->o, "%s", store_error(p->s));
		snprintf(name, sizeof(name), "run-%" PRId64 ".html", p->runs[i]);
		ret = RENDER(&p->st, name, report_site_run(out, p->runs[i], &r));
		run_record_release(&r);
		p->st.c->runs++;
	}
	return ret;
}

static int machines_page(struct pub *p)
{
	struct site_machine *m = calloc(p->ngroups + 1, sizeof(*m));
	size_t *newest = calloc(p->ngroups + 1, sizeof(*newest));	/* [box]: its newest group */
	struct run_record *runs = NULL;
	struct store_box *boxes = NULL;
	size_t n = 0, nboxes = 0;
	int ret = 0, e;

	if (!m || !newest) {
		free(m);
		free(newest);
		return failure(p->o, "out of memory");
	}
	for (size_t g = 0; g < p->ngroups; g++) {
		const struct store_group *gr = &p->groups[g];
		size_t k;

		for (k = 0; k < n; k++)
			if (!strcmp(m[k].testbox, gr->testbox))
				break;
		if (k == n)
			m[n++] = (struct site_machine){ .testbox = gr->testbox, .last = -INFINITY,
							.seen = NAN };
		m[k].groups++;
		m[k].runs += gr->runs_complete;
		if (gr->last_started > m[k].last) {
			m[k].last = gr->last_started;
			newest[k] = g;	/* the machine line of its newest run: read below */
		}
	}
	runs = calloc(n ? n : 1, sizeof(*runs));
	if (!runs) {
		free(m);
		free(newest);
		return failure(p->o, "out of memory");
	}
	for (size_t k = 0; k < n && !ret; k++) {
		if (store_get_run(p->s, p->groups[newest[k]].last_run_id, &runs[k]))
			ret = failure(p->o, "%s", store_error(p->s));
		m[k].machine = strmap_get(&runs[k].env, "machine");
	}
	e = ret ? 0 : store_queue_boxes(p->s, &boxes, &nboxes);
	if (e && e != -ENOTSUP)
		ret = failure(p->o, "%s", store_error(p->s));
	for (size_t b = 0; !ret && b < nboxes; b++) {
		size_t k;

		if (p->o->testbox && strcmp(p->o->testbox, boxes[b].testbox))
			continue;
		for (k = 0; k < n; k++)
			if (!strcmp(m[k].testbox, boxes[b].testbox))
				break;
		if (k == n) {
			struct site_machine *nm = realloc(m, (n + 1) * sizeof(*m));

			if (!nm) {
				ret = failure(p->o, "out of memory");
				break;
			}
			m = nm;
			m[n++] = (struct site_machine){ .testbox = boxes[b].testbox, .last = NAN,
							.machine = boxes[b].machine };
		}
		m[k].fleet = true;
		m[k].state = boxes[b].state;
		m[k].why = boxes[b].why;
		m[k].arch = boxes[b].arch;
		m[k].kernel = boxes[b].kernel;
		m[k].cpus = boxes[b].cpus;
		m[k].mem_mb = boxes[b].mem_mb;
		m[k].seen = boxes[b].seen;
		m[k].done = boxes[b].done;
		m[k].failed = boxes[b].failed;
	}
	if (!ret)
		ret = RENDER(&p->st, SITE_MACHINES, report_site_machines(out, m, n));
	for (size_t k = 0; runs && k < n; k++)
		run_record_release(&runs[k]);
	free(runs);
	store_boxes_release(boxes, nboxes);
	free(m);
	free(newest);
	return ret;
}

/* ---- filters ---- */

static int check_filters(struct pub *p)
{
	const struct publish_opts *o = p->o;
	bool box = !o->testbox, job = !o->job, branch = !o->branch;

	for (size_t g = 0; g < p->ngroups; g++) {
		box |= !strcmp(p->groups[g].testbox, o->testbox ? o->testbox : "");
		job |= !strcmp(p->groups[g].job, o->job ? o->job : "");
	}
	for (size_t b = 0; b < p->nbr; b++)
		branch |= branch_wanted(o, &p->br[b]);
	if (!box)
		return usage(o, "--testbox '%s': no run on that test box in the store "
			     "(perfbot results lists them)", o->testbox);
	if (!job)
		return usage(o, "--job '%s': no run of that job in the store (perfbot results "
			     "lists them)", o->job);
	if (!branch)
		return usage(o, "--branch '%s': the robot never tested that branch (perfbot "
			     "watch status lists them)", o->branch);
	return 0;
}

static int read_store(struct pub *p)
{
	struct store_filter f = { .testbox = p->o->testbox, .job = p->o->job };
	int ret;

	if (store_branches(p->s, &p->br, &p->nbr) ||
	    store_list_groups(p->s, &(struct store_filter){ 0 }, &p->groups, &p->ngroups) ||
	    store_alerts(p->s, NULL, &p->alerts, &p->nalerts) ||
	    store_bisect_list(p->s, &p->bis, &p->nbis))
		return failure(p->o, "%s", store_error(p->s));
	ret = check_filters(p);
	if (ret)
		return ret;
	if (p->o->testbox || p->o->job) {
		store_groups_release(p->groups, p->ngroups);
		p->groups = NULL;
		if (store_list_groups(p->s, &f, &p->groups, &p->ngroups))
			return failure(p->o, "%s", store_error(p->s));
	}
	p->pts = calloc(p->nbr ? p->nbr : 1, sizeof(*p->pts));
	p->npts = calloc(p->nbr ? p->nbr : 1, sizeof(*p->npts));
	if (!p->pts || !p->npts)
		return failure(p->o, "out of memory");
	for (size_t b = 0; b < p->nbr; b++) {
		size_t k = 0;

		if (!branch_wanted(p->o, &p->br[b]))
			continue;
		if (store_points(p->s, p->br[b].tree, p->br[b].branch, &p->pts[b], &p->npts[b]))
			return failure(p->o, "%s", store_error(p->s));
		/* --since: the points tested from then on */
		for (size_t i = 0; i < p->npts[b]; i++) {
			if (p->pts[b][i].tested >= p->o->since) {
				p->pts[b][k++] = p->pts[b][i];
				continue;
			}
			free(p->pts[b][i].sha);
			free(p->pts[b][i].base);
		}
		p->npts[b] = k;
	}
	return 0;
}

static void pub_release(struct pub *p)
{
	for (size_t i = 0; i < p->nser; i++) {
		series_release(&p->ser[i].se);
		free(p->ser[i].unit);
		free(p->ser[i].metric);
		free(p->ser[i].run_ids);
	}
	free(p->ser);
	free(p->runs);
	for (size_t b = 0; p->pts && b < p->nbr; b++)
		store_points_release(p->pts[b], p->npts[b]);
	free(p->pts);
	free(p->npts);
	store_branches_release(p->br, p->nbr);
	store_groups_release(p->groups, p->ngroups);
	store_alerts_release(p->alerts, p->nalerts);
	store_bisects_release(p->bis, p->nbis);
	subjects_release(&p->sj);
	names_release(&p->st.old);
	names_release(&p->st.now);
	if (p->st.dirfd > 0)
		close(p->st.dirfd);
}

int publish_site(struct store *s, const struct publish_opts *o, struct publish_counts *c)
{
	struct pub p = { .s = s, .o = o, .st = { .o = o, .dirfd = -1, .c = c } };
	struct site_alert *sa = NULL;
	struct site_bisect *sb = NULL;
	struct bisect_result *br = NULL;
	struct site_series *index = NULL;
	size_t na = 0, nb = 0;
	char id[STORE_ID_LEN + 1], stamp[64];
	int ret;

	memset(c, 0, sizeof(*c));
	ret = read_store(&p);
	if (!ret)
		ret = site_open(&p.st);
	if (!ret)
		ret = subjects_load(o, &p.sj);
	if (!ret)
		ret = all_series(&p);
	if (!ret)
		ret = alerts_and_bisections(&p, &sa, &na, &sb, &nb, &br);
	if (!ret)
		ret = run_pages(&p);
	if (!ret)
		ret = machines_page(&p);
	if (!ret && store_id(s, false, id))
		ret = failure(o, "%s", store_error(s));
	if (!ret)
		ret = RENDER(&p.st, SITE_FEED, report_site_feed(out, id, sa, na));
	if (!ret)
		ret = RENDER(&p.st, SITE_ALERTS, report_site_alerts(out, sa, na, sb, nb));
	if (!ret && !(index = calloc(p.nser + 1, sizeof(*index))))
		ret = failure(o, "out of memory");
	for (size_t i = 0; !ret && i < p.nser; i++)
		index[i] = (struct site_series){ &p.ser[i].se.h, p.ser[i].page };
	if (!ret) {
		/* the store, not the time: a publish with nothing new changes no byte */
		snprintf(stamp, sizeof(stamp), "store %s", id);
		ret = RENDER(&p.st, SITE_INDEX, report_site_index(out, index, p.nser, sa, na, stamp));
	}
	if (!ret)
		ret = manifest_finish(&p.st);
	for (size_t i = 0; br && i < nb; i++)
		bisect_result_release(&br[i]);
	free(br);
	free(sa);
	free(sb);
	free(index);
	pub_release(&p);
	return ret;
}

/* ---- the command ---- */

static const char publish_usage[] =
	"usage: perfbot publish DIR [--testbox T] [--job J] [--branch [TREE/]B]\n"
	"                       [--since DATE] [--repo DIR ...] [--list] [--db PATH]\n"
	"\n"
	"Write the static site of what the store holds into DIR (docs/publish.md):\n"
	"an overview of every series the robot tested with a sparkline of its KPI,\n"
	"a page per series (the KPI over the points, change points and their\n"
	"state, zoom, log scale, relative to a point), the alerts and bisections\n"
	"grouped by culprit, a comparison page per alert, a bisection page each,\n"
	"run pages, the machines and an Atom feed.  No network, nothing fetched:\n"
	"open DIR/index.html, or serve DIR as it is.  Only pages whose bytes\n"
	"changed are written; pages of things gone are removed.\n"
	"\n"
	"      --testbox T       only runs on test box T\n"
	"      --job J           only the atomic job J\n"
	"      --branch B        only branch B (or TREE/B)\n"
	"      --since DATE      only points tested, and alerts and bisections\n"
	"                        updated, since DATE (YYYY-MM-DD[THH:MM[:SS]], UTC)\n"
	"      --repo DIR        a git repository: commit subjects in the tooltips\n"
	"                        and tables (repeatable)\n"
	"      --list            print each page written and removed\n"
	CMD_DB_USAGE
	"  -h, --help            show this help\n"
	"\n"
	"Prints how many pages it wrote, kept and removed.  Exit status: 0, 1 the\n"
	"store could not be read or a page not written, 2 bad usage (also a\n"
	"filter that matches nothing, or DIR not writable, or not empty and not a\n"
	"site of perfbot publish).\n";

/* YYYY-MM-DD, YYYY-MM-DDTHH:MM or YYYY-MM-DDTHH:MM:SS, UTC */
static int parse_date(const char *s, double *t)
{
	static const char *const fmts[] = { "%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M", "%Y-%m-%d" };

	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		struct tm tm = { 0 };
		const char *end = strptime(s, fmts[i], &tm);

		if (end && !*end) {
			*t = (double)timegm(&tm);
			return 0;
		}
	}
	return -EINVAL;
}

int cmd_publish(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "testbox", required_argument, NULL, 'x' },
		{ "job", required_argument, NULL, 'j' },
		{ "branch", required_argument, NULL, 'b' },
		{ "since", required_argument, NULL, 's' },
		{ "repo", required_argument, NULL, 'r' },
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct publish_opts o = { .who = "publish", .since = STORE_ALL_TIME };
	const char **repos = calloc((size_t)argc, sizeof(char *));
	struct publish_counts c;
	struct store *s = NULL;
	int ch, ret = 0;

	if (!repos)
		return cmd_failure("publish", "out of memory");
	optind = 1;
	opterr = 0;
	while (!ret && (ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'x':
		case 'j':
		case 'b':
			if (!*optarg)
				ret = usage(&o, "%s needs a value", argv[optind - 1]);
			*(ch == 'x' ? &o.testbox : ch == 'j' ? &o.job : &o.branch) = optarg;
			break;
		case 's':
			if (parse_date(optarg, &o.since))
				ret = usage(&o, "invalid --since '%s': expected YYYY-MM-DD, "
					    "YYYY-MM-DDTHH:MM or YYYY-MM-DDTHH:MM:SS (UTC)", optarg);
			break;
		case 'r': {
			struct stat st;

			if (stat(optarg, &st) || !S_ISDIR(st.st_mode))
				ret = usage(&o, "--repo '%s' is not a directory", optarg);
			repos[o.nr_repos++] = optarg;
			break;
		}
		case 'l':
			o.list = true;
			break;
		case 'h':
			fputs(publish_usage, stdout);
			ret = -1;
			break;
		case ':':
			ret = usage(&o, "option '%s' needs a value", argv[optind - 1]);
			break;
		default:
			ret = usage(&o, "unknown option '%s' (see perfbot publish --help)",
				    argv[optind - 1]);
		}
	}
	if (!ret && optind >= argc)
		ret = usage(&o, "needs the site's directory: perfbot publish DIR (--help)");
	if (!ret && optind != argc - 1)
		ret = usage(&o, "one directory, not %d arguments ('%s' too)", argc - optind,
			    argv[optind + 1]);
	if (!ret && !*argv[optind])
		ret = usage(&o, "the site's directory is empty");
	if (ret) {
		free(repos);
		return ret < 0 ? EXIT_OK : ret;
	}
	o.dir = argv[optind];
	o.repos = repos;
	ret = cmd_store_open("publish", STORE_READ, &s);
	if (!ret)
		ret = publish_site(s, &o, &c);
	if (!ret)
		printf("published %s: %zu series, %zu alerts, %zu bisections, %zu runs; "
		       "%zu pages written, %zu kept, %zu removed\n", o.dir, c.series, c.alerts,
		       c.bisections, c.runs, c.written, c.kept, c.removed);
	store_close(s);
	free(repos);
	return ret;
}

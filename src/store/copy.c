/*
 * copy.c - perfbot db copy's work (copy.h): which of FROM's runs TO
 * lacks, and copying them in batches.
 *
 * Cost: two queries to know what to copy (every run's id, origin and
 * import hash in each store), then per run one read of FROM and, per
 * batch, one transaction in TO (PostgreSQL: one statement per run).
 */
#define _GNU_SOURCE
#include "store/copy.h"
#include "store/internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool store_origin_parse(const char *origin, char store_id[STORE_ID_LEN + 1],
			int64_t *run_id)
{
	const char *p = origin;
	int64_t id = 0;

	for (size_t i = 0; i < STORE_ID_LEN; i++, p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return false;
	if (*p++ != ':' || *p < '1' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (id > (INT64_MAX - (*p - '0')) / 10)
			return false;
		id = id * 10 + (*p - '0');
	}
	if (*p)
		return false;
	if (store_id) {
		memcpy(store_id, origin, STORE_ID_LEN);
		store_id[STORE_ID_LEN] = '\0';
	}
	if (run_id)
		*run_id = id;
	return true;
}

/* A run's origin: the one it carries (its first), else this store's. */
static char *origin_of(const char *id, const struct store_run_ref *r)
{
	char *o;

	if (r->origin && store_origin_parse(r->origin, NULL, NULL))
		return strdup(r->origin);
	return asprintf(&o, "%s:%" PRId64, id, r->id) < 0 ? NULL : o;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct origins {
	char **v;
	size_t n;
};

static void origins_release(struct origins *o)
{
	for (size_t i = 0; i < o->n; i++)
		free(o->v[i]);
	free(o->v);
}

/* TO's origins, sorted for bsearch: read once, one query. */
static int read_origins(struct store *to, const char *to_id, struct origins *o,
			struct strbuf *err)
{
	struct store_run_ref *refs;
	size_t nr;
	int ret = store_run_refs(to, &refs, &nr);

	if (ret)
		return store_failf(err, ret, "%s", store_error(to));
	o->v = calloc(nr ? nr : 1, sizeof(*o->v));
	for (o->n = 0; o->v && o->n < nr; o->n++)
		if (!(o->v[o->n] = origin_of(to_id, &refs[o->n])))
			break;
	store_run_refs_release(refs, nr);
	if (!o->v || o->n < nr)
		return store_failf(err, -ENOMEM, "out of memory");
	qsort(o->v, o->n, sizeof(*o->v), cmp_str);
	return 0;
}

static bool origins_has(const struct origins *o, const char *origin)
{
	return o->n && bsearch(&origin, o->v, o->n, sizeof(*o->v), cmp_str);
}

/* What FROM holds besides runs: nothing of it is copied (copy.h). */
static int count_rest(struct store *from, struct store_copy_counts *c, struct strbuf *err)
{
	struct store_bisect *b = NULL;
	struct store_alert *a = NULL;
	struct store_report *r = NULL;
	struct store_branch *br = NULL;
	struct store_kexec *k = NULL;
	size_t nbr = 0;
	int ret;

	if ((ret = store_bisect_list(from, &b, &c->bisections)) ||
	    (ret = store_alerts(from, NULL, &a, &c->alerts)) ||
	    (ret = store_reports(from, &r, &c->reports)) ||
	    (ret = store_branches(from, &br, &nbr)) ||
	    (ret = store_kexec_list(from, &k, &c->kexec_boots)))
		store_failf(err, ret, "%s", store_error(from));
	for (size_t i = 0; i < nbr; i++)
		c->points += br[i].points;
	store_bisects_release(b, c->bisections);
	store_alerts_release(a, c->alerts);
	store_reports_release(r, c->reports);
	store_branches_release(br, nbr);
	store_kexecs_release(k, c->kexec_boots);
	return ret;
}

static void plural(struct strbuf *sb, size_t n, const char *one, const char *many)
{
	if (n)
		strbuf_addf(sb, "%s%zu %s", sb->len ? ", " : "", n, n == 1 ? one : many);
}

void store_copy_describe_rest(struct strbuf *sb, const struct store_copy_counts *c)
{
	plural(sb, c->bisections, "bisection", "bisections");
	plural(sb, c->alerts, "alert", "alerts");
	plural(sb, c->reports, "report", "reports");
	plural(sb, c->points, "watch point", "watch points");
	plural(sb, c->kexec_boots, "kexec boot", "kexec boots");
}

struct batch {
	struct run_record *runs;
	const char **hashes;
	size_t n, values;
};

static void batch_clear(struct batch *b)
{
	for (size_t i = 0; i < b->n; i++)
		run_record_release(&b->runs[i]);
	b->n = 0;
	b->values = 0;
}

static int flush(struct store *to, struct batch *b, struct store_copy_counts *c,
		 size_t to_copy, const struct store_copy_opts *o, struct strbuf *err)
{
	int ret = b->n ? store_put_runs(to, b->runs, b->n, b->hashes, NULL) : 0;

	if (ret)
		return store_failf(err, ret, "%s", store_error(to));
	c->copied += b->n;
	batch_clear(b);
	if (o->progress)
		o->progress(o->ctx, c->copied, to_copy);
	return 0;
}

int store_copy(struct store *from, struct store *to, const struct store_copy_opts *o,
	       struct store_copy_counts *c, struct strbuf *err)
{
	size_t max_runs = o->batch_runs ? o->batch_runs : STORE_COPY_BATCH_RUNS;
	size_t max_values = o->batch_values ? o->batch_values : STORE_COPY_BATCH_VALUES;
	char from_id[STORE_ID_LEN + 1], to_id[STORE_ID_LEN + 1];
	struct store_run_ref *refs = NULL;
	struct origins have = { 0 };
	struct batch b = { 0 };
	char **want = NULL;	/* [from_runs]: the origin to copy, NULL if TO has it */
	size_t to_copy = 0;
	int ret;

	memset(c, 0, sizeof(*c));
	if ((ret = store_id(from, false, from_id)))
		return store_failf(err, ret, "%s", store_error(from));
	/* TO keeps its id before it holds copies: its own runs are known by it */
	if ((ret = store_id(to, true, to_id)))
		return store_failf(err, ret, "%s", store_error(to));
	if (!strcmp(from_id, to_id))
		return store_failf(err, -EXDEV, "FROM and TO are one store (store id %s)",
				   from_id);
	if ((ret = count_rest(from, c, err)))
		return ret;
	if (!o->runs_only && (c->bisections || c->alerts || c->reports || c->points ||
			      c->kexec_boots)) {
		struct strbuf what = STRBUF_INIT;

		store_copy_describe_rest(&what, c);
		store_failf(err, -ENOTSUP,
			    "FROM holds %s, which db copy does not copy (their ids would change,"
			    " and alerts refer to bisections and reports by id): give --runs-only"
			    " to copy the runs alone", strbuf_error(&what) ? "more" : what.buf);
		strbuf_release(&what);
		return -ENOTSUP;
	}
	if ((ret = store_run_refs(from, &refs, &c->from_runs)))
		return store_failf(err, ret, "%s", store_error(from));
	if ((ret = read_origins(to, to_id, &have, err)))
		goto out;
	want = calloc(c->from_runs ? c->from_runs : 1, sizeof(*want));
	b.runs = calloc(max_runs, sizeof(*b.runs));
	b.hashes = calloc(max_runs, sizeof(*b.hashes));
	if (!want || !b.runs || !b.hashes) {
		ret = store_failf(err, -ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < c->from_runs; i++) {
		char *origin = origin_of(from_id, &refs[i]);

		if (!origin) {
			ret = store_failf(err, -ENOMEM, "out of memory");
			goto out;
		}
		if (origins_has(&have, origin)) {
			c->present++;
			free(origin);
		} else {
			want[i] = origin;
			to_copy++;
		}
	}
	for (size_t i = 0; i < c->from_runs; i++) {
		struct run_record *r = &b.runs[b.n];

		if (!want[i])
			continue;
		if ((ret = store_get_run(from, refs[i].id, r))) {
			run_record_release(r);
			store_failf(err, ret, "%s", store_error(from));
			goto out;
		}
		b.hashes[b.n] = refs[i].sha256;
		b.n++;
		b.values += r->stats.n;
		if (strmap_set(&r->env, STORE_ORIGIN_KEY, want[i])) {
			ret = store_failf(err, -ENOMEM, "out of memory");
			goto out;
		}
		if ((b.n == max_runs || b.values >= max_values) &&
		    (ret = flush(to, &b, c, to_copy, o, err)))
			goto out;
	}
	ret = flush(to, &b, c, to_copy, o, err);
out:
	batch_clear(&b);
	free(b.runs);
	free(b.hashes);
	for (size_t i = 0; want && i < c->from_runs; i++)
		free(want[i]);
	free(want);
	origins_release(&have);
	store_run_refs_release(refs, c->from_runs);
	return ret;
}

/*
 * pg_samples.c - store_load_samples() in the PostgreSQL backend
 * (sqlite_samples.c's twin): every stat of one group's complete runs,
 * for compare.
 *
 * Cost: three queries in one read-only snapshot, whatever the size: the
 * group's runs; their values, grouped by stat on the server (one row per
 * stat, its values an array in run order, its name joined, sorted by
 * name), so that 20,000 stats x 10 runs come back as 20,000 rows and no
 * name is sent twice; and the runs' declarations, the newest of each
 * stat.  The client parses each array once, with no lookup of its own.
 */
#define _GNU_SOURCE
#include "store/pg_internal.h"
#include "util/vec.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The group's complete runs: their ids (a literal for $1) and starts. */
static int read_runs(struct pg_store *ps, const char *testbox, const char *job,
		     const char *commit, double since, struct strbuf *ids,
		     struct store_samples *out)
{
	char since_buf[PG_REAL_BUF];
	const char *params[] = { testbox, job, commit, pg_real_param(since_buf, since) };
	PGresult *res = NULL;
	int err = pg_exec(ps, "cannot list the runs",
			  "SELECT id, started FROM runs WHERE testbox = $1 AND job = $2"
			  " AND \"commit\" = $3 AND status = 'complete' AND started >= $4"
			  " ORDER BY started, id",
			  4, params, &res);
	size_t n = err ? 0 : PQntuples(res);

	if (!err && n && !(out->started = malloc(n * sizeof(double))))
		err = store_fail(&ps->base, -ENOMEM, "out of memory");
	for (size_t i = 0; !err && i < n; i++) {
		int64_t id;

		err = pg_col_int64(ps, res, (int)i, 0, 1, INT64_MAX, "a run", &id);
		if (!err)
			err = pg_col_real(ps, res, (int)i, 1, false, "a run's start",
					  &out->started[i]);
		pg_array_int(ids, id);
	}
	PQclear(res);
	if (!err && !pg_array_end(ids))
		err = store_fail(&ps->base, -ENOMEM, "out of memory");
	if (!err)
		out->nr_runs = n;
	return err;
}

/*
 * A float8[] as PostgreSQL writes it ('{1.5,-Infinity}') into a new array
 * of at most max values.  Anything else -- NaN (perfbot stores NULL),
 * NULL (filtered out), more values than runs -- is damage.
 */
static int parse_values(struct pg_store *ps, const char *t, size_t max,
			const char *name, double **values, size_t *count)
{
	const char *p = t;
	size_t n = 0;
	double *v;

	if (*p++ != '{')
		goto bad;
	v = malloc((max ? max : 1) * sizeof(*v));
	if (!v)
		return store_fail(&ps->base, -ENOMEM, "out of memory");
	*values = v;
	while (*p != '}') {
		char *end;

		if (n >= max)
			return pg_damaged(ps, "stat '%s' has more values than runs", name);
		v[n] = strtod(p, &end);
		if (end == p || isnan(v[n]) || (*end != ',' && *end != '}'))
			goto bad;
		n++;
		p = *end == ',' ? end + 1 : end;
	}
	if (p[1] || !n)
		goto bad;
	*count = n;
	return 0;
bad:
	return pg_damaged(ps, "stat '%s' has the values '%.60s'", name, t);
}

static int read_values(struct pg_store *ps, const char *ids, struct store_samples *out)
{
	const char *params[] = { ids };
	PGresult *res = NULL;
	size_t n;
	int err = pg_exec(ps, "cannot read the runs' stats",
			  "SELECT v.name_id, n.name, array_agg(v.value ORDER BY v.run_id)"
			  " FROM stat_value v LEFT JOIN stat_name n ON n.id = v.name_id"
			  " WHERE v.run_id = ANY($1::bigint[]) AND v.value IS NOT NULL"
			  " GROUP BY v.name_id, n.name ORDER BY n.name COLLATE \"C\"",
			  1, params, &res);

	n = err ? 0 : PQntuples(res);
	if (n && (!(out->names = calloc(n, sizeof(*out->names))) ||
		  !(out->values = calloc(n, sizeof(*out->values))) ||
		  !(out->counts = calloc(n, sizeof(*out->counts)))))
		err = store_fail(&ps->base, -ENOMEM, "out of memory");
	for (size_t i = 0; !err && i < n; i++) {
		int64_t name_id;

		out->nr = i + 1;	/* what store_samples_release() frees */
		err = pg_col_int64(ps, res, (int)i, 0, 1, INT64_MAX, "a stat value", &name_id);
		if (!err && PQgetisnull(res, (int)i, 1))
			err = pg_damaged(ps, "stat %" PRId64 " has values but no name", name_id);
		if (!err)
			err = pg_col_text(ps, res, (int)i, 1, false, "a stat name", &out->names[i]);
		/* byte order, each once: the names are UNIQUE */
		if (!err && i && strcmp(out->names[i - 1], out->names[i]) >= 0)
			err = pg_damaged(ps, "the stat name '%s' is stored twice", out->names[i]);
		if (!err)
			err = parse_values(ps, PQgetvalue(res, (int)i, 2), out->nr_runs,
					   out->names[i], &out->values[i], &out->counts[i]);
	}
	PQclear(res);
	return err;
}

static int cmp_name(const void *key, const void *elem)
{
	return strcmp(key, *(char *const *)elem);
}

/*
 * out->meta: of each stat that has values here, the declaration of the
 * newest complete run that declares it.  A declaration's name id must
 * name a stat, values here or not (as in store_get_run()).
 */
static int read_meta(struct pg_store *ps, const char *ids, struct store_samples *out)
{
	const char *params[] = { ids };
	PGresult *res = NULL;
	int err;

	if (ps->version < PG_SCHEMA_STAT_META)
		return 0;
	err = pg_exec(ps, "cannot read the declared stats",
		      "SELECT DISTINCT ON (m.name_id) n.name, m.unit, m.better, m.kpi,"
		      " m.name_id, m.run_id FROM run_stat_meta m"
		      " LEFT JOIN stat_name n ON n.id = m.name_id"
		      " WHERE m.run_id = ANY($1::bigint[])"
		      " ORDER BY m.name_id, m.run_id DESC",
		      1, params, &res);
	for (int i = 0; !err && i < PQntuples(res); i++) {
		struct stat_meta m = { 0 };
		char row[64];

		snprintf(row, sizeof(row), "run %s", PQgetvalue(res, i, 5));
		err = pg_read_meta(ps, res, i, row, &m);
		if (!err && bsearch(m.name, out->names, out->nr, sizeof(*out->names), cmp_name)) {
			if (vec_push(&out->meta, m))
				err = store_fail(&ps->base, -ENOMEM, "out of memory");
			else
				continue;	/* out->meta's now */
		}
		free(m.name);
		free(m.unit);
	}
	PQclear(res);
	if (!err)
		pg_sort_meta(&out->meta);
	return err;
}

int pg_load_samples(struct store *s, const char *testbox, const char *job,
		    const char *commit, double since, struct store_samples *out)
{
	struct pg_store *ps = to_ps(s);
	struct strbuf ids = STRBUF_INIT;
	bool began;
	int err = pg_begin_read(ps, &began);

	if (err)
		return err;
	err = read_runs(ps, testbox, job, commit, since, &ids, out);
	if (!err && out->nr_runs)
		err = read_values(ps, ids.buf, out);
	if (!err && out->nr_runs)
		err = read_meta(ps, ids.buf, out);
	pg_end_read(ps, began);
	strbuf_release(&ids);
	if (err)
		store_samples_release(out);
	return err;
}

/*
 * pg_samples.c - store_load_samples() in the PostgreSQL backend
 * (sqlite_samples.c's twin): every stat of one group's complete runs,
 * for compare.
 *
 * Cost: four queries in one read-only snapshot, whatever the size: the
 * group's runs; their values, one row each in binary (no number printed
 * or parsed: 20,000 stats x 10 runs are 200,000 rows of 24 bytes),
 * grouped here by stat through a hash of name ids, which costs less
 * than any grouping or sort on the server (measured: bench/RESULTS.md,
 * issue 16); the names of those stats, sorted by the server, each sent
 * once; and the runs' declarations, the newest of each stat.
 */
#define _GNU_SOURCE
#include "store/pg_internal.h"
#include "util/vec.h"

#include <errno.h>
#include <stdint.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_id(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/*
 * The group's complete runs: their ids, ascending (and as a literal for
 * $1), and their starts, ascending.
 */
/* a box's runs, or a class's (testbox STORE_CLASS_PREFIX "NAME": $1 is NAME) */
#define CLASS_RUNS STORE_RUN_OF_CLASS("runs", "$1")
#define RUNS_SQL(OF)                                                               \
	"SELECT id, started FROM runs WHERE " OF " AND job = $2"                     \
	" AND \"commit\" = $3 AND status = 'complete' AND started >= $4"              \
	" ORDER BY started, id"

static int read_runs(struct pg_store *ps, const char *testbox, const char *job,
		     const char *commit, double since, struct strbuf *lit,
		     int64_t **ids, struct store_samples *out)
{
	char since_buf[PG_REAL_BUF];
	const char *cls = store_selector_class(testbox);
	const char *params[] = { cls ? cls : testbox, job, commit,
				 pg_real_param(since_buf, since) };
	PGresult *res = NULL;
	int err = pg_exec(ps, "cannot list the runs", cls ? RUNS_SQL(CLASS_RUNS)
							  : RUNS_SQL("testbox = $1"),
			  4, params, &res);
	size_t n = err ? 0 : PQntuples(res);

	if (!err && n && (!(out->started = malloc(n * sizeof(double))) ||
			  !(*ids = malloc(n * sizeof(**ids)))))
		err = store_fail(&ps->base, -ENOMEM, "out of memory");
	for (size_t i = 0; !err && i < n; i++) {
		err = pg_col_int64(ps, res, (int)i, 0, 1, INT64_MAX, "a run", &(*ids)[i]);
		if (!err)
			err = pg_col_real(ps, res, (int)i, 1, false, "a run's start",
					  &out->started[i]);
		pg_array_int(lit, (*ids)[i]);
	}
	PQclear(res);
	if (!err && n > 1)
		qsort(*ids, n, sizeof(**ids), cmp_id);
	for (size_t i = 1; !err && i < n; i++)
		if ((*ids)[i] == (*ids)[i - 1])
			err = pg_damaged(ps, "run %" PRId64 " is listed twice", (*ids)[i]);
	if (!err && !pg_array_end(lit))
		err = store_fail(&ps->base, -ENOMEM, "out of memory");
	if (!err)
		out->nr_runs = n;
	return err;
}

/*
 * The stats of the group while its values are read: name id -> slot
 * (open addressing, a power of two twice the slots or more), and each
 * slot's values in run order, nr_runs of room each in one block.
 */
struct slots {
	int64_t *keys;		/* 0: empty (ids start at 1) */
	uint32_t *at;		/* key's slot */
	size_t mask;
	int64_t *ids;		/* slot -> name id */
	double *values;		/* slot s: values[s * nr_runs ...] */
	uint32_t *runs;		/* the run index of each value, ascending */
	size_t *counts;
	size_t n, cap, nr_runs;
};

static void slots_release(struct slots *t)
{
	free(t->keys);
	free(t->at);
	free(t->ids);
	free(t->values);
	free(t->runs);
	free(t->counts);
}

static size_t slot_hash(const struct slots *t, int64_t id)
{
	return (size_t)(((uint64_t)id * 0x9E3779B97F4A7C15u) >> 29) & t->mask;
}

/* Room for twice as many stats: the arrays, and a table rebuilt. */
static int slots_grow(struct slots *t)
{
	size_t cap = t->cap ? 2 * t->cap : 4096, size = 4 * cap;
	int64_t *keys = calloc(size, sizeof(*keys));
	uint32_t *at = malloc(size * sizeof(*at));
	int err = keys && at ? 0 : -ENOMEM;

	err = err ?: vec_reserve_((void **)&t->ids, &(size_t){ t->cap }, cap, sizeof(*t->ids));
	err = err ?: vec_reserve_((void **)&t->counts, &(size_t){ t->cap }, cap,
				  sizeof(*t->counts));
	err = err ?: vec_reserve_((void **)&t->values, &(size_t){ t->cap * t->nr_runs },
				  cap * t->nr_runs, sizeof(*t->values));
	err = err ?: vec_reserve_((void **)&t->runs, &(size_t){ t->cap * t->nr_runs },
				  cap * t->nr_runs, sizeof(*t->runs));
	if (err) {
		free(keys);
		free(at);
		return -ENOMEM;
	}
	free(t->keys);
	free(t->at);
	t->keys = keys;
	t->at = at;
	t->mask = size - 1;
	t->cap = cap;
	for (size_t s = 0; s < t->n; s++) {
		size_t h = slot_hash(t, t->ids[s]);

		while (t->keys[h])
			h = (h + 1) & t->mask;
		t->keys[h] = t->ids[s];
		t->at[h] = s;
	}
	return 0;
}

/* The slot of name id, made when new; SIZE_MAX when memory ran out. */
static size_t slot_of(struct slots *t, int64_t id)
{
	size_t h = slot_hash(t, id);

	for (; t->keys[h]; h = (h + 1) & t->mask)
		if (t->keys[h] == id)
			return t->at[h];
	if (t->n == t->cap) {
		if (slots_grow(t))
			return SIZE_MAX;
		return slot_of(t, id);
	}
	t->keys[h] = id;
	t->at[h] = t->n;
	t->ids[t->n] = id;
	t->counts[t->n] = 0;
	return t->n++;
}

/*
 * Value v of run number r into slot s, in run order.  Rows come in the
 * primary key's order (run, stat), so this appends; any other order is
 * sorted in here.  A run met twice in a stat is damage (the key forbids it).
 */
static int slot_add(struct pg_store *ps, struct slots *t, size_t s, uint32_t r, double v)
{
	double *vals = t->values + s * t->nr_runs;
	uint32_t *runs = t->runs + s * t->nr_runs;
	size_t i = t->counts[s];

	while (i && runs[i - 1] > r)
		i--;
	if ((i && runs[i - 1] == r) || t->counts[s] >= t->nr_runs)
		return pg_damaged(ps, "stat %" PRId64 " has two values in one run", t->ids[s]);
	memmove(vals + i + 1, vals + i, (t->counts[s] - i) * sizeof(*vals));
	memmove(runs + i + 1, runs + i, (t->counts[s] - i) * sizeof(*runs));
	vals[i] = v;
	runs[i] = r;
	t->counts[s]++;
	return 0;
}

/* A binary int8 or float8 column: 8 bytes, network order. */
static int col_bits(struct pg_store *ps, const PGresult *res, int row, int col,
		    const char *what, uint64_t *bits)
{
	const unsigned char *p = (const unsigned char *)PQgetvalue(res, row, col);

	if (PQgetisnull(res, row, col) || PQgetlength(res, row, col) != 8)
		return pg_damaged(ps, "%s is not 8 bytes", what);
	*bits = 0;
	for (int i = 0; i < 8; i++)
		*bits = *bits << 8 | p[i];
	return 0;
}

/*
 * The values of the runs (ids, ascending), one row each, in binary: no
 * number is printed by the server or parsed here.
 */
static int read_values(struct pg_store *ps, const char *ids_param, const int64_t *ids,
		       struct slots *t)
{
	const char *params[] = { ids_param };
	PGresult *res = PQexecParams(ps->conn,
				     "SELECT v.run_id, v.name_id, v.value FROM stat_value v"
				     " WHERE v.run_id = ANY($1::bigint[]) AND v.value IS NOT NULL",
				     1, NULL, params, NULL, NULL, 1);
	int err = 0, rows;
	size_t r = 0;

	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		err = pg_fail(ps, res, "cannot read the runs' stats");
		PQclear(res);
		return err;
	}
	rows = PQntuples(res);
	for (int i = 0; !err && i < rows; i++) {
		uint64_t run, name, bits;
		double v;
		size_t s;

		err = col_bits(ps, res, i, 0, "a value's run", &run);
		err = err ?: col_bits(ps, res, i, 1, "a value's stat", &name);
		err = err ?: col_bits(ps, res, i, 2, "a value", &bits);
		if (err)
			break;
		memcpy(&v, &bits, sizeof(v));
		/* runs come in order: the last one found is the likely one */
		if (ids[r] != (int64_t)run) {
			const int64_t *at = bsearch(&run, ids, t->nr_runs, sizeof(*ids), cmp_id);

			if (!at) {
				err = pg_damaged(ps, "a value of run %" PRIu64 " was not asked for", run);
				break;
			}
			r = at - ids;
		}
		if ((int64_t)name < 1 || isnan(v)) {
			err = pg_damaged(ps, "run %" PRIu64 " holds %s of stat %" PRId64, run,
					 isnan(v) ? "NaN as the value" : "a value", (int64_t)name);
			break;
		}
		s = slot_of(t, (int64_t)name);
		err = s == SIZE_MAX ? store_fail(&ps->base, -ENOMEM, "out of memory")
				    : slot_add(ps, t, s, (uint32_t)r, v);
	}
	PQclear(res);
	return err;
}

/*
 * The names of the slots, sorted by name (byte order) on the server; the
 * samples are made in that order.
 */
static int read_names(struct pg_store *ps, struct slots *t, struct store_samples *out)
{
	struct strbuf arr = STRBUF_INIT;
	const char *params[1];
	PGresult *res = NULL;
	int err = 0, rows;

	for (size_t s = 0; s < t->n; s++)
		pg_array_int(&arr, t->ids[s]);
	params[0] = pg_array_end(&arr);
	err = params[0] ? pg_exec(ps, "cannot read the stat names",
				  "SELECT id, name FROM stat_name WHERE id = ANY($1::bigint[])"
				  " ORDER BY name COLLATE \"C\"", 1, params, &res)
			: store_fail(&ps->base, -ENOMEM, "out of memory");
	strbuf_release(&arr);
	rows = err ? 0 : PQntuples(res);
	if (!err && (size_t)rows != t->n)
		err = pg_damaged(ps, "%zu stats have values, %d of them a name", t->n, rows);
	if (!err && rows && (!(out->names = calloc(rows, sizeof(*out->names))) ||
			     !(out->values = calloc(rows, sizeof(*out->values))) ||
			     !(out->counts = calloc(rows, sizeof(*out->counts)))))
		err = store_fail(&ps->base, -ENOMEM, "out of memory");
	for (int i = 0; !err && i < rows; i++) {
		int64_t id;
		size_t s, n;

		out->nr = i + 1;	/* what store_samples_release() frees */
		err = pg_col_int64(ps, res, i, 0, 1, INT64_MAX, "a stat name's id", &id);
		err = err ?: pg_col_text(ps, res, i, 1, false, "a stat name", &out->names[i]);
		/* byte order, each once: the names are UNIQUE */
		if (!err && i && strcmp(out->names[i - 1], out->names[i]) >= 0)
			err = pg_damaged(ps, "the stat name '%s' is stored twice", out->names[i]);
		if (err)
			break;
		s = slot_of(t, id);
		n = t->counts[s];
		out->counts[i] = n;
		out->values[i] = malloc(n * sizeof(double));
		if (!out->values[i]) {
			err = store_fail(&ps->base, -ENOMEM, "out of memory");
			break;
		}
		memcpy(out->values[i], t->values + s * t->nr_runs, n * sizeof(double));
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
		      "SELECT * FROM (SELECT DISTINCT ON (m.name_id) n.name, m.unit,"
		      "  m.better, m.kpi, m.name_id, m.run_id FROM run_stat_meta m"
		      "  LEFT JOIN stat_name n ON n.id = m.name_id"
		      "  WHERE m.run_id = ANY($1::bigint[])"
		      "  ORDER BY m.name_id, m.run_id DESC) d"
		      " ORDER BY name COLLATE \"C\"",	/* as the samples are */
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
	return err;
}

int pg_load_samples(struct store *s, const char *testbox, const char *job,
		    const char *commit, double since, struct store_samples *out)
{
	struct pg_store *ps = to_ps(s);
	struct strbuf lit = STRBUF_INIT;
	struct slots t = { 0 };
	int64_t *ids = NULL;
	bool began;
	int err = pg_begin_read(ps, &began);

	if (err)
		return err;
	err = read_runs(ps, testbox, job, commit, since, &lit, &ids, out);
	t.nr_runs = out->nr_runs;
	if (!err && out->nr_runs && slots_grow(&t))
		err = store_fail(s, -ENOMEM, "out of memory");
	if (!err && out->nr_runs)
		err = read_values(ps, lit.buf, ids, &t);
	if (!err && t.n)
		err = read_names(ps, &t, out);
	if (!err && out->nr_runs)
		err = read_meta(ps, lit.buf, out);
	pg_end_read(ps, began);
	strbuf_release(&lit);
	slots_release(&t);
	free(ids);
	if (err)
		store_samples_release(out);
	return err;
}

/*
 * sqlite_samples.c - store_load_samples() in the SQLite backend: every
 * stat of one group's complete runs, for compare.  This is the fast path
 * of a comparison (bench/compare_speed.c: 2 commits x 10 runs x 20,000
 * stats in < 100 ms of CPU, store read included), so it reads run by run
 * along stat_value's primary key, which needs no sort (ordering 200,000
 * values by name in one query cost SQLite more than the whole
 * comparison), finds each value's stat through an id index, and reads
 * the names once at the end, by id.
 */
#define _GNU_SOURCE
#include "store/sqlite_internal.h"
#include "util/vec.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The group's runs: of a box (?1), or of a class (?1, STORE_CLASS_PREFIX stripped). */
#define OF_BOX(R) R ".testbox = ?1"
#define OF_CLASS(R) STORE_RUN_OF_CLASS(R, "?1")
#define COMPLETE_RUNS(OF)                                                          \
	"SELECT id FROM runs WHERE " OF("runs") " AND job = ?2"                      \
	" AND \"commit\" = ?3 AND status = 'complete' AND started >= ?4 ORDER BY id"
#define GROUP_STAT_META(OF)                                                        \
	"SELECT m.name_id, m.run_id, m.unit, m.better, m.kpi"                        \
	" FROM runs r JOIN run_stat_meta m ON m.run_id = r.id"                         \
	" WHERE " OF("r") " AND r.job = ?2 AND r.\"commit\" = ?3"                     \
	" AND r.status = 'complete' AND r.started >= ?4"
#define GROUP_STARTED(OF)                                                          \
	"SELECT started FROM runs WHERE " OF("runs") " AND job = ?2"                 \
	" AND \"commit\" = ?3 AND status = 'complete' AND started >= ?4"              \
	" ORDER BY started, id"

static const char *const samples_sql[NR_STMTS] = {
	[ST_COMPLETE_RUNS] = COMPLETE_RUNS(OF_BOX),
	[ST_CLASS_COMPLETE_RUNS] = COMPLETE_RUNS(OF_CLASS),
	[ST_RUN_VALUES] =
		"SELECT name_id, value FROM stat_value"	/* NULL is NaN: no sample */
		" WHERE run_id = ?1 AND value IS NOT NULL",
	[ST_NAME_RANGE] =
		"SELECT id, name FROM stat_name WHERE id BETWEEN ?1 AND ?2",
	[ST_NAME_BY_ID] = "SELECT name FROM stat_name WHERE id = ?1",
	/*
	 * The declarations of the group's complete runs in one query: a
	 * handful a run.  Not ordered here: SQLite would build a temporary
	 * b-tree to sort a handful of rows; they are sorted in C.
	 */
	[ST_GROUP_STAT_META] = GROUP_STAT_META(OF_BOX),
	[ST_CLASS_STAT_META] = GROUP_STAT_META(OF_CLASS),
	[ST_GROUP_STARTED] = GROUP_STARTED(OF_BOX),
	[ST_CLASS_STARTED] = GROUP_STARTED(OF_CLASS),
};

/* What ?1 is bound to: the box, or the class without its prefix. */
static const char *selector_key(const char *testbox)
{
	const char *cls = store_selector_class(testbox);

	return cls ? cls : testbox;
}

static sqlite3_stmt *stmt(struct sqlite_store *ss, enum stmt_id id)
{
	return ss_stmt(ss, id, samples_sql[id]);
}

/* Sort the parallel arrays by name through a permutation. */
struct by_name {
	char *name;
	double *values;
	size_t count;
};

static int cmp_by_name(const void *a, const void *b)
{
	return strcmp(((const struct by_name *)a)->name,
		      ((const struct by_name *)b)->name);
}

static int sort_samples(struct store_samples *out)
{
	struct by_name *t;

	if (out->nr < 2)
		return 0;
	t = malloc(out->nr * sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < out->nr; i++)
		t[i] = (struct by_name){ out->names[i], out->values[i], out->counts[i] };
	qsort(t, out->nr, sizeof(*t), cmp_by_name);
	for (size_t i = 0; i < out->nr; i++) {
		out->names[i] = t[i].name;
		out->values[i] = t[i].values;
		out->counts[i] = t[i].count;
	}
	free(t);
	return 0;
}

/*
 * name id -> index into the samples' arrays, open addressing: a group's
 * stats are looked up once per run, tens of thousands of times.
 */
struct id_index {
	int64_t *ids;		/* 0 = empty: SQLite never hands out rowid 0 here */
	size_t *slots;
	size_t mask;
	int64_t *slot_ids;	/* slot -> id, the other way */
	size_t *slot_run;	/* slot -> 1 + index of the last run that gave it a value */
	size_t slot_cap;
};

static int id_index_init(struct id_index *x, size_t expected)
{
	size_t size = 1024;

	while (size < 2 * expected)
		size *= 2;
	x->ids = calloc(size, sizeof(*x->ids));
	x->slots = malloc(size * sizeof(*x->slots));
	x->mask = size - 1;
	return x->ids && x->slots ? 0 : -ENOMEM;
}

static void id_index_release(struct id_index *x)
{
	free(x->ids);
	free(x->slots);
	free(x->slot_ids);
	free(x->slot_run);
}

/* The bucket holding id, or the empty one where it belongs. */
static size_t id_index_find(const struct id_index *x, int64_t id)
{
	size_t h = (size_t)((uint64_t)id * 0x9E3779B97F4A7C15u >> 32) & x->mask;

	while (x->ids[h] && x->ids[h] != id)
		h = (h + 1) & x->mask;
	return h;
}

static int id_index_grow(struct id_index *x)
{
	struct id_index bigger;
	size_t size = x->mask + 1;

	bigger.ids = calloc(2 * size, sizeof(*bigger.ids));
	bigger.slots = malloc(2 * size * sizeof(*bigger.slots));
	bigger.mask = 2 * size - 1;
	if (!bigger.ids || !bigger.slots) {
		free(bigger.ids);
		free(bigger.slots);
		return -ENOMEM;
	}
	for (size_t i = 0; i < size; i++) {
		if (x->ids[i]) {
			size_t h = id_index_find(&bigger, x->ids[i]);

			bigger.ids[h] = x->ids[i];
			bigger.slots[h] = x->slots[i];
		}
	}
	free(x->ids);
	free(x->slots);
	x->ids = bigger.ids;
	x->slots = bigger.slots;
	x->mask = bigger.mask;
	return 0;
}

#define SAMPLES_FIRST_CAP 256

/*
 * Parallel arrays of one capacity grow as vecs (util/vec.h) from it to
 * the same new one; *cap moves only when all have.
 */
static int reserve_parallel(size_t *cap, size_t need, void **const arrays[],
			    const size_t sizes[], size_t n)
{
	size_t c = *cap;

	for (size_t k = 0; k < n; k++) {
		c = *cap;
		if (vec_reserve_(arrays[k], &c, need, sizes[k]))
			return -ENOMEM;
	}
	*cap = c;
	return 0;
}

/* A new stat in the samples: its arrays, and its id in the index. */
static int add_sample_slot(struct store_samples *out, size_t *cap,
			   struct id_index *index, size_t bucket, int64_t id)
{
	void **const samples[] = {
		(void **)&out->names, (void **)&out->values, (void **)&out->counts,
	};
	static const size_t sample_sizes[] = {
		sizeof(*out->names), sizeof(*out->values), sizeof(*out->counts),
	};
	void **const slots[] = { (void **)&index->slot_ids, (void **)&index->slot_run };
	static const size_t slot_sizes[] = {
		sizeof(*index->slot_ids), sizeof(*index->slot_run),
	};
	size_t i = out->nr;

	/*
	 * Room for SAMPLES_FIRST_CAP stats at once: a run has hundreds to
	 * tens of thousands, and growing from vec's 8 takes five more
	 * reallocs whose freed chunks let glibc trim and re-fault the heap
	 * on every load (compare_speed: +20 % CPU).
	 */
	if (i >= *cap && reserve_parallel(cap, i < SAMPLES_FIRST_CAP ? SAMPLES_FIRST_CAP : i + 1,
					  samples, sample_sizes, 3))
		return -ENOMEM;
	if (i >= index->slot_cap &&
	    reserve_parallel(&index->slot_cap,
			     i < SAMPLES_FIRST_CAP ? SAMPLES_FIRST_CAP : i + 1,
			     slots, slot_sizes, 2))
		return -ENOMEM;
	index->slot_ids[i] = id;
	index->slot_run[i] = 0;
	out->names[i] = NULL;
	out->counts[i] = 0;
	out->values[i] = malloc((out->nr_runs ? out->nr_runs : 1) * sizeof(double));
	out->nr++;
	if (!out->values[i])
		return -ENOMEM;
	index->ids[bucket] = id;
	index->slots[bucket] = i;
	/* keep the table at most half full */
	return 2 * out->nr > index->mask ? id_index_grow(index) : 0;
}

/*
 * Run number r's values into the samples, new stats added as they appear.
 * The file is untrusted: each stat takes at most one value per run, so
 * counts[i] <= nr_runs, the size of values[i].
 */
static int load_run_values(struct sqlite_store *ss, size_t r, int64_t run_id,
			   struct store_samples *out, size_t *cap,
			   struct id_index *index, int64_t *min_id, int64_t *max_id)
{
	sqlite3_stmt *st = stmt(ss, ST_RUN_VALUES);
	int rc, err = 0;

	if (!st)
		return ss_prep_err(ss);
	sqlite3_bind_int64(st, 1, run_id);
	for (size_t pos = 0; (rc = sqlite3_step(st)) == SQLITE_ROW; pos++) {
		/*
		 * The checks of the fast path: through sqlite3_value, since
		 * each sqlite3_column_*() call costs as much as all of them.
		 */
		sqlite3_value *cid = sqlite3_column_value(st, 0);
		sqlite3_value *cv = sqlite3_column_value(st, 1);
		int64_t id = sqlite3_value_int64(cid);
		int vtype = sqlite3_value_type(cv);
		double value = sqlite3_value_double(cv);
		size_t h, i;

		if (sqlite3_value_type(cid) != SQLITE_INTEGER || id < 1) {
			err = col_id(ss, st, 0, "a stat value", &id);
			break;
		}
		/* perfbot stores NaN as NULL: NaN bits are a damaged value */
		if ((vtype != SQLITE_FLOAT && vtype != SQLITE_INTEGER) || isnan(value)) {
			err = ss_damaged(ss, "run %lld holds %s as the value of stat %lld",
					 (long long)run_id,
					 vtype == SQLITE_FLOAT ? "NaN" : ss_type_name(vtype),
					 (long long)id);
			break;
		}

		/* runs of one job share their names: mostly the same order */
		if (pos < out->nr && index->slot_ids[pos] == id) {
			i = pos;
			goto add;
		}
		h = id_index_find(index, id);
		if (!index->ids[h]) {
			if (add_sample_slot(out, cap, index, h, id)) {
				err = store_fail(&ss->base, -ENOMEM, "out of memory");
				break;
			}
			*min_id = out->nr == 1 || id < *min_id ? id : *min_id;
			*max_id = out->nr == 1 || id > *max_id ? id : *max_id;
			i = out->nr - 1;
		} else {
			i = index->slots[h];
		}
add:
		/* (run_id, name_id) is the key: a second row is a forged table */
		if (index->slot_run[i] == r + 1 || out->counts[i] >= out->nr_runs) {
			err = ss_damaged(ss, "run %lld holds stat %lld twice",
					 (long long)run_id, (long long)id);
			break;
		}
		index->slot_run[i] = r + 1;
		out->values[i][out->counts[i]++] = value;
	}
	if (!err && rc != SQLITE_DONE)
		err = ss_db_fail(ss, rc, "cannot read a run's stats");
	ss_done(st);
	return err;
}

static int set_sample_name(struct sqlite_store *ss, sqlite3_stmt *st, int col,
			   struct store_samples *out, size_t i, int64_t id)
{
	char row[64];

	/* a rowid met twice: a damaged b-tree */
	if (out->names[i])
		return ss_damaged(ss, "stat %lld has two names", (long long)id);
	/* the message's row only when needed: snprintf costs more than the rest */
	if (sqlite3_column_type(st, col) == SQLITE_TEXT) {
		const char *t = (const char *)sqlite3_column_text(st, col);

		if (t && strlen(t) == (size_t)sqlite3_column_bytes(st, col)) {
			out->names[i] = strdup(t);
			return out->names[i] ? 0
					     : store_fail(&ss->base, -ENOMEM, "out of memory");
		}
	}
	snprintf(row, sizeof(row), "stat %lld", (long long)id);
	return col_text(ss, st, col, false, row, &out->names[i]);
}

/*
 * The names of the loaded ids: one scan of their id range when the range
 * is dense in them (a job's stats are interned together), else one
 * lookup each.
 */
static int load_sample_names(struct sqlite_store *ss, struct store_samples *out,
			     const struct id_index *index, int64_t min_id,
			     int64_t max_id)
{
	bool scan = (uint64_t)(max_id - min_id) < 4 * (uint64_t)out->nr + 1024;
	sqlite3_stmt *st = stmt(ss, scan ? ST_NAME_RANGE : ST_NAME_BY_ID);
	int rc = SQLITE_DONE, err = 0;

	if (!st)
		return ss_prep_err(ss);
	if (scan) {
		sqlite3_bind_int64(st, 1, min_id);
		sqlite3_bind_int64(st, 2, max_id);
		while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
			sqlite3_value *cid = sqlite3_column_value(st, 0);
			int64_t id = sqlite3_value_int64(cid);
			size_t h;

			if (sqlite3_value_type(cid) != SQLITE_INTEGER || id < 1) {
				err = col_id(ss, st, 0, "a stat name", &id);
				break;
			}
			h = id_index_find(index, id);
			if (index->ids[h])
				err = set_sample_name(ss, st, 1, out, index->slots[h], id);
		}
	} else {
		for (size_t h = 0; !err && h <= index->mask; h++) {
			if (!index->ids[h])
				continue;
			sqlite3_bind_int64(st, 1, index->ids[h]);
			rc = sqlite3_step(st);
			if (rc == SQLITE_ROW)
				err = set_sample_name(ss, st, 0, out, index->slots[h],
						      index->ids[h]);
			sqlite3_reset(st);
			rc = rc == SQLITE_ROW ? SQLITE_DONE : rc;
			if (rc != SQLITE_DONE)
				break;
		}
	}
	if (!err && rc != SQLITE_DONE)
		err = ss_db_fail(ss, rc, "cannot read the stat names");
	ss_done(st);
	/* a value's name_id references stat_name: a gap is a damaged file */
	for (size_t i = 0; !err && i < out->nr; i++)
		if (!out->names[i])
			err = ss_damaged(ss, "stat %lld has values but no name",
					 (long long)index->slot_ids[i]);
	return err;
}

/* ST_GROUP_STAT_META's columns after the ids (0, 1), read first */
static const struct col meta_cols[] = {
	COL(2, COL_TEXT, struct stat_meta, unit),
	{ 3, COL_INT, offsetof(struct stat_meta, better), NULL, -1, 1 },
	COL(4, COL_BOOL, struct stat_meta, kpi),
};

/*
 * A declared stat without values in the group: its name id must still
 * name a stat, as in store_get_run().  A handful at most, so a lookup each.
 */
static int check_declared_name(struct sqlite_store *ss, const char *row,
			       int64_t name_id)
{
	sqlite3_stmt *st = stmt(ss, ST_NAME_BY_ID);
	int rc;

	if (!st)
		return ss_prep_err(ss);
	sqlite3_bind_int64(st, 1, name_id);
	rc = sqlite3_step(st);
	ss_done(st);
	if (rc == SQLITE_DONE)
		return ss_damaged(ss, "%s declares stat %lld, which has no name", row,
				  (long long)name_id);
	return rc == SQLITE_ROW ? 0 : ss_db_fail(ss, rc, "cannot read the stat names");
}

/* A stat's newest declaration in the group, its name not read yet. */
struct decl {
	int64_t name_id, run_id;
	struct stat_meta m;	/* m.name NULL */
};

struct decl_vec {
	struct decl *v;
	size_t n, cap;
};

static void decls_release(struct decl_vec *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->v[i].m.unit);
	vec_free(d);
}

/* By name id, then newest run first: the first of a name id counts. */
static int cmp_decl(const void *a, const void *b)
{
	const struct decl *x = a, *y = b;

	if (x->name_id != y->name_id)
		return x->name_id < y->name_id ? -1 : 1;
	return (x->run_id < y->run_id) - (x->run_id > y->run_id);
}

/*
 * The declarations of the group's complete runs: of each name id the
 * newest run's.  Every row read is checked, the older ones too.  Read
 * before the values, so that the few allocations it makes come before
 * the samples' many rather than among them.
 */
static int read_group_meta(struct sqlite_store *ss, const char *testbox,
			   const char *job, const char *commit,
			   struct decl_vec *decls, double since)
{
	sqlite3_stmt *st;
	size_t kept = 0;
	bool has;
	int rc, err = ss_schema_has(ss, SCHEMA_STAT_META, &has);

	if (err || !has)
		return err;
	st = stmt(ss, store_selector_class(testbox) ? ST_CLASS_STAT_META : ST_GROUP_STAT_META);
	if (!st)
		return ss_prep_err(ss);
	ss_bind_text(st, 1, selector_key(testbox));
	ss_bind_text(st, 2, job);
	ss_bind_text(st, 3, commit);
	sqlite3_bind_double(st, 4, since);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct decl d = { 0 };
		char row[64];

		err = col_id(ss, st, 1, "a stat declaration", &d.run_id);
		if (err)
			break;
		snprintf(row, sizeof(row), "run %lld", (long long)d.run_id);
		err = col_id(ss, st, 0, row, &d.name_id);
		if (!err)
			err = ss_read_cols(ss, st, row, meta_cols, ARRAY_LEN(meta_cols), &d.m);
		if (!err && vec_push(decls, d))
			err = store_fail(&ss->base, -ENOMEM, "out of memory");
		if (err) {
			free(d.m.unit);
			break;
		}
	}
	if (!err && rc != SQLITE_DONE)
		err = ss_db_fail(ss, rc, "cannot read the declared stats");
	ss_done(st);
	if (err)
		return err;
	if (decls->n > 1)
		qsort(decls->v, decls->n, sizeof(*decls->v), cmp_decl);
	for (size_t i = 0; i < decls->n; i++) {
		struct decl *d = &decls->v[i];

		if (kept && decls->v[kept - 1].name_id == d->name_id) {
			/* (run_id, name_id) is the key: a second row is a forged table */
			if (decls->v[i - 1].run_id == d->run_id)
				return ss_damaged(ss, "run %lld declares stat %lld twice",
						  (long long)d->run_id,
						  (long long)d->name_id);
			free(d->m.unit);	/* an older run's */
			d->m.unit = NULL;
			continue;
		}
		decls->v[kept++] = *d;
		if (kept - 1 != i)
			d->m.unit = NULL;	/* moved */
	}
	decls->n = kept;
	return 0;
}

/*
 * out->meta from the declarations: those of loaded stats (the index maps
 * a name id to its entry, whose name is read), sorted by name.  The name
 * id of one without values here must still name a stat.
 */
static int resolve_group_meta(struct sqlite_store *ss, struct store_samples *out,
			      const struct id_index *index, struct decl_vec *decls)
{
	for (size_t i = 0; i < decls->n; i++) {
		struct decl *d = &decls->v[i];
		size_t h = id_index_find(index, d->name_id);
		int err;

		if (!index->ids[h]) {
			char row[64];

			snprintf(row, sizeof(row), "run %lld", (long long)d->run_id);
			err = check_declared_name(ss, row, d->name_id);
			if (err)
				return err;
			continue;
		}
		d->m.name = strdup(out->names[index->slots[h]]);
		if (!d->m.name || vec_push(&out->meta, d->m)) {
			free(d->m.name);
			return store_fail(&ss->base, -ENOMEM, "out of memory");
		}
		d->m.unit = NULL;	/* out->meta's now */
	}
	sqlite_sort_meta(&out->meta);
	return 0;
}

/*
 * When the group's complete runs started, ascending: what tells runs
 * taken A B A B from runs taken one commit after the other
 * (stats/compare.h, compare_order()).  One small query a group.
 */
static int read_group_started(struct sqlite_store *ss, const char *testbox,
			      const char *job, const char *commit, double since,
			      struct store_samples *out)
{
	sqlite3_stmt *st = stmt(ss, store_selector_class(testbox) ? ST_CLASS_STARTED
								  : ST_GROUP_STARTED);
	size_t n = 0;
	int rc, err = 0;

	if (!st)
		return ss_prep_err(ss);
	out->started = malloc((out->nr_runs ? out->nr_runs : 1) * sizeof(double));
	if (!out->started)
		return store_fail(&ss->base, -ENOMEM, "out of memory");
	ss_bind_text(st, 1, selector_key(testbox));
	ss_bind_text(st, 2, job);
	ss_bind_text(st, 3, commit);
	sqlite3_bind_double(st, 4, since);
	while (!err && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		/* the runs were counted in this transaction: never more now */
		if (n >= out->nr_runs)
			err = ss_damaged(ss, "the runs of commit '%s' changed while read", commit);
		else
			err = col_real(ss, st, 0, false, "a run's start", &out->started[n++]);
	}
	if (!err && rc != SQLITE_DONE)
		err = ss_db_fail(ss, rc, "cannot list the runs");
	ss_done(st);
	if (!err && n != out->nr_runs)
		err = ss_damaged(ss, "the runs of commit '%s' changed while read", commit);
	return err;
}

int sqlite_load_samples(struct store *s, const char *testbox, const char *job,
			const char *commit, double since, struct store_samples *out)
{
	struct sqlite_store *ss = to_ss(s);
	struct id_index index = { 0 };
	struct id_vec runs = { 0 };
	struct decl_vec decls = { 0 };
	int64_t min_id = 0, max_id = 0;
	sqlite3_stmt *st;
	size_t cap = 0;
	int err;

	err = ss_begin(ss, false);
	if (err)
		return err;
	st = stmt(ss, store_selector_class(testbox) ? ST_CLASS_COMPLETE_RUNS : ST_COMPLETE_RUNS);
	/* ?4 first: sqlite_group_ids() binds the group and steps */
	if (st)
		sqlite3_bind_double(st, 4, since);
	err = st ? sqlite_group_ids(ss, st, testbox, job, commit, true, &runs)
		 : ss_prep_err(ss);
	out->nr_runs = runs.n;
	if (!err && out->nr_runs)
		err = read_group_meta(ss, testbox, job, commit, &decls, since);
	if (!err && out->nr_runs)
		err = read_group_started(ss, testbox, job, commit, since, out);
	if (err || !out->nr_runs)
		goto out;
	if (id_index_init(&index, 1024)) {
		err = store_fail(s, -ENOMEM, "out of memory");
		goto out;
	}
	for (size_t r = 0; !err && r < out->nr_runs; r++)
		err = load_run_values(ss, r, runs.v[r], out, &cap, &index, &min_id,
				      &max_id);
	if (!err && out->nr)
		err = load_sample_names(ss, out, &index, min_id, max_id);
	/* before the sort: the index points at the entries as loaded */
	if (!err && out->nr)
		err = resolve_group_meta(ss, out, &index, &decls);
	if (!err && sort_samples(out))
		err = store_fail(s, -ENOMEM, "out of memory");
	/* names are UNIQUE: two ids of one name would be two stats of one name */
	for (size_t i = 1; !err && i < out->nr; i++)
		if (!strcmp(out->names[i - 1], out->names[i]))
			err = ss_damaged(ss, "the stat name '%s' is stored twice",
					 out->names[i]);
out:
	ss_rollback(ss);	/* ends the read transaction */
	id_index_release(&index);
	vec_free(&runs);
	decls_release(&decls);
	if (err)
		store_samples_release(out);
	return err;
}


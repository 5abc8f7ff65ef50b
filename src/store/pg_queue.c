/*
 * pg_queue.c - the fleet's queue (store.h "the fleet's queue"): items
 * submitted, claimed with FOR UPDATE SKIP LOCKED, leased and renewed,
 * finished with their run in one transaction fenced by the attempt
 * number, failed, handed back, reaped; the boxes that take them, and the
 * LISTEN/NOTIFY that wakes idle workers.  The models are pgmq, River,
 * Oban, graphile-worker and Solid Queue (docs/fleet.md).
 *
 * Every time is the server's clock (PGQ_NOW): the boxes' clocks may
 * disagree, a lease must not.  Most operations are one statement (a
 * data-modifying WITH), so one round trip and atomic without BEGIN;
 * finish is a transaction because it shares pg_insert_run().
 *
 * Tags travel as one comma-joined text (string_to_array): a tag holds
 * no comma (refused here, and by the --needs and --tags parsers).
 */
#define _GNU_SOURCE
#include "store/pg_internal.h"
#include "util/strbuf.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PGQ_NOW "extract(epoch FROM clock_timestamp())::double precision"
#define PGQ_CHANNEL "perfbot_queue"
#define PGQ_STR_(x) #x
#define PGQ_STR(x) PGQ_STR_(x)

/* What an item is read as: read_item()'s columns, in order. */
#define ITEM_COLS                                                                  \
	"id, batch, state, priority, job, testcase, job_text, repo, \"commit\","     \
	" needs, coalesce(min_cpus, 0), coalesce(min_mem_mb, 0), arch, testbox,"      \
	" array_to_string(tags, ','), attempt, max_attempts, box, lease_until,"       \
	" coalesce(run_id, 0), reasons, created, updated, class"

/*
 * An attempt failed or its lease expired: queued again while attempts
 * are left, else failed; the reason line and the box it failed on kept.
 * WHY is an SQL expression of the row (and parameters).
 */
#define FAIL_SET(WHY)                                                              \
	"state = CASE WHEN attempt < max_attempts THEN 'queued' ELSE 'failed' END,"   \
	" reasons = reasons || format('attempt %s on %s: %s', attempt, box, " WHY ")" \
	" || E'\\n', failed_on = failed_on || box, lease_until = NULL,"               \
	" updated = " PGQ_NOW

/* The boxes' counts and the workers woken, after FAIL_SET's UPDATE named i. */
#define FAIL_AFTER                                                                 \
	", b AS (UPDATE queue_box SET failed = failed + 1 FROM i"                     \
	"	WHERE queue_box.testbox = i.box),"                                   \
	" n AS (SELECT pg_notify('" PGQ_CHANNEL "', 'fail') FROM i"                   \
	"	WHERE i.state = 'queued' LIMIT 1)"                                  \
	" SELECT i.state, (SELECT count(*) FROM n) FROM i"

static char **split_tags(const char *joined)
{
	size_t n = 1;
	char **v, *copy;

	if (!joined || !*joined)
		return NULL;
	for (const char *p = joined; *p; p++)
		n += *p == ',';
	v = calloc(n + 1, sizeof(*v));
	copy = strdup(joined);
	if (!v || !copy) {
		free(v);
		free(copy);
		return NULL;
	}
	n = 0;
	for (char *save = NULL, *t = strtok_r(copy, ",", &save); t;
	     t = strtok_r(NULL, ",", &save))
		if (!(v[n++] = strdup(t)))
			break;
	free(copy);
	return v;
}

static int tags_param(struct pg_store *ps, char *const *tags, struct strbuf *sb)
{
	for (size_t i = 0; tags && tags[i]; i++) {
		if (!*tags[i] || strchr(tags[i], ','))
			return store_fail(&ps->base, -EINVAL,
					  "tag '%s': a tag is a word without a comma", tags[i]);
		if (i)
			strbuf_addch(sb, ',');
		strbuf_addstr(sb, tags[i]);
	}
	return strbuf_error(sb) ? store_fail(&ps->base, -ENOMEM, "out of memory") : 0;
}

/* An integer array element, 0 as NULL where 0 means "anything" (the needs). */
static void array_int(struct strbuf *sb, int64_t v, bool zero_is_null)
{
	if (zero_is_null && !v)
		pg_array_text(sb, NULL);
	else
		pg_array_int(sb, v);
}

static int read_item(struct pg_store *ps, const PGresult *res, int row,
		     struct store_queue_item *it)
{
	char *tags = NULL;
	int err;

	memset(it, 0, sizeof(*it));
	if ((err = pg_col_int64(ps, res, row, 0, 1, INT64_MAX, "queue_item.id", &it->id)) ||
	    (err = pg_col_int64(ps, res, row, 1, 0, INT64_MAX, "queue_item.batch", &it->batch)) ||
	    (err = pg_col_text(ps, res, row, 2, false, "queue_item.state", &it->state)) ||
	    (err = pg_col_int(ps, res, row, 3, INT32_MIN, INT32_MAX, "queue_item.priority",
			      &it->priority)) ||
	    (err = pg_col_text(ps, res, row, 4, false, "queue_item.job", &it->job)) ||
	    (err = pg_col_text(ps, res, row, 5, false, "queue_item.testcase", &it->testcase)) ||
	    (err = pg_col_text(ps, res, row, 6, false, "queue_item.job_text", &it->job_text)) ||
	    (err = pg_col_text(ps, res, row, 7, true, "queue_item.repo", &it->repo)) ||
	    (err = pg_col_text(ps, res, row, 8, true, "queue_item.commit", &it->commit)) ||
	    (err = pg_col_text(ps, res, row, 9, false, "queue_item.needs", &it->needs)) ||
	    (err = pg_col_int(ps, res, row, 10, 0, INT32_MAX, "queue_item.min_cpus",
			      &it->parsed.min_cpus)) ||
	    (err = pg_col_int64(ps, res, row, 11, 0, INT64_MAX, "queue_item.min_mem_mb",
				&it->parsed.min_mem_mb)) ||
	    (err = pg_col_text(ps, res, row, 12, true, "queue_item.arch", &it->parsed.arch)) ||
	    (err = pg_col_text(ps, res, row, 13, true, "queue_item.testbox",
			       &it->parsed.testbox)) ||
	    (err = pg_col_text(ps, res, row, 14, false, "queue_item.tags", &tags)) ||
	    (err = pg_col_int(ps, res, row, 15, 0, INT32_MAX, "queue_item.attempt",
			      &it->attempt)) ||
	    (err = pg_col_int(ps, res, row, 16, 0, INT32_MAX, "queue_item.max_attempts",
			      &it->max_attempts)) ||
	    (err = pg_col_text(ps, res, row, 17, true, "queue_item.box", &it->box)) ||
	    (err = pg_col_real(ps, res, row, 18, true, "queue_item.lease_until",
			       &it->lease_until)) ||
	    (err = pg_col_int64(ps, res, row, 19, 0, INT64_MAX, "queue_item.run_id",
				&it->run_id)) ||
	    (err = pg_col_text(ps, res, row, 20, false, "queue_item.reasons", &it->reasons)) ||
	    (err = pg_col_real(ps, res, row, 21, false, "queue_item.created", &it->created)) ||
	    (err = pg_col_real(ps, res, row, 22, false, "queue_item.updated", &it->updated)) ||
	    (err = pg_col_text(ps, res, row, 23, true, "queue_item.class", &it->parsed.class)))
		goto out;
	if (*tags && !(it->parsed.tags = split_tags(tags)))
		err = store_fail(&ps->base, -ENOMEM, "out of memory");
out:
	free(tags);
	if (err)
		store_queue_item_release(it);
	return err;
}

/*
 * Why attempt (id, attempt) could not act: -ENOENT (no such item) or
 * -ESTALE naming what holds the item now.
 */
static int fenced_out(struct pg_store *ps, int64_t id, int attempt)
{
	char idb[PG_INT_BUF];
	const char *params[] = { pg_int_param(idb, id) };
	PGresult *res;
	char *state = NULL, *box = NULL;
	int now_attempt, err;

	err = pg_exec(ps, "cannot read the queue",
		      "SELECT state, attempt, box FROM queue_item WHERE id = $1", 1, params, &res);
	if (err)
		return err;
	if (PQntuples(res) == 0) {
		PQclear(res);
		return store_fail(&ps->base, -ENOENT, "no item %" PRId64 " in the queue of %s",
				  id, ps->shown);
	}
	if (!(err = pg_col_text(ps, res, 0, 0, false, "queue_item.state", &state)) &&
	    !(err = pg_col_int(ps, res, 0, 1, 0, INT32_MAX, "queue_item.attempt",
			       &now_attempt)) &&
	    !(err = pg_col_text(ps, res, 0, 2, true, "queue_item.box", &box)))
		err = store_fail(&ps->base, -ESTALE,
				 "item %" PRId64 ": attempt %d is fenced out (the item is %s,"
				 " attempt %d%s%s)", id, attempt, state, now_attempt,
				 box ? " on " : "", box ? box : "");
	PQclear(res);
	free(state);
	free(box);
	return err;
}

int pg_queue_submit(struct store *s, const struct store_queue_item *items,
			   size_t nr, int64_t *batch, int64_t *ids)
{
	struct pg_store *ps = to_ps(s);
	/* one array per column: 10,000 items are one statement, one round trip */
	enum { PRIO, JOB, TESTCASE, TEXT, REPO, COMMIT, NEEDS, CPUS, MEM, ARCH, BOX, TAGS,
	       MAXATT, CLASS, NCOLS };
	struct strbuf col[NCOLS], tags = STRBUF_INIT;
	const char *params[NCOLS];
	PGresult *res = NULL;
	int err = pg_check_writer(ps);

	if (err)
		return err;
	if (!nr)
		return store_fail(s, -EINVAL, "nothing to queue");
	for (int c = 0; c < NCOLS; c++)
		strbuf_init(&col[c]);
	for (size_t i = 0; i < nr && !err; i++) {
		const struct store_queue_item *it = &items[i];

		if (!it->job || !it->testcase || !it->job_text) {
			err = store_fail(s, -EINVAL, "an item needs a job, a testcase and its text");
			break;
		}
		strbuf_reset(&tags);
		if ((err = tags_param(ps, it->parsed.tags, &tags)))
			break;
		array_int(&col[PRIO], it->priority, false);
		pg_array_text(&col[JOB], it->job);
		pg_array_text(&col[TESTCASE], it->testcase);
		pg_array_text(&col[TEXT], it->job_text);
		pg_array_text(&col[REPO], it->repo);
		pg_array_text(&col[COMMIT], it->commit);
		pg_array_text(&col[NEEDS], it->needs ? it->needs : "");
		array_int(&col[CPUS], it->parsed.min_cpus, true);
		array_int(&col[MEM], it->parsed.min_mem_mb, true);
		pg_array_text(&col[ARCH], it->parsed.arch);
		pg_array_text(&col[BOX], it->parsed.testbox);
		pg_array_text(&col[TAGS], tags.buf);
		array_int(&col[MAXATT], it->max_attempts > 0 ? it->max_attempts
							     : STORE_QUEUE_MAX_ATTEMPTS, false);
		pg_array_text(&col[CLASS], it->parsed.class);
	}
	for (int c = 0; c < NCOLS; c++) {
		params[c] = pg_array_end(&col[c]);
		if (!err && !params[c])
			err = store_fail(s, -ENOMEM, "out of memory");
	}
	if (!err)
		err = pg_exec(ps, "cannot queue the items",
			      "WITH b AS (SELECT nextval('queue_batch') AS batch),"
			      " ins AS (INSERT INTO queue_item (batch, priority, job, testcase,"
			      "	job_text, repo, \"commit\", needs, min_cpus, min_mem_mb, arch,"
			      "	testbox, tags, max_attempts, class, created, updated)"
			      " SELECT b.batch, u.prio, u.job, u.testcase, u.text, u.repo, u.sha,"
			      "	u.needs, u.cpus, u.mem, u.arch, u.box, string_to_array(u.tags, ','),"
			      "	u.maxatt, u.class, " PGQ_NOW ", " PGQ_NOW
			      " FROM b, unnest($1::int[], $2::text[], $3::text[], $4::text[],"
			      "	$5::text[], $6::text[], $7::text[], $8::int[], $9::bigint[],"
			      "	$10::text[], $11::text[], $12::text[], $13::int[], $14::text[])"
			      "	WITH ORDINALITY AS u(prio, job, testcase, text, repo, sha, needs,"
			      "	cpus, mem, arch, box, tags, maxatt, class, ord)"
			      " ORDER BY u.ord RETURNING id, batch),"
			      " n AS (SELECT pg_notify('" PGQ_CHANNEL "', 'submit'))"
			      " SELECT ins.id, ins.batch FROM ins, n ORDER BY ins.id",
			      NCOLS, params, &res);
	if (!err && (size_t)PQntuples(res) != nr)
		err = pg_damaged(ps, "%d items queued of %zu", PQntuples(res), nr);
	/* ids ascend in the order inserted, which is the items' (ORDER BY u.ord) */
	for (size_t i = 0; !err && i < nr; i++) {
		int64_t id;

		err = pg_col_int64(ps, res, (int)i, 0, 1, INT64_MAX, "queue_item.id", &id);
		if (!err && ids)
			ids[i] = id;
		if (!err && batch && i == 0)
			err = pg_col_int64(ps, res, 0, 1, 0, INT64_MAX, "queue_item.batch", batch);
	}
	PQclear(res);
	for (int c = 0; c < NCOLS; c++)
		strbuf_release(&col[c]);
	strbuf_release(&tags);
	return err;
}

/*
 * -EEXIST when a class is called name (what: what else wants the name),
 * the error naming it.  Without a lock: a class declared meanwhile under
 * a box's name is refused by the declaration's own check.
 */
static int class_named(struct pg_store *ps, const char *name, const char *what)
{
	const char *params[] = { name };
	PGresult *res;
	int err = pg_exec(ps, "cannot read the classes",
			  "SELECT 1 FROM queue_class WHERE class = $1 LIMIT 1", 1, params, &res);

	if (!err && PQntuples(res))
		err = store_fail(&ps->base, -EEXIST, "%s %s: a class of boxes has that name"
				 " (perfbot queue class)", what, name);
	PQclear(res);
	return err;
}

int pg_box_register(struct store *s, const struct store_box *b)
{
	struct pg_store *ps = to_ps(s);
	struct strbuf tags = STRBUF_INIT;
	char cpus[PG_INT_BUF], mem[PG_INT_BUF];
	int err = pg_check_writer(ps);

	if (!err && (!b->testbox || !b->machine || !b->arch || !b->kernel))
		err = store_fail(s, -EINVAL, "a box needs a name, a machine line, an arch"
				 " and a kernel");
	if (!err)
		err = tags_param(ps, b->tags, &tags);
	if (!err)
		err = class_named(ps, b->testbox, "test box");
	if (!err) {
		const char *params[] = {
			b->testbox, b->machine, pg_int_param(cpus, b->cpus),
			pg_int_param(mem, b->mem_mb), b->arch, b->kernel, tags.buf,
		};

		err = pg_exec(ps, "cannot register the box",
			      "INSERT INTO queue_box (testbox, machine, cpus, mem_mb, arch, kernel,"
			      "	tags, seen) VALUES ($1, $2, $3, $4, $5, $6,"
			      "	string_to_array($7, ','), " PGQ_NOW ")"
			      " ON CONFLICT (testbox) DO UPDATE SET machine = excluded.machine,"
			      "	cpus = excluded.cpus, mem_mb = excluded.mem_mb,"
			      "	arch = excluded.arch, kernel = excluded.kernel,"
			      "	tags = excluded.tags, seen = excluded.seen",
			      7, params, NULL);
	}
	strbuf_release(&tags);
	return err;
}

/* Why a claim found nothing: the box quarantined or unknown, else -ENOENT. */
static int claim_none(struct pg_store *ps, const char *testbox)
{
	const char *params[] = { testbox };
	PGresult *res;
	char *state = NULL, *why = NULL;
	int err = pg_exec(ps, "cannot read the boxes",
			  "SELECT state, why FROM queue_box WHERE testbox = $1", 1, params, &res);

	if (err)
		return err;
	if (PQntuples(res) == 0)
		err = store_fail(&ps->base, -ESRCH, "box %s is not registered in %s", testbox,
				 ps->shown);
	else if (!(err = pg_col_text(ps, res, 0, 0, false, "queue_box.state", &state)) &&
		 !(err = pg_col_text(ps, res, 0, 1, true, "queue_box.why", &why)))
		err = strcmp(state, "quarantined") ? -ENOENT
			: store_fail(&ps->base, -EPERM, "box %s is quarantined: %s (perfbot"
				     " queue release %s)", testbox, why ? why : "?", testbox);
	PQclear(res);
	free(state);
	free(why);
	return err;
}

int pg_queue_claim(struct store *s, const char *testbox, char *const *testcases,
			  double lease_s, struct store_queue_item *out)
{
	struct pg_store *ps = to_ps(s);
	struct strbuf tc = STRBUF_INIT;
	char lease[PG_REAL_BUF];
	PGresult *res = NULL;
	int err = pg_check_writer(ps);

	if (err)
		return err;
	if (!(lease_s > 0))
		return store_fail(s, -EINVAL, "a lease must be longer than 0 s");
	for (size_t i = 0; testcases && testcases[i]; i++)
		pg_array_text(&tc, testcases[i]);
	if (!pg_array_end(&tc)) {
		strbuf_release(&tc);
		return store_fail(s, -ENOMEM, "out of memory");
	}
	{
		const char *params[] = { testbox, pg_real_param(lease, lease_s),
					 testcases ? tc.buf : NULL };

		/*
		 * The partial index queue_item_claim gives the queued items in
		 * order; SKIP LOCKED passes over those another worker is
		 * claiming this instant, so claims never wait on each other.
		 */
		err = pg_exec(ps, "cannot claim an item",
			      "WITH pick AS (SELECT q.id AS pick_id FROM queue_item q, queue_box b"
			      "	WHERE b.testbox = $1 AND b.state = 'active' AND q.state = 'queued'"
			      "	AND (q.min_cpus IS NULL OR q.min_cpus <= b.cpus)"
			      "	AND (q.min_mem_mb IS NULL OR q.min_mem_mb <= b.mem_mb)"
			      "	AND (q.arch IS NULL OR q.arch = b.arch)"
			      "	AND (q.testbox IS NULL OR q.testbox = b.testbox)"
			      "	AND (q.class IS NULL OR q.class = (SELECT c.class FROM queue_class c"
			      "		WHERE c.testbox = b.testbox))"
			      "	AND q.tags <@ b.tags"
			      "	AND ($3::text[] IS NULL OR q.testcase = ANY ($3::text[]))"
			      "	ORDER BY q.priority DESC, q.id LIMIT 1"
			      "	FOR UPDATE OF q SKIP LOCKED),"
			      " seen AS (UPDATE queue_box SET seen = " PGQ_NOW
			      "	WHERE testbox = $1 AND EXISTS (SELECT 1 FROM pick))"
			      " UPDATE queue_item SET state = 'running', attempt = attempt + 1,"
			      "	box = $1, lease_until = " PGQ_NOW " + $2::double precision,"
			      "	updated = " PGQ_NOW
			      " FROM pick WHERE queue_item.id = pick.pick_id RETURNING " ITEM_COLS,
			      3, params, &res);
	}
	strbuf_release(&tc);
	if (err)
		return err;
	if (PQntuples(res) == 1)
		err = read_item(ps, res, 0, out);
	else
		err = claim_none(ps, testbox);
	PQclear(res);
	return err;
}

int pg_queue_heartbeat(struct store *s, int64_t id, int attempt, double lease_s)
{
	struct pg_store *ps = to_ps(s);
	char idb[PG_INT_BUF], att[PG_INT_BUF], lease[PG_REAL_BUF];
	const char *params[] = { pg_int_param(idb, id), pg_int_param(att, attempt),
				 pg_real_param(lease, lease_s) };
	PGresult *res;
	int64_t n;
	int err = pg_check_writer(ps);

	if (!err)
		err = pg_exec(ps, "cannot renew the lease",
			      "WITH i AS (UPDATE queue_item SET lease_until = " PGQ_NOW
			      "	+ $3::double precision, updated = " PGQ_NOW
			      "	WHERE id = $1 AND attempt = $2 AND state = 'running' RETURNING box),"
			      " b AS (UPDATE queue_box SET seen = " PGQ_NOW " FROM i"
			      "	WHERE queue_box.testbox = i.box)"
			      " SELECT count(*) FROM i", 3, params, &res);
	if (err)
		return err;
	err = pg_col_int64(ps, res, 0, 0, 0, 1, "the leases renewed", &n);
	PQclear(res);
	if (!err && !n)
		err = fenced_out(ps, id, attempt);
	return err;
}

/*
 * Inside finish's transaction: the item done with its run; the box's
 * count, and the boxes that failed it lose one (quarantined at
 * STORE_QUARANTINE_LOST).
 */
static int mark_done(struct pg_store *ps, const char *idp, int64_t run_id)
{
	char runb[PG_INT_BUF], lost[PG_INT_BUF];
	const char *params[] = { idp, pg_int_param(runb, run_id),
				 pg_int_param(lost, STORE_QUARANTINE_LOST) };

	return pg_exec(ps, "cannot mark the item done",
		       "WITH d AS (UPDATE queue_item SET state = 'done', run_id = $2,"
		       "	lease_until = NULL, updated = " PGQ_NOW
		       "	WHERE id = $1 RETURNING box, failed_on),"
		       " mine AS (UPDATE queue_box SET done = done + 1, seen = " PGQ_NOW
		       "	FROM d WHERE queue_box.testbox = d.box)"
		       " UPDATE queue_box SET lost = lost + 1,"
		       "	state = CASE WHEN lost + 1 >= $3::bigint THEN 'quarantined'"
		       "		ELSE state END,"
		       "	why = CASE WHEN lost + 1 >= $3::bigint AND state = 'active'"
		       "		THEN format('%s items failed here that other boxes completed"
		       " (the last: item %s, done on %s)', lost + 1, $1, d.box) ELSE why END"
		       " FROM d WHERE queue_box.testbox = ANY (d.failed_on)"
		       "	AND queue_box.testbox <> d.box",
		       3, params, NULL);
}

int pg_queue_finish(struct store *s, int64_t id, int attempt,
			   const struct run_record *r, int64_t *run_id)
{
	struct pg_store *ps = to_ps(s);
	char idb[PG_INT_BUF];
	const char *params[] = { pg_int_param(idb, id) };
	PGresult *res = NULL;
	char *state = NULL;
	int now_attempt;
	int64_t stored = 0;
	int err = pg_check_writer(ps);

	if (err)
		return err;
	if ((err = pg_begin(ps)))
		return err;
	/* the fence: the row locked, so no reaper or claim moves it under us */
	err = pg_exec(ps, "cannot read the item",
		      "SELECT state, attempt, coalesce(run_id, 0) FROM queue_item"
		      " WHERE id = $1 FOR UPDATE", 1, params, &res);
	if (err)
		goto fail;
	if (PQntuples(res) == 0) {
		pg_rollback(ps);
		PQclear(res);
		return fenced_out(ps, id, attempt);
	}
	if ((err = pg_col_text(ps, res, 0, 0, false, "queue_item.state", &state)) ||
	    (err = pg_col_int(ps, res, 0, 1, 0, INT32_MAX, "queue_item.attempt",
			      &now_attempt)) ||
	    (err = pg_col_int64(ps, res, 0, 2, 0, INT64_MAX, "queue_item.run_id", &stored)))
		goto fail;
	PQclear(res);
	res = NULL;
	if (now_attempt == attempt && !strcmp(state, "done") && stored) {
		/* this attempt's COMMIT went through and its answer was lost */
		free(state);
		pg_rollback(ps);
		if (run_id)
			*run_id = stored;
		return 0;
	}
	if (now_attempt != attempt || strcmp(state, "running")) {
		free(state);
		pg_rollback(ps);
		return fenced_out(ps, id, attempt);
	}
	free(state);
	state = NULL;
	if ((err = pg_insert_run(ps, r, &stored)) || (err = mark_done(ps, idb, stored)))
		goto fail;
	if ((err = pg_commit(ps, "cannot commit the run")))
		return err;
	if (run_id)
		*run_id = stored;
	return 0;
fail:
	PQclear(res);
	free(state);
	pg_rollback(ps);
	return err;
}

/* A FAIL_SET statement's answer: the new state (requeued?), or fenced out. */
static int fail_result(struct pg_store *ps, PGresult *res, int64_t id, int attempt,
		       bool *requeued)
{
	char *state = NULL;
	int err;

	if (PQntuples(res) == 0)
		return fenced_out(ps, id, attempt);
	err = pg_col_text(ps, res, 0, 0, false, "queue_item.state", &state);
	if (!err && requeued)
		*requeued = !strcmp(state, "queued");
	free(state);
	return err;
}

int pg_queue_fail(struct store *s, int64_t id, int attempt, const char *why,
			 bool *requeued)
{
	struct pg_store *ps = to_ps(s);
	char idb[PG_INT_BUF], att[PG_INT_BUF];
	const char *params[] = { pg_int_param(idb, id), pg_int_param(att, attempt),
				 why && *why ? why : "(no reason given)" };
	PGresult *res;
	int err = pg_check_writer(ps);

	if (!err)
		err = pg_exec(ps, "cannot fail the item",
			      "WITH i AS (UPDATE queue_item SET " FAIL_SET("$3::text")
			      "	WHERE id = $1 AND attempt = $2 AND state = 'running'"
			      "	RETURNING state, box)" FAIL_AFTER, 3, params, &res);
	if (err)
		return err;
	err = fail_result(ps, res, id, attempt, requeued);
	PQclear(res);
	return err;
}

int pg_queue_hand_back(struct store *s, int64_t id, int attempt)
{
	struct pg_store *ps = to_ps(s);
	char idb[PG_INT_BUF], att[PG_INT_BUF];
	const char *params[] = { pg_int_param(idb, id), pg_int_param(att, attempt) };
	PGresult *res;
	int err = pg_check_writer(ps);

	/* attempt keeps its number (the fence); max_attempts grows instead */
	if (!err)
		err = pg_exec(ps, "cannot hand the item back",
			      "WITH i AS (UPDATE queue_item SET state = 'queued',"
			      "	max_attempts = max_attempts + 1, lease_until = NULL,"
			      "	updated = " PGQ_NOW
			      "	WHERE id = $1 AND attempt = $2 AND state = 'running' RETURNING id),"
			      " n AS (SELECT pg_notify('" PGQ_CHANNEL "', 'hand-back') FROM i)"
			      " SELECT count(*) FROM i, n", 2, params, &res);
	if (err)
		return err;
	if (PQntuples(res) != 1 || !strcmp(PQgetvalue(res, 0, 0), "0"))
		err = fenced_out(ps, id, attempt);
	PQclear(res);
	return err;
}

int pg_queue_reap(struct store *s, size_t *nr)
{
	struct pg_store *ps = to_ps(s);
	PGresult *res;
	int err = pg_check_writer(ps);

	if (!err)
		err = pg_exec(ps, "cannot reap expired leases",
			      "WITH i AS (UPDATE queue_item SET "
			      FAIL_SET("'lease expired on ' || box")
			      "	WHERE id IN (SELECT id FROM queue_item WHERE state = 'running'"
			      "	AND lease_until < " PGQ_NOW " FOR UPDATE SKIP LOCKED)"
			      "	RETURNING state, box)" FAIL_AFTER, 0, NULL, &res);
	if (err)
		return err;
	if (nr)
		*nr = (size_t)PQntuples(res);
	PQclear(res);
	return 0;
}

static int read_items(struct pg_store *ps, PGresult *res, struct store_queue_item **out,
		      size_t *nr)
{
	size_t n = (size_t)PQntuples(res);
	int err = 0;

	*out = n ? calloc(n, sizeof(**out)) : NULL;
	if (n && !*out)
		return store_fail(&ps->base, -ENOMEM, "out of memory");
	for (size_t i = 0; i < n && !err; i++)
		err = read_item(ps, res, (int)i, &(*out)[i]);
	if (err) {
		store_queue_items_release(*out, n);
		*out = NULL;
		return err;
	}
	*nr = n;
	return 0;
}

int pg_queue_list(struct store *s, const char *state, struct store_queue_item **out,
			 size_t *nr)
{
	struct pg_store *ps = to_ps(s);
	const char *params[] = { state };
	PGresult *res;
	int err = pg_exec(ps, "cannot read the queue",
			  "SELECT " ITEM_COLS " FROM queue_item"
			  " WHERE $1::text IS NULL OR state = $1 ORDER BY id", 1, params, &res);

	if (err)
		return err;
	err = read_items(ps, res, out, nr);
	PQclear(res);
	return err;
}

int pg_queue_get(struct store *s, int64_t id, struct store_queue_item *out)
{
	struct pg_store *ps = to_ps(s);
	char idb[PG_INT_BUF];
	const char *params[] = { pg_int_param(idb, id) };
	PGresult *res;
	int err = pg_exec(ps, "cannot read the queue",
			  "SELECT " ITEM_COLS " FROM queue_item WHERE id = $1", 1, params, &res);

	if (err)
		return err;
	if (PQntuples(res) == 0)
		err = store_fail(s, -ENOENT, "no item %" PRId64 " in the queue of %s", id,
				 ps->shown);
	else
		err = read_item(ps, res, 0, out);
	PQclear(res);
	return err;
}

/*
 * cancel and retry: one transition from the states listed in `from`;
 * an item in another state is -EINVAL naming it.
 */
static int transition(struct pg_store *ps, int64_t id, const char *sql, const char *verb,
		      const char *from)
{
	char idb[PG_INT_BUF];
	const char *params[] = { pg_int_param(idb, id) };
	struct store_queue_item it;
	PGresult *res;
	int err = pg_check_writer(ps);

	if (!err)
		err = pg_exec(ps, verb, sql, 1, params, &res);
	if (err)
		return err;
	if (PQntuples(res) == 1) {
		PQclear(res);
		return 0;
	}
	PQclear(res);
	if ((err = pg_queue_get(&ps->base, id, &it)))
		return err;
	err = store_fail(&ps->base, -EINVAL, "item %" PRId64 " is %s: only %s items can be"
			 " %s", id, it.state, from, verb);
	store_queue_item_release(&it);
	return err;
}

int pg_queue_cancel(struct store *s, int64_t id)
{
	/* a running attempt finds out at its next heartbeat or at its finish */
	return transition(to_ps(s), id,
			  "UPDATE queue_item SET state = 'cancelled', lease_until = NULL,"
			  " updated = " PGQ_NOW
			  " WHERE id = $1 AND state IN ('queued', 'running') RETURNING id",
			  "cancelled", "queued or running");
}

int pg_queue_retry(struct store *s, int64_t id)
{
	return transition(to_ps(s), id,
			  "WITH i AS (UPDATE queue_item SET state = 'queued', lease_until = NULL,"
			  " max_attempts = attempt + " PGQ_STR(STORE_QUEUE_MAX_ATTEMPTS) ","
			  " updated = " PGQ_NOW
			  " WHERE id = $1 AND state IN ('failed', 'cancelled') RETURNING id),"
			  " n AS (SELECT pg_notify('" PGQ_CHANNEL "', 'retry') FROM i)"
			  " SELECT i.id FROM i, n",
			  "retried", "failed or cancelled");
}

int pg_queue_boxes(struct store *s, struct store_box **out, size_t *nr)
{
	struct pg_store *ps = to_ps(s);
	PGresult *res;
	size_t n;
	int err = pg_exec(ps, "cannot read the boxes",
			  "SELECT b.testbox, machine, cpus, mem_mb, arch, kernel,"
			  " array_to_string(tags, ','), state, why, seen, done, failed, lost,"
			  " c.class FROM queue_box b LEFT JOIN queue_class c USING (testbox)"
			  " ORDER BY b.testbox", 0, NULL, &res);

	if (err)
		return err;
	n = (size_t)PQntuples(res);
	*out = n ? calloc(n, sizeof(**out)) : NULL;
	if (n && !*out)
		err = store_fail(s, -ENOMEM, "out of memory");
	for (size_t i = 0; i < n && !err; i++) {
		struct store_box *b = &(*out)[i];
		int row = (int)i;
		char *tags = NULL;

		if (!(err = pg_col_text(ps, res, row, 0, false, "queue_box.testbox", &b->testbox)) &&
		    !(err = pg_col_text(ps, res, row, 1, false, "queue_box.machine", &b->machine)) &&
		    !(err = pg_col_int(ps, res, row, 2, 0, INT32_MAX, "queue_box.cpus", &b->cpus)) &&
		    !(err = pg_col_int64(ps, res, row, 3, 0, INT64_MAX, "queue_box.mem_mb",
					 &b->mem_mb)) &&
		    !(err = pg_col_text(ps, res, row, 4, false, "queue_box.arch", &b->arch)) &&
		    !(err = pg_col_text(ps, res, row, 5, false, "queue_box.kernel", &b->kernel)) &&
		    !(err = pg_col_text(ps, res, row, 6, false, "queue_box.tags", &tags)) &&
		    !(err = pg_col_text(ps, res, row, 7, false, "queue_box.state", &b->state)) &&
		    !(err = pg_col_text(ps, res, row, 8, true, "queue_box.why", &b->why)) &&
		    !(err = pg_col_real(ps, res, row, 9, false, "queue_box.seen", &b->seen)) &&
		    !(err = pg_col_int64(ps, res, row, 10, 0, INT64_MAX, "queue_box.done",
					 &b->done)) &&
		    !(err = pg_col_int64(ps, res, row, 11, 0, INT64_MAX, "queue_box.failed",
					 &b->failed)) &&
		    !(err = pg_col_int64(ps, res, row, 12, 0, INT64_MAX, "queue_box.lost",
					 &b->lost)) &&
		    !(err = pg_col_text(ps, res, row, 13, true, "queue_class.class", &b->class)) &&
		    *tags && !(b->tags = split_tags(tags)))
			err = store_fail(s, -ENOMEM, "out of memory");
		free(tags);
	}
	PQclear(res);
	if (err) {
		store_boxes_release(*out, n);
		*out = NULL;
		return err;
	}
	*nr = n;
	return 0;
}

int pg_queue_release(struct store *s, const char *testbox)
{
	struct pg_store *ps = to_ps(s);
	const char *params[] = { testbox };
	PGresult *res;
	int err = pg_check_writer(ps);

	if (!err)
		err = pg_exec(ps, "cannot release the box",
			      "WITH r AS (UPDATE queue_box SET state = 'active', why = NULL, lost = 0"
			      "	WHERE testbox = $1 RETURNING testbox),"
			      " n AS (SELECT pg_notify('" PGQ_CHANNEL "', 'release') FROM r)"
			      " SELECT r.testbox FROM r, n", 1, params, &res);
	if (err)
		return err;
	if (PQntuples(res) == 0)
		err = store_fail(s, -ENOENT, "no box %s in %s", testbox, ps->shown);
	PQclear(res);
	return err;
}

/* Notifications read so far, dropped: one wake-up covers them all. */
static bool drain_notifies(PGconn *conn)
{
	PGnotify *n;
	bool any = false;

	while ((n = PQnotifies(conn))) {
		any = true;
		PQfreemem(n);
	}
	return any;
}

int pg_queue_wait(struct store *s, double timeout_s, bool *woken)
{
	struct pg_store *ps = to_ps(s);
	struct timespec t0, t1;
	int err;

	/* again on every wait: a no-op on a connection that listens already */
	if ((err = pg_run(ps, "cannot listen for the queue", "LISTEN " PGQ_CHANNEL)))
		return err;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd pfd = { .fd = PQsocket(ps->conn), .events = POLLIN };
		double left;

		if (!PQconsumeInput(ps->conn))
			return pg_fail(ps, NULL, "cannot wait for the queue");
		if (drain_notifies(ps->conn)) {
			if (woken)
				*woken = true;
			return 0;
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		left = timeout_s - (t1.tv_sec - t0.tv_sec) - (t1.tv_nsec - t0.tv_nsec) / 1e9;
		if (left <= 0 || pfd.fd < 0)
			return 0;
		if (poll(&pfd, 1, (int)ceil(left * 1000)) < 0) {
			if (errno == EINTR)
				return 0;	/* a signal: the caller looks at its flags */
			return store_fail(s, -errno, "cannot wait for the queue: %s",
					  strerror(errno));
		}
	}
}

/*
 * The first reason why class name cannot be boxes, as one row of text
 * (none: no row).  Each check is one indexed lookup per box.
 */
#define CLASS_PROBLEM_SQL                                                          \
	"SELECT format('class %s: a test box has that name', $1::text)"               \
	"	FROM queue_box WHERE testbox = $1"                                   \
	" UNION ALL SELECT format('class %s: box %s is in class %s already (a box is in"  \
	" one class at most: perfbot queue class --remove %s, or declare %s without"   \
	" it)', $1::text, c.testbox, c.class, c.class, c.class)"                      \
	"	FROM queue_class c WHERE c.testbox = ANY ($2::text[]) AND c.class <> $1" \
	" UNION ALL SELECT format('class %s: a box of class %s has that name', $1::text,"\
	" class) FROM queue_class WHERE testbox = $1"                                  \
	" UNION ALL SELECT format('class %s: box %s: a class has that name', $1::text,"  \
	" b) FROM unnest($2::text[]) b WHERE b = $1 OR EXISTS (SELECT 1 FROM"          \
	" queue_class WHERE class = b AND class <> $1)"                               \
	" LIMIT 1"

int pg_queue_class_set(struct store *s, const char *name, char *const *boxes)
{
	struct pg_store *ps = to_ps(s);
	struct strbuf arr = STRBUF_INIT;
	PGresult *res = NULL;
	int err = pg_check_writer(ps);

	if (err)
		return err;
	if (!boxes || !boxes[0])
		return store_fail(s, -EINVAL, "class %s: no box", name);
	for (size_t i = 0; boxes[i]; i++)
		pg_array_text(&arr, boxes[i]);
	if (!pg_array_end(&arr)) {
		strbuf_release(&arr);
		return store_fail(s, -ENOMEM, "out of memory");
	}
	{
		const char *params[] = { name, arr.buf };

		/* one declaration at a time: two could each pass the other's check */
		if ((err = pg_begin(ps)) ||
		    (err = pg_run(ps, "cannot lock the classes",
				  "LOCK TABLE queue_class IN SHARE ROW EXCLUSIVE MODE")) ||
		    (err = pg_exec(ps, "cannot read the classes", CLASS_PROBLEM_SQL, 2, params,
				   &res)))
			goto out;
		if (PQntuples(res)) {
			err = store_fail(s, -EEXIST, "%s", PQgetvalue(res, 0, 0));
			goto out;
		}
		if ((err = pg_exec(ps, "cannot declare the class",
				   "DELETE FROM queue_class WHERE class = $1", 1, params, NULL)) ||
		    (err = pg_exec(ps, "cannot declare the class",
				   "INSERT INTO queue_class (testbox, class)"
				   " SELECT DISTINCT b, $1 FROM unnest($2::text[]) b",
				   2, params, NULL)))
			goto out;
		/* an item that waits for the class may have a box now */
		if ((err = pg_run(ps, "cannot wake the workers",
				  "NOTIFY " PGQ_CHANNEL ", 'class'")))
			goto out;
		err = pg_commit(ps, "cannot declare the class");
		PQclear(res);
		strbuf_release(&arr);
		return err;
	}
out:
	PQclear(res);
	strbuf_release(&arr);
	pg_rollback(ps);
	return err;
}

int pg_queue_class_remove(struct store *s, const char *name)
{
	struct pg_store *ps = to_ps(s);
	const char *params[] = { name };
	bool changed = false;
	int err = pg_check_writer(ps);

	if (!err)
		err = pg_update(ps, "cannot remove the class",
				"DELETE FROM queue_class WHERE class = $1", 1, params, &changed);
	if (!err && !changed)
		err = store_fail(s, -ENOENT, "no class %s in %s", name, ps->shown);
	return err;
}

int pg_queue_classes(struct store *s, struct store_class **out, size_t *nr)
{
	struct pg_store *ps = to_ps(s);
	PGresult *res;
	size_t n;
	int err = pg_exec(ps, "cannot read the classes",
			  "SELECT class, string_agg(testbox, ',' ORDER BY testbox COLLATE \"C\")"
			  " FROM queue_class GROUP BY class ORDER BY class COLLATE \"C\"",
			  0, NULL, &res);

	if (err)
		return err;
	n = (size_t)PQntuples(res);
	*out = n ? calloc(n, sizeof(**out)) : NULL;
	if (n && !*out)
		err = store_fail(s, -ENOMEM, "out of memory");
	for (size_t i = 0; i < n && !err; i++) {
		char *boxes = NULL;

		if (!(err = pg_col_text(ps, res, (int)i, 0, false, "queue_class.class",
					&(*out)[i].name)) &&
		    !(err = pg_col_text(ps, res, (int)i, 1, false, "queue_class.testbox",
					&boxes)) &&
		    !((*out)[i].boxes = split_tags(boxes)))
			err = store_fail(s, -ENOMEM, "out of memory");
		free(boxes);
	}
	PQclear(res);
	if (err) {
		store_classes_release(*out, n);
		*out = NULL;
		return err;
	}
	*nr = n;
	return 0;
}

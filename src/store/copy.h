/*
 * copy.h - copying a history between stores (perfbot db copy,
 * docs/store.md "Copying a history"), through store.h alone, so that
 * every pair of backends works alike.
 *
 * Idempotent: each copied run carries its origin (STORE_ORIGIN_KEY,
 * "<store id>:<run id>" of the store it was made in), and TO's origins
 * are read once, in one query, before anything is written; a run whose
 * origin TO holds is not copied again.  Resumable: the runs go in
 * batches, one transaction each, so a copy cut off (^C, kill -9, the
 * server gone) leaves whole batches, and the next copy starts from what
 * TO holds.  FROM is only read (its store id is derived, not written,
 * when it has none).
 *
 * The robot's state and bisections are not copied (their ids would
 * change, and alerts refer to bisections and reports by id): a FROM that
 * holds any is refused unless runs_only, and the counts say what was
 * left.  Main thread; from and to are the caller's.
 */
#ifndef PERFBOT_STORE_COPY_H
#define PERFBOT_STORE_COPY_H

#include "store/store.h"
#include "util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

#define STORE_COPY_BATCH_RUNS 500
/* a batch's runs are held in memory: 500 runs of 10,000 stats is too many */
#define STORE_COPY_BATCH_VALUES 1000000

struct store_copy_opts {
	size_t batch_runs;	/* runs per transaction; 0: STORE_COPY_BATCH_RUNS */
	size_t batch_values;	/* and stats per transaction; 0: STORE_COPY_BATCH_VALUES */
	bool runs_only;		/* copy the runs although FROM holds more */
	/* after each batch is committed (may be NULL) */
	void (*progress)(void *ctx, size_t copied, size_t to_copy);
	void *ctx;
};

struct store_copy_counts {
	size_t from_runs;	/* FROM's runs */
	size_t copied;		/* written into TO by this copy */
	size_t present;		/* already in TO */
	/* what FROM holds that a copy does not take */
	size_t bisections, alerts, reports, points, kexec_boots;
};

/*
 * Copy from's runs into to.  0, or a negative errno with the message in
 * err: -EXDEV when both are one store (the same store id), -ENOTSUP when
 * FROM holds what a copy does not take and !runs_only (nothing written),
 * else the stores' errors (the batches committed before stay).  *c is
 * filled as far as the copy went.
 */
int store_copy(struct store *from, struct store *to, const struct store_copy_opts *o,
	       struct store_copy_counts *c, struct strbuf *err);

/* Appends "2 bisections, 1 alert, ...": what FROM holds that is not copied. */
void store_copy_describe_rest(struct strbuf *sb, const struct store_copy_counts *c);

/*
 * An origin "<32 hex digits>:<run id>" split (the run id >= 1); false for
 * anything else.  store_id may be NULL.
 */
bool store_origin_parse(const char *origin, char store_id[STORE_ID_LEN + 1],
			int64_t *run_id);

#endif

/*
 * internal.h - what store.c shares with the backends behind store.h.
 *
 * store.c owns dispatch (which backend a location names), the default
 * location and the error buffer; a backend embeds struct store as the
 * first member of its own connection type and fills in its ops.
 * Not part of the interface: only the files of src/store include it.
 */
#ifndef PERFBOT_STORE_INTERNAL_H
#define PERFBOT_STORE_INTERNAL_H

#include "store/store.h"
#include "util/strbuf.h"

#include <stdarg.h>
#include <stdbool.h>

/* Default busy timeout; PERFBOT_DB_BUSY_MS overrides it (tests use 100). */
#define STORE_BUSY_MS_DEFAULT 5000

struct store_ops {
	void (*close)(struct store *s);
	int (*put_run)(struct store *s, const struct run_record *r,
		       int64_t *run_id);
	int (*list_groups)(struct store *s, const struct store_filter *f,
			   struct store_group **groups, size_t *nr);
	int (*group_runs)(struct store *s, const char *testbox,
			  const char *job, const char *commit, int64_t **ids,
			  size_t *nr);
	int (*get_run)(struct store *s, int64_t run_id, struct run_record *out);
	int (*load_samples)(struct store *s, const char *testbox,
			    const char *job, const char *commit, double since,
			    struct store_samples *out);
	int (*resolve_commit)(struct store *s, const char *given, char **full);
	int (*put_import)(struct store *s, const struct run_record *runs,
			  size_t nr, const char *sha256, bool once, int64_t *ids);
	int (*import_runs)(struct store *s, const char *sha256, int64_t **ids,
			   size_t *nr);
	int (*delete_runs)(struct store *s, const int64_t *ids, size_t nr);
	int (*bisect_add)(struct store *s, const char *status, const char *spec,
			  int64_t *id);
	int (*bisect_get)(struct store *s, int64_t id, struct store_bisect *out);
	int (*bisect_latest)(struct store *s, struct store_bisect *out);
	int (*bisect_list)(struct store *s, struct store_bisect **out,
			   size_t *nr);
	int (*bisect_update)(struct store *s, int64_t id, const char *status,
			     const char *result);
	int (*bisect_log_add)(struct store *s, int64_t id, const char *text);
	int (*bisect_log)(struct store *s, int64_t id,
			  struct store_bisect_line **lines, size_t *nr);
	int (*bisect_mark)(struct store *s, int64_t id, const char *sha,
			   const char *mark, const char *note);
	int (*bisect_marks)(struct store *s, int64_t id,
			    struct store_bisect_mark **marks, size_t *nr);
	/* the robot's state (perfbot watch) */
	int (*point_add)(struct store *s, const char *tree, const char *branch,
			 const char *sha, const char *base, int64_t *seq);
	int (*points)(struct store *s, const char *tree, const char *branch,
		      struct store_point **out, size_t *nr);
	int (*branches)(struct store *s, struct store_branch **out, size_t *nr);
	int (*alert_add)(struct store *s, struct store_alert *a);
	int (*alert_update)(struct store *s, const struct store_alert *a);
	int (*alert_get)(struct store *s, int64_t id, struct store_alert *out);
	int (*alerts)(struct store *s, const char *state,
		      struct store_alert **out, size_t *nr);
	int (*report_add)(struct store *s, const char *culprit,
			  const char *state, struct store_report *out);
	int (*report_find)(struct store *s, const char *culprit,
			   struct store_report *out);
	int (*report_get)(struct store *s, int64_t id, struct store_report *out);
	int (*reports)(struct store *s, struct store_report **out, size_t *nr);
	int (*report_update)(struct store *s, int64_t id, const char *state,
			     const char *path);
	/* kexec boots (boot: kexec) */
	int (*kexec_add)(struct store *s, struct store_kexec *k);
	int (*kexec_update)(struct store *s, const struct store_kexec *k,
			    const char *from);
	int (*kexec_get)(struct store *s, int64_t id, struct store_kexec *out);
	int (*kexec_active)(struct store *s, const char *testbox,
			    struct store_kexec *out);
	int (*kexec_list)(struct store *s, struct store_kexec **out, size_t *nr);
	/* copying a history (perfbot db copy) */
	int (*put_runs)(struct store *s, const struct run_record *runs, size_t nr,
			const char *const *sha256, int64_t *ids);
	int (*run_refs)(struct store *s, struct store_run_ref **out, size_t *nr);
	/* meta: a key's value (NULL: none); add it unless the key has one */
	int (*meta_get)(struct store *s, const char *key, char **value);
	int (*meta_add)(struct store *s, const char *key, const char *value);
	/*
	 * the fleet's queue: PostgreSQL's only.  A backend without it
	 * leaves them NULL and store.c answers -ENOTSUP for it.
	 */
	int (*queue_submit)(struct store *s, const struct store_queue_item *items,
			    size_t nr, int64_t *batch, int64_t *ids);
	int (*box_register)(struct store *s, const struct store_box *b);
	int (*queue_claim)(struct store *s, const char *testbox,
			   char *const *testcases, double lease_s,
			   struct store_queue_item *out);
	int (*queue_heartbeat)(struct store *s, int64_t id, int attempt,
			       double lease_s);
	int (*queue_finish)(struct store *s, int64_t id, int attempt,
			    const struct run_record *r, int64_t *run_id);
	int (*queue_fail)(struct store *s, int64_t id, int attempt,
			  const char *why, bool *requeued);
	int (*queue_hand_back)(struct store *s, int64_t id, int attempt);
	int (*queue_reap)(struct store *s, size_t *nr);
	int (*queue_list)(struct store *s, const char *state,
			  struct store_queue_item **out, size_t *nr);
	int (*queue_get)(struct store *s, int64_t id, struct store_queue_item *out);
	int (*queue_cancel)(struct store *s, int64_t id);
	int (*queue_retry)(struct store *s, int64_t id);
	int (*queue_boxes)(struct store *s, struct store_box **out, size_t *nr);
	int (*queue_release)(struct store *s, const char *testbox);
	int (*queue_wait)(struct store *s, double timeout_s, bool *woken);
	int (*queue_class_set)(struct store *s, const char *name, char *const *boxes);
	int (*queue_class_remove)(struct store *s, const char *name);
	int (*queue_classes)(struct store *s, struct store_class **out, size_t *nr);
};

struct store {
	const struct store_ops *ops;
	/*
	 * store_error()'s message, whole: it names paths and quotes what a
	 * file holds, of any length.  The backend's close releases it.
	 */
	struct strbuf err;
};

/* Format the message store_error() returns; returns err, for tail calls. */
int store_fail(struct store *s, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same into any buffer (NULL: none): what it held is replaced. */
int store_vfail(struct strbuf *sb, int err, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
int store_failf(struct strbuf *sb, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * The backends select a class's runs (store_selector_class()) by their
 * STORE_CLASS_ENV with STORE_RUN_OF_CLASS (RUN: the runs row's name, P:
 * the class's parameter): one primary-key probe of run_env per run of
 * the job at the commit, which the query finds by its (commit) index.
 */
#define STORE_RUN_OF_CLASS(RUN, P)                                                  \
	"EXISTS (SELECT 1 FROM run_env fc WHERE fc.run_id = " RUN ".id"               \
	" AND fc.key = '" STORE_CLASS_ENV "' AND fc.value = " P ")"

/* store_put_run()'s check at the door, for another writer of runs (the queue). */
int store_check_run(struct store *s, const struct run_record *r);
/* Every call starts without a message. */
void store_clear_error(struct store *s);

/* PERFBOT_DB_BUSY_MS if set and valid, else STORE_BUSY_MS_DEFAULT. */
int store_busy_ms(void);

/* mkdir -p of the directory that holds path; 0 or a negative errno. */
int store_mkdir_parent(const char *path, struct strbuf *err);

int sqlite_store_open(const char *path, enum store_mode mode,
		      struct store **out, struct strbuf *err);
int pg_store_open(const char *location, enum store_mode mode,
		  struct store **out, struct strbuf *err);
/* pg.c: the location with its password masked (store_location_shown()). */
char *pg_location_shown(const char *location);

/*
 * The SQLite schema, as a list of migrations: migration i takes the
 * schema from version i to i + 1 and runs in one transaction with the
 * update of meta.schema_version.
 */
struct store_migration {
	const char *what;
	const char *sql;	/* one or more statements */
};

extern const struct store_migration sqlite_migrations[];
extern const int sqlite_schema_version;	/* = number of migrations */

#endif

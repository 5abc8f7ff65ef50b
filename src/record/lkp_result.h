/*
 * lkp_result.h - LKP result roots read into run records (docs/import.md,
 * "lkp-result"): what `perfbot import lkp-result DIR...` stores.
 *
 * What it reads: each DIR given may be a run directory (.../COMMIT/N/), a
 * commit's directory or any directory above; it is walked in name order,
 * at most LKP_RESULT_MAX_DEPTH levels down, symlinks not followed, and
 * every directory holding a job.yaml is a run (nothing under it is
 * walked).  A run is its job.yaml (job_load_lkp_run(): the atomic job,
 * parameters, job text, kconfig, compiler, rootfs, ...; tbox_group, else
 * testbox, as the testbox; the commit, else the parent directory's name
 * for a run directory named by a number; the machine line from the host
 * file's nr_cpu, brand or model, memory) and its stats: its stats.json,
 * else its column of the commit's matrix.json (the column whose
 * stats_source ends in /N/stats.json).  LKP's last_state stats make the
 * status: is_incomplete_run 1 RUN_INCOMPLETE, exit_fail 1 RUN_FAILED,
 * else RUN_COMPLETE.  Every run is read before anything is returned, so
 * a caller that writes only on success never stores part of a tree.
 *
 * Ownership: *out is the caller's; lkp_runs_release() frees it (also
 * after a failure, which leaves it empty).  err is the caller's, its msg
 * initialised (STRBUF_INIT); lkp_result_error_release() frees the message.
 *
 * Errors: 0, or a negative errno with err set:
 *   -ENOENT  a DIR given that is no LKP result (missing, not a directory,
 *            no job.yaml in it or under it): the caller's input
 *   -EINVAL  a run that is not as LKP writes it: job.yaml or stats.json
 *            that does not parse ("FILE:LINE:COLUMN: ..."), no stats,
 *            no testbox or commit
 *   -EIO     a file or directory that cannot be read (the system's
 *            reason in the message)
 *   -ENOMEM
 * The message is one line without "perfbot: "; it quotes paths and the
 * files' values as they are (the caller escapes what it prints).
 *
 * No printing, no exit codes, no store access: the caller decides what
 * an error means and writes the runs (and checks run->hash against what
 * it stored before).  No global state; thread-safe.
 */
#ifndef PERFBOT_RECORD_LKP_RESULT_H
#define PERFBOT_RECORD_LKP_RESULT_H

#include "record/import.h"
#include "record/record.h"
#include "util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

/* below a DIR given: LKP's /result/TESTCASE/PARAMS/TBOX/ROOTFS/KCONFIG/COMPILER/COMMIT/N is 9 */
#define LKP_RESULT_MAX_DEPTH 16

struct lkp_run {
	char *dir;			/* the run directory: a DIR given, or a path under it */
	/*
	 * The run, whole but for its id: testbox, testcase, job, commit, job
	 * text, params, stats, status; env testbox, machine (when the host
	 * file gives it), job.<key> (kconfig, compiler, ...), kpi,
	 * lkp.testbox, lkp.result_root, imported_from (dir),
	 * import_format "lkp-result", import_run (dir's last component),
	 * last_state.reason (a run LKP did not complete).
	 */
	struct run_record rec;
	/*
	 * The run's identity, for store_put_import(): where LKP put it
	 * (job.yaml's result_root, else dir's real path) and its stats,
	 * whichever file they came from, so a copy of the tree, or the
	 * commit's matrix once stats.json is gone, is the same run.
	 */
	char hash[IMPORT_HASH_LEN + 1];
	bool twin;			/* an earlier run in *out has the same hash */
};

struct lkp_runs {
	struct lkp_run *v;		/* in the order found: DIR by DIR, names sorted */
	size_t n, cap;
};

struct lkp_result_error {
	struct strbuf msg;
	/*
	 * msg is job.yaml's error as job.h gives a job file's
	 * ("FILE:LINE:COLUMN: ..."), which commands print as they print any
	 * job file's error; false for every other message.
	 */
	bool job_file;
};

/*
 * Every run under dirs[nr], with `started` (Unix time: LKP keeps no start
 * that all its results share) as each run's start and 0 as its duration.
 */
int lkp_result_read(char *const *dirs, size_t nr, double started, struct lkp_runs *out,
		    struct lkp_result_error *err);
void lkp_runs_release(struct lkp_runs *runs);
void lkp_result_error_release(struct lkp_result_error *err);

#endif

/*
 * import.h - results made elsewhere turned into run records: LKP's
 * matrix.json (stat name -> per-run values) and a long-form CSV
 * (run,stat,value), as docs/import.md describes them.
 *
 * The parsers fill only each run's stats (statmap_finish() done) and the
 * env key "import_run" (the run's index or id in the file), status
 * RUN_COMPLETE; the caller sets identity (testbox, testcase, job,
 * commit) and the rest.  A whole file is checked before anything is
 * returned, so a caller that writes only on success never imports half a
 * file.
 *
 * Ownership: *out is the caller's; import_data_release() frees it.
 * Numbers, in both formats: a subnormal (4e-320) is kept as it is; a
 * value that is not zero but would be stored as 0 (1e-400), or that is
 * beyond the largest double (1e400), is refused with its position and
 * its text, as are inf and nan.
 *
 * Errors: 0; -EINVAL (bad input) or -ENOMEM with a message set in err,
 * which names "line L:column C" (JSON) or "line L" (CSV) when there is
 * one, and quotes the input's values whole (a refused stat name by its
 * first 200 bytes, marked "...").
 */
#ifndef PERFBOT_RECORD_IMPORT_H
#define PERFBOT_RECORD_IMPORT_H

#include "record/record.h"
#include "util/strbuf.h"

#include <stddef.h>

struct import_data {
	struct run_record *runs;
	size_t nr;
	size_t skipped;		/* matrix keys that are not numeric arrays */
	/*
	 * The testcase the stat names suggest: the part before the first
	 * '.' of the first stat (in file order) whose prefix is not an LKP
	 * monitor's (dmesg, proc-vmstat, perf-stat, ...); NULL when every
	 * stat is a monitor's.
	 */
	char *testcase;
	/*
	 * A matrix's "stats_source" (LKP's commit-level matrix.json: the
	 * stats.json each column came from), [nr], an entry NULL where it is
	 * no string; NULL when the matrix has none of the runs' length.
	 */
	char **sources;
};

int import_lkp_matrix(const char *text, size_t len, struct import_data *out,
		      struct strbuf *err);
int import_csv(const char *text, size_t len, struct import_data *out,
	       struct strbuf *err);
/*
 * LKP's stats.json of one run (stat name -> number): one run, the keys
 * whose value is no number counted in skipped; refused as a matrix is
 * (not JSON, a key twice, a bad name or number, no number at all).
 */
int import_lkp_stats(const char *text, size_t len, struct import_data *out,
		     struct strbuf *err);
void import_data_release(struct import_data *d);

/*
 * The SHA-256 of data, as 64 lowercase hex digits and a NUL: the content
 * hash `perfbot import` stores with the runs of a file (store.h's
 * store_put_import()), so that the same file is not imported twice.
 */
#define IMPORT_HASH_LEN 64
void import_sha256(const void *data, size_t len, char hex[IMPORT_HASH_LEN + 1]);

#endif

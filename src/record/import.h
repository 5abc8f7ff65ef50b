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
};

int import_lkp_matrix(const char *text, size_t len, struct import_data *out,
		      struct strbuf *err);
int import_csv(const char *text, size_t len, struct import_data *out,
	       struct strbuf *err);
void import_data_release(struct import_data *d);

#endif

/*
 * record_json.h - one run record as JSON and back, losslessly: what the
 * guest of a kernel under test sends the host (docs/kernel-guest.md).
 *
 *	{"schema": "perfbot-run", "version": 1,
 *	 "testbox": ..., "testcase": ..., "job": ..., "commit": ...,
 *	 "status": "complete"|"failed"|"incomplete"|"unsupported",
 *	 "started": N, "duration_s": N,
 *	 "params": {k: v, ...}, "env": {k: v, ...},	(insertion order)
 *	 "stats": {name: N, ...},
 *	 "meta": [{"name", "unit", "better": -1|0|1, "kpi": bool}, ...],
 *	 "job_text": "..." | null}
 *
 * Numbers are written with 17 significant digits (a double comes back
 * bit for bit); NaN and the infinities, which JSON lacks, are the strings
 * "nan", "inf" and "-inf".  A NULL string field is null.
 *
 * Ownership: to_json's text is malloc'd, the caller's; from_json fills a
 * record the caller releases (run_record_release()), also on error.
 * Errors: -ENOMEM, or -EINVAL with the offending field in err.
 */
#ifndef PERFBOT_RECORD_RECORD_JSON_H
#define PERFBOT_RECORD_RECORD_JSON_H

#include "record/record.h"
#include "util/strbuf.h"

#include <stddef.h>

#define RECORD_JSON_SCHEMA "perfbot-run"
#define RECORD_JSON_VERSION 1

int record_to_json(const struct run_record *r, char **text);
/* The same as a jansson object (a new reference), NULL when out of memory:
 * for a caller that adds fields of its own (results show's "id"). */
struct json_t;
struct json_t *record_json_object(const struct run_record *r);
int record_from_json(const char *text, size_t len, struct run_record *out,
		     struct strbuf *err);

#endif

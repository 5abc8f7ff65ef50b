/*
 * parsers.h - turn an external benchmark's stdout into stats (the `parse:`
 * of an `exec:` job).  docs/exec-parsers.md gives the formats and the
 * exact stat names per kind.
 *
 * Ownership: the caller owns every argument; stats are copied into `out`.
 * On any error `out` is left exactly as it was (nothing half-added).
 * No state, thread-safe.  Never prints.
 */
#ifndef PERFBOT_BENCH_PARSERS_H
#define PERFBOT_BENCH_PARSERS_H

#include <stdbool.h>
#include <stddef.h>

#include "record/record.h"

struct strbuf;

/*
 * Parse an external benchmark's stdout into stats named "<prefix>.<name>"
 * (just "<name>" when prefix is NULL or "").  text need not be
 * NUL-terminated.
 * kind: "kv" | "json" | "gbench" | "hyperfine" | "time" ("time" adds
 * nothing: the runner's time monitor gives wall/rusage).
 * paths: for "json", stat name -> path (dot-separated keys and array
 * indexes: "results.0.mean"); NULL or empty: every numeric leaf.  Ignored
 * by the other kinds.
 * Returns 0, -EINVAL for an unknown kind, -EPROTO when the output does not
 * parse (err names what and where: "json: no value at results.2.mean"),
 * -ENOMEM.  err (may be NULL) gets a message for every error, whole
 * whatever it quotes of the output, "" on success; what it held before is
 * replaced -- except when stats were dropped: a stat whose name the store
 * would refuse (invalid UTF-8, a control character, over 4096 bytes) is
 * not added, and err then says how many and shows the first, quoted (its
 * first 200 bytes, then "..."), while the call returns 0 with the others
 * added.
 */
int exec_parse_output(const char *kind, const char *text, size_t len,
		      const struct strmap *paths, const char *prefix,
		      struct statmap *out, struct strbuf *err);

/* True for the kinds exec_parse_output() accepts (the job loader checks). */
bool exec_parse_kind_known(const char *kind);

#endif

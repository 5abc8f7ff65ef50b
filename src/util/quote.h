/*
 * quote.h - names from untrusted places (job files, imported results,
 * benchmark output, git, old databases) made safe for where they go:
 *
 *  - name_problem(): the rule a name must meet to enter the store
 *    (docs/store.md): valid UTF-8, no C0 control character or DEL, at
 *    most NAME_MAX_BYTES bytes.
 *  - quote_c() / quote_fputs(): for a terminal or text stream, the way
 *    git quotes paths (core.quotePath=false): a name with a control
 *    character, DEL, a C1 control, an invalid UTF-8 byte, '"' or '\' is
 *    printed in double quotes with C escapes (\a \b \t \n \v \f \r \" \\)
 *    and octal (\033, \377) for the other bytes; any other name, valid
 *    non-ASCII UTF-8 included, is printed as it is.
 *  - quote_line_fputs(): a message line with only its control characters
 *    and invalid bytes escaped (no quotes added), so one error stays one
 *    line whatever value it echoes.
 *  - utf8_lossy() / json_str(): valid UTF-8 for JSON and HTML, each
 *    invalid byte replaced by U+FFFD, so nothing stored is dropped.
 *
 * No state; thread-safe.  Functions returning a pointer return a malloc'd
 * string (the caller frees it) or NULL when out of memory.
 */
#ifndef PERFBOT_UTIL_QUOTE_H
#define PERFBOT_UTIL_QUOTE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define NAME_MAX_BYTES 4096

/*
 * Bytes of the well-formed UTF-8 character at s (1 to 4; none beyond
 * len), 0 for an invalid byte: a stray continuation, an overlong form, a
 * surrogate, a code point over U+10FFFF, a truncated sequence.  NUL is 1.
 */
size_t utf8_char_len(const char *s, size_t len);
bool utf8_valid(const char *s, size_t len);

/* NULL when s may be stored, else why not ("is not valid UTF-8", ...). */
const char *name_problem(const char *s);
/* The same rule for an environment value, which may be up to 64 KiB. */
#define VALUE_MAX_BYTES 65536
const char *value_problem(const char *s);

char *utf8_lossy(const char *s);
/* A JSON string of s made valid (json_null() for NULL); NULL: no memory. */
json_t *json_str(const char *s);
/* json_object_set_new() with the key made valid; 0 or -1 as jansson. */
int json_object_set_lossy(json_t *obj, const char *key, json_t *value);

/* The quoted form when s needs it (always: even when it does not). */
char *quote_c(const char *s, bool always);
/* Write quote_c(s, false) to f without allocating; EOF on error. */
int quote_fputs(const char *s, FILE *f);
/* The columns a name takes on a terminal once quoted (for table widths). */
size_t quote_width(const char *s);
/* quote_fputs(), then blanks up to `width` columns (a left-aligned cell). */
int quote_fpad(const char *s, size_t width, FILE *f);
int quote_line_fputs(const char *s, FILE *f);
/* The same as a string: a message made storable (name_problem()-clean). */
char *quote_line(const char *s);

/*
 * A deep copy of a JSON document for a text renderer: every string and
 * key with its control characters but '\n' and '\t' escaped as
 * quote_line() does; NULL when out of memory.
 */
json_t *json_quote_tree(const json_t *j);

#endif

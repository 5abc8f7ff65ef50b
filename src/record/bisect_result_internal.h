/*
 * bisect_result_internal.h - what the parts of record/bisect_result.h
 * share: the document's shape, written down once (bisect_result_shape.c)
 * and walked by the reader, the writer and the rules alike; where a field
 * is, for messages ("commits[3].values[2]").  Not part of the API.  No
 * state.
 */
#ifndef PERFBOT_RECORD_BISECT_RESULT_INTERNAL_H
#define PERFBOT_RECORD_BISECT_RESULT_INTERNAL_H

#include "record/bisect_result.h"

#include <stdbool.h>
#include <stddef.h>

/* a count or an index: what report/ prints with %ld on any machine */
#define COUNT_MAX 0x7fffffffL

/* ---- the shape ---- */

/* What a member is, and so how it is read, written and checked. */
enum field_kind {
	FK_STRING,		/* char *, NULL unknown */
	FK_NUMBER,		/* double, NaN unknown */
	FK_COUNT,		/* long, BISECT_UNKNOWN unknown */
	FK_BOOL,		/* int: -1 unknown, 0, 1 */
	FK_ID,			/* int64_t, BISECT_UNKNOWN unknown */
	FK_VALUES,		/* struct bisect_values */
	FK_OBJECT,		/* a struct of shape sub that begins with bool present */
	FK_INLINE,		/* a struct of shape sub whose keys are this object's */
	FK_ENTRY,		/* struct bisect_entry, there when the bool at `have` is */
	FK_ENTRIES,		/* struct bisect_entries */
	FK_STATUS,		/* enum bisect_status, required */
	FK_STATE,		/* enum bisect_commit_state */
	FK_MERGE,		/* struct bisect_merge *, NULL none */
	FK_PARAMS,		/* struct bisect_params */
	FK_SPEC,		/* struct bisect_spec *, NULL none */
};

/* required: a string or object the rules refuse to miss */
#define F_REQUIRED 1u

struct shape;

/* One member of a struct and its key in the document. */
struct field {
	const char *key;		/* NULL for FK_INLINE */
	enum field_kind kind;
	size_t off;			/* the member's offset in the struct */
	const struct shape *sub;	/* FK_OBJECT, FK_INLINE */
	size_t have;			/* FK_ENTRY: offset of its bool */
	unsigned flags;
};

/* A struct's members in the order they are written. */
struct shape {
	const struct field *v;
	size_t n;
	bool present;			/* the struct begins with bool present */
};

/*
 * struct bisect_result as a document; one without a level yet (bare: a
 * bisection that failed or was stopped in its first level) in the order
 * perfbot always wrote those; struct bisect_level inside a merge; and
 * struct bisect_entry, one of culprit, best, range, commits.
 */
extern const struct shape result_shape, bare_shape, level_shape, entry_shape,
	merge_shape;

/* The member at f in the struct at base. */
#define MEMBER(type, base, f) ((type *)((char *)(base) + (f)->off))
#define CMEMBER(type, base, f) ((const type *)((const char *)(base) + (f)->off))

/* ---- where a field is, and what is wrong with it ---- */

/* A field's place from the document's top: "commits[3].values[2]". */
struct where {
	const struct where *up;
	const char *key;		/* NULL: element `index` of an array */
	size_t index;
};

#define AT(up_, key_) (&(const struct where){ .up = (up_), .key = (key_) })
#define AT_INDEX(up_, i_) (&(const struct where){ .up = (up_), .index = (i_) })

/* What went wrong first, the message in err. */
struct ctx {
	char *err;
	size_t errlen;
	int ret;			/* the first problem: what to fix first */
	bool stored;			/* reading a stored result: its id, status and
					   spec are the store's, not read */
};

/* -EINVAL: "where: what", unless a problem came first. */
void result_bad(struct ctx *c, const struct where *w, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void result_nomem(struct ctx *c);

/*
 * The rules of a stored result (document false: its top level may lack
 * its ends and metric until the spec completes it) or of a document.
 */
int result_rules(const struct bisect_result *r, bool document, char *err, size_t errlen);

#endif

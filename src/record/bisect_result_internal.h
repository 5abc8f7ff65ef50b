/*
 * bisect_result_internal.h - what the parts of record/bisect_result.h
 * share: where a field is, for messages ("commits[3].values[2]"), and the
 * document's rules.  Not part of the API.  No state.
 */
#ifndef PERFBOT_RECORD_BISECT_RESULT_INTERNAL_H
#define PERFBOT_RECORD_BISECT_RESULT_INTERNAL_H

#include "record/bisect_result.h"

#include <stdbool.h>
#include <stddef.h>

/* a count or an index: what report/ prints with %ld on any machine */
#define COUNT_MAX 0x7fffffffL

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

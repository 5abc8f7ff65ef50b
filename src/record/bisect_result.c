/*
 * bisect_result.c - the bisection result's lifetime: empty, released, and
 * copied for a text renderer (bisect_result.h), each by walking the shape
 * of the document (bisect_result_shape.c), which names every member.
 */
#define _GNU_SOURCE
#include "record/bisect_result_internal.h"
#include "util/quote.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const status_names[] = {
	[BISECT_STATUS_FOUND] = "found",
	[BISECT_STATUS_RANGE] = "found-range",
	[BISECT_STATUS_NO_CHANGE] = "no-change",
	[BISECT_STATUS_UNDECIDED] = "undecided",
	[BISECT_STATUS_FAILED] = "failed",
	[BISECT_STATUS_RUNNING] = "running",
	[BISECT_STATUS_RESET] = "reset",
};

#define NR_STATUS (sizeof(status_names) / sizeof(status_names[0]))

const char *bisect_status_name(enum bisect_status s)
{
	return (unsigned)s < NR_STATUS ? status_names[s] : NULL;
}

int bisect_status_parse(const char *name, enum bisect_status *out)
{
	for (size_t i = 0; name && i < NR_STATUS; i++) {
		if (!strcmp(name, status_names[i])) {
			*out = (enum bisect_status)i;
			return 0;
		}
	}
	return -EINVAL;
}

bool bisect_status_finished(enum bisect_status s)
{
	return s == BISECT_STATUS_FOUND || s == BISECT_STATUS_RANGE ||
	       s == BISECT_STATUS_NO_CHANGE || s == BISECT_STATUS_UNDECIDED;
}

bool bisect_level_confirmed(const struct bisect_level *lv)
{
	const struct bisect_change *c = &lv->confirmation.change;
	double base = lv->baseline.change.pct;

	if (!lv->confirmation.present || !c->verdict || strcmp(c->verdict, "changed"))
		return false;
	return !isfinite(base) || !isfinite(c->pct) || (base > 0) == (c->pct > 0);
}

/* ---- empty ---- */

/* Every member of the zeroed struct at base "unknown". */
static void init_object(const struct shape *sh, void *base)
{
	for (size_t i = 0; i < sh->n; i++) {
		const struct field *f = &sh->v[i];

		switch (f->kind) {
		case FK_NUMBER:
			*MEMBER(double, base, f) = NAN;
			break;
		case FK_COUNT:
			*MEMBER(long, base, f) = BISECT_UNKNOWN;
			break;
		case FK_BOOL:
			*MEMBER(int, base, f) = -1;
			break;
		case FK_ID:
			*MEMBER(int64_t, base, f) = BISECT_UNKNOWN;
			break;
		case FK_STATE:
			*MEMBER(enum bisect_commit_state, base, f) = BISECT_STATE_UNKNOWN;
			break;
		case FK_STATUS:
			*MEMBER(enum bisect_status, base, f) = BISECT_STATUS_RUNNING;
			break;
		case FK_OBJECT:
		case FK_INLINE:
			init_object(f->sub, MEMBER(char, base, f));
			break;
		case FK_ENTRY:
			init_object(&entry_shape, MEMBER(char, base, f));
			break;
		default:	/* strings, lists, pointers: NULL, empty */
			break;
		}
	}
}

void bisect_entry_init(struct bisect_entry *e)
{
	memset(e, 0, sizeof(*e));
	init_object(&entry_shape, e);
}

void bisect_level_init(struct bisect_level *lv)
{
	memset(lv, 0, sizeof(*lv));
	init_object(&level_shape, lv);
}

void bisect_result_init(struct bisect_result *r)
{
	memset(r, 0, sizeof(*r));
	init_object(&result_shape, r);
}

/* ---- released ---- */

static void free_params(struct bisect_params *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].key);
		free(p->v[i].string);
	}
	free(p->v);
}

/* What the struct at base owns, freed (its members left dangling). */
static void free_object(const struct shape *sh, void *base)
{
	for (size_t i = 0; i < sh->n; i++) {
		const struct field *f = &sh->v[i];

		switch (f->kind) {
		case FK_STRING:
			free(*MEMBER(char *, base, f));
			break;
		case FK_VALUES:
			free(MEMBER(struct bisect_values, base, f)->v);
			break;
		case FK_OBJECT:
		case FK_INLINE:
			free_object(f->sub, MEMBER(char, base, f));
			break;
		case FK_ENTRY:
			free_object(&entry_shape, MEMBER(char, base, f));
			break;
		case FK_ENTRIES: {
			struct bisect_entries *a = MEMBER(struct bisect_entries, base, f);

			for (size_t k = 0; k < a->n; k++)
				free_object(&entry_shape, &a->v[k]);
			free(a->v);
			break;
		}
		case FK_MERGE: {
			struct bisect_merge *m = *MEMBER(struct bisect_merge *, base, f);

			if (!m)
				break;
			free_object(&merge_shape, m);
			if (m->inner)
				free_object(&level_shape, m->inner);
			free(m->inner);
			free(m);
			break;
		}
		case FK_PARAMS:
			free_params(MEMBER(struct bisect_params, base, f));
			break;
		case FK_SPEC:
			if (*MEMBER(struct bisect_spec *, base, f))
				bisect_spec_release(*MEMBER(struct bisect_spec *, base, f));
			free(*MEMBER(struct bisect_spec *, base, f));
			break;
		default:
			break;
		}
	}
}

void bisect_entry_release(struct bisect_entry *e)
{
	free_object(&entry_shape, e);
	bisect_entry_init(e);
}

void bisect_level_release(struct bisect_level *lv)
{
	free_object(&level_shape, lv);
	bisect_level_init(lv);
}

void bisect_result_release(struct bisect_result *r)
{
	free_object(&result_shape, r);
	bisect_result_init(r);
}

/* ---- a copy for a text renderer ---- */

/*
 * As util/quote.h's json_quote_tree() escapes a string: the one rule for
 * what a text report may print of a stored string.
 */
static char *quote_for_text(const char *s)
{
	char *lossy = NULL, *out = NULL;
	json_t *j = json_string(s), *q;

	if (!j) {
		/* not UTF-8 (a struct made by the session from git's bytes) */
		lossy = utf8_lossy(s);
		j = lossy ? json_string(lossy) : NULL;
	}
	q = j ? json_quote_tree(j) : NULL;
	if (q)
		out = strdup(json_string_value(q));
	json_decref(q);
	json_decref(j);
	free(lossy);
	return out;
}

struct copier {
	int err;			/* sticky: -ENOMEM */
};

static char *copy_str(struct copier *cp, const char *s)
{
	char *d;

	if (!s)
		return NULL;
	d = quote_for_text(s);
	if (!d)
		cp->err = -ENOMEM;
	return d;
}

/* n elements of size bytes from src; NULL for none or out of memory */
static void *copy_array(struct copier *cp, const void *src, size_t n, size_t size)
{
	void *d = n ? malloc(n * size) : NULL;

	if (n && !d)
		cp->err = -ENOMEM;
	else if (n)
		memcpy(d, src, n * size);
	return d;
}

static void copy_object(struct copier *cp, const struct shape *sh, void *d, const void *s);

/*
 * Member f of d, a bitwise copy of s, made its own: every pointer of s
 * replaced by a copy, or by NULL where one could not be made, so that d
 * is released safely either way.
 */
static void copy_field(struct copier *cp, const struct field *f, void *d, const void *s)
{
	switch (f->kind) {
	case FK_STRING:
		*MEMBER(char *, d, f) = copy_str(cp, *CMEMBER(char *const, s, f));
		break;
	case FK_VALUES: {
		struct bisect_values *dv = MEMBER(struct bisect_values, d, f);

		dv->v = copy_array(cp, dv->v, dv->n, sizeof(*dv->v));
		dv->n = dv->cap = dv->v ? dv->n : 0;
		break;
	}
	case FK_OBJECT:
	case FK_INLINE:
		copy_object(cp, f->sub, MEMBER(char, d, f), CMEMBER(char, s, f));
		break;
	case FK_ENTRY:
		copy_object(cp, &entry_shape, MEMBER(char, d, f), CMEMBER(char, s, f));
		break;
	case FK_ENTRIES: {
		struct bisect_entries *da = MEMBER(struct bisect_entries, d, f);
		const struct bisect_entries *sa = CMEMBER(struct bisect_entries, s, f);

		da->v = copy_array(cp, sa->v, sa->n, sizeof(*sa->v));
		da->n = da->cap = da->v ? sa->n : 0;
		for (size_t k = 0; k < da->n; k++)
			copy_object(cp, &entry_shape, &da->v[k], &sa->v[k]);
		break;
	}
	case FK_MERGE: {
		struct bisect_merge **dm = MEMBER(struct bisect_merge *, d, f), *sm = *dm;

		*dm = copy_array(cp, sm, sm ? 1 : 0, sizeof(*sm));
		if (!*dm)
			break;
		copy_object(cp, &merge_shape, *dm, sm);
		(*dm)->inner = copy_array(cp, sm->inner, sm->inner ? 1 : 0, sizeof(*sm->inner));
		if ((*dm)->inner)
			copy_object(cp, &level_shape, (*dm)->inner, sm->inner);
		break;
	}
	case FK_PARAMS: {
		struct bisect_params *dp = MEMBER(struct bisect_params, d, f);
		const struct bisect_params *sp = CMEMBER(struct bisect_params, s, f);

		dp->v = copy_array(cp, sp->v, sp->n, sizeof(*sp->v));
		dp->n = dp->cap = dp->v ? sp->n : 0;
		for (size_t k = 0; k < dp->n; k++) {
			dp->v[k].key = copy_str(cp, sp->v[k].key);
			dp->v[k].string = copy_str(cp, sp->v[k].string);
		}
		break;
	}
	case FK_SPEC: {
		struct bisect_spec **ds = MEMBER(struct bisect_spec *, d, f);
		const struct bisect_spec *ss = *ds;

		/* the spec is not shown as text: copied as it is */
		*ds = ss ? malloc(sizeof(**ds)) : NULL;
		if (ss && (!*ds || bisect_spec_copy(*ds, ss))) {
			free(*ds);
			*ds = NULL;
			cp->err = -ENOMEM;
		}
		break;
	}
	default:
		break;
	}
}

static void copy_object(struct copier *cp, const struct shape *sh, void *d, const void *s)
{
	for (size_t i = 0; i < sh->n; i++)
		copy_field(cp, &sh->v[i], d, s);
}

int bisect_result_quoted(const struct bisect_result *src, struct bisect_result *dst)
{
	struct copier cp = { 0 };

	*dst = *src;
	copy_object(&cp, &result_shape, dst, src);
	if (cp.err)
		bisect_result_release(dst);
	return cp.err;
}

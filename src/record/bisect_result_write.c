/*
 * bisect_result_write.c - a bisection's result written as its JSON
 * document (bisect_result.h), the one writer: the shape's keys in the
 * shape's order (bisect_result_shape.c), so that a result reads back and
 * is written again byte for byte, and old databases show as they always
 * did.  What is unknown is left out.
 */
#include "record/bisect_result_internal.h"
#include "util/quote.h"
#include "util/strbuf.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>

struct out {
	int err;			/* sticky: -ENOMEM */
};

/* o[key] = v, which o takes; NULL v (jansson out of memory) is recorded */
static void put(struct out *w, json_t *o, const char *key, json_t *v)
{
	if (json_object_set_new(o, key, v))
		w->err = -ENOMEM;
}

static json_t *values_json(struct out *w, const struct bisect_values *v)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < v->n; i++)
		if (json_array_append_new(a, json_real(v->v[i])))
			w->err = -ENOMEM;
	return a;
}

static json_t *params_json(struct out *w, const struct bisect_params *p)
{
	json_t *o = json_object();

	for (size_t i = 0; o && i < p->n; i++) {
		const struct bisect_param *x = &p->v[i];
		json_t *v = x->kind == BISECT_PARAM_STRING ? json_str(x->string) :
			    x->kind == BISECT_PARAM_INTEGER ? json_integer(x->integer) :
							      json_real(x->real);

		if (json_object_set_lossy(o, x->key, v))
			w->err = -ENOMEM;
	}
	return o;
}

static json_t *spec_json(struct out *w, const struct bisect_spec *sp)
{
	char *text = NULL;
	json_t *j = NULL;

	/* the spec's one writer is bisect_spec_to_json() */
	if (!bisect_spec_to_json(sp, &text))
		j = json_loads(text, 0, NULL);
	if (!j)
		w->err = -ENOMEM;
	free(text);
	return j;
}

static json_t *object_json(struct out *w, const struct shape *sh, const void *base);

static json_t *entries_json(struct out *w, const struct bisect_entries *a)
{
	json_t *arr = json_array();

	for (size_t i = 0; arr && i < a->n; i++)
		if (json_array_append_new(arr, object_json(w, &entry_shape, &a->v[i])))
			w->err = -ENOMEM;
	return arr;
}

static json_t *merge_json(struct out *w, const struct bisect_merge *m)
{
	json_t *o = object_json(w, &merge_shape, m);

	if (o && m->inner)
		put(w, o, "inner", object_json(w, &level_shape, m->inner));
	return o;
}

/* Field f of the struct at base into o, when it is known. */
static void put_field(struct out *w, json_t *o, const struct field *f, const void *base)
{
	switch (f->kind) {
	case FK_STRING: {
		const char *s = *CMEMBER(char *const, base, f);

		/* a struct may hold git's bytes: made valid UTF-8 (util/quote.h) */
		if (s)
			put(w, o, f->key, json_str(s));
		break;
	}
	case FK_NUMBER:
		if (!isnan(*CMEMBER(double, base, f)))
			put(w, o, f->key, json_real(*CMEMBER(double, base, f)));
		break;
	case FK_COUNT:
		if (*CMEMBER(long, base, f) != BISECT_UNKNOWN)
			put(w, o, f->key, json_integer((json_int_t)*CMEMBER(long, base, f)));
		break;
	case FK_BOOL:
		if (*CMEMBER(int, base, f) >= 0)
			put(w, o, f->key, json_boolean(*CMEMBER(int, base, f)));
		break;
	case FK_ID:
		if (*CMEMBER(int64_t, base, f) != BISECT_UNKNOWN)
			put(w, o, f->key, json_integer((json_int_t)*CMEMBER(int64_t, base, f)));
		break;
	case FK_VALUES:
		if (CMEMBER(struct bisect_values, base, f)->present)
			put(w, o, f->key, values_json(w, CMEMBER(struct bisect_values, base, f)));
		break;
	case FK_OBJECT:
		if (*CMEMBER(bool, base, f))
			put(w, o, f->key, object_json(w, f->sub, CMEMBER(char, base, f)));
		break;
	case FK_INLINE:
		for (size_t i = 0; i < f->sub->n; i++)
			put_field(w, o, &f->sub->v[i], CMEMBER(char, base, f));
		break;
	case FK_ENTRY:
		if (*(const bool *)((const char *)base + f->have))
			put(w, o, f->key, object_json(w, &entry_shape, CMEMBER(char, base, f)));
		break;
	case FK_ENTRIES:
		if (CMEMBER(struct bisect_entries, base, f)->present)
			put(w, o, f->key, entries_json(w, CMEMBER(struct bisect_entries, base, f)));
		break;
	case FK_STATUS:
		put(w, o, f->key,
		    json_string(bisect_status_name(*CMEMBER(enum bisect_status, base, f))));
		break;
	case FK_STATE: {
		enum bisect_commit_state st = *CMEMBER(enum bisect_commit_state, base, f);

		if (st != BISECT_STATE_UNKNOWN)
			put(w, o, f->key, json_string(st == BISECT_STATE_SKIPPED ? "skipped"
										 : "measured"));
		break;
	}
	case FK_MERGE:
		if (*CMEMBER(struct bisect_merge *const, base, f))
			put(w, o, f->key, merge_json(w, *CMEMBER(struct bisect_merge *const, base, f)));
		break;
	case FK_PARAMS:
		if (CMEMBER(struct bisect_params, base, f)->present)
			put(w, o, f->key, params_json(w, CMEMBER(struct bisect_params, base, f)));
		break;
	case FK_SPEC:
		if (*CMEMBER(struct bisect_spec *const, base, f))
			put(w, o, f->key, spec_json(w, *CMEMBER(struct bisect_spec *const, base, f)));
		break;
	}
}

static json_t *object_json(struct out *w, const struct shape *sh, const void *base)
{
	json_t *o = json_object();

	for (size_t i = 0; o && i < sh->n; i++)
		put_field(w, o, &sh->v[i], base);
	return o;
}

/*
 * A result no level was written into: a bisection that failed, or was
 * stopped, before the end of its first level.
 */
static bool bare(const struct bisect_level *lv)
{
	return lv->candidates == BISECT_UNKNOWN && !lv->baseline.present &&
	       lv->runs_search == BISECT_UNKNOWN && !lv->best.present &&
	       !lv->commits.present && !lv->have_culprit && !lv->range.present &&
	       !lv->confirmation.present && !lv->merge;
}

int bisect_result_to_json(const struct bisect_result *r, enum bisect_json_style style,
			  char **text, char *err, size_t errlen)
{
	struct out w = { 0 };
	json_t *doc;
	int ret;

	*text = NULL;
	ret = result_rules(r, false, err, errlen);
	if (ret)
		return ret;
	doc = object_json(&w, bare(&r->level) ? &bare_shape : &result_shape, r);
	if (doc && !w.err)
		*text = json_dumps(doc, JSON_REAL_PRECISION(10) |
			       (style == BISECT_JSON_INDENT ? JSON_INDENT(2) : JSON_COMPACT));
	json_decref(doc);
	if (!*text) {
		str_copy_marked(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

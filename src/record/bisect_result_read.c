/*
 * bisect_result_read.c - a bisection's result read from its JSON document
 * (bisect_result.h), the one reader, by the shape of the document
 * (bisect_result_shape.c); and a stored bisection read back as the
 * document `bisect status` and `report --bisect` show.
 *
 * Every field is untrusted (design.md §11): each is checked for its type
 * and bounds as it is read, and the document's rules once it is whole
 * (bisect_result_rules.c).  Keys the shape does not know are passed over.
 */
#define _GNU_SOURCE
#include "record/bisect_result_internal.h"
#include "util/strbuf.h"
#include "util/vec.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* null is "not known", as absent: report_json writes uncomputed numbers so */
static const json_t *get(const json_t *o, const char *key)
{
	const json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;

	return json_is_null(v) ? NULL : v;
}

/* o[key] when it is known and `ok`; else NULL, refused as not `expected` */
static const json_t *typed(struct ctx *c, const struct where *w, const json_t *o,
			   const char *key, bool (*ok)(const json_t *v),
			   const char *expected)
{
	const json_t *v = get(o, key);

	if (v && !ok(v)) {
		result_bad(c, AT(w, key), "expected %s", expected);
		return NULL;
	}
	return v;
}

static bool is_string(const json_t *v) { return json_is_string(v); }
static bool is_number(const json_t *v) { return json_is_number(v); }
static bool is_boolean(const json_t *v) { return json_is_boolean(v); }
static bool is_object(const json_t *v) { return json_is_object(v); }
static bool is_array(const json_t *v) { return json_is_array(v); }

/* A count or an index: a non-negative integer (1.0 is taken as 1). */
static bool is_count(const json_t *v)
{
	double d = json_is_real(v) ? json_real_value(v) : -1;

	if (json_is_integer(v))
		return json_integer_value(v) >= 0 && json_integer_value(v) <= COUNT_MAX;
	return d >= 0 && d <= COUNT_MAX && d == floor(d);
}

static bool is_id(const json_t *v)
{
	return json_is_integer(v) && json_integer_value(v) >= 0;
}

static char *read_str(struct ctx *c, const struct where *w, const json_t *o,
		      const char *key)
{
	const json_t *v = typed(c, w, o, key, is_string, "a string");
	char *s;

	if (!v)
		return NULL;
	s = strdup(json_string_value(v));
	if (!s)
		result_nomem(c);
	return s;
}

/*
 * The array o[key], room made for its elements in vec (a struct with v,
 * n, cap and present); NULL when it is absent, refused or out of memory.
 */
#define open_list(c, w, o, key, vec)                                         \
	open_list_((c), (w), (o), (key), (void **)&(vec)->v, &(vec)->cap,     \
		   sizeof(*(vec)->v), &(vec)->present)

static const json_t *open_list_(struct ctx *c, const struct where *w, const json_t *o,
				const char *key, void **v, size_t *cap, size_t size,
				bool *present)
{
	const json_t *a = typed(c, w, o, key, is_array, "an array");

	if (!a)
		return NULL;
	if (json_array_size(a) > BISECT_MAX_ENTRIES) {
		result_bad(c, AT(w, key), "more than %d entries", BISECT_MAX_ENTRIES);
		return NULL;
	}
	*present = true;
	if (vec_reserve_(v, cap, json_array_size(a), size)) {
		result_nomem(c);
		return NULL;
	}
	return a;
}

static void read_values(struct ctx *c, const struct where *w, const json_t *o,
			const char *key, struct bisect_values *out)
{
	const json_t *a = open_list(c, w, o, key, out), *x;
	size_t i;

	json_array_foreach(a, i, x) {
		if (!json_is_number(x)) {
			result_bad(c, AT_INDEX(AT(w, key), i), "expected a number");
			return;
		}
		out->v[out->n++] = json_number_value(x);
	}
}

static void read_object(struct ctx *c, const struct where *w, const json_t *o,
			const struct shape *sh, void *base, int depth);

static void read_entries(struct ctx *c, const struct where *w, const json_t *o,
			 const char *key, struct bisect_entries *out)
{
	const json_t *a = open_list(c, w, o, key, out), *x;
	size_t i;

	json_array_foreach(a, i, x) {
		const struct where *at = AT_INDEX(AT(w, key), i);
		struct bisect_entry *e = &out->v[out->n++];

		bisect_entry_init(e);
		if (!json_is_object(x)) {
			result_bad(c, at, "expected an object");
			return;
		}
		read_object(c, at, x, &entry_shape, e, 0);
	}
}

static void read_status(struct ctx *c, const struct where *w, const json_t *o,
			const char *key, enum bisect_status *out)
{
	char *s = read_str(c, w, o, key);

	if (!s && !c->ret)
		result_bad(c, AT(w, key), "missing");
	else if (s && bisect_status_parse(s, out))
		result_bad(c, AT(w, key), "not a status of a bisection");
	free(s);
}

static void read_state(struct ctx *c, const struct where *w, const json_t *o,
		       const char *key, enum bisect_commit_state *out)
{
	char *s = read_str(c, w, o, key);

	if (s && !strcmp(s, "measured"))
		*out = BISECT_STATE_MEASURED;
	else if (s && !strcmp(s, "skipped"))
		*out = BISECT_STATE_SKIPPED;
	else if (s)
		result_bad(c, AT(w, key), "neither measured nor skipped");
	free(s);
}

static void read_merge(struct ctx *c, const struct where *w, const json_t *o,
		       const char *key, struct bisect_merge **out, int depth)
{
	const json_t *m = typed(c, w, o, key, is_object, "an object"), *inner;
	struct bisect_merge *mg;

	if (!m)
		return;
	w = AT(w, key);
	mg = *out = calloc(1, sizeof(**out));
	if (!mg) {
		result_nomem(c);
		return;
	}
	read_object(c, w, m, &merge_shape, mg, depth);
	inner = typed(c, w, m, "inner", is_object, "an object");
	if (!inner || c->ret)
		return;
	if (depth >= BISECT_MAX_DEPTH) {
		result_bad(c, AT(w, "inner"), "merges nested deeper than %d", BISECT_MAX_DEPTH);
		return;
	}
	mg->inner = malloc(sizeof(*mg->inner));
	if (!mg->inner) {
		result_nomem(c);
		return;
	}
	bisect_level_init(mg->inner);
	read_status(c, AT(w, "inner"), inner, "status", &mg->inner->status);
	read_object(c, AT(w, "inner"), inner, &level_shape, mg->inner, depth + 1);
}

static void read_params(struct ctx *c, const struct where *w, const json_t *o,
			const char *key, struct bisect_params *out)
{
	const json_t *p = typed(c, w, o, key, is_object, "an object"), *v;
	const char *name;

	if (!p)
		return;
	out->present = true;
	if (vec_reserve(out, json_object_size(p))) {
		result_nomem(c);
		return;
	}
	json_object_foreach((json_t *)p, name, v) {
		struct bisect_param *x = &out->v[out->n];

		*x = (struct bisect_param){ 0 };
		if (json_is_string(v)) {
			x->kind = BISECT_PARAM_STRING;
			x->string = strdup(json_string_value(v));
		} else if (json_is_integer(v)) {
			x->kind = BISECT_PARAM_INTEGER;
			x->integer = json_integer_value(v);
		} else if (json_is_real(v)) {
			x->kind = BISECT_PARAM_REAL;
			x->real = json_real_value(v);
		} else {
			result_bad(c, AT(AT(w, key), name), "neither a string nor a number");
			return;
		}
		x->key = strdup(name);
		out->n++;
		if (!x->key || (x->kind == BISECT_PARAM_STRING && !x->string)) {
			result_nomem(c);
			return;
		}
	}
}

static void read_spec(struct ctx *c, const struct where *w, const json_t *o,
		      const char *key, struct bisect_spec **out)
{
	const json_t *s = typed(c, w, o, key, is_object, "an object");
	char *text;

	if (!s)
		return;
	/* the spec's one reader is bisect_spec_from_json() */
	text = json_dumps(s, JSON_COMPACT);
	*out = calloc(1, sizeof(**out));
	if (!text || !*out)
		result_nomem(c);
	else if (bisect_spec_from_json(text, *out))
		result_bad(c, AT(w, key), "not the spec of a bisection");
	/* on any error *out stays, for bisect_result_release() */
	free(text);
}

/*
 * Field f of the struct at base from o.  The status is read where a level
 * starts (read_merge(), read_result()): a stored result's is the store's.
 */
static void read_field(struct ctx *c, const struct where *w, const json_t *o,
		       const struct field *f, void *base, int depth)
{
	const json_t *v;

	switch (f->kind) {
	case FK_STRING:
		*MEMBER(char *, base, f) = read_str(c, w, o, f->key);
		break;
	case FK_NUMBER:
		v = typed(c, w, o, f->key, is_number, "a number");
		if (v)
			*MEMBER(double, base, f) = json_number_value(v);
		break;
	case FK_COUNT:
		v = typed(c, w, o, f->key, is_count, "an integer from 0 to 2147483647");
		if (v)
			*MEMBER(long, base, f) = (long)json_number_value(v);
		break;
	case FK_BOOL:
		v = typed(c, w, o, f->key, is_boolean, "true or false");
		if (v)
			*MEMBER(int, base, f) = json_is_true(v);
		break;
	case FK_ID:
		if (c->stored)
			break;
		v = typed(c, w, o, f->key, is_id, "a non-negative integer");
		if (v)
			*MEMBER(int64_t, base, f) = json_integer_value(v);
		break;
	case FK_VALUES:
		read_values(c, w, o, f->key, MEMBER(struct bisect_values, base, f));
		break;
	case FK_OBJECT:
		v = typed(c, w, o, f->key, is_object, "an object");
		if (v) {
			*MEMBER(bool, base, f) = true;
			read_object(c, AT(w, f->key), v, f->sub, MEMBER(char, base, f), depth);
		}
		break;
	case FK_INLINE:
		if (f->sub->present)
			*MEMBER(bool, base, f) = true;
		read_object(c, w, o, f->sub, MEMBER(char, base, f), depth);
		break;
	case FK_ENTRY:
		v = typed(c, w, o, f->key, is_object, "an object");
		if (v) {
			*(bool *)((char *)base + f->have) = true;
			read_object(c, AT(w, f->key), v, &entry_shape, MEMBER(char, base, f), depth);
		}
		break;
	case FK_ENTRIES:
		read_entries(c, w, o, f->key, MEMBER(struct bisect_entries, base, f));
		break;
	case FK_STATE:
		read_state(c, w, o, f->key, MEMBER(enum bisect_commit_state, base, f));
		break;
	case FK_MERGE:
		read_merge(c, w, o, f->key, MEMBER(struct bisect_merge *, base, f), depth);
		break;
	case FK_PARAMS:
		read_params(c, w, o, f->key, MEMBER(struct bisect_params, base, f));
		break;
	case FK_SPEC:
		if (!c->stored)
			read_spec(c, w, o, f->key, MEMBER(struct bisect_spec *, base, f));
		break;
	case FK_STATUS:
		break;
	}
}

static void read_object(struct ctx *c, const struct where *w, const json_t *o,
			const struct shape *sh, void *base, int depth)
{
	for (size_t i = 0; i < sh->n && !c->ret; i++)
		read_field(c, w, o, &sh->v[i], base, depth);
}

/* stored: a stored result, whose id, status and spec are the store's */
static void read_result(struct ctx *c, const json_t *o, struct bisect_result *r,
			bool stored)
{
	if (!json_is_object(o)) {
		result_bad(c, NULL, "not a JSON object");
		return;
	}
	c->stored = stored;
	if (!stored)
		read_status(c, NULL, o, "status", &r->level.status);
	read_object(c, NULL, o, &result_shape, r, 0);
	c->stored = false;
}

/* JSON text to a document, or what jansson says is wrong with it */
static json_t *parse(struct ctx *c, const struct where *w, const char *text, size_t len)
{
	json_error_t e;
	json_t *j = json_loadb(text, len, 0, &e);

	if (!j)
		result_bad(c, w, "%s (line %d, column %d)", e.text, e.line, e.column);
	return j;
}

int bisect_result_from_json(const char *text, size_t len, struct bisect_result *out,
			    char *err, size_t errlen)
{
	struct ctx c = { .err = err, .errlen = errlen };
	json_t *j;

	bisect_result_init(out);
	j = parse(&c, NULL, text, len);
	if (j)
		read_result(&c, j, out, false);
	json_decref(j);
	if (!c.ret)
		c.ret = result_rules(out, true, err, errlen);
	if (c.ret)
		bisect_result_release(out);
	return c.ret;
}

/* ---- a stored bisection ---- */

/* *field = value when the document does not say */
static void fill(struct ctx *c, char **field, const char *value)
{
	if (*field || !value)
		return;
	*field = strdup(value);
	if (!*field)
		result_nomem(c);
}

/* good or bad {sha, given} of the spec where the result has none */
static void fill_end(struct ctx *c, struct bisect_end *e, const char *sha,
		     const char *given)
{
	e->present = true;
	fill(c, &e->commit.sha, sha);
	fill(c, &e->given, given ? given : e->commit.sha);
}

static void complete(struct ctx *c, struct bisect_result *r, const struct bisect_spec *sp)
{
	struct bisect_level *lv = &r->level;

	fill_end(c, &lv->good, sp->good, sp->good_given);
	fill_end(c, &lv->bad, sp->bad, sp->bad_given);
	fill(c, &r->repo, sp->repo);
	fill(c, &r->job_path, sp->job_path);
	fill(c, &r->job_text, sp->job_text);
	fill(c, &r->metric, sp->metric);
	fill(c, &r->testbox, sp->testbox);
	if (isnan(lv->confidence))
		lv->confidence = sp->confidence;
	if (lv->max_runs == BISECT_UNKNOWN)
		lv->max_runs = sp->max_runs;
	r->spec = malloc(sizeof(*r->spec));
	if (!r->spec || bisect_spec_copy(r->spec, sp)) {
		free(r->spec);
		r->spec = NULL;
		result_nomem(c);
	}
}

int bisect_result_load(struct bisect_result *out, int64_t id, const char *status,
		       const char *result, const char *spec, char *err, size_t errlen)
{
	struct ctx c = { .err = err, .errlen = errlen };
	const struct where *res = AT(NULL, "result");
	struct bisect_spec sp = { 0 };
	json_t *j = NULL;

	bisect_result_init(out);
	if (bisect_spec_from_json(spec, &sp))
		result_bad(&c, AT(NULL, "spec"), "not the spec of a bisection");
	else if (bisect_status_parse(status, &out->level.status))
		result_bad(&c, AT(NULL, "status"), "not a status of a bisection");
	if (!c.ret && result) {
		j = parse(&c, res, result, strlen(result));
		if (j && !json_is_object(j))
			result_bad(&c, res, "not a JSON object");
		else if (j)
			read_result(&c, j, out, true);
	}
	json_decref(j);
	if (!c.ret) {
		out->id = id;
		complete(&c, out, &sp);
	}
	if (!c.ret)
		c.ret = result_rules(out, true, err, errlen);
	if (c.ret)
		bisect_result_release(out);
	bisect_spec_release(&sp);
	return c.ret;
}

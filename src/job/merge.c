/*
 * merge.c - a later document of an LKP job file applied to a copy of the
 * first (merge.h; docs/jobs.md "Several documents").  LKP's rule is
 * revise_hash(job, doc, overwrite_top_keys: true) in lkp-tests'
 * lib/hash.rb: plain keys first, then the keys with a meaning of their
 * own (`k-`, `k+`, `a.b`) in the document's order.
 *
 * Cost: each key is found by a linear search of its mapping, so a
 * document of k keys over a first one of n costs O(k * n) string
 * compares -- a job file has tens of keys.
 */
#define _GNU_SOURCE
#include "job/merge.h"
#include "util/vec.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct ynode *ytree_copy(const struct ynode *n)
{
	struct ynode *c = ynode_new(n->type, n->line, n->column);

	if (!c)
		return NULL;
	c->null = n->null;
	c->was_list = n->was_list;
	if ((n->scalar && !(c->scalar = strdup(n->scalar))) ||
	    (n->origin && !(c->origin = strdup(n->origin)))) {
		ytree_free(c);
		return NULL;
	}
	for (size_t i = 0; i < n->n; i++) {
		struct ynode *item = ytree_copy(n->items[i]);

		if (!item || ynode_append(c, item)) {
			ytree_free(c);
			return NULL;
		}
	}
	return c;
}

static int fail(struct job_error *err, const char *path, const struct ynode *at,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int fail(struct job_error *err, const char *path, const struct ynode *at,
		const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	job_error_vset(err, path, at->line, at->column, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* The index of key's pair in map (items[2i]), or map->n when absent. */
static size_t find_key(const struct ynode *map, const char *key, size_t len)
{
	for (size_t i = 0; i + 1 < map->n; i += 2)
		if (strlen(map->items[i]->scalar) == len &&
		    !memcmp(map->items[i]->scalar, key, len))
			return i;
	return map->n;
}

static void remove_items(struct ynode *parent, size_t at, size_t count)
{
	for (size_t i = at; i < at + count; i++)
		ytree_free(parent->items[i]);
	memmove(parent->items + at, parent->items + at + count,
		(parent->n - at - count) * sizeof(*parent->items));
	parent->n -= count;
}

/*
 * Set key (len bytes of name) of map to a copy of v: in place when the
 * map has it (the first document's order is kept, as a Ruby Hash keeps
 * it), else at the end.  at: the key as written, for its position.
 */
static int set_key(struct ynode *map, const char *name, size_t len,
		   const struct ynode *at, const struct ynode *v)
{
	size_t i = find_key(map, name, len);
	struct ynode *copy = ytree_copy(v), *key;
	char *text;

	if (!copy)
		return -ENOMEM;
	if (i < map->n) {
		ytree_free(map->items[i + 1]);
		map->items[i + 1] = copy;
		return 0;
	}
	text = strndup(name, len);
	key = text ? ynode_scalar(text, at->line, at->column) : NULL;
	free(text);
	if (!key) {
		ytree_free(copy);
		return -ENOMEM;
	}
	if (ynode_append(map, key)) {
		ytree_free(copy);
		return -ENOMEM;
	}
	return ynode_append(map, copy);
}

/*
 * The mapping that holds the last part of a dotted path (`a.b.c`: the
 * value of a.b), and that part's name.  With create, a missing or empty
 * (null) section on the way becomes an empty mapping, as LKP's
 * lookup_hash(create_missing: true); without, NULL when one is missing.
 */
static int walk(struct ynode *root, const char *path, size_t len, bool create,
		const struct ynode *at, const char *file, struct job_error *err,
		struct ynode **map, const char **last, size_t *last_len)
{
	const char *p = path, *end = path + len;

	*map = root;
	for (;;) {
		const char *dot = memchr(p, '.', (size_t)(end - p));
		size_t i;

		if (dot == p || p == end || (dot && dot + 1 == end))
			return fail(err, file, at, "empty name in the dotted key '%s'",
				    at->scalar);
		if (!dot) {
			*last = p;
			*last_len = (size_t)(end - p);
			return 0;
		}
		i = find_key(*map, p, (size_t)(dot - p));
		if (i == (*map)->n) {
			struct ynode *sect;

			if (!create) {
				*map = NULL;
				return 0;
			}
			sect = ynode_new(YNODE_MAP, at->line, at->column);
			if (!sect)
				return -ENOMEM;
			if (set_key(*map, p, (size_t)(dot - p), at, sect)) {
				ytree_free(sect);
				return -ENOMEM;
			}
			ytree_free(sect);
			i = find_key(*map, p, (size_t)(dot - p));
		} else if ((*map)->items[i + 1]->type == YNODE_SCALAR &&
			   (*map)->items[i + 1]->null && create) {
			struct ynode *sect = ynode_new(YNODE_MAP, at->line, at->column);

			if (!sect)
				return -ENOMEM;
			ytree_free((*map)->items[i + 1]);
			(*map)->items[i + 1] = sect;
		} else if ((*map)->items[i + 1]->type != YNODE_MAP) {
			if (!create && (*map)->items[i + 1]->null) {
				*map = NULL;
				return 0;
			}
			return fail(err, file, at, "'%s': '%.*s' is not a section (it is at %u:%u)",
				    at->scalar, (int)(dot - p), p, (*map)->items[i + 1]->line,
				    (*map)->items[i + 1]->column);
		}
		*map = (*map)->items[i + 1];
		p = dot + 1;
	}
}

static bool in_names(const char *s, const struct ynode *names)
{
	if (names->type == YNODE_SCALAR)
		return !strcmp(s, names->scalar);
	for (size_t i = 0; i < names->n; i += names->type == YNODE_MAP ? 2 : 1)
		if (names->items[i]->type == YNODE_SCALAR && !strcmp(s, names->items[i]->scalar))
			return true;
	return false;
}

/* `k-`: delete k, or with a value, those values of k's list (keys of its section). */
static int minus_key(struct ynode *root, const struct ynode *k, const struct ynode *v,
		     const char *file, struct job_error *err)
{
	size_t len = strlen(k->scalar) - 1, last_len, i;
	struct ynode *map, *t;
	const char *last;
	int ret = walk(root, k->scalar, len, false, k, file, err, &map, &last, &last_len);

	if (ret || !map)
		return ret;
	i = find_key(map, last, last_len);
	if (i == map->n)
		return 0;	/* nothing to delete: as LKP, no error */
	if (v->type == YNODE_SCALAR && v->null) {
		remove_items(map, i, 2);
		return 0;
	}
	t = map->items[i + 1];
	if (t->type == YNODE_SCALAR)
		return fail(err, file, k, "'%s' deletes values of '%.*s', which is a single value "
			    "(at %u:%u); write '%.*s-:' alone to delete it", k->scalar,
			    (int)last_len, last, t->line, t->column, (int)last_len, last);
	for (size_t j = 0; j < t->n;) {
		const struct ynode *e = t->items[j];
		size_t step = t->type == YNODE_MAP ? 2 : 1;

		if (e->type == YNODE_SCALAR && in_names(e->scalar, v))
			remove_items(t, j, step);
		else
			j += step;
	}
	if (!t->n) {
		/* LKP leaves nil: an emptied list or section is a key without a value */
		struct ynode *none = ynode_scalar("", t->line, t->column);

		if (!none)
			return -ENOMEM;
		none->null = true;
		ytree_free(map->items[i + 1]);
		map->items[i + 1] = none;
	}
	return 0;
}

struct keyed_item {
	const char *s;
	size_t i;
};

static int cmp_keyed_item(const void *a, const void *b)
{
	const struct keyed_item *x = a, *y = b;
	int c = strcmp(x->s, y->s);

	return c ? c : (x->i > y->i) - (x->i < y->i);
}

/*
 * Drop a list's later repeats (LKP: merge_v.uniq!), keeping the order:
 * by sorting a copy, O(n log n) -- a list may hold 100,000 values.
 */
static int uniq(struct ynode *seq)
{
	struct keyed_item *k = malloc((seq->n ? seq->n : 1) * sizeof(*k));
	bool *drop = calloc(seq->n ? seq->n : 1, sizeof(*drop));
	size_t nk = 0, out = 0;

	if (!k || !drop) {
		free(k);
		free(drop);
		return -ENOMEM;
	}
	for (size_t i = 0; i < seq->n; i++)
		if (seq->items[i]->type == YNODE_SCALAR)
			k[nk++] = (struct keyed_item){ seq->items[i]->scalar, i };
	qsort(k, nk, sizeof(*k), cmp_keyed_item);
	for (size_t i = 1; i < nk; i++)
		if (!strcmp(k[i - 1].s, k[i].s))
			drop[k[i].i] = true;
	for (size_t i = 0; i < seq->n; i++) {
		if (drop[i])
			ytree_free(seq->items[i]);
		else
			seq->items[out++] = seq->items[i];
	}
	seq->n = out;
	free(k);
	free(drop);
	return 0;
}

/* Append a copy of v (a list's items, or v) to seq. */
static int append_values(struct ynode *seq, const struct ynode *v)
{
	size_t n = v->type == YNODE_SEQ ? v->n : 1;

	for (size_t i = 0; i < n; i++) {
		struct ynode *c = ytree_copy(v->type == YNODE_SEQ ? v->items[i] : v);

		if (!c || ynode_append(seq, c))
			return -ENOMEM;
	}
	return 0;
}

/* `k+`: add v's values to k (LKP's merge_accumulative, then uniq). */
static int plus_key(struct ynode *root, const struct ynode *k, const struct ynode *v,
		    const char *file, struct job_error *err)
{
	size_t len = strlen(k->scalar) - 1, last_len, i;
	struct ynode *map, *old, *seq;
	const char *last;
	int ret = walk(root, k->scalar, len, true, k, file, err, &map, &last, &last_len);

	if (ret)
		return ret;
	i = find_key(map, last, last_len);
	old = i < map->n ? map->items[i + 1] : NULL;
	if (!old || (old->type == YNODE_SCALAR && old->null))
		return set_key(map, last, last_len, k, v);
	if (old->type == YNODE_MAP || v->type == YNODE_MAP) {
		if (old->type != YNODE_MAP || v->type != YNODE_MAP)
			return fail(err, file, k, "'%s' adds %s to '%.*s', which is %s (at %u:%u)",
				    k->scalar, v->type == YNODE_MAP ? "a section" : "values",
				    (int)last_len, last,
				    old->type == YNODE_MAP ? "a section" : "not one",
				    old->line, old->column);
		for (size_t j = 0; j + 1 < v->n; j += 2) {
			const struct ynode *sk = v->items[j];

			ret = set_key(old, sk->scalar, strlen(sk->scalar), sk, v->items[j + 1]);
			if (ret)
				return ret;
		}
		return 0;
	}
	if (old->type == YNODE_SEQ) {
		seq = old;
	} else {
		/* a value and more values: a list, a dimension of the matrix */
		seq = ynode_new(YNODE_SEQ, old->line, old->column);
		if (!seq)
			return -ENOMEM;
		if (ynode_append(seq, old)) {
			/* the append freed old */
			map->items[i + 1] = NULL;
			ytree_free(seq);
			return -ENOMEM;
		}
		map->items[i + 1] = seq;
	}
	ret = append_values(seq, v);
	return ret ? ret : uniq(seq);
}

/* `a.b: v`: key b of section a (created when missing). */
static int dotted_key(struct ynode *root, const struct ynode *k, const struct ynode *v,
		      const char *file, struct job_error *err)
{
	struct ynode *map;
	const char *last;
	size_t last_len;
	int ret = walk(root, k->scalar, strlen(k->scalar), true, k, file, err, &map, &last,
		       &last_len);

	return ret ? ret : set_key(map, last, last_len, k, v);
}

enum key_kind { KEY_PLAIN, KEY_MINUS, KEY_PLUS, KEY_DOTTED };

static enum key_kind kind_of(const char *key)
{
	size_t len = strlen(key);

	if (len > 1 && key[len - 1] == '-')
		return KEY_MINUS;
	if (len > 1 && key[len - 1] == '+')
		return KEY_PLUS;
	return strchr(key, '.') ? KEY_DOTTED : KEY_PLAIN;
}

int job_merge_doc(struct ynode *base, const struct ynode *doc, const char *path,
		  struct job_error *err)
{
	int ret = 0;

	if (doc->type != YNODE_MAP)
		return fail(err, path, doc, "a job's document must be a mapping of keys to values");
	/* as revise_hash(): every plain key first, then the others in order */
	for (int pass = 0; !ret && pass < 2; pass++) {
		for (size_t i = 0; !ret && i + 1 < doc->n; i += 2) {
			const struct ynode *k = doc->items[i], *v = doc->items[i + 1];
			enum key_kind kind = kind_of(k->scalar);

			if ((kind == KEY_PLAIN) != (pass == 0))
				continue;
			switch (kind) {
			case KEY_PLAIN:
				ret = set_key(base, k->scalar, strlen(k->scalar), k, v);
				break;
			case KEY_MINUS:
				ret = minus_key(base, k, v, path, err);
				break;
			case KEY_PLUS:
				ret = plus_key(base, k, v, path, err);
				break;
			case KEY_DOTTED:
				ret = dotted_key(base, k, v, path, err);
				break;
			}
		}
	}
	return ret;
}

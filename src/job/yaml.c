#define _GNU_SOURCE
#include "job/yaml.h"
#include "util/vec.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

struct ynode *ynode_new(enum ynode_type type, unsigned line, unsigned column)
{
	struct ynode *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->type = type;
	n->line = line;
	n->column = column;
	n->dim = -1;
	return n;
}

struct ynode *ynode_scalar(const char *text, unsigned line, unsigned column)
{
	struct ynode *n = ynode_new(YNODE_SCALAR, line, column);

	if (!n)
		return NULL;
	n->scalar = strdup(text);
	if (!n->scalar) {
		free(n);
		return NULL;
	}
	return n;
}

int ynode_append(struct ynode *parent, struct ynode *child)
{
	if (vec_reserve_((void **)&parent->items, &parent->cap, parent->n + 1,
			 sizeof(*parent->items))) {
		ytree_free(child);
		return -ENOMEM;
	}
	parent->items[parent->n++] = child;
	return 0;
}

void ytree_free(struct ynode *node)
{
	if (!node)
		return;
	for (size_t i = 0; i < node->n; i++)
		ytree_free(node->items[i]);
	free(node->items);
	free(node->scalar);
	free(node->origin);
	free(node);
}

static int fail(struct job_error *err, const char *path, yaml_mark_t mark,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int fail(struct job_error *err, const char *path, yaml_mark_t mark,
		const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	job_error_vset(err, path, (unsigned)mark.line + 1, (unsigned)mark.column + 1, fmt,
		       ap);
	va_end(ap);
	return -EINVAL;
}

static bool is_null(const yaml_event_t *ev)
{
	static const char *const nulls[] = { "", "~", "null", "Null", "NULL" };
	const char *v = (const char *)ev->data.scalar.value;

	if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	for (size_t i = 0; i < sizeof(nulls) / sizeof(nulls[0]); i++)
		if (!strcmp(v, nulls[i]))
			return true;
	return false;
}

struct keyed {
	const char *s;
	size_t i;
};

static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	int c = strcmp(x->s, y->s);

	return c ? c : (x->i > y->i) - (x->i < y->i);
}

size_t first_duplicate(const char *const *v, size_t n, size_t *earlier)
{
	struct keyed *k;
	size_t best = n;

	if (n < 2)
		return n;
	k = malloc(n * sizeof(*k));
	if (!k)
		return (size_t)-1;
	for (size_t i = 0; i < n; i++)
		k[i] = (struct keyed){ v[i], i };
	qsort(k, n, sizeof(*k), cmp_keyed);
	/* in a run of equal strings the second is its first repeat */
	for (size_t i = 1; i < n; i++) {
		if (strcmp(k[i - 1].s, k[i].s) || (i > 1 && !strcmp(k[i - 2].s, k[i].s)))
			continue;
		if (k[i].i < best) {
			best = k[i].i;
			*earlier = k[i - 1].i;
		}
	}
	free(k);
	return best;
}

/*
 * A mapping's keys are unique: checked when the mapping ends, by sorting
 * (checking each key as it came against all before it was quadratic).
 */
static int check_keys(const struct ynode *map, struct job_error *err,
		      const char *path)
{
	size_t nk = map->n / 2, dup, earlier = 0;
	const char **keys = malloc((nk ? nk : 1) * sizeof(*keys));

	if (!keys)
		return -ENOMEM;
	for (size_t i = 0; i < nk; i++)
		keys[i] = map->items[2 * i]->scalar;
	dup = first_duplicate(keys, nk, &earlier);
	free(keys);
	if (dup == (size_t)-1)
		return -ENOMEM;
	if (dup == nk)
		return 0;
	{
		const struct ynode *k = map->items[2 * dup];
		yaml_mark_t mark = { .line = k->line - 1, .column = k->column - 1 };

		return fail(err, path, mark, "duplicate key '%s'", k->scalar);
	}
}

#define MAX_DEPTH 64

void ydocs_free(struct ydoc *docs, size_t n)
{
	for (size_t i = 0; docs && i < n; i++)
		ytree_free(docs[i].root);
	free(docs);
}

int ytree_load_docs(const char *path, struct ydoc **out, size_t *nr,
		    struct job_error *err)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	struct ynode *stack[MAX_DEPTH], *top = NULL, *node;
	struct ydoc *docs = NULL;
	size_t depth = 0, ndocs = 0, cap = 0;
	bool done = false, have_event = false;
	FILE *f;
	int ret = 0;

	*out = NULL;
	*nr = 0;
	f = fopen(path, "r");
	if (!f) {
		ret = -errno;
		job_error_set(err, path, 0, 0, "cannot read the job file: %s", strerror(-ret));
		return ret;
	}
	if (!yaml_parser_initialize(&parser)) {
		fclose(f);
		return -ENOMEM;
	}
	yaml_parser_set_input_file(&parser, f);

	while (!done) {
		if (!yaml_parser_parse(&parser, &ev)) {
			if (parser.error == YAML_MEMORY_ERROR) {
				ret = -ENOMEM;
			} else if (parser.context) {
				ret = fail(err, path, parser.problem_mark, "%s %s at %zu:%zu",
					   parser.problem, parser.context,
					   parser.context_mark.line + 1,
					   parser.context_mark.column + 1);
			} else if (parser.error == YAML_READER_ERROR) {
				/* the reader counts bytes, not lines */
				ret = fail(err, path, parser.problem_mark, "%s at byte %zu",
					   parser.problem, parser.problem_offset);
				err->line = err->column = 0;
				if (ferror(f))
					job_error_set(err, path, 0, 0,
						      "cannot read the job file: %s",
						      strerror(errno));
			} else {
				ret = fail(err, path, parser.problem_mark, "%s",
					   parser.problem);
			}
			goto out;
		}
		have_event = true;
		node = NULL;
		switch (ev.type) {
		case YAML_DOCUMENT_START_EVENT:
			if (vec_reserve_((void **)&docs, &cap, ndocs + 1, sizeof(*docs))) {
				ret = -ENOMEM;
				goto out;
			}
			docs[ndocs++] = (struct ydoc){
				.line = (unsigned)ev.start_mark.line + 1,
				.column = (unsigned)ev.start_mark.column + 1,
			};
			break;
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		case YAML_ALIAS_EVENT:
			ret = fail(err, path, ev.start_mark,
				   "yaml aliases are not supported in job files (alias '%s')",
				   (const char *)ev.data.alias.anchor);
			goto out;
		case YAML_SCALAR_EVENT:
			node = ynode_scalar((const char *)ev.data.scalar.value,
					    ev.start_mark.line + 1,
					    ev.start_mark.column + 1);
			if (!node) {
				ret = -ENOMEM;
				goto out;
			}
			node->null = is_null(&ev);
			break;
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			node = ynode_new(ev.type == YAML_MAPPING_START_EVENT ?
					 YNODE_MAP : YNODE_SEQ,
					 ev.start_mark.line + 1,
					 ev.start_mark.column + 1);
			if (!node) {
				ret = -ENOMEM;
				goto out;
			}
			break;
		case YAML_MAPPING_END_EVENT:
			if ((ret = check_keys(stack[depth - 1], err, path)))
				goto out;
			/* fall through */
		case YAML_SEQUENCE_END_EVENT:
			top = --depth ? stack[depth - 1] : NULL;
			break;
		default:
			break;
		}
		if (node) {
			if (!top) {
				/* libyaml starts a document before its first node */
				docs[ndocs - 1].root = node;
			} else if (top->type == YNODE_MAP && top->n % 2 == 0) {
				if (node->type != YNODE_SCALAR) {
					ret = fail(err, path, ev.start_mark,
						   "mapping keys must be plain words");
					ytree_free(node);
					goto out;
				}
			}
			if (top && (ret = ynode_append(top, node)))
				goto out;
			if (node->type != YNODE_SCALAR) {
				if (depth == MAX_DEPTH) {
					ret = fail(err, path, ev.start_mark,
						   "nested more than %d levels deep",
						   MAX_DEPTH);
					goto out;
				}
				stack[depth++] = node;
				top = node;
			}
		}
		yaml_event_delete(&ev);
		have_event = false;
	}
out:
	if (have_event)
		yaml_event_delete(&ev);
	yaml_parser_delete(&parser);
	fclose(f);
	if (ret) {
		ydocs_free(docs, ndocs);
		return ret;
	}
	*out = docs;
	*nr = ndocs;
	return 0;
}

int ytree_load(const char *path, struct ynode **root, struct job_error *err)
{
	struct ydoc *docs;
	size_t n;
	int ret = ytree_load_docs(path, &docs, &n, err);

	*root = NULL;
	if (ret)
		return ret;
	if (n > 1) {
		job_error_set(err, path, docs[1].line, docs[1].column,
			      "a job file holds one yaml document; this is a second one");
		ydocs_free(docs, n);
		return -EINVAL;
	}
	if (n) {
		*root = docs[0].root;
		docs[0].root = NULL;
	}
	ydocs_free(docs, n);
	return 0;
}

void yaml_put_quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\x%02x", *p);
		else if (p[0] == 0xc2 && p[1] == 0x85 && (p += 1))
			fputs("\\N", f);
		else if (p[0] == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9) && (p += 2))
			fputs(p[0] == 0xa8 ? "\\L" : "\\P", f);
		else if (p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf && (p += 2))
			fputs("\\uFEFF", f);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

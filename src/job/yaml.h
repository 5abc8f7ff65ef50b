/*
 * yaml.h - job/'s private YAML tree: libyaml's events turned into nodes
 * that remember where they were written (1-based line and column), so
 * every later error can point at the value it is about.
 *
 * A mapping keeps its pairs in file order as items[2i] (key, always a
 * scalar) and items[2i+1] (value); duplicate keys are refused while
 * parsing.  Aliases are refused (a job is small; an alias would make one
 * node two places at once and its position ambiguous); anchors and tags
 * are ignored.  ytree_load() takes one document per file (a registry, a
 * run's job); ytree_load_docs() every document of the stream (LKP's job
 * files: a base and its variants, job/merge.c).  Positions are the
 * file's, whatever document a node is in.
 *
 * Ownership: ytree_load() returns a tree the caller frees with
 * ytree_free(); a node owns its children and its scalar.  Errors: 0 or a
 * negative errno, with err filled.  No state.
 */
#ifndef PERFBOT_JOB_YAML_H
#define PERFBOT_JOB_YAML_H

#include "job/job.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum ynode_type {
	YNODE_SCALAR,
	YNODE_SEQ,
	YNODE_MAP,
};

struct ynode {
	enum ynode_type type;
	unsigned line, column;	/* 1-based; 0 for a -s override */
	char *scalar;		/* YNODE_SCALAR: the text, never NULL */
	bool null;		/* a plain empty, ~ or null scalar */
	bool was_list;		/* an override narrowed a sequence to this */
	char *origin;		/* "-s key=value" for an override node */
	int dim;		/* job.c's bookkeeping: matrix dimension, or -1 */
	struct ynode **items;	/* SEQ: n items; MAP: n/2 key/value pairs */
	size_t n, cap;
};

struct ynode *ynode_new(enum ynode_type type, unsigned line, unsigned column);
struct ynode *ynode_scalar(const char *text, unsigned line, unsigned column);
/* Append child to a sequence or mapping; on failure child is freed. */
int ynode_append(struct ynode *parent, struct ynode *child);
void ytree_free(struct ynode *node);

/*
 * The first of n strings (in their order) equal to an earlier one: its
 * index, and in *earlier the index of the first equal one; n when all
 * differ, -ENOMEM as (size_t)-1.  Sorts a copy: O(n log n), so that a
 * job file of 200,000 values is checked in well under a second.
 */
size_t first_duplicate(const char *const *v, size_t n, size_t *earlier);

/*
 * s written as a YAML double-quoted scalar that reads back as the same
 * text: quotes and backslashes escaped, control bytes as \xNN, and
 * YAML's other line breaks (NEL, LS, PS) and the BOM escaped -- inside
 * quotes a reader would fold them.  For the writers of job and registry
 * text, which write plain scalars themselves when they can.
 */
void yaml_put_quoted(FILE *f, const char *s);

/* Parse path into *root (NULL for an empty file); a second document is an error. */
int ytree_load(const char *path, struct ynode **root, struct job_error *err);

/* One document of a stream: its root (NULL: empty) and where it starts. */
struct ydoc {
	struct ynode *root;
	unsigned line, column;	/* its "---", or its first node's position */
};

/* Every document of path, in order (*nr 0 for an empty file); ydocs_free(). */
int ytree_load_docs(const char *path, struct ydoc **docs, size_t *nr,
		    struct job_error *err);
void ydocs_free(struct ydoc *docs, size_t n);

#endif

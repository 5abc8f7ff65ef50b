/*
 * needs.h - what a queued item needs of a test box, as `perfbot submit
 * --needs` spells it: comma-separated terms
 *
 *   cpus>=N        at least N CPUs (online threads)
 *   mem>=SIZE      at least SIZE memory: N with M, G or T (MiB, GiB,
 *                  TiB; a bare number is MiB)
 *   arch=NAME      uname -m (x86_64, aarch64, ...)
 *   tag=NAME       a tag the worker was given (--tags); repeatable: all
 *   testbox=NAME   that box only
 *   class=NAME     a box of that class (perfbot queue class)
 *
 * The store matches them in SQL (store_queue_claim()); this module only
 * reads them.  A tag, a box or a class name is a word of letters, digits, '.',
 * '_', '-' (no comma: the list's separator).
 *
 * Ownership: needs_parse() fills *out, the caller releases it with
 * store_needs_release(), also after an error.  Errors: -EINVAL with the
 * message in err, naming the offending term ("--needs: 'cpus>=x': not a
 * number").  No state; thread-safe.
 */
#ifndef PERFBOT_QUEUE_NEEDS_H
#define PERFBOT_QUEUE_NEEDS_H

#include "store/store.h"
#include "util/strbuf.h"

int needs_parse(const char *text, struct store_needs *out, struct strbuf *err);

/* Why name is not a tag or box word, or NULL when it is one. */
const char *needs_word_problem(const char *name);

/*
 * A comma-separated list of words (--tags a,b; --testcases): a
 * NULL-terminated vector in *out (NULL for ""), or -EINVAL with err
 * naming the word ("--tags: 'a b': ...").  what: the option's name.
 */
int needs_split_words(const char *what, const char *list, char ***out, struct strbuf *err);

#endif

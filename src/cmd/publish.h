/*
 * publish.h - perfbot publish's site, written into a directory from what
 * a store holds (docs/publish.md): perfbot publish calls it once, perfbot
 * watch after each pass (a registry's `publish: DIR`), on the store it
 * has open.
 *
 * publish_site() reads the store (store.h only: SQLite and PostgreSQL
 * alike), makes every page in memory and writes a page only when its
 * bytes differ from the file's (each through a temp file renamed into
 * place: a reader never sees half a page); pages of things gone are
 * removed -- only names listed in the site's manifest (.perfbot-publish),
 * so nothing perfbot did not write is touched.  It prints
 * "perfbot: <who>: ..." on failure and returns an exit status (cmds.h):
 * EXIT_USAGE for a filter that matches nothing or a directory it must not
 * write into, EXIT_FAILED otherwise.  Use from one thread.
 */
#ifndef PERFBOT_CMD_PUBLISH_H
#define PERFBOT_CMD_PUBLISH_H

#include "store/store.h"

#include <stdbool.h>
#include <stddef.h>

struct publish_opts {
	const char *who;		/* the command, for messages */
	const char *dir;		/* the site; created when missing (its parent must exist) */
	/* only these (NULL: all); branch is BRANCH or TREE/BRANCH */
	const char *testbox, *job, *branch;
	double since;			/* points tested from then on; STORE_ALL_TIME: all */
	const char *const *repos;	/* repositories to read commit subjects from */
	size_t nr_repos;
	bool list;			/* print each page written and removed */
};

struct publish_counts {
	size_t written, kept, removed;
	size_t series, alerts, bisections, runs;
};

int publish_site(struct store *s, const struct publish_opts *o, struct publish_counts *c);

#endif

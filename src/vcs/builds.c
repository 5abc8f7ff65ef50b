/*
 * builds.c - built checkouts of a repository's commits (vcs/builds.h):
 * git_checkout_built() in a directory of perfbot's, the last few kept.
 */
#define _GNU_SOURCE
#include "vcs/builds.h"
#include "vcs/git.h"
#include "util/fsutil.h"
#include "util/strbuf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the end of a build log read for its last lines */
#define LOG_TAIL_MAX 4096

/*
 * The last 3 lines of a build log, joined, onto out; they start with
 * "..." when the part of the log read (its last LOG_TAIL_MAX bytes) began
 * inside them.  Nothing when the log cannot be read.
 */
static void log_tail(const char *path, struct strbuf *out)
{
	char buf[LOG_TAIL_MAX + 1];
	size_t n = 0, start;
	FILE *f = fopen(path, "r");
	long size = 0, from = 0;
	int lines = 0;

	if (!f)
		return;
	if (!fseek(f, 0, SEEK_END) && (size = ftell(f)) > 0) {
		from = size > LOG_TAIL_MAX ? size - LOG_TAIL_MAX : 0;
		if (!fseek(f, from, SEEK_SET))
			n = fread(buf, 1, LOG_TAIL_MAX, f);
	}
	fclose(f);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		n--;
	for (start = n; start > 0; start--)
		if (buf[start - 1] == '\n' && ++lines == 3)
			break;
	if (!start && from > 0)
		strbuf_addstr(out, "...");
	for (size_t i = start; i < n; i++)
		strbuf_addch(out, buf[i] == '\n' || buf[i] == '\r' || buf[i] == '\t' ||
				  !buf[i] ? ' ' : buf[i]);
}

static void drop(struct commit_builds *cb, struct built_tree *t)
{
	git_worktree_remove(cb->repo, t->path);
	free(t->sha);
	free(t->path);
	memset(t, 0, sizeof(*t));
}

int commit_builds_open(struct commit_builds *cb, const char *repo,
		       char *const *build, struct strbuf *err)
{
	int ret;

	memset(cb, 0, sizeof(*cb));
	cb->repo = repo;
	cb->build = build;
	ret = make_temp_dir(NULL, "perfbot-builds", &cb->dir);
	if (ret)
		strbuf_setf(err, "cannot make a directory for the worktrees: %s",
			    strerror(-ret));
	return ret;
}

int commit_builds_get(struct commit_builds *cb, const char *sha,
		      volatile sig_atomic_t *stop, const char **path, bool *fresh,
		      struct strbuf *err)
{
	struct built_tree *t = &cb->kept[0];
	char *dir = NULL;
	int ret;

	*fresh = false;
	for (size_t i = 0; i < BUILDS_KEPT; i++) {
		if (cb->kept[i].sha && !strcmp(cb->kept[i].sha, sha)) {
			cb->kept[i].used = ++cb->tick;
			*path = cb->kept[i].path;
			return 0;
		}
		if (!cb->kept[i].sha || cb->kept[i].used < t->used)
			t = &cb->kept[i];
	}
	if (t->sha)
		drop(cb, t);
	ret = git_checkout_built(cb->repo, sha, cb->build, cb->dir, BUILDS_TIMEOUT_S,
				 stop, &dir, err);
	if (cb->build && ret != -ECANCELED)
		cb->builds++;
	if (ret == -GIT_EBUILD || ret == -ETIMEDOUT) {
		struct strbuf log = STRBUF_INIT, tail = STRBUF_INIT, why = STRBUF_INIT;

		cb->failures++;
		strbuf_addf(&log, "%s/%s.log", cb->dir, sha);
		if (!strbuf_error(&log))
			log_tail(log.buf, &tail);
		strbuf_addf(&why, "build failed: %s%s%s", err->buf,
			    tail.len ? "; log ends: " : "", tail.buf);
		strbuf_setf(err, "%s", strbuf_error(&why) ? "build failed" : why.buf);
		strbuf_release(&log);
		strbuf_release(&tail);
		strbuf_release(&why);
		return -GIT_EBUILD;
	}
	if (ret)
		return ret;
	t->sha = strdup(sha);
	t->path = dir;
	t->used = ++cb->tick;
	if (!t->sha) {
		drop(cb, t);
		strbuf_setf(err, "out of memory");
		return -ENOMEM;
	}
	*path = t->path;
	*fresh = true;
	return 0;
}

bool commit_builds_ready(const struct commit_builds *cb, const char *sha)
{
	for (size_t i = 0; i < BUILDS_KEPT; i++)
		if (cb->kept[i].sha && !strcmp(cb->kept[i].sha, sha))
			return true;
	return false;
}

void commit_builds_close(struct commit_builds *cb)
{
	for (size_t i = 0; i < BUILDS_KEPT; i++)
		if (cb->kept[i].sha)
			drop(cb, &cb->kept[i]);
	if (cb->dir) {
		remove_tree(cb->dir);
		free(cb->dir);
	}
	memset(cb, 0, sizeof(*cb));
}

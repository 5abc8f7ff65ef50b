/*
 * builds.c - built checkouts of a repository's commits (vcs/builds.h):
 * in the persistent build cache (vcs/buildcache.h), or with it off
 * git_checkout_built() in a directory of perfbot's; the last few kept.
 */
#define _GNU_SOURCE
#include "vcs/builds.h"
#include "vcs/git.h"
#include "util/fsutil.h"
#include "util/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>



/*
 * err (git_build()'s or git_checkout_built()'s) made the message of a
 * failed build, with the end of its log: -GIT_EBUILD.
 */
static int build_failed(struct commit_builds *cb, const char *log, struct strbuf *err)
{
	struct strbuf tail = STRBUF_INIT, why = STRBUF_INIT;

	cb->failures++;
	file_tail(log, 3, &tail);
	strbuf_addf(&why, "build failed: %s%s%s", err->buf,
		    tail.len ? "; log ends: " : "", tail.buf);
	strbuf_setf(err, "%s", strbuf_error(&why) ? "build failed" : why.buf);
	strbuf_release(&tail);
	strbuf_release(&why);
	return -GIT_EBUILD;
}

static void drop(struct commit_builds *cb, struct built_tree *t)
{
	if (t->entry.lock_fd >= 0)
		buildcache_release(&t->entry);	/* stays in the cache */
	else
		git_worktree_remove(cb->repo, t->path);
	free(t->sha);
	free(t->path);
	memset(t, 0, sizeof(*t));
	t->entry.lock_fd = -1;
}

int commit_builds_open(struct commit_builds *cb, const char *repo,
		       char *const *build, struct strbuf *err)
{
	int ret;

	memset(cb, 0, sizeof(*cb));
	for (size_t i = 0; i < BUILDS_KEPT; i++)
		cb->kept[i].entry.lock_fd = -1;
	cb->repo = repo;
	cb->build = build;
	ret = buildcache_open(&cb->cache, err);
	if (ret)
		return ret;
	if (buildcache_on(&cb->cache)) {
		ret = git_common_dir(repo, &cb->repo_id, err);
		if (ret)
			return ret;
	}
	ret = make_temp_dir(NULL, "perfbot-builds", &cb->dir);
	if (ret)
		strbuf_setf(err, "cannot make a directory for the worktrees: %s",
			    strerror(-ret));
	return ret;
}

/* A copy of the file src at dst (a build log into its cache entry). */
static int copy_file(const char *src, const char *dst)
{
	int in = open(src, O_RDONLY | O_CLOEXEC), out = -1, ret = 0;
	char buf[65536];
	ssize_t n;

	if (in < 0)
		return -errno;
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		ret = -errno;
		goto out;
	}
	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(out, buf + off, (size_t)(n - off));

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				ret = w < 0 ? -errno : -EIO;
				goto out;
			}
			off += w;
		}
	}
out:
	if (out >= 0 && close(out) && !ret)
		ret = -errno;
	close(in);
	return ret;
}

/*
 * sha's checkout from the build cache, built there on a miss: its entry
 * in *e, held.  The build's log is written in cb->dir (a failed build's
 * stays there until close, as its message names it) and copied into the
 * entry.  A failed or stopped build leaves nothing in the cache.
 */
static int get_cached(struct commit_builds *cb, const char *sha,
		      volatile sig_atomic_t *stop, struct buildcache_entry *e,
		      struct strbuf *err)
{
	struct buildcache_desc d = { .repo_id = cb->repo_id, .sha = sha,
				     .build = cb->build };
	struct strbuf log = STRBUF_INIT;
	int ret, status;

	ret = buildcache_get(&cb->cache, &d, stop, e, err);
	if (ret == BUILDCACHE_HIT) {
		cb->reused++;
		return 0;
	}
	if (ret < 0)
		return ret;
	/* a worktree deleted behind git's back stays registered until pruned */
	ret = git_worktree_prune_own(cb->repo);
	if (ret < 0) {
		strbuf_setf(err, "checkout: cannot prune perfbot's stale worktrees: %s",
			    strerror(-ret));
		goto fail;
	}
	ret = git_worktree_add(cb->repo, sha, e->tree, err);
	if (ret)
		goto fail;
	if (cb->build) {
		strbuf_addf(&log, "%s/%s.log", cb->dir, sha);
		if (strbuf_error(&log)) {
			ret = -ENOMEM;
			strbuf_setf(err, "build: %s", strerror(ENOMEM));
			goto fail_tree;
		}
		ret = git_build(e->tree, cb->build, BUILDS_TIMEOUT_S, stop, log.buf,
				&status, err);
		if (ret != -ECANCELED)
			cb->builds++;
		if (ret == -GIT_EBUILD || ret == -ETIMEDOUT)
			ret = build_failed(cb, log.buf, err);
		if (ret)
			goto fail_tree;
		ret = copy_file(log.buf, e->log);
		if (ret) {
			strbuf_setf(err, "build cache: %s: %s", e->log, strerror(-ret));
			goto fail_tree;
		}
	}
	/* the user's repository no longer knows of it: nothing listed, nothing pinned */
	ret = git_worktree_detach(e->tree);
	if (ret) {
		strbuf_setf(err, "build cache: cannot detach %s from %s: %s", e->tree,
			    cb->repo, strerror(-ret));
		goto fail_tree;
	}
	ret = buildcache_commit(&cb->cache, &d, e, err);	/* abandons on failure */
	strbuf_release(&log);
	return ret;
fail_tree:
	git_worktree_remove(cb->repo, e->tree);
fail:
	buildcache_abandon(e);
	strbuf_release(&log);
	return ret;
}

int commit_builds_get(struct commit_builds *cb, const char *sha,
		      volatile sig_atomic_t *stop, const char **path, bool *fresh,
		      struct strbuf *err)
{
	struct built_tree *t = &cb->kept[0];
	struct buildcache_entry e = { .lock_fd = -1 };
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
	if (buildcache_on(&cb->cache)) {
		ret = get_cached(cb, sha, stop, &e, err);
		if (ret)
			return ret;
		dir = strdup(e.tree);
	} else {
		ret = git_checkout_built(cb->repo, sha, cb->build, cb->dir,
					 BUILDS_TIMEOUT_S, stop, &dir, err);
		if (cb->build && ret != -ECANCELED)
			cb->builds++;
		if (ret == -GIT_EBUILD || ret == -ETIMEDOUT) {
			struct strbuf log = STRBUF_INIT;

			strbuf_addf(&log, "%s/%s.log", cb->dir, sha);
			ret = build_failed(cb, strbuf_error(&log) ? "" : log.buf, err);
			strbuf_release(&log);
			return ret;
		}
		if (ret)
			return ret;
	}
	t->sha = strdup(sha);
	t->path = dir;
	t->used = ++cb->tick;
	t->entry = e;
	if (!t->sha || !t->path) {
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
	struct buildcache_desc d = { .repo_id = cb->repo_id, .sha = sha,
				     .build = cb->build };

	for (size_t i = 0; i < BUILDS_KEPT; i++)
		if (cb->kept[i].sha && !strcmp(cb->kept[i].sha, sha))
			return true;
	return buildcache_has(&cb->cache, &d);
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
	buildcache_close(&cb->cache);
	free(cb->repo_id);
	memset(cb, 0, sizeof(*cb));
}

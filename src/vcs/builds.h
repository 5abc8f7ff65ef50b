/*
 * builds.h - built checkouts of one repository's commits, for one build
 * command: what a bisection, `perfbot compare --measure` and `perfbot run
 * --repo` run a job in.
 *
 * commit_builds_get() hands out the directory of a checkout of a commit,
 * built with the build command (none: checked out only).  The builds
 * live in the persistent build cache (vcs/buildcache.h,
 * docs/build-cache.md): a commit built once with the same command and
 * environment, by this perfbot or an earlier one, is not built again,
 * and a build that did not finish is never used.  With the cache off
 * (PERFBOT_BUILD_CACHE_MAX=0) they live in a temporary directory removed
 * at close.  The last BUILDS_KEPT commits asked for are kept at hand (and
 * their cache entries held, so that no `perfbot cache clean` or eviction
 * removes them in use); *fresh says when a checkout was newly taken by
 * this struct (built, or taken from the cache), so that the caller warms
 * the benchmark up once per commit.
 *
 * Ownership: the repository path and build argv are borrowed and must
 * outlive the struct; the paths handed out belong to it and stay valid
 * until the commit leaves the kept set (BUILDS_KEPT later gets of other
 * commits) or commit_builds_close().  Everything it made outside the
 * cache is removed by commit_builds_close(), also after an error; cache
 * entries are released, never deleted when complete.
 * Threading: main thread only (children are reaped by the caller's
 * thread, util/child.h); *stop is polled while a build runs.
 */
#ifndef PERFBOT_VCS_BUILDS_H
#define PERFBOT_VCS_BUILDS_H

#include "util/strbuf.h"
#include "vcs/buildcache.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

/* built checkouts kept at once: a kernel tree is large */
#define BUILDS_KEPT 4

/* a build that runs longer hangs (a kernel: ~1 h) */
#define BUILDS_TIMEOUT_S (4 * 3600.0)

struct built_tree {
	char *sha, *path;
	unsigned long used;		/* tick of the last get */
	struct buildcache_entry entry;	/* held while kept (cache on); lock_fd -1 if not */
};

struct commit_builds {
	const char *repo;
	char *const *build;		/* argv, NULL-terminated; NULL: no build */
	char *dir;			/* build logs; the worktrees when the cache is off */
	struct buildcache cache;	/* buildcache_on(): builds persist */
	char *repo_id;			/* cache on: the repository's identity (key) */
	struct built_tree kept[BUILDS_KEPT];
	unsigned long tick;
	size_t builds;			/* builds started (not the ones reused) */
	size_t reused;			/* checkouts taken from the build cache */
	size_t failures;		/* ... builds that failed or timed out */
};

/*
 * Ready to build repo's commits with build (may be NULL).  A negative
 * errno with err set when the working directory cannot be made, the
 * build cache's settings are bad (-EINVAL, naming the variable) or the
 * repository cannot be read.
 */
int commit_builds_open(struct commit_builds *cb, const char *repo,
		       char *const *build, struct strbuf *err);

/*
 * A built checkout of sha (a full sha) in *path.  0; -GIT_EBUILD
 * (vcs/git.h) when the build failed or timed out -- a property of the
 * commit -- with err "build failed: <why>; log ends: <its last lines>";
 * -ECANCELED when *stop was set (stop may be NULL); another negative
 * errno (git's, the file system's) with err set.
 */
int commit_builds_get(struct commit_builds *cb, const char *sha,
		      volatile sig_atomic_t *stop, const char **path, bool *fresh,
		      struct strbuf *err);

/*
 * Whether commit_builds_get() of sha would build nothing (kept, or in the
 * build cache): for a progress line said before a build, not after.
 */
bool commit_builds_ready(const struct commit_builds *cb, const char *sha);

/* The temporary checkouts and their directory removed, cache entries released; cb zeroed. */
void commit_builds_close(struct commit_builds *cb);

#endif

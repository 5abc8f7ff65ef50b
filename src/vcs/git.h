/*
 * git.h - git through its command line: resolve revisions, read commit
 * metadata, check commits out into worktrees and build them, with a
 * cache of built worktrees so that a commit is built once per machine.
 *
 * Every git command is spawned with an argv (util/child.h), never through
 * a shell: revisions and paths are data, and a revision that starts with
 * '-' is refused rather than read as an option.  Output is captured, the
 * exit status checked, and failures come back as a negative errno with a
 * message set in err (struct strbuf, util/strbuf.h) naming the git command
 * and its subject, whole: "git rev-parse: unknown revision 'v9.9'".
 *
 * Ownership: strings returned through char ** and struct git_commit are
 * malloc'd and belong to the caller (free(), git_commit_release()).
 * Threading: no shared state, but child processes are reaped by the
 * calling thread (util/child.h): use from one thread.  git calls block
 * SIGINT/SIGTERM/SIGHUP while they run (child_signals_block()); the
 * build steps honour *stop.
 */
#ifndef PERFBOT_VCS_GIT_H
#define PERFBOT_VCS_GIT_H

#include "util/strbuf.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * Returned negated (-GIT_EBUILD) when the build command ran and failed
 * (non-zero exit or killed by a signal): a property of the commit, which
 * a bisection skips, unlike an error of perfbot or of the machine.
 * Above every errno, so it cannot be mistaken for one.
 */
#define GIT_EBUILD 4096

/*
 * Run `git -C repo <args...>` (NULL-terminated; repo NULL: no -C) and
 * return its standard output in *out (malloc'd, NUL-terminated; out may
 * be NULL).  Non-zero exit: -EIO, with git's first line of stderr in err.
 * err may be NULL when the caller has no use for the message.
 */
int git_cmd(const char *repo, char **out, struct strbuf *err, const char *arg, ...)
	__attribute__((sentinel));

/*
 * rev (a sha, a branch, a tag, HEAD~3...) to the full sha of the commit
 * it names.  -ENOENT: unknown revision; -EINVAL: repo is not a git
 * repository, or rev is empty or starts with '-'.
 */
int git_resolve(const char *repo, const char *rev, char **sha, struct strbuf *err);

struct git_commit {
	char *sha;		/* full sha */
	char *subject;
	char *author;		/* "Name <email>" */
	char *date;		/* author date, strict ISO 8601 */
};

/* Fill *out (zeroed on failure); -ENOENT when sha names no commit. */
int git_commit_info(const char *repo, const char *sha, struct git_commit *out);
void git_commit_release(struct git_commit *c);

/*
 * Whether commit sha of repo is a Linux kernel tree: at its top level the
 * files Kbuild, Kconfig and a Makefile that sets VERSION and PATCHLEVEL,
 * and the directories kernel, mm and init.  All of them: a project with a
 * Makefile (or U-Boot, which has Kbuild, Kconfig and such a Makefile but
 * no mm) is not one.  Read from the commit itself, not from a checkout.
 * 0, or a negative errno with the message in err.
 */
int git_is_kernel_tree(const char *repo, const char *sha, bool *yes,
		       struct strbuf *err);

/*
 * Check sha out, detached, in a new worktree at dir (which must not
 * exist).  A relative dir is taken from perfbot's working directory.
 */
int git_worktree_add(const char *repo, const char *sha, const char *dir,
		     struct strbuf *err);

/*
 * Remove the worktree at dir, even with changes or build products in it,
 * and git's record of it when it is perfbot's.  0 when dir no longer
 * exists afterwards.
 */
int git_worktree_remove(const char *repo, const char *dir);

/*
 * Worktrees added by git_worktree_add() are marked as perfbot's
 * (<admin>/perfbot-owner holds the owner's lock path, util/lifetime.h).
 * Remove perfbot's own stale ones -- the owner is dead (SIGKILL) or the
 * checkout is gone -- and git's records of them; never an unmarked
 * worktree, never a live perfbot's.  The number removed, or a negative
 * errno when the repository cannot be read.
 */
int git_worktree_prune_own(const char *repo);

/*
 * Make the worktree at dir a plain directory: git's record of it (its
 * admin dir under <common-dir>/worktrees/) removed when it is perfbot's
 * (git_worktree_add()'s mark) and points back at dir, and dir/.git
 * removed, so that it no longer shows in `git worktree list` and pins
 * nothing.  0 (also when dir has no .git), or a negative errno; -EINVAL
 * when dir/.git is not a worktree's link file (a repository of its own).
 * No git command runs: this is what `git worktree prune` does for it.
 */
int git_worktree_detach(const char *dir);

/*
 * The repository's identity: the real path of `git rev-parse
 * --git-common-dir` (the same for the repository and all its worktrees),
 * malloc'd in *out.  Errors as git_cmd(), with err set.
 */
int git_common_dir(const char *repo, char **out, struct strbuf *err);

/*
 * Run build_argv in the directory worktree, its stdout and stderr to
 * log_path (truncated), stdin from /dev/null.  timeout_s 0: none; stop
 * may be NULL.  The build's process group is killed at the end, so
 * nothing it started outlives it.  *exit_status: the exit code, or 128 +
 * the signal that killed it.  0 when it exited 0; -GIT_EBUILD when it
 * failed; -ETIMEDOUT, -ECANCELED (*stop), or the errno that kept it from
 * starting (-ENOENT: no such command).  err names the log.  The build
 * runs with TMPDIR set to a directory of its own, removed afterwards, so
 * what a killed compiler leaves there does not outlive it.
 */
int git_build(const char *worktree, char *const *build_argv, double timeout_s,
	      volatile sig_atomic_t *stop, const char *log_path,
	      int *exit_status, struct strbuf *err);

/*
 * The runner's one call: a worktree of sha (a full sha) that has been
 * built with build_argv (NULL: no build step), in *worktree_out
 * ("<cache_dir>/<sha>", malloc'd).
 *
 * cache_dir (created if missing) holds, per commit, the worktree
 * "<sha>", the build log "<sha>.log", and the marker "<sha>.ok" written
 * only after a successful build, holding the build command.  A marked
 * worktree whose HEAD is sha and whose marker names the same command is
 * reused without building; anything else there (an interrupted build, a
 * different command) is removed and redone.  A failed, timed-out or
 * stopped build removes the worktree and keeps the log; err gives its
 * path.  Errors as git_build(), plus git's (-EIO) and -EINVAL for a sha
 * that is not a full hex sha.  Concurrent callers on one cache_dir are
 * serialised per commit by a lock file "<sha>.lock".
 */
int git_checkout_built(const char *repo, const char *sha,
		       char *const *build_argv, const char *cache_dir,
		       double timeout_s, volatile sig_atomic_t *stop,
		       char **worktree_out, struct strbuf *err);

#endif

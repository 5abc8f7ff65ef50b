/*
 * kbuild.h - the kernel of a commit, built with a job's `kernel:`
 * configuration (docs/kernel.md), incrementally from one commit to the
 * next.
 *
 * Where (all under the build cache's directory, vcs/buildcache.h, in
 * <cache>/kernel/<repo>/, <repo> 16 hex digits of the SHA-256 of the
 * repository's common git dir):
 *   src/               one kept worktree of the repository; each commit is
 *                      checked out into it (`git checkout --force --detach`),
 *                      so only the files that differ get new timestamps
 *   build-<config>/    one out-of-tree build directory (make O=) per
 *                      configuration -- <config>: 16 hex digits of the
 *                      SHA-256 of the config's spec (target name, or the
 *                      base file's text, or tree:PATH), the fragments (lines,
 *                      and files' text) and perfbot's guest options --
 *                      reused commit after commit
 *   kernels/<sha>-<config>/   bzImage, config (the final .config), build.log
 *                      and ok (written last): the kernel of one commit,
 *                      copied out so that several commits' kernels are at
 *                      hand at once (an interleaved comparison boots them
 *                      in turn); a kernel already there is not built
 *                      again.  The KBUILD_KERNELS_KEPT most recently used
 *                      are kept per repository, older ones removed.
 *   lock               flock(2), held for a whole build: two perfbots
 *                      building kernels of one repository take turns.
 * This directory is not an entry of the build cache: `perfbot cache`
 * neither lists, counts nor evicts it (its keys are 64 hex digits, this
 * is "kernel"), and PERFBOT_BUILD_CACHE_MAX does not cap it; a build
 * directory of a defconfig kernel is about 1-2 GB.  Remove it by hand
 * (rm -rf <cache>/kernel; then `git worktree prune` in the repository).
 *
 * The build: the base config (`make O=B KCONFIG_CONFIG=perfbot-base.config
 * <target>`, or the file), merged with the fragments and the guest's
 * options (boot/kconfig.h), `make olddefconfig`, the guest's options
 * checked, B/.config replaced only when it changed, then `make -jN
 * bzImage`; CC="ccache gcc" when ccache is installed.  Every step is
 * spawned with an argv (vcs/git.h's git_build(): a process group killed at
 * its end, the TMPDIR it made removed) with its output in a log.  x86-64
 * only (arch/x86/boot/bzImage).
 *
 * Ownership: struct kbuild_result owns its strings (kbuild_result_release()).
 * Threading: main thread only (children are reaped by the caller's thread).
 */
#ifndef PERFBOT_BOOT_KBUILD_H
#define PERFBOT_BOOT_KBUILD_H

#include "job/job.h"
#include "util/strbuf.h"

#include <signal.h>
#include <stdbool.h>

/* a kernel build that runs longer hangs */
#define KBUILD_TIMEOUT_S (2 * 3600.0)
/* the built kernels kept per repository */
#define KBUILD_KERNELS_KEPT 16

struct kbuild_opts {
	const char *repo;		/* the kernel repository */
	const char *sha;		/* a full sha (git_resolve()) */
	const struct job_kernel *kernel;	/* present */
	unsigned jobs;			/* make -j; 0: the online CPUs */
	double timeout_s;		/* 0: KBUILD_TIMEOUT_S */
	volatile sig_atomic_t *stop;	/* may be NULL */
};

struct kbuild_result {
	char *bzimage;		/* kernels/<sha>-<config>/bzImage */
	char *config;		/* the final .config beside it */
	char *log;		/* its build log */
	char *build_dir;	/* the O= directory it was built in */
	double build_s;		/* checkout to bzImage, seconds; 0 when reused */
	bool reused;		/* already built: nothing ran */
	bool incremental;	/* the build directory held an earlier build */
	struct strbuf notes;	/* config merging: redefinitions, options not as asked */
};

/*
 * Build o->sha's kernel with o->kernel's configuration.  0 with *r
 * filled; -GIT_EBUILD (vcs/git.h) when the kernel does not build or its
 * configuration lost an option perfbot's guest needs -- a property of the
 * commit -- with err "kernel build failed: <step>; log ends: <last
 * lines>" or naming the options (and what they depend on, when their
 * Kconfig says); -ETIMEDOUT; -ECANCELED (*stop); another negative errno
 * (git's, the file system's) with err set.  *r is released on failure.
 */
int kbuild_build(const struct kbuild_opts *o, struct kbuild_result *r,
		 struct strbuf *err);

/*
 * Whether o->sha's kernel with o->kernel's configuration is built
 * already (kbuild_build() would reuse it): for a progress line said
 * before a build, not after.  False when it cannot be told.
 */
bool kbuild_built(const struct kbuild_opts *o);

void kbuild_result_release(struct kbuild_result *r);

#endif

/*
 * commitrun.h - runs of atomic jobs at the commits of one repository:
 * what a bisection, `perfbot compare --measure`, `perfbot run --repo` and
 * the robot measure a commit with, whatever the repository is.
 *
 * A job without a `kernel:` section runs in a built checkout of the
 * commit (vcs/builds.h: the build cache) by this perfbot's runner
 * (run/runner.h).  A job with one runs in the commit's kernel: built
 * (boot/kbuild.h: one kept worktree and one build directory per
 * configuration, incrementally commit after commit) and booted in QEMU
 * for every run (boot/boot.h), its record carrying how (boot.method,
 * boot.accel, the "QEMU/TCG" machine line) and the kernel's dmesg.*
 * failure stats.  Either way a commit that does not build is
 * -GIT_EBUILD, a property of the commit that callers skip; a kernel that
 * panics or hangs at boot is a failed run (a record), never an error.
 *
 * A kernel that did not build is remembered by kbuild (a `failed` marker
 * beside its log), so a bisection resumed or a robot's next pass does
 * not spend a build on it again.
 *
 * Ownership: repo, build and the jobs are borrowed and must outlive the
 * struct; everything else is its own until commit_runner_close(), also
 * after an error.  Threading: main thread only (children, signals).
 */
#ifndef PERFBOT_VCS_COMMITRUN_H
#define PERFBOT_VCS_COMMITRUN_H

#include "boot/kexec.h"
#include "job/job.h"
#include "record/record.h"
#include "run/runner.h"
#include "util/strbuf.h"
#include "vcs/builds.h"

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

struct store;

/*
 * boot: kexec (boot/kexec.h): a run is not made here but arranged -- the
 * kernel installed, the machine kexec'd into it, the job run after the
 * boot by `perfbot kexec resume`, which stores it and, back in the default
 * kernel, runs the continuation (a bisection's resume), which finds the
 * run in the store.  commit_runner_run() of a kexec job returns
 * -COMMITRUN_EREBOOT with err "rebooting into <release> (<sha12>)" once
 * the boot is arranged, and -COMMITRUN_EBOOTFAILED with err the reason
 * when this test box's last boot was of the same commit and job and its
 * run failed (the kernel did not boot, or crashed during the run): the
 * caller skips the commit instead of booting it again and again.
 */
#define COMMITRUN_EREBOOT 4201
#define COMMITRUN_EBOOTFAILED 4202

struct commit_runner_kexec {
	struct store *s;
	const struct kexec_cmds *cmds;
	const char *testbox;
	const char *job_file;		/* loads back to the job alone (its text) */
	char *const *continuation;	/* NULL-terminated; may be NULL */
};

/*
 * Fleet mode (docs/fleet.md, "Bisecting and comparing on the fleet"): a
 * run is not made here but queued for the worker of one test box, waited
 * for, and read back from the store, where the worker stored it: the
 * caller must not store it again (cr->stored_id says so).  One item at a
 * time, so that the runs of a comparison stay interleaved on that box.
 * Nothing is built here: the worker builds.  commit_runner_run() returns
 * 0 with *out the worker's run (complete or unsupported: the worker
 * stores no other); -GIT_EBUILD with err "build failed: ..." when the
 * item failed because the commit does not build there; -COMMITRUN_EFAILED
 * with err "item N failed: why" when it failed otherwise (the benchmark
 * failed or timed out on every attempt: the caller skips the commit as
 * after a failed run); -ETIMEDOUT when it was not done within timeout_s
 * (the item is cancelled); -EINTR when *ro->stop was set (likewise).
 */
#define COMMITRUN_EFAILED 4203

struct commit_runner_fleet {
	struct store *s;		/* PostgreSQL: the queue's */
	/*
	 * The box that runs every item, or a class of identical boxes (any
	 * idle member runs each item; NAME or "class:NAME").
	 */
	const char *testbox;
	double timeout_s;		/* per item, queued to done; 0: none */
};

/* kernels of (commit, job) kept at hand: an interleaved comparison boots them in turn */
#define COMMITRUN_KERNELS 8

struct commit_kernel {
	char *sha;
	const struct job_kernel *kernel;	/* the job's section (borrowed) */
	char *bzimage;
};

struct commit_runner {
	const char *repo;
	char *const *build;		/* userland jobs' build argv; NULL: none */
	struct commit_builds checkouts;	/* userland jobs */
	struct commit_kernel kernels[COMMITRUN_KERNELS];
	unsigned long tick;
	struct strmap host;		/* the host's environment: a boot's machine line */
	bool host_known;
	/* over both kinds: builds started, taken ready-made, failed */
	size_t builds, reused, failures;
	double build_s;			/* kernels: seconds spent building */
	double last_build_s;		/* kernels: the last build's seconds */
	const struct commit_runner_kexec *kexec;	/* NULL: kexec jobs refused */
	const struct commit_runner_fleet *fleet;	/* NULL: runs made here */
	char *fleet_class;		/* the class fleet->testbox names; NULL: a box */
	/*
	 * The id the last commit_runner_run()'s record is stored under (the
	 * worker stored it), 0 when it is not stored: the caller stores it.
	 */
	int64_t stored_id;
};

/* Kexec jobs arranged with k (borrowed; must outlive cr). */
void commit_runner_set_kexec(struct commit_runner *cr, const struct commit_runner_kexec *k);

/*
 * Fleet mode with f (borrowed; must outlive cr); _check() says only
 * whether it would be refused (a negative errno with err set): the store
 * has no queue (SQLite), or f->testbox is neither a box a worker
 * registered nor a class with a registered box (-ESRCH, err naming the
 * boxes and the classes there are).  _resolve() also gives, in
 * *selector (malloc'd; may be NULL), the testbox the runs are read back
 * and compared under: the box's name, or STORE_CLASS_PREFIX "NAME" (the
 * runs of the class, of whichever box: store.h).
 */
int commit_runner_fleet_check(const struct commit_runner_fleet *f, struct strbuf *err);
int commit_runner_fleet_resolve(const struct commit_runner_fleet *f, char **selector,
				struct strbuf *err);
int commit_runner_set_fleet(struct commit_runner *cr, const struct commit_runner_fleet *f,
			    struct strbuf *err);

/*
 * Ready to run jobs at repo's commits, userland ones built with build
 * (may be NULL).  A negative errno with err set (vcs/builds.h's).
 */
int commit_runner_open(struct commit_runner *cr, const char *repo, char *const *build,
		       struct strbuf *err);

/* Whether commit_runner_prepare() of (job, sha) would build nothing. */
bool commit_runner_ready(const struct commit_runner *cr, const struct atomic_job *job,
			 const char *sha);

/*
 * What job runs at sha built: the checkout, or the kernel.  0 with
 * *fresh when it was newly made or taken for this runner (a warm-up is
 * due); -GIT_EBUILD with err "build failed: ..." or "kernel build
 * failed: ..." (the log's last lines); -ECANCELED when *stop was set;
 * another negative errno with err set.
 */
int commit_runner_prepare(struct commit_runner *cr, const struct atomic_job *job,
			  const char *sha, volatile sig_atomic_t *stop, bool *fresh,
			  struct strbuf *err);

/*
 * One run of job at sha (prepared first if it was not), labelled
 * ro->commit (NULL: sha); ro's src_dir is set here, its other fields
 * (monitors, warm_up, stop) are the caller's.  Returns as runner_run()
 * and boot_run() do (0 with *out a record), or prepare's errors.
 */
int commit_runner_run(struct commit_runner *cr, const struct atomic_job *job,
		      const char *sha, struct runner_opts *ro, struct run_record *out,
		      struct strbuf *err);

/* Everything released; cr zeroed. */
void commit_runner_close(struct commit_runner *cr);

#endif

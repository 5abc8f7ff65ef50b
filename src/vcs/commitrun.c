/*
 * commitrun.c - runs of atomic jobs at a repository's commits (commitrun.h).
 */
#define _GNU_SOURCE
#include "vcs/commitrun.h"
#include "boot/boot.h"
#include "boot/kbuild.h"
#include "run/env.h"
#include "store/store.h"
#include "vcs/git.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int commit_runner_open(struct commit_runner *cr, const char *repo, char *const *build,
		       struct strbuf *err)
{
	memset(cr, 0, sizeof(*cr));
	cr->repo = repo;
	cr->build = build;
	return commit_builds_open(&cr->checkouts, repo, build, err);
}

static struct commit_kernel *kernel_kept(const struct commit_runner *cr,
					 const struct atomic_job *job, const char *sha)
{
	for (size_t i = 0; i < COMMITRUN_KERNELS; i++) {
		const struct commit_kernel *k = &cr->kernels[i];

		if (k->sha && k->kernel == &job->kernel && !strcmp(k->sha, sha))
			return (struct commit_kernel *)k;
	}
	return NULL;
}

bool commit_runner_ready(const struct commit_runner *cr, const struct atomic_job *job,
			 const char *sha)
{
	struct kbuild_opts ko = { .repo = cr->repo, .sha = sha, .kernel = &job->kernel };

	if (!job->kernel.present)
		return commit_builds_ready(&cr->checkouts, sha);
	return kernel_kept(cr, job, sha) || kbuild_built(&ko);
}

/* The kernel of (job, sha): kept, or built (or found built) now. */
static int prepare_kernel(struct commit_runner *cr, const struct atomic_job *job,
			  const char *sha, volatile sig_atomic_t *stop, bool *fresh,
			  struct commit_kernel **out, struct strbuf *err)
{
	struct kbuild_opts ko = { .repo = cr->repo, .sha = sha, .kernel = &job->kernel,
				  .stop = stop };
	struct kbuild_result kr;
	struct commit_kernel *slot = NULL;
	int ret;

	*out = kernel_kept(cr, job, sha);
	if (*out)
		return 0;
	ret = kbuild_build(&ko, &kr, err);
	if (ret == -ETIMEDOUT)
		ret = -GIT_EBUILD;	/* a build that hangs: the commit's, as a failed one */
	if (ret) {
		cr->failures += ret == -GIT_EBUILD;
		cr->builds += ret == -GIT_EBUILD;
		return ret;
	}
	if (kr.reused) {
		cr->reused++;
	} else {
		cr->builds++;
		cr->build_s += kr.build_s;
		cr->last_build_s = kr.build_s;
	}
	/* the free slot, else the least recently made */
	for (size_t i = 0; i < COMMITRUN_KERNELS && !slot; i++)
		if (!cr->kernels[i].sha)
			slot = &cr->kernels[i];
	if (!slot) {
		slot = &cr->kernels[cr->tick % COMMITRUN_KERNELS];
		free(slot->sha);
		free(slot->bzimage);
	}
	cr->tick++;
	*slot = (struct commit_kernel){ .sha = strdup(sha), .kernel = &job->kernel,
					.bzimage = kr.bzimage };
	kr.bzimage = NULL;
	kbuild_result_release(&kr);
	if (!slot->sha) {
		free(slot->bzimage);
		*slot = (struct commit_kernel){ 0 };
		strbuf_setf(err, "out of memory");
		return -ENOMEM;
	}
	*fresh = true;
	*out = slot;
	return 0;
}

int commit_runner_prepare(struct commit_runner *cr, const struct atomic_job *job,
			  const char *sha, volatile sig_atomic_t *stop, bool *fresh,
			  struct strbuf *err)
{
	struct commit_kernel *k;
	const char *path;
	size_t builds, reused, failures;
	int ret;

	*fresh = false;
	if (job->kernel.present)
		return prepare_kernel(cr, job, sha, stop, fresh, &k, err);
	builds = cr->checkouts.builds;
	reused = cr->checkouts.reused;
	failures = cr->checkouts.failures;
	ret = commit_builds_get(&cr->checkouts, sha, stop, &path, fresh, err);
	cr->builds += cr->checkouts.builds - builds;
	cr->reused += cr->checkouts.reused - reused;
	cr->failures += cr->checkouts.failures - failures;
	return ret;
}

void commit_runner_set_kexec(struct commit_runner *cr, const struct commit_runner_kexec *k)
{
	cr->kexec = k;
}

/*
 * Whether this test box's last kexec boot was of (sha, job) and its run
 * failed: 1 with why in err, 0 not, a negative errno.
 */
static int last_boot_failed(struct commit_runner *cr, const struct atomic_job *job,
			    const char *sha, struct strbuf *err)
{
	struct store_kexec *all = NULL, *last = NULL;
	struct run_record rec = { 0 };
	size_t n = 0;
	int ret = 0;

	if (store_kexec_list(cr->kexec->s, &all, &n)) {
		strbuf_setf(err, "%s", store_error(cr->kexec->s));
		return -EIO;
	}
	for (size_t i = 0; i < n; i++)
		if (!strcmp(all[i].testbox, cr->kexec->testbox))
			last = &all[i];
	if (last && !strcmp(last->sha, sha) && !strcmp(last->job, job->name) &&
	    (!strcmp(last->state, KEXEC_BACK) || !strcmp(last->state, KEXEC_FAILED))) {
		bool failed = !strcmp(last->state, KEXEC_FAILED) && !last->run_id;

		if (last->run_id && !store_get_run(cr->kexec->s, last->run_id, &rec))
			failed = rec.status == RUN_FAILED;
		if (failed) {
			const char *why = strmap_get(&rec.env, "last_state.reason");

			strbuf_setf(err, "kexec boot %" PRId64 " of %.12s failed: %s", last->id, sha,
				    why ? why : last->reason ? last->reason : "no run");
			ret = 1;
		}
		run_record_release(&rec);
	}
	store_kexecs_release(all, n);
	return ret;
}

/* The kexec boot of (job, sha) arranged: -COMMITRUN_EREBOOT, or an error. */
static int arrange_kexec(struct commit_runner *cr, const struct atomic_job *job,
			 const char *sha, const char *bzimage, struct strbuf *err)
{
	char release[128];
	struct kexec_spec spec = {
		.testbox = cr->kexec->testbox, .repo = cr->repo, .sha = sha,
		.job_file = cr->kexec->job_file, .job = job->name, .runs = 1,
		.bzimage = bzimage, .release = release, .cmdline = job->kernel.cmdline,
		.continuation = cr->kexec->continuation,
	};
	int64_t id = 0;
	int ret = last_boot_failed(cr, job, sha, err);

	if (ret)
		return ret > 0 ? -COMMITRUN_EBOOTFAILED : ret;
	ret = boot_kernel_release(bzimage, release, sizeof(release));
	if (ret) {
		strbuf_setf(err, "%s: no bzImage with a version string: kexec could not tell"
			    " the kernel booted", bzimage);
		return -GIT_EBUILD;
	}
	ret = kexec_arrange(cr->kexec->s, cr->kexec->cmds, &spec, &id, err);
	if (ret)
		return ret;
	strbuf_setf(err, "rebooting into %s (%.12s), kexec boot %" PRId64, release, sha, id);
	return -COMMITRUN_EREBOOT;
}

int commit_runner_run(struct commit_runner *cr, const struct atomic_job *job,
		      const char *sha, struct runner_opts *ro, struct run_record *out,
		      struct strbuf *err)
{
	struct commit_kernel *k;
	struct boot_opts bo = { .qemu = { .accel = QEMU_ACCEL_AUTO } };
	bool fresh;
	int ret;

	if (!job->kernel.present) {
		ret = commit_builds_get(&cr->checkouts, sha, ro->stop, &ro->src_dir, &fresh, err);
		if (ret)
			return ret;
		if (!ro->commit)
			ro->commit = sha;
		return runner_run(job, ro, out, err);
	}
	if (job->kernel.boot == JOB_BOOT_KEXEC && !cr->kexec) {
		strbuf_setf(err, "%s: boot: kexec: this command cannot come back after the reboot",
			    job->name);
		return -EOPNOTSUPP;
	}
	ret = prepare_kernel(cr, job, sha, ro->stop, &fresh, &k, err);
	if (ret)
		return ret;
	if (job->kernel.boot == JOB_BOOT_KEXEC)
		return arrange_kexec(cr, job, sha, k->bzimage, err);
	if (!cr->host_known) {
		env_capture(&cr->host, NULL);
		cr->host_known = true;
	}
	if (boot_opts_from_kernel(&job->kernel, &bo)) {
		strbuf_setf(err, "%s: kernel: qemu: memory '%s' is not a size QEMU takes", job->name,
			    job->kernel.qemu_memory ? job->kernel.qemu_memory : "?");
		return -EINVAL;
	}
	bo.commit = ro->commit ? ro->commit : sha;
	bo.host_machine = strmap_get(&cr->host, "machine");
	return boot_run(job, k->bzimage, &bo, ro->stop, out, err);
}

void commit_runner_close(struct commit_runner *cr)
{
	commit_builds_close(&cr->checkouts);
	for (size_t i = 0; i < COMMITRUN_KERNELS; i++) {
		free(cr->kernels[i].sha);
		free(cr->kernels[i].bzimage);
	}
	strmap_release(&cr->host);
	memset(cr, 0, sizeof(*cr));
}

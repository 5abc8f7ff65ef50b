/*
 * commitrun.c - runs of atomic jobs at a repository's commits (commitrun.h).
 */
#define _GNU_SOURCE
#include "vcs/commitrun.h"
#include "boot/boot.h"
#include "boot/kbuild.h"
#include "run/env.h"
#include "vcs/git.h"

#include <errno.h>
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
	ret = prepare_kernel(cr, job, sha, ro->stop, &fresh, &k, err);
	if (ret)
		return ret;
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

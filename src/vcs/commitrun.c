/*
 * commitrun.c - runs of atomic jobs at a repository's commits (commitrun.h).
 */
#define _GNU_SOURCE
#include "vcs/commitrun.h"
#include "boot/boot.h"
#include "boot/kbuild.h"
#include "run/env.h"
#include "store/store.h"
#include "util/timeutil.h"
#include "vcs/git.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
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

	if (cr->fleet)
		return true;	/* the worker builds */
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
	if (cr->fleet)
		return 0;	/* the worker builds (and warms up) */
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

/* ---- fleet mode ---- */

/* A class's registered boxes (n of them) onto sb, ", "-separated. */
static size_t class_boxes(const struct store_box *boxes, size_t n, const char *cls,
			  struct strbuf *sb)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (boxes[i].class && !strcmp(boxes[i].class, cls))
			strbuf_addf(sb, "%s%s", k++ ? ", " : "", boxes[i].testbox);
	return k;
}

int commit_runner_fleet_resolve(const struct commit_runner_fleet *f, char **selector,
				struct strbuf *err)
{
	const char *cls_only = store_selector_class(f->testbox);
	const char *name = cls_only ? cls_only : f->testbox;
	struct store_box *boxes = NULL;
	struct store_class *classes = NULL;
	const struct store_class *cls = NULL;
	struct strbuf names = STRBUF_INIT;
	size_t n = 0, nc = 0;
	bool box = false;
	int ret = store_queue_boxes(f->s, &boxes, &n);

	if (selector)
		*selector = NULL;
	if (!ret)
		ret = store_queue_classes(f->s, &classes, &nc);
	if (ret) {
		strbuf_setf(err, "--on %s: %s", f->testbox, store_error(f->s));
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		box |= !cls_only && !strcmp(boxes[i].testbox, name);
		strbuf_addf(&names, "%s%s", i ? ", " : "", boxes[i].testbox);
	}
	for (size_t i = 0; i < nc; i++)
		if (!strcmp(classes[i].name, name))
			cls = &classes[i];
	if (!box && !cls) {
		strbuf_setf(err, "--on %s: no worker has registered that test box (%s%s)",
			    f->testbox, n ? "the boxes: " : "no box has registered yet",
			    names.buf);
		for (size_t i = 0; i < nc; i++)
			strbuf_addf(err, "%s%s", i ? ", " : ", nor is it a class (the classes: ",
				    classes[i].name);
		if (nc)
			strbuf_addch(err, ')');
		ret = -ESRCH;
		goto out;
	}
	if (!box) {
		strbuf_reset(&names);
		if (!class_boxes(boxes, n, name, &names)) {
			strbuf_setf(err, "--on %s: no box of class %s has registered (its boxes:",
				    f->testbox, name);
			for (size_t i = 0; cls->boxes && cls->boxes[i]; i++)
				strbuf_addf(err, " %s", cls->boxes[i]);
			strbuf_addch(err, ')');
			ret = -ESRCH;
			goto out;
		}
	}
	if (selector && asprintf(selector, "%s%s", box ? "" : STORE_CLASS_PREFIX, name) < 0) {
		*selector = NULL;
		strbuf_setf(err, "out of memory");
		ret = -ENOMEM;
	}
out:
	strbuf_release(&names);
	store_boxes_release(boxes, n);
	store_classes_release(classes, nc);
	return ret;
}

int commit_runner_fleet_check(const struct commit_runner_fleet *f, struct strbuf *err)
{
	return commit_runner_fleet_resolve(f, NULL, err);
}

int commit_runner_set_fleet(struct commit_runner *cr, const struct commit_runner_fleet *f,
			    struct strbuf *err)
{
	char *selector = NULL;
	int ret = commit_runner_fleet_resolve(f, &selector, err);
	const char *cls = store_selector_class(selector);

	if (!ret && cls && !(cr->fleet_class = strdup(cls))) {
		strbuf_setf(err, "out of memory");
		ret = -ENOMEM;
	}
	if (!ret)
		cr->fleet = f;
	free(selector);
	return ret;
}

/*
 * Why the item's last failed attempt failed, from its reasons ("attempt
 * N on BOX: why" lines, every attempt on box, or on any box of a class:
 * box NULL; a why may span lines: a build's log): a pointer into
 * reasons, the trailing newline left in.  NULL: none failed yet.
 */
static const char *last_reason(const struct store_queue_item *it, const char *box)
{
	const char *last = NULL;

	for (const char *p = it->reasons; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *q = p;
		size_t box_len;

		if (strncmp(q, "attempt ", 8))
			continue;
		q += 8;
		if (*q < '0' || *q > '9')
			continue;
		q += strspn(q, "0123456789");
		if (strncmp(q, " on ", 4))
			continue;
		q += 4;
		/* a box's name is a word: no ':' (queue/needs.h) */
		box_len = box ? strlen(box) : strcspn(q, ":\n");
		if ((!box || !strncmp(q, box, box_len)) && !strncmp(q + box_len, ": ", 2))
			last = q + box_len + 2;
	}
	return last;
}

/* The worker's err of a commit that does not build: the commit's fault, not the box's. */
static bool build_failure(const char *why)
{
	return why && (!strncmp(why, "build failed", 12) || !strncmp(why, "kernel build failed", 19));
}

/* A failed or cancelled item (or one whose build failed) as commitrun.h's errors. */
static int item_failed(const struct store_queue_item *it, const char *box, struct strbuf *err)
{
	const char *why = last_reason(it, box);
	int len;

	if (build_failure(why) || !strcmp(it->state, "failed")) {
		if (!why)
			why = "no reason recorded";
		len = (int)strlen(why);
		while (len && why[len - 1] == '\n')
			len--;
		if (build_failure(why)) {
			strbuf_setf(err, "%.*s", len, why);
			return -GIT_EBUILD;
		}
		strbuf_setf(err, "item %" PRId64 " failed on %s: %.*s", it->id,
			    box ? box : it->box ? it->box : "?", len, why);
		return -COMMITRUN_EFAILED;
	}
	strbuf_setf(err, "item %" PRId64 " was cancelled", it->id);
	return -ECANCELED;
}

/*
 * Queued, waited for, read back.  The wait sleeps on the queue's
 * notifications (store_queue_wait: LISTEN) between looks at the item,
 * the look every 50 ms at first, doubling to 1 s: a finish does not
 * NOTIFY, so a run is seen at most 1 s after it is stored, at the cost
 * of one short query a second -- nothing beside a benchmark's minutes.
 */
static int run_on_fleet(struct commit_runner *cr, const struct atomic_job *job,
			const char *sha, struct runner_opts *ro, struct run_record *out,
			struct strbuf *err)
{
	const struct commit_runner_fleet *f = cr->fleet;
	/* a class's item: any of its boxes, each attempt wherever it ran */
	const char *box = cr->fleet_class ? NULL : f->testbox;
	char *needs = NULL;
	struct store_queue_item q = {
		.job = job->name, .testcase = job->testcase, .job_text = job->text,
		.repo = (char *)cr->repo, .commit = (char *)sha,
		.parsed.testbox = (char *)box, .parsed.class = cr->fleet_class,
	};
	struct store_queue_item it = { 0 };
	double start = mono_now(), poll = 0.05;
	int64_t id = 0;
	int ret;

	if (job->kernel.present && job->kernel.boot == JOB_BOOT_KEXEC) {
		strbuf_setf(err, "%s: boot: kexec reboots the box it runs on: not on the fleet"
			    " (run it there, without --on)", job->name);
		return -EOPNOTSUPP;
	}
	if (asprintf(&needs, "%s=%s", box ? "testbox" : "class",
		     box ? box : cr->fleet_class) < 0) {
		strbuf_setf(err, "out of memory");
		return -ENOMEM;
	}
	q.needs = needs;
	ret = store_queue_submit(f->s, &q, 1, NULL, &id);
	free(needs);
	if (ret) {
		strbuf_setf(err, "cannot queue the run: %s", store_error(f->s));
		return ret;
	}
	for (;;) {
		store_queue_item_release(&it);
		memset(&it, 0, sizeof(it));
		ret = store_queue_get(f->s, id, &it);
		if (ret) {
			strbuf_setf(err, "item %" PRId64 ": %s", id, store_error(f->s));
			break;
		}
		if (!strcmp(it.state, "done")) {
			ret = store_get_run(f->s, it.run_id, out);
			if (ret)
				strbuf_setf(err, "item %" PRId64 ": run %" PRId64 ": %s", id,
					    it.run_id, store_error(f->s));
			else
				cr->stored_id = it.run_id;
			break;
		}
		if (!strcmp(it.state, "failed") || !strcmp(it.state, "cancelled")) {
			ret = item_failed(&it, box, err);
			break;
		}
		/* a build fails again on the next attempt: not built twice */
		if (build_failure(last_reason(&it, box))) {
			store_queue_cancel(f->s, id);
			ret = item_failed(&it, box, err);
			break;
		}
		if (ro->stop && *ro->stop) {
			store_queue_cancel(f->s, id);
			strbuf_setf(err, "interrupted: item %" PRId64 " cancelled", id);
			ret = -EINTR;
			break;
		}
		if (f->timeout_s > 0 && mono_now() - start > f->timeout_s) {
			store_queue_cancel(f->s, id);
			strbuf_setf(err, "item %" PRId64 " not done on %s within %.0f s: cancelled",
				    id, f->testbox, f->timeout_s);
			ret = -ETIMEDOUT;
			break;
		}
		store_queue_wait(f->s, poll, NULL);
		poll = fmin(poll * 2, 1.0);
	}
	store_queue_item_release(&it);
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

	cr->stored_id = 0;
	if (cr->fleet)
		return run_on_fleet(cr, job, sha, ro, out, err);
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
	free(cr->fleet_class);
	memset(cr, 0, sizeof(*cr));
}

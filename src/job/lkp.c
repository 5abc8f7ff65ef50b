/*
 * lkp.c - an LKP run's job.yaml as perfbot's atomic job (job.h,
 * job_load_lkp_run(); docs/import.md "lkp-result").
 *
 * LKP saves in each run directory the atomic job it ran: the job file's
 * keys first (in their order), then `job_origin:`, then what the queue,
 * the host file (hosts/<tbox_group>: nr_cpu, memory, model, brand), the
 * defaults (monitors as sections: `kmsg:`, `perf-profile: {...}`) and the
 * scheduler (result_root, kernel, bootloader_append, ...) added.  The
 * job is what the job file said: the keys it keeps are listed below, and
 * it is then loaded by job.c as any job file, so that it is named as
 * `perfbot job split` names perfbot's own job of the same parameters.
 */
#define _GNU_SOURCE
#include "job/job.h"
#include "job/merge.h"
#include "job/yaml.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* What LKP adds to a job, never part of it (lkp-tests' split-job, hosts/, the scheduler). */
static const char *const lkp_added[] = {
	"testbox", "tbox_group", "commit", "branch", "base_commit", "arch", "job_origin",
	"job_file", "id", "queue", "queue_cmdline_keys", "queuer_version", "repeat_to",
	"user", "LKP_SERVER", "LKP_CGI_PORT", "LKP_CIFS_PORT", "scheduler_version",
	"max_uptime", "initrd", "bootloader_append", "kernel", "kernel_cmdline",
	"modules_initrd", "bm_initrd", "lkp_initrd", "linux_headers_initrd",
	"linux_selftests_initrd", "site", "result_root", "_rt", "model", "brand",
	"nr_node", "nr_cpu", "memory", "nr_ssd_partitions", "nr_hdd_partitions",
	"ssd_partitions", "hdd_partitions", "rootfs_partition", "swap_partitions",
	"netconsole_port", "local_run", "enqueue_time", "dequeue_time", "job_state",
	"loadavg", "start_time", "end_time", "mac_addr", "ipmi_ip",
};

/* perfbot's generic keys that mean the same in LKP's job (job.h's others do not). */
static const char *const lkp_generic[] = {
	"suite", "testcase", "category", "kpi", "runtime", "interval", "timeout",
	"cpufreq_governor", "ucode", "kconfig", "compiler", "rootfs",
};

static bool in(const char *key, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(key, list[i]))
			return true;
	return false;
}

#define IN(key, list) in(key, list, sizeof(list) / sizeof(list[0]))

static const char *testcase_of(const struct ynode *root)
{
	for (size_t i = 0; i + 1 < root->n; i += 2)
		if (!strcmp(root->items[i]->scalar, "testcase") &&
		    root->items[i + 1]->type == YNODE_SCALAR)
			return root->items[i + 1]->scalar;
	return NULL;
}

static bool has_key(const struct ynode *root, const char *key)
{
	for (size_t i = 0; i + 1 < root->n; i += 2)
		if (!strcmp(root->items[i]->scalar, key))
			return true;
	return false;
}

/*
 * Move the job's own keys of root into *out (a new mapping): nodes keep
 * their positions in the file.
 */
static int job_keys(const char *path, struct ynode *root, struct ynode **out,
		    struct job_error *err)
{
	const char *testcase = testcase_of(root);
	bool origin = has_key(root, "job_origin"), after = false;
	struct ynode *job;

	if (!testcase) {
		job_error_set(err, path, root->line, root->column,
			      "no testcase: an LKP run's job.yaml names its testcase");
		return -EINVAL;
	}
	job = ynode_new(YNODE_MAP, root->line, root->column);
	if (!job)
		return -ENOMEM;
	for (size_t i = 0; i + 1 < root->n; i += 2) {
		struct ynode *k = root->items[i], *v = root->items[i + 1];
		bool section = v->type == YNODE_MAP || (v->type == YNODE_SCALAR && v->null);
		bool keep;

		if (!strcmp(k->scalar, "job_origin"))
			after = true;
		if (IN(k->scalar, lkp_generic))
			keep = true;
		else if (IN(k->scalar, lkp_added) || job_generic_key(k->scalar))
			keep = false;
		else if (!strcmp(k->scalar, testcase))
			keep = section;	/* the benchmark's own section */
		else if (section)
			keep = false;	/* another program's: a monitor, a setup */
		else
			keep = !(origin && after);
		if (!keep)
			continue;
		if (v->type == YNODE_SEQ) {
			job_error_set(err, path, v->line, v->column,
				      "'%s' is a list: an LKP run's job.yaml is one atomic job",
				      k->scalar);
			ytree_free(job);
			return -EINVAL;
		}
		if (ynode_append(job, k) || ynode_append(job, v)) {
			/* the failed append freed its node: the root must not again */
			root->items[i] = root->items[i + 1] = NULL;
			ytree_free(job);
			return -ENOMEM;
		}
		root->items[i] = root->items[i + 1] = NULL;
	}
	*out = job;
	return 0;
}

int job_load_lkp_run(const char *path, struct atomic_job *out, struct strmap *keys,
		     struct job_error *err)
{
	struct ynode *root = NULL, *job = NULL;
	struct atomic_job *jobs = NULL;
	size_t nr = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	job_error_init(err);
	ret = ytree_load(path, &root, err);
	if (ret)
		goto out;
	if (!root || root->type != YNODE_MAP) {
		job_error_set(err, path, root ? root->line : 0, root ? root->column : 0,
			      "an LKP run's job.yaml is a mapping of keys to values");
		ret = -EINVAL;
		goto out;
	}
	/* LKP's own keys for the caller, before the job's are moved out */
	for (size_t i = 0; i + 1 < root->n; i += 2) {
		const struct ynode *v = root->items[i + 1];

		if (v->type == YNODE_SCALAR && !v->null &&
		    strmap_set(keys, root->items[i]->scalar, v->scalar)) {
			ret = -ENOMEM;
			goto out;
		}
	}
	ret = job_keys(path, root, &job, err);
	if (ret)
		goto out;
	ret = job_load_tree(path, job, NULL, 0, &jobs, &nr, err);
	if (ret)
		goto out;
	/* no list was kept, so one job: anything else is job.c's mistake */
	if (nr != 1) {
		job_error_set(err, path, 0, 0, "%zu atomic jobs, not one", nr);
		ret = -EINVAL;
		goto out;
	}
	*out = jobs[0];
	free(jobs);
	jobs = NULL;
out:
	if (ret == -ENOMEM && !err->msg.len)
		job_error_set(err, path, 0, 0, "out of memory");
	if (jobs)
		atomic_jobs_release(jobs, nr);
	ytree_free(root);
	return ret;
}

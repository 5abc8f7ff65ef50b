/*
 * merge.h - job/'s private: LKP's job files of several YAML documents
 * (docs/jobs.md, "Several documents").  The first document is a job of
 * its own; each later one is applied to a copy of the first, as LKP's
 * Job#each_jobs does with revise_hash(): a top-level key replaces the
 * first document's value (or is added at the end), `a.b` sets key b of
 * section a, `k-` deletes k (or, with a value, those values/keys of k),
 * `k+` adds values to k's list.
 *
 * The merged tree's nodes keep the positions they were written at, so
 * an error about a value of the second document names its line.
 *
 * Ownership: ytree_copy() returns a tree the caller frees (ytree_free);
 * job_merge_doc() edits base in place and does not take doc.  Errors: 0
 * or a negative errno with err set (file:line:column).  No state.
 */
#ifndef PERFBOT_JOB_MERGE_H
#define PERFBOT_JOB_MERGE_H

#include "job/job.h"
#include "job/yaml.h"

struct ynode *ytree_copy(const struct ynode *n);
int job_merge_doc(struct ynode *base, const struct ynode *doc, const char *path,
		  struct job_error *err);

/*
 * The rest of job_load() for one document's tree (root is taken and
 * freed): -s overrides, checks, the atomic jobs.  job.c's; lkp.c loads an
 * LKP run's job through it too.
 */
int job_load_tree(const char *path, struct ynode *root, char *const *overrides,
		  size_t nr_overrides, struct atomic_job **jobs, size_t *nr,
		  struct job_error *err);

#endif

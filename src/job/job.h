/*
 * job.h - job files: LKP-compatible YAML, parsed with libyaml, expanded
 * into atomic jobs (docs/design.md §5).
 *
 * A job is a YAML mapping.  Any value that is a sequence is a dimension of
 * the matrix; the cartesian product gives the atomic jobs.  A mapping
 * value (a section such as `will-it-scale:` or `hackbench:`) holds more
 * parameters, flattened into the same namespace (LKP does the same), so
 * `will-it-scale: {mode: [process, thread]}` gives the parameter `mode`.
 *
 * Durations (runtime, interval, timeout) are util/parse.h's
 * parse_duration(): "300s", "5m", a bare number of seconds.
 *
 * Keys this module knows itself (generic keys) are checked here: suite,
 * testcase, category, runtime, repeat, interval, timeout, monitors,
 * packages, build, exec, cpufreq_governor, ucode, kconfig, compiler,
 * rootfs, `kpi`, and the `kernel:` section (struct job_kernel: how to
 * build and boot the kernel of the commit under test; docs/kernel.md).
 * Every other scalar key is a benchmark parameter;
 * whether the benchmark knows it is for the runner to say, with the
 * position recorded here (file:line:column).
 *
 * Ownership: a struct job owns everything in it; job_release().  The
 * atomic jobs returned by job_expand() are owned by the caller; release
 * each with atomic_job_release().  Errors: functions return 0 or a
 * negative errno and fill a struct job_error (file:line:column and a
 * message, both whole: they quote the file's values) for the caller to
 * print.  job_load() and runner_check_job() initialise *err themselves;
 * after one failed, the caller releases it with job_error_release().
 * No global state; thread-safe.
 */
#ifndef PERFBOT_JOB_JOB_H
#define PERFBOT_JOB_JOB_H

#include "record/record.h"
#include "util/strbuf.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

struct job_error {
	struct strbuf file;	/* "" when not about a file */
	unsigned line, column;	/* 1-based; 0 when not about a position */
	struct strbuf msg;
};

void job_error_init(struct job_error *err);
void job_error_release(struct job_error *err);
/*
 * Set the error: file (NULL: none), position (0: none) and message.  When
 * the message cannot be made (no memory), it says "out of memory".
 */
void job_error_set(struct job_error *err, const char *file, unsigned line,
		   unsigned column, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
void job_error_vset(struct job_error *err, const char *file, unsigned line,
		    unsigned column, const char *fmt, va_list ap)
	__attribute__((format(printf, 5, 0)));

/* A parameter of an atomic job: key, the value as written, its position. */
struct job_param {
	char *key;
	char *value;		/* literal: "100%", "300s" stay as written */
	unsigned line, column;
};

/* What to run for an `exec:` testcase. */
struct job_exec {
	char **argv;		/* NULL-terminated; from `cmd:` (a list) */
	char *parse;		/* kv | json | gbench | hyperfine | time */
	struct strmap paths;	/* parse: json -> stat name -> JSON path (a.b.0.c) */
};

/*
 * The `kernel:` section: the kernel of the commit under test is built with
 * this configuration and booted (docs/kernel.md).  Not part of the job's
 * name: LKP's `kconfig:` parameter is.  File paths are resolved (the
 * job file's directory) and checked to exist when the job is loaded.
 */
enum job_kconfig_kind {
	JOB_KCONFIG_TARGET,	/* a make target: tinyconfig, defconfig, ... */
	JOB_KCONFIG_FILE,	/* a .config beside the job: absolute path */
	JOB_KCONFIG_TREE,	/* tree:PATH, a .config inside the kernel tree */
};

enum job_boot { JOB_BOOT_QEMU, JOB_BOOT_KEXEC };
enum job_accel { JOB_ACCEL_AUTO, JOB_ACCEL_KVM, JOB_ACCEL_TCG };

#define JOB_QEMU_CPUS_DEFAULT 2
#define JOB_QEMU_MEMORY_DEFAULT "1G"
#define JOB_QEMU_MAX_CPUS 1024

struct job_kernel {
	bool present;
	enum job_kconfig_kind config_kind;
	char *config;		/* the target, the absolute file, or PATH in the tree */
	char **fragments;	/* NULL-terminated: "CONFIG_X=y" / "# CONFIG_X is not set"
				 * lines, or absolute paths of fragment files; may be NULL */
	enum job_boot boot;	/* qemu by default */
	unsigned qemu_cpus;	/* JOB_QEMU_CPUS_DEFAULT unless said */
	char *qemu_memory;	/* QEMU's -m: digits and an optional K/M/G/T */
	enum job_accel accel;	/* auto by default */
	char **qemu_args;	/* extra QEMU arguments, NULL-terminated; may be NULL */
	char *cmdline;		/* extra kernel command line; may be NULL */
	unsigned line, column;	/* where `kernel:` is written */
};

struct atomic_job {
	char *name;		/* LKP's: testcase + sorted parameter values */
	char *testcase;
	char *category;		/* "benchmark" by default */
	struct job_param *params;	/* sorted by key; identity of the job */
	size_t nr_params;
	/* generic keys, resolved (the literal stays in params when it is one) */
	unsigned repeat;	/* 0 when the job does not say */
	double runtime_s;	/* 0 when the job does not say */
	double interval_s;	/* monitor interval; 0 when not said */
	double timeout_s;	/* 0 when not said */
	char **monitors;	/* NULL: the category's default set; NULL-terminated */
	char **packages;	/* NULL-terminated, may be NULL */
	char **build;		/* argv of the build command, may be NULL */
	unsigned build_line, build_column;	/* where `build:` is written; 0: not */
	char *kpi;		/* the stat the job exists for, may be NULL */
	struct job_exec exec;	/* exec.argv NULL unless testcase is exec */
	struct strmap recorded;	/* cpufreq_governor, ucode, kconfig, compiler, rootfs */
	struct job_kernel kernel;	/* kernel.present: the job has a kernel: section */
	char *text;		/* this atomic job as YAML (to store and reproduce) */
	char *file;		/* the job file it came from */
};

/*
 * Parse `path` and expand it.  `overrides` are "key=value" strings (-s):
 * a key already in the job replaces its value (a list value narrows the
 * dimension to that value); a new key is added at top level.  On success
 * *jobs holds *nr atomic jobs (at least one), sorted by name.
 */
int job_load(const char *path, char *const *overrides, size_t nr_overrides,
	     struct atomic_job **jobs, size_t *nr, struct job_error *err);

/*
 * An LKP run's job.yaml (a result directory's: the atomic job LKP ran,
 * with what its queue, host file, defaults and scheduler added) as
 * perfbot's atomic job, named as `perfbot job split` names the same job
 * (docs/import.md, "lkp-result").  Kept: perfbot's generic keys that mean
 * the same in LKP (suite, testcase, category, kpi, runtime, interval,
 * timeout, cpufreq_governor, ucode, kconfig, compiler, rootfs), the
 * testcase's section, and the other keys with a value up to `job_origin:`
 * (all of them when there is none) but LKP's own (testbox, commit,
 * nr_cpu, result_root, ... : lkp.c's list); every other section is a
 * monitor's or a setup's and left out.  A kept list is an error (a run is
 * one atomic job).  keys receives every top-level key with a single value,
 * as written (testbox, tbox_group, commit, nr_cpu, memory, brand, ...).
 * Errors as job_load()'s; *out is the caller's (atomic_job_release()).
 */
int job_load_lkp_run(const char *path, struct atomic_job *out, struct strmap *keys,
		     struct job_error *err);

/* A key the job layer knows itself (the generic keys above), not a
 * benchmark parameter. */
bool job_generic_key(const char *key);

/* The names of the enums above as a job file spells them. */
const char *job_boot_name(enum job_boot boot);
const char *job_accel_name(enum job_accel accel);

const struct job_param *atomic_job_param(const struct atomic_job *j,
					 const char *key);
void atomic_job_release(struct atomic_job *j);
void atomic_jobs_release(struct atomic_job *jobs, size_t nr);

#endif

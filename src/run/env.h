/*
 * env.h - the environment a run happened in (the facts a reader of a
 * report needs to trust or distrust a number: machine, kernel, CPU
 * frequency policy, THP, compiler), and the CPU frequency governor the
 * runner may pin for the duration of a job.
 *
 * Values come from uname(2), /proc and /sys; what cannot be read is
 * recorded as "unavailable: <why>" rather than left out, so that every
 * run record has the same keys.
 *
 * Ownership: env_capture() adds copies to the caller's strmap.
 * struct cpufreq_saved is owned by the caller of cpufreq_set_governor()
 * until cpufreq_restore() frees it.
 * Threading: no shared state; the cpufreq functions change machine-wide
 * settings, so one runner at a time should call them.
 * Errors: 0 or a negative errno, with a message set in err/why (whole:
 * a why names paths and quotes what sysfs lists).
 */
#ifndef PERFBOT_RUN_ENV_H
#define PERFBOT_RUN_ENV_H

#include <stddef.h>

#include "record/record.h"
#include "util/strbuf.h"

/* Where cpufreq lives; the _at variants take another root (tests). */
#define ENV_SYSFS_CPU "/sys/devices/system/cpu"

/*
 * Fill env with: testbox, kernel, kernel_version, arch, kernel_cmdline,
 * cpu_model, nr_cpu, memory, microcode, cpufreq_governor, thp_enabled,
 * thp_defrag, compiler, perfbot_version, aslr, machine.  machine is the
 * test-machine line of LKP reports:
 * "<nr_cpu> threads <cpu_model> with <memory> memory".
 * Fails only on -ENOMEM (and says so in err, which may be NULL).
 */
int env_capture(struct strmap *env, struct strbuf *err);

/*
 * MemTotal (kB) as LKP writes a test box's memory: whole GiB rounded
 * down, "23G" for 24684084 kB.  MemTotal is always a little below the
 * installed size (the kernel keeps some), so rounding down keeps the
 * number honest rather than flattering; below 1 GiB it is "<n>M".
 */
void env_format_memory(unsigned long long kib, char *buf, size_t len);

struct cpufreq_saved;

/*
 * Set scaling_governor on every CPU that has cpufreq, remembering the
 * old values in *saved for cpufreq_restore().  -ENOTSUP ("no cpufreq on
 * this machine") when cpu0 has no cpufreq directory; -EINVAL when a CPU
 * does not list `governor` in scaling_available_governors; -EACCES and
 * others when a write fails, after putting back what was already
 * changed.  On error *saved is NULL.
 */
int cpufreq_set_governor(const char *governor, struct cpufreq_saved **saved,
			 struct strbuf *why);
int cpufreq_set_governor_at(const char *cpu_root, const char *governor,
			    struct cpufreq_saved **saved, struct strbuf *why);

/* Put every governor back as it was and free saved (NULL is a no-op). */
void cpufreq_restore(struct cpufreq_saved *saved);

#endif

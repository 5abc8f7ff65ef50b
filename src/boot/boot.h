/*
 * boot.h - one run of an atomic job inside a kernel under test
 * (docs/kernel.md): the initramfs built (boot/initramfs.h: perfbot, its
 * libraries, busybox, the job), the kernel booted in QEMU (boot/qemu.h),
 * the guest's framed record parsed out of its hvc0 (boot/frame.h,
 * record/record_json.h), and the kernel's console scanned for LKP's
 * dmesg.* failure stats (boot/dmesg.h), which replace the guest's own.
 *
 * Whatever the kernel does, the answer is a run record: a kernel that
 * panics or hangs at boot, or a guest that writes no whole record, is a
 * RUN_FAILED record with dmesg.boot_failures = 1 and, as its reason, the
 * console's line that says why (a panic, BUG or Oops) and its last lines (env last_state.reason), never a hung perfbot.
 * The record says how it was run: env boot.method (qemu), boot.accel
 * (kvm or tcg), boot.kernel (the image), boot.cpus, boot.memory_mb, the
 * machine line "2 threads QEMU/TCG on <host cpu> with 1G memory" and the
 * host's testbox name (the guest's hostname is not the test box).
 *
 * Ownership: *out is the caller's (run_record_release()) when 0 is
 * returned.  Threading: main thread only (children, signals).
 */
#ifndef PERFBOT_BOOT_BOOT_H
#define PERFBOT_BOOT_BOOT_H

#include "boot/qemu.h"
#include "job/job.h"
#include "record/record.h"
#include "util/strbuf.h"

#include <signal.h>

/* booting and running one atomic job, at most, unless the job says more */
#define BOOT_TIMEOUT_S 600.0
/* the console's last lines kept in a failed boot's reason */
#define BOOT_TAIL_LINES 8

struct boot_opts {
	struct qemu_opts qemu;		/* timeout_s 0: BOOT_TIMEOUT_S */
	const char *perfbot;		/* NULL: this perfbot (/proc/self/exe) */
	const char *busybox;		/* NULL: /bin/busybox (busybox-static) */
	const char *commit;		/* recorded as the run's commit */
	const char *testbox;		/* the host's name for the run; NULL: hostname */
	/* the host's "N threads <cpu> with <mem> memory" (run/env.h); may be NULL */
	const char *host_machine;
};

/*
 * Run job (one atomic job) in kernel (a bzImage).  0 with
 * *out a record (complete, failed, unsupported or incomplete when *stop
 * was set); a negative errno with err set when nothing could be run at
 * all (no QEMU, no busybox, the initramfs cannot be made).
 */
int boot_run(const struct atomic_job *job, const char *kernel, const struct boot_opts *o,
	     volatile sig_atomic_t *stop, struct run_record *out, struct strbuf *err);

/*
 * A RUN_FAILED record of job at commit (NULL: "unknown"), started now:
 * the job's identity (testcase, name, text, parameters, KPI), env
 * last_state.reason = why and the failure stat `stat` = 1, each when not
 * NULL; the stats not yet finished.  What a run that never ran, or was
 * cut short, is stored as.  0, or -ENOMEM with r released.
 */
int boot_record_failed(const struct atomic_job *job, const char *commit, const char *why,
		       const char *stat, struct run_record *r);

/*
 * The failed run of job whose kernel did not build (why: the build's
 * error and its log's last lines, as env last_state.reason), with the
 * failure stat BOOT_BUILD_FAILURES = 1: what `perfbot run` stores, so
 * that the history shows the commit and why nothing ran.  0, or -ENOMEM.
 */
#define BOOT_BUILD_FAILURES "last_state.kernel_build_failed"
int boot_record_unbuilt(const struct atomic_job *job, const struct boot_opts *o,
			const char *why, struct run_record *out);

/*
 * o->qemu from a job's kernel: section (cpus, memory, accel, extra
 * arguments, command line); the rest of o is left as it is.  The strings
 * are borrowed from k.  -EINVAL for a memory size QEMU's -m would not
 * take.
 */
int boot_opts_from_kernel(const struct job_kernel *k, struct boot_opts *o);

/*
 * The release of a bzImage ("6.1.0" of "6.1.0 (user@host) #1 SMP ..."),
 * read from its setup header's kernel_version string, into buf: what a
 * run of it is labelled by default.  0, or -EINVAL when path is no
 * bzImage (or it has no version string), another negative errno when it
 * cannot be read.
 */
int boot_kernel_release(const char *path, char *buf, size_t len);

#endif

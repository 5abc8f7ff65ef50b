/*
 * qemu.h - one boot of a kernel under test in QEMU (`boot: qemu`,
 * docs/kernel.md): the kernel and an initramfs (boot/initramfs.h) that
 * runs the job and writes its record to the guest's hvc0; the kernel's
 * console (ttyS0) and what the guest wrote to hvc0 come back as two byte
 * streams, for the caller to parse (boot/frame.h, boot/dmesg.h).
 *
 * QEMU runs as a child that leads its own process group (util/child.h):
 * a timeout, a stop request or perfbot's death kills it; nothing of it
 * outlives perfbot.  Its argv is built here (qemu_argv()), never a shell
 * string.
 *
 * Acceleration: KVM where it boots a kernel, else TCG.  QEMU_ACCEL_AUTO
 * tries KVM first when /dev/kvm can be opened, and falls back to TCG when
 * QEMU fails there or the kernel has printed nothing after
 * QEMU_KVM_PROBE_S (a nested KVM that cannot boot a stock kernel hangs
 * silently); the answer is kept for the rest of the process.  What was
 * used is in the result: runs under different acceleration are different
 * machines and are recorded so.
 *
 * Ownership: the result's buffers are the caller's (qemu_result_release()).
 * Threading: main thread only (children, signals).
 */
#ifndef PERFBOT_BOOT_QEMU_H
#define PERFBOT_BOOT_QEMU_H

#include "util/strbuf.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

/* a KVM that prints nothing in this long is taken as not booting */
#define QEMU_KVM_PROBE_S 20.0
/* what is kept of the console and of the record stream, at most */
#define QEMU_STREAM_MAX (64u << 20)

enum qemu_accel {
	QEMU_ACCEL_AUTO,
	QEMU_ACCEL_KVM,
	QEMU_ACCEL_TCG,
};

/* "auto", "kvm", "tcg" */
const char *qemu_accel_name(enum qemu_accel a);
/* 0, or -EINVAL for another word */
int qemu_accel_parse(const char *name, enum qemu_accel *out);

struct qemu_opts {
	const char *binary;		/* NULL: qemu_binary()'s */
	unsigned cpus;			/* 0: 2 */
	unsigned memory_mb;		/* 0: 1024 */
	enum qemu_accel accel;
	char *const *extra_args;	/* NULL-terminated; may be NULL */
	const char *cmdline;		/* appended to perfbot's; may be NULL */
	double timeout_s;		/* the whole boot and run; 0: none */
};

struct qemu_result {
	enum qemu_accel accel;		/* what ran: KVM or TCG */
	bool timed_out, stopped;
	int status;			/* QEMU's wait status when it exited */
	double elapsed_s;
	struct strbuf console;		/* the kernel's console, ttyS0, then QEMU's
					 * own messages as "qemu: ..." lines */
	size_t kernel_bytes;		/* of console, what the kernel wrote */
	struct strbuf record;		/* what the guest wrote to hvc0 */
};

/*
 * QEMU's argv (NULL-terminated, malloc'd with its strings: free_words())
 * for a boot of kernel with initrd, its ttyS0 into console_path and its
 * hvc0 into record_path, under accel (KVM or TCG, not AUTO).
 */
int qemu_argv(const struct qemu_opts *o, enum qemu_accel accel, const char *kernel,
	      const char *initrd, const char *console_path, const char *record_path,
	      char ***argv);

/*
 * Boot kernel with initrd until QEMU exits (the guest's `reboot -f` with
 * -no-reboot), the timeout, or *stop (may be NULL).  workdir holds the
 * two streams while QEMU runs.  0 with *out filled, whatever the guest
 * did (a panic, a hang: timed_out) -- the caller judges the streams;
 * -ENOENT when QEMU is not installed, another negative errno with err
 * set when it cannot be started.
 */
int qemu_run(const struct qemu_opts *o, const char *kernel, const char *initrd,
	     const char *workdir, volatile sig_atomic_t *stop, struct qemu_result *out,
	     struct strbuf *err);

void qemu_result_release(struct qemu_result *r);

/*
 * The QEMU a boot runs: o->binary, else $PERFBOT_QEMU (a stand-in for
 * tests, or another build of QEMU), else qemu-system-x86_64 on PATH.
 */
const char *qemu_binary(const struct qemu_opts *o);

#endif

/*
 * qemu.c - one boot of a kernel under test in QEMU (boot/qemu.h).
 */
#define _GNU_SOURCE
#include "boot/qemu.h"
#include "util/child.h"
#include "util/timeutil.h"
#include "util/words.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * the kernel's own part of the command line: its console, no reboot
 * loop, and warnings on the console (loglevel 5 prints KERN_WARNING and
 * above: a WARN_ON is a dmesg.WARNING stat; 4 would hide it)
 */
#define QEMU_CMDLINE "console=ttyS0 panic=-1 oops=panic loglevel=5 rdinit=/init"

/* AUTO's answer, once found: the process boots every kernel alike */
static enum qemu_accel auto_accel = QEMU_ACCEL_AUTO;

const char *qemu_accel_name(enum qemu_accel a)
{
	switch (a) {
	case QEMU_ACCEL_KVM:
		return "kvm";
	case QEMU_ACCEL_TCG:
		return "tcg";
	case QEMU_ACCEL_AUTO:
		break;
	}
	return "auto";
}

const char *qemu_binary(const struct qemu_opts *o)
{
	const char *env = getenv("PERFBOT_QEMU");

	return o->binary ? o->binary : env && *env ? env : "qemu-system-x86_64";
}

int qemu_accel_parse(const char *name, enum qemu_accel *out)
{
	static const enum qemu_accel all[] = { QEMU_ACCEL_AUTO, QEMU_ACCEL_KVM, QEMU_ACCEL_TCG };

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (name && !strcmp(name, qemu_accel_name(all[i]))) {
			*out = all[i];
			return 0;
		}
	return -EINVAL;
}

/* ---- the command line ---- */

struct args {
	char **v;
	size_t n, cap;
	bool failed;
};

static void add(struct args *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(struct args *a, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	if (a->failed)
		return;
	if (a->n + 2 > a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 32;
		char **v = realloc(a->v, cap * sizeof(*v));

		if (!v) {
			a->failed = true;
			return;
		}
		a->v = v;
		a->cap = cap;
	}
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s) {
		a->failed = true;
		return;
	}
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

int qemu_argv(const struct qemu_opts *o, enum qemu_accel accel, const char *kernel,
	      const char *initrd, const char *console_path, const char *record_path,
	      char ***argv)
{
	struct args a = { 0 };

	*argv = NULL;
	if (accel == QEMU_ACCEL_AUTO || strchr(console_path, ',') || strchr(record_path, ','))
		return -EINVAL;	/* QEMU's option syntax would split a path at ',' */
	add(&a, "%s", qemu_binary(o));
	add(&a, "-nodefaults");
	add(&a, "-nographic");
	add(&a, "-no-reboot");
	add(&a, "-accel");
	add(&a, "%s", accel == QEMU_ACCEL_KVM ? "kvm" : "tcg");
	add(&a, "-cpu");
	add(&a, "%s", accel == QEMU_ACCEL_KVM ? "host" : "max");
	add(&a, "-smp");
	add(&a, "%u", o->cpus ? o->cpus : 2);
	add(&a, "-m");
	add(&a, "%uM", o->memory_mb ? o->memory_mb : 1024);
	add(&a, "-kernel");
	add(&a, "%s", kernel);
	add(&a, "-initrd");
	add(&a, "%s", initrd);
	add(&a, "-append");
	add(&a, "%s%s%s", QEMU_CMDLINE, o->cmdline && *o->cmdline ? " " : "",
	    o->cmdline ? o->cmdline : "");
	add(&a, "-serial");
	add(&a, "file:%s", console_path);
	add(&a, "-chardev");
	add(&a, "file,id=record,path=%s", record_path);
	add(&a, "-device");
	add(&a, "virtio-serial-pci");
	add(&a, "-device");
	add(&a, "virtconsole,chardev=record");
	add(&a, "-monitor");
	add(&a, "none");
	for (char *const *x = o->extra_args; x && *x; x++)
		add(&a, "%s", *x);
	if (a.failed) {
		free_words(a.v);
		return -ENOMEM;
	}
	*argv = a.v;
	return 0;
}

/* ---- a boot ---- */

/* path's bytes from offset *at on, onto sb (at most QEMU_STREAM_MAX in all). */
static void slurp_from(const char *path, off_t *at, struct strbuf *sb)
{
	char buf[65536];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return;
	if (lseek(fd, *at, SEEK_SET) == *at)
		while ((n = read(fd, buf, sizeof(buf))) > 0) {
			size_t room = sb->len < QEMU_STREAM_MAX ? QEMU_STREAM_MAX - sb->len : 0;

			strbuf_add(sb, buf, (size_t)n < room ? (size_t)n : room);
			*at += n;
		}
	close(fd);
}

static bool kvm_usable(void)
{
	int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/*
 * One QEMU under accel.  probe_s > 0: give up (QEMU killed, *silent set)
 * when the console is still empty after that long.
 */
static int boot_once(const struct qemu_opts *o, enum qemu_accel accel, const char *kernel,
		     const char *initrd, const char *workdir, double probe_s,
		     volatile sig_atomic_t *stop, struct qemu_result *out, bool *silent,
		     struct strbuf *err)
{
	char *console = NULL, *record = NULL, *qerr = NULL, **argv = NULL;
	struct child c = { 0 };
	struct child_io io = { .stdin_fd = -1, .stdout_fd = -1, .stderr_fd = -1 };
	double t0 = mono_now(), deadline = o->timeout_s > 0 ? t0 + o->timeout_s : INFINITY;
	off_t console_at = 0, record_at = 0;
	sigset_t mask;
	int ret, devnull = -1, errfd = -1;

	*silent = false;
	if (asprintf(&console, "%s/console.log", workdir) < 0)
		console = NULL;
	if (asprintf(&record, "%s/record.out", workdir) < 0)
		record = NULL;
	if (asprintf(&qerr, "%s/qemu.err", workdir) < 0)
		qerr = NULL;
	if (!console || !record || !qerr) {
		ret = -ENOMEM;
		goto out;
	}
	unlink(console);
	unlink(record);
	ret = qemu_argv(o, accel, kernel, initrd, console, record, &argv);
	if (ret) {
		strbuf_setf(err, "cannot make QEMU's command line: %s", strerror(-ret));
		goto out;
	}
	/* QEMU's own messages (a bad option, a KVM that fails) into the console's tail */
	devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	errfd = open(qerr, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	io.stdin_fd = devnull;
	io.stdout_fd = errfd;
	io.stderr_fd = errfd;
	child_signals_block(&mask);
	ret = child_spawn(&c, argv, &io);
	if (ret) {
		child_signals_restore(&mask);
		strbuf_setf(err, "cannot run %s: %s", argv[0], strerror(-ret));
		goto out;
	}
	for (;;) {
		double now = mono_now(), until = fmin(deadline, now + 0.5);
		enum child_wait w = child_wait_until(&c, until, stop, &mask);

		if (w == CHILD_EXITED)
			break;
		if (w == CHILD_STOPPED) {
			out->stopped = true;
			break;
		}
		if (mono_now() >= deadline) {
			out->timed_out = true;
			break;
		}
		if (probe_s > 0 && mono_now() - t0 >= probe_s) {
			struct stat st;

			if (stat(console, &st) || st.st_size == 0) {
				*silent = true;
				break;
			}
			probe_s = 0;	/* it printed: it boots here */
		}
	}
	child_stop(&c, &out->status, NULL);
	child_signals_restore(&mask);
	out->accel = accel;
	out->elapsed_s = mono_now() - t0;
	slurp_from(console, &console_at, &out->console);
	out->kernel_bytes = out->console.len;
	slurp_from(record, &record_at, &out->record);
	{
		struct strbuf msgs = STRBUF_INIT;
		off_t at = 0;

		slurp_from(qerr, &at, &msgs);
		for (char *line = msgs.buf, *next; line && *line; line = next) {
			next = strchr(line, '\n');
			if (next)
				*next++ = '\0';
			strbuf_addf(&out->console, "%sqemu: %s\n",
				    out->console.len && out->console.buf[out->console.len - 1] != '\n'
				    ? "\n" : "", line);
		}
		strbuf_release(&msgs);
	}
	ret = strbuf_error(&out->console) || strbuf_error(&out->record) ? -ENOMEM : 0;
	if (ret)
		strbuf_setf(err, "out of memory");
out:
	if (devnull >= 0)
		close(devnull);
	if (errfd >= 0)
		close(errfd);
	if (qerr)
		unlink(qerr);
	free(qerr);
	if (console)
		unlink(console);
	if (record)
		unlink(record);
	free(console);
	free(record);
	free_words(argv);
	return ret;
}

int qemu_run(const struct qemu_opts *o, const char *kernel, const char *initrd,
	     const char *workdir, volatile sig_atomic_t *stop, struct qemu_result *out,
	     struct strbuf *err)
{
	enum qemu_accel accel = o->accel;
	bool silent = false;
	int ret;

	memset(out, 0, sizeof(*out));
	strbuf_init(&out->console);
	strbuf_init(&out->record);
	if (accel == QEMU_ACCEL_AUTO)
		accel = auto_accel != QEMU_ACCEL_AUTO ? auto_accel :
			kvm_usable() ? QEMU_ACCEL_KVM : QEMU_ACCEL_TCG;
	ret = boot_once(o, accel, kernel, initrd, workdir,
			o->accel == QEMU_ACCEL_AUTO && accel == QEMU_ACCEL_KVM &&
			auto_accel == QEMU_ACCEL_AUTO ? QEMU_KVM_PROBE_S : 0,
			stop, out, &silent, err);
	/*
	 * KVM that does not boot -- silent, or QEMU dead (an error, an abort:
	 * "failed to set MSR" on a nested KVM) before the kernel said
	 * anything: TCG, from now on
	 */
	if (!ret && o->accel == QEMU_ACCEL_AUTO && accel == QEMU_ACCEL_KVM &&
	    auto_accel == QEMU_ACCEL_AUTO && !out->stopped &&
	    (silent || ((!WIFEXITED(out->status) || WEXITSTATUS(out->status)) &&
			!out->kernel_bytes))) {
		qemu_result_release(out);
		memset(out, 0, sizeof(*out));
		strbuf_init(&out->console);
		strbuf_init(&out->record);
		auto_accel = QEMU_ACCEL_TCG;
		return boot_once(o, QEMU_ACCEL_TCG, kernel, initrd, workdir, 0, stop, out,
				 &silent, err);
	}
	if (!ret && o->accel == QEMU_ACCEL_AUTO && auto_accel == QEMU_ACCEL_AUTO)
		auto_accel = accel;
	return ret;
}

void qemu_result_release(struct qemu_result *r)
{
	strbuf_release(&r->console);
	strbuf_release(&r->record);
}

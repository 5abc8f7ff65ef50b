/*
 * boot.c - one run of an atomic job inside a kernel under test
 * (boot/boot.h): initramfs, QEMU, the record back, dmesg stats.
 */
#define _GNU_SOURCE
#include "boot/boot.h"
#include "boot/dmesg.h"
#include "boot/frame.h"
#include "boot/initramfs.h"
#include "record/record_json.h"
#include "util/fsutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The console's last n lines, joined by " | ", onto sb. */
static void console_tail(const struct strbuf *console, unsigned n, struct strbuf *sb)
{
	size_t end = console->len, start = end;
	unsigned lines = 0;

	while (end && (console->buf[end - 1] == '\n' || console->buf[end - 1] == '\r'))
		end--;
	for (start = end; start > 0; start--)
		if (console->buf[start - 1] == '\n' && ++lines == n)
			break;
	for (size_t i = start; i < end; i++) {
		char ch = console->buf[i];

		if (ch == '\r')
			continue;
		if (ch == '\n')
			strbuf_addstr(sb, " | ");
		else
			strbuf_addch(sb, (unsigned char)ch < ' ' ? ' ' : ch);
	}
}

/*
 * The console's first line that says why a kernel died ("Kernel panic -
 * not syncing: ...", "BUG: ...", "Oops: ..."), without its timestamp,
 * as "<it>; " onto sb: a panic's backtrace pushes it out of the tail.
 */
static void console_cause(const struct strbuf *console, struct strbuf *sb)
{
	static const char *const causes[] = { "Kernel panic - ", "BUG: ", "Oops: ",
					      "general protection fault" };
	const char *best = NULL;

	for (size_t i = 0; i < sizeof(causes) / sizeof(causes[0]); i++) {
		const char *at = memmem(console->buf, console->len, causes[i], strlen(causes[i]));

		if (at && (!best || at < best))
			best = at;
	}
	if (best) {
		const char *end = memchr(best, '\n', console->len - (size_t)(best - console->buf));
		size_t n = end ? (size_t)(end - best) : console->len - (size_t)(best - console->buf);

		while (n && best[n - 1] == '\r')
			n--;
		strbuf_add(sb, best, n > 300 ? 300 : n);
		strbuf_addstr(sb, "; ");
	}
}

/* "2 threads QEMU/TCG on AMD EPYC with 1024M memory", from the host's line. */
static void machine_line(const struct boot_opts *o, enum qemu_accel accel,
			 const char *host_line, struct strbuf *sb)
{
	const char *model = host_line ? strstr(host_line, " threads ") : NULL;
	const char *with = model ? strstr(model, " with ") : NULL;

	strbuf_addf(sb, "%u threads QEMU/%s", o->qemu.cpus ? o->qemu.cpus : 2,
		    accel == QEMU_ACCEL_KVM ? "KVM" : "TCG");
	if (model && with)
		strbuf_addf(sb, " on %.*s", (int)(with - model - 9), model + 9);
	strbuf_addf(sb, " with %uM memory", o->qemu.memory_mb ? o->qemu.memory_mb : 1024);
}

int boot_record_failed(const struct atomic_job *job, const char *commit, const char *why,
		       const char *stat, struct run_record *r)
{
	struct timespec now;
	int err = 0;

	memset(r, 0, sizeof(*r));
	clock_gettime(CLOCK_REALTIME, &now);
	r->started = (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
	r->status = RUN_FAILED;
	err |= record_set_str(&r->testcase, job->testcase);
	err |= record_set_str(&r->job, job->name);
	err |= record_set_str(&r->commit, commit ? commit : "unknown");
	err |= record_set_str(&r->job_text, job->text);
	for (size_t i = 0; i < job->nr_params; i++)
		err |= strmap_set(&r->params, job->params[i].key, job->params[i].value);
	if (job->kpi)
		err |= strmap_set(&r->env, "kpi", job->kpi);
	if (why)
		err |= strmap_set(&r->env, "last_state.reason", why);
	if (stat)
		err |= statmap_add(&r->stats, stat, 1);
	if (err) {
		run_record_release(r);
		return -ENOMEM;
	}
	return 0;
}

/*
 * The kernel's configuration as the report's parameters name it, LKP's
 * "kconfig: x86_64-rhel-8.3": the architecture, the base configuration's
 * name (a target, or the file's), "+N" for N fragments.
 */
static void kconfig_name(const struct job_kernel *k, struct strbuf *out)
{
	const char *base = k->config ? strrchr(k->config, '/') : NULL;
	size_t n = 0;

	while (k->fragments && k->fragments[n])
		n++;
	strbuf_addf(out, "x86_64-%s", base ? base + 1 : k->config ? k->config : "?");
	if (n)
		strbuf_addf(out, "+%zu", n);
}

/* What the host knows of the run, over what the guest said. */
static int host_facts(const struct atomic_job *job, const struct boot_opts *o,
		      const char *kernel, const struct qemu_result *q, struct run_record *r)
{
	struct strbuf machine = STRBUF_INIT, kconfig = STRBUF_INIT;
	char host[256];
	const char *tb = o->testbox;
	int err = 0;

	if (!tb) {
		if (gethostname(host, sizeof(host)))
			snprintf(host, sizeof(host), "localhost");
		host[sizeof(host) - 1] = '\0';
		tb = host;
	}
	machine_line(o, q->accel, o->host_machine, &machine);
	err |= record_set_str(&r->testbox, tb);
	err |= strmap_set(&r->env, "testbox", tb);
	err |= strmap_set(&r->env, "boot.method", "qemu");
	err |= strmap_set(&r->env, "boot.accel", qemu_accel_name(q->accel));
	err |= strmap_set(&r->env, "boot.kernel", kernel);
	err |= strmap_setf(&r->env, "boot.cpus", "%u", o->qemu.cpus ? o->qemu.cpus : 2);
	err |= strmap_setf(&r->env, "boot.memory_mb", "%u",
			   o->qemu.memory_mb ? o->qemu.memory_mb : 1024);
	err |= strmap_setf(&r->env, "boot.elapsed_s", "%.3f", q->elapsed_s);
	err |= strbuf_error(&machine) || strmap_set(&r->env, "machine", machine.buf);
	/* the report's parameters: how the kernel was configured and booted */
	err |= strmap_setf(&r->env, "job.boot", "qemu/%s", qemu_accel_name(q->accel));
	if (job->kernel.present) {
		kconfig_name(&job->kernel, &kconfig);
		err |= strbuf_error(&kconfig) || strmap_set(&r->env, "job.kconfig", kconfig.buf);
	}
	strbuf_release(&machine);
	strbuf_release(&kconfig);
	return err ? -ENOMEM : 0;
}

/* The guest's record out of its hvc0 stream; -ENODATA with why. */
static int take_record(const struct qemu_result *q, struct run_record *r, struct strbuf *why)
{
	struct frame_parser p;
	unsigned char *payload = NULL;
	size_t len = 0, used = 0;
	int ret;

	frame_parser_init(&p, FRAME_PAYLOAD_MAX);
	ret = frame_parser_feed(&p, q->record.buf, q->record.len, &used);
	if (ret >= 0)
		ret = frame_parser_finish(&p);
	payload = frame_parser_take(&p, &len);
	if (!payload) {
		frame_parser_status(&p, why);
		if (!why->len)
			strbuf_addstr(why, "the guest wrote no record");
		frame_parser_release(&p);
		return -ENODATA;
	}
	frame_parser_release(&p);
	ret = record_from_json((const char *)payload, len, r, why);
	free(payload);
	return ret ? -ENODATA : 0;
}

int boot_run(const struct atomic_job *job, const char *kernel, const struct boot_opts *o,
	     volatile sig_atomic_t *stop, struct run_record *out, struct strbuf *err)
{
	struct initramfs_spec spec = {
		.perfbot = o->perfbot ? o->perfbot : "/proc/self/exe",
		.busybox = o->busybox ? o->busybox : "/bin/busybox",
		.job_text = job->text,
	};
	struct qemu_opts qo = o->qemu;
	struct qemu_result q = { 0 };
	struct dmesg_stats dm = { 0 };
	struct strbuf why = STRBUF_INIT;
	char *dir = NULL, *initrd = NULL;
	bool failed_boot = false;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = make_temp_dir(NULL, "perfbot-boot", &dir);
	if (ret) {
		strbuf_setf(err, "cannot make a directory for the boot: %s", strerror(-ret));
		return ret;
	}
	if (asprintf(&initrd, "%s/initramfs.cpio", dir) < 0) {
		initrd = NULL;
		ret = -ENOMEM;
		strbuf_setf(err, "out of memory");
		goto out;
	}
	ret = initramfs_build(&spec, initrd, err);
	if (ret)
		goto out;
	if (!qo.timeout_s)
		qo.timeout_s = BOOT_TIMEOUT_S;
	ret = qemu_run(&qo, kernel, initrd, dir, stop, &q, err);
	if (ret)
		goto out;
	/* the guest's record when it wrote one whole, else a failed boot */
	if (take_record(&q, out, &why)) {
		run_record_release(out);
		ret = boot_record_failed(job, o->commit, NULL, NULL, out);
		if (!ret) {
			struct strbuf reason = STRBUF_INIT;

			out->status = stop && *stop ? RUN_INCOMPLETE : RUN_FAILED;
			strbuf_addf(&reason, "boot failed: %s%s%s; ", why.buf,
				    q.timed_out ? " (timed out)" : "", q.stopped ? " (stopped)" : "");
			console_cause(&q.console, &reason);
			strbuf_addstr(&reason, "console ends: ");
			console_tail(&q.console, BOOT_TAIL_LINES, &reason);
			ret = strbuf_error(&reason) ||
			      strmap_set(&out->env, "last_state.reason", reason.buf) ? -ENOMEM : 0;
			strbuf_release(&reason);
			failed_boot = true;
		}
	} else if (o->commit && record_set_str(&out->commit, o->commit)) {
		ret = -ENOMEM;
	}
	/* the host's scan of the whole console stands for the guest's kmsg */
	if (!ret && (ret = dmesg_scan(q.console.buf, q.console.len, &dm)) == 0)
		ret = dmesg_stats_replace(&dm, &out->stats);
	/* after the replacement: a boot that never reached the job */
	if (!ret && failed_boot && statmap_add(&out->stats, DMESG_BOOT_FAILURES, 1))
		ret = -ENOMEM;
	if (!ret)
		ret = host_facts(job, o, kernel, &q, out);
	if (!ret)
		statmap_finish(&out->stats);
	if (ret) {
		strbuf_setf(err, "out of memory");
		run_record_release(out);
	}
out:
	dmesg_stats_release(&dm);
	qemu_result_release(&q);
	strbuf_release(&why);
	if (initrd)
		unlink(initrd);
	remove_tree(dir);
	free(dir);
	free(initrd);
	return ret;
}

int boot_record_unbuilt(const struct atomic_job *job, const struct boot_opts *o,
			const char *why, struct run_record *out)
{
	char host[256];
	const char *tb = o->testbox;
	int err = boot_record_failed(job, o->commit, why, BOOT_BUILD_FAILURES, out);

	if (err)
		return err;
	if (!tb) {
		if (gethostname(host, sizeof(host)))
			snprintf(host, sizeof(host), "localhost");
		host[sizeof(host) - 1] = '\0';
		tb = host;
	}
	err |= record_set_str(&out->testbox, tb);
	err |= strmap_set(&out->env, "testbox", tb);
	err |= strmap_set(&out->env, "boot.method", "qemu");
	if (!err)
		statmap_finish(&out->stats);
	if (err) {
		run_record_release(out);
		return -ENOMEM;
	}
	return 0;
}

int boot_kernel_release(const char *path, char *buf, size_t len)
{
	unsigned char hdr[0x210], ver[128];
	FILE *f = fopen(path, "rb");
	unsigned off;
	size_t n, k = 0;

	if (!f)
		return -errno;
	n = fread(hdr, 1, sizeof(hdr), f);
	/* "HdrS" at 0x202, the version string's offset (from 0x200) at 0x20e */
	if (n < sizeof(hdr) || memcmp(hdr + 0x202, "HdrS", 4)) {
		fclose(f);
		return -EINVAL;
	}
	off = (unsigned)hdr[0x20e] | (unsigned)hdr[0x20f] << 8;
	if (!off || fseek(f, (long)off + 0x200, SEEK_SET) ||
	    (n = fread(ver, 1, sizeof(ver) - 1, f)) == 0) {
		fclose(f);
		return -EINVAL;
	}
	fclose(f);
	while (k < n && k + 1 < len && ver[k] > ' ' && ver[k] < 0x7f)
		k++;
	if (!k || !len)
		return -EINVAL;
	memcpy(buf, ver, k);
	buf[k] = '\0';
	return 0;
}

int boot_opts_from_kernel(const struct job_kernel *k, struct boot_opts *o)
{
	const char *m = k->qemu_memory ? k->qemu_memory : JOB_QEMU_MEMORY_DEFAULT;
	char *end = NULL;
	unsigned long long v;

	errno = 0;
	v = strtoull(m, &end, 10);
	if (errno || end == m)
		return -EINVAL;
	switch (*end) {
	case 'K': case 'k': v /= 1024; end++; break;
	case 'M': case 'm': case '\0': if (*end) end++; break;
	case 'G': case 'g': v *= 1024; end++; break;
	case 'T': case 't': v *= 1024 * 1024; end++; break;
	default: return -EINVAL;
	}
	if (*end || !v || v > 1u << 30)
		return -EINVAL;
	o->qemu.memory_mb = (unsigned)v;
	o->qemu.cpus = k->qemu_cpus ? k->qemu_cpus : JOB_QEMU_CPUS_DEFAULT;
	o->qemu.accel = k->accel == JOB_ACCEL_KVM ? QEMU_ACCEL_KVM :
			k->accel == JOB_ACCEL_TCG ? QEMU_ACCEL_TCG : QEMU_ACCEL_AUTO;
	o->qemu.extra_args = k->qemu_args;
	o->qemu.cmdline = k->cmdline;
	return 0;
}

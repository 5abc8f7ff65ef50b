/* Unit tests: the kernel: section of a job file (docs/kernel.md). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "job/job.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit_jobfile.h"

/* the minimal form, as it is */
static const char minimal[] =
	"suite: will-it-scale\n"
	"testcase: will-it-scale\n"
	"runtime: 3s\n"
	"nr_task: 1\n"
	"will-it-scale:\n"
	"  mode: process\n"
	"  test: futex1\n"
	"kernel:\n"
	"  config: tinyconfig\n"
	"  boot: qemu\n";

static void minimal_form(void **state)
{
	struct atomic_job *jobs, *again;
	struct job_error err;
	size_t nr, nr2;

	(void)state;
	assert_int_equal(job_load(write_job(minimal), NULL, 0, &jobs, &nr, &err), 0);
	assert_int_equal(nr, 1);
	assert_true(jobs[0].kernel.present);
	assert_int_equal(jobs[0].kernel.config_kind, JOB_KCONFIG_TARGET);
	assert_string_equal(jobs[0].kernel.config, "tinyconfig");
	assert_null(jobs[0].kernel.fragments);
	assert_int_equal(jobs[0].kernel.boot, JOB_BOOT_QEMU);
	assert_int_equal(jobs[0].kernel.accel, JOB_ACCEL_AUTO);
	assert_int_equal(jobs[0].kernel.qemu_cpus, JOB_QEMU_CPUS_DEFAULT);
	assert_string_equal(jobs[0].kernel.qemu_memory, JOB_QEMU_MEMORY_DEFAULT);
	assert_null(jobs[0].kernel.qemu_args);
	assert_null(jobs[0].kernel.cmdline);
	assert_int_equal(jobs[0].kernel.line, 8);
	assert_int_equal(jobs[0].kernel.column, 1);
	/* not part of the name: kconfig: is */
	assert_string_equal(jobs[0].name, "will-it-scale-1-process-futex1");
	assert_null(atomic_job_param(&jobs[0], "config"));
	assert_null(atomic_job_param(&jobs[0], "kernel"));
	/* in the job's text as written, and that text loads the same */
	assert_non_null(strstr(jobs[0].text, "\nkernel:\n  config: tinyconfig\n  boot: qemu\n"));
	assert_int_equal(job_load(write_job(jobs[0].text), NULL, 0, &again, &nr2, &err), 0);
	assert_string_equal(again[0].text, jobs[0].text);
	assert_true(again[0].kernel.present);
	assert_string_equal(again[0].kernel.config, "tinyconfig");
	atomic_jobs_release(again, nr2);
	atomic_jobs_release(jobs, nr);

	/* a job without the section has none */
	assert_int_equal(job_load(write_job("testcase: will-it-scale\ntest: futex1\n"), NULL, 0,
				  &jobs, &nr, &err), 0);
	assert_false(jobs[0].kernel.present);
	atomic_jobs_release(jobs, nr);
}

static void full_form(void **state)
{
	char frag[4300], conf[4300], text[16384];
	struct atomic_job *jobs;
	struct job_error err;
	size_t nr;
	FILE *f;

	(void)state;
	snprintf(frag, sizeof(frag), "%s/extra.config", dir);
	snprintf(conf, sizeof(conf), "%s/base.config", dir);
	f = fopen(frag, "w");
	assert_non_null(f);
	fputs("CONFIG_X=y\n", f);
	fclose(f);
	f = fopen(conf, "w");
	assert_non_null(f);
	fputs("CONFIG_Y=y\n", f);
	fclose(f);
	snprintf(text, sizeof(text),
		 "testcase: will-it-scale\n"
		 "test: [futex1, futex2]\n"
		 "kconfig: x86_64-rhel-8.3\n"
		 "kernel:\n"
		 "  config: base.config\n"
		 "  fragments:\n"
		 "  - CONFIG_PREEMPT=y\n"
		 "  - \"# CONFIG_DEBUG_KERNEL is not set\"\n"
		 "  - CONFIG_CMDLINE=\"a b\"\n"
		 "  - extra.config\n"
		 "  - %s\n"
		 "  boot: kexec\n"
		 "  qemu:\n"
		 "    cpus: 4\n"
		 "    memory: 2G\n"
		 "    accel: tcg\n"
		 "    args: -cpu max\n"
		 "  cmdline: mitigations=off\n", frag);
	assert_int_equal(job_load(write_job(text), NULL, 0, &jobs, &nr, &err), 0);
	assert_int_equal(nr, 2);
	for (size_t i = 0; i < nr; i++) {
		const struct job_kernel *k = &jobs[i].kernel;

		assert_true(k->present);
		assert_int_equal(k->config_kind, JOB_KCONFIG_FILE);
		assert_string_equal(k->config, conf);
		assert_string_equal(k->fragments[0], "CONFIG_PREEMPT=y");
		assert_string_equal(k->fragments[1], "# CONFIG_DEBUG_KERNEL is not set");
		assert_string_equal(k->fragments[2], "CONFIG_CMDLINE=\"a b\"");
		assert_string_equal(k->fragments[3], frag);	/* resolved beside the job */
		assert_string_equal(k->fragments[4], frag);
		assert_null(k->fragments[5]);
		assert_int_equal(k->boot, JOB_BOOT_KEXEC);
		assert_int_equal(k->qemu_cpus, 4);
		assert_string_equal(k->qemu_memory, "2G");
		assert_int_equal(k->accel, JOB_ACCEL_TCG);
		assert_string_equal(k->qemu_args[0], "-cpu");
		assert_string_equal(k->qemu_args[1], "max");
		assert_null(k->qemu_args[2]);
		assert_string_equal(k->cmdline, "mitigations=off");
		/* LKP's kconfig: stays the identity */
		assert_non_null(atomic_job_param(&jobs[i], "kconfig") ||
				strmap_get(&jobs[i].recorded, "kconfig"));
		assert_non_null(strstr(jobs[i].text, "  config: base.config\n"));
		assert_non_null(strstr(jobs[i].text, "  qemu:\n    cpus: 4\n    memory: 2G\n"));
	}
	assert_string_equal(job_boot_name(JOB_BOOT_KEXEC), "kexec");
	assert_string_equal(job_accel_name(JOB_ACCEL_TCG), "tcg");
	atomic_jobs_release(jobs, nr);

	/* tree:PATH is a file inside the kernel tree, not checked here */
	assert_int_equal(job_load(write_job("testcase: will-it-scale\ntest: futex1\n"
					    "kernel:\n  config: tree:arch/x86/configs/x86_64_defconfig\n"),
				  NULL, 0, &jobs, &nr, &err), 0);
	assert_int_equal(jobs[0].kernel.config_kind, JOB_KCONFIG_TREE);
	assert_string_equal(jobs[0].kernel.config, "arch/x86/configs/x86_64_defconfig");
	atomic_jobs_release(jobs, nr);
	/* a make target with a dot: the kernel's own fragment targets */
	assert_int_equal(job_load(write_job("testcase: will-it-scale\ntest: futex1\n"
					    "kernel:\n  config: kvm_guest.config\n"),
				  NULL, 0, &jobs, &nr, &err), 0);
	assert_int_equal(jobs[0].kernel.config_kind, JOB_KCONFIG_TARGET);
	atomic_jobs_release(jobs, nr);
	unlink(frag);
	unlink(conf);
}

struct bad {
	const char *kernel;	/* the text after "kernel:" */
	unsigned line, column;
	const char *msg;
};

static void errors(void **state)
{
	static const struct bad bad[] = {
		{ "\n  confg: tinyconfig\n", 4, 3,
		  "unknown key 'confg' in kernel (did you mean 'config'?" },
		{ "\n  config: tinyconfig\n  boot: kexc\n", 5, 9,
		  "unknown boot 'kexc' (did you mean 'kexec'? expected qemu, kexec)" },
		{ "\n  config: tinyconfig\n  boot: grub\n", 5, 9,
		  "unknown boot 'grub' (expected qemu, kexec)" },
		{ "\n  boot: qemu\n", 3, 1, "kernel needs config:" },
		{ " tinyconfig\n", 3, 9, "'kernel' must be a mapping" },
		{ "\n", 3, 1, "'kernel' must be a mapping" },
		{ "\n  config: menuconfig\n", 4, 11, "config 'menuconfig' is an interactive make target" },
		{ "\n  config: [tinyconfig, defconfig]\n", 4, 11, "'config' must be a single value, not a list" },
		{ "\n  config: my.conf\n", 4, 11, "config file 'my.conf' cannot be read (" },
		{ "\n  config: tree:../x\n", 4, 11, "tree:PATH needs a relative path inside the kernel tree" },
		{ "\n  config: tree:/etc/x\n", 4, 11, "tree:PATH needs a relative path inside the kernel tree" },
		{ "\n  config: tinyconfig\n  fragments: [CONFIG_A]\n", 5, 15,
		  "fragment 'CONFIG_A' is not a config line" },
		{ "\n  config: tinyconfig\n  fragments: [\"# CONFIG_A is set\"]\n", 5, 15,
		  "is not a config line" },
		{ "\n  config: tinyconfig\n  fragments: [nosuch.config]\n", 5, 15,
		  "fragment file 'nosuch.config' cannot be read (" },
		{ "\n  config: tinyconfig\n  fragments: {a: b}\n", 5, 14, "not a mapping" },
		{ "\n  config: tinyconfig\n  qemu:\n    cpus: 0\n", 6, 11,
		  "cpus '0' is not a whole number from 1 to 1024" },
		{ "\n  config: tinyconfig\n  qemu:\n    memory: lots\n", 6, 13,
		  "memory 'lots' is not a size" },
		{ "\n  config: tinyconfig\n  qemu:\n    memory: 0M\n", 6, 13,
		  "memory '0M' is not a size" },
		{ "\n  config: tinyconfig\n  qemu:\n    accel: whpx\n", 6, 12,
		  "unknown accel 'whpx' (expected auto, kvm, tcg)" },
		{ "\n  config: tinyconfig\n  qemu:\n    acel: tcg\n", 6, 5,
		  "unknown key 'acel' in kernel: qemu (did you mean 'accel'?" },
		{ "\n  config: tinyconfig\n  qemu: tcg\n", 5, 9, "'qemu' must be a mapping" },
		{ "\n  config: tinyconfig\n  cmdline: [a, b]\n", 5, 12,
		  "'cmdline' must be a single value, not a list" },
	};
	char text[4096];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct atomic_job *jobs;
		struct job_error err;
		size_t nr;
		const char *path;

		snprintf(text, sizeof(text), "testcase: will-it-scale\ntest: futex1\nkernel:%s",
			 bad[i].kernel);
		path = write_job(text);
		if (job_load(path, NULL, 0, &jobs, &nr, &err) != -EINVAL)
			fail_msg("case %zu loaded: %s", i, bad[i].kernel);
		if (!strstr(err.msg.buf, bad[i].msg))
			fail_msg("case %zu: '%s' lacks '%s'", i, err.msg.buf, bad[i].msg);
		assert_string_equal(err.file.buf, path);
		if (err.line != bad[i].line || err.column != bad[i].column)
			fail_msg("case %zu: at %u:%u, not %u:%u (%s)", i, err.line, err.column,
				 bad[i].line, bad[i].column, err.msg.buf);
		job_error_release(&err);
	}
}

static void not_in_a_section_nor_set(void **state)
{
	struct atomic_job *jobs;
	struct job_error err;
	size_t nr;
	char *ov[] = { "kernel=tinyconfig" };

	(void)state;
	assert_int_equal(job_load(write_job("testcase: will-it-scale\nwill-it-scale:\n"
					    "  test: futex1\n  kernel:\n    config: tinyconfig\n"),
				  NULL, 0, &jobs, &nr, &err), -EINVAL);
	assert_non_null(strstr(err.msg.buf, "'kernel' belongs at the top level"));
	assert_int_equal(err.line, 4);
	job_error_release(&err);
	assert_int_equal(job_load(write_job(minimal), ov, 1, &jobs, &nr, &err), -EINVAL);
	assert_non_null(strstr(err.msg.buf, "kernel"));
	job_error_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(minimal_form),
		cmocka_unit_test(full_form),
		cmocka_unit_test(errors),
		cmocka_unit_test(not_in_a_section_nor_set),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}

/*
 * kexec.h - boot: kexec (docs/kernel.md "boot: kexec"): a kernel under
 * test booted on this bare-metal machine, as LKP does it.  perfbot
 * installs the kernel and a systemd unit that runs `perfbot kexec resume`
 * at every boot, loads the kernel and kexecs into it; after the boot the
 * unit runs the job with this perfbot's runner (run/runner.h, not QEMU),
 * stores its runs and reboots into the default kernel, where the unit
 * removes itself and runs what the caller asked to go on with (the
 * continuation: a bisection's `perfbot bisect resume ID`).
 *
 * The state machine lives in the store (store.h's kexec boots), one row
 * per boot:
 *
 *   built    the row made (kexec_arrange()), before anything is installed
 *   booting  installed, loaded, `systemctl kexec` run
 *   running  resumed in the expected release: the job runs
 *   stored   its runs stored (run_id), the reboot asked for; also after a
 *            run the kernel cut short (crash, reboot) while still in it
 *   back     resumed in another release after `stored`: uninstalled
 *   failed   the kexec did not happen (resumed in another release than
 *            the image's: a failed run with dmesg.boot_failures 1 is
 *            stored), the machine crashed or rebooted during the run and
 *            came back in the default kernel (a failed run stored), a
 *            step failed, or `perfbot kexec abort`: uninstalled
 *
 * Every transition names the state it leaves (store_kexec_update()), and
 * kexec_resume() holds a lock on the kexec directory (flock) while it works,
 * so resuming twice never runs a job twice, and a resume that finds a
 * boot `running` knows its runner is gone: the run ended with the
 * machine.
 *
 * Every external step is a command run with an argv (util/child.h, never
 * a shell): struct kexec_cmds names them, so that a test replaces them
 * with executables of its own.  Their output is captured; a command that
 * fails is an error with its exit status and its last output line.
 *
 * Errors: 0 or a negative errno with the message in err; nothing here
 * prints.  Ownership: what a function returns through a char ** is the
 * caller's (free(), kexec_argv_free() for argv).  Threading: main thread
 * only (children, a lock).
 */
#ifndef PERFBOT_BOOT_KEXEC_H
#define PERFBOT_BOOT_KEXEC_H

#include "store/store.h"
#include "util/strbuf.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KEXEC_UNIT "perfbot-kexec.service"
#define KEXEC_DEFAULT_DIR "/var/lib/perfbot/kexec"
#define KEXEC_DEFAULT_SYSTEMD_DIR "/etc/systemd/system"
#define KEXEC_DEFAULT_OSRELEASE "/proc/sys/kernel/osrelease"
#define KEXEC_DEFAULT_CMDLINE "/proc/cmdline"

/* The states (store.h's kexec boots). */
#define KEXEC_BUILT "built"
#define KEXEC_BOOTING "booting"
#define KEXEC_RUNNING "running"
#define KEXEC_STORED "stored"
#define KEXEC_BACK "back"
#define KEXEC_FAILED "failed"

/*
 * The commands and places.  Any field NULL takes its default
 * (kexec_cmds_default()); the cmd layer fills them from PERFBOT_KEXEC,
 * PERFBOT_SYSTEMCTL, PERFBOT_SYSTEMD_DIR, PERFBOT_OSRELEASE,
 * PERFBOT_KEXEC_DIR (docs/kernel.md).  All strings borrowed.
 */
struct kexec_cmds {
	const char *kexec;		/* "kexec" (kexec-tools), searched in PATH */
	const char *systemctl;		/* "systemctl" */
	const char *systemd_dir;	/* where the unit goes */
	const char *osrelease;		/* the file that holds the running release */
	const char *proc_cmdline;	/* the running kernel's command line */
	const char *kexec_dir;		/* kernels installed in <dir>/<id>/, the lock */
	const char *initrd;		/* passed as --initrd=; NULL: none */
	/* the unit's ExecStart=: <perfbot> --db <db> kexec resume (absolute) */
	const char *perfbot, *db;
	/* "KEY=VALUE" for the unit's Environment= lines, NULL-terminated; may be NULL */
	char *const *unit_env;
};

/* c with every NULL field that has a default set to it. */
void kexec_cmds_default(struct kexec_cmds *c);

/* ---- the steps ---- */

/* The unit's text (perfbot-kexec.service) onto out; -EINVAL without perfbot or db. */
int kexec_unit_text(const struct kexec_cmds *c, struct strbuf *out);
/*
 * bzimage copied to <kexec_dir>/<id>/bzImage (*installed, malloc'd), the
 * unit written into systemd_dir, `systemctl daemon-reload`, `systemctl
 * enable perfbot-kexec.service`.
 */
int kexec_install(const struct kexec_cmds *c, int64_t id, const char *bzimage,
		  char **installed, struct strbuf *err);
/*
 * `kexec -l KERNEL [--initrd=I] --append=CMDLINE`, CMDLINE the running
 * kernel's with extra (may be NULL) after it; *cmdline (malloc'd) what
 * was given.
 */
int kexec_load(const struct kexec_cmds *c, const char *kernel, const char *extra,
	       char **cmdline, struct strbuf *err);
/* `systemctl kexec`: the machine goes down and comes up in the loaded kernel. */
int kexec_execute(const struct kexec_cmds *c, struct strbuf *err);
/* `systemctl reboot`: through the firmware, into the default kernel. */
int kexec_reboot(const struct kexec_cmds *c, struct strbuf *err);
/*
 * `systemctl disable perfbot-kexec.service`, the unit removed, `systemctl
 * daemon-reload`, <kexec_dir>/<id> removed.  Goes on after a failed step
 * and returns the first error.
 */
int kexec_uninstall(const struct kexec_cmds *c, int64_t id, struct strbuf *err);
/* The running release (osrelease's first line) into buf. */
int kexec_running_release(const struct kexec_cmds *c, char *buf, size_t len,
			  struct strbuf *err);

/* ---- argv as the store keeps it: a JSON array of strings ---- */

int kexec_argv_to_json(char *const *argv, size_t n, char **json);
/* *argv NULL-terminated, *n its length (may be NULL); -EINVAL naming what is wrong. */
int kexec_argv_from_json(const char *json, char ***argv, size_t *n, struct strbuf *err);
void kexec_argv_free(char **argv);

/* ---- the state machine ---- */

struct kexec_spec {
	const char *testbox;
	const char *repo;		/* may be NULL (an image given as it is) */
	const char *sha;		/* what the runs are stored under */
	const char *job_file;		/* made absolute here */
	char *const *sets;		/* -s KEY=VALUE; may be NULL */
	size_t nr_sets;
	const char *job;		/* the atomic job's name */
	unsigned runs;			/* runs in the boot; 0: 1 */
	const char *bzimage;
	const char *release;		/* the image's (boot_kernel_release()) */
	const char *cmdline;		/* the job's kernel: cmdline; may be NULL */
	char *const *continuation;	/* NULL-terminated; may be NULL */
};

/*
 * A boot of spec arranged and started: the row (built), installed,
 * loaded, booting, executed.  *id the boot's.  -EEXIST when the test box
 * has an active boot (err names it); after the row is made, a step that
 * fails leaves it failed with the reason, and nothing installed.
 */
int kexec_arrange(struct store *s, const struct kexec_cmds *c, const struct kexec_spec *spec,
		  int64_t *id, struct strbuf *err);

struct kexec_resume_opts {
	const char *testbox;		/* NULL: the host name */
	bool monitors;
	volatile sig_atomic_t *stop;	/* may be NULL */
};

enum kexec_resumed {
	KEXEC_IDLE,		/* no active boot: nothing done */
	KEXEC_BUSY,		/* another resume holds the lock: nothing done */
	KEXEC_RAN,		/* the job ran, its runs stored, the reboot asked for */
	KEXEC_REBOOTING,	/* stored already, still in the kernel: the reboot asked again */
	KEXEC_CAME_BACK,	/* back in the default kernel, uninstalled */
	KEXEC_GAVE_UP,		/* failed (why in reason), uninstalled or rebooting */
};

struct kexec_resume_result {
	enum kexec_resumed what;
	int64_t id;		/* the boot */
	int64_t first_run;	/* the runs this resume stored: ids first_run.. */
	size_t runs;
	size_t failed_runs;	/* of them, failed */
	char *reason;		/* KEXEC_FAILED, or a run cut short; malloc'd */
	char *release;		/* the boot's kernel release */
	char *sha;		/* the boot's commit */
	bool rebooting;		/* the reboot into the default kernel was asked for */
	/* what to run now (came back or gave up in the default kernel); NULL: nothing */
	char **continuation;
};

/*
 * What the unit runs at every boot: the test box's active boot taken one
 * step on, as the header's comment says.  0 with *r filled (release with
 * kexec_resume_result_release()); a negative errno with err set when the
 * store or a step failed (the boot's state says how far it got).
 */
int kexec_resume(struct store *s, const struct kexec_cmds *c, const struct kexec_resume_opts *o,
		 struct kexec_resume_result *r, struct strbuf *err);
void kexec_resume_result_release(struct kexec_resume_result *r);

/*
 * The test box's active boot failed with "aborted" and uninstalled; *id
 * the boot (0 and 0 returned when there was none).
 */
int kexec_abort(struct store *s, const struct kexec_cmds *c, const char *testbox, int64_t *id,
		struct strbuf *err);

#endif

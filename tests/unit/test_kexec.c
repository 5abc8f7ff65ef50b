/*
 * Unit tests: boot: kexec (boot/kexec.h) with fake commands -- shell
 * scripts in a temp dir that append their name and argv to a log -- and
 * the store's kexec boots (store.h's last section): the unit's text,
 * every transition of the state machine (built, booting, running,
 * stored, back; failed), a release that is not the image's, a boot found
 * running at boot, resume twice runs the job once, a step that fails,
 * abort, the lock, one active boot per test box (also with writers at
 * once), the continuation, and a schema-5 database read and migrated.
 * Each test in its own temp dir, on a fresh store: SQLite's, or as
 * unit/test_kexec_pg a throw-away PostgreSQL cluster's (store_backend.h).
 */
#define _GNU_SOURCE
#include "store_backend.h"

#include "boot/kexec.h"
#include "store/internal.h"
#include "store/store.h"
#include "util/fsutil.h"
#include "util/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define BOX "box1"
#define SHA "c0ffee0000000000000000000000000000000000"
#define NEW "6.1.0-kexec"
#define OLD "6.1.0-default"

struct fixture {
	char *dir;
	struct strbuf db, log, osrelease, job, bz, kexec_dir, systemd_dir, cmdline, unit;
	struct strbuf kexec, systemctl;
	struct kexec_cmds c;
	struct store *s;
};

static void write_text(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, mode), 0);
}

static void set_release(struct fixture *f, const char *rel)
{
	char line[128];

	snprintf(line, sizeof(line), "%s\n", rel);
	write_text(f->osrelease.buf, line, 0644);
}

static int setup(void **state)
{
	/* a skip in setup runs no teardown: skip before making anything */
	test_store_need_pg_cluster();
	struct fixture *f = calloc(1, sizeof(*f));
	struct strbuf *all[] = { &f->db, &f->log, &f->osrelease, &f->job, &f->bz,
				 &f->kexec_dir, &f->systemd_dir, &f->cmdline, &f->unit,
				 &f->kexec, &f->systemctl };
	struct strbuf script = STRBUF_INIT;
	struct strbuf err = STRBUF_INIT;
	char *loc;

	if (!f || make_temp_dir(NULL, "perfbot-unit-kexec", &f->dir))
		return -1;
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		strbuf_init(all[i]);
	loc = test_store_fresh(f->dir);
	strbuf_addstr(&f->db, loc);
	free(loc);
	strbuf_addf(&f->log, "%s/cmds.log", f->dir);
	strbuf_addf(&f->osrelease, "%s/osrelease", f->dir);
	strbuf_addf(&f->job, "%s/job.yaml", f->dir);
	strbuf_addf(&f->bz, "%s/bzImage", f->dir);
	strbuf_addf(&f->kexec_dir, "%s/kexec", f->dir);
	strbuf_addf(&f->systemd_dir, "%s/systemd", f->dir);
	strbuf_addf(&f->cmdline, "%s/cmdline", f->dir);
	strbuf_addf(&f->unit, "%s/systemd/" KEXEC_UNIT, f->dir);
	strbuf_addf(&f->kexec, "%s/kexec-cmd", f->dir);
	strbuf_addf(&f->systemctl, "%s/systemctl", f->dir);
	/* each logs its argv; systemctl fails the verb $KEXEC_TEST_FAIL names */
	strbuf_addf(&script, "#!/bin/sh\necho \"kexec $*\" >> '%s'\n", f->log.buf);
	write_text(f->kexec.buf, script.buf, 0755);
	strbuf_setf(&script,
		    "#!/bin/sh\necho \"systemctl $*\" >> '%s'\n"
		    "[ \"$1\" = \"$KEXEC_TEST_FAIL\" ] && { echo \"cannot $1 now\"; exit 3; }\n"
		    "exit 0\n", f->log.buf);
	write_text(f->systemctl.buf, script.buf, 0755);
	write_text(f->log.buf, "", 0644);
	write_text(f->bz.buf, "not really a kernel\n", 0644);
	write_text(f->cmdline.buf, "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro -- single\n", 0644);
	write_text(f->job.buf,
		   "testcase: quick\n"
		   "exec:\n"
		   "  cmd: [true]\n"
		   "kernel:\n"
		   "  config: tinyconfig\n"
		   "  boot: kexec\n"
		   "  cmdline: mitigations=off\n", 0644);
	set_release(f, OLD);
	f->c = (struct kexec_cmds){
		.kexec = f->kexec.buf, .systemctl = f->systemctl.buf,
		.systemd_dir = f->systemd_dir.buf, .osrelease = f->osrelease.buf,
		.proc_cmdline = f->cmdline.buf, .kexec_dir = f->kexec_dir.buf,
		.perfbot = "/usr/bin/perfbot", .db = f->db.buf,
	};
	kexec_cmds_default(&f->c);
	unsetenv("KEXEC_TEST_FAIL");
	if (store_open(f->db.buf, STORE_WRITE, &f->s, &err))
		return -1;
	strbuf_release(&script);
	strbuf_release(&err);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	struct strbuf *all[] = { &f->db, &f->log, &f->osrelease, &f->job, &f->bz,
				 &f->kexec_dir, &f->systemd_dir, &f->cmdline, &f->unit,
				 &f->kexec, &f->systemctl };

	store_close(f->s);
	remove_tree(f->dir);
	free(f->dir);
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		strbuf_release(all[i]);
	free(f);
	return 0;
}

static char *slurp(const char *path)
{
	struct strbuf sb = STRBUF_INIT;

	assert_int_equal(strbuf_read_file(&sb, path, 1 << 20), 0);
	return strbuf_detach(&sb, NULL);
}

/* The commands run since the last call, one per line. */
static char *take_log(struct fixture *f)
{
	char *log = slurp(f->log.buf);

	write_text(f->log.buf, "", 0644);
	return log;
}

static void clear_log(struct fixture *f)
{
	free(take_log(f));
}

static void assert_log(struct fixture *f, const char *want)
{
	char *log = take_log(f);

	if (strcmp(log, want))
		fail_msg("commands run:\n%s\nexpected:\n%s", log, want);
	free(log);
}

static bool exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

static void assert_state(struct fixture *f, int64_t id, const char *state)
{
	struct store_kexec k;

	assert_int_equal(store_kexec_get(f->s, id, &k), 0);
	if (strcmp(k.state, state))
		fail_msg("boot %lld is %s, not %s (%s)", (long long)id, k.state, state,
			 k.reason ? k.reason : "");
	store_kexec_release(&k);
}

static size_t stored_runs(struct fixture *f)
{
	struct store_group *g;
	size_t n, runs = 0;

	assert_int_equal(store_list_groups(f->s, NULL, &g, &n), 0);
	for (size_t i = 0; i < n; i++)
		runs += g[i].runs_complete + g[i].runs_failed + g[i].runs_incomplete;
	store_groups_release(g, n);
	return runs;
}

static char *const continuation[] = { "perfbot", "--db", "x.db", "bisect", "resume", "7", NULL };

/* A boot arranged: 0 and the id, or the error. */
static int arrange(struct fixture *f, unsigned runs, int64_t *id, struct strbuf *err)
{
	static char *const sets[] = { "runtime=1s", NULL };
	struct kexec_spec spec = {
		.testbox = BOX, .repo = "/src/linux", .sha = SHA, .job_file = f->job.buf,
		.sets = sets, .nr_sets = 1, .job = "quick", .runs = runs,
		.bzimage = f->bz.buf, .release = NEW, .cmdline = "mitigations=off",
		.continuation = continuation,
	};

	return kexec_arrange(f->s, &f->c, &spec, id, err);
}

static int64_t arrange_ok(struct fixture *f, unsigned runs)
{
	struct strbuf err = STRBUF_INIT;
	int64_t id = 0;
	int ret = arrange(f, runs, &id, &err);

	if (ret)
		fail_msg("kexec_arrange: %d %s", ret, err.buf);
	strbuf_release(&err);
	assert_true(id > 0);
	return id;
}

static void resume_ok(struct fixture *f, struct kexec_resume_result *r)
{
	struct kexec_resume_opts o = { .testbox = BOX };
	struct strbuf err = STRBUF_INIT;
	int ret = kexec_resume(f->s, &f->c, &o, r, &err);

	if (ret)
		fail_msg("kexec_resume: %d %s", ret, err.buf);
	strbuf_release(&err);
}

static void assert_continuation(char **argv)
{
	assert_non_null(argv);
	for (size_t i = 0; continuation[i]; i++) {
		assert_non_null(argv[i]);
		assert_string_equal(argv[i], continuation[i]);
	}
	assert_null(argv[6]);
}

static void assert_uninstalled(struct fixture *f, int64_t id)
{
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s/%lld", f->kexec_dir.buf, (long long)id);
	assert_false(exists(f->unit.buf));
	assert_false(exists(dir));
}

/* ---- the unit ---- */

/* A password would be world-readable in the unit; a relative path means nothing there. */
static const char *const refused_db[] = {
	"postgresql://bot:secret@db/perfbot", "postgres://db/perfbot?password=secret",
	"results.db",
};

static void unit_text(void **state)
{
	struct fixture *f = *state;
	struct kexec_cmds c = f->c;
	char *const env[] = { "PERFBOT_KEXEC_DIR=/var/lib/pb $x", NULL };
	struct strbuf t = STRBUF_INIT;

	c.perfbot = "/opt/perf bot/perfbot";
	c.db = "/var/lib/\"db\"%1.db";
	c.unit_env = env;
	assert_int_equal(kexec_unit_text(&c, &t), 0);
	assert_non_null(strstr(t.buf, "\n[Unit]\n"));
	assert_non_null(strstr(t.buf, "\nAfter=network-online.target\n"));
	assert_non_null(strstr(t.buf, "\n[Service]\nType=oneshot\n"));
	assert_non_null(strstr(t.buf, "\nTimeoutStartSec=infinity\n"));
	assert_non_null(strstr(t.buf, "\nEnvironment=\"PERFBOT_KEXEC_DIR=/var/lib/pb $$x\"\n"));
	/* quoted as systemd splits ExecStart=: blanks kept, \" and %% and $$ */
	assert_non_null(strstr(t.buf, "\nExecStart=\"/opt/perf bot/perfbot\" --db"
				      " \"/var/lib/\\\"db\\\"%%1.db\" kexec resume\n"));
	assert_non_null(strstr(t.buf, "\n[Install]\nWantedBy=multi-user.target\n"));

	/* a PostgreSQL URL, as it is; not one with a password (the unit is world-readable) */
	strbuf_reset(&t);
	c.db = "postgresql:///perfbot?host=/run/pg&user=bot";
	assert_int_equal(kexec_unit_text(&c, &t), 0);
	assert_non_null(strstr(t.buf, " --db \"postgresql:///perfbot?host=/run/pg&user=bot\" kexec resume\n"));
	for (size_t i = 0; i < sizeof(refused_db) / sizeof(refused_db[0]); i++) {
		strbuf_reset(&t);
		c.db = refused_db[i];
		if (kexec_unit_text(&c, &t) != -EINVAL)
			fail_msg("a unit with --db %s", refused_db[i]);
	}
	c.db = "/var/lib/perfbot.db";

	/* relative paths or a newline: no unit */
	strbuf_reset(&t);
	c.perfbot = "perfbot";
	assert_int_equal(kexec_unit_text(&c, &t), -EINVAL);
	strbuf_reset(&t);
	c.perfbot = "/bin/perf\nbot";
	assert_int_equal(kexec_unit_text(&c, &t), -EINVAL);
	strbuf_release(&t);
}

/* ---- the whole cycle ---- */

static void full_cycle(void **state)
{
	struct fixture *f = *state;
	struct kexec_resume_result r;
	struct store_kexec k;
	struct run_record rec;
	char want[8192], *unit;
	int64_t id = arrange_ok(f, 2);

	/* installed, loaded (the job's cmdline before init's " -- "), kexec'd */
	snprintf(want, sizeof(want),
		 "systemctl daemon-reload\n"
		 "systemctl enable " KEXEC_UNIT "\n"
		 "kexec -l %s/%lld/bzImage --append=BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro"
		 " mitigations=off -- single\n"
		 "systemctl kexec\n", f->kexec_dir.buf, (long long)id);
	assert_log(f, want);
	assert_state(f, id, KEXEC_BOOTING);
	unit = slurp(f->unit.buf);
	assert_non_null(strstr(unit, "ExecStart=\"/usr/bin/perfbot\" --db"));
	free(unit);
	assert_int_equal(store_kexec_get(f->s, id, &k), 0);
	assert_string_equal(k.testbox, BOX);
	assert_string_equal(k.sha, SHA);
	assert_string_equal(k.job, "quick");
	assert_string_equal(k.sets, "[\"runtime=1s\"]");
	assert_int_equal(k.runs, 2);
	assert_string_equal(k.release, NEW);
	assert_non_null(strstr(k.cmdline, "ro mitigations=off -- single"));
	assert_non_null(strstr(k.kernel, "/bzImage"));
	assert_true(exists(k.kernel));
	store_kexec_release(&k);

	/* the boot: the new kernel runs, the job with it */
	set_release(f, NEW);
	resume_ok(f, &r);
	assert_int_equal(r.what, KEXEC_RAN);
	assert_int_equal(r.id, id);
	assert_int_equal(r.runs, 2);
	assert_int_equal(r.failed_runs, 0);
	assert_true(r.rebooting);
	assert_null(r.continuation);
	kexec_resume_result_release(&r);
	assert_log(f, "systemctl reboot\n");
	assert_state(f, id, KEXEC_STORED);
	assert_int_equal(stored_runs(f), 2);
	assert_int_equal(store_kexec_get(f->s, id, &k), 0);
	assert_true(k.run_id > 0);
	assert_int_equal(store_get_run(f->s, k.run_id, &rec), 0);
	assert_string_equal(rec.commit, SHA);
	assert_string_equal(rec.testbox, BOX);
	assert_int_equal(rec.status, RUN_COMPLETE);
	assert_string_equal(strmap_get(&rec.env, "boot.method"), "kexec");
	assert_string_equal(strmap_get(&rec.env, "boot.release"), NEW);
	run_record_release(&rec);
	store_kexec_release(&k);

	/* resumed again in it (the reboot has not happened yet): no run twice */
	resume_ok(f, &r);
	assert_int_equal(r.what, KEXEC_REBOOTING);
	assert_int_equal(r.runs, 0);
	kexec_resume_result_release(&r);
	assert_log(f, "systemctl reboot\n");
	assert_int_equal(stored_runs(f), 2);

	/* back in the default kernel: uninstalled, the continuation handed back once */
	set_release(f, OLD);
	resume_ok(f, &r);
	assert_int_equal(r.what, KEXEC_CAME_BACK);
	assert_continuation(r.continuation);
	kexec_resume_result_release(&r);
	assert_log(f, "systemctl disable " KEXEC_UNIT "\nsystemctl daemon-reload\n");
	assert_state(f, id, KEXEC_BACK);
	assert_uninstalled(f, id);
	resume_ok(f, &r);
	assert_int_equal(r.what, KEXEC_IDLE);
	assert_null(r.continuation);
	kexec_resume_result_release(&r);
	assert_log(f, "");
	assert_int_equal(stored_runs(f), 2);

	/* the test box is free again */
	assert_true(arrange_ok(f, 1) > id);
}

/* ---- what goes wrong ---- */

static void release_mismatch(void **state)
{
	struct fixture *f = *state;
	struct kexec_resume_result r;
	struct store_kexec k;
	struct run_record rec;
	int64_t id = arrange_ok(f, 1);

	clear_log(f);
	/* the machine came up in the default kernel: the kexec did not happen */
	resume_ok(f, &r);
	assert_int_equal(r.what, KEXEC_GAVE_UP);
	assert_int_equal(r.runs, 1);
	assert_int_equal(r.failed_runs, 1);
	assert_false(r.rebooting);
	assert_non_null(strstr(r.reason, "the machine runs " OLD ", not " NEW));
	assert_continuation(r.continuation);
	assert_int_equal(store_get_run(f->s, r.first_run, &rec), 0);
	assert_int_equal(rec.status, RUN_FAILED);
	assert_string_equal(rec.commit, SHA);
	assert_non_null(statmap_get(&rec.stats, "dmesg.boot_failures"));
	assert_true(*statmap_get(&rec.stats, "dmesg.boot_failures") == 1);
	assert_non_null(strstr(strmap_get(&rec.env, "last_state.reason"), "did not happen"));
	run_record_release(&rec);
	kexec_resume_result_release(&r);
	assert_log(f, "systemctl disable " KEXEC_UNIT "\nsystemctl daemon-reload\n");
	assert_uninstalled(f, id);
	assert_int_equal(store_kexec_get(f->s, id, &k), 0);
	assert_string_equal(k.state, KEXEC_FAILED);
	assert_non_null(strstr(k.reason, "did not happen"));
	store_kexec_release(&k);
	/* and once only */
	resume_ok(f, &r);
	assert_int_equal(r.what, KEXEC_IDLE);
	kexec_resume_result_release(&r);
	assert_int_equal(stored_runs(f), 1);
}

/* A resume that died in the run (the machine crashed or rebooted). */
static void mark_running(struct fixture *f, int64_t id)
{
	struct store_kexec k;

	assert_int_equal(store_kexec_get(f->s, id, &k), 0);
	free(k.state);
	k.state = strdup(KEXEC_RUNNING);
	assert_int_equal(store_kexec_update(f->s, &k, KEXEC_BOOTING), 0);
	/* a transition happens once */
	assert_int_equal(store_kexec_update(f->s, &k, KEXEC_BOOTING), -EAGAIN);
	assert_non_null(strstr(store_error(f->s), "is running, not booting"));
	store_kexec_release(&k);
}

static void running_at_boot(void **state)
{
	struct fixture *f = *state;
	struct kexec_resume_result r;
	struct run_record rec;
	int64_t id = arrange_ok(f, 3);

	mark_running(f, id);
	clear_log(f);
	/* it came back in the default kernel: failed, uninstalled, going on */
	resume_ok(f, &r);
	assert_int_equal(r.what, KEXEC_GAVE_UP);
	assert_int_equal(r.runs, 1);
	assert_non_null(strstr(r.reason, "crashed or rebooted during the run"));
	assert_continuation(r.continuation);
	assert_int_equal(store_get_run(f->s, r.first_run, &rec), 0);
	assert_int_equal(rec.status, RUN_FAILED);
	assert_true(*statmap_get(&rec.stats, "quick.exit_fail") == 1);
	run_record_release(&rec);
	kexec_resume_result_release(&r);
	assert_state(f, id, KEXEC_FAILED);
	assert_uninstalled(f, id);
	assert_log(f, "systemctl disable " KEXEC_UNIT "\nsystemctl daemon-reload\n");
}

static void running_at_boot_in_it(void **state)
{
	struct fixture *f = *state;
	struct kexec_resume_result r;
	int64_t id = arrange_ok(f, 1);

	mark_running(f, id);
	clear_log(f);
	/* still in the kernel under test: the failed run stored, back by a reboot */
	set_release(f, NEW);
	resume_ok(f, &r);
	assert_int_equal(r.what, KEXEC_GAVE_UP);
	assert_true(r.rebooting);
	assert_null(r.continuation);
	kexec_resume_result_release(&r);
	assert_log(f, "systemctl reboot\n");
	assert_state(f, id, KEXEC_STORED);
	set_release(f, OLD);
	resume_ok(f, &r);
	assert_int_equal(r.what, KEXEC_CAME_BACK);
	assert_non_null(strstr(r.reason, "crashed or rebooted"));
	assert_continuation(r.continuation);
	kexec_resume_result_release(&r);
	assert_state(f, id, KEXEC_BACK);
	assert_uninstalled(f, id);
	assert_int_equal(stored_runs(f), 1);
}

static void step_fails(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	struct store_kexec k;
	int64_t id = 0;

	setenv("KEXEC_TEST_FAIL", "kexec", 1);
	assert_int_equal(arrange(f, 1, &id, &err), -EIO);
	unsetenv("KEXEC_TEST_FAIL");
	assert_true(id > 0);
	assert_non_null(strstr(err.buf, "systemctl kexec' exited with 3: cannot kexec now"));
	assert_int_equal(store_kexec_get(f->s, id, &k), 0);
	assert_string_equal(k.state, KEXEC_FAILED);
	assert_non_null(strstr(k.reason, "cannot kexec now"));
	store_kexec_release(&k);
	assert_uninstalled(f, id);
	/* a missing bzImage: failed before anything is installed */
	remove(f->bz.buf);
	strbuf_reset(&err);
	assert_int_equal(arrange(f, 1, &id, &err), -ENOENT);
	assert_non_null(strstr(err.buf, "cannot read"));
	assert_state(f, id, KEXEC_FAILED);
	assert_uninstalled(f, id);
	strbuf_release(&err);
}

static void one_active_per_box(void **state)
{
	struct fixture *f = *state;
	struct strbuf err = STRBUF_INIT;
	int64_t first = arrange_ok(f, 1), id = 0;

	clear_log(f);
	assert_int_equal(arrange(f, 1, &id, &err), -EEXIST);
	assert_int_equal(id, 0);
	assert_non_null(strstr(err.buf, "already has kexec boot"));
	assert_log(f, "");	/* nothing installed over the first */
	assert_state(f, first, KEXEC_BOOTING);
	strbuf_release(&err);
}

static void busy_and_abort(void **state)
{
	struct fixture *f = *state;
	struct kexec_resume_result r;
	struct strbuf err = STRBUF_INIT;
	int64_t id = arrange_ok(f, 1), aborted = 0;
	int fd;

	/* another resume at work: nothing done */
	fd = open(f->kexec_dir.buf, O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	assert_int_equal(flock(fd, LOCK_EX), 0);
	set_release(f, NEW);
	resume_ok(f, &r);
	assert_int_equal(r.what, KEXEC_BUSY);
	kexec_resume_result_release(&r);
	close(fd);
	assert_state(f, id, KEXEC_BOOTING);
	assert_int_equal(stored_runs(f), 0);

	assert_int_equal(kexec_abort(f->s, &f->c, BOX, &aborted, &err), 0);
	assert_int_equal(aborted, id);
	assert_state(f, id, KEXEC_FAILED);
	assert_uninstalled(f, id);
	assert_int_equal(kexec_abort(f->s, &f->c, BOX, &aborted, &err), 0);
	assert_int_equal(aborted, 0);
	resume_ok(f, &r);
	assert_int_equal(r.what, KEXEC_IDLE);
	kexec_resume_result_release(&r);
	strbuf_release(&err);
}

static void argv_json(void **state)
{
	char *const argv[] = { "a b", "\"q\"", "", NULL };
	struct strbuf err = STRBUF_INIT;
	char *json, **back;
	size_t n;

	(void)state;
	assert_int_equal(kexec_argv_to_json(argv, 3, &json), 0);
	assert_int_equal(kexec_argv_from_json(json, &back, &n, &err), 0);
	assert_int_equal(n, 3);
	for (size_t i = 0; i < 3; i++)
		assert_string_equal(back[i], argv[i]);
	assert_null(back[3]);
	kexec_argv_free(back);
	free(json);
	assert_int_equal(kexec_argv_from_json("[\"a\", 1]", &back, &n, &err), -EINVAL);
	assert_non_null(strstr(err.buf, "element 1 is no string"));
	assert_int_equal(kexec_argv_from_json("{}", &back, &n, &err), -EINVAL);
	assert_int_equal(kexec_argv_from_json("[\"a\\u0000b\"]", &back, &n, &err), -EINVAL);
	strbuf_release(&err);
}

/* ---- the store ---- */

static void store_refuses(void **state)
{
	struct fixture *f = *state;
	struct store_kexec k = {
		.state = "built", .testbox = BOX, .sha = SHA, .job_file = "/j.yaml",
		.sets = "[]", .job = "quick", .runs = 1, .release = NEW,
	};
	struct store_kexec none;
	struct store *reader;
	struct strbuf err = STRBUF_INIT;

	k.runs = 0;
	assert_int_equal(store_kexec_add(f->s, &k), -EINVAL);
	k.runs = 1;
	k.job = NULL;
	assert_int_equal(store_kexec_add(f->s, &k), -EINVAL);
	k.job = "bad\njob";
	assert_int_equal(store_kexec_add(f->s, &k), -EILSEQ);
	k.job = "quick";
	assert_int_equal(store_kexec_add(f->s, &k), 0);
	assert_int_equal(store_kexec_get(f->s, 99, &none), -ENOENT);
	assert_non_null(strstr(store_error(f->s), "no kexec boot 99"));
	assert_int_equal(store_kexec_active(f->s, "other", &none), -ENOENT);
	assert_int_equal(store_open(f->db.buf, STORE_READ, &reader, &err), 0);
	assert_int_equal(store_kexec_add(reader, &k), -EBADF);
	store_close(reader);
	strbuf_release(&err);
}

/* A table rebuilt without its key holding a boot twice: refused, named. */
static void held_twice(void **state)
{
	struct fixture *f = *state;
	struct store_kexec *all = NULL, one, k = {
		.state = "failed", .testbox = BOX, .sha = SHA, .job_file = "/j.yaml",
		.sets = "[]", .job = "quick", .runs = 1, .release = NEW,
	};
	struct strbuf err = STRBUF_INIT;
	size_t n = 0;

	assert_int_equal(store_kexec_add(f->s, &k), 0);
	k.id = 0;
	assert_int_equal(store_kexec_add(f->s, &k), 0);
	assert_int_equal(store_kexec_list(f->s, &all, &n), 0);
	assert_int_equal(n, 2);
	store_kexecs_release(all, n);
	store_close(f->s);
	f->s = NULL;
	test_store_sql(f->db.buf, test_store_is_pg() ?
		       "ALTER TABLE kexec_boot DROP CONSTRAINT kexec_boot_pkey;"
		       "INSERT INTO kexec_boot SELECT * FROM kexec_boot WHERE id = 1;" :
		       "ALTER TABLE kexec_boot RENAME TO old_boot;"
		       "CREATE TABLE kexec_boot AS SELECT * FROM old_boot;"
		       "INSERT INTO kexec_boot SELECT * FROM old_boot WHERE id = 1;"
		       "DROP TABLE old_boot;");
	assert_int_equal(store_open(f->db.buf, STORE_READ, &f->s, &err), 0);
	assert_int_equal(store_kexec_get(f->s, 1, &one), -EBADMSG);
	assert_non_null(strstr(store_error(f->s), "kexec boot 1 is held twice"));
	all = NULL;
	assert_int_equal(store_kexec_list(f->s, &all, &n), -EBADMSG);
	assert_null(all);
	assert_non_null(strstr(store_error(f->s), "kexec boot 1 is held twice"));
	strbuf_release(&err);
}

/* A database at schema 5 (the migrations before the kexec table) with a run. */
static void older_database(void **state)
{
	struct fixture *f = *state;
	struct store_kexec *all, k = {
		.state = "built", .testbox = BOX, .sha = SHA, .job_file = "/j.yaml",
		.sets = "[]", .job = "quick", .runs = 1, .release = NEW,
	};
	struct strbuf err = STRBUF_INIT, path = STRBUF_INIT;
	struct store *reader, *writer;
	char want[32];
	size_t n;

	assert_true(sqlite_schema_version >= 6 && pg_schema_version >= 6);
	if (test_store_is_pg()) {
		/* the one test database: emptied of the fixture's schema */
		store_close(f->s);
		f->s = NULL;
		free(test_store_fresh(f->dir));
		strbuf_addstr(&path, f->db.buf);
	} else {
		strbuf_addf(&path, "%s/v5.db", f->dir);
	}
	test_store_make_schema(path.buf, 5,
			       "INSERT INTO runs (testbox, testcase, job, \"commit\", status,"
			       " started, duration_s) VALUES ('box1', 'quick', 'quick',"
			       " '" SHA "', 'complete', 1700000000, 30);"
			       "INSERT INTO watch_point VALUES ('t', 'main', 1, '" SHA "', NULL, 1);");

	/* a reader finds no boots, without an error, and changes nothing */
	assert_int_equal(store_open(path.buf, STORE_READ, &reader, &err), 0);
	assert_int_equal(store_kexec_list(reader, &all, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(store_kexec_active(reader, BOX, &k), -ENOENT);
	assert_int_equal(store_kexec_get(reader, 1, &k), -ENOENT);
	test_store_assert_query(path.buf, TEST_STORE_COUNT_TABLES("kexec%"), "0");

	/* a writer migrates it, keeping every row, and stores boots */
	assert_int_equal(store_open(path.buf, STORE_WRITE, &writer, &err), 0);
	k = (struct store_kexec){
		.state = "built", .testbox = BOX, .sha = SHA, .job_file = "/j.yaml",
		.sets = "[]", .job = "quick", .runs = 1, .release = NEW,
	};
	assert_int_equal(store_kexec_add(writer, &k), 0);
	assert_int_equal(k.id, 1);
	/* the reader opened before sees it */
	assert_int_equal(store_kexec_list(reader, &all, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(all[0].state, "built");
	store_kexecs_release(all, n);
	store_close(writer);
	store_close(reader);
	/* the backend's current version (PostgreSQL's has the fleet's queue, 7) */
	snprintf(want, sizeof(want), "%d,1,1",
		 test_store_is_pg() ? pg_schema_version : sqlite_schema_version);
	test_store_assert_query(path.buf,
				"SELECT (SELECT value FROM meta WHERE key = 'schema_version') || ','"
				" || (SELECT count(*) FROM runs) || ','"
				" || (SELECT count(*) FROM watch_point)", want);
	strbuf_release(&path);
	strbuf_release(&err);
}

/* The store's rule, whatever the backend: one active boot per test box, and its words. */
static void store_one_active(void **state)
{
	struct fixture *f = *state;
	struct store_kexec k = {
		.state = "built", .testbox = BOX, .sha = SHA, .job_file = "/j.yaml",
		.sets = "[]", .job = "quick", .runs = 1, .release = NEW,
	}, second = k, got;
	int64_t first;

	assert_int_equal(store_kexec_add(f->s, &k), 0);
	first = k.id;
	assert_int_equal(store_kexec_add(f->s, &second), -EEXIST);
	assert_string_equal(store_error(f->s), "test box " BOX " already has kexec boot 1 (built)");
	assert_int_equal(second.id, first);
	/* a boot in a final state is refused as well while another is active */
	second.state = KEXEC_FAILED;
	assert_int_equal(store_kexec_add(f->s, &second), -EEXIST);
	/* another test box is free */
	second.testbox = "box2";
	second.state = "built";
	assert_int_equal(store_kexec_add(f->s, &second), 0);
	assert_true(second.id == first + 1);

	/* a transition happens once, from the state it names */
	k.state = KEXEC_BOOTING;
	assert_int_equal(store_kexec_update(f->s, &k, "built"), 0);
	assert_int_equal(store_kexec_update(f->s, &k, "built"), -EAGAIN);
	assert_string_equal(store_error(f->s), "kexec boot 1 is booting, not built");
	k.id = 99;
	assert_int_equal(store_kexec_update(f->s, &k, "built"), -ENOENT);
	assert_non_null(strstr(store_error(f->s), "no kexec boot 99 in "));
	k.id = first;
	assert_int_equal(store_kexec_active(f->s, BOX, &got), 0);
	assert_int_equal(got.id, first);
	assert_string_equal(got.state, KEXEC_BOOTING);
	store_kexec_release(&got);

	/* once it is back, the test box takes a new boot */
	k.state = KEXEC_BACK;
	k.run_id = 0;
	assert_int_equal(store_kexec_update(f->s, &k, KEXEC_BOOTING), 0);
	assert_int_equal(store_kexec_active(f->s, BOX, &got), -ENOENT);
	second = (struct store_kexec){
		.state = "built", .testbox = BOX, .sha = SHA, .job_file = "/j.yaml",
		.sets = "[]", .job = "quick", .runs = 1, .release = NEW,
	};
	assert_int_equal(store_kexec_add(f->s, &second), 0);
	assert_true(second.id > first + 1);
}

#define RACERS 4
#define ROUNDS 20

struct boot_race {
	int ret[RACERS][ROUNDS];
	int64_t id[RACERS][ROUNDS];
	char msg[RACERS][ROUNDS][128];
};

/* Every round, each writer arranges a boot on the same (new) test box. */
static void add_boot(struct store *s, int who, int round, void *ctx)
{
	struct boot_race *r = ctx;
	char box[32];
	struct store_kexec k = {
		.state = "built", .testbox = box, .sha = SHA, .job_file = "/j.yaml",
		.sets = "[]", .job = "quick", .runs = 1, .release = NEW,
	};

	snprintf(box, sizeof(box), "race%d", round);
	r->ret[who][round] = store_kexec_add(s, &k);
	r->id[who][round] = k.id;
	snprintf(r->msg[who][round], sizeof(r->msg[who][round]), "%s", store_error(s));
}

static void active_boots_at_once(void **state)
{
	struct fixture *f = *state;
	struct boot_race *r = calloc(1, sizeof(*r));
	struct store_kexec *all;
	size_t n;

	assert_non_null(r);
	test_store_race(f->db.buf, RACERS, ROUNDS, add_boot, r);
	for (int round = 0; round < ROUNDS; round++) {
		int64_t won = 0;
		char want[128];

		for (int w = 0; w < RACERS; w++)
			if (!r->ret[w][round]) {
				if (won)
					fail_msg("round %d: two active boots", round);
				won = r->id[w][round];
			}
		if (!won)
			fail_msg("round %d: no boot added", round);
		snprintf(want, sizeof(want), "test box race%d already has kexec boot %lld (built)",
			 round, (long long)won);
		for (int w = 0; w < RACERS; w++) {
			assert_int_equal(r->id[w][round], won);
			if (r->ret[w][round]) {
				assert_int_equal(r->ret[w][round], -EEXIST);
				assert_string_equal(r->msg[w][round], want);
			}
		}
	}
	assert_int_equal(store_kexec_list(f->s, &all, &n), 0);
	assert_int_equal(n, ROUNDS);
	store_kexecs_release(all, n);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(unit_text, setup, teardown),
		cmocka_unit_test_setup_teardown(full_cycle, setup, teardown),
		cmocka_unit_test_setup_teardown(release_mismatch, setup, teardown),
		cmocka_unit_test_setup_teardown(running_at_boot, setup, teardown),
		cmocka_unit_test_setup_teardown(running_at_boot_in_it, setup, teardown),
		cmocka_unit_test_setup_teardown(step_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(one_active_per_box, setup, teardown),
		cmocka_unit_test_setup_teardown(busy_and_abort, setup, teardown),
		cmocka_unit_test_setup_teardown(argv_json, setup, teardown),
		cmocka_unit_test_setup_teardown(store_refuses, setup, teardown),
		cmocka_unit_test_setup_teardown(older_database, setup, teardown),
		cmocka_unit_test_setup_teardown(held_twice, setup, teardown),
		cmocka_unit_test_setup_teardown(store_one_active, setup, teardown),
		cmocka_unit_test_setup_teardown(active_boots_at_once, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

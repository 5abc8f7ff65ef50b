/*
 * kexec.c - perfbot kexec resume|status|abort: boot: kexec's state
 * machine (boot/kexec.h, docs/kernel.md "boot: kexec") as commands, and
 * the commands and places every kexec command takes from the environment
 * (cmd_kexec_setup()).
 */
#define _GNU_SOURCE
#include "boot/kexec.h"
#include "cmd/cmds.h"
#include "cmd/cmdutil.h"
#include "store/store.h"
#include "util/interrupt.h"
#include "util/quote.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define usage_error(...) cmd_usage_error("kexec", __VA_ARGS__)
#define failure(...) cmd_failure("kexec", __VA_ARGS__)

static const char kexec_usage[] =
	"usage: perfbot kexec resume [--no-monitors] [--db PATH]\n"
	"       perfbot kexec status [--json] [--db PATH]\n"
	"       perfbot kexec abort [--db PATH]\n"
	"\n"
	"boot: kexec (docs/kernel.md): perfbot run (or a bisection) installs\n"
	"the kernel under test and the unit " KEXEC_UNIT ", which runs\n"
	"`perfbot kexec resume` at every boot, and kexecs into it.\n"
	"\n"
	"  resume   take this test box's boot one step on: in the kernel under\n"
	"           test, run the job, store its runs and reboot into the\n"
	"           default kernel; there, remove the unit and the kernel and\n"
	"           run what was to go on (a bisection's resume).  A kexec that\n"
	"           did not happen, or a run cut short by a crash, is a failed\n"
	"           run.  Nothing to do: exit 0, silently\n"
	"  status   every boot and its state (built, booting, running, stored,\n"
	"           back, failed)\n"
	"  abort    end this test box's boot: uninstalled, failed \"aborted\"\n"
	"\n"
	CMD_DB_USAGE
	"      --json            status as JSON\n"
	"      --no-monitors     resume runs the job without its monitors\n"
	"  -h, --help            show this help\n"
	"\n"
	"Environment: PERFBOT_KEXEC (default kexec), PERFBOT_SYSTEMCTL (systemctl),\n"
	"PERFBOT_SYSTEMD_DIR (" KEXEC_DEFAULT_SYSTEMD_DIR "), PERFBOT_OSRELEASE (a file\n"
	"read instead of " KEXEC_DEFAULT_OSRELEASE "), PERFBOT_KEXEC_DIR\n"
	"(" KEXEC_DEFAULT_DIR "), PERFBOT_KEXEC_INITRD (an initramfs for the kernel\n"
	"under test; default none).\n"
	"\n"
	"Exit status: 0 done or nothing to do, 1 a boot failed or a step did,\n"
	"2 bad usage; resume execs the continuation when there is one.\n";

static const char *const kexec_env[] = {
	"PERFBOT_KEXEC", "PERFBOT_SYSTEMCTL", "PERFBOT_SYSTEMD_DIR", "PERFBOT_OSRELEASE",
	"PERFBOT_KEXEC_DIR", "PERFBOT_KEXEC_INITRD",
};

static const char *env_or_null(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

int cmd_kexec_setup(const char *who, struct cmd_kexec *k)
{
	const char *db = cmd_store_location(who);
	size_t n = 0;

	memset(k, 0, sizeof(*k));
	if (!db)
		return EXIT_USAGE;
	k->c.kexec = env_or_null("PERFBOT_KEXEC");
	k->c.systemctl = env_or_null("PERFBOT_SYSTEMCTL");
	k->c.systemd_dir = env_or_null("PERFBOT_SYSTEMD_DIR");
	k->c.osrelease = env_or_null("PERFBOT_OSRELEASE");
	k->c.kexec_dir = env_or_null("PERFBOT_KEXEC_DIR");
	k->c.initrd = env_or_null("PERFBOT_KEXEC_INITRD");
	kexec_cmds_default(&k->c);
	k->perfbot = realpath("/proc/self/exe", NULL);
	k->db = realpath(db, NULL);
	if (!k->perfbot || !k->db) {
		/* the store is open (made) before this: a path that is gone is news */
		cmd_failure(who, "cannot find the absolute path of %s: %s",
			    k->perfbot ? db : "this perfbot", strerror(errno));
		cmd_kexec_release(k);
		return EXIT_FAILED;
	}
	k->c.perfbot = k->perfbot;
	k->c.db = k->db;
	/* the unit resumes with the commands and places it was installed with */
	for (size_t i = 0; i < sizeof(kexec_env) / sizeof(kexec_env[0]); i++) {
		const char *v = env_or_null(kexec_env[i]);

		if (v && asprintf(&k->env[n], "%s=%s", kexec_env[i], v) >= 0)
			n++;
	}
	k->env[n] = NULL;
	k->c.unit_env = k->env;
	return 0;
}

void cmd_kexec_release(struct cmd_kexec *k)
{
	free(k->perfbot);
	free(k->db);
	for (size_t i = 0; k->env[i]; i++)
		free(k->env[i]);
	memset(k, 0, sizeof(*k));
}

/* ---- resume ---- */

static int run_continuation(char **argv, struct store *s)
{
	fprintf(stderr, "perfbot: kexec resume: going on with");
	for (size_t i = 0; argv[i]; i++) {
		fputc(' ', stderr);
		quote_fputs(argv[i], stderr);
	}
	fputc('\n', stderr);
	fflush(stdout);
	fflush(stderr);
	store_close(s);
	execvp(argv[0], argv);
	fprintf(stderr, "perfbot: kexec resume: cannot run %s: %s\n", argv[0], strerror(errno));
	return EXIT_FAILED;
}

static int cmd_resume(int argc, char **argv)
{
	struct kexec_resume_opts o = { .monitors = true, .stop = &interrupted };
	struct kexec_resume_result r = { 0 };
	struct strbuf err = STRBUF_INIT;
	struct cmd_kexec k;
	struct store *s = NULL;
	int ret;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--no-monitors"))
			o.monitors = false;
		else
			return usage_error("resume: unexpected argument '%s'", argv[i]);
	}
	ret = cmd_store_open("kexec", STORE_WRITE, &s);
	if (ret)
		return ret;
	ret = cmd_kexec_setup("kexec", &k);
	if (ret)
		goto out;
	ret = cmd_lifetime_start("kexec");
	if (ret)
		goto out;
	interrupt_install();
	ret = kexec_resume(s, &k.c, &o, &r, &err);
	switch (r.what) {
	case KEXEC_IDLE:
		break;
	case KEXEC_BUSY:
		fprintf(stderr, "perfbot: kexec resume: another kexec resume is at work (it locks %s)\n",
			k.c.kexec_dir);
		break;
	case KEXEC_RAN:
		printf("kexec boot %" PRId64 ": %zu run%s stored (run %" PRId64 "%s), %zu failed, in %s"
		       " at %.12s\n", r.id, r.runs, r.runs == 1 ? "" : "s", r.first_run,
		       r.runs > 1 ? " on" : "", r.failed_runs, r.release, r.sha);
		break;
	case KEXEC_REBOOTING:
		printf("kexec boot %" PRId64 ": its runs are stored already\n", r.id);
		break;
	case KEXEC_CAME_BACK:
		printf("kexec boot %" PRId64 ": back in the default kernel; %s at %.12s is done\n",
		       r.id, r.release, r.sha);
		break;
	case KEXEC_GAVE_UP:
		fprintf(stderr, "perfbot: kexec resume: boot %" PRId64 " of %s (%.12s) failed: %s%s\n",
			r.id, r.release ? r.release : "?", r.sha ? r.sha : "?",
			r.reason ? r.reason : "?",
			r.runs ? "; a failed run is stored" : "");
		break;
	}
	if (r.rebooting)
		printf("kexec boot %" PRId64 ": rebooting into the default kernel\n", r.id);
	fflush(stdout);
	if (ret) {
		fprintf(stderr, "perfbot: kexec resume: %s\n", err.buf);
		ret = EXIT_FAILED;
		goto out;
	}
	if (r.continuation) {
		ret = run_continuation(r.continuation, s);
		s = NULL;
		goto out;
	}
	if (interrupted)
		ret = 128 + interrupted;
	else
		ret = r.what == KEXEC_GAVE_UP ? EXIT_FAILED : EXIT_OK;
out:
	kexec_resume_result_release(&r);
	if (k.perfbot || k.db)
		cmd_kexec_release(&k);
	if (s)
		store_close(s);
	strbuf_release(&err);
	return ret;
}

/* ---- status ---- */

static json_t *boot_json(const struct store_kexec *b)
{
	json_t *o = json_object();

	if (!o)
		return NULL;
	json_object_set_new(o, "id", json_integer(b->id));
	json_object_set_new(o, "state", json_str(b->state));
	json_object_set_new(o, "reason", b->reason ? json_str(b->reason) : json_null());
	json_object_set_new(o, "created", json_real(b->created));
	json_object_set_new(o, "updated", json_real(b->updated));
	json_object_set_new(o, "testbox", json_str(b->testbox));
	json_object_set_new(o, "repo", b->repo ? json_str(b->repo) : json_null());
	json_object_set_new(o, "commit", json_str(b->sha));
	json_object_set_new(o, "job_file", json_str(b->job_file));
	json_object_set_new(o, "job", json_str(b->job));
	json_object_set_new(o, "runs", json_integer(b->runs));
	json_object_set_new(o, "kernel", b->kernel ? json_str(b->kernel) : json_null());
	json_object_set_new(o, "release", json_str(b->release));
	json_object_set_new(o, "cmdline", b->cmdline ? json_str(b->cmdline) : json_null());
	json_object_set_new(o, "run_id", b->run_id ? json_integer(b->run_id) : json_null());
	json_object_set_new(o, "sets", json_loads(b->sets, 0, NULL));
	json_object_set_new(o, "continuation",
			    b->continuation ? json_loads(b->continuation, 0, NULL) : json_null());
	return o;
}

static int cmd_status(int argc, char **argv)
{
	struct store_kexec *b = NULL;
	struct store *s = NULL;
	bool json = false;
	size_t n = 0;
	int ret;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = true;
		else
			return usage_error("status: unexpected argument '%s'", argv[i]);
	}
	ret = cmd_store_open("kexec", STORE_READ, &s);
	if (ret)
		return ret;
	if (store_kexec_list(s, &b, &n)) {
		ret = failure("%s", store_error(s));
		goto out;
	}
	if (json) {
		json_t *a = json_array();

		for (size_t i = 0; a && i < n; i++)
			json_array_append_new(a, boot_json(&b[i]));
		ret = cmd_print_json("kexec", a) ? EXIT_FAILED : EXIT_OK;
		goto out;
	}
	if (!n)
		printf("no kexec boots\n");
	for (size_t i = 0; i < n; i++) {
		char when[64];

		cmd_format_utc(when, sizeof(when), b[i].updated);
		printf("%-5" PRId64 " %-8s ", b[i].id, b[i].state);
		quote_fputs(b[i].testbox, stdout);
		printf(" %.12s ", b[i].sha);
		quote_fputs(b[i].job, stdout);
		putchar(' ');
		quote_fputs(b[i].release, stdout);
		printf(" %s", when);
		if (b[i].run_id)
			printf(" run %" PRId64, b[i].run_id);
		if (b[i].reason) {
			fputs(": ", stdout);
			quote_fputs(b[i].reason, stdout);
		}
		putchar('\n');
	}
	ret = EXIT_OK;
out:
	store_kexecs_release(b, n);
	store_close(s);
	return ret;
}

/* ---- abort ---- */

static int cmd_abort(int argc, char **argv)
{
	struct strbuf err = STRBUF_INIT;
	struct cmd_kexec k;
	struct store *s = NULL;
	int64_t id = 0;
	int ret;

	if (argc > 1)
		return usage_error("abort: unexpected argument '%s'", argv[1]);
	ret = cmd_store_open("kexec", STORE_WRITE, &s);
	if (ret)
		return ret;
	ret = cmd_kexec_setup("kexec", &k);
	if (ret)
		goto out;
	ret = kexec_abort(s, &k.c, NULL, &id, &err);
	if (ret)
		ret = failure("abort: %s", err.buf);
	else if (id)
		printf("kexec boot %" PRId64 ": aborted, uninstalled\n", id);
	else
		printf("no active kexec boot on this test box\n");
	cmd_kexec_release(&k);
out:
	store_close(s);
	strbuf_release(&err);
	return ret;
}

int cmd_kexec(int argc, char **argv)
{
	if (argc < 2)
		return usage_error("which? perfbot kexec resume|status|abort (see --help)");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(kexec_usage, stdout);
		return EXIT_OK;
	}
	for (int i = 2; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(kexec_usage, stdout);
			return EXIT_OK;
		}
	if (!strcmp(argv[1], "resume"))
		return cmd_resume(argc - 1, argv + 1);
	if (!strcmp(argv[1], "status"))
		return cmd_status(argc - 1, argv + 1);
	if (!strcmp(argv[1], "abort"))
		return cmd_abort(argc - 1, argv + 1);
	return usage_error("unknown subcommand '%s': perfbot kexec resume|status|abort",
			   argv[1]);
}

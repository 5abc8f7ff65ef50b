/*
 * kexec.c - boot: kexec's steps and state machine (kexec.h).
 */
#define _GNU_SOURCE
#include "boot/kexec.h"
#include "boot/boot.h"
#include "boot/dmesg.h"
#include "job/job.h"
#include "record/record.h"
#include "run/runner.h"
#include "util/child.h"
#include "util/fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void kexec_cmds_default(struct kexec_cmds *c)
{
	if (!c->kexec)
		c->kexec = "kexec";
	if (!c->systemctl)
		c->systemctl = "systemctl";
	if (!c->systemd_dir)
		c->systemd_dir = KEXEC_DEFAULT_SYSTEMD_DIR;
	if (!c->osrelease)
		c->osrelease = KEXEC_DEFAULT_OSRELEASE;
	if (!c->proc_cmdline)
		c->proc_cmdline = KEXEC_DEFAULT_CMDLINE;
	if (!c->kexec_dir)
		c->kexec_dir = KEXEC_DEFAULT_DIR;
}

/* ---- commands ---- */

/* The last non-empty line of text (at most 300 bytes of it) onto sb. */
static void last_line(const char *text, size_t len, struct strbuf *sb)
{
	size_t end = len, start;

	while (end && (text[end - 1] == '\n' || text[end - 1] == ' '))
		end--;
	start = end;
	while (start && text[start - 1] != '\n')
		start--;
	if (end - start > 300)
		start = end - 300;
	for (size_t i = start; i < end; i++)
		strbuf_addch(sb, (unsigned char)text[i] < 0x20 ? ' ' : text[i]);
}

/* argv[] run to its end, its output captured; a non-zero exit is an error. */
static int run_cmd(char *const argv[], struct strbuf *err)
{
	struct child c = { 0 };
	struct child_io io;
	struct strbuf out = STRBUF_INIT;
	sigset_t mask;
	int fd = -1, null_fd = -1, st = 0, ret;

	fd = memfd_create("perfbot-kexec-out", MFD_CLOEXEC);
	null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || null_fd < 0) {
		ret = -errno;
		strbuf_setf(err, "cannot run %s: %s", argv[0], strerror(-ret));
		goto out;
	}
	io = (struct child_io){ .stdin_fd = null_fd, .stdout_fd = fd, .stderr_fd = fd };
	child_signals_block(&mask);
	ret = child_spawn(&c, argv, &io);
	if (!ret) {
		child_wait_until(&c, INFINITY, NULL, &mask);
		child_stop(&c, &st, NULL);
	}
	child_signals_restore(&mask);
	if (ret) {
		strbuf_setf(err, "cannot run %s: %s", argv[0], strerror(-ret));
		goto out;
	}
	if (WIFEXITED(st) && !WEXITSTATUS(st))
		goto out;
	ret = -EIO;
	lseek(fd, 0, SEEK_SET);
	strbuf_read_fd(&out, fd, 64 * 1024);
	strbuf_setf(err, "'%s", argv[0]);
	for (size_t i = 1; argv[i]; i++)
		strbuf_addf(err, " %s", argv[i]);
	if (WIFEXITED(st))
		strbuf_addf(err, "' exited with %d", WEXITSTATUS(st));
	else
		strbuf_addf(err, "' was killed by signal %d", WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	if (out.len) {
		strbuf_addstr(err, ": ");
		last_line(out.buf, out.len, err);
	}
out:
	strbuf_release(&out);
	if (fd >= 0)
		close(fd);
	if (null_fd >= 0)
		close(null_fd);
	return ret;
}

static int systemctl(const struct kexec_cmds *c, const char *verb, const char *unit,
		     struct strbuf *err)
{
	char *argv[] = { (char *)c->systemctl, (char *)verb, (char *)unit, NULL };

	return run_cmd(argv, err);
}

/* ---- files ---- */

static int copy_file(const char *from, const char *to, struct strbuf *err)
{
	int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, ret = 0;
	char buf[65536];
	ssize_t n;

	if (in < 0) {
		ret = -errno;
		strbuf_setf(err, "cannot read %s: %s", from, strerror(-ret));
		return ret;
	}
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		ret = -errno;
		strbuf_setf(err, "cannot write %s: %s", to, strerror(-ret));
		close(in);
		return ret;
	}
	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			strbuf_setf(err, "cannot read %s: %s", from, strerror(-ret));
			break;
		}
		for (ssize_t done = 0; done < n;) {
			ssize_t w = write(out, buf + done, (size_t)(n - done));

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				ret = -errno;
				strbuf_setf(err, "cannot write %s: %s", to, strerror(-ret));
				break;
			}
			done += w;
		}
		if (ret)
			break;
	}
	if (!ret && fsync(out)) {
		ret = -errno;
		strbuf_setf(err, "cannot write %s: %s", to, strerror(-ret));
	}
	close(in);
	if (close(out) && !ret) {
		ret = -errno;
		strbuf_setf(err, "cannot write %s: %s", to, strerror(-ret));
	}
	if (ret)
		unlink(to);
	return ret;
}

/* The first line of path, trimmed, into sb. */
static int read_line(const char *path, struct strbuf *sb, struct strbuf *err)
{
	int ret = strbuf_read_file(sb, path, 64 * 1024);

	if (ret) {
		strbuf_setf(err, "cannot read %s: %s", path, strerror(-ret));
		return ret;
	}
	strbuf_setlen(sb, strcspn(sb->buf, "\n"));
	strbuf_rtrim(sb);
	return 0;
}

int kexec_running_release(const struct kexec_cmds *c, char *buf, size_t len,
			  struct strbuf *err)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = read_line(c->osrelease, &sb, err);

	if (!ret && (!sb.len || sb.len >= len)) {
		strbuf_setf(err, "%s: '%s' is no kernel release", c->osrelease, sb.buf);
		ret = -EINVAL;
	}
	if (!ret)
		snprintf(buf, len, "%s", sb.buf);
	strbuf_release(&sb);
	return ret;
}

/* ---- the unit ---- */

/* One argument of ExecStart= as systemd reads it: quoted, % and $ doubled. */
static int unit_quote(struct strbuf *sb, const char *arg)
{
	strbuf_addch(sb, '"');
	for (const char *p = arg; *p; p++) {
		if (*p == '\n' || *p == '\r')
			return -EINVAL;
		if (*p == '"' || *p == '\\')
			strbuf_addch(sb, '\\');
		else if (*p == '%' || *p == '$')
			strbuf_addch(sb, *p);
		strbuf_addch(sb, *p);
	}
	strbuf_addch(sb, '"');
	return 0;
}

/*
 * Where `perfbot kexec resume` finds the store after the reboot: an
 * absolute SQLite path, or a PostgreSQL URL without a password (the unit
 * is world-readable: ~/.pgpass or PGSERVICE hold a password).
 */
static bool unit_db_ok(const char *db)
{
	const char *auth = strstr(db, "://");
	const char *at;
	size_t n;

	if (db[0] == '/')
		return true;
	if (strncmp(db, "postgresql://", 13) && strncmp(db, "postgres://", 11))
		return false;
	auth += 3;
	n = strcspn(auth, "/?");
	at = memrchr(auth, '@', n);
	return !strstr(db, "password=") && !(at && memchr(auth, ':', at - auth));
}

int kexec_unit_text(const struct kexec_cmds *c, struct strbuf *out)
{
	int ret = 0;

	if (!c->perfbot || !c->db || c->perfbot[0] != '/' || !unit_db_ok(c->db))
		return -EINVAL;
	strbuf_addstr(out,
		      "# Written by perfbot (boot: kexec, docs/kernel.md); removed by it when\n"
		      "# the kernel under test is done.  Do not edit.\n"
		      "[Unit]\n"
		      "Description=perfbot: resume the job of a kexec boot\n"
		      "Wants=network-online.target\n"
		      "After=network-online.target\n"
		      "\n"
		      "[Service]\n"
		      "Type=oneshot\n"
		      /* a job runs for longer than systemd's 90 s */
		      "TimeoutStartSec=infinity\n");
	for (char *const *e = c->unit_env; e && *e && !ret; e++) {
		strbuf_addstr(out, "Environment=");
		ret = unit_quote(out, *e);
		strbuf_addch(out, '\n');
	}
	strbuf_addstr(out, "ExecStart=");
	if (!ret)
		ret = unit_quote(out, c->perfbot);
	strbuf_addstr(out, " --db ");
	if (!ret)
		ret = unit_quote(out, c->db);
	strbuf_addstr(out, " kexec resume\n"
		      "\n"
		      "[Install]\n"
		      "WantedBy=multi-user.target\n");
	if (!ret && strbuf_error(out))
		ret = -ENOMEM;
	return ret;
}

static int unit_path(const struct kexec_cmds *c, struct strbuf *sb)
{
	strbuf_setf(sb, "%s/%s", c->systemd_dir, KEXEC_UNIT);
	return strbuf_error(sb) ? -ENOMEM : 0;
}

static int boot_dir(const struct kexec_cmds *c, int64_t id, struct strbuf *sb)
{
	strbuf_setf(sb, "%s/%lld", c->kexec_dir, (long long)id);
	return strbuf_error(sb) ? -ENOMEM : 0;
}

int kexec_install(const struct kexec_cmds *c, int64_t id, const char *bzimage,
		  char **installed, struct strbuf *err)
{
	struct strbuf dir = STRBUF_INIT, kernel = STRBUF_INIT, unit = STRBUF_INIT,
		      text = STRBUF_INIT;
	int ret;

	*installed = NULL;
	ret = boot_dir(c, id, &dir);
	if (!ret)
		ret = unit_path(c, &unit);
	if (ret) {
		strbuf_setf(err, "out of memory");
		goto out;
	}
	ret = make_dirs(dir.buf);
	if (ret) {
		strbuf_setf(err, "cannot make %s: %s", dir.buf, strerror(-ret));
		goto out;
	}
	strbuf_setf(&kernel, "%s/bzImage", dir.buf);
	ret = copy_file(bzimage, kernel.buf, err);
	if (ret)
		goto out;
	ret = kexec_unit_text(c, &text);
	if (ret) {
		strbuf_setf(err, "cannot write the unit: %s",
			    ret == -EINVAL ? "perfbot's absolute path and the database's (an"
					     " absolute path, or a postgresql:// URL without a"
					     " password) are needed, without a newline"
					   : strerror(-ret));
		goto out;
	}
	ret = make_dirs(c->systemd_dir);
	if (!ret)
		ret = write_file_atomic(unit.buf, NULL, text.buf, text.len, true);
	if (ret) {
		strbuf_setf(err, "cannot write %s: %s", unit.buf, strerror(-ret));
		goto out;
	}
	ret = systemctl(c, "daemon-reload", NULL, err);
	if (!ret)
		ret = systemctl(c, "enable", KEXEC_UNIT, err);
	if (!ret) {
		*installed = strbuf_detach(&kernel, NULL);
		if (!*installed) {
			strbuf_setf(err, "out of memory");
			ret = -ENOMEM;
		}
	}
out:
	strbuf_release(&dir);
	strbuf_release(&kernel);
	strbuf_release(&unit);
	strbuf_release(&text);
	return ret;
}

int kexec_load(const struct kexec_cmds *c, const char *kernel, const char *extra,
	       char **cmdline, struct strbuf *err)
{
	struct strbuf line = STRBUF_INIT, append = STRBUF_INIT, initrd = STRBUF_INIT;
	char *argv[6];
	size_t n = 0;
	int ret;

	*cmdline = NULL;
	ret = read_line(c->proc_cmdline, &line, err);
	if (ret)
		goto out;
	if (extra && *extra) {
		/* before a " -- ": what follows it is init's, not the kernel's */
		const char *dashes = !strncmp(line.buf, "-- ", 3) || !strcmp(line.buf, "--")
					     ? line.buf : strstr(line.buf, " -- ");
		struct strbuf with = STRBUF_INIT;

		if (!dashes && line.len >= 3 && !strcmp(line.buf + line.len - 3, " --"))
			dashes = line.buf + line.len - 3;
		if (dashes) {
			size_t at = (size_t)(dashes - line.buf);

			strbuf_add(&with, line.buf, at);
			strbuf_addf(&with, "%s%s%s", at ? " " : "", extra, at ? "" : " ");
			strbuf_addstr(&with, dashes);
		} else {
			strbuf_addf(&with, "%s%s%s", line.buf, line.len ? " " : "", extra);
		}
		strbuf_setf(&line, "%s", with.buf);
		if (strbuf_error(&with))
			strbuf_setf(&line, "%s", "");	/* caught below */
		strbuf_release(&with);
	}
	strbuf_setf(&append, "--append=%s", line.buf);
	if (c->initrd)
		strbuf_setf(&initrd, "--initrd=%s", c->initrd);
	if (strbuf_error(&line) || strbuf_error(&append) || strbuf_error(&initrd)) {
		strbuf_setf(err, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	argv[n++] = (char *)c->kexec;
	argv[n++] = "-l";
	argv[n++] = (char *)kernel;
	if (c->initrd)
		argv[n++] = initrd.buf;
	argv[n++] = append.buf;
	argv[n] = NULL;
	ret = run_cmd(argv, err);
	if (!ret) {
		*cmdline = strbuf_detach(&line, NULL);
		if (!*cmdline) {
			strbuf_setf(err, "out of memory");
			ret = -ENOMEM;
		}
	}
out:
	strbuf_release(&line);
	strbuf_release(&append);
	strbuf_release(&initrd);
	return ret;
}

int kexec_execute(const struct kexec_cmds *c, struct strbuf *err)
{
	return systemctl(c, "kexec", NULL, err);
}

int kexec_reboot(const struct kexec_cmds *c, struct strbuf *err)
{
	return systemctl(c, "reboot", NULL, err);
}

int kexec_uninstall(const struct kexec_cmds *c, int64_t id, struct strbuf *err)
{
	struct strbuf unit = STRBUF_INIT, dir = STRBUF_INIT, e = STRBUF_INIT;
	struct stat st;
	int ret = 0, r;

	if (unit_path(c, &unit) || boot_dir(c, id, &dir)) {
		strbuf_setf(err, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	/* each step whatever the one before did: leave as little as can be */
	if (!lstat(unit.buf, &st)) {
		r = systemctl(c, "disable", KEXEC_UNIT, &e);
		if (r && !ret) {
			ret = r;
			strbuf_setf(err, "%s", e.buf);
		}
		if (unlink(unit.buf) && errno != ENOENT && !ret) {
			ret = -errno;
			strbuf_setf(err, "cannot remove %s: %s", unit.buf, strerror(errno));
		}
		r = systemctl(c, "daemon-reload", NULL, &e);
		if (r && !ret) {
			ret = r;
			strbuf_setf(err, "%s", e.buf);
		}
	}
	if (!lstat(dir.buf, &st)) {
		r = remove_tree(dir.buf);
		if (r && !ret) {
			ret = r;
			strbuf_setf(err, "cannot remove %s: %s", dir.buf, strerror(-r));
		}
	}
out:
	strbuf_release(&unit);
	strbuf_release(&dir);
	strbuf_release(&e);
	return ret;
}

/* ---- argv as JSON ---- */

int kexec_argv_to_json(char *const *argv, size_t n, char **json)
{
	json_t *a = json_array();

	*json = NULL;
	for (size_t i = 0; a && i < n; i++)
		if (json_array_append_new(a, json_string(argv[i]))) {
			json_decref(a);
			return -EINVAL;	/* not UTF-8 */
		}
	if (a)
		*json = json_dumps(a, JSON_COMPACT);
	json_decref(a);
	return *json ? 0 : -ENOMEM;
}

void kexec_argv_free(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

int kexec_argv_from_json(const char *json, char ***argv, size_t *n, struct strbuf *err)
{
	json_error_t je;
	json_t *a = json_loads(json, JSON_REJECT_DUPLICATES, &je);
	char **v = NULL;
	size_t len;

	*argv = NULL;
	if (n)
		*n = 0;
	if (!a || !json_is_array(a)) {
		strbuf_setf(err, "'%s' is no JSON array of strings", json);
		json_decref(a);
		return -EINVAL;
	}
	len = json_array_size(a);
	v = calloc(len + 1, sizeof(*v));
	for (size_t i = 0; v && i < len; i++) {
		const char *s = json_string_value(json_array_get(a, i));

		if (!s || strlen(s) != json_string_length(json_array_get(a, i))) {
			strbuf_setf(err, "'%s': element %zu is no string", json, i);
			kexec_argv_free(v);
			json_decref(a);
			return -EINVAL;
		}
		v[i] = strdup(s);
		if (!v[i]) {
			kexec_argv_free(v);
			v = NULL;
		}
	}
	json_decref(a);
	if (!v) {
		strbuf_setf(err, "out of memory");
		return -ENOMEM;
	}
	*argv = v;
	if (n)
		*n = len;
	return 0;
}

/* ---- the state machine ---- */

static int str_or_oom(char **field, const char *v, struct strbuf *err)
{
	if (record_set_str(field, v)) {
		strbuf_setf(err, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* k from `from` to `to` (reason may be NULL), in the store and in k. */
static int move(struct store *s, struct store_kexec *k, const char *from, const char *to,
		const char *reason, struct strbuf *err)
{
	int ret = str_or_oom(&k->state, to, err);

	if (!ret && reason)
		ret = str_or_oom(&k->reason, reason, err);
	if (ret)
		return ret;
	ret = store_kexec_update(s, k, from);
	if (ret)
		strbuf_setf(err, "%s", store_error(s));
	return ret;
}

/* A step of k failed with why (err): uninstall, k failed with the reason. */
static void fail_boot(struct store *s, const struct kexec_cmds *c, struct store_kexec *k,
		      struct strbuf *why)
{
	struct strbuf e = STRBUF_INIT;
	char *from = strdup(k->state);

	if (kexec_uninstall(c, k->id, &e))
		strbuf_addf(why, " (and uninstalling it: %s)", e.buf);
	if (from)
		move(s, k, from, KEXEC_FAILED, why->buf, &e);
	free(from);
	strbuf_release(&e);
}

static void hostname_of(const char *given, char *buf, size_t len)
{
	if (given) {
		snprintf(buf, len, "%s", given);
		return;
	}
	if (gethostname(buf, len))
		snprintf(buf, len, "localhost");
	buf[len - 1] = '\0';
}

int kexec_arrange(struct store *s, const struct kexec_cmds *c, const struct kexec_spec *spec,
		  int64_t *id, struct strbuf *err)
{
	struct store_kexec k = { 0 };
	char *job_file = realpath(spec->job_file, NULL), *sets = NULL, *cont = NULL;
	char *kernel = NULL, *cmdline = NULL;
	char host[256];
	size_t nr_cont = 0;
	int ret;

	*id = 0;
	if (!job_file) {
		ret = -errno;
		strbuf_setf(err, "%s: %s", spec->job_file, strerror(errno));
		return ret;
	}
	for (; spec->continuation && spec->continuation[nr_cont]; nr_cont++)
		;
	ret = kexec_argv_to_json(spec->sets, spec->nr_sets, &sets);
	if (!ret && spec->continuation)
		ret = kexec_argv_to_json(spec->continuation, nr_cont, &cont);
	if (ret) {
		strbuf_setf(err, ret == -EINVAL ? "a -s or the continuation is not UTF-8"
						: "out of memory");
		goto out;
	}
	hostname_of(spec->testbox, host, sizeof(host));
	k = (struct store_kexec){
		.state = KEXEC_BUILT, .testbox = host, .repo = (char *)spec->repo,
		.sha = (char *)spec->sha, .job_file = job_file, .sets = sets,
		.job = (char *)spec->job, .runs = spec->runs ? spec->runs : 1,
		.release = (char *)spec->release, .continuation = cont,
	};
	ret = store_kexec_add(s, &k);
	if (ret) {
		if (ret == -EEXIST)
			strbuf_setf(err, "%s: see perfbot kexec status; perfbot kexec abort ends it",
				    store_error(s));
		else
			strbuf_setf(err, "%s", store_error(s));
		k = (struct store_kexec){ 0 };
		goto out;
	}
	*id = k.id;
	/* from here k is the store's copy: its own strings */
	{
		int64_t kid = k.id;

		k = (struct store_kexec){ 0 };
		ret = store_kexec_get(s, kid, &k);
		if (ret) {
			strbuf_setf(err, "%s", store_error(s));
			goto out;
		}
	}
	ret = kexec_install(c, k.id, spec->bzimage, &kernel, err);
	if (!ret)
		ret = str_or_oom(&k.kernel, kernel, err);
	if (!ret)
		ret = move(s, &k, KEXEC_BUILT, KEXEC_BUILT, NULL, err);
	if (!ret)
		ret = kexec_load(c, kernel, spec->cmdline, &cmdline, err);
	if (!ret)
		ret = str_or_oom(&k.cmdline, cmdline, err);
	if (!ret)
		ret = move(s, &k, KEXEC_BUILT, KEXEC_BOOTING, NULL, err);
	if (!ret)
		ret = kexec_execute(c, err);
	if (ret)
		fail_boot(s, c, &k, err);
	store_kexec_release(&k);
out:
	free(job_file);
	free(sets);
	free(cont);
	free(kernel);
	free(cmdline);
	return ret;
}

/* The atomic job of k, loaded from its file with its sets. */
static int load_job(const struct store_kexec *k, struct atomic_job **jobs, size_t *nr,
		    const struct atomic_job **job, struct strbuf *err)
{
	struct job_error je = { 0 };
	char **sets = NULL;
	size_t nr_sets = 0;
	int ret;

	*jobs = NULL;
	*nr = 0;
	*job = NULL;
	ret = kexec_argv_from_json(k->sets, &sets, &nr_sets, err);
	if (ret)
		return ret;
	ret = job_load(k->job_file, sets, nr_sets, jobs, nr, &je);
	kexec_argv_free(sets);
	if (ret) {
		strbuf_setf(err, "cannot load the job: %s%s%s", je.file.len ? je.file.buf : "",
			    je.file.len ? ": " : "", je.msg.buf ? je.msg.buf : "?");
		job_error_release(&je);
		return ret;
	}
	for (size_t i = 0; i < *nr; i++)
		if (!strcmp((*jobs)[i].name, k->job))
			*job = &(*jobs)[i];
	if (!*job) {
		strbuf_setf(err, "%s no longer has the atomic job %s", k->job_file, k->job);
		return -ENOENT;
	}
	return 0;
}

/* What every run of the boot says of it (env boot.*), and its test box. */
static int boot_facts(struct run_record *rec, const struct store_kexec *k, const char *testbox,
		      const char *running)
{
	int err = 0;

	err |= record_set_str(&rec->testbox, testbox);
	err |= strmap_set(&rec->env, "testbox", testbox);
	err |= record_set_str(&rec->commit, k->sha);
	err |= strmap_set(&rec->env, "boot.method", "kexec");
	if (k->kernel)
		err |= strmap_set(&rec->env, "boot.kernel", k->kernel);
	err |= strmap_set(&rec->env, "boot.release", k->release);
	err |= strmap_set(&rec->env, "boot.running_release", running);
	if (k->cmdline)
		err |= strmap_set(&rec->env, "boot.cmdline", k->cmdline);
	strmap_setf(&rec->env, "boot.kexec_id", "%lld", (long long)k->id);
	return err ? -ENOMEM : 0;
}

/* A failed run of job that never ran or was cut short: why, and the stat that says so. */
static int failed_run(const struct atomic_job *job, const char *why, const char *stat,
		      struct run_record *r)
{
	return boot_record_failed(job, NULL, why, stat, r);
}

static int put_run(struct store *s, struct run_record *rec, struct kexec_resume_result *r,
		   struct strbuf *err)
{
	int64_t id;
	int ret;

	statmap_finish(&rec->stats);
	ret = store_put_run(s, rec, &id);
	if (ret) {
		strbuf_setf(err, "cannot store the run: %s", store_error(s));
		return ret;
	}
	if (!r->runs)
		r->first_run = id;
	r->runs++;
	r->failed_runs += rec->status == RUN_FAILED;
	return 0;
}

/* The one failed run that says why the boot's job did not run (or not to its end). */
static int store_failed(struct store *s, struct store_kexec *k, const char *testbox,
			const char *running, const char *why, const char *stat_suffix,
			struct kexec_resume_result *r, struct strbuf *err)
{
	struct atomic_job *jobs = NULL;
	const struct atomic_job *job;
	struct run_record rec = { 0 };
	struct strbuf stat = STRBUF_INIT;
	size_t nr = 0;
	int ret = load_job(k, &jobs, &nr, &job, err);

	if (ret)
		goto out;
	if (stat_suffix)
		strbuf_setf(&stat, "%s%s", job->testcase, stat_suffix);
	else
		strbuf_setf(&stat, "%s", DMESG_BOOT_FAILURES);
	ret = strbuf_error(&stat) || failed_run(job, why, stat.buf, &rec) ||
	      boot_facts(&rec, k, testbox, running) ? -ENOMEM : 0;
	if (ret)
		strbuf_setf(err, "out of memory");
	else
		ret = put_run(s, &rec, r, err);
	if (!ret && !k->run_id)
		k->run_id = r->first_run;
out:
	run_record_release(&rec);
	atomic_jobs_release(jobs, nr);
	strbuf_release(&stat);
	return ret;
}

/* The boot's runs, in the kernel under test. */
static int run_job(struct store *s, struct store_kexec *k, const struct kexec_resume_opts *o,
		   const char *testbox, const char *running, struct kexec_resume_result *r,
		   struct strbuf *err)
{
	struct atomic_job *jobs = NULL;
	const struct atomic_job *job;
	size_t nr = 0;
	bool warm = false;
	int ret = load_job(k, &jobs, &nr, &job, err);

	for (unsigned i = 0; !ret && i < k->runs && !(o->stop && *o->stop); i++) {
		struct runner_opts ro = {
			.commit = k->sha, .monitors = o->monitors, .stop = o->stop,
			.warm_up = !warm,
		};
		struct run_record rec = { 0 };
		struct strbuf why = STRBUF_INIT;

		if (runner_run(job, &ro, &rec, &why)) {
			struct strbuf reason = STRBUF_INIT, stat = STRBUF_INIT;

			run_record_release(&rec);
			strbuf_addf(&reason, "the job could not run: %s", why.buf);
			strbuf_addf(&stat, "%s.exit_fail", job->testcase);
			ret = strbuf_error(&reason) || strbuf_error(&stat) ||
			      failed_run(job, reason.buf, stat.buf, &rec) ? -ENOMEM : 0;
			strbuf_release(&reason);
			strbuf_release(&stat);
		}
		strbuf_release(&why);
		if (!ret && boot_facts(&rec, k, testbox, running))
			ret = -ENOMEM;
		if (ret)
			strbuf_setf(err, "out of memory");
		else
			ret = put_run(s, &rec, r, err);
		warm |= rec.status == RUN_COMPLETE;
		run_record_release(&rec);
	}
	if (!ret)
		k->run_id = r->first_run;
	atomic_jobs_release(jobs, nr);
	return ret;
}

/* The continuation of k, for the caller to run (none: NULL). */
static int take_continuation(const struct store_kexec *k, struct kexec_resume_result *r,
			     struct strbuf *err)
{
	if (!k->continuation)
		return 0;
	return kexec_argv_from_json(k->continuation, &r->continuation, NULL, err);
}

/* k failed with why: in the store, uninstalled, its continuation to run. */
static int end_failed(struct store *s, const struct kexec_cmds *c, struct store_kexec *k,
		      const char *from, const char *why, struct kexec_resume_result *r,
		      struct strbuf *err)
{
	int ret = move(s, k, from, KEXEC_FAILED, why, err);

	if (ret)
		return ret;
	r->what = KEXEC_GAVE_UP;
	ret = kexec_uninstall(c, k->id, err);
	if (!ret)
		ret = take_continuation(k, r, err);
	return ret;
}

/* k stored (runs in the store): the reboot into the default kernel. */
static int go_back(struct store *s, const struct kexec_cmds *c, struct store_kexec *k,
		   const char *from, const char *why, struct kexec_resume_result *r,
		   struct strbuf *err)
{
	int ret = move(s, k, from, KEXEC_STORED, why, err);

	if (!ret)
		ret = kexec_reboot(c, err);
	r->rebooting = !ret;
	return ret;
}

static int resume_locked(struct store *s, const struct kexec_cmds *c,
			 const struct kexec_resume_opts *o, const char *testbox,
			 struct kexec_resume_result *r, struct strbuf *err)
{
	struct store_kexec k = { 0 };
	char running[256];
	struct strbuf why = STRBUF_INIT;
	bool in_it;
	int ret = store_kexec_active(s, testbox, &k);

	if (ret == -ENOENT) {
		r->what = KEXEC_IDLE;
		return 0;
	}
	if (ret) {
		strbuf_setf(err, "%s", store_error(s));
		return ret;
	}
	r->id = k.id;
	if (str_or_oom(&r->release, k.release, err) || str_or_oom(&r->sha, k.sha, err)) {
		ret = -ENOMEM;
		goto out;
	}
	ret = kexec_running_release(c, running, sizeof(running), err);
	if (ret)
		goto out;
	in_it = !strcmp(running, k.release);

	if (!strcmp(k.state, KEXEC_BUILT)) {
		/* perfbot went down between making the row and the kexec */
		strbuf_setf(&why, "the machine booted %s before the kexec into %s was started",
			    running, k.release);
		ret = end_failed(s, c, &k, KEXEC_BUILT, why.buf, r, err);
	} else if (!strcmp(k.state, KEXEC_BOOTING) && in_it) {
		ret = move(s, &k, KEXEC_BOOTING, KEXEC_RUNNING, NULL, err);
		if (!ret)
			ret = run_job(s, &k, o, testbox, running, r, err);
		if (!ret) {
			r->what = KEXEC_RAN;
			ret = go_back(s, c, &k, KEXEC_RUNNING, NULL, r, err);
		}
	} else if (!strcmp(k.state, KEXEC_BOOTING)) {
		strbuf_setf(&why, "the machine runs %s, not %s: the kexec did not happen, or the"
			    " kernel under test fell back to the default one", running, k.release);
		ret = store_failed(s, &k, testbox, running, why.buf, NULL, r, err);
		if (!ret)
			ret = end_failed(s, c, &k, KEXEC_BOOTING, why.buf, r, err);
	} else if (!strcmp(k.state, KEXEC_RUNNING)) {
		/* its runner holds no lock: the run ended with the machine */
		strbuf_setf(&why, "the kernel crashed or rebooted during the run (boot %lld of %s)",
			    (long long)k.id, k.release);
		ret = store_failed(s, &k, testbox, running, why.buf, ".exit_fail", r, err);
		if (!ret && in_it) {
			r->what = KEXEC_GAVE_UP;
			ret = go_back(s, c, &k, KEXEC_RUNNING, why.buf, r, err);
		} else if (!ret) {
			ret = end_failed(s, c, &k, KEXEC_RUNNING, why.buf, r, err);
		}
	} else if (!strcmp(k.state, KEXEC_STORED) && in_it) {
		r->what = KEXEC_REBOOTING;
		ret = kexec_reboot(c, err);
		r->rebooting = !ret;
	} else if (!strcmp(k.state, KEXEC_STORED)) {
		ret = move(s, &k, KEXEC_STORED, KEXEC_BACK, NULL, err);
		if (!ret) {
			r->what = KEXEC_CAME_BACK;
			ret = kexec_uninstall(c, k.id, err);
		}
		if (!ret)
			ret = take_continuation(&k, r, err);
	} else {
		strbuf_setf(err, "kexec boot %lld is in an unknown state '%s'", (long long)k.id,
			    k.state);
		ret = -EINVAL;
	}
	if (strbuf_error(&why)) {
		strbuf_setf(err, "out of memory");
		ret = -ENOMEM;
	}
	if (k.reason && !r->reason)
		r->reason = strdup(k.reason);
out:
	strbuf_release(&why);
	store_kexec_release(&k);
	return ret;
}

int kexec_resume(struct store *s, const struct kexec_cmds *c, const struct kexec_resume_opts *o,
		 struct kexec_resume_result *r, struct strbuf *err)
{
	struct strbuf lock = STRBUF_INIT;
	char host[256];
	int fd, ret;

	memset(r, 0, sizeof(*r));
	hostname_of(o->testbox, host, sizeof(host));
	ret = make_dirs(c->kexec_dir);
	if (ret) {
		strbuf_setf(err, "cannot make %s: %s", c->kexec_dir, strerror(-ret));
		return ret;
	}
	/* the directory itself is the lock: nothing is left in it */
	strbuf_setf(&lock, "%s", c->kexec_dir);
	if (strbuf_error(&lock)) {
		strbuf_setf(err, "out of memory");
		return -ENOMEM;
	}
	fd = open(lock.buf, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		strbuf_setf(err, "cannot open %s: %s", lock.buf, strerror(-ret));
		strbuf_release(&lock);
		return ret;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		ret = errno == EWOULDBLOCK ? 0 : -errno;
		if (ret)
			strbuf_setf(err, "cannot lock %s: %s", lock.buf, strerror(-ret));
		else
			r->what = KEXEC_BUSY;
	} else {
		ret = resume_locked(s, c, o, host, r, err);
	}
	close(fd);
	strbuf_release(&lock);
	return ret;
}

void kexec_resume_result_release(struct kexec_resume_result *r)
{
	free(r->reason);
	free(r->release);
	free(r->sha);
	kexec_argv_free(r->continuation);
	memset(r, 0, sizeof(*r));
}

int kexec_abort(struct store *s, const struct kexec_cmds *c, const char *testbox, int64_t *id,
		struct strbuf *err)
{
	struct store_kexec k = { 0 };
	struct strbuf why = STRBUF_INIT;
	char host[256];
	char *from;
	int ret;

	*id = 0;
	hostname_of(testbox, host, sizeof(host));
	ret = store_kexec_active(s, host, &k);
	if (ret == -ENOENT)
		return 0;
	if (ret) {
		strbuf_setf(err, "%s", store_error(s));
		return ret;
	}
	*id = k.id;
	from = strdup(k.state);
	ret = kexec_uninstall(c, k.id, err);
	strbuf_setf(&why, "aborted");
	if (ret)
		strbuf_addf(&why, " (uninstalling: %s)", err->buf);
	if (!from) {
		strbuf_setf(err, "out of memory");
		ret = -ENOMEM;
	} else {
		int r = move(s, &k, from, KEXEC_FAILED, why.buf, err);

		ret = ret ? ret : r;
	}
	free(from);
	strbuf_release(&why);
	store_kexec_release(&k);
	return ret;
}

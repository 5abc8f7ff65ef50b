/*
 * kbuild.c - a commit's kernel, built incrementally (kbuild.h).
 */
#define _GNU_SOURCE
#include "boot/kbuild.h"
#include "boot/kconfig.h"
#include "record/import.h"
#include "util/bug.h"
#include "util/fsutil.h"
#include "util/timeutil.h"
#include "vcs/buildcache.h"
#include "vcs/git.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define KEY_LEN 16
/* a .config or a fragment read whole: far beyond any real one */
#define CONFIG_MAX (16u << 20)

struct kb {
	const struct kbuild_opts *o;
	struct kbuild_result *r;
	struct strbuf *err;
	char *base;		/* <cache>/kernel/<repo> */
	char *src, *build;	/* the worktree, the O= directory */
	char *out;		/* kernels/<sha>-<config> */
	char *make_cc;		/* "CC=ccache gcc" or NULL */
	char jobs[32];
	double deadline;
	int lock_fd;
};

static bool exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

static int nomem(struct kb *k)
{
	strbuf_setf(k->err, "out of memory");
	return -ENOMEM;
}


/* The log of one step appended to the build's whole log. */
static void log_append(const char *whole, const char *step_log, const char *title)
{
	FILE *out = fopen(whole, "a"), *in = fopen(step_log, "r");
	char buf[65536];
	size_t n;

	if (out) {
		fprintf(out, "==== perfbot: %s\n", title);
		while (in && (n = fread(buf, 1, sizeof(buf), in)) > 0)
			fwrite(buf, 1, n, out);
		fclose(out);
	}
	if (in)
		fclose(in);
}

/* The key of the configuration: what decides the merged .config. */
static int config_key(struct kb *k, char key[KEY_LEN + 1])
{
	const struct job_kernel *kc = k->o->kernel;
	struct strbuf sb = STRBUF_INIT, text = STRBUF_INIT;
	char hex[IMPORT_HASH_LEN + 1];
	int ret = 0;

	strbuf_addf(&sb, "kind %d\n%s\n", (int)kc->config_kind, kc->config);
	if (kc->config_kind == JOB_KCONFIG_FILE) {
		ret = strbuf_read_file(&text, kc->config, CONFIG_MAX);
		strbuf_add(&sb, text.buf, text.len);
	}
	for (size_t i = 0; !ret && kc->fragments && kc->fragments[i]; i++) {
		strbuf_addf(&sb, "\nfragment %s\n", kc->fragments[i]);
		if (kc->fragments[i][0] == '/') {
			strbuf_reset(&text);
			ret = strbuf_read_file(&text, kc->fragments[i], CONFIG_MAX);
			strbuf_add(&sb, text.buf, text.len);
		}
	}
	for (size_t i = 0; kconfig_guest_options[i]; i++)
		strbuf_addf(&sb, "\nguest %s", kconfig_guest_options[i]);
	if (!ret && strbuf_error(&sb))
		ret = -ENOMEM;
	if (!ret) {
		import_sha256(sb.buf, sb.len, hex);
		memcpy(key, hex, KEY_LEN);
		key[KEY_LEN] = '\0';
	} else {
		strbuf_setf(k->err, "kernel config: cannot read its files: %s", strerror(-ret));
	}
	strbuf_release(&sb);
	strbuf_release(&text);
	return ret;
}

/* ccache's directory on PATH, or NULL */
static bool have_ccache(void)
{
	const char *path = getenv("PATH");
	char *copy, *save = NULL;
	bool found = false;

	if (!path || !(copy = strdup(path)))
		return false;
	for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		char *p = path_join(*d ? d : ".", "ccache");

		found = p && !access(p, X_OK);
		free(p);
	}
	free(copy);
	return found;
}

/* The lock of the repository's kernel directory, waiting with *stop polled. */
static int take_lock(struct kb *k)
{
	char *path = path_join(k->base, "lock");

	if (!path)
		return nomem(k);
	k->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (k->lock_fd < 0) {
		strbuf_setf(k->err, "kernel build: %s: %s", path, strerror(errno));
		free(path);
		return -errno;
	}
	free(path);
	while (flock(k->lock_fd, LOCK_EX | LOCK_NB)) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };

		if (errno != EWOULDBLOCK && errno != EINTR) {
			strbuf_setf(k->err, "kernel build: lock: %s", strerror(errno));
			return -errno;
		}
		if (k->o->stop && *k->o->stop) {
			strbuf_setf(k->err, "kernel build: stopped");
			return -ECANCELED;
		}
		nanosleep(&ts, NULL);
	}
	return 0;
}

/*
 * Run `make -C src O=build ARGS...` (the kernel's own Makefile), its
 * output to <build>/perfbot-<step>.log, appended to the whole log.
 */
/*
 * The compiler's first error in a build log ("kernel/futex/requeue.c:5:28:
 * error: expected expression before ';' token"), as "first error: <it>; "
 * onto out: make's own last lines ("Error 2") say only that it failed.
 */
static void first_error(const char *log, struct strbuf *out)
{
	FILE *f = fopen(log, "r");
	char line[1024];

	while (f && fgets(line, sizeof(line), f)) {
		if (!strstr(line, ": error: ") && !strstr(line, ": fatal error: ") &&
		    !strstr(line, "undefined reference to"))
			continue;
		line[strcspn(line, "\n")] = '\0';
		strbuf_addf(out, "first error: %s; ", line);
		break;
	}
	if (f)
		fclose(f);
}

static int make(struct kb *k, const char *step, const char *const *args)
{
	char *argv[16], *log = NULL, *o = NULL, *title = NULL;
	size_t n = 0;
	int ret, status;
	double left = k->deadline - mono_now();
	struct strbuf why = STRBUF_INIT;

	if (left <= 0) {
		strbuf_setf(k->err, "kernel build timed out before %s", step);
		return -ETIMEDOUT;
	}
	if (asprintf(&o, "O=%s", k->build) < 0)
		o = NULL;
	if (asprintf(&log, "%s/perfbot-%s.log", k->build, step) < 0)
		log = NULL;
	if (!o || !log) {
		free(o);
		free(log);
		return nomem(k);
	}
	argv[n++] = "make";
	argv[n++] = o;
	if (k->make_cc)
		argv[n++] = k->make_cc;
	for (size_t i = 0; args[i] && n < 15; i++)
		argv[n++] = (char *)args[i];
	argv[n] = NULL;
	ret = git_build(k->src, argv, left, k->o->stop, log, &status, k->err);
	if (asprintf(&title, "make %s (exit %d)", step, ret ? status : 0) >= 0) {
		log_append(k->r->log, log, title);
		free(title);
	}
	if (ret == -GIT_EBUILD || ret == -ETIMEDOUT) {
		strbuf_addf(&why, "kernel build failed: make %s%s: %s; ", step,
			    ret == -ETIMEDOUT ? " timed out" : "", k->err->buf);
		first_error(log, &why);
		strbuf_addstr(&why, "log ends: ");
		file_tail(log, 3, &why);
		strbuf_setf(k->err, "%s", strbuf_error(&why) ? "kernel build failed" : why.buf);
	} else if (ret && ret != -ECANCELED) {
		strbuf_setf(&why, "kernel build: make %s: %s", step, k->err->buf);
		strbuf_setf(k->err, "%s", strbuf_error(&why) ? "kernel build failed" : why.buf);
	}
	strbuf_release(&why);
	free(o);
	free(log);
	return ret;
}

/* The kept worktree at k->src, at the commit. */
static int checkout(struct kb *k)
{
	char *dotgit = path_join(k->src, ".git");
	int ret;

	if (!dotgit)
		return nomem(k);
	if (exists(dotgit)) {
		ret = git_cmd(k->src, NULL, k->err, "checkout", "--quiet", "--force", "--detach",
			      k->o->sha, NULL);
		if (!ret) {
			free(dotgit);
			return 0;
		}
		/* the repository forgot it (pruned, moved): start again */
		remove_tree(k->src);
	} else if (exists(k->src)) {
		remove_tree(k->src);
	}
	free(dotgit);
	git_cmd(k->o->repo, NULL, NULL, "worktree", "prune", NULL);
	ret = git_cmd(k->o->repo, NULL, k->err, "worktree", "add", "--quiet", "--force",
		      "--detach", k->src, k->o->sha, NULL);
	if (ret) {
		struct strbuf msg = STRBUF_INIT;

		strbuf_setf(&msg, "kernel build: cannot make the worktree %s: %s", k->src,
			    k->err->buf);
		strbuf_setf(k->err, "%s", msg.buf);
		strbuf_release(&msg);
	}
	return ret;
}

/* "CONFIG_X (depends on ...; file)" for each dropped option, from the tree's Kconfig */
static void explain(struct kb *k, char **dropped, struct strbuf *out)
{
	for (size_t i = 0; dropped[i]; i++) {
		const char *name = dropped[i] + strlen("CONFIG_");
		char *grep = NULL, *pattern = NULL;
		struct strbuf text = STRBUF_INIT, deps = STRBUF_INIT;

		strbuf_addf(out, "%s%s", i ? ", " : "", dropped[i]);
		if (asprintf(&pattern, "^[[:space:]]*(menu)?config[[:space:]]+%s[[:space:]]*$",
			     name) < 0)
			continue;
		if (!git_cmd(k->src, &grep, NULL, "grep", "-l", "-E", pattern, "--",
			     "*Kconfig*", NULL) && grep && *grep) {
			char *nl = strchr(grep, '\n'), *file;

			if (nl)
				*nl = '\0';
			file = path_join(k->src, grep);
			if (file && !strbuf_read_file(&text, file, CONFIG_MAX) &&
			    kconfig_depends(text.buf, name, &deps))
				strbuf_addf(out, " (depends on %s; %s)", deps.buf, grep);
			free(file);
		}
		free(grep);
		free(pattern);
		strbuf_release(&text);
		strbuf_release(&deps);
	}
}

/* The base, the fragments and the guest's options, through olddefconfig */
static int configure(struct kb *k)
{
	const struct job_kernel *kc = k->o->kernel;
	struct kconfig c;
	struct strbuf text = STRBUF_INIT, why = STRBUF_INIT, old = STRBUF_INIT;
	char *path = NULL, *dotconfig = NULL, **dropped = NULL;
	int ret;

	kconfig_init(&c);
	switch (kc->config_kind) {
	case JOB_KCONFIG_TARGET: {
		const char *args[] = { "KCONFIG_CONFIG=perfbot-base.config", kc->config, NULL };

		ret = make(k, kc->config, args);
		if (ret)
			goto out;
		path = path_join(k->build, "perfbot-base.config");
		break;
	}
	case JOB_KCONFIG_FILE:
		path = strdup(kc->config);
		break;
	case JOB_KCONFIG_TREE:
		path = path_join(k->src, kc->config);
		break;
	}
	if (!path) {
		ret = nomem(k);
		goto out;
	}
	ret = strbuf_read_file(&text, path, CONFIG_MAX);
	if (ret) {
		strbuf_setf(k->err, "kernel config: %s: %s", path, strerror(-ret));
		/* a tree without the file: a property of the commit */
		if (kc->config_kind == JOB_KCONFIG_TREE)
			ret = -GIT_EBUILD;
		goto out;
	}
	ret = kconfig_merge_text(&c, text.buf, kc->config_kind == JOB_KCONFIG_TARGET ?
				 kc->config : path, k->err);
	for (size_t i = 0; !ret && kc->fragments && kc->fragments[i]; i++) {
		const char *f = kc->fragments[i];

		if (f[0] != '/') {
			ret = kconfig_set_line(&c, f, "kernel: fragments", k->err);
			continue;
		}
		strbuf_reset(&text);
		ret = strbuf_read_file(&text, f, CONFIG_MAX);
		if (ret)
			strbuf_setf(k->err, "kernel config: %s: %s", f, strerror(-ret));
		else
			ret = kconfig_merge_text(&c, text.buf, f, k->err);
	}
	if (!ret)
		ret = kconfig_add_guest(&c, k->err);
	strbuf_reset(&text);
	if (!ret && (ret = kconfig_write(&c, &text)))
		nomem(k);
	if (ret)
		goto out;
	strbuf_add(&k->r->notes, c.notes.buf, c.notes.len);
	free(path);
	path = path_join(k->build, "perfbot.config");
	if (!path) {
		ret = nomem(k);
		goto out;
	}
	ret = write_file_atomic(path, NULL, text.buf, text.len, false);
	if (ret) {
		strbuf_setf(k->err, "kernel config: %s: %s", path, strerror(-ret));
		goto out;
	}
	{
		const char *args[] = { "KCONFIG_CONFIG=perfbot.config", "olddefconfig", NULL };

		ret = make(k, "olddefconfig", args);
		if (ret)
			goto out;
	}
	strbuf_reset(&text);
	ret = strbuf_read_file(&text, path, CONFIG_MAX);
	if (ret) {
		strbuf_setf(k->err, "kernel config: %s: %s", path, strerror(-ret));
		goto out;
	}
	ret = kconfig_check_final(&c, text.buf, &dropped, &k->r->notes, k->err);
	if (ret)
		goto out;
	if (dropped) {
		explain(k, dropped, &why);
		strbuf_setf(k->err, "kernel config: make olddefconfig dropped %s: perfbot's guest needs them",
			    why.buf);
		ret = -GIT_EBUILD;
		goto out;
	}
	/* .config rewritten only when it changed: make does nothing more then */
	dotconfig = path_join(k->build, ".config");
	if (!dotconfig) {
		ret = nomem(k);
		goto out;
	}
	if (strbuf_read_file(&old, dotconfig, CONFIG_MAX) || old.len != text.len ||
	    memcmp(old.buf, text.buf, text.len)) {
		ret = write_file_atomic(dotconfig, NULL, text.buf, text.len, false);
		if (ret)
			strbuf_setf(k->err, "kernel config: %s: %s", dotconfig, strerror(-ret));
	}
out:
	kconfig_names_free(dropped);
	kconfig_release(&c);
	strbuf_release(&text);
	strbuf_release(&why);
	strbuf_release(&old);
	free(path);
	free(dotconfig);
	return ret;
}

static int copy_file(const char *src, const char *dst)
{
	struct strbuf data = STRBUF_INIT;
	int ret = strbuf_read_file(&data, src, 1u << 30);

	if (!ret)
		ret = write_file_atomic(dst, NULL, data.buf, data.len, false);
	strbuf_release(&data);
	return ret;
}

/* The kernel copied out of the build directory; ok last. */
static int keep(struct kb *k)
{
	static const struct { const char *from, *to; } files[] = {
		{ "arch/x86/boot/bzImage", "bzImage" },
		{ ".config", "config" },
	};
	int ret = make_dirs(k->out);

	for (size_t i = 0; !ret && i < sizeof(files) / sizeof(files[0]); i++) {
		char *from = path_join(k->build, files[i].from);
		char *to = path_join(k->out, files[i].to);

		ret = from && to ? copy_file(from, to) : -ENOMEM;
		if (ret)
			strbuf_setf(k->err, "kernel build: %s: %s", from ? from : files[i].from,
				    strerror(-ret));
		free(from);
		free(to);
	}
	if (!ret) {
		char *ok = path_join(k->out, "ok");

		ret = ok ? write_file_atomic(ok, NULL, k->o->sha, strlen(k->o->sha), false) :
		      -ENOMEM;
		if (ret)
			strbuf_setf(k->err, "kernel build: %s: %s", k->out, strerror(-ret));
		free(ok);
	}
	return ret;
}

struct kept {
	char *name;
	struct timespec used;
};

static int cmp_kept(const void *a, const void *b)
{
	const struct kept *x = a, *y = b;

	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec > y->used.tv_sec ? -1 : 1;
	if (x->used.tv_nsec != y->used.tv_nsec)
		return x->used.tv_nsec > y->used.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Keep the KBUILD_KERNELS_KEPT most recently used kernels; never k->out. */
static void prune_kernels(struct kb *k)
{
	char *dir = path_join(k->base, "kernels");
	struct kept *v = NULL;
	size_t n = 0, cap = 0;
	DIR *d = dir ? opendir(dir) : NULL;
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char *ok;
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			struct kept *nv = realloc(v, (cap = cap ? 2 * cap : 32) * sizeof(*v));

			if (!nv)
				break;
			v = nv;
		}
		v[n].name = path_join(dir, de->d_name);
		if (!v[n].name)
			break;
		ok = path_join(v[n].name, "ok");
		v[n].used = (struct timespec){ 0, 0 };	/* no ok: a leftover, oldest */
		if (ok && !stat(ok, &st))
			v[n].used = st.st_mtim;
		free(ok);
		n++;
	}
	if (d)
		closedir(d);
	qsort(v, n, sizeof(*v), cmp_kept);
	for (size_t i = 0; i < n; i++) {
		if (i >= KBUILD_KERNELS_KEPT && strcmp(v[i].name, k->out))
			remove_tree(v[i].name);
		free(v[i].name);
	}
	free(v);
	free(dir);
}

static int set_paths(struct kb *k, const char *repo_key, const char *cfg_key)
{
	struct buildcache bc;
	int ret = buildcache_open(&bc, k->err);

	if (ret)
		return ret;
	if (asprintf(&k->base, "%s/kernel/%s", bc.dir, repo_key) < 0)
		k->base = NULL;
	buildcache_close(&bc);
	if (!k->base)
		return nomem(k);
	if (!(k->src = path_join(k->base, "src")) ||
	    asprintf(&k->build, "%s/build-%s", k->base, cfg_key) < 0 ||
	    asprintf(&k->out, "%s/kernels/%s-%s", k->base, k->o->sha, cfg_key) < 0 ||
	    asprintf(&k->r->bzimage, "%s/bzImage", k->out) < 0 ||
	    asprintf(&k->r->config, "%s/config", k->out) < 0 ||
	    asprintf(&k->r->log, "%s/build.log", k->out) < 0 ||
	    !(k->r->build_dir = strdup(k->build)))
		return nomem(k);
	return 0;
}

static bool full_sha(const char *s)
{
	size_t n = 0;

	for (; isxdigit((unsigned char)s[n]) && !isupper((unsigned char)s[n]); n++)
		;
	return !s[n] && (n == 40 || n == 64);
}

/* k's paths, from the repository's identity and the configuration's key. */
static int locate(struct kb *k)
{
	char repo_hex[IMPORT_HASH_LEN + 1], repo_key[KEY_LEN + 1], cfg_key[KEY_LEN + 1];
	char *common = NULL;
	int ret;

	BUG_ON(!k->o->kernel || !k->o->kernel->present);
	if (!full_sha(k->o->sha)) {
		strbuf_setf(k->err, "kernel build: '%s' is not a full commit sha", k->o->sha);
		return -EINVAL;
	}
	ret = git_common_dir(k->o->repo, &common, k->err);
	if (ret)
		return ret;
	import_sha256(common, strlen(common), repo_hex);
	free(common);
	memcpy(repo_key, repo_hex, KEY_LEN);
	repo_key[KEY_LEN] = '\0';
	ret = config_key(k, cfg_key);
	return ret ? ret : set_paths(k, repo_key, cfg_key);
}

static void kb_release(struct kb *k)
{
	if (k->lock_fd >= 0)
		close(k->lock_fd);
	free(k->base);
	free(k->src);
	free(k->build);
	free(k->out);
	free(k->make_cc);
}

bool kbuild_built(const struct kbuild_opts *o)
{
	struct kbuild_result r = { .notes = STRBUF_INIT };
	struct strbuf err = STRBUF_INIT;
	struct kb k = { .o = o, .r = &r, .err = &err, .lock_fd = -1 };
	char *ok = NULL;
	bool built = !locate(&k) && (ok = path_join(k.out, "ok")) && exists(ok) &&
		     exists(r.bzimage);

	free(ok);
	kb_release(&k);
	kbuild_result_release(&r);
	strbuf_release(&err);
	return built;
}

int kbuild_build(const struct kbuild_opts *o, struct kbuild_result *r,
		 struct strbuf *err)
{
	struct kb k = { .o = o, .r = r, .err = err, .lock_fd = -1 };
	char *vmlinux = NULL, *ok = NULL;
	double start;
	long cpus;
	int ret;

	memset(r, 0, sizeof(*r));
	strbuf_init(&r->notes);
	ret = locate(&k);
	if (ret)
		goto out;
	ret = make_dirs(k.base);
	if (!ret)
		ret = make_dirs(k.build);
	if (ret) {
		strbuf_setf(err, "kernel build: cannot make %s: %s", k.build, strerror(-ret));
		goto out;
	}
	if ((ret = take_lock(&k)))
		goto out;
	ok = path_join(k.out, "ok");
	if (!ok) {
		ret = nomem(&k);
		goto out;
	}
	if (exists(ok) && exists(r->bzimage)) {
		r->reused = true;
		utimensat(AT_FDCWD, ok, NULL, 0);	/* its last use */
		goto out;
	}
	remove_tree(k.out);	/* a leftover without ok */
	if ((ret = make_dirs(k.out))) {
		strbuf_setf(err, "kernel build: cannot make %s: %s", k.out, strerror(-ret));
		goto out;
	}
	vmlinux = path_join(k.build, "vmlinux");
	if (!vmlinux) {
		ret = nomem(&k);
		goto out;
	}
	r->incremental = exists(vmlinux);
	if (have_ccache() && !(k.make_cc = strdup("CC=ccache gcc"))) {
		ret = nomem(&k);
		goto out;
	}
	cpus = o->jobs ? (long)o->jobs : sysconf(_SC_NPROCESSORS_ONLN);
	snprintf(k.jobs, sizeof(k.jobs), "-j%ld", cpus > 0 ? cpus : 1);
	start = mono_now();
	k.deadline = start + (o->timeout_s > 0 ? o->timeout_s : KBUILD_TIMEOUT_S);
	ret = checkout(&k);
	if (!ret)
		ret = configure(&k);
	if (!ret) {
		const char *args[] = { k.jobs, "bzImage", NULL };

		ret = make(&k, "bzImage", args);
	}
	if (!ret)
		ret = keep(&k);
	r->build_s = mono_now() - start;
	if (!ret)
		prune_kernels(&k);
out:
	free(vmlinux);
	free(ok);
	kb_release(&k);
	/* a failed build's log stays in its kernels/ directory, which has no ok */
	if (ret)
		kbuild_result_release(r);
	return ret;
}

void kbuild_result_release(struct kbuild_result *r)
{
	free(r->bzimage);
	free(r->config);
	free(r->log);
	free(r->build_dir);
	strbuf_release(&r->notes);
	memset(r, 0, sizeof(*r));
}

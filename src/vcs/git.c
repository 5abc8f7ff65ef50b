#define _GNU_SOURCE
#include "vcs/git.h"
#include "util/child.h"
#include "util/fsutil.h"
#include "util/lifetime.h"
#include "util/strbuf.h"
#include "util/timeutil.h"

#include <ctype.h>
#include <dirent.h>
#include <libgen.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define GIT_MAX_ARGS 32
/* git's gitdir and lock files, and perfbot's owner marks: a path or two */
#define SMALL_FILE_MAX (4 * PATH_MAX)

/* What a finished git command left behind. */
struct git_result {
	int status;		/* exit code, or 128 + signal */
	char *out;		/* stdout, NUL-terminated */
	size_t outlen;
	char *errtext;		/* stderr, NUL-terminated */
};

static void git_result_release(struct git_result *r)
{
	free(r->out);
	free(r->errtext);
	r->out = r->errtext = NULL;
}

static int decode_status(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return 255;
}

/* The whole content of a memfd the child wrote, NUL-terminated. */
static int slurp(int fd, char **buf, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	ret = strbuf_read_fd(&sb, fd, 0);
	if (ret) {
		strbuf_release(&sb);
		return ret;
	}
	*buf = strbuf_detach(&sb, len);
	return *buf ? 0 : -ENOMEM;
}

/*
 * Run argv to its end with stdout and stderr captured.  Files rather
 * than pipes: a command that writes more than a pipe holds while we wait
 * for its exit cannot block on us.
 */
static int run_captured(char *const argv[], struct git_result *r)
{
	struct child c = { 0 };
	struct child_io io;
	sigset_t mask;
	int out_fd = -1, err_fd = -1, null_fd = -1, st = 0, ret;

	memset(r, 0, sizeof(*r));
	out_fd = memfd_create("perfbot-git-out", MFD_CLOEXEC);
	err_fd = memfd_create("perfbot-git-err", MFD_CLOEXEC);
	null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (out_fd < 0 || err_fd < 0 || null_fd < 0) {
		ret = -errno;
		goto out;
	}
	io = (struct child_io){ .stdin_fd = null_fd, .stdout_fd = out_fd,
				.stderr_fd = err_fd };
	child_signals_block(&mask);
	ret = child_spawn(&c, argv, &io);
	if (!ret) {
		child_wait_until(&c, INFINITY, NULL, &mask);
		child_stop(&c, &st, NULL);
	}
	child_signals_restore(&mask);
	if (ret)
		goto out;
	r->status = decode_status(st);
	ret = slurp(out_fd, &r->out, &r->outlen);
	if (!ret)
		ret = slurp(err_fd, &r->errtext, NULL);
	if (ret)
		git_result_release(r);
out:
	if (out_fd >= 0)
		close(out_fd);
	if (err_fd >= 0)
		close(err_fd);
	if (null_fd >= 0)
		close(null_fd);
	return ret;
}

/* "git -C repo args..." into argv; args NULL-terminated. */
static int build_argv(const char *repo, const char *const *args,
		      const char **argv)
{
	size_t n = 0;

	argv[n++] = "git";
	if (repo) {
		argv[n++] = "-C";
		argv[n++] = repo;
	}
	for (; *args; args++) {
		if (n >= GIT_MAX_ARGS - 1)
			return -E2BIG;
		argv[n++] = *args;
	}
	argv[n] = NULL;
	return 0;
}

/*
 * git's complaint, one line, without "fatal: ": where it starts in text,
 * and its length (0: git said nothing).
 */
static const char *first_line(const char *text, size_t *len)
{
	const char *p = text ? text : "";

	while (*p == '\n' || *p == ' ')
		p++;
	if (!strncmp(p, "fatal: ", 7))
		p += 7;
	else if (!strncmp(p, "error: ", 7))
		p += 7;
	*len = strcspn(p, "\n");
	return p;
}

/*
 * Run git and fill *r; 0 when it ran, whatever its exit status (the
 * caller interprets it).  what: the subcommand, for messages.
 */
static int git_run(const char *repo, const char *const *args,
		   struct git_result *r, const char *what, struct strbuf *err)
{
	const char *argv[GIT_MAX_ARGS];
	int ret = build_argv(repo, args, argv);

	if (!ret)
		ret = run_captured((char *const *)argv, r);
	if (ret)
		strbuf_setf(err, "git %s: %s", what,
			ret == -ENOENT ? "git is not installed (not in PATH)"
				       : strerror(-ret));
	return ret;
}

/* Run git, and make a non-zero exit an error (-EIO) that says why. */
static int git_run_ok(const char *repo, const char *const *args,
		      struct git_result *r, const char *what, struct strbuf *err)
{
	int ret = git_run(repo, args, r, what, err);
	const char *line;
	size_t len;

	if (ret || r->status == 0)
		return ret;
	line = first_line(r->errtext, &len);
	if (len && err) {
		strbuf_setf(err, "git %s: ", what);
		strbuf_add(err, line, len);
	} else {
		strbuf_setf(err, "git %s: exited with status %d", what, r->status);
	}
	git_result_release(r);
	return -EIO;
}

/* "commit" of "-c user.name=x commit -m y", for messages */
static const char *subcommand(const char *const *args)
{
	for (size_t i = 0; args[i]; i++) {
		if (!strcmp(args[i], "-c") && args[i + 1])
			i++;
		else if (args[i][0] != '-')
			return args[i];
	}
	return args[0] ? args[0] : "";
}

int git_cmd(const char *repo, char **out, struct strbuf *err, const char *arg, ...)
{
	const char *args[GIT_MAX_ARGS];
	struct git_result r;
	size_t n = 0;
	va_list ap;
	int ret;

	va_start(ap, arg);
	for (const char *a = arg; a; a = va_arg(ap, const char *)) {
		if (n >= GIT_MAX_ARGS - 4) {
			va_end(ap);
			strbuf_setf(err, "git %s: too many arguments", arg);
			return -E2BIG;
		}
		args[n++] = a;
	}
	va_end(ap);
	args[n] = NULL;
	if (out)
		*out = NULL;
	ret = git_run_ok(repo, args, &r, subcommand(args), err);
	if (ret)
		return ret;
	if (out) {
		*out = r.out;
		r.out = NULL;
	}
	git_result_release(&r);
	return 0;
}

static void chomp(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
}

static bool bad_rev(const char *rev)
{
	return !rev || !*rev || rev[0] == '-';
}

int git_resolve(const char *repo, const char *rev, char **sha, struct strbuf *err)
{
	struct git_result r = { 0 };
	const char *line;
	char *spec = NULL;
	size_t len;
	int ret;

	*sha = NULL;
	if (bad_rev(rev)) {
		strbuf_setf(err, "git rev-parse: invalid revision '%s'", rev ? rev : "");
		return -EINVAL;
	}
	/* ^{commit}: a tag resolves to its commit, a tree or blob is refused */
	if (asprintf(&spec, "%s^{commit}", rev) < 0) {
		spec = NULL;
		ret = -ENOMEM;
		strbuf_setf(err, "git rev-parse: %s", strerror(ENOMEM));
		goto out;
	}
	ret = git_run(repo, (const char *[]){ "rev-parse", "--verify", "--quiet",
					      spec, NULL },
		      &r, "rev-parse", err);
	if (ret)
		goto out;
	if (r.status == 1) {
		/* --quiet: a revision git does not know exits 1, silently */
		strbuf_setf(err, "git rev-parse: unknown revision '%s'", rev);
		ret = -ENOENT;
		goto out;
	}
	if (r.status != 0) {
		line = first_line(r.errtext, &len);
		if (!len)
			line = "not a git repository", len = strlen(line);
		strbuf_setf(err, "git rev-parse: %s: ", repo);
		if (err)
			strbuf_add(err, line, len);
		ret = -EINVAL;
		goto out;
	}
	chomp(r.out);
	*sha = r.out;
	r.out = NULL;
out:
	git_result_release(&r);
	free(spec);
	return ret;
}

void git_commit_release(struct git_commit *c)
{
	free(c->sha);
	free(c->subject);
	free(c->author);
	free(c->date);
	memset(c, 0, sizeof(*c));
}

int git_commit_info(const char *repo, const char *sha, struct git_commit *out)
{
	struct git_result r = { 0 };
	char *fields[4], *spec;
	const char *p, *end;
	int ret;

	memset(out, 0, sizeof(*out));
	if (bad_rev(sha))
		return -EINVAL;
	/* ^{commit}: git show of a tag would print the tag first */
	if (asprintf(&spec, "%s^{commit}", sha) < 0)
		return -ENOMEM;
	/* NUL separators: a subject can hold any other character */
	ret = git_run_ok(repo, (const char *[]){ "show", "-s",
			 "--format=%H%x00%s%x00%an <%ae>%x00%aI", spec, "--", NULL },
			 &r, "show", NULL);
	free(spec);
	if (ret)
		return ret == -EIO ? -ENOENT : ret;
	p = r.out;
	end = r.out + r.outlen;
	for (int i = 0; i < 4; i++) {
		size_t n = strnlen(p, (size_t)(end - p));

		fields[i] = strndup(p, n);
		if (!fields[i]) {
			while (i-- > 0)
				free(fields[i]);
			ret = -ENOMEM;
			goto out;
		}
		chomp(fields[i]);
		p += n < (size_t)(end - p) ? n + 1 : n;
	}
	out->sha = fields[0];
	out->subject = fields[1];
	out->author = fields[2];
	out->date = fields[3];
	if (!*out->sha || !*out->date) {
		git_commit_release(out);
		ret = -EIO;
	}
out:
	git_result_release(&r);
	return ret;
}

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Whether a line of text starts "VAR =" (spaces or tabs around the '='). */
static bool makefile_sets(const char *text, const char *var)
{
	size_t n = strlen(var);

	for (const char *line = text; line && *line;) {
		if (!strncmp(line, var, n)) {
			const char *p = line + n;

			p += strspn(p, " \t");
			if (*p == '=')
				return true;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return false;
}

int git_is_kernel_tree(const char *repo, const char *sha, bool *yes,
		       struct strbuf *err)
{
	static const char *const want[] = {
		"blob Kbuild", "blob Kconfig", "blob Makefile", "tree kernel", "tree mm",
		"tree init",
	};
	char *tree = NULL, *makefile = NULL, *spec = NULL;
	size_t found = 0;
	int ret;

	*yes = false;
	ret = git_cmd(repo, &tree, err, "ls-tree", sha, NULL);
	if (ret)
		goto out;
	/* "<mode> <type> <object>\t<name>" per line */
	for (char *line = tree, *next; line && *line; line = next) {
		char *tab = strchr(line, '\t'), *type = strchr(line, ' ');

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!tab || !type || type > tab)
			continue;
		*tab = '\0';
		type++;
		for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
			size_t tl = strcspn(want[i], " ");

			if (!strncmp(type, want[i], tl) && type[tl] == ' ' &&
			    !strcmp(tab + 1, want[i] + tl + 1))
				found |= (size_t)1 << i;
		}
	}
	if (found != ((size_t)1 << ARRAY_SIZE(want)) - 1)
		goto out;
	if (asprintf(&spec, "%s:Makefile", sha) < 0) {
		spec = NULL;
		ret = -ENOMEM;
		goto out;
	}
	ret = git_cmd(repo, &makefile, err, "cat-file", "blob", spec, NULL);
	if (ret)
		goto out;
	*yes = makefile_sets(makefile, "VERSION") && makefile_sets(makefile, "PATCHLEVEL");
out:
	free(tree);
	free(makefile);
	free(spec);
	return ret;
}

/*
 * git -C repo resolves a relative path from repo; callers mean perfbot's
 * working directory.
 */
static int absolute(const char *path, char **abs)
{
	char *cwd;
	int ret = 0;

	if (path[0] == '/') {
		*abs = strdup(path);
		return *abs ? 0 : -ENOMEM;
	}
	cwd = getcwd(NULL, 0);
	if (!cwd)
		return -errno;
	if (asprintf(abs, "%s/%s", cwd, path) < 0) {
		*abs = NULL;
		ret = -ENOMEM;
	}
	free(cwd);
	return ret;
}

/* ---- perfbot's own worktrees ------------------------------------------ */

/*
 * Each worktree perfbot adds is marked as its own: <admin>/perfbot-owner
 * (admin: the repository's .git/worktrees/<id>) holds the lock path of the
 * adding process's temp root (util/lifetime.h), or is empty without one.
 * Until that marker exists (git is still checking out) the entry's lock
 * reason says the same: "perfbot-owner <lock path>".  The lock stays for
 * the worktree's life, so the user's `git worktree prune` leaves it alone.
 * git_worktree_prune_own() drops only marked entries, so the user's own
 * worktrees -- even ones on a disk that is not mounted now -- are never
 * touched, as a plain `git worktree prune` would.
 */
#define OWNER_MARK "perfbot-owner"
/* the lock reason of perfbot's worktrees: this, then the owner's lock path */
#define LOCK_REASON "perfbot-owner "

static int write_marker(const char *path, const char *text);

/*
 * The first line of a small file (a path, a lock reason); NULL if it is
 * unreadable or larger than any such file: a path read in part would
 * name another file.
 */
static char *read_small(const char *path)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct strbuf sb = STRBUF_INIT;
	int ret;

	if (fd < 0)
		return NULL;
	ret = strbuf_read_fd(&sb, fd, SMALL_FILE_MAX);
	close(fd);
	if (ret) {
		strbuf_release(&sb);
		return NULL;
	}
	strbuf_setlen(&sb, strcspn(sb.buf, "\n"));
	return strbuf_detach(&sb, NULL);
}

/* The text of dir/name after `prefix`, malloc'd; NULL if unreadable or other. */
static char *file_text_after(const char *dir, const char *name,
			     const char *prefix)
{
	char *path = NULL, *text, *rest = NULL;
	size_t len = strlen(prefix);

	if (asprintf(&path, "%s/%s", dir, name) < 0)
		return NULL;
	text = read_small(path);
	free(path);
	if (text && !strncmp(text, prefix, len))
		rest = strdup(text + len);
	free(text);
	return rest;
}

/* The admin dir of the worktree at abs, from its .git file; NULL if none. */
static char *worktree_admin(const char *abs)
{
	char *admin = file_text_after(abs, ".git", "gitdir: ");

	if (admin && admin[0] != '/') {
		free(admin);
		admin = NULL;
	}
	return admin;
}

static int mark_worktree(const char *abs)
{
	const char *owner = lifetime_lock_path();
	char *admin = worktree_admin(abs), *mark = NULL;
	int ret;

	if (!admin)
		return -EIO;
	ret = asprintf(&mark, "%s/" OWNER_MARK, admin) < 0 ? -ENOMEM : 0;
	if (!ret)
		ret = write_marker(mark, owner ? owner : "");
	free(mark);
	free(admin);
	return ret;
}

/*
 * The owner named by the lock reason git_worktree_add() gives (an entry
 * whose add was killed before the marker was written), or NULL.
 */
static char *lock_reason_owner(const char *admin)
{
	return file_text_after(admin, "locked", LOCK_REASON);
}

/* A marked admin dir whose owner is dead or whose checkout is gone: drop it. */
static int prune_entry(const char *repo, const char *admin)
{
	char *mark = NULL, *gitdir = NULL, *owner = NULL, *target = NULL;
	struct git_result r = { 0 };
	struct stat st;
	bool missing, dead;
	int pruned = 0;

	if (asprintf(&mark, "%s/" OWNER_MARK, admin) < 0 ||
	    asprintf(&gitdir, "%s/gitdir", admin) < 0)
		goto out;
	owner = read_small(mark);
	if (!owner)
		owner = lock_reason_owner(admin);
	if (!owner)
		goto out;	/* not perfbot's */
	target = read_small(gitdir);
	missing = !target || target[0] != '/' || lstat(target, &st) != 0;
	dead = *owner && !lifetime_owner_alive(owner);
	if (!missing && !dead)
		goto out;
	if (!missing) {
		char *checkout = dirname(target);

		if (git_run(repo, (const char *[]){ "worktree", "remove", "--force",
						    "--force", "--", checkout, NULL },
			    &r, "worktree remove", NULL) == 0)
			git_result_release(&r);
	}
	/* what `git worktree prune` does, for this entry alone */
	if (lstat(admin, &st) == 0)
		remove_tree(admin);
	pruned = 1;
out:
	free(mark);
	free(gitdir);
	free(owner);
	free(target);
	return pruned;
}

int git_worktree_prune_own(const char *repo)
{
	struct git_result r = { 0 };
	char *dir = NULL;
	struct dirent *e;
	int ret, pruned = 0;
	DIR *d;

	ret = git_run_ok(repo, (const char *[]){ "rev-parse", "--git-common-dir",
						 NULL },
			 &r, "rev-parse", NULL);
	if (ret)
		return ret;
	chomp(r.out);
	/* relative to the repository's directory */
	ret = r.out[0] == '/' ? asprintf(&dir, "%s/worktrees", r.out)
			      : asprintf(&dir, "%s/%s/worktrees", repo, r.out);
	git_result_release(&r);
	if (ret < 0)
		return -ENOMEM;
	d = opendir(dir);
	if (!d) {
		ret = errno == ENOENT ? 0 : -errno;
		free(dir);
		return ret;
	}
	while ((e = readdir(d))) {
		char *admin = NULL;

		if (e->d_name[0] == '.' ||
		    asprintf(&admin, "%s/%s", dir, e->d_name) < 0)
			continue;
		pruned += prune_entry(repo, admin);
		free(admin);
	}
	closedir(d);
	free(dir);
	return pruned;
}

int git_worktree_add(const char *repo, const char *sha, const char *dir,
		     struct strbuf *err)
{
	const char *owner = lifetime_lock_path();
	struct git_result r = { 0 };
	char *abs = NULL, *reason = NULL;
	int ret;

	if (bad_rev(sha)) {
		strbuf_setf(err, "git worktree add: invalid revision '%s'", sha ? sha : "");
		return -EINVAL;
	}
	ret = absolute(dir, &abs);
	if (ret) {
		strbuf_setf(err, "git worktree add: %s: %s", dir, strerror(-ret));
		return ret;
	}
	/*
	 * Locked with perfbot's reason from the moment git makes the entry
	 * (git writes <admin>/locked before the checkout), so a perfbot
	 * killed during a long `worktree add` leaves an entry the next one
	 * knows as its own; the marker below comes only after the add.
	 */
	if (asprintf(&reason, LOCK_REASON "%s", owner ? owner : "") < 0) {
		free(abs);
		return -ENOMEM;
	}
	ret = git_run_ok(repo, (const char *[]){ "worktree", "add", "--detach",
						 "--lock", "--reason", reason,
						 "--", abs, sha, NULL },
			 &r, "worktree add", err);
	git_result_release(&r);
	free(reason);
	if (!ret) {
		ret = mark_worktree(abs);
		if (ret) {
			strbuf_setf(err, "git worktree add: cannot mark %s as perfbot's: %s",
				abs, strerror(-ret));
			git_worktree_remove(repo, abs);
		}
	}
	free(abs);
	return ret;
}

int git_worktree_remove(const char *repo, const char *dir)
{
	struct git_result r = { 0 };
	char *abs = NULL, *admin;
	struct stat st;
	int ret;

	ret = absolute(dir, &abs);
	if (ret)
		return ret;
	admin = worktree_admin(abs);
	/* twice: perfbot's worktrees are locked (git_worktree_add()) */
	if (git_run(repo, (const char *[]){ "worktree", "remove", "--force",
					    "--force", "--", abs, NULL },
		    &r, "worktree remove", NULL) == 0)
		git_result_release(&r);
	/* git refuses a half-made or unregistered worktree: delete it anyway */
	if (lstat(abs, &st) == 0)
		remove_tree(abs);
	/* and git's record of it, if perfbot's (the checkout is gone now) */
	if (admin)
		prune_entry(repo, admin);
	free(admin);
	ret = lstat(abs, &st) == 0 ? -EEXIST : 0;
	free(abs);
	return ret;
}

/* Do two paths name the same file (both exist)? */
static bool same_path(const char *a, const char *b)
{
	struct stat sa, sb;

	return a && b && stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int git_worktree_detach(const char *dir)
{
	char *abs = NULL, *dotgit = NULL, *admin = NULL, *owner = NULL;
	char *gitdir = NULL, *target = NULL;
	struct stat st;
	int ret;

	ret = absolute(dir, &abs);
	if (ret)
		return ret;
	if (asprintf(&dotgit, "%s/.git", abs) < 0) {
		dotgit = NULL;
		ret = -ENOMEM;
		goto out;
	}
	if (lstat(dotgit, &st)) {
		ret = errno == ENOENT ? 0 : -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = -EINVAL;	/* a repository of its own: not ours to touch */
		goto out;
	}
	admin = worktree_admin(abs);
	if (admin && lstat(admin, &st) == 0) {
		char *mark = NULL;

		if (asprintf(&mark, "%s/" OWNER_MARK, admin) >= 0) {
			owner = read_small(mark);
			free(mark);
		}
		if (!owner)
			owner = lock_reason_owner(admin);
		if (asprintf(&gitdir, "%s/gitdir", admin) < 0)
			gitdir = NULL;
		else
			target = read_small(gitdir);
		/* only perfbot's record, and only the one of this checkout */
		if (owner && same_path(target, dotgit))
			remove_tree(admin);
	}
	ret = unlink(dotgit) ? -errno : 0;
out:
	free(abs);
	free(dotgit);
	free(admin);
	free(owner);
	free(gitdir);
	free(target);
	return ret;
}

int git_common_dir(const char *repo, char **out, struct strbuf *err)
{
	char *dir = NULL, *joined = NULL;
	int ret;

	*out = NULL;
	ret = git_cmd(repo, &dir, err, "rev-parse", "--git-common-dir", NULL);
	if (ret)
		return ret;
	chomp(dir);
	/* relative to the repository's directory */
	if (dir[0] != '/' && asprintf(&joined, "%s/%s", repo, dir) < 0) {
		free(dir);
		strbuf_setf(err, "git rev-parse: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	*out = realpath(joined ? joined : dir, NULL);
	if (!*out) {
		ret = -errno;
		strbuf_setf(err, "git rev-parse: %s: %s", joined ? joined : dir,
			    strerror(-ret));
	}
	free(dir);
	free(joined);
	return ret;
}

int git_build(const char *worktree, char *const *build_argv, double timeout_s,
	      volatile sig_atomic_t *stop, const char *log_path,
	      int *exit_status, struct strbuf *err)
{
	struct child c = { 0 };
	struct child_io io;
	enum child_wait how;
	sigset_t mask;
	char *tmp = NULL, *saved_tmpdir = NULL;
	int log_fd = -1, null_fd = -1, st = 0, ret;
	double deadline;

	*exit_status = -1;
	if (!build_argv || !build_argv[0]) {
		strbuf_setf(err, "build: empty command");
		return -EINVAL;
	}
	log_fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (log_fd < 0) {
		ret = -errno;
		strbuf_setf(err, "build: %s: %s", log_path, strerror(-ret));
		goto out;
	}
	null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (null_fd < 0) {
		ret = -errno;
		strbuf_setf(err, "build: /dev/null: %s", strerror(-ret));
		goto out;
	}
	io = (struct child_io){ .stdin_fd = null_fd, .stdout_fd = log_fd,
				.stderr_fd = log_fd, .cwd = worktree };
	if (access(worktree, X_OK)) {
		ret = -errno;
		strbuf_setf(err, "build: %s: %s", worktree, strerror(-ret));
		goto out;
	}
	/*
	 * The build's own TMPDIR, removed after it: a compiler killed at the
	 * timeout or by ^C leaves its temp files behind, and they go with it.
	 * Set in perfbot's environment around the spawn (no thread runs
	 * beside a build), as the child inherits it.
	 */
	ret = make_temp_dir(NULL, "perfbot-build", &tmp);
	if (ret) {
		strbuf_setf(err, "build: cannot make a temporary directory: %s",
			strerror(-ret));
		goto out;
	}
	if (getenv("TMPDIR") && !(saved_tmpdir = strdup(getenv("TMPDIR")))) {
		ret = -ENOMEM;
		strbuf_setf(err, "build: %s", strerror(ENOMEM));
		goto out;
	}
	setenv("TMPDIR", tmp, 1);
	child_signals_block(&mask);
	deadline = timeout_s > 0 ? mono_now() + timeout_s : INFINITY;
	ret = child_spawn(&c, build_argv, &io);
	if (saved_tmpdir)
		setenv("TMPDIR", saved_tmpdir, 1);
	else
		unsetenv("TMPDIR");
	if (ret) {
		child_signals_restore(&mask);
		strbuf_setf(err, "build: cannot run '%s': %s",
			build_argv[0], strerror(-ret));
		goto out;
	}
	how = child_wait_until(&c, deadline, stop, &mask);
	child_stop(&c, &st, NULL);
	child_signals_restore(&mask);
	switch (how) {
	case CHILD_DEADLINE:
		ret = -ETIMEDOUT;
		strbuf_setf(err, "build: '%s' timed out after %gs (log: %s)",
			build_argv[0], timeout_s, log_path);
		break;
	case CHILD_STOPPED:
		ret = -ECANCELED;
		strbuf_setf(err, "build: '%s' stopped (log: %s)",
			build_argv[0], log_path);
		break;
	case CHILD_EXITED:
		*exit_status = decode_status(st);
		if (*exit_status == 0)
			break;
		ret = -GIT_EBUILD;
		if (WIFSIGNALED(st))
			strbuf_setf(err, "build: '%s' killed by signal %d (log: %s)",
				build_argv[0], WTERMSIG(st), log_path);
		else
			strbuf_setf(err, "build: '%s' exited with status %d (log: %s)",
				build_argv[0], *exit_status, log_path);
		break;
	}
out:
	if (tmp) {
		remove_tree(tmp);
		free(tmp);
	}
	free(saved_tmpdir);
	if (log_fd >= 0)
		close(log_fd);
	if (null_fd >= 0)
		close(null_fd);
	return ret;
}

/* The cache */

static bool full_sha(const char *sha)
{
	size_t n = 0;

	for (; sha && isxdigit((unsigned char)sha[n]); n++)
		if (isupper((unsigned char)sha[n]))
			return false;
	return sha && !sha[n] && (n == 40 || n == 64);
}

/* The marker's content: the build command, one argument a line. */
static char *marker_text(char *const *build_argv)
{
	struct strbuf sb = STRBUF_INIT;

	for (char *const *a = build_argv; a && *a; a++) {
		strbuf_addstr(&sb, *a);
		strbuf_addch(&sb, '\n');
	}
	return strbuf_detach(&sb, NULL);
}

static bool file_is(const char *path, const char *text)
{
	size_t len = strlen(text);
	char *buf = malloc(len + 2);
	bool same = false;
	ssize_t n;
	int fd;

	if (!buf)
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, len + 1);
		same = n == (ssize_t)len && !memcmp(buf, text, len);
		close(fd);
	}
	free(buf);
	return same;
}

/* Written under a temporary name: a marker is whole or absent. */
static int write_marker(const char *path, const char *text)
{
	return write_file_atomic(path, NULL, text, strlen(text), false);
}

/* Is wt a worktree at sha?  (Its directory may have been tampered with.) */
static bool worktree_at(const char *wt, const char *sha)
{
	char *head = NULL;
	bool ok;

	if (git_cmd(wt, &head, NULL, "rev-parse", "HEAD", NULL))
		return false;
	chomp(head);
	ok = !strcmp(head, sha);
	free(head);
	return ok;
}

/* Wait for the commit's lock; *stop ends the wait. */
static int lock_commit(const char *path, volatile sig_atomic_t *stop, int *fd)
{
	*fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (*fd < 0)
		return -errno;
	while (flock(*fd, LOCK_EX)) {
		int ret = -errno;

		if (ret == -EINTR && !(stop && *stop))
			continue;
		close(*fd);
		*fd = -1;
		return ret == -EINTR ? -ECANCELED : ret;
	}
	return 0;
}

int git_checkout_built(const char *repo, const char *sha,
		       char *const *build_argv, const char *cache_dir,
		       double timeout_s, volatile sig_atomic_t *stop,
		       char **worktree_out, struct strbuf *err)
{
	char *cache = NULL, *wt = NULL, *marker = NULL, *log = NULL;
	char *lock = NULL, *text = NULL;
	struct stat st;
	int ret, lock_fd = -1, status;

	*worktree_out = NULL;
	if (!full_sha(sha)) {
		strbuf_setf(err, "checkout: '%s' is not a full sha", sha ? sha : "");
		return -EINVAL;
	}
	ret = make_dirs(cache_dir);
	if (!ret)
		ret = absolute(cache_dir, &cache);
	if (ret) {
		strbuf_setf(err, "checkout: %s: %s", cache_dir, strerror(-ret));
		goto out;
	}
	text = marker_text(build_argv);
	if (!text || asprintf(&wt, "%s/%s", cache, sha) < 0 ||
	    asprintf(&marker, "%s.ok", wt) < 0 ||
	    asprintf(&log, "%s.log", wt) < 0 ||
	    asprintf(&lock, "%s.lock", wt) < 0) {
		ret = -ENOMEM;
		strbuf_setf(err, "checkout: %s", strerror(ENOMEM));
		goto out;
	}
	ret = lock_commit(lock, stop, &lock_fd);
	if (ret) {
		strbuf_setf(err, "checkout: %s: %s", lock, strerror(-ret));
		goto out;
	}
	if (file_is(marker, text) && worktree_at(wt, sha))
		goto done;
	/* whatever is there is stale: an interrupted build, another command */
	unlink(marker);
	if (lstat(wt, &st) == 0 && git_worktree_remove(repo, wt)) {
		ret = -EEXIST;
		strbuf_setf(err, "checkout: cannot remove stale worktree %s", wt);
		goto out;
	}
	/* a worktree deleted behind git's back stays registered until pruned */
	ret = git_worktree_prune_own(repo);
	if (ret < 0) {
		strbuf_setf(err, "checkout: cannot prune perfbot's stale worktrees: %s",
			strerror(-ret));
		goto out;
	}
	ret = git_worktree_add(repo, sha, wt, err);
	if (ret)
		goto out;
	if (build_argv) {
		ret = git_build(wt, build_argv, timeout_s, stop, log, &status, err);
		if (ret) {
			git_worktree_remove(repo, wt);
			goto out;
		}
	}
	ret = write_marker(marker, text);
	if (ret) {
		strbuf_setf(err, "checkout: %s: %s", marker, strerror(-ret));
		git_worktree_remove(repo, wt);
		goto out;
	}
done:
	*worktree_out = wt;
	wt = NULL;
out:
	if (lock_fd >= 0)
		close(lock_fd);	/* releases the lock; the file stays, harmless */
	free(cache);
	free(wt);
	free(marker);
	free(log);
	free(lock);
	free(text);
	return ret;
}

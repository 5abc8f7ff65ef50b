/*
 * lifetime.c - private temp roots, their sweep, and the watchdog.  See
 * lifetime.h.
 */
#define _GNU_SOURCE
#include "util/lifetime.h"
#include "util/fsutil.h"
#include "util/vec.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LOCK_SUFFIX ".lock"

struct root {
	char *path;
	char *lock;
	int lock_fd;
};

enum { ROOT_TMP, ROOT_SHM, NR_ROOTS };

static struct root roots[NR_ROOTS] = { { .lock_fd = -1 }, { .lock_fd = -1 } };
static pid_t owner_pid, watchdog_pid;
static int watch_fd = -1;

static const char *tmp_base(void)
{
	const char *b = getenv("TMPDIR");

	return b && *b ? b : "/tmp";
}

static const char *shm_base(void)
{
	const char *b = getenv("PERFBOT_SHMDIR");

	return b && *b ? b : "/dev/shm";
}

const char *lifetime_tmp_root(void)
{
	return roots[ROOT_TMP].path;
}

const char *lifetime_shm_root(void)
{
	return roots[ROOT_SHM].path;
}

const char *lifetime_lock_path(void)
{
	return roots[ROOT_TMP].lock;
}

/* perfbot.<pid>.XXXXXX, as make_root() names them; *len: without ".lock" */
static bool root_name(const char *name, size_t *len)
{
	const char *p = name + strlen("perfbot."), *end;
	size_t n = 0;

	if (strncmp(name, "perfbot.", strlen("perfbot.")))
		return false;
	while (isdigit((unsigned char)*p)) {
		p++;
		n++;
	}
	if (!n || *p != '.')
		return false;
	end = p + 1 + 6;
	if (strnlen(p + 1, 6) != 6 || (*end && strcmp(end, LOCK_SUFFIX)))
		return false;
	*len = (size_t)(end - name);
	return true;
}

/* A lock file, opened; -1 when it is missing or not a regular file. */
static int open_lock(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode))) {
		close(fd);
		return -1;
	}
	return fd;
}

bool lifetime_owner_alive(const char *lock_path)
{
	int fd = open_lock(lock_path);
	bool alive;

	if (fd < 0)
		return false;
	alive = flock(fd, LOCK_EX | LOCK_NB) != 0;
	close(fd);
	return alive;
}

int lifetime_sweep(const char *base)
{
	DIR *d = opendir(base);
	struct dirent *e;
	int removed = 0;

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		char *root = NULL, *lock = NULL;
		struct stat st;
		size_t len;
		int fd;

		/* the lock files lead: a root without one is not ours */
		if (!root_name(e->d_name, &len) || !e->d_name[len] ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode) || st.st_uid != geteuid())
			continue;
		if (asprintf(&lock, "%s/%s", base, e->d_name) < 0)
			break;
		if (asprintf(&root, "%s/%.*s", base, (int)len, e->d_name) < 0) {
			free(lock);
			break;
		}
		fd = open_lock(lock);
		/* held while removing, so that no second sweeper races us */
		if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0) {
			if ((lstat(root, &st) || !S_ISDIR(st.st_mode) ||
			     st.st_uid != geteuid() || remove_tree(root) == 0) &&
			    unlink(lock) == 0)
				removed++;
		}
		if (fd >= 0)
			close(fd);
		free(lock);
		free(root);
	}
	closedir(d);
	return removed;
}

/* "XXXXXX" of a root's name, from the kernel's random bytes */
static void random_suffix(char out[7])
{
	static const char set[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char b[6];

	if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b)) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		for (size_t i = 0; i < sizeof(b); i++)
			b[i] = (unsigned char)(ts.tv_nsec >> (i * 5));
	}
	for (size_t i = 0; i < 6; i++)
		out[i] = set[b[i] % (sizeof(set) - 1)];
	out[6] = '\0';
}

static void drop_root(struct root *r)
{
	if (r->path)
		remove_tree(r->path);
	if (r->lock) {
		unlink(r->lock);
	}
	if (r->lock_fd >= 0)
		close(r->lock_fd);
	free(r->path);
	free(r->lock);
	*r = (struct root){ .lock_fd = -1 };
}

/*
 * Lock first, root second: the lock file perfbot.<pid>.XXXXXX.lock comes
 * into being locked (made under O_TMPFILE, locked, then linked in), and
 * only then the directory perfbot.<pid>.XXXXXX.  Killed at any point, a
 * perfbot leaves a free lock (and maybe its root) for the sweep; a sweep
 * never sees a live owner's lock free.
 */
static int make_lock(const char *base, struct root *r)
{
	char proc[64], sfx[7];
	int err = -EEXIST;
	int fd = open(base, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd >= 0 && flock(fd, LOCK_EX)) {
		close(fd);
		fd = -1;
	}
	for (int tries = 0; tries < 100 && err == -EEXIST; tries++) {
		free(r->lock);
		random_suffix(sfx);
		if (asprintf(&r->lock, "%s/perfbot.%d.%s" LOCK_SUFFIX, base,
			     (int)getpid(), sfx) < 0) {
			r->lock = NULL;
			err = -ENOMEM;
			break;
		}
		if (fd >= 0) {
			snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
			err = linkat(AT_FDCWD, proc, AT_FDCWD, r->lock,
				     AT_SYMLINK_FOLLOW) ? -errno : 0;
			if (err && err != -EEXIST) {
				/* no /proc, or no link here: the plain way */
				close(fd);
				fd = -1;
				err = -EEXIST;
				tries--;
			}
			continue;
		}
		/* no O_TMPFILE: a sweep in the next microsecond could win */
		fd = open(r->lock, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
		err = fd < 0 ? -errno : flock(fd, LOCK_EX) ? -errno : 0;
		if (err && fd >= 0) {
			close(fd);
			fd = -1;
		}
	}
	if (err) {
		if (fd >= 0)
			close(fd);
		free(r->lock);
		r->lock = NULL;
		return err;
	}
	r->lock_fd = fd;
	return 0;
}

static int make_root(const char *base, struct root *r)
{
	char pid[32];
	int err = make_lock(base, r);
	size_t n;

	if (err)
		return err;
	n = strlen(r->lock) - strlen(LOCK_SUFFIX);
	r->path = strndup(r->lock, n);
	if (!r->path) {
		drop_root(r);
		return -ENOMEM;
	}
	if (mkdir(r->path, 0700)) {
		err = -errno;
		free(r->path);
		r->path = NULL;	/* not ours to remove */
		drop_root(r);
		return err;
	}
	/* for a person looking at the tree */
	snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if (write(r->lock_fd, pid, strlen(pid)) < 0) {
		/* the content is only informative */
	}
	return 0;
}

/* ---- the watchdog ------------------------------------------------------ */

struct groups {
	pid_t *v;
	size_t n, cap;
};

static void groups_add(struct groups *g, pid_t pgid)
{
	if (vec_push(g, pgid)) {
		/* out of memory: the child still dies with its parent */
	}
}

static void groups_remove(struct groups *g, pid_t pgid)
{
	for (size_t i = 0; i < g->n; i++)
		if (g->v[i] == pgid) {
			g->v[i] = g->v[--g->n];
			return;
		}
}

static bool keep_fd(int fd, int sock)
{
	if (fd == sock)
		return true;
	for (int i = 0; i < NR_ROOTS; i++)
		if (fd == roots[i].lock_fd)
			return true;
	return false;
}

/* Everything but the socket and the locks: no pipe, store or tty held open. */
static void close_other_fds(int sock)
{
	long max = sysconf(_SC_OPEN_MAX);
	int null_fd;

	if (max < 0 || max > 65536)
		max = 65536;
	for (int fd = 0; fd < max; fd++)
		if (!keep_fd(fd, sock))
			close(fd);
	null_fd = open("/dev/null", O_RDWR);
	if (null_fd >= 0) {
		for (int fd = 0; fd <= 2; fd++)
			if (fd != null_fd && !keep_fd(fd, sock))
				dup2(null_fd, fd);
		if (null_fd > 2)
			close(null_fd);
	}
}

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void remove_roots(void)
{
	for (int i = 0; i < NR_ROOTS; i++) {
		if (roots[i].path)
			remove_tree(roots[i].path);
		if (roots[i].lock)
			unlink(roots[i].lock);
	}
}

static void watchdog_cleanup(const struct groups *g)
{
	for (size_t i = 0; i < g->n; i++)
		kill(-g->v[i], SIGKILL);
	/*
	 * A killed process can still finish the system call it was in (an
	 * open(O_CREAT) in a root): remove, give those a moment, remove
	 * again.  Waiting for the groups to vanish is no better: their
	 * zombies stay until an init we do not control reaps them.
	 */
	sleep_ms(10);
	remove_roots();
	sleep_ms(50);
	remove_roots();
}

static __attribute__((noreturn)) void watchdog_main(int sock)
{
	static const int ignored[] = {
		SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU, SIGPIPE,
	};
	struct groups g = { 0 };
	sigset_t none;

	for (size_t i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		signal(ignored[i], SIG_IGN);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	prctl(PR_SET_NAME, "perfbot-watch");
	close_other_fds(sock);
	if (chdir("/")) {
		/* only so that no directory is kept busy */
	}
	for (;;) {
		int32_t rec;
		ssize_t n = recv(sock, &rec, sizeof(rec), 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;	/* EOF: the main process is gone */
		if (n != sizeof(rec) || rec == 0)
			continue;
		if (rec > 0)
			groups_add(&g, (pid_t)rec);
		else
			groups_remove(&g, (pid_t)-rec);
	}
	watchdog_cleanup(&g);
	_exit(0);
}

static void send_record(int32_t rec)
{
	ssize_t n;

	if (watch_fd < 0 || getpid() != owner_pid)
		return;
	do {
		n = send(watch_fd, &rec, sizeof(rec), MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
}

void lifetime_register(pid_t pgid)
{
	send_record((int32_t)pgid);
}

void lifetime_unregister(pid_t pgid)
{
	send_record(-(int32_t)pgid);
}

bool lifetime_watched(void)
{
	return watch_fd >= 0 && getpid() == owner_pid;
}

void lifetime_child_detach(void)
{
	if (watch_fd >= 0 && getpid() != owner_pid) {
		close(watch_fd);
		watch_fd = -1;
	}
}

static void lifetime_end(void)
{
	if (getpid() != owner_pid)
		return;
	for (int i = 0; i < NR_ROOTS; i++)
		drop_root(&roots[i]);
	if (watch_fd >= 0) {
		close(watch_fd);
		watch_fd = -1;
		while (waitpid(watchdog_pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
}

int lifetime_start(struct strbuf *err)
{
	int sv[2], ret;
	pid_t pid;

	if (owner_pid == getpid())
		return 0;
	lifetime_sweep(tmp_base());
	lifetime_sweep(shm_base());
	ret = make_root(tmp_base(), &roots[ROOT_TMP]);
	if (ret) {
		strbuf_setf(err, "cannot make a temporary directory in %s: %s",
			    tmp_base(), strerror(-ret));
		return ret;
	}
	/* no tmpfs (a container without /dev/shm): will-it-scale says so later */
	make_root(shm_base(), &roots[ROOT_SHM]);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		ret = -errno;
		strbuf_setf(err, "cannot start the watchdog: %s", strerror(-ret));
		goto fail;
	}
	fflush(NULL);	/* or buffered output is written twice */
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		close(sv[0]);
		close(sv[1]);
		strbuf_setf(err, "cannot start the watchdog: %s", strerror(-ret));
		goto fail;
	}
	if (pid == 0) {
		close(sv[0]);
		watchdog_main(sv[1]);
	}
	close(sv[1]);
	watch_fd = sv[0];
	watchdog_pid = pid;
	owner_pid = getpid();
	atexit(lifetime_end);
	return 0;
fail:
	for (int i = 0; i < NR_ROOTS; i++)
		drop_root(&roots[i]);
	return ret;
}

/*
 * lifetime.h - nothing perfbot starts outlives it, even under SIGKILL.
 *
 * A command that starts processes or makes temp files (run, bench, stat,
 * bisect start/resume/run-step) calls lifetime_start() first, before any
 * thread exists.  It does three things:
 *
 *  1. Sweeps stale roots: under the temp base ($TMPDIR, else /tmp) and
 *     the shm base ($PERFBOT_SHMDIR, else /dev/shm), a root is the
 *     directory perfbot.<pid>.XXXXXX beside its lock file
 *     perfbot.<pid>.XXXXXX.lock.  A lock file of ours that
 *     flock(LOCK_EX|LOCK_NB) can take was left by a dead perfbot: its
 *     root and then the lock file are removed.  A held lock means a live
 *     owner; a directory without a lock file is not ours: both are kept.
 *     Never by name alone.
 *
 *  2. Makes this process's own roots, one under each base, each lock held
 *     for the process's life.  The lock comes first and is born locked
 *     (made under O_TMPFILE, locked, then linked in), the directory
 *     second, so that a kill at any point leaves nothing a sweep cannot
 *     recognise, and a sweep never sees a live owner's lock free.
 *     make_temp_dir(NULL, ...) (util/fsutil.h) then creates
 *     inside the temp root, and will-it-scale's tmpfs dirs go in the shm
 *     root: every temp dir perfbot makes lives in a root.
 *
 *  3. Forks the watchdog: a process that holds one end of a socketpair
 *     whose other end only the main process has (children close it).
 *     util/child.c tells it of every process group it creates ("+pgid",
 *     sent before the child runs any code of its own) and of each it
 *     kills ("-pgid", after the group's SIGKILL).  When the main process
 *     dies by any means, the watchdog reads EOF, SIGKILLs the groups
 *     still registered, removes both roots and exits.  It ignores the
 *     terminal's SIGINT/SIGTERM/SIGHUP/SIGQUIT/SIGTSTP (^C is the main's
 *     business), has stdin/stdout/stderr on /dev/null and keeps only the
 *     socket and the two lock files open.
 *
 * On a normal exit (atexit) the main removes its roots, closes the socket
 * and reaps the watchdog, so nothing is left when perfbot's exit status
 * is seen.  Commands that start nothing (help, results, compare, report,
 * job, import) never call lifetime_start(): no watchdog, no root.
 *
 * Limits: a process that leaves its group (setsid(), setpgid()) escapes
 * the kill; SIGKILL of the watchdog together with the main (kill of the
 * whole terminal group with SIGKILL) leaves the cleanup to the next
 * perfbot's sweep and to the children's PR_SET_PDEATHSIG.
 *
 * Threading: lifetime_start() before any thread; the rest from any
 * thread of the main process (one write per record).  Functions return
 * 0 or a negative errno.
 */
#ifndef PERFBOT_UTIL_LIFETIME_H
#define PERFBOT_UTIL_LIFETIME_H

#include "util/strbuf.h"

#include <stdbool.h>
#include <sys/types.h>

/* Sweep, make the roots, fork the watchdog.  err is set to what failed. */
int lifetime_start(struct strbuf *err);

/* This process's roots and the temp root's lock file; NULL before start. */
const char *lifetime_tmp_root(void);
const char *lifetime_shm_root(void);
const char *lifetime_lock_path(void);

/*
 * Remove the abandoned roots directly under base (see 1. above).  The
 * number of lock files removed, or a negative errno when base cannot be read.
 */
int lifetime_sweep(const char *base);

/*
 * Is the root whose lock file is lock_path still owned by a live
 * process?  False when the file is gone or its lock can be taken.
 */
bool lifetime_owner_alive(const char *lock_path);

/* util/child.c's side: tell the watchdog of a group; no-ops before start. */
void lifetime_register(pid_t pgid);
void lifetime_unregister(pid_t pgid);
/* Is a watchdog running (so new children must wait to be registered)? */
bool lifetime_watched(void);
/* In a new child: close the main's end of the watchdog socket. */
void lifetime_child_detach(void);

#endif

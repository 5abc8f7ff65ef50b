/*
 * buildcache.h - the persistent build cache: built checkouts of commits
 * that outlive the perfbot that built them (docs/build-cache.md), so that
 * a bisection, a `compare --measure` and a later resume never build a
 * commit twice.  vcs/builds.c is its one user besides `perfbot cache`.
 *
 * Where: $PERFBOT_BUILD_CACHE, else $XDG_CACHE_HOME/perfbot/builds, else
 * $HOME/.cache/perfbot/builds (made absolute; builds embed their paths).
 * Size cap: $PERFBOT_BUILD_CACHE_MAX, bytes with an optional K, M, G or T
 * (powers of 1024), default 20G; 0 or "off" turns persistence off (the
 * caller then builds in a temporary directory, as before the cache).
 *
 * An entry is <cache>/<key>/ (key: buildcache_key(), 64 hex digits) with
 * tree/ (the checkout, built in place and then detached from the user's
 * repository: no .git, no `git worktree list` line), build.log, info
 * (JSON: repo, sha, build argv, env values, created, size in bytes) and
 * ok, written atomically only after a successful build; ok's mtime is the
 * entry's last use.  An entry without ok (an interrupted build) is never
 * handed out: it is removed, with its git worktree registration, when its
 * key is next wanted, by buildcache_clean() and by eviction.
 *
 * Locks: <cache>/<key>.lock, flock(2).  LOCK_EX while an entry is built or
 * removed; LOCK_SH while a user holds it (between buildcache_get() and
 * buildcache_release()).  Eviction and cleaning take LOCK_EX|LOCK_NB and
 * skip what is held; two perfbots wanting one key build it once (the
 * second waits, honouring *stop, then finds ok).
 *
 * Eviction (after each buildcache_commit()): while the sizes in the info
 * of complete entries add up to more than the cap, the least recently used
 * complete entry that is not held and is not the new one is removed.
 *
 * Ownership: struct buildcache and struct buildcache_entry own their
 * strings (buildcache_close(), buildcache_release()); a held entry keeps
 * a file descriptor open.  Threading: one thread per struct; processes
 * coordinate through the locks above.  Failures are negative errnos with
 * err set (err may be NULL where said).
 */
#ifndef PERFBOT_VCS_BUILDCACHE_H
#define PERFBOT_VCS_BUILDCACHE_H

#include "util/strbuf.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#define BUILDCACHE_DEFAULT_MAX (20ULL << 30)
#define BUILDCACHE_KEY_LEN 64

/* buildcache_get()'s two successes */
#define BUILDCACHE_MISS 0
#define BUILDCACHE_HIT 1

/*
 * The environment variables whose values are part of the key (NULL
 * ends the list), besides every variable named KBUILD_*.  MAKEFLAGS and
 * MFLAGS are not: make's jobserver descriptors differ from run to run.
 */
extern const char *const buildcache_env_names[];

struct buildcache {
	char *dir;			/* absolute, even when off */
	unsigned long long max;		/* bytes; 0: persistence off */
};

/* What a build is of; every field goes into the key. */
struct buildcache_desc {
	const char *repo_id;	/* the repository's identity: realpath of its common dir */
	const char *sha;	/* full sha */
	char *const *build;	/* argv, NULL-terminated; NULL: a checkout only */
};

struct buildcache_entry {
	char key[BUILDCACHE_KEY_LEN + 1];
	char *dir;			/* <cache>/<key> */
	char *tree;			/* <dir>/tree: the checkout */
	char *log;			/* <dir>/build.log */
	int lock_fd;			/* -1: not held */
};

/*
 * The directory and the cap from the environment.  -EINVAL with err
 * naming the variable and its value when PERFBOT_BUILD_CACHE_MAX is not a
 * size, or when no directory can be found (no HOME).
 */
int buildcache_open(struct buildcache *bc, struct strbuf *err);
void buildcache_close(struct buildcache *bc);

static inline bool buildcache_on(const struct buildcache *bc)
{
	return bc->max > 0;
}

/*
 * A cap: decimal digits with an optional K, M, G or T (either case;
 * powers of 1024), or "off" (0).  0; -EINVAL not a size; -ERANGE over
 * 2^64-1 bytes.  *out is written only on success.
 */
int buildcache_parse_max(const char *s, unsigned long long *out);

/* The key of d with this process's environment; -ENOMEM. */
int buildcache_key(const struct buildcache_desc *d,
		   char key[BUILDCACHE_KEY_LEN + 1]);

/*
 * The entry of d, held.  BUILDCACHE_HIT: complete, held shared, its last
 * use now; e->tree is the built checkout.  BUILDCACHE_MISS: held
 * exclusively, whatever a previous attempt left removed, e->dir made and
 * e->tree absent: the caller checks out and builds in e->tree (its log in
 * e->log), then calls buildcache_commit() or buildcache_abandon().
 * -ECANCELED when *stop was set while waiting for another perfbot's
 * build of the same key (stop may be NULL); other errors with err set.
 * e is zeroed (lock_fd -1) on failure.
 */
int buildcache_get(struct buildcache *bc, const struct buildcache_desc *d,
		   volatile sig_atomic_t *stop, struct buildcache_entry *e,
		   struct strbuf *err);

/*
 * After a successful build in e->tree (already detached from git): info
 * and ok written, the hold made shared, then eviction.  On error the
 * entry is abandoned (removed, released).
 */
int buildcache_commit(struct buildcache *bc, const struct buildcache_desc *d,
		      struct buildcache_entry *e, struct strbuf *err);

/* A failed or stopped build: the entry removed, the lock released. */
void buildcache_abandon(struct buildcache_entry *e);

/* The hold released; a complete entry stays in the cache.  e zeroed. */
void buildcache_release(struct buildcache_entry *e);

/* Whether d's entry is complete (for a progress line; no lock taken). */
bool buildcache_has(const struct buildcache *bc, const struct buildcache_desc *d);

/*
 * Remove least recently used complete entries not held and not keep_key
 * (may be NULL) while the total exceeds bc->max (even when off: max 0
 * removes every entry not held), and leftovers (entries without ok) whose
 * lock is free.  The number of entries removed.
 */
int buildcache_evict(struct buildcache *bc, const char *keep_key);

/* One entry as `perfbot cache list|clean` shows it. */
struct buildcache_item {
	char key[BUILDCACHE_KEY_LEN + 1];
	bool complete;			/* has ok */
	bool in_use;			/* its lock is held by a perfbot */
	char *repo, *sha;		/* from info; NULL when unreadable */
	char **build;			/* argv from info; NULL: none */
	unsigned long long size;	/* bytes, from info (0 when unknown) */
	time_t created, used;		/* used: ok's mtime (0 when incomplete) */
	long used_nsec;			/* ... its nanoseconds, for the order */
};

struct buildcache_items {
	struct buildcache_item *v;
	size_t n, cap;
};

/*
 * Every entry of the cache directory (none when it does not exist),
 * complete ones by last use, most recent first, then the leftovers.
 */
int buildcache_list(const struct buildcache *bc, struct buildcache_items *out,
		    struct strbuf *err);

/*
 * Remove every entry that is not held and every leftover; removed and
 * kept (held) list them.  0, or an error reading the directory.
 */
int buildcache_clean(const struct buildcache *bc, struct buildcache_items *removed,
		     struct buildcache_items *kept, struct strbuf *err);

void buildcache_items_release(struct buildcache_items *items);

#endif

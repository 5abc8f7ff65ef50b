/*
 * fsutil.h - temporary directories, and files written whole.
 *
 * make_temp_dir() returns a malloc'd path the caller frees; remove_tree()
 * deletes a directory and everything under it without following symlinks;
 * make_dirs() is mkdir -p; write_file_atomic() writes a file that is whole
 * or absent.  All return 0 or a negative errno.  Thread-safe (no shared
 * state).
 */
#ifndef PERFBOT_UTIL_FSUTIL_H
#define PERFBOT_UTIL_FSUTIL_H

#include <stdbool.h>
#include <stddef.h>

/*
 * mkdtemp("<base>/<prefix>.XXXXXX"); base NULL means this process's temp
 * root (util/lifetime.h) once lifetime_start() made it, else $TMPDIR,
 * else /tmp.
 */
int make_temp_dir(const char *base, const char *prefix, char **out);
int remove_tree(const char *path);
/* mkdir -p: path and every missing parent; -ENOTDIR when a part is a file. */
int make_dirs(const char *path);
/*
 * "dir/name", malloc'd (NULL: out of memory); no second '/' when dir
 * ends with one, so a path given as "DIR/" reads back as the user wrote it.
 */
char *path_join(const char *dir, const char *name);
/*
 * The last `lines` lines of the file at path (of its last FILE_TAIL_MAX
 * bytes: a build log's end), newlines and tabs as blanks, onto out; "..."
 * first when the part read began inside them.  Nothing when the file
 * cannot be read.
 */
#define FILE_TAIL_MAX 4096
struct strbuf;
void file_tail(const char *path, unsigned lines, struct strbuf *out);

/*
 * len bytes of data to path through tmp (NULL: "<path>.tmp") and a
 * rename: a reader sees the whole file or none, never a part, also after
 * a crash.  sync: fsync before the rename (a message handed on must
 * survive a power loss).  tmp is removed on failure.
 */
int write_file_atomic(const char *path, const char *tmp, const void *data, size_t len,
		      bool sync);

#endif

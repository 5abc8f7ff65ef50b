/*
 * fsutil.h - temporary directories.
 *
 * make_temp_dir() returns a malloc'd path the caller frees; remove_tree()
 * deletes a directory and everything under it without following symlinks;
 * make_dirs() is mkdir -p.
 * Both return 0 or a negative errno.  Thread-safe (no shared state).
 */
#ifndef PERFBOT_UTIL_FSUTIL_H
#define PERFBOT_UTIL_FSUTIL_H

/*
 * mkdtemp("<base>/<prefix>.XXXXXX"); base NULL means this process's temp
 * root (util/lifetime.h) once lifetime_start() made it, else $TMPDIR,
 * else /tmp.
 */
int make_temp_dir(const char *base, const char *prefix, char **out);
int remove_tree(const char *path);
/* mkdir -p: path and every missing parent; -ENOTDIR when a part is a file. */
int make_dirs(const char *path);

#endif

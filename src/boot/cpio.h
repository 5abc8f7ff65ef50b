/*
 * cpio.h - the "newc" cpio format (magic 070701) the kernel unpacks as an
 * initramfs, uncompressed: a writer of directories, regular files (from a
 * path or from memory), symlinks and device nodes, ending in TRAILER!!!;
 * and a reader of the entries' names, modes, sizes and device numbers
 * (for tests and checks; perfbot assumes no cpio binary).
 *
 * Each entry is a 110-byte header of 13 eight-digit hex fields, the name
 * with its NUL, padding to 4 bytes, the data, padding to 4 bytes.  Every
 * entry is owned by root (uid 0, gid 0), mtime 0, nlink 1 (2 for a
 * directory), a fresh inode number: the archive depends only on what was
 * put in it.  Names are written without a leading '/' ("init", "dev/console").
 *
 * Ownership: the writer owns the FILE it opened; cpio_writer_close()
 * writes the trailer and closes it.  The reader's entries own their names.
 * Errors: a negative errno, with the offending path in err.
 * Threading: one owner.
 */
#ifndef PERFBOT_BOOT_CPIO_H
#define PERFBOT_BOOT_CPIO_H

#include "util/strbuf.h"

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct cpio_writer {
	FILE *f;
	char *path;		/* the archive's, for messages */
	uint32_t ino;		/* the next inode number */
	uint64_t off;		/* bytes written */
};

/* Create (truncate) the archive at path. */
int cpio_writer_open(struct cpio_writer *w, const char *path, struct strbuf *err);
int cpio_add_dir(struct cpio_writer *w, const char *name, mode_t perm, struct strbuf *err);
int cpio_add_data(struct cpio_writer *w, const char *name, mode_t perm,
		  const void *data, size_t len, struct strbuf *err);
/* A regular file's content read from src (following symlinks). */
int cpio_add_file(struct cpio_writer *w, const char *name, mode_t perm,
		  const char *src, struct strbuf *err);
int cpio_add_symlink(struct cpio_writer *w, const char *name, const char *target,
		     struct strbuf *err);
/* A character device node (S_IFCHR), e.g. "dev/console", 5, 1. */
int cpio_add_chardev(struct cpio_writer *w, const char *name, mode_t perm,
		     unsigned major, unsigned minor, struct strbuf *err);
/* Write TRAILER!!! and close: 0, or the first write error. */
int cpio_writer_close(struct cpio_writer *w, struct strbuf *err);
/* Close and remove a half-written archive (after an error). */
void cpio_writer_abort(struct cpio_writer *w);

struct cpio_entry {
	char *name;
	uint32_t mode;		/* type and permissions */
	uint32_t size;		/* data bytes */
	uint32_t rdevmajor, rdevminor;
	uint64_t offset;	/* where the data starts in the archive */
};

struct cpio_listing {
	struct cpio_entry *v;	/* in archive order, the trailer not included */
	size_t n, cap;
	int trailer;		/* 1 when TRAILER!!! ended the archive */
};

/*
 * List the entries of an archive held in memory.  -EINVAL with the
 * offset and the problem in err for a bad magic, field, name or an
 * archive cut short; header and data alignment to 4 bytes is checked.
 */
int cpio_list(const void *buf, size_t len, struct cpio_listing *out, struct strbuf *err);
void cpio_listing_release(struct cpio_listing *l);

#endif

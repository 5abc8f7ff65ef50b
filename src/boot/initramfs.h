/*
 * initramfs.h - the initramfs of a guest run (docs/kernel-guest.md,
 * "The initramfs"): perfbot, the shared libraries its dynamic loader
 * needs, busybox (static) with the applet links /init uses, the atomic
 * job as /job.yaml, and an /init that mounts proc, sysfs, devtmpfs and
 * tmpfs on /dev/shm and /tmp, runs `perfbot guest-run /job.yaml` with its
 * output (the framed record) on /dev/hvc0 -- the console when there is no
 * hvc0 -- and ends with `reboot -f` (QEMU runs with -no-reboot).
 *
 * Libraries are found as ld.so finds them on Debian: the ELF's PT_INTERP
 * and DT_NEEDED entries read here (64-bit little-endian ELF), each name
 * looked up in the directories of initramfs_lib_dirs (or the caller's),
 * recursively, each library once; a symlink is followed and the file it
 * names stored under the name looked up.  DT_RUNPATH/DT_RPATH are not
 * read (Debian's packages do not use them).
 *
 * Ownership: the caller's strings stay the caller's; initramfs_deps()
 * fills a list the caller frees with initramfs_deps_release().
 * Errors: a negative errno with the missing or bad file named in err.
 * Threading: none shared.
 */
#ifndef PERFBOT_BOOT_INITRAMFS_H
#define PERFBOT_BOOT_INITRAMFS_H

#include "util/strbuf.h"

#include <stddef.h>

/* Debian's search order for x86-64, NULL-terminated. */
extern const char *const initramfs_lib_dirs[];

/* The busybox applets /init uses, linked to /bin/busybox. */
extern const char *const initramfs_applets[];

struct initramfs_spec {
	const char *perfbot;		/* the perfbot binary to copy (a path) */
	const char *busybox;		/* a static busybox (a path) */
	const char *job_text;		/* the atomic job, stored as /job.yaml */
	const char *const *lib_dirs;	/* NULL: initramfs_lib_dirs */
};

struct initramfs_dep {
	char *name;		/* the path the loader opens: "/lib64/ld-linux-x86-64.so.2" */
	char *source;		/* the file read for it (symlinks followed) */
};

struct initramfs_deps {
	struct initramfs_dep *v;
	size_t n, cap;
};

/*
 * The interpreter and every library `path` needs, recursively, each once,
 * the interpreter first.  A static binary has none (0, an empty list).
 */
int initramfs_deps(const char *path, const char *const *lib_dirs,
		   struct initramfs_deps *out, struct strbuf *err);
void initramfs_deps_release(struct initramfs_deps *d);

/* The /init script (a static string). */
const char *initramfs_init_script(void);

/* Write the cpio archive to out (removed again on error). */
int initramfs_build(const struct initramfs_spec *spec, const char *out,
		    struct strbuf *err);

#endif

/*
 * kconfig.h - kernel configurations merged as the kernel's own
 * scripts/kconfig/merge_config.sh merges them (docs/kernel.md): a base
 * (the .config a make target such as tinyconfig wrote, or a file) and
 * fragments on top, later lines winning, then the options perfbot's own
 * guest needs added last; after `make olddefconfig`, a check that every
 * one of those survived.
 *
 * The text this module reads and writes is a .config's: lines
 * "CONFIG_X=value" (y, m, n, a number, a "quoted string") and
 * "# CONFIG_X is not set"; every other line (comments, blanks) is
 * ignored, as merge_config.sh ignores it.  A fragment that sets an option
 * already set to another value redefines it: the later value wins and
 * the change is noted (merge_config.sh's "Value of CONFIG_X is redefined
 * by fragment") in struct kconfig's notes, one line each.
 *
 * This part is pure (text in, text out; no files, no processes): the
 * make steps are boot/kbuild.c's.
 *
 * Ownership: struct kconfig owns its entries and notes (kconfig_release()).
 * Functions return 0 or a negative errno (-EINVAL: a malformed line, with
 * err naming its source and line; -ENOMEM).  No global state; thread-safe.
 */
#ifndef PERFBOT_BOOT_KCONFIG_H
#define PERFBOT_BOOT_KCONFIG_H

#include "util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * The options perfbot's guest needs built in (names without CONFIG_),
 * NULL-terminated: a 64-bit SMP kernel with a serial and a virtio
 * console, an initramfs, ELF and script binaries, devtmpfs, proc, sysfs,
 * tmpfs, the syscalls perfbot and its benchmarks use (futex, SysV IPC,
 * POSIX timers, epoll, eventfd, AIO, file locks, sockets), perf events,
 * high resolution timers, and the KVM paravirtual guest.
 */
extern const char *const kconfig_guest_options[];

struct kconfig_entry {
	char *name;		/* "CONFIG_X" */
	char *value;		/* "y", "m", "\"text\"", "42"; NULL: is not set */
	char *source;		/* "<source>:<line>" of the line that set it */
};

struct kconfig {
	struct kconfig_entry *v;	/* in the order first set */
	size_t n, cap;
	struct strbuf notes;		/* redefinitions, one line each */
};

void kconfig_init(struct kconfig *c);
void kconfig_release(struct kconfig *c);

/*
 * Merge one line: "CONFIG_X=value", "CONFIG_X=n" (taken as not set) or
 * "# CONFIG_X is not set".  Anything else is -EINVAL with err set
 * ("<source>: not a config line: '<line>'"): a fragment written in a job
 * must be one of these.  source names where the line is (file:line).
 */
int kconfig_set_line(struct kconfig *c, const char *line, const char *source,
		     struct strbuf *err);

/*
 * Merge a whole .config or fragment text: config lines as above, other
 * lines ignored; a config line with a malformed value (an unterminated
 * string, an empty value, a bad name) is -EINVAL naming source:line.
 */
int kconfig_merge_text(struct kconfig *c, const char *text, const char *source,
		       struct strbuf *err);

/* kconfig_guest_options set to y (source "perfbot's guest"), last: they win. */
int kconfig_add_guest(struct kconfig *c, struct strbuf *err);

/* The entry of name ("CONFIG_X"), or NULL. */
const struct kconfig_entry *kconfig_get(const struct kconfig *c, const char *name);

/* The merged configuration as .config text, in order. */
int kconfig_write(const struct kconfig *c, struct strbuf *out);

/*
 * After `make olddefconfig`: final_text is the .config it wrote.  Every
 * guest option must be y in it; the ones that are not are listed in
 * *dropped (NULL-terminated, malloc'd names "CONFIG_X"; NULL when none;
 * free with kconfig_names_free()).  Every other option `wanted` set that
 * the final config does not have as asked is noted in notes
 * (merge_config.sh's "Value requested for CONFIG_X not in final
 * .config"), not an error: Kconfig's dependencies decided.
 */
int kconfig_check_final(const struct kconfig *wanted, const char *final_text,
			char ***dropped, struct strbuf *notes, struct strbuf *err);
void kconfig_names_free(char **names);

/*
 * The dependencies of symbol name (without CONFIG_) as a Kconfig file's
 * text declares them: the "depends on" expressions of its `config NAME`
 * or `menuconfig NAME` block joined with " && ", onto out.  false when the
 * file has no such block or it has no "depends on".
 */
bool kconfig_depends(const char *kconfig_text, const char *name, struct strbuf *out);

#endif

/*
 * initramfs.c - initramfs.h: a guest's initramfs, and the ELF reading
 * that finds the libraries perfbot's dynamic loader will open.
 */
#include "boot/initramfs.h"
#include "boot/cpio.h"
#include "util/vec.h"

#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const initramfs_lib_dirs[] = {
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
	"/lib64", "/usr/lib64", "/lib", "/usr/lib", NULL,
};

const char *const initramfs_applets[] = {
	"sh", "mount", "mkdir", "reboot", "cat", "echo", "ls", "dmesg",
	"sleep", "hostname", NULL,
};

static const char init_script[] =
	"#!/bin/sh\n"
	"# perfbot's guest /init (docs/kernel-guest.md): run the one job, send\n"
	"# its record framed on hvc0, reboot (QEMU runs with -no-reboot).\n"
	"export PATH=/bin HOME=/root TMPDIR=/tmp\n"
	"mount -t proc proc /proc\n"
	"mount -t sysfs sysfs /sys\n"
	"mount -t devtmpfs devtmpfs /dev\n"
	"mkdir -p /dev/shm\n"
	"mount -t tmpfs tmpfs /dev/shm\n"
	"mount -t tmpfs tmpfs /tmp\n"
	"out=/dev/hvc0\n"
	"[ -c $out ] || out=/dev/console\n"
	"echo \"perfbot-guest: job start, record on $out\"\n"
	"/bin/perfbot guest-run /job.yaml >$out\n"
	"echo \"perfbot-guest: guest-run exited $?\"\n"
	"reboot -f\n";

const char *initramfs_init_script(void)
{
	return init_script;
}

/* --- ELF: PT_INTERP and DT_NEEDED of a 64-bit little-endian file --- */

struct elf_info {
	char *interp;
	struct { char **v; size_t n, cap; } needed;
};

static void elf_info_release(struct elf_info *e)
{
	free(e->interp);
	for (size_t i = 0; i < e->needed.n; i++)
		free(e->needed.v[i]);
	vec_free(&e->needed);
}

static bool in_file(size_t size, uint64_t off, uint64_t len)
{
	return off <= size && len <= size - off;
}

/* The file offset of a virtual address, through the PT_LOAD segments. */
static bool vaddr_off(const Elf64_Phdr *ph, size_t nph, uint64_t vaddr, uint64_t *off)
{
	for (size_t i = 0; i < nph; i++)
		if (ph[i].p_type == PT_LOAD && vaddr >= ph[i].p_vaddr &&
		    vaddr - ph[i].p_vaddr < ph[i].p_filesz) {
			*off = ph[i].p_offset + (vaddr - ph[i].p_vaddr);
			return true;
		}
	return false;
}

static int bad_elf(struct strbuf *err, const char *path, const char *why)
{
	strbuf_setf(err, "%s: %s", path, why);
	return -ENOEXEC;
}

static int elf_read(const char *path, struct elf_info *out, struct strbuf *err)
{
	struct strbuf f = STRBUF_INIT;
	const Elf64_Ehdr *eh;
	const Elf64_Phdr *ph;
	const Elf64_Dyn *dyn = NULL;
	size_t ndyn = 0;
	uint64_t strtab = 0, strsz = 0, stroff;
	int ret;

	memset(out, 0, sizeof(*out));
	if ((ret = strbuf_read_file(&f, path, 1u << 30))) {
		strbuf_setf(err, "cannot read %s: %s", path, strerror(-ret));
		goto out;
	}
	ret = -ENOEXEC;
	eh = (const Elf64_Ehdr *)f.buf;
	if (f.len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG)) {
		bad_elf(err, path, "not an ELF file");
		goto out;
	}
	if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB) {
		bad_elf(err, path, "not a 64-bit little-endian ELF file");
		goto out;
	}
	if (eh->e_phentsize != sizeof(Elf64_Phdr) ||
	    !in_file(f.len, eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr)) ||
	    eh->e_phoff % 8) {
		bad_elf(err, path, "program headers outside the file");
		goto out;
	}
	ph = (const Elf64_Phdr *)(f.buf + eh->e_phoff);
	for (size_t i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_INTERP) {
			if (!in_file(f.len, ph[i].p_offset, ph[i].p_filesz) || !ph[i].p_filesz) {
				bad_elf(err, path, "PT_INTERP outside the file");
				goto out;
			}
			out->interp = strndup(f.buf + ph[i].p_offset, ph[i].p_filesz);
			if (!out->interp) {
				ret = -ENOMEM;
				goto out;
			}
		} else if (ph[i].p_type == PT_DYNAMIC) {
			if (!in_file(f.len, ph[i].p_offset, ph[i].p_filesz) || ph[i].p_offset % 8) {
				bad_elf(err, path, "PT_DYNAMIC outside the file");
				goto out;
			}
			dyn = (const Elf64_Dyn *)(f.buf + ph[i].p_offset);
			ndyn = ph[i].p_filesz / sizeof(Elf64_Dyn);
		}
	}
	for (size_t i = 0; i < ndyn && dyn[i].d_tag != DT_NULL; i++) {
		if (dyn[i].d_tag == DT_STRTAB)
			strtab = dyn[i].d_un.d_ptr;
		else if (dyn[i].d_tag == DT_STRSZ)
			strsz = dyn[i].d_un.d_val;
	}
	if (ndyn && (!vaddr_off(ph, eh->e_phnum, strtab, &stroff) ||
		     !in_file(f.len, stroff, strsz))) {
		bad_elf(err, path, "DT_STRTAB outside the file");
		goto out;
	}
	for (size_t i = 0; i < ndyn && dyn[i].d_tag != DT_NULL; i++) {
		char *name;

		if (dyn[i].d_tag != DT_NEEDED)
			continue;
		if (dyn[i].d_un.d_val >= strsz ||
		    !memchr(f.buf + stroff + dyn[i].d_un.d_val, '\0', strsz - dyn[i].d_un.d_val)) {
			bad_elf(err, path, "a DT_NEEDED name outside the string table");
			goto out;
		}
		name = strdup(f.buf + stroff + dyn[i].d_un.d_val);
		if (!name || vec_push(&out->needed, name)) {
			free(name);
			ret = -ENOMEM;
			goto out;
		}
	}
	ret = 0;
out:
	strbuf_release(&f);
	if (ret == -ENOMEM)
		strbuf_setf(err, "out of memory");
	if (ret)
		elf_info_release(out);
	return ret;
}

/* --- the loader's search --- */

static bool have(const struct initramfs_deps *d, const char *name)
{
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->v[i].name, name))
			return true;
	return false;
}

static int add_dep(struct initramfs_deps *d, const char *name, struct strbuf *err)
{
	char *real = realpath(name, NULL);
	struct initramfs_dep dep;

	if (!real) {
		int e = -errno;

		strbuf_setf(err, "cannot resolve %s: %s", name, strerror(-e));
		return e;
	}
	dep.name = strdup(name);
	dep.source = real;
	if (!dep.name || vec_push(d, dep)) {
		free(dep.name);
		free(real);
		strbuf_setf(err, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

static int deps_of(const char *path, const char *const *dirs, struct initramfs_deps *d,
		   unsigned depth, struct strbuf *err);

static int find_lib(const char *lib, const char *needed_by, const char *const *dirs,
		    struct initramfs_deps *d, unsigned depth, struct strbuf *err)
{
	struct strbuf p = STRBUF_INIT;
	int ret = -ENOENT;

	if (strchr(lib, '/')) {
		/* a name with a slash is a path, as ld.so takes it */
		strbuf_addstr(&p, lib);
		ret = access(p.buf, R_OK) ? -errno : 0;
	}
	for (size_t i = 0; ret && !strchr(lib, '/') && dirs[i]; i++) {
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/%s", dirs[i], lib);
		if (strbuf_error(&p)) {
			ret = -ENOMEM;
			break;
		}
		ret = access(p.buf, R_OK) ? -errno : 0;
	}
	if (ret == -ENOMEM)
		strbuf_setf(err, "out of memory");
	else if (ret)
		strbuf_setf(err, "library %s (needed by %s) not found in the loader's directories",
			    lib, needed_by);
	else if (!have(d, p.buf) && !(ret = add_dep(d, p.buf, err)))
		ret = deps_of(p.buf, dirs, d, depth + 1, err);
	strbuf_release(&p);
	return ret;
}

static int deps_of(const char *path, const char *const *dirs, struct initramfs_deps *d,
		   unsigned depth, struct strbuf *err)
{
	struct elf_info e;
	int ret;

	if (depth > 64) {
		strbuf_setf(err, "%s: libraries nested more than 64 deep", path);
		return -ELOOP;
	}
	if ((ret = elf_read(path, &e, err)))
		return ret;
	if (e.interp && !have(d, e.interp)) {
		if (access(e.interp, R_OK)) {
			ret = -errno;
			strbuf_setf(err, "the interpreter %s of %s: %s", e.interp, path,
				    strerror(-ret));
		} else {
			ret = add_dep(d, e.interp, err);
		}
	}
	for (size_t i = 0; !ret && i < e.needed.n; i++)
		ret = find_lib(e.needed.v[i], path, dirs, d, depth, err);
	elf_info_release(&e);
	return ret;
}

int initramfs_deps(const char *path, const char *const *lib_dirs,
		   struct initramfs_deps *out, struct strbuf *err)
{
	int ret;

	memset(out, 0, sizeof(*out));
	ret = deps_of(path, lib_dirs ? lib_dirs : initramfs_lib_dirs, out, 0, err);
	if (ret)
		initramfs_deps_release(out);
	return ret;
}

void initramfs_deps_release(struct initramfs_deps *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->v[i].name);
		free(d->v[i].source);
	}
	vec_free(d);
}

/* --- the archive --- */

struct dirset {
	char **v;
	size_t n, cap;
};

/* Every parent directory of name, once, before name. */
static int add_parents(struct cpio_writer *w, struct dirset *dirs, const char *name,
		       struct strbuf *err)
{
	char *copy = strdup(name);
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	for (char *s = copy + 1; !ret && (s = strchr(s, '/')); s++) {
		bool seen = false;
		char *d;

		*s = '\0';
		for (size_t i = 0; i < dirs->n && !seen; i++)
			seen = !strcmp(dirs->v[i], copy);
		if (!seen) {
			d = strdup(copy);
			if (!d || vec_push(dirs, d)) {
				free(d);
				ret = -ENOMEM;
			} else {
				ret = cpio_add_dir(w, copy, 0755, err);
			}
		}
		*s = '/';
	}
	free(copy);
	return ret;
}

static int file_mode(const char *path, mode_t *mode, struct strbuf *err)
{
	struct stat st;

	if (stat(path, &st)) {
		int e = -errno;

		strbuf_setf(err, "%s: %s", path, strerror(-e));
		return e;
	}
	if (!S_ISREG(st.st_mode)) {
		strbuf_setf(err, "%s: not a regular file", path);
		return -EINVAL;
	}
	*mode = st.st_mode & 0777;
	return 0;
}

static int build(struct cpio_writer *w, const struct initramfs_spec *s,
		 const struct initramfs_deps *deps, struct strbuf *err)
{
	static const char *const dirs[] = {
		"/bin", "/dev", "/proc", "/sys", "/tmp", "/root", "/etc", NULL,
	};
	struct dirset seen = { 0 };
	struct strbuf link = STRBUF_INIT;
	int ret = 0;

	for (size_t i = 0; !ret && dirs[i]; i++) {
		char *d = strdup(dirs[i]);

		if (!d || vec_push(&seen, d)) {
			free(d);
			ret = -ENOMEM;
		} else {
			ret = cpio_add_dir(w, dirs[i], i == 4 ? 01777 : 0755, err);
		}
	}
	if (!ret)
		ret = cpio_add_chardev(w, "/dev/console", 0600, 5, 1, err);
	if (!ret)
		ret = cpio_add_chardev(w, "/dev/null", 0666, 1, 3, err);
	if (!ret)
		ret = cpio_add_data(w, "/init", 0755, init_script, strlen(init_script), err);
	if (!ret)
		ret = cpio_add_data(w, "/job.yaml", 0644, s->job_text, strlen(s->job_text), err);
	if (!ret)
		ret = cpio_add_file(w, "/bin/perfbot", 0755, s->perfbot, err);
	if (!ret)
		ret = cpio_add_file(w, "/bin/busybox", 0755, s->busybox, err);
	for (size_t i = 0; !ret && initramfs_applets[i]; i++) {
		strbuf_reset(&link);
		strbuf_addf(&link, "/bin/%s", initramfs_applets[i]);
		ret = strbuf_error(&link) ? -ENOMEM : cpio_add_symlink(w, link.buf, "busybox", err);
	}
	for (size_t i = 0; !ret && i < deps->n; i++) {
		mode_t mode = 0644;
		size_t same = 0;

		/* a file already stored under another name is a link to it */
		while (same < i && strcmp(deps->v[same].source, deps->v[i].source))
			same++;
		if ((ret = add_parents(w, &seen, deps->v[i].name, err)))
			break;
		if (same < i)
			ret = cpio_add_symlink(w, deps->v[i].name, deps->v[same].name, err);
		else if (!(ret = file_mode(deps->v[i].source, &mode, err)))
			ret = cpio_add_file(w, deps->v[i].name, mode, deps->v[i].source, err);
	}
	for (size_t i = 0; i < seen.n; i++)
		free(seen.v[i]);
	vec_free(&seen);
	strbuf_release(&link);
	if (ret == -ENOMEM)
		strbuf_setf(err, "out of memory");
	return ret;
}

int initramfs_build(const struct initramfs_spec *s, const char *out, struct strbuf *err)
{
	struct initramfs_deps deps;
	struct cpio_writer w;
	struct elf_info bb;
	int ret;

	if (access(s->perfbot, R_OK)) {
		ret = -errno;
		strbuf_setf(err, "perfbot binary %s: %s", s->perfbot, strerror(-ret));
		return ret;
	}
	if (access(s->busybox, R_OK)) {
		ret = -errno;
		strbuf_setf(err, "busybox %s: %s (Debian: busybox-static)", s->busybox,
			    strerror(-ret));
		return ret;
	}
	/* a dynamic busybox would need its own libraries: refuse it */
	if ((ret = elf_read(s->busybox, &bb, err)))
		return ret;
	if (bb.interp || bb.needed.n) {
		strbuf_setf(err, "busybox %s is dynamically linked; a static one is needed"
			    " (Debian: busybox-static, /bin/busybox)", s->busybox);
		elf_info_release(&bb);
		return -EINVAL;
	}
	elf_info_release(&bb);
	if ((ret = initramfs_deps(s->perfbot, s->lib_dirs, &deps, err)))
		return ret;
	if (!(ret = cpio_writer_open(&w, out, err))) {
		ret = build(&w, s, &deps, err);
		if (ret)
			cpio_writer_abort(&w);
		else
			ret = cpio_writer_close(&w, err);
		if (ret)
			unlink(out);
	}
	initramfs_deps_release(&deps);
	return ret;
}

/*
 * cpio.c - cpio.h: newc archives for the initramfs.
 */
#include "boot/cpio.h"
#include "util/vec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NEWC_MAGIC "070701"
#define NEWC_HDR 110

static int fail(struct strbuf *err, int e, const char *what, const char *path)
{
	strbuf_setf(err, "%s %s: %s", what, path, strerror(-e));
	return e;
}

int cpio_writer_open(struct cpio_writer *w, const char *path, struct strbuf *err)
{
	memset(w, 0, sizeof(*w));
	w->path = strdup(path);
	if (!w->path)
		return fail(err, -ENOMEM, "cannot create", path);
	w->f = fopen(path, "wbe");
	if (!w->f) {
		int e = -errno;

		free(w->path);
		w->path = NULL;
		return fail(err, e, "cannot create", path);
	}
	w->ino = 1;
	return 0;
}

static int put(struct cpio_writer *w, const void *p, size_t n, struct strbuf *err)
{
	if (n && fwrite(p, 1, n, w->f) != n)
		return fail(err, -EIO, "cannot write", w->path);
	w->off += n;
	return 0;
}

static int pad4(struct cpio_writer *w, struct strbuf *err)
{
	static const char zero[4];

	return put(w, zero, (4 - w->off % 4) % 4, err);
}

static int header(struct cpio_writer *w, const char *name, uint32_t mode,
		  uint32_t size, unsigned major, unsigned minor, struct strbuf *err)
{
	char hdr[NEWC_HDR + 1];
	size_t namesize;
	int ret;

	while (*name == '/')
		name++;
	namesize = strlen(name) + 1;
	if (namesize == 1 || namesize > 4096) {
		strbuf_setf(err, "cpio: bad entry name '%s'", name);
		return -EINVAL;
	}
	snprintf(hdr, sizeof(hdr), NEWC_MAGIC
		 "%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		 strcmp(name, "TRAILER!!!") ? w->ino++ : 0, mode, 0u, 0u,
		 S_ISDIR(mode) ? 2u : 1u, 0u, size, 0u, 0u, major, minor,
		 (unsigned)namesize, 0u);
	if ((ret = put(w, hdr, NEWC_HDR, err)) || (ret = put(w, name, namesize, err)))
		return ret;
	return pad4(w, err);
}

int cpio_add_dir(struct cpio_writer *w, const char *name, mode_t perm, struct strbuf *err)
{
	return header(w, name, S_IFDIR | (perm & 07777), 0, 0, 0, err);
}

int cpio_add_data(struct cpio_writer *w, const char *name, mode_t perm,
		  const void *data, size_t len, struct strbuf *err)
{
	int ret;

	if (len > UINT32_MAX) {
		strbuf_setf(err, "cpio: %s is larger than 4 GiB", name);
		return -EFBIG;
	}
	if ((ret = header(w, name, S_IFREG | (perm & 07777), (uint32_t)len, 0, 0, err)) ||
	    (ret = put(w, data, len, err)))
		return ret;
	return pad4(w, err);
}

int cpio_add_file(struct cpio_writer *w, const char *name, mode_t perm,
		  const char *src, struct strbuf *err)
{
	struct strbuf data = STRBUF_INIT;
	int ret = strbuf_read_file(&data, src, UINT32_MAX);

	if (ret) {
		strbuf_release(&data);
		return fail(err, ret, "cannot read", src);
	}
	ret = cpio_add_data(w, name, perm, data.buf, data.len, err);
	strbuf_release(&data);
	return ret;
}

int cpio_add_symlink(struct cpio_writer *w, const char *name, const char *target,
		     struct strbuf *err)
{
	size_t len = strlen(target);
	int ret;

	if ((ret = header(w, name, S_IFLNK | 0777, (uint32_t)len, 0, 0, err)) ||
	    (ret = put(w, target, len, err)))
		return ret;
	return pad4(w, err);
}

int cpio_add_chardev(struct cpio_writer *w, const char *name, mode_t perm,
		     unsigned major, unsigned minor, struct strbuf *err)
{
	return header(w, name, S_IFCHR | (perm & 07777), 0, major, minor, err);
}

int cpio_writer_close(struct cpio_writer *w, struct strbuf *err)
{
	int ret = header(w, "TRAILER!!!", 0, 0, 0, 0, err);

	if (fclose(w->f) && !ret)
		ret = fail(err, -EIO, "cannot write", w->path);
	w->f = NULL;
	free(w->path);
	w->path = NULL;
	return ret;
}

void cpio_writer_abort(struct cpio_writer *w)
{
	if (w->f) {
		fclose(w->f);
		unlink(w->path);
	}
	free(w->path);
	w->f = NULL;
	w->path = NULL;
}

static int hex8(const char *s, uint32_t *out)
{
	uint32_t v = 0;

	for (int i = 0; i < 8; i++) {
		char c = s[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 :
			c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;

		if (d < 0)
			return -1;
		v = v << 4 | (uint32_t)d;
	}
	*out = v;
	return 0;
}

int cpio_list(const void *buf, size_t len, struct cpio_listing *out, struct strbuf *err)
{
	const char *b = buf;
	size_t off = 0;

	memset(out, 0, sizeof(*out));
	for (;;) {
		uint32_t f[13];
		struct cpio_entry e = { 0 };
		const char *name;

		if (off % 4) {
			strbuf_setf(err, "cpio: header at offset %zu not aligned to 4 bytes", off);
			return -EINVAL;
		}
		if (len - off < NEWC_HDR) {
			strbuf_setf(err, "cpio: archive cut short at offset %zu (no trailer)", off);
			return -EINVAL;
		}
		if (memcmp(b + off, NEWC_MAGIC, 6)) {
			strbuf_setf(err, "cpio: bad magic at offset %zu", off);
			return -EINVAL;
		}
		for (int i = 0; i < 13; i++)
			if (hex8(b + off + 6 + 8 * i, &f[i])) {
				strbuf_setf(err, "cpio: bad header field %d at offset %zu", i, off);
				return -EINVAL;
			}
		/* f: ino mode uid gid nlink mtime filesize devmajor devminor
		 * rdevmajor rdevminor namesize check */
		name = b + off + NEWC_HDR;
		if (f[11] > len - off - NEWC_HDR) {
			strbuf_setf(err, "cpio: archive cut short at offset %zu (in a name)", off);
			return -EINVAL;
		}
		if (!f[11] || name[f[11] - 1]) {
			strbuf_setf(err, "cpio: bad name at offset %zu", off);
			return -EINVAL;
		}
		off += NEWC_HDR + f[11];
		off += (4 - off % 4) % 4;
		if (!strcmp(name, "TRAILER!!!")) {
			out->trailer = 1;
			return 0;
		}
		if (off > len || f[6] > len - off) {
			strbuf_setf(err, "cpio: %s: data cut short", name);
			return -EINVAL;
		}
		e.name = strdup(name);
		e.mode = f[1];
		e.size = f[6];
		e.rdevmajor = f[9];
		e.rdevminor = f[10];
		e.offset = off;
		if (!e.name || vec_push(out, e)) {
			free(e.name);
			return -ENOMEM;
		}
		off += f[6];
		off += (4 - off % 4) % 4;
	}
}

void cpio_listing_release(struct cpio_listing *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].name);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

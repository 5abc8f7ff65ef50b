/*
 * kconfig.c - merging .config texts as merge_config.sh does (kconfig.h).
 */
#define _GNU_SOURCE
#include "boot/kconfig.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const kconfig_guest_options[] = {
	"64BIT", "SMP", "PRINTK", "PRINTK_TIME", "TTY", "SERIAL_8250",
	"SERIAL_8250_CONSOLE", "BLK_DEV_INITRD", "RD_GZIP", "BINFMT_ELF",
	"BINFMT_SCRIPT", "DEVTMPFS", "DEVTMPFS_MOUNT", "PROC_FS", "SYSFS",
	"FUTEX", "TMPFS", "SHMEM", "SYSVIPC", "POSIX_TIMERS", "EPOLL", "EVENTFD",
	"NET", "UNIX", "INET", "FILE_LOCKING", "AIO", "PERF_EVENTS",
	"HIGH_RES_TIMERS", "HYPERVISOR_GUEST", "PARAVIRT", "KVM_GUEST", "PCI",
	"VIRTIO_MENU", "VIRTIO", "VIRTIO_PCI", "VIRTIO_CONSOLE", "HVC_DRIVER",
	/* a WARN_ON or BUG says where, by name: dmesg.* stats (boot/dmesg.h) */
	"BUG", "DEBUG_BUGVERBOSE", "KALLSYMS",
	NULL,
};

#define GUEST_SOURCE "perfbot's guest"

void kconfig_init(struct kconfig *c)
{
	memset(c, 0, sizeof(*c));
	strbuf_init(&c->notes);
}

void kconfig_release(struct kconfig *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].name);
		free(c->v[i].value);
		free(c->v[i].source);
	}
	free(c->v);
	strbuf_release(&c->notes);
	memset(c, 0, sizeof(*c));
}

const struct kconfig_entry *kconfig_get(const struct kconfig *c, const char *name)
{
	for (size_t i = c->n; i-- > 0;)
		if (!strcmp(c->v[i].name, name))
			return &c->v[i];
	return NULL;
}

static bool same_value(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* "CONFIG_X=value" or "# CONFIG_X is not set" onto out */
static void put(struct strbuf *out, const char *name, const char *value)
{
	if (value)
		strbuf_addf(out, "%s=%s", name, value);
	else
		strbuf_addf(out, "# %s is not set", name);
}

/* name and value (NULL: not set) into c; a different earlier value is a note */
static int set(struct kconfig *c, const char *name, size_t name_len,
	       const char *value, size_t value_len, const char *source)
{
	struct kconfig_entry *e = NULL;
	char *n = strndup(name, name_len);
	char *v = value ? strndup(value, value_len) : NULL;
	char *s = strdup(source);

	if (!n || (value && !v) || !s)
		goto nomem;
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].name, n))
			e = &c->v[i];
	if (e) {
		if (!same_value(e->value, v)) {
			strbuf_addf(&c->notes, "%s: ", s);
			put(&c->notes, n, v);
			strbuf_addstr(&c->notes, " redefines ");
			put(&c->notes, e->name, e->value);
			strbuf_addf(&c->notes, " (%s)\n", e->source);
		}
		free(n);
		free(e->value);
		free(e->source);
		e->value = v;
		e->source = s;
		return strbuf_error(&c->notes) ? -ENOMEM : 0;
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		struct kconfig_entry *nv = realloc(c->v, cap * sizeof(*nv));

		if (!nv)
			goto nomem;
		c->v = nv;
		c->cap = cap;
	}
	c->v[c->n++] = (struct kconfig_entry){ .name = n, .value = v, .source = s };
	return 0;
nomem:
	free(n);
	free(v);
	free(s);
	return -ENOMEM;
}

/* Length of a symbol name "CONFIG_[A-Za-z0-9_]+" at s, 0 if none. */
static size_t name_len(const char *s)
{
	size_t n = strlen("CONFIG_");

	if (strncmp(s, "CONFIG_", n))
		return 0;
	while (isalnum((unsigned char)s[n]) || s[n] == '_')
		n++;
	return n > strlen("CONFIG_") ? n : 0;
}

/* A value as a .config holds it: a quoted string, or a plain word. */
static bool valid_value(const char *v, size_t len)
{
	if (!len)
		return false;
	if (*v == '"') {
		size_t i;

		for (i = 1; i < len; i++) {
			if (v[i] == '\\' && i + 1 < len)
				i++;
			else if (v[i] == '"')
				break;
		}
		return i == len - 1;
	}
	for (size_t i = 0; i < len; i++)
		if (isspace((unsigned char)v[i]) || v[i] == '"' || v[i] == '#')
			return false;
	return true;
}

/*
 * One line of len bytes.  1 when it is a config line (merged), 0 when it
 * is none (strict: -EINVAL), a negative errno.
 */
static int merge_line(struct kconfig *c, const char *line, size_t len,
		      const char *source, bool strict, struct strbuf *err)
{
	const char *p = line;
	size_t n;
	int ret;

	while (len && (line[len - 1] == '\r' || isspace((unsigned char)line[len - 1])))
		len--;
	if (len >= 2 && p[0] == '#' && p[1] == ' ') {
		static const char tail[] = " is not set";

		n = name_len(p + 2);
		if (n && len == 2 + n + strlen(tail) && !strncmp(p + 2 + n, tail, strlen(tail)))
			return (ret = set(c, p + 2, n, NULL, 0, source)) ? ret : 1;
		goto none;
	}
	n = name_len(p);
	if (!n)
		goto none;
	if (n >= len || p[n] != '=')
		goto bad;
	if (!valid_value(p + n + 1, len - n - 1))
		goto bad;
	if (len - n - 1 == 1 && p[n + 1] == 'n')
		ret = set(c, p, n, NULL, 0, source);
	else
		ret = set(c, p, n, p + n + 1, len - n - 1, source);
	return ret ? ret : 1;
none:
	if (!strict)
		return 0;
bad:
	strbuf_setf(err, "%s: not a config line (CONFIG_X=value or # CONFIG_X is not set): '%.*s'",
		    source, (int)len, line);
	return -EINVAL;
}

int kconfig_set_line(struct kconfig *c, const char *line, const char *source,
		     struct strbuf *err)
{
	int ret = merge_line(c, line, strlen(line), source, true, err);

	return ret < 0 ? ret : 0;
}

int kconfig_merge_text(struct kconfig *c, const char *text, const char *source,
		       struct strbuf *err)
{
	struct strbuf where = STRBUF_INIT;
	unsigned lineno = 0;
	int ret = 0;

	for (const char *p = text; *p && !ret;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		lineno++;
		strbuf_setf(&where, "%s:%u", source, lineno);
		if (strbuf_error(&where)) {
			ret = -ENOMEM;
			break;
		}
		/* only lines that look like config lines are checked */
		if (!strncmp(p, "CONFIG_", 7) || !strncmp(p, "# CONFIG_", 9))
			ret = merge_line(c, p, len, where.buf, !strncmp(p, "CONFIG_", 7), err);
		if (ret > 0)
			ret = 0;
		p = nl ? nl + 1 : p + len;
	}
	strbuf_release(&where);
	if (ret == -ENOMEM)
		strbuf_setf(err, "out of memory");
	return ret;
}

int kconfig_add_guest(struct kconfig *c, struct strbuf *err)
{
	for (size_t i = 0; kconfig_guest_options[i]; i++) {
		struct strbuf name = STRBUF_INIT;
		int ret;

		strbuf_addf(&name, "CONFIG_%s", kconfig_guest_options[i]);
		ret = strbuf_error(&name) ? -ENOMEM :
		      set(c, name.buf, name.len, "y", 1, GUEST_SOURCE);
		strbuf_release(&name);
		if (ret) {
			strbuf_setf(err, "out of memory");
			return ret;
		}
	}
	return 0;
}

int kconfig_write(const struct kconfig *c, struct strbuf *out)
{
	for (size_t i = 0; i < c->n; i++) {
		if (c->v[i].value)
			strbuf_addf(out, "%s=%s\n", c->v[i].name, c->v[i].value);
		else
			strbuf_addf(out, "# %s is not set\n", c->v[i].name);
	}
	return strbuf_error(out) ? -ENOMEM : 0;
}

void kconfig_names_free(char **names)
{
	if (!names)
		return;
	for (char **p = names; *p; p++)
		free(*p);
	free(names);
}

int kconfig_check_final(const struct kconfig *wanted, const char *final_text,
			char ***dropped, struct strbuf *notes, struct strbuf *err)
{
	struct kconfig fin;
	size_t nr = 0;
	char **list = NULL;
	int ret;

	*dropped = NULL;
	kconfig_init(&fin);
	ret = kconfig_merge_text(&fin, final_text, "the final .config", err);
	if (ret)
		goto out;
	for (size_t i = 0; kconfig_guest_options[i]; i++) {
		char name[128];
		const struct kconfig_entry *e;

		snprintf(name, sizeof(name), "CONFIG_%s", kconfig_guest_options[i]);
		e = kconfig_get(&fin, name);
		if (e && e->value && !strcmp(e->value, "y"))
			continue;
		char **nl = realloc(list, (nr + 2) * sizeof(*list));

		if (!nl || !(nl[nr] = strdup(name))) {
			list = nl ? nl : list;
			if (nl)
				nl[nr] = NULL;
			ret = -ENOMEM;
			goto out;
		}
		list = nl;
		list[++nr] = NULL;
	}
	for (size_t i = 0; i < wanted->n; i++) {
		const struct kconfig_entry *w = &wanted->v[i], *e;

		if (!strcmp(w->source, GUEST_SOURCE))
			continue;
		e = kconfig_get(&fin, w->name);
		if (same_value(e ? e->value : NULL, w->value))
			continue;
		put(notes, w->name, w->value);
		strbuf_addf(notes, " (%s) is not in the final .config: ", w->source);
		put(notes, w->name, e ? e->value : NULL);
		strbuf_addch(notes, '\n');
	}
	if (strbuf_error(notes))
		ret = -ENOMEM;
out:
	if (ret == -ENOMEM)
		strbuf_setf(err, "out of memory");
	if (ret)
		kconfig_names_free(list);
	else
		*dropped = list;
	kconfig_release(&fin);
	return ret;
}

/* Does the line (len bytes, blanks stripped at the start) open a block? */
static bool block_start(const char *p)
{
	static const char *const words[] = { "config", "menuconfig", "choice", "endchoice",
					     "menu", "endmenu", "if", "endif", "source",
					     "comment", "mainmenu" };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		size_t n = strlen(words[i]);

		if (!strncmp(p, words[i], n) && (isspace((unsigned char)p[n]) || !p[n]))
			return true;
	}
	return false;
}

bool kconfig_depends(const char *text, const char *name, struct strbuf *out)
{
	struct strbuf parts = STRBUF_INIT;
	size_t found = 0;
	bool in = false;

	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n'), *s = p;
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		const char *end = p + len;

		while (s < end && (*s == ' ' || *s == '\t'))
			s++;
		if (s < end && block_start(s)) {
			const char *w = s;

			in = false;
			if (!strncmp(w, "config", 6))
				w += 6;
			else if (!strncmp(w, "menuconfig", 10))
				w += 10;
			else
				w = NULL;
			if (w && w < end && isspace((unsigned char)*w)) {
				size_t n = strlen(name);

				while (w < end && isspace((unsigned char)*w))
					w++;
				if ((size_t)(end - w) >= n && !strncmp(w, name, n)) {
					const char *t = w + n;

					while (t < end && isspace((unsigned char)*t))
						t++;
					in = t == end;
				}
			}
		} else if (in && (size_t)(end - s) > 11 && !strncmp(s, "depends on", 10) &&
			   isspace((unsigned char)s[10])) {
			const char *e = s + 11;
			size_t n = (size_t)(end - e);

			while (n && isspace((unsigned char)e[n - 1]))
				n--;
			strbuf_add(&parts, e, n);
			strbuf_addch(&parts, '\n');
			found++;
		}
		p = nl ? nl + 1 : end;
	}
	/* several lines are one conjunction: each a term of its own */
	for (const char *q = parts.buf; found && *q;) {
		const char *nl = strchr(q, '\n');
		size_t n = (size_t)(nl - q);
		bool wrap = found > 1 && memchr(q, ' ', n);

		if (q != parts.buf)
			strbuf_addstr(out, " && ");
		strbuf_addf(out, wrap ? "(%.*s)" : "%.*s", (int)n, q);
		q = nl + 1;
	}
	strbuf_release(&parts);
	return found > 0;
}

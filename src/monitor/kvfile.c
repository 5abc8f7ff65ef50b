/* "name value" /proc files named once, read into arrays; see monitor_type.h. */
#include "monitor/monitor_type.h"
#include "monitor/parse.h"
#include "util/bug.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct collect {
	struct kvfile *kv;
	int err;
};

static void collect_name(void *arg, size_t idx, const char *name, size_t len,
			 uint64_t value)
{
	struct collect *c = arg;

	(void)value;
	if (c->err)
		return;
	/* the text counted at open, read again: its lines are the same */
	BUG_ON(idx >= c->kv->n);
	c->kv->names[idx] = strndup(name, len);
	if (!c->kv->names[idx])
		c->err = -ENOMEM;
}

static void count_line(void *arg, size_t idx, const char *name, size_t len,
		       uint64_t value)
{
	(void)arg, (void)idx, (void)name, (void)len, (void)value;
}

int kvfile_open(struct kvfile *kv, const char *path)
{
	struct collect c = { .kv = kv };
	int rc, n;

	kv->n = 0;
	kv->names = NULL;
	rc = procfile_open(&kv->pf, path);
	if (rc)
		return rc;
	n = mon_parse_kv(kv->pf.buf, count_line, NULL);
	if (n <= 0) {
		rc = -EPROTO;
		goto fail;
	}
	kv->names = calloc((size_t)n, sizeof(*kv->names));
	if (!kv->names) {
		rc = -ENOMEM;
		goto fail;
	}
	kv->n = (size_t)n;
	mon_parse_kv(kv->pf.buf, collect_name, &c);
	rc = c.err;
	if (rc)
		goto fail;
	return 0;
fail:
	kvfile_close(kv);
	return rc;
}

struct fill {
	const struct kvfile *kv;
	uint64_t *vals;
};

static bool same(const char *known, const char *name, size_t len)
{
	return !strncmp(known, name, len) && !known[len];
}

static void fill_value(void *arg, size_t idx, const char *name, size_t len,
		       uint64_t value)
{
	struct fill *f = arg;

	/* the kernel keeps the order: the linear search is for surprises */
	if (idx < f->kv->n && same(f->kv->names[idx], name, len)) {
		f->vals[idx] = value;
		return;
	}
	for (size_t i = 0; i < f->kv->n; i++) {
		if (same(f->kv->names[i], name, len)) {
			f->vals[i] = value;
			return;
		}
	}
}

int kvfile_read(struct kvfile *kv, uint64_t *vals)
{
	struct fill f = { .kv = kv, .vals = vals };
	int rc = procfile_read(&kv->pf);

	if (rc)
		return rc;
	return mon_parse_kv(kv->pf.buf, fill_value, &f) < 0 ? -EPROTO : 0;
}

void kvfile_close(struct kvfile *kv)
{
	procfile_close(&kv->pf);
	for (size_t i = 0; i < kv->n; i++)
		free(kv->names[i]);
	free(kv->names);
	kv->names = NULL;
	kv->n = 0;
}

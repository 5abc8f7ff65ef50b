/*
 * job.c - a job file's tree (yaml.c) checked, overridden and expanded
 * into atomic jobs.
 *
 * Every key whose value is a scalar or a sequence becomes a "dimension"
 * (a scalar is a dimension of one value), in file order; the atomic jobs
 * are the cartesian product of the dimensions.  The tree is kept to the
 * end so that each atomic job's text can be written in the order and
 * shape of the file it came from.
 */
#define _GNU_SOURCE
#include "job/job.h"
#include "job/merge.h"
#include "job/yaml.h"
#include "util/bug.h"
#include "util/parse.h"
#include "util/vec.h"
#include "util/words.h"

#include <ctype.h>
#include <errno.h>
#include <libgen.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OVERRIDE_FILE "<command line>"
/* far beyond any real matrix; a typo in a generated job must not eat RAM */
#define MAX_ATOMIC_JOBS 100000
#define MAX_REPEAT 1000000

enum generic_kind {
	G_STRING,	/* one value: suite, testcase, category, kpi */
	G_RECORDED,	/* recorded in the run; a list is a dimension */
	G_DURATION,	/* runtime, interval, timeout */
	G_REPEAT,
	G_LIST,		/* monitors, packages: a list, never a dimension */
	G_BUILD,	/* argv, or a string split like a shell */
	G_EXEC,		/* mapping: cmd, parse, paths */
	G_KERNEL,	/* mapping: config, fragments, boot, qemu, cmdline */
};

struct generic {
	const char *key;
	enum generic_kind kind;
};

static const struct generic generics[] = {
	{ "suite", G_STRING },
	{ "testcase", G_STRING },
	{ "category", G_STRING },
	{ "kpi", G_STRING },
	{ "runtime", G_DURATION },
	{ "interval", G_DURATION },
	{ "timeout", G_DURATION },
	{ "repeat", G_REPEAT },
	{ "monitors", G_LIST },
	{ "packages", G_LIST },
	{ "build", G_BUILD },
	{ "exec", G_EXEC },
	{ "cpufreq_governor", G_RECORDED },
	{ "ucode", G_RECORDED },
	{ "kconfig", G_RECORDED },
	{ "compiler", G_RECORDED },
	{ "rootfs", G_RECORDED },
	{ "kernel", G_KERNEL },
};

static const char *const exec_parsers[] = { "kv", "json", "gbench", "hyperfine", "time" };

struct dim {
	const char *key;
	const struct ynode *keynode;
	const struct ynode *node;	/* the value: scalar or sequence */
	const struct generic *g;	/* NULL for a benchmark parameter */
	bool identity;			/* in the name and params */
	size_t n;
};

struct loader {
	const char *path;
	struct job_error *err;
	struct ynode *root;
	struct dim *dims;
	size_t nr_dims, cap_dims;
	size_t nr_sections;
	const char *section;		/* the first section's name */
	const char *testcase;
	bool has_exec;
	/* the parts every atomic job shares */
	char **build;
	unsigned build_line, build_column;	/* where build: is written */
	bool has_monitors, has_packages;
	char **monitors, **packages;
	struct job_exec exec;
	const struct ynode *kernel_node;	/* the kernel: section as written */
	struct job_kernel kernel;
};

static const struct generic *find_generic(const char *key)
{
	for (size_t i = 0; i < sizeof(generics) / sizeof(generics[0]); i++)
		if (!strcmp(generics[i].key, key))
			return &generics[i];
	return NULL;
}

bool job_generic_key(const char *key)
{
	return find_generic(key) != NULL;
}

void job_error_init(struct job_error *err)
{
	strbuf_init(&err->file);
	strbuf_init(&err->msg);
	err->line = err->column = 0;
}

void job_error_release(struct job_error *err)
{
	strbuf_release(&err->file);
	strbuf_release(&err->msg);
	err->line = err->column = 0;
}

void job_error_vset(struct job_error *err, const char *file, unsigned line,
		    unsigned column, const char *fmt, va_list ap)
{
	strbuf_setf(&err->file, "%s", file ? file : "");
	err->line = line;
	err->column = column;
	strbuf_vsetf(&err->msg, fmt, ap);
	if (strbuf_error(&err->msg))
		strbuf_setf(&err->msg, "out of memory");
}

void job_error_set(struct job_error *err, const char *file, unsigned line,
		   unsigned column, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	job_error_vset(err, file, line, column, fmt, ap);
	va_end(ap);
}

static int fail(struct loader *l, const struct ynode *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* An error at a node; a node from -s names the override instead. */
static int fail(struct loader *l, const struct ynode *at, const char *fmt, ...)
{
	struct strbuf msg = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	if (at && at->origin)
		job_error_set(l->err, OVERRIDE_FILE, 0, 0, "%s: %s", at->origin, msg.buf);
	else
		job_error_set(l->err, l->path, at ? at->line : 0, at ? at->column : 0,
			      "%s", msg.buf);
	if (strbuf_error(&msg))
		strbuf_setf(&l->err->msg, "out of memory");
	strbuf_release(&msg);
	return -EINVAL;
}

static const struct ynode *dim_value(const struct dim *d, size_t i)
{
	return d->node->type == YNODE_SEQ ? d->node->items[i] : d->node;
}

static void free_argv(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

static char **dup_argv(char *const *v)
{
	size_t n = 0;
	char **copy;

	if (!v)
		return NULL;
	while (v[n])
		n++;
	copy = calloc(n + 1, sizeof(*copy));
	if (!copy)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		copy[i] = strdup(v[i]);
		if (!copy[i]) {
			free_argv(copy);
			return NULL;
		}
	}
	return copy;
}

/* ---- overrides (-s key=value): edit the tree before it is read ---- */

/* The value slot of key in map, or NULL. */
static struct ynode **map_slot(struct ynode *map, const char *key)
{
	for (size_t i = 0; i + 1 < map->n; i += 2)
		if (!strcmp(map->items[i]->scalar, key))
			return &map->items[i + 1];
	return NULL;
}

static bool is_section(const char *key, const struct ynode *v)
{
	return !find_generic(key) &&
	       (v->type == YNODE_MAP || (v->type == YNODE_SCALAR && v->null));
}

static int apply_override(struct loader *l, const char *ov)
{
	const char *eq = strchr(ov, '=');
	struct ynode **slot = NULL, *value = NULL, *key = NULL;
	char *name = NULL;
	int ret = -ENOMEM;

	if (!eq || eq == ov) {
		job_error_set(l->err, OVERRIDE_FILE, 0, 0,
			      "invalid override '%s' (expected -s key=value)", ov);
		return -EINVAL;
	}
	name = strndup(ov, eq - ov);
	value = ynode_scalar(eq + 1, 0, 0);
	if (!name || !value || asprintf(&value->origin, "-s %s", ov) < 0) {
		if (value)
			value->origin = NULL;
		goto out;
	}
	slot = map_slot(l->root, name);
	/* sections share the job's namespace, as in LKP */
	for (size_t i = 0; !slot && i + 1 < l->root->n; i += 2) {
		struct ynode *v = l->root->items[i + 1];

		if (v->type == YNODE_MAP && is_section(l->root->items[i]->scalar, v))
			slot = map_slot(v, name);
	}
	if (slot) {
		if ((*slot)->type == YNODE_MAP || is_section(name, *slot)) {
			ret = fail(l, value, "'%s' is a section, not a value", name);
			goto out;
		}
		/* a narrowed dimension stays part of the job's identity */
		value->was_list = (*slot)->type == YNODE_SEQ || (*slot)->was_list;
		ytree_free(*slot);
		*slot = value;
		value = NULL;
		ret = 0;
		goto out;
	}
	key = ynode_scalar(name, 0, 0);
	if (!key || !(key->origin = strdup(value->origin)))
		goto out;
	ret = ynode_append(l->root, key);
	key = NULL;
	if (!ret) {
		ret = ynode_append(l->root, value);
		value = NULL;
	}
out:
	ytree_free(key);
	ytree_free(value);
	free(name);
	return ret;
}

/* ---- reading the tree ---- */

static int add_dim(struct loader *l, const struct ynode *keynode,
		   struct ynode *node, const struct generic *g, bool identity)
{
	struct dim *d;

	/* a key in two places is found by check_dims(), after all are read */
	if (vec_reserve_((void **)&l->dims, &l->cap_dims, l->nr_dims + 1, sizeof(*l->dims)))
		return -ENOMEM;
	d = &l->dims[l->nr_dims];
	d->key = keynode->scalar;
	d->keynode = keynode;
	d->node = node;
	d->g = g;
	d->identity = identity;
	d->n = node->type == YNODE_SEQ ? node->n : 1;
	node->dim = (int)l->nr_dims++;
	return 0;
}

/*
 * The shape of a dimension: a non-empty scalar, or a non-empty list.  Its
 * items are checked by check_items(), after the size of the matrix.
 */
static int check_values(struct loader *l, const char *key, const struct ynode *v)
{
	if (v->type == YNODE_MAP)
		return fail(l, v, "'%s' must be a value or a list of values, not a mapping",
			    key);
	if (v->type == YNODE_SCALAR)
		return v->null ? fail(l, v, "'%s' needs a value", key) : 0;
	if (!v->n)
		return fail(l, v, "empty matrix dimension '%s'", key);
	return 0;
}

/* A list's items: plain, non-empty and distinct (by sorting: n log n). */
static int check_items(struct loader *l, const char *key, const struct ynode *v)
{
	const char **s;
	size_t dup, earlier = 0;

	if (v->type != YNODE_SEQ)
		return 0;
	for (size_t i = 0; i < v->n; i++) {
		const struct ynode *e = v->items[i];

		if (e->type != YNODE_SCALAR)
			return fail(l, e, "the values of '%s' must be plain values, not %s",
				    key, e->type == YNODE_MAP ? "mappings" : "lists");
		if (e->null)
			return fail(l, e, "empty value in matrix dimension '%s'", key);
	}
	s = malloc(v->n * sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < v->n; i++)
		s[i] = v->items[i]->scalar;
	dup = first_duplicate(s, v->n, &earlier);
	free(s);
	if (dup == (size_t)-1)
		return -ENOMEM;
	if (dup < v->n)
		return fail(l, v->items[dup], "duplicate value '%s' in matrix dimension '%s'",
			    v->items[dup]->scalar, key);
	return 0;
}

/* A duration or repeat value, by the number grammar of util/parse.h. */
static int check_generic_value(struct loader *l, const struct generic *g,
			       const struct ynode *v)
{
	unsigned long n;
	double s;

	switch (g->kind) {
	case G_DURATION:
		switch (parse_duration(v->scalar, &s)) {
		case PARSE_OK:
			break;
		case PARSE_TOO_LARGE:
			return fail(l, v, "%s '%s' is more than 30 days", g->key, v->scalar);
		default:
			return fail(l, v, "%s '%s' is not a duration (%s)", g->key,
				    v->scalar, PARSE_RULE_DURATION);
		}
		if (!(s > 0))
			return fail(l, v, "'%s' must be more than 0, not '%s'",
				    g->key, v->scalar);
		return 0;
	case G_REPEAT:
		switch (parse_ulong(v->scalar, 1, MAX_REPEAT, &n)) {
		case PARSE_OK:
			return 0;
		case PARSE_TOO_LARGE:
			return fail(l, v, "%s '%s' is more than %d", g->key, v->scalar,
				    MAX_REPEAT);
		case PARSE_TOO_SMALL:
			return fail(l, v, "'%s' must be at least 1, not '%s'", g->key,
				    v->scalar);
		default:
			return fail(l, v, "%s '%s' is not a whole number (%s)", g->key,
				    v->scalar, PARSE_RULE_INTEGER);
		}
	default:
		return 0;
	}
}

/* A list of names: a scalar alone is a list of one; null is empty. */
static int read_list(struct loader *l, const struct ynode *k,
		     const struct ynode *v, char ***out)
{
	size_t n = v->type == YNODE_SEQ ? v->n : (v->null ? 0 : 1);
	char **list;

	if (v->type == YNODE_MAP)
		return fail(l, v, "'%s' must be a list of names, not a mapping",
			    k->scalar);
	list = calloc(n + 1, sizeof(*list));
	if (!list)
		return -ENOMEM;
	*out = list;
	for (size_t i = 0; i < n; i++) {
		const struct ynode *e = v->type == YNODE_SEQ ? v->items[i] : v;

		if (e->type != YNODE_SCALAR || e->null)
			return fail(l, e, "the items of '%s' must be plain names",
				    k->scalar);
		list[i] = strdup(e->scalar);
		if (!list[i])
			return -ENOMEM;
	}
	return 0;
}

/* A command: a list of words, or a string split as a shell would. */
static int read_argv(struct loader *l, const struct ynode *k,
		     const struct ynode *v, char ***out)
{
	int ret;

	if (v->type == YNODE_SCALAR && !v->null) {
		ret = split_words(v->scalar, out);
		if (ret == -EINVAL)
			return fail(l, v, "invalid '%s' command: unterminated quote or trailing backslash",
				    k->scalar);
		if (ret < 0)
			return ret;
		if (ret == 0)
			return fail(l, v, "empty '%s' command", k->scalar);
		return 0;
	}
	if (v->type == YNODE_MAP)
		return fail(l, v, "'%s' must be a command (a list of words or a string), not a mapping",
			    k->scalar);
	ret = read_list(l, k, v, out);
	if (!ret && !**out)
		return fail(l, v, "empty '%s' command", k->scalar);
	return ret;
}

static int read_exec(struct loader *l, const struct ynode *k, const struct ynode *v)
{
	const struct ynode *cmd = NULL, *parse = NULL, *paths = NULL, *paths_key = NULL;
	const struct ynode *cmd_key = NULL;
	int ret;

	if (v->type != YNODE_MAP)
		return fail(l, v, "'exec' must be a mapping (cmd:, parse:, paths:)");
	for (size_t i = 0; i < v->n; i += 2) {
		const struct ynode *ek = v->items[i], *ev = v->items[i + 1];

		if (!strcmp(ek->scalar, "cmd")) {
			cmd_key = ek;
			cmd = ev;
		} else if (!strcmp(ek->scalar, "parse")) {
			parse = ev;
		} else if (!strcmp(ek->scalar, "paths")) {
			paths_key = ek;
			paths = ev;
		} else {
			return fail(l, ek, "unknown key '%s' in exec (expected cmd, parse or paths)",
				    ek->scalar);
		}
	}
	if (!cmd)
		return fail(l, k, "exec needs cmd: (the command as a list of words)");
	ret = read_argv(l, cmd_key, cmd, &l->exec.argv);
	if (ret)
		return ret;
	if (parse) {
		size_t i, n = sizeof(exec_parsers) / sizeof(exec_parsers[0]);

		if (parse->type != YNODE_SCALAR || parse->null)
			return fail(l, parse, "'parse' must be one of kv, json, gbench, hyperfine, time");
		for (i = 0; i < n && strcmp(exec_parsers[i], parse->scalar); i++)
			;
		if (i == n)
			return fail(l, parse, "invalid parse '%s' (expected kv, json, gbench, hyperfine or time)",
				    parse->scalar);
	}
	l->exec.parse = strdup(parse ? parse->scalar : "time");
	if (!l->exec.parse)
		return -ENOMEM;
	if (!paths)
		return 0;
	if (strcmp(l->exec.parse, "json"))
		return fail(l, paths_key, "'paths' is only for parse: json");
	if (paths->type != YNODE_MAP)
		return fail(l, paths, "'paths' must be a mapping of stat names to json paths");
	for (size_t i = 0; i < paths->n; i += 2) {
		const struct ynode *pv = paths->items[i + 1];

		if (pv->type != YNODE_SCALAR || pv->null)
			return fail(l, pv, "the json path of '%s' must be a plain value",
				    paths->items[i]->scalar);
		if (strmap_set(&l->exec.paths, paths->items[i]->scalar, pv->scalar))
			return -ENOMEM;
	}
	return 0;
}

/* ---- the kernel: section (docs/kernel.md) ---- */

static const char *const kernel_keys[] = { "config", "fragments", "boot", "qemu",
					   "cmdline", NULL };
static const char *const qemu_keys[] = { "cpus", "memory", "accel", "args", NULL };
static const char *const boot_names[] = { "qemu", "kexec", NULL };
static const char *const accel_names[] = { "auto", "kvm", "tcg", NULL };
/* config targets that ask questions or need a running system's state */
static const char *const interactive_targets[] = { "config", "menuconfig", "nconfig",
						   "xconfig", "gconfig", "oldconfig",
						   "syncconfig", NULL };

const char *job_boot_name(enum job_boot boot)
{
	return boot_names[boot];
}

const char *job_accel_name(enum job_accel accel)
{
	return accel_names[accel];
}

static void kernel_release(struct job_kernel *k)
{
	free(k->config);
	free_argv(k->fragments);
	free(k->qemu_memory);
	free_argv(k->qemu_args);
	free(k->cmdline);
	memset(k, 0, sizeof(*k));
}

static int kernel_copy(struct job_kernel *dst, const struct job_kernel *src)
{
	*dst = *src;
	dst->config = dst->qemu_memory = dst->cmdline = NULL;
	dst->fragments = dst->qemu_args = NULL;
	if ((src->config && !(dst->config = strdup(src->config))) ||
	    (src->fragments && !(dst->fragments = dup_argv(src->fragments))) ||
	    (src->qemu_memory && !(dst->qemu_memory = strdup(src->qemu_memory))) ||
	    (src->qemu_args && !(dst->qemu_args = dup_argv(src->qemu_args))) ||
	    (src->cmdline && !(dst->cmdline = strdup(src->cmdline))))
		return -ENOMEM;
	return 0;
}

/* The index of v in names (NULL-terminated), or an error with a suggestion. */
static int pick(struct loader *l, const struct ynode *v, const char *what,
		const char *const *names, int *out)
{
	const char *near;
	struct strbuf all = STRBUF_INIT;
	int ret;

	if (v->type != YNODE_SCALAR || v->null)
		return fail(l, v, "'%s' must be one of a list of names, given as one value", what);
	for (int i = 0; names[i]; i++)
		if (!strcmp(names[i], v->scalar)) {
			*out = i;
			return 0;
		}
	for (int i = 0; names[i]; i++)
		strbuf_addf(&all, "%s%s", i ? ", " : "", names[i]);
	near = suggest_nearest(v->scalar, names);
	if (near)
		ret = fail(l, v, "unknown %s '%s' (did you mean '%s'? expected %s)", what,
			   v->scalar, near, all.buf);
	else
		ret = fail(l, v, "unknown %s '%s' (expected %s)", what, v->scalar, all.buf);
	strbuf_release(&all);
	return ret;
}

static int unknown_key(struct loader *l, const struct ynode *k, const char *where,
		       const char *const *names)
{
	const char *near = suggest_nearest(k->scalar, names);
	struct strbuf all = STRBUF_INIT;
	int ret;

	for (int i = 0; names[i]; i++)
		strbuf_addf(&all, "%s%s", i ? ", " : "", names[i]);
	if (near)
		ret = fail(l, k, "unknown key '%s' in %s (did you mean '%s'? expected %s)",
			   k->scalar, where, near, all.buf);
	else
		ret = fail(l, k, "unknown key '%s' in %s (expected %s)", k->scalar, where,
			   all.buf);
	strbuf_release(&all);
	return ret;
}

static int need_scalar(struct loader *l, const struct ynode *v, const char *what)
{
	if (v->type != YNODE_SCALAR)
		return fail(l, v, "'%s' must be a single value, not a %s", what,
			    v->type == YNODE_SEQ ? "list" : "mapping");
	if (v->null || !*v->scalar)
		return fail(l, v, "'%s' needs a value", what);
	return 0;
}

/* name relative to the job file's directory (absolute stays), readable. */
static int job_relative_file(struct loader *l, const struct ynode *v, const char *what,
			     char **out)
{
	char *copy = strdup(l->path), *dir, *abs = NULL;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	dir = dirname(copy);
	if (v->scalar[0] == '/' ? !(abs = strdup(v->scalar)) :
	    asprintf(&abs, "%s/%s", dir, v->scalar) < 0) {
		free(copy);
		return -ENOMEM;
	}
	free(copy);
	if (access(abs, R_OK))
		ret = fail(l, v, "%s '%s' cannot be read (%s): %s", what, v->scalar, abs,
			   strerror(errno));
	if (ret)
		free(abs);
	else
		*out = abs;
	return ret;
}

/* A name a make config target can have: tinyconfig, x86_64_defconfig, kvm_guest.config */
static bool target_shaped(const char *s)
{
	size_t n = strlen(s);

	for (const char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_.-", *p))
			return false;
	return n >= 6 && !strcmp(s + n - 6, "config") && s[0] != '.' && s[0] != '-';
}

/* Whether name is a file in the job file's directory. */
static bool beside_job(const struct loader *l, const char *name)
{
	char *copy = strdup(l->path), *path = NULL;
	bool yes;

	if (!copy)
		return false;
	yes = asprintf(&path, "%s/%s", dirname(copy), name) >= 0 && !access(path, F_OK);
	free(copy);
	free(path);
	return yes;
}

static int read_kernel_config(struct loader *l, const struct ynode *v)
{
	struct job_kernel *kc = &l->kernel;
	int ret = need_scalar(l, v, "config");

	if (ret)
		return ret;
	if (!strncmp(v->scalar, "tree:", 5)) {
		const char *path = v->scalar + 5;

		if (!*path || *path == '/' || !strcmp(path, "..") || !strncmp(path, "../", 3) ||
		    strstr(path, "/../") || (strlen(path) >= 3 &&
					     !strcmp(path + strlen(path) - 3, "/..")))
			return fail(l, v, "config '%s': tree:PATH needs a relative path inside the kernel tree",
				    v->scalar);
		kc->config_kind = JOB_KCONFIG_TREE;
		return (kc->config = strdup(path)) ? 0 : -ENOMEM;
	}
	/* a file beside the job first: base.config is a file there, a target elsewhere */
	if (!strchr(v->scalar, '/') && target_shaped(v->scalar) && !beside_job(l, v->scalar)) {
		for (size_t i = 0; interactive_targets[i]; i++)
			if (!strcmp(v->scalar, interactive_targets[i]))
				return fail(l, v, "config '%s' is an interactive make target; use a non-interactive one (tinyconfig, defconfig, allnoconfig, ...) or a file",
					    v->scalar);
		kc->config_kind = JOB_KCONFIG_TARGET;
		return (kc->config = strdup(v->scalar)) ? 0 : -ENOMEM;
	}
	kc->config_kind = JOB_KCONFIG_FILE;
	return job_relative_file(l, v, "config file", &kc->config);
}

/* "CONFIG_X=value" or "# CONFIG_X is not set" (the check boot/kconfig.c repeats) */
static bool config_line(const char *s)
{
	const char *p = s;
	bool not_set = !strncmp(p, "# ", 2);

	if (not_set)
		p += 2;
	if (strncmp(p, "CONFIG_", 7))
		return false;
	p += 7;
	if (!isalnum((unsigned char)*p) && *p != '_')
		return false;
	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	if (not_set)
		return !strcmp(p, " is not set");
	return *p == '=' && p[1] && !isspace((unsigned char)p[1]);
}

static int read_kernel_fragments(struct loader *l, const struct ynode *v)
{
	size_t n = v->type == YNODE_SEQ ? v->n : 1;
	char **list;

	if (v->type == YNODE_MAP)
		return fail(l, v, "'fragments' must be a list of CONFIG_ lines or fragment files, not a mapping");
	if (v->type == YNODE_SCALAR && v->null)
		return fail(l, v, "'fragments' needs a value");
	list = calloc(n + 1, sizeof(*list));
	if (!list)
		return -ENOMEM;
	l->kernel.fragments = list;
	for (size_t i = 0; i < n; i++) {
		const struct ynode *e = v->type == YNODE_SEQ ? v->items[i] : v;
		int ret = need_scalar(l, e, "fragments");

		if (ret)
			return ret;
		if (!strncmp(e->scalar, "CONFIG_", 7) || !strncmp(e->scalar, "# CONFIG_", 9) ||
		    !strncmp(e->scalar, "#CONFIG_", 8)) {
			if (!config_line(e->scalar))
				return fail(l, e, "fragment '%s' is not a config line (CONFIG_X=value, or \"# CONFIG_X is not set\" quoted)",
					    e->scalar);
			if (!(list[i] = strdup(e->scalar)))
				return -ENOMEM;
			continue;
		}
		ret = job_relative_file(l, e, "fragment file", &list[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/* QEMU's -m: digits with an optional K, M, G or T (either case), not 0. */
static bool memory_size(const char *s)
{
	const char *p = s;
	bool nonzero = false;

	while (isdigit((unsigned char)*p))
		nonzero |= *p++ != '0';
	if (p == s || p - s > 12 || !nonzero)
		return false;
	if (*p && strchr("kKmMgGtT", *p))
		p++;
	return !*p;
}

static int read_kernel_qemu(struct loader *l, const struct ynode *v)
{
	struct job_kernel *kc = &l->kernel;
	int ret = 0, i;

	if (v->type != YNODE_MAP)
		return fail(l, v, "'qemu' must be a mapping (cpus:, memory:, accel:, args:)");
	for (size_t j = 0; !ret && j < v->n; j += 2) {
		const struct ynode *qk = v->items[j], *qv = v->items[j + 1];
		unsigned long n;

		if (!strcmp(qk->scalar, "cpus")) {
			if ((ret = need_scalar(l, qv, "cpus")))
				break;
			if (parse_ulong(qv->scalar, 1, JOB_QEMU_MAX_CPUS, &n) != PARSE_OK)
				ret = fail(l, qv, "cpus '%s' is not a whole number from 1 to %d",
					   qv->scalar, JOB_QEMU_MAX_CPUS);
			else
				kc->qemu_cpus = (unsigned)n;
		} else if (!strcmp(qk->scalar, "memory")) {
			if ((ret = need_scalar(l, qv, "memory")))
				break;
			if (!memory_size(qv->scalar))
				ret = fail(l, qv, "memory '%s' is not a size (digits with an optional K, M, G or T: 1G, 512M)",
					   qv->scalar);
			else if (!(kc->qemu_memory = strdup(qv->scalar)))
				ret = -ENOMEM;
		} else if (!strcmp(qk->scalar, "accel")) {
			if (!(ret = pick(l, qv, "accel", accel_names, &i)))
				kc->accel = (enum job_accel)i;
		} else if (!strcmp(qk->scalar, "args")) {
			ret = read_argv(l, qk, qv, &kc->qemu_args);
		} else {
			ret = unknown_key(l, qk, "kernel: qemu", qemu_keys);
		}
	}
	return ret;
}

static int read_kernel(struct loader *l, const struct ynode *k, const struct ynode *v)
{
	struct job_kernel *kc = &l->kernel;
	const struct ynode *config = NULL;
	int ret = 0, i;

	if (v->type != YNODE_MAP)
		return fail(l, v->null ? k : v, "'kernel' must be a mapping (config:, fragments:, boot:, qemu:, cmdline:)");
	kc->present = true;
	kc->line = k->line;
	kc->column = k->column;
	kc->qemu_cpus = JOB_QEMU_CPUS_DEFAULT;
	l->kernel_node = v;
	for (size_t j = 0; !ret && j < v->n; j += 2) {
		const struct ynode *sk = v->items[j], *sv = v->items[j + 1];

		if (!strcmp(sk->scalar, "config")) {
			config = sv;
			ret = read_kernel_config(l, sv);
		} else if (!strcmp(sk->scalar, "fragments")) {
			ret = read_kernel_fragments(l, sv);
		} else if (!strcmp(sk->scalar, "boot")) {
			if (!(ret = pick(l, sv, "boot", boot_names, &i)))
				kc->boot = (enum job_boot)i;
		} else if (!strcmp(sk->scalar, "qemu")) {
			ret = read_kernel_qemu(l, sv);
		} else if (!strcmp(sk->scalar, "cmdline")) {
			if (!(ret = need_scalar(l, sv, "cmdline")) && !(kc->cmdline = strdup(sv->scalar)))
				ret = -ENOMEM;
		} else {
			ret = unknown_key(l, sk, "kernel", kernel_keys);
		}
	}
	if (!ret && !config)
		ret = fail(l, k, "kernel needs config: (a make target such as tinyconfig or defconfig, a .config file beside the job, or tree:PATH)");
	if (!ret && !kc->qemu_memory && !(kc->qemu_memory = strdup(JOB_QEMU_MEMORY_DEFAULT)))
		ret = -ENOMEM;
	return ret;
}

static int read_generic(struct loader *l, const struct ynode *k, struct ynode *v,
			const struct generic *g, const char *section)
{
	int ret;

	if (section && g->kind >= G_LIST)
		return fail(l, k, "'%s' belongs at the top level, not in section '%s'",
			    g->key, section);
	switch (g->kind) {
	case G_STRING:
		if (v->type != YNODE_SCALAR)
			return fail(l, v, "'%s' must be a single value, not a %s",
				    g->key, v->type == YNODE_SEQ ? "list" : "mapping");
		if (v->null)
			return fail(l, v, "'%s' needs a value", g->key);
		if (!strcmp(g->key, "testcase"))
			l->testcase = v->scalar;
		return add_dim(l, k, v, g, false);
	case G_RECORDED:
	case G_DURATION:
	case G_REPEAT:
		ret = check_values(l, g->key, v);
		if (ret)
			return ret;
		return add_dim(l, k, v, g, v->type == YNODE_SEQ || v->was_list);
	case G_LIST:
		if (!strcmp(g->key, "monitors")) {
			l->has_monitors = true;
			return read_list(l, k, v, &l->monitors);
		}
		l->has_packages = true;
		return read_list(l, k, v, &l->packages);
	case G_BUILD:
		l->build_line = k->line;
		l->build_column = k->column;
		return read_argv(l, k, v, &l->build);
	case G_EXEC:
		if (v->origin)
			return fail(l, v, "'exec' cannot be set with -s");
		l->has_exec = true;
		return read_exec(l, k, v);
	case G_KERNEL:
		if (v->origin)
			return fail(l, v, "'kernel' cannot be set with -s");
		return read_kernel(l, k, v);
	}
	return 0;
}

static int read_param(struct loader *l, const struct ynode *k, struct ynode *v)
{
	int ret = check_values(l, k->scalar, v);

	return ret ? ret : add_dim(l, k, v, NULL, true);
}

static int read_section(struct loader *l, const struct ynode *k, struct ynode *v)
{
	int ret = 0;

	if (!l->nr_sections++)
		l->section = k->scalar;
	if (v->type != YNODE_MAP)
		return 0;
	for (size_t i = 0; !ret && i < v->n; i += 2) {
		const struct ynode *sk = v->items[i];
		struct ynode *sv = v->items[i + 1];
		const struct generic *g = find_generic(sk->scalar);

		if (g)
			ret = read_generic(l, sk, sv, g, k->scalar);
		else if (sv->type == YNODE_MAP)
			ret = fail(l, sk, "'%s' in section '%s' is a mapping; sections do not nest",
				   sk->scalar, k->scalar);
		else
			ret = read_param(l, sk, sv);
	}
	return ret;
}

static int read_job(struct loader *l)
{
	int ret = 0;

	for (size_t i = 0; !ret && i < l->root->n; i += 2) {
		const struct ynode *k = l->root->items[i];
		struct ynode *v = l->root->items[i + 1];
		const struct generic *g = find_generic(k->scalar);

		if (!*k->scalar)
			ret = fail(l, k, "empty key");
		else if (g)
			ret = read_generic(l, k, v, g, NULL);
		else if (is_section(k->scalar, v))
			ret = read_section(l, k, v);
		else
			ret = read_param(l, k, v);
	}
	if (ret)
		return ret;
	if (l->testcase)
		return 0;
	if (l->nr_sections == 1)
		l->testcase = l->section;
	else if (l->nr_sections > 1)
		return fail(l, l->root, "no testcase: %zu sections, say which with testcase:",
			    l->nr_sections);
	else if (l->has_exec)
		l->testcase = "exec";
	else
		return fail(l, l->root, "no testcase: say testcase: or give a benchmark section");
	return 0;
}

/*
 * The size of the matrix first, before any check that grows with the
 * number of values: the product of the dimensions' sizes, multiplied
 * without overflow.  *total is the number of atomic jobs.
 */
static int check_size(struct loader *l, size_t *total)
{
	size_t t = 1;

	for (size_t i = 0; i < l->nr_dims; i++) {
		if (t > MAX_ATOMIC_JOBS / l->dims[i].n) {
			job_error_set(l->err, l->path, 0, 0,
				      "the matrix has more than %d atomic jobs", MAX_ATOMIC_JOBS);
			return -E2BIG;
		}
		t *= l->dims[i].n;
	}
	*total = t;
	return 0;
}

/* Every key once (across sections), then every dimension's values. */
static int check_dims(struct loader *l)
{
	const char **keys = malloc((l->nr_dims ? l->nr_dims : 1) * sizeof(*keys));
	size_t dup, earlier = 0;
	int ret = 0;

	if (!keys)
		return -ENOMEM;
	for (size_t i = 0; i < l->nr_dims; i++)
		keys[i] = l->dims[i].key;
	dup = first_duplicate(keys, l->nr_dims, &earlier);
	free(keys);
	if (dup == (size_t)-1)
		return -ENOMEM;
	if (dup < l->nr_dims) {
		const struct ynode *k = l->dims[dup].keynode, *e = l->dims[earlier].keynode;

		if (e->origin)
			return fail(l, k, "duplicate parameter '%s' (also given with %s)",
				    k->scalar, e->origin);
		return fail(l, k, "duplicate parameter '%s' (also at %u:%u)",
			    k->scalar, e->line, e->column);
	}
	for (size_t i = 0; !ret && i < l->nr_dims; i++) {
		const struct dim *d = &l->dims[i];

		if (d->g && d->g->kind == G_STRING)
			continue;
		ret = check_items(l, d->key, d->node);
		for (size_t j = 0; !ret && d->g && j < d->n; j++)
			ret = check_generic_value(l, d->g, dim_value(d, j));
	}
	return ret;
}

/* ---- the atomic jobs ---- */

static bool is_plain(const char *s)
{
	static const char *const reserved[] = { "~", "null", "Null", "NULL" };

	if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.' && *s != '/')
		return false;
	for (const char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_.%/+-=@", *p))
			return false;
	for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
		if (!strcmp(s, reserved[i]))
			return false;
	return true;
}

/* A scalar that reads back as the same string (never null). */
static void put_scalar(FILE *f, const char *s)
{
	if (is_plain(s)) {
		fputs(s, f);
		return;
	}
	yaml_put_quoted(f, s);
}

static void put_list(FILE *f, char *const *v)
{
	fputc('[', f);
	for (size_t i = 0; v && v[i]; i++) {
		if (i)
			fputs(", ", f);
		put_scalar(f, v[i]);
	}
	fputc(']', f);
}

static void put_dim(FILE *f, const struct loader *l, const struct ynode *v,
		    const size_t *choice)
{
	const struct dim *d;
	const char *s;

	/* a section's value that is no dimension was refused while reading */
	BUG_ON(v->dim < 0 || (size_t)v->dim >= l->nr_dims);
	d = &l->dims[v->dim];
	s = dim_value(d, choice[v->dim])->scalar;

	/* a generic key is part of the identity only as a list: keep it one */
	if (d->g && d->identity) {
		fputc('[', f);
		put_scalar(f, s);
		fputc(']', f);
	} else {
		put_scalar(f, s);
	}
}

/* A value of the kernel: section as written: a scalar, a list, a mapping. */
static void put_written(FILE *f, const struct ynode *v, int indent)
{
	if (v->type == YNODE_SCALAR) {
		fputc(' ', f);
		put_scalar(f, v->scalar);
	} else if (v->type == YNODE_SEQ) {
		fputs(" [", f);
		for (size_t i = 0; i < v->n; i++) {
			if (i)
				fputs(", ", f);
			put_scalar(f, v->items[i]->scalar);
		}
		fputc(']', f);
	} else {
		for (size_t i = 0; i < v->n; i += 2) {
			fprintf(f, "\n%*s", indent, "");
			put_scalar(f, v->items[i]->scalar);
			fputc(':', f);
			put_written(f, v->items[i + 1], indent + 2);
		}
	}
}

/* The kernel: section as written (checked: scalars, lists of scalars, qemu:) */
static void put_kernel(FILE *f, const struct ynode *v)
{
	put_written(f, v, 2);
}

static int job_text(const struct loader *l, const size_t *choice, char **out)
{
	size_t len;
	FILE *f = open_memstream(out, &len);

	if (!f)
		return -ENOMEM;
	for (size_t i = 0; i < l->root->n; i += 2) {
		const char *key = l->root->items[i]->scalar;
		const struct ynode *v = l->root->items[i + 1];
		const struct generic *g = find_generic(key);

		put_scalar(f, key);
		fputc(':', f);
		if (v->dim >= 0) {
			fputc(' ', f);
			put_dim(f, l, v, choice);
		} else if (g && g->kind == G_EXEC) {
			fputs("\n  cmd: ", f);
			put_list(f, l->exec.argv);
			fprintf(f, "\n  parse: %s", l->exec.parse);
			if (l->exec.paths.n)
				fputs("\n  paths:", f);
			for (size_t j = 0; j < l->exec.paths.n; j++) {
				fputs("\n    ", f);
				put_scalar(f, l->exec.paths.v[j].key);
				fputs(": ", f);
				put_scalar(f, l->exec.paths.v[j].value);
			}
		} else if (g && g->kind == G_KERNEL) {
			put_kernel(f, v);
		} else if (g) {
			fputc(' ', f);
			put_list(f, g->kind == G_BUILD ? l->build :
				 !strcmp(key, "monitors") ? l->monitors : l->packages);
		} else if (v->type == YNODE_MAP) {
			for (size_t j = 0; j < v->n; j += 2) {
				fputs("\n  ", f);
				put_scalar(f, v->items[j]->scalar);
				fputs(": ", f);
				put_dim(f, l, v->items[j + 1], choice);
			}
		}
		fputc('\n', f);
	}
	if (ferror(f)) {
		fclose(f);
		return -ENOMEM;
	}
	return fclose(f) ? -ENOMEM : 0;
}

static int cmp_param(const void *a, const void *b)
{
	return strcmp(((const struct job_param *)a)->key,
		      ((const struct job_param *)b)->key);
}

static int apply_generic(struct atomic_job *j, const struct dim *d, const char *s)
{
	unsigned long n;

	switch (d->g->kind) {
	case G_STRING:
		if (!strcmp(d->key, "category"))
			return record_set_str(&j->category, s);
		if (!strcmp(d->key, "kpi"))
			return record_set_str(&j->kpi, s);
		return 0;
	case G_RECORDED:
		return strmap_set(&j->recorded, d->key, s);
	case G_DURATION:
		parse_duration(s, !strcmp(d->key, "runtime") ? &j->runtime_s :
			       !strcmp(d->key, "interval") ? &j->interval_s :
			       &j->timeout_s);
		return 0;
	case G_REPEAT:
		parse_ulong(s, 1, MAX_REPEAT, &n);
		j->repeat = (unsigned)n;
		return 0;
	case G_LIST:
	case G_BUILD:
	case G_EXEC:
	case G_KERNEL:
		break;
	}
	/* these are read whole by read_generic(), never made dimensions */
	BUG("'%s' is no matrix dimension", d->key);
}

/*
 * Append s to a job name, as the name becomes a file name (job split -o)
 * and a line of a YAML stream: '/', blanks and control characters become
 * '_'.  The testcase and every value go through here alike.
 */
static void name_part(struct strbuf *name, const char *s)
{
	size_t from = name->len;

	strbuf_addstr(name, s);
	for (char *p = name->buf + from; *p; p++)
		if (*p == '/' || isspace((unsigned char)*p) || (unsigned char)*p < 0x20 ||
		    *p == 0x7f)
			*p = '_';
}

static int make_job(const struct loader *l, const size_t *choice,
		    struct atomic_job *j)
{
	struct strbuf name = STRBUF_INIT;
	size_t nr = 0;
	int ret;

	for (size_t i = 0; i < l->nr_dims; i++)
		nr += l->dims[i].identity;
	j->params = calloc(nr ? nr : 1, sizeof(*j->params));
	j->testcase = strdup(l->testcase);
	j->file = strdup(l->path);
	if (!j->params || !j->testcase || !j->file)
		return -ENOMEM;
	name_part(&name, l->testcase);
	for (size_t i = 0; i < l->nr_dims; i++) {
		const struct dim *d = &l->dims[i];
		const struct ynode *v = dim_value(d, choice[i]);

		if (d->g && (ret = apply_generic(j, d, v->scalar))) {
			strbuf_release(&name);
			return ret;
		}
		if (!d->identity)
			continue;
		strbuf_addch(&name, '-');
		name_part(&name, v->scalar);
		j->params[j->nr_params].key = strdup(d->key);
		j->params[j->nr_params].value = strdup(v->scalar);
		j->params[j->nr_params].line = v->line;
		j->params[j->nr_params].column = v->column;
		if (!j->params[j->nr_params].key || !j->params[j->nr_params].value) {
			j->nr_params++;
			strbuf_release(&name);
			return -ENOMEM;
		}
		j->nr_params++;
	}
	j->name = strbuf_detach(&name, NULL);
	if (!j->name)
		return -ENOMEM;
	qsort(j->params, j->nr_params, sizeof(*j->params), cmp_param);
	if (!j->category && !(j->category = strdup("benchmark")))
		return -ENOMEM;
	if ((l->has_monitors && !(j->monitors = dup_argv(l->monitors))) ||
	    (l->has_packages && !(j->packages = dup_argv(l->packages))) ||
	    (l->build && !(j->build = dup_argv(l->build))))
		return -ENOMEM;
	j->build_line = l->build_line;
	j->build_column = l->build_column;
	if (l->kernel.present && kernel_copy(&j->kernel, &l->kernel))
		return -ENOMEM;
	if (l->has_exec) {
		if (!(j->exec.argv = dup_argv(l->exec.argv)) ||
		    !(j->exec.parse = strdup(l->exec.parse)))
			return -ENOMEM;
		for (size_t i = 0; i < l->exec.paths.n; i++)
			if (strmap_set(&j->exec.paths, l->exec.paths.v[i].key,
				       l->exec.paths.v[i].value))
				return -ENOMEM;
	}
	return job_text(l, choice, &j->text);
}

static int cmp_job(const void *a, const void *b)
{
	return strcmp(((const struct atomic_job *)a)->name,
		      ((const struct atomic_job *)b)->name);
}

/* total: from check_size() */
static int expand(struct loader *l, size_t total, struct atomic_job **out,
		  size_t *nr_out)
{
	struct atomic_job *jobs = NULL;
	size_t *choice = NULL, nr = 0;
	int ret = -ENOMEM;

	choice = calloc(l->nr_dims + 1, sizeof(*choice));
	jobs = calloc(total, sizeof(*jobs));
	if (!choice || !jobs)
		goto out;
	for (nr = 0; nr < total;) {
		ret = make_job(l, choice, &jobs[nr++]);
		if (ret)
			goto out;
		/* an odometer: the last dimension turns fastest */
		for (size_t i = l->nr_dims; i-- > 0;) {
			if (++choice[i] < l->dims[i].n)
				break;
			choice[i] = 0;
		}
	}
	qsort(jobs, nr, sizeof(*jobs), cmp_job);
	for (size_t i = 1; i < nr; i++) {
		if (strcmp(jobs[i - 1].name, jobs[i].name))
			continue;
		ret = fail(l, NULL, "two atomic jobs are named '%s'", jobs[i].name);
		goto out;
	}
	*out = jobs;
	*nr_out = nr;
	jobs = NULL;
	ret = 0;
out:
	if (jobs)
		atomic_jobs_release(jobs, nr);
	free(choice);
	return ret;
}

int job_load_tree(const char *path, struct ynode *root, char *const *overrides,
		  size_t nr_overrides, struct atomic_job **jobs, size_t *nr,
		  struct job_error *err)
{
	struct loader l = { .path = path, .err = err, .root = root };
	size_t total = 0;
	int ret;

	*jobs = NULL;
	*nr = 0;
	if (!l.root) {
		ret = fail(&l, NULL, "empty job file");
		goto out;
	}
	if (l.root->type != YNODE_MAP) {
		ret = fail(&l, l.root, "a job must be a mapping of keys to values");
		goto out;
	}
	for (size_t i = 0; i < nr_overrides; i++)
		if ((ret = apply_override(&l, overrides[i])))
			goto out;
	ret = read_job(&l);
	if (!ret)
		ret = check_size(&l, &total);
	if (!ret)
		ret = check_dims(&l);
	if (!ret)
		ret = expand(&l, total, jobs, nr);
out:
	if (ret == -ENOMEM && !err->msg.len)
		job_error_set(err, path, 0, 0, "out of memory");
	ytree_free(l.root);
	free(l.dims);
	free_argv(l.build);
	free_argv(l.monitors);
	free_argv(l.packages);
	free_argv(l.exec.argv);
	free(l.exec.parse);
	strmap_release(&l.exec.paths);
	kernel_release(&l.kernel);
	return ret;
}

/* Which document each atomic job came from: to say where a twin is from. */
struct doc_jobs {
	struct atomic_job *v;
	size_t n, cap;
	size_t *doc;		/* [n]: the document's index */
	size_t doc_cap;
};

static int cmp_doc_job(const void *a, const void *b, void *arg)
{
	const struct doc_jobs *all = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(all->v[x].name, all->v[y].name);

	return c ? c : (x > y) - (x < y);
}

/*
 * The atomic jobs of every document, sorted by name; a name that two
 * documents both give is an error naming both (LKP would write the
 * second over the first unit job file).
 */
static int gather(const char *path, struct doc_jobs *all, const struct ydoc *docs,
		  struct atomic_job **jobs, size_t *nr, struct job_error *err)
{
	size_t *order = malloc((all->n ? all->n : 1) * sizeof(*order));
	struct atomic_job *sorted = calloc(all->n ? all->n : 1, sizeof(*sorted));

	if (!order || !sorted) {
		free(order);
		free(sorted);
		return -ENOMEM;
	}
	for (size_t i = 0; i < all->n; i++)
		order[i] = i;
	qsort_r(order, all->n, sizeof(*order), cmp_doc_job, all);
	for (size_t i = 1; i < all->n; i++) {
		const struct atomic_job *a = &all->v[order[i - 1]], *b = &all->v[order[i]];
		size_t da = all->doc[order[i - 1]], db = all->doc[order[i]];

		/* the same job again (k+ over the first document's value): LKP
		 * writes the same unit job file twice; one job */
		if (strcmp(a->name, b->name) || !strcmp(a->text, b->text))
			continue;
		job_error_set(err, path, docs[db].line, docs[db].column,
			      "document %zu gives the atomic job '%s' that document %zu "
			      "(at %u:%u) gives too, with other keys outside its name (make "
			      "the key that differs a list of one, e.g. runtime: [60s])",
			      db + 1, b->name, da + 1, docs[da].line, docs[da].column);
		free(order);
		free(sorted);
		return -EINVAL;
	}
	for (size_t i = 0, k = 0; i < all->n; i++) {
		if (k && !strcmp(sorted[k - 1].name, all->v[order[i]].name)) {
			atomic_job_release(&all->v[order[i]]);
			continue;
		}
		sorted[k++] = all->v[order[i]];
		*nr = k;
	}
	free(order);
	free(all->v);
	all->v = NULL;
	all->n = 0;
	*jobs = sorted;
	return 0;
}

int job_load(const char *path, char *const *overrides, size_t nr_overrides,
	     struct atomic_job **jobs, size_t *nr, struct job_error *err)
{
	struct doc_jobs all = { 0 };
	struct ydoc *docs = NULL;
	size_t ndocs = 0, used = 0;
	int ret;

	*jobs = NULL;
	*nr = 0;
	job_error_init(err);
	ret = ytree_load_docs(path, &docs, &ndocs, err);
	if (ret)
		goto out;
	for (size_t d = 0; !ret && d < (ndocs ? ndocs : 1); d++) {
		struct ynode *root;
		struct atomic_job *part = NULL;
		size_t npart = 0;

		/* an empty later document adds nothing (LKP: the first one again) */
		if (d && (!docs[d].root || (docs[d].root->type == YNODE_SCALAR &&
					    docs[d].root->null)))
			continue;
		/* the first document stays as written: each later one merges into a copy */
		root = ndocs && docs[0].root ? ytree_copy(docs[0].root) : NULL;
		if (ndocs && docs[0].root && !root) {
			ret = -ENOMEM;
			break;
		}
		if (d && (ret = job_merge_doc(root, docs[d].root, path, err))) {
			ytree_free(root);
			break;
		}
		ret = job_load_tree(path, root, overrides, nr_overrides, &part, &npart, err);
		if (ret)
			break;
		/* the cap is the file's, whatever number of documents share it */
		if (all.n + npart > MAX_ATOMIC_JOBS) {
			atomic_jobs_release(part, npart);
			job_error_set(err, path, docs[d].line, docs[d].column,
				      "the job has more than %d atomic jobs (with document %zu)",
				      MAX_ATOMIC_JOBS, d + 1);
			ret = -E2BIG;
			break;
		}
		used++;
		if (vec_reserve_((void **)&all.v, &all.cap, all.n + npart, sizeof(*all.v)) ||
		    vec_reserve_((void **)&all.doc, &all.doc_cap, all.n + npart,
				 sizeof(*all.doc))) {
			atomic_jobs_release(part, npart);
			ret = -ENOMEM;
			break;
		}
		for (size_t i = 0; i < npart; i++) {
			all.doc[all.n] = d;
			all.v[all.n++] = part[i];
		}
		free(part);
	}
	if (!ret && used == 1) {
		*jobs = all.v;
		*nr = all.n;
		all.v = NULL;
		all.n = 0;
	} else if (!ret) {
		ret = gather(path, &all, docs, jobs, nr, err);
	}
out:
	if (ret == -ENOMEM && !err->msg.len)
		job_error_set(err, path, 0, 0, "out of memory");
	if (all.v)
		atomic_jobs_release(all.v, all.n);
	free(all.doc);
	ydocs_free(docs, ndocs);
	return ret;
}

const struct job_param *atomic_job_param(const struct atomic_job *j,
					 const char *key)
{
	struct job_param k = { .key = (char *)key };

	if (!j->nr_params)
		return NULL;
	return bsearch(&k, j->params, j->nr_params, sizeof(k), cmp_param);
}

void atomic_job_release(struct atomic_job *j)
{
	if (!j)
		return;
	free(j->name);
	free(j->testcase);
	free(j->category);
	for (size_t i = 0; i < j->nr_params; i++) {
		free(j->params[i].key);
		free(j->params[i].value);
	}
	free(j->params);
	free_argv(j->monitors);
	free_argv(j->packages);
	free_argv(j->build);
	free(j->kpi);
	free_argv(j->exec.argv);
	free(j->exec.parse);
	strmap_release(&j->exec.paths);
	strmap_release(&j->recorded);
	kernel_release(&j->kernel);
	free(j->text);
	free(j->file);
	memset(j, 0, sizeof(*j));
}

void atomic_jobs_release(struct atomic_job *jobs, size_t nr)
{
	if (!jobs)
		return;
	for (size_t i = 0; i < nr; i++)
		atomic_job_release(&jobs[i]);
	free(jobs);
}

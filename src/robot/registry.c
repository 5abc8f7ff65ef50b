/*
 * registry.c - the robot's tree registry: job/'s YAML tree (positions
 * kept) read into a struct registry, every value checked where it is
 * written.  docs/registry.md is the reference for every key.
 */
#define _GNU_SOURCE
#include "robot/registry.h"
#include "job/yaml.h"
#include "util/parse.h"
#include "util/strbuf.h"
#include "util/vec.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct loader {
	const char *path;
	unsigned flags;
	struct job_error *err;
	struct registry *r;
};

static const char *const top_keys[] = { "trees", "report", "policy", NULL };
static const char *const tree_keys[] = {
	"name", "repo", "url", "branches", "allow", "deny", "jobs", "base",
	"priority", "max_age", NULL,
};
static const char *const job_keys[] = { "file", "set", NULL };
static const char *const base_keys[] = { "upstream", NULL };
static const char *const report_keys[] = {
	"from", "to", "cc", "reported_by", "link", "outbox", "sendmail",
	"follow_up", "publish", NULL,
};
static const char *const policy_keys[] = {
	"poll", "max_heads", "bisect_max_runs", "families", "min_change", "on", NULL,
};

/* by enum stat_family */
static const char *const family_names[] = {
	[FAMILY_KPI] = "kpi", [FAMILY_OTHER] = "other", [FAMILY_FAILURE] = "failure",
};
/* the order they are listed in (messages, describe) */
static const enum stat_family family_order[] = { FAMILY_KPI, FAMILY_FAILURE, FAMILY_OTHER };
#define NR_FAMILIES (sizeof(family_order) / sizeof(family_order[0]))

static const char *const rcpt_rules[] = {
	[REGISTRY_RCPT_AUTHOR] = "author",
	[REGISTRY_RCPT_COMMITTER] = "committer",
	[REGISTRY_RCPT_SIGNERS] = "signers",
};

static int fail(struct loader *l, const struct ynode *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct loader *l, const struct ynode *at, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	job_error_vset(l->err, l->path, at ? at->line : 0, at ? at->column : 0, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static void free_strv(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

static const char *node_kind(const struct ynode *v)
{
	return v->type == YNODE_SEQ ? "a list" : v->type == YNODE_MAP ? "a mapping"
								    : "a value";
}

/* ---- mappings ---- */

static const struct ynode *map_get(const struct ynode *map, const char *key,
				   const struct ynode **keynode)
{
	for (size_t i = 0; i + 1 < map->n; i += 2)
		if (!strcmp(map->items[i]->scalar, key)) {
			if (keynode)
				*keynode = map->items[i];
			return map->items[i + 1];
		}
	return NULL;
}

static void list_words(struct strbuf *sb, const char *const *words)
{
	size_t n = 0;

	while (words[n])
		n++;
	for (size_t i = 0; i < n; i++) {
		if (i)
			strbuf_addstr(sb, i + 1 == n ? " or " : ", ");
		strbuf_addstr(sb, words[i]);
	}
}

/* Every key of map is one of known[]; `where` names the mapping in messages. */
static int check_keys(struct loader *l, const struct ynode *map,
		      const char *const *known, const char *where)
{
	for (size_t i = 0; i + 1 < map->n; i += 2) {
		const struct ynode *k = map->items[i];
		const char *near;
		struct strbuf words = STRBUF_INIT;
		size_t j;
		int ret;

		for (j = 0; known[j] && strcmp(known[j], k->scalar); j++)
			;
		if (known[j])
			continue;
		near = suggest_nearest(k->scalar, known);
		if (near)
			return fail(l, k, "unknown key '%s' in %s (did you mean '%s'?)",
				    k->scalar, where, near);
		list_words(&words, known);
		ret = strbuf_error(&words) ? -ENOMEM :
		      fail(l, k, "unknown key '%s' in %s (expected %s)", k->scalar,
			   where, words.buf);
		strbuf_release(&words);
		return ret;
	}
	return 0;
}

static int need_map(struct loader *l, const struct ynode *v, const char *what,
		    const char *keys_hint)
{
	if (v->type == YNODE_MAP)
		return 0;
	if (v->type == YNODE_SCALAR && !v->null)
		return fail(l, v, "%s must be a mapping (%s), not '%s'", what, keys_hint,
			    v->scalar);
	return fail(l, v, "%s must be a mapping (%s), not %s", what, keys_hint,
		    v->type == YNODE_SCALAR ? "empty" : node_kind(v));
}

/* ---- values ---- */

static bool has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

/* A single non-empty value, without control characters. */
static int get_scalar(struct loader *l, const char *key, const struct ynode *v)
{
	if (v->type != YNODE_SCALAR)
		return fail(l, v, "'%s' must be a single value, not %s", key, node_kind(v));
	if (v->null)
		return fail(l, v, "'%s' needs a value", key);
	if (has_control(v->scalar))
		return fail(l, v, "'%s' holds a control character", key);
	return 0;
}

typedef int (*item_check)(struct loader *l, const char *key, const struct ynode *item);

/*
 * A list of values: a sequence, a single value (a list of one) or empty
 * (null, []).  Each item is checked by `check` (may be NULL) and, when
 * `distinct`, must differ from the others.  *out is NULL-terminated, never NULL on success.
 */
static int get_list(struct loader *l, const char *key, const struct ynode *v,
		    item_check check, bool distinct, char ***out, size_t *nr)
{
	size_t n = v->type == YNODE_SEQ ? v->n : (v->null ? 0 : 1);
	size_t dup, earlier = 0;
	char **list;
	int ret;

	if (v->type == YNODE_MAP)
		return fail(l, v, "'%s' must be a list, not a mapping", key);
	for (size_t i = 0; i < n; i++) {
		const struct ynode *e = v->type == YNODE_SEQ ? v->items[i] : v;

		if (e->type != YNODE_SCALAR)
			return fail(l, e, "the items of '%s' must be single values, not %s",
				    key, node_kind(e));
		if (e->null)
			return fail(l, e, "empty item in '%s'", key);
		if (has_control(e->scalar))
			return fail(l, e, "an item of '%s' holds a control character", key);
		if (check && (ret = check(l, key, e)))
			return ret;
	}
	list = calloc(n + 1, sizeof(*list));
	if (!list)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		list[i] = strdup((v->type == YNODE_SEQ ? v->items[i] : v)->scalar);
		if (!list[i]) {
			free_strv(list);
			return -ENOMEM;
		}
	}
	dup = distinct ? first_duplicate((const char *const *)list, n, &earlier) : n;
	if (dup == (size_t)-1) {
		free_strv(list);
		return -ENOMEM;
	}
	if (dup < n) {
		const struct ynode *e = v->items[dup], *first = v->items[earlier];

		ret = fail(l, e, "duplicate item '%s' in '%s' (also at %u:%u)", e->scalar,
			   key, first->line, first->column);
		free_strv(list);
		return ret;
	}
	*out = list;
	*nr = n;
	return 0;
}

static int get_ulong(struct loader *l, const char *key, const struct ynode *v,
		     unsigned long min, unsigned long max, unsigned long *out)
{
	int ret = get_scalar(l, key, v);

	if (ret)
		return ret;
	switch (parse_ulong(v->scalar, min, max, out)) {
	case PARSE_OK:
		return 0;
	case PARSE_TOO_LARGE:
		return fail(l, v, "%s '%s' is more than %lu", key, v->scalar, max);
	case PARSE_TOO_SMALL:
		return fail(l, v, "'%s' must be at least %lu, not '%s'", key, min, v->scalar);
	default:
		return fail(l, v, "%s '%s' is not a whole number (%s)", key, v->scalar,
			    PARSE_RULE_INTEGER);
	}
}

#define RULE_DURATION "a whole number of seconds, or a number with a unit s, m, h, d or w"

/*
 * A duration of whole seconds, at least 1 s, at most
 * REGISTRY_MAX_DURATION_S: the number grammar of util/parse.h (digits,
 * an optional fraction, no sign or exponent) and an optional unit.
 */
static int get_duration(struct loader *l, const char *key, const struct ynode *v,
			double *out)
{
	static const struct { const char *unit; double scale; } units[] = {
		{ "", 1 }, { "s", 1 }, { "m", 60 }, { "h", 3600 },
		{ "d", 86400 }, { "w", 7 * 86400 },
	};
	const char *s, *p;
	size_t digits = 0, int_digits = 0;
	double x;
	int ret = get_scalar(l, key, v);

	if (ret)
		return ret;
	s = p = v->scalar;
	while (isdigit((unsigned char)*p)) {
		p++;
		int_digits++;
	}
	digits = int_digits;
	if (*p == '.') {
		p++;
		while (isdigit((unsigned char)*p)) {
			p++;
			digits++;
		}
		if (digits == int_digits)
			digits = 0;	/* "1." has no fraction: refused */
	}
	if (!digits || (int_digits > 1 && s[0] == '0') || p - s > 30)
		goto syntax;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(p, units[i].unit))
			continue;
		x = strtod(s, NULL) * units[i].scale;
		if (x > REGISTRY_MAX_DURATION_S)
			return fail(l, v, "%s '%s' is more than %.0f days", key, v->scalar,
				    REGISTRY_MAX_DURATION_S / 86400);
		if (x < 1)
			return fail(l, v, "%s '%s' must be at least 1s", key, v->scalar);
		if (x != floor(x))
			return fail(l, v, "%s '%s' is not a whole number of seconds",
				    key, v->scalar);
		*out = x;
		return 0;
	}
syntax:
	return fail(l, v, "%s '%s' is not a duration (%s)", key, v->scalar, RULE_DURATION);
}

static int get_bool(struct loader *l, const char *key, const struct ynode *v, bool *out)
{
	static const char *const yes[] = { "true", "True", "TRUE", "yes", "Yes", "on" };
	static const char *const no[] = { "false", "False", "FALSE", "no", "No", "off" };
	int ret = get_scalar(l, key, v);

	if (ret)
		return ret;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcmp(v->scalar, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcmp(v->scalar, no[i])) {
			*out = false;
			return 0;
		}
	}
	return fail(l, v, "%s '%s' is not true or false", key, v->scalar);
}

/* ---- paths ---- */

/* path as written, made absolute against the registry's directory */
static int resolve_path(struct loader *l, const char *path, char **out)
{
	if (path[0] == '/')
		*out = strdup(path);
	else if (asprintf(out, "%s/%s", l->r->dir, path) < 0)
		*out = NULL;
	return *out ? 0 : -ENOMEM;
}

/*
 * A path value: resolved; with `what` set, a problem with the file it
 * names is an error "what 'written' (resolved): problem".
 */
static int path_problem(struct loader *l, const struct ynode *v, const char *what,
			const char *abs, const char *problem)
{
	if (strcmp(v->scalar, abs))
		return fail(l, v, "%s '%s' (%s): %s", what, v->scalar, abs, problem);
	return fail(l, v, "%s '%s': %s", what, v->scalar, problem);
}

static bool fs_check(const struct loader *l)
{
	return !(l->flags & REGISTRY_NO_FS_CHECK);
}

static int check_repo_dir(struct loader *l, const struct ynode *v, const char *abs)
{
	struct stat st;
	char *sub;
	bool git;

	if (stat(abs, &st))
		return path_problem(l, v, "repo", abs, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return path_problem(l, v, "repo", abs, "not a directory");
	if (asprintf(&sub, "%s/.git", abs) < 0)
		return -ENOMEM;
	git = !access(sub, F_OK);
	free(sub);
	if (!git) {
		if (asprintf(&sub, "%s/HEAD", abs) < 0)
			return -ENOMEM;
		git = !access(sub, F_OK);
		free(sub);
	}
	if (!git)
		return path_problem(l, v, "repo", abs,
				    "not a git repository (no .git, not a bare repository)");
	return 0;
}

/* ---- names ---- */

static bool is_tree_name(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > REGISTRY_NAME_MAX || !(isalnum((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_.-", *s))
			return false;
	return true;
}

/*
 * A branch name git would take (a subset of check-ref-format's rules),
 * never one that reads as an option; `glob`: *, ? and [...] allowed.
 */
static const char *ref_problem(const char *s, bool glob)
{
	size_t n = strlen(s);

	if (!n)
		return "empty";
	if (n > 255)
		return "longer than 255 bytes";
	if (s[0] == '-')
		return "starts with '-'";
	if (s[0] == '/' || s[n - 1] == '/')
		return "starts or ends with '/'";
	if (s[n - 1] == '.' || (n >= 5 && !strcmp(s + n - 5, ".lock")))
		return "ends with '.' or '.lock'";
	if (strstr(s, "..") || strstr(s, "//") || strstr(s, "@{") || strstr(s, "/.") ||
	    s[0] == '.')
		return "holds '..', '//', '@{' or a part starting with '.'";
	for (const char *p = s; *p; p++) {
		unsigned char c = *p;

		if (c <= ' ' || c == 0x7f || strchr("~^:\\", c))
			return "holds a space, a control character or one of ~ ^ : \\";
		if (!glob && strchr("?*[", c))
			return "holds one of ? * [ (a glob belongs in allow: or deny:)";
	}
	return NULL;
}

static int check_branch(struct loader *l, const char *key, const struct ynode *v)
{
	const char *why = ref_problem(v->scalar, false);

	return why ? fail(l, v, "invalid branch name '%s' in '%s': %s", v->scalar, key, why)
		   : 0;
}

static int check_glob(struct loader *l, const char *key, const struct ynode *v)
{
	const char *why = ref_problem(v->scalar, true);

	return why ? fail(l, v, "invalid branch pattern '%s' in '%s': %s", v->scalar, key,
			  why)
		   : 0;
}

static bool url_ok(const char *s)
{
	static const char *const schemes[] = {
		"https://", "http://", "git://", "ssh://", "file://",
	};
	const char *colon;

	if (s[0] == '-' || !s[0])
		return false;
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return false;
	for (size_t i = 0; i < sizeof(schemes) / sizeof(schemes[0]); i++)
		if (!strncmp(s, schemes[i], strlen(schemes[i])))
			return s[strlen(schemes[i])] != '\0';
	if (strstr(s, "://"))
		return false;	/* another scheme */
	/* scp-like [user@]host:path; never a transport helper (ext::, fd::) */
	colon = strchr(s, ':');
	if (!colon || colon == s || colon[1] == ':' || colon[1] == '\0')
		return false;
	for (const char *p = s; p < colon; p++)
		if (!isalnum((unsigned char)*p) && !strchr("._-@", *p))
			return false;
	return true;
}

/*
 * An email address: local@domain, or "Display Name <local@domain>".  No
 * character that would end or add a header field or a recipient (control
 * characters, ',', ';', '"'), one '@', no blank inside the address.
 */
static bool address_ok(const char *s)
{
	const char *lt = strchr(s, '<'), *spec = s, *end = s + strlen(s), *at;

	if (strpbrk(s, ",;\"") || has_control(s))
		return false;
	if (lt) {
		if (end[-1] != '>' || strchr(lt + 1, '<') || strchr(s, '>') != end - 1)
			return false;
		spec = lt + 1;
		end--;
	} else if (strchr(s, '>')) {
		return false;
	}
	at = memchr(spec, '@', end - spec);
	if (!at || at == spec || at + 1 == end || memchr(at + 1, '@', end - at - 1))
		return false;
	for (const char *p = spec; p < end; p++)
		if (*p == ' ' || *p == '(' || *p == ')')
			return false;
	return true;
}

static int check_address(struct loader *l, const char *key, const struct ynode *v)
{
	if (!address_ok(v->scalar))
		return fail(l, v, "invalid address '%s' in '%s' (expected name@host or Name <name@host>)",
			    v->scalar, key);
	return 0;
}

static int check_rcpt(struct loader *l, const char *key, const struct ynode *v)
{
	for (size_t i = 0; i < sizeof(rcpt_rules) / sizeof(rcpt_rules[0]); i++)
		if (rcpt_rules[i] && !strcmp(v->scalar, rcpt_rules[i]))
			return 0;
	if (!strchr(v->scalar, '@')) {
		const char *rules[] = { "author", "committer", "signers", NULL };
		const char *near = suggest_nearest(v->scalar, rules);

		if (near)
			return fail(l, v, "unknown rule '%s' in '%s' (did you mean '%s'?)",
				    v->scalar, key, near);
		return fail(l, v, "invalid recipient '%s' in '%s' (expected an address, or author, committer or signers)",
			    v->scalar, key);
	}
	return check_address(l, key, v);
}

static int check_override(struct loader *l, const char *key, const struct ynode *v)
{
	const char *eq = strchr(v->scalar, '=');

	if (!eq || eq == v->scalar)
		return fail(l, v, "invalid override '%s' in '%s' (expected key=value)",
			    v->scalar, key);
	for (const char *p = v->scalar; p < eq; p++)
		if (isspace((unsigned char)*p))
			return fail(l, v, "invalid override '%s' in '%s' (expected key=value)",
				    v->scalar, key);
	return 0;
}

/* ---- trees ---- */

static int read_rcpts(struct loader *l, const char *key, const struct ynode *v,
		      struct registry_rcpt **out, size_t *nr)
{
	char **list = NULL;
	size_t n = 0;
	int ret = get_list(l, key, v, check_rcpt, true, &list, &n);

	if (ret)
		return ret;
	*out = calloc(n ? n : 1, sizeof(**out));
	if (!*out) {
		free_strv(list);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		struct registry_rcpt *rc = &(*out)[i];

		rc->kind = REGISTRY_RCPT_ADDRESS;
		for (size_t k = 0; k < sizeof(rcpt_rules) / sizeof(rcpt_rules[0]); k++)
			if (rcpt_rules[k] && !strcmp(list[i], rcpt_rules[k]))
				rc->kind = (enum registry_rcpt_kind)k;
		if (rc->kind == REGISTRY_RCPT_ADDRESS) {
			rc->address = list[i];
			list[i] = NULL;
		}
	}
	*nr = n;
	for (size_t i = 0; i < n; i++)
		free(list[i]);
	free(list);
	return 0;
}

static int read_job(struct loader *l, struct registry_tree *t, const struct ynode *v)
{
	struct registry_job *j = &t->jobs[t->nr_jobs];
	const struct ynode *file = v, *set = NULL;
	struct stat st;
	int ret;

	j->line = v->line;
	j->column = v->column;
	if (v->type == YNODE_MAP) {
		if ((ret = check_keys(l, v, job_keys, "a job entry")))
			return ret;
		file = map_get(v, "file", NULL);
		if (!file)
			return fail(l, v, "a job entry needs file: (the job file)");
		set = map_get(v, "set", NULL);
	} else if (v->type != YNODE_SCALAR) {
		return fail(l, v, "a job must be a job file or {file: FILE, set: [key=value]}, not %s",
			    node_kind(v));
	}
	if ((ret = get_scalar(l, v->type == YNODE_MAP ? "file" : "jobs", file)))
		return ret;
	if ((ret = resolve_path(l, file->scalar, &j->file)))
		return ret;
	t->nr_jobs++;	/* owned by the tree from here */
	if (set) {
		ret = get_list(l, "set", set, check_override, true, &j->set, &j->nr_set);
	} else {
		j->set = calloc(1, sizeof(*j->set));
		ret = j->set ? 0 : -ENOMEM;
	}
	if (ret)
		return ret;
	if (fs_check(l)) {
		if (stat(j->file, &st))
			return path_problem(l, file, "job file", j->file, strerror(errno));
		if (!S_ISREG(st.st_mode))
			return path_problem(l, file, "job file", j->file, "not a regular file");
	}
	return 0;
}

static int read_jobs(struct loader *l, struct registry_tree *t, const struct ynode *v)
{
	size_t n = v->type == YNODE_SEQ ? v->n : 1;
	char **keys;
	size_t dup, earlier = 0;
	int ret = 0;

	if (v->type == YNODE_SCALAR && v->null)
		return fail(l, v, "tree '%s' has no jobs: list job files under jobs:", t->name);
	if (v->type == YNODE_SEQ && !v->n)
		return fail(l, v, "tree '%s' has no jobs: list job files under jobs:", t->name);
	t->jobs = calloc(n, sizeof(*t->jobs));
	if (!t->jobs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if ((ret = read_job(l, t, v->type == YNODE_SEQ ? v->items[i] : v)))
			return ret;
	/* the same file with the same overrides twice is one job run twice */
	keys = calloc(n, sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	for (size_t i = 0; i < n && !ret; i++) {
		struct strbuf sb = STRBUF_INIT;

		strbuf_addstr(&sb, t->jobs[i].file);
		for (size_t s = 0; s < t->jobs[i].nr_set; s++) {
			strbuf_addch(&sb, '\n');
			strbuf_addstr(&sb, t->jobs[i].set[s]);
		}
		keys[i] = strbuf_detach(&sb, NULL);
		if (!keys[i])
			ret = -ENOMEM;
	}
	if (!ret) {
		dup = first_duplicate((const char *const *)keys, n, &earlier);
		if (dup == (size_t)-1)
			ret = -ENOMEM;
		else if (dup < n)
			ret = fail(l, v->items[dup],
				   "duplicate job '%s' in tree '%s' (also at %u:%u)",
				   t->jobs[dup].file, t->name, t->jobs[earlier].line,
				   t->jobs[earlier].column);
	}
	for (size_t i = 0; i < n; i++)
		free(keys[i]);
	free(keys);
	return ret;
}

static int read_base(struct loader *l, struct registry_tree *t, const struct ynode *v)
{
	const struct ynode *up;
	int ret;

	if (v->type == YNODE_SCALAR && !v->null && !strcmp(v->scalar, "previous")) {
		t->base = REGISTRY_BASE_PREVIOUS;
		return 0;
	}
	if (v->type != YNODE_MAP) {
		if (v->type == YNODE_SCALAR && !v->null)
			return fail(l, v, "invalid base '%s' (expected previous, or upstream: BRANCH)",
				    v->scalar);
		return fail(l, v, "invalid base: %s (expected previous, or upstream: BRANCH)",
			    v->type == YNODE_SCALAR ? "empty" : node_kind(v));
	}
	if ((ret = check_keys(l, v, base_keys, "base")))
		return ret;
	up = map_get(v, "upstream", NULL);
	if (!up)
		return fail(l, v, "base needs upstream: BRANCH (or is previous)");
	if ((ret = get_scalar(l, "upstream", up)) || (ret = check_branch(l, "upstream", up)))
		return ret;
	t->base = REGISTRY_BASE_UPSTREAM;
	t->base_branch = strdup(up->scalar);
	return t->base_branch ? 0 : -ENOMEM;
}

static int read_tree(struct loader *l, struct registry_tree *t, const struct ynode *m)
{
	const struct ynode *name, *repo, *url, *branches, *allow, *deny, *jobs, *v;
	int ret;

	t->line = m->line;
	t->column = m->column;
	t->priority = REGISTRY_DEFAULT_PRIORITY;
	t->max_age_s = REGISTRY_DEFAULT_MAX_AGE_S;
	if ((ret = need_map(l, m, "a tree", "name:, repo:, branches:, jobs:, ...")))
		return ret;
	if ((ret = check_keys(l, m, tree_keys, "a tree")))
		return ret;
	name = map_get(m, "name", NULL);
	if (!name)
		return fail(l, m, "a tree needs name: (a word naming it)");
	if ((ret = get_scalar(l, "name", name)))
		return ret;
	if (!is_tree_name(name->scalar))
		return fail(l, name, "invalid tree name '%s' (letters, digits, '_', '.' and '-', starting with a letter, digit or '_', at most %d bytes)",
			    name->scalar, REGISTRY_NAME_MAX);
	if (!(t->name = strdup(name->scalar)))
		return -ENOMEM;

	repo = map_get(m, "repo", NULL);
	url = map_get(m, "url", NULL);
	if (!repo && !url)
		return fail(l, m, "tree '%s' needs repo: (a local repository) or url: (a remote to fetch)",
			    t->name);
	if (url) {
		if ((ret = get_scalar(l, "url", url)))
			return ret;
		if (!url_ok(url->scalar))
			return fail(l, url, "invalid url '%s' (expected https://, http://, git://, ssh://, file:// or host:path)",
				    url->scalar);
		if (!(t->url = strdup(url->scalar)))
			return -ENOMEM;
	}
	if (repo) {
		if ((ret = get_scalar(l, "repo", repo)))
			return ret;
		if ((ret = resolve_path(l, repo->scalar, &t->repo)))
			return ret;
		if (fs_check(l) && !url && (ret = check_repo_dir(l, repo, t->repo)))
			return ret;
		if (fs_check(l) && url) {
			struct stat st;

			/* the mirror: made by the first fetch, a directory if it is there */
			if (!stat(t->repo, &st) && !S_ISDIR(st.st_mode))
				return path_problem(l, repo, "repo", t->repo, "not a directory");
		}
	}

	branches = map_get(m, "branches", NULL);
	allow = map_get(m, "allow", NULL);
	deny = map_get(m, "deny", NULL);
	t->branches = t->allow = t->deny = NULL;
	if (branches && (ret = get_list(l, "branches", branches, check_branch, true, &t->branches,
					&t->nr_branches)))
		return ret;
	if (allow && (ret = get_list(l, "allow", allow, check_glob, true, &t->allow, &t->nr_allow)))
		return ret;
	if (deny && (ret = get_list(l, "deny", deny, check_glob, true, &t->deny, &t->nr_deny)))
		return ret;
	if ((!t->branches && !(t->branches = calloc(1, sizeof(char *)))) ||
	    (!t->allow && !(t->allow = calloc(1, sizeof(char *)))) ||
	    (!t->deny && !(t->deny = calloc(1, sizeof(char *)))))
		return -ENOMEM;
	if (!t->nr_branches && !t->nr_allow)
		return fail(l, branches ? branches : allow ? allow : m,
			    "tree '%s' watches no branch: give branches: (names) or allow: (patterns)",
			    t->name);
	for (size_t i = 0; i < t->nr_branches; i++)
		for (size_t d = 0; d < t->nr_deny; d++)
			if (!fnmatch(t->deny[d], t->branches[i], 0))
				return fail(l, branches->type == YNODE_SEQ ? branches->items[i]
									  : branches,
					    "branch '%s' is named in branches: and denied by '%s' in deny:",
					    t->branches[i], t->deny[d]);

	jobs = map_get(m, "jobs", NULL);
	if (!jobs)
		return fail(l, m, "tree '%s' needs jobs: (the job files to run on each new head)",
			    t->name);
	if ((ret = read_jobs(l, t, jobs)))
		return ret;

	if ((v = map_get(m, "base", NULL)) && (ret = read_base(l, t, v)))
		return ret;
	if ((v = map_get(m, "priority", NULL)) &&
	    (ret = get_ulong(l, "priority", v, 0, REGISTRY_MAX_PRIORITY, &t->priority)))
		return ret;
	if ((v = map_get(m, "max_age", NULL)) &&
	    (ret = get_duration(l, "max_age", v, &t->max_age_s)))
		return ret;
	return 0;
}

static int read_trees(struct loader *l, const struct ynode *root)
{
	const struct ynode *v = map_get(root, "trees", NULL);
	struct registry *r = l->r;
	const char **names;
	size_t dup, earlier = 0;
	int ret;

	if (!v)
		return fail(l, root, "the registry needs trees: (a list of trees to watch)");
	if (v->type != YNODE_SEQ || !v->n)
		return fail(l, v, "'trees' must be a list of trees, not %s",
			    v->type == YNODE_SEQ || v->null ? "empty" : node_kind(v));
	r->trees = calloc(v->n, sizeof(*r->trees));
	if (!r->trees)
		return -ENOMEM;
	for (size_t i = 0; i < v->n; i++) {
		ret = read_tree(l, &r->trees[r->nr_trees++], v->items[i]);
		if (ret)
			return ret;
	}
	names = calloc(r->nr_trees, sizeof(*names));
	if (!names)
		return -ENOMEM;
	for (size_t i = 0; i < r->nr_trees; i++)
		names[i] = r->trees[i].name;
	dup = first_duplicate(names, r->nr_trees, &earlier);
	free(names);
	if (dup == (size_t)-1)
		return -ENOMEM;
	if (dup < r->nr_trees) {
		const struct ynode *name = map_get(v->items[dup], "name", NULL);

		return fail(l, name, "duplicate tree name '%s' (also at %u:%u)", name->scalar,
			    r->trees[earlier].line, r->trees[earlier].column);
	}
	return 0;
}

/* ---- report ---- */

static int read_report(struct loader *l, const struct ynode *root)
{
	const struct ynode *m = map_get(root, "report", NULL), *v, *outbox, *sendmail;
	struct registry_report *rep = &l->r->report;
	int ret;

	if (!m)
		return fail(l, root, "the registry needs report: (outbox: and/or sendmail:)");
	if ((ret = need_map(l, m, "report", "outbox:, sendmail:, from:, to:, ...")) ||
	    (ret = check_keys(l, m, report_keys, "report")))
		return ret;
	if ((v = map_get(m, "from", NULL))) {
		if ((ret = get_scalar(l, "from", v)) || (ret = check_address(l, "from", v)))
			return ret;
	}
	if (!(rep->from = strdup(v ? v->scalar : REGISTRY_DEFAULT_FROM)))
		return -ENOMEM;
	if ((v = map_get(m, "to", NULL))) {
		if ((ret = read_rcpts(l, "to", v, &rep->to, &rep->nr_to)))
			return ret;
		if (!rep->nr_to)
			return fail(l, v, "'to' is empty: a report needs a recipient (author, an address, ...)");
	} else {
		if (!(rep->to = calloc(1, sizeof(*rep->to))))
			return -ENOMEM;
		rep->to[0].kind = REGISTRY_RCPT_AUTHOR;
		rep->nr_to = 1;
	}
	if ((v = map_get(m, "cc", NULL))) {
		if ((ret = read_rcpts(l, "cc", v, &rep->cc, &rep->nr_cc)))
			return ret;
	} else if (!(rep->cc = calloc(1, sizeof(*rep->cc)))) {
		return -ENOMEM;
	}
	if ((v = map_get(m, "reported_by", NULL))) {
		if ((ret = get_scalar(l, "reported_by", v)) ||
		    (ret = check_address(l, "reported_by", v)))
			return ret;
	}
	if (!(rep->reported_by = strdup(v ? v->scalar : rep->from)))
		return -ENOMEM;
	if ((v = map_get(m, "link", NULL))) {
		if ((ret = get_scalar(l, "link", v)))
			return ret;
		if ((strncmp(v->scalar, "https://", 8) && strncmp(v->scalar, "http://", 7)) ||
		    strpbrk(v->scalar, " <>\"") || !strcmp(strstr(v->scalar, "//") + 2, ""))
			return fail(l, v, "invalid link '%s' (expected an http:// or https:// URL, no spaces)",
				    v->scalar);
		if (!(rep->link = strdup(v->scalar)))
			return -ENOMEM;
	}
	if ((v = map_get(m, "follow_up", NULL)) &&
	    (ret = get_bool(l, "follow_up", v, &rep->follow_up)))
		return ret;

	if ((v = map_get(m, "publish", NULL))) {
		struct stat st;

		/* the site perfbot publish writes after each pass (docs/publish.md) */
		if ((ret = get_scalar(l, "publish", v)) ||
		    (ret = resolve_path(l, v->scalar, &rep->publish)))
			return ret;
		if (fs_check(l) && !stat(rep->publish, &st) && !S_ISDIR(st.st_mode))
			return path_problem(l, v, "publish", rep->publish, "not a directory");
	}
	outbox = map_get(m, "outbox", NULL);
	sendmail = map_get(m, "sendmail", NULL);
	if (!outbox && !sendmail)
		return fail(l, m, "report needs outbox: (a Maildir directory) or sendmail: (a command), or both");
	if (outbox) {
		struct stat st;

		if ((ret = get_scalar(l, "outbox", outbox)) ||
		    (ret = resolve_path(l, outbox->scalar, &rep->outbox)))
			return ret;
		if (fs_check(l) && !stat(rep->outbox, &st) && !S_ISDIR(st.st_mode))
			return path_problem(l, outbox, "outbox", rep->outbox, "not a directory");
	}
	if (sendmail) {
		size_t n;

		if (sendmail->type == YNODE_SCALAR && !sendmail->null)
			return fail(l, sendmail, "'sendmail' must be a list of words (an argv, never run by a shell), e.g. [/usr/sbin/sendmail, -t, -i], not '%s'",
				    sendmail->scalar);
		if ((ret = get_list(l, "sendmail", sendmail, NULL, false, &rep->sendmail, &n)))
			return ret;
		if (!n)
			return fail(l, sendmail, "'sendmail' is empty: give the command as a list of words");
		if (strchr(rep->sendmail[0], '/')) {
			char *abs;

			if ((ret = resolve_path(l, rep->sendmail[0], &abs)))
				return ret;
			free(rep->sendmail[0]);
			rep->sendmail[0] = abs;
			if (fs_check(l) && access(abs, X_OK))
				return path_problem(l, sendmail->type == YNODE_SEQ ?
						    sendmail->items[0] : sendmail,
						    "sendmail", abs, strerror(errno));
		}
	}
	return 0;
}

/* ---- policy ---- */

static int check_family(struct loader *l, const char *key, const struct ynode *v)
{
	const char *names[NR_FAMILIES + 1];
	const char *near;

	for (size_t i = 0; i < NR_FAMILIES; i++) {
		names[i] = family_names[family_order[i]];
		if (!strcmp(v->scalar, names[i]))
			return 0;
	}
	names[NR_FAMILIES] = NULL;
	near = suggest_nearest(v->scalar, names);
	if (near)
		return fail(l, v, "unknown family '%s' in '%s' (did you mean '%s'?)", v->scalar,
			    key, near);
	return fail(l, v, "unknown family '%s' in '%s' (expected kpi, failure or other)",
		    v->scalar, key);
}

static int read_policy(struct loader *l, const struct ynode *root)
{
	const struct ynode *m = map_get(root, "policy", NULL), *v;
	struct registry_policy *p = &l->r->policy;
	int ret;

	p->poll_s = REGISTRY_DEFAULT_POLL_S;
	p->max_heads = REGISTRY_DEFAULT_MAX_HEADS;
	p->bisect_max_runs = REGISTRY_DEFAULT_BISECT_MAX_RUNS;
	p->families = REGISTRY_DEFAULT_FAMILIES;
	if (!m || (m->type == YNODE_SCALAR && m->null))
		return 0;
	if ((ret = need_map(l, m, "policy", "poll:, max_heads:, bisect_max_runs:, families:, min_change:, on:")) ||
	    (ret = check_keys(l, m, policy_keys, "policy")))
		return ret;
	if ((v = map_get(m, "poll", NULL)) && (ret = get_duration(l, "poll", v, &p->poll_s)))
		return ret;
	if ((v = map_get(m, "max_heads", NULL)) &&
	    (ret = get_ulong(l, "max_heads", v, 1, REGISTRY_MAX_HEADS, &p->max_heads)))
		return ret;
	if ((v = map_get(m, "bisect_max_runs", NULL)) &&
	    (ret = get_ulong(l, "bisect_max_runs", v, 1, REGISTRY_MAX_BISECT_RUNS,
			     &p->bisect_max_runs)))
		return ret;
	/* the box (or class: docs/fleet.md) is checked when the store is open (perfbot watch) */
	if ((v = map_get(m, "on", NULL))) {
		if ((ret = get_scalar(l, "on", v)))
			return ret;
		p->on = strdup(v->scalar);
		if (!p->on)
			return -ENOMEM;
	}
	if ((v = map_get(m, "families", NULL))) {
		char **list;
		size_t n;

		if ((ret = get_list(l, "families", v, check_family, true, &list, &n)))
			return ret;
		p->families = 0;
		for (size_t i = 0; i < n; i++)
			for (size_t f = 0; f < NR_FAMILIES; f++)
				if (!strcmp(list[i], family_names[family_order[f]]))
					p->families |= REGISTRY_FAMILY(family_order[f]);
		free_strv(list);
		if (!n)
			return fail(l, v, "'families' is empty: no change could lead to a report (give kpi, failure or other)");
	}
	if ((v = map_get(m, "min_change", NULL))) {
		struct strbuf num = STRBUF_INIT;
		double x = 0;
		bool ok;

		if ((ret = get_scalar(l, "min_change", v)))
			return ret;
		strbuf_addstr(&num, v->scalar);
		if (num.len && num.buf[num.len - 1] == '%')
			strbuf_setlen(&num, num.len - 1);
		if (strbuf_error(&num))
			return -ENOMEM;
		/* the decimal grammar of durations: a bare number of seconds */
		ok = num.len && !strpbrk(num.buf, "eE") && parse_double(num.buf, &x) == PARSE_OK &&
		     (isdigit((unsigned char)num.buf[0]) || num.buf[0] == '.');
		strbuf_release(&num);
		if (!ok)
			return fail(l, v, "min_change '%s' is not a percentage (a decimal number such as 2 or 2.5%%)",
				    v->scalar);
		if (x > REGISTRY_MAX_MIN_CHANGE)
			return fail(l, v, "min_change '%s' is more than %.0f%%", v->scalar,
				    REGISTRY_MAX_MIN_CHANGE);
		p->min_change_set = true;
		p->min_change_pct = x;
	}
	return 0;
}

/* ---- load ---- */

/* ytree_load() speaks of job files; this is a registry. */
static void reword(struct job_error *err)
{
	static const struct { const char *from, *to; } words[] = {
		{ "cannot read the job file", "cannot read the registry" },
		{ "a job file holds one yaml document", "a registry holds one yaml document" },
		{ "not supported in job files", "not supported in a registry" },
	};
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		const char *at = strstr(err->msg.buf, words[i].from);

		if (!at)
			continue;
		strbuf_add(&sb, err->msg.buf, at - err->msg.buf);
		strbuf_addstr(&sb, words[i].to);
		strbuf_addstr(&sb, at + strlen(words[i].from));
		if (!strbuf_error(&sb))
			strbuf_setf(&err->msg, "%s", sb.buf);
		break;
	}
	strbuf_release(&sb);
}

static int registry_dir(const char *path, char **out)
{
	const char *slash = strrchr(path, '/');
	char *dir;

	if (!slash)
		dir = strdup(".");
	else if (slash == path)
		dir = strdup("/");
	else
		dir = strndup(path, slash - path);
	if (!dir)
		return -ENOMEM;
	*out = realpath(dir, NULL);
	free(dir);
	if (!*out)
		return errno == ENOMEM ? -ENOMEM : -errno;
	/* "/" + "/x" would give "//x": keep the root without its slash */
	if (!strcmp(*out, "/"))
		(*out)[0] = '\0';
	return 0;
}

int registry_load_opts(const char *path, unsigned flags, struct registry **out,
		       struct job_error *err)
{
	struct loader l = { .path = path, .flags = flags, .err = err };
	struct ynode *root = NULL;
	int ret;

	job_error_init(err);
	*out = NULL;
	ret = ytree_load(path, &root, err);
	if (ret) {
		reword(err);
		goto out;
	}
	l.r = calloc(1, sizeof(*l.r));
	if (!l.r) {
		ret = -ENOMEM;
		goto out;
	}
	if (!(l.r->path = strdup(path))) {
		ret = -ENOMEM;
		goto out;
	}
	if ((ret = registry_dir(path, &l.r->dir))) {
		if (ret != -ENOMEM)
			job_error_set(err, path, 0, 0, "cannot resolve the registry's directory: %s",
				      strerror(-ret));
		goto out;
	}
	if (!root) {
		job_error_set(err, path, 0, 0, "the registry is empty: it needs trees: and report:");
		ret = -EINVAL;
		goto out;
	}
	if ((ret = need_map(&l, root, "the registry", "trees:, report:, policy:")) ||
	    (ret = check_keys(&l, root, top_keys, "the registry")) ||
	    (ret = read_trees(&l, root)) || (ret = read_report(&l, root)) ||
	    (ret = read_policy(&l, root)))
		goto out;
out:
	ytree_free(root);
	if (ret == -ENOMEM)
		job_error_set(err, path, 0, 0, "out of memory");
	if (ret) {
		registry_free(l.r);
		return ret;
	}
	job_error_release(err);
	*out = l.r;
	return 0;
}

int registry_load(const char *path, struct registry **out, struct job_error *err)
{
	return registry_load_opts(path, 0, out, err);
}

static void free_rcpts(struct registry_rcpt *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i].address);
	free(v);
}

void registry_free(struct registry *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nr_trees; i++) {
		struct registry_tree *t = &r->trees[i];

		free(t->name);
		free(t->repo);
		free(t->url);
		free_strv(t->branches);
		free_strv(t->allow);
		free_strv(t->deny);
		for (size_t j = 0; j < t->nr_jobs; j++) {
			free(t->jobs[j].file);
			free_strv(t->jobs[j].set);
		}
		free(t->jobs);
		free(t->base_branch);
	}
	free(r->trees);
	free(r->report.from);
	free_rcpts(r->report.to, r->report.nr_to);
	free_rcpts(r->report.cc, r->report.nr_cc);
	free(r->report.reported_by);
	free(r->report.link);
	free(r->report.outbox);
	free(r->report.publish);
	free(r->policy.on);
	free_strv(r->report.sendmail);
	free(r->path);
	free(r->dir);
	free(r);
}

/* ---- accessors ---- */

const struct registry_tree *registry_tree(const struct registry *r, const char *name)
{
	for (size_t i = 0; i < r->nr_trees; i++)
		if (!strcmp(r->trees[i].name, name))
			return &r->trees[i];
	return NULL;
}

bool registry_branch_wanted(const struct registry_tree *t, const char *name)
{
	bool allowed = false;

	for (size_t i = 0; i < t->nr_branches; i++)
		if (!strcmp(t->branches[i], name))
			return true;
	for (size_t i = 0; !allowed && i < t->nr_allow; i++)
		allowed = !fnmatch(t->allow[i], name, 0);
	for (size_t i = 0; allowed && i < t->nr_deny; i++)
		allowed = fnmatch(t->deny[i], name, 0) != 0;
	return allowed;
}

bool registry_family_wanted(const struct registry *r, enum stat_family f)
{
	return (r->policy.families & REGISTRY_FAMILY(f)) != 0;
}

/* ---- describe ---- */

static bool plain_ok(const char *s)
{
	static const char *const reserved[] = {
		"null", "Null", "NULL", "~", "true", "True", "TRUE", "false", "False",
		"FALSE", "yes", "Yes", "no", "No", "on", "off",
	};

	if (!*s || !(isalnum((unsigned char)s[0]) || s[0] == '/' || s[0] == '_'))
		return false;
	for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
		if (!strcmp(s, reserved[i]))
			return false;
	for (const char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_./+=%-", *p))
			return false;
	return true;
}

/* A scalar YAML reads back as the same text: plain, or double-quoted. */
static void put_scalar(FILE *f, const char *s)
{
	if (plain_ok(s)) {
		fputs(s, f);
		return;
	}
	yaml_put_quoted(f, s);
}

static void put_key(FILE *f, int indent, const char *key, const char *value)
{
	fprintf(f, "%*s%s: ", indent, "", key);
	put_scalar(f, value);
}

static void put_list(FILE *f, int indent, const char *key, char *const *v, size_t n)
{
	fprintf(f, "%*s%s:", indent, "", key);
	if (!n) {
		fputs(" []\n", f);
		return;
	}
	fputc('\n', f);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%*s  - ", indent, "");
		put_scalar(f, v[i]);
		fputc('\n', f);
	}
}

static void put_default(FILE *f, bool is_default)
{
	fputs(is_default ? "  # default\n" : "\n", f);
}

/* Durations in the largest unit that divides them. */
static void put_duration(FILE *f, int indent, const char *key, double s, double def)
{
	static const struct { const char *unit; double scale; } units[] = {
		{ "w", 7 * 86400 }, { "d", 86400 }, { "h", 3600 }, { "m", 60 }, { "s", 1 },
	};
	size_t i = 0;

	while (i + 1 < sizeof(units) / sizeof(units[0]) && fmod(s, units[i].scale) != 0)
		i++;
	fprintf(f, "%*s%s: %.0f%s", indent, "", key, s / units[i].scale, units[i].unit);
	put_default(f, s == def);
}

static void put_rcpts(FILE *f, const char *key, const struct registry_rcpt *v, size_t n,
		      bool is_default)
{
	fprintf(f, "  %s:", key);
	if (!n) {
		fputs(" []", f);
		put_default(f, is_default);
		return;
	}
	put_default(f, is_default);
	for (size_t i = 0; i < n; i++) {
		fputs("    - ", f);
		put_scalar(f, v[i].kind == REGISTRY_RCPT_ADDRESS ? v[i].address
								  : rcpt_rules[v[i].kind]);
		fputc('\n', f);
	}
}

int registry_describe(FILE *f, const struct registry *r)
{
	const struct registry_report *rep = &r->report;
	const struct registry_policy *p = &r->policy;

	fputs("# perfbot registry ", f);
	put_scalar(f, r->path);
	fputs(", resolved: paths absolute, defaults marked\ntrees:\n", f);
	for (size_t i = 0; i < r->nr_trees; i++) {
		const struct registry_tree *t = &r->trees[i];

		fputs("  - name: ", f);
		put_scalar(f, t->name);
		fputc('\n', f);
		if (t->repo) {
			put_key(f, 4, "repo", t->repo);
			fputs(t->url ? "  # the local mirror\n" : "\n", f);
		} else {
			fputs("    # repo: none given, the loop keeps the mirror\n", f);
		}
		if (t->url) {
			put_key(f, 4, "url", t->url);
			fputc('\n', f);
		}
		put_list(f, 4, "branches", t->branches, t->nr_branches);
		put_list(f, 4, "allow", t->allow, t->nr_allow);
		put_list(f, 4, "deny", t->deny, t->nr_deny);
		fputs("    jobs:\n", f);
		for (size_t j = 0; j < t->nr_jobs; j++) {
			fputs("      - file: ", f);
			put_scalar(f, t->jobs[j].file);
			fputc('\n', f);
			put_list(f, 8, "set", t->jobs[j].set, t->jobs[j].nr_set);
		}
		if (t->base == REGISTRY_BASE_UPSTREAM) {
			fputs("    base:\n      upstream: ", f);
			put_scalar(f, t->base_branch);
			fputs("  # the merge base with it\n", f);
		} else {
			fputs("    base: previous  # default: the previous tested head\n", f);
		}
		fprintf(f, "    priority: %lu", t->priority);
		put_default(f, t->priority == REGISTRY_DEFAULT_PRIORITY);
		put_duration(f, 4, "max_age", t->max_age_s, REGISTRY_DEFAULT_MAX_AGE_S);
	}

	fputs("report:\n", f);
	put_key(f, 2, "from", rep->from);
	put_default(f, !strcmp(rep->from, REGISTRY_DEFAULT_FROM));
	put_rcpts(f, "to", rep->to, rep->nr_to,
		  rep->nr_to == 1 && rep->to[0].kind == REGISTRY_RCPT_AUTHOR);
	put_rcpts(f, "cc", rep->cc, rep->nr_cc, !rep->nr_cc);
	put_key(f, 2, "reported_by", rep->reported_by);
	fputs(!strcmp(rep->reported_by, rep->from) ? "  # default: from\n" : "\n", f);
	if (rep->link) {
		put_key(f, 2, "link", rep->link);
		fputc('\n', f);
	} else {
		fputs("  # link: none, no Closes: line\n", f);
	}
	if (rep->outbox) {
		put_key(f, 2, "outbox", rep->outbox);
		fputc('\n', f);
	} else {
		fputs("  # outbox: none, mail only through sendmail\n", f);
	}
	if (rep->sendmail) {
		size_t n = 0;

		while (rep->sendmail[n])
			n++;
		put_list(f, 2, "sendmail", rep->sendmail, n);
	} else {
		fputs("  # sendmail: none, the outbox only\n", f);
	}
	fprintf(f, "  follow_up: %s", rep->follow_up ? "true" : "false");
	put_default(f, !rep->follow_up);
	if (rep->publish) {
		put_key(f, 2, "publish", rep->publish);
		fputc('\n', f);
	} else {
		fputs("  # publish: none, no site\n", f);
	}

	fputs("policy:\n", f);
	put_duration(f, 2, "poll", p->poll_s, REGISTRY_DEFAULT_POLL_S);
	fprintf(f, "  max_heads: %lu", p->max_heads);
	put_default(f, p->max_heads == REGISTRY_DEFAULT_MAX_HEADS);
	fprintf(f, "  bisect_max_runs: %lu", p->bisect_max_runs);
	put_default(f, p->bisect_max_runs == REGISTRY_DEFAULT_BISECT_MAX_RUNS);
	if (p->on) {
		fputs("  on: ", f);
		put_scalar(f, p->on);
		fputc('\n', f);
	} else {
		fputs("  # on: none, the runs made here\n", f);
	}
	fputs("  families: [", f);
	for (size_t i = 0, n = 0; i < NR_FAMILIES; i++)
		if (p->families & REGISTRY_FAMILY(family_order[i]))
			fprintf(f, "%s%s", n++ ? ", " : "", family_names[family_order[i]]);
	fputc(']', f);
	put_default(f, p->families == REGISTRY_DEFAULT_FAMILIES);
	if (p->min_change_set) {
		/* no exponent (the grammar has none): fixed, trailing zeros cut */
		char num[64];
		size_t n = (size_t)snprintf(num, sizeof(num), "%.12f", p->min_change_pct);

		while (n > 1 && num[n - 1] == '0')
			num[--n] = '\0';
		if (num[n - 1] == '.')
			num[--n] = '\0';
		fprintf(f, "  min_change: %s%%\n", num);
	}
	else
		fprintf(f, "  # min_change: compare's floors, kpi %g%%, other stats %g%%\n",
			COMPARE_KPI_MIN_PCT, COMPARE_OTHER_MIN_PCT);
	return ferror(f) ? -EIO : 0;
}

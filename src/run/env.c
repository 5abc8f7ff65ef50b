#define _GNU_SOURCE
#include "run/env.h"
#include "util/quote.h"
#include "util/strbuf.h"
#include "util/vec.h"
#include "version.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#if defined(__clang__)
#define ENV_COMPILER "clang " __clang_version__
#elif defined(__GNUC__)
#define ENV_COMPILER "gcc " __VERSION__
#else
#define ENV_COMPILER "unknown"
#endif

/*
 * /proc and /sys files are small, but a value must fit in a run's
 * environment (util/quote.h's VALUE_MAX_BYTES): past it, -EFBIG.
 */
#define SMALL_FILE_MAX VALUE_MAX_BYTES

/*
 * The text of a small file of /proc or /sys, trailing space cut, into out
 * (reset).  The text ends at the end of the file or at a NUL, as a sysfs
 * attribute's does (a device that reads as zeros is an empty text).
 */
static int read_small(const char *path, struct strbuf *out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;
	char chunk[4096];

	strbuf_reset(out);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		size_t text;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n < 0 ? -errno : 0;
			break;
		}
		text = strnlen(chunk, (size_t)n);
		strbuf_add(out, chunk, text);
		if (text < (size_t)n)
			break;
		if (out->len > SMALL_FILE_MAX) {
			ret = -EFBIG;
			break;
		}
	}
	close(fd);
	if (!ret)
		ret = strbuf_error(out);
	strbuf_rtrim(out);
	return ret;
}

static const char *skip_space(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/*
 * The value of the first "key : value" line of a /proc file whose key is
 * exactly `key` (cpuinfo pads keys with tabs), into out (reset).
 */
static int proc_field(const char *path, const char *key, struct strbuf *out)
{
	char *line = NULL;
	size_t cap = 0, klen = strlen(key);
	int ret = -ENOENT;
	FILE *f = fopen(path, "re");

	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		const char *p;
		size_t vlen;

		if (strncmp(line, key, klen))
			continue;
		p = skip_space(line + klen);
		if (*p != ':')
			continue;
		p = skip_space(p + 1);
		vlen = strcspn(p, "\n");
		while (vlen > 0 && isspace((unsigned char)p[vlen - 1]))
			vlen--;
		strbuf_reset(out);
		strbuf_add(out, p, vlen);
		ret = strbuf_error(out);
		break;
	}
	free(line);
	fclose(f);
	return ret;
}

void env_format_memory(unsigned long long kib, char *buf, size_t len)
{
	if (kib >= 1024ULL * 1024)
		snprintf(buf, len, "%lluG", kib / (1024ULL * 1024));
	else
		snprintf(buf, len, "%lluM", kib / 1024);
}

/* "always [madvise] never" -> "madvise", in place */
static void bracketed(struct strbuf *sb)
{
	char *open = strchr(sb->buf, '['), *close = open ? strchr(open, ']') : NULL;
	size_t n;

	if (!open || !close)
		return;
	n = (size_t)(close - open - 1);
	memmove(sb->buf, open + 1, n);
	strbuf_setlen(sb, n);
}

static void unavailable(struct strbuf *out, const char *what, int err)
{
	strbuf_setf(out, "unavailable: %s: %s", what, strerror(-err));
}

static void cpu_model(struct strbuf *out)
{
	static const char *const keys[] = { "model name", "Model name",
					    "cpu model", "Processor" };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (proc_field("/proc/cpuinfo", keys[i], out) == 0 && out->len)
			return;
	strbuf_setf(out, "unknown CPU");
}

static void memory(struct strbuf *out)
{
	char mem[64];
	int ret = proc_field("/proc/meminfo", "MemTotal", out);

	if (ret) {
		unavailable(out, "/proc/meminfo", ret);
		return;
	}
	env_format_memory(strtoull(out->buf, NULL, 10), mem, sizeof(mem));
	strbuf_setf(out, "%s", mem);
}

static void thp(const char *file, struct strbuf *out)
{
	struct strbuf path = STRBUF_INIT;
	int ret;

	strbuf_addf(&path, "/sys/kernel/mm/transparent_hugepage/%s", file);
	ret = strbuf_error(&path) ? -ENOMEM : read_small(path.buf, out);
	if (ret)
		unavailable(out, "no transparent hugepages", ret);
	else
		bracketed(out);
	strbuf_release(&path);
}

int env_capture(struct strmap *env, struct strbuf *err)
{
	struct strbuf model = STRBUF_INIT, mem = STRBUF_INIT, buf = STRBUF_INIT;
	/* HOST_NAME_MAX is 64 */
	char host[256];
	struct utsname u;
	long nr_cpu = sysconf(_SC_NPROCESSORS_ONLN);
	int ret = 0, r;

	if (gethostname(host, sizeof(host)))
		snprintf(host, sizeof(host), "unknown");
	host[sizeof(host) - 1] = '\0';
	if (uname(&u))
		memset(&u, 0, sizeof(u));
	cpu_model(&model);
	memory(&mem);

	if ((ret = strbuf_error(&model)) || (ret = strbuf_error(&mem)) ||
	    (ret = strmap_set(env, "testbox", host)) ||
	    (ret = strmap_set(env, "kernel", u.release)) ||
	    (ret = strmap_set(env, "kernel_version", u.version)) ||
	    (ret = strmap_set(env, "arch", u.machine)))
		goto out;

	r = read_small("/proc/cmdline", &buf);
	if (r)
		unavailable(&buf, "/proc/cmdline", r);
	if ((ret = strmap_set(env, "kernel_cmdline", buf.buf)) ||
	    (ret = strmap_set(env, "cpu_model", model.buf)) ||
	    (ret = strmap_setf(env, "nr_cpu", "%ld", nr_cpu)) ||
	    (ret = strmap_set(env, "memory", mem.buf)))
		goto out;

	/* a VM often hides it: say so, a microcode update changes results */
	r = proc_field("/proc/cpuinfo", "microcode", &buf);
	if (r)
		unavailable(&buf, "not in /proc/cpuinfo", r);
	if ((ret = strmap_set(env, "microcode", buf.buf)))
		goto out;

	r = read_small(ENV_SYSFS_CPU "/cpu0/cpufreq/scaling_governor", &buf);
	if (r)
		strbuf_setf(&buf, "unavailable: no cpufreq");
	if ((ret = strmap_set(env, "cpufreq_governor", buf.buf)))
		goto out;

	thp("enabled", &buf);
	if ((ret = strmap_set(env, "thp_enabled", buf.buf)))
		goto out;
	thp("defrag", &buf);
	if ((ret = strmap_set(env, "thp_defrag", buf.buf)) ||
	    (ret = strmap_set(env, "compiler", ENV_COMPILER)) ||
	    (ret = strmap_set(env, "perfbot_version", PERFBOT_VERSION)))
		goto out;

	r = read_small("/proc/sys/kernel/randomize_va_space", &buf);
	if (r)
		unavailable(&buf, "randomize_va_space", r);
	if ((ret = strmap_set(env, "aslr", buf.buf)))
		goto out;

	ret = strmap_setf(env, "machine", "%ld threads %s with %s memory",
			  nr_cpu, model.buf, mem.buf);
out:
	if (ret && err)
		strbuf_setf(err, "environment: %s", strerror(-ret));
	strbuf_release(&model);
	strbuf_release(&mem);
	strbuf_release(&buf);
	return ret;
}

/* cpufreq */

struct cpufreq_entry {
	char *path;		/* .../cpuN/cpufreq/scaling_governor */
	char *old;
};

struct cpufreq_saved {
	struct cpufreq_entry *v;
	size_t n, cap;
};

static int write_small(const char *path, const char *value)
{
	size_t len = strlen(value);
	ssize_t n;
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = write(fd, value, len);
	if (n < 0)
		n = -errno;
	else if ((size_t)n != len)
		n = -EIO;
	if (close(fd) && n >= 0)
		n = -errno;
	return n < 0 ? (int)n : 0;
}

/* Is `word` one of the space-separated words of list? */
static bool has_word(const char *list, const char *word)
{
	size_t wlen = strlen(word);

	for (const char *p = list; *p;) {
		size_t n;

		p = skip_space(p);
		n = strcspn(p, " \t\n");
		if (n == wlen && !strncmp(p, word, n))
			return true;
		p += n;
	}
	return false;
}

static bool is_cpu_dir(const char *name)
{
	if (strncmp(name, "cpu", 3) || !name[3])
		return false;
	for (const char *p = name + 3; *p; p++)
		if (!isdigit((unsigned char)*p))
			return false;
	return true;
}

void cpufreq_restore(struct cpufreq_saved *saved)
{
	if (!saved)
		return;
	/* best effort: a CPU that went offline keeps what it had */
	for (size_t i = 0; i < saved->n; i++) {
		write_small(saved->v[i].path, saved->v[i].old);
		free(saved->v[i].path);
		free(saved->v[i].old);
	}
	free(saved->v);
	free(saved);
}

/* Check and remember one CPU's governor; 0 when it has no cpufreq. */
static int save_cpu(struct cpufreq_saved *s, const char *cpu_root,
		    const char *cpu, const char *governor, struct strbuf *why)
{
	struct strbuf path = STRBUF_INIT, buf = STRBUF_INIT;
	struct cpufreq_entry e = { 0 };
	int ret;

	strbuf_addf(&path, "%s/%s/cpufreq/scaling_available_governors", cpu_root, cpu);
	ret = strbuf_error(&path) ? -ENOMEM : read_small(path.buf, &buf);
	if (ret == -ENOENT) {
		ret = 0;	/* offline, or a CPU without a driver */
		goto out;
	}
	if (ret) {
		strbuf_setf(why, "%s: %s", path.buf, strerror(-ret));
		goto out;
	}
	if (!has_word(buf.buf, governor)) {
		strbuf_setf(why, "%s: no governor '%s' (available: %s)", cpu, governor,
			    buf.buf);
		ret = -EINVAL;
		goto out;
	}
	strbuf_reset(&path);
	strbuf_addf(&path, "%s/%s/cpufreq/scaling_governor", cpu_root, cpu);
	ret = strbuf_error(&path) ? -ENOMEM : read_small(path.buf, &buf);
	if (ret) {
		strbuf_setf(why, "%s: %s", path.buf, strerror(-ret));
		goto out;
	}
	e.path = strbuf_detach(&path, NULL);
	e.old = strbuf_detach(&buf, NULL);
	if (!e.path || !e.old || vec_push(s, e)) {
		free(e.path);
		free(e.old);
		strbuf_setf(why, "cpufreq: %s", strerror(ENOMEM));
		ret = -ENOMEM;
	}
out:
	strbuf_release(&path);
	strbuf_release(&buf);
	return ret;
}

int cpufreq_set_governor_at(const char *cpu_root, const char *governor,
			    struct cpufreq_saved **saved, struct strbuf *why)
{
	struct strbuf path = STRBUF_INIT;
	struct cpufreq_saved *s = NULL;
	size_t changed = 0;
	struct dirent *d;
	struct stat st;
	DIR *dir = NULL;
	int ret = 0;

	*saved = NULL;
	strbuf_addf(&path, "%s/cpu0/cpufreq", cpu_root);
	if (strbuf_error(&path)) {
		strbuf_setf(why, "cpufreq: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	ret = stat(path.buf, &st) || !S_ISDIR(st.st_mode) ? -ENOTSUP : 0;
	strbuf_release(&path);
	if (ret) {
		strbuf_setf(why, "no cpufreq on this machine");
		return ret;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		ret = -ENOMEM;
		strbuf_setf(why, "cpufreq: %s", strerror(ENOMEM));
		goto out;
	}
	dir = opendir(cpu_root);
	if (!dir) {
		ret = -errno;
		strbuf_setf(why, "%s: %s", cpu_root, strerror(-ret));
		goto out;
	}
	/* check every CPU first, so that a bad name changes nothing */
	while ((d = readdir(dir))) {
		if (!is_cpu_dir(d->d_name))
			continue;
		ret = save_cpu(s, cpu_root, d->d_name, governor, why);
		if (ret)
			goto out;
	}
	for (size_t i = 0; i < s->n; i++) {
		ret = write_small(s->v[i].path, governor);
		if (ret) {
			strbuf_setf(why, "%s: cannot write '%s': %s", s->v[i].path,
				    governor, strerror(-ret));
			goto out;
		}
		changed = i + 1;
	}
	*saved = s;
	s = NULL;
out:
	if (s) {
		/* put back the CPUs already changed; forget the others */
		for (size_t i = changed; i < s->n; i++) {
			free(s->v[i].path);
			free(s->v[i].old);
		}
		s->n = changed;
		cpufreq_restore(s);
	}
	if (dir)
		closedir(dir);
	return ret;
}

int cpufreq_set_governor(const char *governor, struct cpufreq_saved **saved,
			 struct strbuf *why)
{
	return cpufreq_set_governor_at(ENV_SYSFS_CPU, governor, saved, why);
}

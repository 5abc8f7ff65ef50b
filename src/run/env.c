#define _GNU_SOURCE
#include "run/env.h"
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

/* Small files of /proc and /sys: the first len-1 bytes, trailing space cut. */
static int read_small(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	do {
		n = read(fd, buf, len - 1);
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	close(fd);
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		n--;
	buf[n] = '\0';
	return 0;
}

static const char *skip_space(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/*
 * The value of the first "key : value" line of a /proc file whose key is
 * exactly `key` (cpuinfo pads keys with tabs).
 */
static int proc_field(const char *path, const char *key, char *buf, size_t len)
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
		snprintf(buf, len, "%.*s", (int)vlen, p);
		ret = 0;
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

/* "always [madvise] never" -> "madvise" */
static void bracketed(const char *s, char *buf, size_t len)
{
	const char *open = strchr(s, '['), *close = open ? strchr(open, ']') : NULL;

	if (open && close)
		snprintf(buf, len, "%.*s", (int)(close - open - 1), open + 1);
	else
		snprintf(buf, len, "%s", s);
}

static void unavailable(char *buf, size_t len, const char *what, int err)
{
	snprintf(buf, len, "unavailable: %s: %s", what, strerror(-err));
}

static void cpu_model(char *buf, size_t len)
{
	static const char *const keys[] = { "model name", "Model name",
					    "cpu model", "Processor" };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (proc_field("/proc/cpuinfo", keys[i], buf, len) == 0 && *buf)
			return;
	snprintf(buf, len, "unknown CPU");
}

static void memory(char *buf, size_t len)
{
	char kb[64];
	int ret = proc_field("/proc/meminfo", "MemTotal", kb, sizeof(kb));

	if (ret) {
		unavailable(buf, len, "/proc/meminfo", ret);
		return;
	}
	env_format_memory(strtoull(kb, NULL, 10), buf, len);
}

static void thp(const char *file, char *buf, size_t len)
{
	char path[128], raw[256];
	int ret;

	snprintf(path, sizeof(path), "/sys/kernel/mm/transparent_hugepage/%s", file);
	ret = read_small(path, raw, sizeof(raw));
	if (ret)
		unavailable(buf, len, "no transparent hugepages", ret);
	else
		bracketed(raw, buf, len);
}

int env_capture(struct strmap *env, char *err, size_t errlen)
{
	char host[256], model[256], mem[64], buf[4096];
	struct utsname u;
	long nr_cpu = sysconf(_SC_NPROCESSORS_ONLN);
	int ret = 0, r;

	if (gethostname(host, sizeof(host)))
		snprintf(host, sizeof(host), "unknown");
	host[sizeof(host) - 1] = '\0';
	if (uname(&u))
		memset(&u, 0, sizeof(u));
	cpu_model(model, sizeof(model));
	memory(mem, sizeof(mem));

	if ((ret = strmap_set(env, "testbox", host)) ||
	    (ret = strmap_set(env, "kernel", u.release)) ||
	    (ret = strmap_set(env, "kernel_version", u.version)) ||
	    (ret = strmap_set(env, "arch", u.machine)))
		goto out;

	r = read_small("/proc/cmdline", buf, sizeof(buf));
	if (r)
		unavailable(buf, sizeof(buf), "/proc/cmdline", r);
	if ((ret = strmap_set(env, "kernel_cmdline", buf)) ||
	    (ret = strmap_set(env, "cpu_model", model)) ||
	    (ret = strmap_setf(env, "nr_cpu", "%ld", nr_cpu)) ||
	    (ret = strmap_set(env, "memory", mem)))
		goto out;

	/* a VM often hides it: say so, a microcode update changes results */
	r = proc_field("/proc/cpuinfo", "microcode", buf, sizeof(buf));
	if (r)
		unavailable(buf, sizeof(buf), "not in /proc/cpuinfo", r);
	if ((ret = strmap_set(env, "microcode", buf)))
		goto out;

	r = read_small(ENV_SYSFS_CPU "/cpu0/cpufreq/scaling_governor", buf,
		       sizeof(buf));
	if (r)
		snprintf(buf, sizeof(buf), "unavailable: no cpufreq");
	if ((ret = strmap_set(env, "cpufreq_governor", buf)))
		goto out;

	thp("enabled", buf, sizeof(buf));
	if ((ret = strmap_set(env, "thp_enabled", buf)))
		goto out;
	thp("defrag", buf, sizeof(buf));
	if ((ret = strmap_set(env, "thp_defrag", buf)) ||
	    (ret = strmap_set(env, "compiler", ENV_COMPILER)) ||
	    (ret = strmap_set(env, "perfbot_version", PERFBOT_VERSION)))
		goto out;

	r = read_small("/proc/sys/kernel/randomize_va_space", buf, sizeof(buf));
	if (r)
		unavailable(buf, sizeof(buf), "randomize_va_space", r);
	if ((ret = strmap_set(env, "aslr", buf)))
		goto out;

	ret = strmap_setf(env, "machine", "%ld threads %s with %s memory",
			  nr_cpu, model, mem);
out:
	if (ret)
		snprintf(err, errlen, "environment: %s", strerror(-ret));
	return ret;
}

/* cpufreq */

struct cpufreq_entry {
	char *path;		/* .../cpuN/cpufreq/scaling_governor */
	char *old;
};

struct cpufreq_saved {
	struct cpufreq_entry *v;
	size_t n;
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
		    const char *cpu, const char *governor, char *why,
		    size_t whylen)
{
	char path[4096], buf[1024];
	struct cpufreq_entry *e;
	int ret;

	snprintf(path, sizeof(path), "%s/%s/cpufreq/scaling_available_governors",
		 cpu_root, cpu);
	ret = read_small(path, buf, sizeof(buf));
	if (ret == -ENOENT)
		return 0;	/* offline, or a CPU without a driver */
	if (ret) {
		snprintf(why, whylen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	if (!has_word(buf, governor)) {
		snprintf(why, whylen, "%s: no governor '%s' (available: %s)",
			 cpu, governor, buf);
		return -EINVAL;
	}
	snprintf(path, sizeof(path), "%s/%s/cpufreq/scaling_governor",
		 cpu_root, cpu);
	ret = read_small(path, buf, sizeof(buf));
	if (ret) {
		snprintf(why, whylen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	e = reallocarray(s->v, s->n + 1, sizeof(*s->v));
	if (!e)
		goto nomem;
	s->v = e;
	e = &s->v[s->n];
	e->path = strdup(path);
	e->old = strdup(buf);
	if (!e->path || !e->old) {
		free(e->path);
		free(e->old);
		goto nomem;
	}
	s->n++;
	return 0;
nomem:
	snprintf(why, whylen, "cpufreq: %s", strerror(ENOMEM));
	return -ENOMEM;
}

int cpufreq_set_governor_at(const char *cpu_root, const char *governor,
			    struct cpufreq_saved **saved, char *why,
			    size_t whylen)
{
	struct cpufreq_saved *s = NULL;
	size_t changed = 0;
	struct dirent *d;
	struct stat st;
	char path[4096];
	DIR *dir = NULL;
	int ret = 0;

	*saved = NULL;
	snprintf(path, sizeof(path), "%s/cpu0/cpufreq", cpu_root);
	if (stat(path, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(why, whylen, "no cpufreq on this machine");
		return -ENOTSUP;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		ret = -ENOMEM;
		snprintf(why, whylen, "cpufreq: %s", strerror(ENOMEM));
		goto out;
	}
	dir = opendir(cpu_root);
	if (!dir) {
		ret = -errno;
		snprintf(why, whylen, "%s: %s", cpu_root, strerror(-ret));
		goto out;
	}
	/* check every CPU first, so that a bad name changes nothing */
	while ((d = readdir(dir))) {
		if (!is_cpu_dir(d->d_name))
			continue;
		ret = save_cpu(s, cpu_root, d->d_name, governor, why, whylen);
		if (ret)
			goto out;
	}
	for (size_t i = 0; i < s->n; i++) {
		ret = write_small(s->v[i].path, governor);
		if (ret) {
			snprintf(why, whylen, "%s: cannot write '%s': %s",
				 s->v[i].path, governor, strerror(-ret));
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
			 char *why, size_t whylen)
{
	return cpufreq_set_governor_at(ENV_SYSFS_CPU, governor, saved, why,
				       whylen);
}

/* Scanners for /proc texts and /dev/kmsg records; see parse.h. */
#define _GNU_SOURCE
#include "monitor/parse.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

static const char *skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* NULL when there is no digit at p. */
static const char *scan_u64(const char *p, uint64_t *v)
{
	uint64_t x = 0;

	if (!isdigit((unsigned char)*p))
		return NULL;
	while (isdigit((unsigned char)*p))
		x = x * 10 + (uint64_t)(*p++ - '0');
	*v = x;
	return p;
}

static const char *next_line(const char *p)
{
	const char *nl = strchr(p, '\n');

	return nl ? nl + 1 : p + strlen(p);
}

int mon_parse_kv(const char *text, mon_kv_fn fn, void *arg)
{
	size_t idx = 0;

	for (const char *p = text; *p; p = next_line(p)) {
		const char *name, *q;
		uint64_t v;
		size_t n;

		p = skip_blanks(p);
		if (*p == '\n')
			continue;
		name = p;
		while (*p && *p != ':' && !isspace((unsigned char)*p))
			p++;
		n = (size_t)(p - name);
		if (*p == ':')
			p++;
		q = scan_u64(skip_blanks(p), &v);
		if (!n || !q)
			return -EPROTO;
		fn(arg, idx++, name, n, v);
	}
	return (int)idx;
}

static bool field(const char *line, const char *key, uint64_t *v)
{
	size_t n = strlen(key);

	return !strncmp(line, key, n) && line[n] == ' ' &&
	       scan_u64(skip_blanks(line + n), v);
}

int mon_parse_stat(const char *text, struct mon_stat *out)
{
	unsigned have = 0;

	memset(out, 0, sizeof(*out));
	for (const char *p = text; *p; p = next_line(p)) {
		if (!strncmp(p, "cpu ", 4)) {
			if (procstat_parse(p, &out->cpu))
				return -EPROTO;
			have |= 1;
		} else if (field(p, "ctxt", &out->ctxt)) {
			have |= 2;
		} else if (field(p, "intr", &out->intr)) {
			have |= 4;
		} else if (field(p, "procs_running", &out->procs_running)) {
			have |= 8;
		} else if (field(p, "procs_blocked", &out->procs_blocked)) {
			have |= 16;
		}
	}
	return have == 31 ? 0 : -EPROTO;
}

int mon_parse_cpu_header(const char *text, unsigned *cpus, size_t max)
{
	const char *p = text;
	size_t n = 0;

	for (;;) {
		uint64_t cpu;

		p = skip_blanks(p);
		if (!*p || *p == '\n')
			break;
		if (strncmp(p, "CPU", 3) || !(p = scan_u64(p + 3, &cpu)) ||
		    (*p && !isspace((unsigned char)*p)))
			return -EPROTO;
		if (n < max)
			cpus[n] = (unsigned)cpu;
		n++;
	}
	return n ? (int)n : -EPROTO;
}

/* Append s[0..n) to the key, truncating; keeps the NUL. */
static void key_append(char *key, size_t *k, size_t keylen, const char *s,
		       size_t n)
{
	while (n-- && *k + 1 < keylen)
		key[(*k)++] = *s++;
	key[*k] = '\0';
}

int mon_parse_rows(const char *text, size_t ncpus, bool softirqs,
		   uint64_t *vals, char *keybuf, size_t keylen, mon_row_fn fn,
		   void *arg)
{
	const char *p = next_line(text);	/* past the CPU header */
	size_t idx = 0;

	if (!keylen)
		return -EINVAL;
	for (; *p; p = next_line(p)) {
		const char *tok;
		size_t nv = 0, k = 0, ndesc = 0, toklen;
		bool numeric;

		p = skip_blanks(p);
		if (*p == '\n')
			continue;
		tok = p;
		while (*p && !isspace((unsigned char)*p))
			p++;
		/* a row of an unknown shape is skipped, not fatal */
		if (p == tok || p[-1] != ':')
			continue;
		toklen = (size_t)(p - tok);
		numeric = isdigit((unsigned char)*tok);
		while (nv < ncpus) {
			const char *q = scan_u64(skip_blanks(p), &vals[nv]);

			if (!q)
				break;
			p = q;
			nv++;
		}
		/* the key: the name with its colon, then the description */
		keybuf[0] = '\0';
		key_append(keybuf, &k, keylen, tok, toklen);
		while (!softirqs) {
			const char *d;

			p = skip_blanks(p);
			if (!*p || *p == '\n')
				break;
			d = p;
			while (*p && !isspace((unsigned char)*p))
				p++;
			/* LKP: "IR-PCI-MSI 1-edge eth0" joins with '.', ",." -> "," */
			if (ndesc++ && !(numeric && keybuf[k - 1] == ','))
				key_append(keybuf, &k, keylen, numeric ? "." : "_", 1);
			key_append(keybuf, &k, keylen, d, (size_t)(p - d));
		}
		if (!ndesc) {
			/* "ERR:  0", softirqs' "SCHED:": the bare name */
			if (toklen - 1 < k)
				k = toklen - 1;
			keybuf[k] = '\0';
		}
		if (nv)
			fn(arg, idx++, keybuf, vals, nv);
	}
	return (int)idx;
}

const char *mon_kmsg_message(const char *rec, size_t reclen, size_t *len)
{
	const char *semi = memchr(rec, ';', reclen), *nl;

	if (!semi || !isdigit((unsigned char)rec[0]))
		return NULL;
	semi++;
	nl = memchr(semi, '\n', reclen - (size_t)(semi - rec));
	*len = (size_t)((nl ? nl : rec + reclen) - semi);
	return semi;
}

static const char *const kmsg_patterns[] = {
	"WARNING:", "BUG:", "Oops", "general protection fault",
	"kernel BUG at", "RIP:", "Call Trace", "soft lockup", "hung task",
	"blocked for more than", "Out of memory",
};

bool mon_kmsg_matches(const char *msg, size_t len)
{
	for (size_t i = 0; i < sizeof(kmsg_patterns) / sizeof(kmsg_patterns[0]); i++)
		if (memmem(msg, len, kmsg_patterns[i], strlen(kmsg_patterns[i])))
			return true;
	return false;
}

static bool is_word(int c)
{
	return isalnum(c) || c == '_';
}

/* "CPU: 1 PID: 123" (the context of a WARNING): length, or 0. */
static size_t cpu_pid_len(const char *s, size_t len)
{
	const char *p = s, *e = s + len;

	if (len < 5 || strncmp(p, "CPU: ", 5))
		return 0;
	p += 5;
	while (p < e && isdigit((unsigned char)*p))
		p++;
	if (e - p < 6 || strncmp(p, " PID: ", 6) || !isdigit((unsigned char)p[6]))
		return 0;
	p += 6;
	while (p < e && isdigit((unsigned char)*p))
		p++;
	return (size_t)(p - s);
}

size_t mon_kmsg_normalise(const char *msg, size_t len, char *out,
			  size_t outlen)
{
	/* LKP's names stay short; a long line's tail is mostly noise */
	size_t limit = outlen ? (outlen - 1 < 100 ? outlen - 1 : 100) : 0;
	size_t i = 0, o = 0;
	bool space = false;

	if (!outlen)
		return 0;
	while (i < len && o < limit) {
		char piece[128];
		size_t n = 0, skip;
		unsigned char c = (unsigned char)msg[i];

		if (isspace(c)) {
			space = true;
			i++;
			continue;
		}
		if ((skip = cpu_pid_len(msg + i, len - i))) {
			i += skip;
			continue;
		}
		if (c == '+' && i + 2 < len && msg[i + 1] == '0' &&
		    msg[i + 2] == 'x') {
			/* a function offset: the same bug moves between builds */
			while (i < len && !isspace((unsigned char)msg[i]))
				i++;
			continue;
		}
		if (is_word(c)) {
			size_t j = i, ndig = 0, nhex = 0, lead = 0;

			while (j < len && is_word((unsigned char)msg[j])) {
				unsigned char d = (unsigned char)msg[j];

				ndig += isdigit(d) != 0;
				nhex += isxdigit(d) != 0;
				if (j - i == lead && isdigit(d))
					lead++;
				j++;
			}
			if ((j - i > 2 && msg[i] == '0' && msg[i + 1] == 'x') ||
			    ndig == j - i ||
			    (nhex == j - i && ndig && j - i >= 8)) {
				piece[n++] = '#';
			} else {
				/* "22s" -> "#s"; "x86", "i915" stay words */
				if (lead)
					piece[n++] = '#';
				for (size_t t = i + lead; t < j && n < sizeof(piece); t++)
					piece[n++] = msg[t];
			}
			i = j;
		} else {
			piece[n++] = (char)c;
			i++;
		}
		/* a space between two words is kept as '_', others go */
		if (space && o && isalnum((unsigned char)out[o - 1]) &&
		    isalnum((unsigned char)piece[0]) && o < limit)
			out[o++] = '_';
		space = false;
		for (size_t t = 0; t < n && o < limit; t++)
			out[o++] = piece[t];
	}
	while (o && out[o - 1] == '_')
		o--;
	out[o] = '\0';
	return o;
}

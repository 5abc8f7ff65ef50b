/*
 * harness.c - the run harness of the built-in engines.  See harness.h for
 * the process layout, why a run ends with SIGKILL of a group, and what
 * may be called from a task.
 */
#define _GNU_SOURCE
#include "bench/harness.h"
#include "util/strbuf.h"
#include "util/timeutil.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* harness_wait_ready()'s step: setup takes milliseconds */
#define READY_STEP_S 0.001
/*
 * How long a later reporter waits for the first to finish writing: the
 * copy takes nanoseconds, so only a stopped (SIGSTOP) writer runs it out.
 */
#define WRITTEN_WAIT_MS 1000

/* ---- formatting without locks or allocation ------------------------------ */

struct out {
	char *p;
	size_t size, len;	/* len < size: room for the NUL */
	bool cut;		/* something did not fit */
};

static void put(struct out *o, const char *s, size_t n)
{
	while (n && o->len + 1 < o->size) {
		o->p[o->len++] = *s++;
		n--;
	}
	if (n)
		o->cut = true;
}

static void put_unsigned(struct out *o, unsigned long long v, unsigned base)
{
	char digits[3 * sizeof(v) + 1];
	size_t i = sizeof(digits);

	do {
		digits[--i] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	put(o, digits + i, sizeof(digits) - i);
}

static void put_signed(struct out *o, long long v)
{
	if (v < 0) {
		put(o, "-", 1);
		/* -LLONG_MIN overflows; its unsigned negation does not */
		put_unsigned(o, 0ULL - (unsigned long long)v, 10);
	} else {
		put_unsigned(o, (unsigned long long)v, 10);
	}
}

/* The size modifier of a conversion, as the argument's type picks it. */
enum size_mod { MOD_NONE, MOD_HH, MOD_H, MOD_L, MOD_LL, MOD_Z, MOD_J };

static long long signed_arg(enum size_mod m, va_list *ap)
{
	switch (m) {
	case MOD_HH:
		return (signed char)va_arg(*ap, int);
	case MOD_H:
		return (short)va_arg(*ap, int);
	case MOD_L:
		return va_arg(*ap, long);
	case MOD_LL:
		return va_arg(*ap, long long);
	case MOD_Z:
		return va_arg(*ap, ssize_t);
	case MOD_J:
		return va_arg(*ap, intmax_t);
	default:
		return va_arg(*ap, int);
	}
}

static unsigned long long unsigned_arg(enum size_mod m, va_list *ap)
{
	switch (m) {
	case MOD_HH:
		return (unsigned char)va_arg(*ap, unsigned);
	case MOD_H:
		return (unsigned short)va_arg(*ap, unsigned);
	case MOD_L:
		return va_arg(*ap, unsigned long);
	case MOD_LL:
		return va_arg(*ap, unsigned long long);
	case MOD_Z:
		return va_arg(*ap, size_t);
	case MOD_J:
		return va_arg(*ap, uintmax_t);
	default:
		return va_arg(*ap, unsigned);
	}
}

static enum size_mod size_mod(const char **f)
{
	switch (**f) {
	case 'h':
		if (*++*f == 'h') {
			++*f;
			return MOD_HH;
		}
		return MOD_H;
	case 'l':
		if (*++*f == 'l') {
			++*f;
			return MOD_LL;
		}
		return MOD_L;
	case 'z':
		++*f;
		return MOD_Z;
	case 'j':
		++*f;
		return MOD_J;
	}
	return MOD_NONE;
}

static void vformat(struct out *o, const char *fmt, va_list ap)
{
	va_list args;

	va_copy(args, ap);
	while (*fmt) {
		const char *start = fmt, *s;
		enum size_mod m;
		char c;

		if (*fmt != '%') {
			while (*fmt && *fmt != '%')
				fmt++;
			put(o, start, (size_t)(fmt - start));
			continue;
		}
		fmt++;
		m = size_mod(&fmt);
		switch (*fmt) {
		case 'd':
		case 'i':
			put_signed(o, signed_arg(m, &args));
			break;
		case 'u':
			put_unsigned(o, unsigned_arg(m, &args), 10);
			break;
		case 'x':
			put_unsigned(o, unsigned_arg(m, &args), 16);
			break;
		case 'c':
			c = (char)va_arg(args, int);
			put(o, &c, 1);
			break;
		case 's':
			s = va_arg(args, const char *);
			if (!s)
				s = "(null)";
			put(o, s, strlen(s));
			break;
		case '%':
			put(o, "%", 1);
			break;
		default:
			/* outside the subset: shown as written, nothing consumed */
			if (*fmt)
				fmt++;
			put(o, start, (size_t)(fmt - start));
			continue;
		}
		fmt++;
	}
	va_end(args);
	o->p[o->len] = '\0';
}

size_t harness_vformat(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct out o = { .p = buf, .size = size };

	if (!size)
		return 0;
	vformat(&o, fmt, ap);
	return o.len;
}

size_t harness_vformat_marked(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct out o = { .p = buf, .size = size };
	size_t at;

	if (!size)
		return 0;
	vformat(&o, fmt, ap);
	if (!o.cut || o.len < 3)
		return o.len;
	/* the full buffer's last three bytes, back to a character's start */
	at = o.len - 3;
	while (at && ((unsigned char)buf[at] & 0xc0) == 0x80)
		at--;
	memcpy(buf + at, "...", 4);
	return at + 3;
}

size_t harness_format(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	n = harness_vformat(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

size_t harness_format_marked(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	n = harness_vformat_marked(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

/* The C locale's words: perfbot never calls setlocale(), so strerror()'s. */
#ifdef __GLIBC_PREREQ
#if __GLIBC_PREREQ(2, 32)
#define HAVE_DESCR_NP 1
#endif
#endif
#ifdef HAVE_DESCR_NP
static const char *err_words(int err)
{
	return strerrordesc_np(err);
}

static const char *sig_words(int sig)
{
	return sigdescr_np(sig);
}
#else
/* before glibc 2.32: the locale's words, and not async-signal-safe */
static const char *err_words(int err)
{
	return strerror(err);
}

static const char *sig_words(int sig)
{
	return sig > 0 && sig < SIGRTMIN ? strsignal(sig) : NULL;
}
#endif

const char *harness_strerror(int err)
{
	const char *s = err_words(err);

	return s ? s : "Unknown error";
}

const char *harness_strsignal(int sig)
{
	const char *s = sig_words(sig);

	if (s)
		return s;
	return sig >= SIGRTMIN && sig <= SIGRTMAX ? "Real-time signal"
						  : "Unknown signal";
}

/* "<who> was killed by signal 11 (Segmentation fault)", "... exited with status 3" */
static void describe_end(char *buf, size_t size, const char *who, bool plural,
			 int wstatus)
{
	const char *verb = plural ? "were" : "was";
	int sig = WTERMSIG(wstatus);

	if (!WIFSIGNALED(wstatus))
		harness_format_marked(buf, size, "%s exited with status %d", who,
				      WEXITSTATUS(wstatus));
	else if (sig_words(sig))
		harness_format_marked(buf, size, "%s %s killed by signal %d (%s)",
				      who, verb, sig, sig_words(sig));
	/* strsignal()'s words for the signals without a description */
	else if (sig >= SIGRTMIN && sig <= SIGRTMAX)
		harness_format_marked(buf, size,
				      "%s %s killed by signal %d (Real-time signal %d)",
				      who, verb, sig, sig - SIGRTMIN);
	else
		harness_format_marked(buf, size,
				      "%s %s killed by signal %d (Unknown signal %d)",
				      who, verb, sig, sig);
}

/* ---- the report ------------------------------------------------------------ */

static void reason_clear(struct harness_reason *r)
{
	atomic_store(&r->status, 0);
	atomic_store(&r->done, 0);
	memset(r->why, 0, sizeof(r->why));
}

/* A later reporter: let the first finish, or a thread's _exit() cuts it. */
static void wait_written(const struct harness_reason *r)
{
	struct timespec ms = { .tv_nsec = 1000 * 1000 };

	for (int i = 0; i < WRITTEN_WAIT_MS; i++) {
		if (atomic_load_explicit(&r->done, memory_order_acquire))
			return;
		nanosleep(&ms, NULL);
	}
}

static void reason_vset(struct harness_reason *r, int status, const char *fmt,
			va_list ap)
{
	char why[HARNESS_WHY_MAX];
	int none = 0;
	size_t n;

	if (!r || !status)
		return;
	/* formatted first: the window between the claim and `done` stays tiny */
	n = harness_vformat_marked(why, sizeof(why), fmt, ap);
	if (!atomic_compare_exchange_strong(&r->status, &none, status)) {
		wait_written(r);
		return;
	}
	/* zeroed before the run: any prefix written is a terminated string */
	memcpy(r->why, why, n);
	atomic_store_explicit(&r->done, 1, memory_order_release);
}

void harness_reason_set(struct harness_reason *r, int status,
			const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	reason_vset(r, status, fmt, ap);
	va_end(ap);
}

int harness_reason_get(const struct harness_reason *r, const char **why)
{
	int status = atomic_load_explicit(&r->status, memory_order_acquire);

	/*
	 * Not `done`: the writer was killed between its claim and the end of
	 * its copy (by the end's SIGKILL); what it wrote is still a string.
	 */
	*why = r->why;
	return status;
}

void harness_vfail(const struct harness *h, int status, const char *fmt,
		   va_list ap)
{
	if (h)
		reason_vset(h->failure, status, fmt, ap);
}

void harness_fail(const struct harness *h, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	harness_vfail(h, status, fmt, ap);
	va_end(ap);
}

noreturn void harness_die(const struct harness *h, int status,
			  const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	harness_vfail(h, status, fmt, ap);
	va_end(ap);
	_exit(HARNESS_EXIT_FAILED);
}

void harness_fail_ended(const struct harness *h, int status, int wstatus,
			const char *who_fmt, ...)
{
	char who[HARNESS_WHY_MAX], why[HARNESS_WHY_MAX];
	va_list ap;

	va_start(ap, who_fmt);
	harness_vformat_marked(who, sizeof(who), who_fmt, ap);
	va_end(ap);
	describe_end(why, sizeof(why), who, false, wstatus);
	harness_fail(h, status, "%s", why);
}

pid_t harness_fork_task(void)
{
	pid_t parent = getpid(), pid = fork();

	if (pid == 0)
		child_die_with(parent);
	return pid;
}

pid_t harness_wait_task(int *wstatus)
{
	pid_t pid;

	do
		pid = waitpid(-1, wstatus, 0);
	while (pid < 0 && errno == EINTR);
	return pid;
}

/* ---- the caller ------------------------------------------------------------- */

static size_t round_up(size_t n, size_t align)
{
	return (n + align - 1) / align * align;
}

int harness_open(struct harness *h, const struct harness_config *cfg)
{
	size_t head = round_up(sizeof(struct harness_reason), HARNESS_AREA_ALIGN);

	memset(h, 0, sizeof(*h));
	h->cfg = *cfg;
	h->leader.pidfd = -1;
	child_signals_block(&h->wait_mask);
	h->blocked = true;
	if (cfg->area_size > SIZE_MAX - head)
		return -ENOMEM;
	/* anonymous shared memory: nothing to unlink, gone with its last user */
	h->map_size = head + cfg->area_size;
	h->map = mmap(NULL, h->map_size, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (h->map == MAP_FAILED) {
		h->map = NULL;
		return -errno;
	}
	h->failure = h->map;
	h->area = cfg->area_size ? (char *)h->map + head : NULL;
	return 0;
}

void harness_close(struct harness *h)
{
	harness_stop(h);
	if (h->map)
		munmap(h->map, h->map_size);
	h->map = NULL;
	h->failure = NULL;
	h->area = NULL;
	if (h->blocked)
		child_signals_restore(&h->wait_mask);
	h->blocked = false;
}

int harness_start(struct harness *h, int (*fn)(void *arg), void *arg)
{
	/* a leader of a previous iteration must be gone before the clear */
	harness_stop(h);
	reason_clear(h->failure);
	h->leader_status = 0;
	return child_fork(&h->leader, fn, arg);
}

enum harness_wake harness_wait(struct harness *h, double deadline)
{
	switch (child_wait_until(&h->leader, deadline, h->cfg.stop,
				 &h->wait_mask)) {
	case CHILD_STOPPED:
		return HARNESS_STOPPED;
	case CHILD_EXITED:
		return HARNESS_EXITED;
	case CHILD_DEADLINE:
		break;
	}
	return HARNESS_DEADLINE;
}

enum harness_wake harness_wait_ready(struct harness *h, double deadline,
				     bool (*ready)(void *arg), void *arg)
{
	while (!ready(arg)) {
		enum harness_wake w = harness_wait(h, fmin(mono_now() + READY_STEP_S,
							   deadline));

		if (w != HARNESS_DEADLINE)
			return w;
		if (mono_now() >= deadline)
			return ready(arg) ? HARNESS_READY : HARNESS_DEADLINE;
	}
	return HARNESS_READY;
}

void harness_phase(const struct harness *h, const char *phase)
{
	if (h->cfg.on_phase)
		h->cfg.on_phase(phase, h->cfg.arg);
}

void harness_stop(struct harness *h)
{
	if (h->leader.pid > 0)
		child_stop(&h->leader, &h->leader_status, NULL);
}

int harness_failure(const struct harness *h, const char **why)
{
	*why = "";
	return h->failure ? harness_reason_get(h->failure, why) : 0;
}

bool harness_leader_ok(const struct harness *h)
{
	return WIFEXITED(h->leader_status) && !WEXITSTATUS(h->leader_status);
}

void harness_explain(const struct harness *h, const char *who, bool plural,
		     char *buf, size_t size)
{
	describe_end(buf, size, who, plural, h->leader_status);
}

int harness_outcome(const struct harness *h, int status, int failed,
		    char *why, size_t size, const char *who, bool plural)
{
	const char *reported;
	int first = harness_failure(h, &reported);

	if (first) {
		str_copy_marked(why, size, reported);
		return first;
	}
	if (status == failed && !why[0])
		harness_explain(h, who, plural, why, size);
	return status;
}

int harness_set_why(char *why, size_t size, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfmt_marked(why, size, fmt, ap);
	va_end(ap);
	return status;
}

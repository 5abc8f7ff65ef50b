/*
 * netperf.c - the built-in netperf.  See netperf.h for the process layout
 * and why the window is measured by the caller, not by the clients.
 */
#define _GNU_SOURCE
#include "bench/netperf.h"
#include "bench/bench.h"
#include "bench/harness.h"
#include "util/parse.h"
#include "util/timeutil.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <math.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef IPPROTO_SCTP
#define IPPROTO_SCTP 132
#endif
/* linux/sctp.h; lksctp's netinet/sctp.h is not needed for this one flag */
#ifndef MSG_NOTIFICATION
#define MSG_NOTIFICATION 0x8000
#endif

/* A line plus the adjacent-line prefetch: no false sharing between sides. */
#define SIDE_ALIGN 128
/* TCP and SCTP streams read this much per recv() unless told (netserver's
 * default is its socket buffer size, 128 KiB on Linux). */
#define DEFAULT_STREAM_RECV 131072u
/* A UDP datagram is always received whole. */
#define UDP_RECV_BUF 65536u
#define DEFAULT_STREAM_SEND 16384u
#define DEFAULT_UDP_SEND 1024u

static const char *const test_names[NETPERF_NR_TESTS] = {
	[NETPERF_TCP_STREAM] = "TCP_STREAM",
	[NETPERF_TCP_MAERTS] = "TCP_MAERTS",
	[NETPERF_TCP_RR] = "TCP_RR",
	[NETPERF_TCP_CRR] = "TCP_CRR",
	[NETPERF_UDP_STREAM] = "UDP_STREAM",
	[NETPERF_UDP_RR] = "UDP_RR",
	[NETPERF_SCTP_STREAM] = "SCTP_STREAM",
	[NETPERF_SCTP_RR] = "SCTP_RR",
	[NETPERF_SCTP_STREAM_MANY] = "SCTP_STREAM_MANY",
};

/* ---- names, defaults ----------------------------------------------------- */

const char *netperf_test_name(enum netperf_test t)
{
	return (unsigned)t < NETPERF_NR_TESTS ? test_names[t] : "?";
}

bool netperf_test_parse(const char *name, enum netperf_test *out)
{
	for (unsigned i = 0; i < NETPERF_NR_TESTS; i++)
		if (!strcasecmp(name, test_names[i])) {
			*out = (enum netperf_test)i;
			return true;
		}
	return false;
}

const char *netperf_test_suggest(const char *name)
{
	char upper[64];
	struct suggest sg;
	size_t len = strlen(name);

	if (len >= sizeof(upper))
		return NULL;
	for (size_t i = 0; i <= len; i++)
		upper[i] = (char)toupper((unsigned char)name[i]);
	suggest_init(&sg, upper);
	for (unsigned i = 0; i < NETPERF_NR_TESTS; i++)
		suggest_add(&sg, test_names[i]);
	return suggest_result(&sg);
}

bool netperf_test_is_rr(enum netperf_test t)
{
	return t == NETPERF_TCP_RR || t == NETPERF_TCP_CRR ||
	       t == NETPERF_UDP_RR || t == NETPERF_SCTP_RR;
}

bool netperf_test_is_udp(enum netperf_test t)
{
	return t == NETPERF_UDP_STREAM || t == NETPERF_UDP_RR;
}

bool netperf_test_is_sctp(enum netperf_test t)
{
	return t == NETPERF_SCTP_STREAM || t == NETPERF_SCTP_RR ||
	       t == NETPERF_SCTP_STREAM_MANY;
}

const char *netperf_unit(enum netperf_test t)
{
	return netperf_test_is_rr(t) ? "tps" : "Mbps";
}

const char *netperf_status_name(enum netperf_status s)
{
	switch (s) {
	case NETPERF_OK:
		return "complete";
	case NETPERF_INCOMPLETE:
		return "incomplete";
	case NETPERF_FAILED:
		return "failed";
	case NETPERF_UNSUPPORTED:
		return "unsupported";
	case NETPERF_ERROR:
		return "error";
	}
	return "?";
}

void netperf_config_init(struct netperf_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->test = NETPERF_TCP_STREAM;
	cfg->clients = 1;
	cfg->duration_s = BENCH_DEFAULT_RUNTIME_S;
	cfg->family = AF_INET;
}

size_t netperf_send_size(const struct netperf_config *cfg)
{
	if (cfg->send_size)
		return cfg->send_size;
	if (netperf_test_is_rr(cfg->test))
		return 1;
	/* netperf's UDP default (the socket buffer) is too big for a datagram */
	return cfg->test == NETPERF_UDP_STREAM ? DEFAULT_UDP_SEND
					       : DEFAULT_STREAM_SEND;
}

size_t netperf_recv_size(const struct netperf_config *cfg)
{
	if (cfg->recv_size)
		return cfg->recv_size;
	if (netperf_test_is_rr(cfg->test))
		return 1;
	return cfg->test == NETPERF_UDP_STREAM ? UDP_RECV_BUF
					       : DEFAULT_STREAM_RECV;
}

double netperf_timeout(const struct netperf_config *cfg)
{
	return cfg->timeout_s > 0 ? cfg->timeout_s : cfg->duration_s * 2 + 30;
}

int netperf_config_check(const struct netperf_config *cfg, char *why,
			 size_t len)
{
	size_t send = netperf_send_size(cfg), recv = netperf_recv_size(cfg);
	size_t udp_max = cfg->family == AF_INET6 ? NETPERF_MAX_UDP6
						 : NETPERF_MAX_UDP4;

	if ((unsigned)cfg->test >= NETPERF_NR_TESTS)
		snprintf(why, len, "no such test (%d)", (int)cfg->test);
	else if (cfg->clients < 1 || cfg->clients > NETPERF_MAX_CLIENTS)
		snprintf(why, len, "%u clients: must be 1..%d", cfg->clients,
			 NETPERF_MAX_CLIENTS);
	else if (!(cfg->duration_s > 0) || !isfinite(cfg->duration_s))
		snprintf(why, len, "length %g s: must be above 0", cfg->duration_s);
	else if (cfg->timeout_s < 0 || !isfinite(cfg->timeout_s))
		snprintf(why, len, "timeout %g s: must be above 0", cfg->timeout_s);
	else if (cfg->family != AF_INET && cfg->family != AF_INET6)
		snprintf(why, len, "address family %d: must be IPv4 or IPv6",
			 cfg->family);
	else if (send > NETPERF_MAX_SIZE || recv > NETPERF_MAX_SIZE)
		snprintf(why, len, "size %zu: at most %u bytes",
			 send > recv ? send : recv, NETPERF_MAX_SIZE);
	else if (netperf_test_is_udp(cfg->test) && send > udp_max)
		snprintf(why, len, "%s %s size %zu is over the largest UDP/IPv%c datagram (%zu bytes)",
			 netperf_test_name(cfg->test),
			 cfg->test == NETPERF_UDP_RR ? "request" : "send", send,
			 cfg->family == AF_INET6 ? '6' : '4', udp_max);
	else if (cfg->test == NETPERF_UDP_RR && recv > udp_max)
		snprintf(why, len, "UDP_RR response size %zu is over the largest UDP/IPv%c datagram (%zu bytes)",
			 recv, cfg->family == AF_INET6 ? '6' : '4', udp_max);
	else if (cfg->test == NETPERF_UDP_STREAM && recv < send)
		snprintf(why, len, "UDP_STREAM receive size %zu is below the send size %zu: datagrams would be cut",
			 recv, send);
	else
		return 0;
	return -1;
}

/* ---- the shared area ------------------------------------------------------ */

/* One side's counters; only that side's process writes them. */
struct side {
	_Atomic uint64_t sent, received, trans;
	_Atomic uint32_t port;	/* the server's, written before it counts */
} __attribute__((aligned(SIDE_ALIGN)));

struct slot {
	struct side client, server;
};

/*
 * netperf's part of the harness's shared area, before the slots (the
 * first failure is the harness's).
 */
struct control {
	_Atomic uint32_t ready;	/* servers and clients at the barrier */
	_Atomic uint32_t go __attribute__((aligned(SIDE_ALIGN)));	/* futex */
} __attribute__((aligned(256)));

/*
 * One writer per counter, so a relaxed load and store suffice: a plain add
 * to memory on x86, as will-it-scale's counters.
 */
static inline void count(_Atomic uint64_t *c, uint64_t n)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n,
			      memory_order_relaxed);
}

/* ---- inside the servers and the clients ---------------------------------- */

struct proc {
	const struct harness *h;
	struct control *ctl;
	enum netperf_test test;
	int family;
	unsigned nr;		/* 0-based; messages say nr + 1 */
	const char *role;	/* "server" or "client" */
	struct side *me;
	size_t send_size, recv_size;
	unsigned port;		/* a client's server */
	char *buf;
	size_t buf_size;
};

static noreturn void proc_fail(const struct proc *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static noreturn void proc_fail(const struct proc *p, const char *fmt, ...)
{
	char msg[NETPERF_WHY_MAX];
	va_list ap;

	va_start(ap, fmt);
	harness_vformat_marked(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	harness_die(p->h, NETPERF_FAILED, "%s %u: %s", p->role, p->nr + 1, msg);
}

/* "what: strerror(errno)" */
static noreturn void proc_fail_errno(const struct proc *p, const char *what)
{
	proc_fail(p, "%s: %s", what, harness_strerror(errno));
}

/* 127.0.0.1 or ::1 and port: nothing else is ever bound or connected to. */
static socklen_t loopback(int family, unsigned port, struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET6) {
		s6->sin6_family = AF_INET6;
		s6->sin6_addr = in6addr_loopback;
		s6->sin6_port = htons((uint16_t)port);
		return sizeof(*s6);
	}
	s4->sin_family = AF_INET;
	s4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	s4->sin_port = htons((uint16_t)port);
	return sizeof(*s4);
}

static int sock_type(enum netperf_test t)
{
	if (netperf_test_is_udp(t))
		return SOCK_DGRAM;
	return t == NETPERF_SCTP_STREAM_MANY ? SOCK_SEQPACKET : SOCK_STREAM;
}

static int sock_proto(enum netperf_test t)
{
	if (netperf_test_is_sctp(t))
		return IPPROTO_SCTP;
	return netperf_test_is_udp(t) ? IPPROTO_UDP : IPPROTO_TCP;
}

static int new_socket(const struct proc *p)
{
	int fd = socket(p->family, sock_type(p->test) | SOCK_CLOEXEC,
			sock_proto(p->test));

	if (fd < 0)
		proc_fail_errno(p, "socket");
	return fd;
}

/* Wait at the barrier until the caller starts the window. */
static void barrier(const struct proc *p)
{
	atomic_fetch_add(&p->ctl->ready, 1);
	while (!atomic_load(&p->ctl->go))
		syscall(SYS_futex, &p->ctl->go, FUTEX_WAIT, 0, NULL, NULL, 0);
}

static void send_all(const struct proc *p, int fd, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = send(fd, p->buf + done, len - done, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			proc_fail_errno(p, "send");
		}
		done += (size_t)n;
	}
}

/* Receive exactly len bytes; false at end of stream before the first. */
static bool recv_all(const struct proc *p, int fd, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = recv(fd, p->buf + done, len - done, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			proc_fail_errno(p, "recv");
		}
		if (n == 0) {
			if (done == 0)
				return false;
			proc_fail(p, "the connection closed in the middle of a message");
		}
		done += (size_t)n;
	}
	return true;
}

static noreturn void send_loop(const struct proc *p, int fd)
{
	for (;;) {
		ssize_t n = send(fd, p->buf, p->send_size, MSG_NOSIGNAL);

		if (n < 0) {
			/* a full loopback queue: netperf counts these as failed sends */
			if (errno == EINTR || errno == ENOBUFS || errno == EAGAIN)
				continue;
			proc_fail_errno(p, "send");
		}
		count(&p->me->sent, (uint64_t)n);
	}
}

static noreturn void send_to_loop(const struct proc *p, int fd,
				  const struct sockaddr_storage *to,
				  socklen_t to_len)
{
	for (;;) {
		ssize_t n = sendto(fd, p->buf, p->send_size, MSG_NOSIGNAL,
				   (const struct sockaddr *)to, to_len);

		if (n < 0) {
			if (errno == EINTR || errno == ENOBUFS || errno == EAGAIN)
				continue;
			proc_fail_errno(p, "sendto");
		}
		count(&p->me->sent, (uint64_t)n);
	}
}

static noreturn void recv_loop(const struct proc *p, int fd)
{
	bool sctp = netperf_test_is_sctp(p->test);

	for (;;) {
		struct iovec iov = { .iov_base = p->buf, .iov_len = p->recv_size };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n = sctp ? recvmsg(fd, &msg, 0)
				 : recv(fd, p->buf, p->recv_size, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			proc_fail_errno(p, "recv");
		}
		if (n == 0)
			proc_fail(p, "the %s closed the connection",
				  p->role[0] == 's' ? "client" : "server");
		/* an SCTP event someone subscribed to is not data */
		if (sctp && (msg.msg_flags & MSG_NOTIFICATION))
			continue;
		count(&p->me->received, (uint64_t)n);
	}
}

/* Accept one connection and stop listening, as netserver's data socket. */
static int accept_one(const struct proc *p, int lfd)
{
	int fd;

	do
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	if (fd < 0)
		proc_fail_errno(p, "accept");
	close(lfd);
	return fd;
}

static noreturn void server_rr(const struct proc *p, int fd)
{
	for (;;) {
		if (!recv_all(p, fd, p->send_size))
			proc_fail(p, "the client closed the connection");
		send_all(p, fd, p->recv_size);
	}
}

/* TCP_CRR: every transaction is a new connection; we close first. */
static noreturn void server_crr(const struct proc *p, int lfd)
{
	for (;;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

		if (fd < 0) {
			/* a connection reset before we took it is the client's */
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			proc_fail_errno(p, "accept");
		}
		if (recv_all(p, fd, p->send_size))
			send_all(p, fd, p->recv_size);
		close(fd);
	}
}

static noreturn void server_udp_rr(const struct proc *p, int fd)
{
	for (;;) {
		struct sockaddr_storage from;
		socklen_t from_len = sizeof(from);
		ssize_t n = recvfrom(fd, p->buf, p->buf_size, 0,
				     (struct sockaddr *)&from, &from_len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			proc_fail_errno(p, "recvfrom");
		}
		while (sendto(fd, p->buf, p->recv_size, MSG_NOSIGNAL,
			      (struct sockaddr *)&from, from_len) < 0) {
			if (errno != EINTR && errno != ENOBUFS && errno != EAGAIN)
				proc_fail_errno(p, "sendto");
		}
	}
}

static noreturn void server_main(const struct proc *p, int port_fd)
{
	struct sockaddr_storage ss;
	socklen_t len = loopback(p->family, 0, &ss);
	int fd = new_socket(p);
	uint16_t port;

	if (bind(fd, (struct sockaddr *)&ss, len))
		proc_fail_errno(p, "bind");
	if (sock_type(p->test) != SOCK_DGRAM &&
	    listen(fd, p->test == NETPERF_TCP_CRR ? SOMAXCONN : 1))
		proc_fail_errno(p, "listen");
	len = sizeof(ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &len))
		proc_fail_errno(p, "getsockname");
	port = ntohs(ss.ss_family == AF_INET6
		     ? ((struct sockaddr_in6 *)&ss)->sin6_port
		     : ((struct sockaddr_in *)&ss)->sin_port);
	atomic_store(&p->me->port, port);
	if (write(port_fd, &port, sizeof(port)) != sizeof(port))
		proc_fail_errno(p, "tell the port");
	close(port_fd);

	switch (p->test) {
	case NETPERF_TCP_STREAM:
	case NETPERF_SCTP_STREAM:
		fd = accept_one(p, fd);
		barrier(p);
		recv_loop(p, fd);
	case NETPERF_TCP_MAERTS:
		fd = accept_one(p, fd);
		barrier(p);
		send_loop(p, fd);
	case NETPERF_TCP_RR:
	case NETPERF_SCTP_RR:
		fd = accept_one(p, fd);
		barrier(p);
		server_rr(p, fd);
	case NETPERF_TCP_CRR:
		barrier(p);
		server_crr(p, fd);
	case NETPERF_UDP_STREAM:
	case NETPERF_SCTP_STREAM_MANY:
		/* one-to-many: messages arrive on the listening socket itself */
		barrier(p);
		recv_loop(p, fd);
	case NETPERF_UDP_RR:
		barrier(p);
		server_udp_rr(p, fd);
	default:
		proc_fail(p, "no such test");
	}
}

static void connect_server(const struct proc *p, int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = loopback(p->family, p->port, &ss);

	while (connect(fd, (struct sockaddr *)&ss, len)) {
		if (errno != EINTR)
			proc_fail_errno(p, "connect");
	}
}

static noreturn void client_rr(const struct proc *p, int fd)
{
	for (;;) {
		send_all(p, fd, p->send_size);
		if (!recv_all(p, fd, p->recv_size))
			proc_fail(p, "the server closed the connection");
		count(&p->me->trans, 1);
	}
}

static noreturn void client_crr(const struct proc *p)
{
	for (;;) {
		int fd = new_socket(p);

		connect_server(p, fd);
		send_all(p, fd, p->send_size);
		if (!recv_all(p, fd, p->recv_size))
			proc_fail(p, "the server closed the connection before its response");
		/* the server closes first, so TIME_WAIT stays on its side and
		 * our ephemeral ports come back at once */
		if (recv_all(p, fd, 1))
			proc_fail(p, "the server sent more than its response");
		close(fd);
		count(&p->me->trans, 1);
	}
}

/* UDP_RR: one datagram each way; loopback does not lose one in flight. */
static noreturn void client_udp_rr(const struct proc *p, int fd)
{
	for (;;) {
		ssize_t n;

		while (send(fd, p->buf, p->send_size, MSG_NOSIGNAL) < 0)
			if (errno != EINTR && errno != ENOBUFS && errno != EAGAIN)
				proc_fail_errno(p, "send");
		do
			n = recv(fd, p->buf, p->buf_size, 0);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			proc_fail_errno(p, "recv");
		count(&p->me->trans, 1);
	}
}

static noreturn void client_main(const struct proc *p)
{
	struct sockaddr_storage to;
	socklen_t to_len;
	int fd;

	if (p->test == NETPERF_TCP_CRR) {
		barrier(p);
		client_crr(p);
	}
	fd = new_socket(p);
	/* UDP: fixes the peer; SCTP one-to-many: sets up the association */
	connect_server(p, fd);
	barrier(p);
	switch (p->test) {
	case NETPERF_TCP_STREAM:
	case NETPERF_SCTP_STREAM:
	case NETPERF_UDP_STREAM:
		send_loop(p, fd);
	case NETPERF_TCP_MAERTS:
		recv_loop(p, fd);
	case NETPERF_TCP_RR:
	case NETPERF_SCTP_RR:
		client_rr(p, fd);
	case NETPERF_UDP_RR:
		client_udp_rr(p, fd);
	case NETPERF_SCTP_STREAM_MANY:
		/* a one-to-many socket needs the address on every send */
		to_len = loopback(p->family, p->port, &to);
		send_to_loop(p, fd, &to, to_len);
	default:
		proc_fail(p, "no such test");
	}
}

/* ---- the leader ------------------------------------------------------------ */

struct leader_args {
	const struct harness *h;
	const struct netperf_config *cfg;
	struct control *ctl;
	struct slot *slots;
	size_t send_size, recv_size;
};

static void start_proc(struct proc *p, const char *name)
{
	prctl(PR_SET_NAME, name);
	p->buf_size = p->send_size > p->recv_size ? p->send_size : p->recv_size;
	if (netperf_test_is_udp(p->test) && p->buf_size < UDP_RECV_BUF)
		p->buf_size = UDP_RECV_BUF;
	p->buf = malloc(p->buf_size);
	if (!p->buf)
		proc_fail(p, "out of memory for a %zu-byte buffer", p->buf_size);
	/* touch it now: page faults are not what is measured */
	memset(p->buf, 'n', p->buf_size);
}

/* Why a server or client ended, for the first report only. */
static void report_exit(const struct harness *h, const pid_t *pids,
			unsigned n, pid_t pid, int st)
{
	const char *role = "process";
	unsigned nr = 0;

	for (unsigned i = 0; i < 2 * n; i++)
		if (pids[i] == pid) {
			role = i % 2 ? "client" : "server";
			nr = i / 2 + 1;
		}
	harness_fail_ended(h, NETPERF_FAILED, st, "%s %u", role, nr);
}

/* A child_fork() child: its own process group already. */
static int leader_main(void *arg)
{
	const struct leader_args *a = arg;
	const struct netperf_config *cfg = a->cfg;
	unsigned n = cfg->clients;
	pid_t *pids = calloc(2 * (size_t)n, sizeof(*pids)), pid;
	int st;

	prctl(PR_SET_NAME, "perfbot-netperf");
	if (!pids)
		harness_die(a->h, NETPERF_ERROR, "leader: out of memory");
	for (unsigned i = 0; i < n; i++) {
		struct proc p = {
			.h = a->h, .ctl = a->ctl,
			.test = cfg->test, .family = cfg->family, .nr = i,
			.send_size = a->send_size, .recv_size = a->recv_size,
		};
		uint16_t port = 0;
		int fds[2];
		ssize_t got;

		if (pipe2(fds, O_CLOEXEC))
			harness_die(a->h, NETPERF_ERROR, "pipe: %s",
				    harness_strerror(errno));
		pids[2 * i] = harness_fork_task();
		if (pids[2 * i] < 0)
			harness_die(a->h, NETPERF_ERROR, "fork server %u: %s", i + 1,
				    harness_strerror(errno));
		if (pids[2 * i] == 0) {
			close(fds[0]);
			p.role = "server";
			p.me = &a->slots[i].server;
			start_proc(&p, "perfbot-netsrv");
			server_main(&p, fds[1]);
		}
		close(fds[1]);
		/* the client starts only once its server listens */
		do
			got = read(fds[0], &port, sizeof(port));
		while (got < 0 && errno == EINTR);
		close(fds[0]);
		if (got != sizeof(port))
			harness_die(a->h, NETPERF_FAILED,
				    "server %u ended before it had a port", i + 1);
		pids[2 * i + 1] = harness_fork_task();
		if (pids[2 * i + 1] < 0)
			harness_die(a->h, NETPERF_ERROR, "fork client %u: %s", i + 1,
				    harness_strerror(errno));
		if (pids[2 * i + 1] == 0) {
			p.role = "client";
			p.me = &a->slots[i].client;
			p.port = port;
			start_proc(&p, "perfbot-netcli");
			client_main(&p);
		}
	}
	/* no server or client ends by itself: the first that does ends the run */
	pid = harness_wait_task(&st);
	if (pid > 0)
		report_exit(a->h, pids, n, pid, st);
	return HARNESS_EXIT_FAILED;
}

/* ---- in the caller ------------------------------------------------------- */

struct run {
	const struct netperf_config *cfg;
	struct harness h;	/* its area: the control, then the slots */
	struct control *ctl;
	struct slot *slots;
	double deadline;	/* the timeout, on mono_now() */
};

#define fail(out, st, ...) HARNESS_FAIL(out, st, __VA_ARGS__)

static const char *proto_name(enum netperf_test t)
{
	if (netperf_test_is_sctp(t))
		return "SCTP";
	return netperf_test_is_udp(t) ? "UDP" : "TCP";
}

/*
 * Can this kernel make the test's socket and bind it to the loopback
 * address?  Asked before anything starts, so "unsupported" is all a
 * machine without SCTP or without ::1 ever reports.
 */
static enum netperf_status check_support(const struct netperf_config *cfg,
					 struct netperf_result *out)
{
	int type = sock_type(cfg->test), proto = sock_proto(cfg->test);
	char v = cfg->family == AF_INET6 ? '6' : '4';
	struct sockaddr_storage ss;
	socklen_t len = loopback(cfg->family, 0, &ss);
	enum netperf_status st = NETPERF_OK;
	int fd = socket(cfg->family, type | SOCK_CLOEXEC, proto);

	if (fd < 0) {
		int err = errno;

		if (err == EPROTONOSUPPORT || err == ESOCKTNOSUPPORT ||
		    err == EAFNOSUPPORT || err == EPFNOSUPPORT)
			return fail(out, NETPERF_UNSUPPORTED,
				    "no %s over IPv%c in this kernel: socket(%s, %s, %s): %s",
				    proto_name(cfg->test), v,
				    cfg->family == AF_INET6 ? "AF_INET6" : "AF_INET",
				    type == SOCK_SEQPACKET ? "SOCK_SEQPACKET"
				    : type == SOCK_DGRAM ? "SOCK_DGRAM" : "SOCK_STREAM",
				    proto == IPPROTO_SCTP ? "IPPROTO_SCTP"
				    : proto == IPPROTO_UDP ? "IPPROTO_UDP" : "IPPROTO_TCP",
				    strerror(err));
		return fail(out, NETPERF_ERROR, "socket: %s", strerror(err));
	}
	if (bind(fd, (struct sockaddr *)&ss, len)) {
		if (errno == EADDRNOTAVAIL || errno == EAFNOSUPPORT)
			st = fail(out, NETPERF_UNSUPPORTED,
				  "no loopback address %s here: bind: %s",
				  v == '6' ? "::1" : "127.0.0.1", strerror(errno));
		else
			st = fail(out, NETPERF_ERROR, "bind to loopback: %s",
				  strerror(errno));
	}
	close(fd);
	return st;
}

static void read_counts(const struct run *r, struct netperf_client *c)
{
	for (unsigned i = 0; i < r->cfg->clients; i++) {
		const struct slot *s = &r->slots[i];

		/* in each test only one side sends and one receives bytes */
		c[i].sent_bytes = atomic_load_explicit(&s->client.sent, memory_order_relaxed) +
				  atomic_load_explicit(&s->server.sent, memory_order_relaxed);
		c[i].recv_bytes = atomic_load_explicit(&s->client.received, memory_order_relaxed) +
				  atomic_load_explicit(&s->server.received, memory_order_relaxed);
		c[i].transactions = atomic_load_explicit(&s->client.trans,
							 memory_order_relaxed);
		c[i].port = atomic_load_explicit(&s->server.port, memory_order_relaxed);
	}
}

static bool all_at_barrier(void *arg)
{
	const struct run *r = arg;

	return atomic_load(&r->ctl->ready) >= 2 * r->cfg->clients;
}

/* Until every server and client waits at the barrier. */
static enum netperf_status wait_ready(struct run *r, struct netperf_result *out)
{
	uint32_t want = 2 * r->cfg->clients;

	switch (harness_wait_ready(&r->h, r->deadline, all_at_barrier, r)) {
	case HARNESS_READY:
		return NETPERF_OK;
	case HARNESS_STOPPED:
		return fail(out, NETPERF_INCOMPLETE,
			    "stopped before the clients were ready");
	case HARNESS_EXITED:
		return NETPERF_FAILED;	/* the leader says why */
	case HARNESS_DEADLINE:
		break;
	}
	return fail(out, NETPERF_FAILED,
		    "timed out after %g s: %u of %u servers and clients were not ready",
		    netperf_timeout(r->cfg), want - atomic_load(&r->ctl->ready),
		    want);
}

/* Open the barrier, wait out the window, read the counters at both ends. */
static enum netperf_status measure(struct run *r, struct netperf_result *out)
{
	const struct netperf_config *cfg = r->cfg;
	struct control *ctl = r->ctl;
	unsigned n = cfg->clients;
	struct netperf_client *start = calloc(n, sizeof(*start));
	enum netperf_status st = NETPERF_OK;
	enum harness_wake w;
	double t0, t1, end;

	if (!start)
		return fail(out, NETPERF_ERROR, "out of memory");
	harness_phase(&r->h, "measure");
	/* nobody counts before go: start holds zeros, read for exactness */
	read_counts(r, start);
	t0 = mono_now();
	atomic_store(&ctl->go, 1);
	syscall(SYS_futex, &ctl->go, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);

	end = t0 + cfg->duration_s;
	w = harness_wait(&r->h, fmin(end, r->deadline));
	t1 = mono_now();
	read_counts(r, out->client);
	for (unsigned i = 0; i < n; i++) {
		out->client[i].sent_bytes -= start[i].sent_bytes;
		out->client[i].recv_bytes -= start[i].recv_bytes;
		out->client[i].transactions -= start[i].transactions;
	}
	out->measured_s = t1 - t0;
	switch (w) {
	case HARNESS_STOPPED:
		st = fail(out, NETPERF_INCOMPLETE, "stopped after %.3f s of %g s",
			  out->measured_s, cfg->duration_s);
		break;
	case HARNESS_EXITED:
		st = NETPERF_FAILED;	/* the leader says why */
		break;
	case HARNESS_READY:	/* not a wait's answer */
	case HARNESS_DEADLINE:
		if (r->deadline < end)
			st = fail(out, NETPERF_FAILED,
				  "timed out: the %g s timeout ran out %.3f s into the %g s measurement",
				  netperf_timeout(cfg), out->measured_s,
				  cfg->duration_s);
		break;
	}
	free(start);
	return st;
}

enum netperf_status netperf_run(const struct netperf_config *cfg,
				struct netperf_result *out)
{
	struct run r = { .cfg = cfg };
	struct leader_args a = { .h = &r.h, .cfg = cfg };
	struct harness_config hc = {
		.area_size = sizeof(struct control) +
			     cfg->clients * sizeof(struct slot),
		.stop = cfg->stop, .on_phase = cfg->on_phase, .arg = cfg->arg,
	};
	enum netperf_status st;
	int err;
	char why[NETPERF_WHY_MAX - 32];

	memset(out, 0, sizeof(*out));
	out->test = cfg->test;
	out->clients = cfg->clients;
	out->send_size = a.send_size = netperf_send_size(cfg);
	out->recv_size = a.recv_size = netperf_recv_size(cfg);
	if (netperf_config_check(cfg, why, sizeof(why)))
		return fail(out, NETPERF_ERROR, "invalid configuration: %s", why);
	if (cfg->stop && *cfg->stop)
		return fail(out, NETPERF_INCOMPLETE, "stopped before the start");
	st = check_support(cfg, out);
	if (st != NETPERF_OK)
		return st;
	out->client = calloc(cfg->clients, sizeof(*out->client));
	if (!out->client)
		return fail(out, NETPERF_ERROR, "out of memory");

	err = harness_open(&r.h, &hc);
	if (err) {
		st = fail(out, NETPERF_ERROR, "cannot map the counters: %s",
			  strerror(-err));
		goto out;
	}
	r.ctl = a.ctl = r.h.area;
	r.slots = a.slots = (struct slot *)(r.ctl + 1);

	r.deadline = mono_now() + netperf_timeout(cfg);
	err = harness_start(&r.h, leader_main, &a);
	if (err) {
		st = fail(out, NETPERF_ERROR, "fork: %s", strerror(-err));
		goto out;
	}
	st = wait_ready(&r, out);
	if (st == NETPERF_OK)
		st = measure(&r, out);
	harness_stop(&r.h);
	/* a server's or client's own report wins, even over a stop at the same time */
	out->status = harness_outcome(&r.h, st, NETPERF_FAILED, out->why,
				      sizeof(out->why), "the leader", false);
	netperf_result_summarize(out);
	st = out->status;
out:
	out->status = st;
	harness_close(&r.h);
	return st;
}

/* ---- the stats ------------------------------------------------------------ */

double netperf_client_rate(const struct netperf_result *r, unsigned i,
			   bool recv_side)
{
	const struct netperf_client *c;
	uint64_t bytes;

	if (!r->client || i >= r->clients || !(r->measured_s > 0))
		return 0;
	c = &r->client[i];
	if (netperf_test_is_rr(r->test))
		return recv_side ? 0 : (double)c->transactions / r->measured_s;
	if (r->test == NETPERF_UDP_STREAM)
		/* netperf's UDP_STREAM line is the sender's; the receiver's is
		 * its second line, ThroughputRecv in LKP */
		bytes = recv_side ? c->recv_bytes : c->sent_bytes;
	else if (recv_side)
		return 0;
	else
		/* what reached the receiver: netperf's figure for a stream */
		bytes = c->recv_bytes;
	return (double)bytes * 8 / r->measured_s / 1e6;
}

/* Did client i (or its server) count anything?  Else what it lacks. */
static const char *no_progress(const struct netperf_result *r, unsigned i)
{
	const struct netperf_client *c = &r->client[i];

	if (netperf_test_is_rr(r->test))
		return c->transactions ? NULL : "no transaction completed";
	if (r->test == NETPERF_UDP_STREAM) {
		if (!c->sent_bytes)
			return "nothing sent";
		return c->recv_bytes ? NULL : "its server received nothing";
	}
	if (r->test == NETPERF_TCP_MAERTS)
		return c->recv_bytes ? NULL : "nothing received from its server";
	return c->recv_bytes ? NULL : "its server received nothing";
}

void netperf_result_summarize(struct netperf_result *r)
{
	bool rr = netperf_test_is_rr(r->test);

	r->throughput = r->throughput_total = 0;
	r->recv = r->recv_total = r->both = r->both_total = r->workload = 0;
	if (!r->client || !r->clients || !(r->measured_s > 0))
		return;
	for (unsigned i = 0; i < r->clients; i++) {
		r->throughput_total += netperf_client_rate(r, i, false);
		r->recv_total += netperf_client_rate(r, i, true);
	}
	/* one window for all clients: the mean is the total over clients */
	r->throughput = r->throughput_total / r->clients;
	r->recv = r->recv_total / r->clients;
	/* LKP's parser: Both = send line + receive line, per client and total */
	r->both = r->throughput + r->recv;
	r->both_total = r->throughput_total + r->recv_total;
	/* LKP's workload: transactions, or messages of the send size */
	r->workload = r->both_total * r->measured_s;
	if (!rr && r->send_size)
		r->workload = r->workload * 1e6 / 8 / (double)r->send_size;

	if (r->status != NETPERF_OK)
		return;
	for (unsigned i = 0; i < r->clients; i++) {
		const char *lack = no_progress(r, i);

		if (lack) {
			snprintf(r->why, sizeof(r->why),
				 "client %u made no progress (%s in %.3f s)",
				 i + 1, lack, r->measured_s);
			r->status = NETPERF_FAILED;
			return;
		}
	}
}

size_t netperf_result_stats(const struct netperf_result *r,
			    struct netperf_stat *out, size_t max)
{
	static const char *const mbps[] = {
		"Throughput_Mbps", "ThroughputRecv_Mbps", "ThroughputBoth_Mbps",
		"Throughput_total_Mbps", "ThroughputRecv_total_Mbps",
		"ThroughputBoth_total_Mbps", "workload",
	};
	static const char *const tps[] = {
		"Throughput_tps", "ThroughputRecv_tps", "ThroughputBoth_tps",
		"Throughput_total_tps", "ThroughputRecv_total_tps",
		"ThroughputBoth_total_tps", "workload",
	};
	const char *const *names = netperf_test_is_rr(r->test) ? tps : mbps;
	double values[] = {
		r->throughput, r->recv, r->both, r->throughput_total,
		r->recv_total, r->both_total, r->workload,
	};
	bool recv = r->test == NETPERF_UDP_STREAM;
	size_t n = 0;

	if ((r->status != NETPERF_OK && r->status != NETPERF_INCOMPLETE) ||
	    !(r->measured_s > 0) || !r->client)
		return 0;
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]) && n < max; i++) {
		/* only UDP_STREAM has a receive side of its own */
		if (!recv && (i == 1 || i == 4))
			continue;
		out[n].name = names[i];
		out[n].value = values[i];
		n++;
	}
	return n;
}

void netperf_result_release(struct netperf_result *r)
{
	free(r->client);
	r->client = NULL;
}

/*
 * netperf.h - a built-in netperf: N client/server pairs over loopback,
 * no external netperf or netserver.
 *
 * Process layout of a run (as netperf and netserver are processes):
 *
 *   caller (perfbot) -- support check, the barrier, the clock, the counters
 *     `- leader          own process group (child_fork); never counts
 *          |- server i   binds 127.0.0.1 or ::1 port 0, tells the leader the
 *          |             port through a pipe, then serves one client
 *          `- client i   forked once its server's port is known
 *
 * Every server and client counts into its own cache-line-padded slot of a
 * MAP_SHARED area, then waits at a barrier (a futex in the same area).
 * The caller releases the barrier, reads every counter and CLOCK_MONOTONIC
 * at the start and again at the end of the window, so the measured window
 * is exact and no process has to stop by itself.  The run ends with
 * SIGKILL to the whole process group; the caller reaps every member, so
 * no process and no socket outlives netperf_run().  Sockets the kernel
 * keeps after close (TCP TIME_WAIT from TCP_CRR) belong to no process.
 * The leader, the waits, the failure report and the end are the run
 * harness's (bench/harness.h), which will-it-scale and hackbench share.
 *
 * A port cannot be in use already: every server binds port 0.
 *
 * Threading: netperf_run() is called from one thread.  While it runs it
 * blocks SIGINT, SIGTERM and SIGHUP and waits with them unblocked, so a
 * handler that sets *cfg->stop wakes it at once.  It makes the calling
 * process a child subreaper (util/child.h).
 *
 * Ownership: struct netperf_result owns its per-client array; release it
 * with netperf_result_release().  Nothing here prints or exits.
 */
#ifndef PERFBOT_BENCH_NETPERF_H
#define PERFBOT_BENCH_NETPERF_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NETPERF_MAX_CLIENTS 4096
/* Largest send or receive size for TCP and SCTP. */
#define NETPERF_MAX_SIZE (16u << 20)
/* Largest UDP payload: 65535 less the IPv4 (20) or IPv6 (0: the IPv6
 * payload length excludes its header) header and the UDP header (8). */
#define NETPERF_MAX_UDP4 65507u
#define NETPERF_MAX_UDP6 65527u
#define NETPERF_WHY_MAX 256
#define NETPERF_MAX_STATS 8

enum netperf_test {
	NETPERF_TCP_STREAM,
	NETPERF_TCP_MAERTS,
	NETPERF_TCP_RR,
	NETPERF_TCP_CRR,
	NETPERF_UDP_STREAM,
	NETPERF_UDP_RR,
	NETPERF_SCTP_STREAM,
	NETPERF_SCTP_RR,
	NETPERF_SCTP_STREAM_MANY,
	NETPERF_NR_TESTS,
};

enum netperf_status {
	NETPERF_OK = 0,
	NETPERF_INCOMPLETE,	/* stopped early; what was measured is valid */
	NETPERF_FAILED,		/* a client or server failed, stalled or timed out */
	NETPERF_UNSUPPORTED,	/* the kernel lacks the protocol or the address */
	NETPERF_ERROR,		/* the harness failed (fork, mmap) or bad config */
};

struct netperf_config {
	enum netperf_test test;
	unsigned clients;	/* pairs, 1..NETPERF_MAX_CLIENTS */
	double duration_s;	/* the measured window, > 0 */
	int family;		/* AF_INET (127.0.0.1) or AF_INET6 (::1) */
	/*
	 * Streams: bytes per send() and per recv(); RR tests: the request
	 * and the response size.  0 picks the test's default
	 * (netperf_send_size(), netperf_recv_size()).
	 */
	size_t send_size, recv_size;
	/* the whole run, setup included; 0: duration_s * 2 + 30 */
	double timeout_s;
	volatile sig_atomic_t *stop;	/* may be NULL; non-zero stops the run */
	/*
	 * Called in the caller, may be NULL: "measure" just before the
	 * barrier opens (every pair is connected and waiting), so monitors
	 * can open exactly at the measured window, as will-it-scale's.
	 */
	void (*on_phase)(const char *phase, void *arg);
	void *arg;
};

/* One pair's counts over the measured window. */
struct netperf_client {
	uint64_t sent_bytes;	/* streams: by the sending side */
	uint64_t recv_bytes;	/* streams: by the receiving side */
	uint64_t transactions;	/* RR tests: completed at the client */
	unsigned port;		/* the server's port */
};

struct netperf_result {
	enum netperf_status status;
	char why[NETPERF_WHY_MAX];	/* for anything but NETPERF_OK */
	enum netperf_test test;
	unsigned clients;
	size_t send_size, recv_size;	/* as resolved */
	double measured_s;	/* 0 when nothing was measured */
	struct netperf_client *client;	/* [clients], or NULL */
	/* from netperf_result_summarize(), LKP's stats: */
	double throughput, throughput_total;	/* mean per client, sum */
	double recv, recv_total;		/* UDP_STREAM's receive side */
	double both, both_total;		/* throughput + recv */
	double workload;	/* LKP: messages (streams) or transactions */
};

/* A (name, value) pair of a result, named as LKP's netperf stats. */
struct netperf_stat {
	const char *name;
	double value;
};

void netperf_config_init(struct netperf_config *cfg);

const char *netperf_test_name(enum netperf_test t);
/* Case-insensitive, as netperf's -t; false for an unknown name. */
bool netperf_test_parse(const char *name, enum netperf_test *out);
/* The test name nearest to `name`, or NULL when none is near. */
const char *netperf_test_suggest(const char *name);
bool netperf_test_is_rr(enum netperf_test t);
bool netperf_test_is_udp(enum netperf_test t);
bool netperf_test_is_sctp(enum netperf_test t);
/* "Mbps" for the streams, "tps" for the RR tests. */
const char *netperf_unit(enum netperf_test t);
const char *netperf_status_name(enum netperf_status s);

/* The sizes and the timeout with defaults resolved. */
size_t netperf_send_size(const struct netperf_config *cfg);
size_t netperf_recv_size(const struct netperf_config *cfg);
double netperf_timeout(const struct netperf_config *cfg);

/*
 * Check the fields against each other (a UDP size against the family's
 * largest datagram, ...).  0, or -1 with the reason in why.
 */
int netperf_config_check(const struct netperf_config *cfg, char *why,
			 size_t len);

/*
 * Run one measurement.  Returns the result's status; `out` is always
 * initialised and must be released, whatever the status.
 */
enum netperf_status netperf_run(const struct netperf_config *cfg,
				struct netperf_result *out);

/*
 * Derive the stats from the per-client counts and measured_s; a complete
 * run (NETPERF_OK) in which a client or its server counted nothing becomes
 * NETPERF_FAILED ("client 2 made no progress").
 */
void netperf_result_summarize(struct netperf_result *r);
/* One client's throughput (Mbps or tps); recv_side: UDP_STREAM's receiver. */
double netperf_client_rate(const struct netperf_result *r, unsigned i,
			   bool recv_side);
/*
 * The stats of a result with LKP's names (Throughput_Mbps, ...): up to
 * NETPERF_MAX_STATS into out; none when nothing was measured.
 */
size_t netperf_result_stats(const struct netperf_result *r,
			    struct netperf_stat *out, size_t max);
void netperf_result_release(struct netperf_result *r);

#endif

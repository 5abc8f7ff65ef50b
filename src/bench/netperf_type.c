/*
 * netperf_type.c - netperf's parameter and stat tables and its run(),
 * over the engine of netperf.h.  See netperf_type.h.
 */
#include "bench/netperf_type.h"
#include "util/bug.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

static const char *const test_help[NETPERF_NR_TESTS] = {
	[NETPERF_TCP_STREAM] = "client sends, Throughput = what the server received",
	[NETPERF_TCP_MAERTS] = "server sends, Throughput = what the client received",
	[NETPERF_TCP_RR] = "one request, one response per transaction",
	[NETPERF_TCP_CRR] = "connect, request, response, close per transaction",
	[NETPERF_UDP_STREAM] = "client sends datagrams: Throughput = sent, ThroughputRecv = received by the server",
	[NETPERF_UDP_RR] = "one datagram each way per transaction",
	[NETPERF_SCTP_STREAM] = "as TCP_STREAM over one-to-one SCTP",
	[NETPERF_SCTP_RR] = "as TCP_RR over one-to-one SCTP",
	[NETPERF_SCTP_STREAM_MANY] = "as SCTP_STREAM over a one-to-many (SOCK_SEQPACKET) socket",
};

/* The choices are the engine's tests, in its order: a choice is its enum. */
static bool test_at(size_t i, struct bench_choice *out)
{
	if (i >= NETPERF_NR_TESTS)
		return false;
	*out = (struct bench_choice){
		.name = netperf_test_name((enum netperf_test)i),
		.help = test_help[i],
	};
	return true;
}

enum { IP_V4, IP_V6 };

static const struct bench_choice ips[] = {
	[IP_V4] = { .name = "ipv4", .opt = '4', .long_opt = "ipv4",
		    .help = "over 127.0.0.1 (the default)" },
	[IP_V6] = { .name = "ipv6", .opt = '6', .long_opt = "ipv6",
		    .help = "over ::1" },
	{ 0 },
};

static const struct bench_choice clusters[] = {
	{ .name = "cs-localhost",
	  .help = "client and server on this machine (the only cluster perfbot runs)" },
	{ 0 },
};

static const struct bench_param params[] = {
	[NP_P_TEST] = {
		.key = "test", .type = BENCH_ENUM,
		.flags = BENCH_CLI_REQUIRED | BENCH_NOCASE,
		.opt = 't', .long_opt = "test", .metavar = "TEST",
		.choice_at = test_at, .def = NETPERF_TCP_STREAM,
		.def_text = "TCP_STREAM in a job; required on the command line",
		.choices_title = "Tests",
		.help = "the test, below (any case, as netperf's -t)",
	},
	[NP_P_NR_THREADS] = {
		.key = "nr_threads", .noun = "client count", .type = BENCH_TASKS,
		.opt = 'n', .long_opt = "clients", .metavar = "N|N%",
		.max = NETPERF_MAX_CLIENTS, .unit = "clients", .def = 1,
		.help = "client/server pairs: N, or N% of the online CPUs rounded down, "
			"at least 1 (LKP's nr_threads)",
	},
	[NP_P_RUNTIME] = {
		.key = "runtime", .noun = "length", .type = BENCH_DURATION,
		.flags = BENCH_GENERIC | BENCH_ABOVE_MIN,
		.opt = 'l', .long_opt = "length", .metavar = "TIME",
		.def_s = BENCH_DEFAULT_RUNTIME_S,
		.help = "the measured window (LKP uses 300s)",
	},
	[NP_P_IP] = {
		.key = "ip", .type = BENCH_ENUM, .flags = BENCH_EXCLUSIVE,
		.choices = ips, .def = IP_V4,
		.help = "the loopback address",
	},
	[NP_P_SEND_SIZE] = {
		.key = "send_size", .noun = "send size", .type = BENCH_SIZE,
		.opt = 'm', .long_opt = "send-size", .metavar = "SIZE", .min = 1,
		.max = NETPERF_MAX_SIZE,
		.def_text = "16384; UDP_STREAM 1024; RR tests 1",
		.help = "streams: bytes per send; RR tests: the request size",
	},
	[NP_P_RECV_SIZE] = {
		.key = "recv_size", .noun = "receive size", .type = BENCH_SIZE,
		.flags = BENCH_CLI_ONLY, .opt = 'M', .long_opt = "recv-size",
		.metavar = "SIZE", .min = 1, .max = NETPERF_MAX_SIZE,
		.def_text = "131072; UDP_STREAM 65536; RR tests 1",
		.help = "streams: bytes per receive; RR tests: the response size",
	},
	[NP_P_TIMEOUT] = {
		.key = "timeout", .type = BENCH_DURATION,
		.flags = BENCH_GENERIC | BENCH_ABOVE_MIN,
		.long_opt = "timeout", .metavar = "TIME",
		.def_text = "length x 2 + 30 s; in a job the job's timeout",
		.help = "kill the run and fail after this long, setup included",
	},
	[NP_P_CLUSTER] = {
		.key = "cluster", .type = BENCH_ENUM, .choices = clusters,
		.help = "where client and server run (LKP's cluster)",
	},
};

_Static_assert(sizeof(params) / sizeof(params[0]) == NP_NR_PARAMS,
	       "a row for every enum netperf_row");

enum {
	S_MBPS, S_RECV_MBPS, S_BOTH_MBPS, S_TOTAL_MBPS, S_RECV_TOTAL_MBPS,
	S_BOTH_TOTAL_MBPS, S_WORKLOAD_STREAM,
	S_TPS, S_BOTH_TPS, S_TOTAL_TPS, S_BOTH_TOTAL_TPS, S_WORKLOAD_RR,
};

#define HIGHER STAT_BETTER_HIGHER
static const struct bench_stat_decl stats[] = {
	[S_MBPS] = { "Throughput_Mbps", "Mbps", HIGHER, true, "streams",
		     "mean per client, 10^6 bits/s" },
	[S_RECV_MBPS] = { "ThroughputRecv_Mbps", "Mbps", HIGHER, false, "UDP_STREAM",
			  "the receive side, mean per client" },
	[S_BOTH_MBPS] = { "ThroughputBoth_Mbps", "Mbps", HIGHER, true, "streams",
			  "send + receive, as LKP's parser defines it" },
	[S_TOTAL_MBPS] = { "Throughput_total_Mbps", "Mbps", HIGHER, true, "streams",
			   "the sum over the clients" },
	[S_RECV_TOTAL_MBPS] = { "ThroughputRecv_total_Mbps", "Mbps", HIGHER, false,
				"UDP_STREAM", "the receive side, summed" },
	[S_BOTH_TOTAL_MBPS] = { "ThroughputBoth_total_Mbps", "Mbps", HIGHER, true,
				"streams", "send + receive, summed" },
	[S_WORKLOAD_STREAM] = { "workload", "messages", HIGHER, false, "streams",
				"LKP's: ThroughputBoth_total x seconds, in messages of the send size" },
	[S_TPS] = { "Throughput_tps", "tps", HIGHER, true, "RR tests",
		    "transactions per second, mean per client" },
	[S_BOTH_TPS] = { "ThroughputBoth_tps", "tps", HIGHER, true, "RR tests",
			 "equal to Throughput_tps (LKP's name)" },
	[S_TOTAL_TPS] = { "Throughput_total_tps", "tps", HIGHER, true, "RR tests",
			  "the sum over the clients" },
	[S_BOTH_TOTAL_TPS] = { "ThroughputBoth_total_tps", "tps", HIGHER, true,
			       "RR tests", "equal to Throughput_total_tps" },
	[S_WORKLOAD_RR] = { "workload", "transactions", HIGHER, false, "RR tests",
			    "LKP's: the transactions in the window" },
};
#undef HIGHER

void netperf_config_from_args(const struct bench_args *a,
			      struct netperf_config *cfg)
{
	const struct bench_arg *v = a->v;

	netperf_config_init(cfg);
	cfg->test = (enum netperf_test)v[NP_P_TEST].v.choice;
	cfg->clients = (unsigned)v[NP_P_NR_THREADS].v.n;
	cfg->duration_s = v[NP_P_RUNTIME].v.s;
	cfg->family = v[NP_P_IP].v.choice == IP_V6 ? AF_INET6 : AF_INET;
	cfg->send_size = v[NP_P_SEND_SIZE].v.n;
	cfg->recv_size = v[NP_P_RECV_SIZE].v.n;
	cfg->timeout_s = v[NP_P_TIMEOUT].v.s;
}

static int check(const struct bench_args *a, int *row, struct strbuf *why)
{
	struct netperf_config cfg;
	char buf[NETPERF_WHY_MAX];	/* the engine's messages are of numbers */

	netperf_config_from_args(a, &cfg);
	*row = -1;
	if (!netperf_config_check(&cfg, buf, sizeof(buf)))
		return 0;
	strbuf_addstr(why, buf);
	return -1;
}

struct ctx {
	const struct bench_run *run;
};

static void on_phase(const char *phase, void *arg)
{
	const struct ctx *c = arg;

	if (c->run->on_phase)
		c->run->on_phase(phase, c->run->arg);
}

static void free_detail(void *detail)
{
	netperf_result_release(detail);
	free(detail);
}

static enum bench_status run(const struct bench_run *run, struct bench_result *out)
{
	struct ctx c = { .run = run };
	struct netperf_config cfg;
	struct netperf_result *r = calloc(1, sizeof(*r));
	struct netperf_stat st[NETPERF_MAX_STATS];
	enum netperf_status status;
	size_t n;

	if (!r)
		return bench_result_fail(out, BENCH_ERROR, "out of memory");
	netperf_config_from_args(run->args, &cfg);
	cfg.stop = run->stop;
	cfg.on_phase = on_phase;
	cfg.arg = &c;
	if (strmap_setf(&out->env, "resolved.clients", "%u", cfg.clients)) {
		free(r);
		return bench_result_fail(out, BENCH_ERROR, "out of memory");
	}
	status = netperf_run(&cfg, r);
	out->detail = r;
	out->free_detail = free_detail;
	n = netperf_result_stats(r, st, NETPERF_MAX_STATS);
	for (size_t i = 0; i < n; i++) {
		const struct bench_stat_decl *d;

		if (!strcmp(st[i].name, "workload"))
			d = &stats[netperf_test_is_rr(r->test) ? S_WORKLOAD_RR
							       : S_WORKLOAD_STREAM];
		else
			d = bench_stat_find(&bench_type_netperf, st[i].name);
		/* every stat the engine names is declared above */
		BUG_ON(!d);
		bench_result_add(out, d, st[i].value);
	}
	if (status != NETPERF_OK)
		str_copy_marked(out->why, sizeof(out->why), r->why);
	switch (status) {
	case NETPERF_OK:
		return BENCH_OK;
	case NETPERF_INCOMPLETE:
		return BENCH_INCOMPLETE;
	case NETPERF_UNSUPPORTED:
		return BENCH_UNSUPPORTED;
	case NETPERF_FAILED:
		return BENCH_FAILED;
	default:
		return BENCH_ERROR;
	}
}

const struct bench_type bench_type_netperf = {
	.name = "netperf",
	.desc = "loopback TCP/UDP/SCTP stream and request/response (netperf's tests)",
	.doc = "docs/netperf.md",
	.params = params,
	.nr_params = NP_NR_PARAMS,
	.stats = stats,
	.nr_stats = sizeof(stats) / sizeof(stats[0]),
	.synopsis =
		"perfbot bench netperf -t TEST [-n CLIENTS|N%] [-l TIME] [-4|-6]\n"
		"                             [-m SIZE] [-M SIZE] [--timeout TIME] [--json]\n",
	.intro =
		"A netperf client and server over loopback (127.0.0.1 or ::1), no external\n"
		"netperf: CLIENTS concurrent client/server pairs, measured together.\n",
	.notes =
		"TIME is seconds, or a number with ms, s, m or h.  SIZE is bytes, or a\n"
		"number with K (1024), M (2^20), k (1000) or m (10^6), as netperf's -m.\n"
		"Stats are LKP's: Throughput_Mbps (mean per client, 10^6 bits/s) and\n"
		"Throughput_total_Mbps (sum over clients), _tps for the RR tests.\n"
		"Exit status: 0 done, 1 the run failed, 2 bad usage, 77 the test is\n"
		"unsupported here (no SCTP, no ::1), 128+signal when interrupted (what was\n"
		"measured is printed first).\n",
	.check = check,
	.run = run,
};

/*
 * Unit tests: monitor/ (the /proc scanners, kmsg names, the set on this
 * machine, the sampling thread's stop, time stats, unknown names).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "monitor/monitor.h"
#include "monitor/monitor_type.h"	/* irqtable_*(): a table from any path */
#include "monitor/parse.h"
#include "util/fsutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- helpers ---------------------------------------------------------- */

#define MAXL 64

struct lines {
	size_t n;
	char name[MAXL][64];
	uint64_t v[MAXL][4];
	size_t nv[MAXL];
	size_t idx[MAXL];
};

static void kv_cb(void *arg, size_t idx, const char *name, size_t len,
		  uint64_t value)
{
	struct lines *l = arg;

	assert_true(l->n < MAXL);
	snprintf(l->name[l->n], sizeof(l->name[0]), "%.*s", (int)len, name);
	l->v[l->n][0] = value;
	l->idx[l->n] = idx;
	l->n++;
}

static void row_cb(void *arg, size_t idx, const char *key,
		   const uint64_t *vals, size_t nvals)
{
	struct lines *l = arg;

	assert_true(l->n < MAXL && nvals <= 4);
	snprintf(l->name[l->n], sizeof(l->name[0]), "%s", key);
	memcpy(l->v[l->n], vals, nvals * sizeof(*vals));
	l->nv[l->n] = nvals;
	l->idx[l->n] = idx;
	l->n++;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double stat_of(const struct statmap *m, const char *name)
{
	const double *v = statmap_get(m, name);

	if (!v)
		fail_msg("stat %s missing", name);
	return *v;
}

/* ---- scanners --------------------------------------------------------- */

static void parse_vmstat(void **state)
{
	static const char text[] =
		"nr_free_pages 6066386\n"
		"nr_zone_inactive_anon 1234\n"
		"pgfault 98765432\n"
		"pgmajfault 17\n";
	struct lines l = { 0 };

	(void)state;
	assert_int_equal(mon_parse_kv(text, kv_cb, &l), 4);
	assert_string_equal(l.name[0], "nr_free_pages");
	assert_int_equal(l.v[0][0], 6066386);
	assert_string_equal(l.name[2], "pgfault");
	assert_int_equal(l.v[2][0], 98765432);
	assert_int_equal(l.idx[3], 3);
	/* a line without a number is not silently skipped */
	l.n = 0;
	assert_true(mon_parse_kv("pgfault 1\nbroken\n", kv_cb, &l) < 0);
}

static void parse_meminfo(void **state)
{
	static const char text[] =
		"MemTotal:       24684084 kB\n"
		"MemFree:        24265568 kB\n"
		"Active(anon):      12345 kB\n"
		"HugePages_Total:       0\n"
		"Hugepagesize:       2048 kB\n";
	struct lines l = { 0 };

	(void)state;
	assert_int_equal(mon_parse_kv(text, kv_cb, &l), 5);
	assert_string_equal(l.name[0], "MemTotal");
	assert_int_equal(l.v[0][0], 24684084);
	assert_string_equal(l.name[2], "Active(anon)");
	assert_int_equal(l.v[2][0], 12345);
	assert_string_equal(l.name[3], "HugePages_Total");
	assert_int_equal(l.v[3][0], 0);
	assert_string_equal(l.name[4], "Hugepagesize");
}

static void parse_proc_stat(void **state)
{
	static const char text[] =
		"cpu  100 5 200 3000 40 6 7 8 9 10\n"
		"cpu0 50 2 100 1500 20 3 3 4 4 5\n"
		"cpu1 50 3 100 1500 20 3 4 4 5 5\n"
		"intr 123456 0 9 0 0\n"
		"ctxt 7890\n"
		"btime 1700000000\n"
		"processes 4242\n"
		"procs_running 3\n"
		"procs_blocked 1\n"
		"softirq 555 0 1 2\n";
	struct mon_stat st;

	(void)state;
	assert_int_equal(mon_parse_stat(text, &st), 0);
	assert_int_equal(st.cpu.user, 100);
	assert_int_equal(st.cpu.idle, 3000);
	assert_int_equal(st.cpu.guest, 9);
	assert_int_equal(st.cpu.guest_nice, 10);
	assert_int_equal(st.intr, 123456);
	assert_int_equal(st.ctxt, 7890);
	assert_int_equal(st.procs_running, 3);
	assert_int_equal(st.procs_blocked, 1);
	/* guest time is inside user: the total leaves it out */
	assert_int_equal(cpu_times_total(&st.cpu), 100 + 5 + 200 + 3000 + 40 + 6 + 7 + 8);
	/* a missing field is an error, not a zero */
	assert_int_not_equal(mon_parse_stat("cpu  1 2 3 4\nctxt 5\n", &st), 0);
}

static void parse_interrupts(void **state)
{
	static const char text[] =
		"           CPU0       CPU1       \n"
		"  0:         20          0   IO-APIC   2-edge      timer\n"
		" 24:          1          0  IO-APIC   5-edge      ACPI:Ged\n"
		" 35:      15000        200  IR-PCI-MSI 524288-edge      eth0-TxRx-0, eth0\n"
		"NMI:          7          9   Non-maskable interrupts\n"
		"LOC:    5868703    5172274   Local timer interrupts\n"
		"ERR:          0\n"
		"MIS:          3\n";
	unsigned cpus[4];
	uint64_t vals[2];
	char key[256];
	struct lines l = { 0 };

	(void)state;
	assert_int_equal(mon_parse_cpu_header(text, cpus, 4), 2);
	assert_int_equal(cpus[0], 0);
	assert_int_equal(cpus[1], 1);
	/* offline CPUs leave gaps: the numbers come from the header */
	assert_int_equal(mon_parse_cpu_header("   CPU0   CPU3\n", cpus, 4), 2);
	assert_int_equal(cpus[1], 3);
	assert_true(mon_parse_cpu_header("garbage\n", cpus, 4) < 0);

	assert_int_equal(mon_parse_rows(text, 2, false, vals, key, sizeof(key),
					row_cb, &l), 7);
	assert_string_equal(l.name[0], "0:IO-APIC.2-edge.timer");
	assert_int_equal(l.v[0][0], 20);
	assert_string_equal(l.name[1], "24:IO-APIC.5-edge.ACPI:Ged");
	assert_string_equal(l.name[2], "35:IR-PCI-MSI.524288-edge.eth0-TxRx-0,eth0");
	assert_int_equal(l.v[2][0], 15000);
	assert_int_equal(l.v[2][1], 200);
	assert_string_equal(l.name[3], "NMI:Non-maskable_interrupts");
	assert_string_equal(l.name[4], "LOC:Local_timer_interrupts");
	assert_int_equal(l.v[4][1], 5172274);
	assert_int_equal(l.nv[4], 2);
	assert_string_equal(l.name[5], "ERR");
	assert_int_equal(l.nv[5], 1);
	assert_string_equal(l.name[6], "MIS");
	assert_int_equal(l.v[6][0], 3);

	/* a row of another shape is skipped, the others still count */
	l.n = 0;
	assert_int_equal(mon_parse_rows("  CPU0  CPU1\nodd row\nLOC:  1  2  Local timer\n",
					2, false, vals, key, sizeof(key), row_cb, &l), 1);
	assert_string_equal(l.name[0], "LOC:Local_timer");
	assert_int_equal(l.v[0][1], 2);

	/* a long description is cut, not overrun */
	l.n = 0;
	assert_int_equal(mon_parse_rows(text, 2, false, vals, key, 8, row_cb, &l), 7);
	assert_string_equal(l.name[4], "LOC:Loc");
}

static void parse_softirqs(void **state)
{
	static const char text[] =
		"                    CPU0       CPU1       \n"
		"          HI:          0          1\n"
		"       TIMER:     137989     144923\n"
		"      NET_RX:   28772820   29065815\n"
		"       SCHED:     121799     134498\n";
	uint64_t vals[2];
	char key[64];
	struct lines l = { 0 };

	(void)state;
	assert_int_equal(mon_parse_rows(text, 2, true, vals, key, sizeof(key),
					row_cb, &l), 4);
	assert_string_equal(l.name[0], "HI");
	assert_int_equal(l.v[0][1], 1);
	assert_string_equal(l.name[3], "SCHED");
	assert_int_equal(l.v[3][0], 121799);
	assert_int_equal(l.v[3][1], 134498);
}

/* ---- kmsg ------------------------------------------------------------- */

static void expect_name(const char *msg, const char *want)
{
	char out[128];

	mon_kmsg_normalise(msg, strlen(msg), out, sizeof(out));
	if (strcmp(out, want))
		fail_msg("'%s' -> '%s', want '%s'", msg, out, want);
}

static void kmsg_names(void **state)
{
	static const char rec[] =
		"4,1234,5678901,-;WARNING: CPU: 1 PID: 123 at kernel/foo.c:42 bar+0x1f/0x30\n"
		" SUBSYSTEM=cpu\n";
	const char *msg;
	size_t len;
	char out[128];

	(void)state;
	msg = mon_kmsg_message(rec, sizeof(rec) - 1, &len);
	assert_non_null(msg);
	assert_true(mon_kmsg_matches(msg, len));
	mon_kmsg_normalise(msg, len, out, sizeof(out));
	assert_string_equal(out, "WARNING:at_kernel/foo.c:#bar");
	assert_null(mon_kmsg_message("no semicolon here", 17, &len));

	expect_name("WARNING: CPU: 1 PID: 123 at kernel/foo.c:42 bar+0x1f/0x30",
		    "WARNING:at_kernel/foo.c:#bar");
	expect_name("BUG: kernel NULL pointer dereference, address: 0000000000000008",
		    "BUG:kernel_NULL_pointer_dereference,address:#");
	expect_name("BUG: soft lockup - CPU#1 stuck for 22s! [kworker/1:2:345]",
		    "BUG:soft_lockup-CPU##stuck_for#s![kworker/#:#:#]");
	expect_name("general protection fault, probably for non-canonical address 0xdffffc0000000000: 0000 [#1] SMP KASAN",
		    "general_protection_fault,probably_for_non-canonical_address#:#[##]SMP_KASAN");
	expect_name("RIP: 0010:ext4_map_blocks+0x5a/0x900",
		    "RIP:#:ext4_map_blocks");
	expect_name("kernel BUG at mm/slub.c:4321!", "kernel_BUG_at_mm/slub.c:#!");
	/* the same bug at other addresses and pids has the same name */
	expect_name("Out of memory: Killed process 4242 (stress) total-vm:12345kB",
		    "Out_of_memory:Killed_process#(stress)total-vm:#kB");
	/* long lines stop at ~100 characters */
	{
		char big[400];

		memset(big, 'a', sizeof(big) - 1);
		memcpy(big, "BUG: ", 5);
		big[sizeof(big) - 1] = '\0';
		assert_int_equal(mon_kmsg_normalise(big, strlen(big), out, sizeof(out)), 100);
		assert_int_equal(strlen(out), 100);
		/* and never past the caller's buffer */
		assert_int_equal(mon_kmsg_normalise(big, strlen(big), out, 10), 9);
	}

	assert_false(mon_kmsg_matches("usb 1-1: new high-speed USB device", 34));
	assert_true(mon_kmsg_matches("Call Trace:", 11));
	assert_true(mon_kmsg_matches("INFO: task foo:12 blocked for more than 120 seconds.", 52));
}

/* ---- the set on this machine ----------------------------------------- */

static double sum_per_cpu(const struct statmap *m, const char *prefix,
			  const char *key, int *found)
{
	double sum = 0;
	size_t plen = strlen(prefix);

	*found = 0;
	for (size_t i = 0; i < m->n; i++) {
		const char *n = m->v[i].name;
		const char *dot;

		if (strncmp(n, prefix, plen) || strncmp(n + plen, ".CPU", 4))
			continue;
		dot = strchr(n + plen + 4, '.');
		if (dot && !strcmp(dot + 1, key)) {
			sum += m->v[i].value;
			(*found)++;
		}
	}
	return sum;
}

/* Every summed row equals the sum of its per-CPU rows; returns rows checked. */
static size_t check_sums(const struct statmap *m, const char *prefix)
{
	size_t plen = strlen(prefix), checked = 0;

	for (size_t i = 0; i < m->n; i++) {
		const char *n = m->v[i].name;
		int found;
		double s;

		if (strncmp(n, prefix, plen) || n[plen] != '.' ||
		    !strncmp(n + plen, ".CPU", 4))
			continue;
		s = sum_per_cpu(m, prefix, n + plen + 1, &found);
		if (!found)
			continue;	/* ERR:, MIS: */
		assert_float_equal(s, m->v[i].value, 1e-6);
		checked++;
	}
	return checked;
}

/* The default set leaves out perf-stat, which disturbs the benchmark. */
static void default_set_is_gentle(void **state)
{
	bool perf = false, time = false;

	(void)state;
	for (const char *const *n = monitor_default_names; *n; n++) {
		perf |= !strcmp(*n, "perf-stat");
		time |= !strcmp(*n, "time");
	}
	assert_false(perf);
	assert_true(time);
}

/* Every monitor perfbot has: the default set plus perf-stat. */
static void every_monitor_here(void **state)
{
	static const char *const every[] = {
		"time", "proc-stat", "vmstat", "proc-vmstat", "meminfo",
		"interrupts", "softirqs", "perf-stat", "kmsg", NULL,
	};
	struct monitor_ctx ctx = { .interval_s = 0.05, .testcase = "hackbench" };
	struct rusage ru = { .ru_utime = { 1, 0 }, .ru_maxrss = 2048 };
	struct monitor_end end = { .bench_rusage = &ru, .bench_elapsed_s = 0.3 };
	struct statmap stats = { 0 };
	struct strmap env = { 0 };
	struct monitor_set *set;
	struct strbuf err = STRBUF_INIT;
	const char *cyc, *whole;
	double v;

	(void)state;
	assert_int_equal(monitor_set_open(every, &ctx, &set, &err), 0);
	assert_int_equal(monitor_set_start(set, &err), 0);
	usleep(300000);
	assert_int_equal(monitor_set_stop(set, &end, &stats, &env, &err), 0);
	monitor_set_close(set);
	statmap_finish(&stats);
	for (size_t i = 0; i < env.n; i++)
		print_message("env %s = %s\n", env.v[i].key, env.v[i].value);

	v = stat_of(&stats, "mpstat.cpu.all.idle%");
	assert_true(v >= 0 && v <= 100);
	v = stat_of(&stats, "mpstat.cpu.all.usr%") + stat_of(&stats, "mpstat.cpu.all.nice%") +
	    stat_of(&stats, "mpstat.cpu.all.sys%") + stat_of(&stats, "mpstat.cpu.all.iowait%") +
	    stat_of(&stats, "mpstat.cpu.all.irq%") + stat_of(&stats, "mpstat.cpu.all.soft%") +
	    stat_of(&stats, "mpstat.cpu.all.steal%") + stat_of(&stats, "mpstat.cpu.all.guest%") +
	    stat_of(&stats, "mpstat.cpu.all.gnice%") + stat_of(&stats, "mpstat.cpu.all.idle%");
	assert_float_equal(v, 100.0, 1e-6);
	assert_true(stat_of(&stats, "vmstat.system.cs") > 0);
	assert_true(stat_of(&stats, "vmstat.system.in") >= 0);
	assert_true(stat_of(&stats, "vmstat.procs.r") >= 0);
	v = stat_of(&stats, "vmstat.cpu.id");
	assert_true(v >= 0 && v <= 100);
	assert_true(stat_of(&stats, "proc-vmstat.pgfault") >= 0);
	assert_true(stat_of(&stats, "proc-vmstat.nr_free_pages") > 0);
	assert_true(stat_of(&stats, "meminfo.MemTotal") > 0);
	assert_true(stat_of(&stats, "meminfo.MemFree") <= stat_of(&stats, "meminfo.MemTotal"));
	assert_true(check_sums(&stats, "interrupts") > 0);
	assert_true(check_sums(&stats, "softirqs") > 0);
	assert_true(stat_of(&stats, "softirqs.SCHED") >= 0);
	assert_true(stat_of(&stats, "softirqs.CPU0.SCHED") >= 0);
	assert_true(stat_of(&stats, "hackbench.time.user_time") == 1.0);

	/* perf-stat: the software events count everywhere perf is allowed */
	whole = strmap_get(&env, "monitor.perf-stat");
	/* (unless perf is forbidden to this user altogether) */
	if (!whole || !(strstr(whole, "Permission denied") ||
			strstr(whole, "not permitted"))) {
		assert_null(whole);
		assert_true(stat_of(&stats, "perf-stat.total.context-switches") > 0);
		assert_true(stat_of(&stats, "perf-stat.ps.context-switches") > 0);
		assert_non_null(statmap_get(&stats, "perf-stat.total.page-faults"));
		cyc = strmap_get(&env, "monitor.perf-stat.cycles");
		if (cyc) {
			assert_true(!strncmp(cyc, "unavailable: ", 13));
			assert_null(statmap_get(&stats, "perf-stat.total.cycles"));
			assert_null(statmap_get(&stats, "perf-stat.overall.ipc"));
		} else {
			assert_true(stat_of(&stats, "perf-stat.total.cycles") > 0);
		}
	}
	/* nothing went wrong in the kernel meanwhile: no failure stats */
	for (size_t i = 0; i < stats.n; i++)
		assert_true(strncmp(stats.v[i].name, "dmesg.", 6));
	statmap_release(&stats);
	strmap_release(&env);
	strbuf_release(&err);
}

static void time_stats(void **state)
{
	static const char *const names[] = { "time", NULL };
	struct monitor_ctx ctx = { .interval_s = 1, .testcase = "will-it-scale" };
	struct rusage ru = {
		.ru_utime = { 1, 500000 }, .ru_stime = { 0, 250000 },
		.ru_maxrss = 1234, .ru_minflt = 10, .ru_majflt = 2,
		.ru_nvcsw = 3, .ru_nivcsw = 4, .ru_inblock = 5, .ru_oublock = 6,
	};
	struct monitor_end end = { .bench_rusage = &ru, .bench_elapsed_s = 2.0 };
	struct statmap stats = { 0 };
	struct strmap env = { 0 };
	struct monitor_set *set;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	assert_int_equal(monitor_set_open(names, &ctx, &set, &err), 0);
	assert_int_equal(monitor_set_start(set, &err), 0);
	assert_int_equal(monitor_set_stop(set, &end, &stats, &env, &err), 0);
	statmap_finish(&stats);
	assert_float_equal(stat_of(&stats, "will-it-scale.time.elapsed_time"), 2.0, 1e-9);
	assert_float_equal(stat_of(&stats, "will-it-scale.time.user_time"), 1.5, 1e-9);
	assert_float_equal(stat_of(&stats, "will-it-scale.time.system_time"), 0.25, 1e-9);
	assert_float_equal(stat_of(&stats, "will-it-scale.time.percent_of_cpu_this_job_got"),
			   87.5, 1e-9);
	assert_float_equal(stat_of(&stats, "will-it-scale.time.maximum_resident_set_size"),
			   1234, 0);
	assert_float_equal(stat_of(&stats, "will-it-scale.time.minor_page_faults"), 10, 0);
	assert_float_equal(stat_of(&stats, "will-it-scale.time.major_page_faults"), 2, 0);
	assert_float_equal(stat_of(&stats, "will-it-scale.time.voluntary_context_switches"), 3, 0);
	assert_float_equal(stat_of(&stats, "will-it-scale.time.involuntary_context_switches"),
			   4, 0);
	assert_float_equal(stat_of(&stats, "will-it-scale.time.file_system_inputs"), 5, 0);
	assert_float_equal(stat_of(&stats, "will-it-scale.time.file_system_outputs"), 6, 0);
	assert_int_equal(env.n, 0);
	statmap_release(&stats);

	/* no rusage (an in-process benchmark): unavailable, the run goes on */
	memset(&stats, 0, sizeof(stats));
	end.bench_rusage = NULL;
	assert_int_equal(monitor_set_start(set, &err), 0);
	assert_int_equal(monitor_set_stop(set, &end, &stats, &env, &err), 0);
	statmap_finish(&stats);
	assert_non_null(strmap_get(&env, "monitor.time"));
	assert_true(!strncmp(strmap_get(&env, "monitor.time"), "unavailable: ", 13));
	assert_float_equal(stat_of(&stats, "will-it-scale.time.elapsed_time"), 2.0, 1e-9);
	assert_null(statmap_get(&stats, "will-it-scale.time.user_time"));
	monitor_set_close(set);
	statmap_release(&stats);
	strmap_release(&env);
	strbuf_release(&err);
}

static void stop_is_prompt(void **state)
{
	static const char *const names[] = { "meminfo", "vmstat", NULL };
	struct monitor_ctx ctx = { .interval_s = 10, .testcase = "x" };
	struct statmap stats = { 0 };
	struct strmap env = { 0 };
	struct monitor_set *set;
	struct strbuf err = STRBUF_INIT;
	double t0, dt;

	(void)state;
	assert_int_equal(monitor_set_open(names, &ctx, &set, &err), 0);
	assert_int_equal(monitor_set_start(set, &err), 0);
	usleep(50000);	/* the thread is asleep, waiting for its first tick */
	t0 = now_s();
	assert_int_equal(monitor_set_stop(set, NULL, &stats, &env, &err), 0);
	dt = now_s() - t0;
	assert_true(dt < 0.5);
	statmap_finish(&stats);
	assert_non_null(statmap_get(&stats, "meminfo.MemTotal"));
	assert_non_null(statmap_get(&stats, "vmstat.procs.r"));
	/* closing a started set joins its thread as promptly */
	assert_int_equal(monitor_set_start(set, &err), 0);
	t0 = now_s();
	monitor_set_close(set);
	assert_true(now_s() - t0 < 0.5);
	statmap_release(&stats);
	strmap_release(&env);
	strbuf_release(&err);
}

static void unknown_names(void **state)
{
	static const char *const names[] = { "vmstat", "perf-stats", NULL };
	static const char *const far[] = { "zzzzzzzzzzzz", NULL };
	struct monitor_ctx ctx = { .interval_s = 1, .testcase = "x" };
	struct monitor_set *set = (void *)1;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	assert_true(monitor_known("proc-vmstat"));
	assert_true(monitor_known("kmsg"));
	assert_false(monitor_known("perf-stats"));
	assert_string_equal(monitor_suggest("perf-stats"), "perf-stat");
	assert_string_equal(monitor_suggest("softirq"), "softirqs");
	assert_null(monitor_suggest("zzzzzzzzzzzz"));
	for (size_t i = 0; monitor_default_names[i]; i++)
		assert_true(monitor_known(monitor_default_names[i]));

	assert_int_not_equal(monitor_set_open(names, &ctx, &set, &err), 0);
	assert_null(set);
	assert_string_equal(err.buf, "unknown monitor 'perf-stats' (did you mean 'perf-stat'?)");
	assert_int_not_equal(monitor_set_open(far, &ctx, &set, &err), 0);
	assert_string_equal(err.buf, "unknown monitor 'zzzzzzzzzzzz'");
	ctx.interval_s = 0;
	assert_int_not_equal(monitor_set_open(NULL, &ctx, &set, &err), 0);
	strbuf_release(&err);
}

/* ---- whole names and reasons ------------------------------------------- */

/*
 * A row whose description is 400 bytes long is named whole in its stats
 * (main cut keys at 255 bytes); a table read from a 5,000-byte path that
 * does not exist is unavailable with that path whole in the reason (main
 * cut it at the set's 256 bytes).
 */
static void irqtable_names_whole(void **state)
{
	struct strbuf text = STRBUF_INIT, path = STRBUF_INIT, desc = STRBUF_INIT;
	struct strbuf why = STRBUF_INIT, want = STRBUF_INIT;
	struct statmap stats = { 0 };
	struct strmap env = { 0 };
	void *t = NULL;
	char *dir;
	FILE *f;

	(void)state;
	for (int i = 0; i < 40; i++)
		strbuf_addf(&desc, "%sdevice-%04d", i ? " " : "", i);
	strbuf_addf(&text, "      CPU0  CPU1\n 40:  3  4  IR-PCI-MSI  %s\n", desc.buf);
	strbuf_addstr(&text, "LOC:  5  6  Local timer\n");
	assert_int_equal(make_temp_dir(NULL, "perfbot-test-irq", &dir), 0);
	strbuf_addf(&path, "%s/interrupts", dir);
	f = fopen(path.buf, "w");
	assert_non_null(f);
	fputs(text.buf, f);
	fclose(f);
	assert_int_equal(irqtable_open(path.buf, "interrupts", false, &t, &why), 0);
	assert_int_equal(irqtable_start(t), 0);
	assert_int_equal(irqtable_stop(t, NULL, &stats, &env), 0);
	irqtable_close(t);
	statmap_finish(&stats);
	/* "a b c" joined by '.' in a numbered row, as LKP names it */
	for (size_t i = 0; i < desc.len; i++)
		if (desc.buf[i] == ' ')
			desc.buf[i] = '.';
	strbuf_addf(&want, "interrupts.40:IR-PCI-MSI.%s", desc.buf);
	assert_true(want.len > 400);
	if (!statmap_get(&stats, want.buf))
		fail_msg("no stat %s", want.buf);
	assert_non_null(statmap_get(&stats, "interrupts.LOC:Local_timer"));

	strbuf_reset(&path);
	strbuf_addf(&path, "%s/", dir);
	while (path.len < 5000)
		strbuf_addstr(&path, "no-such-directory/");
	assert_int_equal(irqtable_open(path.buf, "interrupts", false, &t, &why), -ENOTSUP);
	strbuf_reset(&want);
	strbuf_addf(&want, "%s: %s", path.buf, strerror(ENAMETOOLONG));
	assert_string_equal(why.buf, want.buf);

	assert_int_equal(remove_tree(dir), 0);
	free(dir);
	statmap_release(&stats);
	strmap_release(&env);
	strbuf_release(&text);
	strbuf_release(&path);
	strbuf_release(&desc);
	strbuf_release(&why);
	strbuf_release(&want);
}

/* An unknown monitor's name of 5,000 bytes is in the error whole. */
static void unknown_long_name_whole(void **state)
{
	struct monitor_ctx ctx = { .interval_s = 1, .testcase = "x" };
	struct strbuf err = STRBUF_INIT, name = STRBUF_INIT, want = STRBUF_INIT;
	struct monitor_set *set = (void *)1;
	const char *names[2] = { NULL, NULL };

	(void)state;
	strbuf_addchars(&name, 'm', 5000);
	names[0] = name.buf;
	assert_int_equal(monitor_set_open(names, &ctx, &set, &err), -EINVAL);
	assert_null(set);
	strbuf_addf(&want, "unknown monitor '%s'", name.buf);
	assert_string_equal(err.buf, want.buf);
	strbuf_release(&err);
	strbuf_release(&name);
	strbuf_release(&want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_vmstat),
		cmocka_unit_test(parse_meminfo),
		cmocka_unit_test(parse_proc_stat),
		cmocka_unit_test(parse_interrupts),
		cmocka_unit_test(parse_softirqs),
		cmocka_unit_test(kmsg_names),
		cmocka_unit_test(every_monitor_here),
		cmocka_unit_test(default_set_is_gentle),
		cmocka_unit_test(time_stats),
		cmocka_unit_test(stop_is_prompt),
		cmocka_unit_test(unknown_names),
		cmocka_unit_test(irqtable_names_whole),
		cmocka_unit_test(unknown_long_name_whole),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

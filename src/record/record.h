/*
 * record.h - the shared record types: what one run of an atomic job
 * produced.  The runner fills a struct run_record and hands it to the
 * command, which hands it to the store; the store gives records back to
 * compare and report.  Every module may include this header (docs/design.md
 * §3: "the shared record types"); it includes nothing of perfbot.
 *
 * Ownership: a record owns every string and array in it; release it with
 * run_record_release().  strmap/statmap copy the keys and values they are
 * given.  Not thread-safe: one owner at a time.
 * Errors: functions return 0 or -ENOMEM.
 */
#ifndef PERFBOT_RECORD_RECORD_H
#define PERFBOT_RECORD_RECORD_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/* String pairs in insertion order; set() replaces an existing key. */
struct strmap_entry {
	char *key;
	char *value;
};

struct strmap {
	struct strmap_entry *v;
	size_t n, cap;
};

int strmap_set(struct strmap *m, const char *key, const char *value);
int strmap_setf(struct strmap *m, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const char *strmap_get(const struct strmap *m, const char *key);
/* Sort by key (byte order): the canonical order of a job's identity. */
void strmap_sort(struct strmap *m);
void strmap_release(struct strmap *m);

/*
 * A run's stats: name -> value.  Adding is O(1) (a run can have tens of
 * thousands); statmap_finish() sorts by name and keeps the last value of a
 * name added twice, after which statmap_get() is a binary search.
 */
struct stat_value {
	char *name;
	double value;
};

struct statmap {
	struct stat_value *v;
	size_t n, cap;
	int sorted;
};

int statmap_add(struct statmap *m, const char *name, double value);
int statmap_addf(struct statmap *m, double value, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void statmap_finish(struct statmap *m);
/* The value of `name` (after statmap_finish()), or NULL. */
const double *statmap_get(const struct statmap *m, const char *name);
void statmap_release(struct statmap *m);

enum run_status {
	RUN_COMPLETE,		/* ran to the end; its stats are the result */
	RUN_FAILED,		/* crashed, exited non-zero or timed out */
	RUN_INCOMPLETE,		/* stopped by the user; stats are partial */
	RUN_UNSUPPORTED,	/* cannot run on this machine (env last_state.reason
				 * says why): not a failure, never counted as one */
};

/*
 * What a benchmark declares of a stat it produces (its stat table,
 * bench/bench.h), stored with each run so that compare and every report
 * read direction and KPI instead of guessing them from the name.
 */
enum stat_better {
	STAT_BETTER_NONE = 0,	/* neither way is better (a count, a setting) */
	STAT_BETTER_HIGHER = 1,
	STAT_BETTER_LOWER = -1,
};

struct stat_meta {
	char *name;		/* the stat's full name, as in the statmap */
	char *unit;		/* "ops/s", "s", "KiB/s", ...; "" when it has none */
	int better;		/* enum stat_better */
	bool kpi;		/* a stat the run exists for */
};

/* In insertion order; set() replaces the entry of a name given twice. */
struct stat_meta_list {
	struct stat_meta *v;
	size_t n, cap;
};

int stat_meta_set(struct stat_meta_list *l, const char *name,
		  const char *unit, int better, bool kpi);
const struct stat_meta *stat_meta_find(const struct stat_meta_list *l,
				       const char *name);
void stat_meta_release(struct stat_meta_list *l);

/*
 * The one rule for stats no run declares -- imported results, monitors,
 * an exec job's parsed output (docs/compare.md, "Direction"):
 *  - failure stats (stat_is_failure()) are better lower;
 *  - a name ending in "_ops", or containing "throughput", "Throughput"
 *    (netperf's ThroughputBoth_Mbps too) or "workload", is better higher;
 *  - else a name with "time", "elapsed" or "latency" as a word of its
 *    own (between the ends and . _ - : / % or a blank, in any case:
 *    "time.elapsed_time", "hackbench.time", "wakeup_latency_us") is
 *    better lower -- not a name that merely contains the letters
 *    ("interrupts.LOC:Local_timer_interrupts", "uptime.idle", "runtime");
 *  - anything else: STAT_BETTER_NONE.
 */
int stat_rule_better(const char *name);
/*
 * How disturbed the machine was during a run (docs/compare.md,
 * "Disturbance"): recorded by the runner for every run, means over the
 * run, in CPUs (a fully busy CPU is 1).  compare reads them to refuse a
 * "changed" between runs taken under different load.
 */
#define STAT_DISTURBANCE_CPU      "disturbance.others_cpu"  /* CPU time of processes not the benchmark's */
#define STAT_DISTURBANCE_RUNNABLE "disturbance.runnable"    /* runnable tasks beyond the benchmark's */
#define STAT_DISTURBANCE_STEAL    "disturbance.steal"       /* CPU time the hypervisor took */

/* A 0/1 failure stat: dmesg.*, last_state.*, *.exit_fail. */
bool stat_is_failure(const char *name);
/* A percentage (the name ends with '%'): its change is a difference. */
bool stat_is_pct(const char *name);
/* The declared direction of `name` in l (may be NULL), else the rule's. */
int stat_better(const struct stat_meta_list *l, const char *name);

const char *run_status_name(enum run_status status);

struct run_record {
	char *testbox;		/* hostname */
	char *testcase;		/* will-it-scale, hackbench, netperf, exec name */
	char *job;		/* atomic job name, as LKP names it */
	struct strmap params;	/* identity: sorted parameters as written (100%, 300s) */
	char *commit;		/* full sha, or the kernel release for local runs */
	struct strmap env;	/* environment, resolved values, unavailable monitors */
	struct statmap stats;
	enum run_status status;
	double started;		/* Unix time, seconds */
	double duration_s;
	char *job_text;		/* the atomic job as YAML, to reproduce the run */
	struct stat_meta_list meta;	/* what the benchmark declares of its stats */
};

/*
 * The stat a run exists for: the job's `kpi` (env "kpi") when the run has
 * it, else the first stat the run declares a KPI (meta) and has, else --
 * for runs that declare none (imported, or stored before stats were
 * declared) -- the first the run has of will-it-scale.per_thread_ops,
 * will-it-scale.per_process_ops, hackbench.throughput,
 * netperf.Throughput_Mbps, netperf.Throughput_tps,
 * <testcase>.time.elapsed_time.  NULL when it has none of them.  The
 * returned name points into the record or a static string.
 */
const char *run_record_kpi(const struct run_record *r);

/* Set a string field (copying value; NULL clears it). */
int record_set_str(char **field, const char *value);
void run_record_release(struct run_record *r);

#endif

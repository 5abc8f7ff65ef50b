/*
 * bisect_result.h - the two documents a bisection stores (docs/bisect.md,
 * docs/report.md "Bisection reports"): its spec, what it was started with,
 * and its result, what it found and the evidence.  One C type each, one
 * writer and one reader each: the session (vcs/) builds a struct
 * bisect_result, cmd/ and report/ read one, and only this module turns
 * either into JSON or back (design.md §3: record/ is the shared types).
 *
 * The result mirrors the JSON document field for field, so that reading
 * and writing again gives the same document: what the document does not
 * hold is "unknown" in the struct (a NULL string, a NaN number, a count
 * or index of BISECT_UNKNOWN, a tri-state of -1, an object or array with
 * present false), never a default.  Defaults are the readers' business
 * (an inner bisection's confidence is the outer one's: report/).
 *
 * Stored documents are untrusted input (design.md §11): the reader checks
 * every field's type and bounds and the rules of docs/report.md ("The
 * document"), and a document that breaks one is -EINVAL with a message
 * naming the field ("commits[3].values[2]: expected a number").  The
 * writer refuses (-EINVAL, the field named) a struct that breaks them.
 *
 * The module: bisect_spec.c (the spec and its JSON), bisect_result.c (a
 * result's lifetime, its copy for a terminal), bisect_result_shape.c (the
 * document's keys, written down once), bisect_result_read.c,
 * bisect_result_write.c and bisect_result_rules.c, which walk that shape.
 *
 * Ownership: a struct owns every string and array in it; release it with
 * bisect_result_release() / bisect_spec_release().  Functions that fill a
 * struct leave it empty (as bisect_result_init() makes it) when they fail.
 * Threading: no state; one thread per struct.
 */
#ifndef PERFBOT_RECORD_BISECT_RESULT_H
#define PERFBOT_RECORD_BISECT_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- the spec ---- */

/* What a bisection was started with: its stored spec. */
struct bisect_spec {
	char *repo;			/* absolute path */
	char *good, *bad;		/* full shas */
	char *good_given, *bad_given;	/* as the user wrote them, or NULL */
	char *metric;			/* NULL: the job's KPI */
	char *job_path;			/* the job file, for messages */
	char *job_text;			/* the atomic job (YAML), loads back alone */
	char *build;			/* --build, or NULL: the job's build: */
	char *testbox;
	double confidence;		/* 0.5 < confidence < 1 */
	unsigned max_runs;		/* the budget: runs the bisection makes, >= 1 */
};

/* Compact JSON, unset fields absent; -EINVAL for a spec missing a field. */
int bisect_spec_to_json(const struct bisect_spec *spec, char **text);
/* -EINVAL for text that is not a spec. */
int bisect_spec_from_json(const char *text, struct bisect_spec *out);
int bisect_spec_copy(struct bisect_spec *dst, const struct bisect_spec *src);
void bisect_spec_release(struct bisect_spec *spec);

/* ---- the result ---- */

#define BISECT_UNKNOWN (-1L)	/* a count or an index the document lacks */

enum bisect_status {
	BISECT_STATUS_FOUND,		/* one first bad commit: culprit */
	BISECT_STATUS_RANGE,		/* "found-range": one of range[] */
	BISECT_STATUS_NO_CHANGE,	/* good and bad measure alike */
	BISECT_STATUS_UNDECIDED,	/* the budget ran out: best[] */
	BISECT_STATUS_FAILED,		/* message says why */
	BISECT_STATUS_RUNNING,		/* or stopped before its end */
	BISECT_STATUS_RESET,
};

/* "found", "found-range", ... as stored; NULL for a value out of range. */
const char *bisect_status_name(enum bisect_status s);
/* -EINVAL for a word that is no status. */
int bisect_status_parse(const char *name, enum bisect_status *out);
/* Decided: found, found-range, no-change or undecided. */
bool bisect_status_finished(enum bisect_status s);

struct bisect_level;
/*
 * Did lv's confirmation show its culprit to be the cause: "changed",
 * culprit against parent, the way the level's baseline changed (when
 * that is known)?  A culprit whose confirmation did not is a suspect.
 */
bool bisect_level_confirmed(const struct bisect_level *lv);

/* The runs of a commit, in the order they were stored. */
struct bisect_values {
	double *v;			/* finite */
	size_t n, cap;
	bool present;			/* "values" is in the document (maybe []) */
};

/* A commit as git describes it; all but sha may be NULL. */
struct bisect_commit {
	char *sha, *subject, *author, *date;
};

/* good or bad of a level: the commit, and the revision the user gave. */
struct bisect_end {
	bool present;
	struct bisect_commit commit;
	char *given;
};

/* A set of runs of one commit: a baseline side or a confirmation side. */
struct bisect_sample {
	bool present;
	char *sha;
	long n;				/* BISECT_UNKNOWN */
	double mean, stddev;		/* NaN: unknown */
	struct bisect_values values;
	/*
	 * How disturbed the machine was while these runs ran: the mean per
	 * run of record.h's STAT_DISTURBANCE_CPU and _STEAL, in CPUs; NaN
	 * when not every run recorded it (stored runs reused, older runs).
	 */
	double others_cpu, steal;
};

/* b against a, as compare judges a KPI. */
struct bisect_change {
	bool present;
	double pct, low, high, p;	/* NaN: unknown; low/high the 95% interval */
	char *verdict;			/* verdict_name(): "changed", "same", ... */
};

struct bisect_baseline {
	bool present;
	struct bisect_sample good, bad;
	struct bisect_change change;	/* bad against good */
};

/* The culprit against the commit before it (confirmation). */
struct bisect_confirmation {
	bool present;
	struct bisect_change change;	/* culprit against parent */
	struct bisect_sample parent, culprit;
	/*
	 * NULL, or why the verdict is no more than "unknown": the two sides'
	 * runs were disturbed differently (stats/compare.h's limits).
	 */
	char *disturbed;
};

enum bisect_commit_state {
	BISECT_STATE_UNKNOWN = -1,
	BISECT_STATE_MEASURED,
	BISECT_STATE_SKIPPED,
};

/*
 * One commit of culprit, best[], range[] or commits[]: the fields each
 * list uses (docs/report.md), any of them unknown.
 */
struct bisect_entry {
	struct bisect_commit commit;	/* sha required */
	long index;			/* among the candidates, oldest first */
	enum bisect_commit_state state;	/* commits[] */
	int skipped;			/* range[]: -1 unknown, 0, 1 */
	long n;				/* runs */
	double p_bad;			/* P(first bad <= this commit) */
	double mean, stddev;
	struct bisect_values values;
	char *note;			/* why it was skipped */
	double probability;		/* P(first bad == this commit) */
};

struct bisect_entries {
	struct bisect_entry *v;
	size_t n, cap;
	bool present;
};

struct bisect_level;

/* The culprit is a merge: its branch was bisected again (inner). */
struct bisect_merge {
	struct bisect_commit commit;	/* sha required */
	struct bisect_level *inner;	/* NULL: not bisected inside */
};

/*
 * One bisection along the first parents from good to bad: the top level,
 * or the one inside a merged branch.
 */
struct bisect_level {
	enum bisect_status status;
	struct bisect_end good, bad;	/* sha of each required */
	long candidates;
	struct bisect_baseline baseline;
	long runs_search;		/* runs on the candidates */
	struct bisect_entries best;	/* most probable first, at most 5 */
	struct bisect_entries commits;	/* measured or skipped, commit order */
	bool have_culprit;
	struct bisect_entry culprit;	/* required when found */
	struct bisect_entries range;	/* non-empty when found-range */
	struct bisect_confirmation confirmation;
	struct bisect_merge *merge;	/* NULL: none */
	double confidence;		/* where the search stops (NaN) */
	long max_runs;
	long runs, builds, build_failures, runs_baseline, runs_confirm;
	char *message;
};

/* A parameter of the atomic job: a string, or a number as written. */
enum bisect_param_kind {
	BISECT_PARAM_STRING,
	BISECT_PARAM_INTEGER,
	BISECT_PARAM_REAL,
};

struct bisect_param {
	char *key;
	enum bisect_param_kind kind;
	char *string;			/* BISECT_PARAM_STRING */
	int64_t integer;		/* BISECT_PARAM_INTEGER */
	double real;			/* BISECT_PARAM_REAL */
};

struct bisect_params {
	struct bisect_param *v;
	size_t n, cap;
	bool present;
};

struct bisect_result {
	int64_t id;			/* BISECT_UNKNOWN */
	struct bisect_level level;	/* status is level.status */
	struct bisect_params params;
	char *repo, *origin_url;
	char *job, *testcase, *testbox, *machine, *job_text;
	char *metric;			/* required unless failed, running, reset */
	char *unit;			/* the metric's declared unit ("s", "ops/s"), "" none;
					   NULL: not stored (results before issue 13) */
	int higher_is_better;		/* -1 unknown (the name decides), 0, 1 */
	char *job_path;			/* from the spec (status documents) */
	struct bisect_spec *spec;	/* the spec itself, or NULL */
};

/* An empty result: everything unknown, status running. */
void bisect_result_init(struct bisect_result *r);
void bisect_result_release(struct bisect_result *r);
/* An empty level (everything unknown); release with bisect_level_release(). */
void bisect_level_init(struct bisect_level *lv);
void bisect_level_release(struct bisect_level *lv);
void bisect_entry_init(struct bisect_entry *e);
void bisect_entry_release(struct bisect_entry *e);

/*
 * The rules of a document (docs/report.md, "The document"): 0, or -EINVAL
 * with the first broken one in err, by the field's path.
 */
int bisect_result_check(const struct bisect_result *r, char *err, size_t errlen);

/*
 * The JSON document of r: compact as stored, or indented by 2 as perfbot
 * prints JSON; reals with 10 significant digits.  -EINVAL (err names the
 * field) when r breaks the document's rules, -ENOMEM.  *text is the
 * caller's to free.
 */
enum bisect_json_style {
	BISECT_JSON_COMPACT,
	BISECT_JSON_INDENT,
};
int bisect_result_to_json(const struct bisect_result *r, enum bisect_json_style style,
			  char **text, char *err, size_t errlen);

/* Upper bounds of a document, beyond which it is refused as damaged. */
#define BISECT_MAX_ENTRIES 1000000	/* per array: values, commits, range, best */
#define BISECT_MAX_DEPTH 8		/* merges inside merges */

/*
 * A document (len bytes of JSON, no NUL needed) read and checked: 0, or
 * -EINVAL with err naming what is wrong and where, or -ENOMEM.
 */
int bisect_result_from_json(const char *text, size_t len, struct bisect_result *out,
			    char *err, size_t errlen);

/*
 * A stored bisection as `bisect status` and `report --bisect` show it, in
 * any state: its result (NULL when it has none yet) completed from its
 * spec where the result does not say -- good and bad {sha, given}, repo,
 * job_path, job_text, metric, testbox, confidence, max_runs -- with the
 * spec itself, the store's id and its status word (a reset one keeps the
 * result it had).  -EINVAL (err says what) when any of it is damaged.
 */
int bisect_result_load(struct bisect_result *out, int64_t id, const char *status,
		       const char *result, const char *spec, char *err, size_t errlen);

/*
 * A copy of src for a text renderer: every string with its control
 * characters but '\n' and '\t' escaped as quote_line() does (util/quote.h),
 * so that a commit subject cannot drive a terminal.  0 or -ENOMEM.
 */
int bisect_result_quoted(const struct bisect_result *src, struct bisect_result *dst);

#endif

# bisect-lib.sh - generated git repositories for the `perfbot bisect` e2e
# tests.  Source it after lib.sh.
#
# make_bisect_repo DIR N SLOW_AT [--broken K] [--merge-branch]
#
#   creates the git repository DIR with N commits along main (first
#   parent), 1-based.  Each holds prog.c, a fixed amount of CPU work that
#   prints its own run time of that work as kv lines (`time_ms: 98.6 ms`);
#   the amount is WORK_ITERS in work.h.  Every commit changes something
#   harmless (rev.txt); commit SLOW_AT makes the work BISECT_SLOWDOWN_PCT
#   percent larger, and every later commit keeps it.  SLOW_AT > N: no
#   slowdown at all.  Commit dates are fixed, so the shas are the same
#   on every run.
#
#   --broken K     commit K (1 < K < N, K != SLOW_AT) does not compile
#                  (broken.h gets a syntax error); commit K+1 fixes it.
#   --merge-branch the slowdown is not on main: a side branch leaves main
#                  at commit SLOW_AT-3, holds BISECT_SIDE_COMMITS commits
#                  (the second one is the planted slowdown, the others
#                  harmless) and is merged (--no-ff) into main as main's
#                  commit SLOW_AT.  Needs 4 <= SLOW_AT <= N.
#
#   Sets, and writes to DIR.shas as shell assignments:
#     BISECT_GOOD     the first commit (sha)      BISECT_BAD  the last one
#     BISECT_PLANTED  the commit that slows down (on the branch with
#                     --merge-branch), empty without a slowdown
#     BISECT_BROKEN   the commit that does not compile (--broken)
#     BISECT_MERGE    the merge commit (--merge-branch)
#     BISECT_MAIN     all main (first-parent) commits, oldest first
#   and the subjects BISECT_PLANTED_SUBJECT, BISECT_MERGE_SUBJECT.
#
# write_bisect_job FILE [REPEAT]
#
#   the job that measures a checkout: build with cc, run ./prog, kv; the
#   KPI is bisect-demo.time_ms.
#
# Also: bisect_store_runs DB (complete runs of the job), bisect_runs_snapshot
# DB, bisect_status DB [ID] (status --json into $SANDBOX/status.json),
# bisect_diag, pycheck, wait_for, and measure_bisect_noise for tuning.

# The work: about 99 ms of CPU on the 2-vCPU CI machine (AMD EPYC VM).
# Measured with measure_bisect_noise, 20-30 runs a side interleaved: the
# CPU clock's CV is 0.3-0.5% on a quiet machine (the 5% step is 9-15 sd)
# and 1.0-1.6% at a load of 2-5 from other work (3.4-4.9 sd); the wall
# clock's is 1-1.5% quiet and 5-30% loaded, so the CPU clock is the KPI.
# The planted step is 30%, not 5%: 20 sd and more even at that load, so a
# CPU hog on the other core cannot hide it (issue 10).
#
# BISECT_SLEEP_MS / BISECT_SLEEP_SLOW_MS (default 0): prog also sleeps that
# long before and from the planted commit on, for a test whose metric is
# the wall clock (a job without kpi: the time monitor's elapsed time).  A
# sleep is not shortened by load and a 4x step of it is far beyond what
# scheduling delays add.
: "${BISECT_WORK_ITERS:=60000000}"
: "${BISECT_SLOWDOWN_PCT:=30}"
: "${BISECT_SLEEP_MS:=0}"
: "${BISECT_SLEEP_SLOW_MS:=$BISECT_SLEEP_MS}"
: "${BISECT_SIDE_COMMITS:=3}"
BISECT_BUILD='cc -O2 -o prog prog.c'

# the benchmark itself: the work is a dependent chain of multiply-adds and
# xor-shifts (one core, no memory traffic, nothing to vectorize or fold),
# timed with the process's CPU clock so that being preempted by another
# process does not count (the wall time is printed too, for comparison)
_bisect_prog_c() {
	cat <<'EOF'
/* prog.c - a fixed amount of CPU work that reports its own run time */
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include "work.h"
#include "broken.h"

static double ms(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(void)
{
	struct timespec nap = { WORK_SLEEP_MS / 1000, WORK_SLEEP_MS % 1000 * 1000000L };
	volatile uint64_t iters = WORK_ITERS;
	uint64_t n = iters, x = 88172645463325252ULL;
	double c0 = ms(CLOCK_PROCESS_CPUTIME_ID), w0 = ms(CLOCK_MONOTONIC);

	for (uint64_t i = 0; i < n; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		x ^= x >> 29;
	}
	double c1 = ms(CLOCK_PROCESS_CPUTIME_ID);

	if (WORK_SLEEP_MS)
		nanosleep(&nap, NULL);
	double w1 = ms(CLOCK_MONOTONIC);
	printf("time_ms: %.3f ms\n", c1 - c0);
	printf("wall_ms: %.3f ms\n", w1 - w0);
	printf("checksum: %u\n", (unsigned)(x & 0xffff));
	return 0;
}
EOF
}

# _bisect_commit DIR INDEX SUBJECT: commit everything with a fixed date
_bisect_commit() {
	local d=$((1700000000 + $2 * 60))
	git -C "$1" add -A &&
	GIT_AUTHOR_DATE="@$d +0000" GIT_COMMITTER_DATE="@$d +0000" \
		git -C "$1" commit -q -m "$3"
}

# _bisect_work_h ITERS DIR [SLOW]: work.h, the slow side's sleep with SLOW
_bisect_work_h() {
	printf '#define WORK_ITERS %sULL\n#define WORK_SLEEP_MS %s\n' "$1" \
		"$( [ -n "${3:-}" ] && echo "$BISECT_SLEEP_SLOW_MS" || echo "$BISECT_SLEEP_MS")" > "$2/work.h"
}

make_bisect_repo() {
	local dir=$1 n=$2 slow_at=$3 broken=0 merge=0 i fast slow iters
	shift 3
	while [ $# -gt 0 ]; do
		case $1 in
		--broken) broken=$2; shift 2 ;;
		--merge-branch) merge=1; shift ;;
		*) echo "make_bisect_repo: unknown option $1" >&2; return 2 ;;
		esac
	done
	if [ "$broken" -ne 0 ] && { [ "$broken" -le 1 ] || [ "$broken" -ge "$n" ] ||
	   [ "$broken" -eq "$slow_at" ]; }; then
		echo "make_bisect_repo: --broken $broken: not inside 2..$((n - 1)) or is the slowdown" >&2
		return 2
	fi
	if [ "$merge" -eq 1 ] && { [ "$slow_at" -lt 4 ] || [ "$slow_at" -gt "$n" ]; }; then
		echo "make_bisect_repo: --merge-branch needs 4 <= SLOW_AT <= N" >&2
		return 2
	fi
	fast=$BISECT_WORK_ITERS
	slow=$((fast * (100 + BISECT_SLOWDOWN_PCT) / 100))
	BISECT_GOOD= BISECT_BAD= BISECT_PLANTED= BISECT_BROKEN= BISECT_MERGE=
	BISECT_PLANTED_SUBJECT= BISECT_MERGE_SUBJECT= BISECT_MAIN=

	[ -n "$dir" ] && [ "$dir" != / ] || return 2
	rm -rf "$dir" && mkdir -p "$dir" || return 1
	git init -q -b main "$dir" || return 1
	git -C "$dir" config user.name "perfbot e2e"
	git -C "$dir" config user.email "e2e@perfbot.invalid"
	git -C "$dir" config commit.gpgsign false
	_bisect_prog_c > "$dir/prog.c"
	printf 'prog\n' > "$dir/.gitignore"
	printf '/* nothing */\n' > "$dir/broken.h"

	for i in $(seq 1 "$n"); do
		if [ "$merge" -eq 1 ] && [ "$i" -eq "$slow_at" ]; then
			# main's commit i is the merge of a side branch
			_bisect_side_branch "$dir" "$((slow_at - 3))" "$fast" "$slow" || return 1
			subject="main $i: merge branch 'side'"
			GIT_AUTHOR_DATE="@$((1700000000 + i * 60)) +0000" \
			GIT_COMMITTER_DATE="@$((1700000000 + i * 60)) +0000" \
				git -C "$dir" merge -q --no-ff -m "$subject" side || return 1
			BISECT_MERGE=$(git -C "$dir" rev-parse HEAD)
			BISECT_MERGE_SUBJECT=$subject
			fast=$slow	# main's later commits keep what the merge brought
			continue
		fi
		iters=$fast
		[ "$merge" -eq 0 ] && [ "$i" -ge "$slow_at" ] && iters=$slow
		_bisect_work_h "$iters" "$dir" "$( [ "$iters" -ne "$BISECT_WORK_ITERS" ] && echo slow)"
		echo "revision $i" > "$dir/rev.txt"
		subject="main $i: revision $i"
		if [ "$i" -eq "$broken" ]; then
			printf 'this does not compile;\n' > "$dir/broken.h"
			subject="main $i: break the build"
		elif [ "$broken" -ne 0 ] && [ "$i" -eq $((broken + 1)) ]; then
			printf '/* nothing */\n' > "$dir/broken.h"
			subject="main $i: fix the build"
		fi
		if [ "$merge" -eq 0 ] && [ "$i" -eq "$slow_at" ]; then
			subject="main $i: more work"
			BISECT_PLANTED_SUBJECT=$subject
		fi
		_bisect_commit "$dir" "$i" "$subject" || return 1
		[ "$i" -eq "$broken" ] && BISECT_BROKEN=$(git -C "$dir" rev-parse HEAD)
		[ "$merge" -eq 0 ] && [ "$i" -eq "$slow_at" ] &&
			BISECT_PLANTED=$(git -C "$dir" rev-parse HEAD)
	done
	BISECT_GOOD=$(git -C "$dir" rev-list --first-parent --reverse HEAD | head -1)
	BISECT_BAD=$(git -C "$dir" rev-parse HEAD)
	BISECT_MAIN=$(git -C "$dir" rev-list --first-parent --reverse HEAD | tr '\n' ' ')
	{
		for v in BISECT_GOOD BISECT_BAD BISECT_PLANTED BISECT_BROKEN BISECT_MERGE \
			 BISECT_PLANTED_SUBJECT BISECT_MERGE_SUBJECT BISECT_MAIN; do
			printf '%s=%q\n' "$v" "${!v}"
		done
	} > "$dir.shas"
}

# _bisect_side_branch DIR FROM FAST SLOW: branch 'side' off main's commit
# FROM (1-based), BISECT_SIDE_COMMITS commits, the second one slower;
# back on main afterwards.  Its commits touch side.txt only besides
# work.h, so the merge has no conflict.
_bisect_side_branch() {
	local dir=$1 from=$2 fast=$3 slow=$4 j base iters
	base=$(git -C "$dir" rev-list --first-parent --reverse HEAD | sed -n "${from}p")
	git -C "$dir" checkout -q -b side "$base" || return 1
	for j in $(seq 1 "$BISECT_SIDE_COMMITS"); do
		iters=$fast
		[ "$j" -ge 2 ] && iters=$slow
		_bisect_work_h "$iters" "$dir" "$( [ "$iters" -ne "$BISECT_WORK_ITERS" ] && echo slow)"
		echo "side $j" > "$dir/side.txt"
		subject="side $j: side work $j"
		[ "$j" -eq 2 ] && subject="side $j: more work on the side"
		# dated between main's commits FROM and FROM+1
		local d=$((1700000000 + from * 60 + j))
		git -C "$dir" add -A &&
		GIT_AUTHOR_DATE="@$d +0000" GIT_COMMITTER_DATE="@$d +0000" \
			git -C "$dir" commit -q -m "$subject" || return 1
		if [ "$j" -eq 2 ]; then
			BISECT_PLANTED=$(git -C "$dir" rev-parse HEAD)
			BISECT_PLANTED_SUBJECT=$subject
		fi
	done
	git -C "$dir" checkout -q main
}

# the job: one atomic job, no monitors, the KPI is prog's time_ms
write_bisect_job() {
	cat > "$1" <<YAML
testcase: bisect-demo
category: benchmark
repeat: ${2:-1}
timeout: 30s
monitors: []
build: $BISECT_BUILD
exec:
  cmd: [./prog]
  parse: kv
kpi: bisect-demo.time_ms
YAML
}

# bisect_json_get FILE PYEXPR: evaluate PYEXPR on the JSON document d
bisect_json() {
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"
}

# wait_for COMMAND TIMEOUT [INTERVAL]: poll COMMAND every INTERVAL s (0.5:
# gently, the bisection measures beside it) until it succeeds
wait_for() {
	local limit=$2 t0=$SECONDS
	while ! eval "$1"; do
		[ $((SECONDS - t0)) -ge "$limit" ] && return 1
		sleep "${3:-0.5}"
	done
}

# measure_bisect_noise REPO [RUNS]: build the good and the bad commit of a
# make_bisect_repo repository and run them RUNS times (20) interleaved;
# prints per clock each side's mean, sd and CV, the ratio bad/good, and
# the step in sds.  For tuning BISECT_WORK_ITERS, not used by the tests.
measure_bisect_noise() {
	local repo=$1 runs=${2:-20} t i side
	t=$(mktemp -d)
	for side in good bad; do
		git -C "$repo" worktree add -q --detach "$t/$side" \
			"$( [ $side = good ] && echo "$BISECT_GOOD" || echo "$BISECT_BAD")" &&
		(cd "$t/$side" && $BISECT_BUILD) || return 1
	done
	for i in $(seq 1 "$runs"); do
		for side in good bad; do
			"$t/$side/prog" | sed "s/^/$side /"
		done
	done > "$t/samples"
	python3 - "$t/samples" <<'PY'
import statistics as st, sys
v = {}
for line in open(sys.argv[1]):
    side, key, val = line.split()[:3]
    v.setdefault((key.rstrip(":"), side), []).append(float(val))
for key in ("time_ms", "wall_ms"):
    g, b = v[(key, "good")], v[(key, "bad")]
    mg, mb, sg, sb = st.mean(g), st.mean(b), st.stdev(g), st.stdev(b)
    sp = ((sg ** 2 + sb ** 2) / 2) ** 0.5
    print(f"{key}: good {mg:.2f} ms sd {sg:.2f} (CV {100*sg/mg:.2f}%), "
          f"bad {mb:.2f} ms sd {sb:.2f} (CV {100*sb/mb:.2f}%), "
          f"bad/good {mb/mg:.4f}, step {(mb-mg)/sp:.1f} sd, "
          f"min/max good {min(g):.1f}/{max(g):.1f} bad {min(b):.1f}/{max(b):.1f}")
PY
	git -C "$repo" worktree remove --force "$t/good"
	git -C "$repo" worktree remove --force "$t/bad"
	rm -rf "$t"
}

# bisect_store_runs DB: the complete runs of the job bisect-demo in DB
bisect_store_runs() {
	"$PERFBOT" results --db "$1" --json --testcase bisect-demo 2>/dev/null |
		python3 -c '
import json, sys
try:
    groups = json.load(sys.stdin)
except ValueError:
    groups = []
print(sum(g["runs_complete"] for g in groups if g["job"] == "bisect-demo"))'
}

# bisect_runs_snapshot DB: one line per stored run: id, commit, status and
# its time_ms; for telling that runs stayed as they were
bisect_runs_snapshot() {
	local last id
	last=$("$PERFBOT" results --db "$1" --json 2>/dev/null | python3 -c '
import json, sys
print(max([g["last_run_id"] for g in json.load(sys.stdin)] or [0]))') || last=0
	for id in $(seq 1 "$last"); do
		"$PERFBOT" results show "$id" --db "$1" --json 2>/dev/null | python3 -c '
import json, sys
r = json.load(sys.stdin)
print(r["id"], r["commit"], r["status"], r["stats"].get("bisect-demo.time_ms"))'
	done
}

# bisect_status DB [ID]: `perfbot bisect status --json` into $SANDBOX/status.json
bisect_status() {
	run_perfbot 60 bisect status ${2:+"$2"} --db "$1" --json
	cp "$SANDBOX/out" "$SANDBOX/status.json"
	[ "$rc" -eq 0 ] || diag "bisect status: exit $rc: $err"
}

# bisect_diag WHAT: exit status, time and the end of stderr of the last run_perfbot
bisect_diag() {
	diag "$1: exit $rc in $secs s"
	[ "$rc" -eq 0 ] && [ -z "${2:-}" ] && return 0
	diag "stdout: $(tail -n 15 "$SANDBOX/out")"
	diag "stderr: $(tail -n 25 "$SANDBOX/err")"
}

# pycheck DESCRIPTION PYTHON [ARGS...]: a check by a Python snippet (its
# sys.argv[1:] are ARGS); when it fails, the failing line and the error
# go to the TAP log as a diagnostic instead of a traceback
_PYCHECK='
import sys, traceback
src = sys.argv.pop(1)
try:
    exec(compile(src, "check", "exec"), {"__name__": "__main__"})
except SystemExit:
    raise
except BaseException as e:
    line = [f.lineno for f in traceback.extract_tb(e.__traceback__) if f.filename == "check"]
    text = src.splitlines()[line[-1] - 1].strip() if line else "?"
    print("# failed: %s\n#   %s: %s" % (text, type(e).__name__, str(e)[:600]))
    sys.exit(1)
'
pycheck() {
	local desc=$1 src=$2
	shift 2
	check "$desc" python3 -c "$_PYCHECK" "$src" "$@"
}

# bisect_check_reports DB ID STATUS WHAT: `bisect status` (text) shows
# STATUS with no empty field, and `report --bisect ID` exits 0 in every
# format, its JSON holding STATUS (issue 10: a failed bisection printed
# ".. of , " and its report failed with "Invalid argument")
bisect_check_reports() {
	local db=$1 id=$2 status=$3 what=$4 f
	run_perfbot 60 bisect status "$id" --db "$db"
	cp "$SANDBOX/out" "$SANDBOX/status.txt"
	check "$what: status exit 0, says '$status' (got $rc)" bash -c \
		'[ "$2" -eq 0 ] && grep -qx "bisection $3: $4" "$1"' _ "$SANDBOX/status.txt" "$rc" "$id" "$status"
	# no empty field: " of , ", "..", a sha range with an empty side,
	# "key: " at the end of a line, "()"
	check "$what: status has no empty field" bash -c \
		'! grep -nE " of , |^\.\.| \.\. |\.\.( |,|$)| \.\.|: *$|\(\)|, ,|  $" "$1"' _ "$SANDBOX/status.txt" ||
		diag "$(cat "$SANDBOX/status.txt")"
	for f in text email html json; do
		run_perfbot 60 report --bisect "$id" --db "$db" --format "$f"
		cp "$SANDBOX/out" "$SANDBOX/report.$f"
		check "$what: report --format $f: exit 0, not empty (got $rc: $err)" bash -c \
			'[ "$2" -eq 0 ] && [ -s "$1" ]' _ "$SANDBOX/report.$f" "$rc"
	done
	pycheck "$what: report json parses, status $status" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == sys.argv[2], d["status"]
assert d["good"]["sha"] and d["bad"]["sha"], (d["good"], d["bad"])
' "$SANDBOX/report.json" "$status"
	case $status in
	found) f="found the first bad commit" ;;
	found-range) f="found a range" ;;
	no-change) f="no reproducible change" ;;
	*) f=$status ;;
	esac
	check "$what: report text says '$f'" grep -q "^bisection $id: $f" "$SANDBOX/report.text"
}

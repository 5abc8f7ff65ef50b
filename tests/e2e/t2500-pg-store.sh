#!/bin/bash
# perfbot on a PostgreSQL store (issue 16): a throw-away PostgreSQL 15
# cluster (tests/pg/cluster.sh, stopped and removed on exit, failure and
# ^C), then perfbot's commands with --db postgresql://...: `perfbot run`
# of a tiny will-it-scale job at two commits, `perfbot results` (the
# groups, and a run in full), `perfbot compare` of the two commits, and
# the robot's commands on a state it never wrote (`alerts`, `history`,
# `watch status`: clear words, the exit statuses SQLite's store gives).
# The same commands on a SQLite store give the same table of results.
# A password in the URL is never printed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg-lib.sh"

pg_e2e_start
DB=$PG_URL
diag "cluster at $PG_DIR"

cd "$SANDBOX" || exit 1
cat > job.yaml <<'YAML'
suite: will-it-scale
testcase: will-it-scale
runtime: 0.3s
nr_task: 1
will-it-scale:
  mode: process
  test: getppid1
YAML
JOB=will-it-scale-1-process-getppid1
A=aaaa000000000000000000000000000000000000
B=bbbb000000000000000000000000000000000000

# ---- an empty database ----
run_perfbot 30 results --db "$DB"
check "results on an empty database: exit 1, 'no results yet at' the URL (got $rc: $err)" \
	bash -c '[ "$1" -eq 1 ] && grep -qxF "perfbot: results: no results yet at $2" "$3"' \
	_ "$rc" "$DB" "$SANDBOX/err"

# ---- runs ----
for c in $A $B; do
	run_perfbot 120 run job.yaml --db "$DB" --commit $c -r 3 --no-monitors
	check "run at ${c:0:4}: exit 0 (got $rc: $(tail -2 "$SANDBOX/err"))" [ "$rc" -eq 0 ]
	check "run at ${c:0:4}: 3 runs stored" [ "$(grep -c "^run [0-9]*: $JOB complete" "$SANDBOX/out")" -eq 3 ]
done

run_perfbot 30 results --db "$DB"
cp "$SANDBOX/out" results.txt
check "results: exit 0 (got $rc: $err)" [ "$rc" -eq 0 ]
check "results: a group per commit, 3 complete runs each" bash -c '
	grep -qE "^[^ ]+ +$2 +$3 +3 +0 +0 +will-it-scale.per_process_ops [0-9]+" "$1" &&
	grep -qE "^[^ ]+ +$2 +$4 +3 +0 +0 +will-it-scale.per_process_ops [0-9]+" "$1"' \
	_ results.txt "$JOB" "${A:0:12}" "${B:0:12}"
run_perfbot 30 results --db "$DB" --commit "${B:0:6}"
check "results --commit PREFIX: only that commit's group" bash -c '
	grep -q "$2" "$1" && ! grep -q "$3" "$1"' _ "$SANDBOX/out" "${B:0:12}" "${A:0:12}"
run_perfbot 30 results show 1 --db "$DB"
check "results show 1: exit 0, the run's stats and environment (got $rc: $err)" bash -c '
	[ "$2" -eq 0 ] && grep -q "will-it-scale.per_process_ops" "$1" && grep -q "$3" "$1"' \
	_ "$SANDBOX/out" "$rc" "$A"
run_perfbot 30 results show 99 --db "$DB"
check "results show 99: refused, the run named (got $rc: $err)" bash -c '
	[ "$2" -ne 0 ] && grep -q "99" "$1"' _ "$SANDBOX/err" "$rc"

# ---- compare ----
run_perfbot 60 compare --db "$DB" --all "$A" "$B"
cp "$SANDBOX/out" compare.txt
check "compare A B: exit 0 (got $rc: $err)" [ "$rc" -eq 0 ]
check "compare A B: the job, both commits, the KPI with a verdict" bash -c '
	grep -qx "job: $2" "$1" && grep -q "${3:0:4}" "$1" && grep -q "${4:0:4}" "$1" &&
	grep -qE "will-it-scale.per_process_ops +(changed|same|unknown)" "$1"' \
	_ compare.txt "$JOB" "$A" "$B"
run_perfbot 60 compare --db "$DB" --json "${A:0:8}" "${B:0:8}"
check "compare --json by prefixes: exit 0, JSON that parses" bash -c '
	[ "$2" -eq 0 ] && python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$1"' \
	_ "$SANDBOX/out" "$rc"
run_perfbot 60 compare --db "$DB" "$A" cccc
check "compare with an unknown commit: exit 2, it is named (got $rc: $err)" bash -c '
	[ "$2" -eq 2 ] && grep -q cccc "$1"' _ "$SANDBOX/err" "$rc"

# ---- the robot's commands on a state it never wrote ----
run_perfbot 30 alerts --db "$DB"
check "alerts: exit 0, 'no alert' (got $rc: $out $err)" \
	bash -c '[ "$1" -eq 0 ] && [ "$2" = "no alert" ]' _ "$rc" "$out"
run_perfbot 30 alerts show 1 --db "$DB"
check "alerts show 1: exit 2, no such alert (got $rc: $err)" \
	bash -c '[ "$1" -eq 2 ] && grep -q "alert 1" "$2"' _ "$rc" "$SANDBOX/err"
run_perfbot 30 history "$JOB" --db "$DB"
check "history: exit 2, 'no points: the robot never tested a branch' (got $rc: $err)" \
	bash -c '[ "$1" -eq 2 ] && grep -qF "no points: the robot never tested a branch" "$2"' \
	_ "$rc" "$SANDBOX/err"
run_perfbot 30 watch status --db "$DB"
check "watch status: exit 0, no branch, alert or report (got $rc: $err)" bash -c '
	[ "$2" -eq 0 ] && grep -qx "branches (0):" "$1" && grep -qx "alerts (0):" "$1" &&
	grep -qx "reports (0):" "$1"' _ "$SANDBOX/out" "$rc"

# ---- the same on SQLite: the same table (testbox, job, commit, counts) ----
for c in $A $B; do
	run_perfbot 120 run job.yaml --db "$SANDBOX/results.db" --commit $c -r 3 --no-monitors
done
run_perfbot 30 results --db "$SANDBOX/results.db"
check "results: the same groups and counts as SQLite's" bash -c '
	diff <(awk "{print \$1, \$2, \$3, \$4, \$5, \$6}" "$1") \
	     <(awk "{print \$1, \$2, \$3, \$4, \$5, \$6}" "$2")' \
	_ results.txt "$SANDBOX/out"

# ---- a password is never printed ----
url_pw="postgresql://perfbot:s3cret-pw@/nosuchdb?host=$PG_DIR"
run_perfbot 30 results --db "$url_pw"
check "a URL with a password: exit 1, the location shown masked (got $rc: $err)" bash -c '
	[ "$2" -eq 1 ] && grep -qF "postgresql://perfbot:***@/nosuchdb" "$1" &&
	! grep -q s3cret "$1" "$3"' _ "$SANDBOX/err" "$rc" "$SANDBOX/out"

# the server goes first: its SysV segment is not perfbot's to leave
pg_cluster_stop
left=$(for p in $(pgrep -x postgres); do
	grep -qF "$PG_TOP" "/proc/$p/cmdline" 2>/dev/null && echo "$p"; done)
check "the cluster stopped: no server process, its directory removed (left: $left)" \
	bash -c '[ -z "$1" ] && [ ! -e "$2" ]' _ "$left" "$PG_TOP"
check_nothing_left "t2500"
cd / || exit 1
finish

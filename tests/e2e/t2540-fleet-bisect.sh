#!/bin/bash
# bisect and compare --measure on the fleet (--on TESTBOX): two workers,
# w1 and w2; a bisection on w1 names the planted commit t1600's SQLite
# bisection names, every run it made is w1's and stored once (runs vs
# items done), w2's runs of the same commits are not counted; compare
# --measure --on w2 measures both commits on w2 only; a ^C cancels the
# waiting item and resume goes on on w1; a commit that does not build
# there, and a benchmark that fails there, are given up.  Refused: an
# unregistered box (the boxes named), a SQLite store, --build, --on
# without --measure.  No worker, cluster or temp dir left.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bisect-lib.sh"
. "$(dirname "$0")/pg-lib.sh"

cd "$SANDBOX" || exit 1
make_bisect_repo repo 40 23 || { echo "Bail out! cannot make the repository"; exit 1; }
write_bisect_job job.yaml
pg_e2e_start
DB=$PG_URL
diag "good $BISECT_GOOD, bad $BISECT_BAD, planted $BISECT_PLANTED ($BISECT_PLANTED_SUBJECT)"

# ---- refused before anything starts ----
run_perfbot 60 bisect start --on w1 --repo repo --good "$BISECT_GOOD" --bad "$BISECT_BAD" \
	--db "$SANDBOX/sqlite.db" job.yaml
check "--on with a SQLite store: refused (exit $rc)" [ "$rc" -ne 0 ]
check "... saying the queue needs PostgreSQL" grep -q "needs a PostgreSQL store" <<<"$err"
run_perfbot 60 bisect start --on w1 --build "cc -o prog prog.c" --repo repo \
	--good "$BISECT_GOOD" --bad "$BISECT_BAD" --db "$DB" job.yaml
check "--on with --build: bad usage (exit $rc)" [ "$rc" -eq 2 ]
run_perfbot 60 compare --on w1 --db "$DB" "$BISECT_GOOD" "$BISECT_BAD"
check "compare --on without --measure: bad usage (exit $rc)" [ "$rc" -eq 2 ]

declare -A PID
start_worker() {
	"$PERFBOT" worker --db "$DB" --testbox "$1" --lease 20 --grace 5 \
		--spool "$SANDBOX/spool-$1" >>"$1.out" 2>>"$1.err" &
	PID[$1]=$!
}
start_worker w1
start_worker w2
for _ in $(seq 100); do
	[ "$(pg_sql "SELECT count(*) FROM queue_box")" = 2 ] && break
	sleep 0.1
done
check "two workers registered" test "$(pg_sql "SELECT count(*) FROM queue_box")" = 2

run_perfbot 60 bisect start --on w3 --repo repo --good "$BISECT_GOOD" --bad "$BISECT_BAD" \
	--db "$DB" job.yaml
check "--on a box no worker registered: refused (exit $rc)" [ "$rc" -ne 0 ]
check "... naming the boxes there are" grep -q "w3: no worker has registered.*w1, w2" <<<"$err"
check "... before any bisection is stored" \
	test "$(pg_sql "SELECT count(*) FROM bisect")" = 0

# w2's runs of the good commit: the same store, another box; not w1's bisection's
"$PERFBOT" submit job.yaml --repo repo --commit "$BISECT_GOOD" --needs testbox=w2 -r 4 \
	--db "$DB" >/dev/null 2>submit.err || not_ok "submit to w2"
for _ in $(seq 300); do
	[ "$(pg_sql "SELECT count(*) FROM queue_item WHERE state = 'done'")" = 4 ] && break
	sleep 0.2
done
check "w2 ran 4 runs of the good commit first" \
	test "$(pg_sql "SELECT count(*) FROM runs WHERE testbox = 'w2'")" = 4

# ---- the bisection on w1: ^C after a few runs, resumed there ----
t0=$SECONDS
"$PERFBOT" bisect start --on w1 --repo repo --good "$BISECT_GOOD" --bad "$BISECT_BAD" \
	--db "$DB" job.yaml >start.out 2>start.err &
bpid=$!
for _ in $(seq 300); do
	[ "$(pg_sql "SELECT count(*) FROM queue_item WHERE state = 'done' AND box = 'w1'")" -ge 4 ] && break
	sleep 0.2
done
kill -INT $bpid
wait $bpid
rc=$?
check "bisect --on w1, ^C after 4 runs: exit 130 (got $rc)" [ "$rc" -eq 130 ]
check "... its waiting item cancelled: none queued or running" \
	test "$(pg_sql "SELECT count(*) FROM queue_item WHERE state IN ('queued', 'running')")" = 0
run_perfbot 600 bisect resume --db "$DB"
bisect_diag "bisect resume"
diag "bisect --on w1: $((SECONDS - t0)) s in all"
check "bisect resume: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "bisect resume: names the planted commit, as t1600 on SQLite does" \
	grep -qx "first bad commit: $BISECT_PLANTED $BISECT_PLANTED_SUBJECT" "$SANDBOX/out"
check "bisect resume: made no run here (the runs go on on w1)" \
	test "$(pg_sql "SELECT count(*) FROM runs WHERE testbox NOT IN ('w1', 'w2')")" = 0
w1_runs=$(pg_sql "SELECT count(*) FROM runs WHERE testbox = 'w1'")
w1_items=$(pg_sql "SELECT count(*) FROM queue_item WHERE state = 'done' AND box = 'w1'")
diag "w1: $w1_runs runs, $w1_items items done"
check "every item of the bisection done on w1" \
	test "$(pg_sql "SELECT count(*) FROM queue_item WHERE testbox = 'w1' AND box <> 'w1'")" = 0
# a run the cancelled item's worker finished is refused (fenced out): not stored
check "each run stored once: w1's runs ($w1_runs) = w1's items done ($w1_items), distinct" \
	test "$(pg_sql "SELECT count(DISTINCT run_id) FROM queue_item WHERE state = 'done' AND box = 'w1'")" = "$w1_runs" -a "$w1_runs" = "$w1_items" -a "$w1_runs" -gt 5
check "the runs' testbox is the box that did the item" \
	test "$(pg_sql "SELECT count(*) FROM queue_item i JOIN runs r ON r.id = i.run_id WHERE r.testbox <> i.box")" = 0
bisect_status "$DB"
pycheck "status --json: found, the planted commit; its runs are w1's only ($w1_runs, not w2's 4)" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "found", d["status"]
assert d["culprit"]["sha"] == sys.argv[2], d["culprit"]
runs = d["runs"]
if isinstance(runs, list):
    runs = len(set(runs))
assert runs == int(sys.argv[3]), (runs, sys.argv[3])
' "$SANDBOX/status.json" "$BISECT_PLANTED" "$w1_runs"

# ---- compare --measure on w2 ----
w2_before=$(pg_sql "SELECT count(*) FROM runs WHERE testbox = 'w2'")
run_perfbot 600 compare --measure --on w2 --runs 3 --max-runs 6 --repo repo --db "$DB" \
	job.yaml "$BISECT_GOOD" "$BISECT_BAD"
diag "compare --measure --on w2: exit $rc, $secs s; $(tail -3 <<<"$err" | tr '\n' ' ')"
check "compare --measure --on w2: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "... no run made here or on w1" \
	test "$(pg_sql "SELECT count(*) FROM runs WHERE testbox <> 'w2'")" = "$w1_runs"
w2_new=$(pg_sql "SELECT count(*) - $w2_before FROM runs WHERE testbox = 'w2'")
check "... both commits measured on w2 ($w2_new new runs)" \
	test "$(pg_sql "SELECT count(DISTINCT \"commit\") FROM runs WHERE testbox = 'w2'
		AND id > (SELECT max(id) FROM runs WHERE testbox = 'w1')")" = 2
check "... each stored once: runs = items done" \
	test "$(pg_sql "SELECT count(*) FROM runs")" = "$(pg_sql "SELECT count(*) FROM queue_item WHERE state = 'done'")"
check "... the slowdown shown as a change" grep -q "bisect-demo.time_ms" <<<"$out"

# ---- a commit that does not build on the worker: skipped, built once ----
make_bisect_repo repo2 8 9 --broken 4 || not_ok "the repository with a broken commit"
run_perfbot 300 compare --measure --on w1 --runs 3 --max-runs 3 --repo repo2 --db "$DB" \
	job.yaml "$BISECT_GOOD" "$BISECT_BROKEN"
diag "compare of the broken commit: exit $rc; $(grep -m1 "cannot be measured" <<<"$err")"
# as without --on: the commit has no run, so the table cannot name it (exit 2)
check "compare --on w1 of a commit that does not build: exit 2, as locally (got $rc)" [ "$rc" -eq 2 ]
check "... saying it does not build" grep -q "cannot be measured: build failed" <<<"$err"
# the worker may claim the item again before the command sees the failure (a
# race of milliseconds): the second attempt is fenced out by the cancel
broken=$(pg_sql "SELECT state || ' ' || attempt FROM queue_item WHERE \"commit\" = '$BISECT_BROKEN'")
diag "the broken commit's item: $broken"
check "... not built 3 times: its one item cancelled after attempt 1 or 2" \
	grep -qx "cancelled [12]" <<<"$broken"

# ---- a benchmark that fails on every attempt: the commit given up ----
cat > fails.yaml <<'YAML'
testcase: fails
monitors: []
warmup: 0
build: "true"
exec:
  cmd: [sh, -c, "exit 3"]
YAML
run_perfbot 300 compare --measure --on w1 --runs 3 --max-runs 3 --repo repo2 --db "$DB" \
	fails.yaml "$BISECT_GOOD" "$BISECT_BAD"
diag "compare of a failing benchmark: exit $rc; $(grep -m1 "cannot be measured" <<<"$err")"
check "compare --on w1 of a benchmark that fails: the commit given up, the item's reason given" \
	grep -q "cannot be measured: item [0-9]* failed on w1: the run failed" <<<"$err"
check "... after the item's 3 attempts, and no run of it stored" \
	test "$(pg_sql "SELECT string_agg(state || ' ' || attempt, ',') FROM queue_item WHERE job LIKE 'fails%'")" = "failed 3"

for w in w1 w2; do kill -TERM "${PID[$w]}"; done
rcs=
for w in w1 w2; do wait "${PID[$w]}"; rcs="$rcs $?"; done
check "the workers exit 0 on SIGTERM" test "$rcs" = " 0 0"
check_nothing_left "t2540"
finish

#!/bin/bash
# perfbot bisect: ^C in the middle leaves a resumable bisection (exit 130,
# nothing left behind); resume names the same culprit, keeps every run
# stored before the interrupt and measures nothing twice.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bisect-lib.sh"

DB="$SANDBOX/results.db"
cd "$SANDBOX" || exit 1

make_bisect_repo repo 40 23 || { echo "Bail out! cannot make the repository"; exit 1; }
write_bisect_job job.yaml
diag "good $BISECT_GOOD, bad $BISECT_BAD, planted $BISECT_PLANTED"

# complete runs at commits other than the two baselines
candidate_runs() {
	"$PERFBOT" results --db "$DB" --json 2>/dev/null | python3 -c '
import json, sys
try:
    groups = json.load(sys.stdin)
except ValueError:
    groups = []
print(sum(g["runs_complete"] for g in groups
          if g["job"] == "bisect-demo" and g["commit"] not in sys.argv[1:]))' "$BISECT_GOOD" "$BISECT_BAD"
}

t0=$SECONDS
"$PERFBOT" bisect start --repo repo --good "$BISECT_GOOD" --bad "$BISECT_BAD" \
	--db "$DB" job.yaml >"$SANDBOX/out" 2>"$SANDBOX/err" &
pid=$!
# wait for three runs of candidates, then ^C
if wait_for '[ "$(candidate_runs)" -ge 3 ] || ! kill -0 $pid 2>/dev/null' 240 &&
   kill -0 $pid 2>/dev/null; then
	diag "after $((SECONDS - t0)) s: $(candidate_runs) runs of candidates; SIGINT"
	kill -INT $pid
	interrupted=1
else
	diag "no three runs of candidates while it ran ($((SECONDS - t0)) s): $(tail -n 5 "$SANDBOX/err")"
	kill -INT $pid 2>/dev/null
	interrupted=0
fi
timeout 60 tail --pid=$pid -f /dev/null	# wait, but not forever
kill -KILL $pid 2>/dev/null
wait $pid
rc=$?
check "interrupted in the middle" [ "$interrupted" -eq 1 ]
check "SIGINT: exit 130 (got $rc)" [ "$rc" -eq 130 ]
check "SIGINT: no culprit named yet" bash -c '! grep -q "^first bad commit" "$1"' _ "$SANDBOX/out"
check "SIGINT: only the main worktree left" [ "$(git -C repo worktree list | wc -l)" -eq 1 ]
check_nothing_left "bisect interrupted"
check "SIGINT: database integrity" [ "$(sqlite3 "$DB" 'PRAGMA integrity_check')" = ok ]

bisect_status "$DB"
pycheck "status after SIGINT: running (resumable)" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] in ("running", "interrupted"), d["status"]
' "$SANDBOX/status.json"
bisect_check_reports "$DB" 1 running "after SIGINT"
bisect_runs_snapshot "$DB" | grep ' complete ' > "$SANDBOX/before"
before_runs=$(bisect_store_runs "$DB")
diag "before resume: $before_runs complete runs stored, $(candidate_runs) of them of candidates"
run_perfbot 60 bisect log --db "$DB"
check "log after SIGINT: exit 0, some lines" bash -c '[ "$2" -eq 0 ] && [ -s "$1" ]' _ "$SANDBOX/out" "$rc"

run_perfbot 300 bisect resume --db "$DB"
bisect_diag "bisect resume"
check "resume: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "resume: names the planted commit" bash -c '
	[ "$(grep -c "^first bad commit: " "$1")" -eq 1 ] &&
	grep -qx "first bad commit: $2 $3" "$1"' _ "$SANDBOX/out" "$BISECT_PLANTED" "$BISECT_PLANTED_SUBJECT"
bisect_status "$DB"
store_runs=$(bisect_store_runs "$DB")
diag "after resume: $store_runs complete runs stored"
pycheck "resume: status found, the planted commit" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "found" and d["culprit"]["sha"] == sys.argv[2], (d["status"], d["culprit"])
' "$SANDBOX/status.json" "$BISECT_PLANTED"
bisect_runs_snapshot "$DB" > "$SANDBOX/after"
check "resume: every run stored before the interrupt is still there, unchanged" bash -c \
	'[ -s "$1" ] && [ -z "$(comm -23 <(sort "$1") <(sort "$2"))" ]' _ "$SANDBOX/before" "$SANDBOX/after"
pycheck "resume: runs = the store's complete runs ($store_runs): none lost, none twice" '
import json, sys
runs, store, before = json.load(open(sys.argv[1]))["runs"], int(sys.argv[2]), int(sys.argv[3])
if isinstance(runs, list):
    assert len(set(runs)) == len(runs), "a run counted twice"
    runs = len(runs)
assert runs == store, (runs, store)
assert store > before, (store, before)
' "$SANDBOX/status.json" "$store_runs" "$before_runs"
check "resume: only the main worktree left" [ "$(git -C repo worktree list | wc -l)" -eq 1 ]

# resuming a bisection that is over measures nothing more
run_perfbot 60 bisect resume --db "$DB"
diag "resume of a finished bisection: exit $rc: $(cat "$SANDBOX/out" "$SANDBOX/err" | head -n 3)"
check "resume of a finished bisection: exit 0, 1 or 2, nothing measured (got $rc)" bash -c \
	'[ "$1" -le 2 ] && [ "$2" = "$3" ]' _ "$rc" "$(bisect_store_runs "$DB")" "$store_runs"
check_nothing_left "bisect resumed"

# A job without kpi: the metric is the first run's KPI (here the time
# monitor's elapsed time), and a resume must find it in the store before it
# reads the baselines, not measure G again.  Elapsed time is the wall
# clock, which load stretches: here the planted step is a sleep, 100 ms
# to 400 ms, that no load can hide, beside little CPU work.
BISECT_WORK_ITERS=1000000 BISECT_SLEEP_MS=100 BISECT_SLEEP_SLOW_MS=400 \
	make_bisect_repo repo2 40 23 || { echo "Bail out! cannot make repo2"; exit 1; }
DB2="$SANDBOX/nokpi.db"
sed '/^kpi:/d; /^monitors:/d' job.yaml > nokpi.yaml
"$PERFBOT" bisect start --repo repo2 --good "$BISECT_GOOD" --bad "$BISECT_BAD" \
	--db "$DB2" nokpi.yaml >"$SANDBOX/out2" 2>"$SANDBOX/err2" &
pid=$!
wait_for '"$PERFBOT" bisect log --db "$DB2" 2>/dev/null | grep -q "baseline: " || ! kill -0 $pid 2>/dev/null' 120
kill -INT $pid 2>/dev/null
wait $pid
run_perfbot 300 bisect resume --db "$DB2"
diag "no kpi: $(grep -E '^(first bad commit|confirmed)' "$SANDBOX/out") (planted $BISECT_PLANTED)"
check "no kpi: resume exit 0, a culprit named (got $rc)" bash -c \
	'[ "$1" -eq 0 ] && grep -q "^first bad commit: " "$2"' _ "$rc" "$SANDBOX/out"
check "no kpi: the culprit is the planted commit" \
	grep -qx "first bad commit: $BISECT_PLANTED $BISECT_PLANTED_SUBJECT" "$SANDBOX/out"
"$PERFBOT" bisect log --db "$DB2" | cut -c 22- > "$SANDBOX/log2"
diag "$(grep -E '^(resume|baseline|metric)' "$SANDBOX/log2")"
# between the resume and its baseline verdict: no run at all
check "no kpi: the resumed baseline is the stored one, nothing measured again" \
	awk '/^resume$/ { r = 1; next } r && /^run / { bad = 1 } r && /^baseline: / { done = 1; exit }
	     END { exit !(r && done && !bad) }' "$SANDBOX/log2"
check_nothing_left "bisect without kpi resumed"
finish

#!/bin/bash
# perfbot watch on the fleet (the registry's policy on: TESTBOX): one
# worker, w1; a head with a planted slowdown is measured against the
# previous one on w1, the change alerted, bisected on w1 to the planted
# commit and reported naming w1; every run in the store is w1's and
# stored once (runs = items done, distinct), none made here.  Refused
# before any pass: on: with a SQLite store, on: a box no worker
# registered (bisect --on's checks and messages).  No worker, cluster or
# temp dir left.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bisect-lib.sh"
. "$(dirname "$0")/pg-lib.sh"

cd "$SANDBOX" || exit 1
make_bisect_repo repo 12 7 || { echo "Bail out! cannot make the repository"; exit 1; }
write_bisect_job job.yaml
diag "good $BISECT_GOOD, bad $BISECT_BAD, planted $BISECT_PLANTED ($BISECT_PLANTED_SUBJECT)"
write_registry() {
	cat > "$1" <<YAML
trees:
  - name: demo
    repo: repo
    branches: [main]
    jobs: [job.yaml]
    max_age: 3000d
report:
  outbox: outbox
policy:
  bisect_max_runs: 60
  on: $2
YAML
}
write_registry registry.yaml w1
write_registry registry-w3.yaml w3
git -C repo update-ref refs/heads/main "$BISECT_GOOD"

# ---- refused before anything starts ----
run_perfbot 60 watch check registry.yaml
check "watch check: the registry with on: w1 loads, on: shown" \
	bash -c '[ "$1" -eq 0 ] && grep -qx "  on: w1" <<<"$2"' _ "$rc" "$out"
run_perfbot 60 watch --once --db "$SANDBOX/sqlite.db" registry.yaml
check "on: w1 with a SQLite store: refused (exit $rc)" [ "$rc" -eq 1 ]
check "... saying the queue needs PostgreSQL" grep -q "on w1: .*needs a PostgreSQL store" <<<"$err"
check "... no pass made" bash -c '! grep -q "watching" <<<"$1"' _ "$err"

pg_e2e_start
DB=$PG_URL
"$PERFBOT" worker --db "$DB" --testbox w1 --lease 20 --grace 5 --spool "$SANDBOX/spool" \
	>>w1.out 2>>w1.err &
wpid=$!
for _ in $(seq 100); do
	# the worker creates the schema: until then, no queue_box (said on stderr)
	[ "$(pg_sql "SELECT count(*) FROM queue_box" 2>/dev/null)" = 1 ] && break
	sleep 0.1
done
check "the worker registered w1" test "$(pg_sql "SELECT testbox FROM queue_box")" = w1

run_perfbot 60 watch --once --db "$DB" registry-w3.yaml
check "on: w3, no worker for it: refused (exit $rc)" [ "$rc" -eq 1 ]
check "... naming the boxes there are" grep -q "w3: no worker has registered that test box (the boxes: w1)" <<<"$err"
check "... before any pass: no branch, no run, no item" \
	test "$(pg_sql "SELECT (SELECT count(*) FROM runs) + (SELECT count(*) FROM queue_item)")" = 0

log() { grep -E 'perfbot watch: ' "$SANDBOX/err" | sed 's/^[^ ]* perfbot watch: //' | grep -Ev '^(run [0-9]+:|bisect [0-9]+: run )' | tr '\n' '|' | cut -c1-1500; }

# ---- pass 1: the baseline, measured on w1 ----
run_perfbot 600 watch --once --db "$DB" registry.yaml
diag "pass 1: $(log)"
check "pass 1: the baseline (exit $rc), runs on w1" \
	bash -c '[ "$1" -eq 0 ] && grep -q "watching 1 tree of .*, runs on w1" "$2"' _ "$rc" "$SANDBOX/err"
check "... measured on w1" test "$(pg_sql "SELECT count(*) FROM runs WHERE testbox = 'w1'")" -gt 0

# ---- pass 2: the planted slowdown pushed as the new head ----
git -C repo update-ref refs/heads/main "$BISECT_BAD"
p0=$SECONDS
run_perfbot 1200 watch --once --db "$DB" registry.yaml
diag "pass 2: $((SECONDS - p0)) s: $(log)"
check "pass 2: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "pass 2: alerts, naming w1 as the box whose runs showed it" \
	grep -q "alert [0-9]*: bisect-demo bisect-demo.time_ms +[0-9.]*% from ${BISECT_GOOD:0:12} to ${BISECT_BAD:0:12} (confirmed on interleaved runs of w1)" "$SANDBOX/err"
check "pass 2: the bisection names the planted commit" \
	grep -q "alert [0-9]*: culprit ${BISECT_PLANTED:0:12}" "$SANDBOX/err"
check "... the alert's testbox is w1" \
	test "$(pg_sql "SELECT string_agg(DISTINCT testbox, ',') FROM watch_alert")" = w1
check "... its bisection's spec is w1's" \
	test "$(pg_sql "SELECT string_agg(spec::json->>'testbox', ',') FROM bisect")" = w1
diag "the report's lines naming w1: $(grep -hw w1 outbox/new/* | head -3 | tr '\n' '|')"
check "one report, naming the planted commit and w1" \
	bash -c '[ "$(ls outbox/new | wc -l)" -eq 1 ] && grep -q "${1:0:12}" outbox/new/* && grep -q "testbox: w1" outbox/new/*' _ "$BISECT_PLANTED"

# ---- every run w1's, stored once ----
runs=$(pg_sql "SELECT count(*) FROM runs")
items=$(pg_sql "SELECT count(*) FROM queue_item WHERE state = 'done'")
diag "w1: $runs runs, $items items done"
check "every run in the store is w1's (none made here)" \
	test "$(pg_sql "SELECT count(*) FROM runs WHERE testbox <> 'w1'")" = 0
check "every item done on w1" \
	test "$(pg_sql "SELECT count(*) FROM queue_item WHERE box <> 'w1'")" = 0
check "each run stored once: runs ($runs) = items done ($items), distinct" \
	test "$(pg_sql "SELECT count(DISTINCT run_id) FROM queue_item WHERE state = 'done'")" = "$runs" -a "$runs" = "$items" -a "$runs" -gt 20

kill -TERM "$wpid"
wait "$wpid"
wrc=$?
check "the worker exits 0 on SIGTERM (got $wrc)" [ "$wrc" -eq 0 ]
check_nothing_left "t2560"
finish

#!/bin/bash
# The fleet on one machine: 4 workers with different tags, 200 items with
# different needs -> each item done exactly once, by a worker that meets
# its needs (SQL on queue_item, queue_box and runs); one worker killed -9
# mid-item -> its item run again by another once its lease expired;
# PostgreSQL stopped mid-run and restarted -> workers spool, reconnect
# and upload, nothing lost or doubled; a late finish from a fenced-out
# attempt refused, and a finish whose COMMIT answer was "lost" stored
# once.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg-lib.sh"

cd "$SANDBOX" || exit 1
pg_e2e_start
DB=$PG_URL
LEASE=8
# The test cluster trades durability for speed (synchronous_commit = off):
# a commit answered may be lost by the immediate stop below.  A fleet's
# server keeps what it answered, and so must this one for the checks to
# be about perfbot.
pg_sql "ALTER SYSTEM SET synchronous_commit = on" && pg_sql "SELECT pg_reload_conf()" >/dev/null

cat > nap.yaml <<'YAML'
testcase: nap
warmup: 0
monitors: []
exec:
  cmd: [sleep, "0.1"]
YAML

submit() {
	"$PERFBOT" submit nap.yaml --db "$DB" "$@" >>ids 2>>submit.err || not_ok "submit $*"
}
submit -r 60
submit -r 50 --needs tag=big
submit -r 40 --needs tag=ssd
submit -r 25 --needs testbox=w3
submit -r 25 --needs 'tag=big,tag=ssd,cpus>=1' --priority 5
check "200 items queued" test "$(wc -l <ids)" -eq 200

declare -A PID TAGS=([w1]=big [w2]=big,ssd [w3]= [w4]=ssd)
start_worker() {
	local w=$1
	"$PERFBOT" worker --db "$DB" --testbox "$w" ${TAGS[$w]:+--tags ${TAGS[$w]}} \
		--lease $LEASE --grace 5 --spool "$SANDBOX/spool-$w" >>"$w.out" 2>>"$w.err" &
	PID[$w]=$!
}
for w in w1 w2 w3 w4; do start_worker "$w"; done

# wait_sql SECONDS SQL WANT: poll until SQL answers WANT
wait_sql() {
	local end=$((SECONDS + $1)) v
	while [ $SECONDS -lt $end ]; do
		v=$(pg_sql "$2" 2>/dev/null) && [ "$v" = "$3" ] && return 0
		sleep 0.2
	done
	diag "waited $1 s for '$2' = $3; last '$v'"
	return 1
}

# ---- kill -9 one worker mid-item ----
check "w1 runs an item" wait_sql 60 "SELECT count(*) > 0 FROM queue_item WHERE state = 'running' AND box = 'w1'" t
victim=$(pg_sql "SELECT id FROM queue_item WHERE state = 'running' AND box = 'w1'")
kill -KILL "${PID[w1]}"
wait "${PID[w1]}" 2>/dev/null
diag "killed w1 running item $victim"
check "the killed worker's item is run again by another after its lease" \
	wait_sql 60 "SELECT state || ' ' || attempt || ' ' || (box <> 'w1') FROM queue_item WHERE id = $victim" "done 2 true"
check "... its reason says the lease expired on w1" \
	grep -q "attempt 1 on w1: lease expired on w1" <<<"$(pg_sql "SELECT reasons FROM queue_item WHERE id = $victim")"
start_worker w1

# ---- PostgreSQL stopped mid-run, restarted ----
check "some items still to do before the database stops" \
	wait_sql 60 "SELECT count(*) BETWEEN 20 AND 150 FROM queue_item WHERE state = 'done'" t
pg_cluster_halt
diag "PostgreSQL stopped"
sleep 3
(cd / && pg_unmarked pg_cluster_up) || not_ok "PostgreSQL starts again"
diag "PostgreSQL started again"
check "every item done in the end" wait_sql 240 "SELECT count(*) FROM queue_item WHERE state = 'done'" 200
cat w?.err > workers.err
check "workers spooled runs while the database was down" grep -q "run spooled to" workers.err
check "... and uploaded them once it was back" grep -q "(from the spool)" w?.out

# ---- exactly once, by a box that meets the needs ----
check "no item without its run" test "$(pg_sql "SELECT count(*) FROM queue_item WHERE run_id IS NULL")" = 0
check "no run twice: 200 runs, 200 distinct run ids" \
	test "$(pg_sql "SELECT (SELECT count(*) FROM runs) || ' ' || count(DISTINCT run_id) FROM queue_item")" = "200 200"
odd=$(pg_sql "SELECT i.id, i.box, r.testbox, i.attempt, i.reasons FROM queue_item i
	JOIN runs r ON r.id = i.run_id WHERE r.testbox <> i.box")
check "each run stored under the box that finished its item" test -z "$odd" || diag "$odd"
bad=$(pg_sql "SELECT i.id FROM queue_item i JOIN queue_box b ON b.testbox = i.box
	WHERE NOT (i.tags <@ b.tags AND (i.testbox IS NULL OR i.testbox = b.testbox)
	AND (i.min_cpus IS NULL OR i.min_cpus <= b.cpus))")
check "every item done by a box that meets its needs" test -z "$bad"
check "the testbox=w3 items all done on w3" \
	test "$(pg_sql "SELECT count(*) FROM queue_item WHERE testbox = 'w3' AND box = 'w3'")" = 25
check "every worker took items" \
	test "$(pg_sql "SELECT count(*) FROM queue_box WHERE done > 0")" = 4

# ---- late finishes: fenced out, or already stored ----
for w in w1 w2 w3 w4; do kill -TERM "${PID[$w]}"; done
rcs=
for w in w1 w2 w3 w4; do wait "${PID[$w]}"; rcs="$rcs $?"; done
check "SIGTERM: the 4 workers exit 0" test "$rcs" = " 0 0 0 0"
runs=$(pg_sql "SELECT count(*) FROM runs")
last=$(pg_sql "SELECT run_id FROM queue_item WHERE id = $victim")
"$PERFBOT" results show "$last" --json --db "$DB" |
	jq 'del(.id) + {schema: "perfbot-run", version: 1}' > rec.json
mkdir -p late
cp rec.json "late/item-$victim-attempt-1.json"
run_perfbot 60 worker --once --testbox w2 --db "$DB" --spool "$SANDBOX/late"
check "a late finish of the fenced-out attempt 1 is refused" \
	grep -q "item $victim: attempt 1 is fenced out (the item is done, attempt 2" <<<"$err"
done_item=$(pg_sql "SELECT id || '-attempt-' || attempt FROM queue_item WHERE id <> $victim ORDER BY id LIMIT 1")
done_run=$(pg_sql "SELECT run_id FROM queue_item WHERE id = ${done_item%%-*}")
cp rec.json "late/item-$done_item.json"
run_perfbot 60 worker --once --testbox w2 --db "$DB" --spool "$SANDBOX/late"
check "a finish of an attempt that stored its run already gives that run" \
	grep -q "^item ${done_item%%-*} attempt [0-9]*: run $done_run complete (from the spool)" <<<"$out"
check "... and nothing was stored twice" test "$(pg_sql "SELECT count(*) FROM runs")" = "$runs"
check "the spool is empty afterwards" test -z "$(ls -A late)"

check_nothing_left "t2520"
finish

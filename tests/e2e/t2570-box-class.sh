#!/bin/bash
# A declared class of identical boxes (docs/fleet.md, "Classes of
# identical boxes"): workers w1, w2 and w3; class fast = w1 w2, class slow
# = w3.  compare --measure --on fast and a bisection --on fast are run by
# the class's members and decide as on one box; their runs are stored
# under w1 or w2 (never w3) with fleet.class fast, and w3's runs of the
# same commits (its own, and class slow's) are never counted.  Which idle
# member claims a run that is queued alone is a race (CI once saw w1 take
# them all), so that both members serve the class is shown by a batch of
# class items queued at once.  Refused, exit 2,
# naming the name: a box in two classes, a class named as a box, a box
# named as a class, --on a name that is neither, --on a class without a
# registered box.  compare --testbox class:fast reads the class's stored
# runs alone.  w3 runs as, and class slow is declared by, the roles
# docs/fleet.md gives.  No worker, cluster or temp dir left.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bisect-lib.sh"
. "$(dirname "$0")/pg-lib.sh"
: "${PERFBOT_SRC:=$(cd "$(dirname "$0")/../.." && pwd)}"

cd "$SANDBOX" || exit 1
make_bisect_repo repo 8 5 || { echo "Bail out! cannot make the repository"; exit 1; }
write_bisect_job job.yaml
pg_e2e_start
DB=$PG_URL
diag "good $BISECT_GOOD, bad $BISECT_BAD, planted $BISECT_PLANTED ($BISECT_PLANTED_SUBJECT)"

run_perfbot 60 queue class fast w1 w2 --db "$SANDBOX/sqlite.db"
check "queue class on a SQLite store: refused (exit $rc)" [ "$rc" -ne 0 ]
check "... saying the queue needs PostgreSQL" grep -q "needs a PostgreSQL store" <<<"$err"

# the trust model's roles as docs/fleet.md gives them: w3 works, and class
# slow is declared, with only those rights
run_perfbot 60 queue class --remove none --db "$DB"	# a writer: the schema made
sed -n '/^The roles, for a database/,/^```$/p' "$PERFBOT_SRC/docs/fleet.md" |
	sed '1d;/^```/d' >roles.sql
check "docs/fleet.md's roles read ($(grep -c GRANT roles.sql) GRANTs)" grep -q queue_class roles.sql
pg_sql "$(cat roles.sql)" || not_ok "the roles of docs/fleet.md"
WORKER_DB=${DB/user=perfbot/user=perfbot_worker}
SUBMIT_DB=${DB/user=perfbot/user=perfbot_submit}

declare -A PID
for w in w1 w2 w3; do
	db=$DB
	[ "$w" = w3 ] && db=$WORKER_DB
	"$PERFBOT" worker --db "$db" --testbox "$w" --lease 20 --grace 5 \
		--spool "$SANDBOX/spool-$w" >>"$w.out" 2>>"$w.err" &
	PID[$w]=$!
done
wait_for '[ "$(pg_sql "SELECT count(*) FROM queue_box" 2>/dev/null)" = 3 ]' 20 0.1
check "three workers registered" test "$(pg_sql "SELECT count(*) FROM queue_box")" = 3

# ---- declaring ----
run_perfbot 60 queue class fast w1 w2 --db "$DB"
check "queue class fast w1 w2: exit 0 (got $rc)" [ "$rc" -eq 0 ]
run_perfbot 60 queue class slow w3 --db "$SUBMIT_DB"
check "queue class slow w3, as the submitter's role: exit 0 (got $rc)" [ "$rc" -eq 0 ]
run_perfbot 60 queue class --db "$DB"
check "queue class lists the classes and their boxes" \
	test "$out" = "$(printf 'fast: w1 w2\nslow: w3')"
run_perfbot 60 queue boxes --db "$DB"
check "queue boxes shows each box's class" \
	bash -c 'grep -q "^w1 .* fast " <<<"$1" && grep -q "^w2 .* fast " <<<"$1" &&
		grep -q "^w3 .* slow " <<<"$1"' _ "$out"

run_perfbot 60 queue class other w2 w9 --db "$DB"
check "a box in two classes: exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "... naming the box and both classes" grep -q "class other: box w2 is in class fast already" <<<"$err"
run_perfbot 60 queue class w3 w9 --db "$DB"
check "a class named as a box: exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "... naming it" grep -q "class w3: a test box has that name" <<<"$err"
run_perfbot 60 queue class other slow --db "$DB"
check "a box named as a class: exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "... naming it" grep -q "class other: box slow: a class has that name" <<<"$err"
check "... nothing declared by the refusals" \
	test "$(pg_sql "SELECT string_agg(class || '=' || testbox, ' ' ORDER BY testbox) FROM queue_class")" = "fast=w1 fast=w2 slow=w3"
run_perfbot 60 queue class empty w9 --db "$DB"
check "a class of a box not registered yet: declared (exit $rc)" [ "$rc" -eq 0 ]

# ---- refused before anything is queued ----
run_perfbot 60 compare --measure --on nosuch --repo repo --db "$DB" job.yaml \
	"$BISECT_GOOD" "$BISECT_BAD"
check "--on a name neither a box nor a class: exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "... naming it, the boxes and the classes" \
	grep -q "nosuch: no worker has registered that test box (the boxes: w1, w2, w3), nor is it a class (the classes: empty, fast, slow)" <<<"$err"
run_perfbot 60 bisect start --on empty --repo repo --good "$BISECT_GOOD" --bad "$BISECT_BAD" \
	--db "$DB" job.yaml
check "--on a class without a registered box: exit 2 (got $rc)" [ "$rc" -eq 2 ]
check "... naming the class and its boxes" grep -q "no box of class empty has registered (its boxes: w9)" <<<"$err"
check "... nothing queued, no bisection stored" \
	test "$(pg_sql "SELECT (SELECT count(*) FROM queue_item) + (SELECT count(*) FROM bisect)")" = 0

# w3's runs of both commits, its own and class slow's: never fast's
"$PERFBOT" submit job.yaml --repo repo --commit "$BISECT_GOOD" --commit "$BISECT_BAD" \
	--needs testbox=w3 -r 2 --db "$DB" >/dev/null 2>submit.err || not_ok "submit to w3"
"$PERFBOT" submit job.yaml --repo repo --commit "$BISECT_GOOD" --commit "$BISECT_BAD" \
	--needs class=slow -r 2 --db "$SUBMIT_DB" >/dev/null 2>>submit.err || not_ok "submit to slow"
wait_for '[ "$(pg_sql "SELECT count(*) FROM queue_item WHERE state = '"'done'"'")" = 8 ]' 60 0.2
check "w3 (the worker's role) ran 8 runs of the two commits first, 4 of them class slow's" \
	test "$(pg_sql "SELECT count(*) FROM runs WHERE testbox = 'w3'") $(pg_sql "SELECT count(*) FROM run_env WHERE key = 'fleet.class' AND value = 'slow'")" = "8 4"

# ---- compare --measure on the class ----
run_perfbot 300 compare --measure --on fast --runs 5 --max-runs 8 --repo repo --db "$DB" \
	job.yaml "$BISECT_GOOD" "$BISECT_BAD"
bisect_diag "compare --measure --on fast"
check "compare --measure --on fast: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "... the slowdown shown as a change" grep -q "bisect-demo.time_ms" <<<"$out"
check "... the report names the class" grep -q "^testbox: class:fast" <<<"$out"
check "... and the boxes that made the runs" grep -Eq "measured [0-9]+ runs on class:fast \(by (w1|w2|w1, w2|w2, w1)\)" <<<"$err"
check "... not w3's, whose runs of both commits came first" bash -c '! grep -q w3 <<<"$1"' _ "$out"
fast_boxes=$(pg_sql "SELECT string_agg(DISTINCT r.testbox, ' ') FROM runs r JOIN run_env e
	ON e.run_id = r.id AND e.key = 'fleet.class' AND e.value = 'fast'")
diag "the class's runs were made by: $fast_boxes"
check "... its runs stored under the members' testboxes, never w3" \
	bash -c 'case "$1" in "w1"|"w2"|"w1 w2") ;; *) exit 1 ;; esac' _ "$fast_boxes"
check "... every item of the class done by a member, none by w3" \
	test "$(pg_sql "SELECT count(*) FROM queue_item WHERE class = 'fast' AND box NOT IN ('w1', 'w2')")" = 0
check "... each run stored once: runs = items done" \
	test "$(pg_sql "SELECT count(*) FROM runs")" = "$(pg_sql "SELECT count(*) FROM queue_item WHERE state = 'done'")"
check "... no run made here" \
	test "$(pg_sql "SELECT count(*) FROM runs WHERE testbox NOT IN ('w1', 'w2', 'w3')")" = 0

run_perfbot 60 compare --testbox class:fast --db "$DB" "$BISECT_GOOD" "$BISECT_BAD"
check "compare --testbox class:fast (no measuring): the class's stored runs, exit $rc" \
	bash -c '[ "$1" -eq 0 ] && grep -q "^testbox: class:fast" <<<"$2" && ! grep -q "w3" <<<"$2"' \
	_ "$rc" "$out"

# ---- a bisection on the class ----
run_perfbot 300 bisect start --on fast --repo repo --good "$BISECT_GOOD" --bad "$BISECT_BAD" \
	--db "$DB" job.yaml
bisect_diag "bisect start --on fast"
check "bisect --on fast: exit 0 (got $rc)" [ "$rc" -eq 0 ]
check "... names the planted commit, as on one box" \
	grep -qx "first bad commit: $BISECT_PLANTED $BISECT_PLANTED_SUBJECT" "$SANDBOX/out"
bisect_status "$DB"
fast_runs=$(pg_sql "SELECT count(*) FROM run_env WHERE key = 'fleet.class' AND value = 'fast'")
pycheck "status --json: the class's spec; its runs are class fast's ($fast_runs), not w3's" '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "found", d["status"]
assert d["culprit"]["sha"] == sys.argv[2], d["culprit"]
runs = d["runs"]
if isinstance(runs, list):
    runs = len(set(runs))
assert runs <= int(sys.argv[3]), (runs, sys.argv[3])
' "$SANDBOX/status.json" "$BISECT_PLANTED" "$fast_runs"
check "the bisection's spec keeps the class as its testbox" \
	test "$(pg_sql "SELECT spec::json->>'testbox' FROM bisect")" = "class:fast"
check "... and its runs were all of the class's members" \
	test "$(pg_sql "SELECT count(*) FROM runs r JOIN run_env e ON e.run_id = r.id AND e.key = 'fleet.class' AND e.value = 'fast' WHERE r.testbox NOT IN ('w1', 'w2')")" = 0

# ---- both members serve the class: 6 items queued at once ----
done_before=$(pg_sql "SELECT count(*) FROM queue_item WHERE state = 'done'")
"$PERFBOT" submit job.yaml --repo repo --commit "$BISECT_GOOD" --commit "$BISECT_BAD" \
	--needs class=fast -r 3 --db "$DB" >batch.out 2>batch.err || not_ok "submit a batch to class fast"
wait_for '[ "$(pg_sql "SELECT count(*) FROM queue_item WHERE state = '"'done'"'")" = $((done_before + 6)) ]' 120 0.2
batch_boxes=$(pg_sql "SELECT string_agg(DISTINCT box, ' ') FROM queue_item WHERE id > (SELECT max(id) - 6 FROM queue_item)")
diag "$(cat batch.err); run by: $batch_boxes"
check "a batch of 6 class items: all done, by both members and never w3" \
	test "$(pg_sql "SELECT count(*) FROM queue_item WHERE state = 'done'")/$batch_boxes" = "$((done_before + 6))/w1 w2"

# ---- removing ----
run_perfbot 60 queue class --remove empty --db "$DB"
check "queue class --remove empty: exit 0 (got $rc)" [ "$rc" -eq 0 ]
run_perfbot 60 queue class --remove empty --db "$DB"
check "... again: no such class (exit $rc)" \
	bash -c '[ "$1" -eq 1 ] && grep -q "no class empty" <<<"$2"' _ "$rc" "$err"

for w in w1 w2 w3; do kill -TERM "${PID[$w]}"; done
rcs=
for w in w1 w2 w3; do wait "${PID[$w]}"; rcs="$rcs $?"; done
check "the workers exit 0 on SIGTERM" test "$rcs" = " 0 0 0"
check_nothing_left "t2570"
finish

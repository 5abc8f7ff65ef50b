#!/bin/bash
# perfbot submit and perfbot queue on PostgreSQL: items queued (job x
# commit x repeat), listed, shown, cancelled and retried; needs matched by
# the worker that claims; bad input refused with the offending value; a
# SQLite store refused with the reason.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pg-lib.sh"

cd "$SANDBOX" || exit 1
pg_e2e_start
DB=$PG_URL

cat > tiny.yaml <<'YAML'
testcase: tiny
warmup: 0
monitors: []
exec:
  cmd: ["true"]
YAML
# two atomic jobs (warmup is a dimension)
cat > two.yaml <<'YAML'
testcase: two
warmup: [0, 1]
monitors: []
exec:
  cmd: ["true"]
YAML

# ---- bad input: exit 2, the offending value named ----
expect_usage() {
	local desc=$1 want=$2
	shift 2
	run_perfbot 30 "$@"
	if [ "$rc" -eq 2 ] && grep -qF -- "$want" <<<"$err"; then
		ok "$desc"
	else
		not_ok "$desc"
		diag "rc=$rc err=$err"
	fi
}
expect_usage "submit --needs 'cpus>=x' names the term" "--needs: 'cpus>=x': not a number" \
	submit tiny.yaml --needs 'cpus>=x' --db "$DB"
expect_usage "submit --needs with an unknown need" "--needs: 'gpu=1': unknown need" \
	submit tiny.yaml --needs 'arch=x86_64,gpu=1' --db "$DB"
expect_usage "submit --priority abc" "invalid priority 'abc'" \
	submit tiny.yaml --priority abc --db "$DB"
expect_usage "submit --repeat 0" "invalid repeat count '0'" submit tiny.yaml -r 0 --db "$DB"
expect_usage "submit without a job file" "no job file" submit --db "$DB"
expect_usage "submit of a missing job file" "nosuch.yaml" submit nosuch.yaml --db "$DB"
expect_usage "queue show abc" "invalid item id 'abc'" queue show abc --db "$DB"
expect_usage "queue frob" "unknown queue command 'frob'" queue frob --db "$DB"
expect_usage "queue list --state lost" "--state 'lost'" queue list --state lost --db "$DB"
expect_usage "worker --lease 0" "invalid --lease '0'" worker --lease 0 --db "$DB"
expect_usage "worker --tags 'a b'" "--tags: 'a b': not a word" worker --tags 'big,a b' --db "$DB"
expect_usage "worker --testcases ''" "--testcases: '': empty" worker --testcases 'tiny,' --db "$DB"

# ---- SQLite: the queue is PostgreSQL's ----
run_perfbot 30 submit tiny.yaml --db "$SANDBOX/results.db"
check "submit to a SQLite store fails (exit 1)" test "$rc" -eq 1
check "... saying the queue needs PostgreSQL" \
	grep -qF "the queue needs a PostgreSQL store (--db postgresql://...)" <<<"$err"
run_perfbot 30 queue list --db "$SANDBOX/results.db"
check "queue list on SQLite says the same" \
	grep -qF "the queue needs a PostgreSQL store" <<<"$err"
run_perfbot 30 worker --once --db "$SANDBOX/results.db" --spool "$SANDBOX/spool"
check "worker on SQLite says the same (exit 1)" \
	bash -c '[ "$0" -eq 1 ] && grep -qF "the queue needs a PostgreSQL store" <<<"$1"' "$rc" "$err"

# ---- submit: atomic jobs x commits x repeats ----
run_perfbot 30 submit two.yaml --repeat 2 --commit c1 --commit c2 --priority 3 --db "$DB"
check "submit of 2 atomic jobs x 2 commits x 2 repeats: exit 0" test "$rc" -eq 0
check "... prints 8 ids" test "$(wc -l <<<"$out")" -eq 8
check "... ids 1 to 8" test "$(echo $out)" = "1 2 3 4 5 6 7 8"
check "... in one batch" grep -q "8 items queued (batch 1): 2 atomic jobs x 2 commits" <<<"$err"
n=$(pg_sql "SELECT count(*) FROM queue_item WHERE state = 'queued' AND priority = 3 AND batch = 1")
check "the store holds 8 queued items of priority 3 (SQL)" test "$n" = 8
n=$(pg_sql "SELECT count(DISTINCT (job, \"commit\")) FROM queue_item")
check "... 4 distinct (job, commit)" test "$n" = 4

run_perfbot 30 submit tiny.yaml -r 1 --needs 'cpus>=1,tag=big' --db "$DB"
big=$out
run_perfbot 30 submit tiny.yaml -r 1 --needs 'testbox=b2' --db "$DB"
b2=$out
run_perfbot 30 submit tiny.yaml -r 1 --needs 'cpus>=100000' --db "$DB"
huge=$out
run_perfbot 30 submit tiny.yaml -r 1 --needs "mem>=1,arch=$(uname -m)" --priority 10 --db "$DB"
first=$out
check "submits with needs: ids 9 to 12" test "$big $b2 $huge $first" = "9 10 11 12"
n=$(pg_sql "SELECT min_cpus || ' ' || array_to_string(tags, ',') FROM queue_item WHERE id = $big")
check "needs parsed into their columns (cpus 1, tag big)" test "$n" = "1 big"

# ---- list, show ----
run_perfbot 30 queue list --db "$DB"
check "queue list: a header and 12 items" test "$(wc -l <<<"$out")" -eq 13
check "... with the needs as given" grep -q "tiny-0  \[cpus>=1,tag=big\]" <<<"$out"
run_perfbot 30 queue list --json --db "$DB"
check "queue list --json: 12 objects" test "$(jq length <<<"$out")" = 12
run_perfbot 30 queue list --state done --db "$DB"
check "queue list --state done: none yet" grep -q "no items in state done" <<<"$err"
run_perfbot 30 queue show "$big" --db "$DB"
check "queue show: the state, needs and job text" \
	bash -c 'grep -q "item 9 (batch 2): queued" <<<"$0" && grep -q "needs     cpus>=1,tag=big" <<<"$0" && grep -q "testcase: tiny" <<<"$0"' "$out"
run_perfbot 30 queue show 999 --db "$DB"
check "queue show 999: exit 1, no such item" \
	bash -c '[ "$0" -eq 1 ] && grep -q "no item 999 in the queue" <<<"$1"' "$rc" "$err"

# ---- cancel, retry ----
run_perfbot 30 queue cancel 8 --db "$DB"
check "queue cancel 8" test "$rc" -eq 0
run_perfbot 30 queue cancel 8 --db "$DB"
check "cancel again: exit 1, it is cancelled" \
	bash -c '[ "$0" -eq 1 ] && grep -q "item 8 is cancelled: only queued or running items can be cancelled" <<<"$1"' "$rc" "$err"
run_perfbot 30 queue retry 7 --db "$DB"
check "retry of a queued item: exit 1, why" \
	bash -c '[ "$0" -eq 1 ] && grep -q "item 7 is queued: only failed or cancelled items can be retried" <<<"$1"' "$rc" "$err"
run_perfbot 30 queue retry 8 --db "$DB"
check "retry of the cancelled item" test "$rc" -eq 0
check "... queued again (SQL)" test "$(pg_sql "SELECT state FROM queue_item WHERE id = 8")" = queued

# ---- needs: who claims what ----
W=(--db "$DB" --spool "$SANDBOX/spool" --once)
run_perfbot 60 worker --testbox b1 "${W[@]}"
check "worker b1 --once: exit 0" test "$rc" -eq 0
check "... took the priority-10 item first" grep -q "^item $first attempt 1: run [0-9]* complete" <<<"$out"
# b1 (no tags) takes what it meets, priority then age; never 9, 10 or 11
for i in 1 2 3 4 5 6 7 8; do
	run_perfbot 60 worker --testbox b1 "${W[@]}"
done
run_perfbot 60 worker --testbox b1 "${W[@]}"
check "b1 finds nothing it meets once 1-8 and 12 are done" grep -q "no item for b1" <<<"$err"
check "... 9 (tag=big), 10 (testbox=b2), 11 (cpus>=100000) still queued" \
	test "$(pg_sql "SELECT string_agg(id::text, ' ' ORDER BY id) FROM queue_item WHERE state = 'queued'")" = "9 10 11"
run_perfbot 60 worker --testbox b3 --tags big,ssd "${W[@]}"
check "b3 --tags big,ssd takes 9 (tag=big)" grep -q "^item 9 attempt 1" <<<"$out"
run_perfbot 60 worker --testbox b2 --testcases other "${W[@]}"
check "b2 --testcases other takes nothing (the trust model)" grep -q "no item for b2" <<<"$err"
run_perfbot 60 worker --testbox b2 --testcases tiny,two "${W[@]}"
check "b2 --testcases tiny,two takes 10 (testbox=b2)" grep -q "^item 10 attempt 1" <<<"$out"
n=$(pg_sql "SELECT count(*) FROM queue_item i JOIN runs r ON r.id = i.run_id
	WHERE i.state = 'done' AND r.testbox = i.box")
check "11 items done, each with its run stored under its box (SQL)" test "$n" = 11
n=$(pg_sql "SELECT count(*) FROM runs WHERE \"commit\" IN ('c1', 'c2')")
check "... the runs of 1-8 under their commit labels" test "$n" = 8
run_perfbot 30 queue boxes --db "$DB"
check "queue boxes lists b1, b2, b3 with their counts" \
	bash -c 'grep -q "^b1 *active *9 " <<<"$0" && grep -q "^b2 " <<<"$0" && grep -q "^b3 .*big,ssd" <<<"$0"' "$out"
run_perfbot 30 queue cancel 11 --db "$DB"

# ---- a failing benchmark: the attempt fails, the worker goes on ----
cat > false.yaml <<'YAML'
testcase: broken
warmup: 0
monitors: []
exec:
  cmd: ["false"]
YAML
run_perfbot 30 submit false.yaml -r 1 --max-attempts 2 --db "$DB"
bad=$out
run_perfbot 60 worker --testbox b1 --max-items 2 --db "$DB" --spool "$SANDBOX/spool"
check "a worker runs a failing item twice (--max-items 2), exit 0" test "$rc" -eq 0
check "... the item failed after its 2 attempts" \
	test "$(pg_sql "SELECT state || ' ' || attempt FROM queue_item WHERE id = $bad")" = "failed 2"
check "... each attempt's reason kept" \
	test "$(pg_sql "SELECT count(*) FROM regexp_split_to_table((SELECT reasons FROM queue_item WHERE id = $bad), E'\\n') l WHERE l LIKE 'attempt _ on b1: the run failed%'")" = 2
check "... no run stored for it" test "$(pg_sql "SELECT run_id IS NULL FROM queue_item WHERE id = $bad")" = t

# ---- SIGTERM: the item ends within the grace period, or is handed back ----
cat > nap.yaml <<'YAML'
testcase: nap
warmup: 0
monitors: []
exec:
  cmd: [sleep, "1.5"]
YAML
cat > long.yaml <<'YAML'
testcase: long
warmup: 0
monitors: []
exec:
  cmd: [sleep, "60"]
YAML
wait_running() {
	local end=$((SECONDS + 30))
	while [ $SECONDS -lt $end ]; do
		[ "$(pg_sql "SELECT state FROM queue_item WHERE id = $1")" = running ] && return 0
		sleep 0.1
	done
	return 1
}
run_perfbot 30 submit nap.yaml -r 1 --db "$DB"
nap=$out
"$PERFBOT" worker --testbox b1 --grace 10 --db "$DB" --spool "$SANDBOX/spool" >w.out 2>w.err &
wpid=$!
wait_running "$nap" || not_ok "the nap item runs"
kill -TERM $wpid
wait $wpid
check "SIGTERM mid-item within the grace period: exit 0" test $? -eq 0
check "... the item ended and was stored" \
	test "$(pg_sql "SELECT state || ' ' || (run_id IS NOT NULL) FROM queue_item WHERE id = $nap")" = "done true"
run_perfbot 30 submit long.yaml -r 1 --db "$DB"
long=$out
"$PERFBOT" worker --testbox b1 --grace 1 --db "$DB" --spool "$SANDBOX/spool" >w.out 2>w.err &
wpid=$!
wait_running "$long" || not_ok "the long item runs"
t0=$SECONDS
kill -TERM $wpid
wait $wpid
check "SIGTERM mid-item beyond the grace period: exit 0" test $? -eq 0
check "... within seconds, not the item's 60" test $((SECONDS - t0)) -lt 15
check "... the item handed back: queued, its attempt not counted" \
	test "$(pg_sql "SELECT state || ' ' || attempt || '/' || max_attempts FROM queue_item WHERE id = $long")" = "queued 1/4"
check "... said so" grep -q "handed back" w.err
run_perfbot 30 queue cancel "$long" --db "$DB"
# ---- an item at a commit of a repository: built and run in its checkout ----
git init -q repo && git -C repo -c user.name=t -c user.email=t@t commit -q --allow-empty -m one
sha=$(git -C repo rev-parse HEAD)
cat > src.yaml <<'YAML'
testcase: insrc
warmup: 0
monitors: []
build: [sh, -c, "echo built > built.txt"]
exec:
  cmd: [cat, built.txt]
YAML
run_perfbot 30 submit src.yaml -r 1 --db "$DB"
check "a job with build: needs --repo: exit 2" \
	bash -c '[ "$0" -eq 2 ] && grep -q "build: needs --repo" <<<"$1"' "$rc" "$err"
run_perfbot 30 submit src.yaml -r 1 --repo repo --db "$DB"
src=$out
check "submit --repo: the commit resolved to its sha (SQL)" \
	test "$(pg_sql "SELECT \"commit\" || ' ' || repo FROM queue_item WHERE id = $src")" = "$sha $SANDBOX/repo"
run_perfbot 120 worker --testbox b1 --once --testcases insrc --db "$DB" --spool "$SANDBOX/spool"
check "the worker builds the commit and runs the item in its checkout" \
	grep -q "^item $src attempt 1: run [0-9]* complete" <<<"$out" || diag "$err"
check "... the run stored under the commit" \
	test "$(pg_sql "SELECT r.\"commit\" FROM runs r JOIN queue_item i ON i.run_id = r.id WHERE i.id = $src")" = "$sha"

# ---- quarantine: a box whose items others complete ----
cat > picky.yaml <<'YAML'
testcase: picky
warmup: 0
monitors: []
exec:
  cmd: [sh, -c, 'test -z "$T2510_BROKEN"']
YAML
run_perfbot 30 submit picky.yaml -r 3 --db "$DB"
for i in $out; do
	T2510_BROKEN=1 run_perfbot 60 worker --testbox sick --once --testcases picky \
		--db "$DB" --spool "$SANDBOX/spool"
	grep -q "item $i attempt 1 failed" <<<"$err" || not_ok "sick fails item $i"
	run_perfbot 60 worker --testbox well --once --testcases picky --db "$DB" --spool "$SANDBOX/spool"
	grep -q "^item $i attempt 2: run [0-9]* complete" <<<"$out" || not_ok "well completes item $i"
done
run_perfbot 30 queue boxes --db "$DB"
check "3 items failed on sick and completed on well: sick quarantined, with why" \
	bash -c 'grep -q "^sick *quarantined *0 *3 *3 " <<<"$0" && grep -q "3 items failed here that other boxes completed" <<<"$0"' "$out"
run_perfbot 30 submit picky.yaml -r 1 --db "$DB"
run_perfbot 60 worker --testbox sick --once --testcases picky --db "$DB" --spool "$SANDBOX/spool"
check "a quarantined box claims nothing, and says why" \
	grep -q "box sick is quarantined: 3 items failed here that other boxes completed .*(perfbot queue release sick)" <<<"$err"
run_perfbot 30 queue release sick --db "$DB"
check "queue release sick" test "$rc" -eq 0
run_perfbot 60 worker --testbox sick --once --testcases picky --db "$DB" --spool "$SANDBOX/spool"
check "... then it claims again" grep -q "^item [0-9]* attempt 1: run [0-9]* complete" <<<"$out"
run_perfbot 30 queue release nosuch --db "$DB"
check "queue release of an unknown box: exit 1" \
	bash -c '[ "$0" -eq 1 ] && grep -q "no box nosuch" <<<"$1"' "$rc" "$err"

check_nothing_left "t2510"
finish

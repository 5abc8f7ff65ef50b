#!/bin/bash
# perfbot import: LKP matrix.json and CSV results into the store (seed
# 001's numbers), listed and shown like perfbot's own runs; bad input
# exits 1 or 2 and imports nothing.
. "$(dirname "$0")/lib.sh"

db="$SANDBOX/results.db"
cat > "$SANDBOX/base.json" <<'JSON'
{
  "will-it-scale.per_thread_ops": [6105969, 6105969],
  "dmesg.WARNING:stack_recursion": [1, 1],
  "stats_source": "/lkp/result/will-it-scale/base/matrix.json",
  "tags": ["a", "b"]
}
JSON
cat > "$SANDBOX/new.json" <<'JSON'
{
  "will-it-scale.per_thread_ops": [6265564, 6265564]
}
JSON
job=will-it-scale-100%-thread-malloc1

run_perfbot 10 import --help
check "import --help exits 0" [ "$rc" -eq 0 ]
check "import --help documents every option" bash -c \
	'for o in lkp-matrix csv --commit --job --param --testbox --testcase --force --db; do grep -q -- "$o" "$1" || exit 1; done' _ "$SANDBOX/out"
run_perfbot 10 help
check "help lists import" grep -q '^   import ' "$SANDBOX/out"

run_perfbot 10 import lkp-matrix "$SANDBOX/base.json" --commit base --job "$job" \
	--testbox lkp-box --db "$db"
check "import base: exit 0" [ "$rc" -eq 0 ]
check "import base: says so" grep -qxF "imported 2 runs of $job at base into $db" "$SANDBOX/out"
check "import base: notes the skipped keys" grep -qxF "skipped 2 non-numeric keys" "$SANDBOX/out"
run_perfbot 10 import lkp-matrix "$SANDBOX/new.json" --db "$db" --commit new \
	--job "$job" --testbox lkp-box
check "import new: exit 0" [ "$rc" -eq 0 ]

run_perfbot 10 results --db "$db"
check "results: 2 groups" [ "$(grep -c "^lkp-box  $job" "$SANDBOX/out")" -eq 2 ]
check "results: base's KPI" grep -q "base .* 2 .*will-it-scale.per_thread_ops 6105969" "$SANDBOX/out"
check "results: new's KPI" grep -q "new .* 2 .*will-it-scale.per_thread_ops 6265564" "$SANDBOX/out"
run_perfbot 10 results show 1 --db "$db" --json
check "show 1: identity and stats" bash -c '
	jq -e ".testcase == \"will-it-scale\" and .commit == \"base\" and .status == \"complete\" and
		.stats[\"will-it-scale.per_thread_ops\"] == 6105969 and
		.stats[\"dmesg.WARNING:stack_recursion\"] == 1 and
		.env.import_format == \"lkp-matrix\" and .env.imported_from == \"$2\"" "$1" >/dev/null' \
	_ "$SANDBOX/out" "$SANDBOX/base.json"
run_perfbot 10 results show 3 --db "$db"
check "show 3: new's stat, no dmesg" bash -c \
	'grep -q "will-it-scale.per_thread_ops  *6265564" "$1" && ! grep -q dmesg "$1"' _ "$SANDBOX/out"

# CSV, long form; the testcase from --testcase, the testbox from this host
printf 'run,stat,value\n1,hackbench.throughput,100\n1,"time.elapsed_time",2.5\n2,hackbench.throughput,110\n' > "$SANDBOX/hb.csv"
run_perfbot 10 import csv "$SANDBOX/hb.csv" --commit abc --job hackbench-pipe \
	--testcase hb --db "$db"
check "import csv: exit 0, 2 runs" bash -c \
	'[ "$2" -eq 0 ] && grep -qx "imported 2 runs of hackbench-pipe at abc into .*" "$1"' _ "$SANDBOX/out" "$rc"
run_perfbot 10 results --db "$db" --testcase hb --json
check "csv runs: testcase, testbox, KPI" bash -c '
	jq -e "length == 1 and .[0].testbox == \"$2\" and .[0].runs_complete == 2 and
		.[0].kpi.name == \"hackbench.throughput\" and .[0].kpi.mean == 105" "$1" >/dev/null' \
	_ "$SANDBOX/out" "$(hostname)"

runs_now() { "$PERFBOT" results --db "$db" --json | jq '[.[].runs_complete] | add'; }
before=$(runs_now)

# bad EXIT MESSAGE ARGS...: the exit status, one line naming the problem,
# nothing imported
bad() {
	want=$1
	msg=$2
	shift 2
	run_perfbot 10 import "$@"
	if [ "$rc" -eq "$want" ] && grep -qF -- "$msg" "$SANDBOX/err" &&
	   [ "$(wc -l < "$SANDBOX/err")" -eq 1 ] && [ ! -s "$SANDBOX/out" ] &&
	   [ "$(runs_now)" = "$before" ]; then
		ok "import $*: exit $want, '$msg', nothing imported"
	else
		not_ok "import $*: exit $rc"
		diag "$err"
	fi
}
printf '{"a.b": [1, 2],\n  "c.d": [3 4]}\n' > "$SANDBOX/bad.json"
printf '{"stats_source": "x", "tags": ["a"]}\n' > "$SANDBOX/nostat.json"
printf 'run,stat,value\n1,a.b,1\n2,a.b,x\n' > "$SANDBOX/bad.csv"
printf 'stat,run1,run2\na.b,1,2\n' > "$SANDBOX/wide.csv"
printf '[{"a.b": [1]}]\n' > "$SANDBOX/array.json"
id=(--commit c --job j --db "$db")
bad 1 "$SANDBOX/bad.json:2:13: " lkp-matrix "$SANDBOX/bad.json" "${id[@]}"
bad 1 "no numeric stat" lkp-matrix "$SANDBOX/nostat.json" "${id[@]}"
bad 1 "cannot read $SANDBOX/missing.json: No such file or directory" lkp-matrix "$SANDBOX/missing.json" "${id[@]}"
bad 1 "$SANDBOX/bad.csv:3: value 'x' of a.b is not a finite number" csv "$SANDBOX/bad.csv" "${id[@]}"
bad 1 "$SANDBOX/wide.csv:1: expected the header line 'run,stat,value'" csv "$SANDBOX/wide.csv" "${id[@]}"
bad 1 "not an LKP matrix" lkp-matrix "$SANDBOX/array.json" "${id[@]}"
bad 1 "$SANDBOX/bad.csv:1:3: " lkp-matrix "$SANDBOX/bad.csv" "${id[@]}"
bad 2 "unknown format 'xml'" xml "$SANDBOX/base.json" "${id[@]}"
bad 2 "which format?" --commit c --job j
bad 2 "csv needs a FILE" csv --commit c --job j
bad 2 "--commit is required" lkp-matrix "$SANDBOX/base.json" --job j --db "$db"
bad 2 "--job is required" lkp-matrix "$SANDBOX/base.json" --commit c --db "$db"
bad 2 "unexpected argument 'more'" lkp-matrix "$SANDBOX/base.json" more "${id[@]}"
bad 2 "unknown option '--frob'" lkp-matrix "$SANDBOX/base.json" --frob "${id[@]}"
bad 2 "option '--job' needs a value" lkp-matrix "$SANDBOX/base.json" --commit c --job
bad 2 "--commit needs a value" lkp-matrix "$SANDBOX/base.json" --commit "" --job j
# numbers: one rule for both formats (a subnormal kept, underflow to 0 and
# overflow refused with the position and the text)
printf 'run,stat,value\n1,a.b,1e-400\n' > "$SANDBOX/under.csv"
printf 'run,stat,value\n1,a.b,2\n1,a.c,-1e400\n' > "$SANDBOX/over.csv"
printf '{"a.b": [1,\n  1e-400]}\n' > "$SANDBOX/under.json"
printf '{"a.b": [1e400]}\n' > "$SANDBOX/over.json"
bad 1 "$SANDBOX/under.csv:2: value '1e-400' of a.b is too small for a double: it would be stored as 0" csv "$SANDBOX/under.csv" "${id[@]}"
bad 1 "$SANDBOX/over.csv:3: value '-1e400' of a.c is too large for a double" csv "$SANDBOX/over.csv" "${id[@]}"
bad 1 "$SANDBOX/under.json:2:3: value '1e-400' of \"a.b\" (run 1) is too small for a double" lkp-matrix "$SANDBOX/under.json" "${id[@]}"
bad 1 "$SANDBOX/over.json:1:10: value '1e400' of \"a.b\" (run 0) is too large for a double" lkp-matrix "$SANDBOX/over.json" "${id[@]}"
printf 'run,stat,value\n1,sub.x,4e-320\n' > "$SANDBOX/sub.csv"
printf '{"sub.x": [4e-320, 2.5e-310]}\n' > "$SANDBOX/sub.json"
run_perfbot 10 import csv "$SANDBOX/sub.csv" --commit sub1 --job sub --db "$db"
run_perfbot 10 results show "$(sqlite3 "$db" 'SELECT max(id) FROM runs')" --db "$db" --json
check "a subnormal from CSV is stored as it is" \
	jq -e '.stats["sub.x"] == 4e-320 and .stats["sub.x"] > 0' "$SANDBOX/out"
run_perfbot 10 import lkp-matrix "$SANDBOX/sub.json" --commit sub2 --job sub --db "$db"
run_perfbot 10 results show "$(sqlite3 "$db" 'SELECT max(id) FROM runs')" --db "$db" --json
check "a subnormal from a matrix is stored as it is" jq -e '.stats["sub.x"] == 2.5e-310' "$SANDBOX/out"
before=$(runs_now)

# parameters and testbox from the command line go into every run, so that
# compare -s and --testbox select them
printf 'run,stat,value\n1,p.ops,10\n2,p.ops,11\n3,p.ops,12\n' > "$SANDBOX/p1.csv"
printf 'run,stat,value\n1,p.ops,20\n2,p.ops,21\n3,p.ops,22\n' > "$SANDBOX/p2.csv"
run_perfbot 10 import csv "$SANDBOX/p1.csv" --commit pa --job p-2-thread --param nr_task=2 \
	--param mode=thread --testbox pbox --db "$db"
check "--param: exit 0" [ "$rc" -eq 0 ]
run_perfbot 10 import csv "$SANDBOX/p2.csv" --commit pb --job p-2-thread --param nr_task=2 \
	--param mode=thread --testbox pbox --db "$db"
run_perfbot 10 results --db "$db" --testbox pbox --json
check "--testbox: both imports listed under it" jq -e 'length == 2 and all(.[]; .testbox == "pbox")' "$SANDBOX/out"
last=$(sqlite3 "$db" 'SELECT max(id) FROM runs')
run_perfbot 10 results show "$last" --db "$db" --json
check "--param: the parameters are stored with each run" \
	jq -e '.params == {"mode": "thread", "nr_task": "2"} and .testbox == "pbox"' "$SANDBOX/out"
run_perfbot 10 compare pa pb -s nr_task=2 --testbox pbox --db "$db"
check "compare -s K=V selects the imported runs" bash -c \
	'[ "$2" -eq 0 ] && grep -q "p.ops" "$1"' _ "$SANDBOX/out" "$rc"
run_perfbot 10 compare pa pb -s nr_task=4 --db "$db"
check "compare -s with another value selects none (exit 1)" [ "$rc" -eq 1 ]
before=$(runs_now)
bad 2 "--param 'nr_task': expected KEY=VALUE" csv "$SANDBOX/p1.csv" --param nr_task "${id[@]}"
bad 2 "--param 'a=2': a given twice" csv "$SANDBOX/p1.csv" --param a=1 --param a=2 "${id[@]}"

# the same file twice: refused, naming the runs it became; --force imports it
before=$(runs_now)
cp "$SANDBOX/p1.csv" "$SANDBOX/p1-copy.csv"
bad 1 "$SANDBOX/p1-copy.csv was imported already (the same content, SHA-256" csv "$SANDBOX/p1-copy.csv" --commit other --job j --db "$db"
check "already imported: the message names the runs, the job, the commit and the file" \
	grep -qF "as runs $((last - 5)) to $((last - 3)) (3 runs of p-2-thread at pa on pbox), imported " "$SANDBOX/err"
check "already imported: says how to delete them or import anyway" \
	grep -qF "from $SANDBOX/p1.csv (csv); nothing imported: \`perfbot results delete $((last - 5)) $((last - 4)) $((last - 3)) --yes\` deletes them, --force imports the file again" "$SANDBOX/err"
run_perfbot 10 import csv "$SANDBOX/p1-copy.csv" --commit other --job j --db "$db" --force
check "--force: imported again" bash -c '[ "$2" -eq 0 ] && grep -q "imported 3 runs of j at other" "$1"' _ "$SANDBOX/out" "$rc"
# once its runs are deleted (both imports of it), a file may be imported again
run_perfbot 10 results delete --commit pa --db "$db" --yes
run_perfbot 10 import csv "$SANDBOX/p1.csv" --commit pa --job p-2-thread --db "$db"
check "one import of the content left: still refused" [ "$rc" -eq 1 ]
run_perfbot 10 results delete --commit other --db "$db" --yes
run_perfbot 10 import csv "$SANDBOX/p1.csv" --commit pa --job p-2-thread --db "$db"
check "after its runs are deleted, the file imports again" [ "$rc" -eq 0 ]

run_perfbot 10 import lkp-matrix "$SANDBOX/base.json" --commit c --job j \
	--db "$SANDBOX/never.db" --frob
check "bad usage creates no database" [ ! -e "$SANDBOX/never.db" ]
run_perfbot 10 import lkp-matrix "$SANDBOX/bad.json" --commit c --job j --db "$SANDBOX/never.db"
check "a bad file creates no database" [ ! -e "$SANDBOX/never.db" ]

check_nothing_left "import"
finish

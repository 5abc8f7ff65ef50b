#!/bin/bash
# An exec job's warmup: runs of the command before the first measured
# repeat of each atomic job, recorded in that run's env and never stored
# as runs; warmup: 0 runs none; a failing warm-up is a failed run with why.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"

DB="$SANDBOX/results.db"
cd "$SANDBOX" || exit 1

# (a job key given names the job: cold-0, warm2-2)
# job NAME FILE [EXTRA]: a job whose command appends a line to FILE each
# time it runs and prints how many lines FILE has as stat n
job() {
	printf 'testcase: %s\nrepeat: 3\n%bexec:\n  cmd: [sh, -c, %s, %s]\n  parse: kv\n' \
		"$1" "${3:-}" "'echo x >> \"\$0\"; echo \"n: \$(wc -l < \"\$0\")\"'" "$SANDBOX/$2"
}

job counted calls > warm.yaml
run_perfbot 60 run warm.yaml --db "$DB" --no-monitors
check "default warm-up: exit 0, 3 runs stored" bash -c \
	'[ "$2" -eq 0 ] && [ "$(grep -c "^run [0-9]*: counted complete" "$1")" -eq 3 ]' _ "$SANDBOX/out" "$rc"
check "default warm-up: the command ran 4 times" [ "$(wc -l < calls)" -eq 4 ]
run_perfbot 30 results --db "$DB" --json
check "results: one group of 3 complete runs" python3 -c '
import json, sys
g = json.load(open(sys.argv[1]))
assert len(g) == 1 and g[0]["runs_complete"] == 3, g
' "$SANDBOX/out"
run_perfbot 30 results show 1 --db "$DB" --json
check "the first run: measured after one warm-up, recorded in env" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
env = r["env"]
assert r["stats"]["counted.n"] == 2, r["stats"]
assert env["warmup.runs"] == "1" and env["warmup.status"] == "ok", env
assert float(env["warmup.elapsed_s"]) > 0, env
' "$SANDBOX/out"
run_perfbot 30 results show 2 --db "$DB" --json
check "the second run: no warm-up" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["stats"]["counted.n"] == 3, r["stats"]
assert not any(k.startswith("warmup.") for k in r["env"]), r["env"]
' "$SANDBOX/out"

job cold calls0 'warmup: 0\n' > cold.yaml
run_perfbot 60 run cold.yaml --db "$DB" --no-monitors
check "warmup: 0: exit 0, 3 runs stored, the command ran 3 times" bash -c \
	'[ "$2" -eq 0 ] && [ "$(grep -c "^run [0-9]*: cold-0 complete" "$1")" -eq 3 ] &&
	 [ "$(wc -l < calls0)" -eq 3 ]' _ "$SANDBOX/out" "$rc"

job warm2 calls2 'warmup: 2\n' > warm2.yaml
run_perfbot 60 run warm2.yaml --db "$DB" --no-monitors
check "warmup: 2: the command ran 5 times for 3 runs" bash -c \
	'[ "$2" -eq 0 ] && [ "$(grep -c "^run [0-9]*: warm2-2 complete" "$1")" -eq 3 ] &&
	 [ "$(wc -l < calls2)" -eq 5 ]' _ "$SANDBOX/out" "$rc"

# the first call fails: the first run is failed with why, the next one warms up again
cat > flaky.yaml <<YAML
testcase: flaky
repeat: 3
exec:
  cmd: [sh, -c, 'echo x >> "\$0"; n=\$(wc -l < "\$0"); [ \$n -gt 1 ] || exit 4; echo "n: \$n"', $SANDBOX/callsf]
  parse: kv
YAML
run_perfbot 60 run flaky.yaml --db "$DB" --no-monitors
check "failing warm-up: exit 1, a failed run with why, then 2 complete" bash -c \
	'[ "$2" -eq 1 ] && grep -q "^run [0-9]*: flaky failed  (warm-up run 1 of 1: exit status 4)" "$1" &&
	 [ "$(grep -c "^run [0-9]*: flaky complete" "$1")" -eq 2 ]' _ "$SANDBOX/out" "$rc"
check "failing warm-up: 1 + 2 + 1 calls" [ "$(wc -l < callsf)" -eq 4 ]

# bad values: file:line:column, as every job key
printf 'testcase: bad\nwarmup: 101\nexec:\n  cmd: [true]\n' > bad.yaml
run_perfbot 10 run bad.yaml --db "$DB"
check "warmup: 101 refused at 2:9, exit 2" bash -c \
	'[ "$2" -eq 2 ] && grep -q "bad.yaml:2:9: invalid warmup .101.: more than 100 runs" "$1"' _ "$SANDBOX/err" "$rc"
printf 'testcase: bad\nwarmpu: 1\nexec:\n  cmd: [true]\n' > bad.yaml
run_perfbot 10 run bad.yaml --db "$DB"
check "warmpu: did you mean warmup" bash -c \
	'[ "$2" -eq 2 ] && grep -q "did you mean .warmup.?" "$1"' _ "$SANDBOX/err" "$rc"

# --repo: the warm-up runs in the worktree too, with $PERFBOT_SRC
git init -q src && printf 'v: 1\n' > src/out.txt && git -C src add out.txt &&
	git -C src -c user.name=t -c user.email=t@t commit -qm one
cat > repo.yaml <<YAML
testcase: inrepo
repeat: 2
exec:
  cmd: [sh, -c, 'echo "\$PERFBOT_SRC \$PWD" >> "\$0"; cat out.txt', $SANDBOX/callsr]
  parse: kv
YAML
run_perfbot 60 run repo.yaml --repo src --db "$DB" --no-monitors
check "--repo: 2 runs, 3 calls, all in the worktree named by \$PERFBOT_SRC" bash -c \
	'[ "$2" -eq 0 ] && [ "$(grep -c "^run [0-9]*: inrepo complete" "$1")" -eq 2 ] &&
	 [ "$(wc -l < callsr)" -eq 3 ] && ! grep -qv "^/[^ ]*perfbot[^ ]* /[^ ]*perfbot" callsr &&
	 [ "$(cut -d" " -f1 callsr | sort -u | wc -l)" -eq 1 ] &&
	 [ "$(awk "\$1 != \$2" callsr | wc -l)" -eq 0 ]' _ "$SANDBOX/out" "$rc"

# a bisection warms up once per build of a commit: calls = runs + builds
. "$HERE/bisect-lib.sh"
make_bisect_repo brepo 8 5 || { echo "Bail out! cannot make the repository"; exit 1; }
write_bisect_job bjob.yaml
sed -i "s|  cmd: \[./prog\]|  cmd: [sh, -c, 'echo x >> \"\$0\"; exec ./prog', $SANDBOX/callsb]|" bjob.yaml
BDB="$SANDBOX/bisect.db"
run_perfbot 300 bisect start --repo brepo --good "$BISECT_GOOD" --bad "$BISECT_BAD" \
	--max-runs 60 --db "$BDB" bjob.yaml
bisect_diag "bisect start"
# a checkout is fresh when it is built, or taken again from the build
# cache after it left the kept set (a long bisection visits more commits
# than it keeps): each fresh checkout is warmed up once
builds=$(grep -c '^bisect [0-9]*: build [0-9a-f]*: ok' "$SANDBOX/err")
retaken=$(grep -c '^bisect [0-9]*: build [0-9a-f]*: from the build cache' "$SANDBOX/err")
runs=$(bisect_store_runs "$BDB")
diag "bisect: $builds builds, $retaken taken again from the cache, $runs runs, $(wc -l < callsb 2>/dev/null) calls"
check "bisect: the planted commit found" grep -q "^first bad commit.*${BISECT_PLANTED:0:12}" "$SANDBOX/out"
check "bisect: one warm-up per fresh checkout ($builds builds + $retaken from the cache, $runs runs)" bash -c \
	'[ "$1" -gt 0 ] && [ "$(wc -l < callsb)" -eq $(( $1 + $2 + $3 )) ]' _ "$builds" "$retaken" "$runs"

check_nothing_left "warmup"
finish

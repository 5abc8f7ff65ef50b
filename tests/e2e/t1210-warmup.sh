#!/bin/bash
# An exec job's warmup: runs of the command before the first measured
# repeat of each atomic job, recorded in that run's env and never stored
# as runs; warmup: 0 runs none; a failing warm-up is a failed run with why.
. "$(dirname "$0")/lib.sh"

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

check_nothing_left "warmup"
finish

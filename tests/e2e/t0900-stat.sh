#!/bin/bash
# perfbot stat: perf-stat-style repeated timing of any command, variants
# compared run by run, failures counted, nothing left behind.
. "$(dirname "$0")/lib.sh"

# processes of this sandbox, whatever their program (commands run by stat)
marked_pids() {
	for d in /proc/[0-9]*; do
		pid=${d#/proc/}
		[ "$pid" = "$$" ] && continue
		[ "$(cat "$d/comm" 2>/dev/null)" = sleep ] || continue
		{ tr '\0' '\n' < "$d/environ"; } 2>/dev/null |
			grep -qx "PERFBOT_E2E_MARK=$SANDBOX" && echo "$pid"
	done
	return 0
}

run_perfbot 60 stat -r 5 -- sleep 0.05
check "stat sleep 0.05: exit 0" [ "$rc" -eq 0 ]
check "stat sleep 0.05: perf's header" grep -q "Performance counter stats for 'sleep 0.05' (5 runs):" "$SANDBOX/out"
mean=$(sed -n 's/^ *\([0-9.]*\) +- \([0-9.]*\) seconds time elapsed  ( +- *[0-9.]*% )$/\1/p' "$SANDBOX/out")
# wall time, not CPU time (~0) nor perfbot's own: never under the sleep,
# and above it by what fork and exec cost on a busy machine (CI's load
# made 0.0605 of it), not by a whole harness
check "stat sleep 0.05: mean $mean within 0.05..0.1 s" awk -v m="${mean:-0}" 'BEGIN { exit !(m >= 0.05 && m <= 0.1) }'
check "stat sleep 0.05: user, sys and max RSS with +-" bash -c \
	'grep -q "+- .* seconds user" "$1" && grep -q "+- .* seconds sys" "$1" && grep -q "+- .* KiB maxrss" "$1"' _ "$SANDBOX/out"

run_perfbot 60 stat -r 5 --json -- sleep 0.05
check "--json: +- is the sample stddev / sqrt(5) of the runs it lists" python3 -c '
import json, math, statistics, sys
j = json.load(open(sys.argv[1]))
c = j["commands"][0]
runs = [r["elapsed_s"] for r in c["runs"]]
assert len(runs) == 5 and all(r["ok"] for r in c["runs"]), c["runs"]
assert abs(c["elapsed_s"]["mean"] - statistics.mean(runs)) < 1e-9
want = statistics.stdev(runs) / math.sqrt(5)
assert abs(c["elapsed_s"]["stderr"] - want) < 1e-9 * max(1, want), (c["elapsed_s"], want)
assert 0.05 <= c["elapsed_s"]["mean"] <= 0.1, c["elapsed_s"]
' "$SANDBOX/out"

run_perfbot 60 stat -r 6 --vs 'sleep 0.06' -- sleep 0.05
check "--vs: exit 0" [ "$rc" -eq 0 ]
line=$(grep -E '^ +[0-9.]+ / [0-9.]+ = [0-9.]+ \( [0-9.]+% \) slowdown' "$SANDBOX/out")
ratio=$(echo "$line" | awk '{ print $5 }')
check "--vs: seed 004's ratio line, ratio $ratio near 1.2" awk -v r="${ratio:-0}" 'BEGIN { exit !(r > 1.1 && r < 1.3) }'
if ! check "--vs: called changed (compare's verdict) with an interval" \
	grep -qE "95% interval of the change \\+[0-9.]+% \\.\\. \\+[0-9.]+%; Yuen's test p = .*, Mann-Whitney p = .*: changed$" "$SANDBOX/out"; then
	diag "$out"
fi
run_perfbot 60 stat -r 6 --json --vs 'sleep 0.06' -- sleep 0.05
check "--vs --json: the verdict beside the ratio and p (docs/stat.md)" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
c, = j["comparisons"]
assert c["significant"] is True and c["p"] < 0.05 and c["verdict"] == "changed", c
assert 0 <= c["mwu_p"] <= 1 and c["low"] < c["pct"] < c["high"], c
# pct is compare'"'"'s: of the trimmed means (6 runs: the lowest and highest dropped)
def tmean(cmd):
    v = sorted(r["elapsed_s"] for r in cmd["runs"] if r["ok"])
    return sum(v[1:-1]) / (len(v) - 2)
ta, tb = (tmean(x) for x in j["commands"])
assert abs(c["pct"] - 100 * (tb - ta) / ta) < 1e-6, (c, ta, tb)
assert j["alpha"] == 0.05 and j["min_change_pct"] == 1 and j["level"] == 0.95 and j["min_runs"] == 3
' "$SANDBOX/out"
run_perfbot 60 stat -r 2 --vs 'sleep 0.02' -- sleep 0.01
check "--vs with 2 runs: the numbers, and few runs" \
	grep -qE "interval of the change .*: few runs \(a verdict needs 3 runs of each\)$" "$SANDBOX/out"

# A B A B: the commands take turns
cd "$SANDBOX" || exit 1
run_perfbot 60 stat -r 3 --vs "sh -c 'echo B >> order'" -- sh -c 'echo A >> order'
check "--vs: runs alternate A B A B A B" [ "$(tr -d '\n' < order)" = ABABAB ]
rm -f order
run_perfbot 60 stat -r 2 -w 2 --json -- sh -c 'echo W >> warm'
check "-w 2 -r 2: four runs made, two measured" bash -c \
	'[ "$(wc -l < warm)" -eq 4 ] && python3 -c "import json,sys; assert len(json.load(open(sys.argv[1]))[\"commands\"][0][\"runs\"]) == 2" "$1"' _ "$SANDBOX/out"

run_perfbot 60 stat -r 1 -- sleep 0.01
check "-r 1: a result, exit 0" [ "$rc" -eq 0 ]
check "-r 1: no +- (as perf), no nan" bash -c '! grep -Eq "\+-|nan|inf" "$1" && grep -q "seconds time elapsed" "$1"' _ "$SANDBOX/out"

# a command that fails every other run: failures reported, counted, left out
run_perfbot 60 stat -r 4 --json -- sh -c 'if [ -e flip ]; then rm flip; exit 3; else touch flip; fi'
check "failing runs: exit 0 while some succeed" [ "$rc" -eq 0 ]
check "failing runs: exit status reported" grep -q "run 2 of .*: exit status 3" "$SANDBOX/err"
check "failing runs: 2 ok, 2 failed, summary over the ok ones" python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["commands"][0]
assert c["ok_runs"] == 2 and c["failed_runs"] == 2, c
assert c["elapsed_s"]["n"] == 2
assert [r["failure"] for r in c["runs"] if not r["ok"]] == ["exit status 3"] * 2
' "$SANDBOX/out"
rm -f flip
run_perfbot 60 stat -r 5 --fail-fast -- false
check "--fail-fast: exit 1 at the first failure" [ "$rc" -eq 1 ]
check "--fail-fast: one run only" [ "$(grep -c 'run [0-9]* of' "$SANDBOX/err")" -eq 1 ]
run_perfbot 60 stat -r 2 -- false
check "a command that never succeeds: exit 1" [ "$rc" -eq 1 ]
check "a command that never succeeds: says so" grep -q "no successful run" "$SANDBOX/out"

run_perfbot 20 stat -r 2 --timeout 0.2 -- sleep 10
check "--timeout: each run killed on time ($secs s)" awk -v s="$secs" 'BEGIN { exit !(s < 3) }'
check "--timeout: reported" grep -q "timed out after 0.2 s" "$SANDBOX/err"

run_perfbot 20 stat -r 2 -- sh -c 'sleep 30 & exit 0'
check "a command's background process does not outlive it" [ -z "$(marked_pids)" ]

"$PERFBOT" stat -r 3 -- sleep 30 >"$SANDBOX/out" 2>&1 &
pid=$!
sleep 0.5
kill -INT $pid
wait $pid
rc=$?
check "SIGINT: exit 130 (got $rc)" [ "$rc" -eq 130 ]
check "SIGINT: marked incomplete" grep -q "incomplete: interrupted" "$SANDBOX/out"
check "SIGINT: the command is gone too" [ -z "$(marked_pids)" ]

bad_input() {
	msg=$1
	shift
	run_perfbot 10 stat "$@"
	if [ "$rc" -eq 2 ] && grep -qF -- "$msg" "$SANDBOX/err" && [ ! -s "$SANDBOX/out" ]; then
		ok "stat $*: exit 2, '$msg'"
	else
		not_ok "stat $*: exit $rc"
		diag "$err"
	fi
}
bad_input "cannot run 'no-such-command-here': No such file or directory" -- no-such-command-here
bad_input "cannot run 'no-such-variant': No such file or directory" --vs no-such-variant -- true
bad_input "invalid run count '0'" -r 0 -- true
bad_input "invalid run count 'x'" -r x -- true
bad_input "invalid warm-up run count '-1'" -w -1 -- true
bad_input "invalid timeout '0'" --timeout 0 -- true
bad_input "unterminated quote" --vs "sh -c 'oops" -- true
bad_input "no command to run" -r 3
bad_input "unknown option '--frob'" --frob -- true
# issue 18: -n, -e, --no-counters, --progress (their use: t0910-stat-ux.sh)
bad_input "-n 'c': 3 names for 2 commands" -n a -n b -n c --vs true -- true
bad_input "-n 'b': 2 names for 1 command" -n a -n b -- true
bad_input "-n '': a name cannot be empty" -n '' -- true
bad_input "option '-n' needs a value" -n
bad_input "-e cycles,cycels: unknown event 'cycels' (did you mean 'cycles'?)" -e cycles,cycels -- true
bad_input "unknown event 'frobs'; perfbot counts task-clock, context-switches" -e frobs -- true
bad_input "unknown event ''" -e task-clock, -- true
bad_input "-e and --no-counters: choose one" -e task-clock --no-counters -- true
bad_input "invalid --progress 'sometimes': expected auto, always or never" --progress=sometimes -- true
check_nothing_left "stat"
finish

#!/bin/bash
# perfbot stat, issue 18 item 5: the progress line (on a terminal only),
# -n names, and the event counters of the command's process tree (values,
# or the reason they are unavailable).  No check here depends on timing.
. "$(dirname "$0")/lib.sh"

cd "$SANDBOX" || exit 1

# ---- the progress line: on a pseudo-terminal, never in a pipe or a file ----

# script(1) gives the command a pty for stdin, stdout and stderr
on_pty() {
	script -qec "$(printf '%q ' "$@")" /dev/null > "$SANDBOX/pty" 2>&1 < /dev/null
}
on_pty "$PERFBOT" stat -r 3 -w 1 -n napper -- sleep 0.01
check "pty: the line names the command, the warm-up and the runs" bash -c \
	'grep -aq "Warming up .napper.: warm-up 1 of 1" "$1" &&
	 grep -aq "Measuring .napper.: run 1 of 3" "$1" &&
	 grep -aq "Measuring .napper.: run 3 of 3, mean [0-9.]* ms, ETA [0-9.]* ms" "$1"' _ "$SANDBOX/pty" ||
	diag "$(cat -v "$SANDBOX/pty" | head -5)"
check "pty: the line is rewritten (\\r, erase) and cleared before the result" python3 -c '
import sys
t = open(sys.argv[1], "rb").read().decode("utf-8", "replace")
head, sep, tail = t.partition(" Performance counter stats for ")
assert sep, t
assert head.count("\r\x1b[K") >= 4, repr(head)
# the last thing before the result clears the line: nothing of it is left
assert head.rstrip("\r\n").endswith("\r\x1b[K"), repr(head[-80:])
assert "Measuring" not in tail and "\x1b" not in tail, repr(tail)
' "$SANDBOX/pty"

on_pty "$PERFBOT" stat -r 2 --vs 'sleep 0.01' -n a -n b -- true
check "pty, two commands: each is named with its place" bash -c \
	'grep -aq "Measuring .a. (1 of 2): run 2 of 2" "$1" && grep -aq "Measuring .b. (2 of 2): run 2 of 2" "$1"' _ "$SANDBOX/pty"

on_pty "$PERFBOT" stat -r 2 --progress=never -- true
check "pty, --progress=never: no line" bash -c \
	'grep -aq "Performance counter stats" "$1" && ! grep -aq "Measuring" "$1"' _ "$SANDBOX/pty"
on_pty "$PERFBOT" stat -r 2 --show-output -- true
check "pty, --show-output: the command's output is not mixed with a line" bash -c \
	'grep -aq "Performance counter stats" "$1" && ! grep -aq "Measuring" "$1"' _ "$SANDBOX/pty"

# stdout to a file, stderr the terminal: the JSON is whole
on_pty bash -c '"$1" stat -r 2 --json -n j -- true > "$2"' _ "$PERFBOT" "$SANDBOX/json"
check "pty, --json to a file: the line on the terminal, not in the JSON" bash -c \
	'grep -aq "Measuring .j.: run 2 of 2" "$1" &&
	 python3 -c "import json,sys; j=json.load(open(sys.argv[1])); assert j[\"commands\"][0][\"name\"] == \"j\"" "$2" &&
	 ! grep -q "$(printf "\r")" "$2"' _ "$SANDBOX/pty" "$SANDBOX/json"
# both on the terminal: the line is cleared before the JSON starts
on_pty "$PERFBOT" stat -r 2 --json -- true
check "pty, --json on the terminal: after the cleared line, the JSON parses" python3 -c '
import json, sys
t = open(sys.argv[1], "rb").read().decode()
assert "Measuring" in t, t
json.loads(t.rsplit("\x1b[K", 1)[1])
' "$SANDBOX/pty"

run_perfbot 60 stat -r 2 -- true
check "a file: no progress line" bash -c \
	'[ "$2" -eq 0 ] && grep -q "Performance counter stats" "$1" && ! grep -q "Measuring" "$3" && ! grep -q "$(printf "\r")" "$3"' \
	_ "$SANDBOX/out" "$rc" "$SANDBOX/err"
"$PERFBOT" stat -r 2 -- true 2>&1 | cat > "$SANDBOX/piped"
check "a pipe: no progress line" bash -c \
	'grep -q "Performance counter stats" "$1" && ! grep -q "Measuring" "$1"' _ "$SANDBOX/piped"
run_perfbot 60 stat -r 2 --progress=always -- true
check "--progress=always: the line even in a file" grep -q "Measuring 'true': run 2 of 2" "$SANDBOX/err"

# ---- -n NAME ----

run_perfbot 60 stat -r 3 -n base -n new --vs 'sleep 0.02' -- sleep 0.01
check "-n: the names head the blocks" bash -c \
	'grep -q "Performance counter stats for .base. (3 runs):" "$1" &&
	 grep -q "Performance counter stats for .new. (3 runs):" "$1" &&
	 ! grep -q "counter stats for .sleep" "$1"' _ "$SANDBOX/out"
check "-n: and the comparison" bash -c \
	'grep -q "Compared with .base.:" "$1" && grep -qE "^ +[0-9.]+ / [0-9.]+ = .* .new.$" "$1"' _ "$SANDBOX/out" ||
	diag "$out"
run_perfbot 60 stat -r 2 --json -n base --vs 'sleep 0.01' -- true
check "-n --json: name beside the command; an unnamed variant is named by its command" python3 -c '
import json, sys
a, b = json.load(open(sys.argv[1]))["commands"]
assert a["name"] == "base" and a["command"] == ["true"] and a["label"] == "true", a
assert b["name"] == "sleep 0.01" and b["command"] == ["sleep", "0.01"], b
' "$SANDBOX/out"
run_perfbot 60 stat -r 1 -n flaky -- false
check "-n: a failed run is reported by its name" grep -q "run 1 of 'flaky': exit status 1" "$SANDBOX/err"

# ---- counters ----

# the work is a grandchild's: the shell forks (the ; true), the inner one loops
loop="sh -c 'i=0; while [ \$i -lt 30000 ]; do i=\$((i+1)); done'; true"
run_perfbot 120 stat -r 3 --json -- sh -c "$loop"
check "counters --json: every event has a value or a reason, in every command and run" python3 -c '
import json, math, sys
j = json.load(open(sys.argv[1]))
ev = j["events"]
assert ev == ["task-clock", "context-switches", "cpu-migrations", "page-faults",
              "cycles", "instructions", "branches", "branch-misses", "cache-misses"], ev
for c in j["commands"]:
    assert list(c["counters"]) == ev, c["counters"]
    for name, s in c["counters"].items():
        if s["n"]:
            assert s["n"] == c["ok_runs"] and math.isfinite(s["mean"]) and s["mean"] >= 0, (name, s)
        else:
            assert s["unavailable"], (name, s)
        assert s["unit"] == ("msec" if name == "task-clock" else ""), s
    for r in c["runs"]:
        assert list(r["counters"]) == ev, r
' "$SANDBOX/out"
# software events count wherever perf_event_open is allowed at all
if python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["commands"][0]["counters"]["task-clock"]["n"] == 0)' "$SANDBOX/out"; then
	check "task-clock: the process tree's CPU time (the grandchild's loop), as rusage says" python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["commands"][0]
for r in c["runs"]:
    tc = r["counters"]["task-clock"]            # msec
    cpu = 1e3 * (r["user_s"] + r["sys_s"])     # the tree, reaped by wait4
    assert 0.5 * cpu <= tc <= 2 * cpu + 5, (tc, cpu)
    assert r["counters"]["page-faults"] > 0, r
' "$SANDBOX/out"
else
	check "task-clock unavailable: perf_event_open is refused here, said so" python3 -c '
import json, sys
print("# task-clock:", json.load(open(sys.argv[1]))["commands"][0]["counters"]["task-clock"]["unavailable"])
' "$SANDBOX/out"
fi

run_perfbot 120 stat -r 3 -- sh -c "$loop"
check "counters text: each event a number (+- its error) or '<not supported> ... unavailable: why'" bash -c '
for e in task-clock context-switches cpu-migrations page-faults cycles instructions branches branch-misses cache-misses; do
	grep -Eq "^ +[0-9.]+( \+- [0-9.]+)? (msec )?$e(:u)?( |$)" "$1" ||
		grep -Eq "^ +<not (supported|counted)> $e(:u)? +unavailable: .+" "$1" || { echo "# $e"; exit 1; }
done' _ "$SANDBOX/out"
check "counters text: task-clock with CPUs utilized, or unavailable" \
	grep -Eq "msec task-clock(:u)? .*# [0-9.]+ CPUs utilized$|task-clock +unavailable" "$SANDBOX/out"
if grep -Eq "^ +[0-9.]+.* cycles" "$SANDBOX/out" && grep -Eq "^ +[0-9.]+.* instructions" "$SANDBOX/out"; then
	check "cycles and instructions counted: insn per cycle" grep -q "# [0-9.]* insn per cycle" "$SANDBOX/out"
else
	check "no hardware counters here: no insn per cycle" bash -c \
		'! grep -q "insn per cycle" "$1" && grep -q "cycles .*unavailable: " "$1"' _ "$SANDBOX/out"
	diag "$(grep ' cycles ' "$SANDBOX/out")"
fi

run_perfbot 60 stat -r 2 -e page-faults,task-clock,page-faults --json -- true
check "-e: the events asked for, in order, each once" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert j["events"] == ["page-faults", "task-clock"], j["events"]
assert list(j["commands"][0]["counters"]) == ["page-faults", "task-clock"]
' "$SANDBOX/out"
run_perfbot 60 stat -r 2 --no-counters -- true
check "--no-counters: no event lines" bash -c \
	'grep -q "seconds time elapsed" "$1" && ! grep -Eq "task-clock|cycles|page-faults" "$1"' _ "$SANDBOX/out"
run_perfbot 60 stat -r 2 --no-counters --json -- true
check "--no-counters --json: no events" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert j["events"] == [] and j["commands"][0]["counters"] == {}, j
' "$SANDBOX/out"

# an unprivileged user under kernel.perf_event_paranoid 2: user space only
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null &&
	[ "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 0)" -ge 2 ]; then
	chmod 755 "$SANDBOX"
	mkdir -m 1777 "$SANDBOX/tmp-nobody"
	TMPDIR="$SANDBOX/tmp-nobody" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$PERFBOT" stat -r 2 -e task-clock,cycles -- true > "$SANDBOX/out" 2>&1
	rc=$?
	check "not root: no temp file left" [ -z "$(ls -A "$SANDBOX/tmp-nobody")" ]
	check "paranoid 2, not root: task-clock:u counted (perf's fallback), cycles a value or a reason" bash -c \
		'[ "$2" -eq 0 ] &&
		 grep -Eq "^ +[0-9.]+ \+- [0-9.]+ msec task-clock:u " "$1" &&
		 grep -Eq "cycles(:u)? " "$1"' _ "$SANDBOX/out" "$rc" || diag "$(cat "$SANDBOX/out")"
fi

# usage errors of -n, -e, --no-counters and --progress: t0900-stat.sh

check_nothing_left "stat-ux"
finish

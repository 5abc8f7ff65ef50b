#!/bin/bash
# perfbot job split: the ready jobs expand as LKP would, -s narrows, -o
# writes one file per atomic job, and a bad job file is one line
# "file:line:column: message", exit 2, nothing written.
. "$(dirname "$0")/lib.sh"

: "${PERFBOT_SRC:=$(cd "$(dirname "$0")/../.." && pwd)}"
JOBS=$PERFBOT_SRC/jobs

run_perfbot 10 job --help
check "job --help exits 0" [ "$rc" -eq 0 ]
check "job --help shows the usage" grep -q '^usage: perfbot job split' "$SANDBOX/out"
run_perfbot 10 job split --help
check "job split --help documents -s and -o" bash -c \
	'grep -q -- "--set" "$1" && grep -q -- "--output" "$1"' _ "$SANDBOX/out"
run_perfbot 10 help job
check "help job is job --help" grep -q '^usage: perfbot job split' "$SANDBOX/out"
run_perfbot 10 job
check "job without a command: exit 2" [ "$rc" -eq 2 ]

# the ready jobs: how many atomic jobs each gives
for spec in will-it-scale:24 hackbench:8 netperf:2 smoke:12; do
	name=${spec%:*}
	want=${spec#*:}
	run_perfbot 10 job split "$JOBS/$name.yaml"
	n=$(grep -c '^--- # ' "$SANDBOX/out")
	check "jobs/$name.yaml splits into $want atomic jobs (saw $n, exit $rc)" \
		[ "$rc" -eq 0 -a "$n" -eq "$want" ]
done

run_perfbot 10 job split "$JOBS/will-it-scale.yaml"
check "the names are LKP's: testcase, then the values in file order" \
	grep -qx -- '--- # will-it-scale-100%-thread-futex3' "$SANDBOX/out"
check "the literal 100% and 30s stay in the job" bash -c \
	'awk "/^--- # will-it-scale-100%-thread-futex3\$/ { p = 1; next } /^---/ { p = 0 } p" "$1" > "$1.one" &&
	 grep -qx "nr_task: 100%" "$1.one" && grep -qx "runtime: 30s" "$1.one" &&
	 grep -qx "  mode: thread" "$1.one" && grep -qx "  test: futex3" "$1.one"' _ "$SANDBOX/out"
rm -f "$SANDBOX/out.one"

# -s: narrow a dimension, replace a value, add a parameter
run_perfbot 10 job split "$JOBS/will-it-scale.yaml" -s test=futex3 -s mode=thread
check "-s test=futex3 -s mode=thread leaves 3 jobs" \
	[ "$(grep -c '^--- # ' "$SANDBOX/out")" -eq 3 ]
check "the narrowed jobs keep their names" \
	grep -qx -- '--- # will-it-scale-50%-thread-futex3' "$SANDBOX/out"
run_perfbot 10 job split "$JOBS/smoke.yaml" --set runtime=5s -s nr_task=1 -s warmup=1s
check "-s replaces a value" grep -qx 'runtime: 5s' "$SANDBOX/out"
check "-s adds a parameter to the name" \
	grep -qx -- '--- # will-it-scale-1-process-futex1-1s' "$SANDBOX/out"
# a parameter the benchmark does not know is refused, with the option named
run_perfbot 10 job split "$JOBS/smoke.yaml" -s nr_tsk=1
check "-s of an unknown parameter: exit 2, named, with a suggestion" bash -c \
	'[ "$2" -eq 2 ] && grep -q "<command line>: -s nr_tsk=1: unknown parameter .nr_tsk. for will-it-scale (did you mean .nr_task.?)" "$1"' _ "$SANDBOX/err" "$rc"

# -o DIR: one file per atomic job, each loads back into itself
run_perfbot 10 job split "$JOBS/will-it-scale.yaml" -o "$SANDBOX/split/deep"
nfiles=$(ls "$SANDBOX/split/deep" | wc -l)
check "-o writes 24 files (saw $nfiles)" [ "$rc" -eq 0 -a "$nfiles" -eq 24 ]
check "-o names the files after the jobs" \
	[ -f "$SANDBOX/split/deep/will-it-scale-100%-thread-futex3.yaml" ]
check "-o prints the paths" \
	grep -qx "$SANDBOX/split/deep/will-it-scale-16-process-futex1.yaml" "$SANDBOX/out"
one=$SANDBOX/split/deep/will-it-scale-100%-thread-futex3.yaml
run_perfbot 10 job split "$one"
check "a written job splits into itself" bash -c \
	'[ "$(grep -c "^--- # " "$1")" -eq 1 ] &&
	 grep -qx -- "--- # will-it-scale-100%-thread-futex3" "$1" &&
	 diff <(tail -n +2 "$1") "$2" >/dev/null' _ "$SANDBOX/out" "$one"
run_perfbot 10 job split "$JOBS/will-it-scale.yaml" -o "$SANDBOX/split/deep" -s test=futex1
check "-o again replaces the files" [ "$rc" -eq 0 ]
rm -rf "$SANDBOX/split"

# bad_job EXPECTED-MESSAGE JOB-TEXT [ARGS...]: exit 2, one line naming the
# place, nothing printed or written
bad_job() {
	msg=$1
	text=$2
	shift 2
	printf '%s' "$text" > "$SANDBOX/bad.yaml"
	run_perfbot 10 job split "${JOB:-$SANDBOX/bad.yaml}" -o "$SANDBOX/outdir" "$@"
	if [ "$rc" -eq 2 ] && [ "$err" = "perfbot: $msg" ] && [ ! -s "$SANDBOX/out" ] &&
	   [ ! -e "$SANDBOX/outdir" ]; then
		ok "bad job: exit 2, '$msg'"
	else
		not_ok "bad job '$msg': exit $rc"
		diag "$err"
		rm -rf "$SANDBOX/outdir"
	fi
}
B=$SANDBOX/bad.yaml
bad_job "$B:3:10: runtime '5x' is not a duration (a decimal number of seconds, or with a unit ms, s, m or h)" \
	$'testcase: t\nnr_task: 1\nruntime: 5x\n'
bad_job "$B:2:9: repeat 'abc' is not a whole number (decimal digits, no sign or leading zero)" \
	$'testcase: t\nrepeat: abc\n'
# one number grammar (docs/jobs.md, "Numbers"): no hex, no sign, no
# leading zero, a bound per kind
R="a decimal number of seconds, or with a unit ms, s, m or h"
bad_job "$B:2:10: runtime '0x10' is not a duration ($R)" $'testcase: t\nruntime: 0x10\n'
bad_job "$B:2:10: runtime '+3' is not a duration ($R)" $'testcase: t\nruntime: "+3"\n'
bad_job "$B:2:10: runtime '99999999999999999999' is more than 30 days" \
	$'testcase: t\nruntime: 99999999999999999999\n'
bad_job "$B:2:10: runtime '010' is not a duration ($R)" $'testcase: t\nruntime: 010\n'
bad_job "$B:2:10: runtime 'inf' is not a duration ($R)" $'testcase: t\nruntime: inf\n'
bad_job "$B:2:9: repeat '0x10' is not a whole number (decimal digits, no sign or leading zero)" \
	$'testcase: t\nrepeat: 0x10\n'
bad_job "$B:2:9: repeat '010' is not a whole number (decimal digits, no sign or leading zero)" \
	$'testcase: t\nrepeat: 010\n'
bad_job "$B:2:9: repeat '99999999999999999999' is more than 1000000" \
	$'testcase: t\nrepeat: 99999999999999999999\n'
bad_job "$B:3:9: empty matrix dimension 'mode'" \
	$'will-it-scale:\n  test: futex1\n  mode: []\n'
bad_job "$B:4:3: duplicate key 'mode'" \
	$'will-it-scale:\n  mode: thread\n  test: futex1\n  mode: process\n'
bad_job "$B:3:3: 'x' in section 'w' is a mapping; sections do not nest" \
	$'w:\n  a: 1\n  x:\n    y: 2\n'
bad_job "$B:1:1: no testcase: say testcase: or give a benchmark section" \
	$'nr_task: 1\nmode: thread\n'
bad_job "$B:2:5: did not find expected ',' or ']' while parsing a flow sequence at 1:7" \
	$'mode: [a, b\ntest: c\n'
bad_job "$B:2:16: duplicate value 'thread' in matrix dimension 'mode'" \
	$'testcase: t\nmode: [thread, thread]\n'
bad_job "$B:3:10: invalid parse 'xml' (expected kv, json, gbench, hyperfine or time)" \
	$'exec:\n  cmd: [./bench]\n  parse: xml\n'
bad_job "<command line>: invalid override 'nr_task' (expected -s key=value)" \
	$'testcase: t\n' -s nr_task
bad_job "<command line>: -s runtime=ten: runtime 'ten' is not a duration (a decimal number of seconds, or with a unit ms, s, m or h)" \
	$'testcase: t\n' -s runtime=ten
bad_job "$B: empty job file" ''
JOB=$SANDBOX/missing.yaml bad_job \
	"$SANDBOX/missing.yaml: cannot read the job file: No such file or directory" ''
JOB=$SANDBOX bad_job "$SANDBOX: cannot read the job file: Is a directory" ''

rm -f "$B"

run_perfbot 10 job split
check "split without a file: exit 2" [ "$rc" -eq 2 ]
run_perfbot 10 job split "$JOBS/smoke.yaml" --frob
check "an unknown option: exit 2" bash -c \
	'[ "$1" -eq 2 ] && grep -q "unknown option '"'"'--frob'"'"'" "$2"' _ "$rc" "$SANDBOX/err"
run_perfbot 10 job frob
check "an unknown job command: exit 2" [ "$rc" -eq 2 ]

rm -f "$SANDBOX/out" "$SANDBOX/err"
check_nothing_left "job split"
finish

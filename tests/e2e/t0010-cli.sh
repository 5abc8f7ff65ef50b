#!/bin/bash
# The command line: help, version, the catalogue listing, and bad input
# (one line naming the bad value, exit 2, nothing started).
. "$(dirname "$0")/lib.sh"

run_perfbot 10 --version
check "--version prints the version" [ "$rc" -eq 0 ]
check "--version names perfbot" grep -Eq '^perfbot [0-9]+\.[0-9]+' "$SANDBOX/out"

run_perfbot 10 help
check "help exits 0" [ "$rc" -eq 0 ]
check "help lists bench" grep -q '^   bench ' "$SANDBOX/out"
run_perfbot 10 help --help
check "help --help is the usage" grep -q '^usage: perfbot' "$SANDBOX/out"
run_perfbot 10 help frob
check "help of an unknown command: exit 2" [ "$rc" -eq 2 ]
run_perfbot 10 help bench
check "help bench is bench --help" grep -q 'usage: perfbot bench' "$SANDBOX/out"
run_perfbot 10 bench --help
check "bench --help exits 0" [ "$rc" -eq 0 ]
check "bench --help documents every option" bash -c \
	'for o in --tasks --mode --duration --warmup --interval --no-affinity --json --sweep --max --csv; do grep -q -- "$o" "$1" || exit 1; done' _ "$SANDBOX/out"
run_perfbot 10
check "no command: usage, exit 2" [ "$rc" -eq 2 ]
run_perfbot 10 frobnicate
check "unknown command: exit 2" [ "$rc" -eq 2 ]
check "unknown command is named" grep -q "'frobnicate' is not a perfbot command" "$SANDBOX/err"

run_perfbot 10 bench
check "bench lists the catalogue" [ "$rc" -eq 0 ]
# the will-it-scale section: from the first line to the blank one
awk 'NR > 1 && NF == 0 { exit } NR > 1' "$SANDBOX/out" > "$SANDBOX/wis"
ntests=$(wc -l < "$SANDBOX/wis")
check "the catalogue has 60 tests (saw $ntests)" [ "$ntests" -eq 60 ]
check "every line names a test and its loop" bash -c \
	'awk "NF < 2 || \$2 == \"stub\" { bad = 1 } END { exit bad }" "$1"' _ "$SANDBOX/wis"
for t in futex1 futex2 futex3 futex4 pthread_mutex2 malloc2 context_switch1 page_fault1 tlb_flush2 poll2 getppid1 sched_yield; do
	check "the catalogue lists $t" grep -q "^  $t " "$SANDBOX/out"
done
for b in hackbench netperf; do
	check "the listing has $b among the other benchmarks" bash -c \
		'sed -n "/^other benchmarks/,\$p" "$1" | grep -Eq "^  $2 +[^ ]" && ! grep -Eq "^  $2 +stub" "$1"' _ "$SANDBOX/out" "$b"
done
check "self-tests are hidden" bash -c '! grep -Eq "^  (empty|selftest)" "$1"' _ "$SANDBOX/out"

# bad_input EXPECTED-MESSAGE ARGS...: exit 2, the message, nothing started
bad_input() {
	msg=$1
	shift
	run_perfbot 10 bench "$@"
	if [ "$rc" -eq 2 ] && grep -qF -- "$msg" "$SANDBOX/err" &&
	   [ "$(wc -l < "$SANDBOX/err")" -eq 1 ] && [ ! -s "$SANDBOX/out" ]; then
		ok "bench $*: exit 2, '$msg'"
	else
		not_ok "bench $*: exit $rc"
		diag "$err"
	fi
}
bad_input "unknown test 'futx1' (did you mean 'futex1'?)" futx1
bad_input "unknown test 'contextswitch' (did you mean 'context_switch1'?)" contextswitch
bad_input "unknown test 'zzzzzzzzzzzzzz'" zzzzzzzzzzzzzz
bad_input "invalid task count '0'" futex1 -t 0
bad_input "invalid task count '-3'" futex1 -t -3
bad_input "invalid task count 'abc'" futex1 -t abc
bad_input "-t 4097 is more than 4096 tasks" futex1 -t 4097
bad_input "-t 999999% is more than 4096 tasks" futex1 -t 999999%
bad_input "invalid task count 'x%'" futex1 -t x%
bad_input "invalid task count '0%'" futex1 -t 0%
bad_input "invalid task count '-50%'" futex1 -t -50%
bad_input "invalid duration '0 s'" futex1 -d 0
bad_input "invalid duration '-1 s'" futex1 -d -1
bad_input "invalid duration 'ten'" futex1 -d ten
# the one number grammar (docs/jobs.md, "Numbers")
bad_input "invalid task count '010'" futex1 -t 010
bad_input "invalid task count '0x10'" futex1 -t 0x10
bad_input "invalid task count '+3'" futex1 -t +3
bad_input "invalid duration '0x10'" futex1 -d 0x10
bad_input "invalid duration '+3'" futex1 -d +3
bad_input "invalid duration 'inf'" futex1 -d inf
bad_input "invalid duration '99999999999999999999': more than 30 days" futex1 -d 99999999999999999999
bad_input "invalid --max '010'" futex1 --sweep --max 010
bad_input "duration 0.5 s is shorter than the interval 1 s" futex1 -d 0.5
bad_input "invalid interval '0 s'" futex1 -i 0
bad_input "invalid warm-up '-1 s'" futex1 -w -1
bad_input "invalid warm-up '5x'" futex1 -w 5x
bad_input "invalid mode 'both'" futex1 -m both
bad_input "invalid mode 'fiber'" futex1 --sweep -m fiber
bad_input "invalid --max '0'" futex1 --sweep --max 0
bad_input "--max 5000 is more than 4096 tasks" futex1 --sweep --max 5000
bad_input "unknown option '--frob'" futex1 --frob
bad_input "option '-t' needs a value" futex1 -t
bad_input "--csv is only for --sweep" futex1 --csv
bad_input "unexpected argument 'extra'" futex1 extra

# --db is main()'s for every command that uses the store (cmdutil.h): the
# same message for all, the last one given wins, '--db=PATH' is the same
# as '--db PATH', and nothing after '--' is taken for it
for cmd in run results compare report bisect import; do
	run_perfbot 10 "$cmd" --db ""
	if [ "$rc" -eq 2 ] && [ "$err" = "perfbot: $cmd: --db needs a path" ]; then
		ok "$cmd --db '': exit 2, one message"
	else
		not_ok "$cmd --db '': exit $rc"
		diag "$err"
	fi
	run_perfbot 10 "$cmd" --db
	if [ "$rc" -eq 2 ] && [ "$err" = "perfbot: $cmd: option '--db' needs a value" ]; then
		ok "$cmd --db: exit 2, one message"
	else
		not_ok "$cmd --db: exit $rc"
		diag "$err"
	fi
done
for form in "--db=$SANDBOX/db-eq.db" "--db $SANDBOX/other.db --db $SANDBOX/db-eq.db"; do
	# shellcheck disable=SC2086 # the form is two words or four
	run_perfbot 10 results $form
	if [ "$rc" -eq 1 ] && [ "$err" = "perfbot: results: no results yet at $SANDBOX/db-eq.db" ]; then
		ok "results $form: that store"
	else
		not_ok "results $form: exit $rc"
		diag "$err"
	fi
done
run_perfbot 10 stat -r 1 --db -- true
if [ "$rc" -eq 2 ] && echo "$err" | grep -q "unknown option '--db'"; then
	ok "stat does not use the store: --db is its usage error"
else
	not_ok "stat --db: exit $rc"
	diag "$err"
fi
check_nothing_left "bad input"
finish

#!/bin/bash
# Colour on terminals (issue 18, item 3): compare's verdicts in colour on a
# pseudo-terminal (red regression, green improvement, dim same), never in a
# pipe, off with NO_COLOR or --color=never, forced with --color=always;
# the table's text is the same with the codes stripped; --color=bogus is a
# usage error naming the value; an email is never coloured.
. "$(dirname "$0")/lib.sh"

db="$SANDBOX/results.db"
job=will-it-scale-1-process-futex1
# 5 runs each: worse is 20% lower (a regression of a higher-is-better
# *_ops stat), better 20% higher; the stat "same" does not move
mk() {
	printf '{"will-it-scale.per_process_ops": [%s], "will-it-scale.same_ops": [50, 51, 50, 49, 50]}\n' "$2" \
		> "$SANDBOX/$1.json"
	"$PERFBOT" import lkp-matrix "$SANDBOX/$1.json" --commit "$1" --job "$job" \
		--testbox box --db "$db" >/dev/null
}
mk base "1000, 1010, 990, 1005, 995"
mk worse "800, 808, 792, 804, 796"
mk better "1200, 1212, 1188, 1206, 1194"

red=$'\033[31m'
green=$'\033[32m'
dim=$'\033[2m'
esc=$'\033['
# CMD on a pseudo-terminal (script(1)), its output in $SANDBOX/pty without the CRs
on_pty() {
	TERM=xterm script -qec "$*" /dev/null < /dev/null | tr -d '\r' > "$SANDBOX/pty"
}
strip() { sed 's/\x1b\[[0-9;]*m//g' "$1"; }
cmp_args="compare --db $db base worse better --all"

on_pty env -u NO_COLOR "$PERFBOT" $cmp_args
check "pty: the regression in red" grep -qF "${red}changed  regression" "$SANDBOX/pty"
check "pty: the improvement in green" grep -qF "${green}changed  improvement" "$SANDBOX/pty"
check "pty: the unchanged stat dim" grep -qF "${dim}same" "$SANDBOX/pty"
check "pty: the %change cells coloured" grep -qF "${red}-20.0%" "$SANDBOX/pty"

env -u NO_COLOR TERM=xterm "$PERFBOT" $cmp_args > "$SANDBOX/pipe"
check "pipe: the verdicts, no code" bash -c \
	'grep -q regression "$1" && grep -q improvement "$1" && ! grep -qF "$2" "$1"' \
	_ "$SANDBOX/pipe" "$esc"
check "pty: the same text once the codes are stripped" \
	cmp -s <(strip "$SANDBOX/pty") "$SANDBOX/pipe"

on_pty env NO_COLOR=1 "$PERFBOT" $cmp_args
check "NO_COLOR=1 on a pty: no code" bash -c \
	'grep -q regression "$1" && ! grep -qF "$2" "$1"' _ "$SANDBOX/pty" "$esc"
on_pty env -u NO_COLOR TERM=dumb "$PERFBOT" $cmp_args
check "TERM=dumb on a pty: no code" bash -c \
	'grep -q regression "$1" && ! grep -qF "$2" "$1"' _ "$SANDBOX/pty" "$esc"
on_pty env -u NO_COLOR "$PERFBOT" $cmp_args --color=never
check "--color=never on a pty: no code" bash -c \
	'grep -q regression "$1" && ! grep -qF "$2" "$1"' _ "$SANDBOX/pty" "$esc"

NO_COLOR=1 "$PERFBOT" $cmp_args --color=always > "$SANDBOX/always"
check "--color=always in a pipe (NO_COLOR too): coloured" bash -c \
	'grep -qF "$2changed  regression" "$1" && grep -qF "$3changed  improvement" "$1"' \
	_ "$SANDBOX/always" "$red" "$green"
check "--color=always: the same text once stripped" \
	cmp -s <(strip "$SANDBOX/always") "$SANDBOX/pipe"

"$PERFBOT" compare --db "$db" base worse --format perf-stat --color=always > "$SANDBOX/ps"
check "perf-stat format: the word and the verdict coloured" bash -c \
	'grep -qF "$2regression" "$1" && grep -qF "[$2changed" "$1"' _ "$SANDBOX/ps" "$red"

run_perfbot 10 compare --db "$db" base worse --color=bogus
check "--color=bogus: exit 2 naming the value" bash -c \
	'[ "$1" -eq 2 ] && grep -qF "invalid --color '"'"'bogus'"'"'" "$2"' _ "$rc" "$SANDBOX/err"
run_perfbot 10 report --db "$db" --format text base worse --color=bogus
check "report --color=bogus: exit 2" [ "$rc" -eq 2 ]

run_perfbot 20 report --db "$db" --format text --color=always base worse better
check "report --format text --color=always: coloured" bash -c \
	'[ "$1" -eq 0 ] && grep -qF "$3regression" "$2"' _ "$rc" "$SANDBOX/out" "$red"
for f in email json html; do
	run_perfbot 20 report --db "$db" --format "$f" --all --color=always base worse better
	check "report --format $f --color=always: never a code" bash -c \
		'[ "$1" -eq 0 ] && [ -s "$2" ] && ! grep -qF "$3" "$2"' _ "$rc" "$SANDBOX/out" "$esc"
done
for f in csv markdown; do
	run_perfbot 20 compare --db "$db" --format "$f" --all --color=always base worse better
	check "compare --format $f --color=always: never a code" bash -c \
		'[ "$1" -eq 0 ] && grep -q regression "$2" && ! grep -qF "$3" "$2"' _ "$rc" "$SANDBOX/out" "$esc"
done
run_perfbot 20 compare --db "$db" --json --color=always base worse
check "compare --json --color=always: never a code" bash -c \
	'[ "$1" -eq 0 ] && jq -e . "$2" >/dev/null && ! grep -qF "$3" "$2"' _ "$rc" "$SANDBOX/out" "$esc"

# perfbot stat's "Compared with" verdict: a variant 0.1 s slower is a
# changed time, red; in a pipe without --color, plain
run_perfbot 60 stat -r 5 --color=always --vs 'sleep 0.1' -- true
check "stat --color=always: the slower variant's verdict red" bash -c \
	'[ "$1" -eq 0 ] && grep -qF ": $3changed" "$2"' _ "$rc" "$SANDBOX/out" "$red"
run_perfbot 60 stat -r 5 --vs 'sleep 0.1' -- true
check "stat in a pipe: the verdict, no code" bash -c \
	'[ "$1" -eq 0 ] && grep -q ": changed" "$2" && ! grep -qF "$3" "$2"' _ "$rc" "$SANDBOX/out" "$esc"
run_perfbot 10 stat --color=bogus -- true
check "stat --color=bogus: exit 2 naming the value" bash -c \
	'[ "$1" -eq 2 ] && grep -qF "bogus" "$2"' _ "$rc" "$SANDBOX/err"
run_perfbot 10 history job --color=bogus --db "$db"
check "history --color=bogus: exit 2 naming the value" bash -c \
	'[ "$1" -eq 2 ] && grep -qF "bogus" "$2"' _ "$rc" "$SANDBOX/err"

check_nothing_left "colour"
finish

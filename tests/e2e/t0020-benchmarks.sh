#!/bin/bash
# The benchmark reference: docs/benchmarks.md is exactly what `perfbot help
# benchmarks --markdown` prints from the benchmarks' tables; the text form
# and every benchmark's --help come from the same tables.
. "$(dirname "$0")/lib.sh"

: "${PERFBOT_SRC:=$(cd "$(dirname "$0")/../.." && pwd)}"
DOC=$PERFBOT_SRC/docs/benchmarks.md

run_perfbot 10 help benchmarks --markdown
check "help benchmarks --markdown: exit 0" [ "$rc" -eq 0 ]
if diff -u "$DOC" "$SANDBOX/out" > "$SANDBOX/diff"; then
	ok "docs/benchmarks.md is the generated reference"
else
	not_ok "docs/benchmarks.md is not what 'perfbot help benchmarks --markdown' prints"
	diag "regenerate it: perfbot help benchmarks --markdown > docs/benchmarks.md"
	diag "$(head -40 "$SANDBOX/diff")"
fi

run_perfbot 10 help benchmarks
check "help benchmarks: exit 0" [ "$rc" -eq 0 ]
for b in will-it-scale hackbench netperf exec; do
	check "help benchmarks describes $b" grep -q "^$b: " "$SANDBOX/out"
done
# one row, two spellings: the job key beside its option
check "a row gives the job key and the option" grep -q '^    nr_threads, -g, --groups N|N%: task count' "$SANDBOX/out"
check "stats with unit, direction and KPI" grep -q '^    hackbench.throughput: KiB/s, higher better, KPI' "$SANDBOX/out"
check "the KPI by parameter" grep -q '^    will-it-scale.per_thread_ops: ops/s, higher better, KPI, mode: thread' "$SANDBOX/out"
run_perfbot 10 help benchmarks --frob
check "help benchmarks --frob: exit 2, named" bash -c \
	'[ "$2" -eq 2 ] && grep -q "unknown option .--frob." "$1"' _ "$SANDBOX/err" "$rc"
run_perfbot 10 help
check "help points at help benchmarks" grep -q "'perfbot help" "$SANDBOX/out"

# every option of a table is in its --help, with its default
run_perfbot 10 bench hackbench --help
check "hackbench --help: the defaults from the table" bash -c \
	'grep -q -- "--groups N|N%.*" "$1" && grep -q "(default 20; at most 4096)" "$1"' _ "$SANDBOX/out"
run_perfbot 10 bench netperf --help
check "netperf --help: the tests from the table" grep -q '^  SCTP_STREAM_MANY  as SCTP_STREAM' "$SANDBOX/out"
check_nothing_left "reference"
finish

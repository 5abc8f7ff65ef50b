#!/bin/bash
# Run one libFuzzer target; what `make check` (through CTest) and
# `make fuzz` call.  Everything written goes under WORK (the build
# directory): crash artifacts, new inputs, scratch files.  The source
# corpus is only read.
#
#   run.sh corpus BIN CORPUS WORK   every file of CORPUS once (regression)
#   run.sh check  BIN CORPUS WORK   fuzz FUZZ_SECONDS (20) from CORPUS,
#                                   new inputs in a fresh WORK/check/
#   run.sh fuzz   BIN CORPUS WORK   fuzz FUZZ_SECONDS (300), keeping new
#                                   inputs in WORK/corpus/ (kept across
#                                   runs, then minimised with -merge=1)
set -euo pipefail

mode=$1 bin=$2 corpus=$3 work=$4
mkdir -p "$work/artifacts" "$work/tmp"
# the targets' scratch files (fuzz_tmp.h) stay in the build directory
export TMPDIR=$work/tmp
# a crash, leak, timeout or OOM stops the run and saves the input here
flags=(-rss_limit_mb=2048 -timeout=10 -artifact_prefix="$work/artifacts/"
       -print_final_stats=1)

case $mode in
corpus)
	# regular files only: a stray directory would turn libFuzzer to
	# corpus-directory mode ("Not a directory")
	files=()
	while IFS= read -r -d '' f; do
		files+=("$f")
	done < <(find "$corpus" -maxdepth 1 -type f -print0 | sort -z)
	if [ ${#files[@]} -eq 0 ]; then
		echo "perfbot: no corpus files: $corpus" >&2
		exit 1
	fi
	# files as arguments: each runs once, and a failure names its file
	exec "$bin" "${flags[@]}" "${files[@]}"
	;;
check)
	seconds=${FUZZ_SECONDS:-20}
	rm -rf "$work/check"
	mkdir -p "$work/check"
	# new inputs go to the first directory, never into the source tree
	exec "$bin" "${flags[@]}" -max_total_time="$seconds" \
		"$work/check" "$corpus"
	;;
fuzz)
	seconds=${FUZZ_SECONDS:-300}
	mkdir -p "$work/corpus"
	"$bin" "${flags[@]}" -max_total_time="$seconds" "$work/corpus" "$corpus"
	# keep only inputs adding coverage beyond the rest
	rm -rf "$work/corpus.merge"
	mkdir -p "$work/corpus.merge"
	"$bin" "${flags[@]}" -merge=1 "$work/corpus.merge" "$work/corpus" \
		2>"$work/merge.log" || { cat "$work/merge.log" >&2; exit 1; }
	rm -rf "$work/corpus"
	mv "$work/corpus.merge" "$work/corpus"
	echo "perfbot: $(ls "$work/corpus" | wc -l) inputs in $work/corpus"
	;;
*)
	echo "usage: run.sh corpus|check|fuzz BIN CORPUS WORK" >&2
	exit 2
	;;
esac

# catalogue.sh - sourced by t01*-catalogue-*.sh with SHARD and SHARDS set:
# every visible test of the catalogue, in both modes with 1 and 2 tasks,
# runs ~0.3 s and yields ops/s > 0, or says "unsupported: <reason>" and
# exits 77.  Afterwards nothing of the runs is left.  A shard that found
# no test to run fails: a listing it could not read is not a pass.
. "$(dirname "$0")/lib.sh"

tests=$("$PERFBOT" bench | awk 'NR > 1 && NF == 0 { exit } NR > 1 { print $1 }')
i=0
ran=0
for t in $tests; do
	i=$((i + 1))
	[ $((i % SHARDS)) -eq "$SHARD" ] || continue
	ran=$((ran + 1))
	for mode in process thread; do
		for n in 1 2; do
			what="$t -m $mode -t $n"
			run_perfbot 30 bench "$t" -m "$mode" -t "$n" -w 0 -d 0.3 -i 0.1 --json
			if [ "$rc" -eq 77 ]; then
				if echo "$err" | grep -q "unsupported: ."; then
					ok "$what # SKIP $(echo "$err" | sed 's/.*unsupported: //')"
				else
					not_ok "$what: exit 77 without a reason"
				fi
				continue
			fi
			workload=$(echo "$out" | sed -n 's/^  "workload": \([0-9.e+]*\),$/\1/p')
			if [ "$rc" -eq 0 ] && echo "$out" | grep -q '"status": "complete"' &&
			   awk -v w="${workload:-0}" 'BEGIN { exit !(w > 0) }'; then
				ok "$what: $workload ops/s"
			else
				not_ok "$what: exit $rc, workload '${workload}'"
				diag "$err"
			fi
		done
	done
done
# every shard has its share of a catalogue of at least SHARDS tests
if [ "$ran" -gt 0 ] && [ "$i" -ge "$SHARDS" ]; then
	ok "shard $SHARD ran $ran of the $i tests listed"
else
	not_ok "shard $SHARD ran $ran tests of the $i 'perfbot bench' listed"
	diag "$("$PERFBOT" bench 2>&1 | head -5)"
fi
check_nothing_left "catalogue shard $SHARD"
finish

#!/bin/bash
# Upstream will-it-scale can hang at exit when a thread is cancelled inside
# malloc(); perfbot's stop (SIGKILL to the task group) must never hang.
. "$(dirname "$0")/lib.sh"

late=0
for i in $(seq 20); do
	run_perfbot 10 bench malloc1 -m thread -t 2 -w 0 -d 0.3 -i 0.1
	# 0.3 s of samples; 3 s leaves room for start-up on a loaded machine
	if [ "$rc" -ne 0 ] || [ "$(echo "$secs > 3" | bc)" -eq 1 ]; then
		late=$((late + 1))
		diag "run $i: exit $rc after $secs s"
	fi
done
check "malloc1 thread x2: 20 runs in a row all end on time ($late late)" [ "$late" -eq 0 ]
check_nothing_left "malloc1"
finish

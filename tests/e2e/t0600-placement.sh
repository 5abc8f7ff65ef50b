#!/bin/bash
# Tasks are bound round-robin to the CPUs; context_switch1's partner runs
# on its task's CPU, as upstream's does; --no-affinity binds nothing.
. "$(dirname "$0")/lib.sh"

ncpu=$(nproc)
all_cpus=$(awk '/Cpus_allowed_list/ { print $2 }' /proc/self/status)

# snapshot BG: "ppid tid cpus" of every thread of the bench's processes
# (perfbot's watchdog, docs/lifetime.md, is no task: it is left out).  A
# process gone while it is read -- the previous bench's watchdog still
# cleaning up on a loaded machine -- gives no row.
snapshot() {
	local ppid cpus comm
	for pid in $(sandbox_pids); do
		[ "$pid" = "$1" ] && continue
		comm=$(cat /proc/$pid/comm 2>/dev/null) || continue
		[ "$comm" = perfbot-watch ] && continue
		for tid in /proc/$pid/task/*; do
			ppid=$(awk '/^PPid/ { print $2 }' /proc/$pid/status 2>/dev/null)
			cpus=$(awk '/Cpus_allowed_list/ { print $2 }' "$tid/status" 2>/dev/null)
			[ -n "$ppid" ] && [ -n "$cpus" ] && echo "$ppid ${tid##*/} $cpus"
		done
	done
	return 0
}

# placements N ARGS...: the snapshot of a running bench once its N threads
# are all there (a loaded machine starts them late), or after 8 s
placements() {
	local want=$1 tries=0
	shift
	# the bench is stopped (SIGINT) once seen: a long run costs nothing,
	# and a loaded machine may take seconds to take the snapshots
	"$PERFBOT" bench "$@" -w 0 -d 120 -i 0.5 >/dev/null 2>&1 &
	bg=$!
	while [ $tries -lt 40 ]; do
		sleep 0.2
		snapshot $bg > "$SANDBOX/placements"
		[ "$(wc -l < "$SANDBOX/placements")" -ge "$want" ] && break
		tries=$((tries + 1))
	done
	# the tasks bind themselves as they start: let the last one settle
	sleep 0.3
	snapshot $bg > "$SANDBOX/placements"
	kill -INT $bg
	wait $bg
}

placements 5 context_switch1 -m process -t 2
# processes: leader (ppid = perfbot), 2 tasks (ppid = leader), 2 partners
# (ppid = their task).  Each partner shares its task's single CPU.
check "context_switch1 process: tasks on distinct CPUs, partners beside them" python3 -c '
import sys
rows = [l.split() for l in open(sys.argv[1])]
ncpu = int(sys.argv[2])
by_pid = {r[1]: r for r in rows}
tasks = [r for r in rows if r[0] in by_pid and by_pid[r[0]][0] not in by_pid]
partners = [r for r in rows if r[0] in {t[1] for t in tasks}]
assert len(tasks) == 2 and len(partners) == 2, rows
cpus = [t[2] for t in tasks]
assert all("-" not in c and "," not in c for c in cpus), cpus
assert len(set(cpus)) == min(2, ncpu), cpus
for p in partners:
    assert p[2] == by_pid[p[0]][2], (p, by_pid[p[0]])
' "$SANDBOX/placements" "$ncpu"

placements 3 context_switch1 -m thread -t 1
check "context_switch1 thread: the partner thread shares the task's CPU" python3 -c '
import sys
rows = [l.split() for l in open(sys.argv[1])]
cpus = [r[2] for r in rows]
# leader thread (unbound), task thread and partner thread (both bound)
bound = [c for c in cpus if c != sys.argv[2]]
assert len(rows) == 3 and len(bound) == 2 and bound[0] == bound[1], rows
' "$SANDBOX/placements" "$all_cpus"

placements 3 getppid1 -m process -t 2 --no-affinity
check "--no-affinity: no task is bound" python3 -c '
import sys
rows = [l.split() for l in open(sys.argv[1])]
assert len(rows) == 3 and all(r[2] == sys.argv[2] for r in rows), rows
' "$SANDBOX/placements" "$all_cpus"
check_nothing_left "placement"
finish

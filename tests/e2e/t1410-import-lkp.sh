#!/bin/bash
# perfbot import lkp-result (issue 18, item 1): an LKP result root made
# here in the layout docs/import.md documents (two commits, two parameter
# sets, two test boxes; job.yaml, stats.json, the commit's matrix.json)
# is stored with its parameters, testbox, kconfig, compiler, rootfs,
# machine and job text, named as perfbot job split names the same job, so
# compare and report work on it; a second import adds nothing; a broken
# run is refused with its file named and nothing stored.  And LKP's job
# files of several documents split as LKP would.
. "$(dirname "$0")/lib.sh"

db="$SANDBOX/results.db"
R="$SANDBOX/result"
A=1111111111111111111111111111111111111111
B=2222222222222222222222222222222222222222

# run BOX MODE COMMIT N OPS: one LKP run directory, with the job.yaml LKP
# writes (the job file's keys, job_origin, what queue, host file, defaults
# and scheduler add) and its stats.json
run() {
	local box=$1 mode=$2 commit=$3 n=$4 ops=$5
	local rr="/result/will-it-scale/performance-100%-$mode-futex3/$box/debian-12-x86_64-20240206.cgz/x86_64-rhel-8.3/gcc-12/$commit/$n"
	local dir="$R${rr#/result}" cpus=88 mem=64G brand="Intel(R) Xeon(R) CPU E5-2699 v4 @ 2.20GHz"
	if [ "$box" = lkp-icl-2sp2 ]; then
		cpus=128 mem=256G brand="Intel(R) Xeon(R) Platinum 8358 CPU @ 2.60GHz"
	fi
	mkdir -p "$dir"
	cat > "$dir/job.yaml" <<EOF
---

#! jobs/will-it-scale.yaml
suite: will-it-scale
testcase: will-it-scale
category: benchmark
nr_task: 100%
will-it-scale:
  mode: $mode
  test: futex3
job_origin: will-it-scale.yaml
arch: x86_64

#! queue options
queue: vip
testbox: $box-2
tbox_group: $box
commit: $commit
branch: linus/master

#! hosts/$box
model: Broadwell-EP
nr_node: 2
nr_cpu: $cpus
memory: $mem
brand: $brand
ucode: '0xb00002e'

#! include/category/benchmark
kmsg:
perf-profile:
  debug_mode: 0
cpufreq_governor: performance
rootfs: debian-12-x86_64-20240206.cgz
kconfig: x86_64-rhel-8.3
compiler: gcc-12
result_root: "$rr"
kernel: "/pkg/linux/x86_64-rhel-8.3/gcc-12/$commit/vmlinuz-6.8.0"
bootloader_append:
- root=/dev/ram0
- RESULT_ROOT=$rr
EOF
	printf '{\n  "will-it-scale.per_thread_ops": %s,\n  "will-it-scale.workload": %s,\n  "dmesg.boot_failures": 0,\n  "kmsg.timestamp": "x"\n}\n' \
		"$ops" "$((ops * 88))" > "$dir/stats.json"
}
# matrix DIR: the commit's matrix.json, as LKP's unite_to() writes it
matrix() {
	local dir=$1 ops=() srcs=()
	for s in "$dir"/*/stats.json; do
		ops+=("$(jq '."will-it-scale.per_thread_ops"' "$s")")
		srcs+=("\"$(jq -r . <<<"\"/result${s#$R}\"")\"")
	done
	local IFS=,
	printf '{"will-it-scale.per_thread_ops": [%s], "stats_source": [%s]}\n' "${ops[*]}" "${srcs[*]}" > "$dir/matrix.json"
}

n=0
for box in lkp-bdw-ep3 lkp-icl-2sp2; do
	for mode in thread process; do
		[ "$box" = lkp-icl-2sp2 ] && [ "$mode" = process ] && continue
		for i in 0 1 2; do
			run "$box" "$mode" "$A" "$i" "$((1000000 + i * 1000))"
			run "$box" "$mode" "$B" "$i" "$((1100000 + i * 1000))"
			n=$((n + 2))
		done
	done
done
for c in "$R"/will-it-scale/*/*/*/*/*/*; do matrix "$c"; done
# a run whose stats.json is gone: its column of the commit's matrix.json
icl="$R/will-it-scale/performance-100%-thread-futex3/lkp-icl-2sp2/debian-12-x86_64-20240206.cgz/x86_64-rhel-8.3/gcc-12"
rm "$icl/$B/1/stats.json"
diag "$n runs under $R"

# jq -e, quiet: check's condition
jqc() { jq -e "$@" >/dev/null; }
runs_now() { sqlite3 "$db" 'SELECT count(*) FROM runs' 2>/dev/null || echo 0; }

run_perfbot 30 import lkp-result "$R" --db "$db"
check "import the root: exit 0 ($err)" [ "$rc" -eq 0 ]
check "import the root: $n runs imported, none there before" \
	grep -qxF "$n runs imported, 0 already there, into $db" "$SANDBOX/out"
check "store holds $n runs" [ "$(runs_now)" -eq "$n" ]

# named as perfbot job split names perfbot's own job of the same parameters
run_perfbot 10 job split "$(dirname "$0")/../../jobs/will-it-scale.yaml" -s test=futex3 -s nr_task=100% -s mode=thread
own=$(sed -n 's/^--- # //p' "$SANDBOX/out")
check "job split's name of the same job: $own" [ "$own" = "will-it-scale-100%-thread-futex3" ]
run_perfbot 10 results --db "$db" --json
check "results: 3 groups at each commit, one of them on lkp-icl-2sp2" jqc --arg own "$own" '
	length == 6 and ([.[] | select(.commit == "'$A'")] | length) == 3 and
	([.[] | select(.testbox == "lkp-icl-2sp2")] | length) == 2 and
	([.[] | select(.job == $own)] | length) == 4 and
	all(.[]; .testcase == "will-it-scale" and .runs_complete == 3 and
		.kpi.name == "will-it-scale.per_thread_ops")' "$SANDBOX/out"

run_perfbot 10 results show 1 --db "$db" --json
check "a run: parameters, testbox, commit, kconfig, compiler, rootfs, machine" jqc --arg A "$A" '
	.params == {"mode": "process", "nr_task": "100%", "test": "futex3"} and
	.job == "will-it-scale-100%-process-futex3" and .testbox == "lkp-bdw-ep3" and
	.commit == $A and .status == "complete" and
	.env["job.kconfig"] == "x86_64-rhel-8.3" and .env["job.compiler"] == "gcc-12" and
	.env["job.rootfs"] == "debian-12-x86_64-20240206.cgz" and
	.env["job.cpufreq_governor"] == "performance" and .env["job.ucode"] == "0xb00002e" and
	.env.machine == "88 threads Intel(R) Xeon(R) CPU E5-2699 v4 @ 2.20GHz with 64G memory" and
	.env["lkp.testbox"] == "lkp-bdw-ep3-2" and .env.import_format == "lkp-result" and
	(.env["lkp.result_root"] | endswith("/" + $A + "/0")) and
	.stats["will-it-scale.per_thread_ops"] == 1000000 and
	.stats["will-it-scale.workload"] == 88000000 and (.stats | has("kmsg.timestamp") | not)' \
	"$SANDBOX/out"
check "a run: its job text is the job, without what LKP added" jqc '
	(.job_text | contains("testcase: will-it-scale\n") and contains("nr_task: 100%\n") and
	 contains("will-it-scale:\n  mode: process\n  test: futex3\n") and
	 contains("kconfig: x86_64-rhel-8.3")) and
	(.job_text | test("testbox|result_root|perf-profile|nr_cpu|bootloader") | not)' "$SANDBOX/out"
# the run without stats.json: its matrix column
mrun=
for i in $(seq 1 "$n"); do
	"$PERFBOT" results show "$i" --db "$db" --json |
		jq -e --arg d "$icl/$B/1" '.env.imported_from == $d' >/dev/null && mrun=$i
done
run_perfbot 10 results show "$mrun" --db "$db" --json
check "the run without stats.json has its matrix column's stats" jqc '
	.stats == {"will-it-scale.per_thread_ops": 1101000} and .testbox == "lkp-icl-2sp2"' "$SANDBOX/out"

# compare and report, as on perfbot's own runs
run_perfbot 30 compare "$A" "$B" --db "$db"
check "compare: exit 0 ($err)" [ "$rc" -eq 0 ]
check "compare: the KPI's change, +10%, on each job" bash -c \
	'[ "$(grep -c "+10\.[0-9]%.*will-it-scale.per_thread_ops" "$1")" -eq 3 ]' _ "$SANDBOX/out"
check "compare: the two boxes apart" bash -c \
	'grep -q lkp-icl-2sp2 "$1" && grep -q lkp-bdw-ep3 "$1"' _ "$SANDBOX/out"
run_perfbot 30 report --format email "$A" "$B" --db "$db"
check "report: exit 0 ($err)" [ "$rc" -eq 0 ]
check "report: the test machine line from the host file" \
	grep -qF "test machine: 88 threads Intel(R) Xeon(R) CPU E5-2699 v4 @ 2.20GHz with 64G memory" "$SANDBOX/out"
check "report: the parameters, with kconfig, compiler and rootfs" bash -c '
	for l in "nr_task: 100%" "test: futex3" "kconfig: x86_64-rhel-8.3" "compiler: gcc-12" \
		 "rootfs: debian-12-x86_64-20240206.cgz" "cpufreq_governor: performance"; do
		grep -qP "^\t\Q$l\E$" "$1" || { echo "no $l"; exit 1; }
	done' _ "$SANDBOX/out"
check "report: seed 000's 'In addition to that' rows tell the boxes and parameters apart" bash -c '
	sed -n "/^In addition to that/,/^Details are as below/p" "$1" > "$1.add"
	grep -qF "| test machine     | 128 threads Intel(R) Xeon(R) Platinum 8358 CPU @ 2.60GHz with 256G memory |" "$1.add" &&
	grep -qF "| test machine     | 88 threads Intel(R) Xeon(R) CPU E5-2699 v4 @ 2.20GHz with 64G memory " "$1.add" &&
	[ "$(grep -c "|  *mode=thread  *|" "$1.add")" -eq 2 ] &&
	[ "$(grep -c "|  *kconfig=x86_64-rhel-8.3  *|" "$1.add")" -eq 2 ]' _ "$SANDBOX/out"
check "report: To reproduce, and the job file below it" bash -c '
	awk "/^To reproduce:/ {r=1} r && /^job.yaml:/ {j=1} j && /^will-it-scale:/ {w=1} END {exit !(r && j && w)}" "$1" &&
	grep -A12 "^job.yaml:" "$1" | grep -q "^  test: futex3$"' _ "$SANDBOX/out"

# the same result again: nothing added, whichever directory is given
run_perfbot 30 import lkp-result "$R/will-it-scale" "$icl/$A" --db "$db"
check "again: 0 imported, all there ($err)" bash -c \
	'[ "$2" -eq 0 ] && grep -qxF "0 runs imported, $3 already there, into $4" "$1"' \
	_ "$SANDBOX/out" "$rc" "$((n + 3))" "$db"
check "again: the store holds $n runs still" [ "$(runs_now)" -eq "$n" ]
# a copy elsewhere is the same result (LKP's result_root names it)
cp -r "$icl/$A/0" "$SANDBOX/copy0"
run_perfbot 30 import lkp-result "$SANDBOX/copy0" --db "$db"
check "a copy of a run: already there" grep -qxF "0 runs imported, 1 already there, into $db" "$SANDBOX/out"
run_perfbot 30 import lkp-result "$SANDBOX/copy0" --db "$db" --force
check "--force: imported again" [ "$(runs_now)" -eq $((n + 1)) ]
"$PERFBOT" results delete "$((n + 1))" --db "$db" --yes >/dev/null
run_perfbot 30 import lkp-result "$SANDBOX/copy0" "$icl/$A/0" --db "$db" --force
check "--force with a run found twice in one import: stored once" bash -c \
	'grep -qxF "1 run imported, 1 already there, into $2" "$1"' _ "$SANDBOX/out" "$db"
"$PERFBOT" results delete "$(sqlite3 "$db" "SELECT max(id) FROM runs")" --db "$db" --yes >/dev/null
before=$(runs_now)

# LKP's run states: an incomplete run and a failed one keep their status
mkdir -p "$SANDBOX/states"
for i in 0 1; do cp -r "$icl/$A/$i" "$SANDBOX/states/$i"; done
sed -i 's/"dmesg.boot_failures": 0/"last_state.is_incomplete_run": 1/' "$SANDBOX/states/0/stats.json"
sed -i 's/"dmesg.boot_failures": 0/"last_state.exit_fail": 1/' "$SANDBOX/states/1/stats.json"
run_perfbot 30 import lkp-result "$SANDBOX/states" --db "$SANDBOX/states.db" --force
run_perfbot 10 results show 1 --db "$SANDBOX/states.db" --json
check "last_state.is_incomplete_run 1: an incomplete run" jqc '.status == "incomplete" and
	.env["last_state.reason"] == "LKP: last_state.is_incomplete_run 1"' "$SANDBOX/out"
run_perfbot 10 results show 2 --db "$SANDBOX/states.db" --json
check "last_state.exit_fail 1: a failed run" jqc '.status == "failed"' "$SANDBOX/out"

# bad input: the file named, exit 1 (2: not an LKP result), nothing stored
bad() {
	local want=$1 msg=$2
	shift 2
	run_perfbot 30 import lkp-result "$@" --db "$db"
	if [ "$rc" -eq "$want" ] && grep -qF -- "$msg" "$SANDBOX/err" && [ ! -s "$SANDBOX/out" ] &&
	   [ "$(runs_now)" = "$before" ]; then
		ok "import lkp-result ${*##*/}: exit $want, '$msg', nothing stored"
	else
		not_ok "import lkp-result $*: exit $rc"
		diag "$err"
	fi
}
mkdir -p "$SANDBOX/broken"
cp -r "$icl" "$SANDBOX/broken/gcc-12"
printf '{\n  "will-it-scale.per_thread_ops": 1,\n  "a.b": [1 2]\n}\n' > "$SANDBOX/broken/gcc-12/$A/2/stats.json"
# a new run beside the broken one, that the import must not store either
run new-box thread "$A" 0 5 && mv "$R/will-it-scale/performance-100%-thread-futex3/new-box" "$SANDBOX/broken/new-box"
bad 1 "$SANDBOX/broken/gcc-12/$A/2/stats.json:3:13: " "$SANDBOX/broken"
cp "$icl/$A/2/stats.json" "$SANDBOX/broken/gcc-12/$A/2/stats.json"
printf 'testcase: will-it-scale\nnr_task: [1, 2]\n' > "$SANDBOX/broken/gcc-12/$A/1/job.yaml"
bad 1 "$SANDBOX/broken/gcc-12/$A/1/job.yaml:2:10: 'nr_task' is a list: an LKP run's job.yaml is one atomic job" "$SANDBOX/broken"
printf 'testcase: will-it-scale\nnr_task: [1, 2\n' > "$SANDBOX/broken/gcc-12/$A/1/job.yaml"
bad 1 "$SANDBOX/broken/gcc-12/$A/1/job.yaml:3:1: did not find expected ',' or ']'" "$SANDBOX/broken"
cp "$icl/$A/1/job.yaml" "$SANDBOX/broken/gcc-12/$A/1/job.yaml"
rm "$SANDBOX/broken/gcc-12/$A/1/stats.json" "$SANDBOX/broken/gcc-12/$A/matrix.json"
bad 1 "$SANDBOX/broken/gcc-12/$A/1 is not an LKP run: it has job.yaml but no stats.json (nor a matrix.json beside it" "$SANDBOX/broken"
mkdir -p "$SANDBOX/empty/x"
bad 2 "$SANDBOX/empty is not an LKP result: no job.yaml in it or in a directory under it" "$SANDBOX/empty"
bad 2 "$SANDBOX/nope: No such file or directory" "$SANDBOX/nope"
bad 2 "lkp-result takes the commit, job, parameters, testbox and machine from each run's job.yaml" "$R" --commit x
run_perfbot 10 import lkp-result "$SANDBOX/broken" --db "$SANDBOX/never.db"
check "a refused import creates no database" [ ! -e "$SANDBOX/never.db" ]

# LKP's job files of several documents: the first alone, then each later
# one over it (lkp-tests' jobs/ftq.yaml's shape), as lkp split-job gives them
cat > "$SANDBOX/multi.yaml" <<'EOF'
suite: will-it-scale
testcase: will-it-scale
runtime: 3s
nr_task: 1
will-it-scale:
  mode: process
  test: futex1

---
will-it-scale:
  mode: thread
  test: [futex1, futex2]

---
nr_task: 2
will-it-scale.test: getppid1
EOF
run_perfbot 10 job split "$SANDBOX/multi.yaml"
check "two-document split: exit 0 ($err)" [ "$rc" -eq 0 ]
check "two-document split: the first alone, then each later one over it" bash -c '
	[ "$(sed -n "s/^--- # //p" "$1" | tr "\n" " ")" = "will-it-scale-1-process-futex1 will-it-scale-1-thread-futex1 will-it-scale-1-thread-futex2 will-it-scale-2-process-getppid1 " ]' \
	_ "$SANDBOX/out"
check "two-document split: the merged job keeps the first document's keys" bash -c '
	awk "/^--- # will-it-scale-2-process-getppid1/ {p=1; next} p" "$1" | tr "\n" "|" |
	grep -qF "suite: will-it-scale|testcase: will-it-scale|runtime: 3s|nr_task: 2|will-it-scale:|  mode: process|  test: getppid1|"' \
	_ "$SANDBOX/out"
printf 'testcase: will-it-scale\nnr_task: 1\nwill-it-scale:\n  mode: process\n  test: futex1\n---\nwill-it-scale:\n  mode: thread\n  test: futx1\n' > "$SANDBOX/multi-bad.yaml"
run_perfbot 10 job split "$SANDBOX/multi-bad.yaml"
check "an error in the second document names its line: exit 2 ($err)" bash -c \
	'[ "$2" -eq 2 ] && grep -qF "multi-bad.yaml:9:9: invalid test '"'futx1'"'" "$1"' _ "$SANDBOX/err" "$rc"

check_nothing_left "import lkp-result"
finish

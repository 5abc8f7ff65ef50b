#!/bin/bash
# Kernel trees "exactly as userland ones" (issue 15, point 1), in a
# minute: perfbot bisect, compare --measure and watch on a repository
# that perfbot takes for a Linux kernel tree (Kbuild, Kconfig, a Makefile
# with VERSION and PATCHLEVEL, kernel/ mm/ init/), whose Makefile plays
# kbuild's part (tinyconfig, olddefconfig, bzImage: a file with a bzImage
# setup header that carries the tree's kernel/speed), booted by a
# stand-in QEMU that plays the guest (t2110's), running an exec job whose
# time_ms is 100 ms, or 115 on a "slow" kernel.  Commit c5 of c1..c8 makes
# the kernel slow; c3 does not build; c7's kernel panics at boot.  The real
# kernel, built and booted, is t2200's.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fake-kernel-lib.sh"

cd "$SANDBOX" || exit 1
SHM_BEFORE=$(shm_listing)

make_fake_kernel_tree
cat > job.yaml <<'YAML'
testcase: fake-kernel
timeout: 30s
monitors: []
exec:
  cmd: [sh, -c, 'printf "time_ms: %d.%03d ms\\n" "$FAKE_MS" "$(($(od -An -N2 -tu2 /dev/urandom) % 1000))"']
  parse: kv
kpi: fake-kernel.time_ms
kernel:
  config: tinyconfig
  boot: qemu
YAML
export PERFBOT_DB="$SANDBOX/r.db"

run_perfbot 600 bisect start --repo tree --good "${C[1]}" --bad "${C[8]}" job.yaml
diag "bisect: exit $rc in $secs s; $(grep -c 'building the kernel' "$SANDBOX/err") kernels built"
check "bisect on a kernel tree: exit 0, names c5" \
	bash -c '[ "$1" -eq 0 ] && grep -q "^first bad commit: $2 " "$3"' _ "$rc" "${C[5]}" "$SANDBOX/out"
[ "$rc" -eq 0 ] || diag "$(tail -20 "$SANDBOX/err")"
check "bisect: each commit's kernel built, then booted" grep -q "building the kernel of" "$SANDBOX/err"
run_perfbot 60 report --format email --bisect 1
check "the bisection's email: the kernel's parameters (kconfig, boot), the QEMU machine, how to reproduce" \
	bash -c 'grep -q "kconfig: x86_64-tinyconfig" <<<"$1" && grep -q "boot: qemu/" <<<"$1" &&
		 grep -q "^test machine: 2 threads QEMU/" <<<"$1" &&
		 grep -q "perfbot run --repo .* --commit $2 job.yaml" <<<"$1"' _ "$out" "${C[5]}"
"$PERFBOT" bisect log > bisect.log 2>&1
grep -q "${C[3]:0:12}" bisect.log &&
	check "bisect: c3, which does not build, skipped with the build's error" \
		grep -q "build ${C[3]:0:12}: failed: kernel build failed: make bzImage" bisect.log
grep -q "run ${C[7]:0:12}" bisect.log &&
	check "bisect: c7, whose kernel panics, skipped with the console's lines" \
		grep -q "run ${C[7]:0:12}: the benchmark failed.*Kernel panic" bisect.log

# run --repo: a kernel that does not build, one that panics: failed runs, stored, with why
run_perfbot 120 run --repo tree --commit "${C[3]}" -r 1 job.yaml
check "run: c3's kernel does not build: exit 1, the build's error" \
	bash -c '[ "$1" -eq 1 ] && grep -q "kernel build failed: make bzImage" <<<"$2"' _ "$rc" "$err"
run_perfbot 120 run --repo tree --commit "${C[7]}" -r 1 job.yaml
check "run: c7's kernel panics: exit 1" [ "$rc" -eq 1 ]
for c in 3 7; do
	"$PERFBOT" results --commit "${C[$c]}" --json > g.json
	id=$(python3 -c 'import json; g = json.load(open("g.json")); assert g[0]["runs_failed"] >= 1; print(g[0]["last_run_id"])') || id=0
	"$PERFBOT" results show "$id" --json > r$c.json 2>/dev/null
done
check "stored: c3 a failed run with last_state.kernel_build_failed and the build log's end" python3 -c '
import json
r = json.load(open("r3.json"))
assert r["status"] == "failed" and r["stats"].get("last_state.kernel_build_failed") == 1, r
assert "kernel/broken: error: planted" in r["env"]["last_state.reason"], r["env"]["last_state.reason"]
'
check "stored: c7 a failed boot with the console's lines and dmesg.boot_failures" python3 -c '
import json
r = json.load(open("r7.json"))
assert r["status"] == "failed" and r["stats"].get("dmesg.boot_failures") == 1, r
assert "Kernel panic - not syncing: planted" in r["env"]["last_state.reason"], r["env"]
'

run_perfbot 600 compare --measure --repo tree job.yaml "${C[4]}" "${C[5]}"
check "compare --measure on a kernel tree: changed +15%" \
	bash -c 'grep "fake-kernel.time_ms" <<<"$1" | grep -q "+1[0-9]\.[0-9]%"' _ "$out"
[ "$rc" -le 1 ] || diag "$err"

# a job without a kernel: section would measure the running kernel
grep -v -e '^kernel:' -e '^  config:' -e '^  boot:' job.yaml > nokernel.yaml
run_perfbot 60 compare --measure --repo tree nokernel.yaml "${C[4]}" "${C[5]}"
check "compare --measure: a kernel tree with a job without kernel: is refused (exit 2)" \
	bash -c '[ "$1" -eq 2 ] && grep -q "is a Linux kernel tree and the job" <<<"$2"' _ "$rc" "$err"
run_perfbot 60 bisect start --repo tree --good "${C[1]}" --bad "${C[8]}" --db "$SANDBOX/other.db" nokernel.yaml
check "bisect: ... refused too (exit 2)" \
	bash -c '[ "$1" -eq 2 ] && grep -q "is a Linux kernel tree and the job" <<<"$2"' _ "$rc" "$err"

# ---- the robot on a kernel tree ----
git clone -q tree watched
git -C watched update-ref refs/heads/main "${C[1]}"
cat > registry.yaml <<YAML
trees:
  - name: linux
    repo: watched
    branches: [main]
    jobs: [job.yaml]
    max_age: 3000d
report:
  outbox: outbox
  to: [author]
YAML
run_perfbot 900 watch --db "$SANDBOX/w.db" --once registry.yaml
check "watch pass 1 on a kernel tree: the baseline (exit $rc)" [ "$rc" -eq 0 ]
git -C watched update-ref refs/heads/main "${C[8]}"
run_perfbot 1200 watch --db "$SANDBOX/w.db" --once registry.yaml
check "watch pass 2: exit 0, one report" bash -c '[ "$1" -eq 0 ] && [ "$(ls outbox/new | wc -l)" -eq 1 ]' _ "$rc"
[ "$rc" -eq 0 ] || diag "$(grep -v ' run ' "$SANDBOX/err" | tail -20)"
mail=$(cat outbox/new/* 2>/dev/null)
check "the report names c5, the kconfig, the boot and how to reproduce" \
	bash -c 'grep -q "${2:0:10}" <<<"$1" && grep -q "kconfig: x86_64-tinyconfig" <<<"$1" &&
		 grep -q "boot: qemu/" <<<"$1" && grep -q -- "--commit $2" <<<"$1"' _ "$mail" "${C[5]}"

check "no worktree left but the kernel build's kept ones" bash -c '
for r in tree watched; do
	git -C "$r" worktree list --porcelain | awk "/^worktree /{print \$2}" | while read -r wt; do
		[ "$wt" = "$1/$r" ] && continue
		case $wt in "$2"/kernel/*/src) ;; *) echo "left: $wt"; exit 1 ;; esac
	done || exit 1
done' _ "$SANDBOX" "$PERFBOT_BUILD_CACHE"
check_nothing_left "kernel trees"
finish

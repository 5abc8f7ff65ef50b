#!/bin/bash
# Kernels under test, for real (issue 15): a kernel repository generated
# from Debian's linux-source-6.1 (tests/e2e/kernel-repo.sh: the release,
# then twelve commits, one of which plants a busy loop at the top of
# futex_wake(); one breaks the build, one panics in an initcall; a branch
# adds a WARN_ON_ONCE), and a will-it-scale futex1 job with a minimal
# kernel: section booted in QEMU (TCG here).
#   - perfbot bisect names exactly the planted commit;
#   - the commit that does not build is skipped, and perfbot run stores it
#     as a failed run with the build log's end;
#   - the commit whose kernel panics at boot is a failed run with the
#     console's lines, and skipped;
#   - the warning is dmesg.WARNING:... with fail:runs in perfbot compare
#     (compare --measure on the kernel tree), as in seed 001;
#   - the report names the kernel commit, kconfig, the boot and how to
#     reproduce;
#   - nothing is left: no QEMU, no temp file, no worktree but the kernel
#     build's kept one inside the build cache.
# Slow (a kernel built from scratch, then incrementally; ~15-20 minutes
# on 2 cores): RUN_SERIAL.  Skipped, with why, only where QEMU or the
# kernel source cannot be had at all.
. "$(dirname "$0")/lib.sh"

here=$(cd "$(dirname "$0")" && pwd)
skip() {
	echo "1..0 # SKIP $1"
	rm -rf "$SANDBOX" "$PERFBOT_SHMDIR"
	exit 0
}
command -v qemu-system-x86_64 >/dev/null ||
	skip "no qemu-system-x86_64 (scripts/install-deps.sh installs qemu-system-x86)"
qemu-system-x86_64 -version >/dev/null 2>&1 || skip "qemu-system-x86_64 does not run here"
[ -r /usr/src/linux-source-6.1.tar.xz ] ||
	skip "no /usr/src/linux-source-6.1.tar.xz (scripts/install-deps.sh installs linux-source-6.1)"
for tool in busybox make gcc flex bison bc; do
	command -v $tool >/dev/null || skip "no $tool (scripts/install-deps.sh installs it)"
done

cd "$SANDBOX" || exit 1
# ccache's files with the sandbox: a cold cache, as on a fresh machine
export CCACHE_DIR="$SANDBOX/ccache"
SHM_BEFORE=$(shm_listing)
t_start=$(date +%s)

bash "$here/kernel-repo.sh" "$SANDBOX/linux" >"$SANDBOX/repo.log" 2>&1
check "a kernel repository generated from linux-source-6.1 (12 commits and a branch)" \
	bash -c '[ "$(wc -l < kernel-commits)" -eq 14 ] && git -C linux rev-parse -q --verify warn >/dev/null'
sha() { awk -v n="$1" '$1 == n { print $2 }' "$SANDBOX/kernel-commits"; }
c0=$(sha c0) c3=$(sha c3) c5=$(sha c5) c6=$(sha c6) c8=$(sha c8) c12=$(sha c12) w=$(sha warn)
diag "repository made in $(( $(date +%s) - t_start )) s"

cat > job.yaml <<'EOF'
suite: will-it-scale
testcase: will-it-scale
runtime: 2s
nr_task: 1
will-it-scale:
  mode: process
  test: futex1
kernel:
  config: tinyconfig
  boot: qemu
EOF
export PERFBOT_DB="$SANDBOX/r.db"

# ---- the bisection ----
run_perfbot 3000 bisect start --repo linux --good "$c0" --bad "$c12" job.yaml
bisect_s=${secs%.*}
diag "bisect: exit $rc in $bisect_s s"
diag "$(grep -E '^(not )?confirmed|disturbed|suspect' "$SANDBOX/out")"
check "bisect: exit 0, a culprit named and confirmed against its parent" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || diag "$(tail -30 "$SANDBOX/err")"
check "bisect: the culprit is the planted commit ${c6:0:12}" \
	bash -c 'grep -q "first bad commit: ${1:0:12}\|^${1:0:12}\|${1:0:12}.*is the first bad" "$2"' _ "$c6" "$SANDBOX/out"
"$PERFBOT" bisect status --json > status.json 2>status.err
pycheck() {
	check "$1" python3 -c "
import json, sys
r = json.load(open('status.json'))
$2" "${@:3}"
}
pycheck "bisect status: culprit == the planted commit, kernels built counted" '
c6 = sys.argv[1]
assert r["culprit"]["sha"] == c6 if isinstance(r.get("culprit"), dict) else r["culprit"] == c6, r.get("culprit")
' "$c6"
python3 -c '
import json
r = json.load(open("status.json"))
print("# builds", r.get("builds"), "build_failures", r.get("build_failures"), "runs", r.get("runs"))
' 2>/dev/null
"$PERFBOT" bisect log > bisect.log 2>&1
diag "$(grep -E "build|skip|failed" bisect.log | head -20)"
# the build breaker and the panic: skipped with why when the search went there
if grep -q "${c3:0:12}" bisect.log; then
	check "bisect: the commit that does not build is skipped, with the build's error" \
		grep -q "build ${c3:0:12}: failed: kernel build failed" bisect.log
fi
if grep -q "run ${c8:0:12}" bisect.log; then
	check "bisect: the commit whose kernel panics is skipped, with the console's lines" \
		grep -q "run ${c8:0:12}: the benchmark failed.*Kernel panic" bisect.log
fi

# ---- a commit that does not build, a kernel that panics ----
run_perfbot 1200 run --repo linux --commit "$c3" job.yaml -r 1
check "run: a kernel that does not build: exit 1, the build's error and log" \
	bash -c '[ "$1" -eq 1 ] && grep -q "kernel build failed: make bzImage" "$2" &&
		 grep -q "first error: .*kernel/futex/requeue.c:[0-9]*:[0-9]*: error: " "$2"' \
	_ "$rc" "$SANDBOX/err"
"$PERFBOT" results --commit "$c3" --json > results.json
check "run: ... stored as a failed run (last_state.kernel_build_failed, and why)" python3 -c '
import json
g = json.load(open("results.json"))
assert len(g) == 1 and g[0]["runs_failed"] == 1 and g[0]["runs_complete"] == 0, g
'
id=$(python3 -c 'import json; print(json.load(open("results.json"))[0]["last_run_id"])')
"$PERFBOT" results show "$id" > unbuilt.txt 2>&1
check "run: the failed run says the build failed and where" \
	bash -c 'grep -q "last_state.kernel_build_failed" "$1" && grep -q "requeue.c:[0-9]*:[0-9]*: error: " "$1"' _ unbuilt.txt
run_perfbot 1200 run --repo linux --commit "$c8" job.yaml -r 1
check "run: a kernel that panics in an initcall: exit 1" [ "$rc" -eq 1 ]
"$PERFBOT" results --commit "$c8" --json > results.json
id=$(python3 -c 'import json; print(json.load(open("results.json"))[0]["last_run_id"])')
"$PERFBOT" results show "$id" > panic.txt 2>&1
check "run: the panic is a failed run: dmesg.boot_failures and the console's last lines" \
	bash -c 'grep -q "failed" "$1" && grep -q "dmesg.boot_failures" "$1" &&
		 grep -q "Kernel panic - not syncing: perfbot e2e: a planted panic" "$1"' _ panic.txt
diag "$(grep -E "status|reason|boot" panic.txt | head -5)"

# ---- a warning: compare --measure on the kernel tree ----
run_perfbot 2400 compare --measure --repo linux job.yaml "$c12" warn --runs 3 --max-runs 3
diag "compare --measure: exit $rc in ${secs%.*} s"
check "compare --measure on the kernel tree: both commits measured, a table" \
	bash -c '[ "$1" -le 1 ] && grep -q "will-it-scale.per_process_ops" <<<"$2"' _ "$rc" "$out"
check "the warning is dmesg.WARNING:...futex_wake with fail:runs 3:3 against 0:3, as seed 001's" \
	bash -c 'grep "dmesg.WARNING:at_kernel/futex/waitwake.c" <<<"$1" | grep "futex_wake" | grep -q "3:3"' \
	_ "$out"
echo "$out" | grep -E "dmesg|per_process_ops|commit" | sed 's/^/# /'

# ---- the report of the change ----
run_perfbot 120 report --format email --repo linux "$c5" "$c6"
check "report: names the kernel commit, kconfig, the boot and how to reproduce" \
	bash -c 'grep -q "${2:0:10}" <<<"$1" && grep -q "kconfig: x86_64-tinyconfig" <<<"$1" &&
		 grep -q "boot: qemu/" <<<"$1" && grep -q "perfbot run --repo .* --commit $2 job.yaml" <<<"$1"' \
	_ "$out" "$c6"
[ "$rc" -eq 0 ] || diag "$err"

# ---- nothing left ----
# By the executable, not by pgrep -f: a pattern naming qemu-system and the
# sandbox would match the shell that runs the check itself.
qemu_left() {
	local p exe
	for p in /proc/[0-9]*; do
		exe=$(readlink "$p/exe" 2>/dev/null) || continue
		case $exe in
		*qemu-system*) tr '\0' ' ' <"$p/cmdline" 2>/dev/null | grep -qF "$SANDBOX" && return 0 ;;
		esac
	done
	return 1
}
check "no QEMU process left" bash -c "$(declare -f qemu_left); SANDBOX=\$1; ! qemu_left" _ "$SANDBOX"
check "no worktree left but the kernel build's kept one in the build cache" bash -c '
git -C linux worktree list --porcelain | awk "/^worktree /{print \$2}" | while read -r wt; do
	[ "$wt" = "$1/linux" ] && continue
	case $wt in "$2"/kernel/*/src) ;; *) echo "left: $wt"; exit 1 ;; esac
done' _ "$SANDBOX" "$PERFBOT_BUILD_CACHE"
check_nothing_left "kernel e2e"
diag "kernel e2e: $(( $(date +%s) - t_start )) s in all, the bisection $bisect_s s"
finish

#!/bin/bash
# A bisection across reboots (issue 15, point 4): boot: kexec on the fake
# kernel tree (fake-kernel-lib.sh), each run a kexec boot played by the
# test as t2120 plays them -- the "running release" file written, then
# `perfbot kexec resume` as the unit would at each boot: in the kernel
# under test it runs the job and stores the run; back in the default
# kernel it runs the bisection's continuation (`perfbot bisect resume`),
# which finds the run in the store and arranges the next boot, until the
# bisection names c5.  The job reads the release it runs under: "slow" in
# it makes time_ms 115 instead of 100.  c3 does not build (skipped without
# a boot); c7's kernel panics: played as a boot that came back in the
# default kernel, a failed run, and skipped -- not booted again.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fake-kernel-lib.sh"

cd "$SANDBOX" || exit 1
SHM_BEFORE=$(shm_listing)
make_fake_kernel_tree
diag "tree: ${C[*]:1}"

fake_kexec_commands
export PERFBOT_DB="$SANDBOX/r.db"
echo 6.1.0-default > osrelease

cat > job.yaml <<YAML
testcase: fake-kernel
timeout: 30s
monitors: []
exec:
  cmd: [sh, -c, 'case \$(cat $SANDBOX/osrelease) in *slow*) ms=115 ;; *) ms=100 ;; esac; printf "time_ms: %d.%03d ms\\\\n" "\$ms" "\$((\$(od -An -N2 -tu2 /dev/urandom) % 1000))"']
  parse: kv
kpi: fake-kernel.time_ms
kernel:
  config: tinyconfig
  boot: kexec
YAML

active() {
	"$PERFBOT" kexec status --json | python3 -c '
import json, sys
a = [b for b in json.load(sys.stdin) if b["state"] not in ("back", "failed")]
print(a[-1]["release"] if a else "")'
}
run_perfbot 300 bisect start --repo tree --good "${C[1]}" --bad "${C[8]}" job.yaml
check "bisect start: exit 0, reboots into the good commit's kernel" \
	bash -c '[ "$1" -eq 0 ] && grep -q "rebooting into 6.1.0-fast (${2:0:12}).*goes on after the boot" <<<"$3"' \
	_ "$rc" "${C[1]}" "$err"
check "bisect start: the unit installed, the kernel loaded, kexec'd" \
	bash -c 'grep -q "^kexec -l $1/kexec/[0-9]*/bzImage" cmds.log && grep -q "^systemctl kexec" cmds.log &&
		 [ -e "$1/systemd/perfbot-kexec.service" ]' _ "$SANDBOX"

# each boot: into the kernel under test (the unit's resume runs the job),
# then back into the default kernel (its resume goes on with the bisection)
boots=0 panics=0 result=
while [ "$boots" -lt 60 ]; do
	release=$(active)
	[ -n "$release" ] || break
	boots=$((boots + 1))
	if grep -q "panic" <<<"$release"; then
		# the kernel under test panicked: the machine came back in the default one
		panics=$((panics + 1))
		echo 6.1.0-default > osrelease
	else
		echo "$release" > osrelease
		timeout 120 "$PERFBOT" kexec resume >> resume.log 2>&1
		echo 6.1.0-default > osrelease
	fi
	timeout 300 "$PERFBOT" kexec resume >> resume.log 2>&1
done
diag "$boots boots, $panics of them panicked"
"$PERFBOT" bisect status --json > status.json 2>/dev/null
check "the bisection across $boots reboots names c5" python3 -c '
import json, sys
d = json.load(open("status.json"))
assert d["status"] == "found", d["status"]
assert d["culprit"]["sha"] == sys.argv[1], d["culprit"]
' "${C[5]}"
[ -s status.json ] && python3 -c '
import json; d = json.load(open("status.json")); print("# status", d["status"], "runs", d.get("runs"), "builds", d.get("builds"))'
check "the continuation ran: bisect resume after each boot's return" grep -q "going on with .*bisect resume" resume.log
"$PERFBOT" bisect log > bisect.log 2>&1
grep -q "${C[3]:0:12}" bisect.log &&
	check "c3 does not build: skipped without a boot" \
		bash -c '! grep -q "rebooting into [^ ]* (${1:0:12})" bisect.log && grep -q "build ${1:0:12}: failed" bisect.log' _ "${C[3]}"
if [ "$panics" -gt 0 ]; then
	check "c7's kernel panicked: a failed run, skipped, not booted again" \
		bash -c '[ "$(grep -c "rebooting into [^ ]* (${1:0:12})" bisect.log)" -eq 1 ] &&
			 grep -q "run ${1:0:12}: the benchmark failed: kexec boot" bisect.log' _ "${C[7]}"
fi
# a kernel that panics at boot: the machine comes back in the default
# kernel, the boot is a failed run -- and the commit is not booted again
play_boots() {
	boots=0
	while [ "$boots" -lt 20 ]; do
		release=$(active)
		[ -n "$release" ] || break
		boots=$((boots + 1))
		grep -q "panic" <<<"$release" || {
			echo "$release" > osrelease
			timeout 120 "$PERFBOT" kexec resume >> resume2.log 2>&1
		}
		echo 6.1.0-default > osrelease
		timeout 300 "$PERFBOT" kexec resume >> resume2.log 2>&1
	done
}
run_perfbot 300 bisect start --repo tree --good "${C[4]}" --bad "${C[7]}" job.yaml
play_boots
"$PERFBOT" bisect status --json > status2.json 2>/dev/null
"$PERFBOT" bisect log > bisect2.log 2>&1
check "a bad side whose kernel panics: booted once, the bisection fails naming the failed boot" \
	bash -c '[ "$(grep -c "rebooting into 6.1.0-slow-panic (${1:0:12})" bisect2.log)" -eq 1 ] &&
		 python3 -c "import json; d = json.load(open(\"status2.json\")); assert d[\"status\"] == \"failed\" and \"cannot be measured: kexec boot\" in d[\"message\"], d"' \
	_ "${C[7]}"
[ "$boots" -lt 20 ] || diag "still booting after 20 boots"
python3 -c 'import json; d = json.load(open("status2.json")); print("# status", d["status"], d.get("message"))' 2>/dev/null

check "no boot active, the unit and the kernels removed" \
	bash -c '[ -z "$('"$PERFBOT"' kexec status --json | python3 -c "import json,sys; print([b for b in json.load(sys.stdin) if b[\"state\"] not in (\"back\",\"failed\")] or \"\")")" ] &&
		 [ ! -e systemd/perfbot-kexec.service ] && [ -z "$(ls kexec | grep -v "^lock$")" ]'
[ -n "$(ls kexec | grep -v '^lock$')" ] && diag "left in kexec/: $(ls kexec)"
check_nothing_left "bisect over kexec"
finish

#!/bin/bash
# boot: kexec (issue 15, point 4) without rebooting: perfbot run --kernel
# with a kexec job installs the kernel and the unit, loads it and kexecs;
# the test plays each boot by writing the "running release" file
# (PERFBOT_OSRELEASE) and calling `perfbot kexec resume` as the unit
# would.  Fake kexec and systemctl log their argv.  Checked: the commands
# in order (daemon-reload, enable, kexec -l, systemctl kexec, systemctl
# reboot, disable, daemon-reload), the runs stored under the commit, a
# second resume runs nothing, the unit and the kernel removed at the end,
# a kexec that did not happen (the default release at boot) a failed run,
# a resume killed in the run (a crash) a failed run at the next boot.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fake-kernel-lib.sh"

cd "$SANDBOX" || exit 1

# a file with a bzImage setup header: "HdrS" at 0x202, the version at 0x200 + 0x20e's
python3 - <<'PY'
img = bytearray(0x400)
img[0x202:0x206] = b"HdrS"
img[0x20e:0x210] = (0x100).to_bytes(2, "little")
ver = b"6.1.0-kx (e2e@perfbot) #1 SMP"
img[0x300:0x300 + len(ver)] = ver
open("bzImage", "wb").write(img)
open("notakernel", "wb").write(b"hello\n")
PY

fake_kexec_commands
DB="$SANDBOX/results.db"
UNIT="$SANDBOX/systemd/perfbot-kexec.service"
boot() { echo "$1" > "$SANDBOX/osrelease"; }
log() { cat "$SANDBOX/cmds.log" 2>/dev/null; : > "$SANDBOX/cmds.log"; }
state() { "$PERFBOT" kexec status --json --db "$DB" | python3 -c 'import json,sys; print(json.load(sys.stdin)[-1]["state"])'; }
nruns() { "$PERFBOT" results --db "$DB" --json 2>/dev/null | python3 -c '
import json, sys
print(sum(g["runs_complete"] + g["runs_failed"] + g["runs_incomplete"] for g in json.load(sys.stdin)))' 2>/dev/null || echo 0; }
pycheck() {
	local what=$1 code=$2
	shift 2
	if out=$(python3 -c "$code" "$@" 2>&1); then ok "$what"; else not_ok "$what"; diag "$out"; fi
}

cat > job.yaml <<'YAML'
testcase: will-it-scale
runtime: 1s
nr_task: 1
monitors: []
will-it-scale:
  mode: process
  test: futex1
kernel:
  config: tinyconfig
  boot: kexec
  cmdline: mitigations=off
YAML
boot 6.1.0-default

# ---- the whole cycle ----
run_perfbot 60 run job.yaml --kernel bzImage --commit c0ffee1234567890 -r 2 --db "$DB"
check "run: exit 0 (got $rc: $err)" [ "$rc" -eq 0 ]
check "run: says it reboots into the release, and where to look" \
	grep -q "rebooting into 6.1.0-kx (c0ffee123456); the job runs after the boot (perfbot kexec status)" "$SANDBOX/err"
got=$(log)
want="systemctl daemon-reload
systemctl enable perfbot-kexec.service
kexec -l $SANDBOX/kexec/1/bzImage --append=
systemctl kexec"
check "run: installed, loaded, kexec'd, in that order" \
	[ "$(sed 's/--append=.*/--append=/' <<<"$got")" = "$want" ]
check "run: the job's cmdline in kexec's --append" grep -q -- "--append=.*mitigations=off" <<<"$got"
check "run: the unit resumes with this perfbot and database" \
	grep -qx "ExecStart=\"$PERFBOT\" --db \"$DB\" kexec resume" "$UNIT"
check "run: the unit is a oneshot after the network, wanted by multi-user.target" \
	bash -c 'grep -qx Type=oneshot "$1" && grep -qx After=network-online.target "$1" &&
		 grep -qx WantedBy=multi-user.target "$1"' _ "$UNIT"
check "run: no run yet, the boot is booting" [ "$(nruns)" = 0 -a "$(state)" = booting ]

boot 6.1.0-kx
run_perfbot 60 kexec resume --db "$DB"
check "resume in the new kernel: exit 0 (got $rc: $err)" [ "$rc" -eq 0 ]
check "resume: 2 runs stored, the reboot asked for" \
	bash -c '[ "$1" = 2 ] && [ "$2" = stored ] && [ "$3" = "systemctl reboot" ]' _ "$(nruns)" "$(state)" "$(log)"
"$PERFBOT" results show 1 --db "$DB" --json > run1.json 2>/dev/null
pycheck "the run: complete, under the commit, boot.method kexec and the release" '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "complete", r["status"]
assert r["commit"] == "c0ffee1234567890", r["commit"]
assert r["env"]["boot.method"] == "kexec", r["env"]
assert r["env"]["boot.release"] == "6.1.0-kx", r["env"]
assert r["stats"]["will-it-scale.per_process_ops"] > 0
' run1.json

run_perfbot 60 kexec resume --db "$DB"
check "resume again in it: no run twice, the reboot asked again" \
	bash -c '[ "$1" -eq 0 ] && [ "$2" = 2 ] && [ "$3" = "systemctl reboot" ]' _ "$rc" "$(nruns)" "$(log)"

boot 6.1.0-default
run_perfbot 60 kexec resume --db "$DB"
check "resume in the default kernel: exit 0, back" \
	bash -c '[ "$1" -eq 0 ] && [ "$2" = back ] && grep -q "back in the default kernel" <<<"$3"' \
	_ "$rc" "$(state)" "$out"
check "back: the unit disabled and removed" \
	bash -c '[ "$1" = "$2" ] && [ ! -e "$3" ]' _ "$(log)" \
	"systemctl disable perfbot-kexec.service
systemctl daemon-reload" "$UNIT"
check "back: nothing left in the kexec and systemd dirs" \
	bash -c '[ -z "$(ls -A kexec)$(ls -A systemd)" ]'
run_perfbot 60 kexec resume --db "$DB"
check "resume with nothing to do: exit 0, silent, no command" \
	bash -c '[ "$1" -eq 0 ] && [ -z "$2$3$4" ]' _ "$rc" "$out" "$err" "$(log)"

# ---- a kexec that did not happen ----
run_perfbot 60 run job.yaml --kernel bzImage --commit c0ffee1234567890 -r 1 --db "$DB"
check "second run: exit 0" [ "$rc" -eq 0 ]
log > /dev/null
run_perfbot 60 run job.yaml --kernel bzImage -r 1 --db "$DB"
check "a second boot while one is active: exit 2, names it" \
	bash -c '[ "$1" -eq 2 ] && grep -q "already has kexec boot 2" <<<"$2" && [ -z "$3" ]' \
	_ "$rc" "$err" "$(log)"
run_perfbot 60 kexec resume --db "$DB"
check "resume in the default release: exit 1, says the kexec did not happen" \
	bash -c '[ "$1" -eq 1 ] && grep -q "the kexec did not happen" <<<"$2"' _ "$rc" "$err"
"$PERFBOT" results show 3 --db "$DB" --json > run3.json 2>/dev/null
pycheck "the failed run: failed, dmesg.boot_failures 1, the reason" '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "failed", r["status"]
assert r["stats"].get("dmesg.boot_failures") == 1, r["stats"]
assert "runs 6.1.0-default, not 6.1.0-kx" in r["env"]["last_state.reason"], r["env"]
' run3.json
check "mismatch: failed, nothing left" \
	bash -c '[ "$1" = failed ] && [ -z "$(ls -A kexec)$(ls -A systemd)" ]' _ "$(state)"

# ---- the machine goes down during the run ----
sed 's/runtime: 1s/runtime: 60s/' job.yaml > long.yaml
run_perfbot 60 run long.yaml --kernel bzImage -r 1 --db "$DB"
check "long run: exit 0" [ "$rc" -eq 0 ]
boot 6.1.0-kx
"$PERFBOT" kexec resume --db "$DB" > resume.out 2>&1 &
pid=$!
for _ in $(seq 100); do [ "$(state)" = running ] && break; sleep 0.1; done
check "the job runs" [ "$(state)" = running ]
kill -KILL "$pid"
wait "$pid" 2>/dev/null
for _ in $(seq 50); do [ -z "$(sandbox_pids)" ] && break; sleep 0.1; done
boot 6.1.0-default
run_perfbot 60 kexec resume --db "$DB"
check "resume after the crash: exit 1, a failed run, uninstalled" \
	bash -c '[ "$1" -eq 1 ] && grep -q "crashed or rebooted during the run" <<<"$2" &&
		 [ "$3" = failed ] && [ -z "$(ls -A kexec)$(ls -A systemd)" ]' _ "$rc" "$err" "$(state)"

# ---- refused ----
sed 's/  test: futex1/  test: [futex1, futex2]/' job.yaml > two.yaml
run_perfbot 30 run two.yaml --kernel bzImage --db "$DB"
check "two atomic jobs: exit 2, says narrow with -s" \
	bash -c '[ "$1" -eq 2 ] && grep -q "narrow it with -s" <<<"$2"' _ "$rc" "$err"
run_perfbot 30 run job.yaml --kernel notakernel --db "$DB"
check "--kernel of no bzImage: exit 2, says kexec could not tell" \
	bash -c '[ "$1" -eq 2 ] && grep -q "no bzImage" <<<"$2"' _ "$rc" "$err"
run_perfbot 30 kexec frob --db "$DB"
check "kexec frob: exit 2" [ "$rc" -eq 2 ]
run_perfbot 30 kexec status --db "$DB"
check "status lists the three boots" bash -c '[ "$(wc -l <<<"$1")" -eq 3 ]' _ "$out"

check_nothing_left "kexec"
finish

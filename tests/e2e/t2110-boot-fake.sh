#!/bin/bash
# perfbot run --kernel (issue 15, point 3) against a stand-in QEMU: the
# host side of a boot -- the initramfs perfbot builds, QEMU's command
# line, the record framed on the guest's hvc0, the console's dmesg.*
# failure stats, a kernel that panics at boot stored as a failed run with
# its console lines -- without a kernel.  The stand-in does what the
# guest's /init does: it takes /job.yaml out of the initramfs and runs
# `perfbot guest-run` on it, its output into the record stream; and it
# writes a console, with a kernel WARNING when asked to.  A real boot is
# the kernel e2e's.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fake-kernel-lib.sh"

cd "$SANDBOX" || exit 1

# a file with a bzImage setup header: "HdrS" at 0x202, the version at 0x200 + 0x20e's
python3 - <<'PY'
for name, ver in (("bzImage-a", b"6.1.0-a (e2e@perfbot) #1 SMP"), ("bzImage-b", b"6.1.0-b (e2e@perfbot) #1 SMP")):
    img = bytearray(0x400)
    img[0x202:0x206] = b"HdrS"
    img[0x20e:0x210] = (0x100).to_bytes(2, "little")
    img[0x300:0x300 + len(ver)] = ver
    open(name, "wb").write(img)
PY

write_fake_qemu

cat > job.yaml <<'YAML'
testcase: will-it-scale
runtime: 1s
nr_task: 1
monitors: []
will-it-scale:
  mode: process
  test: futex1
YAML
DB="$SANDBOX/results.db"

run_perfbot 120 run job.yaml --kernel bzImage-a -r 2 --db "$DB"
check "bzImage-a: exit 0 (got $rc)" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || diag "$err"
run_perfbot 120 run job.yaml --kernel bzImage-b -r 2 --db "$DB"
check "bzImage-b: exit 0 (got $rc)" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || diag "$err"

"$PERFBOT" results show 1 --db "$DB" --json > run1.json 2>/dev/null
"$PERFBOT" results show 3 --db "$DB" --json > run3.json 2>/dev/null
pycheck() {
	local what=$1 code=$2
	shift 2
	if out=$(python3 -c "$code" "$@" 2>&1); then ok "$what"; else not_ok "$what"; diag "$out"; fi
}
pycheck "a run through the kernel: complete, labelled with the image's release, boot.* recorded" '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "complete", r["status"]
assert r["commit"] == "6.1.0-a", r["commit"]
e = r["env"]
assert e["boot.method"] == "qemu" and e["boot.accel"] in ("kvm", "tcg"), e
assert e["boot.kernel"].endswith("bzImage-a"), e["boot.kernel"]
assert "QEMU/" in e["machine"], e["machine"]
assert "will-it-scale.per_process_ops" in r["stats"], sorted(r["stats"])[:20]
' run1.json
pycheck "the kernel's WARNING is a dmesg.* failure stat of the run" '
import json, sys
r = json.load(open(sys.argv[1]))
w = [k for k in r["stats"] if k.startswith("dmesg.WARNING")]
assert w and r["stats"][w[0]] >= 1, sorted(r["stats"])
assert not any(c.isdigit() and "0x" in k for k in w for c in k[-3:]), w
' run3.json
run_perfbot 60 compare 6.1.0-a 6.1.0-b --db "$DB" --all
check "compare: the dmesg.WARNING row with fail:runs, as seed 001's" \
	bash -c 'grep "dmesg.WARNING" <<<"$1" | grep -q "2:2"' _ "$out"

# a kernel that panics at boot: a failed run with the console's lines
cp bzImage-a bzImage-panic
run_perfbot 120 run job.yaml --kernel bzImage-panic -r 1 --commit panicky --db "$DB"
check "a panic at boot: exit 1 (a failed run, stored)" [ "$rc" -eq 1 ]
"$PERFBOT" results show 5 --db "$DB" --json > run5.json 2>/dev/null
pycheck "the failed boot: its reason quotes the console, dmesg.boot_failures and the panic counted" '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "failed", r["status"]
why = r["env"]["last_state.reason"]
assert why.startswith("boot failed") and "Kernel panic - not syncing" in why, why
assert r["stats"].get("dmesg.boot_failures") == 1, r["stats"]
assert any(k.startswith("dmesg.Kernel_panic") for k in r["stats"]), sorted(r["stats"])
' run5.json

# the job's kernel: section: its QEMU settings, and it needs a kernel to boot
cat job.yaml > kjob.yaml
printf 'kernel:\n  config: tinyconfig\n  qemu:\n    cpus: 1\n    memory: 512M\n' >> kjob.yaml
run_perfbot 30 run kjob.yaml --db "$DB"
check "a kernel: section without --repo or --kernel: exit 2, says what to give" \
	bash -c '[ "$1" -eq 2 ] && grep -q -- "give --repo" <<<"$2"' _ "$rc" "$err"
run_perfbot 120 run kjob.yaml --kernel bzImage-a -r 1 --db "$DB"
check "the kernel: section's qemu settings reach the boot (exit $rc)" bash -c '
	[ "$1" -eq 0 ] && "$2" results show 6 --db "$3" --json |
	python3 -c "import json,sys; e=json.load(sys.stdin)[\"env\"]; assert e[\"boot.memory_mb\"]==\"512\" and e[\"boot.cpus\"]==\"1\", e"' \
	_ "$rc" "$PERFBOT" "$DB"

# runs booted under KVM and under TCG never compare (nor with the host's)
for a in tcg kvm; do
	cat job.yaml > "$a.yaml"
	printf 'kernel:\n  config: tinyconfig\n  qemu:\n    accel: %s\n' "$a" >> "$a.yaml"
	run_perfbot 120 run "$a.yaml" --kernel bzImage-a -r 2 --commit "accel-$a" --db "$DB"
	check "accel: $a: exit 0 (got $rc)" [ "$rc" -eq 0 ]
done
run_perfbot 60 compare accel-tcg accel-kvm --db "$DB"
check "compare: runs booted with tcg and with kvm are never compared, said" \
	bash -c '[ "$1" -eq 1 ] && grep -q "booted with tcg on accel-tcg, booted with kvm on accel-kvm: never compared" <<<"$2"' \
	_ "$rc" "$err"
run_perfbot 120 run tcg.yaml --kernel bzImage-b -r 2 --commit accel-tcg2 --db "$DB"
run_perfbot 60 compare accel-tcg accel-tcg2 --db "$DB"
check "compare: two commits booted alike compare (exit $rc)" \
	bash -c '[ "$1" -le 1 ] && grep -q "will-it-scale.per_process_ops" <<<"$2"' _ "$rc" "$out"

run_perfbot 30 run job.yaml --kernel /nonexistent/bzImage --db "$DB"
check "--kernel of a missing file: exit 2, names it" \
	bash -c '[ "$1" -eq 2 ] && grep -q "/nonexistent/bzImage" <<<"$2"' _ "$rc" "$err"

check_nothing_left "run --kernel"
finish

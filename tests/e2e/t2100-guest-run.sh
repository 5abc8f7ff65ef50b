#!/bin/bash
# perfbot guest-run and guest-initramfs on the host (docs/kernel-guest.md):
# a will-it-scale futex1 job's run comes out as one frame; a decoder
# written from the documented format gets the JSON back, also with
# kernel lines interleaved, prefixed and a damaged line resent; the
# initramfs built for the job lists /init, /job.yaml, perfbot, ld-linux,
# libc; bad usage and missing files are named.
. "$(dirname "$0")/lib.sh"

cd "$SANDBOX" || exit 1

cat > job.yaml <<YAML
suite: will-it-scale
testcase: will-it-scale
runtime: 1s
nr_task: 1
will-it-scale:
  mode: process
  test: futex1
YAML

# The decoder: docs/kernel-guest.md's "Framing", nothing else.  Prints the
# payload; exit 1 with why when there is none.
cat > decode.py <<'PY'
import sys, zlib, base64
text = open(sys.argv[1], 'rb').read().decode('utf-8', 'replace')
crc = lambda b: '%08x' % zlib.crc32(b)
begin, chunks, bad = None, {}, 0
for line in text.split('\n'):
    line = line.rstrip('\r')
    i = line.rfind('PBF1 ')
    if i < 0:
        continue
    f = line[i + 5:].split(' ')
    if f[0] in ('BEGIN', 'END'):
        if crc(' '.join(f[:-1]).encode()) != f[-1]:
            bad += 1
        elif f[0] == 'BEGIN':
            begin = (int(f[1]), f[2])
        continue
    if len(f) != 3 or crc((f[0] + ' ' + f[2]).encode()) != f[1]:
        bad += 1
        continue
    chunks[int(f[0])] = base64.b64decode(f[2])
if begin is None:
    sys.exit('no BEGIN line')
n, want = begin
need = (n + 47) // 48
missing = [k for k in range(need) if k not in chunks]
if missing:
    sys.exit('chunks missing: %s (%d damaged lines)' % (missing, bad))
payload = b''.join(chunks[k] for k in range(need))
if len(payload) != n or crc(payload) != want:
    sys.exit('payload length or crc mismatch')
sys.stdout.buffer.write(payload)
PY

run_perfbot 120 guest-run job.yaml
check "guest-run exits 0 once the record is written" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || diag "$err"
cp "$SANDBOX/out" framed.txt
check "stdout is frame lines only: one BEGIN, one END" \
	bash -c '! grep -qv "^PBF1 " framed.txt && [ "$(grep -c "^PBF1 BEGIN " framed.txt)" = 1 ] && [ "$(grep -c "^PBF1 END " framed.txt)" = 1 ]'
check "stderr names the job and its status" \
	grep -q "guest-run: will-it-scale-1-process-futex1: complete, record of [0-9]* bytes written" "$SANDBOX/err"

python3 decode.py framed.txt > record.json 2>decode.err
check "the documented decoder gets the payload back" [ $? -eq 0 ]
[ -s decode.err ] && diag "$(cat decode.err)"
check "the payload is the run: schema, job, status, KPI, job text, meta" python3 -c '
import json, sys
r = json.load(open("record.json"))
assert r["schema"] == "perfbot-run" and r["version"] == 1, r.get("schema")
assert r["testcase"] == "will-it-scale", r["testcase"]
assert r["job"] == "will-it-scale-1-process-futex1", r["job"]
assert r["status"] == "complete", r["status"]
assert r["stats"]["will-it-scale.per_process_ops"] > 1000
assert r["params"]["nr_task"] == "1" and r["params"]["test"] == "futex1", r["params"]
assert "test: futex1" in r["job_text"]
assert any(m["name"] == "will-it-scale.per_process_ops" and m["kpi"] for m in r["meta"])
assert 0.5 < r["duration_s"] < 60, r["duration_s"]
'

# a console: kernel lines between the frame lines, printk prefixes, CRLF,
# one data line damaged by a kernel message and sent again after
python3 - <<'PY'
lines = open('framed.txt').read().split('\n')[:-1]
out = ['[    0.000000] Linux version 6.1.0 (gcc) #1 SMP']
for i, l in enumerate(lines):
    if i % 3 == 1:
        out.append('[    1.%06d] random: crng init done' % i)
    if i == 2:
        out.append(l[:25] + '[    2.0] WARNING: CPU: 0 PID: 1 at kernel/x.c:1 f+0x1/0x2')
        out.append(l[25:])
        continue
    out.append(('[    3.0] hvc0: ' if i % 4 == 0 else '') + l + '\r')
out.append(lines[2])
out.append('[    9.000000] reboot: Restarting system')
open('console.txt', 'w').write('\n'.join(out) + '\n')
PY
python3 decode.py console.txt > record2.json 2>decode.err
check "through an interleaved, damaged console: the same record" cmp -s record.json record2.json
[ -s decode.err ] && diag "$(cat decode.err)"

# bad usage: no job, two atomic jobs, a missing file
run_perfbot 10 guest-run
check "guest-run without a job: usage error 2" [ "$rc" -eq 2 ]
cat > two.yaml <<YAML
testcase: will-it-scale
runtime: 1s
nr_task: [1, 2]
will-it-scale:
  mode: process
  test: futex1
YAML
run_perfbot 10 guest-run two.yaml
check "a job of two atomic jobs: exit 2, says so" \
	bash -c '[ "$1" -eq 2 ] && grep -q "two.yaml: 2 atomic jobs; a guest runs one" "$2" && [ ! -s "$3" ]' _ "$rc" "$SANDBOX/err" "$SANDBOX/out"
run_perfbot 10 guest-run missing.yaml
check "a missing job file: exit 2" [ "$rc" -eq 2 ]

# the initramfs of the job
if [ -x /bin/busybox ] && ! ldd /bin/busybox >/dev/null 2>&1; then
	run_perfbot 60 guest-initramfs initrd.cpio job.yaml
	check "guest-initramfs writes the archive" [ "$rc" -eq 0 ]
	[ "$rc" -eq 0 ] || diag "$err"
	check "it lists /init, /job.yaml, perfbot, busybox, ld-linux, libc, /dev/console" python3 - "$PERFBOT" <<'PY'
import os, sys
b = open('initrd.cpio', 'rb').read()
o, ents = 0, {}
while True:
    assert b[o:o + 6] == b'070701', 'bad magic at %d' % o
    f = [int(b[o + 6 + 8 * i:o + 14 + 8 * i], 16) for i in range(13)]
    name = b[o + 110:o + 110 + f[11] - 1].decode()
    o = (o + 110 + f[11] + 3) & ~3
    if name == 'TRAILER!!!':
        break
    ents[name] = (f[1], f[6], f[9], f[10], b[o:o + f[6]])
    o = (o + f[6] + 3) & ~3
assert ents['init'][0] == 0o100755 and b'guest-run /job.yaml' in ents['init'][4]
assert b'test: futex1' in ents['job.yaml'][4]
assert ents['bin/perfbot'][1] == os.path.getsize(sys.argv[1])
assert ents['bin/busybox'][0] == 0o100755
assert ents['dev/console'][0] == 0o20600 and ents['dev/console'][2:4] == (5, 1)
assert ents['lib64/ld-linux-x86-64.so.2'][0] & 0o170000 == 0o100000
assert any(n.endswith('/libc.so.6') and e[1] > 100000 for n, e in ents.items())
assert any(n.endswith('/libjansson.so.4') for n in ents)
PY
	run_perfbot 10 guest-initramfs bad.cpio job.yaml --busybox "$SANDBOX/no-busybox"
	check "a missing busybox is named, exit 1, no archive" \
		bash -c '[ "$1" -eq 1 ] && grep -q "busybox $2/no-busybox: No such file" "$3" && [ ! -e bad.cpio ]' _ "$rc" "$SANDBOX" "$SANDBOX/err"
else
	ok "# SKIP the initramfs: no static /bin/busybox (Debian: busybox-static)"
fi

check_nothing_left "guest-run"
finish

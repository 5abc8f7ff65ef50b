#!/bin/bash
# bench/lkp-import/run.sh [RUNS] [STATS] - what perfbot import lkp-result
# costs (docs/import.md "lkp-result"): an LKP result root of RUNS runs
# (10 commits, RUNS/10 runs each, one test box) of STATS stats each is
# made in a temporary directory, imported into a fresh SQLite store, then
# imported again (every run there already).  Prints wall time, runs/s and
# the peak RSS of each.  Results: bench/RESULTS.md, "Issue 18: lkp-result".
set -eu
runs=${1:-1000}
stats=${2:-1000}
perfbot=${PERFBOT:-$(cd "$(dirname "$0")/../.." && pwd)/build/perfbot}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 - "$tmp/result" "$runs" "$stats" <<'PY'
import json, os, random, sys
root, runs, stats = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
per = max(1, runs // 10)
random.seed(1)
for r in range(runs):
    commit = "%040x" % (r // per + 1)
    rr = "/result/will-it-scale/performance-100%%-thread-futex3/box/rootfs/kc/gcc-12/%s/%d" % (commit, r % per)
    d = root + rr[len("/result"):]
    os.makedirs(d)
    with open(d + "/job.yaml", "w") as f:
        f.write("suite: will-it-scale\ntestcase: will-it-scale\nnr_task: 100%%\n"
                "will-it-scale:\n  mode: thread\n  test: futex3\njob_origin: w.yaml\n"
                "tbox_group: box\ncommit: %s\nnr_cpu: 88\nmemory: 64G\nbrand: cpu\n"
                "kconfig: kc\ncompiler: gcc-12\nrootfs: rootfs\nresult_root: %s\n" % (commit, rr))
    s = {"will-it-scale.per_thread_ops": 1e6 + random.random()}
    for i in range(stats - 1):
        s["perf-stat.s%d" % i] = random.random() * 1e6
    with open(d + "/stats.json", "w") as f:
        json.dump(s, f)
PY
for what in first again; do
	/usr/bin/time -f "%e %M" -o "$tmp/time" "$perfbot" import lkp-result "$tmp/result" \
		--db "$tmp/db" > "$tmp/out"
	read -r secs rss < "$tmp/time"
	printf '%-6s %5d runs x %5d stats: %6.2f s, %7.0f runs/s, max RSS %d MiB: %s\n' \
		"$what" "$runs" "$stats" "$secs" "$(echo "$runs / $secs" | bc -l)" \
		"$((rss / 1024))" "$(cat "$tmp/out")"
done

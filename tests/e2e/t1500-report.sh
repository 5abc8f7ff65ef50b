#!/bin/bash
# perfbot report: seed 001's numbers (imported as LKP matrix.json) as
# text, as an email that parses and can be sent, and as JSON.
. "$(dirname "$0")/lib.sh"

db="$SANDBOX/results.db"
base=b121b341e5983bdc
new=492e639f0c222784e2e0f121966
job=will-it-scale-100%-thread-malloc1
echo '{"will-it-scale.per_thread_ops": [6105969, 6100001, 6111002, 6104000]}' > "$SANDBOX/b.json"
echo '{"will-it-scale.per_thread_ops": [6265564, 6260000, 6270100, 6266000]}' > "$SANDBOX/n.json"
echo '{"will-it-scale.per_process_ops": [1000, 1001, 999, 1000]}' > "$SANDBOX/pb.json"
echo '{"will-it-scale.per_process_ops": [1050, 1051, 1049, 1050]}' > "$SANDBOX/pn.json"
for x in "b $base $job" "n $new $job" "pb $base wis-50%-process-futex3" "pn $new wis-50%-process-futex3"; do
	set -- $x
	"$PERFBOT" import lkp-matrix "$SANDBOX/$1.json" --commit "$2" --job "$3" \
		--testbox lkp-box --testcase will-it-scale --db "$db" >/dev/null
done

run_perfbot 10 help
check "help lists report" grep -q '^   report ' "$SANDBOX/out"

run_perfbot 10 report --db "$db" --format text $base $new
check "text: exit 0" [ "$rc" -eq 0 ]
check "text: the table" grep -qE '^ +6105243 +\+2\.6% +6265416 +will-it-scale\.per_thread_ops  improvement$' "$SANDBOX/out"
check "text: names the job" grep -qxF "job: $job" "$SANDBOX/out"

run_perfbot 10 report --db "$db" --format email --to dev@example.org \
	--reported-by "perfbot <perfbot@example.org>" --link https://example.org/1 $base $new
check "email: exit 0" [ "$rc" -eq 0 ]
check "email: parses, headers, subject" python3 - "$SANDBOX/out" <<'PY'
import email, sys
raw = open(sys.argv[1], 'rb').read()
assert b'\n\n' in raw
m = email.message_from_bytes(raw)
for h in ('From', 'To', 'Subject', 'Date', 'Message-ID'):
    assert m[h], h
# the headline is the largest significant change (per_process_ops +5.0%),
# not the first job in name order (per_thread_ops +2.6%)
assert m['Subject'] == '[perfbot] 492e639f0c: will-it-scale.per_process_ops +5.0% improvement', m['Subject']
email.utils.parsedate_to_datetime(m['Date'])
body = m.get_payload(decode=True).decode('utf-8')
assert 'perfbot noticed a 5.0% improvement of will-it-scale.per_process_ops on:' in body
assert 'Details are as below:' in body
assert 'will-it-scale.per_thread_ops  improvement' in body
assert 'In addition to that, the commit also has significant impact on the following tests:' in body
assert '| testcase: change | will-it-scale: will-it-scale.per_thread_ops 2.6% improvement' in body
assert '\ntest-url: https://github.com/antonblanchard/will-it-scale\n' in body
assert '\ntest-description: will-it-scale runs one operation' in body
# an improvement has nothing to fix: no "kindly add" block, the tags end it
assert 'kindly add following tags' not in body
assert body.endswith('\nReported-by: perfbot <perfbot@example.org>\nCloses: https://example.org/1\n'), body[-300:]
# no repository: the bare form
assert '\n        perfbot run job.yaml\n' in body and '--commit' not in body
assert all(len(l) <= 998 for l in raw.split(b'\n'))
PY

run_perfbot 10 report --db "$db" --format email --send \
	--sendmail "sh -c 'cat > $SANDBOX/sent'" $base $new
check "send: exit 0, nothing printed" bash -c '[ "$1" -eq 0 ] && [ ! -s "$2" ]' _ "$rc" "$SANDBOX/out"
check "send: the command got the message" grep -qF 'Subject: [perfbot] 492e639f0c:' "$SANDBOX/sent"
run_perfbot 10 report --db "$db" --format email --send --sendmail false $base $new
check "send: a failing sendmail exits 1" [ "$rc" -eq 1 ]

# ---- the seeds' email from a repository: a regression of a commit ----
repo="$SANDBOX/repo"
git init -q -b main "$repo" && cd "$repo" &&
	git config user.email dev@example.org && git config user.name Dev &&
	mkdir -p mm kernel/time && echo a > mm/slub.c && git add -A &&
	git commit -qm "Initial" && echo b >> mm/slub.c && git commit -qam "mm/slub: more work" &&
	echo c > kernel/time/a.c && echo d > kernel/time/b.c && git add -A &&
	git commit -qm "Move the timers" && cd - >/dev/null
g0=$(git -C "$repo" rev-parse HEAD~2) g1=$(git -C "$repo" rev-parse HEAD~1) g2=$(git -C "$repo" rev-parse HEAD)
rdb="$SANDBOX/repo.db"
echo '{"will-it-scale.per_thread_ops": [5800001, 5799000, 5801002, 5800000]}' > "$SANDBOX/r.json"
echo '{"will-it-scale.per_thread_ops": [6105969, 6100001, 6111002, 6104001]}' > "$SANDBOX/b2.json"
for x in "b $g0" "r $g1" "b2 $g2"; do
	set -- $x
	"$PERFBOT" import lkp-matrix "$SANDBOX/$1.json" --commit "$2" --job "$job" \
		--testbox lkp-box --testcase will-it-scale --db "$rdb" >/dev/null
done
printf 'P(first bad) 99.8%%, 40 runs on 5 of 9 commits\nconfirmed against its parent: -5.0%% [-5.1%%, -4.9%%], p=1e-9\n' \
	> "$SANDBOX/evidence"
run_perfbot 10 report --db "$rdb" --format email --repo "$repo" --branch demo:main \
	--reported-by "perfbot <perfbot@example.org>" --link https://example.org/2 \
	--evidence-file "$SANDBOX/evidence" $g0 $g1
check "email from a repository: exit 0" [ "$rc" -eq 0 ]
check "email from a repository: [branch] [subsystem], tags near the top, How sure, To reproduce with --repo/--commit" \
	python3 - "$SANDBOX/out" "$g0" "$g1" "$repo" <<'PY'
import email, sys
out, g0, g1, repo = sys.argv[1:]
m = email.message_from_bytes(open(out, 'rb').read())
assert m['Subject'] == '[demo:main] [mm/slub] %s: will-it-scale.per_thread_ops -5.0%% regression' % g1[:10], m['Subject']
body = m.get_payload(decode=True).decode('utf-8')
tags = ('\nIf you fix the issue in a separate patch/commit (i.e. not just a new version of\n'
        'the same patch/commit), kindly add following tags\n'
        '| Reported-by: perfbot <perfbot@example.org>\n| Closes: https://example.org/2\n')
assert tags in body, body
assert body.index('test machine: ') < body.index(tags) < body.index('Details are as below:')
assert ('\nHow sure:\n\nP(first bad) 99.8%, 40 runs on 5 of 9 commits\n'
        'confirmed against its parent: -5.0% [-5.1%, -4.9%], p=1e-9\n') in body, body
assert ('commit: %s ("mm/slub: more work")\n' % g1) in body
assert ('        perfbot run --repo %s --commit %s job.yaml\n' % (repo, g0)) in body
assert ('        perfbot run --repo %s --commit %s job.yaml\n' % (repo, g1)) in body
assert body.index('Details are as below:') < body.index('To reproduce:')
PY
run_perfbot 10 report --db "$rdb" --format email --repo "$repo" $g1 $g2
check "no subject prefix: the subsystem is the directory of the files the commit touches" \
	grep -qx "Subject: \[kernel/time\] ${g2:0:10}: will-it-scale.per_thread_ops +5.3% improvement" "$SANDBOX/out"
run_perfbot 10 report --db "$rdb" --format email --repo "$repo" --subsystem '' $g1 $g2
check "--subsystem '': none, [perfbot]" \
	grep -qx "Subject: \[perfbot\] ${g2:0:10}: will-it-scale.per_thread_ops +5.3% improvement" "$SANDBOX/out"
run_perfbot 10 report --db "$rdb" --format email --subsystem sched $g1 $g2
check "--subsystem NAME" grep -q "^Subject: \[sched\] ${g2:0:10}: " "$SANDBOX/out"
run_perfbot 10 report --db "$rdb" --format email --evidence-file "$SANDBOX/none" $g0 $g1
check "--evidence-file that is not there: exit 2, named" bash -c \
	'[ "$1" -eq 2 ] && grep -q "cannot read --evidence-file .*none" "$2" && [ ! -s "$3" ]' _ "$rc" "$SANDBOX/err" "$SANDBOX/out"
run_perfbot 10 report --db "$rdb" --format text --subsystem x $g0 $g1
check "--subsystem without --format email: exit 2" [ "$rc" -eq 2 ]

run_perfbot 10 report --db "$db" --format json $base $new
check "json: exit 0" [ "$rc" -eq 0 ]
check "json: documented fields (docs/report.md, version 3)" python3 - "$SANDBOX/out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r['schema'] == 'perfbot-compare' and r['version'] == 3
assert r['opts']['alpha'] == 0.05 and r['opts']['min_change'] == []
assert [c['id'] for c in r['commits']] == ['b121b341e5983bdc', '492e639f0c222784e2e0f121966']
assert {'subject', 'author', 'date'} <= set(r['commits'][0])
assert 'repo_url' in r and 'branch' in r
j = [j for j in r['jobs'] if j['job'] == 'will-it-scale-100%-thread-malloc1'][0]
assert j['kpi'] == 'will-it-scale.per_thread_ops' and j['runs'] == [4, 4]
row = [x for x in j['rows'] if x['name'] == j['kpi']][0]
assert row['family'] == 'kpi' and row['changed'] is True
v = row['vs'][0]
for k in ('pct', 'low', 'high', 'p', 'q', 'verdict', 'direction', 'fails', 'runs', 'summary'):
    assert k in v, k
assert 'stddev_pct' in v['summary'] and 'stddev_pct' in row['base']
assert row['kpi'] is True and row['better'] == 'higher' and j['unsupported'] == [None, None]
assert v['verdict'] == 'changed' and v['direction'] == 'improvement'
assert abs(v['pct'] - 2.6) < 0.05 and v['low'] < v['pct'] < v['high']
PY

run_perfbot 10 report --db "$db" --format json b121b341 $new
check "json: a commit as given and as stored" python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["commits"][0]
assert c["given"] == "b121b341" and c["id"] == "b121b341e5983bdc", c
' "$SANDBOX/out"

run_perfbot 10 report --db "$db" --format bogus $base $new
check "bad --format: exit 2" [ "$rc" -eq 2 ]
run_perfbot 10 report --db "$db" $base
check "one commit: exit 2" [ "$rc" -eq 2 ]

check_nothing_left "report"
finish

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
assert m['Subject'] == '[perfbot] 492e639f0c: will-it-scale.per_thread_ops +2.6% improvement', m['Subject']
email.utils.parsedate_to_datetime(m['Date'])
body = m.get_payload(decode=True).decode('utf-8')
assert 'perfbot noticed a 2.6% improvement of will-it-scale.per_thread_ops on:' in body
assert 'Details are as below:' in body
assert 'will-it-scale.per_thread_ops  improvement' in body
assert 'In addition to that, the commit also has significant impact on the following tests:' in body
assert '| testcase: change | will-it-scale: will-it-scale.per_process_ops 5.0% improvement' in body
assert 'Reported-by: perfbot <perfbot@example.org>' in body
assert 'Closes: https://example.org/1' in body
assert all(len(l) <= 998 for l in raw.split(b'\n'))
PY

run_perfbot 10 report --db "$db" --format email --send \
	--sendmail "sh -c 'cat > $SANDBOX/sent'" $base $new
check "send: exit 0, nothing printed" bash -c '[ "$1" -eq 0 ] && [ ! -s "$2" ]' _ "$rc" "$SANDBOX/out"
check "send: the command got the message" grep -qF 'Subject: [perfbot] 492e639f0c:' "$SANDBOX/sent"
run_perfbot 10 report --db "$db" --format email --send --sendmail false $base $new
check "send: a failing sendmail exits 1" [ "$rc" -eq 1 ]

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

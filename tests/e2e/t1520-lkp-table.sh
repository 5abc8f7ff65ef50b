#!/bin/bash
# perfbot compare beside LKP's compare: seeds 001 and 003's robot emails
# (/work/shared/seeds), as per-run matrix.json files whose means are the
# seeds' numbers (tests/fixtures/lkp-seeds), imported and compared.  The
# table must hold LKP's rows with LKP's number strings (%.2f below 1000,
# whole numbers truncated, %.4g above 1e8, the population "± N%",
# fail:runs columns, "-100%" without a sign) plus perfbot's verdicts.
#
# The seeds' lines are quoted from emails that indent the table by one
# blank (not the commit lines): the lines below are LKP's compare output,
# i.e. the seeds' without that blank.
. "$(dirname "$0")/lib.sh"

FIX=$(cd "$(dirname "$0")/../fixtures/lkp-seeds" && pwd)
# one store a job: -s selects by parameter, and imports have none
db="$SANDBOX/results.db"

imp() {	# FILE COMMIT JOB TESTCASE [DB]
	"$PERFBOT" import lkp-matrix "$FIX/$1" --commit "$2" --job "$3" \
		--testbox lkp-box --testcase "$4" --db "${5:-$db}" >/dev/null 2>"$SANDBOX/imp.err" ||
		{ cat "$SANDBOX/imp.err"; return 1; }
}

# has LINE: the output has a line starting with LINE, then perfbot's
# verdict column ("  " and the words); prints the rest for the caller.
verdict_of() {
	awk -v l="$1" 'index($0, l "  ") == 1 { print substr($0, length(l) + 3); f = 1 }
		END { exit !f }' "$SANDBOX/out"
}

# ---- seed 001: will-it-scale pthread_mutex2, 3 runs a side ----
b1=b121b341e5983bdc
n1=492e639f0c222784e2e0f121966
ok_imp=true
imp 001-base.json $b1 wis-100%-thread-pthread_mutex2 will-it-scale || ok_imp=false
imp 001-new.json $n1 wis-100%-thread-pthread_mutex2 will-it-scale || ok_imp=false
db_cs1="$SANDBOX/cs1.db"
imp 001-cs1-base.json $b1 wis-100%-thread-context_switch1 will-it-scale "$db_cs1" || ok_imp=false
imp 001-cs1-new.json $n1 wis-100%-thread-context_switch1 will-it-scale "$db_cs1" || ok_imp=false
check "setup: seed 001 imported" $ok_imp

run_perfbot 30 compare --db "$db" $b1 $n1
check "001: exit 0" [ "$rc" -eq 0 ]
check "001: LKP's commit line and rule" bash -c \
	'grep -qx "b121b341e5983bdc 492e639f0c222784e2e0f121966" "$1" &&
	 grep -qx -- "---------------- ---------------------------" "$1"' _ "$SANDBOX/out"
check "001: LKP's header and guides" bash -c \
	'grep -qx "         %stddev     %change         %stddev" "$1" &&
	 grep -qx "             \\\\          |                \\\\" "$1"' _ "$SANDBOX/out"
v=$(verdict_of '   6105969            +2.6%    6265564        will-it-scale.per_thread_ops')
check "001: per_thread_ops as LKP prints it, perfbot says improvement ($v)" \
	[ "$v" = improvement ]
v=$(verdict_of '      9855         +1196.5%     127775 ± 92%  will-it-scale.time.maximum_resident_set_size')
check "001: the RSS row with LKP's population ± 92%, shown although undecided ($v)" \
	bash -c '[[ "$1" =~ ^unknown( —\ [0-9]+\ more\ runs?)?$ ]]' _ "$v"
v=$(verdict_of ' 1.759e+09            +2.6%  1.804e+09        will-it-scale.workload')
check "001: workload in %.4g, shown, no direction word unless changed ($v)" \
	bash -c '[[ "$1" =~ ^(improvement|small|same)$ ]]' _ "$v"
check "001: 3 rows, as LKP's email" [ "$(grep -c 'will-it-scale\.' "$SANDBOX/out")" -eq 3 ]
check "001: no sample stddev (±113%) anywhere" bash -c '! grep -q "±113%" "$1"' _ "$SANDBOX/out"

run_perfbot 30 compare --db "$db_cs1" $b1 $n1
check "001 context_switch1: exit 0" [ "$rc" -eq 0 ]
check "001 context_switch1: LKP's fail:runs header and guides" bash -c \
	'grep -qx "       fail:runs  %reproduction    fail:runs" "$1" &&
	 grep -qx "           |             |             |" "$1"' _ "$SANDBOX/out"
for s in 'dmesg.WARNING:at#for_ip_swapgs_restore_regs_and_return_to_usermode/0x' \
	 'dmesg.WARNING:stack_recursion'; do
	v=$(verdict_of "          2:2         -100%            :2     $s")
	check "001 context_switch1: $s as 2:2  -100%  :2, 2 runs a side: few runs ($v)" \
		[ "$v" = "few runs" ]
done

run_perfbot 30 compare --db "$db" --json $b1 $n1
check "001 --json: version 3, more_runs, disturbed, the column's disturbance" python3 - "$SANDBOX/out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r['schema'] == 'perfbot-compare' and r['version'] == 3
j, = r['jobs']
d, = j['disturbance']
assert set(d) == {'differs', 'what', 'base', 'other', 'limit'} and d['differs'] is False
rows = {x['name']: x for x in j['rows']}
rss = rows['will-it-scale.time.maximum_resident_set_size']
v = rss['vs'][0]
assert v['verdict'] == 'unknown' and v['direction'] is None and v['words'].startswith('unknown')
assert isinstance(v['more_runs'], int) and v['disturbed'] is False
assert rss['shown'] is True and abs(rss['vs'][0]['summary']['stddev_pop_pct'] - 92.5) < 0.01
assert rows['will-it-scale.per_thread_ops']['vs'][0]['verdict'] == 'changed'
PY

# ---- seed 003: netperf SCTP_STREAM on base, culprit and tip ----
b3=57e95a5c4117dc6a
c3=7ee988770326fca440472200c3e
t3=8b3843ae3634b472530fb69c386
ok_imp=true
db="$SANDBOX/netperf.db"
imp 003-base.json $b3 netperf-SCTP_STREAM netperf || ok_imp=false
imp 003-culprit.json $c3 netperf-SCTP_STREAM netperf || ok_imp=false
imp 003-tip.json $t3 netperf-SCTP_STREAM netperf || ok_imp=false
imp 003-again.json again netperf-SCTP_STREAM netperf || ok_imp=false
check "setup: seed 003 imported" $ok_imp

run_perfbot 30 compare --db "$db" $b3 $c3 $t3
check "003: exit 0" [ "$rc" -eq 0 ]
check "003: LKP's three-commit lines" bash -c \
	'grep -qx "57e95a5c4117dc6a 7ee988770326fca440472200c3e 8b3843ae3634b472530fb69c386" "$1" &&
	 grep -qx -- "---------------- --------------------------- ---------------------------" "$1" &&
	 grep -qx "         %stddev     %change         %stddev     %change         %stddev" "$1" &&
	 grep -qx "             \\\\          |                \\\\          |                \\\\" "$1"' _ "$SANDBOX/out"
v=$(verdict_of '      4.10            -1.2%       4.05            -1.2%       4.05        netperf.Throughput_Mbps')
check "003: Throughput_Mbps, each column its own verdict ($v)" \
	[ "$v" = "regression  |  regression" ]
for l in '      4.10            -1.2%       4.05            -1.2%       4.05        netperf.ThroughputBoth_Mbps' \
	 '      1049            -1.2%       1037            -1.2%       1036        netperf.ThroughputBoth_total_Mbps' \
	 '      1049            -1.2%       1037            -1.2%       1036        netperf.Throughput_total_Mbps'; do
	v=$(verdict_of "$l")
	check "003: ${l##* } as LKP prints it, a verdict per column ($v)" \
		bash -c '[[ "$1" =~ ^[a-z]+( [a-z]+)?(\ \ \|\ \ [a-z]+( [a-z]+)?)$ ]]' _ "$v"
done
check "003: 1049.6 truncated to 1049, not rounded to 1050" bash -c '! grep -q " 1050 " "$1"' _ "$SANDBOX/out"

run_perfbot 30 report --db "$db" --format email $b3 $c3 $t3
check "003 email: names the culprit, not the tip" python3 - "$SANDBOX/out" "$rc" <<'PY'
import email, sys
assert sys.argv[2] == '0', sys.argv[2]
m = email.message_from_bytes(open(sys.argv[1], 'rb').read())
assert m['Subject'] == '[perfbot] 7ee9887703: netperf.Throughput_Mbps -1.2% regression', m['Subject']
body = m.get_payload(decode=True).decode()
assert 'commit: 7ee988770326fca440472200c3e\n' in body, body
assert 'later: 8b3843ae3634b472530fb69c386 -1.2% against the base: regression' in body
PY

# seed 003's subject, word for word, from the branch and subsystem the
# robot gives; its body's layout: the commit line then the URL and branch,
# netperf's test lines, LKP's tags block before the details
run_perfbot 30 report --db "$db" --format email --branch tip:timers/core --subsystem timers \
	--reported-by 'kernel test robot <oliver.sang@intel.com>' \
	--link https://lore.kernel.org/oe-lkp/202403011511.24defbbd-oliver.sang@intel.com $b3 $c3 $t3
check "003 email: the seed's subject, [branch] [subsystem], and its tags block" python3 - "$SANDBOX/out" "$rc" <<'PY'
import email, sys
assert sys.argv[2] == '0', sys.argv[2]
m = email.message_from_bytes(open(sys.argv[1], 'rb').read())
assert m['Subject'] == '[tip:timers/core] [timers] 7ee9887703: netperf.Throughput_Mbps -1.2% regression', m['Subject']
body = m.get_payload(decode=True).decode()
assert 'commit: 7ee988770326fca440472200c3e\ntimers/core\n' in body, body  # the branch of tree:branch
assert '\ntest-url: https://github.com/HewlettPackard/netperf\n' in body
block = ('If you fix the issue in a separate patch/commit (i.e. not just a new version of\n'
         'the same patch/commit), kindly add following tags\n'
         '| Reported-by: kernel test robot <oliver.sang@intel.com>\n'
         '| Closes: https://lore.kernel.org/oe-lkp/202403011511.24defbbd-oliver.sang@intel.com\n')
assert block in body and body.index(block) < body.index('Details are as below:'), body
PY

run_perfbot 30 report --db "$db" --format email $b3 again
check "no KPI changed: no email, says nothing to report, exit 0" bash -c \
	'[ "$1" -eq 0 ] && [ ! -s "$2" ] && grep -q "nothing to report" "$3"' _ "$rc" "$SANDBOX/out" "$SANDBOX/err"
run_perfbot 30 report --db "$db" --format email --send --sendmail "sh -c 'cat > $SANDBOX/sent'" $b3 again
check "no KPI changed: --send sends nothing" bash -c '[ "$1" -eq 0 ] && [ ! -e "$2" ]' _ "$rc" "$SANDBOX/sent"
run_perfbot 30 report --db "$db" --format email --all $b3 again
check "no KPI changed, --all: the email says no significant change" \
	grep -q '^Subject: \[perfbot\] again: no significant change$' "$SANDBOX/out"

check_nothing_left "lkp table"
finish

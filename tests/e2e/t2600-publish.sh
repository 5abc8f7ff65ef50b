#!/bin/bash
# perfbot publish (issue 17): the static site of a store with histories
# (with a bisection of the planted change, started by hand after the passes).
# A generated repository of 7 commits whose 5th plants a slowdown (as
# t2010) is pushed one commit at a time on main with a `perfbot watch
# --once` pass after each; a second branch, next, moves twice; the
# registry has two jobs (the planted one and a constant one) and
# `publish: watchsite`, so the robot republishes after each pass.  Then
# `perfbot publish site`: every page parses with balanced tags, every
# relative link and src resolves inside the site, nothing refers to
# http(s); every SVG has a text alternative; the planted job's series page
# has its change-point marker at the planted commit (data-sha); the
# alerts page names the culprit and links the bisection; the feed is XML
# with stable ids.  A second publish writes nothing; after one new run,
# only the pages that show it are rewritten and the run page it replaced
# is removed.  Usage errors (exit 2, nothing written).  With headless
# Chromium (tests/e2e/browser-lib.sh), the overview and the series page
# render to PNGs that are not blank and the DOM after the script ran holds
# the marker.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bisect-lib.sh"
. "$(dirname "$0")/pg-lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)

cd "$SANDBOX" || exit 1

N=7 SLOW=5
# half the default work a run: the 30% step stays far above the noise
BISECT_WORK_ITERS=30000000
make_bisect_repo src $N $SLOW || { echo "Bail out! cannot make the repository"; exit 1; }
set -- $BISECT_MAIN
C=("" "$@")	# C[1] .. C[7]
diag "planted ${C[$SLOW]} ($BISECT_PLANTED_SUBJECT)"

git clone -q src repo || { echo "Bail out! cannot clone"; exit 1; }
# next: two commits of its own off main's second
git -C repo checkout -q -b next "${C[2]}"
for k in 1 2; do
	echo "next $k" > repo/next.txt
	git -C repo add next.txt
	GIT_COMMITTER_DATE="2023-03-0${k}T12:00:00Z" git -C repo -c user.name=t -c user.email=t@t \
		commit -q --date "2023-03-0${k}T12:00:00Z" -m "next $k: a harmless change"
done
NEXT2=$(git -C repo rev-parse HEAD)
NEXT1=$(git -C repo rev-parse HEAD~1)
git -C repo checkout -q --detach

write_bisect_job job.yaml
cat > other.yaml <<'YAML'
testcase: other-demo
category: benchmark
repeat: 1
timeout: 30s
monitors: []
exec:
  cmd: [sh, -c, "echo 'ops: 100'"]
  parse: kv
kpi: other-demo.ops
YAML
cat > registry.yaml <<YAML
trees:
  - name: demo
    repo: repo
    branches: [main, next]
    jobs: [job.yaml, other.yaml]
    max_age: 3000d          # the generated commits are dated 2023
report:
  outbox: outbox
  publish: watchsite
YAML

DB="$SANDBOX/results.db"
start=$(date +%s)
passes_ok=1
for i in $(seq 1 $N); do
	git -C repo update-ref refs/heads/main "${C[$i]}"
	[ "$i" -eq 1 ] && git -C repo update-ref refs/heads/next "$NEXT1"
	[ "$i" -eq 4 ] && git -C repo update-ref refs/heads/next "$NEXT2"
	run_perfbot 300 watch --db "$DB" --once registry.yaml
	[ "$rc" -eq 0 ] || { passes_ok=0; diag "pass $i: exit $rc: $(tail -5 "$SANDBOX/err")"; }
done
diag "$N passes in $(( $(date +%s) - start )) s"
check "the robot's $N passes: exit 0" [ "$passes_ok" -eq 1 ]
check "watch republished after each pass (registry publish:)" \
	bash -c '[ -f watchsite/index.html ] && grep -c "published .*watchsite" "$1" >/dev/null' _ "$SANDBOX/err"

# a bisection of the planted change (the robot found it on a one-commit push: no bisection)
run_perfbot 300 bisect start --repo repo --good "${C[$((SLOW - 2))]}" --bad "${C[$N]}" --db "$DB" job.yaml
check "a bisection names the planted commit (exit $rc)" \
	bash -c '[ "$1" -eq 0 ] && grep -q "^first bad commit: $2" "$3"' _ "$rc" "${C[$SLOW]}" "$SANDBOX/out"
# ---- the site ----
t0=$(date +%s.%N)
run_perfbot 120 publish --db "$DB" --repo repo site
diag "publish: $out ($secs s)"
check "publish: exit 0 (got $rc: $err)" [ "$rc" -eq 0 ]
check "publish says what it wrote" bash -c 'grep -Eq "published site: 4 series, [0-9]+ alerts, [1-9][0-9]* bisections, [0-9]+ runs; [0-9]+ pages written, 0 kept, 0 removed" <<<"$1"' _ "$out"
# the robot published before the bisection: its site has the same series
# (their pages differ by the runs the bisection made at the points: a
# bisection judges its own runs only)
check "the robot's site has the same series pages" \
	bash -c 'cd site && ls series-*.html > ../a.list && cd ../watchsite && ls series-*.html > ../b.list && cd .. && [ -s a.list ] && cmp -s a.list b.list'

pycheck "every page parses with balanced tags, every link resolves inside the site, nothing external, every svg has a text alternative" '
import html.parser, os, re, sys
site = sys.argv[1]
VOID = {"meta", "link", "br", "input", "img", "hr", "circle", "line", "rect", "polyline", "path"}
pages = sorted(f for f in os.listdir(site) if f.endswith(".html"))
assert "index.html" in pages and "alerts.html" in pages and "machines.html" in pages, pages
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.refs, self.svgs, self.ids = [], [], [], set()
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for k in ("href", "src"):
            if k in a:
                self.refs.append(a[k])
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "svg":
            self.svgs.append([a.get("aria-label"), False])
        if tag not in VOID:
            self.stack.append(tag)
    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.stack.pop()
    def handle_endtag(self, tag):
        if tag in VOID:
            return
        assert self.stack and self.stack[-1] == tag, (self.stack[-4:], tag)
        self.stack.pop()
        if tag == "title" and "svg" in self.stack:
            self.svgs[-1][1] = True
for f in pages:
    text = open(os.path.join(site, f), encoding="utf-8").read()
    assert text.startswith("<!DOCTYPE html>"), f
    p = P()
    p.feed(text)
    p.close()
    assert p.stack == [], (f, p.stack)
    for r in p.refs:
        assert not re.match(r"^[a-z]+:", r) and not r.startswith("//") and not r.startswith("/"), (f, r)
        target = r.split("#")[0]
        if target:
            assert os.path.isfile(os.path.join(site, target)), (f, r)
    for u in re.findall(r"url\(([^)]*)\)", text):
        assert not re.search(r"https?:", u), (f, u)
    assert not re.search(r"(src|href)\s*=\s*[\"\x27]?\s*https?:", text), f
    assert "<script src" not in text, f
    for label, titled in p.svgs:
        assert label or titled, (f, "an svg without a text alternative")
    for ctl in re.findall(r"<(select|textarea)\b", text):
        raise AssertionError((f, "a control that is not a button or an input", ctl))
' site

pycheck "the overview: 4 series (2 jobs x 2 branches), each with a sparkline and a link to its page" '
import re, sys
text = open(sys.argv[1] + "/index.html", encoding="utf-8").read()
rows = re.findall(r"<tr><td>demo/(main|next)</td>.*?<a href=\"(series-[^\"]+\.html)\">([^<]+)</a>.*?</tr>", text, re.S)
assert sorted((b, j) for b, _, j in rows) == [("main", "bisect-demo"), ("main", "other-demo"), ("next", "bisect-demo"), ("next", "other-demo")], rows
assert text.count("<svg class=\"spark\"") == 4, text.count("<svg class=\"spark\"")
' site

# the series page of the planted job on main
SERIES=$(python3 -c '
import re, sys
t = open(sys.argv[1] + "/index.html").read()
print(re.search(r"<tr><td>demo/main</td>.*?<a href=\"(series-[^\"]+)\">bisect-demo</a>", t, re.S).group(1))' site)
diag "planted series page: $SERIES"
pycheck "the planted job: its series page: the change-point marker at the planted commit, with its state in words; tooltips name the commit and subject; every run in the table" '
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
planted, subject = sys.argv[2], sys.argv[3]
marks = re.findall(r"<line class=\"cp[^\"]*\"[^>]*data-sha=\"([0-9a-f]+)\" data-state=\"([^\"]+)\"", text)
assert [m for m in marks if m[0] == planted], (marks, planted)
state = [s for sha, s in marks if sha == planted][0]
assert state in ("reported", "found", "confirmed", "explained"), state
assert re.search(r"<text class=\"cpstate\"[^>]*>%s</text>" % state, text), state
assert re.search(r"<rect class=\"pt\"[^>]*><title>seq 5 %s %s" % (planted[:12], re.escape(subject.replace("&", "&amp;"))), text), "no tooltip"
assert "<script>" in text and "id=\"plot-controls\"" in text and "hidden" in text
assert "every run&#39;s value" in text or "every run\x27s value" in text
' "site/$SERIES" "${C[$SLOW]}" "$BISECT_PLANTED_SUBJECT"

pycheck "the alerts page: grouped by culprit, the group of the planted commit links its alert and bisection pages" '
import re, sys
text = open(sys.argv[1] + "/alerts.html", encoding="utf-8").read()
planted = sys.argv[2]
group = text.split("culprit <span class=\"name\">%s</span>" % planted[:12])
assert len(group) == 2, "no group of the planted commit"
g = group[1].split("<section>")[0]
assert re.search(r"href=\"alert-\d+\.html\"", g) and re.search(r"href=\"bisect-\d+\.html\"", g), g[:500]
assert re.search(r"state state-(reported|found|explained)\">", g), g[:500]
' site "${C[$SLOW]}"

pycheck "an alert page is its comparison (report_html) with the nav of the site; a bisection page names the culprit" '
import glob, re, sys
site, planted = sys.argv[1], sys.argv[2]
alerts = glob.glob(site + "/alert-*.html")
assert alerts
compared = [f for f in alerts if "bisect-demo.time_ms" in open(f).read() and "<nav" in open(f).read()]
assert compared, alerts
bis = glob.glob(site + "/bisect-*.html")
assert bis and any(planted[:12] in open(f).read() for f in bis), bis
' site "${C[$SLOW]}"

pycheck "the feed: Atom XML, an entry per confirmed/reported change, stable ids, links into the site" '
import os, sys, xml.etree.ElementTree as ET
site = sys.argv[1]
A = "{http://www.w3.org/2005/Atom}"
root = ET.parse(site + "/feed.xml").getroot()
assert root.tag == A + "feed", root.tag
entries = root.findall(A + "entry")
assert entries, "no entry"
for e in entries:
    i = e.find(A + "id").text
    assert i.startswith("urn:perfbot:") and ":alert:" in i, i
    href = e.find(A + "link").get("href")
    assert os.path.isfile(os.path.join(site, href)), href
    assert e.find(A + "updated").text.endswith("Z")
' site
cp site/feed.xml feed1.xml

# ---- incremental ----
run_perfbot 120 publish --db "$DB" --repo repo --list site
check "a second publish with nothing new writes nothing" \
	bash -c '[ "$1" -eq 0 ] && grep -q "0 pages written, [0-9]* kept, 0 removed" <<<"$2" && ! grep -q "^wrote" <<<"$2"' _ "$rc" "$out"
check "the feed's ids are stable" cmp -s feed1.xml site/feed.xml

# one new run of the constant job at main's head
OTHER=$(python3 -c '
import re, sys
t = open(sys.argv[1] + "/index.html").read()
print(re.search(r"<tr><td>demo/main</td>.*?<a href=\"(series-[^\"]+)\">other-demo</a>", t, re.S).group(1))' site)
run_perfbot 120 run other.yaml --db "$DB" --repo repo --commit "${C[$N]}"
check "one more run of other-demo at main's head (exit $rc)" [ "$rc" -eq 0 ]
run_perfbot 120 publish --db "$DB" --repo repo --list site
diag "after one run: $(tr '\n' ' ' <<<"$out")"
pycheck "after one new run only the pages that show it are rewritten, and the run page it replaced is removed" '
import re, sys
out, other = sys.argv[1], sys.argv[2]
wrote = re.findall(r"^wrote (\S+)$", out, re.M)
removed = re.findall(r"^removed (\S+)$", out, re.M)
assert other in wrote, (other, wrote)
assert not [w for w in wrote if w.startswith("series-") and w != other], wrote
assert not [w for w in wrote if w.startswith(("alert-", "bisect-"))], wrote
assert set(wrote) <= {other, "index.html", "machines.html"} | {w for w in wrote if re.match(r"run-\d+\.html$", w)}, wrote
new_runs = [w for w in wrote if w.startswith("run-")]
assert len(new_runs) == 1 and len(removed) == 1 and removed[0].startswith("run-"), (new_runs, removed)
m = re.search(r"(\d+) pages written, (\d+) kept, (\d+) removed", out)
assert int(m.group(1)) == len(wrote) and int(m.group(3)) == 1, out
' "$out" "$OTHER"
check "the removed run page is gone, the new one there" \
	bash -c 'for f in $(grep "^removed" <<<"$1" | cut -d" " -f2); do [ ! -e "site/$f" ] || exit 1; done; for f in $(grep "^wrote" <<<"$1" | cut -d" " -f2); do [ -f "site/$f" ] || exit 1; done' _ "$out"

# ---- usage errors: exit 2, nothing written ----
touch afile
mkdir -p notasite && echo mine > notasite/keep.txt
run_perfbot 30 publish --db "$DB" afile
check "DIR a file: exit 2 (got $rc: $err)" bash -c '[ "$1" -eq 2 ] && grep -q "afile" <<<"$2"' _ "$rc" "$err"
run_perfbot 30 publish --db "$DB" notasite
check "DIR not empty and no site: exit 2, nothing written (got $rc: $err)" \
	bash -c '[ "$1" -eq 2 ] && grep -q "not empty" <<<"$2" && [ "$(ls -A notasite)" = keep.txt ]' _ "$rc" "$err"
run_perfbot 30 publish --db "$DB" --job nosuchjob new1
check "an unknown --job: exit 2 naming it, nothing written" \
	bash -c '[ "$1" -eq 2 ] && grep -q "nosuchjob" <<<"$2" && [ ! -e new1 ]' _ "$rc" "$err"
run_perfbot 30 publish --db "$DB" --branch nosuch new2
check "an unknown --branch: exit 2 naming it" bash -c '[ "$1" -eq 2 ] && grep -q "nosuch" <<<"$2" && [ ! -e new2 ]' _ "$rc" "$err"
run_perfbot 30 publish --db "$DB" --since yesterday new3
check "a bad --since: exit 2 naming it" bash -c '[ "$1" -eq 2 ] && grep -q "yesterday" <<<"$2" && [ ! -e new3 ]' _ "$rc" "$err"
mkdir ro && chmod 555 ro
run_perfbot 30 publish --db "$DB" ro
if [ "$(id -u)" -ne 0 ]; then
	check "DIR not writable: exit 2 (got $rc: $err)" bash -c '[ "$1" -eq 2 ] && [ -z "$(ls -A ro)" ]' _ "$rc"
fi
chmod 755 ro
run_perfbot 60 publish --db "$DB" --branch demo/next --job other-demo small
check "filters: --branch TREE/B --job J: one series" \
	bash -c '[ "$1" -eq 0 ] && grep -q "published small: 1 series" <<<"$2"' _ "$rc" "$out"
check "no temp file left in the site" bash -c '! ls -A site small | grep -q "\.tmp"'

# ---- a real browser ----
if [ -f "$HERE/browser-lib.sh" ]; then
	. "$HERE/browser-lib.sh"
	if why=$(browser_available); then
		browser_screenshot site/index.html index.png 1000,800
		check "chromium renders the overview, not blank" python3 "$HERE/pngcheck.py" index.png
		browser_screenshot "site/$SERIES" series.png 1000,1400
		check "chromium renders the series page, not blank" python3 "$HERE/pngcheck.py" series.png
		browser_dom "site/$SERIES" dom.html
		pycheck "the DOM after the script ran: the marker at the planted commit, the controls shown" '
import re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
assert re.search(r"<line class=\"cp[^\"]*\"[^>]*data-sha=\"%s\"" % sys.argv[2], dom), "no marker"
assert re.search(r"<div id=\"plot-controls\"[^>]*>", dom) and not re.search(r"<div id=\"plot-controls\"[^>]*hidden", dom), "controls hidden: the script did not run"
assert "showing points" in dom, "the script did not draw"
' dom.html "${C[$SLOW]}"
		# the controls, driven as a user would: zoom in, relative to seq 1, log scale
		mkdir probe && cp site/*.html probe/
		python3 - "probe/$SERIES" <<'PY'
import sys
f = sys.argv[1]
probe = """<script>
document.querySelector('[data-act="in"]').click();
var r = document.getElementById('plot-ref'); r.value = '1'; r.dispatchEvent(new Event('change'));
document.getElementById('plot-log').click();
var vis = Array.prototype.filter.call(document.querySelectorAll('circle.run'), function (c) { return c.style.display !== 'none'; }).length;
document.body.setAttribute('data-probe', document.getElementById('plot-status').textContent + '|' + document.querySelector('.ylabel').textContent + '|' + vis + '|' + document.querySelectorAll('circle.run').length);
</script>
</body>"""
text = open(f).read()
open(f, "w").write(text.replace("</body>", probe))
PY
		browser_dom "probe/$SERIES" probe.html
		diag "probe: $(grep -o 'data-probe="[^"]*"' probe.html) (status $?)"
		pycheck "the script: zoom in shows fewer points, relative to a reference point, log scale" '
import re, sys
m = re.search(r"data-probe=\"showing points (\d+) to (\d+), relative to seq 1, log scale\|change against seq 1 of [^|]+ \(log scale\)\|(\d+)\|(\d+)\"", open(sys.argv[1]).read())
assert m, "no probe"
lo, hi, vis, runs = map(int, m.groups())
assert hi - lo + 1 < int(sys.argv[2]) and 0 < vis < runs, m.groups()
' probe.html "$N"
		check "htmlcheck.py: the whole site and the feed" python3 "$HERE/htmlcheck.py" --xml site/feed.xml site
	else
		diag "no browser checks: $why"
	fi
else
	diag "no browser checks: tests/e2e/browser-lib.sh is not there"
fi

check_nothing_left "publish"

# ---- PostgreSQL: the same site from the same store (bench/publish_bench makes both) ----
pg_e2e_start
GEN=$(dirname "$PERFBOT")/publish_bench
if [ -x "$GEN" ]; then
	"$GEN" "$PG_URL" 1000 && "$GEN" "$SANDBOX/sq.db" 1000
	check "publish_bench made a PostgreSQL and an SQLite store (exit $?)" [ $? -eq 0 ]
	run_perfbot 120 publish --db "$PG_URL" pgsite
	check "publish from PostgreSQL: exit 0 (got $rc: $err)" \
		bash -c '[ "$1" -eq 0 ] && grep -q "published pgsite: 20 series, 1 alerts" <<<"$2"' _ "$rc" "$out"
	run_perfbot 120 publish --db "$SANDBOX/sq.db" sqsite
	# the feed's times are when publish_bench wrote the alert, seconds apart
	check "the same site from PostgreSQL as from SQLite (but the feed's times)" \
		diff -r pgsite sqsite -I "<updated>"
	run_perfbot 120 publish --db "$PG_URL" pgsite
	check "PostgreSQL: a second publish writes nothing" grep -q " 0 pages written" "$SANDBOX/out"
else
	diag "no PostgreSQL checks: no $GEN"
fi
finish

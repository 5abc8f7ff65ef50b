#!/bin/bash
# perfbot's HTML pages through the checks issue 17 asks for (htmlcheck.py,
# headless Chromium with browser-lib.sh, pngcheck.py): a comparison
# (`report --format html` of two imported commits), a bisection (`report
# --bisect ID --format html` of a 6-commit bisection of a small planted
# slowdown) and a history (`history --format html` after 2 robot passes)
# parse, link inside their directory, reference nothing outside, meet the
# a11y basics; Chromium renders each to a PNG that is not blank and its DOM
# holds the plot's SVG; a page that references an external URL fetches
# nothing.  The checks can fail: a bad page, a blank PNG and a bad feed
# made here are refused with the reasons.  Without a Chromium that renders
# headless, the browser checks are skipped with the reason.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bisect-lib.sh"
. "$(dirname "$0")/browser-lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)

cd "$SANDBOX" || exit 1
start=$(date +%s)
site="$SANDBOX/site"
mkdir -p "$site"

# ---- the pages ----
# the comparison: seed 001's numbers, three runs a side
job=will-it-scale-100%-thread-malloc1
base=b121b341e5983bdc0123456789abcdef01234567
new=492e639f0c222784aaaabbbbccccddddeeeeffff
echo '{"will-it-scale.per_thread_ops": [6105869, 6105969, 6106069], "dmesg.WARNING:stack_recursion": [1, 1, 1]}' > base.json
echo '{"will-it-scale.per_thread_ops": [6265464, 6265564, 6265664]}' > new.json
for c in base new; do
	sha=$base
	[ "$c" = new ] && sha=$new
	run_perfbot 30 import lkp-matrix "$c.json" --commit "$sha" --job "$job" \
		--testbox lkp-box --db "$SANDBOX/cmp.db"
	check "import $c: exit 0" [ "$rc" -eq 0 ] || diag "$err"
done
run_perfbot 30 report --format html --db "$SANDBOX/cmp.db" "$base" "$new"
cp "$SANDBOX/out" "$site/compare.html"
check "report --format html: exit 0" [ "$rc" -eq 0 ] || diag "$err"

# the bisection: 6 commits, ~10 ms of work each (the page, not the
# bisection's accuracy, is under test here)
DB="$SANDBOX/results.db"
BISECT_WORK_ITERS=6000000
make_bisect_repo repo 6 4 || { echo "Bail out! cannot make the repository"; exit 1; }
write_bisect_job job.yaml
run_perfbot 120 bisect start --repo repo --good "$BISECT_GOOD" --bad "$BISECT_BAD" --db "$DB" job.yaml
diag "bisect start in $secs s"
check "bisect start: exit 0 (got $rc)" [ "$rc" -eq 0 ] || diag "$(tail -5 "$SANDBOX/err")"
bisect_status "$DB"
id=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["id"])' "$SANDBOX/status.json" 2>/dev/null)
run_perfbot 30 report --db "$DB" --bisect "${id:-1}" --format html
cp "$SANDBOX/out" "$site/bisect.html"
check "report --bisect $id --format html: exit 0" [ "$rc" -eq 0 ] || diag "$err"

# the history: the robot's passes over the first 2 commits (the second
# measures both again, interleaved: 2 points of 20 runs)
git clone -q repo wrepo || { echo "Bail out! cannot clone"; exit 1; }
cat > registry.yaml <<YAML
trees:
  - name: demo
    repo: wrepo
    branches: [main]
    jobs: [job.yaml]
    max_age: 3000d          # the generated commits are dated 2023
report:
  outbox: outbox
YAML
set -- $BISECT_MAIN
passes_ok=1
for c in "$1" "$2"; do
	git -C wrepo update-ref refs/heads/main "$c"
	run_perfbot 120 watch --db "$DB" --once registry.yaml
	diag "watch pass at $c in $secs s"
	[ "$rc" -eq 0 ] || { passes_ok=0; diag "watch at $c: exit $rc: $(tail -3 "$SANDBOX/err")"; }
done
check "2 robot passes: exit 0" [ "$passes_ok" -eq 1 ]
run_perfbot 30 history --db "$DB" bisect-demo --branch main --format html
cp "$SANDBOX/out" "$site/history.html"
check "history --format html: exit 0" [ "$rc" -eq 0 ] || diag "$err"

diag "the pages made in $(( $(date +%s) - start )) s"

# ---- htmlcheck ----
python3 "$HERE/htmlcheck.py" "$site" >"$SANDBOX/hc.out" 2>&1
hrc=$?
check "htmlcheck: perfbot's pages pass, silently (exit $hrc)" \
	bash -c '[ "$1" -eq 0 ] && [ ! -s "$2" ]' _ "$hrc" "$SANDBOX/hc.out" ||
	diag "$(head -20 "$SANDBOX/hc.out")"

# a page with one of each problem, each on its own line: every one named
# at its file:line, exit 1
mkdir -p bad/sub
cat > bad/index.html <<'HTML'
<!DOCTYPE html>
<html lang="en"><head><title>bad</title>
<link rel="stylesheet" href="https://cdn.example.com/x.css">
<style>body { background: url(//cdn.example.com/x.png) }</style>
</head><body>
<div><p>a div left open</p>
<svg viewBox="0 0 10 10"><rect width="5" height="5"/></svg>
<img src="sub/x.png">
<input id="q" type="text">
<span onclick="go()">click</span>
<a href="../elsewhere.html">out of the site</a>
<a href="sub/page.html#nope">no such id</a>
<a href="sub/gone.html">no such page</a>
<p>A URL as text is fine: https://example.com/</p>
<a href="sub/page.html#yes">fine</a>
</body></html>
HTML
printf '<!DOCTYPE html>\n<html><head><title>p</title></head><body><p id="yes">x</p></body></html>\n' > bad/sub/page.html
printf 'not a png' > bad/sub/x.png
python3 "$HERE/htmlcheck.py" bad >"$SANDBOX/hc.out" 2>&1
hrc=$?
check "htmlcheck: a bad page: exit 1 (got $hrc)" [ "$hrc" -eq 1 ]
pycheck "htmlcheck: each problem named at its line, nothing on the fine lines" '
import sys
got = {}
for l in open(sys.argv[1]).read().splitlines():
    f, line, what = l.split(":", 2)
    assert f == "bad/index.html", l
    got.setdefault(int(line), []).append(what)
want = {3: "external reference: https://cdn.example.com/x.css",
        4: "external reference: //cdn.example.com/x.png",
        6: "<div> not closed", 7: "<svg> without a text alternative",
        8: "<img> without alt", 9: "<input> without a label",
        10: "onclick on <span>", 11: "leaves the site root",
        12: "names no id \"nope\"", 13: "names no file: sub/gone.html"}
for line, text in want.items():
    assert any(text in w for w in got.get(line, [])), (line, text, got)
assert set(got) == set(want), sorted(set(got) - set(want))
' "$SANDBOX/hc.out"

# the feed check
printf '<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title></feed>\n' > good.xml
printf '<?xml version="1.0" encoding="utf-8"?>\n<feed>\n<entry></feed>\n' > bad.xml
check "htmlcheck --xml: a well-formed feed passes" python3 "$HERE/htmlcheck.py" --xml good.xml
python3 "$HERE/htmlcheck.py" --xml bad.xml >"$SANDBOX/hc.out" 2>&1
hrc=$?
check "htmlcheck --xml: a broken feed: exit 1, at its line (got $hrc)" \
	bash -c '[ "$1" -eq 1 ] && grep -q "^bad.xml:3: not well-formed" "$2"' _ "$hrc" "$SANDBOX/hc.out"

# ---- pngcheck on made pictures ----
# white 200x100 with one black row: under 1% ink, blank; the same with
# four colours over a quarter of it: not blank.  The rows cycle through
# the five filters, and the decoder must give back exactly these pixels.
pycheck "pngcheck: decodes every row filter (0-4) exactly" '
import struct, sys, zlib
sys.path.insert(0, sys.argv[1])
import pngcheck

def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c

def png(path, rows, w):
    raw, prev = b"", bytes(w * 3)
    for y, row in enumerate(rows):
        f = y % 5
        out = bytearray()
        for x, v in enumerate(row):
            a = row[x - 3] if x >= 3 else 0
            b = prev[x]
            c = prev[x - 3] if x >= 3 else 0
            out.append((v - (0, a, b, (a + b) // 2, paeth(a, b, c))[f]) & 255)
        raw += bytes([f]) + bytes(out)
        prev = row
    chunk = lambda k, d: struct.pack(">I", len(d)) + k + d + struct.pack(">I", zlib.crc32(k + d))
    data = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, len(rows), 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
    open(path, "wb").write(data)
    assert pngcheck.decode(data)[2] == rows, path

w, h = 200, 100
white, black = b"\xff" * 3 * w, b"\x00" * 3 * w
png("blank.png", [black if y == 50 else white for y in range(h)], w)
cols = [b"\xc0\x00\x00", b"\x00\x80\x00", b"\x00\x00\xc0", b"\x20\x20\x20"]
ink = b"".join(cols[(x // 10) % 4] if x < 100 else b"\xff\xff\xff" for x in range(w))
png("ink.png", [ink if y < 50 else white for y in range(h)], w)
' "$HERE"
python3 "$HERE/pngcheck.py" blank.png >"$SANDBOX/pc.out" 2>&1
prc=$?
check "pngcheck: a blank picture: exit 1, says why (got $prc)" \
	bash -c '[ "$1" -eq 1 ] && grep -q "blank (200x100)" "$2"' _ "$prc" "$SANDBOX/pc.out" ||
	diag "$(cat "$SANDBOX/pc.out")"
check "pngcheck: a picture with ink passes" python3 "$HERE/pngcheck.py" ink.png
python3 "$HERE/pngcheck.py" ink.png --min-colours 6 >"$SANDBOX/pc.out" 2>&1
prc=$?
check "pngcheck --min-colours 6: its 5 colours are too few (got $prc)" \
	bash -c '[ "$1" -eq 1 ] && grep -q "5 distinct colours" "$2"' _ "$prc" "$SANDBOX/pc.out"
head -c 100 ink.png > cut.png
python3 "$HERE/pngcheck.py" cut.png >"$SANDBOX/pc.out" 2>&1
prc=$?
check "pngcheck: a cut-off file: exit 1 (got $prc)" [ "$prc" -eq 1 ]

# ---- in the browser ----
t0=$(date +%s.%N)
browser_available >/dev/null
diag "browser_available in $(echo "$(date +%s.%N) - $t0" | bc) s"
if ! why=$(browser_available); then
	for p in compare bisect history; do
		ok "chromium: $p.html renders, not blank, its DOM holds the plot # SKIP $why"
	done
	ok "chromium: an external reference fetches nothing # SKIP $why"
	ok "chromium: no process left # SKIP $why"
else
	for p in compare bisect history; do
		t0=$(date +%s.%N)
		browser_render "$site/$p.html" "$p.png" "$p.dom.html"
		crc=$?
		diag "$p.html: chromium exit $crc in $(echo "$(date +%s.%N) - $t0" | bc) s"
		check "chromium: $p.html renders to a PNG and a DOM" [ "$crc" -eq 0 ] ||
			diag "$(grep -v dbus "$SANDBOX/browser.log" | tail -3)"
		check "pngcheck: $p.png is not blank" python3 "$HERE/pngcheck.py" "$p.png"
		case $p in
		compare) metric=will-it-scale.per_thread_ops ;;
		*) metric=bisect-demo.time_ms ;;
		esac
		pycheck "the DOM of $p.html holds the plot: an <svg> titled with $metric, with dots" '
import html.parser, sys
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.path, self.svgs, self.dots = [], [], 0
    def handle_starttag(self, tag, attrs):
        if tag == "svg":
            self.svgs.append("")
        if tag == "circle" and "svg" in self.path:
            self.dots += 1
        self.path.append(tag)
    def handle_endtag(self, tag):
        while self.path and self.path.pop() != tag:
            pass
    def handle_data(self, data):
        if self.path[-2:] == ["svg", "title"]:
            self.svgs[-1] += data
p = P()
p.feed(open(sys.argv[1], encoding="utf-8").read())
assert any(sys.argv[2] in t for t in p.svgs), p.svgs
assert p.dots >= 3, p.dots
' "$p.dom.html" "$metric"
	done

	# a page that would fetch from a listener on loopback and from a name:
	# the listener sees no connection
	python3 -c '
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(5)
print(s.getsockname()[1], flush=True)
s.settimeout(120)
try:
    c, _ = s.accept()
    print("connection", flush=True)
except OSError:
    pass
' > listener.out &
	lpid=$!
	for _ in $(seq 50); do [ -s listener.out ] && break; sleep 0.1; done
	port=$(head -1 listener.out)
	cat > net.html <<HTML
<!DOCTYPE html>
<html lang="en"><head><title>net</title></head><body><p id="p">page</p>
<img src="http://127.0.0.1:$port/x.png" alt="x"><img src="http://example.com/x.png" alt="y">
<script>fetch("http://127.0.0.1:$port/f").catch(function () {});</script>
</body></html>
HTML
	browser_dom net.html net.dom.html
	crc=$?
	sleep 0.5
	check "chromium: an external reference fetches nothing (exit $crc, port $port)" \
		bash -c '[ "$1" -eq 0 ] && grep -q "id=\"p\"" "$2" && ! grep -q connection "$3"' _ "$crc" net.dom.html listener.out
	kill "$lpid" 2>/dev/null
	wait "$lpid" 2>/dev/null
	left=$(browser_pids)
	check "chromium: no process left" [ -z "$left" ] || diag "$(ps -o pid,comm -p "$(echo $left | tr ' ' ,)")"
fi

diag "$(( $(date +%s) - start )) s in all"
check_nothing_left "html in the browser"
finish

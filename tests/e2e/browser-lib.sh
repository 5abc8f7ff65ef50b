# browser-lib.sh - headless Chromium for the e2e tests of perfbot's pages.
# Source it after lib.sh (it uses $SANDBOX).
#
# browser_available
#   0 when ${PERFBOT_CHROMIUM:-/usr/bin/chromium} renders a page headless
#   here; else prints why (one line) and returns 1, and the caller skips its
#   browser checks with that reason: ok "WHAT # SKIP $(browser_available)".
#   The answer is kept: later calls cost nothing.
# browser_screenshot FILE.html OUT.png [W,H]   (default 1200,2000)
# browser_dom FILE.html OUT.html                (the DOM after the page's
#                                                scripts ran: --dump-dom)
# browser_render FILE.html OUT.png OUT.html [W,H]
#   both from one Chromium start: a start costs 2-3 s on a quiet 2-core
#   machine and 5-10 s under a load of 15, the page itself a fraction.
# browser_pids: the test's Chromium processes still alive (none expected).
# Each returns Chromium's status (124/137 on its timeout) and leaves its
# messages in $SANDBOX/browser.log; the output file is there and not empty
# when the status is 0.
#
# Every start: as root, so --no-sandbox (Chromium's own sandbox refuses
# root); --headless --disable-gpu; none of Chromium's own connections
# (--disable-background-networking and friends: on a closed network they
# fail by the dozen, docs in /work/.library/env/machines/c.md); and no
# network for the page either: every host name resolves to nothing and
# every URL, loopback's too, goes to a proxy on a closed port, so a page
# that references http://anything cannot fetch it (t1530 checks this).
# A fresh profile, HOME and TMPDIR under $SANDBOX (removed afterwards: the
# sandbox's TMPDIR must stay empty for check_nothing_left), its own
# session under `timeout`, and afterwards its process group and every
# process that carries this start's environment marker are killed, so no
# Chromium process outlives the call (zygotes and crashpad included).

: "${PERFBOT_CHROMIUM:=/usr/bin/chromium}"
: "${BROWSER_TIMEOUT:=60}"
browser_reason=

browser_available() {
	if [ -z "$browser_reason" ]; then
		browser_reason=$(_browser_probe) || true
		[ -n "$browser_reason" ] || browser_reason=yes
	fi
	[ "$browser_reason" = yes ] && return 0
	echo "$browser_reason"
	return 1
}

# the reason it cannot render, or nothing when it can
_browser_probe() {
	if [ ! -x "$PERFBOT_CHROMIUM" ]; then
		echo "no Chromium at $PERFBOT_CHROMIUM (Debian: apt-get install chromium; scripts/install-deps.sh)"
		return
	fi
	local d="$SANDBOX/browser-probe" last
	mkdir -p "$d"
	printf '<!DOCTYPE html><title>probe</title><p id="p">static</p><script>document.getElementById("p").textContent = "scripted";</script>\n' > "$d/probe.html"
	if ! _browser_run "$d/probe.html" 30 --dump-dom >"$d/dom.html"; then
		last=$(grep -v -e dbus -e 'unexpected operator' "$SANDBOX/browser.log" | tail -1 | cut -c1-200)
		echo "$PERFBOT_CHROMIUM did not render a page headless (exit $browser_rc)${last:+: $last}"
	elif ! grep -q 'id="p">scripted<' "$d/dom.html"; then
		echo "$PERFBOT_CHROMIUM rendered no DOM headless: $(head -c 200 "$d/dom.html")"
	fi
	rm -rf "$d"
}

browser_screenshot() {
	[ $# -ge 2 ] || { echo "usage: browser_screenshot FILE.html OUT.png [W,H]" >&2; return 2; }
	_browser_run "$1" "$BROWSER_TIMEOUT" --screenshot="$(readlink -f "$2")" \
		--window-size="${3:-1200,2000}" >/dev/null || return
	[ -s "$2" ] || { echo "no screenshot written" >>"$SANDBOX/browser.log"; return 1; }
}

browser_dom() {
	[ $# -eq 2 ] || { echo "usage: browser_dom FILE.html OUT.html" >&2; return 2; }
	_browser_run "$1" "$BROWSER_TIMEOUT" --dump-dom >"$2" || return
	[ -s "$2" ] || { echo "no DOM printed" >>"$SANDBOX/browser.log"; return 1; }
}

browser_render() {
	[ $# -ge 3 ] || { echo "usage: browser_render FILE.html OUT.png OUT.html [W,H]" >&2; return 2; }
	_browser_run "$1" "$BROWSER_TIMEOUT" --screenshot="$(readlink -f "$2")" \
		--window-size="${4:-1200,2000}" --dump-dom >"$3" || return
	if [ ! -s "$2" ] || [ ! -s "$3" ]; then
		echo "no screenshot or no DOM" >>"$SANDBOX/browser.log"
		return 1
	fi
}

# The Chromium processes of this test still alive (none, after each call):
# for a check of the caller's own.
browser_pids() {
	_browser_marked "PERFBOT_BROWSER_MARK=$SANDBOX"
}

# the live processes whose environment holds NAME=VALUE, as lib.sh's
# marked_pids, in one grep: 0.04 s where a tr and a grep per process take
# 3 s on a loaded machine, and this runs after every start
_browser_marked() {
	grep -lzxsF -- "$1" /proc/[0-9]*/environ | sed 's#^/proc/\([0-9]*\)/environ$#\1#'
	return 0
}

# _browser_run FILE.html SECONDS CHROMIUM-OPTIONS...: Chromium's stdout
# on ours; sets browser_rc.
_browser_run() {
	local page dir pid
	page=$(readlink -f "$1") || return 2
	[ -f "$page" ] || { echo "no page $1" >"$SANDBOX/browser.log"; browser_rc=2; return 2; }
	dir=$(mktemp -d "$SANDBOX/browser.XXXXXX")
	mkdir -p "$dir/profile" "$dir/home" "$dir/tmp"
	# the markers find every process of this start (and of this test),
	# whatever its process group
	PERFBOT_BROWSER_MARK="$SANDBOX" PERFBOT_BROWSER_RUN="$dir" HOME="$dir/home" TMPDIR="$dir/tmp" \
	XDG_CONFIG_HOME="$dir/home" XDG_CACHE_HOME="$dir/home" \
	setsid timeout -s KILL "$2" "$PERFBOT_CHROMIUM" \
		--headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--disable-dev-shm-usage --user-data-dir="$dir/profile" \
		--host-resolver-rules="MAP * ~NOTFOUND" \
		--proxy-server="127.0.0.1:9" --proxy-bypass-list="<-loopback>" \
		"${@:3}" "file://$page" 2>"$SANDBOX/browser.log" &
	pid=$!
	wait "$pid"
	browser_rc=$?
	kill -KILL -- "-$pid" 2>/dev/null
	_browser_reap "$dir"
	rm -rf "$dir"
	return "$browser_rc"
}

# kill what is left of one start; wait until it is gone (a killed process
# leaves /proc when its parent reaps it)
_browser_reap() {
	local left
	for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		left=$(_browser_marked "PERFBOT_BROWSER_RUN=$1")
		[ -z "$left" ] && return 0
		# shellcheck disable=SC2086 # one pid a word
		kill -KILL $left 2>/dev/null
		sleep 0.25
	done
	echo "Chromium processes left: $left" >>"$SANDBOX/browser.log"
	return 1
}

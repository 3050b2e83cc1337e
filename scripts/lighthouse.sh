#!/bin/sh
# Lighthouse (npm lighthouse@12.2.3, Debian's Chromium) on the phone board
# pages: performance, accessibility and cumulative layout shift, with
# Lighthouse's mobile emulation (a mid-range phone, throttled network/CPU).
# It builds the site, serves it on a spare port from a temporary data
# directory, audits each page, prints the figures and stops the server.
# Not part of make test: it fetches Lighthouse from the npm registry once
# (npx caches it outside the repository) and takes about a minute a page.
#
#   scripts/lighthouse.sh                       # the three games, Same device, English
#   scripts/lighthouse.sh /zh/xiangqi/play?mode=computer ...
#   scripts/lighthouse.sh room:shogi            # a new room, as its guest sees it
#
# Reports go to $LIGHTHOUSE_OUT (default /tmp/banmen-lighthouse), never into
# the repository.
set -e
cd "$(dirname "$0")/.."
PORT=${LIGHTHOUSE_PORT:-18431}
OUT=${LIGHTHOUSE_OUT:-/tmp/banmen-lighthouse}
CHROME_PATH=${CHROME_PATH:-/usr/bin/chromium}
export CHROME_PATH
mkdir -p "$OUT"
make -s build >/dev/null
DATA=$(mktemp -d)
./bin/banmen -port "$PORT" -host 127.0.0.1 -data_dir "$DATA" >"$OUT/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null; rm -rf "$DATA"' EXIT INT TERM
i=0
until curl -fs "http://127.0.0.1:$PORT/healthz" >/dev/null; do
	i=$((i + 1))
	[ $i -lt 100 ] || { echo "the server did not start (see $OUT/server.log)"; exit 1; }
	sleep 0.1
done
[ $# -gt 0 ] || set -- "/en/shogi/play?mode=local" "/en/xiangqi/play?mode=local" "/en/yonin/play?mode=local"
for path in "$@"; do
	# room:<variant> is a new room of that game, opened as its guest would
	# (the first visitor of a two-seat room takes the free seat).
	case "$path" in
	room:*)
		variant=${path#room:}
		room=$(curl -fs -H 'Content-Type: application/json' -d "{\"variant\":\"$variant\",\"lang\":\"en\"}" "http://127.0.0.1:$PORT/api/v1/rooms" | node -e 'let s="";process.stdin.on("data",(d)=>s+=d).on("end",()=>console.log(JSON.parse(s).room))')
		path="/en/$variant/room/$room"
		;;
	esac
	name=$(echo "$path" | tr -c 'a-zA-Z0-9\n' '-')
	npx --yes lighthouse@12.2.3 "http://127.0.0.1:$PORT$path" --quiet \
		--chrome-flags="--headless --no-sandbox --disable-background-networking" \
		--only-categories=performance,accessibility --output=json --output-path="$OUT/$name.json"
	node -e '
		const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
		const a = r.audits;
		const fail = Object.values(a).filter((x) => x.scoreDisplayMode === "binary" && x.score === 0).map((x) => x.id);
		console.log(`${process.argv[2]}: performance ${Math.round(r.categories.performance.score * 100)}, accessibility ${Math.round(r.categories.accessibility.score * 100)}, CLS ${a["cumulative-layout-shift"].numericValue.toFixed(3)}, LCP ${(a["largest-contentful-paint"].numericValue / 1000).toFixed(2)} s, TBT ${Math.round(a["total-blocking-time"].numericValue)} ms${fail.length ? ", failing: " + fail.join(" ") : ""}`);
	' "$OUT/$name.json" "$path"
done

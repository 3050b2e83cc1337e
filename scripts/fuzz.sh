#!/usr/bin/env bash
# Runs every fuzz target of the modules (the site's, the sdk's in sdk/go.mod, the
# tools' in tools/go.mod, and the out-of-tree example's in sdk/examples/connect4)
# for $FUZZTIME each (default 3s).
# A target that finds a failure stops the run; its input is saved under the
# package's testdata/fuzz/ so `go test` replays it from then on.
#
# Go's fuzzer sometimes ends a time-bounded run with "context deadline
# exceeded" and no failing input (the deadline lands while a worker is busy):
# that is not a finding, so such a run is tried again, up to twice.
set -euo pipefail
fuzztime=${FUZZTIME:-3s}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
n=0
for mod in . sdk tools sdk/examples/connect4; do
for pkg in $(go -C "$mod" list ./...); do
  dir=$(go -C "$mod" list -f '{{.Dir}}' "$pkg")
  grep -lq '^func Fuzz' "$dir"/*_test.go 2>/dev/null || continue
  for target in $(go -C "$mod" test -list '^Fuzz' "$pkg" | grep '^Fuzz'); do
    echo "fuzz $pkg $target ($fuzztime)"
    for try in 1 2 3; do
      if go -C "$mod" test -run='^$' -fuzz="^${target}\$" -fuzztime="$fuzztime" "$pkg" >"$log" 2>&1; then
        break
      fi
      if grep -q 'context deadline exceeded' "$log" && ! grep -q 'Failing input written' "$log" && [ "$try" -lt 3 ]; then
        echo "  (the fuzzer stopped on its own deadline without a finding; again)"
        continue
      fi
      cat "$log"
      exit 1
    done
    n=$((n+1))
  done
done
done
echo "fuzz: $n targets ran for $fuzztime each"

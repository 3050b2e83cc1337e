#!/usr/bin/env bash
# Runs every fuzz target of the module for $FUZZTIME each (default 3s).
# A target that finds a failure stops the run; its input is saved under the
# package's testdata/fuzz/ so `go test` replays it from then on.
set -euo pipefail
fuzztime=${FUZZTIME:-3s}
n=0
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  grep -lq '^func Fuzz' "$dir"/*_test.go 2>/dev/null || continue
  for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz'); do
    echo "fuzz $pkg $target ($fuzztime)"
    go test -run='^$' -fuzz="^${target}\$" -fuzztime="$fuzztime" "$pkg" >/tmp/banmen-fuzz.log 2>&1 || { cat /tmp/banmen-fuzz.log; exit 1; }
    n=$((n+1))
  done
done
echo "fuzz: $n targets ran for $fuzztime each"

#!/usr/bin/env bash
# Compares the sdk's exported API (module sdk/, examples and internal packages
# aside) with its last release, and fails on an incompatible change that the
# Unreleased section of sdk/CHANGELOG.md does not name.
#
# The last release is the git revision in sdk/api/baseline: the commit of the
# release's tag (sdk/v0.1.0 and on), so that a clone without tags can check
# it. Its sdk/ is taken from this clone's history (git archive), so
# the check needs no network but the Go module proxy (for apidiff and the
# sdk's dependencies); in a shallow clone it says so and stops. `make api
# BASE=<tag>` moves the baseline when a release is cut.
#
# golang.org/x/exp/cmd/apidiff lists the incompatible changes: a declaration
# removed, a signature or type changed, a method added to an interface an
# author implements, ... Each is recorded when the Unreleased section names it
# as `pkg.Name` or, for a field or method, `pkg.Type.Name` (also accepted:
# `pkg.(*Type).Name`); pkg is the package's name: sdk, host, serve, sdktest,
# statecache, extengine, fsftest.
#
# Environment (for scripts/apicheck_test.sh): SDK_DIR the sdk module to check
# (default sdk/), CHANGELOG (default $SDK_DIR/CHANGELOG.md), API_BASE (default
# sdk/api/baseline's), APIDIFF (default bin/tools/apidiff, installed on first use),
# APICHECK_KEEP a directory where the two APIs' export data are kept and, when
# there already, reused (the test checks one API against several changelogs).
set -euo pipefail
root=$(git rev-parse --show-toplevel)
sdk=${SDK_DIR:-$root/sdk}
changelog=${CHANGELOG:-$sdk/CHANGELOG.md}
base=${API_BASE:-$(grep -v '^#' "$root/sdk/api/baseline" | tr -d '[:space:]')}
apidiff_version=v0.0.0-20261113113407-e3970619a1a4
apidiff=${APIDIFF:-$root/bin/tools/apidiff}
mod=github.com/banmen/banmen/sdk

if [ ! -x "$apidiff" ]; then
  GOBIN=$(dirname "$apidiff") go install "golang.org/x/exp/cmd/apidiff@$apidiff_version"
fi
if ! git -C "$root" rev-parse -q --verify "$base^{commit}" >/dev/null; then
  echo "apicheck: the baseline $base is not in this clone's history (a shallow clone? git fetch --unshallow --tags)" >&2
  exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
keep=${APICHECK_KEEP:-$tmp}
export_api() { # dir out
  [ -s "$2" ] && return
  if ! (cd "$1" && "$apidiff" -m -w "$2" "$mod") >"$tmp/log" 2>&1; then
    cat "$tmp/log" >&2
    echo "apicheck: cannot read the API of $1" >&2
    exit 2
  fi
}
if [ ! -s "$keep/old.export" ]; then
  mkdir "$tmp/base"
  git -C "$root" archive "$base" sdk | tar -x -C "$tmp/base"
  export_api "$tmp/base/sdk" "$keep/old.export"
fi
export_api "$sdk" "$keep/new.export"
"$apidiff" -m -incompatible "$keep/old.export" "$keep/new.export" 2>/dev/null | grep '^- ' >"$tmp/changes" || true

# The Unreleased section: from its heading to the next release's.
awk '/^## \[Unreleased\]/ {on=1; next} /^## \[/ {on=0} on' "$changelog" >"$tmp/unreleased"

missing=0
while IFS= read -r line; do
  decl=${line#- }
  decl=${decl%%: *}
  pkg=sdk
  if [[ $decl == ./* ]]; then
    path=${decl#./}
    path=${path%%.*}
    decl=${decl#./"$path".}
    case $path in examples/*) continue ;; esac
    pkg=${path##*/}
  fi
  plain=$pkg.${decl//(\*/}
  plain=${plain//)/}
  ptr=$pkg.$decl
  if ! grep -qP "(?<![\w.])(\Q$plain\E|\Q$ptr\E)(?![\w])" "$tmp/unreleased"; then
    echo "apicheck: incompatible change not named in sdk/CHANGELOG.md's Unreleased section: $plain (${line#- })" >&2
    missing=$((missing + 1))
  fi
done <"$tmp/changes"
n=$(grep -vc '^- ./examples/' "$tmp/changes" || true)
if [ "$missing" -gt 0 ]; then
  echo "apicheck: $missing of $n incompatible changes since $base are not recorded: name each in the Unreleased section, with what breaks and the fix" >&2
  exit 1
fi
echo "apicheck: the sdk's API against $base: $n incompatible changes, each recorded in the changelog"

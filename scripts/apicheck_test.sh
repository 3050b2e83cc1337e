#!/usr/bin/env bash
# Tests scripts/apicheck.sh on a copy of the sdk with one exported declaration
# removed (host.Conn.Ping, which only tests call): the check must fail
# while sdk/CHANGELOG.md's Unreleased section does not name it (even when an
# older release's section does, or a longer name begins with it), and pass once
# it does.
set -euo pipefail
root=$(git rev-parse --show-toplevel)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -C "$root" --exclude=node_modules --exclude=dist -cf - sdk | tar -C "$tmp" -xf -
sed -i 's/^func (c \*Conn) Ping() error {/func (c *Conn) pingGone() error {/' "$tmp/sdk/host/host.go"
grep -q '^func (c \*Conn) pingGone() error {' "$tmp/sdk/host/host.go" || { echo "apicheck_test: the method to remove was not found" >&2; exit 1; }
mkdir "$tmp/keep"
log=$tmp/log
fails=0

# check NAME CHANGELOG WANT: runs the check with that changelog; WANT is pass or fail.
check() {
  local rc=0
  SDK_DIR=$tmp/sdk CHANGELOG=$2 APICHECK_KEEP=$tmp/keep "$root/scripts/apicheck.sh" >"$log" 2>&1 || rc=$?
  case $3 in
  pass) [ "$rc" -eq 0 ] || { echo "apicheck_test: $1: want a pass, got exit $rc:"; cat "$log"; fails=$((fails + 1)); } ;;
  fail)
    if [ "$rc" -ne 1 ] || ! grep -q 'not named in .*: host\.Conn\.Ping ' "$log"; then
      echo "apicheck_test: $1: want a failure naming host.Conn.Ping, got exit $rc:"; cat "$log"; fails=$((fails + 1))
    fi ;;
  esac
}

# unreleased LINE OUT: the changelog with LINE added to the Unreleased section.
unreleased() {
  awk -v line="$1" '{print} /^## \[Unreleased\]/ {print ""; print line}' "$root/sdk/CHANGELOG.md" >"$2"
}

check "removed, not recorded" "$root/sdk/CHANGELOG.md" fail
printf '\n## [0.0.9] - 2026-01-01\n\n- Removed `host.Conn.Ping`.\n' | cat "$root/sdk/CHANGELOG.md" - >"$tmp/old-section.md"
check "recorded under an older release only" "$tmp/old-section.md" fail
unreleased '- Removed `host.Conn.Pinged`.' "$tmp/longer.md"
check "only a longer name recorded" "$tmp/longer.md" fail
unreleased '- Removed `host.Conn.Ping`: use `Exited`.' "$tmp/recorded.md"
check "recorded" "$tmp/recorded.md" pass
unreleased '- Removed `host.(*Conn).Ping`.' "$tmp/recorded-ptr.md"
check "recorded with the method's receiver" "$tmp/recorded-ptr.md" pass

if [ "$fails" -gt 0 ]; then
  echo "apicheck_test: $fails cases failed" >&2
  exit 1
fi
echo "apicheck_test: the API check fails on an unrecorded removal and passes on a recorded one (5 cases)"

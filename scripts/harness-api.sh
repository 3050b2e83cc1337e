#!/bin/sh
# harness-api.sh guards the harness library's public API (packages harness
# and harness/chromium): their exported declarations, one a line, are kept in
# harness/api.txt, and `make test` compares the code with it.
#
#   scripts/harness-api.sh           compare; fail on any difference
#   scripts/harness-api.sh -update   rewrite harness/api.txt after a change
#
# A declaration gone or changed breaks users' code: -update accepts it only
# when harness/CHANGELOG.md names it (with a migration note), so no breaking
# change goes unrecorded. A new declaration needs only -update.
set -eu
export LC_ALL=C
cd "$(dirname "$0")/.."
snap=harness/api.txt
now=$(mktemp)
trap 'rm -f "$now"' EXIT
go run ./harness/internal/apidump harness harness/chromium >"$now"

gone=$(comm -23 "$snap" "$now")
new=$(comm -13 "$snap" "$now")

# name prints the declared name of an api.txt line ("harness: field
# Config.Base string" -> Config.Base, "harness: func (*Summary) Line() string"
# -> Line).
name() {
	printf '%s\n' "$1" | sed -E 's/^[a-z]+: (func (\([^)]*\) )?|field |method |embedded |type |const |var )//; s/[ (].*//'
}

if [ "${1:-}" = "-update" ]; then
	missing=""
	if [ -n "$gone" ]; then
		while IFS= read -r l; do
			n=$(name "$l")
			grep -qF "$n" harness/CHANGELOG.md || missing="$missing\n  $l"
		done <<EOF2
$gone
EOF2
	fi
	if [ -n "$missing" ]; then
		printf 'harness-api: breaking changes that harness/CHANGELOG.md does not name:%b\n' "$missing" >&2
		echo "harness-api: record each with a migration note, then run -update again" >&2
		exit 1
	fi
	cp "$now" "$snap"
	echo "harness-api: $snap updated"
	exit 0
fi

[ -z "$gone" ] && [ -z "$new" ] && exit 0
if [ -n "$gone" ]; then
	echo "harness-api: the harness API lost or changed (a breaking change for its users):" >&2
	printf '%s\n' "$gone" | sed 's/^/  - /' >&2
fi
if [ -n "$new" ]; then
	echo "harness-api: the harness API gained:" >&2
	printf '%s\n' "$new" | sed 's/^/  + /' >&2
fi
echo "harness-api: record the change in harness/CHANGELOG.md, then run scripts/harness-api.sh -update" >&2
exit 1

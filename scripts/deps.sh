#!/bin/sh
# deps.sh makes sure the programs the tests need are installed, and `make
# test` runs it first, so a test never passes by skipping for want of one:
# Debian's chromium (webui/e2e, the harness), firefox-esr (the harness's
# second engine), webkit2gtk-driver and xvfb (its third: WebKitWebDriver and
# the X display WebKitGTK draws on), fairy-stockfish (the rules' cross-checks), postgresql (the
# PostgreSQL store's tests start their own throwaway cluster with its initdb
# and pg_ctl) and nodejs with npm (the TypeScript example plugin,
# sdk/examples/morris-ts). When one is missing it installs them with apt-get if run as
# root, else it stops at once and names the command that would.
#
#   scripts/deps.sh          check, install what is missing (as root)
#   scripts/deps.sh -list    print the Debian packages, one a line
set -eu

# nodejs and npm are not listed: Node.js may come from elsewhere, whose nodejs
# conflicts with Debian's npm; they are installed only when missing (below).
packages="chromium firefox-esr webkit2gtk-driver xvfb fairy-stockfish postgresql"

if [ "${1:-}" = "-list" ]; then
	printf '%s\n' $packages
	exit 0
fi

have() { command -v "$1" >/dev/null 2>&1; }

missing=""
# The browser as harness/chromium finds it: $BANMEN_CHROMIUM, PATH, Debian's path.
if [ -n "${BANMEN_CHROMIUM:-}" ]; then
	[ -x "$BANMEN_CHROMIUM" ] || { echo "deps: BANMEN_CHROMIUM=$BANMEN_CHROMIUM is not an executable" >&2; exit 1; }
elif ! { have chromium || have chromium-browser || have google-chrome || [ -x /usr/bin/chromium ]; }; then
	missing="$missing chromium"
fi
# Firefox as harness.FindFirefox finds it: $BANMEN_FIREFOX, PATH, Debian's path.
if [ -n "${BANMEN_FIREFOX:-}" ]; then
	[ -x "$BANMEN_FIREFOX" ] || { echo "deps: BANMEN_FIREFOX=$BANMEN_FIREFOX is not an executable" >&2; exit 1; }
elif ! { have firefox-esr || have firefox || [ -x /usr/bin/firefox-esr ]; }; then
	missing="$missing firefox-esr"
fi
# WebKitWebDriver as harness.FindWebKit finds it: $BANMEN_WEBKIT, PATH.
if [ -n "${BANMEN_WEBKIT:-}" ]; then
	[ -x "$BANMEN_WEBKIT" ] || { echo "deps: BANMEN_WEBKIT=$BANMEN_WEBKIT is not an executable" >&2; exit 1; }
elif ! have WebKitWebDriver; then
	missing="$missing webkit2gtk-driver"
fi
have Xvfb || missing="$missing xvfb"
have fairy-stockfish || [ -x /usr/games/fairy-stockfish ] || missing="$missing fairy-stockfish"
# initdb as platform/internal/pgtest finds it: $BANMEN_PG_BIN, PATH, Debian's path.
if [ -n "${BANMEN_PG_BIN:-}" ]; then
	[ -x "$BANMEN_PG_BIN/initdb" ] || { echo "deps: BANMEN_PG_BIN=$BANMEN_PG_BIN has no initdb" >&2; exit 1; }
elif ! { have initdb || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; }; then
	missing="$missing postgresql"
fi
have node || missing="$missing nodejs"
have npm || missing="$missing npm"

[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ] || ! have apt-get; then
	echo "deps: the tests need$missing; install with: sudo scripts/deps.sh (apt-get install$missing)" >&2
	exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086 # a list of package names
apt-get install -y -q $missing

package room

import (
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/banmen/banmen/sdk"
)

// Computer seats (docs/protocol.md, "Computer seats"). A room whose variant
// declares the host setting sdk.SettingLevel, on a host that can ask for
// computer moves (Rules is a ComputerRules), has computer seats:
//
//   - The host (seat 0) may start before every seat is taken (action
//     "start"); from then on every free seat is played by the computer.
//     A room whose seats are all taken is started without it.
//   - A seated player whose connection is gone for longer than the away
//     grace (Config.AwayGrace) is played by the computer until they
//     connect again; the game never waits for them. A computer move
//     already being thought for their seat is still played: the seat comes
//     back at its next turn.
//   - New round: a seat the computer plays because its player is away
//     past the grace consents by itself, as a free seat does (othersConsent).
//   - With a time per move (sdk.SettingMoveTime), the computer moves for
//     the seat to move when its time is up; the player keeps the seat.
//
// Everything here is derived from the log and the connections: who holds
// which seat (claims), whether the room started (the start action), when
// the current turn began (the time of the last move, start or round). A
// computer move is logged as the action "computer" and replayed like any
// move, so a restarted host (or another host that takes the room over)
// finds the same turn and clock; which host thinks for a room is
// Config.RunsComputer's decision.

// Action kinds of computer seats.
const (
	kindStart    = "start"    // the host started with free seats: the computer takes them
	kindComputer = "computer" // a move the computer made for Seat
)

// hasComputer tells whether this room has computer seats.
func (r *Room) hasComputer() bool {
	if _, ok := r.m.cfg.Rules.(ComputerRules); !ok {
		return false
	}
	_, ok := r.desc.HostSetting(sdk.SettingLevel)
	return ok
}

// setting is the value of a host setting in the room's options, or the
// variant's declared default; ok is false when the variant declares none.
func (r *Room) setting(key string) (string, bool) {
	spec, ok := r.desc.HostSetting(key)
	if !ok {
		return "", false
	}
	if v, set := r.meta.Options[key]; set {
		return v, true
	}
	return spec.Default, true
}

// level is the computer's level for this room.
func (r *Room) level() sdk.Level {
	v, _ := r.setting(sdk.SettingLevel)
	return sdk.Level(v)
}

// moveTime is the room's time per move, 0 for none.
func (r *Room) moveTime() time.Duration {
	v, ok := r.setting(sdk.SettingMoveTime)
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 0
	}
	return time.Duration(n) * time.Second
}

// roundOptions are the options round n (1 = the first) starts with: with
// rotation on (sdk.SettingRotateFirst) the first seat moves one seat on in
// turn order each round, from the room's first seat.
func (r *Room) roundOptions(n int) sdk.Options {
	opts := r.meta.Options
	rot, ok := r.setting(sdk.SettingRotateFirst)
	if !ok || rot != "true" || n <= 1 {
		return opts
	}
	first, ok := r.setting(sdk.SettingFirstSeat)
	if !ok {
		return opts
	}
	f, err := strconv.Atoi(first)
	if err != nil {
		return opts
	}
	opts = maps.Clone(opts)
	if opts == nil {
		opts = sdk.Options{}
	}
	opts[sdk.SettingFirstSeat] = strconv.Itoa((f + n - 1) % len(r.taken))
	return opts
}

// startedPlay tells whether moves may be made: every seat is taken, or the
// host started with the computer in the free ones.
func (r *Room) startedPlay() bool {
	return r.started || !slices.Contains(r.taken, false)
}

// computerFor tells why the computer plays seat now: "seat" (a free seat
// of a started room), "away" (its player is gone past the grace period),
// "time" (its time per move is up), or "" when its player does.
func (r *Room) computerFor(seat sdk.Seat, now time.Time) string {
	if !r.hasComputer() || seat < 0 || int(seat) >= len(r.taken) || !r.startedPlay() {
		return ""
	}
	switch {
	case !r.taken[seat]:
		return "seat"
	case !r.seatConnected(int(seat)) && !now.Before(r.awaySince[seat].Add(r.m.cfg.AwayGrace)):
		return "away"
	}
	if d := r.moveTime(); d > 0 && !now.Before(r.turnAt.Add(d)) {
		return "time"
	}
	return ""
}

// playedByComputer tells whether the computer plays seat as things stand
// (for presence): a free seat of a started room, or an away player's.
func (r *Room) playedByComputer(seat int, now time.Time) bool {
	why := r.computerFor(sdk.Seat(seat), now)
	return why == "seat" || why == "away"
}

// markAway notes that seat's connection went (the grace period starts).
// Only this host's connections mark it: a seat held on another host of the
// same store counts as connected while the Cluster says so, and its grace
// starts from when this host loaded the room or last saw it go here.
func (r *Room) markAway(seat sdk.Seat) {
	if seat >= 0 && int(seat) < len(r.awaySince) {
		r.awaySince[seat] = r.m.cfg.Now()
	}
}

// othersConsent tells whether every seated human but seat has consented to
// a new round: they are in accepted, or the computer plays their seat
// because they are away past the grace (such a seat consents by itself, as
// a computer seat does). A player back before the round starts is a human
// again and answers for themselves. Always false without computer seats.
func (r *Room) othersConsent(seat sdk.Seat, accepted []sdk.Seat) bool {
	if !r.hasComputer() {
		return false
	}
	now := r.m.cfg.Now()
	for i, t := range r.taken {
		s := sdk.Seat(i)
		if t && s != seat && !slices.Contains(accepted, s) && r.computerFor(s, now) != "away" {
			return false
		}
	}
	return true
}

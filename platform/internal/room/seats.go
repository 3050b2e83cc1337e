package room

import (
	"slices"
	"strconv"
	"time"

	"github.com/banmen/banmen/platform/internal/store"
	"github.com/banmen/banmen/platform/protocol"
	"github.com/banmen/banmen/sdk"
)

// Computer seats (docs/protocol.md, "Computer seats"). A room whose variant
// declares the host setting sdk.SettingLevel, on a host that can ask for
// computer moves (Rules is a ComputerRules), has computer seats:
//
//   - The host (seat 0) may start before every seat is taken (action
//     "start"); from then on every free seat is played by the computer.
//     A room whose seats are all taken is started without it, and so is a
//     room created for fewer people (sdk.SettingHumanSeats) once they are
//     seated; such a room seats nobody more: a latecomer watches.
//   - A seated player whose connection is gone for longer than the away
//     grace (Config.AwayGrace) is played by the computer until they
//     connect again; the game never waits for them. A computer move
//     already being thought for their seat is still played: the seat comes
//     back at its next turn.
//   - New round: a seat the computer plays because its player is away
//     past the grace consents by itself, as a free seat does (othersConsent).
//   - With a time per move (sdk.SettingMoveTime), the computer moves for
//     the seat to move when its time is up; the player keeps the seat.
//     The clock is the server's: a turn begins at the logged time of the
//     action that made it (a move, the start, a new round) and ends
//     MoveTime later, so a restarted host finds the same deadline.
//
// Everything here is derived from the log and the connections; a computer
// move is logged as the action "computer" and replayed like any move.
// Which host thinks for a room is Config.RunsComputer's decision
// (computer.go does the thinking).

// startedPlay tells whether moves may be made: every seat is taken, the
// host started with the computer in the free ones, or the people the room
// was created for are seated (peopleSeated).
func (g *game) startedPlay() bool {
	return g.started || g.peopleSeated() || !slices.Contains(g.taken, false)
}

// humanSeatsOf is how many people a room is for (sdk.SettingHumanSeats, as
// its options say or the variant's default): 0 for every seat, in a room
// without computer seats, or when the number is not below the seats.
func humanSeatsOf(meta store.Room, desc sdk.Description, computer bool) int {
	spec, ok := desc.HostSetting(sdk.SettingHumanSeats)
	if !ok || !computer {
		return 0
	}
	v, set := meta.Options[sdk.SettingHumanSeats]
	if !set {
		v = spec.Default
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n >= meta.Seats {
		return 0
	}
	return n
}

// peopleSeated tells whether a room for fewer people than seats
// (humanSeats) has them all seated: it is started by that, without the
// host's "start", and takes nobody more (join).
func (g *game) peopleSeated() bool {
	return g.humanSeats > 0 && g.seatedCount() >= g.humanSeats
}

// seatedCount is how many seats are taken.
func (g *game) seatedCount() int {
	n := 0
	for _, t := range g.taken {
		if t {
			n++
		}
	}
	return n
}

// computerFor tells why the computer plays seat at now: "seat" (a free
// seat of a started room), "away" (its player is gone past the grace
// period), "time" (its time per move is up), or "" when its player does.
func (g *game) computerFor(seat sdk.Seat, now time.Time) string {
	if !g.computer || seat < 0 || int(seat) >= len(g.taken) || !g.startedPlay() {
		return ""
	}
	switch {
	case !g.taken[seat]:
		return "seat"
	case !g.seatConnected(int(seat)) && !now.Before(g.awaySince[seat].Add(g.awayGrace)):
		return "away"
	}
	if d := g.moveTime(); d > 0 && !now.Before(g.turnAt.Add(d)) {
		return "time"
	}
	return ""
}

// playedByComputer tells whether the computer plays seat as things stand
// (for presence): a free seat of a started room, or an away player's.
func (g *game) playedByComputer(seat int, now time.Time) bool {
	why := g.computerFor(sdk.Seat(seat), now)
	return why == "seat" || why == "away"
}

// computerTurn is the seat the computer should move for at now, and why;
// ok is false when no computer move is due.
func (g *game) computerTurn(now time.Time) (seat sdk.Seat, why string, ok bool) {
	if g.broken != nil || g.view.Status != sdk.Playing || len(g.view.ToMove) == 0 {
		return 0, "", false
	}
	seat = g.view.ToMove[0]
	why = g.computerFor(seat, now)
	return seat, why, why != ""
}

// othersConsent tells whether every seated human but seat has consented to
// a new round: they are in accepted, or the computer plays their seat
// because they are away past the grace (such a seat consents by itself, as
// a computer seat does). A player back before the round starts is a human
// again and answers for themselves. Always false without computer seats.
func (g *game) othersConsent(seat sdk.Seat, accepted []sdk.Seat, now time.Time) bool {
	if !g.computer {
		return false
	}
	for i, t := range g.taken {
		s := sdk.Seat(i)
		if t && s != seat && !slices.Contains(accepted, s) && g.computerFor(s, now) != "away" {
			return false
		}
	}
	return true
}

// roundByConsent is the action that starts the requested new round when
// the only seats yet to consent are away players' whose grace ran out
// (logged as the requester's); ok is false when there is none.
func (g *game) roundByConsent(now time.Time) (kind string, seat sdk.Seat, ok bool) {
	p := g.pending
	if p == nil || g.broken != nil || !g.othersConsent(p.By, p.Accepted, now) {
		return "", 0, false
	}
	return kindRound, p.By, true
}

// clock is the turn's clock at now, nil without a time per move or a turn.
func (g *game) clock(now time.Time) *protocol.Clock {
	d := g.moveTime()
	if d <= 0 || !g.startedPlay() || g.view.Status != sdk.Playing || len(g.view.ToMove) == 0 {
		return nil
	}
	left := max(0, g.turnAt.Add(d).Sub(now))
	return &protocol.Clock{Seat: g.view.ToMove[0], Limit: d.Milliseconds(), Remaining: left.Milliseconds()}
}

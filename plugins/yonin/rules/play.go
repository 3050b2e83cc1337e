package rules

import "github.com/banmen/banmen/sdk"

// Game is a game kept in memory, for tools that play many moves (the bench
// command's random games) without the State round trip, which replays and
// re-checks the whole game on every call. It follows exactly the rules of
// Variant.Play.
type Game struct{ g *game }

// NewGame starts a game with the given options, like Variant.Start.
func NewGame(opts sdk.Options) (*Game, error) {
	set, err := parseOptions(opts)
	if err != nil {
		return nil, err
	}
	return &Game{newGame(set, startPosition(set.rules, set.firstSeat))}, nil
}

// ToMove is the seat to move, or sdk.NoSeat once the game is over.
func (g *Game) ToMove() sdk.Seat {
	if g.g.end != "" {
		return sdk.NoSeat
	}
	return sdk.Seat(g.g.pos.turn)
}

// Legal lists the legal moves of the seat to move (none once over).
func (g *Game) Legal() []sdk.Move {
	var out []sdk.Move
	for _, m := range g.g.legal() {
		out = append(out, sdk.Move(moveText(int(g.g.pos.turn), m)))
	}
	return out
}

// Play plays seat's move, like Variant.Play.
func (g *Game) Play(seat sdk.Seat, m sdk.Move) error {
	if seat < 0 || seat > 3 {
		return sdk.Errorf(sdk.CodeNotYourTurn, "no seat %d", seat)
	}
	s, mv, err := parseMove(string(m))
	if err != nil {
		return err
	}
	if s != int(seat) {
		return sdk.Errorf(sdk.CodeBadMove, "move %q is not written for seat %d", m, seat)
	}
	return g.g.play(s, mv)
}

// InCheck lists the live seats in check.
func (g *Game) InCheck() []sdk.Seat {
	var out []sdk.Seat
	for s := range 4 {
		if g.g.pos.inCheck(s) {
			out = append(out, sdk.Seat(s))
		}
	}
	return out
}

// Live reports whether the seat is still playing (not mated).
func (g *Game) Live(seat sdk.Seat) bool { return seat >= 0 && seat < 4 && g.g.pos.live(int(seat)) }

// Mates is the number of mates so far.
func (g *Game) Mates() int { return int(g.g.pos.nmates) }

// Result is the result once the game is over, nil before.
func (g *Game) Result() *sdk.Result { return g.g.result() }

// View is the game's full View, as Variant.View gives it.
func (g *Game) View() sdk.View { return g.g.view() }

// State is the game's state, for Variant's methods.
func (g *Game) State() sdk.State { return g.g.encodeState() }

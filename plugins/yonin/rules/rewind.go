package rules

import "github.com/banmen/banmen/sdk"

// Rewind returns the game as it was after its first ply moves, replayed
// from the start position with the same settings: the move list's
// navigation and takebacks.
func (Variant) Rewind(s sdk.State, ply int) (sdk.State, sdk.View, error) {
	c, err := decodeState(s)
	if err != nil {
		return nil, sdk.View{}, err
	}
	g := c.g
	if ply < 0 || ply > len(g.moves) {
		return nil, sdk.View{}, sdk.Errorf(sdk.CodeBadPly, "the game has no ply %d (it has %d)", ply, len(g.moves))
	}
	r := newGame(g.set, g.start)
	for i, m := range g.moves[:ply] {
		if err := r.play(int(g.movers[i]), m); err != nil {
			return nil, sdk.View{}, err
		}
	}
	return r.remember(), r.view(), nil
}

var _ sdk.Rewinder = Variant{}

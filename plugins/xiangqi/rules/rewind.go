package rules

import "github.com/banmen/banmen/sdk"

// Rewind returns the game as it was after its first ply moves (a
// resignation or an abandonment is the last ply), replayed from the start position: the move
// list's navigation and takebacks.
func (Variant) Rewind(s sdk.State, ply int) (sdk.State, sdk.View, error) {
	c, err := decodeState(s)
	if err != nil {
		return nil, sdk.View{}, err
	}
	g := c.g
	total := len(g.moves)
	if g.resigned != noResign {
		total++
	}
	if ply < 0 || ply > total {
		return nil, sdk.View{}, sdk.Errorf(sdk.CodeBadPly, "the game has no ply %d (it has %d)", ply, total)
	}
	start := g.start
	r := NewGame(&start)
	for _, m := range g.moves[:min(ply, len(g.moves))] {
		if err := r.Play(m); err != nil {
			return nil, sdk.View{}, err
		}
	}
	if ply > len(g.moves) {
		if err := r.end(g); err != nil {
			return nil, sdk.View{}, err
		}
	}
	return r.remember(), r.view(), nil
}

var _ sdk.Rewinder = Variant{}

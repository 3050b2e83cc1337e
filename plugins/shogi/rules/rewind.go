package rules

import "github.com/banmen/banmen/sdk"

// Rewind returns the game as it was after its first ply moves, replayed
// from the start position: the move list's navigation and takebacks.
func (Variant) Rewind(s sdk.State, ply int) (sdk.State, sdk.View, error) {
	g, err := decodeState(s)
	if err != nil {
		return nil, sdk.View{}, err
	}
	if ply < 0 || ply > g.ply() {
		return nil, sdk.View{}, sdk.Errorf(sdk.CodeBadPly, "the game has no ply %d (it has %d)", ply, g.ply())
	}
	r := newGame(*g.start())
	for i, rec := range g.records[:ply] {
		if err := r.play(rec.seat, g.hist[i].Move); err != nil {
			return nil, sdk.View{}, err // a move that was legal is legal again
		}
	}
	return r.remember(), r.view(), nil
}

var _ sdk.Rewinder = Variant{}

package room

import (
	"fmt"
	"time"

	"github.com/banmen/banmen/sdk"
)

// Claim the win (docs/protocol.md, "Claim the win"). In a room of two
// seats without computer seats, a seat whose player has been away for
// longer than Config.GoneAfter (40 s) is "gone" (presence says so); while
// the round is on, the other seated player, connected, may claim the win.
// The claim is logged as the action "claimWin" of the claimer and played
// as the gone seat's sdk.Abandon (its resignation where the variant does
// not record leaving, Description.Abandon): the rules end the round with the
// claimer the winner and the reason sdk.ReasonAbandoned, which the room's
// exports write too, and the move event says Claimed. The server's clock
// decides "gone", never the client's.

// gone tells whether seat i's player is gone at now.
func (g *game) gone(i int, now time.Time) bool {
	return g.goneAfter > 0 && len(g.taken) == 2 && !g.computer && g.taken[i] && !g.seatConnected(i) &&
		!now.Before(g.awaySince[i].Add(g.goneAfter))
}

// claimable is why seat may not claim the win at now ("" when it may): a
// code and a message for the refusal.
func (g *game) claimable(seat sdk.Seat, now time.Time) (code, msg string) {
	switch {
	case g.goneAfter <= 0 || len(g.taken) != 2 || g.computer || !g.desc.Resign:
		return sdk.CodeUnsupported, "a win is claimed in 2-player rooms of games with resignation only"
	case g.view.Status != sdk.Playing:
		return "not_playing", "the round is over"
	case !g.seatConnected(int(seat)):
		return "not_gone", "you are not connected here"
	}
	other := 1 - int(seat)
	if !g.gone(other, now) {
		return "not_gone", fmt.Sprintf("the other player is connected, or away for less than %v", g.goneAfter)
	}
	return "", ""
}

// leaving is the move that ends a round for a seat whose player left: the
// variant's own ending where it records one, else the resignation.
func (g *game) leaving() sdk.Move {
	if g.desc.Abandon {
		return sdk.Abandon
	}
	return sdk.Resign
}

package room

import (
	"slices"
	"testing"
	"time"

	"github.com/banmen/banmen/platform/protocol"
	"github.com/banmen/banmen/sdk"
)

const goneAfter = 40 * time.Second

// claimGame is twoSeats where a seat away for goneAfter is gone.
func claimGame() *game { g := twoSeats(); g.goneAfter = goneAfter; return g }

func claimAt(seat sdk.Seat, version int64, at time.Duration, want string) happening {
	return happening{seat: seat, req: protocol.Request{Type: protocol.TypeClaimWin, Version: ver(version)}, at: at, want: want}
}

func TestGameClaimWin(t *testing.T) {
	for _, tc := range []struct {
		name  string
		game  func() *game
		steps []happening
		check func(t *testing.T, g *game)
	}{
		{name: "the opponent gone: the win is claimed", game: claimGame, steps: append(seated(), move(0, 1, "b2", "event:move"),
			leave(1, 5*time.Second), claimAt(0, 2, 5*time.Second+goneAfter-time.Millisecond, "refused:not_gone"),
			claimAt(0, 2, 5*time.Second+goneAfter, "event:move")),
			check: func(t *testing.T, g *game) {
				r := g.view.Result
				if g.view.Status != sdk.Over || r == nil || !slices.Equal(r.Winners, []sdk.Seat{0}) {
					t.Errorf("after the claim: status %s, result %+v; want over, seat 0 the winner", g.view.Status, r)
				}
				ev := g.recent.back(1)
				if !ev.Claimed || *ev.Seat != 1 || ev.Move != sdk.Resign {
					t.Errorf("claim event %+v: want claimed, seat 1's resignation (tictactoe records no leaving)", ev)
				}
			}},
		{name: "on the claimer's own turn too", game: claimGame, steps: append(seated(), leave(1, 0), claimAt(0, 1, goneAfter, "event:move")),
			check: func(t *testing.T, g *game) {
				if r := g.view.Result; r == nil || !slices.Equal(r.Winners, []sdk.Seat{0}) {
					t.Errorf("result %+v, want seat 0 the winner", r)
				}
			}},
		{name: "the guest claims against the host", game: claimGame, steps: append(seated(), leave(0, 0), claimAt(1, 1, goneAfter, "event:move")),
			check: func(t *testing.T, g *game) {
				if r := g.view.Result; r == nil || !slices.Equal(r.Winners, []sdk.Seat{1}) {
					t.Errorf("result %+v, want seat 1 the winner", r)
				}
			}},
		{name: "back in time: not gone", game: claimGame, steps: append(seated(), leave(1, 0), conn(1), claimAt(0, 1, goneAfter, "refused:not_gone"))},
		{name: "an opponent connected is not gone", game: claimGame, steps: append(seated(), claimAt(0, 1, time.Hour, "refused:not_gone"))},
		{name: "a free seat is not gone", game: claimGame, steps: []happening{conn(0), claimAt(0, 0, time.Hour, "refused:not_gone")}},
		{name: "the claimer must be here", game: claimGame, steps: append(seated(), leave(1, 0), leave(0, 0), claimAt(0, 1, goneAfter, "refused:not_gone"))},
		{name: "not once the round is over", game: claimGame, steps: append(seated(), ask(0, protocol.TypeResign, 1, "event:move"), leave(1, 0), claimAt(0, 2, goneAfter, "refused:not_playing"))},
		{name: "a resent claim is a duplicate", game: claimGame, steps: append(seated(), leave(1, 0), claimAt(0, 1, goneAfter, "event:move"), claimAt(0, 1, goneAfter, "ack:duplicate"))},
		{name: "spectators cannot claim", game: claimGame, steps: append(seated(), leave(1, 0), claimAt(-1, 1, goneAfter, "refused:spectator"))},
		{name: "a stale claim", game: claimGame, steps: append(seated(), leave(1, 0), claimAt(0, 0, goneAfter, "refused:stale"))},
		{name: "not in a game without resignation", game: func() *game { g := claimGame(); g.desc.Resign = false; return g },
			steps: append(seated(), leave(1, 0), claimAt(0, 1, goneAfter, "refused:unsupported"))},
		{name: "not with computer seats", game: func() *game { g := fourSeats(); g.goneAfter = goneAfter; return g },
			steps: []happening{conn(0), claimAt(0, 0, goneAfter, "refused:unsupported")}},
		{name: "never without a gone delay", game: twoSeats, steps: append(seated(), leave(1, 0), claimAt(0, 1, time.Hour, "refused:unsupported"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := tc.game()
			for i, s := range tc.steps {
				if got, _ := run(t, g, s); got != s.want {
					t.Fatalf("step %d (%+v): got %q, want %q", i, s.req, got, s.want)
				}
			}
			if tc.check != nil {
				tc.check(t, g)
			}
		})
	}
}

// TestGonePresence: presence says a seat is gone once its delay is over,
// and the change is noticed (presenceStale) for a Tick to send it.
func TestGonePresence(t *testing.T) {
	g := claimGame()
	for _, s := range append(seated(), leave(1, 0)) {
		run(t, g, s)
	}
	if p := g.presence(t0.Add(goneAfter - time.Second)); p.Seats[1].Gone || p.Seats[0].Gone {
		t.Errorf("gone before the delay: %+v", p.Seats)
	}
	if !g.presenceStale(t0.Add(goneAfter)) {
		t.Error("the seat turning gone is not a change of presence")
	}
	if p := g.presence(t0.Add(goneAfter)); !p.Seats[1].Gone || p.Seats[0].Gone {
		t.Errorf("at the delay: %+v, want seat 1 gone", p.Seats)
	}
	g.connect(1)
	if !g.presenceStale(t0.Add(goneAfter)) || g.presence(t0.Add(goneAfter)).Seats[1].Gone {
		t.Error("a player back is still gone")
	}
}

// TestClaimReplays: a claimed win is in the log and replays without
// presence (a restarted host finds the same result).
func TestClaimReplays(t *testing.T) {
	e := limitEnv(t, Config{GoneAfter: goneAfter, PresenceEvery: -1})
	c, host, guest, hs, _, _ := twoPlayers(t, e)
	guest.Leave()
	e.clock.Add(goneAfter)
	e.m.Tick()
	if ps := presences(hs.take()); len(ps) == 0 || !ps[len(ps)-1].Presence.Seats[1].Gone {
		t.Fatalf("no presence saying the guest is gone after the delay: %+v", ps)
	}
	act(host, protocol.TypeClaimWin, 1, "")
	evs := hs.take()
	mv, _ := find(evs, protocol.EvMove)
	if a, _ := find(evs, protocol.EvAck); a.Version != 2 || !mv.Claimed || *mv.Seat != 1 || mv.View.Result == nil {
		t.Fatalf("claim: %+v; want the ack of version 2 after a claimed move of seat 1 with a result", evs)
	}
	e.m.Sweep(t.Context())
	host.Leave()
	e.m.Sweep(t.Context()) // dropped from memory: the next join replays the log
	_, s := e.join(c.Room, Hello{SeatKey: c.SeatKey})
	w, _ := find(s.take(), protocol.EvWelcome)
	if w.View == nil || w.View.Result == nil || !slices.Equal(w.View.Result.Winners, []sdk.Seat{0}) || w.Version != 2 {
		t.Fatalf("after a replay: %+v, want version 2 won by seat 0", w.View)
	}
}

// TestClaimPlaysTheVariantsLeaving: a claimed win is played as the gone
// seat's sdk.Abandon where the variant records a player leaving
// (Description.Abandon), so that the result and the records say so, and as
// its resignation where it does not; a player cannot send Abandon as a move.
func TestClaimPlaysTheVariantsLeaving(t *testing.T) {
	for _, abandon := range []bool{false, true} {
		g := claimGame()
		g.desc.Abandon = abandon
		for _, s := range append(seated(), leave(1, 0)) {
			run(t, g, s)
		}
		a, answer := g.decide(0, protocol.Request{Type: protocol.TypeClaimWin, Version: ver(g.version)}, t0.Add(goneAfter))
		if answer != nil {
			t.Fatalf("Abandon %v: the claim was answered %+v", abandon, answer)
		}
		st, err := g.check(a)
		want := sdk.Resign
		if abandon {
			want = sdk.Abandon
		}
		if err != nil || !st.play || st.seat != 1 || st.move != want || !st.claimed {
			t.Errorf("Abandon %v: the claim plays %+v, %v; want seat 1's %q", abandon, st, err, want)
		}
		_, answer = g.decide(1, protocol.Request{Type: protocol.TypeMove, Move: sdk.Abandon, Version: ver(g.version)}, t0)
		if answer == nil || answer.Type != protocol.EvRefused || answer.Code != sdk.CodeBadMove {
			t.Errorf("Abandon %v: a player's move %q was answered %+v, want refused %s", abandon, sdk.Abandon, answer, sdk.CodeBadMove)
		}
	}
}

package room

import (
	"slices"
	"testing"
	"time"

	"github.com/banmen/banmen/platform/internal/store"
	"github.com/banmen/banmen/platform/protocol"
	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/examples/tictactoe"
)

// The state machine's tests: a game is driven by requests, confirmed
// actions and connections, with no socket, store, plugin or goroutine.
// The rules' answers come from tictactoe, called in-process; the
// four-seat rooms with computer seats need none (no move is played).

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

const grace = 10 * time.Second

// twoSeats is a tictactoe room at version 0, the host seated.
func twoSeats() *game {
	d := tictactoe.Variant{}.Describe()
	d.Resign = true
	g := newGame(store.Room{ID: "r", Variant: "tictactoe", Seats: 2, Created: t0, Touched: t0}, d, false, grace, 64, t0)
	g.state, g.view, _ = tictactoe.Variant{}.Start(nil)
	return g
}

// fourSeats is a room of four seats with computer seats (the variant
// declares host.level), at version 0 with the host seated; its game waits
// for seat 0 to move.
func fourSeats() *game {
	d := sdk.Description{ID: "four", Seats: make([]sdk.SeatInfo, 4),
		HostSettings: []sdk.OptionSpec{{Key: sdk.SettingLevel, Default: "easy"}, {Key: sdk.SettingMoveTime, Default: "30"}}}
	g := newGame(store.Room{ID: "r", Variant: "four", Seats: 4, Created: t0, Touched: t0}, d, true, grace, 64, t0)
	g.view = sdk.View{Status: sdk.Playing, ToMove: []sdk.Seat{0}, Board: make([]sdk.Cell, 4)}
	return g
}

// happening is one thing that happens to a game: a request of seat, or seat
// connecting or leaving, at t0+at.
type happening struct {
	seat  sdk.Seat
	req   protocol.Request
	conn  bool
	leave bool
	at    time.Duration
	// want is what came of it: "event:<type>" (an action confirmed and
	// applied), "refused:<code>", "ack:duplicate", "pong", "seatCode", or
	// "" for a connection.
	want string
}

func ver(n int64) *int64 { return &n }

func move(seat sdk.Seat, version int64, m sdk.Move, want string) happening {
	return happening{seat: seat, req: protocol.Request{Type: protocol.TypeMove, Version: ver(version), Move: m}, want: want}
}

func ask(seat sdk.Seat, typ string, version int64, want string) happening {
	return happening{seat: seat, req: protocol.Request{Type: typ, Version: ver(version)}, want: want}
}

func claim(seat sdk.Seat) happening {
	return happening{seat: seat, req: protocol.Request{Type: "claim"}, want: "event:join"}
}

func conn(seat sdk.Seat) happening { return happening{seat: seat, conn: true} }

func leave(seat sdk.Seat, at time.Duration) happening {
	return happening{seat: seat, leave: true, at: at}
}

// run applies s to g and tells what came of it; a confirmed action's
// event is returned too.
func run(t *testing.T, g *game, s happening) (string, protocol.Event) {
	t.Helper()
	now := t0.Add(s.at)
	switch {
	case s.conn:
		g.connect(s.seat)
		return "", protocol.Event{}
	case s.leave:
		g.disconnect(s.seat, now)
		return "", protocol.Event{}
	}
	var a store.Action
	if s.req.Type == "claim" { // what join appends for a free seat
		a = store.Action{Room: g.id, Version: g.version + 1, Kind: kindClaim, Seat: int(s.seat), At: now, KeyHash: []byte{byte(s.seat)}}
	} else {
		var answer *protocol.Event
		a, answer = g.decide(s.seat, s.req, now)
		if answer != nil {
			switch {
			case answer.Duplicate:
				return "ack:duplicate", *answer
			case answer.Type == protocol.EvRefused:
				return "refused:" + answer.Code, *answer
			}
			return answer.Type, *answer
		}
		if a.Kind == "" {
			return "seatCode", protocol.Event{}
		}
	}
	st, err := g.check(a)
	if err != nil {
		re, _ := sdk.AsRuleError(err)
		return "refused:" + re.Code, protocol.Event{}
	}
	var e effect
	switch {
	case st.play:
		state, view, err := tictactoe.Variant{}.Play(g.state, st.seat, st.move) // as perform plays it
		if err != nil {
			re, _ := sdk.AsRuleError(err)
			return "refused:" + re.Code, protocol.Event{}
		}
		view.History = view.History[len(g.view.History):] // as PlayRequest.HistoryFrom asks
		e = g.answered(st, state, view)
	case st.newRound:
		state, view, _ := tictactoe.Variant{}.Start(st.options)
		e = g.answered(st, state, view)
	default:
		e = effect{step: st}
	}
	ev := g.apply(a, e)
	return "event:" + ev.Type, ev
}

// seated is a tictactoe room with both seats taken and connected, at
// version 1.
func seated() []happening { return []happening{claim(1), conn(0), conn(1)} }

func TestGame(t *testing.T) {
	for _, tc := range []struct {
		name  string
		game  func() *game
		steps []happening
		check func(t *testing.T, g *game)
	}{
		{name: "take a seat", game: twoSeats, steps: []happening{claim(1)},
			check: func(t *testing.T, g *game) {
				if !g.taken[1] || g.version != 1 || g.keys[1] == nil {
					t.Errorf("taken %v, version %d, key %v", g.taken, g.version, g.keys[1])
				}
			}},
		{name: "a taken seat is not taken again", game: twoSeats, steps: []happening{claim(1), {seat: 1, req: protocol.Request{Type: "claim"}, want: "refused:seat_taken"}}},
		{name: "moves wait for the free seat", game: twoSeats, steps: []happening{conn(0), move(0, 0, "b2", "refused:waiting")}},
		{name: "moves in turn", game: twoSeats, steps: append(seated(), move(0, 1, "b2", "event:move"), move(1, 2, "a1", "event:move"), move(1, 3, "c3", "refused:not_your_turn"))},
		{name: "a move the rules refuse", game: twoSeats, steps: append(seated(), move(0, 1, "z9", "refused:bad_move"), move(0, 1, "b2", "event:move"), move(1, 2, "b2", "refused:illegal_move"))},
		{name: "a stale version", game: twoSeats, steps: append(seated(), move(0, 1, "b2", "event:move"), move(1, 1, "a1", "refused:stale"))},
		{name: "a resent move is a duplicate", game: twoSeats, steps: append(seated(), move(0, 1, "b2", "event:move"), move(0, 1, "b2", "ack:duplicate"))},
		{name: "another move at an old version is stale", game: twoSeats, steps: append(seated(), move(0, 1, "b2", "event:move"), move(0, 1, "c3", "refused:stale"))},
		{name: "paused while a player is away", game: twoSeats, steps: append(seated(), leave(1, 0), move(0, 1, "b2", "refused:paused"), ask(0, protocol.TypeResign, 1, "event:move"))},
		{name: "a second tab of a seat: still one connection", game: twoSeats, steps: append(seated(), leave(1, 0), conn(1), move(0, 1, "b2", "event:move"))},
		{name: "resign", game: twoSeats, steps: append(seated(), ask(1, protocol.TypeResign, 1, "event:move")),
			check: func(t *testing.T, g *game) {
				if g.view.Status != sdk.Over || g.view.Result == nil {
					t.Errorf("after resign: %+v", g.view)
				}
			}},
		{name: "no resignation in a game without", game: func() *game { g := twoSeats(); g.desc.Resign = false; return g },
			steps: append(seated(), ask(1, protocol.TypeResign, 1, "refused:unsupported"))},
		{name: "the host alone starts a new round", game: twoSeats, steps: []happening{conn(0), ask(0, protocol.TypeNewRound, 0, "event:round")},
			check: func(t *testing.T, g *game) {
				if g.round != 2 || g.pending != nil {
					t.Errorf("round %d, pending %+v", g.round, g.pending)
				}
			}},
		{name: "new round by consent", game: twoSeats, steps: append(seated(), move(0, 1, "b2", "event:move"),
			ask(0, protocol.TypeNewRound, 2, "event:request"), ask(0, protocol.TypeAccept, 3, "refused:already_accepted"),
			ask(0, protocol.TypeDecline, 3, "refused:own_request"), ask(1, protocol.TypeAccept, 3, "event:round")),
			check: func(t *testing.T, g *game) {
				if g.round != 2 || g.pending != nil || g.view.Ply != 0 {
					t.Errorf("round %d, pending %+v, ply %d", g.round, g.pending, g.view.Ply)
				}
			}},
		{name: "a declined request changes nothing", game: twoSeats, steps: append(seated(), ask(0, protocol.TypeNewRound, 1, "event:request"),
			ask(1, protocol.TypeWithdraw, 2, "refused:not_your_request"), ask(1, protocol.TypeDecline, 2, "event:decline"), ask(1, protocol.TypeAccept, 3, "refused:no_request")),
			check: func(t *testing.T, g *game) {
				if g.round != 1 || g.pending != nil {
					t.Errorf("round %d, pending %+v", g.round, g.pending)
				}
			}},
		{name: "a request twice", game: twoSeats, steps: append(seated(), ask(0, protocol.TypeNewRound, 1, "event:request"), ask(1, protocol.TypeNewRound, 2, "refused:already_requested"))},
		{name: "spectators cannot act", game: twoSeats, steps: append(seated(), move(-1, 1, "b2", "refused:spectator"), ask(-1, protocol.TypeSeatCode, 1, "refused:spectator"))},
		{name: "ping, hello again, a seat code", game: twoSeats, steps: append(seated(), happening{seat: -1, req: protocol.Request{Type: protocol.TypePing, ID: "p"}, want: "pong"},
			happening{seat: 0, req: protocol.Request{Type: protocol.TypeHello}, want: "refused:bad_request"}, happening{seat: 0, req: protocol.Request{Type: protocol.TypeSeatCode}, want: "seatCode"})},
		{name: "a broken room refuses actions", game: func() *game { g := twoSeats(); g.broken = &protocol.Broken{Code: "replay_failed"}; return g },
			steps: []happening{conn(0), move(0, 0, "b2", "refused:room_broken")}},
		{name: "computer seats: only the host starts, once", game: fourSeats, steps: []happening{conn(0), ask(0, protocol.TypeStart, 0, "event:start"), ask(0, protocol.TypeStart, 1, "refused:started")},
			check: func(t *testing.T, g *game) {
				p := g.presence(t0)
				if !p.Started || p.Seats[0].Computer || !p.Seats[1].Computer || !p.Seats[3].Computer {
					t.Errorf("presence after the start: %+v", p)
				}
			}},
		{name: "computer seats: a guest may not start", game: fourSeats, steps: []happening{claim(1), conn(1), ask(1, protocol.TypeStart, 1, "refused:not_host")}},
		{name: "computer seats: moves wait for the start", game: fourSeats, steps: []happening{conn(0), move(0, 0, "x", "refused:waiting")}},
		{name: "computer seats: nobody waits for an away player", game: fourSeats, steps: []happening{claim(1), claim(2), claim(3), conn(0), conn(1), conn(2), leave(3, 0)},
			check: func(t *testing.T, g *game) {
				if why := g.computerFor(3, t0.Add(grace-time.Second)); why != "" {
					t.Errorf("within the grace the computer plays seat 3 (%q)", why)
				}
				if why := g.computerFor(3, t0.Add(grace)); why != "away" {
					t.Errorf("past the grace: %q, want away", why)
				}
				if !g.presenceStale(t0.Add(grace)) {
					t.Error("past the grace the presence sent is not stale")
				}
				if _, why, ok := g.computerTurn(t0.Add(30 * time.Second)); !ok || why != "time" {
					t.Errorf("seat 0's time per move ran out: %q %v, want time", why, ok)
				}
			}},
		{name: "computer seats: an away seat consents by itself", game: fourSeats, steps: []happening{claim(1), conn(0), conn(1), ask(0, protocol.TypeStart, 1, "event:start"),
			leave(1, 0), happening{seat: 0, req: protocol.Request{Type: protocol.TypeNewRound, Version: ver(2)}, at: grace, want: "event:round"}}},
		{name: "computer seats: a request waits for a player within the grace", game: fourSeats, steps: []happening{claim(1), conn(0), conn(1), ask(0, protocol.TypeStart, 1, "event:start"),
			leave(1, 0), ask(0, protocol.TypeNewRound, 2, "event:request")},
			check: func(t *testing.T, g *game) {
				if _, _, ok := g.roundByConsent(t0.Add(time.Second)); ok {
					t.Error("the round starts within the grace")
				}
				if kind, seat, ok := g.roundByConsent(t0.Add(grace)); !ok || kind != kindRound || seat != 0 {
					t.Errorf("past the grace: %q %d %v, want the requester's round", kind, seat, ok)
				}
			}},
		{name: "presence", game: twoSeats, steps: []happening{claim(1), conn(0), conn(-1), conn(-1), leave(-1, 0)},
			check: func(t *testing.T, g *game) {
				p := g.presence(t0)
				want := []protocol.SeatPresence{{Taken: true, Connected: true}, {Taken: true}}
				if !slices.Equal(p.Seats, want) || p.Spectators != 1 || p.Started {
					t.Errorf("presence %+v, want %+v and one spectator", p, want)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := tc.game()
			for i, s := range tc.steps {
				if got, _ := run(t, g, s); got != s.want {
					t.Fatalf("happening %d (%+v): %q, want %q", i, s, got, s.want)
				}
			}
			if tc.check != nil {
				tc.check(t, g)
			}
		})
	}
}

// TestGameAudiences: what each audience is sent of a move: the seat to
// move its own legal moves, everyone else none; the board as the cells
// that changed; the history never.
func TestGameAudiences(t *testing.T) {
	g := twoSeats()
	for _, s := range seated() {
		run(t, g, s)
	}
	_, ev := run(t, g, move(0, 1, "b2", "event:move"))
	if len(ev.Cells) != 1 || ev.Cells[0].At != 4 {
		t.Fatalf("cells %+v, want the centre", ev.Cells)
	}
	for _, tc := range []struct {
		seat  sdk.Seat
		aud   sdk.Seat
		legal int
	}{{0, -1, 0}, {1, 1, 8}, {-1, -1, 0}} {
		aud := g.audience(tc.seat)
		e := g.eventFor(ev, aud, t0)
		if aud != tc.aud || e.View == nil || len(e.View.Legal) != tc.legal || e.View.Board != nil || e.View.History != nil {
			t.Errorf("seat %d: audience %d, view %+v; want audience %d with %d moves, no board, no history", tc.seat, aud, e.View, tc.aud, tc.legal)
		}
	}
	if e := g.eventFor(protocol.Event{Type: protocol.EvJoin}, -1, t0); e.View != nil {
		t.Errorf("a join carries a view: %+v", e.View)
	}
}

// TestGameWelcome: a hello is answered with the whole view, or with the
// events missed when they are all kept, the last that changes the view
// carrying it.
func TestGameWelcome(t *testing.T) {
	g := twoSeats()
	for _, s := range append(seated(), move(0, 1, "b2", "event:move"), move(1, 2, "a1", "event:move")) {
		if got, _ := run(t, g, s); got != s.want {
			t.Fatalf("%+v: %q", s, got)
		}
	}
	full := g.welcome(1, nil, "", t0)
	if len(full) != 1 || full[0].Resync != "full" || len(full[0].View.History) != 2 || len(full[0].View.Legal) != 0 {
		t.Fatalf("welcome without a version: %+v", full)
	}
	evs := g.welcome(0, ver(1), "", t0)
	if len(evs) != 3 || evs[0].Resync != "events" || evs[1].View != nil || evs[2].View == nil || len(evs[2].View.Legal) == 0 || evs[2].Version != 3 {
		t.Fatalf("welcome from version 1: %+v", evs)
	}
	g.keep = 1
	g.recent = eventRing{}
	run(t, g, move(0, 3, "c3", "event:move"))
	if evs := g.welcome(0, ver(1), "", t0); evs[0].Resync != "full" {
		t.Fatalf("welcome past what is kept: %+v", evs[0])
	}
	if w := g.welcome(-1, nil, "", t0)[0]; *w.Seat != -1 || w.View.Legal == nil || len(w.View.Legal) != 0 {
		t.Fatalf("a spectator's welcome: seat %d, legal %v", *w.Seat, w.View.Legal)
	}
}

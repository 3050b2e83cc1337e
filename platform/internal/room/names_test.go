package room

import (
	"strings"
	"testing"

	"github.com/banmen/banmen/platform/protocol"
	"github.com/banmen/banmen/sdk"
)

func named(seat sdk.Seat, version int64, name, want string) happening {
	return happening{seat: seat, req: protocol.Request{Type: protocol.TypeName, Version: ver(version), Name: name}, want: want}
}

func TestGameNames(t *testing.T) {
	for _, tc := range []struct {
		name  string
		steps []happening
		want  []string // the names presence shows
	}{
		{name: "each seat names itself", steps: append(seated(), named(0, 1, "  Taro ", "event:name"), named(1, 2, "花子", "event:name")), want: []string{"Taro", "花子"}},
		{name: "an empty name clears it", steps: append(seated(), named(1, 1, "Hanako", "event:name"), named(1, 2, "", "event:name")), want: []string{"", ""}},
		{name: "HTML is text", steps: append(seated(), named(0, 1, "<b>x</b>&amp;", "event:name")), want: []string{"<b>x</b>&amp;", ""}},
		{name: "too long", steps: append(seated(), named(0, 1, strings.Repeat("é", protocol.MaxNameRunes+1), "refused:bad_name"), named(0, 1, strings.Repeat("é", protocol.MaxNameRunes), "event:name")),
			want: []string{strings.Repeat("é", protocol.MaxNameRunes), ""}},
		{name: "control characters", steps: append(seated(), named(0, 1, "a\nb", "refused:bad_name"), named(0, 1, "a\x00", "refused:bad_name"), named(0, 1, "\u202eevil", "refused:bad_name"), named(0, 1, "\xff", "refused:bad_name")), want: []string{"", ""}},
		{name: "spectators have no name", steps: append(seated(), named(-1, 1, "Watcher", "refused:spectator")), want: []string{"", ""}},
		{name: "a stale version", steps: append(seated(), named(0, 0, "Taro", "refused:stale")), want: []string{"", ""}},
		{name: "a resent name is a duplicate", steps: append(seated(), named(0, 1, "Taro", "event:name"), named(0, 1, "Taro", "ack:duplicate")), want: []string{"Taro", ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := twoSeats()
			for i, s := range tc.steps {
				if got, _ := run(t, g, s); got != s.want {
					t.Fatalf("step %d (%+v): got %q, want %q", i, s.req, got, s.want)
				}
			}
			p := g.presence(t0)
			for i, w := range tc.want {
				if p.Seats[i].Name != w {
					t.Errorf("seat %d's name %q, want %q", i, p.Seats[i].Name, w)
				}
			}
		})
	}
}

// A lone player renaming keeps no room alive: names count with the
// rounds without a move.
func TestGameNamesCapped(t *testing.T) {
	g := idleGame()
	for i, s := range []happening{conn(0), named(0, 0, "a", "event:name"), named(0, 1, "b", "event:name"), named(0, 2, "c", "refused:play_first"), ask(0, protocol.TypeNewRound, 2, "refused:play_first")} {
		if got, _ := run(t, g, s); got != s.want {
			t.Fatalf("step %d: got %q, want %q", i, got, s.want)
		}
	}
}

// TestNamesReplay: names are in the log; a reloaded room has them, and a
// client catching up gets the name event.
func TestNamesReplay(t *testing.T) {
	e := newEnv(t)
	c, host, guest, hs, gs, gkey := twoPlayers(t, e)
	host.Act(t.Context(), protocol.Request{Type: protocol.TypeName, ID: "n", Version: v(1), Name: "Taro"})
	if ev, _ := find(gs.take(), protocol.EvName); ev.Name != "Taro" || *ev.Seat != 0 || ev.Version != 2 {
		t.Fatalf("the guest got %+v, want seat 0 named Taro at version 2", ev)
	}
	hs.take()
	guest.Leave()
	host.Leave()
	e.restart()
	_, s := e.join(c.Room, Hello{SeatKey: gkey, Version: v(1)})
	evs := s.take()
	if ev, _ := find(evs, protocol.EvName); ev.Name != "Taro" {
		t.Errorf("catching up from version 1: %+v, want the name event", evs)
	}
	_, s2 := e.join(c.Room, Hello{Watch: true})
	if w, _ := find(s2.take(), protocol.EvWelcome); w.Presence.Seats[0].Name != "Taro" {
		t.Errorf("a spectator's welcome presence %+v, want seat 0 named Taro", w.Presence)
	}
}

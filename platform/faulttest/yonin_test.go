package faulttest_test

import (
	"slices"
	"testing"
	"time"

	"github.com/banmen/banmen/platform/client"
	"github.com/banmen/banmen/platform/faulttest"
	"github.com/banmen/banmen/sdk"
)

// TestKillHostWhileComputerThinks plays a Yonin room of one player and
// three computer seats (hard, which thinks the longest) and SIGKILLs the host while the computer
// is thinking for a seat, three times. After each restart the room goes
// on from its log: every acknowledged move is there, none twice, and the
// computer moves again for the seat whose turn it is.
func TestKillHostWhileComputerThinks(t *testing.T) {
	data := t.TempDir()
	h := start(t, data)
	ctx := timeout(t, 3*time.Minute)
	c := client.New(h.URL, nil)
	cr, err := c.CreateRoom(ctx, "yonin", sdk.Options{sdk.SettingLevel: string(sdk.Hard)})
	if err != nil {
		t.Fatal(err)
	}
	p := c.Player(cr.Room, cr.SeatKey)
	if err := p.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Do(ctx, "start", ""); err != nil {
		t.Fatal(err)
	}
	var seen []sdk.PlayedMove // the history as this player last saw it
	for kill := 0; kill < 3; kill++ {
		// The player's turn (the computer seats move first after a restart).
		for p.View.Status == sdk.Playing && p.View.ToMove[0] != 0 {
			if _, err := p.Next(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if p.View.Status != sdk.Playing {
			t.Fatalf("the game ended at ply %d", p.View.Ply)
		}
		busy := engineCPU(h)
		legal := p.View.Legal
		if _, err := p.Do(ctx, "move", legal[kill%len(legal)].Move); err != nil {
			t.Fatal(err)
		}
		acked := p.Version
		seen = slices.Clone(p.View.History)
		// Wait until an engine process is using CPU: the computer is
		// thinking for seat 1. Then kill the host outright.
		for deadline := time.Now().Add(20 * time.Second); engineCPU(h) <= busy; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("no engine process started thinking")
			}
		}
		h.Kill()
		h = start(t, data)
		c = client.New(h.URL, nil)
		p = c.Player(cr.Room, cr.SeatKey)
		if err := p.Connect(ctx); err != nil {
			t.Fatal(err)
		}
		if p.Version < acked {
			t.Fatalf("after the restart the room is at version %d, before the acknowledged %d", p.Version, acked)
		}
		if len(p.View.History) < len(seen) || !slices.Equal(p.View.History[:len(seen)], seen) {
			t.Fatalf("after the restart the history %v does not begin with the acknowledged %v", p.View.History, seen)
		}
		// Beyond them, at most the computer seats' moves committed
		// before the kill, never one for the player.
		for _, m := range p.View.History[len(seen):] {
			if m.Seat == 0 {
				t.Fatalf("after the restart the player's seat has a move it did not make: %v", p.View.History[len(seen):])
			}
		}
		// The computer moves again for the seats to move, up to the
		// player's turn.
		before := len(p.View.History)
		for p.View.Status == sdk.Playing && p.View.ToMove[0] != 0 {
			ev, err := p.Next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if ev.Type == "move" && !ev.Computer {
				t.Errorf("a move not made by the computer while the player waits: %+v", ev)
			}
		}
		if len(p.View.History) <= before && p.View.Status == sdk.Playing {
			t.Fatal("the computer made no move after the restart")
		}
		for i, m := range p.View.History {
			if i > 0 && m.Seat == p.View.History[i-1].Seat {
				t.Errorf("ply %d: seat %d moved twice in a row: %v", i, m.Seat, p.View.History)
			}
		}
	}
}

// engineCPU is the CPU time of the host's yonin processes (the rules and
// the engine process).
func engineCPU(h *faulttest.Host) time.Duration {
	kids, _ := faulttest.Children(h.PID())
	var sum time.Duration
	for pid, comm := range kids {
		if comm == "yonin" {
			d, _ := faulttest.CPU(pid)
			sum += d
		}
	}
	return sum
}

package room

import (
	"context"
	"errors"
	"time"

	"github.com/banmen/banmen/platform/internal/store"
	"github.com/banmen/banmen/platform/protocol"
	"github.com/banmen/banmen/sdk"
)

// Computer moves are thought outside the room's locks, one at a time per
// room, and at most Config.ComputerWorkers at a time for every room of the
// Manager (the pool): a hundred rooms with computer seats queue for the
// pool, never for a room, so a player's move in any room goes through
// while they think. The move found is then played like a player's:
// checked by Play, appended to the log as the next version (a room moved
// on meanwhile drops it: the store's version arbitrates, so it is never
// played twice), and only then broadcast.

// kick starts the computer's thinking when the seat to move is played by
// the computer now. Called with mu held, after every change.
func (r *Room) kick() {
	select {
	case <-r.m.closed:
		return
	default:
	}
	if r.thinking || r.gone {
		return
	}
	seat, why, ok := r.g.computerTurn(r.m.cfg.Now())
	if !ok || !r.m.cfg.RunsComputer(r.id) {
		return
	}
	r.thinking = true
	r.m.thinkers.Add(1)
	go r.think(r.g.version, seat, r.g.state, why)
}

// think asks for the computer's move for seat at version and plays it if
// the room is still there.
func (r *Room) think(version int64, seat sdk.Seat, st sdk.State, why string) {
	m := r.m
	defer m.thinkers.Done()
	tctx, stop := context.WithTimeout(context.Background(), m.cfg.ThinkTimeout)
	go func() { // a closing Manager stops the search at once
		select {
		case <-m.closed:
			stop()
		case <-tctx.Done():
		}
	}()
	var move sdk.Move
	var err error
	select {
	case m.pool <- struct{}{}:
		move, err = m.cfg.Rules.(ComputerRules).Suggest(tctx, SuggestRequest{Variant: r.g.meta.Variant, State: st, Seat: seat, Level: r.g.level()})
		<-m.pool
	case <-tctx.Done():
		err = tctx.Err()
	case <-m.closed:
		err = errors.New("the room manager is closing")
	}
	stop()
	// Playing the move found has a deadline of its own.
	ctx, cancel := context.WithTimeout(context.Background(), m.cfg.ThinkTimeout)
	defer cancel()
	r.turn.Lock()
	defer r.turn.Unlock()
	r.mu.Lock()
	r.thinking = false
	if err != nil {
		// The next Tick tries again.
		m.cfg.Logger.Warn("computer move failed", "room", r.id, "seat", seat, "err", err)
		r.mu.Unlock()
		return
	}
	if r.g.version != version || r.gone {
		r.kick() // someone moved first (a player beat the clock): think again if needed
		r.mu.Unlock()
		return
	}
	r.mu.Unlock()
	a := store.Action{Room: r.id, Version: version + 1, Kind: kindComputer, Seat: int(seat), Move: string(move), At: m.cfg.Now()}
	err = r.perform(ctx, a, false, func(ev protocol.Event) {
		r.broadcast(ev)
		if r.g.presenceStale(m.cfg.Now()) {
			r.broadcastPresence()
		}
		r.kick()
	})
	r.afterComputer(ctx, err, "computer move", "seat", seat, "move", move, "why", why)
}

// afterComputer logs what went wrong with an action the host made for the
// computer (a move, a round by consent); a version another host played
// first is caught up from the log, and nothing is played twice. Called
// with turn held and mu not.
func (r *Room) afterComputer(ctx context.Context, err error, what string, args ...any) {
	if err == nil {
		return
	}
	args = append([]any{"room", r.id, "err", err}, args...)
	var se storeErr
	switch {
	case errors.As(err, &se) && errors.Is(err, store.ErrConflict):
		if err := r.catchUp(ctx); err != nil {
			r.m.cfg.Logger.Warn("room catch-up failed", "room", r.id, "err", err)
		}
		r.mu.Lock()
		r.kick()
		r.mu.Unlock()
	case errors.As(err, &se):
		r.m.cfg.Logger.Warn(what+" not stored", args...)
	case !errors.Is(err, errDropped):
		r.m.cfg.Logger.Warn(what+" refused", args...)
	}
}

// Tick looks at every room in memory for a computer move that is due: a
// player gone past the away grace, a time per move run out, a computer
// move that failed and is tried again; and for a seat now gone (claim.go),
// which presence tells. Run calls it; tests with a fake
// clock call it after moving the clock.
func (m *Manager) Tick() {
	m.mu.Lock()
	rooms := make([]*Room, 0, len(m.rooms))
	for _, r := range m.rooms {
		rooms = append(rooms, r)
	}
	m.mu.Unlock()
	for _, r := range rooms {
		if !isReady(r) || r.loadErr != nil {
			continue
		}
		r.mu.Lock()
		if !r.g.computer { // (fixed once ready) a 2-player room's seat may be gone now
			if r.g.presenceStale(m.cfg.Now()) {
				r.broadcastPresence()
			}
			r.mu.Unlock()
			continue
		}
		if r.g.presenceStale(m.cfg.Now()) {
			r.broadcastPresence() // an away player's grace ran out
		}
		r.kick()
		_, _, due := r.g.roundByConsent(m.cfg.Now())
		r.mu.Unlock()
		if due {
			r.roundByConsent()
		}
	}
}

// roundByConsent starts the requested new round when the only seats yet to
// consent are away players' whose grace just ran out: their seats consent
// by themselves, so a player who never comes back blocks nothing. The
// round is logged as the requester's action.
func (r *Room) roundByConsent() {
	if !r.m.cfg.RunsComputer(r.id) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), r.m.cfg.ThinkTimeout)
	defer cancel()
	r.turn.Lock()
	defer r.turn.Unlock()
	r.mu.Lock()
	kind, seat, ok := r.g.roundByConsent(r.m.cfg.Now())
	a := store.Action{Room: r.id, Version: r.g.version + 1, Kind: kind, Seat: int(seat), At: r.m.cfg.Now()}
	gone := r.gone
	r.mu.Unlock()
	if !ok || gone {
		return
	}
	err := r.perform(ctx, a, false, func(ev protocol.Event) {
		r.broadcast(ev)
		r.kick()
	})
	r.afterComputer(ctx, err, "new round by consent")
}

// Run calls Tick every interval until ctx ends, then waits for the
// computer moves being thought.
func (m *Manager) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			m.Close()
			return
		case <-t.C:
			m.Tick()
		}
	}
}

// Close stops computer moves from starting and waits for those in flight.
func (m *Manager) Close() {
	m.closeOnce.Do(func() { close(m.closed) })
	m.thinkers.Wait()
}

// Thinking tells whether the computer is thinking for a seat of the room
// (for tests and the fault test's host).
func (r *Room) Thinking() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.thinking
}

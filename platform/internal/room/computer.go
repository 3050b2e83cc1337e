package room

import (
	"context"
	"errors"
	"time"

	"github.com/banmen/banmen/platform/internal/store"
	"github.com/banmen/banmen/sdk"
)

// ComputerRules is Rules that can ask the variant's computer player for a
// move (the plugin's Suggest). The host sends these calls to an engine
// process of their own (pluginhost), so that a search never delays a
// player's Play.
type ComputerRules interface {
	Suggest(ctx context.Context, variant string, s sdk.State, seat sdk.Seat, level sdk.Level) (sdk.Move, error)
}

// Computer moves are thought outside the room's lock, one at a time per
// room, and at most Config.ComputerWorkers at a time for every room of the
// Manager (the pool): a hundred rooms with computer seats queue for the
// pool, never for a room's lock, so a player's move in any room goes
// through while they think. The move found is then played like a player's:
// checked by Play, appended to the log as the next version (a room moved
// on meanwhile drops it: the store's version arbitrates, so it is never
// played twice), and only then broadcast.

// kick starts the computer's thinking when the seat to move is played by
// the computer now. Called with r.mu held, after every change.
func (r *Room) kick() {
	select {
	case <-r.m.closed:
		return
	default:
	}
	if r.thinking || r.gone || r.broken != nil || r.view.Status != sdk.Playing || len(r.view.ToMove) == 0 {
		return
	}
	seat := r.view.ToMove[0]
	now := r.m.cfg.Now()
	why := r.computerFor(seat, now)
	if why == "" || !r.m.cfg.RunsComputer(r.id) {
		return
	}
	r.thinking = true
	r.m.thinkers.Add(1)
	go r.think(r.version, seat, r.state, why)
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
		move, err = m.cfg.Rules.(ComputerRules).Suggest(tctx, r.meta.Variant, st, seat, r.level())
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
	r.mu.Lock()
	defer r.mu.Unlock()
	r.thinking = false
	if err != nil {
		// The next Tick tries again.
		m.cfg.Logger.Warn("computer move failed", "room", r.id, "seat", seat, "err", err)
		return
	}
	if r.version != version || r.gone {
		r.kick() // someone moved first (a player beat the clock): think again if needed
		return
	}
	a := store.Action{Room: r.id, Version: version + 1, Kind: kindComputer, Seat: int(seat), Move: string(move), At: m.cfg.Now()}
	e, err := r.prepare(ctx, a)
	if err != nil {
		m.cfg.Logger.Warn("computer move refused by the rules", "room", r.id, "seat", seat, "move", move, "err", err)
		return
	}
	if err := m.cfg.Store.Append(ctx, a); err != nil {
		if errors.Is(err, store.ErrConflict) {
			// Another host played this version first (its player, or its
			// own computer move for the seat): catch up from the log and
			// look again. Nothing is played twice.
			if err := r.catchUp(ctx); err != nil {
				m.cfg.Logger.Warn("room catch-up failed", "room", r.id, "err", err)
			}
			r.kick()
			return
		}
		m.cfg.Logger.Warn("computer move not stored", "room", r.id, "seat", seat, "why", why, "err", err)
		return
	}
	ev := r.commit(a, e)
	r.broadcast(ev)
	if r.presenceKey() != r.shownComputer {
		r.broadcastPresence()
	}
	r.kick()
}

// Tick looks at every room in memory for a computer move that is due: a
// player gone past the away grace, a time per move run out, a computer
// move that failed and is tried again. Run calls it; tests with a fake
// clock call it after moving the clock.
func (m *Manager) Tick() {
	m.mu.Lock()
	rooms := make([]*Room, 0, len(m.rooms))
	for _, r := range m.rooms {
		rooms = append(rooms, r)
	}
	m.mu.Unlock()
	for _, r := range rooms {
		select {
		case <-r.ready:
		default:
			continue
		}
		if r.loadErr != nil || !r.hasComputer() { // desc is fixed once ready
			continue
		}
		r.mu.Lock()
		if r.presenceKey() != r.shownComputer {
			r.broadcastPresence() // an away player's grace ran out
		}
		r.roundByConsent()
		r.kick()
		r.mu.Unlock()
	}
}

// presenceKey is a short summary of which seats the computer plays, so
// Tick tells the room when an away player's seat passes to the computer
// (shownComputer is the one the last presence said).
func (r *Room) presenceKey() string {
	now := r.m.cfg.Now()
	b := make([]byte, len(r.taken))
	for i := range r.taken {
		b[i] = '0'
		if r.playedByComputer(i, now) {
			b[i] = '1'
		}
	}
	return string(b)
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

// roundByConsent starts the requested new round when the only seats yet to
// consent are away players' whose grace just ran out: their seats consent
// by themselves, so a player who never comes back blocks nothing. The
// round is logged as the requester's action. Called with r.mu held.
func (r *Room) roundByConsent() {
	p := r.pending
	if p == nil || r.gone || r.broken != nil || !r.m.cfg.RunsComputer(r.id) || !r.othersConsent(p.By, p.Accepted) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), r.m.cfg.ThinkTimeout)
	defer cancel()
	a := store.Action{Room: r.id, Version: r.version + 1, Kind: kindRound, Seat: int(p.By), At: r.m.cfg.Now()}
	e, err := r.prepare(ctx, a)
	if err != nil {
		r.m.cfg.Logger.Warn("new round by consent refused", "room", r.id, "err", err)
		return
	}
	if err := r.m.cfg.Store.Append(ctx, a); err != nil {
		if errors.Is(err, store.ErrConflict) {
			if err := r.catchUp(ctx); err != nil {
				r.m.cfg.Logger.Warn("room catch-up failed", "room", r.id, "err", err)
			}
			return
		}
		r.m.cfg.Logger.Warn("new round by consent not stored", "room", r.id, "err", err)
		return
	}
	r.broadcast(r.commit(a, e))
}

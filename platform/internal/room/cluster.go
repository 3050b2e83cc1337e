package room

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/banmen/banmen/platform/protocol"
	"github.com/banmen/banmen/sdk"
)

// Several hosts may serve the rooms of one store (PostgreSQL), the players of
// one room connected to different hosts. Each host holds its own copy of a
// room in memory; the store's log stays the truth and arbitrates: an action
// appended by one host is a version conflict for another host's action at
// the same version, and the loser catches up from the log. Hosts learn of
// each other's actions and connections from notes (NOTIFY) and catch up
// then; a note lost or late only delays an event, never changes an outcome.
//
// Presence is shared through the Cluster: which connection, on which host,
// holds each seat. The last connection to take a seat wins on every host
// (the store serialises the writes), so a second tab on another host
// replaces the first, as it does on one host.

// Cluster is what rooms share with other hosts beyond the log.
type Cluster interface {
	// Host is this host's ID, unique among the hosts alive.
	Host() string
	// Connect records that connection conn (of this host) holds seat,
	// replacing any other, and tells the other hosts.
	Connect(ctx context.Context, room string, seat int, conn string) error
	// Disconnect ends conn's hold on seat if it still has it.
	Disconnect(ctx context.Context, room string, seat int, conn string) error
	// Presence is the connection holding each connected seat, any host,
	// and how many spectators watch the room on the other hosts.
	Presence(ctx context.Context, room string) (held map[int]string, watchers int, err error)
	// Watchers records how many spectators watch room on this host.
	Watchers(ctx context.Context, room string, n int) error
	// PutCode makes code (until expires) the seat's one-time code, on
	// every host, replacing its previous one.
	PutCode(ctx context.Context, room string, seat int, code string, expires time.Time) error
	// TakeCode uses up a code valid at now and tells the seat it moves;
	// ok is false for a wrong, used or expired code.
	TakeCode(ctx context.Context, room, code string, now time.Time) (seat int, ok bool, err error)
}

// clusterRoom is a room's view of the other hosts' connections.
type clusterRoom struct {
	// holders is the connection holding each seat as last read from the
	// Cluster ("" for none); watchers the spectators of the other hosts.
	holders  []string
	watchers int
}

var connSeq atomic.Int64

// clusterTimeout bounds a presence write or read under the room's lock.
const clusterTimeout = 5 * time.Second

// newConnID names a connection uniquely among hosts: the host's ID, a
// counter.
func (m *Manager) newConnID() string {
	return m.cfg.Cluster.Host() + "/" + strconv.FormatInt(connSeq.Add(1), 10)
}

func (m *Manager) local(conn string) bool {
	return strings.HasPrefix(conn, m.cfg.Cluster.Host()+"/")
}

// clusterJoined records a session's seat in the Cluster. Called with r.mu.
func (r *Room) clusterJoined(s *Session) {
	if r.m.cfg.Cluster == nil || s.seat < 0 {
		return
	}
	s.conn = r.m.newConnID()
	if r.cl != nil && int(s.seat) < len(r.cl.holders) {
		r.cl.holders[s.seat] = s.conn
	}
	ctx, cancel := context.WithTimeout(context.Background(), clusterTimeout)
	defer cancel()
	if err := r.m.cfg.Cluster.Connect(ctx, r.id, int(s.seat), s.conn); err != nil {
		r.m.cfg.Logger.Warn("room presence not shared", "room", r.id, "seat", s.seat, "err", err)
	}
}

// clusterWatchers records this host's spectator count of the room. Called
// with r.mu.
func (r *Room) clusterWatchers() {
	if r.m.cfg.Cluster == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), clusterTimeout)
	defer cancel()
	if err := r.m.cfg.Cluster.Watchers(ctx, r.id, len(r.spectators)); err != nil {
		r.m.cfg.Logger.Warn("room spectators not shared", "room", r.id, "err", err)
	}
}

// clusterLeft removes a session's hold on its seat (or, for a spectator,
// counts one fewer). Called with r.mu.
func (r *Room) clusterLeft(s *Session) {
	if r.m.cfg.Cluster != nil && s.seat < 0 {
		r.clusterWatchers()
		return
	}
	if r.m.cfg.Cluster == nil || s.seat < 0 || s.conn == "" {
		return
	}
	if r.cl != nil && int(s.seat) < len(r.cl.holders) && r.cl.holders[s.seat] == s.conn {
		r.cl.holders[s.seat] = ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), clusterTimeout)
	defer cancel()
	if err := r.m.cfg.Cluster.Disconnect(ctx, r.id, int(s.seat), s.conn); err != nil {
		r.m.cfg.Logger.Warn("room presence not shared", "room", r.id, "seat", s.seat, "err", err)
	}
}

// refreshPresence reads who holds each seat; a local connection whose
// seat another connection took since is replaced. It tells whether
// anything changed. Called with mu.
func (r *Room) refreshPresence(ctx context.Context) (bool, error) {
	if r.m.cfg.Cluster == nil {
		return false, nil
	}
	held, watchers, err := r.m.cfg.Cluster.Presence(ctx, r.id)
	if err != nil {
		return false, err
	}
	if r.cl == nil {
		r.cl = &clusterRoom{}
	}
	changed := watchers != r.cl.watchers
	r.cl.watchers, r.g.others = watchers, watchers
	if len(r.cl.holders) != len(r.conns) {
		r.cl.holders, changed = make([]string, len(r.conns)), true
	}
	now := r.m.cfg.Now()
	for i := range r.cl.holders {
		h := held[i]
		if h != r.cl.holders[i] {
			if h == "" && r.conns[i] == nil {
				r.g.awaySince[i] = now // its player left another host: the grace starts
			}
			r.cl.holders[i], changed = h, true
		}
		r.g.elsewhere[i] = h != "" && !r.m.local(h) // this host's own connections are in conns
		if s := r.conns[i]; s != nil && h != "" && h != s.conn {
			r.replace(s, "another_connection")
			changed = true
		}
	}
	return changed, nil
}

// catchUp applies, in order, the actions committed since the room's
// version (by other hosts) and broadcasts them to this host's connections.
// A seat moved to another device elsewhere ends its connection here.
// Called with turn held and mu not.
func (r *Room) catchUp(ctx context.Context) error {
	r.mu.Lock()
	broken, version := r.g.broken != nil, r.g.version
	r.mu.Unlock()
	if broken {
		return nil
	}
	acts, err := r.m.cfg.Store.Actions(ctx, r.id, version)
	if err != nil {
		return err
	}
	rekeyed := false
	for _, a := range acts {
		if a.Version != version+1 {
			return fmt.Errorf("room %s: the log jumps from version %d to %d", r.id, version, a.Version)
		}
		err := r.perform(ctx, a, true, func(ev protocol.Event) {
			if a.Kind == kindRekey {
				if old := r.conns[a.Seat]; old != nil {
					r.replace(old, "moved")
				}
			}
			r.broadcast(ev)
		})
		if err != nil {
			if _, rule := sdk.AsRuleError(err); rule {
				r.mu.Lock()
				r.g.broken = &protocol.Broken{Code: "replay_failed", At: a.Version, RulesVersion: r.g.meta.RulesVersion,
					Installed: r.m.cfg.RulesVersion(r.g.desc),
					Message:   fmt.Sprintf("the installed rules refuse this room's action at version %d: %v", a.Version, err)}
				r.mu.Unlock()
				r.m.cfg.Logger.Warn("room action from another host does not replay", "room", r.id, "at", a.Version, "err", err)
				return nil
			}
			return fmt.Errorf("%w: %v", ErrRulesUnavailable, err)
		}
		version = a.Version
		rekeyed = rekeyed || a.Kind == kindRekey || a.Kind == kindClaim
	}
	if rekeyed {
		keys, err := r.m.cfg.Store.SeatKeys(ctx, r.id)
		if err != nil {
			return err
		}
		r.mu.Lock()
		r.setKeys(keys)
		r.mu.Unlock()
	}
	if len(acts) > 0 {
		r.mu.Lock()
		r.kick() // a computer seat may be due now
		r.mu.Unlock()
	}
	return nil
}

// catchUpTo catches the room up from the log when a client arrives having
// seen a later version than this host's copy (it came from another host,
// whose note has not arrived yet). Called with turn held and mu not.
func (r *Room) catchUpTo(ctx context.Context, seen *int64) {
	r.mu.Lock()
	behind := r.m.cfg.Cluster != nil && seen != nil && *seen > r.g.version
	r.mu.Unlock()
	if !behind {
		return
	}
	if err := r.catchUp(ctx); err != nil {
		r.m.cfg.Logger.Warn("room catch-up failed", "room", r.id, "err", err)
	}
}

// Changed is a note from another host: room reached version (0: unknown,
// check). A room in memory catches up; others load fresh when opened.
func (m *Manager) Changed(room string, version int64) {
	r := m.loaded(room)
	if r == nil {
		return
	}
	// Most notes are a host's own appends coming back: settled here, on
	// the listener's goroutine, when the room is not busy.
	if version > 0 && r.mu.TryLock() {
		done := r.gone || r.g.version >= version
		r.mu.Unlock()
		if done {
			return
		}
	}
	go func() {
		r.turn.Lock()
		defer r.turn.Unlock()
		r.mu.Lock()
		done := r.gone || (version > 0 && r.g.version >= version)
		r.mu.Unlock()
		if done {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := r.catchUp(ctx); err != nil {
			m.cfg.Logger.Warn("room catch-up failed", "room", room, "err", err)
		}
	}()
}

// PresenceChanged is a note from another host: a seat's connection of
// room changed.
func (m *Manager) PresenceChanged(room string) {
	r := m.loaded(room)
	if r == nil {
		return
	}
	go func() {
		r.turn.Lock()
		defer r.turn.Unlock()
		r.mu.Lock()
		gone := r.gone
		r.mu.Unlock()
		if gone {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), clusterTimeout)
		defer cancel()
		// The log first: a connection that came with a seat code arrives
		// with a rekey whose note may still be on its way, and the seat's
		// old connection must hear that it moved.
		if err := r.catchUp(ctx); err != nil {
			m.cfg.Logger.Warn("room catch-up failed", "room", room, "err", err)
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		changed, err := r.refreshPresence(ctx)
		if err != nil {
			m.cfg.Logger.Warn("room presence not read", "room", room, "err", err)
		}
		if changed {
			r.broadcastPresence()
		}
	}()
}

// Purged is a note from another host: room expired and was deleted.
func (m *Manager) Purged(room string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.rooms[room]
	if r == nil || !isReady(r) {
		return
	}
	r.mu.Lock()
	delete(m.rooms, room)
	r.drop(true)
	r.mu.Unlock()
}

// Resync catches every room in memory up with the store, actions and
// presence: notes may have been lost (the listener reconnected).
func (m *Manager) Resync() {
	for _, id := range m.LoadedIDs() {
		m.Changed(id, 0)
		m.PresenceChanged(id)
	}
}

// Rejoined is called when this host's connections were removed from the
// Cluster (the other hosts took it for dead): they are recorded again, and
// every room's presence is read afresh.
func (m *Manager) Rejoined() {
	for _, id := range m.LoadedIDs() {
		r := m.loaded(id)
		if r == nil {
			continue
		}
		go func() {
			r.mu.Lock()
			defer r.mu.Unlock()
			if r.gone {
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), clusterTimeout)
			defer cancel()
			for _, s := range r.conns {
				if s != nil && s.conn != "" {
					if err := m.cfg.Cluster.Connect(ctx, r.id, int(s.seat), s.conn); err != nil {
						m.cfg.Logger.Warn("room presence not shared", "room", r.id, "seat", s.seat, "err", err)
					}
				}
			}
			if len(r.spectators) > 0 {
				r.clusterWatchers()
			}
			if changed, err := r.refreshPresence(ctx); err == nil && changed {
				r.broadcastPresence()
			}
		}()
	}
}

// shareCode makes a seat code valid on every host (the device it moves the
// seat to may reach another host). Called with r.mu.
func (r *Room) shareCode(c seatCode) {
	if r.m.cfg.Cluster == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), clusterTimeout)
	defer cancel()
	if err := r.m.cfg.Cluster.PutCode(ctx, r.id, int(c.seat), c.code, c.expires); err != nil {
		r.m.cfg.Logger.Warn("seat code not shared", "room", r.id, "seat", c.seat, "err", err)
	}
}

// takeSharedCode is redeemCode with the codes of every host: the store
// decides, so a code is used once whichever hosts it is tried on. Called
// with r.mu.
func (r *Room) takeSharedCode(code string, now time.Time) (sdk.Seat, error) {
	ctx, cancel := context.WithTimeout(context.Background(), clusterTimeout)
	defer cancel()
	seat, ok, err := r.m.cfg.Cluster.TakeCode(ctx, r.id, code, now)
	if err != nil {
		return -1, err
	}
	if !ok || seat < 0 || seat >= len(r.g.taken) {
		r.codeFails = append(r.codeFails, now)
		return -1, ErrBadCode
	}
	r.codes = slices.DeleteFunc(r.codes, func(c seatCode) bool { return c.seat == sdk.Seat(seat) })
	return sdk.Seat(seat), nil
}

// Package room is the engine of online rooms: seats held by seat keys, one
// live connection per seat, spectators, presence, the log of confirmed
// actions, rounds, new-round consent, seat codes and expiry; and, for a
// variant that declares the host setting sdk.SettingLevel (Yonin), computer
// seats (seats.go) and the computer's moves from a pool shared by all
// rooms (computer.go).
//
// It is in three parts: the state machine of a room (game.go, seats.go:
// no I/O), the room's actor (room.go: check → rules → append → apply →
// broadcast, one action at a time), and the Manager (this file: loading by
// replaying the log, expiry, the cluster of hosts in cluster.go).
//
// The log is the truth. Every action is checked (moves by the variant's
// Play), committed to the store, and only then acknowledged and broadcast; a
// room that is not in memory is rebuilt by replaying its log, so the State
// held here is only a cache.
//
// It must never know a game rule: what a move means, whose turn it is and
// when a round is over come from the rules and their View. It never keeps or
// logs a seat key, only its hash.
package room

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/banmen/banmen/platform/internal/store"
	"github.com/banmen/banmen/platform/protocol"
	"github.com/banmen/banmen/sdk"
)

// Errors a client may be told.
var (
	ErrNotFound         = errors.New("no such room (unknown or expired)")
	ErrUnknownVariant   = errors.New("unknown variant")
	ErrBadKey           = errors.New("this seat key holds no seat of this room")
	ErrBadCode          = errors.New("this seat code is not valid (wrong, used or expired)")
	ErrTooManyAttempts  = errors.New("too many wrong seat codes for this room; ask for a new code later")
	ErrRulesUnavailable = errors.New("the rules of this room are unavailable")
)

var (
	errDropped = errors.New("room dropped from memory")
	// errRetry: the room changed under a join (another host's action won
	// the version); it caught up and the join is tried again.
	errRetry = errors.New("room changed on another host")
)

// Config configures a Manager.
type Config struct {
	Store  store.Store
	Rules  Rules
	Logger *slog.Logger
	// TTL is how long a room lives without an action (limits.room_ttl).
	TTL time.Duration
	// Now is the clock (tests inject one).
	Now func() time.Time
	// SeatCodeTTL is how long a seat code is valid; SeatCodeAttempts how
	// many wrong codes a room accepts within SeatCodeTTL.
	SeatCodeTTL      time.Duration
	SeatCodeAttempts int
	// Recent is how many events a room keeps for a reconnecting client to
	// catch up on without a full resync.
	Recent int
	// RulesVersion reads a Description's rules version (its RulesVersion
	// by default; tests stand in an upgraded plugin).
	RulesVersion func(sdk.Description) string

	// Computer seats (seats.go): AwayGrace is how long a player's seat
	// waits for a lost connection before the computer plays it (10 s);
	// ThinkTimeout bounds one computer move (10 s); ComputerWorkers is how
	// many computer moves are thought at once for all rooms (2).
	AwayGrace       time.Duration
	ThinkTimeout    time.Duration
	ComputerWorkers int
	// RunsComputer tells whether this host thinks the computer's moves of
	// a room (default: every room). A store shared by several hosts
	// arbitrates: only one of them should answer true for a room.
	RunsComputer func(room string) bool
	// Cluster shares presence with the other hosts of the store; nil for
	// a host alone (cluster.go).
	Cluster Cluster

	// Limits (limits.go, docs/operations.md "Running it in public"). MaxWatchers is how many
	// spectators a room takes on this host (100). PresenceEvery is the
	// least time between two presence messages of a room (250 ms; <0: no
	// coalescing); AfterFunc runs a held presence's send later (tests
	// trigger it themselves; time.AfterFunc by default). ActionBurst and
	// ActionRate are each connection's action bucket (20 at once, 3 a
	// second). RoundsWithoutMove caps the new rounds and requests since
	// the last move (20; <0: no cap).
	// GoneAfter is how long a 2-player room's seat must be away before the
	// other player may claim the win (claim.go; 40 s; <0: never).
	GoneAfter         time.Duration
	MaxWatchers       int
	PresenceEvery     time.Duration
	AfterFunc         func(d time.Duration, f func())
	ActionBurst       int
	ActionRate        float64
	RoundsWithoutMove int
}

// Manager holds the rooms in memory and loads the others from the store.
type Manager struct {
	cfg   Config
	mu    sync.Mutex
	rooms map[string]*Room

	pool      chan struct{} // a token per computer move being thought
	thinkers  sync.WaitGroup
	closed    chan struct{}
	closeOnce sync.Once
}

// New returns a Manager.
func New(cfg Config) *Manager {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.TTL == 0 {
		cfg.TTL = 7 * 24 * time.Hour
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.SeatCodeTTL == 0 {
		cfg.SeatCodeTTL = 5 * time.Minute
	}
	if cfg.SeatCodeAttempts == 0 {
		cfg.SeatCodeAttempts = 5
	}
	if cfg.Recent == 0 {
		cfg.Recent = 64
	}
	if cfg.RulesVersion == nil {
		cfg.RulesVersion = func(d sdk.Description) string { return d.RulesVersion }
	}
	if cfg.AwayGrace == 0 {
		cfg.AwayGrace = 10 * time.Second
	}
	if cfg.ThinkTimeout == 0 {
		cfg.ThinkTimeout = 10 * time.Second
	}
	if cfg.ComputerWorkers <= 0 {
		cfg.ComputerWorkers = 2
	}
	if cfg.GoneAfter == 0 {
		cfg.GoneAfter = 40 * time.Second
	}
	if cfg.MaxWatchers <= 0 {
		cfg.MaxWatchers = 100
	}
	if cfg.PresenceEvery == 0 {
		cfg.PresenceEvery = 250 * time.Millisecond
	}
	if cfg.AfterFunc == nil {
		cfg.AfterFunc = func(d time.Duration, f func()) { time.AfterFunc(d, f) }
	}
	if cfg.ActionBurst <= 0 {
		cfg.ActionBurst = 20
	}
	if cfg.ActionRate <= 0 {
		cfg.ActionRate = 3
	}
	if cfg.RoundsWithoutMove == 0 {
		cfg.RoundsWithoutMove = 20
	}
	if cfg.RunsComputer == nil {
		cfg.RunsComputer = func(string) bool { return true }
	}
	return &Manager{cfg: cfg, rooms: map[string]*Room{}, pool: make(chan struct{}, cfg.ComputerWorkers), closed: make(chan struct{})}
}

// Created is what the creator of a room is told: the room, the seat it
// holds and the key that holds it (shown once, stored nowhere but a hash).
type Created struct {
	Room    string
	Variant string
	Seat    sdk.Seat
	SeatKey string
}

// newRoom is a room of meta in memory, its game at version 0.
func (m *Manager) newRoom(meta store.Room, desc sdk.Description) *Room {
	_, suggests := m.cfg.Rules.(ComputerRules)
	_, level := desc.HostSetting(sdk.SettingLevel)
	r := &Room{m: m, id: meta.ID, ready: make(chan struct{}), spectators: map[*Session]struct{}{}, conns: make([]*Session, meta.Seats)}
	r.g = newGame(meta, desc, suggests && level, m.cfg.AwayGrace, m.cfg.Recent, m.cfg.Now())
	r.g.idleCap = max(0, m.cfg.RoundsWithoutMove)
	r.g.goneAfter = max(0, m.cfg.GoneAfter)
	return r
}

// Create makes a room of variant with options; its creator holds seat 0.
// Bad options are the rules' *sdk.RuleError.
func (m *Manager) Create(ctx context.Context, variant string, opts sdk.Options) (Created, error) {
	desc, ok := m.cfg.Rules.Describe(variant)
	if !ok {
		return Created{}, ErrUnknownVariant
	}
	if len(desc.Seats) == 0 {
		return Created{}, fmt.Errorf("variant %s has no seats", variant)
	}
	state, view, err := m.cfg.Rules.Start(ctx, StartRequest{Variant: variant, Options: opts})
	if err != nil {
		return Created{}, err
	}
	key, hash := newKeyPair()
	now := m.cfg.Now()
	if opts == nil {
		opts = sdk.Options{}
	}
	meta := store.Room{Variant: variant, Options: opts, Seats: len(desc.Seats),
		RulesVersion: m.cfg.RulesVersion(desc), Created: now, Touched: now}
	for range 3 {
		meta.ID = newID()
		err = m.cfg.Store.CreateRoom(ctx, meta, hash)
		if !errors.Is(err, store.ErrExists) {
			break
		}
	}
	if err != nil {
		return Created{}, fmt.Errorf("create room: %w", err)
	}
	r := m.newRoom(meta, desc)
	r.g.keys[0] = hash
	r.g.state, r.g.view = state, view
	close(r.ready)
	m.mu.Lock()
	m.rooms[meta.ID] = r
	m.mu.Unlock()
	return Created{Room: meta.ID, Variant: variant, Seat: 0, SeatKey: key}, nil
}

// Open returns the room, loading it from the store (replaying its log) when
// it is not in memory. An unknown or expired room is ErrNotFound.
func (m *Manager) Open(ctx context.Context, id string) (*Room, error) {
	for {
		m.mu.Lock()
		r, ok := m.rooms[id]
		if !ok {
			// A copy: the caller's string may be a view of a buffer that is
			// reused (Fiber's c.Params), and this one outlives the request
			// as the map key and the room's ID in the store.
			id = strings.Clone(id)
			r = &Room{m: m, id: id, ready: make(chan struct{})}
			m.rooms[id] = r
			m.mu.Unlock()
			r.loadErr = m.load(ctx, r)
			if r.loadErr != nil {
				m.mu.Lock()
				delete(m.rooms, id)
				m.mu.Unlock()
			} else {
				r.mu.Lock()
				r.kick() // a computer seat to move goes on after a restart
				r.mu.Unlock()
			}
			close(r.ready)
			return r, r.loadErr
		}
		m.mu.Unlock()
		select {
		case <-r.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if r.loadErr != nil {
			if errors.Is(r.loadErr, ErrNotFound) {
				return nil, ErrNotFound
			}
			continue // a failed load by another caller: try ourselves
		}
		r.mu.Lock()
		expired, gone := r.g.expired(m.cfg.Now(), m.cfg.TTL), r.gone
		r.mu.Unlock()
		if expired {
			return nil, ErrNotFound
		}
		if gone {
			continue // Sweep dropped it just now: load again
		}
		return r, nil
	}
}

// load rebuilds room r from the store: its settings, seat keys, and the
// replay of its log through the rules. A log the rules refuse marks the
// room broken; rules that cannot be reached are an error (try again later).
// Nobody else holds r yet.
func (m *Manager) load(ctx context.Context, r *Room) error {
	meta, err := m.cfg.Store.Room(ctx, r.id)
	if errors.Is(err, store.ErrNotFound) {
		return ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("load room: %w", err)
	}
	if meta.Touched.Before(m.cfg.Now().Add(-m.cfg.TTL)) {
		return ErrNotFound
	}
	if meta.Seats < 1 {
		return fmt.Errorf("room %s has %d seats", r.id, meta.Seats)
	}
	desc, ok := m.cfg.Rules.Describe(meta.Variant)
	if !ok {
		desc = sdk.Description{ID: meta.Variant, Seats: make([]sdk.SeatInfo, meta.Seats)}
	}
	loaded := m.newRoom(meta, desc)
	r.g, r.conns, r.spectators = loaded.g, loaded.conns, loaded.spectators
	keys, err := m.cfg.Store.SeatKeys(ctx, r.id)
	if err != nil {
		return fmt.Errorf("load seats: %w", err)
	}
	r.setKeys(keys)
	acts, err := m.cfg.Store.Actions(ctx, r.id, 0)
	if err != nil {
		return fmt.Errorf("load log: %w", err)
	}
	installed := m.cfg.RulesVersion(desc)
	fail := func(at int64, err error) {
		r.g.broken = &protocol.Broken{Code: "replay_failed", At: at, RulesVersion: meta.RulesVersion, Installed: installed,
			Message: fmt.Sprintf("the installed rules cannot replay this room's log at version %d: %v", at, err)}
		if meta.RulesVersion != installed {
			r.g.broken.Code = "rules_changed"
			r.g.broken.Message = fmt.Sprintf("this room was played under rules version %q; the installed rules (%q) cannot replay it at version %d: %v",
				meta.RulesVersion, installed, at, err)
		}
		m.cfg.Logger.Warn("room log does not replay", "room", r.id, "variant", meta.Variant, "at", at, "err", err)
	}
	if !ok {
		fail(0, ErrUnknownVariant)
		return nil
	}
	r.g.state, r.g.view, err = m.cfg.Rules.Start(ctx, StartRequest{Variant: meta.Variant, Options: meta.Options})
	if err != nil {
		if _, rule := sdk.AsRuleError(err); rule {
			fail(0, err)
			return nil
		}
		return fmt.Errorf("%w: %v", ErrRulesUnavailable, err)
	}
	for _, a := range acts {
		if err := r.perform(ctx, a, true, nil); err != nil {
			if _, rule := sdk.AsRuleError(err); rule {
				fail(a.Version, err)
				return nil
			}
			return fmt.Errorf("%w: %v", ErrRulesUnavailable, err)
		}
	}
	if r.g.version != meta.Version {
		fail(r.g.version, fmt.Errorf("the log ends at version %d, the room says %d", r.g.version, meta.Version))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, err := r.refreshPresence(ctx); err != nil {
		return fmt.Errorf("load presence: %w", err)
	}
	return nil
}

// setKeys takes the seats' key hashes as the store holds them.
func (r *Room) setKeys(keys []store.SeatKey) {
	for _, k := range keys {
		if k.Seat >= 0 && k.Seat < len(r.g.keys) {
			r.g.keys[k.Seat] = k.Hash
		}
	}
}

// Sweep purges the rooms idle for longer than the TTL from the store (an
// idempotent sweep), ends their connections, and drops from memory every
// room nobody is connected to (it reloads from the store when needed).
func (m *Manager) Sweep(ctx context.Context) (purged int, err error) {
	now := m.cfg.Now()
	ids, err := m.cfg.Store.Purge(ctx, now.Add(-m.cfg.TTL))
	m.mu.Lock()
	defer m.mu.Unlock()
	for id, r := range m.rooms {
		if !isReady(r) {
			continue
		}
		// A room busy with an action is in use: skip it rather than hold
		// every other room's Open while its rules call runs.
		if !r.turn.TryLock() {
			continue
		}
		if !r.mu.TryLock() {
			r.turn.Unlock()
			continue
		}
		if r.loadErr == nil {
			if exp := r.g.expired(now, m.cfg.TTL); exp || r.idle() {
				delete(m.rooms, id)
				r.drop(exp)
			}
		}
		r.mu.Unlock()
		r.turn.Unlock()
	}
	return len(ids), err
}

// drop marks a room gone from memory; an expired room's connections are
// told so and closed. Called with m.mu and r.mu held.
func (r *Room) drop(expired bool) {
	r.gone = true
	if !expired {
		return
	}
	r.expiredGone = true
	for _, s := range r.sessions() {
		s.send(r.encode(&protocol.Event{Type: protocol.EvError, Version: r.g.version, Code: "room_not_found", Message: ErrNotFound.Error()}))
		s.sub.Close(protocol.CloseNotFound, "not_found")
		s.left = true
	}
	clear(r.conns)
	clear(r.spectators)
}

// Join opens the room and admits a connection (see Room.join).
func (m *Manager) Join(ctx context.Context, id string, h Hello, sub Subscriber) (*Session, error) {
	for {
		r, err := m.Open(ctx, id)
		if err != nil {
			return nil, err
		}
		s, err := r.join(ctx, h, sub)
		if errors.Is(err, errDropped) || errors.Is(err, errRetry) {
			continue // dropped from memory between Open and join, or changed on another host
		}
		return s, err
	}
}

// Loaded is how many rooms are in memory (for metrics and tests).
func (m *Manager) Loaded() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.rooms)
}

// LoadedIDs lists the rooms in memory (a host compares their versions with
// the store's now and then: a note may be lost).
func (m *Manager) LoadedIDs() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	ids := make([]string, 0, len(m.rooms))
	for id := range m.rooms {
		ids = append(ids, id)
	}
	return ids
}

// loaded is the room if it is in memory and loaded.
func (m *Manager) loaded(id string) *Room {
	m.mu.Lock()
	r := m.rooms[id]
	m.mu.Unlock()
	if r == nil || !isReady(r) || r.loadErr != nil {
		return nil
	}
	return r
}

func isReady(r *Room) bool {
	select {
	case <-r.ready:
		return true
	default:
		return false
	}
}

// Package room is the engine of online rooms: seats held by seat keys, one
// live connection per seat, spectators, presence, the log of confirmed
// actions, rounds, new-round consent, seat codes and expiry; and, for a
// variant that declares the host setting sdk.SettingLevel (Yonin), computer
// seats (seats.go), the time per move (clock.go) and the computer's moves
// from a pool shared by all rooms (computer.go).
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
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/banmen/banmen/platform/internal/store"
	"github.com/banmen/banmen/sdk"
)

// Rules is what a room needs of the variants' rules (the plugin host).
type Rules interface {
	Describe(variant string) (sdk.Description, bool)
	Start(ctx context.Context, variant string, opts sdk.Options) (sdk.State, sdk.View, error)
	Play(ctx context.Context, variant string, s sdk.State, seat sdk.Seat, m sdk.Move) (sdk.State, sdk.View, error)
}

// LeanRules is Rules that can answer a Play with only the end of the View's
// History, the entries from historyFrom on (host.HistoryFrom). A room keeps
// every move it confirmed, so it asks for the new one only: at ply 160 of
// shogi that halves the bytes and the CPU of the call through the plugin.
// spare is a View whose Board and Legal arrays the room no longer reads,
// for the answer's (host.Reuse). The legal moves and the board may come
// back packed, the View's Legal and Board then nil (host.PackedLegal,
// host.PackedBoard). each, when the legal moves come back packed, is called
// with every one's seat and JSON (as json.Marshal writes the LegalMove) as
// the answer is checked (host.EachLegalJSON): the room keeps the seat to
// move's list as it is read; it drops what it kept when the call fails.
type LeanRules interface {
	PlayFrom(ctx context.Context, variant string, s sdk.State, seat sdk.Seat, m sdk.Move, historyFrom int, spare *sdk.View, each func(seat sdk.Seat, json []byte)) (sdk.State, sdk.View, Packed, error)
}

// Packed is the parts of a View that the rules kept packed: those not nil
// are nil in the View.
type Packed struct {
	Legal LegalList
	Board Board
	// json is Legal encoded as it arrived (LeanRules' each), until the
	// room has sent the event of the move that brought it (giveBack).
	json *legalJSON
}

// Board is a View's board kept packed (host.Board): the room compares it
// with the one before (a move changes two or three cells of 81) and holds
// no Cell, whose kind string the garbage collector would scan, per cell.
type Board interface {
	// Each calls f with each cell in order until f returns false; c is
	// reused between calls.
	Each(f func(at int, c *sdk.Cell) bool)
	// Changes calls f with each cell that differs from prev's, and is
	// false, calling f for none, when prev is not a Board of the same
	// kind and size.
	Changes(prev Board, f func(at int, c *sdk.Cell)) bool
}

// LegalList is a View's legal moves kept packed (host.LegalList): the room
// encodes them from it for the seat to move, and holds no LegalMove (six
// strings) per move, which the garbage collector would scan in every room.
type LegalList interface {
	// Len is how many moves the list holds.
	Len() int
	// Each calls f with each move in order until f returns false; m is
	// reused between calls.
	Each(f func(m *sdk.LegalMove) bool)
}

// Errors a client may be told.
var (
	ErrNotFound         = errors.New("no such room (unknown or expired)")
	ErrUnknownVariant   = errors.New("unknown variant")
	ErrBadKey           = errors.New("this seat key holds no seat of this room")
	ErrBadCode          = errors.New("this seat code is not valid (wrong, used or expired)")
	ErrTooManyAttempts  = errors.New("too many wrong seat codes for this room; ask for a new code later")
	ErrRulesUnavailable = errors.New("the rules of this room are unavailable")
)

// Action kinds in the log.
const (
	kindMove     = "move" // a move or resign, through Play
	kindClaim    = "claim"
	kindRekey    = "rekey"
	kindRound    = "round" // a new round started by the only seated player
	kindRequest  = "request"
	kindAccept   = "accept"
	kindDecline  = "decline"
	kindWithdraw = "withdraw"
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
		cfg.RulesVersion = descriptionRulesVersion
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
	if cfg.RunsComputer == nil {
		cfg.RunsComputer = func(string) bool { return true }
	}
	return &Manager{cfg: cfg, rooms: map[string]*Room{}, pool: make(chan struct{}, cfg.ComputerWorkers), closed: make(chan struct{})}
}

// descriptionRulesVersion is the rules version a variant declares.
func descriptionRulesVersion(d sdk.Description) string { return d.RulesVersion }

// Created is what the creator of a room is told: the room, the seat it
// holds and the key that holds it (shown once, stored nowhere but a hash).
type Created struct {
	Room    string
	Variant string
	Seat    sdk.Seat
	SeatKey string
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
	state, view, err := m.cfg.Rules.Start(ctx, variant, opts)
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
	r := &Room{m: m, id: meta.ID, ready: make(chan struct{})}
	r.init(meta, desc)
	r.keys[0] = hash
	r.taken[0] = true
	r.packed.json.free()
	r.state, r.view, r.packed = state, view, Packed{}
	close(r.ready)
	m.mu.Lock()
	m.rooms[meta.ID] = r
	m.mu.Unlock()
	return Created{Room: meta.ID, Variant: variant, Seat: 0, SeatKey: key}, nil
}

// init sets up a room at version 0 of its log, the host's seat taken.
func (r *Room) init(meta store.Room, desc sdk.Description) {
	n := meta.Seats
	r.meta, r.desc, r.round, r.touched = meta, desc, 1, meta.Touched
	r.keys, r.taken, r.conns = make([][]byte, n), make([]bool, n), make([]*Session, n)
	r.awaySince = make([]time.Time, n)
	for i := range r.awaySince {
		r.awaySince[i] = r.m.cfg.Now()
	}
	r.turnAt = meta.Created
	r.spectators = map[*Session]struct{}{}
	r.taken[0] = true
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
			r.loadErr = r.load(ctx)
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
		expired, gone := r.expired(m.cfg.Now()), r.gone
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

// Sweep purges the rooms idle for longer than the TTL from the store (an
// idempotent sweep), ends their connections, and drops from memory every
// room nobody is connected to (it reloads from the store when needed).
func (m *Manager) Sweep(ctx context.Context) (purged int, err error) {
	now := m.cfg.Now()
	ids, err := m.cfg.Store.Purge(ctx, now.Add(-m.cfg.TTL))
	m.mu.Lock()
	defer m.mu.Unlock()
	for id, r := range m.rooms {
		select {
		case <-r.ready:
		default:
			continue
		}
		// A room busy with an action is in use: skip it rather than hold
		// every other room's Open while its rules call runs.
		if !r.mu.TryLock() {
			continue
		}
		if exp := r.expired(now); exp || r.idle() {
			delete(m.rooms, id)
			r.drop(exp)
		}
		r.mu.Unlock()
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
		s.send(r.errorEvent("room_not_found", ErrNotFound.Error()))
		s.sub.Close(CloseNotFound, "not_found")
		s.left = true
	}
	clear(r.conns)
	clear(r.spectators)
}

// Join opens the room and admits a connection (see Room.Join).
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

var errDropped = errors.New("room dropped from memory")

// Loaded is how many rooms are in memory (for metrics and tests).
func (m *Manager) Loaded() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.rooms)
}

// Room is one room in memory. Its fields are guarded by mu; every action
// of a room is serialised by it (rules call and commit included), while
// different rooms proceed in parallel.
type Room struct {
	m       *Manager
	id      string
	ready   chan struct{}
	loadErr error

	mu      sync.Mutex
	meta    store.Room
	desc    sdk.Description
	state   sdk.State
	view    sdk.View
	spare   sdk.View // the View before view, whose arrays the next Play reuses
	version int64
	round   int
	touched time.Time
	keys    [][]byte // current key hash per seat
	taken   []bool   // seat held, as of the replayed log
	pending *Pending
	broken  *Broken
	recent  eventRing // the last events that raised the version, without views
	// started: the host started with free seats (computer seats);
	// turnAt: when the turn in progress began; awaySince: when each seat's
	// connection went; thinking: a computer move is being thought.
	started   bool
	turnAt    time.Time
	awaySince []time.Time
	thinking  bool
	// shownComputer is which seats the computer played in the last
	// presence sent (presenceKey).
	shownComputer string

	conns      []*Session
	spectators map[*Session]struct{}
	codes      []seatCode
	codeFails  []time.Time
	// gone: dropped from memory (a new Room will load); expiredGone: and
	// expired.
	gone, expiredGone bool
	// cl is what other hosts hold of the room (nil without a Cluster).
	cl *clusterRoom

	// lent are the pooled buffers of the messages a broadcast is sending
	// (encodeLent); they go back to the pool when it has sent them all.
	lent    []*[]byte
	held    holdBack // broadcastAck's, kept for its array
	scratch sdk.View // sendEvent's, for the view of the event it encodes
	// packed is view's legal moves and board where the rules kept them
	// packed (view's Legal, Board are then nil).
	packed Packed
}

type seatCode struct {
	seat    sdk.Seat
	code    string
	expires time.Time
}

// ID is the room's ID.
func (r *Room) ID() string { return r.id }

func (r *Room) expired(now time.Time) bool { return r.touched.Before(now.Add(-r.m.cfg.TTL)) }

func (r *Room) idle() bool {
	return len(r.spectators) == 0 && !slices.ContainsFunc(r.conns, func(s *Session) bool { return s != nil })
}

func (r *Room) sessions() []*Session {
	var out []*Session
	for _, s := range r.conns {
		if s != nil {
			out = append(out, s)
		}
	}
	for s := range r.spectators {
		out = append(out, s)
	}
	return out
}

// load rebuilds the room from the store: its settings, seat keys, and the
// replay of its log through the rules. A log the rules refuse marks the
// room broken; rules that cannot be reached are an error (try again later).
func (r *Room) load(ctx context.Context) error {
	m := r.m
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
	desc, ok := m.cfg.Rules.Describe(meta.Variant)
	if !ok {
		desc = sdk.Description{ID: meta.Variant, Seats: make([]sdk.SeatInfo, meta.Seats)}
	}
	if meta.Seats < 1 {
		return fmt.Errorf("room %s has %d seats", r.id, meta.Seats)
	}
	r.init(meta, desc)
	keys, err := m.cfg.Store.SeatKeys(ctx, r.id)
	if err != nil {
		return fmt.Errorf("load seats: %w", err)
	}
	for _, k := range keys {
		if k.Seat >= 0 && k.Seat < len(r.keys) {
			r.keys[k.Seat] = k.Hash
		}
	}
	acts, err := m.cfg.Store.Actions(ctx, r.id, 0)
	if err != nil {
		return fmt.Errorf("load log: %w", err)
	}
	installed := m.cfg.RulesVersion(desc)
	fail := func(at int64, err error) {
		r.broken = &Broken{Code: "replay_failed", At: at, RulesVersion: meta.RulesVersion, Installed: installed,
			Message: fmt.Sprintf("the installed rules cannot replay this room's log at version %d: %v", at, err)}
		if meta.RulesVersion != installed {
			r.broken.Code = "rules_changed"
			r.broken.Message = fmt.Sprintf("this room was played under rules version %q; the installed rules (%q) cannot replay it at version %d: %v",
				meta.RulesVersion, installed, at, err)
		}
		m.cfg.Logger.Warn("room log does not replay", "room", r.id, "variant", meta.Variant, "at", at, "err", err)
	}
	if !ok {
		fail(0, ErrUnknownVariant)
		return nil
	}
	r.state, r.view, err = m.cfg.Rules.Start(ctx, meta.Variant, meta.Options)
	if err != nil {
		if _, rule := sdk.AsRuleError(err); rule {
			fail(0, err)
			return nil
		}
		return fmt.Errorf("%w: %v", ErrRulesUnavailable, err)
	}
	for _, a := range acts {
		e, err := r.prepare(ctx, a)
		if err != nil {
			if _, rule := sdk.AsRuleError(err); rule {
				fail(a.Version, err)
				return nil
			}
			return fmt.Errorf("%w: %v", ErrRulesUnavailable, err)
		}
		r.commit(a, e)
	}
	if r.version != meta.Version {
		fail(r.version, fmt.Errorf("the log ends at version %d, the room says %d", r.version, meta.Version))
	}
	if _, err := r.refreshPresence(ctx); err != nil {
		return fmt.Errorf("load presence: %w", err)
	}
	return nil
}

// play asks the rules for the move, through the lean call where the rules
// offer one; the View it returns has the whole History either way.
func (r *Room) play(ctx context.Context, seat sdk.Seat, m sdk.Move) (sdk.State, sdk.View, Packed, error) {
	lean, ok := r.m.cfg.Rules.(LeanRules)
	if !ok {
		st, v, err := r.m.cfg.Rules.Play(ctx, r.meta.Variant, r.state, seat, m)
		return st, v, Packed{}, err
	}
	held := r.view.History
	j := newLegalJSON()
	st, v, packed, err := lean.PlayFrom(ctx, r.meta.Variant, r.state, seat, m, len(held), &r.spare, j.put)
	if err != nil {
		j.free()
		return nil, sdk.View{}, Packed{}, err
	}
	if packed.Legal != nil && j.n == packed.Legal.Len() { // (rules that never call each leave it empty)
		packed.json = j
	} else {
		j.free()
	}
	// The plugin's serve side drops exactly the first len(held) entries.
	// Appending past len(held) leaves r.view unchanged until the effect is
	// committed; a refused action's entry is overwritten by the next one.
	v.History = append(held, v.History...)
	return st, v, packed, nil
}

// effect is what a checked action will change once it is committed.
type effect struct {
	state    sdk.State
	view     sdk.View
	packed   Packed // view's parts the rules kept packed
	played   *sdk.PlayedMove
	newRound bool
	ev       string
}

// prepare checks an action against the room as it stands and computes its
// effect, changing nothing. Refusals are *sdk.RuleError.
func (r *Room) prepare(ctx context.Context, a store.Action) (effect, error) {
	seat := sdk.Seat(a.Seat)
	if a.Seat < 0 || a.Seat >= len(r.taken) {
		return effect{}, sdk.Errorf("bad_seat", "no seat %d", a.Seat)
	}
	switch a.Kind {
	case kindMove, kindComputer:
		st, v, packed, err := r.play(ctx, seat, sdk.Move(a.Move))
		if err != nil {
			return effect{}, err
		}
		e := effect{state: st, view: v, packed: packed, ev: EvMove}
		if n := len(v.History); n > len(r.view.History) {
			e.played = &v.History[n-1]
		}
		return e, nil
	case kindClaim:
		if r.taken[a.Seat] {
			return effect{}, sdk.Errorf("seat_taken", "seat %d is taken", a.Seat)
		}
		return effect{ev: EvJoin}, nil
	case kindRekey:
		return effect{ev: EvRekey}, nil
	case kindStart:
		if r.startedPlay() {
			return effect{}, sdk.Errorf("started", "the game has started")
		}
		if a.Seat != 0 {
			return effect{}, sdk.Errorf("not_host", "only the host starts the game")
		}
		return effect{ev: EvStart}, nil
	case kindRound:
		return r.startRound(ctx, EvRound)
	case kindRequest:
		if r.pending != nil {
			return effect{}, sdk.Errorf("already_requested", "a new round is already requested")
		}
		return effect{ev: EvRequest}, nil
	case kindAccept:
		switch {
		case r.pending == nil:
			return effect{}, sdk.Errorf("no_request", "no new round is requested")
		case slices.Contains(r.pending.Accepted, seat):
			return effect{}, sdk.Errorf("already_accepted", "you already accepted")
		}
		all := true
		for s, t := range r.taken {
			if t && sdk.Seat(s) != seat && !slices.Contains(r.pending.Accepted, sdk.Seat(s)) {
				all = false
			}
		}
		if all {
			return r.startRound(ctx, EvRound)
		}
		return effect{ev: EvAccept}, nil
	case kindDecline, kindWithdraw:
		switch {
		case r.pending == nil:
			return effect{}, sdk.Errorf("no_request", "no new round is requested")
		case a.Kind == kindDecline && r.pending.By == seat:
			return effect{}, sdk.Errorf("own_request", "withdraw your own request instead")
		case a.Kind == kindWithdraw && r.pending.By != seat:
			return effect{}, sdk.Errorf("not_your_request", "only the seat that asked may withdraw")
		}
		return effect{ev: a.Kind}, nil
	}
	return effect{}, sdk.Errorf("bad_action", "unknown action %q", a.Kind)
}

func (r *Room) startRound(ctx context.Context, ev string) (effect, error) {
	st, v, err := r.m.cfg.Rules.Start(ctx, r.meta.Variant, r.roundOptions(r.round+1))
	if err != nil {
		return effect{}, err
	}
	return effect{state: st, view: v, newRound: true, ev: ev}, nil
}

// commit applies a confirmed action's effect in memory and returns its
// event (without a view).
func (r *Room) commit(a store.Action, e effect) Event {
	seat := sdk.Seat(a.Seat)
	r.version = a.Version
	if !a.At.IsZero() {
		r.touched = a.At
	}
	var cells []CellAt
	switch a.Kind {
	case kindMove, kindComputer:
		if c, ok := r.boardChanges(e); ok && !e.newRound {
			cells = c
			if cells == nil {
				cells = []CellAt{} // the board did not change (a resignation)
			}
		}
		// The View before this one is read no more (broadcasts encode at
		// once, under r.mu): the next Play's answer is written into it.
		r.packed.json.free()
		r.state, r.view, r.spare, r.packed = e.state, e.view, r.view, e.packed
		r.turnAt = a.At
	case kindStart:
		r.started = true
		r.turnAt = a.At
	case kindClaim:
		r.taken[a.Seat] = true
		if a.KeyHash != nil {
			r.keys[a.Seat] = a.KeyHash
		}
		if !r.started && !slices.Contains(r.taken, false) && r.view.Ply == 0 {
			r.turnAt = a.At // the last seat taken: the first turn begins
		}
	case kindRekey:
		if a.KeyHash != nil {
			r.keys[a.Seat] = a.KeyHash
		}
	case kindRequest:
		r.pending = &Pending{By: seat, Accepted: []sdk.Seat{seat}}
	case kindAccept:
		if !e.newRound {
			r.pending.Accepted = append(r.pending.Accepted, seat)
		}
	case kindDecline, kindWithdraw:
		r.pending = nil
	}
	if e.newRound {
		r.packed.json.free()
		r.state, r.view, r.packed = e.state, e.view, e.packed
		r.round++
		r.pending = nil
		r.turnAt = a.At
	}
	ev := Event{Type: e.ev, Version: a.Version, Round: r.round, Seat: seatPtr(seat), Played: e.played}
	if a.Kind == kindMove || a.Kind == kindComputer {
		ev.Move = sdk.Move(a.Move)
		ev.Computer = a.Kind == kindComputer
	}
	if r.pending != nil && (e.ev == EvRequest || e.ev == EvAccept) {
		p := *r.pending
		p.Accepted = slices.Clone(p.Accepted)
		ev.NewRound = &p
	}
	r.recent.add(ev, r.m.cfg.Recent) // without cells: a catch-up sends the whole view
	ev.Cells = cells
	return ev
}

// eventRing keeps the last events added, up to a limit, in a ring: a
// room's commit no longer shifts the whole list (64 events of ~300 bytes)
// to drop the oldest. Each is kept as a recentEvent, the fields a commit
// sets: a whole Event is ~300 bytes of mostly nil pointers, which the
// garbage collector scanned in every room on every cycle.
type eventRing struct {
	evs    []recentEvent
	oldest int // where the oldest is once evs is at the limit
}

// recentEvent is an Event as commit makes it (the only events a ring
// holds): its type, version, round, seat, move, played move, computer flag
// and pending new round.
type recentEvent struct {
	typ      string
	move     sdk.Move
	played   *sdk.PlayedMove
	newRound *Pending
	version  int64
	round    int
	seat     sdk.Seat
	hasSeat  bool
	computer bool
}

func keepEvent(ev *Event) recentEvent {
	e := recentEvent{typ: ev.Type, move: ev.Move, played: ev.Played, newRound: ev.NewRound,
		version: ev.Version, round: ev.Round, computer: ev.Computer}
	if ev.Seat != nil {
		e.seat, e.hasSeat = *ev.Seat, true
	}
	return e
}

func (e *recentEvent) event() Event {
	ev := Event{Type: e.typ, Version: e.version, Round: e.round, Move: e.move, Played: e.played,
		Computer: e.computer, NewRound: e.newRound}
	if e.hasSeat {
		ev.Seat = seatPtr(e.seat)
	}
	return ev
}

// add keeps ev, which must be an event as commit makes it (keepEvent).
func (q *eventRing) add(ev Event, limit int) {
	if len(q.evs) < limit {
		q.evs = append(q.evs, keepEvent(&ev))
		return
	}
	q.evs[q.oldest] = keepEvent(&ev)
	q.oldest = (q.oldest + 1) % len(q.evs)
}

func (q *eventRing) len() int { return len(q.evs) }

// back is the n-th last event (1: the last); 1 <= n <= len.
func (q *eventRing) back(n int) Event {
	return q.evs[(q.oldest+len(q.evs)-n)%len(q.evs)].event()
}

// last is the last n events, oldest first, in a list of their own.
func (q *eventRing) last(n int) []Event {
	out := make([]Event, n)
	for i := range out {
		out[i] = q.back(n - i)
	}
	return out
}

// changesView tells whether an event's receivers need the new view.
func changesView(ev string) bool { return ev == EvMove || ev == EvRound || ev == EvStart }

// Subscriber is a connection as the room sees it.
type Subscriber interface {
	// Send queues one encoded message without blocking; false means the
	// queue was full and the connection is being dropped. msg is lent for
	// the call only: a Subscriber that keeps it must copy it.
	Send(msg []byte) bool
	// Close ends the connection with a WebSocket close code after what is
	// queued.
	Close(code int, reason string)
}

// Close codes the room asks for (4000–4999 are the application's).
const (
	CloseReplaced = 4001 // another connection took this seat
	CloseBadKey   = 4003 // the seat key or code is not valid here
	CloseNotFound = 4004 // the room does not exist or expired
)

// Session is one connection's membership of a room.
type Session struct {
	room *Room
	seat sdk.Seat // -1 for a spectator
	sub  Subscriber
	left bool
	conn string // its ID in the Cluster
}

// Seat is the session's seat, -1 for a spectator.
func (s *Session) Seat() sdk.Seat { return s.seat }

func (s *Session) send(b []byte) { s.sub.Send(b) }

// Hello is how a connection introduces itself.
type Hello struct {
	SeatKey string
	Code    string
	// Watch, without key or code, watches instead of taking a free seat.
	Watch bool
	// Version is the last version the client saw; nil for none.
	Version *int64
}

// join admits a connection: a seat key restores its seat (replacing the
// seat's previous connection), a seat code moves a seat here, no key takes
// the next free seat, and when none is free the connection watches. The
// welcome and whatever the client missed are queued on sub before Join
// returns.
func (r *Room) join(ctx context.Context, h Hello, sub Subscriber) (*Session, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.expiredGone || r.expired(r.m.cfg.Now()) {
		return nil, ErrNotFound
	}
	if r.gone {
		return nil, errDropped
	}
	r.catchUpTo(ctx, h.Version)
	s := &Session{room: r, seat: -1, sub: sub}
	var newKey string
	switch {
	case h.SeatKey != "":
		seat, ok := r.matchKey(h.SeatKey)
		if !ok {
			return nil, ErrBadKey
		}
		s.seat = seat
	case h.Code != "":
		seat, err := r.redeemCode(h.Code)
		if err != nil {
			return nil, err
		}
		key, hash := newKeyPair()
		a := store.Action{Room: r.id, Version: r.version + 1, Kind: kindRekey, Seat: int(seat), At: r.m.cfg.Now(), KeyHash: hash}
		if err := r.m.cfg.Store.Append(ctx, a); err != nil {
			if errors.Is(err, store.ErrConflict) && r.catchUp(ctx) == nil {
				return nil, errRetry
			}
			return nil, r.storeError(err)
		}
		ev := r.commit(a, effect{ev: EvRekey})
		s.seat, newKey = seat, key
		if old := r.conns[seat]; old != nil {
			r.replace(old, "moved")
		}
		r.broadcast(ev)
	case r.broken == nil && !h.Watch:
		free := slices.Index(r.taken, false)
		if free < 0 {
			break
		}
		key, hash := newKeyPair()
		a := store.Action{Room: r.id, Version: r.version + 1, Kind: kindClaim, Seat: free, At: r.m.cfg.Now(), KeyHash: hash}
		if err := r.m.cfg.Store.Append(ctx, a); err != nil {
			if errors.Is(err, store.ErrConflict) && r.catchUp(ctx) == nil {
				return nil, errRetry
			}
			return nil, r.storeError(err)
		}
		ev := r.commit(a, effect{ev: EvJoin})
		s.seat, newKey = sdk.Seat(free), key
		r.broadcast(ev)
	}
	if s.seat >= 0 {
		if old := r.conns[s.seat]; old != nil {
			r.replace(old, "another_connection")
		}
		r.conns[s.seat] = s
		r.clusterJoined(s)
	} else {
		r.spectators[s] = struct{}{}
		r.clusterWatchers()
	}
	r.welcome(s, h.Version, newKey)
	r.broadcastPresence()
	r.kick()
	return s, nil
}

// replace tells a seat's old connection that another one took over.
func (r *Room) replace(old *Session, reason string) {
	old.send(r.encode(Event{Type: EvReplaced, Version: r.version, Reason: reason}))
	old.sub.Close(CloseReplaced, "replaced")
	old.left = true
	r.conns[old.seat] = nil
	r.markAway(old.seat)
}

// matchKey finds the seat a key holds, comparing hashes in constant time
// against every seat.
func (r *Room) matchKey(key string) (sdk.Seat, bool) {
	h := hashKey(key)
	found := -1
	for i, k := range r.keys {
		if k != nil && subtle.ConstantTimeCompare(k, h) == 1 {
			found = i
		}
	}
	return sdk.Seat(found), found >= 0
}

// welcome queues the answer to hello: the full view, or the events since
// the client's version when they are all still kept.
func (r *Room) welcome(s *Session, since *int64, newKey string) {
	w := Event{Type: EvWelcome, Version: r.version, Round: r.round, Seat: seatPtr(s.seat), Room: r.id,
		Variant: r.meta.Variant, SeatKey: newKey, Broken: r.broken, Presence: r.presence(), Clock: r.clock(r.m.cfg.Now()), Settings: r.meta.Options}
	if r.pending != nil {
		p := *r.pending
		w.NewRound = &p
	}
	var missed []Event
	catchUp := since != nil && *since <= r.version && r.broken == nil
	if catchUp && *since < r.version {
		n := int(r.version - *since)
		if n > r.recent.len() {
			catchUp = false
		} else {
			missed = r.recent.last(n)
		}
	}
	if !catchUp {
		w.Resync = "full"
		v, pf := r.viewFor(s.seat, true)
		w.View, w.packed = &v, pf
		s.send(r.encode(w))
		return
	}
	w.Resync = "events"
	s.send(r.encode(w))
	last := -1
	for i, ev := range missed {
		if changesView(ev.Type) {
			last = i
		}
	}
	for i, ev := range missed {
		if i == last {
			v, pf := r.viewFor(s.seat, false)
			ev.View, ev.packed = &v, pf
		}
		s.send(r.encode(ev))
	}
}

// viewFor is the current view as seat receives it: legal moves only for a
// seat to move, the history only in a full snapshot. What the room holds
// packed goes in the packedFor, which the event that carries the view
// encodes (Event.packed); the View's Legal is then empty, its Board nil.
func (r *Room) viewFor(seat sdk.Seat, history bool) (sdk.View, packedFor) {
	v := r.view
	if !history {
		v.History = nil
	}
	v.Legal = nil
	var pf packedFor
	if r.packed.Board != nil {
		if shapesKnown {
			pf.board = r.packed.Board
		} else { // encoding/json writes the event: it needs them in the View
			v.Board = listedCells(r.packed.Board)
		}
	}
	if seat >= 0 && slices.Contains(r.view.ToMove, seat) {
		switch {
		case r.packed.Legal == nil:
			v.Legal = ownMoves(r.view.Legal, seat)
		case shapesKnown:
			pf.legal, pf.json, pf.seat = r.packed.Legal, r.packed.json, seat
		default:
			v.Legal = listedMoves(r.packed.Legal, seat)
		}
	}
	if v.Legal == nil {
		v.Legal = []sdk.LegalMove{}
	}
	return v, pf
}

// packedFor is what a view is encoded with of what the room holds packed:
// seat's legal moves, read from legal (nil: the View's own Legal), and the
// board (nil: the View's own Board).
type packedFor struct {
	legal LegalList
	json  *legalJSON // legal encoded, when the room still has it
	seat  sdk.Seat
	board Board
}

// listedCells is board's cells, copied out.
func listedCells(board Board) []sdk.Cell {
	out := []sdk.Cell{}
	board.Each(func(_ int, c *sdk.Cell) bool {
		out = append(out, *c)
		return true
	})
	return out
}

// boardChanges is the cells e's move changed, compared with the board the
// room shows; false when the two boards differ in size. Packed boards are
// compared packed; a plain one (a Start's, once a round) unpacks the other.
func (r *Room) boardChanges(e effect) ([]CellAt, bool) {
	prev, next := r.packed.Board, e.packed.Board
	if prev != nil && next != nil {
		var out []CellAt
		if !next.Changes(prev, func(at int, c *sdk.Cell) {
			if out == nil {
				out = make([]CellAt, 0, 4) // a move changes one to three cells in these games
			}
			out = append(out, CellAt{At: at, Cell: *c})
		}) {
			return nil, false
		}
		return out, true
	}
	a, b := r.view.Board, e.view.Board
	if prev != nil {
		a = listedCells(prev)
	}
	if next != nil {
		b = listedCells(next)
	}
	return boardChanges(a, b)
}

// listedMoves is seat's moves of list, copied out; nil for none.
func listedMoves(list LegalList, seat sdk.Seat) []sdk.LegalMove {
	var out []sdk.LegalMove
	list.Each(func(m *sdk.LegalMove) bool {
		if m.Seat == seat {
			out = append(out, *m)
		}
		return true
	})
	return out
}

func (r *Room) presence() *Presence {
	p := &Presence{Seats: make([]SeatPresence, len(r.taken)), Spectators: r.spectatorCount(), Started: r.started}
	now := r.m.cfg.Now()
	for i := range r.taken {
		p.Seats[i] = SeatPresence{Taken: r.taken[i], Connected: r.seatConnected(i), Computer: r.playedByComputer(i, now)}
	}
	r.shownComputer = r.presenceKey()
	return p
}

func (r *Room) broadcastPresence() {
	b := r.encode(Event{Type: EvPresence, Version: r.version, Presence: r.presence()})
	for _, s := range r.sessions() {
		s.send(b)
	}
}

// broadcast sends a version-raising event to every connection, with the new
// view where it changed; each distinct audience is encoded once.
func (r *Room) broadcast(ev Event) {
	r.sendEvent(ev)
	r.giveBack()
}

// sendEvent is broadcast without giving the messages' buffers back (the
// caller does, with giveBack, once nothing holds them any more).
func (r *Room) sendEvent(ev Event) {
	ev.Clock = r.clock(r.m.cfg.Now())
	if !changesView(ev.Type) {
		b := r.encodeLent(ev)
		for _, s := range r.sessions() {
			s.send(b)
		}
		return
	}
	enc := map[sdk.Seat][]byte{}
	for _, s := range r.sessions() {
		aud := sdk.Seat(-1)
		if s.seat >= 0 && slices.Contains(r.view.ToMove, s.seat) {
			aud = s.seat
		}
		b, ok := enc[aud]
		if !ok {
			e := ev
			// The view is encoded at once: it goes in the room's own
			// scratch View, not in one of its own on the heap per move.
			r.scratch, e.packed = r.viewFor(aud, false)
			if ev.Cells != nil {
				// The receivers apply ev.Cells to the board they have.
				r.scratch.Board, e.packed.board = nil, nil
			}
			e.View = &r.scratch
			b = r.encodeLent(e)
			r.scratch = sdk.View{}
			enc[aud] = b
		}
		s.send(b)
	}
}

// encode marshals an event; it cannot fail for these types (a failure is a
// bug, logged, and an error event instead).
func (r *Room) encode(ev Event) []byte {
	b, err := marshal(ev)
	if err != nil {
		r.m.cfg.Logger.Error("encode room event", "room", r.id, "type", ev.Type, "err", err)
		b, _ = marshal(Event{Type: EvError, Version: ev.Version, Code: "internal", Message: "internal error"})
	}
	return b
}

// encodeLent is encode into a pooled buffer, lent until giveBack: a move's
// events (a few KB each, two or more per move) no longer each make a copy
// of their own. Subscribers do not keep what Send gives them.
func (r *Room) encodeLent(ev Event) []byte {
	if !shapesKnown {
		return r.encode(ev)
	}
	bp, err := marshalPooled(&ev)
	if err != nil {
		return r.encode(ev) // logs it, and gives the error event
	}
	r.lent = append(r.lent, bp)
	return *bp
}

// giveBack returns the buffers encodeLent lent to the pool.
func (r *Room) giveBack() {
	for i, bp := range r.lent {
		putBuf(bp)
		r.lent[i] = nil
	}
	r.lent = r.lent[:0]
	// The legal moves' JSON served the events of the move that brought
	// them; a later view encodes them from the packed list again.
	r.packed.json.free()
	r.packed.json = nil
}

func (r *Room) errorEvent(code, msg string) []byte {
	return r.encode(Event{Type: EvError, Version: r.version, Code: code, Message: msg})
}

// Leave ends a session's membership (idempotent). The seat stays held.
func (s *Session) Leave() {
	r := s.room
	r.mu.Lock()
	defer r.mu.Unlock()
	if s.left {
		return
	}
	s.left = true
	if s.seat >= 0 {
		if r.conns[s.seat] == s {
			r.conns[s.seat] = nil
			r.markAway(s.seat)
		}
		r.clusterLeft(s)
	} else {
		delete(r.spectators, s)
		r.clusterLeft(s)
	}
	r.broadcastPresence()
}

// Act handles one request of a joined session. Its answer (ack, refused,
// seatCode, pong) and any event are queued on the session's subscriber.
func (s *Session) Act(ctx context.Context, req Request) {
	r := s.room
	r.mu.Lock()
	defer r.mu.Unlock()
	if s.left {
		return
	}
	refuse := func(code, msg string) {
		s.send(r.encode(Event{Type: EvRefused, Version: r.version, ID: req.ID, Code: code, Key: "error." + code, Message: msg}))
	}
	switch req.Type {
	case TypePing:
		s.send(r.encode(Event{Type: EvPong, Version: r.version, ID: req.ID}))
		return
	case TypeHello:
		refuse("bad_request", "hello is the first message only")
		return
	}
	if s.seat < 0 {
		refuse("spectator", "spectators cannot act")
		return
	}
	if r.broken != nil {
		refuse("room_broken", r.broken.Message)
		return
	}
	if req.Type == TypeSeatCode {
		code, exp := r.newCode(s.seat)
		s.send(r.encode(Event{Type: EvSeatCode, Version: r.version, ID: req.ID, SeatCode: code, Expires: &exp}))
		return
	}
	a := store.Action{Room: r.id, Version: r.version + 1, Seat: int(s.seat), At: r.m.cfg.Now()}
	switch req.Type {
	case TypeMove:
		a.Kind, a.Move = kindMove, string(req.Move)
	case TypeResign:
		if !r.desc.Resign {
			refuse(sdk.CodeUnsupported, "this game has no resignation")
			return
		}
		a.Kind, a.Move = kindMove, string(sdk.Resign)
	case TypeNewRound:
		a.Kind = kindRequest
		if r.seatedHumans() == 1 || (r.pending == nil && r.othersConsent(s.seat, nil)) {
			a.Kind = kindRound
		}
	case TypeAccept:
		a.Kind = kindAccept
		if p := r.pending; p != nil && !slices.Contains(p.Accepted, s.seat) && r.othersConsent(s.seat, p.Accepted) {
			// The last consent of those here: the away seats give theirs
			// (logged as the round itself, so a replay needs no presence).
			a.Kind = kindRound
		}
	case TypeDecline:
		a.Kind = kindDecline
	case TypeWithdraw:
		a.Kind = kindWithdraw
	case TypeStart:
		a.Kind = kindStart
	default:
		refuse("bad_request", "unknown request")
		return
	}
	if v := *req.Version; v != r.version {
		if r.isDuplicate(v, a) {
			s.send(r.encode(Event{Type: EvAck, Version: r.version, ID: req.ID, Duplicate: true}))
			return
		}
		refuse("stale", fmt.Sprintf("the room is at version %d, not %d", r.version, v))
		return
	}
	if a.Kind == kindMove && a.Move != string(sdk.Resign) {
		if !r.startedPlay() {
			refuse("waiting", "a seat is still free: moves start when every seat is taken")
			return
		}
		if !r.hasComputer() && !r.allConnected() {
			refuse("paused", "a player is away: moves wait until everyone is connected")
			return
		}
	}
	e, err := r.prepare(ctx, a)
	if err != nil {
		if re, ok := sdk.AsRuleError(err); ok {
			s.send(r.encode(Event{Type: EvRefused, Version: r.version, ID: req.ID, Code: re.Code, Key: re.Key, Message: re.Message}))
			return
		}
		r.m.cfg.Logger.Warn("room action failed in the rules", "room", r.id, "kind", a.Kind, "err", err)
		refuse("unavailable", "the rules did not answer; the action was not played, try again")
		return
	}
	if err := r.m.cfg.Store.Append(ctx, a); err != nil {
		if r.lostRace(ctx, s, req, a, err) {
			return
		}
		err = r.storeError(err)
		r.m.cfg.Logger.Error("room action not stored", "room", r.id, "kind", a.Kind, "err", err)
		refuse("not_stored", "the action could not be stored; it was not played")
		return
	}
	ev := r.commit(a, e)
	r.broadcastAck(ev, s, r.encodeLent(Event{Type: EvAck, Version: r.version, ID: req.ID}))
	if a.Kind == kindStart {
		r.broadcastPresence()
	}
	r.kick()
}

// isDuplicate tells whether a request answering version v is the very
// action this seat already made at v+1 (a resend after a lost ack).
func (r *Room) isDuplicate(v int64, a store.Action) bool {
	if v >= r.version || v < r.version-int64(r.recent.len()) {
		return false
	}
	ev := r.recent.back(int(r.version - v))
	if ev.Seat == nil || int(*ev.Seat) != a.Seat {
		return false
	}
	switch a.Kind {
	case kindMove:
		return ev.Type == EvMove && string(ev.Move) == a.Move
	case kindRequest, kindRound:
		return ev.Type == EvRequest || ev.Type == EvRound
	case kindAccept:
		return ev.Type == EvAccept || ev.Type == EvRound
	case kindStart:
		return ev.Type == EvStart
	}
	return ev.Type == a.Kind
}

func (r *Room) seatedHumans() int {
	n := 0
	for _, t := range r.taken {
		if t {
			n++
		}
	}
	return n
}

func (r *Room) storeError(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return ErrNotFound
	}
	return err
}

// codeAlphabet has no 0/O, 1/I/L: a code is read aloud or typed.
const codeAlphabet = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"

// newCode gives seat a fresh one-time code, replacing its previous one.
func (r *Room) newCode(seat sdk.Seat) (string, time.Time) {
	now := r.m.cfg.Now()
	r.codes = slices.DeleteFunc(r.codes, func(c seatCode) bool { return c.seat == seat || !now.Before(c.expires) })
	b := make([]byte, 8)
	rand.Read(b)
	for i := range b {
		b[i] = codeAlphabet[int(b[i])%len(codeAlphabet)]
	}
	c := seatCode{seat: seat, code: string(b), expires: now.Add(r.m.cfg.SeatCodeTTL)}
	r.codes = append(r.codes, c)
	r.shareCode(c)
	return c.code, c.expires
}

// redeemCode uses up a valid code: a valid code is always accepted (the
// codes are too many to guess: 31^8), and only wrong ones count against
// the room, answered ErrTooManyAttempts once past the budget. The socket
// counts them per address too.
func (r *Room) redeemCode(code string) (sdk.Seat, error) {
	now := r.m.cfg.Now()
	r.codeFails = slices.DeleteFunc(r.codeFails, func(t time.Time) bool { return now.Sub(t) >= r.m.cfg.SeatCodeTTL })
	code = strings.ToUpper(strings.NewReplacer("-", "", " ", "").Replace(code))
	seat, err := r.takeCode(code, now)
	if errors.Is(err, ErrBadCode) && len(r.codeFails) > r.m.cfg.SeatCodeAttempts {
		return -1, ErrTooManyAttempts
	}
	return seat, err
}

// takeCode uses up code if it is valid, or counts a failure.
func (r *Room) takeCode(code string, now time.Time) (sdk.Seat, error) {
	if r.m.cfg.Cluster != nil {
		return r.takeSharedCode(code, now)
	}
	found := -1
	for i, c := range r.codes {
		if subtle.ConstantTimeCompare([]byte(c.code), []byte(code)) == 1 && now.Before(c.expires) {
			found = i
		}
	}
	if found < 0 {
		r.codeFails = append(r.codeFails, now)
		return -1, ErrBadCode
	}
	seat := r.codes[found].seat
	r.codes = slices.Delete(r.codes, found, found+1)
	return seat, nil
}

// newID is a room ID: 128 random bits, URL-safe.
func newID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// newKeyPair is a seat key (256 random bits) and the hash that is stored.
func newKeyPair() (string, []byte) {
	b := make([]byte, 32)
	rand.Read(b)
	k := base64.RawURLEncoding.EncodeToString(b)
	return k, hashKey(k)
}

func hashKey(k string) []byte {
	h := sha256.Sum256([]byte(k))
	return h[:]
}

// ValidID tells whether s has the shape of a room ID (22 URL-safe base64
// characters), so junk never reaches the store.
func ValidID(s string) bool {
	if len(s) != 22 {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(s)
	return err == nil
}

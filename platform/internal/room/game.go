package room

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/banmen/banmen/platform/internal/store"
	"github.com/banmen/banmen/platform/protocol"
	"github.com/banmen/banmen/sdk"
)

// game is the room's state machine: a room as its log and its connections
// make it, with no socket, store, plugin, clock or goroutine. Given an
// event (a request, a confirmed action and the rules' answer to it, a
// connection that comes or goes) it changes and says what each audience is
// sent; the Room around it (room.go) does the I/O. Time comes in as an
// argument.
type game struct {
	id   string
	meta store.Room
	desc sdk.Description
	// computer: the room has computer seats (the variant declares
	// sdk.SettingLevel and the rules can suggest moves).
	computer bool
	// humanSeats is how many people the room is for (seats.go,
	// humanSeatsOf; 0: every seat).
	humanSeats int
	awayGrace  time.Duration
	// goneAfter is how long a 2-player room's seat must be away before
	// the other may claim the win (claim.go; 0: never).
	goneAfter time.Duration
	keep      int // how many events recent keeps

	// What the log makes.
	state   sdk.State
	view    sdk.View
	version int64
	round   int
	touched time.Time
	keys    [][]byte // current key hash per seat
	names   []string // the players' names per seat ("": none)
	taken   []bool   // seat held, as of the log
	pending *protocol.Pending
	broken  *protocol.Broken
	recent  eventRing // the last events that raised the version, without views
	// started: the host started with free seats (computer seats); turnAt:
	// when the turn in progress began.
	started bool
	turnAt  time.Time

	// What the connections make.
	here      []bool // the seat has a connection on this host
	elsewhere []bool // another host holds the seat (the Cluster)
	awaySince []time.Time
	watchers  int // spectators here; others on other hosts
	others    int
	// shownComputer is which seats the computer played in the last
	// presence sent (computerKey).
	shownComputer string

	// Limits (limits.go). idle counts the new rounds and new-round
	// requests since the last move played (a resignation is no move);
	// idleCap refuses more past it (0: no cap). presenceAt is when the
	// last presence went out, presenceHeld that one waits for its slot.
	idle         int
	idleCap      int
	presenceAt   time.Time
	presenceHeld bool
}

// Action kinds in the log.
const (
	kindMove     = "move" // a move or resign, through Play
	kindClaim    = "claim"
	kindRekey    = "rekey"
	kindRound    = "round" // a new round started (alone, or by the last consent)
	kindRequest  = "request"
	kindAccept   = "accept"
	kindDecline  = "decline"
	kindWithdraw = "withdraw"
	kindStart    = "start"    // the host started with free seats: the computer takes them
	kindComputer = "computer" // a move the computer made for Seat
	kindClaimWin = "claimWin" // Seat claimed the win: the other seat was gone (claim.go)
	kindName     = "name"     // Seat's player name, in Move ("": none)
)

// newGame is a room at version 0 of its log, the host's seat taken.
func newGame(meta store.Room, desc sdk.Description, computer bool, awayGrace time.Duration, keep int, now time.Time) *game {
	n := meta.Seats
	g := &game{id: meta.ID, meta: meta, desc: desc, computer: computer, awayGrace: awayGrace, keep: keep,
		round: 1, touched: meta.Touched, turnAt: meta.Created,
		keys: make([][]byte, n), names: make([]string, n), taken: make([]bool, n), here: make([]bool, n), elsewhere: make([]bool, n), awaySince: make([]time.Time, n)}
	for i := range g.awaySince {
		g.awaySince[i] = now
	}
	g.taken[0] = true
	g.humanSeats = humanSeatsOf(meta, desc, computer)
	return g
}

// expired tells whether the room lived ttl without an action.
func (g *game) expired(now time.Time, ttl time.Duration) bool { return g.touched.Before(now.Add(-ttl)) }

func refusal(version int64, id, code, msg string) *protocol.Event {
	return &protocol.Event{Type: protocol.EvRefused, Version: version, ID: id, Code: code, Key: "error." + code, Message: msg}
}

// decide turns a request of seat (-1: a spectator) into the action to
// try, or answers it at once (pong, refused, a duplicate's ack). A seat
// code is the Room's (it is random): decide leaves it alone (no action, no
// answer).
func (g *game) decide(seat sdk.Seat, req protocol.Request, now time.Time) (store.Action, *protocol.Event) {
	refuse := func(code, msg string) (store.Action, *protocol.Event) {
		return store.Action{}, refusal(g.version, req.ID, code, msg)
	}
	switch req.Type {
	case protocol.TypePing:
		return store.Action{}, &protocol.Event{Type: protocol.EvPong, Version: g.version, ID: req.ID}
	case protocol.TypeHello:
		return refuse("bad_request", "hello is the first message only")
	}
	if seat < 0 {
		return refuse("spectator", "spectators cannot act")
	}
	if g.broken != nil {
		return refuse("room_broken", g.broken.Message)
	}
	a := store.Action{Room: g.id, Version: g.version + 1, Seat: int(seat), At: now}
	switch req.Type {
	case protocol.TypeSeatCode:
		return store.Action{}, nil
	case protocol.TypeMove:
		if req.Move == sdk.Abandon {
			return refuse(sdk.CodeBadMove, "a player who left is recorded by the server (claimWin), not by a move")
		}
		a.Kind, a.Move = kindMove, string(req.Move)
	case protocol.TypeResign:
		if !g.desc.Resign {
			return refuse(sdk.CodeUnsupported, "this game has no resignation")
		}
		a.Kind, a.Move = kindMove, string(sdk.Resign)
	case protocol.TypeNewRound:
		a.Kind = kindRequest
		if g.seatedHumans() == 1 || (g.pending == nil && g.othersConsent(seat, nil, now)) {
			a.Kind = kindRound
		}
	case protocol.TypeAccept:
		a.Kind = kindAccept
		if p := g.pending; p != nil && !slices.Contains(p.Accepted, seat) && g.othersConsent(seat, p.Accepted, now) {
			// The last consent of those here: the away seats give theirs
			// (logged as the round itself, so a replay needs no presence).
			a.Kind = kindRound
		}
	case protocol.TypeDecline:
		a.Kind = kindDecline
	case protocol.TypeWithdraw:
		a.Kind = kindWithdraw
	case protocol.TypeStart:
		a.Kind = kindStart
	case protocol.TypeClaimWin:
		a.Kind = kindClaimWin
	case protocol.TypeName:
		name, err := cleanName(req.Name)
		if err != nil {
			return refuse("bad_name", err.Error())
		}
		a.Kind, a.Move = kindName, name
	default:
		return refuse("bad_request", "unknown request")
	}
	if req.Version == nil {
		return refuse("bad_request", "an action needs the version it answers")
	}
	if v := *req.Version; v != g.version {
		if g.isDuplicate(v, a) {
			return store.Action{}, &protocol.Event{Type: protocol.EvAck, Version: g.version, ID: req.ID, Duplicate: true}
		}
		return refuse("stale", fmt.Sprintf("the room is at version %d, not %d", g.version, v))
	}
	if a.Kind == kindClaimWin {
		if code, msg := g.claimable(seat, now); code != "" {
			return refuse(code, msg)
		}
	}
	if (req.Type == protocol.TypeNewRound || req.Type == protocol.TypeName) && g.idleCap > 0 && g.idle >= g.idleCap {
		return refuse("play_first", fmt.Sprintf("%d new rounds or requests in a row without a move: play a move first", g.idle))
	}
	if a.Kind == kindMove && a.Move != string(sdk.Resign) {
		if !g.startedPlay() {
			return refuse("waiting", "a seat is still free: moves start when every seat is taken")
		}
		if !g.computer && !g.allConnected() {
			return refuse("paused", "a player is away: moves wait until everyone is connected")
		}
	}
	return a, nil
}

// isDuplicate tells whether a request answering version v is the very
// action this seat already made at v+1 (a resend after a lost ack).
func (g *game) isDuplicate(v int64, a store.Action) bool {
	if v >= g.version || v < g.version-int64(g.recent.len()) {
		return false
	}
	ev := g.recent.back(int(g.version - v))
	if ev.Seat == nil || int(*ev.Seat) != a.Seat && !(a.Kind == kindClaimWin && ev.Claimed && int(*ev.Seat) == 1-a.Seat) {
		return false
	}
	switch a.Kind {
	case kindMove:
		return ev.Type == protocol.EvMove && string(ev.Move) == a.Move
	case kindRequest, kindRound:
		return ev.Type == protocol.EvRequest || ev.Type == protocol.EvRound
	case kindAccept:
		return ev.Type == protocol.EvAccept || ev.Type == protocol.EvRound
	case kindStart:
		return ev.Type == protocol.EvStart
	case kindClaimWin:
		return ev.Type == protocol.EvMove && ev.Claimed
	}
	return ev.Type == a.Kind
}

// step is what an action needs of the rules before it can be appended:
// Play of its move, a Start of the next round, or nothing.
type step struct {
	ev       string // the event it makes
	play     bool
	seat     sdk.Seat // with play: the seat that plays move
	move     sdk.Move
	claimed  bool // with play: a claimed win (the other seat's leaving)
	newRound bool
	options  sdk.Options // the next round's, with newRound
}

// check tells whether an action applies to the room as it stands and
// what it needs of the rules, changing nothing. Refusals are
// *sdk.RuleError.
func (g *game) check(a store.Action) (step, error) {
	seat := sdk.Seat(a.Seat)
	if a.Seat < 0 || a.Seat >= len(g.taken) {
		return step{}, sdk.Errorf("bad_seat", "no seat %d", a.Seat)
	}
	next := func() (step, error) {
		return step{ev: protocol.EvRound, newRound: true, options: g.roundOptions(g.round + 1)}, nil
	}
	switch a.Kind {
	case kindMove, kindComputer:
		return step{ev: protocol.EvMove, play: true, seat: seat, move: sdk.Move(a.Move)}, nil
	case kindClaimWin:
		// Logged by the claimer, played as the other seat's leaving
		// (sdk.Abandon, or its resignation where the variant records no
		// leaving): the rules end the round with the claimer the winner,
		// and the reason says the other left. Presence
		// was checked when it was asked (decide); a replay needs none.
		if len(g.taken) != 2 {
			return step{}, sdk.Errorf(sdk.CodeUnsupported, "a win is claimed in 2-player rooms only")
		}
		return step{ev: protocol.EvMove, play: true, seat: 1 - seat, move: g.leaving(), claimed: true}, nil
	case kindClaim:
		if g.taken[a.Seat] {
			return step{}, sdk.Errorf("seat_taken", "seat %d is taken", a.Seat)
		}
		return step{ev: protocol.EvJoin}, nil
	case kindRekey:
		return step{ev: protocol.EvRekey}, nil
	case kindName:
		if _, err := cleanName(a.Move); err != nil {
			return step{}, sdk.Errorf("bad_name", "%v", err)
		}
		return step{ev: protocol.EvName}, nil
	case kindStart:
		if g.startedPlay() {
			return step{}, sdk.Errorf("started", "the game has started")
		}
		if a.Seat != 0 {
			return step{}, sdk.Errorf("not_host", "only the host starts the game")
		}
		return step{ev: protocol.EvStart}, nil
	case kindRound:
		return next()
	case kindRequest:
		if g.pending != nil {
			return step{}, sdk.Errorf("already_requested", "a new round is already requested")
		}
		return step{ev: protocol.EvRequest}, nil
	case kindAccept:
		switch {
		case g.pending == nil:
			return step{}, sdk.Errorf("no_request", "no new round is requested")
		case slices.Contains(g.pending.Accepted, seat):
			return step{}, sdk.Errorf("already_accepted", "you already accepted")
		}
		for s, t := range g.taken {
			if t && sdk.Seat(s) != seat && !slices.Contains(g.pending.Accepted, sdk.Seat(s)) {
				return step{ev: protocol.EvAccept}, nil
			}
		}
		return next()
	case kindDecline, kindWithdraw:
		switch {
		case g.pending == nil:
			return step{}, sdk.Errorf("no_request", "no new round is requested")
		case a.Kind == kindDecline && g.pending.By == seat:
			return step{}, sdk.Errorf("own_request", "withdraw your own request instead")
		case a.Kind == kindWithdraw && g.pending.By != seat:
			return step{}, sdk.Errorf("not_your_request", "only the seat that asked may withdraw")
		}
		return step{ev: a.Kind}, nil
	}
	return step{}, sdk.Errorf("bad_action", "unknown action %q", a.Kind)
}

// effect is a checked action with the rules' answer: what it will change
// once it is committed.
type effect struct {
	step
	state  sdk.State
	view   sdk.View // with the whole History
	played *sdk.PlayedMove
}

// answered is st's effect once the rules answered: view's History holds
// the entries from the room's own on (PlayRequest.HistoryFrom) for a
// move, the whole of a new round's.
func (g *game) answered(st step, state sdk.State, view sdk.View) effect {
	e := effect{step: st, state: state, view: view}
	if st.play {
		held := g.view.History
		// Appending past len(held) leaves g.view unchanged until the
		// effect is applied; an action refused later (by the store) has
		// its entry overwritten by the next one.
		e.view.History = append(held, view.History...)
		if n := len(e.view.History); n > len(held) {
			e.played = &e.view.History[n-1]
		}
	}
	return e
}

// apply commits a confirmed action's effect and returns its event,
// without a view (eventFor adds each audience's).
func (g *game) apply(a store.Action, e effect) protocol.Event {
	seat := sdk.Seat(a.Seat)
	g.version = a.Version
	if !a.At.IsZero() {
		g.touched = a.At
	}
	var cells []protocol.CellAt
	switch a.Kind {
	case kindMove, kindComputer, kindClaimWin:
		if c, ok := boardChanges(g.view.Board, e.view.Board); ok {
			cells = c
			if cells == nil {
				cells = []protocol.CellAt{} // the board did not change (a resignation)
			}
		}
		g.state, g.view = e.state, e.view
		g.turnAt = a.At
		if a.Kind != kindClaimWin && a.Move != string(sdk.Resign) {
			g.idle = 0
		}
	case kindStart:
		g.started = true
		g.turnAt = a.At
	case kindClaim:
		g.taken[a.Seat] = true
		if a.KeyHash != nil {
			g.keys[a.Seat] = a.KeyHash
		}
		if !g.started && (!slices.Contains(g.taken, false) || g.seatedCount() == g.humanSeats) && g.view.Ply == 0 {
			g.turnAt = a.At // the last seat taken, or the last person: the first turn begins
		}
	case kindRekey:
		if a.KeyHash != nil {
			g.keys[a.Seat] = a.KeyHash
		}
	case kindRequest:
		g.pending = &protocol.Pending{By: seat, Accepted: []sdk.Seat{seat}}
		g.idle++
	case kindAccept:
		if !e.newRound {
			g.pending.Accepted = append(g.pending.Accepted, seat)
		}
	case kindDecline, kindWithdraw:
		g.pending = nil
	case kindName:
		g.names[a.Seat] = a.Move
		g.idle++ // (a name is no move: a lone player renaming keeps no room alive)
	}
	if e.newRound {
		if g.pending == nil {
			g.idle++ // (a round by the last consent answers a request already counted)
		}
		g.state, g.view = e.state, e.view
		g.round++
		g.pending = nil
		g.turnAt = a.At
	}
	ev := protocol.Event{Type: e.ev, Version: a.Version, Round: g.round, Seat: seatPtr(seat), Played: e.played}
	switch a.Kind {
	case kindMove, kindComputer:
		ev.Move = sdk.Move(a.Move)
		ev.Computer = a.Kind == kindComputer
	case kindClaimWin:
		ev.Seat, ev.Move, ev.Claimed = seatPtr(e.seat), e.move, true
	case kindName:
		ev.Name = a.Move
	}
	if g.pending != nil && (e.ev == protocol.EvRequest || e.ev == protocol.EvAccept) {
		p := *g.pending
		p.Accepted = slices.Clone(p.Accepted)
		ev.NewRound = &p
	}
	g.recent.add(ev, g.keep) // without cells: a catch-up sends the whole view
	ev.Cells = cells
	return ev
}

// audience is who receives the same event as seat: the seat itself when
// it is to move (its legal moves), else everyone else (-1).
func (g *game) audience(seat sdk.Seat) sdk.Seat {
	if seat >= 0 && slices.Contains(g.view.ToMove, seat) {
		return seat
	}
	return -1
}

// eventFor is ev as audience aud receives it, at the time now: with the
// turn's clock, and the view where the event changes it.
func (g *game) eventFor(ev protocol.Event, aud sdk.Seat, now time.Time) protocol.Event {
	ev.Clock = g.clock(now)
	if protocol.ChangesView(ev.Type) {
		v := g.viewFor(aud, false)
		if ev.Cells != nil {
			v.Board = nil // the receivers apply ev.Cells to the board they have
		}
		ev.View = &v
	}
	return ev
}

// viewFor is the current view as seat receives it: legal moves only for a
// seat to move, the history only in a full snapshot.
func (g *game) viewFor(seat sdk.Seat, history bool) sdk.View {
	v := g.view
	if !history {
		v.History = nil
	}
	v.Legal = nil
	if seat >= 0 && slices.Contains(g.view.ToMove, seat) {
		v.Legal = ownMoves(g.view.Legal, seat)
	}
	if v.Legal == nil {
		v.Legal = []sdk.LegalMove{}
	}
	return v
}

// welcome is the answer to a hello of seat with the last version it saw:
// the full view, or the events since, when they are all still kept (each
// without a view but the last that changes it).
func (g *game) welcome(seat sdk.Seat, since *int64, newKey string, now time.Time) []protocol.Event {
	w := protocol.Event{Type: protocol.EvWelcome, Version: g.version, Round: g.round, Seat: seatPtr(seat), Room: g.id,
		Variant: g.meta.Variant, SeatKey: newKey, Broken: g.broken, Presence: g.presence(now), Clock: g.clock(now), Settings: g.meta.Options}
	if g.pending != nil {
		p := *g.pending
		w.NewRound = &p
	}
	var missed []protocol.Event
	catchUp := since != nil && *since <= g.version && g.broken == nil
	if catchUp && *since < g.version {
		n := int(g.version - *since)
		if n > g.recent.len() {
			catchUp = false
		} else {
			missed = g.recent.last(n)
		}
	}
	if !catchUp {
		w.Resync = "full"
		v := g.viewFor(seat, true)
		w.View = &v
		return []protocol.Event{w}
	}
	w.Resync = "events"
	last := -1
	for i, ev := range missed {
		if protocol.ChangesView(ev.Type) {
			last = i
		}
	}
	if last >= 0 {
		v := g.viewFor(seat, false)
		missed[last].View = &v
	}
	return append([]protocol.Event{w}, missed...)
}

// connect notes a connection of seat on this host (-1: a spectator).
func (g *game) connect(seat sdk.Seat) {
	if seat < 0 {
		g.watchers++
		return
	}
	g.here[seat] = true
}

// disconnect notes that seat's connection here went at now: its away
// grace starts.
func (g *game) disconnect(seat sdk.Seat, now time.Time) {
	if seat < 0 {
		g.watchers = max(0, g.watchers-1)
		return
	}
	g.here[seat] = false
	g.awaySince[seat] = now
}

func (g *game) seatConnected(i int) bool { return g.here[i] || g.elsewhere[i] }

// allConnected tells whether every seat has a live connection somewhere.
func (g *game) allConnected() bool {
	for i := range g.here {
		if !g.seatConnected(i) {
			return false
		}
	}
	return true
}

// presence is who holds and who connects each seat at now, and how many
// watch; it is what the last presence sent said from then on.
func (g *game) presence(now time.Time) *protocol.Presence {
	p := &protocol.Presence{Seats: make([]protocol.SeatPresence, len(g.taken)), Spectators: g.watchers + g.others, Started: g.started || g.peopleSeated()}
	for i := range g.taken {
		p.Seats[i] = protocol.SeatPresence{Taken: g.taken[i], Connected: g.seatConnected(i), Computer: g.playedByComputer(i, now), Gone: g.gone(i, now), Name: g.names[i]}
	}
	g.shownComputer = g.computerKey(now)
	return p
}

// presenceStale tells whether the computer's seats or the gone ones
// changed since the last presence (an away player's grace ran out).
func (g *game) presenceStale(now time.Time) bool { return g.computerKey(now) != g.shownComputer }

// computerKey is which seats the computer plays at now, one byte each,
// then which are gone (claim.go).
func (g *game) computerKey(now time.Time) string {
	b := make([]byte, len(g.taken))
	for i := range g.taken {
		b[i] = '0'
		if g.playedByComputer(i, now) {
			b[i] = '1'
		}
	}
	for i := range g.taken {
		if g.gone(i, now) {
			b = append(b, byte('0'+i))
		}
	}
	return string(b)
}

func (g *game) seatedHumans() int {
	n := 0
	for _, t := range g.taken {
		if t {
			n++
		}
	}
	return n
}

// setting is the value of a host setting in the room's options, or the
// variant's declared default; ok is false when the variant declares none.
func (g *game) setting(key string) (string, bool) {
	spec, ok := g.desc.HostSetting(key)
	if !ok {
		return "", false
	}
	if v, set := g.meta.Options[key]; set {
		return v, true
	}
	return spec.Default, true
}

// level is the computer's level for this room.
func (g *game) level() sdk.Level {
	v, _ := g.setting(sdk.SettingLevel)
	return sdk.Level(v)
}

// moveTime is the room's time per move, 0 for none.
func (g *game) moveTime() time.Duration {
	v, ok := g.setting(sdk.SettingMoveTime)
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 0
	}
	return time.Duration(n) * time.Second
}

// roundOptions are the options round n (1 = the first) starts with: with
// rotation on (sdk.SettingRotateFirst) the first seat moves one seat on in
// turn order each round, from the room's first seat.
func (g *game) roundOptions(n int) sdk.Options {
	opts := g.meta.Options
	rot, ok := g.setting(sdk.SettingRotateFirst)
	if !ok || rot != "true" || n <= 1 {
		return opts
	}
	first, ok := g.setting(sdk.SettingFirstSeat)
	if !ok {
		return opts
	}
	f, err := strconv.Atoi(first)
	if err != nil {
		return opts
	}
	opts = maps.Clone(opts)
	if opts == nil {
		opts = sdk.Options{}
	}
	opts[sdk.SettingFirstSeat] = strconv.Itoa((f + n - 1) % len(g.taken))
	return opts
}

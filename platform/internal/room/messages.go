package room

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/banmen/banmen/sdk"
)

// The room protocol's messages (docs/protocol.md, "Rooms"). The socket
// package carries them; this file is their one definition.

// Request types a client sends.
const (
	TypeHello    = "hello"    // the first message: seatKey?, code?, watch?, version?
	TypeMove     = "move"     // version, move
	TypeResign   = "resign"   // version
	TypeNewRound = "newRound" // version: start (alone) or request a new round
	TypeAccept   = "accept"   // version: accept the pending new-round request
	TypeDecline  = "decline"  // version: decline it
	TypeWithdraw = "withdraw" // version: withdraw one's own request
	TypeSeatCode = "seatCode" // ask for a one-time code that moves the seat
	TypePing     = "ping"     // an application-level ping; answered with pong
	TypeStart    = "start"    // version: the host starts with the computer in the free seats
)

// Event types the server sends. The first group changes the room and
// raises its version; the rest carry the current version unchanged.
const (
	EvMove     = "move"     // a move (or resign) was played
	EvRound    = "round"    // a new round started
	EvRequest  = "request"  // a new round was requested
	EvAccept   = "accept"   // a seat accepted it (not yet all)
	EvDecline  = "decline"  // a seat declined it: nothing changes
	EvWithdraw = "withdraw" // the requester withdrew it
	EvJoin     = "join"     // a free seat was taken
	EvRekey    = "rekey"    // a seat moved to another device with a seat code
	EvStart    = "start"    // the host started: the computer plays the free seats

	EvWelcome  = "welcome"  // the answer to hello
	EvPresence = "presence" // who is connected changed
	EvAck      = "ack"      // the request with this id is confirmed (stored)
	EvRefused  = "refused"  // the request with this id was not applied
	EvSeatCode = "seatCode" // the one-time code asked for
	EvPong     = "pong"
	EvReplaced = "replaced" // another connection took this seat; do not reconnect
	EvError    = "error"    // the connection ends: code says why
)

// Limits on the fields of a request (longer is a protocol error).
const (
	maxIDLen   = 64
	maxMoveLen = 64
	maxKeyLen  = 64
	maxCodeLen = 16
)

// Request is one message from a client.
type Request struct {
	Type string `json:"type"`
	// ID is the client's name for the request, echoed in its ack/refused.
	ID string `json:"id,omitempty"`
	// Version is the room version the request answers (required for every
	// action; in hello the last version the client saw).
	Version *int64   `json:"version,omitempty"`
	Move    sdk.Move `json:"move,omitempty"`
	SeatKey string   `json:"seatKey,omitempty"`
	Code    string   `json:"code,omitempty"`
	// Watch, in a hello without key or code, watches instead of taking
	// the next free seat (a visitor who has not chosen yet).
	Watch bool `json:"watch,omitempty"`
}

// ErrBadMessage wraps every reason a message is refused by the decoder.
var ErrBadMessage = errors.New("bad message")

// Decode reads one client message strictly: a single JSON object of known
// fields, a known type, the fields that type needs, and bounded lengths.
func Decode(b []byte) (Request, error) {
	r, ok := decodePlain(b)
	if !ok {
		var err error
		if r, err = decodeJSON(b); err != nil {
			return Request{}, err
		}
	}
	switch {
	case len(r.ID) > maxIDLen:
		return Request{}, fmt.Errorf("%w: id longer than %d", ErrBadMessage, maxIDLen)
	case len(r.Move) > maxMoveLen:
		return Request{}, fmt.Errorf("%w: move longer than %d", ErrBadMessage, maxMoveLen)
	case len(r.SeatKey) > maxKeyLen:
		return Request{}, fmt.Errorf("%w: seatKey longer than %d", ErrBadMessage, maxKeyLen)
	case len(r.Code) > maxCodeLen:
		return Request{}, fmt.Errorf("%w: code longer than %d", ErrBadMessage, maxCodeLen)
	case r.Version != nil && *r.Version < 0:
		return Request{}, fmt.Errorf("%w: negative version", ErrBadMessage)
	}
	switch r.Type {
	case TypeHello, TypeSeatCode, TypePing:
	case TypeMove:
		if r.Move == "" {
			return Request{}, fmt.Errorf("%w: move needs a move", ErrBadMessage)
		}
		fallthrough
	case TypeResign, TypeNewRound, TypeAccept, TypeDecline, TypeWithdraw, TypeStart:
		if r.Version == nil {
			return Request{}, fmt.Errorf("%w: %s needs the version it answers", ErrBadMessage, r.Type)
		}
	case "":
		return Request{}, fmt.Errorf("%w: no type", ErrBadMessage)
	default:
		return Request{}, fmt.Errorf("%w: unknown type %q", ErrBadMessage, r.Type)
	}
	if r.Type != TypeHello && (r.SeatKey != "" || r.Code != "" || r.Watch) {
		return Request{}, fmt.Errorf("%w: seatKey, code and watch belong in hello only", ErrBadMessage)
	}
	return r, nil
}

// decodeJSON reads b as encoding/json does, refusing unknown fields and
// anything after the object.
func decodeJSON(b []byte) (Request, error) {
	var r Request
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return Request{}, fmt.Errorf("%w: %v", ErrBadMessage, err)
	}
	if dec.More() {
		return Request{}, fmt.Errorf("%w: data after the object", ErrBadMessage)
	}
	return r, nil
}

// decodePlain reads the messages clients send, a flat object of the known
// keys spelled exactly, strings of printable ASCII without escapes, a
// version in plain digits, watch true or false, in a fraction of
// encoding/json's time and without its allocations (a move's message is
// decoded on every move). Anything else it leaves to decodeJSON (ok
// false); what it reads, decodeJSON reads alike (FuzzDecodePlain).
func decodePlain(b []byte) (r Request, ok bool) {
	i := skipSpace(b, 0)
	if i == len(b) || b[i] != '{' {
		return Request{}, false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return r, skipSpace(b, i+1) == len(b)
	}
	for {
		key, j, ok := plainString(b, i)
		if !ok {
			return Request{}, false
		}
		i = skipSpace(b, j)
		if i == len(b) || b[i] != ':' {
			return Request{}, false
		}
		i = skipSpace(b, i+1)
		switch key {
		case "type", "id", "move", "seatKey", "code":
			v, j, ok := plainString(b, i)
			if !ok {
				return Request{}, false
			}
			switch key {
			case "type":
				r.Type = v
			case "id":
				r.ID = v
			case "move":
				r.Move = sdk.Move(v)
			case "seatKey":
				r.SeatKey = v
			case "code":
				r.Code = v
			}
			i = j
		case "version":
			v, j, ok := plainInt(b, i)
			if !ok {
				return Request{}, false
			}
			r.Version, i = &v, j
		case "watch":
			switch {
			case bytes.HasPrefix(b[i:], []byte("true")):
				r.Watch, i = true, i+4
			case bytes.HasPrefix(b[i:], []byte("false")):
				r.Watch, i = false, i+5
			default:
				return Request{}, false
			}
		default:
			return Request{}, false
		}
		i = skipSpace(b, i)
		if i == len(b) {
			return Request{}, false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return r, skipSpace(b, i+1) == len(b)
		default:
			return Request{}, false
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// plainString reads a JSON string of printable ASCII without escapes at
// b[i:], returning it and the index after it.
func plainString(b []byte, i int) (string, int, bool) {
	if i == len(b) || b[i] != '"' {
		return "", 0, false
	}
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return string(b[i+1 : j]), j + 1, true
		case c < 0x20 || c > 0x7e || c == '\\':
			return "", 0, false
		}
	}
	return "", 0, false
}

// plainInt reads a JSON integer of at most 18 digits (no fraction or
// exponent, which decodeJSON refuses for an int64 or reads its own way).
func plainInt(b []byte, i int) (int64, int, bool) {
	neg := i < len(b) && b[i] == '-'
	if neg {
		i++
	}
	start := i
	var v int64
	for i < len(b) && b[i] >= '0' && b[i] <= '9' && i-start < 18 {
		v = v*10 + int64(b[i]-'0')
		i++
	}
	switch {
	case i == start, b[start] == '0' && i-start > 1:
		return 0, 0, false
	case i < len(b) && (b[i] >= '0' && b[i] <= '9' || b[i] == '.' || b[i] == 'e' || b[i] == 'E'):
		return 0, 0, false
	}
	if neg {
		v = -v
	}
	return v, i, true
}

// Event is one message from the server. Which fields are set depends on
// Type (docs/protocol.md lists them per type).
// CellAt is one board cell that changed, by its index in view.board.
type CellAt struct {
	At   int      `json:"at"`
	Cell sdk.Cell `json:"cell"`
}

// sameCell is a == b, the numbers first and inline: through the generated
// struct equality the comparison of a board's 81 cells was ~1% of the
// host's CPU. (The encoder's shapes check fails when sdk.Cell changes.)
func sameCell(a, b *sdk.Cell) bool {
	return a.Owner == b.Owner && a.Facing == b.Facing && a.Promoted == b.Promoted &&
		a.Flipped == b.Flipped && a.Kind == b.Kind
}

// boardChanges is the cells of next that differ from prev, nil when the
// boards are not of one size (then the whole board must travel).
func boardChanges(prev, next []sdk.Cell) ([]CellAt, bool) {
	if len(prev) != len(next) || len(next) == 0 {
		return nil, false
	}
	var out []CellAt
	for i := range next {
		if !sameCell(&next[i], &prev[i]) {
			if out == nil {
				out = make([]CellAt, 0, 4) // a move changes one to three cells in these games
			}
			out = append(out, CellAt{At: i, Cell: next[i]})
		}
	}
	return out, true
}

type Event struct {
	Type    string `json:"type"`
	Version int64  `json:"version"`
	Round   int    `json:"round,omitempty"`
	// Seat is who acted, or in welcome the receiver's own seat (-1 for a
	// spectator).
	Seat   *sdk.Seat       `json:"seat,omitempty"`
	Move   sdk.Move        `json:"move,omitempty"`
	Played *sdk.PlayedMove `json:"played,omitempty"`
	// Computer: the computer made this move for Seat.
	Computer bool `json:"computer,omitempty"`
	// Clock is the time per move of the turn now in progress.
	Clock *Clock `json:"clock,omitempty"`
	// View is the game after the event. In events its history is null (the
	// client appends Played); in a full welcome it is complete. Legal lists
	// only the receiver's own moves.
	View *sdk.View `json:"view,omitempty"`
	// Cells, in a live move event whose view.board is null, are the board
	// cells the move changed: the receiver applies them to its board
	// (docs/protocol.md, "Board changes"). The board is ~80% of a view
	// that travels to every connection on every move.
	Cells    []CellAt  `json:"cells,omitempty"`
	NewRound *Pending  `json:"newRound,omitempty"`
	Presence *Presence `json:"presence,omitempty"`

	ID        string `json:"id,omitempty"`
	Duplicate bool   `json:"duplicate,omitempty"`
	Code      string `json:"code,omitempty"`
	Key       string `json:"key,omitempty"`
	Message   string `json:"message,omitempty"`
	Reason    string `json:"reason,omitempty"`

	SeatCode string     `json:"seatCode,omitempty"`
	Expires  *time.Time `json:"expires,omitempty"`

	// welcome only
	Room    string  `json:"room,omitempty"`
	Variant string  `json:"variant,omitempty"`
	SeatKey string  `json:"seatKey,omitempty"`
	Resync  string  `json:"resync,omitempty"` // "full" or "events"
	Broken  *Broken `json:"broken,omitempty"`
	// Settings are the options the room was created with (the variant's
	// and the host settings): every visitor sees them.
	Settings sdk.Options `json:"settings,omitempty"`

	// packed is what View is encoded with of what the room holds packed
	// (viewFor): the legal moves (the View's own Legal is then empty) and
	// the board (the View's Board is then nil).
	packed packedFor
}

// Pending is a new-round request waiting for consent.
type Pending struct {
	By       sdk.Seat   `json:"by"`
	Accepted []sdk.Seat `json:"accepted"`
}

// Presence says which seats are held and connected, and how many watch.
type Presence struct {
	Seats      []SeatPresence `json:"seats"`
	Spectators int            `json:"spectators"`
	// Started: the host started with the computer in the free seats.
	Started bool `json:"started,omitempty"`
}

// SeatPresence is one seat's state.
type SeatPresence struct {
	Taken     bool `json:"taken"`
	Connected bool `json:"connected"`
	// Computer: the computer plays this seat now (a free seat of a started
	// room, or a player away past the grace period).
	Computer bool `json:"computer,omitempty"`
}

// Broken says a room's log no longer replays under the installed rules.
type Broken struct {
	Code    string `json:"code"` // "replay_failed" or "rules_changed"
	Message string `json:"message"`
	// At is the version whose action the rules refused.
	At int64 `json:"at"`
	// RulesVersion is the version the room was played under; Installed the
	// one installed now (both empty when the variant declares none).
	RulesVersion string `json:"rulesVersion,omitempty"`
	Installed    string `json:"installed,omitempty"`
}

func seatPtr(s sdk.Seat) *sdk.Seat { return &s }

// EncodeError is the error event that precedes a close.
func EncodeError(code, msg string) ([]byte, error) {
	return marshal(Event{Type: EvError, Code: code, Message: msg})
}

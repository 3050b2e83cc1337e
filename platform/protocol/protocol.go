// Package protocol is the room protocol's messages (docs/protocol.md,
// "Rooms"): what a client sends (Request) and what the server sends
// (Event), typed once for the host, the Go client and the load tool.
//
// Its one codec is github.com/goccy/go-json, a drop-in for encoding/json
// with the same struct tags, rules and output: Decode reads a request
// strictly, Encode writes an event, EncodeRequest and DecodeEvent are the
// client's side. It holds no state and never knows a game rule: a View is
// carried as the sdk defines it.
//
// Why not encoding/json itself: the speed guard of issue 35
// (docs/benchmarks.md). A shogi move event to the player to move carries
// its legal moves, 3–8 KB of JSON; encoding/json wrote it in about twice
// the time go-json does and read it in about five times, and those two were
// the largest items of the host's and the load generator's profiles.
// go-json was measured beside segmentio/encoding, json-iterator, sonic and
// go-json-experiment (encoding/json/v2 with v1 options) and was the fastest
// both ways; it is kept up (releases through 2026), and its few assembly
// scanners (amd64, arm64) have Go fallbacks elsewhere. FuzzDecode
// and FuzzEvent hold it to encoding/json: the same requests accepted with
// the same values, and events written byte for byte alike.
package protocol

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	json "github.com/goccy/go-json"

	"github.com/banmen/banmen/sdk"
)

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
	TypeClaimWin = "claimWin" // version: claim the win, the other player gone (2-player rooms)
	TypeName     = "name"     // version, name: set (or, empty, clear) one's seat's player name
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
	EvName     = "name"     // a seat's player name was set (or cleared)

	EvWelcome  = "welcome"  // the answer to hello
	EvPresence = "presence" // who is connected changed
	EvAck      = "ack"      // the request with this id is confirmed (stored)
	EvRefused  = "refused"  // the request with this id was not applied
	EvSeatCode = "seatCode" // the one-time code asked for
	EvPong     = "pong"
	EvReplaced = "replaced" // another connection took this seat; do not reconnect
	EvError    = "error"    // the connection ends: code says why
)

// ChangesView tells whether an event of type ev carries the room's new
// view to its receivers (a move, a new round, the start).
func ChangesView(ev string) bool { return ev == EvMove || ev == EvRound || ev == EvStart }

// Limits on the fields of a request (longer is a protocol error).
const (
	MaxIDLen   = 64
	MaxMoveLen = 64
	MaxKeyLen  = 64
	MaxCodeLen = 16
	// MaxNameLen bounds a player name in bytes; the room allows
	// MaxNameRunes characters of it, none a control or format character.
	MaxNameLen   = 96
	MaxNameRunes = 24
)

// WebSocket close codes of the protocol (4000–4999 are the application's).
const (
	CloseNormal       = 1000
	CloseGoingAway    = 1001
	CloseProtocol     = 1008 // not JSON, unknown type or field, a field missing or too long
	CloseTooBig       = 1009
	CloseInternal     = 1011
	CloseTryAgain     = 1013 // the rules are unavailable for a moment
	CloseReplaced     = 4001 // another connection took this seat: do not reconnect
	CloseBadKey       = 4003 // the seat key or code holds no seat here
	CloseNotFound     = 4004 // the room does not exist or expired
	CloseFlood        = 4008 // too many messages
	CloseSlow         = 4009 // too slow to read: the send queue overflowed
	CloseFullWatchers = 4010 // the room takes no more spectators for now
	CloseTooManyWrong = 4029 // too many wrong keys or codes from this address
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
	// Name, in a name request, is the seat's player name (empty: none).
	Name string `json:"name,omitempty"`
}

// ErrBadMessage wraps every reason a message is refused by Decode.
var ErrBadMessage = errors.New("bad message")

// Decode reads one client message strictly: a single JSON object of known
// fields, a known type, the fields that type needs, and bounded lengths.
func Decode(b []byte) (Request, error) {
	var r Request
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return Request{}, fmt.Errorf("%w: %v", ErrBadMessage, err)
	}
	if dec.More() {
		return Request{}, fmt.Errorf("%w: data after the object", ErrBadMessage)
	}
	if err := r.Validate(); err != nil {
		return Request{}, err
	}
	return r, nil
}

// Validate checks a request as Decode does after reading it.
func (r Request) Validate() error {
	switch {
	case len(r.ID) > MaxIDLen:
		return fmt.Errorf("%w: id longer than %d", ErrBadMessage, MaxIDLen)
	case len(r.Move) > MaxMoveLen:
		return fmt.Errorf("%w: move longer than %d", ErrBadMessage, MaxMoveLen)
	case len(r.SeatKey) > MaxKeyLen:
		return fmt.Errorf("%w: seatKey longer than %d", ErrBadMessage, MaxKeyLen)
	case len(r.Code) > MaxCodeLen:
		return fmt.Errorf("%w: code longer than %d", ErrBadMessage, MaxCodeLen)
	case len(r.Name) > MaxNameLen:
		return fmt.Errorf("%w: name longer than %d bytes", ErrBadMessage, MaxNameLen)
	case r.Name != "" && r.Type != TypeName:
		return fmt.Errorf("%w: name belongs in a name request only", ErrBadMessage)
	case r.Version != nil && *r.Version < 0:
		return fmt.Errorf("%w: negative version", ErrBadMessage)
	}
	switch r.Type {
	case TypeHello, TypeSeatCode, TypePing:
	case TypeMove:
		if r.Move == "" {
			return fmt.Errorf("%w: move needs a move", ErrBadMessage)
		}
		fallthrough
	case TypeResign, TypeNewRound, TypeAccept, TypeDecline, TypeWithdraw, TypeStart, TypeClaimWin, TypeName:
		if r.Version == nil {
			return fmt.Errorf("%w: %s needs the version it answers", ErrBadMessage, r.Type)
		}
	case "":
		return fmt.Errorf("%w: no type", ErrBadMessage)
	default:
		return fmt.Errorf("%w: unknown type %q", ErrBadMessage, r.Type)
	}
	if r.Type != TypeHello && (r.SeatKey != "" || r.Code != "" || r.Watch) {
		return fmt.Errorf("%w: seatKey, code and watch belong in hello only", ErrBadMessage)
	}
	return nil
}

// Event is one message from the server. Which fields are set depends on
// Type (docs/protocol.md lists them per type).
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
	// Claimed: this move (a resignation of Seat) is a win the other player
	// claimed, Seat's player being gone.
	Claimed bool `json:"claimed,omitempty"`
	// Name, in a name event, is Seat's new player name ("": none).
	Name string `json:"name,omitempty"`
	// Clock is the time per move of the turn now in progress.
	Clock *Clock `json:"clock,omitempty"`
	// View is the game after the event. In events its history is null (the
	// client appends Played); in a full welcome it is complete. Legal lists
	// only the receiver's own moves.
	View *sdk.View `json:"view,omitempty"`
	// Cells, in a live move event whose view.board is null, are the board
	// cells the move changed: the receiver applies them to its board
	// (docs/protocol.md, "Board changes").
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
}

// CellAt is one board cell that changed, by its index in view.board.
type CellAt struct {
	At   int      `json:"at"`
	Cell sdk.Cell `json:"cell"`
}

// Clock is the time per move of the turn in progress, sent with every event
// that changes the turn and in welcome.
type Clock struct {
	Seat sdk.Seat `json:"seat"`
	// Limit is the time per move, Remaining what is left of it when the
	// message was sent, both in milliseconds.
	Limit     int64 `json:"limit"`
	Remaining int64 `json:"remaining"`
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
	// Gone: in a 2-player room, this seat's player has been away for
	// longer than the server's gone delay: the other may claim the win.
	Gone bool `json:"gone,omitempty"`
	// Name is the name the seat's player gave, if any: untrusted text,
	// to be shown as text.
	Name string `json:"name,omitempty"`
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

// Encode writes one event as the server sends it.
func Encode(ev *Event) ([]byte, error) { return json.Marshal(ev) }

// DecodeEvent reads one server message (what a client does). The event
// keeps no reference to b.
func DecodeEvent(b []byte, ev *Event) error { return json.Unmarshal(b, ev) }

// EncodeRequest writes one request as a client sends it.
func EncodeRequest(r *Request) ([]byte, error) { return json.Marshal(r) }

// Error is the error event that precedes a close.
func Error(code, msg string) []byte {
	b, _ := Encode(&Event{Type: EvError, Code: code, Message: msg})
	return b
}

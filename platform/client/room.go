package client

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/banmen/banmen/platform/protocol"
	"github.com/banmen/banmen/sdk"
	"github.com/fasthttp/websocket"
)

// The room protocol (docs/protocol.md, "Rooms"), from the client's side.

// CreatedRoom is the answer of CreateRoom. SeatKey holds the creator's seat:
// keep it secret, it is shown once.
type CreatedRoom struct {
	Room    string   `json:"room"`
	Variant string   `json:"variant"`
	Seat    sdk.Seat `json:"seat"`
	SeatKey string   `json:"seatKey"`
	Invite  string   `json:"invite"`
}

// CreateRoom creates a room of variant; the caller holds seat 0.
func (c *Client) CreateRoom(ctx context.Context, variant string, opts sdk.Options) (CreatedRoom, error) {
	body := struct {
		Variant string      `json:"variant"`
		Options sdk.Options `json:"options,omitempty"`
	}{variant, opts}
	var out CreatedRoom
	if err := c.do(ctx, http.MethodPost, "/api/v1/rooms", body, &out); err != nil {
		return out, fmt.Errorf("create room: %w", err)
	}
	return out, nil
}

// The protocol's messages, as package protocol types them.
type (
	// RoomEvent is one message from the server; which fields are set
	// depends on Type.
	RoomEvent = protocol.Event
	// RoomRequest is one message to the server.
	RoomRequest = protocol.Request
	// CellAt is a board cell that changed, by its index in the board.
	CellAt = protocol.CellAt
	// Clock is the time per move of the turn in progress (milliseconds).
	Clock = protocol.Clock
	// NewRound is a pending new-round request.
	NewRound = protocol.Pending
	// Presence tells which seats are held and connected.
	Presence = protocol.Presence
)

// CloseError is how a room connection ended: the WebSocket close code
// (4001 replaced, 4003 bad key, 4004 no such room, 1009 too big, ...).
type CloseError struct {
	Code int
	Text string
}

func (e *CloseError) Error() string {
	return fmt.Sprintf("room connection closed: %d %s", e.Code, e.Text)
}

// ClosedWith reports the close code of err, or 0.
func ClosedWith(err error) int {
	var ce *CloseError
	if errors.As(err, &ce) {
		return ce.Code
	}
	return 0
}

// Player is a connection to a room that keeps what a client must know:
// its seat and key, the room's version, and the game's view with its
// complete history (events carry only the played move; Player appends it).
// A Player is used by one goroutine.
type Player struct {
	c    *Client
	room string
	// Header is sent with the handshake (e.g. an Origin).
	Header http.Header
	// NetDial, when set, opens the TCP connection (tests shrink buffers).
	NetDial func(network, addr string) (net.Conn, error)

	SeatKey  string
	Seat     sdk.Seat
	Version  int64
	Round    int
	View     sdk.View
	Presence Presence
	NewRound *NewRound
	// Clock is the time per move of the turn in progress, as last sent.
	Clock *Clock
	// Resync is how the last welcome caught this client up: "full" or
	// "events".
	Resync string
	// Settings are the room's options, as the welcome said.
	Settings sdk.Options
	seen     bool // a welcome arrived: Version is meaningful

	ws  *websocket.Conn
	ids atomic.Int64
}

// Player returns a Player for room holding seatKey ("" for the next free
// seat, or to watch). Connect opens it.
func (c *Client) Player(room, seatKey string) *Player {
	return &Player{c: c, room: room, SeatKey: seatKey, Seat: -1}
}

// Connect dials the room, says hello (with the seat key and, after a first
// connection or when Version was set, the last version seen) and reads the
// welcome. Catch-up
// events that follow it are read by Next.
func (p *Player) Connect(ctx context.Context) error {
	return p.connect(ctx, RoomRequest{Type: protocol.TypeHello, SeatKey: p.SeatKey})
}

// Watch dials the room as a spectator even when a seat is free (a visitor
// looking at the settings and seats before taking one with Connect).
func (p *Player) Watch(ctx context.Context) error {
	return p.connect(ctx, RoomRequest{Type: protocol.TypeHello, Watch: true})
}

// ConnectWithCode moves a seat to this Player with a seat code.
func (p *Player) ConnectWithCode(ctx context.Context, code string) error {
	return p.connect(ctx, RoomRequest{Type: protocol.TypeHello, Code: code})
}

func (p *Player) connect(ctx context.Context, hello RoomRequest) error {
	p.Close()
	u, err := url.Parse(p.c.base)
	if err != nil {
		return err
	}
	u.Scheme = strings.Replace(u.Scheme, "http", "ws", 1)
	u.Path = "/api/v1/rooms/" + url.PathEscape(p.room) + "/socket"
	d := websocket.Dialer{HandshakeTimeout: 10 * time.Second, NetDial: p.NetDial}
	ws, res, err := d.DialContext(ctx, u.String(), p.Header)
	if err != nil {
		if res != nil {
			return &Error{Status: res.StatusCode, Code: "handshake", Message: err.Error()}
		}
		return fmt.Errorf("dial room: %w", err)
	}
	p.ws = ws
	if p.seen || p.Version > 0 {
		v := p.Version // what this client has seen: catch up from there
		hello.Version = &v
	}
	if err := p.Send(hello); err != nil {
		return err
	}
	for {
		ev, err := p.Next(ctx)
		if err != nil {
			return err
		}
		if ev.Type == protocol.EvError {
			_, err := p.Next(ctx) // the close that follows
			if err == nil {
				err = errors.New(ev.Code)
			}
			return fmt.Errorf("%s: %w", ev.Code, err)
		}
		if ev.Type == protocol.EvWelcome {
			return nil
		}
	}
}

// Send writes one request as it is.
func (p *Player) Send(r RoomRequest) error {
	if p.ws == nil {
		return errors.New("not connected")
	}
	b, err := protocol.EncodeRequest(&r)
	if err != nil {
		return err
	}
	return p.ws.WriteMessage(websocket.TextMessage, b)
}

// Act sends an action (move, resign, newRound, accept, decline, withdraw)
// answering the current version, and returns its id.
func (p *Player) Act(typ string, move sdk.Move) (string, error) {
	id := strconv.FormatInt(p.ids.Add(1), 10)
	v := p.Version
	return id, p.Send(RoomRequest{Type: typ, ID: id, Version: &v, Move: move})
}

// Do sends an action and reads events (applying them) until its ack or
// refusal, which it returns; a refusal is also an error (*Error with the
// refusal's code).
func (p *Player) Do(ctx context.Context, typ string, move sdk.Move) (RoomEvent, error) {
	id, err := p.Act(typ, move)
	if err != nil {
		return RoomEvent{}, err
	}
	return p.Await(ctx, id)
}

// Await reads events until the ack or refusal of request id.
func (p *Player) Await(ctx context.Context, id string) (RoomEvent, error) {
	for {
		ev, err := p.Next(ctx)
		if err != nil {
			return ev, err
		}
		if ev.ID != id {
			continue
		}
		switch ev.Type {
		case protocol.EvAck, protocol.EvSeatCode, protocol.EvPong:
			return ev, nil
		case protocol.EvRefused:
			return ev, &Error{Code: ev.Code, Key: ev.Key, Message: ev.Message}
		}
	}
}

// Next reads one event and applies it. A closed connection is a
// *CloseError; ctx's deadline bounds the wait.
func (p *Player) Next(ctx context.Context) (RoomEvent, error) {
	var ev RoomEvent
	if p.ws == nil {
		return ev, errors.New("not connected")
	}
	if d, ok := ctx.Deadline(); ok {
		p.ws.SetReadDeadline(d)
	} else {
		p.ws.SetReadDeadline(time.Time{})
	}
	_, b, err := p.ws.ReadMessage()
	if err != nil {
		var ce *websocket.CloseError
		if errors.As(err, &ce) {
			return ev, &CloseError{Code: ce.Code, Text: ce.Text}
		}
		return ev, err
	}
	if err := protocol.DecodeEvent(b, &ev); err != nil {
		return ev, err
	}
	p.apply(ev)
	return ev, nil
}

func (p *Player) apply(ev RoomEvent) {
	switch ev.Type {
	case protocol.EvWelcome:
		p.seen = true
		p.Seat, p.Round, p.NewRound, p.Resync = *ev.Seat, ev.Round, ev.NewRound, ev.Resync
		p.Settings = ev.Settings
		if ev.SeatKey != "" {
			p.SeatKey = ev.SeatKey
		}
		if ev.View != nil {
			p.View = *ev.View // full: history included
		}
	case protocol.EvMove, protocol.EvStart:
		hist := p.View.History
		if ev.Played != nil {
			hist = append(hist, *ev.Played)
		}
		if ev.View != nil {
			v := *ev.View
			if v.Board == nil { // only the cells that changed travel
				v.Board = slices.Clone(p.View.Board)
				for _, c := range ev.Cells {
					if c.At >= 0 && c.At < len(v.Board) {
						v.Board[c.At] = c.Cell
					}
				}
			}
			p.View = v
		}
		p.View.History = hist
	case protocol.EvRound:
		p.Round, p.NewRound = ev.Round, nil
		if ev.View != nil {
			p.View = *ev.View
		}
		p.View.History = []sdk.PlayedMove{}
	case protocol.EvRequest, protocol.EvAccept:
		p.NewRound = ev.NewRound
	case protocol.EvDecline, protocol.EvWithdraw:
		p.NewRound = nil
	case protocol.EvName:
		if ev.Seat != nil && int(*ev.Seat) < len(p.Presence.Seats) && *ev.Seat >= 0 {
			p.Presence.Seats[*ev.Seat].Name = ev.Name
		}
	}
	if ev.Presence != nil {
		p.Presence = *ev.Presence
	}
	if ev.View != nil || ev.Clock != nil {
		p.Clock = ev.Clock
	}
	if ev.Type != protocol.EvError {
		p.Version = ev.Version
	}
}

// Close drops the connection (the seat stays held by the key).
func (p *Player) Close() {
	if p.ws != nil {
		p.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
		p.ws.Close()
		p.ws = nil
	}
}

// Conn is the underlying WebSocket (for tests that misbehave on purpose).
func (p *Player) Conn() *websocket.Conn { return p.ws }

// ExportRoom returns the record of a room's current round in one of the
// variant's notations, and the room's version (POST
// /api/v1/rooms/{room}/export). Anyone who knows the room may ask.
func (c *Client) ExportRoom(ctx context.Context, room, format string) (string, int64, error) {
	var out struct {
		Text    string `json:"text"`
		Version int64  `json:"version"`
	}
	if err := c.do(ctx, http.MethodPost, "/api/v1/rooms/"+url.PathEscape(room)+"/export", map[string]string{"format": format}, &out); err != nil {
		return "", 0, fmt.Errorf("export room %s: %w", room, err)
	}
	return out.Text, out.Version, nil
}

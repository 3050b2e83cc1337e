package server

import (
	"context"
	"errors"
	"net/url"
	"sync"
	"time"

	"github.com/banmen/banmen/platform/internal/room"
	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/host"
	"github.com/gofiber/fiber/v2"
)

// RoomRules lets the room engine call the rules through the plugin host
// (supervision, restart and retry included).
func RoomRules(g Games) room.Rules { return roomRules{g} }

type roomRules struct{ g Games }

func (r roomRules) Describe(variant string) (sdk.Description, bool) { return r.g.Description(variant) }

func (r roomRules) Start(ctx context.Context, variant string, opts sdk.Options) (st sdk.State, v sdk.View, err error) {
	err = r.g.Call(ctx, variant, "start", func(ctx context.Context, c *host.Conn) (err error) {
		st, v, err = c.Start(ctx, variant, opts)
		return err
	})
	return st, v, err
}

func (r roomRules) Play(ctx context.Context, variant string, s sdk.State, seat sdk.Seat, m sdk.Move) (st sdk.State, v sdk.View, err error) {
	err = r.g.Call(ctx, variant, "play", func(ctx context.Context, c *host.Conn) (err error) {
		st, v, err = c.Play(ctx, variant, s, seat, m)
		return err
	})
	return st, v, err
}

// The room finds the lean Play by a type assertion: a change of its
// signature must not turn it off unnoticed.
var _ room.LeanRules = roomRules{}

// PlayFrom is the lean Play of room.LeanRules: the View's History from entry
// historyFrom on only, its legal moves and board packed.
func (r roomRules) PlayFrom(ctx context.Context, variant string, s sdk.State, seat sdk.Seat, m sdk.Move, historyFrom int, spare *sdk.View, each func(seat sdk.Seat, json []byte)) (sdk.State, sdk.View, room.Packed, error) {
	p := playCalls.Get().(*playCall)
	p.variant, p.s, p.seat, p.m, p.historyFrom, p.spare, p.each = variant, s, seat, m, historyFrom, spare, each
	err := r.g.Call(ctx, variant, "play", p.fn)
	st, v, legal, board := p.st, p.v, p.legal, p.board
	fn := p.fn
	*p = playCall{fn: fn}
	playCalls.Put(p)
	if err != nil {
		return nil, sdk.View{}, room.Packed{}, err
	}
	return st, v, room.Packed{Legal: legal, Board: packedBoard{board}}, nil
}

// packedBoard is a host.Board as the room holds it (room.Board).
type packedBoard struct{ host.Board }

// Changes is host.Board's, for a prev that is one too.
func (b packedBoard) Changes(prev room.Board, f func(at int, c *sdk.Cell)) bool {
	p, ok := prev.(packedBoard)
	return ok && b.Board.Changes(p.Board, f)
}

// playCall is one PlayFrom's arguments and results, kept between calls with
// its function made once: a closure over them put the results (a View is
// ~300 bytes) and itself on the heap on every move.
type playCall struct {
	variant     string
	s           sdk.State
	seat        sdk.Seat
	m           sdk.Move
	historyFrom int
	spare       *sdk.View
	each        func(seat sdk.Seat, json []byte) // host.EachLegalJSON's
	st          sdk.State
	v           sdk.View
	legal       host.LegalList // the View's legal moves, packed (host.PackedLegal)
	board       host.Board     // the View's board, packed (host.PackedBoard)
	fn          func(ctx context.Context, c *host.Conn) error
}

var playCalls = sync.Pool{New: func() any {
	p := &playCall{}
	p.fn = p.play
	return p
}}

func (p *playCall) play(ctx context.Context, c *host.Conn) (err error) {
	p.st, p.v, err = c.Play(ctx, p.variant, p.s, p.seat, p.m, host.HistoryFrom(p.historyFrom), host.Reuse(p.spare), host.PackedLegal(&p.legal), host.EachLegalJSON(p.each), host.PackedBoard(&p.board))
	return err
}

// Suggest is room.ComputerRules: the computer's move for a computer seat,
// through the plugin host's engine process (pluginhost routes "suggest"
// there), so a search never delays a player's Play.
func (r roomRules) Suggest(ctx context.Context, variant string, s sdk.State, seat sdk.Seat, level sdk.Level) (move sdk.Move, err error) {
	err = r.g.Call(ctx, variant, "suggest", func(ctx context.Context, c *host.Conn) (err error) {
		// The plugin gets the time less a margin for the trip back.
		pctx := ctx
		if d, ok := ctx.Deadline(); ok {
			var cancel context.CancelFunc
			pctx, cancel = context.WithDeadline(ctx, d.Add(-time.Until(d)/10))
			defer cancel()
		}
		move, err = c.Suggest(pctx, variant, s, seat, level)
		return err
	})
	return move, err
}

type createRoomRequest struct {
	Variant string      `json:"variant"`
	Options sdk.Options `json:"options"`
	// Lang is the language of the invitation link (default "en").
	Lang string `json:"lang"`
}

type createRoomResponse struct {
	Room    string   `json:"room"`
	Variant string   `json:"variant"`
	Seat    sdk.Seat `json:"seat"`
	SeatKey string   `json:"seatKey"`
	Invite  string   `json:"invite"`
}

// createRoom is POST /api/v1/rooms: a new room whose creator holds seat 0.
// The seat key is in this answer only (never in a URL or a log line).
func (s *Server) createRoom(c *fiber.Ctx) error {
	if !s.createLimit.Allow(c.IP()) {
		c.Set(fiber.HeaderRetryAfter, "60")
		return &apiError{fiber.StatusTooManyRequests, "too_many_rooms", "too many rooms created from this address; try again in a minute"}
	}
	var req createRoomRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	if req.Variant == "" {
		return badRequest("a room needs a variant")
	}
	lang := req.Lang
	if lang == "" {
		lang = "en"
	}
	if len(lang) > 16 || url.PathEscape(lang) != lang {
		return badRequest("bad lang")
	}
	cr, err := s.rooms.Create(c.UserContext(), req.Variant, req.Options)
	if errors.Is(err, room.ErrUnknownVariant) {
		return notFound("unknown_variant", "no such game: "+req.Variant)
	}
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.Status(fiber.StatusCreated).JSON(createRoomResponse{Room: cr.Room, Variant: cr.Variant, Seat: cr.Seat, SeatKey: cr.SeatKey,
		Invite: s.baseURL(c) + "/" + lang + "/" + url.PathEscape(cr.Variant) + "/room/" + cr.Room})
}

type roomExportRequest struct {
	Format string `json:"format"`
	Lang   string `json:"lang"` // the page's language for the record's headers (optional)
}

// roomExport is POST /api/v1/rooms/{room}/export: the record of the room's
// current round in one of the variant's notations, and the version it is
// at. The room's id is all it needs (spectators see the same moves); the
// state itself never leaves the host.
func (s *Server) roomExport(c *fiber.Ctx) error {
	var req roomExportRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	if req.Format == "" {
		return badRequest("export needs a format")
	}
	r, err := s.openRoom(c)
	if err != nil {
		return err
	}
	variant, st, version := r.Current()
	var text string
	err = s.games.Call(c.UserContext(), variant, "export", func(ctx context.Context, conn *host.Conn) (err error) {
		text, err = conn.Export(ctx, variant, st, req.Format, host.Lang(req.Lang))
		return err
	})
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.JSON(fiber.Map{"text": text, "version": version})
}

// openRoom opens the room named by the request's path, or answers
// room_not_found for an id that is malformed, unknown or expired.
func (s *Server) openRoom(c *fiber.Ctx) (*room.Room, error) {
	id := c.Params("room")
	if !room.ValidID(id) {
		return nil, notFound("room_not_found", "no such room (unknown or expired)")
	}
	r, err := s.rooms.Open(c.UserContext(), id)
	if errors.Is(err, room.ErrNotFound) {
		return nil, notFound("room_not_found", "no such room (unknown or expired)")
	}
	return r, err
}

type roomViewRequest struct {
	Ply *int `json:"ply"`
}

// roomView is POST /api/v1/rooms/{room}/view: the room's current round as
// it was after its first ply moves, for the move list's navigation. Only
// the View leaves the host (never a State), and nothing in the room changes.
func (s *Server) roomView(c *fiber.Ctx) error {
	var req roomViewRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	if req.Ply == nil {
		return badRequest("view needs a ply")
	}
	r, err := s.openRoom(c)
	if err != nil {
		return err
	}
	variant, st, version := r.Current()
	var view sdk.View
	err = s.games.Call(c.UserContext(), variant, "rewind", func(ctx context.Context, conn *host.Conn) (err error) {
		_, view, err = conn.Rewind(ctx, variant, st, *req.Ply)
		return err
	})
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.JSON(fiber.Map{"view": view, "version": version})
}

package server

import (
	"context"
	"errors"
	"net/url"

	"github.com/banmen/banmen/platform/internal/room"
	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/host"
	"github.com/gofiber/fiber/v2"
)

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
		Invite: c.BaseURL() + "/" + lang + "/" + url.PathEscape(cr.Variant) + "/room/" + cr.Room})
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
	players := r.Names() // data for the plugin, which writes them in its format's header
	var text string
	err = s.games.Call(c.UserContext(), variant, "export", func(ctx context.Context, conn *host.Conn) (err error) {
		text, err = conn.Export(ctx, host.ExportRequest{Variant: variant, State: st, Format: req.Format, Lang: req.Lang, Players: players})
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
		_, view, err = conn.Rewind(ctx, host.RewindRequest{Variant: variant, State: st, Ply: *req.Ply})
		return err
	})
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.JSON(fiber.Map{"view": view, "version": version})
}

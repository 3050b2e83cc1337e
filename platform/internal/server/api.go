package server

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/host"
	"github.com/gofiber/fiber/v2"
)

// The stateless game API: the browser keeps the state (base64 in JSON) and
// sends it back with every call. It serves Same-device and computer games.

type gameResponse struct {
	State sdk.State `json:"state"`
	View  sdk.View  `json:"view"`
}

type startRequest struct {
	Options sdk.Options `json:"options"`
}

type playRequest struct {
	State sdk.State `json:"state"`
	Seat  *sdk.Seat `json:"seat"`
	Move  sdk.Move  `json:"move"`
}

type viewRequest struct {
	State sdk.State `json:"state"`
}

type rewindRequest struct {
	State sdk.State `json:"state"`
	Ply   *int      `json:"ply"`
}

type suggestRequest struct {
	State sdk.State `json:"state"`
	// Seat is the seat the computer plays for; a client that sends none
	// (written before seats were named) gets the first seat to move.
	Seat  *sdk.Seat `json:"seat"`
	Level sdk.Level `json:"level"`
	// ThinkMillis asks for less time than the server's limit.
	ThinkMillis int `json:"thinkMillis"`
}

type exportRequest struct {
	State  sdk.State `json:"state"`
	Format string    `json:"format"`
	// Lang is the page's language for the record's headers (optional).
	Lang string `json:"lang"`
}

type importRequest struct {
	Format string `json:"format"`
	Text   string `json:"text"`
}

// decode reads a JSON body strictly: one object, known fields only.
func decode(c *fiber.Ctx, v any) error {
	dec := json.NewDecoder(bytes.NewReader(c.Body()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return badRequest("the request body is not valid JSON for this call: " + err.Error())
	}
	if dec.More() {
		return badRequest("the request body has data after the JSON object")
	}
	return nil
}

func (s *Server) requireVariant(c *fiber.Ctx) error {
	id := c.Params("variant")
	if _, ok := s.games.Description(id); !ok {
		return notFound("unknown_variant", "no such game: "+id)
	}
	c.Locals("variant", id)
	return c.Next()
}

func variantOf(c *fiber.Ctx) string { return c.Locals("variant").(string) }

func (s *Server) listVariants(c *fiber.Ctx) error {
	return c.JSON(s.visible)
}

func (s *Server) getVariant(c *fiber.Ctx) error {
	d, ok := s.games.Description(c.Params("variant"))
	if !ok {
		return notFound("unknown_variant", "no such game: "+c.Params("variant"))
	}
	return c.JSON(s.public[d.ID])
}

// variantCard serves a variant's home card picture, sanitized, as an image
// that may neither run nor fetch anything.
func (s *Server) variantCard(c *fiber.Ctx) error {
	card, ok := s.cards[c.Params("variant")]
	if !ok {
		return notFound("no_card", "this game has no card picture")
	}
	c.Set(fiber.HeaderContentType, "image/svg+xml; charset=utf-8")
	c.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	c.Set(fiber.HeaderCacheControl, "public, max-age=3600")
	return c.SendString(card)
}

func (s *Server) start(c *fiber.Ctx) error {
	var req startRequest
	if len(c.Body()) > 0 {
		if err := decode(c, &req); err != nil {
			return err
		}
	}
	var out gameResponse
	err := s.games.Call(c.UserContext(), variantOf(c), "start", func(ctx context.Context, conn *host.Conn) (err error) {
		out.State, out.View, err = conn.Start(ctx, host.StartRequest{Variant: variantOf(c), Options: req.Options})
		return err
	})
	if err != nil {
		return err
	}
	return s.answerGame(c, out)
}

func (s *Server) play(c *fiber.Ctx) error {
	var req playRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	if len(req.State) == 0 || req.Seat == nil || req.Move == "" {
		return badRequest("play needs state, seat and move")
	}
	if err := s.openState(c, &req.State); err != nil {
		return err
	}
	var out gameResponse
	err := s.games.Call(c.UserContext(), variantOf(c), "play", func(ctx context.Context, conn *host.Conn) (err error) {
		out.State, out.View, err = conn.Play(ctx, host.PlayRequest{Variant: variantOf(c), State: req.State, Seat: *req.Seat, Move: req.Move})
		return err
	})
	if err != nil {
		return err
	}
	return s.answerGame(c, out)
}

func (s *Server) view(c *fiber.Ctx) error {
	var req viewRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	if len(req.State) == 0 {
		return badRequest("view needs a state")
	}
	signed := req.State
	if err := s.openState(c, &req.State); err != nil {
		return err
	}
	var out gameResponse
	err := s.games.Call(c.UserContext(), variantOf(c), "view", func(ctx context.Context, conn *host.Conn) (err error) {
		out.View, err = conn.View(ctx, host.ViewRequest{Variant: variantOf(c), State: req.State})
		return err
	})
	if err != nil {
		return err
	}
	// The State sent back is the one the client sent, already signed.
	return s.answer(c, gameResponse{State: signed, View: out.View})
}

// rewind is the game as it was after its first ply moves (sdk.Rewinder): the
// move list's navigation shows its View, a takeback plays on from its State.
func (s *Server) rewind(c *fiber.Ctx) error {
	var req rewindRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	if len(req.State) == 0 || req.Ply == nil {
		return badRequest("rewind needs state and ply")
	}
	if err := s.openState(c, &req.State); err != nil {
		return err
	}
	var out gameResponse
	err := s.games.Call(c.UserContext(), variantOf(c), "rewind", func(ctx context.Context, conn *host.Conn) (err error) {
		out.State, out.View, err = conn.Rewind(ctx, host.RewindRequest{Variant: variantOf(c), State: req.State, Ply: *req.Ply})
		return err
	})
	if err != nil {
		return err
	}
	return s.answerGame(c, out)
}

func (s *Server) suggest(c *fiber.Ctx) error {
	var req suggestRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	if len(req.State) == 0 {
		return badRequest("suggest needs a state")
	}
	if err := s.openState(c, &req.State); err != nil {
		return err
	}
	think := s.cfg.Limits.SuggestTimeout
	if req.ThinkMillis > 0 {
		think = min(think, time.Duration(req.ThinkMillis)*time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(c.UserContext(), think)
	defer cancel()
	var move sdk.Move
	err := s.games.Call(ctx, variantOf(c), "suggest", func(ctx context.Context, conn *host.Conn) (err error) {
		// The plugin gets the thinking time less a margin for the trip back.
		pctx, cancel := context.WithTimeout(ctx, think-think/10)
		defer cancel()
		seat, err := suggestSeat(pctx, conn, variantOf(c), &req)
		if err != nil {
			return err
		}
		move, err = conn.Suggest(pctx, host.SuggestRequest{Variant: variantOf(c), State: req.State, Seat: seat, Level: req.Level})
		return err
	})
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"move": move})
}

// suggestSeat is the seat a suggest request names or, for a client that
// names none, the first seat the View lists to move (NoSeat once the game is
// over, which the variant answers with game_over).
func suggestSeat(ctx context.Context, conn *host.Conn, variant string, req *suggestRequest) (sdk.Seat, error) {
	if req.Seat != nil {
		return *req.Seat, nil
	}
	v, err := conn.View(ctx, host.ViewRequest{Variant: variant, State: req.State})
	if err != nil {
		return 0, err
	}
	if len(v.ToMove) == 0 {
		return sdk.NoSeat, nil
	}
	return v.ToMove[0], nil
}

func (s *Server) export(c *fiber.Ctx) error {
	var req exportRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	if len(req.State) == 0 || req.Format == "" {
		return badRequest("export needs state and format")
	}
	if err := s.openState(c, &req.State); err != nil {
		return err
	}
	var text string
	err := s.games.Call(c.UserContext(), variantOf(c), "export", func(ctx context.Context, conn *host.Conn) (err error) {
		text, err = conn.Export(ctx, host.ExportRequest{Variant: variantOf(c), State: req.State, Format: req.Format, Lang: req.Lang})
		return err
	})
	if err != nil {
		return err
	}
	return s.answer(c, fiber.Map{"text": text})
}

func (s *Server) importGame(c *fiber.Ctx) error {
	var req importRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	if req.Format == "" {
		return badRequest("import needs format and text")
	}
	var out gameResponse
	err := s.games.Call(c.UserContext(), variantOf(c), "import", func(ctx context.Context, conn *host.Conn) (err error) {
		out.State, out.View, err = conn.Import(ctx, host.ImportRequest{Variant: variantOf(c), Format: req.Format, Text: req.Text})
		return err
	})
	if err != nil {
		return err
	}
	return s.answerGame(c, out)
}

// openState checks that the State a client sent is one this site issued
// (statekey.go) and leaves it without its tag, for the plugin; a State it
// did not issue is refused here, before any plugin replays it.
func (s *Server) openState(c *fiber.Ctx, st *sdk.State) error {
	body, err := s.states.open(variantOf(c), *st)
	if err != nil {
		return err
	}
	*st = body
	return nil
}

// answerGame signs the answer's State and sends it.
func (s *Server) answerGame(c *fiber.Ctx, out gameResponse) error {
	out.State = s.states.seal(variantOf(c), out.State)
	return s.answer(c, out)
}

// answer sends v as JSON, refused when longer than limits.answer_bytes:
// no call sends more than that, whatever game it was given.
func (s *Server) answer(c *fiber.Ctx, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if len(b) > s.cfg.Limits.AnswerBytes {
		return &apiError{fiber.StatusUnprocessableEntity, "answer_too_large",
			"the answer to this call would be larger than the site sends; the game is too long"}
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Send(b)
}

func (s *Server) healthz(c *fiber.Ctx) error {
	return c.JSON(fiber.Map{"status": "ok", "variants": len(s.games.Descriptions())})
}

package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/banmen/banmen/sdk"
)

// point is a spot on the viewport, in CSS pixels.
type point struct {
	X, Y, W, H float64
}

// snapshot is what jsSnapshot reads from the page.
type snapshot struct {
	Ready      bool              `json:"ready"`
	Busy       bool              `json:"busy"`
	Data       map[string]string `json:"data"`
	Keys       []string          `json:"keys"` // of the notices and status lines
	Status     string            `json:"status"`
	Ply        int               `json:"ply"`
	StorageKey string            `json:"storageKey"`
	Room       string            `json:"room"`    // a room page's room
	Pending    bool              `json:"pending"` // a room move sent and not yet confirmed
	State      string            `json:"state"`   // base64, as the page keeps it
	MoveList   []string          `json:"moveList"`
	Text       string            `json:"text"`
	Dialog     string            `json:"dialog"`
	// RoomView is, on a room page, the status and result of the last view
	// the server sent the page (jsSocketHook); nil before the first.
	RoomView *roomHeard `json:"roomView"`
}

// roomHeard is what a room page last heard of its game from the server.
type roomHeard struct {
	Version int64       `json:"version"`
	Status  sdk.Status  `json:"status"`
	Ply     int         `json:"ply"`
	Result  *sdk.Result `json:"result"`
}

// snapshot reads the page's state; full adds the texts expectations need.
func (s *session) snapshot(t *tab, full bool) (snapshot, error) {
	return eval[snapshot](t, jsCall(jsSnapshot, full))
}

// gameView asks the site for the View of the game the page keeps. A room's
// game is on the server: its record, exported through the room and
// imported again, gives its moves, position and legal moves (the harness
// sees no more than a spectator); its status and result are those the
// server last sent the page.
func (s *session) gameView(ctx context.Context, snap snapshot) (sdk.View, sdk.State, error) {
	if snap.Room != "" {
		v, st, err := s.roomView(ctx, snap.Room)
		if err == nil && snap.RoomView != nil && snap.RoomView.Ply == v.Ply {
			// How the game ended is the room's own, as the server told
			// the page: a record re-imported cannot say who resigned
			// when it was not their turn.
			v.Status, v.Result = snap.RoomView.Status, snap.RoomView.Result
		}
		return v, st, err
	}
	if snap.State == "" {
		return sdk.View{}, nil, fmt.Errorf("the page keeps no game (nothing in localStorage under %q)", snap.StorageKey)
	}
	var st sdk.State
	if err := json.Unmarshal([]byte(`"`+snap.State+`"`), &st); err != nil {
		return sdk.View{}, nil, fmt.Errorf("the saved state is not base64: %w", err)
	}
	g, err := s.client.View(ctx, s.sc.Variant, st)
	if err != nil {
		return sdk.View{}, nil, err
	}
	return g.View, st, nil
}

func (s *session) roomView(ctx context.Context, room string) (sdk.View, sdk.State, error) {
	if s.roundTrip == "" {
		d, err := s.client.Variant(ctx, s.sc.Variant)
		if err != nil {
			return sdk.View{}, nil, err
		}
		// The last notation that imports: a variant lists its main
		// (position) notation first and game records after it, and only a
		// record keeps how a game ended (a resignation is no move of a
		// position notation).
		for _, n := range d.Notations {
			if n.Import {
				s.roundTrip = n.ID
			}
		}
		if s.roundTrip == "" {
			return sdk.View{}, nil, fmt.Errorf("%s imports no notation: the harness cannot read a room's game", s.sc.Variant)
		}
	}
	text, _, err := s.client.ExportRoom(ctx, room, s.roundTrip)
	if err != nil {
		return sdk.View{}, nil, err
	}
	g, err := s.client.Import(ctx, s.sc.Variant, s.roundTrip, text)
	if err != nil {
		return sdk.View{}, nil, fmt.Errorf("the room's record does not import (%s): %w", s.roundTrip, err)
	}
	return g.View, g.State, nil
}

// roomSynced waits until a room page shows the server's game (the ply the
// server is at) with no move of its own pending, and returns the View.
func (s *session) roomSynced(ctx context.Context, t *tab, snap snapshot) (sdk.View, error) {
	var view sdk.View
	var failed error
	err := s.poll(ctx, "", func() (bool, error) {
		var err error
		if view, _, err = s.roomView(ctx, snap.Room); err != nil {
			failed = err
			return false, err
		}
		if snap, err = s.snapshot(t, false); err != nil {
			failed = err
			return false, err
		}
		return snap.Ply == view.Ply && !snap.Pending, nil
	})
	if err != nil && failed == nil && ctx.Err() == nil {
		err = fmt.Errorf("the room page never caught up with the server (page ply %d pending %v, server ply %d)", snap.Ply, snap.Pending, view.Ply)
	}
	return view, err
}

// move makes one move by its notation with an input method. It finds the move
// among the View's legal moves, performs it on the board, and, when wait is
// set, waits until the page has played it.
// AnyMove, as a move of a move or moves step, is the first board move the
// seat to move has, whatever the position.
const AnyMove = "any"

func (s *session) move(ctx context.Context, b *browser, t *tab, m, how string, wait bool) error {
	snap, err := s.waitIdle(ctx, t)
	if err != nil {
		return err
	}
	var view sdk.View
	if snap.Room != "" {
		view, err = s.roomSynced(ctx, t, snap)
	} else {
		view, _, err = s.gameView(ctx, snap)
	}
	if err != nil {
		return err
	}
	if view.Status != sdk.Playing {
		return fmt.Errorf("move %s: the game is over", m)
	}
	if m == AnyMove {
		// The first board move of the seat to move: for a position no
		// scenario can know (after the computer's moves in a room).
		for _, l := range view.Legal {
			if l.Kind == sdk.BoardMove && len(view.ToMove) > 0 && l.Seat == view.ToMove[0] {
				m = string(l.Move)
				break
			}
		}
	}
	var lm *sdk.LegalMove
	for i := range view.Legal {
		if string(view.Legal[i].Move) == m {
			lm = &view.Legal[i]
			break
		}
	}
	if lm == nil {
		return fmt.Errorf("move %s is not legal at ply %d (%s); legal: %s", m, view.Ply, view.Position, legalList(view))
	}
	// Moves that share the cells differ only by promotion: the page asks.
	twins := 0
	for _, o := range view.Legal {
		if o.Kind == lm.Kind && o.From == lm.From && o.To == lm.To && o.Drop == lm.Drop && o.Seat == lm.Seat {
			twins++
		}
	}
	switch lm.Kind {
	case sdk.Action:
		return fmt.Errorf("move %s is an action: press its button", m)
	case sdk.BoardMove:
		t.keys = nil
		err = s.input(ctx, b, t, how, cellSelector(lm.From), cellSelector(lm.To))
	case sdk.DropMove:
		t.keys = nil
		if supplyDrop(view, *lm) { // from an unlimited supply: the cell alone
			err = s.supplyInput(ctx, t, how, view, *lm)
		} else {
			err = s.input(ctx, b, t, how, handSelector(int(lm.Seat), lm.Drop), cellSelector(lm.To))
		}
	}
	if err != nil {
		return fmt.Errorf("move %s by %s: %w%s", m, how, err, keyboardState(t, how))
	}
	if twins > 1 {
		if err := s.choosePromotion(ctx, t, how, lm.Promote); err != nil {
			return fmt.Errorf("move %s: %w", m, err)
		}
	}
	if !wait {
		return nil
	}
	// The page has played the move when its ply has moved on.
	deadline := time.Now().Add(s.cfg.StepTimeout)
	for {
		snap, err := s.snapshot(t, false)
		if err == nil && snap.Ply > view.Ply {
			break
		}
		if time.Now().After(deadline) {
			msg := ""
			if err == nil {
				msg = fmt.Sprintf(" (ply still %d, dialog %q)", snap.Ply, snap.Dialog)
			}
			return fmt.Errorf("move %s by %s was not played within %v%s%s", m, how, s.cfg.StepTimeout, msg, keyboardState(t, how))
		}
		time.Sleep(15 * time.Millisecond)
	}
	return nil
}

// keyboardState is, after a keyboard move that went wrong, the element
// that has the focus and the keys sent, for the failure's message.
func keyboardState(t *tab, how string) string {
	if how != "keyboard" {
		return ""
	}
	focus, err := eval[string](t, jsFocusDescribe)
	if err != nil {
		focus = "unknown (" + err.Error() + ")"
	}
	return fmt.Sprintf("; focus on %s; keys sent: %s", focus, t.keysSent())
}

func legalList(v sdk.View) string {
	var ms []string
	for _, l := range v.Legal {
		ms = append(ms, string(l.Move))
	}
	if len(ms) > 40 {
		ms = append(ms[:40], fmt.Sprintf("… %d more", len(ms)-40))
	}
	return strings.Join(ms, " ")
}

// input picks the piece at from (a cell or a hand piece) and puts it on to.
func (s *session) input(ctx context.Context, b *browser, t *tab, how, from, to string) error {
	switch how {
	case "mouse", "touch":
		for _, sel := range []string{from, to} {
			p, err := steadyCenter(t, sel)
			if err != nil {
				return err
			}
			if err := s.press(t, how, p); err != nil {
				return err
			}
		}
		return nil
	case "drag", "touch-drag":
		// Both ends must be on the screen at once: finding the second may
		// scroll the page, so find them again until neither moves.
		var a, z point
		for range 3 {
			a0, err := center(t, from)
			if err != nil {
				return err
			}
			z0, err := center(t, to)
			if err != nil {
				return err
			}
			if a0 == a && z0 == z {
				break
			}
			a, z = a0, z0
		}
		return drag(t, how == "touch-drag", a, z)
	case "keyboard":
		return s.keyboard(ctx, t, from, to)
	}
	return fmt.Errorf("unknown input %q", how)
}

// press clicks or taps a point.
func (s *session) press(t *tab, how string, p point) error {
	if how == "touch" || how == "touch-drag" {
		return t.p.tap(t.ctx, p.X, p.Y)
	}
	return t.p.click(t.ctx, p.X, p.Y)
}

// center scrolls sel into view and returns its centre.
func center(t *tab, sel string) (point, error) {
	p, err := eval[*point](t, jsCall(jsCenter, sel))
	if err != nil {
		return point{}, err
	}
	if p == nil {
		return point{}, fmt.Errorf("%s is not on the page or not shown", sel)
	}
	return *p, nil
}

// steadyCenter is sel's centre once two readings a frame apart agree: a
// page that is still laying itself out (a notice shown after a reload)
// moves its board between a reading and the press. Two readings in one
// frame would agree whatever the page is doing. A spot that never keeps
// still is an error, not a press where it last was.
func steadyCenter(t *tab, sel string) (point, error) {
	const tries = 6
	p, err := center(t, sel)
	if err != nil {
		return p, err
	}
	seen := []point{p}
	for range tries - 1 {
		if err := t.p.exec(t.ctx, jsFrameBy); err != nil {
			return p, err
		}
		q, err := center(t, sel)
		if err != nil {
			return q, err
		}
		if q == p {
			return p, nil
		}
		p = q
		seen = append(seen, q)
	}
	var at []string
	for _, q := range seen {
		at = append(at, fmt.Sprintf("(%.0f, %.0f)", q.X, q.Y))
	}
	return p, fmt.Errorf("%s never kept still for a frame: its centre was at %s", sel, strings.Join(at, ", "))
}

// drag presses at a, moves in steps to z and releases, with the mouse or a
// finger.
func drag(t *tab, touch bool, a, z point) error {
	const steps = 8
	var path []point
	for i := 0; i <= steps+1; i++ {
		f := math.Min(float64(i)/steps, 1)
		path = append(path, point{X: a.X + (z.X-a.X)*f, Y: a.Y + (z.Y-a.Y)*f})
	}
	return t.p.drag(t.ctx, touch, path)
}

// keyboard moves a piece as a keyboard user does: Tab onto the piece (a hand
// piece, or the board), arrow keys to the square, Enter to pick it up, arrow
// keys to the destination, Enter to put it down.
func (s *session) keyboard(ctx context.Context, t *tab, from, to string) error {
	if strings.Contains(from, "hand-piece") {
		if err := tabTo(t, from); err != nil {
			return err
		}
	} else {
		if err := tabTo(t, "#arena .cell"); err != nil {
			return err
		}
		if err := arrowTo(t, from); err != nil {
			return err
		}
	}
	if err := t.key("Enter"); err != nil {
		return err
	}
	if err := arrowTo(t, to); err != nil {
		return err
	}
	return t.key("Enter")
}

// tabTo presses Tab until the focused element matches sel. When the target
// comes before the focus in the page, the focus is first let go (as a click
// on the page's background does), so that Tab starts again from the top:
// Tab past the end of the page leaves it for the browser's own window in
// Firefox, and Shift+Tab there leaves the next Enter without effect.
func tabTo(t *tab, sel string) error {
	behind, err := eval[bool](t, jsCall(jsFocusPast, sel))
	if err != nil {
		return err
	}
	if behind {
		if err := t.p.exec(t.ctx, jsFocusTop); err != nil {
			return err
		}
	}
	for range 120 {
		ok, err := eval[bool](t, jsCall(jsFocusIs, sel))
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		if err := t.key("Tab"); err != nil {
			return err
		}
	}
	return fmt.Errorf("Tab never reached %s", sel)
}

// arrowTo presses the arrow keys until the focus is on sel, choosing each key
// from where the target is on the screen, so it works whatever the board's
// shape or rotation.
func arrowTo(t *tab, sel string) error {
	z, err := center(t, sel)
	if err != nil {
		return err
	}
	for range 64 {
		ok, err := eval[bool](t, jsCall(jsFocusIs, sel))
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		a, err := eval[*point](t, jsFocusCenter)
		if err != nil {
			return err
		}
		if a == nil {
			return fmt.Errorf("nothing has the focus on the way to %s", sel)
		}
		dx, dy := z.X-a.X, z.Y-a.Y
		var key string
		switch {
		case math.Abs(dy) > a.H/2 && dy < 0:
			key = "ArrowUp"
		case math.Abs(dy) > a.H/2:
			key = "ArrowDown"
		case dx < 0:
			key = "ArrowLeft"
		default:
			key = "ArrowRight"
		}
		if err := t.key(key); err != nil {
			return err
		}
	}
	return fmt.Errorf("the arrow keys never reached %s", sel)
}

// choosePromotion answers the promotion dialog with the actor's input method.
func (s *session) choosePromotion(ctx context.Context, t *tab, how string, promote bool) error {
	deadline := time.Now().Add(s.cfg.StepTimeout)
	for {
		snap, err := s.snapshot(t, false)
		if err == nil && snap.Dialog == strings.TrimPrefix(selPromote, "#") {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the promotion dialog did not open")
		}
		time.Sleep(15 * time.Millisecond)
	}
	sel := promoteSelector(promote)
	if ok, err := eval[bool](t, jsCall(jsVisible, sel)); err != nil {
		return err
	} else if !ok {
		return fmt.Errorf("the promotion dialog has no choice %s", sel)
	}
	if how == "keyboard" {
		if err := tabTo(t, sel); err != nil {
			return err
		}
		return t.key("Enter")
	}
	p, err := center(t, sel)
	if err != nil {
		return err
	}
	return s.press(t, how, p)
}

// recordMoves reads a game record through the site's import and returns its
// moves (with a resignation, if the record ends so) and the View at its end.
func (s *session) recordMoves(ctx context.Context, r *Record) ([]string, sdk.View, error) {
	text, format, err := s.readRecord(ctx, r)
	if err != nil {
		return nil, sdk.View{}, err
	}
	g, err := s.client.Import(ctx, s.sc.Variant, format, text)
	if err != nil {
		return nil, sdk.View{}, fmt.Errorf("import %s: %w", r.File, err)
	}
	return historyMoves(g.View), g.View, nil
}

func (s *session) readRecord(ctx context.Context, r *Record) (text, format string, err error) {
	b, err := readFile(s.sc.path(r.File))
	if err != nil {
		return "", "", err
	}
	format = r.Format
	if format == "" {
		d, err := s.client.Variant(ctx, s.sc.Variant)
		if err != nil {
			return "", "", err
		}
		for _, n := range d.Notations {
			if n.Import && n.Extension != "" && strings.HasSuffix(r.File, n.Extension) {
				format = n.ID
			}
		}
		if format == "" {
			return "", "", fmt.Errorf("%s: say its format (the variant imports %s)", r.File, importable(d))
		}
	}
	return string(b), format, nil
}

func importable(d sdk.Description) string {
	var ids []string
	for _, n := range d.Notations {
		if n.Import {
			ids = append(ids, n.ID)
		}
	}
	return strings.Join(ids, ", ")
}

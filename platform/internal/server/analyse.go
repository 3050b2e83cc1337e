package server

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"sync"
	"time"

	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/host"
	"github.com/gofiber/fiber/v2"
)

// Analysis of a game, ply by ply (POST /api/v1/games/{variant}/analyse):
// for each ply asked, the engine's score, best move and line for the
// position after it, written as one JSON object per line (NDJSON) as soon
// as that ply is done.
//
// It never delays a room. Its calls go to Deps.Analysis, plugin processes
// of their own (started at the first analysis, their CPU priority lowered to
// the lowest, see lowerPriority), never to the processes whose queue the
// rooms' rules calls and the computer seats wait in; at most
// analysisSlots analyses run at once, and one more is refused at once with
// 503 and Retry-After rather than queued. A client that goes away cancels
// the analysis within a heartbeat.

// Analysts runs analysis calls (Games.Call's contract) on plugin
// processes apart from the rooms'.
type Analysts interface {
	Call(ctx context.Context, variant, call string, fn func(context.Context, *host.Conn) error) error
}

// The bounds of one analysis request.
const (
	// maxAnalysePlies is the most plies one request may ask for.
	maxAnalysePlies = 600
	// Caps on the limit a request may set.
	maxAnalyseDepth  = 40
	maxAnalyseNodes  = 5_000_000
	maxAnalyseMillis = 5_000
	// analysePlyTimeout bounds one ply's calls whatever the limit (the
	// plugin's default limit is a second or less).
	analysePlyTimeout = 10 * time.Second
	// defaultAnalysisSlots is how many analyses run at once: on a small
	// machine, the analysis processes then never take more than that many
	// cores from the rooms (and they run at the lowest priority).
	defaultAnalysisSlots = 2
	// analyseHeartbeat is how often a blank line goes out while a ply is
	// being analysed: a client that has gone away makes the write fail,
	// which cancels the analysis.
	analyseHeartbeat = 500 * time.Millisecond
	// analyseWriteTimeout bounds each write of the stream.
	analyseWriteTimeout = 30 * time.Second
	// analyseRetryAfter is the Retry-After, in seconds, of a full pool.
	analyseRetryAfter = 10
)

type analyseLimit struct {
	Depth  int   `json:"depth"`
	Nodes  int64 `json:"nodes"`
	Millis int   `json:"millis"`
}

type analyseRequest struct {
	State sdk.State `json:"state"`
	// Plies are the plies to analyse, each the position after that many
	// moves (0: the start). None: every ply of the game.
	Plies []int `json:"plies"`
	// Limit bounds each ply's search; none: the engine's default.
	Limit *analyseLimit `json:"limit"`
	// Seat is the seat whose view "score" takes (default 0); "scores"
	// has every seat's.
	Seat *sdk.Seat `json:"seat"`
}

// analyseScore is a score as the API writes it: cp or mate, not both.
type analyseScore struct {
	Seat sdk.Seat `json:"seat"`
	CP   *int     `json:"cp,omitempty"`
	Mate *int     `json:"mate,omitempty"`
}

func apiScore(s sdk.Score) analyseScore {
	out := analyseScore{Seat: s.Seat}
	if s.Mate != 0 {
		m := s.Mate
		out.Mate = &m
	} else {
		cp := s.CP
		out.CP = &cp
	}
	return out
}

// analyseRow is one line of the answer.
type analyseRow struct {
	Ply    int            `json:"ply"`
	ToMove []sdk.Seat     `json:"toMove,omitempty"`
	Score  *analyseScore  `json:"score,omitempty"`
	Scores []analyseScore `json:"scores,omitempty"`
	Best   sdk.Move       `json:"best,omitempty"`
	PV     []sdk.Move     `json:"pv,omitempty"`
	Depth  int            `json:"depth,omitempty"`
	Nodes  int64          `json:"nodes,omitempty"`
	// Over marks the position after the last move of a finished game:
	// nothing to analyse.
	Over bool `json:"over,omitempty"`
	// Mark judges the move that led here, when the ply before was
	// analysed in the same request: "?!", "?" or "??" (see markOf).
	Mark string `json:"mark,omitempty"`
	// Error is a failure of this ply (the stream ends with it).
	Error *errorDetail `json:"error,omitempty"`
}

// analysis is the server's pool of analyses.
type analysis struct {
	slots   chan struct{}
	lowered sync.Map // PIDs whose priority has been lowered
}

func newAnalysis(n int) *analysis {
	if n <= 0 {
		n = defaultAnalysisSlots
	}
	return &analysis{slots: make(chan struct{}, n)}
}

// admit takes a slot of the pool, or refuses at once when it is full.
//
// Per-address limits: the token buckets of the hostile-traffic work
// (api.go) apply to this route as to every anonymous call; an analysis
// holds a slot for up to a minute, so the bucket should charge it more
// than one call (say one token per ten plies asked) before it comes here.
func (a *analysis) admit(c *fiber.Ctx) (release func(), err error) {
	select {
	case a.slots <- struct{}{}:
		return func() { <-a.slots }, nil
	default:
		// Answered here rather than by the error handler, which logs
		// every 5xx: a full pool is the pool working.
		c.Set(fiber.HeaderRetryAfter, fmt.Sprint(analyseRetryAfter))
		return nil, c.Status(fiber.StatusServiceUnavailable).JSON(errorBody{Error: errorDetail{Code: "analysis_busy",
			Message: "every analysis slot is taken; please try again shortly"}})
	}
}

// call runs fn on the analysis processes, lowering a new process's priority
// first.
func (s *Server) analysisCall(ctx context.Context, variant, call string, fn func(context.Context, *host.Conn) error) error {
	return s.analysts.Call(ctx, variant, call, func(ctx context.Context, conn *host.Conn) error {
		if pid := conn.PID(); pid > 0 {
			if _, done := s.analysis.lowered.LoadOrStore(pid, true); !done {
				if err := lowerPriority(pid); err != nil {
					s.log.Warn("analysis process keeps its priority", "pid", pid, "err", err)
				}
			}
		}
		return fn(ctx, conn)
	})
}

func (s *Server) analyse(c *fiber.Ctx) error {
	var req analyseRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	if len(req.State) == 0 {
		return badRequest("analyse needs a state")
	}
	if err := s.openState(c, &req.State); err != nil {
		return err
	}
	return s.startAnalysis(c, variantOf(c), req.State, req.Plies, req.Limit, req.Seat, false)
}

type roomAnalyseRequest struct {
	Plies []int         `json:"plies"`
	Limit *analyseLimit `json:"limit"`
	Seat  *sdk.Seat     `json:"seat"`
}

// roomAnalyse is POST /api/v1/rooms/{room}/analyse: the analysis of the
// room's current round once it has ended, as analyse gives it. The room's
// id is all it takes (anyone who could watch the game may look back at
// it); nothing in the room changes and its state never leaves the host.
func (s *Server) roomAnalyse(c *fiber.Ctx) error {
	var req roomAnalyseRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	r, err := s.openRoom(c)
	if err != nil {
		return err
	}
	variant, st, _ := r.Current()
	return s.startAnalysis(c, variant, st, req.Plies, req.Limit, req.Seat, true)
}

// roomEnded answers round_not_over (409) unless the room's round, state,
// has ended: what a room gives to analysis it gives once nobody plays.
func (s *Server) roomEnded(ctx context.Context, variant string, state sdk.State) error {
	ctx, cancel := context.WithTimeout(ctx, analysePlyTimeout)
	defer cancel()
	var v sdk.View
	err := s.analysisCall(ctx, variant, "view", func(ctx context.Context, conn *host.Conn) (err error) {
		v, err = conn.View(ctx, host.ViewRequest{Variant: variant, State: state})
		return err
	})
	if err == nil && v.Status != sdk.Over {
		err = &apiError{fiber.StatusConflict, "round_not_over", "a room's round is analysed once it has ended"}
	}
	return err
}

type roomAnalysedExportRequest struct {
	Format   string       `json:"format"`
	Lang     string       `json:"lang"`
	Analysis []analyseRow `json:"analysis"`
}

// roomExportAnalysed is POST /api/v1/rooms/{room}/analyse/export: the
// record of the room's ended round with the analysis rows a client got
// from roomAnalyse as the notation's comments, as exportAnalysed writes a
// local game's, with the players' names. The state never leaves the host;
// nothing in the room changes.
func (s *Server) roomExportAnalysed(c *fiber.Ctx) error {
	var req roomAnalysedExportRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	if req.Format == "" {
		return badRequest("export needs a format")
	}
	if s.analysts == nil {
		return &apiError{fiber.StatusNotFound, sdk.CodeUnsupported, "this site has no analysis"}
	}
	as, err := analysesOf(req.Analysis)
	if err != nil {
		return err
	}
	r, err := s.openRoom(c)
	if err != nil {
		return err
	}
	variant, st, _ := r.Current()
	if err := s.roomEnded(c.UserContext(), variant, st); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(c.UserContext(), analysePlyTimeout)
	defer cancel()
	var text string
	err = s.analysisCall(ctx, variant, "export", func(ctx context.Context, conn *host.Conn) (err error) {
		text, err = conn.Export(ctx, host.ExportRequest{Variant: variant, State: st, Format: req.Format, Lang: req.Lang, Players: r.Names(), Analyses: as})
		return err
	})
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.JSON(fiber.Map{"text": text})
}

type roomAnalyseLineRequest struct {
	Ply *int       `json:"ply"`
	PV  []sdk.Move `json:"pv"`
}

// roomAnalyseLine is POST /api/v1/rooms/{room}/analyse/line: analyseLine
// on the room's ended round, by its id alone.
func (s *Server) roomAnalyseLine(c *fiber.Ctx) error {
	var req roomAnalyseLineRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	if req.Ply == nil {
		return badRequest("a line needs a ply")
	}
	r, err := s.openRoom(c)
	if err != nil {
		return err
	}
	variant, st, _ := r.Current()
	if err := s.roomEnded(c.UserContext(), variant, st); err != nil {
		return err
	}
	moves, err := s.lineMoves(c.UserContext(), variant, st, *req.Ply, req.PV)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.JSON(fiber.Map{"moves": moves})
}

// startAnalysis checks an analysis request, takes a slot of the pool and
// starts the stream. ended refuses a game still being played (a room's
// round: its analysis would help a player).
func (s *Server) startAnalysis(c *fiber.Ctx, variant string, state sdk.State, plies []int, limit *analyseLimit, seatp *sdk.Seat, ended bool) error {
	d, _ := s.games.Description(variant)
	if !d.Analyse || s.analysts == nil {
		return &apiError{fiber.StatusNotFound, sdk.CodeUnsupported, "this game has no analysis"}
	}
	var lim sdk.Limit
	if l := limit; l != nil {
		if l.Depth < 0 || l.Depth > maxAnalyseDepth || l.Nodes < 0 || l.Nodes > maxAnalyseNodes || l.Millis < 0 || l.Millis > maxAnalyseMillis {
			return badRequest(fmt.Sprintf("the limit may ask for at most depth %d, %d nodes and %d ms", maxAnalyseDepth, maxAnalyseNodes, maxAnalyseMillis))
		}
		lim = sdk.Limit{Depth: l.Depth, Nodes: l.Nodes, Time: time.Duration(l.Millis) * time.Millisecond}
	}
	seat := sdk.Seat(0)
	if seatp != nil {
		if *seatp < 0 || int(*seatp) >= len(d.Seats) {
			return badRequest("no such seat")
		}
		seat = *seatp
	}
	release, err := s.analysis.admit(c)
	if release == nil {
		return err
	}
	// The game's length, and the plies checked against it, before the
	// answer starts: a bad request is still a plain error.
	ctx, cancel := context.WithTimeout(context.Background(), analysePlyTimeout)
	var v sdk.View
	err = s.analysisCall(ctx, variant, "view", func(ctx context.Context, conn *host.Conn) (err error) {
		v, err = conn.View(ctx, host.ViewRequest{Variant: variant, State: state})
		return err
	})
	cancel()
	if err == nil && ended && v.Status != sdk.Over {
		err = &apiError{fiber.StatusConflict, "round_not_over", "a room's round is analysed once it has ended"}
	}
	if err != nil {
		release()
		return err
	}
	total := v.Ply
	if len(plies) == 0 {
		for p := 0; p <= total; p++ {
			plies = append(plies, p)
		}
	}
	if len(plies) > maxAnalysePlies {
		release()
		return badRequest(fmt.Sprintf("at most %d plies in one request", maxAnalysePlies))
	}
	for _, p := range plies {
		if p < 0 || p > total {
			release()
			return sdk.Errorf(sdk.CodeBadPly, "the game has no ply %d", p)
		}
	}
	c.Set(fiber.HeaderContentType, "application/x-ndjson")
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Set("X-Accel-Buffering", "no")
	nc := c.Context().Conn()
	c.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
		cancelled := true
		// The slot is free before anyone is told the analysis ended.
		defer func() { release(); analysisEnded(cancelled) }()
		cancelled = s.streamAnalysis(w, nc, variant, state, plies, lim, seat)
	})
	return nil
}

// streamAnalysis writes a row per ply, flushing each, and blank lines
// while a ply takes long; a failed write (the client has gone) cancels the
// calls in progress and ends the stream. It reports whether the stream was
// cut short (a client gone, a failed ply).
func (s *Server) streamAnalysis(w *bufio.Writer, nc net.Conn, variant string, state sdk.State, plies []int, lim sdk.Limit, seat sdk.Seat) (cancelled bool) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	write := func(b []byte) {
		mu.Lock()
		defer mu.Unlock()
		if ctx.Err() != nil {
			return
		}
		// The server's write timeout bounds a whole response; a stream
		// of a minute or more gets it anew for each write.
		if nc != nil {
			nc.SetWriteDeadline(time.Now().Add(analyseWriteTimeout))
		}
		if _, err := w.Write(b); err != nil {
			cancel()
			return
		}
		if err := w.Flush(); err != nil {
			cancel()
		}
	}
	beat := time.NewTicker(analyseHeartbeat)
	defer beat.Stop()
	done := make(chan struct{})
	var beating sync.WaitGroup
	beating.Add(1)
	defer func() {
		// The writer is the server's again once this returns.
		close(done)
		beating.Wait()
	}()
	go func() {
		defer beating.Done()
		for {
			select {
			case <-done:
				return
			case <-beat.C:
				write([]byte("\n"))
			}
		}
	}()
	cancelled = true
	var prev *analyseRow
	for i, ply := range plies {
		if ctx.Err() != nil {
			return
		}
		row := s.analysePly(ctx, variant, state, ply, lim, seat)
		if prev != nil && prev.Ply == ply-1 {
			row.Mark = markOf(prev, &row)
		}
		prev = &row
		b, _ := json.Marshal(row)
		write(append(b, '\n'))
		if row.Error != nil {
			return
		}
		if i == len(plies)-1 {
			cancelled = ctx.Err() != nil
		}
	}
	return cancelled
}

// analysisEnded is told when an analysis stream ends, and whether it was
// cut short (a client gone, a failed ply): for tests.
var analysisEnded = func(cancelled bool) {}

// analysePly analyses the position after ply moves of the game.
func (s *Server) analysePly(ctx context.Context, variant string, state sdk.State, ply int, lim sdk.Limit, seat sdk.Seat) analyseRow {
	row := analyseRow{Ply: ply}
	pctx, cancel := context.WithTimeout(ctx, analysePlyTimeout)
	defer cancel()
	var st sdk.State
	var v sdk.View
	err := s.analysisCall(pctx, variant, "rewind", func(ctx context.Context, conn *host.Conn) (err error) {
		st, v, err = conn.Rewind(ctx, host.RewindRequest{Variant: variant, State: state, Ply: ply})
		return err
	})
	if err == nil && v.Status == sdk.Over {
		row.Over = true
		return row
	}
	var a sdk.Analysis
	if err == nil {
		row.ToMove = v.ToMove
		err = s.analysisCall(pctx, variant, "analyse", func(ctx context.Context, conn *host.Conn) (err error) {
			a, err = conn.Analyse(ctx, host.AnalyseRequest{Variant: variant, State: st, Limit: lim})
			return err
		})
	}
	if err != nil {
		row.Error = s.analyseError(ctx, err)
		return row
	}
	for _, sc := range a.Scores {
		row.Scores = append(row.Scores, apiScore(sc))
		if sc.Seat == seat {
			x := apiScore(sc)
			row.Score = &x
		}
	}
	row.Best, row.PV, row.Depth, row.Nodes = a.Best, a.PV, a.Depth, a.Nodes
	return row
}

// analyseError is a ply's failure as the row reports it.
func (s *Server) analyseError(ctx context.Context, err error) *errorDetail {
	if re, ok := sdk.AsRuleError(err); ok {
		return &errorDetail{Code: re.Code, Key: re.Key, Message: re.Message}
	}
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		return &errorDetail{Code: "cancelled", Message: "the analysis was cancelled"}
	}
	s.log.Warn("analysis failed", "err", err)
	return &errorDetail{Code: "internal", Message: "the analysis failed; please try again"}
}

type analysedExportRequest struct {
	State  sdk.State `json:"state"`
	Format string    `json:"format"`
	Lang   string    `json:"lang"`
	// Analysis holds rows as the analyse call wrote them.
	Analysis []analyseRow `json:"analysis"`
}

// exportAnalysed writes a record with the analysis rows a client got from
// analyse as the notation's comments (sdk.AnalysedExporter; a variant or
// format without them gives the plain record). No search runs: it is an
// Export, made on the analysis processes.
func (s *Server) exportAnalysed(c *fiber.Ctx) error {
	variant := variantOf(c)
	if s.analysts == nil {
		return &apiError{fiber.StatusNotFound, sdk.CodeUnsupported, "this site has no analysis"}
	}
	var req analysedExportRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	if len(req.State) == 0 || req.Format == "" {
		return badRequest("export needs state and format")
	}
	if err := s.openState(c, &req.State); err != nil {
		return err
	}
	as, err := analysesOf(req.Analysis)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(c.UserContext(), analysePlyTimeout)
	defer cancel()
	var text string
	err = s.analysisCall(ctx, variant, "export", func(ctx context.Context, conn *host.Conn) (err error) {
		text, err = conn.Export(ctx, host.ExportRequest{Variant: variant, State: req.State, Format: req.Format, Lang: req.Lang, Analyses: as})
		return err
	})
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"text": text})
}

// analysesOf reads back the rows of an analysis a client sends with a
// record to export: the rows of plies analysed (errors and the final
// position left out), bounded.
func analysesOf(rows []analyseRow) ([]sdk.PlyAnalysis, error) {
	if len(rows) > maxAnalysePlies+1 {
		return nil, badRequest(fmt.Sprintf("at most %d rows", maxAnalysePlies+1))
	}
	var as []sdk.PlyAnalysis
	for _, r := range rows {
		if r.Error != nil || r.Over {
			continue
		}
		if len(r.PV) > maxLineMoves || len(r.Scores) > 16 {
			return nil, badRequest("an analysis row is too long")
		}
		a := sdk.Analysis{Best: r.Best, PV: r.PV, Depth: r.Depth, Nodes: r.Nodes}
		for _, sc := range r.Scores {
			x := sdk.Score{Seat: sc.Seat}
			if sc.Mate != nil {
				x.Mate = *sc.Mate
			} else if sc.CP != nil {
				x.CP = *sc.CP
			}
			a.Scores = append(a.Scores, x)
		}
		as = append(as, sdk.PlyAnalysis{Ply: r.Ply, Analysis: a})
	}
	return as, nil
}

// maxLineMoves bounds a line sent back: an analysis row's, or one to
// write in the page's notation.
const maxLineMoves = 64

type analyseLineRequest struct {
	State sdk.State  `json:"state"`
	Ply   *int       `json:"ply"`
	PV    []sdk.Move `json:"pv"`
}

// analyseLine is POST /api/v1/games/{variant}/analyse/line: an analysis's
// line (pv) from the position after ply moves, as the move list writes
// moves (sdk.PlayedMove: its text in the variant's notation, and the other
// notation when it has one), in one call rather than a rewind and a play
// per move. It plays the moves while they are legal and the game goes on.
func (s *Server) analyseLine(c *fiber.Ctx) error {
	var req analyseLineRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	if len(req.State) == 0 || req.Ply == nil {
		return badRequest("a line needs state and ply")
	}
	if err := s.openState(c, &req.State); err != nil {
		return err
	}
	moves, err := s.lineMoves(c.UserContext(), variantOf(c), req.State, *req.Ply, req.PV)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"moves": moves})
}

// lineMoves plays pv from the position after ply moves of the game and
// returns the moves played as the history writes them. The calls go to the
// analysis processes.
func (s *Server) lineMoves(ctx context.Context, variant string, state sdk.State, ply int, pv []sdk.Move) ([]sdk.PlayedMove, error) {
	if s.analysts == nil {
		return nil, &apiError{fiber.StatusNotFound, sdk.CodeUnsupported, "this site has no analysis"}
	}
	if len(pv) == 0 || len(pv) > maxLineMoves {
		return nil, badRequest(fmt.Sprintf("a line has 1 to %d moves", maxLineMoves))
	}
	ctx, cancel := context.WithTimeout(ctx, analysePlyTimeout)
	defer cancel()
	var out []sdk.PlayedMove
	err := s.analysisCall(ctx, variant, "line", func(ctx context.Context, conn *host.Conn) error {
		st, v, err := conn.Rewind(ctx, host.RewindRequest{Variant: variant, State: state, Ply: ply})
		if err != nil {
			return err
		}
		for _, m := range pv {
			if v.Status != sdk.Playing || len(v.ToMove) == 0 {
				break
			}
			if st, v, err = conn.Play(ctx, host.PlayRequest{Variant: variant, State: st, Seat: v.ToMove[0], Move: m, HistoryFrom: v.Ply}); err != nil {
				if ctx.Err() != nil {
					return err
				}
				break // the line stops at a move the rules refuse
			}
			if len(v.History) == 0 {
				break
			}
			out = append(out, v.History[len(v.History)-1])
		}
		return nil
	})
	return out, err
}

// expected is a score as the share of the game its seat can expect, from
// 0 (mated) to 1 (mating): a logistic curve on which 300 centipawns is
// about 73%.
func expected(sc analyseScore) float64 {
	switch {
	case sc.Mate != nil && *sc.Mate > 0:
		return 1
	case sc.Mate != nil:
		return 0
	case sc.CP != nil:
		return 1 / (1 + math.Exp(-float64(*sc.CP)/300))
	}
	return 0.5
}

// The marks' thresholds: how much of its expected share of the game (see
// expected) a move gave away, from the position before it (its seat's
// score there, with the best move) to the position after it.
const (
	dubiousLoss = 0.05 // ?!
	mistakeLoss = 0.10 // ?
	blunderLoss = 0.15 // ??
)

// markOf judges the move from prev's position to row's: "?!", "?", "??"
// or "" by what it cost its mover (prev's seat to move), comparing the
// two positions' scores for that seat. A move that ended the game is not
// judged.
func markOf(prev, row *analyseRow) string {
	if len(prev.ToMove) != 1 || row.Over || row.Error != nil || prev.Error != nil {
		return ""
	}
	mover := prev.ToMove[0]
	if int(mover) >= len(prev.Scores) || int(mover) >= len(row.Scores) {
		return ""
	}
	loss := expected(prev.Scores[mover]) - expected(row.Scores[mover])
	switch {
	case loss >= blunderLoss:
		return "??"
	case loss >= mistakeLoss:
		return "?"
	case loss >= dubiousLoss:
		return "?!"
	}
	return ""
}

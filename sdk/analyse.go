package sdk

import (
	"context"
	"fmt"
	"time"
)

// Analyser is the optional capability of judging a position: the engine's
// score, its best move and the line it expects, within a limit. A variant
// that has it says so in Description.Analyse (serve.Serve sets it), and the
// host offers analysis only then.
type Analyser interface {
	// Analyse evaluates the position of req.State (the game as it stands,
	// its history counting for repetitions) for the seat to move, within
	// req.Limit, and returns before ctx ends, at once when it has already
	// ended (with the best it has, or ctx's error when it has nothing). A
	// game that is over is a *RuleError with code CodeGameOver.
	Analyse(ctx context.Context, req AnalyseRequest) (Analysis, error)
}

// AnalyseRequest is what Analyse is asked.
type AnalyseRequest struct {
	State State
	Limit Limit
}

// Limit bounds an analysis. A zero field is no bound of that kind; a Limit
// with no field set is the variant's own default (a fraction of a second).
// The first bound reached ends the search, which always finishes at least
// its first iteration.
type Limit struct {
	// Depth is the deepest iteration, in plies.
	Depth int `json:"depth,omitempty"`
	// Nodes is how many positions the search may visit.
	Nodes int64 `json:"nodes,omitempty"`
	// Time is how long the search may think.
	Time time.Duration `json:"time,omitempty"`
}

// IsZero reports whether the limit sets no bound.
func (l Limit) IsZero() bool { return l.Depth <= 0 && l.Nodes <= 0 && l.Time <= 0 }

// Deadline is when a search begun at start must stop: the sooner of
// start+Time and ctx's deadline less a reserve for the answer's journey (a
// fifth of the time left, at most 100 ms). Zero: no deadline.
func (l Limit) Deadline(ctx context.Context, start time.Time) time.Time {
	var stop time.Time
	if l.Time > 0 {
		stop = start.Add(l.Time)
	}
	if d, ok := ctx.Deadline(); ok {
		d = d.Add(-min(d.Sub(start)/5, 100*time.Millisecond))
		if stop.IsZero() || d.Before(stop) {
			stop = d
		}
	}
	return stop
}

// Analysis is what Analyse found.
type Analysis struct {
	// Scores holds every seat's standing, Scores[i] for seat i, all from
	// the same search. In a two-player game they mirror each other (one
	// seat's +300 is the other's -300, mate 3 is mate -3).
	Scores []Score `json:"scores"`
	// Best is the move the engine would play for the seat to move.
	Best Move `json:"best"`
	// PV is the principal variation: Best and the moves the engine expects
	// after it, each by whichever seat the rules put to move. It may be
	// cut short (a line is read back from the search's tables).
	PV []Move `json:"pv"`
	// Depth is the deepest iteration completed, Nodes the positions
	// visited.
	Depth int   `json:"depth"`
	Nodes int64 `json:"nodes"`
}

// Score is one seat's standing in a position.
type Score struct {
	Seat Seat `json:"seat"`
	// CP is the standing in centipawns (hundredths of a pawn), positive
	// when the seat stands better. It is meaningless when Mate is set.
	CP int `json:"cp"`
	// Mate, when not 0, is a forced mate |Mate| plies (moves of any seat)
	// from this position, counting the move that mates, as USI engines and
	// tsume problems count: 1 mates now, 3 with the mating side's second
	// move. Positive when this seat mates, negative when it is mated; every
	// seat's Mate has the same |Mate|.
	Mate int `json:"mate,omitempty"`
}

// String writes the score as engines do: "+1.25", "-0.40", "#3", "#-2".
func (s Score) String() string {
	if s.Mate != 0 {
		return fmt.Sprintf("#%d", s.Mate)
	}
	return fmt.Sprintf("%+.2f", float64(s.CP)/100)
}

// Negate is the score from the other side of a two-player game.
func (s Score) Negate(seat Seat) Score { return Score{Seat: seat, CP: -s.CP, Mate: -s.Mate} }

// AnalysedExporter is the optional capability of writing a record with an
// analysis in it: Export's record (the same position and moves, so that
// Import reads it) with each analysed position's score and line as the
// notation's comments, as analysis sites export analysed games. lang is as
// for LocalExporter's ExportIn. A format that has no comments is written
// as Export writes it.
type AnalysedExporter interface {
	ExportAnalysed(s State, format, lang string, analyses []PlyAnalysis) (string, error)
}

// PlyAnalysis is the analysis of the position after a game's first Ply
// moves.
type PlyAnalysis struct {
	Ply      int      `json:"ply"`
	Analysis Analysis `json:"analysis"`
}

package wire

import (
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/banmen/banmen/sdk"
)

// FromAnalysis is an analysis's wire form.
func FromAnalysis(a sdk.Analysis) *AnalyseResponse {
	out := &AnalyseResponse{Best: string(a.Best), Depth: int32(min(a.Depth, math.MaxInt32)), Nodes: a.Nodes}
	for _, s := range a.Scores {
		out.Scores = append(out.Scores, &Score{Seat: int32(s.Seat), Cp: clamp32(s.CP), Mate: clamp32(s.Mate)})
	}
	for _, m := range a.PV {
		out.Pv = append(out.Pv, string(m))
	}
	return out
}

func clamp32(v int) int32 { return int32(max(math.MinInt32, min(v, math.MaxInt32))) }

// maxPV bounds the line a plugin may send back.
const maxPV = 256

// ToAnalysis reads an analysis from the wire, checking what a plugin may
// not send: more than 16 scores or maxPV moves, a seat out of range, moves
// that are not short UTF-8 text.
func ToAnalysis(r *AnalyseResponse) (sdk.Analysis, error) {
	if len(r.Scores) > 16 || len(r.Pv) > maxPV {
		return sdk.Analysis{}, fmt.Errorf("analysis too long: %d scores, %d moves", len(r.Scores), len(r.Pv))
	}
	a := sdk.Analysis{Best: sdk.Move(r.Best), Depth: int(r.Depth), Nodes: r.Nodes}
	for _, s := range r.Scores {
		if s.Seat < 0 || s.Seat >= 16 {
			return sdk.Analysis{}, fmt.Errorf("analysis: seat %d out of range", s.Seat)
		}
		a.Scores = append(a.Scores, sdk.Score{Seat: sdk.Seat(s.Seat), CP: int(s.Cp), Mate: int(s.Mate)})
	}
	for _, m := range append([]string{r.Best}, r.Pv...) {
		if len(m) > 64 || !utf8.ValidString(m) {
			return sdk.Analysis{}, fmt.Errorf("analysis: bad move text %q", m)
		}
	}
	for _, m := range r.Pv {
		a.PV = append(a.PV, sdk.Move(m))
	}
	return a, nil
}

// FromPlyAnalyses is the wire form of a record's analyses.
func FromPlyAnalyses(as []sdk.PlyAnalysis) []*PlyAnalysis {
	out := make([]*PlyAnalysis, 0, len(as))
	for _, a := range as {
		out = append(out, &PlyAnalysis{Ply: clamp32(a.Ply), Analysis: FromAnalysis(a.Analysis)})
	}
	return out
}

// maxPlyAnalyses bounds the analyses one record may carry.
const maxPlyAnalyses = 1024

// ToPlyAnalyses reads a record's analyses, checked as ToAnalysis checks
// one.
func ToPlyAnalyses(ws []*PlyAnalysis) ([]sdk.PlyAnalysis, error) {
	if len(ws) > maxPlyAnalyses {
		return nil, fmt.Errorf("%d analyses, at most %d", len(ws), maxPlyAnalyses)
	}
	out := make([]sdk.PlyAnalysis, 0, len(ws))
	for _, w := range ws {
		r := w.GetAnalysis()
		if r == nil {
			r = &AnalyseResponse{}
		}
		a, err := ToAnalysis(r)
		if err != nil {
			return nil, err
		}
		out = append(out, sdk.PlyAnalysis{Ply: int(w.Ply), Analysis: a})
	}
	return out, nil
}

package rules

import (
	"fmt"
	"strings"

	"github.com/banmen/banmen/sdk"
)

var _ sdk.AnalysedExporter = Variant{}

// ExportAnalysed writes the game as Export does, and in KIF each analysed
// position's evaluation and line as comment lines ("*", which KIF readers,
// this one included, pass over) under the move that led to it (the start
// position's above the first move), as analysis sites export analysed
// games:
//
//	*評価値 +320
//	*読み筋 ▲７六歩(77) △３四歩(33) ▲２六歩(27)
//
// The evaluation is Sente's, in centipawns, or "先手の3手詰" (a mate by
// Sente in three plies), "後手の2手詰". A line is written as far as each
// of its moves is legal after the ones before it. The other formats have no
// comments and are written as Export writes them.
func (v Variant) ExportAnalysed(s sdk.State, format, lang string, analyses []sdk.PlyAnalysis) (string, error) {
	if format != FormatKIF {
		return v.Export(s, format)
	}
	g, err := decodeState(s)
	if err != nil {
		return "", err
	}
	byPly := map[int]sdk.Analysis{}
	for _, a := range analyses {
		if a.Ply >= 0 && a.Ply < len(g.history) {
			byPly[a.Ply] = a.Analysis
		}
	}
	return g.exportKIFWith(func(ply int) []string {
		a, ok := byPly[ply]
		if !ok {
			return nil
		}
		return g.kifAnalysis(ply, a)
	}), nil
}

// kifAnalysis is the comment lines of the analysis of the position after
// ply moves.
func (g *game) kifAnalysis(ply int, a sdk.Analysis) []string {
	var out []string
	for _, sc := range a.Scores {
		if sc.Seat != sdk.Seat(Sente) {
			continue
		}
		switch {
		case sc.Mate > 0:
			out = append(out, fmt.Sprintf("*評価値 先手の%d手詰", sc.Mate))
		case sc.Mate < 0:
			out = append(out, fmt.Sprintf("*評価値 後手の%d手詰", -sc.Mate))
		default:
			out = append(out, fmt.Sprintf("*評価値 %+d", sc.CP))
		}
	}
	p, prevTo := g.before(ply)
	q := *p
	var line []string
	var buf []Move
	for _, text := range a.PV {
		m, err := ParseUSI(string(text))
		if err != nil {
			break
		}
		buf = q.GenerateMoves(buf[:0])
		if !containsMove(buf, m) {
			break
		}
		line = append(line, sideMarks[q.side]+kifMove(&q, m, prevTo))
		prevTo = m.to()
		q.DoMove(m)
	}
	if len(line) > 0 {
		out = append(out, "*読み筋 "+strings.Join(line, " "))
	}
	return out
}

// sideMarks are KIF's marks of the side that moves.
var sideMarks = [2]string{"▲", "△"}

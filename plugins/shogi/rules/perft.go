package rules

import (
	"context"
	"strings"
)

// Perft counts the leaves of the legal-move tree of depth plies from p, with
// bulk counting at the last ply. It checks ctx between root moves and
// returns ctx's error when it is done.
func (p *Position) Perft(ctx context.Context, depth int) (uint64, error) {
	if depth <= 0 {
		return 1, nil
	}
	if depth == 1 {
		return uint64(p.countLegal()), nil
	}
	bufs := make([][]Move, depth)
	for i := range bufs {
		bufs[i] = make([]Move, 0, maxMoves)
	}
	var n uint64
	for _, m := range p.legalMoves(bufs[0]) {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		cap := p.do(m)
		n += p.perft(depth-1, bufs[1:])
		p.undo(m, cap)
	}
	return n, nil
}

func (p *Position) perft(depth int, bufs [][]Move) uint64 {
	if depth == 1 {
		return uint64(p.countLegal())
	}
	var n uint64
	for _, m := range p.legalMoves(bufs[0][:0]) {
		cap := p.do(m)
		n += p.perft(depth-1, bufs[1:])
		p.undo(m, cap)
	}
	return n
}

// Divide returns the perft count under each root move, keyed by USI text,
// for finding where a generator goes wrong.
func (p *Position) Divide(depth int) map[string]uint64 {
	out := map[string]uint64{}
	for _, m := range p.legalMoves(nil) {
		cap := p.do(m)
		n, _ := p.Perft(context.Background(), depth-1)
		p.undo(m, cap)
		out[m.USI()] = n
	}
	return out
}

// parsePerftPosition accepts what the perft command is given: "" for the
// start, a bare SFEN, or "sfen <SFEN>" / "startpos" as in USI.
func parsePerftPosition(s string) (Position, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "" || s == "startpos":
		s = StartSFEN
	case strings.HasPrefix(s, "sfen "):
		s = strings.TrimSpace(s[5:])
	}
	return ParseSFEN(s)
}

package rules

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// fsfPath is Fairy-Stockfish from Debian's package fairy-stockfish.
const fsfPath = "/usr/games/fairy-stockfish"

// TestAgainstFairyStockfish compares perft with Fairy-Stockfish's on random
// positions reached from the start and from the "matsuri" position, so that
// rare shapes (distant pins, double checks, drops in check) are covered.
// Fairy-Stockfish counts pawn-drop mates at the last ply as moves, so our
// count plus those must equal its count. It needs the engine and runs
// without -short.
func TestAgainstFairyStockfish(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: runs without -short")
	}
	if _, err := os.Stat(fsfPath); err != nil {
		t.Skip("fairy-stockfish is not installed")
	}
	cmd := exec.Command(fsfPath)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	defer func() { io.WriteString(in, "quit\n"); in.Close(); cmd.Wait() }()
	sc := bufio.NewScanner(out)
	io.WriteString(in, "usi\n")
	for sc.Scan() && sc.Text() != "usiok" {
	}
	r := rand.New(rand.NewPCG(1, 2))
	failures := 0
	for i := 0; i < 120; i++ {
		start := StartSFEN
		if i%3 == 1 {
			start = perftCases[5].sfen // matsuri
		}
		p := randomPosition(t, r, start, r.IntN(120))
		depth := 2 + i%2
		ours, uchi := perftUchi(&p, depth)
		fmt.Fprintf(in, "position sfen %s\ngo perft %d\n", p.SFEN(), depth)
		var theirs uint64
		for sc.Scan() {
			if l := sc.Text(); strings.HasPrefix(l, "Nodes searched:") {
				theirs, _ = strconv.ParseUint(strings.TrimSpace(l[len("Nodes searched:"):]), 10, 64)
				break
			}
		}
		if ours+uchi != theirs {
			t.Errorf("%s depth %d: ours %d + %d pawn-drop mates, fairy-stockfish %d; divide:\n%s",
				p.SFEN(), depth, ours, uchi, theirs, divideText(&p, depth))
			if failures++; failures > 3 {
				return
			}
		}
	}
}

// randomPosition plays random legal moves, preferring captures so that
// hands fill up.
func randomPosition(t *testing.T, r *rand.Rand, sfen string, plies int) Position {
	p, err := ParseSFEN(sfen)
	if err != nil {
		t.Fatal(err)
	}
	for j := 0; j < plies; j++ {
		ms := p.legalMoves(nil)
		if len(ms) == 0 {
			break
		}
		p.do(randomMove(r, &p, ms))
	}
	return p
}

// randomMove picks one of the legal moves ms in p, a capture when one of
// three more draws finds one.
func randomMove(r *rand.Rand, p *Position, ms []Move) Move {
	m := ms[r.IntN(len(ms))]
	for k := 0; k < 3; k++ {
		if x := ms[r.IntN(len(ms))]; !x.isDrop() && p.b[x.to()] != 0 {
			return x
		}
	}
	return m
}

// perftUchi is perft that also counts the pawn-drop mates left out at the
// last ply.
func perftUchi(p *Position, depth int) (nodes, uchi uint64) {
	if depth == 1 {
		return uint64(p.countLegal()), uchiAtLeaf(p)
	}
	for _, m := range p.legalMoves(nil) {
		c := p.do(m)
		n, u := perftUchi(p, depth-1)
		nodes, uchi = nodes+n, uchi+u
		p.undo(m, c)
	}
	return nodes, uchi
}

// uchiAtLeaf is 1 when the side to move has a pawn drop that would be legal
// but for giving mate.
func uchiAtLeaf(p *Position) uint64 {
	c := p.side
	ek := p.kingSq[c^1]
	if p.hand[c][pawn] == 0 || ek == 0 {
		return 0
	}
	ds := ek - forward[c]
	if p.b[ds] != 0 {
		return 0
	}
	var g genCtx
	p.genBoard(nil, &g)
	if g.pawnFiles&(1<<colOf[ds]) != 0 || g.checkers >= 2 || (g.checkers == 1 && !g.block[ds]) {
		return 0
	}
	if p.pawnDropMates(ds) {
		return 1
	}
	return 0
}

// Command bench measures the Xiangqi move generator: it runs our perft
// in-process and Fairy-Stockfish's ("go perft N" over UCI with UCI_Variant
// xiangqi) on the same positions in the same run, checks that the counts
// agree, and prints both speeds and their ratio. Then (unless -levels=false)
// it times the computer levels.
//
//	go -C tools run ./xiangqibench [-depth 5] [-fsf PATH] [-position FEN]
//	go -C tools run ./xiangqibench -random 200 [-random-depth 3]
//
// With -random it instead compares the counts (not the speed) on positions
// of seeded random games, a second opinion on the generator far from the
// published positions. It is a benchmark command, not a test: the deep
// counts take seconds. Fairy-Stockfish is found as
// extengine.FindFairyStockfish says ($BANMEN_FAIRY_STOCKFISH, fairy-stockfish
// on $PATH, /usr/games/fairy-stockfish) unless -fsf names it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"time"

	"github.com/banmen/banmen/plugins/xiangqi/rules"
	"github.com/banmen/banmen/sdk/extengine"
)

// positions are the perft.md positions (chessprogramming.org, "Chinese Chess
// Perft Results"). Beyond the published depths Fairy-Stockfish's count is
// the reference.
var positions = []struct{ name, fen string }{
	{"start", ""},
	{"middlegame", "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1"},
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	depth := fs.Int("depth", 5, "perft depth")
	fsfPath := fs.String("fsf", "", "Fairy-Stockfish binary (default: found as extengine.FindFairyStockfish says)")
	pos := fs.String("position", "", "measure only this FEN")
	random := fs.Int("random", 0, "compare counts on this many positions of random games instead")
	randomDepth := fs.Int("random-depth", 3, "perft depth of the -random comparison")
	levels := fs.Bool("levels", true, "also time the computer levels (after the perft table)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *fsfPath == "" {
		var err error
		if *fsfPath, err = extengine.FindFairyStockfish(os.Getenv); err != nil {
			return err
		}
	}
	eng := extengine.New(extengine.Config{Command: *fsfPath, Protocol: extengine.UCI,
		Options: map[string]string{"UCI_Variant": "xiangqi"}})
	defer eng.Close()
	if *random > 0 {
		return compareRandom(eng, out, *random, *randomDepth)
	}
	list := positions
	if *pos != "" {
		list = []struct{ name, fen string }{{"custom", *pos}}
	}
	fmt.Fprintf(out, "%-11s %5s %12s %14s %14s %7s\n", "position", "depth", "nodes", "banmen nps", "fsf nps", "ratio")
	failed := false
	for _, p := range list {
		d := *depth
		t0 := time.Now()
		ours, err := rules.Variant{}.Perft(context.Background(), p.fen, d)
		if err != nil {
			return err
		}
		ourNPS := nps(ours, time.Since(t0))
		theirs, el, err := fsfPerft(eng, p.fen, d)
		if err != nil {
			return fmt.Errorf("fairy-stockfish: %w", err)
		}
		theirNPS := nps(theirs, el)
		fmt.Fprintf(out, "%-11s %5d %12d %14.0f %14.0f %6.2fx\n", p.name, d, ours, ourNPS, theirNPS, ourNPS/theirNPS)
		if ours != theirs {
			fmt.Fprintf(out, "  MISMATCH: fairy-stockfish counts %d\n", theirs)
			failed = true
		}
	}
	if failed {
		return errors.New("perft counts differ")
	}
	if *levels {
		return levelTimes(out)
	}
	return nil
}

// compareRandom plays seeded random games and compares the perft counts of
// every fifth position with Fairy-Stockfish's.
func compareRandom(eng *extengine.Engine, out io.Writer, n, depth int) error {
	r := rand.New(rand.NewPCG(4, 2))
	checked, bad := 0, 0
	for game := 0; checked < n; game++ {
		g := rules.NewGame(rules.StartPosition())
		for ply := 0; ply < 300 && !g.Over() && checked < n; ply++ {
			p := g.Position()
			if ply%5 == 0 {
				fen := p.FEN()
				ours, err := rules.Variant{}.Perft(context.Background(), fen, depth)
				if err != nil {
					return err
				}
				theirs, _, err := fsfPerft(eng, fen, depth)
				if err != nil {
					return err
				}
				checked++
				if ours != theirs {
					bad++
					fmt.Fprintf(out, "MISMATCH %s depth %d: banmen %d, fairy-stockfish %d\n", fen, depth, ours, theirs)
				}
			}
			moves := p.LegalMoves()
			if err := g.Play(moves[r.IntN(len(moves))]); err != nil {
				return err
			}
		}
	}
	fmt.Fprintf(out, "%d positions of random games compared at depth %d: %d differ\n", checked, depth, bad)
	if bad > 0 {
		return errors.New("perft counts differ")
	}
	return nil
}

func nps(nodes uint64, el time.Duration) float64 {
	return float64(nodes) / max(el.Seconds(), 1e-9)
}

// fsfPerft is Fairy-Stockfish's count of fen ("" for the start position).
func fsfPerft(eng *extengine.Engine, fen string, depth int) (uint64, time.Duration, error) {
	position := "startpos"
	if fen != "" {
		position = "fen " + fen
	}
	n, el, err := eng.Perft(context.Background(), position, depth)
	if err != nil {
		err = fmt.Errorf("fairy-stockfish: %w", err)
	}
	return n, el, err
}

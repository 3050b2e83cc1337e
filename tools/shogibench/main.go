// Command bench measures the shogi move generator: it runs our perft
// in-process and Fairy-Stockfish's (USI mode, `go perft N`) on the same
// positions in the same run, checks that the counts agree with each other
// and with the published ones, and prints both speeds and their ratio. Then
// (unless -levels=false) it times the computer levels.
//
//	go -C tools run ./shogibench [-depth 5] [-runs 3] [-fsf PATH] [-only start]
//
// Fairy-Stockfish is found as extengine.FindFairyStockfish says
// ($BANMEN_FAIRY_STOCKFISH, fairy-stockfish on $PATH, /usr/games/fairy-stockfish)
// unless -fsf names it; without one the bench measures ours only.
//
// Depth 6 of the start position (547,581,517 nodes) is the deep check that
// the normal tests leave out: go -C tools run ./shogibench -depth 6 -only start.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/banmen/banmen/plugins/shogi/rules"
	"github.com/banmen/banmen/sdk/extengine"
)

// A benchPosition is a position of shared/testdata/perft.md with the depth to
// run it at (relative to -depth for the start position) and its published
// counts.
type benchPosition struct {
	name  string
	sfen  string
	depth func(d int) int
	known map[int]uint64
}

var positions = []benchPosition{
	{"start", rules.StartSFEN, func(d int) int { return d },
		map[int]uint64{1: 30, 2: 900, 3: 25470, 4: 719731, 5: 19861490, 6: 547581517}},
	{"matsuri", "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w GR5pnsg 1", func(d int) int { return max(1, d-2) },
		map[int]uint64{1: 207, 2: 28684, 3: 4809015}},
	{"most-moves", "R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1", func(d int) int { return max(1, d-2) },
		map[int]uint64{1: 593, 2: 105677}},
}

func main() {
	depth := flag.Int("depth", 5, "perft depth of the start position (the others run shallower)")
	fsfPath := flag.String("fsf", "", "Fairy-Stockfish binary (default: found as extengine.FindFairyStockfish says)")
	only := flag.String("only", "", "run only the named position (start, matsuri, most-moves)")
	runs := flag.Int("runs", 1, "time each perft this many times and keep the fastest (the machine may be shared)")
	levels := flag.Bool("levels", true, "also time the computer levels")
	flag.Parse()
	err := run(*depth, *fsfPath, *only, max(1, *runs), os.Stdout)
	if err == nil && *levels {
		err = levelTimes(os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(depth int, fsfPath, only string, runs int, out io.Writer) error {
	var fsf *extengine.Engine
	var err error
	if fsfPath == "" {
		fsfPath, err = extengine.FindFairyStockfish(os.Getenv)
	}
	if errors.Is(err, extengine.ErrNotInstalled) {
		fmt.Fprintf(out, "Fairy-Stockfish unavailable (%v): ours only\n", err)
	} else if err != nil {
		return err
	} else {
		fsf = extengine.New(extengine.Config{Command: fsfPath, Protocol: extengine.USI})
		defer fsf.Close()
	}
	fmt.Fprintf(out, "%-11s %5s %12s %14s %14s %8s  %s\n", "position", "depth", "nodes", "ours nps", "fsf nps", "ratio", "check")
	failed := false
	for _, bp := range positions {
		if only != "" && bp.name != only {
			continue
		}
		d := bp.depth(depth)
		p, err := rules.ParseSFEN(bp.sfen)
		if err != nil {
			return err
		}
		var n uint64
		var ours float64
		for range runs {
			start := time.Now()
			if n, err = p.Perft(context.Background(), d); err != nil {
				return err
			}
			ours = max(ours, float64(n)/time.Since(start).Seconds())
		}
		check := "ok"
		if want, ok := bp.known[d]; ok && want != n {
			check, failed = fmt.Sprintf("MISMATCH: published %d", want), true
		} else if !ok {
			check = "no published count"
		}
		fsfNPS, ratio := "-", "-"
		if fsf != nil {
			var fn uint64
			var v float64
			for range runs {
				var el time.Duration
				if fn, el, err = fsf.Perft(context.Background(), "sfen "+bp.sfen, d); err != nil {
					return err
				}
				v = max(v, float64(fn)/el.Seconds())
			}
			fsfNPS, ratio = strconv.FormatFloat(v, 'f', 0, 64), fmt.Sprintf("%.2fx", ours/v)
			if fn != n {
				// FSF counts pawn-drop mates at the last ply as moves.
				check += fmt.Sprintf("; fsf counts %d (it includes last-ply pawn-drop mates)", fn)
			}
		}
		fmt.Fprintf(out, "%-11s %5d %12d %14.0f %14s %8s  %s\n", bp.name, d, n, ours, fsfNPS, ratio, check)
	}
	if failed {
		return fmt.Errorf("a count differs from the published one")
	}
	return nil
}

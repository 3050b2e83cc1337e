// Command bench measures the Xiangqi move generator: it runs our perft
// in-process and Fairy-Stockfish's ("go perft N" over UCI with UCI_Variant
// xiangqi) on the same positions in the same run, checks that the counts
// agree, and prints both speeds and their ratio.
//
//	go run ./plugins/xiangqi/cmd/bench [-depth 5] [-fsf /usr/games/fairy-stockfish] [-position FEN]
//
// It is a benchmark command, not a test: the deep counts take seconds.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/banmen/banmen/plugins/xiangqi/rules"
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
	fsf := fs.String("fsf", "/usr/games/fairy-stockfish", "Fairy-Stockfish binary")
	pos := fs.String("position", "", "measure only this FEN")
	if err := fs.Parse(args); err != nil {
		return err
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
		theirs, el, err := fsfPerft(*fsf, p.fen, d)
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
	return nil
}

func nps(nodes uint64, el time.Duration) float64 {
	return float64(nodes) / max(el.Seconds(), 1e-9)
}

// fsfPerft runs "go perft depth" in Fairy-Stockfish and times it from the
// command to the count, after the engine has said it is ready.
func fsfPerft(bin, fen string, depth int) (uint64, time.Duration, error) {
	cmd := exec.Command(bin)
	in, err := cmd.StdinPipe()
	if err != nil {
		return 0, 0, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	defer func() { _ = cmd.Wait() }()
	defer in.Close()
	position := "position startpos"
	if fen != "" {
		position = "position fen " + fen
	}
	sc := bufio.NewScanner(stdout)
	waitFor := func(prefix string) (string, error) {
		for sc.Scan() {
			if line := sc.Text(); strings.HasPrefix(line, prefix) {
				return line, nil
			}
		}
		if err := sc.Err(); err != nil {
			return "", err
		}
		return "", fmt.Errorf("no %q line", prefix)
	}
	fmt.Fprintf(in, "uci\nsetoption name UCI_Variant value xiangqi\n%s\nisready\n", position)
	if _, err := waitFor("readyok"); err != nil {
		return 0, 0, err
	}
	t0 := time.Now()
	fmt.Fprintf(in, "go perft %d\n", depth)
	line, err := waitFor("Nodes searched")
	el := time.Since(t0)
	if err != nil {
		return 0, 0, err
	}
	fmt.Fprintln(in, "quit")
	n, err := strconv.ParseUint(strings.TrimSpace(strings.TrimPrefix(line, "Nodes searched:")), 10, 64)
	return n, el, err
}

// Command analysebench measures the quality of the built-in engines'
// analysis (sdk.Analyser) beside Fairy-Stockfish, measured in the same run
// with the same time per position, and prints figures, not verdicts:
//
//   - mates: shogi tsume problems (mate in 1, 3, 5 and 7) and xiangqi
//     mates (1, 3 and 5 plies); a position counts as found when the engine
//     reports mate at the distance Fairy-Stockfish's reference search finds
//     (a longer time) with a first move that keeps that mate (checked by
//     the rules for mate 1, by the reference search for the others);
//
//   - on positions from random games: how often the best move, at the
//     default limit, is the one Fairy-Stockfish finds at a deep search, and
//     how often the evaluation has the same sign as its; Fairy-Stockfish
//     given the same time per position as ours took is shown beside;
//
//   - the time to analyse a 100-ply game at the default limit (every
//     position, one after the other, on one core; Yonin too).
//
//     go run ./tools/analysebench [-time 300ms] [-ref 2s] [-positions 100] [-deep 2s] [-fsf PATH] [-games shogi,xiangqi,yonin]
//
// The shogi problems are the tsume test positions of
// github.com/antma/tsumeshogi-check (tests/tsume1.rs, tsume3.rs, tsume5.rs,
// tsume7.rs), a Sente king added in a far corner where the problem has
// none (our rules need both kings); the xiangqi mates and shogi's other
// mates in 1 and 3 are the engines' own test positions
// (plugins/*/engine/engine_test.go, analyse_test.go), found in games and
// confirmed with Fairy-Stockfish. Fairy-Stockfish is found as
// extengine.FindFairyStockfish says unless -fsf names it; without one the
// command measures ours only.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"time"

	shogi "github.com/banmen/banmen/plugins/shogi/engine"
	shogirules "github.com/banmen/banmen/plugins/shogi/rules"
	xiangqi "github.com/banmen/banmen/plugins/xiangqi/engine"
	xiangqirules "github.com/banmen/banmen/plugins/xiangqi/rules"
	yonin "github.com/banmen/banmen/plugins/yonin/engine"
	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/extengine"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "analysebench:", err)
		os.Exit(1)
	}
}

// game is what the bench needs of a variant.
type game struct {
	name string
	v    interface {
		sdk.Variant
		sdk.Analyser
	}
	proto  extengine.Protocol
	format string // the import format of its positions
	// fen is the position text an engine reads ("sfen ... moves ...").
	fen func(sdk.State) (string, error)
}

var games = []*game{
	{name: "shogi", v: shogi.New(func(string) string { return "" }), proto: extengine.USI, format: shogirules.FormatSFENUSI,
		fen: func(s sdk.State) (string, error) {
			l, err := shogirules.DecodeLine(s)
			if err != nil {
				return "", err
			}
			return l.USI, nil
		}},
	{name: "xiangqi", v: xiangqi.Variant{Player: xiangqi.NewPlayer(xiangqi.Config{})}, proto: extengine.UCCI, format: xiangqirules.NotationFENUCCI,
		fen: func(s sdk.State) (string, error) {
			g, err := xiangqirules.DecodeState(s)
			if err != nil {
				return "", err
			}
			return g.FENUCCI(), nil
		}},
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("analysebench", flag.ContinueOnError)
	per := fs.Duration("time", 300*time.Millisecond, "time per mate position, both engines")
	ref := fs.Duration("ref", 2*time.Second, "Fairy-Stockfish's time for the reference mate distances and checks")
	positions := fs.Int("positions", 100, "positions from random games, per game")
	deep := fs.Duration("deep", 2*time.Second, "Fairy-Stockfish's time for the deep search the best moves are compared with")
	plies := fs.Int("plies", 100, "length of the game whose analysis is timed")
	fsfPath := fs.String("fsf", "", "Fairy-Stockfish (default: found as extengine.FindFairyStockfish says)")
	seed := fs.Uint64("seed", 1, "seed of the random games")
	only := fs.String("games", "shogi,xiangqi,yonin", "the games measured, comma-separated")
	fs.BoolVar(verbose, "v", false, "name the mates missed")
	if err := fs.Parse(args); err != nil {
		return err
	}
	path := *fsfPath
	if path == "" {
		p, err := extengine.FindFairyStockfish(os.Getenv)
		if err != nil && !errors.Is(err, extengine.ErrNotInstalled) {
			return err
		}
		path = p
	}
	if path == "" {
		fmt.Fprintln(out, "Fairy-Stockfish not found: ours only")
	}
	fmt.Fprintf(out, "analysebench: mates at %v per position (reference %v); %d positions per game against a %v search; a %d-ply game\n",
		*per, *ref, *positions, *deep, *plies)
	want := map[string]bool{}
	for _, name := range strings.Split(*only, ",") {
		want[strings.TrimSpace(name)] = true
	}
	for _, g := range games {
		if !want[g.name] {
			continue
		}
		var fsf *extengine.Engine
		if path != "" {
			fsf = extengine.New(extengine.Config{Command: path, Protocol: g.proto})
			defer fsf.Close()
		}
		b := &bench{g: g, fsf: fsf, path: path, out: out}
		if err := b.mates(*per, *ref); err != nil {
			return fmt.Errorf("%s mates: %w", g.name, err)
		}
		if err := b.agreement(*positions, *deep, *seed); err != nil {
			return fmt.Errorf("%s agreement: %w", g.name, err)
		}
		if err := b.gameTime(g.v, *plies, *seed); err != nil {
			return fmt.Errorf("%s game: %w", g.name, err)
		}
	}
	if !want["yonin"] {
		return nil
	}
	b := &bench{g: &game{name: "yonin"}, out: out}
	return b.gameTime(yonin.Variant{}, *plies, *seed)
}

var verbose = new(bool)

type bench struct {
	g   *game
	fsf *extengine.Engine // the reference searches
	// path starts a new Fairy-Stockfish for each timed search (theirsCold).
	path string
	out  io.Writer
}

// mate is a mate position and its nominal length in plies.
type mate struct {
	text string
	n    int
}

// analyse is ours within lim, for the side to move.
func (b *bench) ours(st sdk.State, lim sdk.Limit) (sdk.Score, sdk.Move, time.Duration, error) {
	v, err := b.g.v.View(st)
	if err != nil {
		return sdk.Score{}, "", 0, err
	}
	start := time.Now()
	a, err := b.g.v.Analyse(context.Background(), sdk.AnalyseRequest{State: st, Limit: lim})
	el := time.Since(start)
	if err != nil {
		return sdk.Score{}, "", el, err
	}
	return a.Scores[v.ToMove[0]], a.Best, el, nil
}

// theirs is Fairy-Stockfish's within movetime, for the side to move, its
// mate counted in plies.
func (b *bench) theirs(st sdk.State, movetime time.Duration) (sdk.Score, sdk.Move, error) {
	pos, err := b.g.fen(st)
	if err != nil {
		return sdk.Score{}, "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), movetime+10*time.Second)
	defer cancel()
	best, in, err := b.fsf.Analyse(ctx, pos, extengine.Limit{MoveTime: max(movetime, time.Millisecond)})
	if err != nil {
		return sdk.Score{}, "", err
	}
	if in.Mate != 0 {
		return sdk.Score{Mate: extengine.MatePlies(b.g.proto, in.Mate)}, sdk.Move(best), nil
	}
	return sdk.Score{CP: in.CP}, sdk.Move(best), nil
}

// theirsCold is theirs on a new Fairy-Stockfish process, which starts
// with an empty hash table as ours starts every position with empty
// tables: the reference engine has just searched the same position for
// longer, and its table would hand the timed search the answer.
func (b *bench) theirsCold(st sdk.State, movetime time.Duration) (sdk.Score, sdk.Move, error) {
	e := extengine.New(extengine.Config{Command: b.path, Protocol: b.g.proto})
	defer e.Close()
	ref := b.fsf
	defer func() { b.fsf = ref }()
	b.fsf = e
	return b.theirs(st, movetime)
}

// keepsMate tells whether m, played in st, keeps a mate in d plies: by the
// rules for d = 1, else by the reference search (the defender mated in
// d-1).
func (b *bench) keepsMate(st sdk.State, m sdk.Move, d int, ref time.Duration) (bool, error) {
	v, err := b.g.v.View(st)
	if err != nil {
		return false, err
	}
	seat := v.ToMove[0]
	if !slices.ContainsFunc(v.Legal, func(l sdk.LegalMove) bool { return l.Move == m }) {
		return false, nil
	}
	st2, v2, err := b.g.v.Play(st, seat, m)
	if err != nil {
		return false, nil
	}
	if d == 1 || v2.Status == sdk.Over {
		return d == 1 && v2.Status == sdk.Over && v2.Result != nil && slices.Equal(v2.Result.Winners, []sdk.Seat{seat}), nil
	}
	if b.fsf == nil {
		return false, errors.New("no reference engine")
	}
	sc, _, err := b.theirs(st2, ref)
	return err == nil && sc.Mate == -(d-1), err
}

func (b *bench) mates(per, ref time.Duration) error {
	set := mateSets[b.g.name]
	type tally struct{ n, ours, theirs, unsolved, oursUnsolved int }
	byN := map[int]*tally{}
	var order []int
	for _, mt := range set {
		st, _, err := b.g.v.Import(b.g.format, mt.text)
		if err != nil {
			return fmt.Errorf("%q: %w", mt.text, err)
		}
		t := byN[mt.n]
		if t == nil {
			t = &tally{}
			byN[mt.n] = t
			order = append(order, mt.n)
		}
		t.n++
		d := mt.n
		if b.fsf != nil {
			// The distance with best defence, futile interpositions
			// counted (tsume problems do not count them; engines must).
			sc, _, err := b.theirs(st, ref)
			if err != nil {
				return err
			}
			if sc.Mate <= 0 {
				// Left out of the comparison; ours is still asked, and
				// a mate it reports is named (unconfirmed: there is no
				// reference to check it by).
				t.unsolved++
				osc, om, _, err := b.ours(st, sdk.Limit{Time: per})
				if err != nil {
					return err
				}
				if osc.Mate > 0 {
					t.oursUnsolved++
					if *verbose {
						fmt.Fprintf(b.out, "  no reference mate for %s; ours reports mate %d with %s\n", mt.text, osc.Mate, om)
					}
				}
				continue
			}
			d = sc.Mate
		}
		sc, m, _, err := b.ours(st, sdk.Limit{Time: per})
		if err != nil {
			return err
		}
		found := false
		if sc.Mate == d {
			if found, err = b.keepsMate(st, m, d, ref); err != nil {
				return err
			}
		}
		if found {
			t.ours++
		} else if *verbose {
			fmt.Fprintf(b.out, "  ours missed %s: %v %s (reference mate %d)\n", mt.text, sc, m, d)
		}
		if b.fsf != nil {
			sc, m, err := b.theirsCold(st, per)
			if err != nil {
				return err
			}
			if sc.Mate == d {
				if ok, err := b.keepsMate(st, m, d, ref); err != nil {
					return err
				} else if ok {
					t.theirs++
				}
			}
		}
	}
	slices.Sort(order)
	for _, n := range order {
		t := byN[n]
		solved := t.n - t.unsolved
		line := fmt.Sprintf("%-8s mate in %d: %2d positions; found at %v: ours %2d/%d", b.g.name, n, t.n, per, t.ours, solved)
		if b.fsf != nil {
			line += fmt.Sprintf(", Fairy-Stockfish %2d/%d", t.theirs, solved)
		}
		if t.unsolved > 0 {
			line += fmt.Sprintf(" (%d with no mate by the reference, left out; ours reports a mate in %d of them)", t.unsolved, t.oursUnsolved)
		}
		fmt.Fprintln(b.out, line)
	}
	return nil
}

// randomPositions plays random legal moves from the start: one position of
// each game, after 6 to 80 plies, with the game still on.
func randomPositions(v sdk.Variant, n int, seed uint64) ([]sdk.State, error) {
	rng := rand.New(rand.NewPCG(seed, 38))
	var out []sdk.State
	for tries := 0; len(out) < n && tries < 20*n; tries++ {
		st, view, err := v.Start(nil)
		if err != nil {
			return nil, err
		}
		target := 6 + rng.IntN(75)
		for view.Ply < target && view.Status == sdk.Playing {
			moves := slices.DeleteFunc(slices.Clone(view.Legal), func(m sdk.LegalMove) bool {
				return m.Kind == sdk.Action || m.Move == sdk.Resign || !slices.Contains(view.ToMove, m.Seat)
			})
			if len(moves) == 0 {
				break
			}
			m := moves[rng.IntN(len(moves))]
			if st, view, err = v.Play(st, m.Seat, m.Move); err != nil {
				return nil, err
			}
		}
		if view.Status == sdk.Playing && view.Ply == target {
			out = append(out, st)
		}
	}
	return out, nil
}

func sign(s sdk.Score) int {
	switch {
	case s.Mate > 0 || s.Mate == 0 && s.CP > 0:
		return 1
	case s.Mate < 0 || s.Mate == 0 && s.CP < 0:
		return -1
	}
	return 0
}

func (b *bench) agreement(n int, deep time.Duration, seed uint64) error {
	if b.fsf == nil {
		return nil
	}
	states, err := randomPositions(b.g.v, n, seed)
	if err != nil {
		return err
	}
	var oursBest, oursSign, theirsBest, theirsSign int
	var spent time.Duration
	for _, st := range states {
		refScore, refBest, err := b.theirs(st, deep)
		if err != nil {
			return err
		}
		sc, m, el, err := b.ours(st, sdk.Limit{})
		if err != nil {
			return err
		}
		spent += el
		if m == refBest {
			oursBest++
		}
		if sign(sc) == sign(refScore) {
			oursSign++
		}
		tsc, tm, err := b.theirsCold(st, el)
		if err != nil {
			return err
		}
		if tm == refBest {
			theirsBest++
		}
		if sign(tsc) == sign(refScore) {
			theirsSign++
		}
	}
	k := len(states)
	pct := func(x int) float64 { return 100 * float64(x) / float64(max(k, 1)) }
	fmt.Fprintf(b.out, "%-8s %d positions from random games, against Fairy-Stockfish at %v: best move ours %.0f%% (default limit, %v a position), Fairy-Stockfish at the same time %.0f%%; same sign ours %.0f%%, Fairy-Stockfish %.0f%%\n",
		b.g.name, k, deep, pct(oursBest), (spent / time.Duration(max(k, 1))).Round(time.Millisecond), pct(theirsBest), pct(oursSign), pct(theirsSign))
	return nil
}

// gameTime analyses every position of one random game of the given length
// at the default limit.
func (b *bench) gameTime(v interface {
	sdk.Variant
	sdk.Analyser
}, plies int, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 100))
	var states []sdk.State
	for tries := 0; len(states) < plies+1 && tries < 50; tries++ {
		st, view, err := v.Start(nil)
		if err != nil {
			return err
		}
		states = states[:0]
		for view.Status == sdk.Playing && len(states) < plies+1 {
			states = append(states, st)
			moves := slices.DeleteFunc(slices.Clone(view.Legal), func(m sdk.LegalMove) bool {
				return m.Kind == sdk.Action || m.Move == sdk.Resign || !slices.Contains(view.ToMove, m.Seat)
			})
			if len(moves) == 0 {
				break
			}
			m := moves[rng.IntN(len(moves))]
			if st, view, err = v.Play(st, m.Seat, m.Move); err != nil {
				return err
			}
		}
	}
	start := time.Now()
	for _, st := range states {
		if _, err := v.Analyse(context.Background(), sdk.AnalyseRequest{State: st}); err != nil {
			return err
		}
	}
	el := time.Since(start)
	fmt.Fprintf(b.out, "%-8s a %d-ply game (%d positions) at the default limit: %v, %v a position\n",
		b.g.name, len(states)-1, len(states), el.Round(100*time.Millisecond), (el / time.Duration(max(len(states), 1))).Round(time.Millisecond))
	return nil
}

// tsume turns a tsume problem's SFEN (Sente attacking, often without a
// king) into a game position: a Sente king on the first free far corner
// when there is none.
func tsume(sfen string) string {
	board, rest, _ := strings.Cut(sfen, " ")
	if strings.Contains(board, "K") {
		return "sfen " + sfen
	}
	rows := strings.Split(board, "/")
	// Corners from Sente's side: 9i, 1i, 9h, 1h.
	for _, c := range []struct{ row, col int }{{8, 0}, {8, 8}, {7, 0}, {7, 8}} {
		cells := expand(rows[c.row])
		if cells[c.col] == "" {
			cells[c.col] = "K"
			rows[c.row] = compress(cells)
			return "sfen " + strings.Join(rows, "/") + " " + rest
		}
	}
	return "sfen " + sfen
}

func expand(row string) []string {
	var cells []string
	for i := 0; i < len(row); i++ {
		switch c := row[i]; {
		case c >= '1' && c <= '9':
			for range int(c - '0') {
				cells = append(cells, "")
			}
		case c == '+':
			cells = append(cells, row[i:i+2])
			i++
		default:
			cells = append(cells, string(c))
		}
	}
	return cells
}

func compress(cells []string) string {
	var b strings.Builder
	empty := 0
	for _, c := range cells {
		if c == "" {
			empty++
			continue
		}
		if empty > 0 {
			fmt.Fprint(&b, empty)
			empty = 0
		}
		b.WriteString(c)
	}
	if empty > 0 {
		fmt.Fprint(&b, empty)
	}
	return b.String()
}

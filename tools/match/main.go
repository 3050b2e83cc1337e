// Command match plays games between two players and prints the score: our
// computer levels (through the real plugin process, as the site calls them)
// or an external engine such as Fairy-Stockfish at a fixed depth. Colours
// (seats) alternate, and each pair of games starts from the same short random
// opening, so deterministic players still play different games.
//
//	match -variant shogi -a hard -b medium -games 20
//	match -variant xiangqi -a hard -b fsf:5 -games 20
//
// In a game of more than two seats, player A takes one seat (rotating) and B
// the others; A scores 1 for first place down to 0 for last. After the score
// it prints each player's think time per move (median, 90th percentile,
// longest, moves after the -think deadline): the levels' budgets, measured.
//
// It knows no game rule: moves come from the View's legal list, the
// plugin's Suggest, or the engine, whose text is checked by the plugin.
package main

import (
	"github.com/banmen/banmen/tools/internal/hostproc"

	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/extengine"
	"github.com/banmen/banmen/sdk/host"
)

// engineDialect says how to talk to an external engine about a variant: the
// export format that yields "<position> moves ..." and the protocol.
var engineDialect = map[string]struct {
	format   string
	protocol extengine.Protocol
	options  map[string]string
}{
	"shogi":   {"sfen+usi", extengine.USI, nil},
	"xiangqi": {"fen+ucci", extengine.UCCI, nil},
}

type options struct {
	variant, a, b, plugins, engine string
	games, parallel, maxPlies      int
	randomPlies                    int
	think                          time.Duration
	seed                           uint64
	verbose                        bool
}

func main() {
	var o options
	flag.StringVar(&o.variant, "variant", "shogi", "variant ID")
	flag.StringVar(&o.a, "a", "hard", "player A: a level (easy, medium, hard) or fsf:DEPTH")
	flag.StringVar(&o.b, "b", "medium", "player B: a level or fsf:DEPTH")
	flag.IntVar(&o.games, "games", 20, "games to play")
	flag.IntVar(&o.parallel, "parallel", 1, "games played at once")
	flag.IntVar(&o.maxPlies, "maxplies", 400, "a game this long is a draw")
	flag.IntVar(&o.randomPlies, "random-plies", 2, "random opening plies, the same for each pair of games")
	flag.DurationVar(&o.think, "think", 3*time.Second, "deadline of one computer move")
	flag.Uint64Var(&o.seed, "seed", 1, "seed of the random openings")
	flag.StringVar(&o.plugins, "plugins", filepath.Join(hostproc.BinDir(os.Getenv), "plugins"), "plugin directory")
	flag.StringVar(&o.engine, "engine", "", "external engine for fsf:DEPTH players (default: Fairy-Stockfish, found as extengine.FindFairyStockfish says)")
	flag.BoolVar(&o.verbose, "v", false, "print every game's moves")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "match:", err)
		os.Exit(1)
	}
}

// player chooses moves.
type player interface {
	name() string
	move(ctx context.Context, st sdk.State, v sdk.View) (sdk.Move, error)
	close()
}

type levelPlayer struct {
	conn    *host.Conn
	variant string
	level   sdk.Level
	think   time.Duration
}

func (p *levelPlayer) name() string { return string(p.level) }
func (p *levelPlayer) close()       {}
func (p *levelPlayer) move(ctx context.Context, st sdk.State, v sdk.View) (sdk.Move, error) {
	ctx, cancel := context.WithTimeout(ctx, p.think)
	defer cancel()
	if len(v.ToMove) == 0 {
		return "", fmt.Errorf("no seat to move at ply %d", v.Ply)
	}
	return p.conn.Suggest(ctx, host.SuggestRequest{Variant: p.variant, State: st, Seat: v.ToMove[0], Level: p.level})
}

type enginePlayer struct {
	conn    *host.Conn
	variant string
	format  string
	depth   int
	eng     *extengine.Engine
}

func (p *enginePlayer) name() string { return "fsf:" + strconv.Itoa(p.depth) }
func (p *enginePlayer) close()       { p.eng.Close() }
func (p *enginePlayer) move(ctx context.Context, st sdk.State, _ sdk.View) (sdk.Move, error) {
	pos, err := p.conn.Export(ctx, host.ExportRequest{Variant: p.variant, State: st, Format: p.format})
	if err != nil {
		return "", err
	}
	m, err := p.eng.BestMove(ctx, strings.TrimSpace(pos), extengine.Limit{Depth: p.depth})
	return sdk.Move(m), err
}

func newPlayer(spec string, conn *host.Conn, o options) (player, error) {
	if d, ok := strings.CutPrefix(spec, "fsf:"); ok {
		depth, err := strconv.Atoi(d)
		if err != nil || depth < 1 {
			return nil, fmt.Errorf("bad depth in %q", spec)
		}
		dia, ok := engineDialect[o.variant]
		if !ok {
			return nil, fmt.Errorf("no external engine dialect for %s", o.variant)
		}
		if o.engine == "" {
			if o.engine, err = extengine.FindFairyStockfish(os.Getenv); err != nil {
				return nil, err
			}
		}
		eng := extengine.New(extengine.Config{Command: o.engine, Protocol: dia.protocol, Options: dia.options})
		return &enginePlayer{conn: conn, variant: o.variant, format: dia.format, depth: depth, eng: eng}, nil
	}
	return &levelPlayer{conn: conn, variant: o.variant, level: sdk.Level(spec), think: o.think}, nil
}

func run(o options) error {
	ctx := context.Background()
	conn, err := host.Launch(ctx, host.LaunchConfig{Cmd: exec.Command(filepath.Join(o.plugins, o.variant))})
	if err != nil {
		return fmt.Errorf("%w (run `make build` first)", err)
	}
	defer conn.Kill()
	var desc sdk.Description
	for _, d := range conn.Descriptions() {
		if d.ID == o.variant {
			desc = d
		}
	}
	seats := len(desc.Seats)
	if seats < 2 {
		return fmt.Errorf("plugin does not serve %s", o.variant)
	}
	type result struct {
		i     int
		score float64
		line  string
		err   error
	}
	results := make([]result, o.games)
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < max(1, o.parallel); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each worker has its own players: an engine process is not shared.
			a, err := newPlayer(o.a, conn, o)
			if err != nil {
				for i := range jobs {
					results[i] = result{i: i, err: err}
				}
				return
			}
			defer a.close()
			b, err := newPlayer(o.b, conn, o)
			if err != nil {
				for i := range jobs {
					results[i] = result{i: i, err: err}
				}
				return
			}
			defer b.close()
			for i := range jobs {
				aSeat := sdk.Seat(i % seats)
				rng := rand.New(rand.NewPCG(o.seed, uint64(i/seats)))
				score, line, err := playGame(ctx, conn, o, a, b, aSeat, rng)
				results[i] = result{i: i, score: score, line: line, err: err}
				fmt.Printf("game %2d  A=%s at seat %d  %s\n", i+1, a.name(), aSeat, line)
			}
		}()
	}
	start := time.Now()
	for i := 0; i < o.games; i++ {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	var total float64
	played := 0
	for _, r := range results {
		if r.err != nil {
			fmt.Printf("game %2d  error: %v\n", r.i+1, r.err)
			continue
		}
		total += r.score
		played++
	}
	if played == 0 {
		return errors.New("no game finished")
	}
	fmt.Printf("%s: A=%s vs B=%s: %.1f/%d = %.1f%% for A (%s)\n",
		o.variant, o.a, o.b, total, played, 100*total/float64(played), time.Since(start).Round(time.Second))
	times.print(os.Stdout, o.think)
	return nil
}

// playGame plays one game and returns A's score and a summary line.
func playGame(ctx context.Context, conn *host.Conn, o options, a, b player, aSeat sdk.Seat, rng *rand.Rand) (float64, string, error) {
	st, v, err := conn.Start(ctx, host.StartRequest{Variant: o.variant})
	if err != nil {
		return 0, "", err
	}
	var moves []string
	for v.Status == sdk.Playing && v.Ply < o.maxPlies {
		if len(v.ToMove) == 0 || len(v.Legal) == 0 {
			return 0, "", fmt.Errorf("ply %d: nobody can move but the game is on", v.Ply)
		}
		seat := v.ToMove[0]
		var m sdk.Move
		if v.Ply < o.randomPlies {
			var board []sdk.LegalMove
			for _, l := range v.Legal {
				if l.Kind != sdk.Action {
					board = append(board, l)
				}
			}
			m = board[rng.IntN(len(board))].Move
		} else {
			p, label := b, "B="+b.name()
			if seat == aSeat {
				p, label = a, "A="+a.name()
			}
			t0 := time.Now()
			m, err = p.move(ctx, st, v)
			times.add(label, time.Since(t0))
			if err != nil {
				return 0, "", fmt.Errorf("ply %d, %s: %w", v.Ply, p.name(), err)
			}
		}
		st, v, err = conn.Play(ctx, host.PlayRequest{Variant: o.variant, State: st, Seat: seat, Move: m})
		if err != nil {
			return 0, "", fmt.Errorf("ply %d: %s played %s: %w", len(moves), seatName(seat, aSeat), m, err)
		}
		moves = append(moves, string(m))
	}
	line := fmt.Sprintf("%3d plies  ", v.Ply)
	if o.verbose {
		defer func() { fmt.Println("   ", strings.Join(moves, " ")) }()
	}
	if v.Status != sdk.Over {
		return 0.5, line + "draw (move cap)", nil
	}
	r := v.Result
	switch {
	case len(r.Places) > int(aSeat) && len(r.Places) > 2:
		n := len(r.Places)
		p := r.Places[aSeat]
		return float64(n-p) / float64(n-1), line + fmt.Sprintf("A placed %d (%s)", p, r.Reason), nil
	case r.Draw || len(r.Winners) == 0:
		return 0.5, line + "draw (" + r.Reason + ")", nil
	case r.Winners[0] == aSeat:
		return 1, line + "A wins (" + r.Reason + ")", nil
	default:
		return 0, line + "B wins (" + r.Reason + ")", nil
	}
}

func seatName(seat, aSeat sdk.Seat) string {
	if seat == aSeat {
		return "A"
	}
	return "B"
}

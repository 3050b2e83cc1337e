// Command bench is the Yonin Shogi benchmark: it plays thousands of seeded
// random four-player games, checking on every move that the turn goes where
// check priority says, that nobody is asked to move twice in a row and that
// every game ends in a valid result; then it measures perft nodes/s on the
// start position beside the shogi plugin's, in the same run; then it times
// the computer levels.
//
//	go -C tools run ./yoninbench [-games 2000] [-depth 6] [-shogi-depth 4] [-longer=true] [-levels=true] [-deep]
//
// The speed is compared twice: at the given depths, then (with -longer) one
// ply deeper each, whose longer runs a shared machine disturbs less.
//
// -deep also runs the slow perft cross-checks against the independent
// reference generator (go test ./plugins/yonin/rules -run Perft -args -deep).
// It prints figures and fails only when an invariant breaks.
package main

import (
	"github.com/banmen/banmen/tools/internal/hostproc"

	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/banmen/banmen/plugins/yonin/rules"
	"github.com/banmen/banmen/sdk"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	games := fs.Int("games", 2000, "random games to play")
	maxPlies := fs.Int("max-plies", 3000, "a random game longer than this is a failure")
	depth := fs.Int("depth", 6, "perft depth on the Yonin start position")
	shogiDepth := fs.Int("shogi-depth", 4, "perft depth of the shogi plugin")
	shogiBin := fs.String("shogi", filepath.Join(hostproc.BinDir(os.Getenv), "plugins", "shogi"), "the shogi plugin binary (built from plugins/shogi when missing)")
	deep := fs.Bool("deep", false, "also run the slow perft cross-checks against the reference generator")
	longer := fs.Bool("longer", true, "also compare one ply deeper each, for steadier figures")
	levels := fs.Bool("levels", true, "also time the computer levels")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := randomGames(out, *games, *maxPlies); err != nil {
		return err
	}
	if err := speed(out, *depth, *shogiBin, *shogiDepth); err != nil {
		return err
	}
	if *longer {
		// Runs of a few hundred milliseconds, steadier on a shared machine.
		if err := speed(out, *depth+1, *shogiBin, *shogiDepth+1); err != nil {
			return err
		}
	}
	if *levels {
		if err := levelTimes(out); err != nil {
			return err
		}
	}
	if *deep {
		cmd := exec.Command("go", "test", "-count=1", "-timeout=60m", "-run", "Perft", "-v", "github.com/banmen/banmen/plugins/yonin/rules", "-args", "-deep")
		cmd.Stdout, cmd.Stderr = out, out
		fmt.Fprintln(out, "== deep perft cross-checks:", strings.Join(cmd.Args, " "))
		return cmd.Run()
	}
	return nil
}

// optionSets are the settings the random games cycle through; every game
// has a move limit, so that every game ends.
var optionSets = []sdk.Options{
	{"move_limit": "800"},
	{"format": "pairs", "move_limit": "800"},
	{"ending": "last_player", "move_limit": "1200"},
	{"mated_pieces": "ownerless", "move_limit": "800"},
	{"ending": "last_player", "mated_pieces": "ownerless", "move_limit": "1200"},
	{"first_seat": "2", "move_limit": "800"},
	{"move_limit": "60"},
}

// randomGames plays seeded random games and checks their invariants.
func randomGames(out io.Writer, n, maxPlies int) error {
	start := time.Now()
	reasons := map[string]int{}
	var plies, mates, priorities, twice, states int
	for i := range n {
		opts := optionSets[i%len(optionSets)]
		rnd := rand.New(rand.NewPCG(uint64(i), 42))
		stats, err := playOne(opts, rnd, maxPlies, i%100 == 0)
		if err != nil {
			return fmt.Errorf("game %d (options %v): %w", i, opts, err)
		}
		reasons[stats.reason]++
		plies += stats.plies
		mates += stats.mates
		priorities += stats.priorities
		twice += stats.twice
		if i%100 == 0 {
			states++
		}
	}
	el := time.Since(start)
	fmt.Fprintf(out, "random games: %d in %v, %d plies (%.0f plies/s), %d mates, %d check-priority turns, "+
		"%d moves again after mating the seat before, %d checked through State/Export/Import\n",
		n, el.Round(time.Millisecond), plies, float64(plies)/el.Seconds(), mates, priorities, twice, states)
	keys := make([]string, 0, len(reasons))
	for k := range reasons {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(out, "  %-20s %d\n", k, reasons[k])
	}
	return nil
}

type gameStats struct {
	reason                          string
	plies, mates, priorities, twice int
}

// playOne plays one random game: captures are preferred half of the time,
// so that mates come. It checks after every move that the mover is not left
// in check, that nobody moves twice in a row, and that the seat to move is
// the one check priority names.
func playOne(opts sdk.Options, rnd *rand.Rand, maxPlies int, viaState bool) (st gameStats, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	g, err := rules.NewGame(opts)
	if err != nil {
		return st, err
	}
	greedy := rnd.IntN(2) == 0
	for ply := 0; g.ToMove() != sdk.NoSeat; ply++ {
		if ply >= maxPlies {
			return st, fmt.Errorf("no end after %d plies", ply)
		}
		seat := g.ToMove()
		if !g.Live(seat) {
			return st, fmt.Errorf("ply %d: mated seat %d to move", ply, seat)
		}
		legal := g.Legal()
		if len(legal) == 0 {
			return st, fmt.Errorf("ply %d: seat %d to move has no legal move", ply, seat)
		}
		m := legal[rnd.IntN(len(legal))]
		if greedy {
			for _, c := range legal {
				if strings.Contains(string(c), "*") {
					continue
				}
				if rnd.IntN(4) == 0 {
					m = c
					break
				}
			}
		}
		mates := g.Mates()
		if err := g.Play(seat, m); err != nil {
			return st, fmt.Errorf("ply %d: listed move %s rejected: %v", ply, m, err)
		}
		st.plies++
		next := g.ToMove()
		if next == sdk.NoSeat {
			break
		}
		checked := g.InCheck()
		if g.Live(seat) && slices.Contains(checked, seat) {
			return st, fmt.Errorf("ply %d: %s left its own king in check", ply, m)
		}
		// The turn counts from the mover, or after mates from the last
		// mated seat; only then may the mover be named again (its move
		// mated the seat just before it).
		from := seat
		if g.Mates() != mates {
			st.mates += g.Mates() - mates
			elim := g.View().Eliminated
			from = elim[len(elim)-1]
		} else if next == seat {
			return st, fmt.Errorf("ply %d: seat %d asked to move twice in a row without a mate", ply, seat)
		}
		want := sdk.NoSeat
		for k := 1; k < 4 && want == sdk.NoSeat; k++ {
			if s := (from + sdk.Seat(k)) % 4; slices.Contains(checked, s) {
				want = s
				if k > 1 {
					st.priorities++
				}
			}
		}
		for k := 1; k < 4 && want == sdk.NoSeat; k++ {
			if s := (from + sdk.Seat(k)) % 4; g.Live(s) {
				want = s
			}
		}
		if next != want {
			return st, fmt.Errorf("ply %d after %s: seat %d to move, check priority says %d (in check %v)", ply, m, next, want, checked)
		}
		if next == seat {
			st.twice++
		}
	}
	res := g.Result()
	if err := checkResult(opts, res, g); err != nil {
		return st, err
	}
	st.reason = res.Reason
	if viaState {
		err = checkState(g)
	}
	return st, err
}

// checkResult checks that an ended game has a sound result: places that are
// a competition ranking with the mated seats below the others, winners in
// place 1; pairs win as a team or draw without places.
func checkResult(opts sdk.Options, res *sdk.Result, g *rules.Game) error {
	if res == nil {
		return errors.New("over without a result")
	}
	if v := g.View(); v.Status != sdk.Over || len(v.Legal) != 0 || len(v.ToMove) != 0 {
		return fmt.Errorf("ended game's view: %s, %d legal moves, to move %v", v.Status, len(v.Legal), v.ToMove)
	}
	if opts["format"] == "pairs" {
		switch {
		case res.Draw && res.Places == nil && res.Winners == nil && res.Reason != "result.team_mate":
			return nil
		case res.Reason == "result.team_mate" && len(res.Places) == 4 && res.Places[0] == res.Places[2] &&
			res.Places[1] == res.Places[3] && res.Places[0]+res.Places[1] == 4 && len(res.Winners) == 2:
			return nil
		}
		return fmt.Errorf("bad pairs result %+v", res)
	}
	if res.Draw || len(res.Places) != 4 || len(res.Winners) == 0 {
		return fmt.Errorf("bad singles result %+v", res)
	}
	for s, p := range res.Places {
		better := 0
		for _, q := range res.Places {
			if q < p {
				better++
			}
		}
		if p != better+1 {
			return fmt.Errorf("places %v are not a ranking", res.Places)
		}
		if (p == 1) != slices.Contains(res.Winners, sdk.Seat(s)) {
			return fmt.Errorf("winners %v do not match places %v", res.Winners, res.Places)
		}
		for t := range 4 {
			if !g.Live(sdk.Seat(s)) && g.Live(sdk.Seat(t)) && res.Places[t] >= p {
				return fmt.Errorf("mated seat %d placed %d, not below live seat %d (%d)", s, p, t, res.Places[t])
			}
		}
	}
	return nil
}

// checkState sends the finished game through the contract: View of its
// state, Export and Import give the same game.
func checkState(g *rules.Game) error {
	v := rules.Variant{}
	want := g.View()
	got, err := v.View(g.State())
	if err != nil || got.Position != want.Position || got.Ply != want.Ply {
		return fmt.Errorf("View(State) differs: %v", err)
	}
	text, err := v.Export(g.State(), "yonin")
	if err != nil {
		return err
	}
	_, iv, err := v.Import("yonin", text)
	if err != nil || iv.Position != want.Position || iv.Ply != want.Ply || iv.Status != want.Status {
		return fmt.Errorf("Import(Export) differs: %v", err)
	}
	return nil
}

// speed measures Yonin perft in-process and through its plugin binary, and
// the shogi plugin's perft through its binary, in the same run. The machine
// may be shared, so each is run rounds times, alternating, and the best rate
// of each is kept; the rate per CPU second of the process is printed too.
func speed(out io.Writer, depth int, shogiBin string, shogiDepth int) error {
	const rounds = 5
	var inProc float64
	var nodes uint64
	for range rounds {
		t0 := time.Now()
		n, err := rules.Variant{}.Perft(context.Background(), "", depth)
		if err != nil {
			return err
		}
		nodes = n
		inProc = max(inProc, float64(n)/time.Since(t0).Seconds())
	}
	fmt.Fprintf(out, "yonin perft %d (start, in process, best of %d): nodes=%d nps=%.0f\n", depth, rounds, nodes, inProc)

	tmp, err := os.MkdirTemp("", "yonin-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	yBin := filepath.Join(tmp, "yonin")
	if b, err := exec.Command("go", "build", "-o", yBin, "github.com/banmen/banmen/plugins/yonin").CombinedOutput(); err != nil {
		return fmt.Errorf("yonin plugin not built: %s", strings.TrimSpace(string(b)))
	}
	if _, err := os.Stat(shogiBin); err != nil {
		if b, err := exec.Command("go", "build", "-o", shogiBin, "github.com/banmen/banmen/plugins/shogi").CombinedOutput(); err != nil {
			fmt.Fprintf(out, "shogi plugin not built: %s\n", strings.TrimSpace(string(b)))
			shogiBin = ""
		}
	}
	// The CPU rates leave out each binary's start-up, measured as the CPU
	// time of a depth-1 count.
	yBase, sBase := startupCPU(yBin), time.Duration(0)
	if shogiBin != "" {
		sBase = startupCPU(shogiBin)
	}
	var y, sh perftRate
	for range rounds {
		r, err := pluginPerft(yBin, depth, yBase)
		if err != nil {
			return fmt.Errorf("yonin plugin perft: %w", err)
		}
		y = y.best(r)
		if shogiBin == "" {
			continue
		}
		r, err = pluginPerft(shogiBin, shogiDepth, sBase)
		if err != nil {
			fmt.Fprintln(out, "shogi plugin not built:", err)
			shogiBin = ""
			continue
		}
		sh = sh.best(r)
	}
	fmt.Fprintf(out, "yonin perft %d (start, plugin binary, best of %d): nodes=%d nps=%.0f, per CPU second %.0f\n", depth, rounds, y.nodes, y.nps, y.cpuNPS)
	if shogiBin == "" {
		return nil
	}
	fmt.Fprintf(out, "shogi perft %d (start, plugin binary, best of %d): nodes=%d nps=%.0f, per CPU second %.0f\n", shogiDepth, rounds, sh.nodes, sh.nps, sh.cpuNPS)
	verdict := "meets"
	if y.nps < sh.nps/4 {
		verdict = "MISSES"
	}
	fmt.Fprintf(out, "yonin/shogi nodes/s: %.2f by the plugins' own nps (%s the target of 0.25), %.2f per CPU second\n",
		y.nps/sh.nps, verdict, y.cpuNPS/sh.cpuNPS)
	return nil
}

// perftRate is one perft run of a plugin binary: its count, the nodes/s it
// printed (wall clock) and the nodes per second of the process's CPU time.
type perftRate struct {
	nodes       uint64
	nps, cpuNPS float64
}

func (r perftRate) best(o perftRate) perftRate {
	return perftRate{nodes: o.nodes, nps: max(r.nps, o.nps), cpuNPS: max(r.cpuNPS, o.cpuNPS)}
}

// startupCPU is the least CPU time of a few depth-1 counts: what the process
// spends before and after counting.
func startupCPU(bin string) time.Duration {
	best := time.Duration(-1)
	for range 5 {
		cmd := exec.Command(bin, "perft", "-depth", "1")
		if cmd.Run() != nil {
			return 0
		}
		if cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(); best < 0 || cpu < best {
			best = cpu
		}
	}
	return max(best, 0)
}

// pluginPerft runs `<bin> perft -depth N` and reads its last line,
// "nodes=<n> nps=<n>"; the CPU rate leaves out the start-up CPU base.
func pluginPerft(bin string, depth int, base time.Duration) (perftRate, error) {
	var r perftRate
	cmd := exec.Command(bin, "perft", "-depth", strconv.Itoa(depth))
	b, err := cmd.Output()
	if err != nil {
		return r, fmt.Errorf("%s: %v", bin, err)
	}
	var last string
	sc := bufio.NewScanner(strings.NewReader(string(b)))
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			last = l
		}
	}
	for _, f := range strings.Fields(last) {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "nodes":
			r.nodes, err = strconv.ParseUint(v, 10, 64)
		case "nps":
			r.nps, err = strconv.ParseFloat(v, 64)
		}
		if err != nil {
			return r, fmt.Errorf("bad perft line %q", last)
		}
	}
	if r.nodes == 0 || r.nps == 0 {
		return r, fmt.Errorf("no nodes= nps= in %q", last)
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime() - base
	r.cpuNPS = float64(r.nodes) / max(cpu.Seconds(), 1e-3)
	return r, nil
}

package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/banmen/banmen/plugins/yonin/rules"
	"github.com/banmen/banmen/sdk"
)

// TestArena plays in-process matches between two configurations, a tuning
// aid like the match command but able to try settings no level has yet:
//
//	YONIN_ARENA='a=hard:nodes=200000 b=medium games=8 seed=1' go test -run Arena -v
//
// A player is a level with ":field=value" changes (depth, nodes, think in
// ms, noise, quiesce, safety, press, extend, brs=0/1). Player A takes one
// seat (rotating) and B the others; A scores 1, 2/3, 1/3, 0 for its place.
func TestArena(t *testing.T) {
	spec := os.Getenv("YONIN_ARENA")
	if spec == "" {
		t.Skip("a tuning aid: set YONIN_ARENA")
	}
	opts := map[string]string{"a": "hard", "b": "medium", "games": "8", "seed": "1", "parallel": "2", "from": "0"}
	for _, f := range strings.Fields(spec) {
		k, v, _ := strings.Cut(f, "=")
		opts[k] = v
	}
	a, b := arenaConfig(t, opts["a"]), arenaConfig(t, opts["b"])
	games, _ := strconv.Atoi(opts["games"])
	from, _ := strconv.Atoi(opts["from"])
	seed, _ := strconv.ParseUint(opts["seed"], 10, 64)
	par, _ := strconv.Atoi(opts["parallel"])
	scores := make([]float64, games)
	var wg sync.WaitGroup
	sem := make(chan struct{}, par)
	for i := range games {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			scores[i] = arenaGame(t, a, b, from+i, seed)
		}()
	}
	wg.Wait()
	total := 0.0
	for _, s := range scores {
		total += s
	}
	t.Logf("A=%s B=%s: %.2f of %d = %.0f%%", opts["a"], opts["b"], total, games, 100*total/float64(games))
}

func arenaConfig(t *testing.T, s string) config {
	parts := strings.Split(s, ":")
	cfg, ok := levels[sdk.Level(parts[0])]
	if !ok {
		t.Fatalf("no level %q", parts[0])
	}
	for _, p := range parts[1:] {
		k, v, _ := strings.Cut(p, "=")
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		switch k {
		case "depth":
			cfg.depth = n
		case "nodes":
			cfg.nodes = int64(n)
		case "think":
			cfg.think = time.Duration(n) * time.Millisecond
		case "noise":
			cfg.noise = n
		case "quiesce":
			cfg.quiesce = n
		case "safety":
			cfg.safety = n
		case "press":
			cfg.press = n
		case "extend":
			cfg.extend = n
		case "brs":
			cfg.brs = n != 0
		case "strict":
			cfg.strict = n != 0
		default:
			t.Fatalf("no field %q", k)
		}
	}
	return cfg
}

// arenaGame plays game i and returns A's score.
func arenaGame(t *testing.T, a, b config, i int, seed uint64) float64 {
	g, err := rules.NewGame(nil)
	if err != nil {
		t.Error(err)
		return 0
	}
	aSeat := sdk.Seat(i % 4)
	rng := rand.New(rand.NewPCG(seed, uint64(i/4)))
	t0 := time.Now()
	var aTime time.Duration
	aMoves := 0
	for ply := 0; ply < 400; ply++ {
		seat := g.ToMove()
		if seat == sdk.NoSeat {
			break
		}
		var m sdk.Move
		if ply < 2 {
			legal := g.Legal()
			m = legal[rng.IntN(len(legal))]
		} else {
			cfg := b
			if seat == aSeat {
				cfg = a
			}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			p := g.Position()
			t1 := time.Now()
			m = rules.MoveText(p.Turn(), Choose(ctx, g, cfg))
			if seat == aSeat {
				aTime += time.Since(t1)
				aMoves++
			}
			cancel()
		}
		if err := g.Play(seat, m); err != nil {
			t.Errorf("game %d: %s: %v", i, m, err)
			return 0
		}
	}
	r := g.Result()
	score, line := 0.5, "draw (move cap)"
	if r != nil {
		p := r.Places[aSeat]
		score = float64(4-p) / 3
		line = fmt.Sprintf("A placed %d (%s)", p, r.Reason)
	}
	pos := g.Position()
	for k := range pos.Mates() {
		mated, mater := pos.Mated(k)
		who := func(s int) string {
			if s == int(aSeat) {
				return "A"
			}
			if s < 0 {
				return "-"
			}
			return "B"
		}
		line += fmt.Sprintf(" %s>%s", who(mater), who(mated))
	}
	avg := time.Duration(0)
	if aMoves > 0 {
		avg = aTime / time.Duration(aMoves)
	}
	t.Logf("game %2d A at %d: %s, %d plies, A %v a move, %v", i+1, aSeat, line, g.Ply(), avg.Round(time.Millisecond), time.Since(t0).Round(time.Second))
	return score
}

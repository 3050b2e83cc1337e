package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/banmen/banmen/platform/client"
	"github.com/banmen/banmen/platform/hosttest"
	"github.com/banmen/banmen/sdk"
)

type gameOpts struct {
	base, bin, variant, level *string
	seed                      *uint64
	strong, maxPly            *int
	think                     *time.Duration
}

func gameFlags(getenv func(string) string) (*flag.FlagSet, gameOpts) {
	fs := flag.NewFlagSet("harness game", flag.ContinueOnError)
	var o gameOpts
	o.base = fs.String("base", "", "the site; empty starts a host")
	o.bin = fs.String("bin", getenv("BANMEN_BIN"), "the built host and plugins, for a host the harness starts")
	o.variant = fs.String("variant", "", "the variant")
	o.seed = fs.Uint64("seed", 1, "the random seed of the other seats")
	o.strong = fs.Int("strong", 0, "the seat the computer plays")
	o.level = fs.String("level", "hard", "the computer's level")
	o.think = fs.Duration("think", 300*time.Millisecond, "the computer's time per move")
	o.maxPly = fs.Int("max", 300, "give up after this many plies")
	return fs, o
}

// game writes the moves of a whole game for a new scenario: one seat is the
// site's computer player, the others pick legal moves at random (seeded), so
// the game ends soon and differs by seed. Every move comes from the site, so
// the command knows no rule either.
func game(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs, o := gameFlags(getenv)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return err
	}
	base, bin, variant, seed, strong, level, think, maxPly := o.base, o.bin, o.variant, o.seed, o.strong, o.level, o.think, o.maxPly
	if *variant == "" {
		return errors.New("game: say -variant")
	}
	if *base == "" {
		h, err := hosttest.Start(ctx, *bin)
		if err != nil {
			return err
		}
		defer h.Stop()
		*base = h.URL
	}
	c := client.New(*base, nil)
	rng := rand.New(rand.NewPCG(*seed, *seed^0x9e3779b97f4a7c15))
	g, err := c.Start(ctx, *variant, nil)
	if err != nil {
		return err
	}
	var moves []played
	for g.View.Status == sdk.Playing && len(moves) < *maxPly {
		seat := g.View.ToMove[0]
		var m sdk.Move
		if int(seat) == *strong {
			if m, err = c.Suggest(ctx, *variant, g.State, seat, sdk.Level(*level), *think); err != nil {
				return err
			}
		} else {
			var cands []sdk.Move
			for _, l := range g.View.Legal {
				if l.Kind != sdk.Action && l.Seat == seat && l.Move != sdk.Resign {
					cands = append(cands, l.Move)
				}
			}
			if len(cands) == 0 {
				return fmt.Errorf("seat %d has no move at ply %d", seat, g.View.Ply)
			}
			m = cands[rng.IntN(len(cands))]
		}
		mark := markOf(g.View.Legal, m)
		if g, err = c.Play(ctx, *variant, g.State, seat, m); err != nil {
			return fmt.Errorf("play %s: %w", m, err)
		}
		moves = append(moves, played{move: string(m), mark: mark})
	}
	fmt.Fprintf(stdout, "# %s, seed %d, seat %d played by the computer (%s): %d plies, %s\n",
		*variant, *seed, *strong, *level, len(moves), g.View.Status)
	if r := g.View.Result; r != nil {
		fmt.Fprintf(stdout, "# result: winners %v, %s\n", r.Winners, r.Reason)
	}
	fmt.Fprintf(stdout, "# position: %s\n", g.View.Position)
	writeMoves(stdout, moves)
	return nil
}

// played is a move of the generated game and what is worth knowing about
// it when writing a scenario.
type played struct {
	move string
	mark string // "" or "drop", "promotes (optional)", ...
}

// markOf says whether m is a drop from the hand or a promotion the player
// chose (the other choice was legal too, so the page asks in its dialog);
// the move-list text the page shows follows.
func markOf(legal []sdk.LegalMove, m sdk.Move) string {
	var l *sdk.LegalMove
	for i := range legal {
		if legal[i].Move == m {
			l = &legal[i]
			break
		}
	}
	if l == nil {
		return ""
	}
	var what string
	switch {
	case l.Kind == sdk.DropMove:
		what = "drop of " + l.Drop
	case l.Kind == sdk.BoardMove:
		for _, o := range legal {
			if o.Kind == sdk.BoardMove && o.From == l.From && o.To == l.To && o.Seat == l.Seat && o.Promote != l.Promote {
				what = "declines the promotion (optional: the dialog asks)"
				if l.Promote {
					what = "promotes (optional: the dialog asks)"
				}
				break
			}
		}
	}
	if what == "" {
		return ""
	}
	return fmt.Sprintf("%s, shown %q", what, l.Text)
}

// writeMoves prints the moves as scenario steps, twelve a line, each line
// followed by a comment naming its drops and optional promotions.
func writeMoves(w io.Writer, moves []played) {
	for i := 0; i < len(moves); i += 12 {
		line := moves[i:min(i+12, len(moves))]
		names := make([]string, len(line))
		var marks []string
		for j, p := range line {
			names[j] = p.move
			if p.mark != "" {
				marks = append(marks, fmt.Sprintf("ply %d %s: %s", i+j+1, p.move, p.mark))
			}
		}
		fmt.Fprintf(w, "  - moves: [%s]\n", strings.Join(names, ", "))
		if len(marks) > 0 {
			fmt.Fprintf(w, "    # %s\n", strings.Join(marks, "; "))
		}
	}
}

package server

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/banmen/banmen/platform/client"
	"github.com/banmen/banmen/platform/internal/config"
	"github.com/banmen/banmen/platform/internal/pluginhost"
	"github.com/banmen/banmen/platform/internal/room"
	"github.com/banmen/banmen/platform/internal/store/sqlite"
	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/host"
)

// Yonin rooms over real sockets: the real Yonin plugin process (built once
// for these tests), a real SQLite store, and a fake clock for the away
// grace and the time per move, which the tests move by hand before asking
// the rooms to look at their clocks (Manager.Tick).

var yoninBuild struct {
	once sync.Once
	dir  string
	err  error
}

func yoninPluginDir(t *testing.T) string {
	t.Helper()
	yoninBuild.once.Do(func() {
		yoninBuild.dir, yoninBuild.err = os.MkdirTemp("", "banmen-yonin-plugin")
		if yoninBuild.err != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", filepath.Join(yoninBuild.dir, "yonin"), "github.com/banmen/banmen/plugins/yonin").CombinedOutput()
		if err != nil {
			yoninBuild.err = fmt.Errorf("build the yonin plugin: %v\n%s", err, out)
		}
	})
	if yoninBuild.err != nil {
		t.Fatal(yoninBuild.err)
	}
	return yoninBuild.dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if yoninBuild.dir != "" {
		os.RemoveAll(yoninBuild.dir)
	}
	if gameBuild.dir != "" { // analyse_test.go's
		os.RemoveAll(gameBuild.dir)
	}
	os.Exit(code)
}

const awayGrace = 10 * time.Second

type yoninSite struct {
	t     *testing.T
	clock *fakeClock
	url   string
	rooms *room.Manager
	games *pluginhost.Host
}

func newYoninSite(t *testing.T) *yoninSite {
	t.Helper()
	games, err := pluginhost.Start(context.Background(), pluginhost.Config{Dir: yoninPluginDir(t)})
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "rooms.db"))
	if err != nil {
		t.Fatal(err)
	}
	s := &yoninSite{t: t, clock: &fakeClock{t: time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)}, games: games}
	// Presence as it happens (no coalescing): these tests read a seat's
	// connection from the last presence before they move the clock.
	s.rooms = room.New(room.Config{Store: st, Rules: pluginhost.RoomRules(games), Now: s.clock.Now, AwayGrace: awayGrace, PresenceEvery: -1})
	cfg := config.Default()
	cfg.Limits.SocketBurst, cfg.Limits.SocketRate = 100, 100
	app := New(Deps{Games: games, Config: cfg, Rooms: s.rooms})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.url = "http://" + ln.Addr().String()
	served := make(chan struct{})
	go func() { app.Listener(ln); close(served) }()
	t.Cleanup(func() {
		app.ShutdownWithTimeout(5 * time.Second)
		<-served
		s.rooms.Close()
		st.Close()
		games.Close()
	})
	return s
}

// yoninRoom is a room of humans (by seat) and the computer in the others.
type yoninRoom struct {
	s      *yoninSite
	id     string
	humans map[sdk.Seat]*client.Player
	host   *client.Player
	// computerMoves counts the moves the host saw made by the computer,
	// by seat.
	computerMoves map[sdk.Seat]int
}

// openYonin creates a room with opts, seats n humans (host first, guests
// clockwise as they open the link) and, with fewer than four, starts it.
func (s *yoninSite) openYonin(n int, opts sdk.Options) *yoninRoom {
	t := s.t
	t.Helper()
	c := client.New(s.url, nil)
	cr, err := c.CreateRoom(ctxT(t), "yonin", opts)
	if err != nil {
		t.Fatal(err)
	}
	g := &yoninRoom{s: s, id: cr.Room, humans: map[sdk.Seat]*client.Player{}, computerMoves: map[sdk.Seat]int{}}
	g.host = c.Player(cr.Room, cr.SeatKey)
	connect(t, g.host)
	g.humans[0] = g.host
	for i := 1; i < n; i++ {
		p := c.Player(cr.Room, "")
		connect(t, p)
		if p.Seat != sdk.Seat(i) {
			t.Fatalf("guest %d took seat %d, want the next free seat clockwise %d", i, p.Seat, i)
		}
		g.humans[p.Seat] = p
		catchUp(t, g.host, p.Version)
	}
	for _, p := range g.humans {
		catchUp(t, p, g.host.Version)
	}
	if n < 4 {
		refusedWith(t, g.host, "move", "x", "waiting")
		if len(g.humans) > 1 {
			refusedWith(t, g.humans[1], "start", "", "not_host")
		}
		do(t, g.host, "start", "")
	}
	return g
}

// watch reads the host's events until ok holds, counting computer moves.
func (g *yoninRoom) watch(what string, ok func() bool) {
	t := g.s.t
	t.Helper()
	for !ok() {
		ev, err := g.host.Next(ctxT(t))
		if err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		if ev.Type == "move" && ev.Computer {
			g.computerMoves[*ev.Seat]++
		}
	}
}

// toMove is the seat to move as the host last saw it, or -1 at the end.
func (g *yoninRoom) toMove() sdk.Seat {
	v := g.host.View
	if v.Status != sdk.Playing || len(v.ToMove) == 0 {
		return -1
	}
	return v.ToMove[0]
}

// humanTurn waits until a connected human is to move (the computer moving
// for the others meanwhile) or the game ends; at version want or later.
func (g *yoninRoom) humanTurn(want int64) sdk.Seat {
	g.watch("a human's turn", func() bool {
		if g.host.Version < want {
			return false
		}
		seat := g.toMove()
		if seat < 0 {
			return true
		}
		p, ok := g.humans[seat]
		return ok && p.Conn() != nil && !g.host.Presence.Seats[seat].Computer
	})
	return g.toMove()
}

// catchUp reads p's events until it is at version v.
func catchUp(t *testing.T, p *client.Player, v int64) {
	t.Helper()
	if p.Version < v {
		until(t, p, fmt.Sprintf("version %d", v), func(client.RoomEvent) bool { return p.Version >= v })
	}
}

// humanMove makes the move of the human to move (a fixed pick among its
// legal moves) and returns the version after it.
func (g *yoninRoom) humanMove(seat sdk.Seat, pick int) int64 {
	t := g.s.t
	t.Helper()
	p := g.humans[seat]
	catchUp(t, p, g.host.Version)
	if p.View.Status != sdk.Playing || len(p.View.ToMove) == 0 || p.View.ToMove[0] != seat {
		t.Fatalf("seat %d at version %d sees %v to move (host at %d)", seat, p.Version, p.View.ToMove, g.host.Version)
	}
	legal := p.View.Legal
	if len(legal) == 0 {
		t.Fatalf("seat %d to move has no legal moves in its view", seat)
	}
	do(t, p, "move", legal[pick%len(legal)].Move)
	return p.Version
}

// play runs plies until n human moves were made or the game ends.
func (g *yoninRoom) play(n int) (human map[sdk.Seat]int) {
	human = map[sdk.Seat]int{}
	want := g.host.Version
	for i := 0; i < n; i++ {
		seat := g.humanTurn(want)
		if seat < 0 {
			break
		}
		want = g.humanMove(seat, i*7+3)
		human[seat]++
	}
	return human
}

func yoninOpts(kv ...string) sdk.Options {
	o := sdk.Options{sdk.SettingLevel: string(sdk.Easy)}
	for i := 0; i+1 < len(kv); i += 2 {
		o[kv[i]] = kv[i+1]
	}
	return o
}

// Two, three and four humans, the computer in the other seats: every seat
// moves, the computer's moves only in the seats nobody took.
func TestYoninRoomHumansAndComputerSeats(t *testing.T) {
	s := newYoninSite(t)
	for _, n := range []int{2, 3, 4} {
		t.Run(fmt.Sprint(n, " humans"), func(t *testing.T) {
			s.t = t
			g := s.openYonin(n, yoninOpts())
			if n < 4 {
				g.watch("start", func() bool { return g.host.Presence.Started })
				for seat := n; seat < 4; seat++ {
					if !g.host.Presence.Seats[seat].Computer || g.host.Presence.Seats[seat].Taken {
						t.Errorf("seat %d after the start: %+v, want played by the computer", seat, g.host.Presence.Seats[seat])
					}
				}
			}
			human := g.play(3 * n)
			for seat := range 4 {
				isHuman := seat < n
				if isHuman && human[sdk.Seat(seat)] == 0 || isHuman && g.computerMoves[sdk.Seat(seat)] != 0 {
					t.Errorf("human seat %d: %d moves of its own, %d by the computer", seat, human[sdk.Seat(seat)], g.computerMoves[sdk.Seat(seat)])
				}
				if !isHuman && g.computerMoves[sdk.Seat(seat)] == 0 && g.toMove() >= 0 {
					t.Errorf("computer seat %d never moved", seat)
				}
			}
		})
	}
}

// A player who leaves is played by the computer once the grace period is
// over (not before); coming back, they take their seat again at its next
// turn and play on.
func TestYoninRoomAwayPlayerAndReturn(t *testing.T) {
	s := newYoninSite(t)
	g := s.openYonin(2, yoninOpts())
	guest := g.humans[1]
	want := g.humanMove(g.humanTurn(0), 0) // the host's first move
	if seat := g.humanTurn(want); seat != 1 {
		t.Fatalf("seat %d to move, want the guest's seat 1", seat)
	}
	v := g.host.Version
	guest.Close()
	g.watch("the guest away", func() bool { return !g.host.Presence.Seats[1].Connected })
	s.clock.Add(awayGrace - time.Second)
	s.rooms.Tick()
	r, err := s.rooms.Open(ctxT(t), g.id)
	if err != nil {
		t.Fatal(err)
	}
	if r.Thinking() {
		t.Fatal("the computer thinks for an away player before the grace period is over")
	}
	s.clock.Add(time.Second)
	s.rooms.Tick()
	g.watch("the computer's move for the away guest", func() bool { return g.computerMoves[1] == 1 && g.host.Presence.Seats[1].Computer })
	if !g.host.Presence.Seats[1].Computer || g.host.Version != v+1 {
		t.Errorf("after the grace: presence %+v, version %d (want %d)", g.host.Presence.Seats[1], g.host.Version, v+1)
	}
	// The computer seats and the host go on; the guest's next turn is the
	// computer's again at once (still away).
	want = g.humanMove(g.humanTurn(0), 1)
	g.watch("the guest's second turn played by the computer", func() bool { return g.computerMoves[1] == 2 })
	// Back: the guest plays its next turn itself.
	connect(t, guest)
	if guest.Seat != 1 {
		t.Fatalf("the guest came back to seat %d", guest.Seat)
	}
	g.watch("the guest back", func() bool { return g.host.Presence.Seats[1].Connected && !g.host.Presence.Seats[1].Computer })
	want = g.humanMove(g.humanTurn(want), 2)
	if seat := g.humanTurn(want); seat != 1 {
		t.Fatalf("seat %d to move, want the returned guest", seat)
	}
	g.humanMove(1, 3)
	if g.computerMoves[1] != 2 {
		t.Errorf("the computer made %d moves for the guest, want 2 (while it was away)", g.computerMoves[1])
	}
}

// Time per move 30 s on the fake clock: at 29 s nothing happens, at 30 s
// the computer moves for the seat (which stays the player's); the same for
// a check priority answer out of the clockwise order.
func TestYoninRoomTimePerMove(t *testing.T) {
	s := newYoninSite(t)
	line := checkPriorityLine(t, s.games)
	g := s.openYonin(4, yoninOpts(sdk.SettingMoveTime, "30"))
	if g.host.Clock == nil || g.host.Clock.Seat != 0 || g.host.Clock.Limit != 30000 || g.host.Clock.Remaining != 30000 {
		t.Fatalf("the first turn's clock: %+v", g.host.Clock)
	}
	expire := func(seat sdk.Seat) {
		t.Helper()
		v := g.host.Version
		s.clock.Add(29 * time.Second)
		s.rooms.Tick()
		r, err := s.rooms.Open(ctxT(t), g.id)
		if err != nil {
			t.Fatal(err)
		}
		if r.Thinking() {
			t.Fatalf("the computer thinks for seat %d with a second left", seat)
		}
		s.clock.Add(time.Second)
		s.rooms.Tick()
		before := g.computerMoves[seat]
		g.watch("the computer's move at the time limit", func() bool { return g.computerMoves[seat] == before+1 })
		if g.host.Version != v+1 {
			t.Fatalf("version %d after the time limit, want %d", g.host.Version, v+1)
		}
		if g.host.Presence.Seats[seat].Computer {
			t.Errorf("seat %d passed to the computer; it stays the player's", seat)
		}
	}
	expire(0)
	// Play the line up to the check priority answer (skipping its first
	// move: the computer made one for seat 0 already, so replay from a new
	// round of the same seats instead).
	for _, p := range g.humans {
		catchUp(t, p, g.host.Version)
	}
	// Every human consents to a new round: the first seat rotates to 1,
	// so start the line from there; the line is searched from first seat 1.
	do(t, g.host, "newRound", "")
	v := g.host.Version
	for seat := sdk.Seat(1); seat < 4; seat++ {
		p := g.humans[seat]
		catchUp(t, p, v)
		do(t, p, "accept", "")
		v = p.Version
	}
	g.watch("round 2", func() bool { return g.host.Round == 2 })
	if g.toMove() != 1 {
		t.Fatalf("round 2 starts with seat %d, want 1 (rotation)", g.toMove())
	}
	for _, m := range line[:len(line)-1] {
		p := g.humans[m.Seat]
		catchUp(t, p, g.host.Version)
		do(t, p, "move", m.Move)
		g.watch("the move", func() bool { return g.host.Version >= p.Version })
	}
	answer := line[len(line)-1].Seat
	if g.toMove() != answer || !slices.Contains(g.host.View.InCheck, answer) {
		t.Fatalf("to move %d in check %v, want seat %d answering a check", g.toMove(), g.host.View.InCheck, answer)
	}
	if c := g.host.Clock; c == nil || c.Seat != answer || c.Remaining != 30000 {
		t.Errorf("the check answer's clock: %+v", c)
	}
	expire(answer)
}

// checkPriorityLine finds, from the start with seat 1 first, a short line
// of moves after which the seat to move answers a check out of the
// clockwise order; the last entry names that seat (its move is empty).
func checkPriorityLine(t *testing.T, games *pluginhost.Host) []sdk.PlayedMove {
	t.Helper()
	ctx := ctxT(t)
	var line []sdk.PlayedMove
	err := games.Call(ctx, "yonin", "search", func(ctx context.Context, c *host.Conn) error {
		for try := range 400 {
			st, v, err := c.Start(ctx, host.StartRequest{Variant: "yonin", Options: sdk.Options{sdk.SettingFirstSeat: "1"}})
			if err != nil {
				return err
			}
			line = line[:0]
			for ply := 0; ply < 24 && v.Status == sdk.Playing; ply++ {
				seat := v.ToMove[0]
				m := v.Legal[(try*31+ply*17+try*ply)%len(v.Legal)].Move
				st, v, err = c.Play(ctx, host.PlayRequest{Variant: "yonin", State: st, Seat: seat, Move: m})
				if err != nil {
					return err
				}
				line = append(line, sdk.PlayedMove{Seat: seat, Move: m})
				if v.Status == sdk.Playing && len(v.Eliminated) == 0 && v.ToMove[0] != (seat+1)%4 && slices.Contains(v.InCheck, v.ToMove[0]) {
					line = append(line, sdk.PlayedMove{Seat: v.ToMove[0]})
					return nil
				}
			}
		}
		return fmt.Errorf("no check priority line found")
	})
	if err != nil {
		t.Fatal(err)
	}
	return line
}

// New round: one human declining changes nothing; when every human
// consents (the computer's seat by itself) the next round starts with the
// next seat clockwise.
func TestYoninRoomNewRoundConsentAndRotation(t *testing.T) {
	s := newYoninSite(t)
	g := s.openYonin(3, yoninOpts("move_limit", "4"))
	g.play(10)
	if g.host.View.Status != sdk.Over || g.host.View.Result == nil || len(g.host.View.Result.Places) != 4 {
		t.Fatalf("at the move limit: status %s result %+v, want over with places", g.host.View.Status, g.host.View.Result)
	}
	for _, p := range g.humans {
		catchUp(t, p, g.host.Version)
	}
	do(t, g.host, "newRound", "")
	until(t, g.humans[1], "request", typ("request"))
	until(t, g.humans[2], "request", typ("request"))
	do(t, g.humans[1], "accept", "")
	catchUp(t, g.humans[2], g.humans[1].Version)
	do(t, g.humans[2], "decline", "")
	g.watch("the decline", func() bool { return g.host.Version >= g.humans[2].Version })
	if g.host.Round != 1 || g.host.View.Status != sdk.Over || g.host.NewRound != nil {
		t.Fatalf("after a decline: round %d, status %s, pending %+v", g.host.Round, g.host.View.Status, g.host.NewRound)
	}
	do(t, g.humans[2], "newRound", "")
	catchUp(t, g.humans[1], g.humans[2].Version)
	do(t, g.humans[1], "accept", "")
	catchUp(t, g.host, g.humans[1].Version)
	do(t, g.host, "accept", "")
	if g.host.Round != 2 || g.host.View.Status != sdk.Playing || g.toMove() != 1 {
		t.Fatalf("round %d status %s to move %d: want round 2 started by seat 1", g.host.Round, g.host.View.Status, g.toMove())
	}
	// The seats stay: seat 3 is still the computer's.
	if !g.host.Presence.Seats[3].Computer {
		t.Errorf("seat 3 after the new round: %+v", g.host.Presence.Seats[3])
	}
}

// The pairs format and ownerless pieces reach the game through a room.
func TestYoninRoomPairsAndOwnerless(t *testing.T) {
	s := newYoninSite(t)
	g := s.openYonin(2, yoninOpts("format", "pairs", "mated_pieces", "ownerless"))
	details := map[string]string{}
	for _, kv := range g.humans[1].View.Details {
		details[kv.Key] = kv.Value
	}
	if details["format"] != "pairs" || details["mated_pieces"] != "ownerless" {
		t.Fatalf("a guest's view details %v", details)
	}
	g.play(4)
	for _, kv := range g.host.View.Details {
		details[kv.Key] = kv.Value
	}
	if details["format"] != "pairs" || details["mated_pieces"] != "ownerless" || g.host.View.Ply < 4 {
		t.Fatalf("after play: ply %d details %v", g.host.View.Ply, details)
	}
}

// A latecomer takes a free seat from the computer after the start, and
// plays it from its next turn.
func TestYoninRoomLatecomerTakesComputerSeat(t *testing.T) {
	s := newYoninSite(t)
	g := s.openYonin(2, yoninOpts())
	want := g.humanMove(g.humanTurn(0), 0)
	want = g.humanMove(g.humanTurn(want), 1)
	late := client.New(s.url, nil).Player(g.id, "")
	connect(t, late)
	if late.Seat != 2 || late.SeatKey == "" {
		t.Fatalf("the latecomer took seat %d, want the first free seat 2", late.Seat)
	}
	g.humans[2] = late
	g.watch("seat 2 taken", func() bool { return g.host.Presence.Seats[2].Taken && !g.host.Presence.Seats[2].Computer })
	before := g.computerMoves[2]
	for {
		seat := g.humanTurn(want)
		if seat == 2 {
			break
		}
		want = g.humanMove(seat, 2)
	}
	g.humanMove(2, 0)
	if g.computerMoves[2] > before+1 {
		t.Errorf("the computer moved %d times for seat 2 after it was taken", g.computerMoves[2]-before)
	}
}

// New round with a player away past the grace: their seat, played by the
// computer, consents by itself, so the two humans here start the round;
// and a request whose last missing consent is an away player's starts the
// round when that player's grace runs out.
func TestYoninRoomNewRoundAwayConsents(t *testing.T) {
	s := newYoninSite(t)
	g := s.openYonin(3, yoninOpts("move_limit", "4"))
	g.play(10)
	if g.host.View.Status != sdk.Over {
		t.Fatalf("at the move limit: status %s", g.host.View.Status)
	}
	away := g.humans[2]
	away.Close()
	g.watch("seat 2 away", func() bool { return !g.host.Presence.Seats[2].Connected })
	s.clock.Add(awayGrace)
	s.rooms.Tick()
	g.watch("seat 2 played by the computer", func() bool { return g.host.Presence.Seats[2].Computer })
	catchUp(t, g.humans[1], g.host.Version)
	do(t, g.host, "newRound", "")
	catchUp(t, g.humans[1], g.host.Version)
	do(t, g.humans[1], "accept", "")
	catchUp(t, g.host, g.humans[1].Version)
	if g.host.Round != 2 || g.host.View.Status != sdk.Playing || g.host.NewRound != nil {
		t.Fatalf("two consents and an away seat: round %d, status %s, pending %+v", g.host.Round, g.host.View.Status, g.host.NewRound)
	}

	// Round 2 to its end; the away player comes back, then leaves again
	// after the request and the host's consent.
	connect(t, away)
	g.watch("seat 2 back", func() bool { return g.host.Presence.Seats[2].Connected && !g.host.Presence.Seats[2].Computer })
	g.play(10)
	if g.host.View.Status != sdk.Over {
		t.Fatalf("round 2 at the move limit: status %s", g.host.View.Status)
	}
	catchUp(t, g.humans[1], g.host.Version)
	do(t, g.humans[1], "newRound", "")
	catchUp(t, g.host, g.humans[1].Version)
	do(t, g.host, "accept", "")
	catchUp(t, away, g.host.Version)
	away.Close()
	g.watch("seat 2 away again", func() bool { return !g.host.Presence.Seats[2].Connected })
	s.clock.Add(awayGrace - time.Second)
	s.rooms.Tick()
	if g.host.Round != 2 || g.host.NewRound == nil {
		t.Fatalf("before the grace ran out: round %d, pending %+v", g.host.Round, g.host.NewRound)
	}
	s.clock.Add(time.Second)
	s.rooms.Tick()
	g.watch("round 3 by the away seat's consent", func() bool { return g.host.Round == 3 })
	if g.host.View.Status != sdk.Playing || g.host.NewRound != nil {
		t.Fatalf("round 3: status %s, pending %+v", g.host.View.Status, g.host.NewRound)
	}
}

// A visitor of a Yonin room sees the settings and who holds each seat
// before taking one: a hello with "watch" watches although a seat is free;
// the visitor then takes the next free seat clockwise by saying hello
// without it. Nothing is claimed while they look.
func TestYoninRoomVisitorWatchesBeforeTakingASeat(t *testing.T) {
	s := newYoninSite(t)
	c := client.New(s.url, nil)
	cr, err := c.CreateRoom(ctxT(t), "yonin", yoninOpts("host.move_time", "30", "format", "pairs"))
	if err != nil {
		t.Fatal(err)
	}
	host := c.Player(cr.Room, cr.SeatKey)
	connect(t, host)
	visitor := c.Player(cr.Room, "")
	if err := visitor.Watch(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if visitor.Seat != -1 || visitor.SeatKey != "" {
		t.Fatalf("a watching visitor holds seat %d (key %q)", visitor.Seat, visitor.SeatKey)
	}
	if visitor.Settings["host.move_time"] != "30" || visitor.Settings["format"] != "pairs" {
		t.Errorf("the visitor sees the settings %v", visitor.Settings)
	}
	seats := visitor.Presence.Seats
	if len(seats) != 4 || !seats[0].Taken || !seats[0].Connected || seats[1].Taken || visitor.Presence.Spectators != 1 {
		t.Fatalf("the visitor sees the seats %+v (spectators %d)", seats, visitor.Presence.Spectators)
	}
	v := visitor.Version
	refusedWith(t, visitor, "move", "x", "spectator")
	if err := visitor.Connect(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if visitor.Seat != 1 || visitor.SeatKey == "" || visitor.Version != v+1 {
		t.Fatalf("taking the seat: seat %d key %q version %d (was %d)", visitor.Seat, visitor.SeatKey, visitor.Version, v)
	}
	// A second look with watch, then a hello with the key: the seat is kept.
	if err := visitor.Watch(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if visitor.Seat != -1 {
		t.Fatalf("watching again: seat %d", visitor.Seat)
	}
	if err := visitor.Connect(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if visitor.Seat != 1 {
		t.Fatalf("back with the key: seat %d", visitor.Seat)
	}
}

// A room created through the API for two people (host.human_seats 2) is
// applied by the server, not only by the room's page: it waits for the
// second person, starts by itself once they are seated (no "start"), the
// computer plays the two other seats, and a third visitor watches instead
// of taking a computer seat.
func TestYoninRoomHumanSeatsAppliedByTheServer(t *testing.T) {
	s := newYoninSite(t)
	c := client.New(s.url, nil)
	cr, err := c.CreateRoom(ctxT(t), "yonin", yoninOpts(sdk.SettingHumanSeats, "2"))
	if err != nil {
		t.Fatal(err)
	}
	g := &yoninRoom{s: s, id: cr.Room, humans: map[sdk.Seat]*client.Player{}, computerMoves: map[sdk.Seat]int{}}
	g.host = c.Player(cr.Room, cr.SeatKey)
	connect(t, g.host)
	g.humans[0] = g.host
	if g.host.Presence.Started {
		t.Fatal("a room for two started with one person seated")
	}
	refusedWith(t, g.host, "move", "x", "waiting")
	guest := c.Player(cr.Room, "")
	connect(t, guest)
	if guest.Seat != 1 {
		t.Fatalf("the guest took seat %d, want 1", guest.Seat)
	}
	g.humans[1] = guest
	g.watch("the start", func() bool { return g.host.Presence.Started && g.host.Presence.Seats[1].Taken })
	for seat := 2; seat < 4; seat++ {
		if p := g.host.Presence.Seats[seat]; p.Taken || !p.Computer {
			t.Errorf("seat %d once both people are seated: %+v, want played by the computer", seat, p)
		}
	}
	refusedWith(t, g.host, "start", "", "started")
	third := c.Player(cr.Room, "")
	connect(t, third)
	if third.Seat != -1 || third.SeatKey != "" {
		t.Fatalf("a third visitor of a room for two took seat %d, want to watch", third.Seat)
	}
	third.Close()
	human := g.play(4)
	if human[0] == 0 || human[1] == 0 || g.computerMoves[2] == 0 {
		t.Errorf("moves: people %v, computer %v; want both people and the computer's seats to move", human, g.computerMoves)
	}
}

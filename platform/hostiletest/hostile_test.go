// Package hostiletest runs a real host (bin/banmen with its plugins) under
// hostile traffic on loopback: two rooms play shogi while floods run from
// one address and from many (127.0.0.0/8, each dialled from its own source
// address), and checks that the rooms never notice: every move
// acknowledged, no plugin restarted, no room action answered
// "unavailable", and the flooders refused with 429 or 503. Bounded in
// count and time; no assertion on timing.
package hostiletest

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/banmen/banmen/configs"
	"github.com/banmen/banmen/platform/client"
	"github.com/banmen/banmen/platform/faulttest"
	"github.com/banmen/banmen/platform/hosttest"
	"github.com/banmen/banmen/sdk"
)

// roomPlies is how many plies each room plays while the floods run.
const roomPlies = 30

// maxPlies bounds a room's game while the floods run.
const maxPlies = 400

// binDir is BANMEN_BIN (after `make build`), else a fresh build.
func binDir(t *testing.T) string {
	if b := os.Getenv("BANMEN_BIN"); b != "" {
		return b
	}
	dir := filepath.Join(t.TempDir(), "bin")
	if err := hosttest.Build(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// from dials from source address ip: an HTTP client and a socket dialler.
func from(ip string) (*http.Client, func(network, addr string) (net.Conn, error)) {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 10 * time.Second}
	return &http.Client{Timeout: time.Minute, Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 4}}, d.Dial
}

// kingsWalk is a sfen+usi record of two bare kings walking cycles of 36
// and 35 cells over their four ranks, plies long: the import that cost a
// quarter of a second of plugin CPU before records had a cap and
// repetition was counted per position.
func kingsWalk(plies int) string {
	cycle := func(first byte, short bool) []string {
		cell := func(file, rank int) string { return fmt.Sprintf("%d%c", file, first+byte(rank)) }
		cells := []string{cell(9, 0)}
		for r := 0; r < 4; r++ {
			for i := 0; i < 8; i++ {
				f := 8 - i
				if r%2 == 1 {
					f = 1 + i
				}
				cells = append(cells, cell(f, r))
			}
		}
		if !short {
			cells = append(cells, cell(9, 3))
		}
		return append(cells, cell(9, 2), cell(9, 1))
	}
	s, g := cycle('f', false), cycle('a', true)
	var b strings.Builder
	b.WriteString("sfen k8/9/9/9/9/K8/9/9/9 b - 1 moves")
	for i := 0; i < plies; i++ {
		c, k := s, i/2
		if i%2 == 1 {
			c = g
		}
		b.WriteString(" " + c[k%len(c)] + c[(k+1)%len(c)])
	}
	return b.String()
}

// tally counts the answers each kind of flood got.
type tally struct {
	mu sync.Mutex
	m  map[string]map[int]int
}

func (t *tally) add(kind string, status int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m[kind] == nil {
		t.m[kind] = map[int]int{}
	}
	t.m[kind][status]++
}

func (t *tally) refused(kind string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.m[kind][429] + t.m[kind][503]
}

func TestHostileTraffic(t *testing.T) {
	bin := binDir(t)
	logs := filepath.Join(t.TempDir(), "host.log")
	// The site's own limits (configs/default.yaml's), but for a free
	// operations port and the rooms' socket credits and action rate: the
	// two rooms' players are the test's clock and move as fast as their
	// acks come (a person makes no 3 moves a second); the floods send no
	// room action.
	h, err := faulttest.Start(context.Background(), faulttest.Options{Bin: bin, Data: t.TempDir(), Logs: logs,
		Args: []string{"-config", writeDefault(t), "-ops_addr", "127.0.0.1:0",
			"-limits.action_burst", "1000", "-limits.action_rate", "1000",
			"-limits.socket_burst", "1000", "-limits.socket_rate", "1000"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := h.Stop(); err != nil {
			t.Errorf("host: %v", err)
		}
		if t.Failed() {
			b, _ := os.ReadFile(logs)
			t.Logf("host log:\n%s", b)
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()

	// The rooms' players, each from an address of its own.
	var rooms [][2]*client.Player
	var roomIDs []string
	for i := range 2 {
		hc, dial := from(fmt.Sprintf("127.0.0.%d", 200+2*i))
		c := client.New(h.URL, hc)
		cr, err := c.CreateRoom(ctx, "shogi", nil)
		if err != nil {
			t.Fatal(err)
		}
		hc2, dial2 := from(fmt.Sprintf("127.0.0.%d", 201+2*i))
		a, b := c.Player(cr.Room, cr.SeatKey), client.New(h.URL, hc2).Player(cr.Room, "")
		a.NetDial, b.NetDial = dial, dial2
		for _, p := range []*client.Player{a, b} {
			if err := p.Connect(ctx); err != nil {
				t.Fatal(err)
			}
		}
		rooms = append(rooms, [2]*client.Player{a, b})
		roomIDs = append(roomIDs, cr.Room)
	}
	// A valid State to ask the computer about, and one forged from it.
	hc, _ := from("127.0.0.250")
	g, err := client.New(h.URL, hc).Start(ctx, "shogi", nil)
	if err != nil {
		t.Fatal(err)
	}
	forged := bytes.Clone(g.State)
	forged[len(forged)/2] ^= 1

	calls := &tally{m: map[string]map[int]int{}}
	post := func(hc *http.Client, kind, path string, body any) {
		b, _ := json.Marshal(body)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, h.URL+path, bytes.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		res, err := hc.Do(req)
		if err != nil {
			if ctx.Err() == nil {
				calls.add(kind, -1)
			}
			return
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		calls.add(kind, res.StatusCode)
	}
	long, capped := kingsWalk(22000), kingsWalk(sdk.MaxRecordMoves)
	floods := map[string]func(hc *http.Client, dial func(string, string) (net.Conn, error)){
		"import 22,000 moves": func(hc *http.Client, _ func(string, string) (net.Conn, error)) {
			post(hc, "import 22,000 moves", "/api/v1/games/shogi/import", map[string]string{"format": "sfen+usi", "text": long})
		},
		"import at the cap": func(hc *http.Client, _ func(string, string) (net.Conn, error)) {
			post(hc, "import at the cap", "/api/v1/games/shogi/import", map[string]string{"format": "sfen+usi", "text": capped})
		},
		"forged state": func(hc *http.Client, _ func(string, string) (net.Conn, error)) {
			post(hc, "forged state", "/api/v1/games/shogi/view", map[string]string{"state": base64.StdEncoding.EncodeToString(forged)})
		},
		"suggest": func(hc *http.Client, _ func(string, string) (net.Conn, error)) {
			post(hc, "suggest", "/api/v1/games/shogi/suggest", map[string]any{"state": g.State, "seat": 0, "level": "hard", "thinkMillis": 1000})
		},
		"socket churn": func(hc *http.Client, dial func(string, string) (net.Conn, error)) {
			w := client.New(h.URL, hc).Player(roomIDs[0], "")
			w.NetDial = dial
			err := w.Watch(ctx)
			if e, ok := client.AsError(err); ok {
				calls.add("socket churn", e.Status)
			} else if err == nil {
				calls.add("socket churn", 101)
				w.Close()
			}
		},
	}
	// First the rooms play alone (the reference), then while the floods
	// run; the floods end when each kind has been refused a few times
	// (or after a bounded count), the rooms when the floods have ended.
	var quiet, loud []time.Duration
	for i, r := range rooms {
		d, err := playRoom(ctx, r, func(ply int) bool { return ply < roomPlies })
		if err != nil {
			t.Fatalf("room %d without the floods: %v", i, err)
		}
		quiet = append(quiet, d...)
	}
	const refusedEnough = 5
	var wg sync.WaitGroup
	flood := func(ip string, kind string, max int) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hc, dial := from(ip)
			for i := range max {
				if ctx.Err() != nil || calls.refused(kind) >= refusedEnough && i >= 20 {
					return
				}
				floods[kind](hc, dial)
			}
		}()
	}
	// From one address: every kind at once, several loops of imports.
	for kind, loops := range map[string]int{"import 22,000 moves": 6, "import at the cap": 3, "forged state": 2, "suggest": 2, "socket churn": 2} {
		for range loops {
			flood("127.0.0.1", kind, 800)
		}
	}
	// From many: 40 addresses, each one kind.
	kinds := []string{"import 22,000 moves", "import at the cap", "forged state", "suggest", "socket churn"}
	for i := range 40 {
		flood(fmt.Sprintf("127.0.0.%d", 10+i), kinds[i%len(kinds)], 100)
	}
	floodsDone := make(chan struct{})
	go func() { wg.Wait(); close(floodsDone) }()
	var roomErrs []string
	var mu sync.Mutex
	var played sync.WaitGroup
	for i, r := range rooms {
		played.Add(1)
		go func() {
			defer played.Done()
			d, err := playRoom(ctx, r, func(ply int) bool {
				select {
				case <-floodsDone:
					return false
				default:
					return ply < maxPlies
				}
			})
			mu.Lock()
			defer mu.Unlock()
			loud = append(loud, d...)
			if err != nil {
				roomErrs = append(roomErrs, fmt.Sprintf("room %d: %v", i, err))
			}
		}()
	}
	played.Wait()
	<-floodsDone
	for _, e := range roomErrs {
		t.Error(e)
	}
	if len(loud) == 0 {
		t.Error("the rooms made no move while the floods ran")
	}
	for _, r := range rooms {
		for _, p := range r {
			p.Close()
		}
	}
	t.Logf("room moves alone: %d, p50 %v, p99 %v; under the floods: %d, p50 %v, p99 %v",
		len(quiet), pct(quiet, 50), pct(quiet, 99), len(loud), pct(loud, 50), pct(loud, 99))
	calls.mu.Lock()
	for kind, m := range calls.m {
		t.Logf("%-20s %v", kind, m)
	}
	calls.mu.Unlock()
	for _, kind := range kinds {
		if calls.refused(kind) == 0 {
			t.Errorf("%s: the flood was never refused (429 or 503)", kind)
		}
	}
	if calls.m["forged state"][200] > 0 {
		t.Errorf("a forged state was answered")
	}
	b, _ := os.ReadFile(logs)
	for _, bad := range []string{"plugin restarted", "failed its health check", "made no progress", "unavailable"} {
		if strings.Contains(string(b), bad) {
			t.Errorf("the host log says %q", bad)
		}
	}
}

// writeDefault writes the shipped configuration (configs/default.yaml)
// where the host can read it.
func writeDefault(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "default.yaml")
	if err := os.WriteFile(path, configs.Default, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// playRoom plays in a room of two players, each always playing its
// first legal move, while more(ply) (ply counts from the room's start);
// every move must be acknowledged. It returns each move's time to its
// acknowledgement.
func playRoom(ctx context.Context, r [2]*client.Player, more func(ply int) bool) ([]time.Duration, error) {
	var took []time.Duration
	for {
		for _, q := range []*client.Player{r[0], r[1]} { // catch up on the other's move
			for q.Version < max(r[0].Version, r[1].Version) {
				if _, err := q.Next(ctx); err != nil {
					return took, err
				}
			}
		}
		p := r[0]
		if len(p.View.ToMove) > 0 && p.View.ToMove[0] == r[1].Seat {
			p = r[1]
		}
		if p.View.Status == sdk.Over || !more(p.View.Ply) {
			return took, nil
		}
		var move sdk.Move
		for _, l := range p.View.Legal {
			if l.Seat == p.Seat && l.Move != sdk.Resign && l.Kind != sdk.Action {
				move = l.Move
				break
			}
		}
		if move == "" {
			return took, fmt.Errorf("ply %d: no move for seat %d", p.View.Ply, p.Seat)
		}
		start := time.Now()
		if _, err := p.Do(ctx, "move", move); err != nil {
			return took, fmt.Errorf("ply %d, move %s: %w", p.View.Ply, move, err)
		}
		took = append(took, time.Since(start))
	}
}

// pct is the p-th percentile of d.
func pct(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	d = slices.Clone(d)
	slices.Sort(d)
	return d[min(len(d)-1, len(d)*p/100)]
}

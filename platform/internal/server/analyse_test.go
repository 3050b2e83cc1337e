package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
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

// The analysis API against the real shogi, xiangqi and yonin plugins:
// mates reported with their first move, the stream cancelled by a client
// that goes away, a full pool refused at once, and the analysis processes
// apart from the rooms' (and niced).

var gameBuild struct {
	once sync.Once
	dir  string
	err  error
}

// gamePluginDir is a directory with the three game plugins: BANMEN_BIN's
// (after `make build`), else built once for these tests.
func gamePluginDir(t *testing.T) string {
	t.Helper()
	gameBuild.once.Do(func() {
		gameBuild.dir, gameBuild.err = os.MkdirTemp("", "banmen-game-plugins")
		if gameBuild.err != nil {
			return
		}
		for _, p := range []string{"shogi", "xiangqi", "yonin"} {
			out := filepath.Join(gameBuild.dir, p)
			if bin := os.Getenv("BANMEN_BIN"); bin != "" {
				// A copy: the host starts regular files only.
				b, err := os.ReadFile(filepath.Join(bin, "plugins", p))
				if err == nil {
					err = os.WriteFile(out, b, 0o755)
				}
				if err != nil {
					gameBuild.err = err
					return
				}
				continue
			}
			if b, err := exec.Command("go", "build", "-o", out, "github.com/banmen/banmen/plugins/"+p).CombinedOutput(); err != nil {
				gameBuild.err = fmt.Errorf("build the %s plugin: %v\n%s", p, err, b)
				return
			}
		}
	})
	if gameBuild.err != nil {
		t.Fatal(gameBuild.err)
	}
	return gameBuild.dir
}

type analyseSite struct {
	t        *testing.T
	url      string
	games    *pluginhost.Host
	analysts *pluginhost.Host
	ended    chan bool // analysisEnded's reports: cancelled or not
}

func newAnalyseSite(t *testing.T, slots int) *analyseSite {
	t.Helper()
	dir := gamePluginDir(t)
	games, err := pluginhost.Start(context.Background(), pluginhost.Config{Dir: dir, CallTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	analysts, err := pluginhost.Start(context.Background(), pluginhost.Config{Dir: dir, CallTimeout: 30 * time.Second})
	if err != nil {
		games.Close()
		t.Fatal(err)
	}
	s := &analyseSite{t: t, games: games, analysts: analysts, ended: make(chan bool, 16)}
	analysisEnded = func(cancelled bool) { s.ended <- cancelled }
	app := New(Deps{Games: games, Config: config.Default(), Analysis: analysts, AnalysisSlots: slots})
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
		analysisEnded = func(bool) {}
		games.Close()
		analysts.Close()
	})
	return s
}

func (s *analyseSite) post(ctx context.Context, path string, body any) *http.Response {
	s.t.Helper()
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, "POST", s.url+path, bytes.NewReader(b))
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	return resp
}

func (s *analyseSite) call(path string, body, out any) {
	s.t.Helper()
	resp := s.post(context.Background(), path, body)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		s.t.Fatalf("%s: %d %s", path, resp.StatusCode, b)
	}
	if err := json.Unmarshal(b, out); err != nil {
		s.t.Fatalf("%s: %v", path, err)
	}
}

func (s *analyseSite) importGame(variant, format, text string) gameResponse {
	s.t.Helper()
	var g gameResponse
	s.call("/api/v1/games/"+variant+"/import", importRequest{Format: format, Text: text}, &g)
	return g
}

// rows reads an analysis stream to its end.
func (s *analyseSite) rows(r io.Reader) []analyseRow {
	s.t.Helper()
	var out []analyseRow
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue // a heartbeat
		}
		var row analyseRow
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			s.t.Fatalf("row %q: %v", sc.Bytes(), err)
		}
		out = append(out, row)
	}
	if err := sc.Err(); err != nil {
		s.t.Fatal(err)
	}
	return out
}

func (s *analyseSite) analyse(variant string, req any) []analyseRow {
	s.t.Helper()
	resp := s.post(context.Background(), "/api/v1/games/"+variant+"/analyse", req)
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		s.t.Fatalf("analyse: %d %s", resp.StatusCode, b)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/x-ndjson" {
		s.t.Errorf("content type %q", ct)
	}
	return s.rows(resp.Body)
}

// playOut plays the line from g through the API and reports the View
// after it.
func (s *analyseSite) playOut(variant string, g gameResponse, line []sdk.Move) sdk.View {
	s.t.Helper()
	for _, m := range line {
		i := slices.IndexFunc(g.View.Legal, func(lm sdk.LegalMove) bool { return lm.Move == m })
		if i < 0 {
			s.t.Fatalf("%s: %s is not legal in %s", variant, m, g.View.Position)
		}
		seat := g.View.Legal[i].Seat
		s.call("/api/v1/games/"+variant+"/play", playRequest{State: g.State, Seat: &seat, Move: m}, &g)
	}
	return g.View
}

// TestAnalyseMates: in each two-player game a mate in one and a mate in
// three (plies, as tsume and USI count) are reported as such for the side
// to move, from that seat's view, with a first move and a line that mate.
func TestAnalyseMates(t *testing.T) {
	s := newAnalyseSite(t, 2)
	cases := []struct {
		variant, format, text string
		mate                  int
		best                  sdk.Move // the only solution, when there is one
	}{
		{"shogi", "sfen+usi", "sfen 8k/9/5Bl2/7L1/9/9/9/9/4K4 b L 1", 1, ""},
		{"shogi", "sfen+usi", "sfen 4k4/9/9/9/9/9/2+b6/9/3K5 w g 1", 1, ""},
		{"shogi", "sfen+usi", "sfen 8k/7L1/9/6L2/9/9/9/9/4K4 b LP 1", 3, "3d3c+"},
		{"shogi", "sfen+usi", "sfen 9/8k/5R3/6l2/9/9/9/9/4K4 b BS 1", 3, "S*1c"},
		{"xiangqi", "fen+ucci", "fen 5k3/1c1PP4/8b/9/r1P2NP1P/9/9/4B4/4A4/2BAK4 w - - 0 47", 1, "f5g7"},
		{"xiangqi", "fen+ucci", "fen 2bakab2/9/2P6/9/9/9/1p2p1c1p/3K2p2/9/1n4B2 b - - 0 51", 1, "e3d3"},
		{"xiangqi", "fen+ucci", "fen 2b1ka3/4a4/9/p3p3p/9/P7P/2nr5/4K2R1/9/3A5 b - - 6 36 moves d3e3 e2d2", 3, ""},
		{"xiangqi", "fen+ucci", "fen 4R4/1r6R/5k3/p2C5/1PP3p2/9/4P1P1P/2N1B1N2/9/3AKAB2 w - - 2 42 moves i8b8 a6a5", 3, ""},
	}
	for _, tc := range cases {
		g := s.importGame(tc.variant, tc.format, tc.text)
		side := g.View.ToMove[0]
		rows := s.analyse(tc.variant, obj{"state": g.State, "plies": []int{g.View.Ply}, "seat": side,
			"limit": obj{"nodes": 300000}})
		if len(rows) != 1 {
			t.Fatalf("%s: %d rows, want 1", tc.text, len(rows))
		}
		r := rows[0]
		if r.Error != nil || r.Score == nil {
			t.Fatalf("%s: %+v", tc.text, r)
		}
		if r.Ply != g.View.Ply || r.Score.Seat != side || r.Score.Mate == nil || *r.Score.Mate != tc.mate || r.Score.CP != nil {
			t.Errorf("%s: row %+v score %+v, want mate %d for seat %d", tc.text, r, *r.Score, tc.mate, side)
		}
		if other := r.Scores[1-side]; other.Mate == nil || *other.Mate != -tc.mate {
			t.Errorf("%s: the other seat's score %+v, want mate %d", tc.text, other, -tc.mate)
		}
		if tc.best != "" && r.Best != tc.best {
			t.Errorf("%s: best %s, want %s", tc.text, r.Best, tc.best)
		}
		if len(r.PV) != tc.mate || r.PV[0] != r.Best {
			t.Fatalf("%s: pv %v, want %d plies from %s", tc.text, r.PV, tc.mate, r.Best)
		}
		if v := s.playOut(tc.variant, g, r.PV); v.Status != sdk.Over || v.Result == nil || !slices.Equal(v.Result.Winners, []sdk.Seat{side}) {
			t.Errorf("%s: the line %v does not win for seat %d: %+v", tc.text, r.PV, side, v.Result)
		}
	}
}

type obj = map[string]any

// yoninMateInOne: South (to move) mates North with 5c5b.
const yoninMateInOne = "3PnKnPn3/9/3SsPsSs3/9/Kw7Ke/9/9/9/4Ks4 s - - singles,two_mates,mater 1"

// TestAnalyseYoninMate: a Yonin position where South can mate reports it,
// mate 1 for South and -1 for North, with a score for every seat and a
// line of several moves that plays out.
func TestAnalyseYoninMate(t *testing.T) {
	s := newAnalyseSite(t, 2)
	g := s.importGame("yonin", "yonin", yoninMateInOne)
	rows := s.analyse("yonin", obj{"state": g.State, "limit": obj{"nodes": 50000}})
	if len(rows) != 1 {
		t.Fatalf("%d rows, want 1: %+v", len(rows), rows)
	}
	r := rows[0]
	if r.Error != nil || len(r.Scores) != 4 || r.Score == nil || r.Score.Seat != 0 {
		t.Fatalf("row %+v", r)
	}
	if m := r.Scores[0].Mate; m == nil || *m != 1 {
		t.Errorf("South's score %+v, want mate 1", r.Scores[0])
	}
	if m := r.Scores[2].Mate; m == nil || *m != -1 {
		t.Errorf("North's score %+v, want mate -1", r.Scores[2])
	}
	if v := s.playOut("yonin", g, []sdk.Move{r.Best}); !slices.Contains(v.Eliminated, 2) {
		t.Errorf("best %s does not mate North: eliminated %v", r.Best, v.Eliminated)
	}
	// The line goes on after the mate, each seat in its turn, and the
	// page gets it in its notation.
	if len(r.PV) < 2 || r.PV[0] != r.Best {
		t.Fatalf("line %v: want several moves from %s", r.PV, r.Best)
	}
	// (playOut's JSON reuses the game's slices: a fresh copy.)
	s.playOut("yonin", s.importGame("yonin", "yonin", yoninMateInOne), r.PV)
	var line struct{ Moves []sdk.PlayedMove }
	s.call("/api/v1/games/yonin/analyse/line", obj{"state": g.State, "ply": g.View.Ply, "pv": r.PV}, &line)
	if len(line.Moves) != len(r.PV) || line.Moves[0].Seat != 0 || line.Moves[1].Text == "" {
		t.Errorf("the line %v is written %+v", r.PV, line.Moves)
	}
}

// startedGame plays n plies of a shogi game by the first legal move of
// each position.
func (s *analyseSite) startedGame(n int) gameResponse {
	var g gameResponse
	s.call("/api/v1/games/shogi/start", startRequest{}, &g)
	for range n {
		seat := g.View.Legal[0].Seat
		s.call("/api/v1/games/shogi/play", playRequest{State: g.State, Seat: &seat, Move: g.View.Legal[0].Move}, &g)
	}
	return g
}

// TestAnalyseEveryPly: without plies, every ply of the game is analysed,
// in order, the last one over when the game is.
func TestAnalyseEveryPly(t *testing.T) {
	s := newAnalyseSite(t, 2)
	g := s.startedGame(4)
	rows := s.analyse("shogi", obj{"state": g.State, "limit": obj{"nodes": 2000}})
	if len(rows) != 5 {
		t.Fatalf("%d rows, want 5", len(rows))
	}
	for i, r := range rows {
		if r.Ply != i || r.Error != nil || r.Score == nil || r.Score.Seat != 0 || r.Best == "" || len(r.Scores) != 2 {
			t.Errorf("row %d: %+v", i, r)
		}
	}
	for _, bad := range []obj{
		{"state": g.State, "plies": []int{5}},
		{"state": g.State, "limit": obj{"nodes": maxAnalyseNodes + 1}},
		{"state": g.State, "seat": 2},
		{"state": "Zm9v"},
	} {
		resp := s.post(context.Background(), "/api/v1/games/shogi/analyse", bad)
		resp.Body.Close()
		if resp.StatusCode < 400 || resp.StatusCode >= 500 {
			t.Errorf("%v: status %d, want a 4xx", bad, resp.StatusCode)
		}
	}
}

// TestAnalyseCancel: a client that goes away after the first row ends the
// analysis (the stream reports it cancelled) and frees its slot; while it
// runs, the pool of one is full and a second analysis is refused at once
// with 503 and Retry-After.
func TestAnalyseCancel(t *testing.T) {
	s := newAnalyseSite(t, 1)
	g := s.startedGame(30)
	ctx, cancel := context.WithCancel(context.Background())
	resp := s.post(ctx, "/api/v1/games/shogi/analyse", obj{"state": g.State, "limit": obj{"millis": 2000}})
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	busy := s.post(context.Background(), "/api/v1/games/shogi/analyse", obj{"state": g.State})
	busy.Body.Close()
	if busy.StatusCode != http.StatusServiceUnavailable || busy.Header.Get("Retry-After") == "" {
		t.Errorf("a second analysis: status %d, Retry-After %q; want 503 with Retry-After", busy.StatusCode, busy.Header.Get("Retry-After"))
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() && len(bytes.TrimSpace(sc.Bytes())) == 0 {
	}
	var first analyseRow
	if err := json.Unmarshal(sc.Bytes(), &first); err != nil || first.Ply != 0 {
		t.Fatalf("first row %q: %v", sc.Bytes(), err)
	}
	cancel()
	resp.Body.Close()
	select {
	case cancelled := <-s.ended:
		if !cancelled {
			t.Error("the analysis ran to its end after the client went away")
		}
	case <-time.After(time.Minute):
		t.Fatal("the analysis did not end after the client went away")
	}
	// The slot is free again.
	rows := s.analyse("shogi", obj{"state": g.State, "plies": []int{1}, "limit": obj{"nodes": 1000}})
	if len(rows) != 1 || rows[0].Error != nil {
		t.Errorf("after the cancel: %+v", rows)
	}
}

// TestAnalysisApartFromRooms: with an analysis running, a rules call (a
// room's Play) goes to a process that runs no analysis, so it never waits
// behind one, and the analysis process runs at the lowest priority.
func TestAnalysisApartFromRooms(t *testing.T) {
	s := newAnalyseSite(t, 2)
	g := s.startedGame(10)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp := s.post(ctx, "/api/v1/games/shogi/analyse", obj{"state": g.State, "limit": obj{"millis": 1000}})
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() && len(bytes.TrimSpace(sc.Bytes())) == 0 {
	}
	// The analysis is under way (its first row is out, the next ply is
	// being searched): a room's move now.
	var rulesPID, analysisPID int
	// The API's State is signed for browsers; a room's own comes from the
	// rules process itself.
	err := s.games.Call(context.Background(), "shogi", "play", func(ctx context.Context, c *host.Conn) error {
		rulesPID = c.PID()
		st, v, err := c.Start(ctx, host.StartRequest{Variant: "shogi"})
		if err != nil {
			return err
		}
		_, _, err = c.Play(ctx, host.PlayRequest{Variant: "shogi", State: st, Seat: v.Legal[0].Seat, Move: v.Legal[0].Move})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	s.analysts.Call(context.Background(), "shogi", "analyse", func(_ context.Context, c *host.Conn) error {
		analysisPID = c.PID()
		return nil
	})
	if rulesPID == 0 || rulesPID == analysisPID || slices.Contains(pidsOf(s.games), analysisPID) {
		t.Errorf("the room's play ran in process %d, the analysis in %d (rooms' processes %v)", rulesPID, analysisPID, pidsOf(s.games))
	}
	if runtime.GOOS == "linux" {
		// getpriority(2) answers 20-nice.
		if p, err := syscall.Getpriority(syscall.PRIO_PROCESS, analysisPID); err != nil || 20-p != 19 {
			t.Errorf("the analysis process's nice is %d (%v), want 19", 20-p, err)
		}
	}
	// Gone, the client ends the analysis before the processes stop.
	cancel()
	resp.Body.Close()
	if cancelled := <-s.ended; !cancelled {
		t.Error("the analysis ran to its end after the client went away")
	}
}

func pidsOf(h *pluginhost.Host) []int {
	var out []int
	for _, pid := range h.PIDs() {
		out = append(out, pid)
	}
	return out
}

// TestAnalysedKIF: the rows of an analysis, sent back with the game, give
// a KIF with the evaluations as comments, which imports as the same game.
func TestAnalysedKIF(t *testing.T) {
	s := newAnalyseSite(t, 2)
	g := s.startedGame(2)
	rows := s.analyse("shogi", obj{"state": g.State, "limit": obj{"nodes": 2000}})
	var out struct{ Text string }
	s.call("/api/v1/games/shogi/analyse/export", obj{"state": g.State, "format": "kif", "analysis": rows}, &out)
	if n := strings.Count(out.Text, "\n*評価値 "); n != 3 {
		t.Errorf("%d evaluations in the record, want 3:\n%s", n, out.Text)
	}
	if !strings.Contains(out.Text, "\n*読み筋 ▲") {
		t.Errorf("no line in the record:\n%s", out.Text)
	}
	back := s.importGame("shogi", "kif", out.Text)
	if back.View.Position != g.View.Position || back.View.Ply != g.View.Ply {
		t.Errorf("the record reads back as %q (ply %d), want %q", back.View.Position, back.View.Ply, g.View.Position)
	}
}

// TestAnalyseLine: a line is written as the move list writes moves, each
// by the seat to move, from the position after the ply asked; it stops at
// a move the rules refuse.
func TestAnalyseLine(t *testing.T) {
	s := newAnalyseSite(t, 2)
	g := s.importGame("shogi", "sfen+usi", "startpos moves 7g7f 3c3d")
	var out struct{ Moves []sdk.PlayedMove }
	s.call("/api/v1/games/shogi/analyse/line", obj{"state": g.State, "ply": 1, "pv": []string{"3c3d", "8h2b+", "3a2b", "9a9a"}}, &out)
	if len(out.Moves) != 3 {
		t.Fatalf("line %+v, want three moves (the fourth is not legal)", out.Moves)
	}
	for i, want := range []string{"△３四歩", "▲２二角成", "△同　銀"} {
		if m := out.Moves[i]; m.Text != want || m.Seat != sdk.Seat(1-i%2) {
			t.Errorf("move %d: %+v, want %s", i, m, want)
		}
	}
}

// TestAnalyseMarks: a move that gives a bishop away is marked "??", the
// moves of an even opening are not marked at all.
func TestAnalyseMarks(t *testing.T) {
	s := newAnalyseSite(t, 2)
	g := s.importGame("shogi", "sfen+usi", "startpos moves 7g7f 3c3d 8h3c")
	rows := s.analyse("shogi", obj{"state": g.State, "limit": obj{"nodes": 50000}})
	if len(rows) != 4 {
		t.Fatalf("%d rows, want 4", len(rows))
	}
	for i, want := range []string{"", "", "", "??"} {
		if rows[i].Mark != want {
			t.Errorf("ply %d: mark %q, want %q (scores %+v then %+v)", i, rows[i].Mark, want, rows[max(i-1, 0)].Scores, rows[i].Scores)
		}
	}
}

// TestRoomAnalyse: a room's round is analysed once it has ended (409
// round_not_over before), by its id alone, and the room is not changed.
func TestRoomAnalyse(t *testing.T) {
	s := newAnalyseSite(t, 2)
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "rooms.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rooms := room.New(room.Config{Store: st, Rules: pluginhost.RoomRules(s.games)})
	defer rooms.Close()
	app := New(Deps{Games: s.games, Config: config.Default(), Rooms: rooms, Analysis: s.analysts})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go app.Listener(ln)
	defer app.ShutdownWithTimeout(5 * time.Second)
	url := "http://" + ln.Addr().String()
	c := client.New(url, nil)
	cr, err := c.CreateRoom(ctxT(t), "shogi", nil)
	if err != nil {
		t.Fatal(err)
	}
	host := c.Player(cr.Room, cr.SeatKey)
	connect(t, host)
	guest := c.Player(cr.Room, "")
	connect(t, guest)
	catchUp(t, host, guest.Version)
	do(t, host, "move", "7g7f")
	site := &analyseSite{t: t, url: url}
	analyse := func() *http.Response {
		return site.post(context.Background(), "/api/v1/rooms/"+cr.Room+"/analyse", obj{"limit": obj{"nodes": 2000}})
	}
	resp := analyse()
	resp.Body.Close()
	if resp.StatusCode != http.StatusConflict {
		t.Errorf("a round being played: status %d, want 409", resp.StatusCode)
	}
	for _, call := range []struct {
		path string
		body obj
	}{
		{"/analyse/export", obj{"format": "kif", "analysis": []obj{}}},
		{"/analyse/line", obj{"ply": 0, "pv": []string{"7g7f"}}},
	} {
		resp := site.post(context.Background(), "/api/v1/rooms/"+cr.Room+call.path, call.body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusConflict {
			t.Errorf("%s of a round being played: status %d, want 409", call.path, resp.StatusCode)
		}
	}
	catchUp(t, guest, host.Version)
	do(t, guest, "resign", "")
	version := guest.Version
	resp = analyse()
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	rows := site.rows(resp.Body)
	if len(rows) != 3 || rows[0].Score == nil || rows[1].Best == "" || !rows[2].Over {
		t.Errorf("rows %+v; want plies 0 and 1 analysed, 2 over", rows)
	}
	// The analysed record and the lines in the page's notation, made on
	// the server from the room's state.
	var kif struct{ Text string }
	site.call("/api/v1/rooms/"+cr.Room+"/analyse/export", obj{"format": "kif", "lang": "ja", "analysis": rows}, &kif)
	if n := strings.Count(kif.Text, "\n*評価値 "); n != 2 {
		t.Errorf("%d evaluations in the room's record, want 2:\n%s", n, kif.Text)
	}
	if !strings.Contains(kif.Text, "\n*読み筋 ▲") || !strings.Contains(kif.Text, "７六歩") {
		t.Errorf("no line or no move in the room's record:\n%s", kif.Text)
	}
	var line struct{ Moves []sdk.PlayedMove }
	site.call("/api/v1/rooms/"+cr.Room+"/analyse/line", obj{"ply": 0, "pv": rows[0].PV}, &line)
	if len(line.Moves) != len(rows[0].PV) || len(line.Moves) == 0 {
		t.Fatalf("line %+v for the pv %v", line.Moves, rows[0].PV)
	}
	for i, m := range line.Moves {
		if m.Move != rows[0].PV[i] || m.Text == "" || m.Seat != sdk.Seat(i%2) {
			t.Errorf("move %d of the line: %+v, want %s by seat %d with its text", i, m, rows[0].PV[i], i%2)
		}
	}
	var view struct{ Version int64 }
	site.call("/api/v1/rooms/"+cr.Room+"/view", obj{"ply": 0}, &view)
	if view.Version != version {
		t.Errorf("the room is at version %d after the analysis, want %d", view.Version, version)
	}
}

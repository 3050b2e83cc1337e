package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// These tests start the real host (run) with real plugin subprocesses and
// talk to it over HTTP, as a browser would.

var pluginDir string

func TestMain(m *testing.M) {
	root, err := os.MkdirTemp("", "banmen-run-test")
	if err != nil {
		panic(err)
	}
	dir := filepath.Join(root, "plugins")
	if err := os.Mkdir(dir, 0o755); err != nil {
		panic(err)
	}
	for name, pkg := range map[string]string{
		"tictactoe": "github.com/banmen/banmen/sdk/examples/tictactoe/cmd/tictactoe",
		"faulty":    "github.com/banmen/banmen/platform/internal/pluginhost/testdata/faulty",
	} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, name), pkg)
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			panic(fmt.Sprintf("build %s: %v", name, err))
		}
	}
	pluginDir = dir
	code := m.Run()
	os.RemoveAll(root)
	os.Exit(code)
}

// syncBuffer is a bytes.Buffer safe for the host's and the test's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type host struct {
	url    string
	ops    string // the operations address (/metrics)
	logs   *syncBuffer
	cancel context.CancelFunc
	done   chan error
}

var (
	urlLine = regexp.MustCompile(`serving on (http://\S+)`)
	opsLine = regexp.MustCompile(`operations \(/metrics\) on (http://\S+)`)
)

// startHost runs the host on a free port with the test plugins.
func startHost(t *testing.T, args ...string) *host {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	h := &host{logs: &syncBuffer{}, cancel: cancel, done: make(chan error, 1)}
	stdout := &syncBuffer{}
	all := append([]string{"-port", "0", "-plugin_dir", pluginDir, "-data_dir", t.TempDir(),
		"-limits.health_interval", "200ms", "-ops_addr", "127.0.0.1:0"}, args...)
	go func() { h.done <- run(ctx, all, func(string) string { return "" }, stdout, h.logs) }()
	deadline := time.Now().Add(20 * time.Second)
	for h.url == "" {
		if m := urlLine.FindStringSubmatch(stdout.String()); m != nil {
			h.url = m[1]
			if m := opsLine.FindStringSubmatch(stdout.String()); m != nil {
				h.ops = m[1]
			}
			break
		}
		select {
		case err := <-h.done:
			t.Fatalf("host stopped: %v\n%s", err, h.logs)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("host did not start:\n%s", h.logs)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Cleanup(func() { h.stop(t) })
	return h
}

func (h *host) stop(t *testing.T) {
	if h.cancel == nil {
		return
	}
	h.cancel()
	h.cancel = nil
	select {
	case err := <-h.done:
		if err != nil {
			t.Errorf("host: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Errorf("host did not shut down")
	}
}

type apiResult struct {
	status int
	body   map[string]any
	raw    string
}

func (h *host) post(t *testing.T, path string, body any) apiResult {
	t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case string:
		r = strings.NewReader(b)
	default:
		j, _ := json.Marshal(b)
		r = bytes.NewReader(j)
	}
	resp, err := http.Post(h.url+path, "application/json", r)
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	out := apiResult{status: resp.StatusCode, raw: string(raw)}
	_ = json.Unmarshal(raw, &out.body)
	return out
}

func errCode(r apiResult) string {
	e, _ := r.body["error"].(map[string]any)
	s, _ := e["code"].(string)
	return s
}

// game is a game of the stateless API, as the browser keeps it.
type game struct {
	h       *host
	variant string
	state   string
	ply     float64
}

func newGame(t *testing.T, h *host, variant string) *game {
	t.Helper()
	r := h.post(t, "/api/v1/games/"+variant+"/start", map[string]any{})
	if r.status != 200 {
		t.Fatalf("start: %d %s", r.status, r.raw)
	}
	return &game{h: h, variant: variant, state: r.body["state"].(string)}
}

func (g *game) play(t *testing.T, seat int, move string) apiResult {
	t.Helper()
	r := g.h.post(t, "/api/v1/games/"+g.variant+"/play", map[string]any{"state": g.state, "seat": seat, "move": move})
	if r.status == 200 {
		g.state = r.body["state"].(string)
		g.ply = r.body["view"].(map[string]any)["ply"].(float64)
	}
	return r
}

func (g *game) mustPlay(t *testing.T, seat int, move string) {
	t.Helper()
	if r := g.play(t, seat, move); r.status != 200 {
		t.Fatalf("play %s: %d %s", move, r.status, r.raw)
	}
}

// pluginPID asks the faulty plugin for its process ID.
func pluginPID(t *testing.T, g *game) int {
	t.Helper()
	r := g.play(t, 0, "pid")
	if errCode(r) != "pid" {
		t.Fatalf("pid: %d %s", r.status, r.raw)
	}
	pid, err := strconv.Atoi(r.body["error"].(map[string]any)["message"].(string))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

func TestVariantsComeFromPlugins(t *testing.T) {
	h := startHost(t)
	resp, err := http.Get(h.url + "/api/v1/variants")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ds []struct{ ID string }
	if err := json.NewDecoder(resp.Body).Decode(&ds); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range ds {
		ids = append(ids, d.ID)
	}
	if got := strings.Join(ids, ","); got != "faulty,tictactoe" {
		t.Errorf("variants = %s, want faulty,tictactoe", got)
	}
}

func TestPlayAWholeGameOverHTTP(t *testing.T) {
	h := startHost(t)
	g := newGame(t, h, "tictactoe")
	for i, m := range []string{"a1", "b1", "a2", "b2", "a3"} {
		g.mustPlay(t, i%2, m)
	}
	r := h.post(t, "/api/v1/games/tictactoe/view", map[string]any{"state": g.state})
	view := r.body["view"].(map[string]any)
	if view["status"] != "over" {
		t.Fatalf("status = %v, want over", view["status"])
	}
	res := view["result"].(map[string]any)
	if w := res["winners"].([]any); len(w) != 1 || w[0].(float64) != 0 {
		t.Errorf("winners = %v, want [0]", w)
	}
	ex := h.post(t, "/api/v1/games/tictactoe/export", map[string]any{"state": g.state, "format": "moves"})
	if ex.status != 200 || !strings.Contains(ex.body["text"].(string), "a1 b1 a2 b2 a3") {
		t.Errorf("export: %d %s", ex.status, ex.raw)
	}
	im := h.post(t, "/api/v1/games/tictactoe/import", map[string]any{"format": "moves", "text": ex.body["text"]})
	if im.status != 200 || im.body["view"].(map[string]any)["ply"].(float64) != 5 {
		t.Errorf("import: %d %s", im.status, im.raw)
	}
	sg := newGame(t, h, "tictactoe")
	if r := h.post(t, "/api/v1/games/tictactoe/suggest", map[string]any{"state": sg.state, "level": "hard"}); r.status != 200 || r.body["move"] == "" {
		t.Errorf("suggest: %d %s", r.status, r.raw)
	}
}

// TestRewindOverHTTP: rewind answers the game after its first plies through
// the plugin process (the move list's navigation and takebacks), the State
// it returns plays on, and a ply the game does not have is bad_ply.
func TestRewindOverHTTP(t *testing.T) {
	h := startHost(t)
	g := newGame(t, h, "tictactoe")
	for i, m := range []string{"a1", "b1", "a2"} {
		g.mustPlay(t, i%2, m)
	}
	r := h.post(t, "/api/v1/games/tictactoe/rewind", map[string]any{"state": g.state, "ply": 1})
	if r.status != 200 {
		t.Fatalf("rewind: %d %s", r.status, r.raw)
	}
	v := r.body["view"].(map[string]any)
	if v["ply"].(float64) != 1 || len(v["history"].([]any)) != 1 {
		t.Errorf("rewind to 1: ply %v, history %v", v["ply"], v["history"])
	}
	back := &game{h: h, variant: "tictactoe", state: r.body["state"].(string)}
	back.mustPlay(t, 1, "c3")
	if back.ply != 2 {
		t.Errorf("after a takeback and a new move: ply %v, want 2", back.ply)
	}
	for _, ply := range []int{-1, 4} {
		r := h.post(t, "/api/v1/games/tictactoe/rewind", map[string]any{"state": g.state, "ply": ply})
		if r.status != 422 || errCode(r) != "bad_ply" {
			t.Errorf("rewind to %d: %d %s, want 422 bad_ply", ply, r.status, r.raw)
		}
	}
	if r := h.post(t, "/api/v1/games/tictactoe/rewind", map[string]any{"state": g.state}); r.status != 400 {
		t.Errorf("rewind without a ply: %d %s, want 400", r.status, r.raw)
	}
	var d struct{ Rewind bool }
	resp, err := http.Get(h.url + "/api/v1/variants/tictactoe")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&d); err != nil || !d.Rewind {
		t.Errorf("the description says rewind %v (%v), want true", d.Rewind, err)
	}
}

// TestSuggestNamesTheSeat: suggest plays for the seat the request names, a
// seat not to move is refused, and a client that names no seat (written
// before seats were named) still gets the move of the seat to move.
func TestSuggestNamesTheSeat(t *testing.T) {
	h := startHost(t)
	g := newGame(t, h, "tictactoe")
	if r := g.play(t, 0, "a1"); r.status != 200 {
		t.Fatalf("play: %d %s", r.status, r.raw)
	}
	suggest := func(body map[string]any) apiResult {
		body["state"], body["level"] = g.state, "hard"
		return h.post(t, "/api/v1/games/tictactoe/suggest", body)
	}
	// Hard answers a corner with the centre, for seat 1, who is to move.
	for name, body := range map[string]map[string]any{"seat 1": {"seat": 1}, "no seat": {}} {
		if r := suggest(body); r.status != 200 || r.body["move"] != "b2" {
			t.Errorf("%s: %d %s; want b2", name, r.status, r.raw)
		}
	}
	for _, seat := range []int{0, 2, -1} {
		r := suggest(map[string]any{"seat": seat})
		e, _ := r.body["error"].(map[string]any)
		if code, _ := e["code"].(string); r.status != 422 || code != "not_your_turn" {
			t.Errorf("seat %d, not to move: %d %s; want 422 not_your_turn", seat, r.status, r.raw)
		}
	}
}

func TestErrorsAreClear(t *testing.T) {
	h := startHost(t, "-limits.body_bytes", "4096")
	g := newGame(t, h, "tictactoe")
	cases := []struct {
		name, path string
		body       any
		status     int
		code       string
	}{
		{"illegal move", "/api/v1/games/tictactoe/play", map[string]any{"state": g.state, "seat": 0, "move": "d4"}, 422, "bad_move"},
		{"occupied", "/api/v1/games/tictactoe/play", map[string]any{"state": g.state, "seat": 1, "move": "a1"}, 422, "not_your_turn"},
		{"bad json", "/api/v1/games/tictactoe/play", "{not json", 400, "bad_request"},
		{"bad base64", "/api/v1/games/tictactoe/play", `{"state":"%%%","seat":0,"move":"a1"}`, 400, "bad_request"},
		{"unknown field", "/api/v1/games/tictactoe/play", `{"state":"AAAA","seat":0,"move":"a1","x":1}`, 400, "bad_request"},
		{"missing seat", "/api/v1/games/tictactoe/play", map[string]any{"state": g.state, "move": "a1"}, 400, "bad_request"},
		{"garbage state", "/api/v1/games/tictactoe/play", map[string]any{"state": "AAECAwQFBgcICQ==", "seat": 0, "move": "a1"}, 400, "state_not_issued"},
		{"state of another game", "/api/v1/games/faulty/play", map[string]any{"state": g.state, "seat": 0, "move": "a1"}, 400, "state_not_issued"},
		{"state forged", "/api/v1/games/tictactoe/view", map[string]any{"state": forged(g.state)}, 400, "state_not_issued"},
		{"unknown variant", "/api/v1/games/chess/start", map[string]any{}, 404, "unknown_variant"},
		{"unknown route", "/api/v1/nothing", map[string]any{}, 404, "not_found"},
		{"too large", "/api/v1/games/tictactoe/import", map[string]any{"format": "moves", "text": strings.Repeat("a1 ", 3000)}, 413, "too_large"},
		{"bad format", "/api/v1/games/tictactoe/export", map[string]any{"state": g.state, "format": "pdf"}, 422, "bad_format"},
		{"bad option", "/api/v1/games/tictactoe/start", map[string]any{"options": map[string]string{"nope": "1"}}, 422, "bad_option"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := h.post(t, c.path, c.body)
			if r.status != c.status || errCode(r) != c.code {
				t.Errorf("got %d %q, want %d %q: %s", r.status, errCode(r), c.status, c.code, r.raw)
			}
		})
	}
}

// A plugin killed between two calls is restarted, and the game goes on from
// the state the browser holds: nothing is lost.
func TestPluginKilledBetweenCalls(t *testing.T) {
	h := startHost(t)
	g := newGame(t, h, "faulty")
	g.mustPlay(t, 0, "b2")
	pid := pluginPID(t, g)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	g.mustPlay(t, 1, "a1")
	g.mustPlay(t, 0, "c3")
	if g.ply != 3 {
		t.Errorf("ply = %v, want 3", g.ply)
	}
	if np := pluginPID(t, g); np == pid || alive(pid) {
		t.Errorf("plugin not replaced: old %d new %d", pid, np)
	}
}

// A plugin killed while a call is in flight: the host restarts it and retries
// the call once, so the player sees the move succeed.
func TestPluginKilledDuringCall(t *testing.T) {
	h := startHost(t)
	g := newGame(t, h, "faulty")
	g.mustPlay(t, 0, "b2")
	pid := pluginPID(t, g)
	go func() {
		time.Sleep(150 * time.Millisecond) // the slow move sleeps 400 ms
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}()
	g.mustPlay(t, 1, "slow:a1")
	if g.ply != 2 {
		t.Errorf("ply = %v, want 2", g.ply)
	}
	if alive(pid) {
		t.Errorf("old plugin %d still alive", pid)
	}
	g.mustPlay(t, 0, "c3")
}

// A hung plugin call ends in a clear timeout instead of hanging the request,
// and the next call is served.
func TestHungCallTimesOut(t *testing.T) {
	h := startHost(t, "-limits.call_timeout", "500ms")
	g := newGame(t, h, "faulty")
	start := time.Now()
	r := g.play(t, 0, "hang")
	if el := time.Since(start); el > 3*time.Second {
		t.Errorf("hung call took %v", el)
	}
	if r.status != 504 || errCode(r) != "timeout" {
		t.Errorf("hung call: %d %s", r.status, r.raw)
	}
	g.mustPlay(t, 0, "b2")
}

// A plugin that crashes on every try marks its variant unavailable (503),
// while other plugins' variants keep working.
func TestCrashLoopMarksVariantUnavailable(t *testing.T) {
	h := startHost(t, "-limits.restart_burst", "3", "-limits.unavailable_for", "1m")
	g := newGame(t, h, "faulty")
	var last apiResult
	for i := 0; i < 6; i++ {
		last = g.play(t, 0, "crash")
		if last.status == 503 {
			break
		}
	}
	if last.status != 503 || errCode(last) != "variant_unavailable" {
		t.Fatalf("after crashes: %d %s", last.status, last.raw)
	}
	if r := h.post(t, "/api/v1/games/faulty/start", map[string]any{}); r.status != 503 {
		t.Errorf("start while unavailable: %d", r.status)
	}
	ok := newGame(t, h, "tictactoe")
	ok.mustPlay(t, 0, "a1")
}

// Plugins end with the host: on graceful shutdown, and when the host is
// killed outright (the parent-death signal).
func TestPluginsDieWithHost(t *testing.T) {
	t.Run("graceful", func(t *testing.T) {
		h := startHost(t)
		pid := pluginPID(t, newGame(t, h, "faulty"))
		h.stop(t)
		waitDead(t, pid)
	})
	t.Run("sigkill", func(t *testing.T) {
		cmd := exec.Command(hostBinary(t), "-port", "0", "-plugin_dir", pluginDir, "-data_dir", t.TempDir())
		stdout := &syncBuffer{}
		cmd.Stdout, cmd.Stderr = stdout, io.Discard
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer cmd.Process.Kill()
		var url string
		for i := 0; i < 400 && url == ""; i++ {
			if m := urlLine.FindStringSubmatch(stdout.String()); m != nil {
				url = m[1]
			}
			time.Sleep(25 * time.Millisecond)
		}
		if url == "" {
			t.Fatal("host did not start")
		}
		pid := pluginPID(t, newGame(t, &host{url: url}, "faulty"))
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		waitDead(t, pid)
	})
}

// waitDead waits (generously, for a loaded machine) until process pid has
// ended.
func waitDead(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
		// A dead child of ours may linger as a zombie until reaped; read its
		// state instead of trusting kill(pid, 0).
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil || strings.Contains(string(b), ") Z ") {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("plugin %d is still alive", pid)
}

// Plugins see none of the host's environment but PATH.
func TestPluginsInheritNoSecrets(t *testing.T) {
	t.Setenv("BANMEN_TEST_SECRET", "hunter2")
	h := startHost(t)
	pid := pluginPID(t, newGame(t, h, "faulty"))
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(env), "hunter2") {
		t.Errorf("plugin environment leaks a host secret: %q", env)
	}
}

// TestHealthAndMetrics: /healthz on the site; /metrics on the operations
// address only (ops_addr), not on the public port.
func TestHealthAndMetrics(t *testing.T) {
	h := startHost(t)
	if h.ops == "" {
		t.Fatal("the host named no operations address")
	}
	if resp, err := http.Get(h.url + "/metrics"); err != nil {
		t.Fatal(err)
	} else if resp.Body.Close(); resp.StatusCode != 404 {
		t.Errorf("/metrics on the public port: %d, want 404", resp.StatusCode)
	}
	for _, url := range []string{h.url + "/healthz", h.ops + "/healthz", h.ops + "/metrics"} {
		path := url[strings.LastIndex(url, "/"):]
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("%s: %d", path, resp.StatusCode)
		}
		if path == "/metrics" && !strings.Contains(string(b), "banmen_http_requests_total") {
			t.Errorf("metrics lack banmen_http_requests_total")
		}
	}
}

// A plugin's own log lines reach the host's log, with their level and
// attributes and the plugin's name.
func TestPluginLogsReachHostLog(t *testing.T) {
	h := startHost(t)
	g := newGame(t, h, "faulty")
	if r := g.play(t, 0, "log"); errCode(r) != "logged" {
		t.Fatalf("log: %d %s", r.status, r.raw)
	}
	re := regexp.MustCompile(`level=WARN msg="a line from the plugin".*plugin="?faulty.*detail=42|level=WARN msg="a line from the plugin".*detail=42.*plugin="?faulty|level=WARN .*plugin="?faulty.*msg="a line from the plugin"`)
	for i := 0; i < 50 && !re.MatchString(h.logs.String()); i++ {
		time.Sleep(20 * time.Millisecond)
	}
	if !re.MatchString(h.logs.String()) {
		t.Errorf("plugin log line not in host log:\n%s", h.logs)
	}
}

// stopPlugin freezes a plugin process with SIGSTOP, as a wedged process
// looks to the host: its sockets stay open and nothing answers. At cleanup a
// process still stopped is killed and continued, so nothing is left behind.
func stopPlugin(t *testing.T, pid int) {
	t.Helper()
	stopped := func() bool {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		return err == nil && strings.Contains(string(b), ") T ")
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if stopped() {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			_ = syscall.Kill(pid, syscall.SIGCONT)
		}
	})
	// kill(2) returns before every thread of the process has stopped.
	for deadline := time.Now().Add(10 * time.Second); !stopped(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("plugin %d did not stop", pid)
		}
	}
}

// postWithin is post with a client deadline, so a request the host never
// answers fails the test instead of hanging it.
func (h *host) postWithin(t *testing.T, d time.Duration, path string, body any) (apiResult, time.Duration) {
	t.Helper()
	j, _ := json.Marshal(body)
	start := time.Now()
	resp, err := (&http.Client{Timeout: d}).Post(h.url+path, "application/json", bytes.NewReader(j))
	if err != nil {
		t.Fatalf("POST %s did not answer within %v: %v", path, d, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	el := time.Since(start)
	out := apiResult{status: resp.StatusCode, raw: string(raw)}
	_ = json.Unmarshal(raw, &out.body)
	return out, el
}

// A stopped (SIGSTOP) plugin does not answer the call nor the ping that
// follows it: the request still answers 504, the plugin is replaced, and the
// next call is served by the new process.
func TestStoppedPluginTimesOut(t *testing.T) {
	const callTimeout = time.Second
	h := startHost(t, "-limits.call_timeout", callTimeout.String(), "-limits.health_interval", "1h")
	g := newGame(t, h, "faulty")
	g.mustPlay(t, 0, "b2")
	pid := pluginPID(t, g)
	stopPlugin(t, pid)
	r, el := h.postWithin(t, 30*time.Second, "/api/v1/games/faulty/play", map[string]any{"state": g.state, "seat": 1, "move": "a1"})
	t.Logf("the call to the stopped plugin answered %d after %v (call_timeout %v)", r.status, el, callTimeout)
	if r.status != 504 || errCode(r) != "timeout" {
		t.Fatalf("call to a stopped plugin: %d %s", r.status, r.raw)
	}
	g.mustPlay(t, 1, "a1")
	if g.ply != 2 {
		t.Errorf("ply = %v, want 2", g.ply)
	}
	if np := pluginPID(t, g); np == pid {
		t.Errorf("stopped plugin %d not replaced", pid)
	}
	waitDead(t, pid)
}

// The health loop replaces a stopped plugin that no call is waiting on.
func TestHealthCheckReplacesStoppedPlugin(t *testing.T) {
	h := startHost(t, "-limits.call_timeout", "30s", "-limits.health_interval", "200ms")
	g := newGame(t, h, "faulty")
	pid := pluginPID(t, g)
	stopPlugin(t, pid)
	waitDead(t, pid)
	if np := pluginPID(t, g); np == pid {
		t.Errorf("stopped plugin %d not replaced", pid)
	}
	g.mustPlay(t, 0, "b2")
}

// Shutting down does not wait for ever on a stopped plugin.
func TestShutdownWithStoppedPlugin(t *testing.T) {
	h := startHost(t, "-limits.health_interval", "1h")
	pid := pluginPID(t, newGame(t, h, "faulty"))
	stopPlugin(t, pid)
	h.stop(t)
	waitDead(t, pid)
}

var built struct {
	once sync.Once
	path string
	err  error
}

// hostBinary builds the banmen command once per test run.
func hostBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		built.path = filepath.Join(pluginDir, "..", "banmen")
		if out, err := exec.Command("go", "build", "-o", built.path, ".").CombinedOutput(); err != nil {
			built.err = fmt.Errorf("build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

// install lays out an installation under root as `make build` does:
// bin/banmen and, with plugins, bin/plugins/ holding the test plugins.
func install(t *testing.T, root string, plugins bool) string {
	t.Helper()
	bin := filepath.Join(root, "bin")
	link := func(from, to string) {
		if err := os.Link(from, to); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	link(hostBinary(t), filepath.Join(bin, "banmen"))
	if plugins {
		os.Mkdir(filepath.Join(bin, "plugins"), 0o755)
		for _, name := range []string{"faulty", "tictactoe"} {
			link(filepath.Join(pluginDir, name), filepath.Join(bin, "plugins", name))
		}
	}
	return filepath.Join(bin, "banmen")
}

// runIn starts the banmen binary exe in directory dir and returns its URL,
// or "" and its log when it exits instead. It is stopped at cleanup.
func runIn(t *testing.T, exe, dir string, args ...string) (url, logs string) {
	t.Helper()
	cmd := exec.Command(exe, args...)
	cmd.Dir = dir
	stdout, stderr := &syncBuffer{}, &syncBuffer{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		<-exited
	})
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := urlLine.FindStringSubmatch(stdout.String()); m != nil {
			return m[1], stderr.String()
		}
		select {
		case <-exited:
			return "", stderr.String()
		default:
		}
	}
	t.Fatalf("host neither served nor stopped:\n%s", stderr)
	return "", ""
}

func getJSON(t *testing.T, url string, v any) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_ = json.NewDecoder(resp.Body).Decode(v)
	return resp.StatusCode
}

// bin/banmen started from another directory finds its plugins, its data
// directory and the default configuration file as it does from the
// checkout's root; when it cannot, the error names the setting and how to
// set it.
func TestStartedFromAnotherDirectory(t *testing.T) {
	elsewhere := t.TempDir()
	shipped, err := os.ReadFile("../../../configs/default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	t.Run("checkout", func(t *testing.T) {
		root := t.TempDir()
		exe := install(t, root, true)
		os.Mkdir(filepath.Join(root, "configs"), 0o755)
		os.WriteFile(filepath.Join(root, "configs", "default.yaml"), shipped, 0o644)
		url, logs := runIn(t, exe, elsewhere, "-port", "0")
		if url == "" {
			t.Fatalf("host stopped:\n%s", logs)
		}
		var d struct{ ID string }
		if code := getJSON(t, url+"/api/v1/variants/faulty", &d); code != 200 || d.ID != "faulty" {
			t.Errorf("variant faulty: %d %+v", code, d)
		}
		// The shipped file's variants list (shogi, yonin, xiangqi) hides
		// the test plugins' variants: the file was read.
		var ds []any
		if getJSON(t, url+"/api/v1/variants", &ds); len(ds) != 0 {
			t.Errorf("variants = %v, want those of the shipped list (none here)", ds)
		}
		if _, err := os.Stat(filepath.Join(root, "data")); err != nil {
			t.Errorf("data_dir ../data of configs/default.yaml: %v", err)
		}
	})
	t.Run("bin alone", func(t *testing.T) {
		root := t.TempDir()
		url, logs := runIn(t, install(t, root, true), elsewhere, "-port", "0")
		if url == "" {
			t.Fatalf("host stopped:\n%s", logs)
		}
		var ds []struct{ ID string }
		if getJSON(t, url+"/api/v1/variants", &ds); len(ds) != 2 {
			t.Errorf("variants = %v, want faulty and tictactoe", ds)
		}
		if _, err := os.Stat(filepath.Join(root, "bin", "data")); err != nil {
			t.Errorf("built-in data_dir beside the executable: %v", err)
		}
	})
	t.Run("no plugins", func(t *testing.T) {
		root := t.TempDir()
		url, logs := runIn(t, install(t, root, false), elsewhere, "-port", "0")
		if url != "" {
			t.Fatal("host serves without a plugin directory")
		}
		for _, want := range []string{`plugin_dir "` + filepath.Join(root, "bin", "plugins") + `"`, "-plugin_dir", "BANMEN_PLUGIN_DIR", "make build"} {
			if !strings.Contains(logs, want) {
				t.Errorf("error lacks %q:\n%s", want, logs)
			}
		}
	})
}

func TestHostGCTarget(t *testing.T) {
	prev := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prev)
	if got := setHostGC(func(string) string { return "" }); got != hostGCPercent {
		t.Fatalf("GOGC unset: target %d, want %d", got, hostGCPercent)
	}
	if p := debug.SetGCPercent(100); p != hostGCPercent {
		t.Fatalf("GOGC unset: runtime at %d, want %d", p, hostGCPercent)
	}
	// GOGC in the environment: the runtime's own value stays.
	env := func(k string) string {
		if k == "GOGC" {
			return "50"
		}
		return ""
	}
	if got := setHostGC(env); got != 100 {
		t.Fatalf("GOGC set: target %d, want the runtime's 100", got)
	}
	if p := debug.SetGCPercent(100); p != 100 {
		t.Fatalf("GOGC set: runtime changed to %d", p)
	}
}

// forged is a State the host issued with its first byte changed: its tag
// no longer matches, whatever the plugin would make of the bytes.
func forged(state string) string {
	b, err := base64.StdEncoding.DecodeString(state)
	if err != nil || len(b) == 0 {
		return state
	}
	b[0] ^= 1
	return base64.StdEncoding.EncodeToString(b)
}

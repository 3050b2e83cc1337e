// Package analysistest runs the board's analysis module
// (webui/static/js/analysis.js) in Chromium: the stream of rows, cancelled
// by the page, the graph and its marks, the text alternative and the keys.
package analysistest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/banmen/banmen/harness/chromium"
	"github.com/banmen/banmen/webui"
)

var (
	pageURL    string
	browserCtx context.Context
	// cancelled is told when the fake analysis stream's client went away.
	cancelled = make(chan struct{}, 4)
)

func TestMain(m *testing.M) { os.Exit(run(m)) }

// rows is a fake analysis of a 3-ply shogi game: the third move is a
// blunder.
const rows = `{"ply":0,"toMove":[0],"score":{"seat":0,"cp":30},"scores":[{"seat":0,"cp":30},{"seat":1,"cp":-30}],"best":"7g7f","pv":["7g7f"]}

{"ply":1,"toMove":[1],"score":{"seat":0,"cp":40},"scores":[{"seat":0,"cp":40},{"seat":1,"cp":-40}],"best":"3c3d","pv":["3c3d"]}
{"ply":2,"toMove":[0],"score":{"seat":0,"cp":20},"scores":[{"seat":0,"cp":20},{"seat":1,"cp":-20}],"best":"2g2f","pv":["2g2f"]}
{"ply":3,"toMove":[1],"score":{"seat":0,"cp":-700},"scores":[{"seat":0,"cp":-700},{"seat":1,"cp":700}],"best":"2b3c","pv":["2b3c"],"mark":"??"}
`

// run serves the embedded static files, a blank page and a fake analysis
// stream, and starts one Chromium for the whole binary. A missing Chromium
// fails: these tests must not pass by not running.
func run(m *testing.M) int {
	browser, err := chromium.Find("", os.Getenv)
	if err != nil {
		fmt.Println("analysistest:", err, "(install the chromium package: scripts/deps.sh)")
		return 1
	}
	mux := http.NewServeMux()
	mux.Handle("/static/", http.StripPrefix("/static/", http.FileServerFS(webui.Static())))
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>analysis</title><body><svg id="g"></svg></body>`)
	})
	mux.HandleFunc("POST /rows", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		fmt.Fprint(w, rows)
	})
	mux.HandleFunc("POST /busy", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", "10")
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprint(w, `{"error":{"code":"analysis_busy","message":"busy"}}`)
	})
	// endless writes a row, then heartbeats until its client goes away.
	mux.HandleFunc("POST /endless", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		fmt.Fprintln(w, `{"ply":0,"scores":[{"seat":0,"cp":0},{"seat":1,"cp":0}],"best":"7g7f","pv":["7g7f"]}`)
		w.(http.Flusher).Flush()
		for {
			select {
			case <-r.Context().Done():
				cancelled <- struct{}{}
				return
			case <-time.After(20 * time.Millisecond):
				fmt.Fprint(w, "\n")
				w.(http.Flusher).Flush()
			}
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	pageURL = srv.URL + "/"

	tmp, err := os.MkdirTemp("", "banmen-analysistest-")
	if err != nil {
		fmt.Println("analysistest:", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(browser),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.UserDataDir(filepath.Join(tmp, "chromium")),
	)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(allocCtx)
	defer cancel()
	if err := chromedp.Do(ctx); err != nil {
		fmt.Println("analysistest: chromium:", err)
		return 1
	}
	browserCtx = ctx
	return m.Run()
}

// tab opens the blank page in a new tab; any JavaScript exception or console
// error there fails the test.
func tab(t *testing.T) context.Context {
	t.Helper()
	tabCtx, cancel := chromedp.NewContext(browserCtx)
	var (
		mu   sync.Mutex
		errs []string
	)
	msgs := chromedp.Console(tabCtx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range msgs {
			if err != nil {
				return
			}
			if strings.HasSuffix(m.URL, "/busy") && strings.HasPrefix(m.Text, "Failed to load resource") {
				continue // the 503 TestStream asks for
			}
			if m.IsException() || m.Type == chromedp.ConsoleError {
				mu.Lock()
				errs = append(errs, fmt.Sprintf("%s %s:%d %s", m.Type, m.URL, m.Line+1, m.Text))
				mu.Unlock()
			}
		}
	}()
	ctx, tcancel := context.WithTimeout(tabCtx, 2*time.Minute)
	t.Cleanup(func() {
		tcancel()
		cancel()
		<-done
		for _, e := range errs {
			t.Errorf("page error: %s", e)
		}
	})
	if err := chromedp.Do(ctx, chromedp.Navigate(pageURL)); err != nil {
		t.Fatal(err)
	}
	return ctx
}

func eval[T any](t *testing.T, ctx context.Context, js string, out *T) {
	t.Helper()
	got, err := chromedp.Run(ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("%v\n%s", err, js)
	}
	*out = got
}

// TestStream: the rows arrive in order, heartbeats skipped; a refusal
// throws with its code and Retry-After; an abort ends the stream and the
// server sees its client go.
func TestStream(t *testing.T) {
	ctx := tab(t)
	var got struct {
		Plies []int
		Marks []string
		Busy  struct {
			Status, RetryAfter int
			Code               string
		}
		Aborted bool
		Rows    int
	}
	eval(t, ctx, `(async () => {
		const { streamAnalysis } = await import('/static/js/analysis.js');
		const plies = [], marks = [];
		await streamAnalysis('/rows', { state: 'x' }, { onRow: (r) => { plies.push(r.ply); marks.push(r.mark || ''); } });
		let busy = {};
		try { await streamAnalysis('/busy', {}); } catch (e) { busy = { status: e.status, retryAfter: e.retryAfter, code: e.code }; }
		const ctl = new AbortController();
		let rows = 0, aborted = false;
		try {
			await streamAnalysis('/endless', {}, { signal: ctl.signal, onRow: () => { rows++; ctl.abort(); } });
		} catch (e) { aborted = e.name === 'AbortError'; }
		return { plies, marks, busy, aborted, rows };
	})()`, &got)
	if fmt.Sprint(got.Plies) != "[0 1 2 3]" || fmt.Sprint(got.Marks) != "[   ??]" {
		t.Errorf("rows: plies %v, marks %q", got.Plies, got.Marks)
	}
	if got.Busy.Status != 503 || got.Busy.RetryAfter != 10 || got.Busy.Code != "analysis_busy" {
		t.Errorf("a full pool: %+v", got.Busy)
	}
	if !got.Aborted || got.Rows != 1 {
		t.Errorf("abort: aborted %v after %d rows", got.Aborted, got.Rows)
	}
	select {
	case <-cancelled:
	case <-time.After(time.Minute):
		t.Error("the server never saw the aborted stream's client go")
	}
}

// TestGraph: two seats draw one line (the named seat's), four seats one
// per seat in its colour; a blunder gets its dot, the current ply its
// rule; the text alternative reads the ply; the arrow keys and Home/End
// move through the plies.
func TestGraph(t *testing.T) {
	ctx := tab(t)
	var got struct {
		Lines2, Lines4, Blunders int
		Colors4                  []string
		Current                  bool
		Text, TextOver           string
		Keys                     []int
	}
	eval(t, ctx, `(async () => {
		const { drawGraph, describePly, graphKeys } = await import('/static/js/analysis.js');
		const rows = (await (await fetch('/rows', { method: 'POST' })).text()).split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
		const svg = document.getElementById('g');
		const seats2 = [{ name: 'Sente', color: '#111' }, { name: 'Gote', color: '#eee' }];
		drawGraph(svg, rows, { seats: seats2, plies: 3, current: 2 });
		const lines2 = svg.querySelectorAll('polyline').length;
		const blunders = svg.querySelectorAll('circle.mark-blunder').length;
		const current = !!svg.querySelector('line.graph-current');
		const text = describePly(rows[3], { seats: seats2, t: (k) => ({ 'analysis.move': 'move', 'analysis.best': 'best' })[k] });
		const textOver = describePly({ ply: 4, over: true }, { seats: seats2, t: (k) => ({ 'analysis.move': 'move', 'analysis.over': 'the end' })[k] });
		const seats4 = ['#c00', '#0a0', '#00c', '#aa0'].map((color, i) => ({ name: 'S' + i, color }));
		const rows4 = [0, 1, 2].map((ply) => ({ ply, toMove: [ply % 4], scores: [0, 1, 2, 3].map((seat) => ({ seat, cp: 10 * seat - ply })) }));
		drawGraph(svg, rows4, { seats: seats4, plies: 2 });
		const lines4 = svg.querySelectorAll('polyline').length;
		const colors4 = [...svg.querySelectorAll('polyline')].map((p) => p.getAttribute('stroke'));
		let ply = 1;
		const keys = [];
		graphKeys(svg, { plies: 3, get: () => ply, onSelect: (p) => { ply = p; keys.push(p); } });
		for (const key of ['ArrowRight', 'ArrowRight', 'ArrowRight', 'Home', 'ArrowLeft', 'End']) {
			svg.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true }));
		}
		return { lines2, lines4, blunders, colors4, current, text, textOver, keys };
	})()`, &got)
	if got.Lines2 != 1 || got.Lines4 != 4 || got.Blunders != 1 || !got.Current {
		t.Errorf("graph: %d lines for two seats, %d for four, %d blunders, current rule %v", got.Lines2, got.Lines4, got.Blunders, got.Current)
	}
	if fmt.Sprint(got.Colors4) != "[#c00 #0a0 #00c #aa0]" {
		t.Errorf("four seats' colours %v", got.Colors4)
	}
	if got.Text != "move 3, Sente -7.00, best 2b3c ??" || got.TextOver != "move 4, the end" {
		t.Errorf("text alternative %q, %q", got.Text, got.TextOver)
	}
	if fmt.Sprint(got.Keys) != "[2 3 3 0 0 3]" {
		t.Errorf("keys moved to %v", got.Keys)
	}
}

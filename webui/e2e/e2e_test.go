// Package e2e plays whole games in a real Chromium against the real host
// binary and the real rules plugins: by mouse, by touch and by keyboard
// only, with a reload in the middle, and checks the exported records. Any
// JavaScript exception or console error fails the test.
//
// It must never reach into the host's internals: it drives the site as a
// person would, through the page.
package e2e

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"go.yaml.in/yaml/v3"

	"github.com/banmen/banmen/configs"
	"github.com/banmen/banmen/harness/chromium"
	"github.com/banmen/banmen/locales"
	"github.com/banmen/banmen/platform/hosttest"
)

var (
	baseURL    string
	browserCtx context.Context
)

func TestMain(m *testing.M) { os.Exit(run(m)) }

// run starts the test host (the shipped configuration, from $BANMEN_BIN or
// binaries built for the run) and one Chromium for every test. No browser
// is a skip, unless BANMEN_REQUIRE_BROWSER=1 makes it a failure.
func run(m *testing.M) int {
	browser, err := chromium.Find("", os.Getenv)
	if errors.Is(err, chromium.ErrNotFound) {
		fmt.Println("e2e: skipped:", err)
		return 0
	}
	if err != nil {
		fmt.Println("e2e:", err)
		return 1
	}
	tmp, err := os.MkdirTemp("", "banmen-e2e-")
	if err != nil {
		fmt.Println("e2e:", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	host, err := hosttest.Start(context.Background(), os.Getenv("BANMEN_BIN"))
	if err != nil {
		fmt.Println("e2e: host:", err)
		return 1
	}
	defer host.Stop()
	baseURL = host.URL

	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(browser),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(filepath.Join(tmp, "chromium")),
	)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(allocCtx)
	defer cancel()
	if err := chromedp.Do(ctx); err != nil {
		fmt.Println("e2e: chromium:", err)
		return 1
	}
	browserCtx = ctx
	return m.Run()
}

// TestHomeShowsShippedVariants: the tests run the site users get. The home
// page lists the games configs/default.yaml lists, in its order, and not the
// example plugin the test host also has (a host on built-in defaults shows
// every plugin, sorted).
func TestHomeShowsShippedVariants(t *testing.T) {
	var shipped struct {
		Variants []string `yaml:"variants"`
	}
	if err := yaml.Unmarshal(configs.Default, &shipped); err != nil || len(shipped.Variants) == 0 {
		t.Fatalf("configs/default.yaml lists no variants (%v): this test would prove nothing", err)
	}
	ctx := tab(t)
	do(t, ctx, chromedp.Navigate(baseURL+"/en/"))
	got := eval[[]string](t, ctx, `[...document.querySelectorAll('.game-list .game-card a')].map((a) => a.pathname.split('/')[2])`)
	if !slices.Equal(got, shipped.Variants) {
		t.Errorf("the home page lists %v, want %v as configs/default.yaml says", got, shipped.Variants)
	}
}

// tab opens a new tab (with opts: in a browser context of its own, or
// another tab's), fails the test on any page error at the end, and returns a
// context bounded by the test's time.
func tab(t *testing.T, opts ...chromedp.ContextOption) context.Context {
	t.Helper()
	ctx, errs := watchedTab(t, opts...)
	t.Cleanup(func() {
		for _, e := range errs() {
			t.Errorf("page error: %s", e)
		}
	})
	return ctx
}

// watchedTab opens a new tab and collects its JavaScript exceptions and
// console errors; errs may be read once the test has ended.
func watchedTab(t *testing.T, opts ...chromedp.ContextOption) (ctx context.Context, errs func() []string) {
	t.Helper()
	tabCtx, cancel := chromedp.NewContext(browserCtx, opts...)
	if err := chromedp.Do(tabCtx); err != nil {
		t.Fatal(err)
	}
	var (
		mu   sync.Mutex
		list []string
	)
	msgs := chromedp.Console(tabCtx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range msgs {
			if err != nil {
				return
			}
			if m.IsException() || m.Type == chromedp.ConsoleError {
				mu.Lock()
				list = append(list, fmt.Sprintf("%s %s:%d %s", m.Type, m.URL, m.Line+1, m.Text))
				mu.Unlock()
			}
		}
	}()
	tctx, tcancel := context.WithTimeout(tabCtx, 3*time.Minute)
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			tcancel()
			cancel()
			<-done
		}
	}
	t.Cleanup(stop)
	return tctx, func() []string {
		stop()
		mu.Lock()
		defer mu.Unlock()
		return list
	}
}

// TestPageErrorsAreCaught proves the watch every test relies on: an
// exception and a console error in the page are both seen.
func TestPageErrorsAreCaught(t *testing.T) {
	ctx, errs := watchedTab(t)
	do(t, ctx, chromedp.Navigate(baseURL+"/en/"))
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`console.error('e2e-console'); setTimeout(() => { throw new Error('e2e-throw'); }, 0)`),
		chromedp.Sleep(300*time.Millisecond))
	got := strings.Join(errs(), "\n")
	for _, want := range []string{"e2e-console", "e2e-throw"} {
		if !strings.Contains(got, want) {
			t.Errorf("the page error %q was not caught; caught:\n%s", want, got)
		}
	}
}

func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// wait polls a JavaScript predicate.
func wait(t *testing.T, ctx context.Context, js string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(15*time.Second))); err != nil {
		t.Fatalf("waiting for %s: %v (status %q)", js, err, statusText(ctx))
	}
}

func statusText(ctx context.Context) string {
	s, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('status')?.innerText ?? ''`))
	return s
}

// open loads a board page and waits until the game is on screen.
func open(t *testing.T, ctx context.Context, path string) {
	t.Helper()
	do(t, ctx, chromedp.Navigate(baseURL+path))
	wait(t, ctx, `document.body.dataset.ready === 'true'`)
}

func waitPly(t *testing.T, ctx context.Context, ply int) {
	t.Helper()
	wait(t, ctx, fmt.Sprintf(`document.body.dataset.ply === '%d'`, ply))
}

// center is the middle of the first element matching sel, scrolled into view.
func center(t *testing.T, ctx context.Context, sel string) (x, y float64) {
	t.Helper()
	xy := eval[[]float64](t, ctx, fmt.Sprintf(`(() => {
		const e = document.querySelector(%q);
		if (!e) return null;
		e.scrollIntoView({block: 'nearest'});
		const r = e.getBoundingClientRect();
		return [r.x + r.width / 2, r.y + r.height / 2];
	})()`, sel))
	return xy[0], xy[1]
}

func cellSel(i int) string { return fmt.Sprintf(`.cell[data-index="%d"]`, i) }

// shogiCell is the cell index of a USI square ("7g"): files 9…1 left to
// right, ranks a…i top to bottom, as seen by the first seat. Yonin uses the
// same squares.
func shogiCell(sq string) int { return int(sq[1]-'a')*9 + int('9'-sq[0]) }

// xiangqiCell is the cell index of a UCCI square ("h2"): files a…i left to
// right, ranks 9…0 top to bottom.
func xiangqiCell(sq string) int { return int('9'-sq[1])*9 + int(sq[0]-'a') }

// exportText opens the export panel, exports in format and returns the text.
func exportText(t *testing.T, ctx context.Context, format string) string {
	t.Helper()
	do(t, ctx,
		chromedp.Evaluate[chromedp.Void](`document.getElementById('export-box').open = true`),
		chromedp.SetValue(chromedp.ID("export-format"), format),
		chromedp.Evaluate[chromedp.Void](`document.getElementById('export-text').value = ''`),
		chromedp.Click(chromedp.ID("export-go")),
	)
	wait(t, ctx, `document.getElementById('export-text').value !== ''`)
	return eval[string](t, ctx, `document.getElementById('export-text').value`)
}

// xiangqiGame is a complete game, Red mating Black in 37 plies, found by
// letting the plugin's computer play Red strongly against a weak Black.
const xiangqiGame = "a3a4 b7d7 b2a2 c9a7 a2a6 d7d2 a6a9 d2d5 a4a5 i6i5 a5a6 e9e8 a6a7 e8e9 a7a8 i9i6 h2h9 i6i9 h9h8 d5e5 c0e2 e5d5 a8b8 d5e5 b8b9 h7g7 b9c9 e5d5 c9d9 e9d9 a9f9 i5i4 f9i9 g9e7 a0a8 d5d2 h8h9"

// TestXiangqiMouse plays a whole xiangqi game with the mouse, clicking and
// dragging, reloads in the middle, and checks the FEN + UCCI export.
func TestXiangqiMouse(t *testing.T) {
	ctx := tab(t)
	do(t, ctx, chromedp.EmulateViewport(1366, 900))
	open(t, ctx, "/en/xiangqi/play?mode=local")
	moves := strings.Fields(xiangqiGame)
	for i, m := range moves {
		fx, fy := center(t, ctx, cellSel(xiangqiCell(m[:2])))
		tx, ty := center(t, ctx, cellSel(xiangqiCell(m[2:])))
		if i%4 == 3 {
			do(t, ctx, chromedp.DragAndDropXY(fx, fy, tx, ty))
		} else {
			do(t, ctx, chromedp.MouseClickXY(fx, fy))
			wait(t, ctx, `document.querySelectorAll('.cell.target').length > 0`)
			do(t, ctx, chromedp.MouseClickXY(tx, ty))
		}
		waitPly(t, ctx, i+1)
		if i == 17 {
			do(t, ctx, chromedp.Reload())
			wait(t, ctx, `document.body.dataset.ready === 'true'`)
			waitPly(t, ctx, i+1)
			if n := eval[int](t, ctx, `document.querySelectorAll('#history li').length`); n != i+1 {
				t.Fatalf("after reload the move list has %d moves, want %d", n, i+1)
			}
		}
	}
	wait(t, ctx, `document.body.dataset.status === 'over'`)
	if s := statusText(ctx); !strings.Contains(s, "Red wins") || !strings.Contains(s, "checkmate") {
		t.Errorf("status %q, want Red winning by checkmate", s)
	}
	checkMatedKing(t, ctx)
	want := "fen rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1 moves " + xiangqiGame
	if got := exportText(t, ctx, "fen+ucci"); strings.TrimSpace(got) != want {
		t.Errorf("FEN + UCCI export:\n got %q\nwant %q", got, want)
	}
	if got := exportText(t, ctx, "wxf"); !strings.Contains(got, "P9+1") {
		t.Errorf("WXF export lacks the first move P9+1:\n%s", got)
	}
	// Copy answers either way (a headless browser may refuse the clipboard);
	// Download hands the text to the browser as a file.
	do(t, ctx, chromedp.Click(chromedp.ID("export-copy")))
	wait(t, ctx, `document.getElementById('export-status').textContent !== ''`)
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`window.__downloads = [];
		HTMLAnchorElement.prototype.click = function () { window.__downloads.push(this.download); };`),
		chromedp.Click(chromedp.ID("export-download")))
	if got := eval[[]string](t, ctx, `window.__downloads`); len(got) != 1 || !strings.HasPrefix(got[0], "xiangqi-") || !strings.HasSuffix(got[0], ".txt") {
		t.Errorf("Download offered %q, want one xiangqi-….txt file", got)
	}

	// Flipping puts Red's corner (the last cell) at the top.
	do(t, ctx, chromedp.Click(chromedp.ID("flip")))
	if !eval[bool](t, ctx, `document.querySelector('.cell[data-index="89"]').getBoundingClientRect().top < document.querySelector('.cell[data-index="0"]').getBoundingClientRect().top`) {
		t.Error("after Flip board the first seat's side is not at the top")
	}
	// New game asks first only while a game is on; after the mate it starts at once.
	do(t, ctx, chromedp.Click(chromedp.ID("new-game")))
	waitPly(t, ctx, 0)
	x, y := center(t, ctx, cellSel(xiangqiCell("h2")))
	do(t, ctx, chromedp.MouseClickXY(x, y))
	x, y = center(t, ctx, cellSel(xiangqiCell("e2")))
	do(t, ctx, chromedp.MouseClickXY(x, y))
	waitPly(t, ctx, 1)
	do(t, ctx, chromedp.Click(chromedp.ID("new-game")))
	wait(t, ctx, `document.getElementById('confirm-dialog').open`)
	do(t, ctx, chromedp.Click(chromedp.CSS(`#confirm-dialog button[value="no"]`)))
	wait(t, ctx, `!document.getElementById('confirm-dialog').open`)
	waitPly(t, ctx, 1)
	do(t, ctx, chromedp.Click(chromedp.ID("new-game")), chromedp.Click(chromedp.ID("confirm-yes")))
	waitPly(t, ctx, 0)
}

// TestStorageUnavailable plays where localStorage refuses to keep anything
// (a private window, a full quota): a notice says so, and play goes on, up to
// a resignation.
func TestStorageUnavailable(t *testing.T) {
	ctx := tab(t)
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: `Storage.prototype.setItem = function () { throw new DOMException('full', 'QuotaExceededError'); };`,
	}); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, chromedp.EmulateViewport(1366, 900))
	open(t, ctx, "/uk/shogi/play?mode=local")
	if n := eval[string](t, ctx, `document.getElementById('notices').innerText`); !strings.Contains(n, "не дозволяє сайту зберігати") {
		t.Errorf("no storage notice, the notices say %q", n)
	}
	x, y := center(t, ctx, cellSel(shogiCell("7g")))
	do(t, ctx, chromedp.MouseClickXY(x, y))
	x, y = center(t, ctx, cellSel(shogiCell("7f")))
	do(t, ctx, chromedp.MouseClickXY(x, y))
	waitPly(t, ctx, 1)
	do(t, ctx, chromedp.Click(chromedp.ID("resign")))
	wait(t, ctx, `document.getElementById('confirm-dialog').open`)
	if q := eval[string](t, ctx, `document.getElementById('confirm-text').textContent`); !strings.Contains(q, "Ґоте") {
		t.Errorf("the resign question %q does not name Gote, the side to move", q)
	}
	do(t, ctx, chromedp.Click(chromedp.ID("confirm-yes")))
	wait(t, ctx, `document.body.dataset.status === 'over'`)
	if s := statusText(ctx); !strings.Contains(s, "Перемога: Сенте") || !strings.Contains(s, "суперник здався") {
		t.Errorf("status %q, want Sente winning by resignation, in Ukrainian", s)
	}
}

// checkMatedKing checks the board after a shogi or xiangqi mate: the mated
// king stays upright with its glyph and the check mark. Face down is Yonin's
// eliminated king, not theirs.
func checkMatedKing(t *testing.T, ctx context.Context) {
	t.Helper()
	if n := eval[int](t, ctx, `document.querySelectorAll('.pieces .piece.flipped').length`); n != 0 {
		t.Errorf("%d pieces face down after the mate", n)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('.pieces .check').length`); n != 1 {
		t.Errorf("%d check marks after the mate, want the mated king's", n)
	}
}

// shogiTsume is a position where Sente mates in three plies: a silver
// enters the zone (promotion asked), the king steps aside, a gold is dropped.
const shogiTsume = "4k4/9/9/5S3/9/9/9/9/4K4 b GP 1"

// TestShogiTouch imports a position through the Import panel and mates by
// touch on a phone-sized screen, choosing the promotion and dropping a piece
// from hand, with a reload in the middle; then checks the SFEN + USI export.
func TestShogiTouch(t *testing.T) {
	ctx := tab(t)
	do(t, ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulatePortrait))
	open(t, ctx, "/en/shogi/play?mode=local")
	if w := pageWidth(t, ctx); w > 390 {
		t.Errorf("the page is %.0f px wide on a 390 px screen: it scrolls sideways", w)
	}
	// A fresh game may already be there from another test; start clean.
	tapEl := func(sel string) {
		t.Helper()
		x, y := center(t, ctx, sel)
		do(t, ctx, chromedp.TapXY(x, y))
	}
	// Chrome turns a synthetic tap on an ordinary button into a click only
	// most of the time; the controls outside the board are tapped again until
	// they react. (The board itself reacts to pointer events, not clicks.)
	tapUntil := func(sel, done string) {
		t.Helper()
		for range 3 {
			tapEl(sel)
			if _, err := chromedp.Run(ctx, chromedp.Poll[bool](done, chromedp.WithPollingTimeout(1500*time.Millisecond))); err == nil {
				return
			}
		}
		t.Fatalf("tapping %s never made %s true", sel, done)
	}
	tapUntil("#import-box summary", `document.getElementById('import-box').open`)
	do(t, ctx, chromedp.SetValue(chromedp.ID("import-format"), "sfen+usi"), chromedp.SetValue(chromedp.ID("import-text"), shogiTsume))
	tapUntil("#import-go", `document.getElementById('confirm-dialog').open || document.querySelector('.hand-piece[data-seat="0"][data-kind="G"]') !== null`)
	if eval[bool](t, ctx, `document.getElementById('confirm-dialog').open`) {
		tapUntil("#confirm-yes", `!document.getElementById('confirm-dialog').open`)
	}
	wait(t, ctx, `document.body.dataset.ply === '0' && document.querySelector('.hand-piece[data-seat="0"][data-kind="G"]') !== null`)

	tapEl(cellSel(shogiCell("4d")))
	wait(t, ctx, `document.querySelectorAll('.cell.target').length > 0`)
	tapEl(cellSel(shogiCell("4c")))
	wait(t, ctx, `document.getElementById('promote-dialog').open`)
	if first := eval[string](t, ctx, `document.querySelector('.promote-choice').dataset.promote`); first != "true" {
		t.Errorf("the first promotion choice is promote=%s, want the promotion first", first)
	}
	tapUntil(`.promote-choice[data-promote="true"]`, `!document.getElementById('promote-dialog').open`)
	waitPly(t, ctx, 1)

	do(t, ctx, chromedp.Reload())
	wait(t, ctx, `document.body.dataset.ready === 'true'`)
	waitPly(t, ctx, 1)
	if got := eval[string](t, ctx, `document.querySelector('#history li').innerText`); !strings.Contains(got, "銀成") {
		t.Errorf("first move %q is not a promotion", got)
	}

	tapEl(cellSel(shogiCell("5a")))
	wait(t, ctx, `document.querySelectorAll('.cell.target').length > 0`)
	tapEl(cellSel(shogiCell("4a")))
	waitPly(t, ctx, 2)
	// The gold goes from the hand to the board by a drag of the finger.
	fx, fy := center(t, ctx, `.hand-piece[data-seat="0"][data-kind="G"]`)
	tx, ty := center(t, ctx, cellSel(shogiCell("4b")))
	touch := func(typ input.DispatchTouchEventType, x, y float64) {
		t.Helper()
		p := input.DispatchTouchEventParams{Type: typ, TouchPoints: []*input.TouchPoint{}}
		if typ != input.DispatchTouchEventTypeTouchEnd {
			p.TouchPoints = []*input.TouchPoint{{X: x, Y: y}}
		}
		if _, err := chromedp.Call(ctx, input.DispatchTouchEvent, p); err != nil {
			t.Fatal(err)
		}
	}
	touch(input.DispatchTouchEventTypeTouchStart, fx, fy)
	for i := 1; i <= 8; i++ {
		touch(input.DispatchTouchEventTypeTouchMove, fx+(tx-fx)*float64(i)/8, fy+(ty-fy)*float64(i)/8)
		if i == 4 && !eval[bool](t, ctx, `document.querySelector('.ghost') !== null`) {
			t.Error("no piece follows the finger during the drag")
		}
	}
	touch(input.DispatchTouchEventTypeTouchEnd, 0, 0)
	waitPly(t, ctx, 3)
	wait(t, ctx, `document.body.dataset.status === 'over'`)
	if s := statusText(ctx); !strings.Contains(s, "Sente wins") || !strings.Contains(s, "checkmate") {
		t.Errorf("status %q, want Sente winning by checkmate", s)
	}
	checkMatedKing(t, ctx)
	if l := eval[string](t, ctx, `document.querySelector('`+cellSel(shogiCell("4a"))+`').getAttribute('aria-label')`); !strings.HasSuffix(l, "king") {
		t.Errorf("the mated king's cell reads %q", l)
	}
	// Western names in the move list. (A mouse click: Chrome turns a
	// synthetic tap here into a click only now and then.)
	do(t, ctx, chromedp.Click(chromedp.CSS(`#notation-toggle [data-alt="true"]`)))
	if got := eval[string](t, ctx, `document.getElementById('history').innerText`); !strings.Contains(got, "G*4b") {
		t.Errorf("western move list %q lacks G*4b", got)
	}
	want := "sfen " + shogiTsume + " moves 4d4c+ 5a4a G*4b"
	if got := exportText(t, ctx, "sfen+usi"); strings.TrimSpace(got) != want {
		t.Errorf("SFEN + USI export:\n got %q\nwant %q", got, want)
	}
	if got := exportText(t, ctx, "kif"); !strings.Contains(got, "金打") {
		t.Errorf("KIF export lacks the gold drop:\n%s", got)
	}
}

// TestAnnouncementSuperseded: the live region says only the latest
// announcement. A piece picked up and put back within one task (a fast
// keyboard, or a move answered before the pickup's text was shown) must not
// let the pickup's text appear after the newer one was asked for; it did,
// and TestYoninKeyboard then read "gold picked up" where it wanted the check.
func TestAnnouncementSuperseded(t *testing.T) {
	ctx := tab(t)
	open(t, ctx, "/en/shogi/play?mode=local")
	if eval[int](t, ctx, `Number(document.body.dataset.ply)`) != 0 {
		do(t, ctx, chromedp.Evaluate[chromedp.Void](`localStorage.removeItem('banmen.local.shogi')`), chromedp.Reload())
		wait(t, ctx, `document.body.dataset.ready === 'true' && document.body.dataset.ply === '0'`)
	}
	// Every text the live region is given, in order; then pick the pawn up
	// and put it back, as Enter twice does (a click with detail 0).
	do(t, ctx, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
		window.said = [];
		const live = document.getElementById('live');
		new MutationObserver((rs) => { for (const r of rs) for (const n of r.addedNodes) window.said.push(n.textContent); })
			.observe(live, { childList: true, characterData: true, subtree: true });
		const c = document.querySelector('.cell[data-index="%d"]');
		c.click();
		c.click();
	})()`, shogiCell("7g"))))
	wait(t, ctx, `window.said.length > 0`)
	if said := eval[[]string](t, ctx, `window.said`); len(said) == 0 || said[0] != "Put back" {
		t.Errorf("the live region said %q, want only the latest announcement, \"Put back\"", said)
	}
}

// yoninMoves reach a check-priority position: after South's last move East
// is in check and answers out of turn (West was next), capturing the silver.
var yoninMoves = []string{"S:4i3h", "W:9g8h", "N:4b4c", "E:1g2h", "S:3h3g", "W:8h9g", "N:5a4b", "E:1d2c", "S:3g2f", "E:2e2f"}

// yoninEnding is a whole game (South hard against three easy computers) but
// its last move: East's gold drop mates North, the second mate, which ends
// the game with East first.
var yoninEnding = strings.Fields("S:5g5f W:9c8b N:7a8b E:1c2c S:5f5e W:9d9c N:8b9c E:2c1b S:6h6g W:8d7d N:G*9d N:6a7b E:1b2c S:6g6f N:5a6a E:2c1b S:5h5g N:6a5a E:1b2c S:5g5f N:5a6a E:2c1b S:5f4f N:6a5a E:1b2c S:4f4d N:5a6a E:2c1b S:4d7d N:6a5a E:1b2c S:7d7b+ N:4a3b E:2c3b S:7b7a N:S*6a")

const yoninStart = "2SnGnKnGnSn2/3PnRnPn3/Sw3Pn3Se/GwPw5PeGe/KwRwPw3PeReKe/GwPw5PeGe/Sw3Ps3Se/3PsRsPs3/2SsGsKsGsSs2 s - - singles,two_mates,mater 1"

// TestYoninKeyboard plays Yonin Shogi with the keyboard only: Tab onto the
// board, arrows, Enter to pick up and put down; it checks the check-priority
// turn, the announcements, a reload, and the export.
func TestYoninKeyboard(t *testing.T) {
	ctx := tab(t)
	do(t, ctx, chromedp.EmulateViewport(1366, 900))
	open(t, ctx, "/en/yonin/play?mode=local")
	if eval[int](t, ctx, `Number(document.body.dataset.ply)`) != 0 {
		do(t, ctx, chromedp.Evaluate[chromedp.Void](`localStorage.removeItem('banmen.local.yonin')`), chromedp.Reload())
		wait(t, ctx, `document.body.dataset.ready === 'true' && document.body.dataset.ply === '0'`)
	}
	// Tab from the top of the page until the board has the focus.
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.activeElement?.blur(); window.scrollTo(0, 0)`))
	for i := 0; ; i++ {
		if i > 60 {
			t.Fatal("Tab never reached the board")
		}
		do(t, ctx, chromedp.KeyEvent(kb.Tab))
		if eval[bool](t, ctx, `document.activeElement?.classList.contains('cell') ?? false`) {
			break
		}
	}
	if !eval[bool](t, ctx, `getComputedStyle(document.activeElement).outlineStyle !== 'none'`) {
		t.Error("the focused square shows no outline")
	}
	goTo := func(i int) {
		t.Helper()
		for range 40 {
			cur := eval[int](t, ctx, `Number(document.activeElement.dataset.index)`)
			if cur == i {
				return
			}
			dx, dy := i%9-cur%9, i/9-cur/9
			key := kb.ArrowDown
			switch {
			case dx > 0:
				key = kb.ArrowRight
			case dx < 0:
				key = kb.ArrowLeft
			case dy < 0:
				key = kb.ArrowUp
			}
			do(t, ctx, chromedp.KeyEvent(key))
		}
		t.Fatalf("the arrows never reached cell %d", i)
	}
	for n, m := range yoninMoves {
		from, to := shogiCell(m[2:4]), shogiCell(m[4:6])
		goTo(from)
		do(t, ctx, chromedp.KeyEvent(kb.Enter))
		wait(t, ctx, `document.querySelectorAll('.cell.target').length > 0`)
		goTo(to)
		do(t, ctx, chromedp.KeyEvent(kb.Enter))
		waitPly(t, ctx, n+1)
		wait(t, ctx, `document.getElementById('live').textContent !== ''`)
		if n == 8 {
			// East is in check and moves out of turn, before West.
			if s := statusText(ctx); !strings.Contains(s, "East to move") || !strings.Contains(s, "Check priority") {
				t.Errorf("after %s the status is %q, want East to answer the check out of turn", m, s)
			}
			if live := eval[string](t, ctx, `document.getElementById('live').textContent`); !strings.Contains(live, "Check") {
				t.Errorf("the live region said %q, want the check announced", live)
			}
			do(t, ctx, chromedp.Reload())
			wait(t, ctx, `document.body.dataset.ready === 'true'`)
			waitPly(t, ctx, n+1)
			do(t, ctx, chromedp.Focus(chromedp.CSS(`.cell[tabindex="0"]`)))
		}
	}
	if s := statusText(ctx); !strings.Contains(s, "South to move") {
		t.Errorf("after East's answer the status is %q, want South to move", s)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('.hand-piece[data-seat="3"]').length`); n != 1 {
		t.Errorf("East's hand shows %d kinds, want the captured silver", n)
	}
	got := exportText(t, ctx, "yonin")
	if !strings.Contains(got, "\n"+strings.Join(yoninMoves, "\n")+"\n") {
		t.Errorf("Yonin export lacks the moves:\n%s", got)
	}

	// Import a game one move from its end and finish it from the keyboard,
	// dropping a gold from East's hand.
	do(t, ctx,
		chromedp.Evaluate[chromedp.Void](`document.getElementById('import-box').open = true`),
		chromedp.SetValue(chromedp.ID("import-format"), "yonin"),
		chromedp.SetValue(chromedp.ID("import-text"), yoninStart+"\n"+strings.Join(yoninEnding, "\n")+"\n"),
		chromedp.Focus(chromedp.ID("import-go")),
		chromedp.KeyEvent(kb.Enter),
	)
	wait(t, ctx, `document.getElementById('confirm-dialog').open`)
	do(t, ctx, chromedp.KeyEvent(kb.Tab), chromedp.KeyEvent(kb.Enter)) // from Cancel to Yes
	waitPly(t, ctx, len(yoninEnding))
	for i := 0; ; i++ {
		if i > 80 {
			t.Fatal("Tab never reached East's gold in hand")
		}
		do(t, ctx, chromedp.KeyEvent(kb.Tab))
		if eval[bool](t, ctx, `document.activeElement?.matches('.hand-piece[data-seat="3"][data-kind="G"]') ?? false`) {
			break
		}
	}
	do(t, ctx, chromedp.KeyEvent(kb.Enter))
	wait(t, ctx, `document.activeElement?.classList.contains('cell') && document.activeElement.classList.contains('target')`)
	goTo(shogiCell("4a"))
	do(t, ctx, chromedp.KeyEvent(kb.Enter))
	waitPly(t, ctx, len(yoninEnding)+1)
	wait(t, ctx, `document.body.dataset.status === 'over'`)
	s := statusText(ctx)
	for _, want := range []string{"East wins", "two players were mated"} {
		if !strings.Contains(s, want) {
			t.Errorf("final status %q lacks %q", s, want)
		}
	}
	// The end-of-game panel says it again, with the places.
	panel := eval[string](t, ctx, `document.getElementById('result').hidden ? '' : document.getElementById('result').innerText`)
	for _, want := range []string{"East wins", "1. East", "2. South", "3. North", "4. West"} {
		if !strings.Contains(panel, want) {
			t.Errorf("end-of-game panel %q lacks %q", panel, want)
		}
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('svg.board .piece.flipped').length`); n != 2 {
		t.Errorf("%d kings lie flipped, want the two mated ones", n)
	}
}

// pageWidth is how far right anything on the page reaches, whether or not
// an overflow rule would hide it.
func pageWidth(t *testing.T, ctx context.Context) float64 {
	t.Helper()
	return eval[float64](t, ctx, `Math.max(document.documentElement.scrollWidth,
		...[...document.querySelectorAll('body *')].map((e) => e.getBoundingClientRect().right + window.scrollX))`)
}

// TestNarrowScreen opens every page on a 360 px wide phone, in every
// language the site ships (German and Russian have the longest words):
// nothing may scroll sideways.
func TestNarrowScreen(t *testing.T) {
	ctx := tab(t)
	do(t, ctx, chromedp.EmulateViewport(360, 740, chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulatePortrait))
	files, err := fs.Glob(locales.FS, "*.json")
	if err != nil || len(files) < 2 {
		t.Fatalf("locale files %v: %v", files, err)
	}
	for _, f := range files {
		lang := strings.TrimSuffix(f, ".json")
		for _, path := range []string{"/", "/shogi/", "/yonin/", "/xiangqi/", "/shogi/play", "/yonin/play", "/xiangqi/play",
			"/shogi/play?mode=computer", "/yonin/play?mode=computer", "/xiangqi/play?mode=computer"} {
			do(t, ctx, chromedp.Navigate(baseURL+"/"+lang+path))
			if strings.Contains(path, "/play") {
				waitLoaded(t, ctx, `document.body.dataset.ready === 'true'`)
			}
			if w := pageWidth(t, ctx); w > 360 {
				t.Errorf("/%s%s is %.0f px wide on a 360 px screen", lang, path, w)
			}
		}
	}
}

// TestLanguageSwitcher opens the language menu on a 360 px phone: every
// language the site ships is listed, fits on the screen and can be tapped,
// and the choice keeps the visitor on the same page.
func TestLanguageSwitcher(t *testing.T) {
	ctx := tab(t)
	do(t, ctx, chromedp.EmulateViewport(360, 740, chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulatePortrait))
	open(t, ctx, "/de/shogi/play")
	if w := eval[float64](t, ctx, `document.querySelector('.site-header').getBoundingClientRect().height`); w > 64 {
		t.Errorf("the header is %.0f px tall on a phone, want one row", w)
	}
	do(t, ctx, chromedp.Click(chromedp.CSS(".langs summary")))
	files, _ := fs.Glob(locales.FS, "*.json")
	for _, f := range files {
		code := strings.TrimSuffix(f, ".json")
		r := eval[[]float64](t, ctx, `(() => { const r = document.querySelector('.langs a[hreflang="`+code+`"]')?.getBoundingClientRect();
			return r ? [r.left, r.right, r.width, r.height] : []; })()`)
		if len(r) != 4 || r[2] == 0 || r[0] < 0 || r[1] > 360 || r[3] < 44 {
			t.Errorf("language %s: link box %v, want visible inside 360 px and at least 44 px tall", code, r)
		}
	}
	do(t, ctx, chromedp.Click(chromedp.CSS(`.langs a[hreflang="ja"]`)))
	waitLoaded(t, ctx, `location.pathname === '/ja/shogi/play' && document.documentElement.lang === 'ja' && document.body.dataset.ready === 'true'`)
}

// waitLoaded is wait for a page that may still be replacing the previous
// one: a poll whose document goes away ("Cannot find context with specified
// id") is tried again in the new document.
func waitLoaded(t *testing.T, ctx context.Context, js string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(time.Until(deadline))))
		if err == nil {
			return
		}
		if time.Now().After(deadline) || !(strings.Contains(err.Error(), "context") || strings.Contains(err.Error(), "navigated")) {
			t.Fatalf("waiting for %s: %v (status %q)", js, err, statusText(ctx))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestPageWeight loads a board page into an empty cache and sums what the
// network transferred, compressed: it must stay under 200 KB.
func TestPageWeight(t *testing.T) {
	ctx := tab(t)
	do(t, ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateTouch))
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: true}); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"shogi", "yonin", "xiangqi"} {
		var (
			mu    sync.Mutex
			total float64
			count int
		)
		lctx, cancel := context.WithCancel(ctx)
		if err := chromedp.Listen(lctx, func(ev any) {
			if e, ok := ev.(*network.EventLoadingFinished); ok {
				mu.Lock()
				total += e.EncodedDataLength
				count++
				mu.Unlock()
			}
		}); err != nil {
			t.Fatal(err)
		}
		open(t, ctx, "/en/"+v+"/play?mode=local")
		wait(t, ctx, `document.fonts.status === 'loaded'`)
		do(t, ctx, chromedp.Sleep(300*time.Millisecond))
		cancel()
		mu.Lock()
		t.Logf("%s board page: %d requests, %.1f KB transferred", v, count, total/1024)
		if total > 200*1024 {
			t.Errorf("%s board page transfers %.1f KB, more than 200 KB", v, total/1024)
		}
		mu.Unlock()
	}
}

// TestScreenshots writes a phone (390×844) and a desktop (1366×900) picture
// of each board into $BANMEN_SCREENSHOTS, for docs/screenshots. It is skipped
// when that variable is unset.
func TestScreenshots(t *testing.T) {
	dir := os.Getenv("BANMEN_SCREENSHOTS")
	if dir == "" {
		t.Skip("BANMEN_SCREENSHOTS is not set")
	}
	type shot struct {
		variant string
		setup   func(ctx context.Context, vp string)
	}
	clickMove := func(ctx context.Context, from, to int) {
		fx, fy := center(t, ctx, cellSel(from))
		tx, ty := center(t, ctx, cellSel(to))
		n := eval[int](t, ctx, `Number(document.body.dataset.ply)`)
		do(t, ctx, chromedp.MouseClickXY(fx, fy))
		wait(t, ctx, `document.querySelectorAll('.cell.target').length > 0`)
		do(t, ctx, chromedp.MouseClickXY(tx, ty))
		if eval[bool](t, ctx, `document.getElementById('promote-dialog').open`) {
			x, y := center(t, ctx, `.promote-choice[data-promote="true"]`)
			do(t, ctx, chromedp.MouseClickXY(x, y))
		}
		waitPly(t, ctx, n+1)
	}
	fresh := func(ctx context.Context, v string) {
		do(t, ctx, chromedp.Evaluate[chromedp.Void](`localStorage.clear()`), chromedp.Reload())
		wait(t, ctx, `document.body.dataset.ready === 'true' && document.body.dataset.ply === '0'`)
	}
	shots := []shot{
		{"xiangqi", func(ctx context.Context, _ string) {
			fresh(ctx, "xiangqi")
			for _, m := range strings.Fields(xiangqiGame)[:12] {
				clickMove(ctx, xiangqiCell(m[:2]), xiangqiCell(m[2:]))
			}
			x, y := center(t, ctx, cellSel(xiangqiCell("h2")))
			do(t, ctx, chromedp.MouseClickXY(x, y))
		}},
		{"shogi", func(ctx context.Context, _ string) {
			fresh(ctx, "shogi")
			for _, m := range []string{"7g7f", "3c3d", "8h2b", "3a2b", "2g2f", "8c8d"} {
				clickMove(ctx, shogiCell(m[:2]), shogiCell(m[2:]))
			}
			x, y := center(t, ctx, `.hand-piece[data-seat="0"][data-kind="B"]`)
			do(t, ctx, chromedp.MouseClickXY(x, y))
		}},
		{"yonin", func(ctx context.Context, vp string) {
			fresh(ctx, "yonin")
			if vp == "phone" {
				for _, m := range yoninMoves[:9] {
					clickMove(ctx, shogiCell(m[2:4]), shogiCell(m[4:6]))
				}
				return
			}
			// The end of a game: two kings lie flipped, places are shown.
			do(t, ctx,
				chromedp.Evaluate[chromedp.Void](`document.getElementById('import-box').open = true`),
				chromedp.SetValue(chromedp.ID("import-format"), "yonin"),
				chromedp.SetValue(chromedp.ID("import-text"), yoninStart+"\n"+strings.Join(yoninEnding, "\n")+"\n"),
				chromedp.Click(chromedp.ID("import-go")),
			)
			waitPly(t, ctx, len(yoninEnding))
			do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById('import-box').open = false`))
			x, y := center(t, ctx, `.hand-piece[data-seat="3"][data-kind="G"]`)
			do(t, ctx, chromedp.MouseClickXY(x, y))
			x, y = center(t, ctx, cellSel(shogiCell("4a")))
			do(t, ctx, chromedp.MouseClickXY(x, y))
			waitPly(t, ctx, len(yoninEnding)+1)
		}},
	}
	for _, vp := range []struct {
		name string
		w, h int64
		opts []chromedp.EmulateViewportOption
	}{
		{"phone", 390, 844, []chromedp.EmulateViewportOption{chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulatePortrait}},
		{"desktop", 1366, 900, nil},
	} {
		for _, s := range shots {
			// Phones in the light and the dark theme, desktops in the light.
			themes := []string{"light"}
			if vp.name == "phone" {
				themes = append(themes, "dark")
			}
			for _, theme := range themes {
				ctx := tab(t)
				do(t, ctx, chromedp.EmulateViewport(vp.w, vp.h, vp.opts...))
				if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: theme}}}); err != nil {
					t.Fatal(err)
				}
				open(t, ctx, "/en/"+s.variant+"/play?mode=local")
				s.setup(ctx, vp.name)
				name := fmt.Sprintf("%s-%s.png", s.variant, vp.name)
				if theme == "dark" {
					name = fmt.Sprintf("%s-%s-dark.png", s.variant, vp.name)
				}
				screenshot(t, ctx, filepath.Join(dir, name))
			}
		}
	}
	// The end-of-game panel, on a phone: Gote resigns a short shogi game.
	ctx := tab(t)
	do(t, ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulatePortrait))
	open(t, ctx, "/en/shogi/play?mode=local")
	fresh(ctx, "shogi")
	for _, m := range []string{"7g7f", "3c3d", "8h2b", "3a2b", "2g2f"} {
		clickMove(ctx, shogiCell(m[:2]), shogiCell(m[2:]))
	}
	do(t, ctx, chromedp.Click(chromedp.ID("resign")))
	wait(t, ctx, `document.getElementById('confirm-dialog').open`)
	do(t, ctx, chromedp.Click(chromedp.ID("confirm-yes")))
	wait(t, ctx, `document.body.dataset.status === 'over' && !document.getElementById('result').hidden`)
	screenshot(t, ctx, filepath.Join(dir, "result-phone.png"))
	// Xiangqi in Chinese notation, on a phone in Chinese, looking back at move 8.
	ctx = tab(t)
	do(t, ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulatePortrait))
	open(t, ctx, "/zh/xiangqi/play?mode=local")
	fresh(ctx, "xiangqi")
	for _, m := range strings.Fields(xiangqiGame)[:12] {
		clickMove(ctx, xiangqiCell(m[:2]), xiangqiCell(m[2:]))
	}
	x, y := center(t, ctx, `#history li[data-ply="8"] button`)
	do(t, ctx, chromedp.MouseClickXY(x, y))
	wait(t, ctx, `document.body.dataset.viewing === '8' && document.body.dataset.navBusy !== 'true'`)
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById('viewing').scrollIntoView({block: 'start'})`))
	screenshot(t, ctx, filepath.Join(dir, "xiangqi-zh-phone.png"), true)
}

// screenshot saves the page as it is (at the top unless keep), without
// notices, once the last move's slide has ended.
func screenshot(t *testing.T, ctx context.Context, name string, keep ...bool) {
	t.Helper()
	scroll := `window.scrollTo(0, 0);`
	if len(keep) > 0 && keep[0] {
		scroll = ""
	}
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.querySelectorAll('.notice').forEach(n => n.remove());`+scroll),
		chromedp.Sleep(300*time.Millisecond))
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, png, 0o644); err != nil {
		t.Fatal(err)
	}
}

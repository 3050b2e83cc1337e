package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// analysedGame is a short shogi game with a blunder: Gote does not take
// back the bishop (9c9d instead of 3a2b), Sente's horse takes a lance, and
// Gote resigns (in the test).
const analysedGame = "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1 moves 7g7f 3c3d 8h2b+ 9c9d 2b1a"

// TestAnalysisPhone: on a phone, a finished game offers Analyse; Cancel
// stops it; a full run fills the graph with a row per ply, ←/→ on the
// graph move through the game with the text alternative, the best move's
// arrow on the board and its line; the blunder is marked ?? on the move
// list, the thresholds are stated, and the analysed KIF is offered.
func TestAnalysisPhone(t *testing.T) {
	w, h, opts := phone()
	ctx := fresh(t, "/en/shogi/play?mode=local", w, h, opts...)
	if !eval[bool](t, ctx, `document.getElementById('analysis').hidden && !document.getElementById('result-analyse')?.offsetParent`) {
		t.Error("Analyse is offered while the game is played")
	}
	importGame(t, ctx, "sfen+usi", analysedGame)
	waitPly(t, ctx, 5)
	click(t, ctx, `#resign`)
	wait(t, ctx, `document.getElementById('confirm-dialog').open`)
	click(t, ctx, `#confirm-yes`)
	wait(t, ctx, `document.body.dataset.status === 'over' && !document.getElementById('analysis').hidden`)
	plies := eval[int](t, ctx, `Number(document.body.dataset.ply)`)

	// Cancel at once: nothing is analysed, Analyse is offered again.
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById('analyse-go').click(); document.getElementById('analyse-cancel').click()`))
	wait(t, ctx, `document.body.dataset.analysis === 'cancelled' && !document.getElementById('analyse-go').hidden && document.getElementById('analyse-cancel').hidden`)
	if s := eval[string](t, ctx, `document.getElementById('analyse-status').textContent`); !strings.Contains(s, "Cancelled") {
		t.Errorf("after Cancel the status says %q", s)
	}

	// The end-of-game panel's Analyse runs it to the end.
	click(t, ctx, `#result-analyse`)
	wait(t, ctx, `document.body.dataset.analysis === 'running' || document.body.dataset.analysis === 'done'`)
	wait(t, ctx, `document.body.dataset.analysis === 'done'`)
	if n := eval[int](t, ctx, `Number(document.body.dataset.analysisRows)`); n != plies+1 {
		t.Errorf("%d rows for a game of %d plies, want one per position (%d)", n, plies, plies+1)
	}
	if n := eval[int](t, ctx, `document.querySelector('#analysis-graph polyline')?.getAttribute('points').trim().split(' ').length ?? 0`); n != plies {
		t.Errorf("the graph has %d points, want one per scored position (%d)", n, plies)
	}
	if w := pageWidth(t, ctx); w > 390 {
		t.Errorf("the page is %.0f px wide on a 390 px screen", w)
	}
	// The blunder, marked on the move list with its threshold in words.
	mark := eval[string](t, ctx, `document.querySelector('#history li[data-ply="4"] .move-mark')?.textContent ?? ''`)
	if mark != "??" {
		t.Errorf("9c9d is marked %q, want ??", mark)
	}
	if title := eval[string](t, ctx, `document.querySelector('#history li[data-ply="4"] .move-mark')?.title ?? ''`); !strings.Contains(title, "15%") {
		t.Errorf("the mark's tooltip %q states no threshold", title)
	}
	if s := eval[string](t, ctx, `document.getElementById('analysis-legend').textContent`); !strings.Contains(s, "5%") || !strings.Contains(s, "10%") || !strings.Contains(s, "15%") {
		t.Errorf("legend %q", s)
	}
	if eval[int](t, ctx, `document.querySelectorAll('#analysis-graph .mark-blunder').length`) < 1 {
		t.Error("the graph shows no blunder")
	}

	// ←/→ on the graph: the position, the text alternative, the arrow.
	if eval[bool](t, ctx, `document.getElementById('analysis-graph').getBoundingClientRect().height < 40`) {
		t.Error("the graph is not shown")
	}
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById('analysis-graph').focus()`))
	do(t, ctx, chromedp.KeyEvent(kb.End))
	waitViewing(t, ctx, "")
	do(t, ctx, chromedp.KeyEvent(kb.ArrowLeft))
	waitViewing(t, ctx, "5")
	do(t, ctx, chromedp.KeyEvent(kb.ArrowLeft))
	waitViewing(t, ctx, "4")
	text := eval[string](t, ctx, `document.getElementById('analysis-graph').getAttribute('aria-valuetext')`)
	if !strings.HasPrefix(text, "move 4, Sente ") || !strings.Contains(text, ", best ") || !strings.HasSuffix(text, "??") {
		t.Errorf("the text alternative at ply 4 is %q", text)
	}
	if v := eval[string](t, ctx, `document.getElementById('analysis-text').textContent`); v != text {
		t.Errorf("the shown text %q differs from the graph's %q", v, text)
	}
	if eval[string](t, ctx, `document.querySelector('#analysis-graph .graph-current')?.dataset.ply`) != "4" {
		t.Error("the graph does not show ply 4 as current")
	}
	wait(t, ctx, `document.querySelector('.board .analysis-arrow')?.dataset.move !== undefined`)
	// The best move's line is in the page's notation (▲/△ texts), not USI.
	wait(t, ctx, `(() => { const s = document.getElementById('analysis-pv').textContent; return /[▲△]/.test(s) && !/[1-9][a-i][1-9][a-i]|[A-Z]\*/.test(s); })()`)
	viewShot(t, ctx, "analysis-phone.png")
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById('analysis-graph').focus()`))
	do(t, ctx, chromedp.KeyEvent(kb.ArrowRight))
	waitViewing(t, ctx, "5")
	do(t, ctx, chromedp.KeyEvent(kb.Home))
	waitViewing(t, ctx, "0")
	if s := eval[string](t, ctx, `document.getElementById('analysis-graph').getAttribute('aria-valuetext')`); !strings.HasPrefix(s, "move 0, Sente ") {
		t.Errorf("the text alternative at the start is %q", s)
	}

	// The analysed record.
	click(t, ctx, `#analyse-export`)
	wait(t, ctx, `document.getElementById('analysis-kif').value !== ''`)
	if kif := eval[string](t, ctx, `document.getElementById('analysis-kif').value`); !strings.Contains(kif, "*") {
		t.Errorf("the analysed KIF has no comments:\n%s", kif)
	}
}

// TestAnalysisDesktop: the same analysis on a desktop screen, for the
// picture (with $BANMEN_SCREENSHOTS), and the graph answers a click.
func TestAnalysisDesktop(t *testing.T) {
	ctx := fresh(t, "/en/shogi/play?mode=local", 1366, 900)
	importGame(t, ctx, "sfen+usi", analysedGame)
	waitPly(t, ctx, 5)
	click(t, ctx, `#resign`)
	wait(t, ctx, `document.getElementById('confirm-dialog').open`)
	click(t, ctx, `#confirm-yes`)
	wait(t, ctx, `document.body.dataset.status === 'over' && !document.getElementById('analysis').hidden`)
	click(t, ctx, `#analyse-go`)
	wait(t, ctx, `document.body.dataset.analysis === 'done'`)
	// A click near the graph's left end shows the start.
	xy := eval[[]float64](t, ctx, `(() => { const g = document.getElementById('analysis-graph'); g.scrollIntoView({block: 'nearest'}); const r = g.getBoundingClientRect(); return [r.x + 2, r.y + r.height / 2]; })()`)
	do(t, ctx, chromedp.MouseClickXY(xy[0], xy[1]))
	waitViewing(t, ctx, "0")
	do(t, ctx, chromedp.KeyEvent(kb.ArrowRight))
	waitViewing(t, ctx, "1")
	do(t, ctx, chromedp.KeyEvent(kb.ArrowRight))
	waitViewing(t, ctx, "2")
	wait(t, ctx, `document.querySelector('.board .analysis-arrow') !== null`)
	wait(t, ctx, `!/[1-9][a-i][1-9][a-i]|[A-Z]\*/.test(document.getElementById('analysis-pv').textContent)`)
	viewShot(t, ctx, "analysis-desktop.png")
}

// viewShot writes the screen, scrolled to the board's top, into
// $BANMEN_SCREENSHOTS, when set.
func viewShot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("BANMEN_SCREENSHOTS")
	if dir == "" {
		return
	}
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.querySelectorAll('.notice').forEach(n => n.remove()); window.scrollTo(0, innerWidth < 600 ? document.getElementById('arena').getBoundingClientRect().top + scrollY - 8 : 0)`))
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestAnalysisRoom: a room offers no analysis during the round; once the
// host resigns, the guest's phone analyses the ended round from the server
// (the room's state never reaches the page), with a row per ply and the
// graph's keys, from the guest's side (Gote); the line in the page's
// notation and the analysed KIF come from the server, which holds the state.
func TestAnalysisRoom(t *testing.T) {
	host := person(t, 1366, 900)
	do(t, host, chromedp.Navigate(baseURL+"/en/shogi/"))
	do(t, host, chromedp.Click(chromedp.CSS(`.mode-friend`)))
	waitNavigated(t, host, `location.pathname.startsWith('/en/shogi/room/') && document.body.dataset.ready === 'true' && document.body.dataset.conn === 'open'`)
	url := eval[string](t, host, `location.href`)
	w, h, opts := phone()
	guest := person(t, w, h, opts...)
	openRoom(t, guest, url)
	wait(t, host, `document.querySelector('#presence li[data-seat="1"]')?.dataset.state === 'connected'`)
	roomMove(t, host, shogiCell("7g"), shogiCell("7f"))
	waitPly(t, guest, 1)
	roomMove(t, guest, shogiCell("3c"), shogiCell("3d"))
	waitPly(t, host, 2)
	if !eval[bool](t, guest, `document.getElementById('analysis').hidden`) {
		t.Error("Analyse is offered during the round")
	}
	do(t, host, chromedp.Click(chromedp.ID("resign")))
	wait(t, host, `document.getElementById('confirm-dialog').open`)
	do(t, host, chromedp.Click(chromedp.ID("confirm-yes")))
	wait(t, guest, `document.body.dataset.status === 'over' && !document.getElementById('analysis').hidden`)
	plies := eval[int](t, guest, `Number(document.body.dataset.ply)`)
	click(t, guest, `#analyse-go`)
	wait(t, guest, `document.body.dataset.analysis === 'done'`)
	if n := eval[int](t, guest, `Number(document.body.dataset.analysisRows)`); n != plies+1 {
		t.Errorf("%d rows for a round of %d plies, want %d", n, plies, plies+1)
	}
	do(t, guest, chromedp.Evaluate[chromedp.Void](`document.getElementById('analysis-graph').focus()`))
	do(t, guest, chromedp.KeyEvent(kb.Home))
	waitViewing(t, guest, "0")
	do(t, guest, chromedp.KeyEvent(kb.ArrowRight))
	waitViewing(t, guest, "1")
	if s := eval[string](t, guest, `document.getElementById('analysis-graph').getAttribute('aria-valuetext')`); !strings.HasPrefix(s, "move 1, Gote ") || !strings.Contains(s, "best") {
		t.Errorf("the text alternative at move 1 is %q", s)
	}
	wait(t, guest, `document.querySelector('.board .analysis-arrow') !== null`)
	// The line in the page's notation (▲/△), as the server plays it from
	// the room's round.
	wait(t, guest, `(() => { const s = document.getElementById('analysis-pv').textContent; return /[▲△].*[▲△]/.test(s) && !/[1-9][a-i][1-9][a-i]|[A-Z]\*/.test(s); })()`)
	// The analysed KIF, written by the server from the room's state.
	click(t, guest, `#analyse-export`)
	wait(t, guest, `document.getElementById('analysis-kif').value !== ''`)
	if kif := eval[string](t, guest, `document.getElementById('analysis-kif').value`); !strings.Contains(kif, "*評価値") || !strings.Contains(kif, "*読み筋") {
		t.Errorf("the room's analysed KIF has no evaluations or lines:\n%s", kif)
	}
}

// TestAnalysisYonin: a finished Yonin game (its last move, East's mate of
// North, is the one the analysis itself names) draws one line per seat in
// the seat's colour, and the text alternative gives every seat's standing;
// Cancel stops it midway.
func TestAnalysisYonin(t *testing.T) {
	w, h, opts := phone()
	ctx := fresh(t, "/en/yonin/play?mode=local", w, h, opts...)
	record := yoninStart + "\n" + strings.Join(yoninEnding, "\n") + "\n"
	importGame(t, ctx, "yonin", record)
	// The analysis of the last position names East's mating move.
	mate, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(async () => {
		const d = JSON.parse(document.getElementById('board-data').textContent);
		const { state } = JSON.parse(localStorage.getItem(d.storageKey));
		const ply = Number(document.body.dataset.ply);
		const res = await fetch(d.api + '/analyse', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ state, plies: [ply] }) });
		const row = JSON.parse((await res.text()).split('\n').find((l) => l.trim()));
		return row.best;
	})()`, chromedp.EvalAwaitPromise))
	if err != nil || !strings.HasPrefix(mate, "E:") {
		t.Fatalf("the analysis names %q (%v) for East", mate, err)
	}
	importGame(t, ctx, "yonin", record+mate+"\n")
	wait(t, ctx, `document.body.dataset.status === 'over' && !document.getElementById('analysis').hidden`)
	colors := eval[[]string](t, ctx, `JSON.parse(document.getElementById('board-data').textContent).variant.seats.map((s) => s.color)`)
	// By keyboard: Enter on Analyse, the focus then on Cancel.
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById('analyse-go').focus()`), chromedp.KeyEvent(kb.Enter))
	wait(t, ctx, `Number(document.body.dataset.analysisRows) >= 2 || document.body.dataset.analysis !== 'running'`)
	lines := eval[[]string](t, ctx, `[...document.querySelectorAll('#analysis-graph polyline')].map((p) => p.getAttribute('stroke'))`)
	if strings.Join(lines, " ") != strings.Join(colors, " ") {
		t.Errorf("the graph's lines are %v, want one per seat in its colour %v", lines, colors)
	}
	if eval[bool](t, ctx, `document.body.dataset.analysis === 'running' && (document.getElementById('analyse-cancel').click(), true)`) {
		wait(t, ctx, `document.body.dataset.analysis === 'cancelled'`)
		if id := eval[string](t, ctx, `document.activeElement?.id ?? ''`); id != "analyse-go" {
			t.Errorf("after Cancel the focus is on %q, want Analyse", id)
		}
		if n, total := eval[int](t, ctx, `Number(document.body.dataset.analysisRows)`), eval[int](t, ctx, `Number(document.body.dataset.ply)`)+1; n >= total {
			t.Errorf("cancelled with %d of %d rows", n, total)
		}
	} else {
		t.Log("the analysis ended before Cancel could be pressed")
	}
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById('analysis-graph').focus()`))
	do(t, ctx, chromedp.KeyEvent(kb.Home))
	waitViewing(t, ctx, "0")
	s := eval[string](t, ctx, `document.getElementById('analysis-graph').getAttribute('aria-valuetext')`)
	for _, seat := range []string{"South", "West", "North", "East"} {
		if !strings.Contains(s, seat+" ") {
			t.Errorf("the text alternative %q has no standing for %s", s, seat)
		}
	}
}

// TestAnalysisComputer: a game against the computer, resigned by the
// person, is analysed too, from the person's side.
func TestAnalysisComputer(t *testing.T) {
	ctx := computerTab(t, "shogi")
	importGame(t, ctx, "sfen+usi", analysedGame)
	waitHuman(t, ctx) // the computer answers Gote's move
	if eval[string](t, ctx, `document.body.dataset.status`) == "playing" {
		click(t, ctx, `#resign`)
		wait(t, ctx, `document.getElementById('confirm-dialog').open`)
		click(t, ctx, `#confirm-yes`)
	}
	wait(t, ctx, `document.body.dataset.status === 'over' && !document.getElementById('analysis').hidden`)
	plies := eval[int](t, ctx, `Number(document.body.dataset.ply)`)
	click(t, ctx, `#result-analyse`)
	wait(t, ctx, `document.body.dataset.analysis === 'done'`)
	if n := eval[int](t, ctx, `Number(document.body.dataset.analysisRows)`); n != plies+1 {
		t.Errorf("%d rows for a game of %d plies, want %d", n, plies, plies+1)
	}
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById('analysis-graph').focus()`), chromedp.KeyEvent(kb.Home))
	waitViewing(t, ctx, "0")
	if s := eval[string](t, ctx, `document.getElementById('analysis-graph').getAttribute('aria-valuetext')`); !strings.HasPrefix(s, "move 0, Sente ") {
		t.Errorf("the text alternative at the start is %q", s)
	}
}

// TestAnalysisXiangqi: a xiangqi game won by mate, analysed on a phone:
// a row per ply, the best move's arrow between points and the line in the
// page's notation; no analysed KIF (xiangqi has no KIF).
func TestAnalysisXiangqi(t *testing.T) {
	w, h, opts := phone()
	ctx := fresh(t, "/en/xiangqi/play?mode=local", w, h, opts...)
	importGame(t, ctx, "fen+ucci", "fen rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1 moves "+xiangqiGame)
	wait(t, ctx, `document.body.dataset.status === 'over' && !document.getElementById('analysis').hidden`)
	plies := eval[int](t, ctx, `Number(document.body.dataset.ply)`)
	click(t, ctx, `#analyse-go`)
	// 38 positions at the engine's default limit: longer than wait's 15 s.
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.body.dataset.analysis === 'done'`, chromedp.WithPollingTimeout(2*time.Minute))); err != nil {
		t.Fatalf("the analysis did not end: %v (%s)", err, eval[string](t, ctx, `document.getElementById('analyse-status').textContent`))
	}
	if n := eval[int](t, ctx, `Number(document.body.dataset.analysisRows)`); n != plies+1 {
		t.Errorf("%d rows for a game of %d plies, want %d", n, plies, plies+1)
	}
	if !eval[bool](t, ctx, `document.getElementById('analysis-export').hidden`) {
		t.Error("an analysed KIF is offered for xiangqi")
	}
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById('analysis-graph').focus()`), chromedp.KeyEvent(kb.Home))
	waitViewing(t, ctx, "0")
	wait(t, ctx, `document.querySelector('.board .analysis-arrow line') !== null`)
	if s := eval[string](t, ctx, `document.getElementById('analysis-graph').getAttribute('aria-valuetext')`); !strings.HasPrefix(s, "move 0, Red ") || !strings.Contains(s, ", best ") {
		t.Errorf("the text alternative at the start is %q", s)
	}
	// The line in WXF-like page texts, not UCCI squares.
	wait(t, ctx, `(() => { const s = document.getElementById('analysis-pv').textContent; return s !== '' && !/[a-i][0-9][a-i][0-9]/.test(s); })()`)
}

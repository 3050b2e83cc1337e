package e2e

// Vs computer: the browser plays the computer's seats through /suggest and
// /play. These tests play on a phone-sized screen, with the mouse (Chrome's
// tap emulation misses ordinary buttons now and then, see TestShogiTouch).

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// spySuggest wraps the page's fetch before any script runs: it records the
// level and the seat of every /suggest the page sends (in sessionStorage, so
// a reload keeps the record) and delays it by localStorage["e2e.slow"] milliseconds.
// localStorage["e2e.fail"] = level makes the next one at that level fail as
// a timeout would. The
// test's own calls (with thinkMillis) pass untouched.
const spySuggest = `(() => {
	const f = window.fetch;
	window.fetch = async function (url, init) {
		if (String(url).endsWith('/suggest') && init && init.body) {
			const b = JSON.parse(init.body);
			if (!b.thinkMillis) {
				const log = JSON.parse(sessionStorage.getItem('e2e.suggests') || '[]');
				log.push(b.level);
				sessionStorage.setItem('e2e.suggests', JSON.stringify(log));
				const seats = JSON.parse(sessionStorage.getItem('e2e.seats') || '[]');
				seats.push(b.seat ?? null);
				sessionStorage.setItem('e2e.seats', JSON.stringify(seats));
				const slow = Number(localStorage.getItem('e2e.slow') || 0);
				if (slow) await new Promise((r) => setTimeout(r, slow));
				if (localStorage.getItem('e2e.fail') === b.level) {
					localStorage.removeItem('e2e.fail');
					return new Response(JSON.stringify({ error: { code: 'timeout', key: 'error.timeout', message: 'e2e' } }), { status: 504 });
				}
			}
		}
		return f.apply(this, arguments);
	};
})();`

// computerTab opens a phone-sized tab with the spy installed and a fresh
// computer game of variant (nothing saved, the default difficulty).
func computerTab(t *testing.T, variant string) context.Context {
	t.Helper()
	ctx := tab(t)
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: spySuggest}); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulatePortrait))
	open(t, ctx, "/en/"+variant+"/play?mode=computer")
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`localStorage.removeItem('banmen.computer.`+variant+`');
		localStorage.removeItem('banmen.computer.level'); localStorage.removeItem('e2e.slow');
		sessionStorage.removeItem('e2e.suggests'); sessionStorage.removeItem('e2e.seats')`), chromedp.Reload())
	wait(t, ctx, `document.body.dataset.ready === 'true' && document.body.dataset.ply === '0'`)
	return ctx
}

// suggestLog is the levels of the page's own /suggest calls, in order.
func suggestLog(t *testing.T, ctx context.Context) []string {
	t.Helper()
	return eval[[]string](t, ctx, `JSON.parse(sessionStorage.getItem('e2e.suggests') || '[]')`)
}

// waitHuman waits until the computer has stopped thinking and it is the
// person's turn, or the game is over.
func waitHuman(t *testing.T, ctx context.Context) {
	t.Helper()
	js := `document.body.dataset.thinking !== 'true' && (document.body.dataset.status === 'over' || document.body.dataset.toMove === '0')`
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(40*time.Second))); err != nil {
		t.Fatalf("the computer never handed the turn back: %v (status %q)", err, statusText(ctx))
	}
}

// legalMove is the part of a View.Legal entry the test needs to play it.
type legalMove struct {
	Kind    string `json:"kind"`
	Move    string `json:"move"`
	From    int    `json:"from"`
	To      int    `json:"to"`
	Drop    string `json:"drop"`
	Promote bool   `json:"promote"`
}

// humanMove asks the API for a good move for the person (as a player might
// consult a book) and plays it on the board by mouse, as a person would.
func humanMove(t *testing.T, ctx context.Context, variant string) {
	t.Helper()
	m, err := chromedp.Run(ctx, chromedp.Evaluate[legalMove](fmt.Sprintf(`(async () => {
		const saved = JSON.parse(localStorage.getItem('banmen.computer.%[1]s'));
		const post = async (call, body) => (await fetch('/api/v1/games/%[1]s/' + call, {
			method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body)})).json();
		const { view } = await post('view', { state: saved.state });
		const mine = view.legal.filter((m) => m.seat === 0 && m.kind !== 'action');
		// On a loaded machine the suggestion may time out: any legal move will do then.
		const { move } = await post('suggest', { state: saved.state, level: 'hard', thinkMillis: 5000 }).catch(() => ({}));
		return mine.find((m) => m.move === move) || mine[0];
	})()`, variant), chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("choosing the person's move: %v", err)
	}
	ply := eval[int](t, ctx, `Number(document.body.dataset.ply)`)
	click := func(sel string) {
		t.Helper()
		x, y := center(t, ctx, sel)
		do(t, ctx, chromedp.MouseClickXY(x, y))
	}
	switch m.Kind {
	case "drop":
		click(fmt.Sprintf(`.hand-piece[data-seat="0"][data-kind=%q]`, m.Drop))
	case "move":
		click(cellSel(m.From))
	default:
		t.Fatalf("the suggested move %+v is not on the board", m)
	}
	wait(t, ctx, `document.querySelectorAll('.cell.target').length > 0`)
	click(cellSel(m.To))
	if eval[bool](t, ctx, `document.getElementById('promote-dialog').open`) {
		click(fmt.Sprintf(`.promote-choice[data-promote="%t"]`, m.Promote))
	}
	// The move is registered once the move list holds it as ply+1. Not
	// "the page is at ply+1": the computer answers on its own, within
	// 60 ms from an early position, and the wait polls once a frame, which
	// a loaded machine (load 30: frames 50-340 ms apart) makes rarer than
	// that, so the page went past ply+1 unseen and the wait never ended.
	wait(t, ctx, fmt.Sprintf(`document.querySelector('#history li[data-ply="%d"]:not(.pending)')?.dataset.move === %q`, ply+1, m.Move))
}

// importGame pastes a record into the Import panel and waits for it.
func importGame(t *testing.T, ctx context.Context, format, text string) {
	t.Helper()
	do(t, ctx,
		chromedp.Evaluate[chromedp.Void](`document.getElementById('import-box').open = true`),
		chromedp.SetValue(chromedp.ID("import-format"), format),
		chromedp.SetValue(chromedp.ID("import-text"), text),
		chromedp.Click(chromedp.ID("import-go")),
	)
	wait(t, ctx, `document.getElementById('confirm-dialog').open || [...document.querySelectorAll('.notice')].some((n) => n.textContent.includes('imported'))`)
	if eval[bool](t, ctx, `document.getElementById('confirm-dialog').open`) {
		do(t, ctx, chromedp.Click(chromedp.ID("confirm-yes")))
	}
	wait(t, ctx, `[...document.querySelectorAll('.notice')].some((n) => n.textContent.includes('imported'))`)
}

// setLevel picks a difficulty in the dialog and presses OK (or Cancel).
func setLevel(t *testing.T, ctx context.Context, level string, ok bool) {
	t.Helper()
	do(t, ctx, chromedp.Click(chromedp.ID("level")))
	wait(t, ctx, `document.getElementById('level-dialog').open`)
	do(t, ctx, chromedp.Click(chromedp.CSS(fmt.Sprintf(`#level-choices input[value=%q]`, level))))
	button := "level-cancel"
	if ok {
		button = "level-ok"
	}
	do(t, ctx, chromedp.Click(chromedp.ID(button)))
	wait(t, ctx, `!document.getElementById('level-dialog').open`)
	if ok {
		// The page takes the choice when the dialog's close event comes.
		wait(t, ctx, fmt.Sprintf(`document.body.dataset.level === %q`, level))
	} else {
		do(t, ctx, chromedp.Sleep(150*time.Millisecond))
	}
}

// clickUntil clicks the element sel until the predicate done holds: on a
// loaded machine a synthetic click now and then goes nowhere.
func clickUntil(t *testing.T, ctx context.Context, sel, done string) {
	t.Helper()
	for range 3 {
		do(t, ctx, chromedp.Click(chromedp.CSS(sel)))
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](done, chromedp.WithPollingTimeout(3*time.Second))); err == nil {
			return
		}
	}
	t.Fatalf("clicking %s never made %s true (status %q, notices %q)", sel, done, statusText(ctx),
		eval[string](t, ctx, `document.getElementById('notices').innerText`))
}

// boardText is every square's name for a screen reader: the whole position.
func boardText(t *testing.T, ctx context.Context) string {
	t.Helper()
	return eval[string](t, ctx, `[...document.querySelectorAll('.cell')].map((c) => c.getAttribute('aria-label')).join('|')
		+ '#' + [...document.querySelectorAll('.hand-piece')].map((h) => h.getAttribute('aria-label')).join('|')`)
}

// TestComputerGames plays a game to its end against each level, one game per
// variant, each from a position near the end imported through the panel.
func TestComputerGames(t *testing.T) {
	xq := strings.Fields(xiangqiGame)
	for _, tc := range []struct {
		variant, level, format, record string
	}{
		{"shogi", "easy", "sfen+usi", "sfen " + shogiTsume},
		{"xiangqi", "medium", "fen+ucci", "fen rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1 moves " + strings.Join(xq[:len(xq)-3], " ")},
		// East, a computer seat, is to move and can mate North, the second mate.
		{"yonin", "hard", "yonin", yoninStart + "\n" + strings.Join(yoninEnding, "\n") + "\n"},
	} {
		t.Run(tc.variant+"-"+tc.level, func(t *testing.T) {
			ctx := computerTab(t, tc.variant)
			if w := pageWidth(t, ctx); w > 390 {
				t.Errorf("the page is %.0f px wide on a 390 px screen", w)
			}
			if side := eval[string](t, ctx, `document.querySelector('.hand[data-seat="0"]').dataset.side`); side != "bottom" {
				t.Errorf("the person's seat is at the %s, want the bottom", side)
			}
			setLevel(t, ctx, tc.level, true)
			importGame(t, ctx, tc.format, tc.record)
			start := eval[int](t, ctx, `Number(document.body.dataset.ply)`)
			if side := eval[string](t, ctx, `document.querySelector('.hand[data-seat="0"]').dataset.side`); side != "bottom" {
				t.Errorf("after the import the person's seat is at the %s, want the bottom", side)
			}
			for n := 0; ; n++ {
				waitHuman(t, ctx)
				if eval[string](t, ctx, `document.body.dataset.status`) == "over" {
					break
				}
				if n == 12 {
					t.Fatalf("no end after 12 moves of the person; status %q", statusText(ctx))
				}
				humanMove(t, ctx, tc.variant)
			}
			s := statusText(ctx)
			if !strings.Contains(s, " wins") && !strings.Contains(s, "Draw") {
				t.Errorf("the final status %q shows no result", s)
			}
			plies := eval[int](t, ctx, `Number(document.body.dataset.ply)`)
			log := suggestLog(t, ctx)
			if len(log) == 0 {
				t.Fatalf("the computer never moved (plies %d → %d)", start, plies)
			}
			for _, l := range log {
				if l != tc.level {
					t.Errorf("the page asked for a %s move, want %s: %v", l, tc.level, log)
					break
				}
			}
			// The page names the computer's seat (the person plays seat 0).
			seats := eval[[]*int](t, ctx, `JSON.parse(sessionStorage.getItem('e2e.seats') || '[]')`)
			for _, s := range seats {
				if s == nil || *s == 0 {
					t.Errorf("the page asked for moves of seats %v; want each a computer seat, named", derefs(seats))
					break
				}
			}
			t.Logf("%s at %s: plies %d → %d, %d computer moves; %s", tc.variant, tc.level, start, plies, len(log), s)
		})
	}
}

// TestComputerDifficulty changes the level in the middle of a game: the
// position stays, the new level is used and remembered; Cancel changes
// nothing; New game asks first; the person resigns.
func TestComputerDifficulty(t *testing.T) {
	ctx := computerTab(t, "shogi")
	if got := eval[string](t, ctx, `document.getElementById('level').textContent`); got != "Difficulty: Medium" {
		t.Errorf("the first game's difficulty button says %q, want Medium", got)
	}
	humanMove(t, ctx, "shogi")
	waitHuman(t, ctx)
	waitPly(t, ctx, 2)
	if log := suggestLog(t, ctx); len(log) != 1 || log[0] != "medium" {
		t.Errorf("the computer was asked %v, want one medium move", log)
	}
	if !eval[bool](t, ctx, `document.querySelector('#history li:nth-child(2) .move-text') !== null && document.querySelectorAll('svg.board .last').length === 2`) {
		t.Error("the computer's move is not in the list or not marked as the last move")
	}
	before := boardText(t, ctx)

	setLevel(t, ctx, "hard", true)
	if got := eval[string](t, ctx, `document.getElementById('level').textContent`); got != "Difficulty: Hard" {
		t.Errorf("after choosing Hard the button says %q", got)
	}
	if got := eval[string](t, ctx, `localStorage.getItem('banmen.computer.level')`); got != `"hard"` {
		t.Errorf("the stored level is %s, want hard", got)
	}
	waitPly(t, ctx, 2)
	if boardText(t, ctx) != before {
		t.Error("changing the difficulty changed the position")
	}
	setLevel(t, ctx, "easy", false)
	if got := eval[string](t, ctx, `document.body.dataset.level + ' ' + localStorage.getItem('banmen.computer.level')`); got != `hard "hard"` {
		t.Errorf("after Cancel the level is %s, want hard", got)
	}
	if boardText(t, ctx) != before || eval[string](t, ctx, `document.body.dataset.ply`) != "2" {
		t.Error("Cancel changed the position")
	}

	humanMove(t, ctx, "shogi")
	waitHuman(t, ctx)
	waitPly(t, ctx, 4)
	if log := suggestLog(t, ctx); len(log) != 2 || log[1] != "hard" {
		t.Errorf("after the change the computer was asked %v, want a hard move last", log)
	}

	// A reload remembers the level and the game.
	do(t, ctx, chromedp.Reload())
	wait(t, ctx, `document.body.dataset.ready === 'true'`)
	waitPly(t, ctx, 4)
	if got := eval[string](t, ctx, `document.getElementById('level').textContent`); got != "Difficulty: Hard" {
		t.Errorf("after a reload the button says %q, want Hard", got)
	}

	// New game asks first (with the side to play); Cancel keeps the game.
	do(t, ctx, chromedp.Click(chromedp.ID("new-game")))
	wait(t, ctx, `document.getElementById('options-dialog').open && !document.getElementById('options-confirm').hidden`)
	do(t, ctx, chromedp.Click(chromedp.CSS(`#options-dialog button[value="no"]`)))
	wait(t, ctx, `!document.getElementById('options-dialog').open`)
	waitPly(t, ctx, 4)

	// The person resigns; the computer wins.
	clickUntil(t, ctx, "#resign", `document.getElementById('confirm-dialog').open`)
	clickUntil(t, ctx, "#confirm-yes", `document.body.dataset.status === 'over'`)
	if s := statusText(ctx); !strings.Contains(s, "Gote wins") {
		t.Errorf("after resigning the status is %q, want Gote winning", s)
	}
	if eval[bool](t, ctx, `!document.getElementById('resign').hidden`) {
		t.Error("Resign is still offered after the game ended")
	}
	// The Same-device game is another game.
	if eval[bool](t, ctx, `localStorage.getItem('banmen.local.shogi') === localStorage.getItem('banmen.computer.shogi')`) {
		t.Error("the computer game is stored as the Same-device game")
	}
}

// TestComputerThinkingReload reloads Yonin while the computer thinks: the
// thinking shows and blocks the board, and after the reload the computer
// thinks again and plays its three seats until the person's turn.
func TestComputerThinkingReload(t *testing.T) {
	ctx := computerTab(t, "yonin")
	setLevel(t, ctx, "easy", true)
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`localStorage.setItem('e2e.slow', '1500')`))
	humanMove(t, ctx, "yonin")
	wait(t, ctx, `document.body.dataset.thinking === 'true'`)
	if s := statusText(ctx); !strings.Contains(s, "is thinking") {
		t.Errorf("while the computer thinks the status says %q", s)
	}
	if got := eval[string](t, ctx, `document.getElementById('status').getAttribute('aria-busy') + ' ' + document.querySelectorAll('.cell.movable, .hand-piece.movable').length`); got != "true 0" {
		t.Errorf("while thinking: aria-busy and movable pieces are %q, want busy and none", got)
	}
	wait(t, ctx, `document.getElementById('live').textContent.includes('is thinking')`)
	do(t, ctx, chromedp.Reload())
	wait(t, ctx, `document.body.dataset.ready === 'true'`)
	if eval[string](t, ctx, `document.body.dataset.ply`) != "1" || eval[string](t, ctx, `document.body.dataset.thinking`) != "true" {
		t.Errorf("after a reload during thinking: ply %s, thinking %s; want 1 and thinking again",
			eval[string](t, ctx, `document.body.dataset.ply`), eval[string](t, ctx, `document.body.dataset.thinking`))
	}
	// A new level while the computer thinks: it thinks again at that level.
	// That suggestion fails: the failure is said, and the computer may be
	// asked again.
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`localStorage.setItem('e2e.fail', 'hard')`))
	setLevel(t, ctx, "hard", true)
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`JSON.parse(sessionStorage.getItem('e2e.suggests')).at(-1) === 'hard'`, chromedp.WithPollingTimeout(5*time.Second))); err != nil {
		t.Errorf("after choosing Hard while thinking the computer was asked %v", suggestLog(t, ctx))
	}
	wait(t, ctx, `document.getElementById('computer-move') !== null`)
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`localStorage.removeItem('e2e.slow')`))
	if n := eval[string](t, ctx, `document.getElementById('notices').innerText`); !strings.Contains(n, "could not choose a move") {
		t.Errorf("after a failed suggestion the notices say %q", n)
	}
	if got := eval[int](t, ctx, `document.querySelectorAll('.cell.movable').length`); got != 0 {
		t.Errorf("on the computer's turn %d of the person's pieces can be picked up", got)
	}
	do(t, ctx, chromedp.Click(chromedp.ID("computer-move")))
	waitHuman(t, ctx)
	ply := eval[int](t, ctx, `Number(document.body.dataset.ply)`)
	if ply < 2 {
		t.Errorf("the computer made %d moves after the reload", ply-1)
	}
	if got := eval[int](t, ctx, `document.querySelectorAll('.cell.movable').length`); got == 0 {
		t.Error("on the person's turn no piece can be picked up")
	}
	// The live region is cleared and filled again 30 ms later, so a repeated text is spoken.
	wait(t, ctx, `/^(West|North|East): /.test(document.getElementById('live').textContent)`)
	if log := suggestLog(t, ctx); len(log) < ply+2 {
		t.Errorf("the page asked %d times for %d computer moves (with the one cut by the reload, the one cut by the new level and the failed one)", len(log), ply-1)
	}
}

// TestComputerScreenshot writes a phone picture of a computer game while the
// computer thinks into $BANMEN_SCREENSHOTS. It is skipped when that variable
// is unset.
func TestComputerScreenshot(t *testing.T) {
	dir := os.Getenv("BANMEN_SCREENSHOTS")
	if dir == "" {
		t.Skip("BANMEN_SCREENSHOTS is not set")
	}
	for _, v := range []string{"shogi", "xiangqi", "yonin"} {
		ctx := computerTab(t, v)
		for range 3 {
			humanMove(t, ctx, v)
			waitHuman(t, ctx)
		}
		do(t, ctx, chromedp.Evaluate[chromedp.Void](`localStorage.setItem('e2e.slow', '5000')`))
		humanMove(t, ctx, v)
		wait(t, ctx, `document.body.dataset.thinking === 'true'`)
		do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.querySelectorAll('.notice').forEach(n => n.remove()); window.scrollTo(0, 0)`),
			chromedp.Sleep(300*time.Millisecond))
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, v+"-computer-phone.png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
		do(t, ctx, chromedp.Evaluate[chromedp.Void](`localStorage.removeItem('e2e.slow')`))
		waitHuman(t, ctx)
	}
}

// TestComputerDialogShot writes the difficulty dialog, in Ukrainian, on a
// phone into $BANMEN_SCREENSHOTS (skipped when unset), to look at.
func TestComputerDialogShot(t *testing.T) {
	dir := os.Getenv("BANMEN_SCREENSHOTS")
	if dir == "" {
		t.Skip("BANMEN_SCREENSHOTS is not set")
	}
	ctx := computerTab(t, "shogi")
	open(t, ctx, "/uk/shogi/play?mode=computer")
	do(t, ctx, chromedp.Click(chromedp.ID("level")))
	wait(t, ctx, `document.getElementById('level-dialog').open`)
	do(t, ctx, chromedp.Sleep(200*time.Millisecond))
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "dialog-uk.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	// The landing page's mode buttons, and the game on a desktop.
	do(t, ctx, chromedp.Navigate(baseURL+"/en/xiangqi/"), chromedp.Evaluate[chromedp.Void](`document.querySelector('.modes').scrollIntoView()`))
	if png, err = chromedp.Run(ctx, chromedp.CaptureScreenshot()); err == nil {
		err = os.WriteFile(filepath.Join(dir, "landing.png"), png, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	do(t, ctx, chromedp.EmulateViewport(1366, 900))
	open(t, ctx, "/en/yonin/play?mode=computer")
	if png, err = chromedp.Run(ctx, chromedp.CaptureScreenshot()); err == nil {
		err = os.WriteFile(filepath.Join(dir, "yonin-desktop.png"), png, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestDialogReopenedAtOnce closes the Difficulty dialog and reopens it in the
// same moment, before the close event has been delivered: the late event must
// not answer the new dialog, whose OK then sets the level.
func TestDialogReopenedAtOnce(t *testing.T) {
	ctx := computerTab(t, "xiangqi")
	eval[bool](t, ctx, `(() => {
		document.getElementById('level').click();
		document.getElementById('level-cancel').click();
		document.getElementById('level').click();
		return true;
	})()`)
	wait(t, ctx, `document.getElementById('level-dialog').open`)
	eval[bool](t, ctx, `(() => {
		document.querySelector('#level-dialog input[value="hard"]').click();
		document.getElementById('level-ok').click();
		return true;
	})()`)
	wait(t, ctx, `document.body.dataset.level === 'hard' && !document.getElementById('level-dialog').open`)
}

// derefs shows a list of optional seats, nil as -1.
func derefs(seats []*int) []int {
	out := make([]int, len(seats))
	for i, s := range seats {
		out[i] = -1
		if s != nil {
			out[i] = *s
		}
	}
	return out
}

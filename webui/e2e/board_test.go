package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// These tests cover the board's own features (issue 16): the move list's
// navigation, takebacks, the end-of-game panel, the side against the
// computer, the notation per language. Each opens its pages in a browser
// context of its own, so no saved game of another test is resumed.

// fresh opens path in a new browser context at the given size and waits
// for the game.
func fresh(t *testing.T, path string, w, h int64, opts ...chromedp.EmulateViewportOption) context.Context {
	t.Helper()
	ctx := tab(t, chromedp.WithNewBrowserContext())
	do(t, ctx, chromedp.EmulateViewport(w, h, opts...))
	open(t, ctx, path)
	return ctx
}

// clickMove plays from → to (cell indexes) by mouse and waits for the ply.
func clickMove(t *testing.T, ctx context.Context, from, to int) {
	t.Helper()
	ply := eval[int](t, ctx, `Number(document.body.dataset.ply)`)
	clickSquares(t, ctx, from, to)
	waitPly(t, ctx, ply+1)
}

func click(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	x, y := center(t, ctx, sel)
	do(t, ctx, chromedp.MouseClickXY(x, y))
}

// kindAt is the piece kind the board shows on a cell ("" when empty).
func kindAt(t *testing.T, ctx context.Context, i int) string {
	t.Helper()
	return eval[string](t, ctx, fmt.Sprintf(`document.querySelector(%q).dataset.kind || ''`, cellSel(i)))
}

func waitViewing(t *testing.T, ctx context.Context, v string) {
	t.Helper()
	wait(t, ctx, fmt.Sprintf(`document.body.dataset.viewing === %q && document.body.dataset.navBusy !== 'true'`, v))
}

// TestNavigation: a click on a move of the list, the buttons and the keys
// show earlier positions (from the plugin), nothing can be played there, and
// Back to the game returns to the current one, where play goes on.
func TestNavigation(t *testing.T) {
	ctx := fresh(t, "/en/shogi/play?mode=local", 1366, 900)
	for _, m := range []string{"7g7f", "3c3d", "2g2f"} {
		clickMove(t, ctx, shogiCell(m[:2]), shogiCell(m[2:]))
	}
	d3, c3 := shogiCell("3d"), shogiCell("3c")
	click(t, ctx, `#history li[data-ply="1"] button`)
	waitViewing(t, ctx, "1")
	if k, c := kindAt(t, ctx, d3), kindAt(t, ctx, c3); k != "" || c != "P" {
		t.Errorf("after move 1 the board shows %q on 3d and %q on 3c, want the pawn still on 3c", k, c)
	}
	if !eval[bool](t, ctx, `!document.getElementById('viewing').hidden && document.querySelector('#history li[aria-current]')?.dataset.ply === '1'`) {
		t.Error("the viewing bar or the current move of the list is not shown")
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('.cell.movable').length`); n != 0 {
		t.Errorf("%d pieces may move on an earlier position, want none", n)
	}
	// The position is the plugin's: the status still speaks of the game.
	if p := eval[string](t, ctx, `document.body.dataset.ply`); p != "3" {
		t.Errorf("the game's ply is %s while looking back, want 3", p)
	}
	do(t, ctx, chromedp.KeyEvent(kb.ArrowRight))
	waitViewing(t, ctx, "2")
	if k := kindAt(t, ctx, d3); k != "P" {
		t.Errorf("after move 2 3d holds %q, want the pawn", k)
	}
	do(t, ctx, chromedp.KeyEvent(kb.Home))
	waitViewing(t, ctx, "0")
	if s := eval[string](t, ctx, `document.getElementById('viewing-text').textContent`); !strings.Contains(s, "start position") {
		t.Errorf("viewing text %q at ply 0", s)
	}
	do(t, ctx, chromedp.KeyEvent(kb.End))
	waitViewing(t, ctx, "")
	do(t, ctx, chromedp.KeyEvent(kb.ArrowLeft))
	waitViewing(t, ctx, "2")
	click(t, ctx, `#nav-prev`)
	waitViewing(t, ctx, "1")
	click(t, ctx, `#nav-back`)
	waitViewing(t, ctx, "")
	if n := eval[int](t, ctx, `document.querySelectorAll('.cell.movable').length`); n == 0 {
		t.Error("back at the game, nothing may move")
	}
	clickMove(t, ctx, shogiCell("8c"), shogiCell("8d"))
}

// TestTakebackLocal: on one device Take back undoes the last move, one at a
// time, down to the start.
func TestTakebackLocal(t *testing.T) {
	ctx := fresh(t, "/en/xiangqi/play?mode=local", 390, 844, chromedp.EmulateMobile, chromedp.EmulateTouch)
	clickMove(t, ctx, xiangqiCell("h2"), xiangqiCell("e2"))
	clickMove(t, ctx, xiangqiCell("h9"), xiangqiCell("g7"))
	click(t, ctx, `#takeback`)
	waitPly(t, ctx, 1)
	if k := kindAt(t, ctx, xiangqiCell("h9")); k != "N" {
		t.Errorf("after the takeback h9 holds %q, want Black's horse back", k)
	}
	if tm := eval[string](t, ctx, `document.body.dataset.toMove`); tm != "1" {
		t.Errorf("to move after the takeback: %s, want Black (1)", tm)
	}
	click(t, ctx, `#takeback`)
	waitPly(t, ctx, 0)
	if !eval[bool](t, ctx, `document.getElementById('takeback').disabled`) {
		t.Error("Take back is enabled at the start")
	}
	clickMove(t, ctx, xiangqiCell("b0"), xiangqiCell("c2"))
}

// TestTakebackComputer: against the computer Take back undoes the person's
// move and the computer's reply, and it is the person's turn again.
func TestTakebackComputer(t *testing.T) {
	ctx := computerTab(t, "shogi")
	humanMove(t, ctx, "shogi")
	waitHuman(t, ctx)
	waitPly(t, ctx, 2)
	click(t, ctx, `#takeback`)
	waitPly(t, ctx, 0)
	waitHuman(t, ctx)
	if n := eval[int](t, ctx, `document.querySelectorAll('#history li').length`); n != 0 {
		t.Errorf("%d moves listed after taking back the only two", n)
	}
}

// TestSideChoice: against the computer the person may take the second seat:
// the computer then moves first, and the person's side is at the bottom.
func TestSideChoice(t *testing.T) {
	ctx := fresh(t, "/en/xiangqi/play?mode=computer", 390, 844, chromedp.EmulateMobile, chromedp.EmulateTouch)
	click(t, ctx, `#new-game`)
	wait(t, ctx, `document.getElementById('options-dialog').open`)
	click(t, ctx, `#side-choices input[value="1"]`)
	click(t, ctx, `#options-start`)
	wait(t, ctx, `document.body.dataset.ply === '1' && document.body.dataset.thinking !== 'true'`)
	if tm := eval[string](t, ctx, `document.body.dataset.toMove`); tm != "1" {
		t.Errorf("after the computer's first move %s is to move, want Black (1)", tm)
	}
	if s := eval[string](t, ctx, `document.querySelector('.hand[data-side="bottom"]').dataset.seat`); s != "1" {
		t.Errorf("the seat at the bottom is %s, want Black (1)", s)
	}
	// The choice is kept with the game.
	do(t, ctx, chromedp.Reload())
	wait(t, ctx, `document.body.dataset.ready === 'true' && document.body.dataset.ply === '1'`)
	if s := eval[string](t, ctx, `document.querySelector('.hand[data-side="bottom"]').dataset.seat`); s != "1" {
		t.Errorf("after a reload the seat at the bottom is %s, want Black (1)", s)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('.cell.movable').length`); n == 0 {
		t.Error("Black has nothing to move")
	}
}

// TestNotationZh: in Chinese the xiangqi move list is in Chinese notation
// first; WXF is a click away, and the choice is remembered.
func TestNotationZh(t *testing.T) {
	ctx := fresh(t, "/zh/xiangqi/play?mode=local", 1366, 900)
	clickMove(t, ctx, xiangqiCell("h2"), xiangqiCell("e2"))
	clickMove(t, ctx, xiangqiCell("h9"), xiangqiCell("g7"))
	moves := func() string {
		return eval[string](t, ctx, `[...document.querySelectorAll('#history .move-text')].map((e) => e.textContent).join(' ')`)
	}
	if got := moves(); got != "炮二平五 马8进7" {
		t.Errorf("zh move list %q, want 炮二平五 马8进7", got)
	}
	click(t, ctx, `#notation-toggle [data-alt="false"]`)
	if got := moves(); got != "C2.5 H8+7" {
		t.Errorf("WXF move list %q, want C2.5 H8+7", got)
	}
	do(t, ctx, chromedp.Reload())
	wait(t, ctx, `document.body.dataset.ready === 'true' && document.body.dataset.ply === '2'`)
	if got := moves(); got != "C2.5 H8+7" {
		t.Errorf("after a reload the move list is %q, want WXF as chosen", got)
	}
	// Numbers agree with the WXF record: one per move and reply.
	if n := eval[string](t, ctx, `[...document.querySelectorAll('#history .ply')].map((e) => e.textContent).join('|')`); n != "1.|" {
		t.Errorf("move numbers %q, want 1. once for the pair", n)
	}
	// English starts in WXF.
	en := fresh(t, "/en/xiangqi/play?mode=local", 1366, 900)
	if b := eval[string](t, en, `document.body.dataset.notation`); b != "text" {
		t.Errorf("English starts with notation %q, want text (WXF)", b)
	}
}

// TestResultPanel: a resignation ends the game with a panel that names the
// winner and the way, in the page's language, with New game and Export;
// "resigns" is written in that language in the move list.
func TestResultPanel(t *testing.T) {
	ctx := fresh(t, "/de/shogi/play?mode=local", 390, 844, chromedp.EmulateMobile, chromedp.EmulateTouch)
	clickMove(t, ctx, shogiCell("7g"), shogiCell("7f"))
	click(t, ctx, `#resign`)
	wait(t, ctx, `document.getElementById('confirm-dialog').open`)
	click(t, ctx, `#confirm-yes`)
	wait(t, ctx, `document.body.dataset.status === 'over' && !document.getElementById('result').hidden`)
	txt := eval[string](t, ctx, `document.getElementById('result').innerText`)
	if !strings.Contains(txt, "Sente gewinnt") || !strings.Contains(txt, "Aufgabe") {
		t.Errorf("result panel %q", txt)
	}
	if last := eval[string](t, ctx, `[...document.querySelectorAll('#history .move-text')].pop().textContent`); last != "gibt auf" {
		t.Errorf("the resignation is listed as %q, want gibt auf", last)
	}
	click(t, ctx, `#result-export`)
	wait(t, ctx, `document.getElementById('export-box').open && document.activeElement?.id === 'export-go'`)
	click(t, ctx, `#result-new`)
	wait(t, ctx, `document.body.dataset.ply === '0' && document.body.dataset.status === 'playing' && document.getElementById('result').hidden`)
}

// TestThemeSwitch: the site follows the system's dark preference, the
// header's switch overrides it on every page, and the choice is kept.
func TestThemeSwitch(t *testing.T) {
	ctx := tab(t, chromedp.WithNewBrowserContext())
	do(t, ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateTouch))
	bg := func() string {
		return eval[string](t, ctx, `getComputedStyle(document.documentElement).backgroundColor`)
	}
	dark := func(on bool) {
		t.Helper()
		v := "light"
		if on {
			v = "dark"
		}
		if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: v}}}); err != nil {
			t.Fatal(err)
		}
	}
	dark(true)
	open(t, ctx, "/en/shogi/play?mode=local")
	systemDark := bg()
	dark(false)
	light := bg()
	if systemDark == light {
		t.Fatalf("the page looks the same (%s) with the system dark and light", light)
	}
	click(t, ctx, `#theme-toggle`)
	if got := bg(); got != systemDark {
		t.Errorf("after the switch the page is %s, want the dark %s", got, systemDark)
	}
	if p := eval[string](t, ctx, `document.getElementById('theme-toggle').getAttribute('aria-pressed')`); p != "true" {
		t.Errorf("the switch says pressed=%s in the dark theme", p)
	}
	// Kept on another page, whatever the system says.
	do(t, ctx, chromedp.Navigate(baseURL+"/en/"))
	wait(t, ctx, `document.readyState === 'complete'`)
	if got := bg(); got != systemDark {
		t.Errorf("the home page after the choice is %s, want dark", got)
	}
	// The board's appearance panel offers the same choice.
	open(t, ctx, "/en/xiangqi/play?mode=local")
	if v := eval[string](t, ctx, `document.getElementById('look-theme').value`); v != "dark" {
		t.Errorf("the appearance panel says theme %q, want dark", v)
	}
	do(t, ctx, chromedp.SetValue(chromedp.ID("look-theme"), ""),
		chromedp.Evaluate[chromedp.Void](`document.getElementById('look-theme').dispatchEvent(new Event('change'))`))
	if got := bg(); got != light {
		t.Errorf("back to the system's (light) theme the page is %s, want %s", got, light)
	}
}

// TestLookAndSound: the board's appearance (wood, ink, symbols) and the
// sound switch are kept in the browser; a move makes its sound only when
// sound is on.
func TestLookAndSound(t *testing.T) {
	ctx := fresh(t, "/en/shogi/play?mode=local", 1366, 900)
	if ink := eval[string](t, ctx, `document.body.dataset.ink`); ink != "mono" {
		t.Errorf("shogi starts with ink %q, want one colour", ink)
	}
	clickMove(t, ctx, shogiCell("7g"), shogiCell("7f"))
	if s := eval[string](t, ctx, `document.body.dataset.lastSound || ''`); s != "move" {
		t.Errorf("a move made the sound %q, want move", s)
	}
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById('look-box').open = true`))
	for id, v := range map[string]string{"look-board": "wood", "look-ink": "duo", "look-set": "intl"} {
		do(t, ctx, chromedp.SetValue(chromedp.ID(id), v),
			chromedp.Evaluate[chromedp.Void](`document.getElementById('`+id+`').dispatchEvent(new Event('change'))`))
	}
	click(t, ctx, `#sound-on`)
	do(t, ctx, chromedp.Reload())
	wait(t, ctx, `document.body.dataset.ready === 'true' && document.body.dataset.ply === '1'`)
	got := eval[string](t, ctx, `[document.body.dataset.boardStyle, document.body.dataset.ink, document.getElementById('look-set').value, document.body.dataset.sound, String(document.getElementById('sound-on').checked)].join(' ')`)
	if got != "wood duo intl off false" {
		t.Errorf("after a reload the look is %q, want wood duo intl off false (sound muted)", got)
	}
	if txt := eval[string](t, ctx, `document.querySelector('svg.board .glyph')?.textContent`); txt == "" || strings.ContainsAny(txt, "香桂銀金玉王飛角歩") {
		t.Errorf("with international symbols a piece shows %q", txt)
	}
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`delete document.body.dataset.lastSound`))
	clickMove(t, ctx, shogiCell("3c"), shogiCell("3d"))
	if s := eval[string](t, ctx, `document.body.dataset.lastSound || ''`); s != "" {
		t.Errorf("muted, a move still made the sound %q", s)
	}
}

// TestPromotionByKeyboard: the promotion dialog opens with the focus on
// its first choice; the arrows go to the other, Enter plays it.
func TestPromotionByKeyboard(t *testing.T) {
	ctx := fresh(t, "/en/shogi/play?mode=local", 1366, 900)
	clickMove(t, ctx, shogiCell("7g"), shogiCell("7f"))
	clickMove(t, ctx, shogiCell("3c"), shogiCell("3d"))
	// Keyboard only: Enter on the bishop, then on its target.
	for _, sq := range []string{"8h", "2b"} {
		do(t, ctx, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%q).focus()`, cellSel(shogiCell(sq)))))
		do(t, ctx, chromedp.KeyEvent(kb.Enter))
	}
	wait(t, ctx, `document.getElementById('promote-dialog').open && document.activeElement?.dataset.promote === 'true'`)
	do(t, ctx, chromedp.KeyEvent(kb.ArrowRight))
	wait(t, ctx, `document.activeElement?.dataset.promote === 'false'`)
	do(t, ctx, chromedp.KeyEvent(kb.Enter))
	waitPly(t, ctx, 3)
	if m := eval[string](t, ctx, `[...document.querySelectorAll('#history li')].pop().dataset.move`); m != "8h2b" {
		t.Errorf("the keyboard chose %q, want 8h2b (not promoting)", m)
	}
}

// TestYoninOptionsInWords: Yonin's options offer "None" for the move limit
// instead of a bare 0 (and seats by name, where one is asked), and start the
// game they say.
func TestYoninOptionsInWords(t *testing.T) {
	ctx := fresh(t, "/en/yonin/play?mode=local", 1366, 900)
	click(t, ctx, `#new-game`)
	wait(t, ctx, `document.getElementById('options-dialog').open`)
	if got := eval[string](t, ctx, `document.getElementById('opt-move_limit-none').value + ' ' + document.getElementById('opt-move_limit').hidden`); got != "none true" {
		t.Errorf("move limit starts as %q, want none with no number shown", got)
	}
	if l := eval[string](t, ctx, `document.querySelector('label[for="opt-move_limit-none"]').textContent`); strings.ContainsAny(l, "0=") {
		t.Errorf("the move limit's label %q still explains numbers", l)
	}
	// A seat option, where one is offered, names the seats.
	if got := eval[string](t, ctx, `[...document.querySelectorAll('#options-fields select')].filter((s) => [...s.options].some((o) => o.textContent === 'West')).map((s) => [...s.options].map((o) => o.textContent).join(',')).join(';')`); got != "" && got != "South,West,North,East" {
		t.Errorf("seat choices %q, want the seats by name", got)
	}
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`
		const none = document.getElementById('opt-move_limit-none');
		none.value = 'some'; none.dispatchEvent(new Event('change'));
		document.getElementById('opt-move_limit').value = '150';`))
	click(t, ctx, `#options-start`)
	// The new game is kept with the options it started with.
	wait(t, ctx, `document.body.dataset.ready === 'true' && JSON.parse(localStorage.getItem('banmen.local.yonin') || '{}').options?.move_limit === '150'`)
}

// TestRoomNavigation: in a room a player may step back through the move
// list (the positions come from the server, for the room), the board takes
// no move meanwhile and nothing is sent; back at the game they play on.
func TestRoomNavigation(t *testing.T) {
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
	roomMove(t, host, shogiCell("2g"), shogiCell("2f"))
	waitPly(t, guest, 3)
	// Count the moves the guest's page sends from now on.
	do(t, guest, chromedp.Evaluate[chromedp.Void](`window.__moves = 0; for (const ws of window.__sockets) { const send = ws.send.bind(ws); ws.send = (m) => { if (JSON.parse(m).type === 'move') window.__moves++; send(m); }; }`))
	click(t, guest, `#history li[data-ply="1"] button`)
	waitViewing(t, guest, "1")
	if k := kindAt(t, guest, shogiCell("3c")); k != "P" {
		t.Errorf("looking at move 1 the guest sees %q on 3c, want Gote's pawn not yet moved", k)
	}
	if n := eval[int](t, guest, `document.querySelectorAll('.cell.movable').length`); n != 0 {
		t.Errorf("%d pieces may move on an earlier position online", n)
	}
	click(t, guest, cellSel(shogiCell("8c")))
	click(t, guest, cellSel(shogiCell("8d")))
	if n := eval[int](t, guest, `window.__moves`); n != 0 {
		t.Errorf("the guest's page sent %d moves from an earlier position", n)
	}
	// The host plays on meanwhile: the guest keeps looking back, the list grows.
	do(t, guest, chromedp.KeyEvent(kb.End))
	waitViewing(t, guest, "")
	roomMove(t, guest, shogiCell("8c"), shogiCell("8d"))
	waitPly(t, host, 4)
	if n := eval[int](t, guest, `window.__moves`); n != 1 {
		t.Errorf("back at the game the guest's page sent %d moves, want 1", n)
	}
}

// TestExportInLanguage: a Yonin record exported from the Japanese page has
// its header in Japanese (sdk.LocalExporter); from the English page, English.
func TestExportInLanguage(t *testing.T) {
	ctx := fresh(t, "/ja/yonin/play?mode=local", 1366, 900)
	if got := exportText(t, ctx, "yonin"); !strings.HasPrefix(got, "# 四人将棋") {
		t.Errorf("the Japanese page's record starts %q", strings.SplitN(got, "\n", 2)[0])
	}
	en := fresh(t, "/en/yonin/play?mode=local", 1366, 900)
	if got := exportText(t, en, "yonin"); !strings.HasPrefix(got, "# Yonin Shogi") {
		t.Errorf("the English page's record starts %q", strings.SplitN(got, "\n", 2)[0])
	}
}

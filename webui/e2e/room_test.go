package e2e

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
	"github.com/chromedp/chromedp/kb"
)

// Rooms (Play with a friend) between real browsers. Every person is a
// browser context of their own (their own storage, like another device); a
// second tab of the same person shares theirs.

// socketHook records the page's WebSockets in window.__sockets and lets a
// test cut a person's network: while window.__cut is true, new sockets fail
// at once (as a dead network does) without reaching the server.
const socketHook = `(() => {
	const Real = window.WebSocket;
	window.__sockets = [];
	window.__cut = false;
	function Hooked(url, protocols) {
		if (window.__cut) {
			const fake = {readyState: 3, send() {}, close() {}, onopen: null, onmessage: null, onclose: null};
			setTimeout(() => fake.onclose && fake.onclose({code: 1006}), 20);
			return fake;
		}
		const ws = new Real(url, protocols);
		window.__sockets.push(ws);
		return ws;
	}
	Hooked.CONNECTING = 0; Hooked.OPEN = 1; Hooked.CLOSING = 2; Hooked.CLOSED = 3;
	Hooked.prototype = Real.prototype;
	window.WebSocket = Hooked;
})();`

// restoreAndReconnect gives a person whose network socketHook cut it
// back and has them press Reconnect. Cut, the page retries by itself, and
// each attempt disables the button for the ~20 ms its socket takes to fail:
// the network comes back and the button is pressed in one step of the
// page, at a moment it is enabled, so the press never lands on a disabled button
// nor waits behind a retry begun while still cut.
func restoreAndReconnect(t *testing.T, ctx context.Context) {
	t.Helper()
	wait(t, ctx, `(() => {
		const b = document.getElementById('reconnect');
		if (document.body.dataset.conn !== 'reconnecting' || b.hidden) return false;
		window.__cut = false;
		b.click();
		return true;
	})()`)
}

// person opens a tab in a new browser context: a visitor with storage of
// their own.
func person(t *testing.T, w, h int64, opts ...chromedp.EmulateViewportOption) context.Context {
	t.Helper()
	ctx := tab(t, chromedp.WithNewBrowserContext())
	hook(t, ctx)
	do(t, ctx, chromedp.EmulateViewport(w, h, opts...))
	return ctx
}

// sameBrowser opens another tab beside ctx's, sharing its storage.
func sameBrowser(t *testing.T, ctx context.Context) context.Context {
	t.Helper()
	c := tab(t, chromedp.WithExistingBrowserContext(chromedp.FromContext(ctx).BrowserContextID))
	hook(t, c)
	do(t, c, chromedp.EmulateViewport(1366, 900))
	return c
}

func hook(t *testing.T, ctx context.Context) {
	t.Helper()
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: socketHook}); err != nil {
		t.Fatal(err)
	}
}

func phone() (int64, int64, []chromedp.EmulateViewportOption) {
	return 390, 844, []chromedp.EmulateViewportOption{chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulatePortrait}
}

// openRoom loads a room's page and waits for its welcome.
func openRoom(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	do(t, ctx, chromedp.Navigate(url))
	wait(t, ctx, `document.body.dataset.ready === 'true' && document.body.dataset.conn === 'open'`)
}

// roomMove plays a move by clicking its squares and waits until the server
// has confirmed it (the page's version raised, nothing pending).
func roomMove(t *testing.T, ctx context.Context, from, to int) {
	t.Helper()
	ply := eval[int](t, ctx, `Number(document.body.dataset.ply)`)
	clickSquares(t, ctx, from, to)
	waitPly(t, ctx, ply+1)
	wait(t, ctx, `document.body.dataset.pending === 'false'`)
}

func clickSquares(t *testing.T, ctx context.Context, from, to int) {
	t.Helper()
	fx, fy := center(t, ctx, cellSel(from))
	do(t, ctx, chromedp.MouseClickXY(fx, fy))
	wait(t, ctx, `document.querySelectorAll('.cell.target').length > 0`)
	tx, ty := center(t, ctx, cellSel(to))
	do(t, ctx, chromedp.MouseClickXY(tx, ty))
}

func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("BANMEN_SCREENSHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRoomShogi: a host creates a room from the landing page and a guest
// opens the invitation in another browser: seats 0 and 1, each side at the
// bottom of its own screen. They play both ways; a reload keeps the guest's
// seat; a third visitor watches and cannot move; a second tab replaces the
// first, which stops and can take the seat back. A cut connection pauses the
// game for both, a move made meanwhile stays pending and is confirmed once
// back; one made while the other resigned is said not to be played. New
// round by consent: declined changes nothing, accepted starts round 2 with
// the same colours. The record exports through the room.
func TestRoomShogi(t *testing.T) {
	w, h, opts := phone()
	host := person(t, w, h, opts...)
	// The host's phone has a share sheet (headless Chromium has none): it
	// records what it was handed.
	if _, err := chromedp.Call(host, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: `navigator.share = async (data) => { window.__shared = data; };`,
	}); err != nil {
		t.Fatal(err)
	}
	do(t, host, chromedp.Navigate(baseURL+"/en/shogi/"))
	do(t, host, chromedp.Click(chromedp.CSS(`.mode-friend`)))
	waitNavigated(t, host, `location.pathname.includes('/room/') && document.body.dataset.ready === 'true' && document.body.dataset.conn === 'open'`)
	url := eval[string](t, host, `location.href`)
	if got := eval[string](t, host, `document.body.dataset.seat`); got != "0" {
		t.Fatalf("the host holds seat %q, want 0", got)
	}
	// The invitation: the link, Copy (with its feedback) and a QR code.
	wait(t, host, `!document.getElementById('invite').hidden`)
	if got := eval[string](t, host, `document.getElementById('invite-link').value`); got != url {
		t.Errorf("the invitation link is %q, want the room's page %q", got, url)
	}
	if n := eval[int](t, host, `document.querySelectorAll('#qr svg path').length`); n != 1 {
		t.Errorf("the invitation has %d QR codes", n)
	}
	if s := eval[string](t, host, `document.getElementById('status').innerText`); !strings.Contains(s, "Waiting for Gote to open the invitation") {
		t.Errorf("before the guest joined the status says %q", s)
	}
	do(t, host, chromedp.Click(chromedp.ID("share")))
	wait(t, host, `window.__shared !== undefined`)
	if got := eval[string](t, host, `window.__shared.url`); got != url {
		t.Errorf("Share invitation handed %q to the share sheet, want %q", got, url)
	}
	do(t, host, chromedp.Click(chromedp.ID("copy-link")))
	wait(t, host, `document.getElementById('copy-status').textContent !== ''`)
	if key := eval[string](t, host, `localStorage.getItem('banmen.seat.' + location.pathname.split('/').pop()) ?? ''`); len(key) != 43 || strings.Contains(url, key) {
		t.Errorf("the host's seat key %q is not kept in the browser's storage only", key)
	}
	do(t, host, chromedp.Evaluate[chromedp.Void](`document.getElementById('copy-status').textContent = ''; window.scrollTo(0, 0)`))
	shot(t, host, "room-invite-phone.png")

	// The guest opens the invitation: seat 1, Gote at the bottom.
	guest := person(t, 1366, 900)
	openRoom(t, guest, url)
	if got := eval[string](t, guest, `document.body.dataset.seat`); got != "1" {
		t.Fatalf("the guest holds seat %q, want 1", got)
	}
	if !eval[bool](t, guest, fmt.Sprintf(`document.querySelector('%s').getBoundingClientRect().top < document.querySelector('%s').getBoundingClientRect().top`, cellSel(shogiCell("1i")), cellSel(shogiCell("9a")))) {
		t.Error("the guest does not see Gote's side at the bottom")
	}
	if !eval[bool](t, host, fmt.Sprintf(`document.querySelector('%s').getBoundingClientRect().top > document.querySelector('%s').getBoundingClientRect().top`, cellSel(shogiCell("1i")), cellSel(shogiCell("9a")))) {
		t.Error("the host does not see Sente's side at the bottom")
	}
	wait(t, host, `document.querySelector('#presence li[data-seat="1"]')?.dataset.state === 'connected' && (document.getElementById('invite').hidden || document.getElementById('invite').dataset.done === 'true')`)

	// Moves both ways; the guest may not move out of turn.
	if n := eval[int](t, guest, `document.querySelectorAll('.cell.movable').length`); n != 0 {
		t.Errorf("the guest may move %d pieces on Sente's turn", n)
	}
	roomMove(t, host, shogiCell("7g"), shogiCell("7f"))
	waitPly(t, guest, 1)
	// The guest moves by keyboard on the turned board: up on the screen is
	// Gote's forward. The move is announced once the server confirmed it.
	do(t, guest, chromedp.Focus(chromedp.CSS(cellSel(shogiCell("3c")))), chromedp.KeyEvent(kb.Enter))
	wait(t, guest, `document.querySelectorAll('.cell.target').length > 0`)
	do(t, guest, chromedp.KeyEvent(kb.ArrowUp))
	if got := eval[int](t, guest, `Number(document.activeElement.dataset.index)`); got != shogiCell("3d") {
		t.Errorf("ArrowUp on Gote's board went to cell %d, want 3d (%d)", got, shogiCell("3d"))
	}
	do(t, guest, chromedp.KeyEvent(kb.Enter))
	waitPly(t, guest, 2)
	wait(t, guest, `document.getElementById('live').textContent.includes('Gote')`)
	waitPly(t, host, 2)
	wait(t, host, `document.getElementById('live').textContent.includes('Gote')`)
	roomMove(t, host, shogiCell("2g"), shogiCell("2f"))
	waitPly(t, guest, 3)

	// A reload keeps the guest's seat and the moves.
	openRoom(t, guest, url)
	if got := eval[string](t, guest, `document.body.dataset.seat`); got != "1" {
		t.Fatalf("after a reload the guest holds seat %q, want 1", got)
	}
	waitPly(t, guest, 3)
	if n := eval[int](t, guest, `document.querySelectorAll('#history li').length`); n != 3 {
		t.Errorf("after a reload the move list has %d moves, want 3", n)
	}

	// A third visitor watches: seen by the players, no move of their own.
	spectator := person(t, 1366, 900)
	openRoom(t, spectator, url)
	if got := eval[string](t, spectator, `document.body.dataset.seat`); got != "-1" {
		t.Fatalf("the third visitor holds seat %q, want to watch (-1)", got)
	}
	wait(t, host, `document.body.dataset.spectators === '1'`)
	wait(t, guest, `document.body.dataset.spectators === '1'`)
	if n := eval[int](t, spectator, `document.querySelectorAll('.cell.movable').length`); n != 0 {
		t.Errorf("the spectator may move %d pieces", n)
	}
	x, y := center(t, spectator, cellSel(shogiCell("3d")))
	do(t, spectator, chromedp.MouseClickXY(x, y))
	if n := eval[int](t, spectator, `document.querySelectorAll('.cell.target, .cell.selected').length`); n != 0 {
		t.Error("the spectator picked up a piece")
	}

	// The guest's network goes down: both see it; the guest's move waits,
	// shown as pending, and is confirmed once the guest is back.
	do(t, guest, chromedp.Evaluate[chromedp.Void](`window.__cut = true; window.__sockets.at(-1).close()`))
	wait(t, guest, `document.body.dataset.conn === 'reconnecting' && !document.getElementById('reconnect').hidden`)
	wait(t, host, `document.body.dataset.waiting === '1'`)
	if s := eval[string](t, host, `document.getElementById('status').innerText`); !strings.Contains(s, "Waiting for Gote to reconnect") {
		t.Errorf("while the guest is away the host's status says %q", s)
	}
	if n := eval[int](t, host, `document.querySelectorAll('.cell.movable').length`); n != 0 {
		t.Errorf("the host may move %d pieces while the guest is away", n)
	}
	clickSquares(t, guest, shogiCell("8c"), shogiCell("8d"))
	wait(t, guest, `document.body.dataset.pending === 'true' && document.querySelector('#history li.pending') !== null`)
	do(t, host, chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
	shot(t, host, "room-waiting-phone.png")
	restoreAndReconnect(t, guest)
	wait(t, guest, `document.body.dataset.conn === 'open' && document.body.dataset.pending === 'false' && document.body.dataset.ply === '4'`)
	waitPly(t, host, 4)
	if n := eval[int](t, guest, `document.querySelectorAll('#history li.pending').length`); n != 0 {
		t.Error("a confirmed move is still shown as pending")
	}

	// A second tab of the host takes the seat; the first one stops and can
	// take it back.
	second := sameBrowser(t, host)
	openRoom(t, second, url)
	if got := eval[string](t, second, `document.body.dataset.seat`); got != "0" {
		t.Fatalf("the host's second tab holds seat %q, want 0", got)
	}
	wait(t, host, `document.body.dataset.conn === 'replaced' && !document.getElementById('use-here').hidden`)
	if s := eval[string](t, host, `document.getElementById('stopped').innerText`); !strings.Contains(s, "another tab") {
		t.Errorf("the replaced tab says %q", s)
	}
	roomMove(t, second, shogiCell("2f"), shogiCell("2e"))
	waitPly(t, guest, 5)
	do(t, host, chromedp.Click(chromedp.ID("use-here")))
	wait(t, host, `document.body.dataset.conn === 'open' && document.body.dataset.ply === '5'`)
	wait(t, second, `document.body.dataset.conn === 'replaced'`)
	// A replaced tab does not come back by itself.
	if eval[string](t, host, `document.body.dataset.conn`) != "open" {
		t.Error("the first tab lost its seat again")
	}

	roomMove(t, guest, shogiCell("4a"), shogiCell("3b"))
	waitPly(t, host, 6)
	do(t, host, chromedp.Evaluate[chromedp.Void](`document.querySelectorAll('.notice').forEach(n => n.remove()); window.scrollTo(0, 0)`))
	x, y = center(t, host, cellSel(shogiCell("8h")))
	do(t, host, chromedp.MouseClickXY(x, y))
	wait(t, host, `document.querySelectorAll('.cell.target').length > 0`)
	do(t, host, chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
	shot(t, host, "room-game-phone.png")
	do(t, host, chromedp.MouseClickXY(x, y))
	roomMove(t, host, shogiCell("6i"), shogiCell("7h"))
	waitPly(t, guest, 7)

	// The record, through the room's export.
	if got := exportText(t, guest, "sfen+usi"); !strings.Contains(got, "moves 7g7f 3c3d 2g2f 8c8d 2f2e 4a3b 6i7h") {
		t.Errorf("the room's SFEN + USI export:\n%s", got)
	}

	// The guest, cut off again, moves; meanwhile the host resigns. Back
	// online, the guest's page says that move was not played.
	do(t, guest, chromedp.Evaluate[chromedp.Void](`window.__cut = true; window.__sockets.at(-1).close()`))
	wait(t, guest, `document.body.dataset.conn === 'reconnecting'`)
	clickSquares(t, guest, shogiCell("8d"), shogiCell("8e"))
	wait(t, guest, `document.body.dataset.pending === 'true'`)
	wait(t, host, `document.body.dataset.waiting === '1'`)
	do(t, host, chromedp.Click(chromedp.ID("resign")))
	wait(t, host, `document.getElementById('confirm-dialog').open`)
	do(t, host, chromedp.Click(chromedp.ID("confirm-yes")))
	wait(t, host, `document.body.dataset.status === 'over'`)
	if s := statusText(host); !strings.Contains(s, "Gote wins") {
		t.Errorf("after the host resigned the status says %q", s)
	}
	restoreAndReconnect(t, guest)
	wait(t, guest, `document.body.dataset.conn === 'open' && document.body.dataset.status === 'over' && document.body.dataset.pending === 'false'`)
	wait(t, guest, `document.querySelector('#notices [data-key="room.notPlayed"]') !== null`)
	wait(t, spectator, `document.body.dataset.status === 'over'`)

	// New round by consent: declined changes nothing, accepted starts
	// round 2 with the same seats. Over, the game offers it once: in the
	// result panel, not in the controls too.
	if got := eval[int](t, host, `[...document.querySelectorAll('#new-round, #result-new')].filter((b) => b.offsetParent !== null).length`); got != 1 {
		t.Errorf("after the game %d New round buttons show, want 1", got)
	}
	do(t, host, chromedp.Click(chromedp.ID("result-new")))
	wait(t, guest, `document.body.dataset.newRound === 'theirs' && !document.getElementById('decline').hidden`)
	wait(t, host, `document.body.dataset.newRound === 'mine' && !document.getElementById('withdraw').hidden`)
	do(t, guest, chromedp.Click(chromedp.ID("decline")))
	wait(t, host, `document.body.dataset.newRound === 'none' && document.querySelector('#notices [data-key="room.newRound.declined"]') !== null`)
	if eval[string](t, host, `document.body.dataset.status`) != "over" {
		t.Error("a declined new round changed the game")
	}
	do(t, host, chromedp.Click(chromedp.ID("result-new")))
	wait(t, guest, `document.body.dataset.newRound === 'theirs' && !document.getElementById('accept').hidden`)
	do(t, guest, chromedp.Click(chromedp.ID("accept")))
	for _, ctx := range []context.Context{host, guest, spectator} {
		wait(t, ctx, `document.body.dataset.round === '2' && document.body.dataset.ply === '0' && document.body.dataset.status === 'playing'`)
	}
	if s, g := eval[string](t, host, `document.body.dataset.seat`), eval[string](t, guest, `document.body.dataset.seat`); s != "0" || g != "1" {
		t.Errorf("after New round the seats are %s and %s, want 0 and 1 (colours stay)", s, g)
	}
	roomMove(t, host, shogiCell("7g"), shogiCell("7f"))
	waitPly(t, guest, 1)

	// A seat code moves the guest's seat to the spectator's browser: the
	// code is shown once, typed there (dashes and case do not matter), and
	// the guest's tab stops.
	do(t, guest, chromedp.Evaluate[chromedp.Void](`document.getElementById('code-box').open = true`), chromedp.Click(chromedp.ID("code-show")))
	wait(t, guest, `/^[2-9A-Z]{4}-[2-9A-Z]{4}$/.test(document.getElementById('code-value').textContent)`)
	code := eval[string](t, guest, `document.getElementById('code-value').textContent`)
	do(t, spectator, chromedp.Evaluate[chromedp.Void](`document.getElementById('code-box').open = true`))
	if eval[bool](t, spectator, `document.getElementById('code-take').hidden`) {
		t.Fatal("the spectator is offered no place to enter a seat code")
	}
	do(t, spectator, chromedp.SendKeys(chromedp.ID("code-input"), strings.ToLower(code)), chromedp.Click(chromedp.ID("code-go")))
	wait(t, spectator, `document.body.dataset.seat === '1' && document.body.dataset.conn === 'open'`)
	wait(t, guest, `document.body.dataset.conn === 'moved' && !document.getElementById('stopped').hidden`)
	roomMove(t, spectator, shogiCell("3c"), shogiCell("3d"))
	waitPly(t, host, 2)
}

// waitNavigated is wait across a navigation the page starts itself (a
// click that opens another page): the page being replaced is no failure.
func waitNavigated(t *testing.T, ctx context.Context, js string) {
	t.Helper()
	for range 5 {
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(15*time.Second)))
		if err == nil {
			return
		}
		if !strings.Contains(err.Error(), "navigated") && !strings.Contains(err.Error(), "context") {
			t.Fatalf("waiting for %s: %v", js, err)
		}
	}
	t.Fatalf("waiting for %s: the page kept navigating", js)
}

// TestRoomGone: an unknown room's link answers 404 with a page that says so
// (in the link's language) and makes a new room.
func TestRoomGone(t *testing.T) {
	ctx, errs := watchedTab(t, chromedp.WithNewBrowserContext())
	t.Cleanup(func() {
		for _, e := range errs() {
			// The page's own 404 is the browser's console error it reports.
			if !strings.Contains(e, "status of 404") {
				t.Errorf("page error: %s", e)
			}
		}
	})
	do(t, ctx, chromedp.Navigate(baseURL+"/de/xiangqi/room/AAAAAAAAAAAAAAAAAAAAAA"))
	if s := eval[string](t, ctx, `document.querySelector('main').innerText`); !strings.Contains(s, "Raum") {
		t.Errorf("the gone room's page says %q", s)
	}
	do(t, ctx, chromedp.Click(chromedp.CSS(`.new-room`)))
	waitNavigated(t, ctx, `location.pathname.startsWith('/de/xiangqi/room/') && document.body.dataset.ready === 'true' && document.body.dataset.seat === '0'`)
}

// TestRoomXiangqi: before a guest has joined the host alone starts a new
// round at once; then a guest on a phone plays Black from the bottom of
// their screen, and the room exports FEN + UCCI.
func TestRoomXiangqi(t *testing.T) {
	host := person(t, 1366, 900)
	do(t, host, chromedp.Navigate(baseURL+"/zh/xiangqi/"))
	do(t, host, chromedp.Click(chromedp.CSS(`.mode-friend`)))
	waitNavigated(t, host, `location.pathname.startsWith('/zh/xiangqi/room/') && document.body.dataset.ready === 'true' && document.body.dataset.conn === 'open'`)
	url := eval[string](t, host, `location.href`)
	// Alone in the room, the host has nothing to resign or start again.
	if !eval[bool](t, host, `document.getElementById('new-round').hidden && document.getElementById('resign').hidden`) {
		t.Error("Resign or New round shows before anyone joined")
	}

	w, h, opts := phone()
	guest := person(t, w, h, opts...)
	openRoom(t, guest, url)
	// The host sees the guest come (its notice in place) before asking.
	wait(t, host, `!document.getElementById('new-round').hidden && !document.getElementById('resign').hidden && document.querySelector('#notices [data-key="room.joined"]') !== null`)
	do(t, host, chromedp.Click(chromedp.ID("new-round")))
	if eval[bool](t, host, `document.getElementById('confirm-dialog').open`) {
		t.Error("a new round before any move asked for confirmation")
	}
	wait(t, guest, `document.body.dataset.newRound === 'theirs' && !document.getElementById('accept').hidden`)
	do(t, guest, chromedp.Click(chromedp.ID("accept")))
	wait(t, host, `document.body.dataset.round === '2' && document.body.dataset.newRound === 'none'`)
	wait(t, guest, `document.body.dataset.round === '2'`)
	if got := eval[string](t, guest, `document.body.dataset.seat + '/' + document.body.dataset.round`); got != "1/2" {
		t.Fatalf("the guest holds seat/round %s, want 1/2", got)
	}
	if w := pageWidth(t, guest); w > 390 {
		t.Errorf("the room page is %.0f px wide on a 390 px screen", w)
	}
	// Black's corner (cell 0, a9) is at the bottom of the guest's screen.
	if !eval[bool](t, guest, fmt.Sprintf(`document.querySelector('%s').getBoundingClientRect().top > document.querySelector('%s').getBoundingClientRect().top`, cellSel(xiangqiCell("a9")), cellSel(xiangqiCell("a0")))) {
		t.Error("the guest does not see Black's side at the bottom")
	}
	if s := statusText(guest); !strings.Contains(s, "轮到红方走") {
		t.Errorf("the guest's status %q is not in Chinese", s)
	}
	wait(t, host, `document.querySelector('#presence li[data-seat="1"]')?.dataset.state === 'connected'`)
	roomMove(t, host, xiangqiCell("h2"), xiangqiCell("e2"))
	waitPly(t, guest, 1)
	roomMove(t, guest, xiangqiCell("h7"), xiangqiCell("e7"))
	waitPly(t, host, 2)
	if got := exportText(t, host, "fen+ucci"); !strings.HasSuffix(strings.TrimSpace(got), "moves h2e2 h7e7") {
		t.Errorf("the room's FEN + UCCI export:\n%s", got)
	}

	// A browser holding a wrong key for this room is told so, forgets the
	// key and watches (the seats are taken).
	other := person(t, 1366, 900)
	do(t, other, chromedp.Navigate(baseURL+"/en/"))
	room := url[strings.LastIndex(url, "/")+1:]
	do(t, other, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`localStorage.setItem('banmen.seat.%s', 'A'.repeat(43))`, room)))
	openRoom(t, other, url)
	wait(t, other, `document.body.dataset.seat === '-1' && document.querySelector('#notices [data-key="room.badKey"]') !== null`)
	if k := eval[string](t, other, fmt.Sprintf(`localStorage.getItem('banmen.seat.%s') ?? ''`, room)); k != "" {
		t.Errorf("the wrong key %q is still kept", k)
	}
}

// TestRoomNoStorage: where the browser keeps nothing, Play with a friend
// says why it cannot keep a seat instead of opening a room whose first seat
// the host would not get back.
func TestRoomNoStorage(t *testing.T) {
	ctx := tab(t, chromedp.WithNewBrowserContext())
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: `Storage.prototype.setItem = function () { throw new DOMException('full', 'QuotaExceededError'); };`,
	}); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, chromedp.Navigate(baseURL+"/nl/shogi/"))
	do(t, ctx, chromedp.Click(chromedp.CSS(`.mode-friend`)))
	wait(t, ctx, `!document.getElementById('friend-error').hidden`)
	if s := eval[string](t, ctx, `document.getElementById('friend-error').textContent`); !strings.Contains(s, "je plaats in een kamer niet onthouden") {
		t.Errorf("the landing page says %q", s)
	}
	if p := eval[string](t, ctx, `location.pathname`); p != "/nl/shogi/" {
		t.Errorf("the page went to %s", p)
	}
}

// TestFriendModeByPlayers: Play with a friend is a button for every shipped
// game, Yonin Shogi's too now that its rooms have computer seats (empty and
// away seats played by the computer, as its pages promise).
func TestFriendModeByPlayers(t *testing.T) {
	ctx := tab(t)
	for _, c := range []struct {
		variant string
		button  bool
	}{{"shogi", true}, {"xiangqi", true}, {"yonin", true}} {
		do(t, ctx, chromedp.Navigate(baseURL+"/en/"+c.variant+"/"))
		button := eval[bool](t, ctx, `!!document.querySelector('button.mode-friend')`)
		soon := eval[string](t, ctx, `document.querySelector('.mode-off')?.textContent ?? ''`)
		if button != c.button || (!c.button && !strings.Contains(soon, "Coming soon for four players")) {
			t.Errorf("%s: Play with a friend button %v (want %v), unavailable text %q", c.variant, button, c.button, soon)
		}
	}
}

// TestGoOnAgainstComputer: in a two-seat room whose other player has been
// away for 40 s, the page offers to go on against the computer; that game
// starts on the play page from the room's position with the person in
// their seat, the computer answers, and the room is left as it was: the
// guest, back, finds the same position and plays on.
func TestGoOnAgainstComputer(t *testing.T) {
	host := person(t, 1366, 900)
	if _, err := chromedp.Call(host, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: fastClock}); err != nil {
		t.Fatal(err)
	}
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

	do(t, guest, chromedp.Navigate("about:blank"))
	wait(t, host, `document.querySelector('#presence li[data-seat="1"]')?.dataset.state === 'away'`)
	if !eval[bool](t, host, `document.getElementById('gone').hidden`) {
		t.Error("the offer shows as soon as the guest left")
	}
	do(t, host, chromedp.Evaluate[chromedp.Void](`window.__skip(41000)`))
	wait(t, host, `!document.getElementById('gone').hidden`)
	if s := eval[string](t, host, `document.getElementById('gone-h').textContent`); !strings.Contains(s, "Gote") {
		t.Errorf("the offer says %q", s)
	}
	do(t, host, chromedp.Click(chromedp.ID("go-on")))
	waitNavigated(t, host, `location.pathname === '/en/shogi/play' && document.body.dataset.ready === 'true'`)
	if got := eval[string](t, host, `document.body.dataset.ply + '/' + document.body.dataset.toMove + '/' + document.querySelector('.hand[data-side="bottom"]').dataset.seat`); got != "2/0/0" {
		t.Fatalf("the computer game starts at ply/to move/bottom seat %s, want 2/0/0 (the room's position, Sente's turn)", got)
	}
	if !eval[bool](t, host, `document.querySelector('#notices [data-key="ui.goOn"] a')?.getAttribute('href') === new URL(`+"`"+url+"`"+`).pathname`) {
		t.Error("the computer game does not link back to the room")
	}
	humanMove(t, host, "shogi")
	waitHuman(t, host)
	waitPly(t, host, 4)

	// The room did not move.
	openRoom(t, guest, url)
	if got := eval[string](t, guest, `document.body.dataset.seat + '/' + document.body.dataset.ply`); got != "1/2" {
		t.Fatalf("back in the room the guest holds seat/ply %s, want 1/2", got)
	}
}

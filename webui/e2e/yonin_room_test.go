package e2e

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// anyRoomMove makes the seat's first legal board move by clicks (the first
// movable piece to its first target) and waits until the server confirmed
// it.
func anyRoomMove(t *testing.T, ctx context.Context) {
	t.Helper()
	ply := eval[int](t, ctx, `Number(document.body.dataset.ply)`)
	fx, fy := center(t, ctx, `.cell.movable`)
	do(t, ctx, chromedp.MouseClickXY(fx, fy))
	wait(t, ctx, `document.querySelectorAll('.cell.target').length > 0`)
	tx, ty := center(t, ctx, `.cell.target`)
	do(t, ctx, chromedp.MouseClickXY(tx, ty))
	wait(t, ctx, `Number(document.body.dataset.ply) > `+strconv.Itoa(ply)+` && document.body.dataset.pending === 'false'`)
}

// TestRoomYonin: Play with a friend for Yonin asks the room's settings
// first; every visitor sees them. The host and one guest start with the
// computer in the two free seats, which move by themselves; the time per
// move counts down; a guest who closes the page is played by the computer
// after the grace period, and takes the seat back on return.
func TestRoomYonin(t *testing.T) {
	host := person(t, 1366, 900)
	do(t, host, chromedp.Navigate(baseURL+"/en/yonin/"))
	do(t, host, chromedp.Click(chromedp.CSS(`.mode-friend`)))
	wait(t, host, `document.getElementById('room-settings').open`)
	do(t, host, chromedp.Evaluate[chromedp.Void](`document.querySelector('[data-key="host.move_time"]').value = '60'`))
	do(t, host, chromedp.Click(chromedp.ID("room-settings-create")))
	waitNavigated(t, host, `location.pathname.includes('/room/') && document.body.dataset.ready === 'true' && document.body.dataset.conn === 'open'`)
	url := eval[string](t, host, `location.href`)

	w, h, opts := phone()
	guest := person(t, w, h, opts...)
	openRoom(t, guest, url)
	// The visitor sees the settings and the seats before taking one.
	wait(t, guest, `document.body.dataset.choice === 'undecided' && document.body.dataset.seat === '-1'`)
	if got := eval[string](t, guest, `document.querySelector('#room-settings-list dd[data-key="host.move_time"]')?.textContent ?? ''`); got != "60 seconds" {
		t.Errorf("the guest sees the time per move %q, want 60 seconds", got)
	}
	if got := eval[bool](t, guest, `document.getElementById('room-settings-box').open && document.querySelector('#presence li[data-seat="0"]')?.dataset.state === 'connected' && document.querySelector('#presence li[data-seat="1"]')?.dataset.state === 'free'`); !got {
		t.Errorf("the visitor does not see the settings and the seats before choosing")
	}
	if s := eval[string](t, guest, `document.getElementById('take-seat').textContent`); !strings.Contains(s, "Take the seat") {
		t.Errorf("the take button says %q", s)
	}
	do(t, guest, chromedp.Click(chromedp.ID("take-seat")))
	wait(t, guest, `document.body.dataset.seat === '1' && document.body.dataset.conn === 'open'`)
	wait(t, guest, `document.getElementById('status').innerText.includes('Waiting for the host')`)
	wait(t, host, `!document.getElementById('start-row').hidden`)
	do(t, host, chromedp.Click(chromedp.ID("start-computer")))
	wait(t, host, `document.querySelector('#presence li[data-seat="2"]')?.dataset.state === 'computer' && document.querySelector('#presence li[data-seat="3"]')?.dataset.state === 'computer'`)
	wait(t, host, `document.body.dataset.clock !== '' && !document.getElementById('clock').hidden`)
	if s := eval[string](t, host, `document.getElementById('clock').textContent`); !strings.Contains(s, "s left") {
		t.Errorf("the clock says %q", s)
	}
	anyRoomMove(t, host)
	waitPly(t, guest, 1)
	anyRoomMove(t, guest)
	// The computer seats move by themselves, back to the host.
	waitPly(t, host, 4)
	wait(t, host, `document.querySelectorAll('.cell.movable').length > 0`)
	anyRoomMove(t, host)
	waitPly(t, guest, 5)

	// The guest closes the page: after the grace period the computer plays
	// for it.
	do(t, guest, chromedp.Navigate("about:blank"))
	wait(t, host, `document.querySelector('#presence li[data-seat="1"]')?.dataset.state === 'away'`)
	if _, err := chromedp.Run(host, chromedp.Poll[bool](`document.querySelector('#presence li[data-seat="1"]')?.dataset.state === 'computer' && Number(document.body.dataset.ply) >= 8`, chromedp.WithPollingTimeout(40*time.Second))); err != nil {
		t.Fatalf("the computer did not take over the away guest: %v (status %q)", err, statusText(host))
	}
	// Back on the same device: the seat is the guest's again.
	openRoom(t, guest, url)
	if got := eval[string](t, guest, `document.body.dataset.seat`); got != "1" {
		t.Fatalf("the returning guest holds seat %q, want 1", got)
	}
	wait(t, host, `document.querySelector('#presence li[data-seat="1"]')?.dataset.state === 'connected'`)
}

// fastClock lets a test move the page's clock: window.__skip(ms) moves
// Date.now on and fires the timers of a second or more that fall due (the
// page's time per move), while shorter timers run as they are.
const fastClock = `(() => {
	const realNow = Date.now.bind(Date), realST = window.setTimeout.bind(window), realCT = window.clearTimeout.bind(window);
	let skew = 0, n = 0;
	const timers = new Map();
	Date.now = () => realNow() + skew;
	window.setTimeout = (fn, ms = 0, ...a) => {
		if (ms < 1000) return realST(fn, ms, ...a);
		const id = 'v' + (++n);
		timers.set(id, {fn, due: Date.now() + ms, a});
		return id;
	};
	window.clearTimeout = (id) => { if (timers.has(id)) timers.delete(id); else realCT(id); };
	window.__skip = (ms) => { skew += ms; };
	setInterval(() => {
		for (const [id, x] of timers) if (Date.now() >= x.due) { timers.delete(id); x.fn(...x.a); }
	}, 50);
})();`

// TestYoninOfflineSettings: Same device offers Yonin's time per move and
// rotate first player in its options dialog; the page counts the seat's
// time down and at zero the computer moves for it; with rotation on, the
// next game starts with the next seat clockwise.
func TestYoninOfflineSettings(t *testing.T) {
	ctx := tab(t)
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: fastClock}); err != nil {
		t.Fatal(err)
	}
	open(t, ctx, "/en/yonin/play?mode=local")
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`localStorage.clear()`))
	open(t, ctx, "/en/yonin/play?mode=local")
	do(t, ctx, chromedp.Click(chromedp.ID("new-game")))
	wait(t, ctx, `document.getElementById('options-dialog').open`)
	if !eval[bool](t, ctx, `!!document.querySelector('#options-fields [data-key="host.move_time"]') && !!document.querySelector('#options-fields [data-key="host.rotate_first"]')`) {
		t.Fatal("the options dialog offers no time per move or rotate first player")
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('#options-fields [data-key="host.level"], #options-fields [data-key="host.human_seats"], #options-fields [data-key="host.first_seat"]').length`); n != 0 {
		t.Errorf("the options dialog offers %d room-only host settings", n)
	}
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector('#options-fields [data-key="host.move_time"]').value = '30'`))
	do(t, ctx, chromedp.Click(chromedp.ID("options-start")))
	// The page's first game began with seat 0: rotation on (the default),
	// this new one begins with seat 1.
	wait(t, ctx, `document.body.dataset.ready === 'true' && document.body.dataset.clock === '30' && document.body.dataset.toMove === '1'`)
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`window.__skip(29000)`))
	wait(t, ctx, `document.body.dataset.clock === '1'`)
	if ply := eval[string](t, ctx, `document.body.dataset.ply`); ply != "0" {
		t.Fatalf("ply %s with a second left", ply)
	}
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`window.__skip(1000)`))
	waitPly(t, ctx, 1)
	wait(t, ctx, `document.body.dataset.toMove === '2' && document.body.dataset.clock === '30' && document.body.dataset.busy === 'false'`)
	// The next new game: seat 2 starts.
	do(t, ctx, chromedp.Click(chromedp.ID("new-game")))
	wait(t, ctx, `document.getElementById('options-dialog').open`)
	do(t, ctx, chromedp.Click(chromedp.ID("options-start")))
	wait(t, ctx, `document.body.dataset.ply === '0' && document.body.dataset.toMove === '2'`)
}

// TestYoninInvitation: the landing page holds the room settings once (no
// id twice), names the first seat by name and a move limit of none as "No
// limit", and asks how many people play. Created for three, the room's
// invitation names each free seat in turn (West, then North), and once the
// third person is seated it stops inviting and the host's page starts the
// game with the computer in the fourth seat.
func TestYoninInvitation(t *testing.T) {
	host := person(t, 1366, 900)
	do(t, host, chromedp.Navigate(baseURL+"/en/yonin/"))
	if dup := eval[[]string](t, host, `(() => { const seen = new Set(), dup = []; for (const e of document.querySelectorAll('[id]')) { if (seen.has(e.id)) dup.push(e.id); seen.add(e.id); } return dup; })()`); len(dup) > 0 {
		t.Errorf("the landing page has these ids twice: %v", dup)
	}
	do(t, host, chromedp.Click(chromedp.CSS(`.mode-friend`)))
	wait(t, host, `document.getElementById('room-settings').open`)
	if got := eval[[]string](t, host, `[...document.querySelectorAll('#room-settings [data-key="first_seat"] option')].map((o) => o.textContent)`); strings.Join(got, ",") != "South,West,North,East" {
		t.Errorf("the first seat offers %v, want the seats by name", got)
	}
	if got := eval[bool](t, host, `(() => { const n = document.querySelector('#room-settings [data-key="move_limit"]'); const box = document.querySelector('[data-none-of="' + n.id + '"]'); return n.value === '' && box.checked && box.labels[0].textContent === 'No limit'; })()`); !got {
		t.Error("the move limit of none does not read No limit")
	}
	if eval[int](t, host, `document.querySelectorAll('#room-settings [data-key="host.human_seats"]').length`) != 1 {
		t.Fatal("the dialog has no field for the number of people")
	}
	do(t, host, chromedp.Evaluate[chromedp.Void](`document.querySelector('#room-settings [data-key="host.human_seats"]').value = '3'`))
	do(t, host, chromedp.Click(chromedp.ID("room-settings-create")))
	waitNavigated(t, host, `location.pathname.includes('/room/') && document.body.dataset.ready === 'true' && document.body.dataset.conn === 'open'`)
	url := eval[string](t, host, `location.href`)
	invite := func(ctx context.Context) string {
		return eval[string](t, ctx, `document.getElementById('invite').hidden ? '' : document.getElementById('invite-text').textContent`)
	}
	wait(t, host, `!document.getElementById('invite').hidden`)
	if s := invite(host); !strings.Contains(s, "plays West") {
		t.Errorf("with West free the invitation says %q", s)
	}
	join := func(seat string) context.Context {
		w, h, opts := phone()
		guest := person(t, w, h, opts...)
		openRoom(t, guest, url)
		wait(t, guest, `document.body.dataset.choice === 'undecided'`)
		do(t, guest, chromedp.Click(chromedp.ID("take-seat")))
		wait(t, guest, `document.body.dataset.seat === '`+seat+`' && document.body.dataset.conn === 'open'`)
		return guest
	}
	west := join("1")
	wait(t, host, `document.querySelector('#presence li[data-seat="1"]')?.dataset.state === 'connected'`)
	for _, p := range []context.Context{host, west} {
		wait(t, p, `document.getElementById('invite-text')?.dataset.seat === '2'`)
		if s := invite(p); !strings.Contains(s, "plays North") {
			t.Errorf("with North free the invitation says %q", s)
		}
	}
	north := join("2")
	// Three people seated, as the room was created for: no more invitation,
	// and the game starts with the computer as East.
	wait(t, host, `document.querySelector('#presence li[data-seat="3"]')?.dataset.state === 'computer'`)
	for _, p := range []context.Context{host, west, north} {
		wait(t, p, `document.getElementById('invite').hidden || document.getElementById('invite').dataset.done === 'true'`)
	}
	if got := eval[string](t, west, `document.querySelector('#room-settings-list dd[data-key="host.human_seats"]')?.textContent ?? ''`); got != "3" {
		t.Errorf("the room's settings show %q people, want 3", got)
	}
	// The server started the room for three by itself, and a fourth
	// visitor is offered no seat: East stays the computer's.
	w, h, opts := phone()
	fourth := person(t, w, h, opts...)
	openRoom(t, fourth, url)
	wait(t, fourth, `document.querySelector('#presence li[data-seat="3"]')?.dataset.state === 'computer'`)
	if got := eval[string](t, fourth, `document.body.dataset.seat + ' ' + document.body.dataset.choice + ' ' + document.getElementById('seat-choice').hidden`); got != "-1 none true" {
		t.Errorf("a fourth visitor of a room for three: seat, choice, choice box hidden = %q, want -1 none true", got)
	}
}

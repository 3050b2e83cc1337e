package e2e

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

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
	if got := eval[string](t, guest, `document.body.dataset.seat`); got != "1" {
		t.Fatalf("the guest holds seat %q, want 1", got)
	}
	if got := eval[string](t, guest, `document.querySelector('#room-settings-list dd[data-key="host.move_time"]')?.textContent ?? ''`); got != "60 seconds" {
		t.Errorf("the guest sees the time per move %q, want 60 seconds", got)
	}
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

package e2e

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/banmen/banmen/platform/hosttest"
)

// TestRoomClaimWinAndNames: on a host where a player away for 2 s is gone
// (limits.opponent_gone), the host names themselves (with markup, shown as
// text), the guest leaves for good, and the host is offered "Claim the
// win" only once the server says the guest is gone; claiming it ends the
// round with the host the winner, and the guest, back, sees the same.
func TestRoomClaimWinAndNames(t *testing.T) {
	h, err := hosttest.StartWith(context.Background(), os.Getenv("BANMEN_BIN"), "-limits.opponent_gone", "2s")
	if err != nil {
		t.Fatal(err)
	}
	defer h.Stop()
	host := person(t, 1366, 900)
	do(t, host, chromedp.Navigate(h.URL+"/en/shogi/"))
	do(t, host, chromedp.Click(chromedp.CSS(`.mode-friend`)))
	waitNavigated(t, host, `location.pathname.includes('/room/') && document.body.dataset.ready === 'true' && document.body.dataset.conn === 'open'`)
	url := eval[string](t, host, `location.href`)
	guest := person(t, 1366, 900)
	openRoom(t, guest, url)
	wait(t, host, `document.querySelector('#presence li[data-seat="1"]')?.dataset.state === 'connected'`)

	// A name with markup is text, in the other player's page too.
	do(t, host, chromedp.SetValue(chromedp.ID("name-input"), `<b>Taro</b>`))
	do(t, host, chromedp.Click(chromedp.CSS(`#name-form button`)))
	wait(t, guest, `document.querySelector('#presence li[data-seat="0"]').textContent.includes('<b>Taro</b>')`)
	if n := eval[int](t, guest, `document.querySelectorAll('#presence b').length`); n != 0 {
		t.Errorf("a player's name was read as HTML: %d <b> elements in the presence list", n)
	}

	roomMove(t, host, shogiCell("7g"), shogiCell("7f"))
	waitPly(t, guest, 1)
	if !eval[bool](t, host, `document.getElementById('claim-win').hidden`) {
		t.Error("Claim the win is offered while the guest is here")
	}
	do(t, guest, chromedp.Navigate("about:blank")) // the guest leaves for good
	wait(t, host, `document.querySelector('#presence li[data-seat="1"]')?.dataset.state === 'away'`)
	wait(t, host, `!document.getElementById('claim-win').hidden`)
	do(t, host, chromedp.Click(chromedp.ID("claim-win")))
	wait(t, host, `document.getElementById('confirm-dialog').open`)
	do(t, host, chromedp.Click(chromedp.ID("confirm-yes")))
	wait(t, host, `document.body.dataset.status === 'over' && document.getElementById('claim-win').hidden`)
	if s := statusText(host); !strings.Contains(s, "Sente wins") {
		t.Errorf("after the claim the host's status says %q", s)
	}
	openRoom(t, guest, url)
	wait(t, guest, `document.body.dataset.status === 'over'`)
	if s := statusText(guest); !strings.Contains(s, "Sente wins") {
		t.Errorf("back, the guest's status says %q", s)
	}
	// The records name the host and the winner.
	if kif := exportText(t, guest, "kif"); !strings.Contains(kif, "\n先手：<b>Taro</b>\n") || !strings.Contains(kif, "先手の勝ち") {
		t.Errorf("the room's KIF:\n%s", kif)
	}
	if csa := exportText(t, guest, "csa"); !strings.Contains(csa, "\nN+<b>Taro</b>\n") {
		t.Errorf("the room's CSA:\n%s", csa)
	}
}

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
// round with the host the winner because the guest left (not resigned),
// the guest, back, sees the same, and the KIF and CSA say so.
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
	// Recorded with its reason: the gone guest left, it was no resignation.
	const why = "Sente wins — the opponent left the game"
	if s := statusText(host); !strings.Contains(s, why) {
		t.Errorf("after the claim the host's status says %q, want %q", s, why)
	}
	if last := eval[string](t, host, `[...document.querySelectorAll('#history .move-text')].pop().textContent`); last != "left the game" {
		t.Errorf("the guest's leaving is listed as %q, want left the game", last)
	}
	openRoom(t, guest, url)
	wait(t, guest, `document.body.dataset.status === 'over'`)
	if s := statusText(guest); !strings.Contains(s, why) {
		t.Errorf("back, the guest's status says %q, want %q", s, why)
	}
	// The records name the host, the winner and the ending: Gote, to
	// move, left (KIF 切れ負け and CSA %TIME_UP, as lishogi writes it).
	if kif := exportText(t, guest, "kif"); !strings.Contains(kif, "\n先手：<b>Taro</b>\n") || !strings.Contains(kif, "   2 切れ負け\n*後手が対局を放棄\n") ||
		!strings.Contains(kif, "後手の対局放棄により先手の勝ち") {
		t.Errorf("the room's KIF:\n%s", kif)
	}
	if csa := exportText(t, guest, "csa"); !strings.Contains(csa, "\nN+<b>Taro</b>\n") || !strings.HasSuffix(csa, "+7776FU\n'Gote left the game\n%TIME_UP\n") {
		t.Errorf("the room's CSA:\n%s", csa)
	}
}

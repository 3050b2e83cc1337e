package e2e

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestHiddenLegalMoves: the board marks where a picked-up piece may go
// unless the View's own hideLegal says not to (Yonin's "show legal moves"
// option turned off). The board reads the contract's field, never a
// variant's details.
func TestHiddenLegalMoves(t *testing.T) {
	ctx := tab(t)
	do(t, ctx, chromedp.EmulateViewport(1366, 900))
	open(t, ctx, "/en/yonin/play?mode=local")
	for _, show := range []bool{true, false} {
		// A game started with the option, kept where the page keeps its
		// local game, and picked up by a reload.
		from, err := chromedp.Run(ctx, chromedp.Evaluate[int](fmt.Sprintf(`(async () => {
			const r = await fetch('/api/v1/games/yonin/start', {method: 'POST',
				headers: {'Content-Type': 'application/json'},
				body: JSON.stringify({options: {show_legal: '%[1]v'}})});
			const j = await r.json();
			if (!!j.view.hideLegal !== %[2]v) throw new Error('the API view has hideLegal ' + j.view.hideLegal);
			localStorage.setItem('banmen.local.yonin', JSON.stringify({v: 1, state: j.state, options: {show_legal: '%[1]v'}}));
			return j.view.legal.find((m) => m.kind === 'move').from;
		})()`, show, !show), chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
		do(t, ctx, chromedp.Reload())
		wait(t, ctx, `document.body.dataset.ready === 'true'`)
		x, y := center(t, ctx, cellSel(from))
		do(t, ctx, chromedp.MouseClickXY(x, y))
		wait(t, ctx, fmt.Sprintf(`document.querySelector('%s')?.classList.contains('selected') ?? false`, cellSel(from)))
		marks := eval[int](t, ctx, `document.querySelectorAll('svg circle.target').length`)
		if show && marks == 0 {
			t.Error("show_legal=true: a picked-up piece shows no targets")
		}
		if !show && marks != 0 {
			t.Errorf("show_legal=false: a picked-up piece shows %d targets", marks)
		}
	}
}

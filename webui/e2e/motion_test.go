package e2e

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// spyAnimate records, before any script runs, every animation the page
// starts on a piece of the board (window.e2eSlides: the cell of each).
const spyAnimate = `(() => {
	window.e2eSlides = [];
	const animate = Element.prototype.animate;
	Element.prototype.animate = function (...args) {
		if (this.closest && this.closest('.pieces')) window.e2eSlides.push(this.dataset.i);
		return animate.apply(this, args);
	};
})();`

// motionTab opens a local game of variant with the animation spy, asking for
// reduced motion or not (emulating the media feature).
func motionTab(t *testing.T, variant string, reduce bool) context.Context {
	t.Helper()
	ctx := tab(t, chromedp.WithNewBrowserContext())
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: spyAnimate}); err != nil {
		t.Fatal(err)
	}
	value := "no-preference"
	if reduce {
		value = "reduce"
	}
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: value}}}); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, chromedp.EmulateViewport(1366, 900))
	open(t, ctx, "/en/"+variant+"/play?mode=local")
	if got := eval[bool](t, ctx, `matchMedia('(prefers-reduced-motion: reduce)').matches`); got != reduce {
		t.Fatalf("the page sees prefers-reduced-motion: reduce = %t, want %t", got, reduce)
	}
	return ctx
}

// TestSlideAnimation: a piece moved by click slides to its square (an
// animation runs on the piece at its new square), and with
// prefers-reduced-motion: reduce it is put there without one.
func TestSlideAnimation(t *testing.T) {
	for _, reduce := range []bool{false, true} {
		name := "motion"
		if reduce {
			name = "reduced"
		}
		t.Run(name, func(t *testing.T) {
			ctx := motionTab(t, "shogi", reduce)
			to := shogiCell("7f")
			clickMove(t, ctx, shogiCell("7g"), to)
			if k := kindAt(t, ctx, to); k != "P" {
				t.Fatalf("7f holds %q after 7g7f, want the pawn", k)
			}
			slides := eval[[]string](t, ctx, `window.e2eSlides`)
			if reduce {
				if len(slides) != 0 {
					t.Errorf("with reduced motion pieces were animated on cells %v, want none", slides)
				}
				return
			}
			want := strconv.Itoa(to)
			if len(slides) == 0 || slides[len(slides)-1] != want {
				t.Errorf("the pieces animated are on cells %v, want the moved pawn's (%s)", slides, want)
			}
		})
	}
}

// TestYoninRestAtOnce: once the person is mated in a Yonin computer game the
// page offers to play the rest at once, and choosing it ends the game without
// waiting for the computers' ordinary thinking. The person plays West; the
// imported game has West mated and East to move, able to mate North. The
// page's ordinary /suggest calls are held back (e2e.slow), so only the quick
// moves of "play the rest at once" can finish the game.
func TestYoninRestAtOnce(t *testing.T) {
	ctx := computerTab(t, "yonin")
	setLevel(t, ctx, "hard", true)
	click(t, ctx, `#new-game`)
	wait(t, ctx, `document.getElementById('options-dialog').open`)
	click(t, ctx, `#side-choices input[value="1"]`)
	click(t, ctx, `#options-start`)
	wait(t, ctx, `document.body.dataset.ready === 'true' && document.body.dataset.thinking !== 'true' && document.body.dataset.toMove === '1'`)
	if !eval[bool](t, ctx, `document.getElementById('rest').hidden`) {
		t.Error("the rest is offered while the person still plays")
	}
	do(t, ctx, chromedp.Evaluate[chromedp.Void](`localStorage.setItem('e2e.slow', '600000')`))
	importGame(t, ctx, "yonin", yoninStart+"\n"+strings.Join(yoninEnding, "\n")+"\n")
	wait(t, ctx, `!document.getElementById('rest').hidden && document.body.dataset.status === 'playing'`)
	if s := eval[string](t, ctx, `document.getElementById('rest').innerText`); !strings.Contains(s, "Play the rest at once") {
		t.Errorf("the offer reads %q", s)
	}
	click(t, ctx, `#rest-fast`)
	wait(t, ctx, `document.body.dataset.status === 'over'`)
	if s := statusText(ctx); !strings.Contains(s, "East wins") {
		t.Errorf("the final status %q, want East's win", s)
	}
	if !eval[bool](t, ctx, `document.getElementById('rest').hidden`) {
		t.Error("the offer stays after the end")
	}
}

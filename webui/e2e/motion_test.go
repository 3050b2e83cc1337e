package e2e

import (
	"context"
	"strconv"
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

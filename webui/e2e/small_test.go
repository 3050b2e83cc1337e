package e2e

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestPageDetails: the hreflang alternates are absolute URLs; no two
// landmarks of a landing page share a role and a name (axe's
// landmark-unique); a move-list button's accessible name holds the text it
// shows (axe's label-content-name-mismatch); the notation font blocks
// rather than swaps, so a device without its characters never shows boxes
// ("▲□□□") while it loads.
func TestPageDetails(t *testing.T) {
	ctx := tab(t)
	for _, path := range []string{"/en/shogi/", "/en/xiangqi/", "/en/yonin/"} {
		do(t, ctx, chromedp.Navigate(baseURL+path))
		if rel := eval[[]string](t, ctx, `[...document.querySelectorAll('link[rel="alternate"][hreflang]')].map((l) => l.getAttribute('href')).filter((h) => !/^https?:\/\//.test(h))`); len(rel) > 0 {
			t.Errorf("%s: relative hreflang links %v", path, rel)
		}
		dup := eval[[]string](t, ctx, `(() => {
			const role = (e) => ({MAIN: 'main', NAV: 'navigation', ASIDE: 'complementary', HEADER: 'banner', FOOTER: 'contentinfo', SECTION: 'region', FORM: 'form'})[e.tagName];
			const name = (e) => e.getAttribute('aria-label') || (e.getAttribute('aria-labelledby') ? document.getElementById(e.getAttribute('aria-labelledby'))?.textContent : '') || '';
			const seen = new Set(), dup = [];
			for (const e of document.querySelectorAll('main, nav, aside, body > header, body > footer, section[aria-label], section[aria-labelledby], form[aria-label]')) {
				const k = role(e) + ':' + name(e);
				if (seen.has(k)) dup.push(k);
				seen.add(k);
			}
			return dup;
		})()`)
		if len(dup) > 0 {
			t.Errorf("%s: landmarks twice: %v", path, dup)
		}
	}

	open(t, ctx, "/en/shogi/play?mode=local")
	clickSquares(t, ctx, shogiCell("7g"), shogiCell("7f"))
	waitPly(t, ctx, 1)
	clickSquares(t, ctx, shogiCell("3c"), shogiCell("3d"))
	waitPly(t, ctx, 2)
	pairs := eval[[][]string](t, ctx, `[...document.querySelectorAll('#history button')].map((b) => {
		if (b.hasAttribute('aria-label') || b.hasAttribute('aria-labelledby')) return [b.getAttribute('aria-label') ?? '', b.innerText];
		const seen = [...b.querySelectorAll(':scope > *')].filter((e) => !e.classList.contains('sr-only') && e.getAttribute('aria-hidden') !== 'true').map((e) => e.textContent).join(' ');
		return [b.textContent, seen];
	})`)
	if len(pairs) != 2 {
		t.Fatalf("the move list has %d buttons, want 2", len(pairs))
	}
	norm := func(s string) string { return strings.Join(strings.Fields(s), "") }
	for _, p := range pairs {
		if !strings.Contains(norm(p[0]), norm(p[1])) {
			t.Errorf("a move button shows %q but is named %q", p[1], p[0])
		}
	}
	if d := eval[string](t, ctx, `[...document.fonts].find((f) => f.family.includes('Banmen Notation'))?.display ?? ''`); d != "block" {
		t.Errorf("the notation font's display is %q, want block", d)
	}
}

package sdk_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/banmen/banmen/sdk"
)

func TestSanitizeSVG(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		fragment  bool
		want      string // the output, or the error's text
		ok        bool
	}{
		{"card", `<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 100"><!-- c --><rect width="200" height="100" fill="#eee"/></svg>`, false,
			`<svg viewBox="0 0 200 100" xmlns="http://www.w3.org/2000/svg"><rect width="200" height="100" fill="#eee"></rect></svg>`, true},
		{"disc", `<circle r="40" fill="currentColor"/><circle r="30" fill="none" stroke="#fff"/>`, true,
			`<circle r="40" fill="currentColor"></circle><circle r="30" fill="none" stroke="#fff"></circle>`, true},
		{"gradient", `<defs><radialGradient id="s"><stop offset="0" stop-color="#fff"/></radialGradient></defs><circle r="40" fill="url(#s)"/><use href="#s"/>`, true, `fill="url(#s)"`, true},
		{"text escaped", `<text>a &lt; b &amp; "c"</text>`, true, `<text>a &lt; b &amp; &#34;c&#34;</text>`, true},
		{"script", `<svg><script>alert(1)</script></svg>`, false, "element <script>", false},
		{"handler", `<circle r="4" onclick="alert(1)"/>`, true, "attribute onclick", false},
		{"style", `<circle r="4" style="fill:red"/>`, true, "attribute style", false},
		{"foreign", `<svg><foreignObject/></svg>`, false, "element <foreignObject>", false},
		{"image", `<image href="https://x.example/a.png"/>`, true, "element <image>", false},
		{"external use", `<use href="https://x.example/s.svg#a"/>`, true, "not a reference within", false},
		{"xlink", `<use xmlns:xlink="http://www.w3.org/1999/xlink" xlink:href="javascript:alert(1)"/>`, true, "not a reference within", false},
		{"url", `<rect fill="url(https://x.example/p)"/>`, true, "refers outside", false},
		{"data", `<rect fill="data:image/png;base64,AA"/>`, true, `holds "data:"`, false},
		{"entity", `<!DOCTYPE svg [<!ENTITY x "y">]><svg>&x;</svg>`, false, "directive", false},
		{"root", `<g/>`, false, "want <svg>", false},
		{"two roots", `<svg/><svg/>`, false, "more than one root", false},
		{"nested svg", `<svg><svg/></svg>`, false, "nested <svg>", false},
		{"fragment svg", `<svg/>`, true, "nested <svg>", false},
		{"namespace", `<svg><x:a xmlns:x="urn:x"/></svg>`, false, "another namespace", false},
		{"malformed", `<svg><g></svg>`, false, "svg:", false},
		{"empty", ``, false, "empty", false},
		{"big", `<svg>` + strings.Repeat(`<g/>`, 5000) + `</svg>`, false, "over the budget", false},
		{"deep", strings.Repeat(`<g>`, 40) + strings.Repeat(`</g>`, 40), true, "deep", false},
		{"pi", `<?php x ?><svg/>`, false, "processing instruction", false},
		{"url unclosed", `<rect fill="url(javascript&#58;alert(1)"/>`, true, "only url(#id)", false},
		{"url no paren", `<rect fill="url(#a"/>`, true, "only url(#id)", false},
		{"url upper", `<rect fill="URL(https://x.example/p)"/>`, true, "only url(#id)", false},
		{"url mixed quotes", `<rect fill="url('#a&#34;)"/>`, true, "only url(#id)", false},
		{"url quoted", `<defs><linearGradient id="a"/></defs><rect fill="url( '#a' )"/>`, true, `fill="url( &#39;#a&#39; )"`, true},
		{"bad id", `<g id="a b"/>`, true, "want letters", false},
		{"uses", strings.Repeat(`<use href="#a"/>`, sdk.MaxSVGUses+1), true, "<use> elements", false},
		{"uses at the cap", `<g id="a"/>` + strings.Repeat(`<use href="#a"/>`, sdk.MaxSVGUses), true, `<use href="#a">`, true},
	} {
		got, err := sdk.SanitizeSVG(tc.src, tc.fragment, sdk.CardBudget)
		switch {
		case tc.ok && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.ok && !strings.Contains(got, tc.want):
			t.Errorf("%s: %q, want %q in it", tc.name, got, tc.want)
		case !tc.ok && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %q, %v; want an error with %q", tc.name, got, err, tc.want)
		}
	}
}

// TestSanitizeSVGPrefixed: every id and every reference to one gets the
// drawing's prefix, so that the drawing cannot point at the page's ids.
func TestSanitizeSVGPrefixed(t *testing.T) {
	src := `<defs><radialGradient id="s"><stop offset="0"/></radialGradient></defs><circle r="4" fill="url(#s)" stroke="url('#board-data')"/><use href="#s"/>`
	got, err := sdk.SanitizeSVGPrefixed(src, true, sdk.DrawingBudget, "d7-")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`id="d7-s"`, `fill="url(#d7-s)"`, `stroke="url(#d7-board-data)"`, `href="#d7-s"`} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
	if _, err := sdk.SanitizeSVGPrefixed(src, true, sdk.DrawingBudget, "7 bad"); err == nil {
		t.Error("a bad prefix was taken")
	}
}

// svgIDs are the ids an output defines and refers to.
var svgIDs = regexp.MustCompile(`id="([^"]*)"|href="#([^"]*)"|url\(#([^)]*)\)`)

// FuzzSanitizeSVG: no input panics, and what comes out is accepted again
// unchanged; "url(" only ever holds "#id"; with a prefix, every id and
// reference has it.
func FuzzSanitizeSVG(f *testing.F) {
	f.Add(`<svg viewBox="0 0 2 1"><circle r="1" fill="url(#a)"/></svg>`, false)
	f.Add(`<circle r="40" fill="currentColor"/><text x="1">A&amp;B</text>`, true)
	f.Add(`<g id="a"/><use href="#a"/><rect fill="url( '#a' )" stroke="url(#b"/>`, true)
	f.Fuzz(func(t *testing.T, src string, fragment bool) {
		out, err := sdk.SanitizeSVG(src, fragment, sdk.CardBudget)
		if err != nil {
			return
		}
		if strings.Count(strings.ToLower(out), "url(") != len(regexp.MustCompile(`(?i)url\(\s*(&#39;|&#34;)?#[A-Za-z][A-Za-z0-9_-]*(&#39;|&#34;)?\s*\)`).FindAllString(out, -1)) {
			t.Fatalf("a url() other than url(#id) in %q", out)
		}
		if strings.Count(out, "<use") > sdk.MaxSVGUses {
			t.Fatalf("more than %d <use> in %q", sdk.MaxSVGUses, out)
		}
		pre, err := sdk.SanitizeSVGPrefixed(src, fragment, sdk.CardBudget, "p0-")
		if err != nil {
			t.Fatalf("accepted without a prefix, refused with one: %v", err)
		}
		for _, m := range svgIDs.FindAllStringSubmatch(pre, -1) {
			if id := m[1] + m[2] + m[3]; !strings.HasPrefix(id, "p0-") {
				t.Fatalf("id %q without its prefix in %q", id, pre)
			}
		}
		again, err := sdk.SanitizeSVG(out, fragment, sdk.CardBudget+len(out))
		if err != nil || again != out {
			t.Fatalf("sanitized %q to %q, which sanitizes to %q, %v", src, out, again, err)
		}
		for _, bad := range []string{"<script", "javascript:", " on"} {
			if strings.Contains(strings.ToLower(out), bad) && !strings.Contains(src, bad) {
				t.Fatalf("%q in the output of %q", bad, src)
			}
		}
	})
}

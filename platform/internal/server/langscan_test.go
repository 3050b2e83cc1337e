package server

import (
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/banmen/banmen/locales"
	"github.com/banmen/banmen/platform/internal/i18n"
	"github.com/banmen/banmen/sdk"
)

var (
	scriptRE = regexp.MustCompile(`(?s)<script\b.*?</script>`)
	attrRE   = regexp.MustCompile(`\s(?:aria-label|alt|title|placeholder|content|data-[a-z-]+)="([^"]*)"`)
	tagRE    = regexp.MustCompile(`(?s)<[^>]*>`)
	// rawKeyRE is an i18n key shown as itself: "variant.connect4",
	// "seat.shogi.sente", "landing.h.faq".
	rawKeyRE = regexp.MustCompile(`\b(?:variant|seat|piece|result|notice|action|error|option|landing|home|ui|mode|room|play|moves|board|notation|lang|faq|footer|site|nav|notfound)\.[a-z_]+(?:\.[A-Za-z0-9_]+)*\b`)
)

// pageText is what a reader sees of a page: its text and the attributes
// read aloud or shown (labels, titles, the description), without scripts
// and their JSON.
func pageText(body string) string {
	body = scriptRE.ReplaceAllString(body, " ")
	var b strings.Builder
	for _, m := range attrRE.FindAllStringSubmatch(body, -1) {
		b.WriteString(html.UnescapeString(m[1]))
		b.WriteString("\n")
	}
	b.WriteString(html.UnescapeString(tagRE.ReplaceAllString(body, "\n")))
	return b.String()
}

// TestLanguageScan reads every page of the three built-in games, with
// their own texts from their plugins, in every language: no text shows as
// its raw key, and no English text of the site's or the game's appears on
// a page in another language (where that language says it differently).
func TestLanguageScan(t *testing.T) {
	var ds []sdk.Description
	for _, id := range []string{"shogi", "yonin", "xiangqi"} {
		ds = append(ds, sdk.Description{ID: id, Name: id, NameKey: "variant." + id, Texts: pluginTexts(t, id), Seats: make([]sdk.SeatInfo, 2)})
	}
	get := serveGames(t, fakeGames{ds: ds}, []string{"shogi", "yonin", "xiangqi"})
	site, err := i18n.Load(locales.FS)
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range site.Langs() {
		for _, d := range ds {
			m := site.WithTexts(d.Texts, nil, sdk.SiteKey)
			// The English texts that this language says differently.
			var english []string
			if lang != i18n.Fallback {
				for _, k := range m.Keys("") {
					en, _ := m.Lookup(i18n.Fallback, k)
					tr, _ := m.Lookup(lang, k)
					if en != tr && len([]rune(en)) >= 12 && !strings.Contains(en, "{") {
						english = append(english, en)
					}
				}
			}
			paths := []string{"/" + lang + "/" + d.ID + "/", "/" + lang + "/" + d.ID + "/play?mode=local", "/" + lang + "/" + d.ID + "/play?mode=computer"}
			if d.ID == ds[0].ID {
				paths = append(paths, "/"+lang+"/", "/"+lang+"/no-such-page")
			}
			for _, path := range paths {
				_, body, _ := get(path, "")
				text := pageText(body)
				for _, k := range rawKeyRE.FindAllString(text, -1) {
					t.Errorf("%s shows the raw key %q", path, k)
				}
				for _, en := range english {
					if strings.Contains(text, en) {
						t.Errorf("%s shows English: %q", path, en)
					}
				}
				if strings.Contains(body, "variant-english") {
					t.Errorf("%s says the game's texts are in English", path)
				}
			}
		}
	}
}

// TestVariantTextsFallback: a variant that ships English only is shown in
// English on another language's pages, which say so; one that ships no
// texts shows its Description's English names, never raw keys.
func TestVariantTextsFallback(t *testing.T) {
	games := fakeGames{ds: []sdk.Description{
		{ID: "connect4", Name: "Connect Four", NameKey: "variant.connect4", Seats: []sdk.SeatInfo{{Name: "Red", NameKey: "seat.connect4.red"}, {Name: "Yellow", NameKey: "seat.connect4.yellow"}},
			Texts: sdk.Texts{"en": {"variant.connect4": "Connect Four", "seat.connect4.red": "Red", "seat.connect4.yellow": "Yellow",
				"home.card.connect4": "Four in a row wins.", "landing.connect4.lead": "Drop discs into seven columns.",
				"result.four": "four in a row", "ui.newGame": "Hijacked"},
				"de": {"variant.connect4": "Vier gewinnt", "ui.newGame": "Hijacked"}}},
		{ID: "bare", Name: "Bare Game", NameKey: "variant.bare", Seats: []sdk.SeatInfo{{Name: "First", NameKey: "seat.bare.first"}, {Name: "Second", NameKey: "seat.bare.second"}}},
	}}
	get := serveGames(t, games, nil)
	for _, tc := range []struct {
		path          string
		want, notWant []string
	}{
		{"/de/", []string{"Vier gewinnt", `<p lang="en">Four in a row wins.</p>`, "Bare Game"}, []string{"variant.", "home.card."}},
		{"/de/connect4/", []string{"Vier gewinnt", "Drop discs into seven columns.", "variant-english"}, nil},
		{"/en/connect4/", []string{"Connect Four", "Drop discs"}, []string{"variant-english"}},
		{"/de/connect4/play", []string{`"seat.connect4.red":"Red"`, `"result.four":"four in a row"`, `"ui.newGame":"Neue Partie"`, "variant-english"}, []string{"Hijacked", `"texts"`}},
		{"/ja/bare/play", []string{`"variant.bare":"Bare Game"`, `"seat.bare.second":"Second"`, "Bare Game"}, nil},
		{"/api/v1/variants", []string{`"id":"connect4"`}, []string{"texts", "Vier gewinnt"}},
		{"/api/v1/variants/connect4", []string{`"id":"connect4"`}, []string{"texts", "Vier gewinnt"}},
	} {
		status, body, _ := get(tc.path, "")
		if status != 200 {
			t.Errorf("GET %s: status %d", tc.path, status)
		}
		for _, s := range tc.want {
			if !strings.Contains(body, s) {
				t.Errorf("GET %s lacks %q", tc.path, s)
			}
		}
		for _, s := range tc.notWant {
			if strings.Contains(body, s) {
				t.Errorf("GET %s has %q", tc.path, s)
			}
		}
	}
}

package server

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/banmen/banmen/locales"
	"github.com/banmen/banmen/platform/internal/config"
	"github.com/banmen/banmen/platform/internal/i18n"
	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/host"
)

// fakeGames serves Descriptions only: the pages never call a plugin.
type fakeGames struct{ ds []sdk.Description }

func (f fakeGames) Descriptions() []sdk.Description { return f.ds }

func (f fakeGames) Description(id string) (sdk.Description, bool) {
	for _, d := range f.ds {
		if d.ID == id {
			return d, true
		}
	}
	return sdk.Description{}, false
}

func (f fakeGames) Call(context.Context, string, string, func(context.Context, *host.Conn) error) error {
	return nil
}

// pluginTexts reads a built-in plugin's texts from its source tree, as the
// plugin hands them over in its Description.
func pluginTexts(t testing.TB, id string) sdk.Texts {
	t.Helper()
	texts, err := sdk.LoadTexts(os.DirFS(filepath.Join("..", "..", "..", "plugins", id, "rules", "texts")))
	if err != nil {
		t.Fatal(err)
	}
	return texts
}

func pageServer(t *testing.T) func(path, acceptLanguage string) (int, string, map[string]string) {
	t.Helper()
	games := fakeGames{ds: []sdk.Description{
		{ID: "shogi", Name: "Shogi", NameKey: "variant.shogi", Seats: []sdk.SeatInfo{{NameKey: "seat.shogi.sente"}, {NameKey: "seat.shogi.gote"}}, Texts: pluginTexts(t, "shogi"),
			Levels: []sdk.Level{sdk.Easy, sdk.Medium, sdk.Hard}},
		{ID: "xiangqi", Name: "Xiangqi", NameKey: "variant.xiangqi", Seats: []sdk.SeatInfo{{NameKey: "seat.xiangqi.red"}, {NameKey: "seat.xiangqi.black"}}, Texts: pluginTexts(t, "xiangqi")},
	}}
	return serveGames(t, games, []string{"shogi", "xiangqi"})
}

func serveGames(t *testing.T, games fakeGames, variants []string) func(path, acceptLanguage string) (int, string, map[string]string) {
	t.Helper()
	app := New(Deps{Games: games, Config: config.Config{Variants: variants}})
	return func(path, al string) (int, string, map[string]string) {
		req := httptest.NewRequest("GET", path, nil)
		if al != "" {
			req.Header.Set("Accept-Language", al)
		}
		res, err := app.Test(req, -1)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		h := map[string]string{}
		for k := range res.Header {
			h[k] = res.Header.Get(k)
		}
		return res.StatusCode, string(b), h
	}
}

func TestPages(t *testing.T) {
	get := pageServer(t)
	for _, tc := range []struct {
		path, accept string
		status       int
		contains     []string
	}{
		{"/en/", "", 200, []string{`<html lang="en">`, "Board games, in your browser", `href="/en/shogi/"`, `href="/uk/"`, "Japanese chess on a 9×9 board"}},
		{"/uk/", "", 200, []string{`<html lang="uk">`, "Настільні ігри", "Сьоґі"}},
		{"/en/shogi/", "", 200, []string{"Shogi for two", "Same device", "Not available on this server", `href="/en/shogi/play?mode=local"`, `href="/en/shogi/play?mode=computer"`, "Questions and answers", `href="/uk/shogi/"`,
			"2 players share this screen", "Play against the computer: Easy, Medium, Hard."}},
		{"/uk/xiangqi/", "", 200, []string{"Сянці: китайські шахи", "Один пристрій", "На цьому сервері недоступно"}},
		{"/en/shogi/play?mode=local", "", 200, []string{`id="board-data"`, "New game", `href="/uk/shogi/play?mode=local"`}},
		{"/uk/shogi/play", "", 200, []string{"Нова партія", "Здатися"}},
		{"/ja/shogi/play?mode=local", "", 200, []string{`<html lang="ja">`, "新規対局", "投了", `href="/zh/shogi/play?mode=local"`, `href="/de/shogi/play?mode=local"`, ">简体中文<", ">Русский<"}},
		{"/zh/xiangqi/", "", 200, []string{`<html lang="zh">`, "象棋：中国象棋", `hreflang="nl"`, `hreflang="it"`, `<link rel="alternate" hreflang="uk" href="http://example.com/uk/xiangqi/">`}},
		{"/en/shogi/play?mode=computer", "", 200, []string{`id="board-data"`, "Shogi — vs computer", `id="level-dialog"`, `"storageKey":"banmen.computer.shogi"`}},
		{"/en/shogi/play?mode=friend", "", 404, nil},
		{"/de/shogi/room/q3Vb0f1mK9yW2cTq8ZpR4A", "", 404, []string{"Diesen Raum gibt es nicht (mehr)"}},
		{"/en/yonin/", "", 404, []string{"This page does not exist"}},
		{"/fr/", "uk", 404, []string{`<html lang="uk">`}},
		{"/en/shogi/play?mode=bogus", "", 404, nil},
	} {
		status, body, h := get(tc.path, tc.accept)
		if status != tc.status {
			t.Errorf("GET %s: status %d, want %d", tc.path, status, tc.status)
		}
		for _, s := range tc.contains {
			if !strings.Contains(body, s) {
				t.Errorf("GET %s: the page lacks %q", tc.path, s)
			}
		}
		if status == 200 && !strings.Contains(h["Content-Security-Policy"], "script-src 'self'") {
			t.Errorf("GET %s: no strict CSP", tc.path)
		}
		// The CSP forbids inline scripts and style attributes.
		if regexp.MustCompile(`<script(?: type="module")?>|\sstyle=`).MatchString(body) {
			t.Errorf("GET %s: the page has an inline script or style attribute", tc.path)
		}
	}
}

func TestLanguageRedirect(t *testing.T) {
	get := pageServer(t)
	for accept, want := range map[string]string{"": "/en/", "uk-UA,uk;q=0.9": "/uk/", "fr,es;q=0.8": "/en/", "ja,fr;q=0.8": "/ja/", "zh-CN,zh;q=0.9": "/zh/", "zh-Hans": "/zh/",
		"zh-TW,en;q=0.8": "/en/", "zh-TW": "/zh/", "gsw": "/de/"} {
		status, _, h := get("/", accept)
		if status != 302 || h["Location"] != want {
			t.Errorf("GET / with Accept-Language %q: %d to %q, want 302 to %q", accept, status, h["Location"], want)
		}
	}
	if status, _, h := get("/shogi/", "uk"); status != 302 || h["Location"] != "/uk/shogi/" {
		t.Errorf("GET /shogi/: %d to %q, want the Ukrainian landing page", status, h["Location"])
	}
}

// TestBoardData checks the JSON the board's scripts read: the variant and
// the strings of the page's language.
func TestBoardData(t *testing.T) {
	get := pageServer(t)
	_, body, _ := get("/uk/shogi/play?mode=local", "")
	m := regexp.MustCompile(`(?s)<script type="application/json" id="board-data">(.*?)</script>`).FindStringSubmatch(body)
	if m == nil {
		t.Fatal("no board data in the page")
	}
	var d boardData
	if err := json.Unmarshal([]byte(m[1]), &d); err != nil {
		t.Fatalf("board data is not JSON: %v\n%s", err, m[1])
	}
	if d.Variant.ID != "shogi" || d.StorageKey != "banmen.local.shogi" || d.API != "/api/v1/games/shogi" || d.Lang != "uk" {
		t.Errorf("board data %+v", d)
	}
	if d.Strings["ui.newGame"] != "Нова партія" || d.Strings["seat.shogi.sente"] != "Сенте" {
		t.Errorf("board strings are not Ukrainian: %q %q", d.Strings["ui.newGame"], d.Strings["seat.shogi.sente"])
	}
	if _, ok := d.Strings["landing.shogi.rules"]; ok {
		t.Error("the board data carries the landing page's text too")
	}
}

// TestStaticVersioned serves the static files under a content-hashed prefix
// with a long cache life, and compressed.
func TestStaticVersioned(t *testing.T) {
	get := pageServer(t)
	_, body, _ := get("/en/", "")
	m := regexp.MustCompile(`href="(/static/[0-9a-f]{10}/css/site.css)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatal("no versioned stylesheet link")
	}
	status, css, h := get(m[1], "")
	if status != 200 || !strings.Contains(css, "@font-face") || !strings.Contains(h["Cache-Control"], "max-age=31536000") {
		t.Errorf("GET %s: %d, cache %q", m[1], status, h["Cache-Control"])
	}
}

// A Traditional Chinese reader served the Simplified pages is told so, with
// a link to English; a Simplified reader is not.
func TestTraditionalChineseNotice(t *testing.T) {
	get := pageServer(t)
	const notice = `class="lang-notice"`
	for _, tc := range []struct {
		path, accept string
		want         bool
	}{
		{"/zh/xiangqi/", "zh-TW", true},
		{"/zh/", "zh-TW,zh;q=0.9,en-US;q=0.8,en;q=0.7", true},
		{"/zh/xiangqi/play?mode=local", "zh-HK", true},
		{"/zh/xiangqi/", "zh-CN,zh;q=0.9", false},
		{"/zh/xiangqi/", "", false},
		{"/en/xiangqi/", "zh-TW,en;q=0.8", false},
	} {
		_, body, h := get(tc.path, tc.accept)
		if got := strings.Contains(body, notice); got != tc.want {
			t.Errorf("GET %s with Accept-Language %q: notice %v, want %v", tc.path, tc.accept, got, tc.want)
		}
		if tc.want && (!strings.Contains(body, "本頁為簡體中文") || !strings.Contains(body, `hreflang="en" lang="en">English</a>`)) {
			t.Errorf("GET %s: the notice lacks its text or the English link", tc.path)
		}
		if h["Vary"] != "Accept-Language" {
			t.Errorf("GET %s: Vary %q", tc.path, h["Vary"])
		}
	}
}

// A variant's pages are the variant pages only, in every language.
func TestVariantPagesAreTheVariantPageNames(t *testing.T) {
	cat, err := i18n.Load(locales.FS)
	if err != nil {
		t.Fatal(err)
	}
	pg, err := parsePages(cat, "/static/x/")
	if err != nil {
		t.Fatal(err)
	}
	vp, err := pg.withCatalog(cat)
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range cat.Langs() {
		if got := slices.Sorted(maps.Keys(vp.byLang[lang])); !slices.Equal(got, slices.Sorted(slices.Values(variantPageNames))) {
			t.Errorf("%s: variant pages %v, want %v", lang, got, variantPageNames)
		}
		if len(pg.byLang[lang]) != len(pageNames) {
			t.Errorf("%s: %d site pages, want %d", lang, len(pg.byLang[lang]), len(pageNames))
		}
	}
}

// TestPagesFollowTheDescription: a variant without a computer player (no
// Levels, here the fake xiangqi) is offered no Vs computer, and an old link
// to it plays on one device; the mode cards say what the variant has.
func TestPagesFollowTheDescription(t *testing.T) {
	get := pageServer(t)
	status, body, _ := get("/en/xiangqi/", "")
	if status != 200 {
		t.Fatalf("landing: status %d", status)
	}
	if strings.Contains(body, "mode=computer") || strings.Contains(body, "mode-computer") {
		t.Error("the landing page of a variant without levels offers Vs computer")
	}
	if !strings.Contains(body, "2 players share this screen") {
		t.Error("the Same device card does not say how many play")
	}
	status, _, h := get("/en/xiangqi/play?mode=computer", "")
	if status != 302 || h["Location"] != "/en/xiangqi/play?mode=local" {
		t.Errorf("Vs computer of a variant without levels: status %d to %q, want 302 to Same device", status, h["Location"])
	}
	status, body, _ = get("/ja/shogi/", "")
	if status != 200 || !strings.Contains(body, "初級・中級・上級") {
		t.Errorf("the Japanese landing page does not name the levels the Japanese way (status %d)", status)
	}
}

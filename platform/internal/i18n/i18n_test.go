package i18n

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/banmen/banmen/locales"
)

// TestLocalesComplete keeps every shipped language complete: a key missing
// from a language would silently fall back to English on its pages.
func TestLocalesComplete(t *testing.T) {
	c, err := Load(locales.FS)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Langs()) < 2 || c.Langs()[0] != Fallback {
		t.Fatalf("languages %v, want English first and at least one more", c.Langs())
	}
	for _, lang := range c.Langs()[1:] {
		missing, extra := c.Missing(lang)
		for _, k := range missing {
			t.Errorf("%s.json lacks %q", lang, k)
		}
		for _, k := range extra {
			t.Errorf("%s.json has %q, which en.json lacks", lang, k)
		}
		// The same {name} placeholders: one missing would leave a value
		// out of the page, one misspelt would show as "{nmae}".
		for _, k := range c.Keys("") {
			en, _ := c.Lookup(Fallback, k)
			s, ok := c.langs[lang][k]
			if !ok {
				continue
			}
			if want, got := placeholders(en), placeholders(s); !slices.Equal(want, got) {
				t.Errorf("%s.json %q has placeholders %v, en.json %v", lang, k, got, want)
			}
		}
	}
}

// placeholders lists the {name} tokens of s, sorted, repeats kept.
func placeholders(s string) []string {
	out := regexp.MustCompile(`\{[A-Za-z0-9_]+\}`).FindAllString(s, -1)
	sort.Strings(out)
	return out
}

// TestShippedLanguages keeps the languages the spec promises, and checks
// that browsers' usual tags for them pick the right file.
func TestShippedLanguages(t *testing.T) {
	c, err := Load(locales.FS)
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"en", "uk", "de", "ru", "nl", "it", "ja", "zh"} {
		if !c.Has(lang) {
			t.Errorf("no %s.json", lang)
		}
	}
	for _, tc := range []struct{ header, want string }{
		{"zh-CN,zh;q=0.9,en;q=0.8", "zh"},
		{"zh-Hans", "zh"},
		{"zh-Hans-CN", "zh"},
		{"zh", "zh"},
		{"ja-JP,ja;q=0.9", "ja"},
		{"de-CH", "de"},
		{"ru-RU,ru;q=0.9,en-US;q=0.8", "ru"},
		{"nl-BE", "nl"},
		{"it-IT", "it"},
		{"fr-FR,es;q=0.5", "en"},
		{"gsw", "de"}, // Swiss German reads German
		// Traditional Chinese: Simplified is a weak match, so English wins
		// where the reader accepts it...
		{"zh-TW,en;q=0.8", "en"},
		{"zh-Hant,en-US;q=0.5", "en"},
		// ...and Simplified, with a notice (TestApproximate), where not, or
		// where the header names plain zh (Chrome's default in Taiwan).
		{"zh-TW", "zh"},
		{"zh-HK", "zh"},
		{"zh-Hant", "zh"},
		{"zh-TW,zh;q=0.9,en-US;q=0.8,en;q=0.7", "zh"},
		{"zh-Hans-HK", "zh"},
		{"yue-HK,en;q=0.5", "en"},
	} {
		if got := c.Match(tc.header); got != tc.want {
			t.Errorf("Match(%q) = %q, want %q", tc.header, got, tc.want)
		}
	}
}

func testCatalog(t *testing.T) *Catalog {
	t.Helper()
	c, err := Load(fstest.MapFS{
		"en.json": {Data: []byte(`{"a":"Hello {name}","b":"only English"}`)},
		"uk.json": {Data: []byte(`{"a":"Привіт, {name}"}`)},
		"de.json": {Data: []byte(`{"a":"Hallo {name}"}`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestT(t *testing.T) {
	c := testCatalog(t)
	for _, tc := range []struct{ lang, key, want string }{
		{"uk", "a", "Привіт, Ada"},
		{"uk", "b", "only English"}, // falls back
		{"en", "zzz", "zzz"},        // a missing key shows itself
		{"xx", "a", "Hello Ada"},    // an unknown language is English
	} {
		if got := c.T(tc.lang, tc.key, "name", "Ada"); got != tc.want {
			t.Errorf("T(%s, %s) = %q, want %q", tc.lang, tc.key, got, tc.want)
		}
	}
}

func TestMatch(t *testing.T) {
	c := testCatalog(t)
	for _, tc := range []struct{ header, want string }{
		{"", "en"},
		{"uk-UA,uk;q=0.9,en;q=0.8", "uk"},
		{"fr-FR, de;q=0.5, uk;q=0.7", "uk"},
		{"ja, zh;q=0.9", "en"},
		{"DE-at", "de"},
		{"uk;q=0, de;q=0.1", "de"},
		{"en;q=0.1, de", "de"},
		{"*", "en"},
		{"de;q=abc, uk;q=0.5", "uk"}, // a malformed entry is skipped, not the header
		{"@@, de", "de"},
		{strings.Repeat("fr,", 40) + "de", "en"}, // bounded
	} {
		if got := c.Match(tc.header); got != tc.want {
			t.Errorf("Match(%q) = %q, want %q", tc.header, got, tc.want)
		}
	}
}

// TestApproximate: a page in a language that is only a weak substitute for
// the reader's first choice says so. Simplified Chinese is never served to a
// Traditional Chinese reader without the notice.
func TestApproximate(t *testing.T) {
	c, err := Load(locales.FS)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		lang, header string
		want         bool
	}{
		{"zh", "zh-TW", true},
		{"zh", "zh-HK", true},
		{"zh", "zh-Hant", true},
		{"zh", "zh-TW,zh;q=0.9,en-US;q=0.8,en;q=0.7", true},
		{"zh", "zh-CN,zh;q=0.9", false},
		{"zh", "zh", false},
		{"zh", "zh-Hans-HK", false},
		{"zh", "", false},
		{"en", "zh-TW,en;q=0.8", false}, // English was asked for
		{"de", "de-CH", false},
		{"en", "fr", false}, // no translation at all is not a substitute
		{"xx", "zh-TW", false},
	} {
		if got := c.Approximate(tc.lang, tc.header); got != tc.want {
			t.Errorf("Approximate(%q, %q) = %v, want %v", tc.lang, tc.header, got, tc.want)
		}
	}
}

func TestBadTag(t *testing.T) {
	_, err := Load(fstest.MapFS{"en.json": {Data: []byte(`{"lang.tag":"not a tag!"}`)}})
	if err == nil {
		t.Error("a locale with a malformed lang.tag loaded")
	}
}

// TestWithTexts merges a variant's texts: its own language first, the
// site's for the keys every game shares, its English otherwise (and says
// which languages), the Description's names for keys no text has, and
// never a site key of its own.
func TestWithTexts(t *testing.T) {
	c := testCatalog(t)
	texts := map[string]map[string]string{
		"en": {"v.name": "Game", "v.only_en": "English only", "a": "Mine {name}", "site": "taken"},
		"uk": {"v.name": "Гра", "site": "захоплено"},
	}
	names := map[string]string{"v.name": "Game (description)", "v.seat": "Seat one", "b": "not used"}
	m := c.WithTexts(texts, names, func(k string) bool { return k == "site" })
	for _, tc := range []struct{ lang, key, want string }{
		{"uk", "v.name", "Гра"},
		{"uk", "v.only_en", "English only"},
		{"de", "v.name", "Game"},
		{"uk", "a", "Привіт, Ada"},   // the site's translation beats the variant's English
		{"en", "a", "Mine Ada"},      // the variant's own text in the same language wins
		{"de", "v.seat", "Seat one"}, // no text anywhere: the Description's name
		{"en", "b", "only English"},  // a site key keeps the site's text
		{"uk", "site", "site"},       // refused: never shown
	} {
		if got := m.T(tc.lang, tc.key, "name", "Ada"); got != tc.want {
			t.Errorf("T(%s, %s) = %q, want %q", tc.lang, tc.key, got, tc.want)
		}
	}
	if !m.English["uk"] || !m.English["de"] || m.English["en"] {
		t.Errorf("English = %v, want uk and de", m.English)
	}
	if !slices.Equal(m.Named, []string{"v.seat"}) || !slices.Equal(m.Refused, []string{"site"}) {
		t.Errorf("Named %v, Refused %v", m.Named, m.Refused)
	}
	if !slices.Equal(m.Own(), []string{"a", "v.name", "v.only_en", "v.seat"}) {
		t.Errorf("Own = %v", m.Own())
	}
	if _, ok := c.Lookup("en", "v.name"); ok {
		t.Error("WithTexts changed the site's catalog")
	}
}

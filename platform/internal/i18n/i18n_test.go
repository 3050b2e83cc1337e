package i18n

import (
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
	} {
		if got := c.Match(tc.header); got != tc.want {
			t.Errorf("Match(%q) = %q, want %q", tc.header, got, tc.want)
		}
	}
}

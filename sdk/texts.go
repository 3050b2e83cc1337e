package sdk

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Texts are a variant's own strings, per language: Texts["de"]["variant.shogi"]
// is "Shogi" in German. A variant ships them inside its plugin and hands them
// to the host in its Description; the host merges them with the site's own
// strings for the variant's pages. Language codes are the site's ("en", "uk",
// "de", "ru", "nl", "it", "ja", "zh"); English is the reference, and a
// language or a key a variant lacks falls back to its English.
//
// Which keys a variant ships: every i18n key its Description and Views use
// (names, seats, pieces, options, notations, results, notices, actions, its
// own error codes), and its pages' texts, keyed by its ID:
//
//	home.card.<id>                  the home page's card: a sentence or two
//	landing.<id>.title, .meta       the landing page's <title> and description
//	landing.<id>.h1, .lead          its heading and the line under it
//	landing.<id>.start, .rules, .tips, .saving
//	                                sections (blank lines part paragraphs,
//	                                lines starting "- " make a list)
//	landing.<id>.settings, .settings.text
//	                                a section with its own heading
//	landing.<id>.faq.N.q, .faq.N.a  questions and answers, N = 1, 2, …
//	moves.text.<id>, moves.alt.<id> names of the move list's two texts
//	board.river.<id>                text written in a "river" mark
//
// The site keeps the texts every game shares: the page furniture, and the
// sdk's own codes (error.<Code…> and result.resignation, result.draw,
// result.abandoned). A variant may not ship keys of the site's own parts (see
// SiteKey).
type Texts map[string]map[string]string

// LoadTexts reads every <lang>.json file at the top of fsys (one flat JSON
// object from key to text per language), as a plugin embeds them:
//
//	//go:embed texts/*.json
//	var textFS embed.FS
//	texts, err := sdk.LoadTexts(must(fs.Sub(textFS, "texts")))
func LoadTexts(fsys fs.FS) (Texts, error) {
	names, err := fs.Glob(fsys, "*.json")
	if err != nil {
		return nil, err
	}
	out := Texts{}
	for _, name := range names {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		m := map[string]string{}
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("texts %s: %w", name, err)
		}
		out[strings.TrimSuffix(path.Base(name), ".json")] = m
	}
	if _, ok := out["en"]; !ok {
		return nil, fmt.Errorf("texts: no en.json (English is every other language's fallback)")
	}
	return out, nil
}

// MustLoadTexts is LoadTexts for texts embedded in the plugin, where an error
// is a build mistake: it panics.
func MustLoadTexts(fsys fs.FS, dir string) Texts {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(err)
	}
	t, err := LoadTexts(sub)
	if err != nil {
		panic(err)
	}
	return t
}

// siteKeyPrefixes are the key families that belong to the site's pages.
var siteKeyPrefixes = []string{"ui.", "room.", "site.", "lang.", "nav.", "footer.", "faq.", "mode.", "play.",
	"notfound.", "landing.h.", "landing.back", "home.title", "home.meta", "home.h1", "home.lead", "home.badge.",
	"home.players", "home.open"}

// SiteKey reports whether key belongs to the site's own texts, which no
// variant may replace.
func SiteKey(key string) bool {
	for _, p := range siteKeyPrefixes {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

// Keys lists the i18n keys the Description itself names (its name, seats,
// pieces, options with their choices, host settings), sorted, each with the
// English name the Description gives it: what a host shows when no text has
// the key.
func (d Description) Keys() map[string]string {
	out := map[string]string{}
	add := func(key, name string) {
		if key != "" {
			out[key] = name
		}
	}
	add(d.NameKey, d.Name)
	for _, s := range d.Seats {
		add(s.NameKey, s.Name)
	}
	for _, p := range d.Pieces {
		add(p.NameKey, p.Name)
		if p.Promoted != nil {
			add(p.Promoted.NameKey, p.Promoted.Name)
		}
	}
	for _, o := range slices.Concat(d.Options, d.HostSettings) {
		add(o.NameKey, o.Name)
		if o.Type == "choice" {
			for _, c := range o.Choices {
				add(o.NameKey+"."+c, c)
			}
		}
	}
	return out
}

var placeholderRE = regexp.MustCompile(`\{[A-Za-z0-9_]+\}`)

// Placeholders lists the {name} tokens of s, sorted, repeats kept: a
// translation must have the same ones as its English.
func Placeholders(s string) []string {
	out := placeholderRE.FindAllString(s, -1)
	sort.Strings(out)
	return out
}

// sharedKeys are the texts the site itself holds for every game: the sdk's
// own rule error codes and the endings every variant may use.
var sharedKeys = map[string]bool{
	"result.resignation": true, "result.draw": true, ReasonAbandoned: true,
	"error." + CodeIllegalMove: true, "error." + CodeBadMove: true, "error." + CodeNotYourTurn: true,
	"error." + CodeGameOver: true, "error." + CodeBadState: true, "error." + CodeBadOption: true,
	"error." + CodeBadPosition: true, "error." + CodeBadFormat: true, "error." + CodeBadNotation: true,
	"error." + CodeNoMove: true, "error." + CodeUnsupported: true,
}

// SharedKey reports whether the site holds key's text for every variant (the
// sdk's error codes, result.resignation, result.draw, result.abandoned): a
// variant uses it without shipping it, and may ship its own text to say it
// differently.
func SharedKey(key string) bool { return sharedKeys[key] }

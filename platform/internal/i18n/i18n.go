// Package i18n is the site's translations: it loads the locale files (one
// flat JSON object per language), looks strings up with English as the
// fallback, fills {name} placeholders, and picks a page language from a URL
// or an Accept-Language header. It must never know a game rule or render a
// page: it only maps keys to text.
package i18n

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"

	"golang.org/x/text/language"
)

// Fallback is the language every other falls back to, key by key; its file
// must be complete.
const Fallback = "en"

// TagKey is the key of a locale file's BCP 47 tag, when it says more than
// the file's name: zh.json is written in Simplified characters, "zh-Hans".
const TagKey = "lang.tag"

// Catalog holds every language's strings.
type Catalog struct {
	langs   map[string]map[string]string
	codes   []string       // Fallback first, then alphabetical
	tags    []language.Tag // each code's tag, in the order of codes
	matcher language.Matcher
}

// Load reads every *.json file of fsys as the language named by the file.
func Load(fsys fs.FS) (*Catalog, error) {
	names, err := fs.Glob(fsys, "*.json")
	if err != nil {
		return nil, err
	}
	c := &Catalog{langs: map[string]map[string]string{}}
	for _, name := range names {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		m := map[string]string{}
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("locale %s: %w", name, err)
		}
		code := strings.TrimSuffix(path.Base(name), ".json")
		c.langs[code] = m
		c.codes = append(c.codes, code)
	}
	if _, ok := c.langs[Fallback]; !ok {
		return nil, fmt.Errorf("locales: no %s.json, the fallback language", Fallback)
	}
	sort.Slice(c.codes, func(i, j int) bool {
		if (c.codes[i] == Fallback) != (c.codes[j] == Fallback) {
			return c.codes[i] == Fallback
		}
		return c.codes[i] < c.codes[j]
	})
	for _, code := range c.codes {
		name := code
		if t, ok := c.langs[code][TagKey]; ok {
			name = t
		}
		tag, err := language.Parse(name)
		if err != nil {
			return nil, fmt.Errorf("locale %s.json: %s %q: %w", code, TagKey, name, err)
		}
		c.tags = append(c.tags, tag)
	}
	// The fallback comes first: the matcher answers it when nothing fits.
	c.matcher = language.NewMatcher(c.tags)
	return c, nil
}

// Langs are the language codes, the fallback first.
func (c *Catalog) Langs() []string { return c.codes }

// Has reports whether lang has a locale file.
func (c *Catalog) Has(lang string) bool { _, ok := c.langs[lang]; return ok }

// Lookup returns the text of key in lang, or in the fallback language, and
// whether either has it.
func (c *Catalog) Lookup(lang, key string) (string, bool) {
	if s, ok := c.langs[lang][key]; ok {
		return s, true
	}
	s, ok := c.langs[Fallback][key]
	return s, ok
}

// T returns the text of key in lang with {name} placeholders filled from
// args, given as name, value pairs. A missing key returns the key itself, so
// a gap shows on the page instead of an empty space.
func (c *Catalog) T(lang, key string, args ...any) string {
	s, ok := c.Lookup(lang, key)
	if !ok {
		return key
	}
	return Fill(s, args...)
}

// Fill replaces {name} in s by the value that follows name in args.
func Fill(s string, args ...any) string {
	for i := 0; i+1 < len(args); i += 2 {
		s = strings.ReplaceAll(s, "{"+fmt.Sprint(args[i])+"}", fmt.Sprint(args[i+1]))
	}
	return s
}

// Keys returns the keys of the fallback language that start with prefix,
// sorted.
func (c *Catalog) Keys(prefix string) []string {
	var out []string
	for k := range c.langs[Fallback] {
		if strings.HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// Subset returns lang's text (with fallback) of every key that starts with
// one of prefixes: the strings a page hands to its scripts.
func (c *Catalog) Subset(lang string, prefixes ...string) map[string]string {
	out := map[string]string{}
	for _, p := range prefixes {
		for _, k := range c.Keys(p) {
			out[k], _ = c.Lookup(lang, k)
		}
	}
	return out
}

// Missing lists the keys of the fallback language that lang lacks, and the
// keys lang has that the fallback lacks (which would never be shown).
func (c *Catalog) Missing(lang string) (missing, extra []string) {
	for k := range c.langs[Fallback] {
		if _, ok := c.langs[lang][k]; !ok {
			missing = append(missing, k)
		}
	}
	for k := range c.langs[lang] {
		if _, ok := c.langs[Fallback][k]; !ok {
			extra = append(extra, k)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	return missing, extra
}

// Match picks the page language for an Accept-Language header with
// golang.org/x/text/language's Matcher (CLDR's language distances): a region
// or dialect finds its language ("de-CH", "gsw" → de), a language is
// preferred over a weaker substitute the reader ranked higher, and the
// fallback answers when nothing fits.
//
// A Traditional Chinese reader ("zh-TW", "zh-HK", "zh-Hant") is a weak
// ("Low") match for the Simplified zh pages. Following the Matcher, such a
// reader gets English when the header accepts English, and the Simplified
// pages otherwise, or when the header also names plain "zh" (as Chrome's
// default "zh-TW,zh;q=0.9,en-US;q=0.8" does); in both cases Approximate
// reports it, and the page says so, so Simplified is never served silently
// in place of Traditional.
func (c *Catalog) Match(acceptLanguage string) string {
	tags := parseAccept(acceptLanguage)
	if len(tags) == 0 {
		return Fallback
	}
	_, i, conf := c.matcher.Match(tags...)
	if conf == language.No {
		return Fallback
	}
	return c.codes[i]
}

// Approximate reports whether the pages in lang are only a weak substitute
// (x/text's Low confidence) for the reader's first choice in
// acceptLanguage, such as Simplified for a Traditional Chinese reader: the
// page then says that it is not in the language asked for.
func (c *Catalog) Approximate(lang, acceptLanguage string) bool {
	i := slices.Index(c.codes, lang)
	tags := parseAccept(acceptLanguage)
	if i < 0 || len(tags) == 0 {
		return false
	}
	return language.Comprehends(tags[0], c.tags[i]) == language.Low
}

// maxAcceptTags bounds the work one header may ask for.
const maxAcceptTags = 32

// parseAccept reads an Accept-Language header into tags, most wanted first
// (q=0 excluded). A malformed entry is skipped rather than voiding the whole
// header, as language.ParseAcceptLanguage would.
func parseAccept(h string) []language.Tag {
	parts := strings.SplitN(h, ",", maxAcceptTags+1)
	if len(parts) > maxAcceptTags {
		parts = parts[:maxAcceptTags]
	}
	type weighted struct {
		tag language.Tag
		q   float32
	}
	var all []weighted
	for _, p := range parts {
		if strings.TrimSpace(p) == "" {
			continue
		}
		tags, qs, err := language.ParseAcceptLanguage(p)
		if err != nil || len(tags) != 1 {
			continue
		}
		all = append(all, weighted{tags[0], qs[0]})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].q > all[j].q })
	out := make([]language.Tag, len(all))
	for i, w := range all {
		out[i] = w.tag
	}
	return out
}

// Merged is the site's catalog with one variant's own texts merged in: what
// that variant's pages speak. See Catalog.WithTexts.
type Merged struct {
	*Catalog
	// English are the languages in which some of the variant's texts are
	// shown in English because the variant ships none in that language
	// (key by key): its pages say so.
	English map[string]bool
	// Named are the keys no text had, shown as the Description's English
	// names.
	Named []string
	// Refused are the variant's keys that belong to the site's own texts,
	// ignored.
	Refused []string
	// own are the variant's keys.
	own []string
}

// WithTexts returns the catalog with a variant's texts merged in: in each
// site language, the variant's text of a key, else the site's (the texts
// every game shares), else the variant's English (recorded in English).
// names are the keys the variant's Description names with its English names
// (sdk.Description.Keys): a key with no text anywhere shows that name and is
// recorded in Named. refuse tells which keys are the site's own, which a
// variant may not replace (recorded in Refused). The receiver is unchanged.
func (c *Catalog) WithTexts(texts map[string]map[string]string, names map[string]string, refuse func(string) bool) *Merged {
	m := &Merged{Catalog: &Catalog{langs: map[string]map[string]string{}, codes: c.codes, tags: c.tags, matcher: c.matcher},
		English: map[string]bool{}}
	en := texts[Fallback]
	own := map[string]bool{}
	for k := range en {
		if refuse != nil && refuse(k) {
			m.Refused = append(m.Refused, k)
			continue
		}
		own[k] = true
	}
	for k, name := range names {
		if _, ok := c.langs[Fallback][k]; !ok && !own[k] {
			m.Named = append(m.Named, k)
			own[k] = true
			if en == nil {
				en = map[string]string{}
			}
			if _, ok := en[k]; !ok {
				en = maps.Clone(en)
				en[k] = name
			}
		}
	}
	for _, lang := range c.codes {
		site := c.langs[lang]
		out := make(map[string]string, len(site)+len(own))
		maps.Copy(out, site)
		for k := range own {
			if s, ok := texts[lang][k]; ok && (refuse == nil || !refuse(k)) {
				out[k] = s
			} else if _, ok := site[k]; !ok {
				out[k] = en[k]
				if lang != Fallback {
					m.English[lang] = true
				}
			}
		}
		m.langs[lang] = out
	}
	for k := range own {
		m.own = append(m.own, k)
	}
	sort.Strings(m.own)
	sort.Strings(m.Named)
	sort.Strings(m.Refused)
	return m
}

// Own lists the variant's keys (its texts and the names from its
// Description), sorted.
func (m *Merged) Own() []string { return m.own }

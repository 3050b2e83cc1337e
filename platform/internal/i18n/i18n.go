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
	"path"
	"sort"
	"strconv"
	"strings"
)

// Fallback is the language every other falls back to, key by key; its file
// must be complete.
const Fallback = "en"

// Catalog holds every language's strings.
type Catalog struct {
	langs map[string]map[string]string
	codes []string // Fallback first, then alphabetical
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

// Match picks the best language of the catalog for an Accept-Language
// header: the highest q first, a region ("uk-UA") matching its base
// language; the fallback when nothing matches.
func (c *Catalog) Match(acceptLanguage string) string {
	type pref struct {
		tag string
		q   float64
	}
	var prefs []pref
	for _, part := range strings.Split(acceptLanguage, ",") {
		tag, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		q := 1.0
		if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				q = f
			}
		}
		if tag != "" && q > 0 {
			prefs = append(prefs, pref{strings.ToLower(tag), q})
		}
	}
	sort.SliceStable(prefs, func(i, j int) bool { return prefs[i].q > prefs[j].q })
	for _, p := range prefs {
		base, _, _ := strings.Cut(p.tag, "-")
		if c.Has(base) {
			return base
		}
	}
	return Fallback
}

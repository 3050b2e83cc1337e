package sdktest

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/banmen/banmen/sdk"
)

// CheckTexts checks a Description's Texts (see sdk.Texts): English present
// and holding every key the Description names; every other language holding
// no key English lacks, with the same {placeholders} as English, and no empty
// text; no key of the site's own (sdk.SiteKey). A Description without Texts
// passes: a host shows its English names.
func CheckTexts(d sdk.Description) error {
	if d.Texts == nil {
		return nil
	}
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	en, ok := d.Texts["en"]
	if !ok {
		return errors.New("texts: no English (\"en\"), the fallback of every other language")
	}
	for _, k := range sortedKeys(d.Keys()) {
		if _, ok := en[k]; !ok && !sdk.SharedKey(k) {
			bad("texts: English has no text for %q, which the Description names", k)
		}
	}
	for _, lang := range sortedKeys(d.Texts) {
		if lang == "" || strings.ContainsAny(lang, "/.\\ ") {
			bad("texts: language code %q", lang)
		}
		for _, k := range sortedKeys(d.Texts[lang]) {
			s := d.Texts[lang][k]
			switch e, ok := en[k]; {
			case sdk.SiteKey(k):
				bad("texts %s: %q is one of the site's own keys", lang, k)
			case strings.TrimSpace(s) == "":
				bad("texts %s: %q is empty", lang, k)
			case !ok:
				bad("texts %s: %q, which English lacks, would never be shown", lang, k)
			case !slices.Equal(sdk.Placeholders(s), sdk.Placeholders(e)):
				bad("texts %s: %q has placeholders %v, English %v", lang, k, sdk.Placeholders(s), sdk.Placeholders(e))
			}
		}
	}
	return errors.Join(errs...)
}

// CheckTextsComplete checks that each of langs has a text for every English
// key: what a variant that promises those languages must ship (the built-in
// variants test it for the site's eight).
func CheckTextsComplete(d sdk.Description, langs ...string) error {
	var errs []error
	for _, lang := range langs {
		m, ok := d.Texts[lang]
		if !ok {
			errs = append(errs, fmt.Errorf("texts: no %s", lang))
			continue
		}
		for _, k := range sortedKeys(d.Texts["en"]) {
			if _, ok := m[k]; !ok {
				errs = append(errs, fmt.Errorf("texts %s: no text for %q", lang, k))
			}
		}
	}
	return errors.Join(errs...)
}

// testTexts checks the Texts and that every key the played games showed
// (results, notices, actions) has an English text: a host has no name to
// show for those but the raw key, so a variant without Texts fails here
// once its games show one of its own keys.
func (s *suite) testTexts(t *testing.T) {
	if s.d.Texts != nil {
		if err := CheckTexts(s.d); err != nil {
			t.Error(err)
		}
	}
	en := s.d.Texts["en"]
	used := map[string]string{}
	for _, g := range s.games {
		for i, v := range g.views {
			where := fmt.Sprintf("%s ply %d", g.name, i)
			if v.Result != nil && v.Result.Reason != "" {
				used[v.Result.Reason] = where
			}
			for _, n := range v.Notices {
				used[n] = where
			}
			for _, m := range v.Legal {
				if m.Key != "" {
					used[m.Key] = where
				}
			}
		}
	}
	for _, k := range sortedKeys(used) {
		if _, ok := en[k]; !ok && !sdk.SharedKey(k) {
			t.Errorf("texts: English has no text for %q (seen in %s): a host would show the raw key", k, used[k])
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// CheckLooks checks a Description's looks as a host will: its Card and every
// piece drawing must pass sdk.SanitizeSVG within their budgets (a host
// drops one that does not), and a drawing has one entry or one per seat.
func CheckLooks(d sdk.Description) error {
	var errs []error
	if d.Card != "" {
		if _, err := sdk.SanitizeSVG(d.Card, false, sdk.CardBudget); err != nil {
			errs = append(errs, fmt.Errorf("card: %w", err))
		}
	}
	check := func(what string, ds []string) {
		if len(ds) > 1 && len(ds) != len(d.Seats) {
			errs = append(errs, fmt.Errorf("piece %s: %d drawings for %d seats (want 1 or one per seat)", what, len(ds), len(d.Seats)))
		}
		for i, src := range ds {
			if _, err := sdk.SanitizeSVG(src, true, sdk.DrawingBudget); err != nil {
				errs = append(errs, fmt.Errorf("piece %s drawing %d: %w", what, i, err))
			}
		}
	}
	for _, p := range d.Pieces {
		check(p.ID, p.Drawing)
		if p.Promoted != nil {
			check(p.ID+" promoted", p.Promoted.Drawing)
		}
	}
	return errors.Join(errs...)
}

func (s *suite) testLooks(t *testing.T) {
	if err := CheckLooks(s.d); err != nil {
		t.Error(err)
	}
}

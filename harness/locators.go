package harness

import (
	"context"
	"fmt"
	"regexp"
	"strings"
)

// A locator names an element as a person sees it, beside the named buttons
// and CSS selectors: by its ARIA role and accessible name,
// `role=button[name="New round"]` (`role=dialog` for any), or by its text,
// `text=Export` or `text="Export the game"`. The accessible name is the
// aria-label, else the text of aria-labelledby, else a field's label, else
// its text (spaces run together); both match whole and exactly. Roles are
// explicit (role="…") or those of the element: button (also a summary and
// an input of type button, submit or reset), link (a with href), checkbox,
// radio, heading, combobox (select), textbox, dialog, listitem. Of several
// matches the first shown is taken.
type locator struct {
	Role string `json:"role"`
	Name string `json:"name"`
	Text string `json:"text"`
}

var (
	roleLocator = regexp.MustCompile(`^role=([a-z]+)(?:\[name=(?:"([^"]*)"|'([^']*)')\])?$`)
	textLocator = regexp.MustCompile(`^text=(?:"([^"]*)"|(.+))$`)
)

// isLocator tells whether s is meant as a locator (role= or text=).
func isLocator(s string) bool { return strings.HasPrefix(s, "role=") || strings.HasPrefix(s, "text=") }

// parseLocator reads a locator.
func parseLocator(s string) (locator, error) {
	if m := roleLocator.FindStringSubmatch(s); m != nil {
		return locator{Role: m[1], Name: m[2] + m[3]}, nil
	}
	if m := textLocator.FindStringSubmatch(s); m != nil {
		return locator{Text: strings.TrimSpace(m[1] + m[2])}, nil
	}
	return locator{}, fmt.Errorf(`%q is no locator: write role=ROLE, role=ROLE[name="NAME"] or text=TEXT`, s)
}

// jsLocate finds a locator's element, marks it and returns a CSS selector
// of it, or ” when the page has none.
const jsLocate = `((loc) => {
  const norm = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const implicit = (e) => {
    const t = e.tagName.toLowerCase(), ty = (e.getAttribute('type') || '').toLowerCase();
    if (t === 'button' || t === 'summary' || (t === 'input' && ['button', 'submit', 'reset'].includes(ty))) return 'button';
    if (t === 'a' && e.hasAttribute('href')) return 'link';
    if (t === 'input' && ty === 'checkbox') return 'checkbox';
    if (t === 'input' && ty === 'radio') return 'radio';
    if (/^h[1-6]$/.test(t)) return 'heading';
    if (t === 'select') return 'combobox';
    if (t === 'textarea' || (t === 'input' && ['', 'text', 'search', 'email', 'url', 'tel'].includes(ty))) return 'textbox';
    if (t === 'dialog') return 'dialog';
    if (t === 'li') return 'listitem';
    return '';
  };
  const name = (e) => {
    const l = e.getAttribute('aria-label');
    if (l) return norm(l);
    const by = e.getAttribute('aria-labelledby');
    if (by) return norm(by.split(/\s+/).map((id) => document.getElementById(id)?.textContent || '').join(' '));
    if (e.labels && e.labels.length) return norm([...e.labels].map((x) => x.textContent).join(' '));
    if (e.tagName === 'INPUT' && ['button', 'submit', 'reset'].includes(e.type)) return norm(e.value);
    return norm(e.textContent) || norm(e.getAttribute('title'));
  };
  const shown = (e) => !e.closest('[hidden]') && e.getClientRects().length > 0;
  let found;
  if (loc.role) {
    found = [...document.querySelectorAll('body *')].filter((e) => (e.getAttribute('role') || implicit(e)) === loc.role && (loc.name === '' || name(e) === loc.name));
  } else {
    found = [...document.querySelectorAll('body *')].filter((e) => norm(e.textContent) === loc.text && ![...e.children].some((c) => norm(c.textContent) === loc.text));
  }
  const e = found.find(shown) || found[0];
  if (!e) return '';
  if (!e.dataset.harnessLoc) {
    window.__harnessLocs = (window.__harnessLocs || 0) + 1;
    e.dataset.harnessLoc = String(window.__harnessLocs);
  }
  return '[data-harness-loc="' + e.dataset.harnessLoc + '"]';
})`

// locateNow is a CSS selector of what sel names: sel itself, or, for a
// locator, the element it finds now ("" when none).
func locateNow(t *tab, sel string) (string, error) {
	if !isLocator(sel) {
		return sel, nil
	}
	loc, err := parseLocator(sel)
	if err != nil {
		return "", err
	}
	return eval[string](t, jsCall(jsLocate, loc))
}

// locate is locateNow waiting, for a locator, until the page has the
// element.
func (s *session) locate(ctx context.Context, t *tab, sel string) (string, error) {
	if !isLocator(sel) {
		return sel, nil
	}
	var css string
	err := s.poll(ctx, fmt.Sprintf("nothing on the page is %s", sel), func() (bool, error) {
		var err error
		css, err = locateNow(t, sel)
		return css != "", err
	})
	return css, err
}

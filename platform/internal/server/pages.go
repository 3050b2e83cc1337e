package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/banmen/banmen/locales"
	"github.com/banmen/banmen/platform/internal/i18n"
	"github.com/banmen/banmen/platform/internal/room"
	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/webui"
	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/filesystem"
)

// The pages: /{lang}/ (home), /{lang}/{variant}/ (landing and rules) and
// /{lang}/{variant}/play?mode=local|computer (the board) and
// /{lang}/{variant}/room/{room} (a room, Play with a friend). Every string comes from
// locales/; the board's scripts get theirs from a JSON block in the page, so
// the CSP (script-src 'self') holds without any inline script.

// pageNames are the page templates; each defines "content" for the layout.
var pageNames = []string{"home", "landing", "play", "room", "roomgone", "notfound"}

// variantPageNames are those a variant's pages render (withCatalog): home
// and notfound speak the site's catalog only. Every page set is a parse
// tree of the layout, the parts and the page, and the trees are most of
// the host's static heap, which its collector marks on every cycle.
var variantPageNames = []string{"landing", "play", "room", "roomgone"}

// uiPrefixes are the key prefixes the board's scripts need.
var uiPrefixes = []string{"ui.", "seat.", "piece.", "result.", "notice.", "action.", "error.", "option.", "variant.", "moves.", "board.", "notation.", "mode.", "room.", "analysis."}

// pages holds the parsed templates per language, so each language's
// template functions translate without a lookup of the request.
type pages struct {
	cat    *i18n.Catalog
	byLang map[string]map[string]*template.Template
	// static is the URL prefix of the embedded static files, versioned by
	// their content so browsers may cache them for a year.
	static string
}

// block is a paragraph or a bulleted list of a long text: lines starting
// with "- " make a list, blank lines separate blocks.
type block struct {
	List  bool
	Items []string
}

// qa is one question and its answer.
type qa struct{ Q, A string }

func parsePages(cat *i18n.Catalog, static string) (*pages, error) {
	p := &pages{cat: cat, byLang: map[string]map[string]*template.Template{}, static: static}
	for _, lang := range cat.Langs() {
		p.byLang[lang] = map[string]*template.Template{}
		for _, name := range pageNames {
			t, err := template.New(name).Funcs(p.funcs(lang)).ParseFS(webui.Templates(), "layout.html", "parts.html", name+".html")
			if err != nil {
				return nil, err
			}
			p.byLang[lang][name] = t
		}
	}
	return p, nil
}

// withCatalog returns the variant pages (variantPageNames) speaking cat (a
// variant's merged texts): the templates are cloned, not parsed again.
func (p *pages) withCatalog(cat *i18n.Catalog) (*pages, error) {
	q := &pages{cat: cat, byLang: map[string]map[string]*template.Template{}, static: p.static}
	for lang, byName := range p.byLang {
		q.byLang[lang] = map[string]*template.Template{}
		for _, name := range variantPageNames {
			c, err := byName[name].Clone()
			if err != nil {
				return nil, err
			}
			q.byLang[lang][name] = c.Funcs(q.funcs(lang))
		}
	}
	return q, nil
}

func (p *pages) funcs(lang string) template.FuncMap {
	return template.FuncMap{
		"t": func(key string, args ...any) string { return p.cat.T(lang, key, args...) },
		"has": func(key string) bool {
			_, ok := p.cat.Lookup(lang, key)
			return ok
		},
		"blocks": func(key string) []block { return blocks(p.cat.T(lang, key)) },
		// faq collects prefix.1.q/a, prefix.2.q/a, … while they exist.
		"faq": func(prefix string) []qa {
			var out []qa
			for i := 1; ; i++ {
				q, ok := p.cat.Lookup(lang, prefix+"."+strconv.Itoa(i)+".q")
				if !ok {
					return out
				}
				out = append(out, qa{q, p.cat.T(lang, prefix+"."+strconv.Itoa(i)+".a")})
			}
		},
		"static": func(name string) string { return p.static + name },
		"list":   func(xs ...string) []string { return xs },
	}
}

func blocks(text string) []block {
	var out []block
	for _, para := range strings.Split(text, "\n\n") {
		lines := strings.Split(strings.TrimSpace(para), "\n")
		list := true
		for _, l := range lines {
			list = list && strings.HasPrefix(l, "- ")
		}
		if list {
			b := block{List: true}
			for _, l := range lines {
				b.Items = append(b.Items, strings.TrimPrefix(l, "- "))
			}
			out = append(out, b)
		} else {
			out = append(out, block{Items: []string{strings.Join(lines, " ")}})
		}
	}
	return out
}

// pageData is what every page template receives.
type pageData struct {
	Lang        string
	Title       string
	Description string
	Langs       []langLink
	Variants    []variantCard
	Variant     *variantCard
	Board       *boardData
	Mode        string
	// Rooms: whether this host serves online rooms (Play with a friend).
	Rooms bool
	// FriendSoon: rooms are served, but not yet for this variant (see
	// friendModeSoon).
	FriendSoon bool
	// RoomSettings, on a landing page: the settings a new room is created
	// with (roomSettings), asked before Play with a friend creates it.
	RoomSettings []sdk.OptionSpec
	// Approximate: the page's language is only a weak substitute for the
	// one the browser asks for (Simplified for a Traditional Chinese
	// reader), and the page says so.
	Approximate bool
	// VariantEnglish: the variant ships none or not all of its texts in
	// the page's language, so some are in English, and the page says so.
	VariantEnglish bool
	// Inviting, on a room's page just created (?new=1): its invitation
	// is laid out from the start rather than when the welcome comes.
	Inviting bool
}

// langLink is one entry of the language switcher: the same page in another
// language.
type langLink struct {
	Code, Name, Href string
	// Abs is Href as an absolute URL, for the hreflang alternates (search
	// engines want them absolute).
	Abs     string
	Current bool
}

// variantCard is a game as the pages show it. Name and Card are in the
// page's language (the variant's own texts), on the home page.
type variantCard struct {
	ID, NameKey string
	Players     int
	Hands       bool
	Name, Card  string
	// CardLang is set when the card's texts are not in the page's language
	// but in English, the variant's fallback.
	CardLang string
	// Art: the variant has a card picture (Description.Card).
	Art bool
	// Computer: the variant has a computer player (Description.Levels),
	// so the pages offer Vs computer; Levels names them, in the page's
	// language, on a landing page.
	Computer bool
	Levels   string
	// SeatKeys name the seats (Description.Seats), for a seat setting.
	SeatKeys []string
}

// boardData is the JSON the board's scripts read from the page.
type boardData struct {
	Lang       string            `json:"lang"`
	Mode       string            `json:"mode"`
	API        string            `json:"api"`
	StorageKey string            `json:"storageKey"`
	Variant    sdk.Description   `json:"variant"`
	Strings    map[string]string `json:"strings"`
	// Room and Socket, on a room's page: its id and its socket's path.
	Room   string `json:"room,omitempty"`
	Socket string `json:"socket,omitempty"`
	// PingMs, on a room's page: the server's ping interval, by which the
	// page tells a silent connection from a quiet one.
	PingMs int64 `json:"pingMs,omitempty"`
}

func (p *pages) render(c *fiber.Ctx, status int, name string, d pageData) error {
	d.Langs = p.langLinks(c, d.Lang)
	d.Approximate = p.cat.Approximate(d.Lang, c.Get(fiber.HeaderAcceptLanguage))
	t := p.byLang[d.Lang][name]
	if t == nil {
		return fmt.Errorf("page %q is not among these pages' templates", name)
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", d); err != nil {
		return err
	}
	c.Type("html", "utf-8")
	c.Set(fiber.HeaderContentLanguage, d.Lang)
	c.Set(fiber.HeaderVary, fiber.HeaderAcceptLanguage)
	return c.Status(status).Send(buf.Bytes())
}

// langLinks points at the current page in every language: the first path
// segment is the language.
func (p *pages) langLinks(c *fiber.Ctx, cur string) []langLink {
	rest := "/"
	if seg := strings.SplitN(strings.TrimPrefix(c.Path(), "/"), "/", 2); len(seg) == 2 && p.cat.Has(seg[0]) {
		rest = "/" + seg[1]
	}
	if q := string(c.Request().URI().QueryString()); q != "" {
		rest += "?" + q
	}
	var out []langLink
	for _, code := range p.cat.Langs() {
		href := "/" + code + rest
		out = append(out, langLink{Code: code, Name: p.cat.T(code, "lang.name"), Href: href, Abs: c.BaseURL() + href, Current: code == cur})
	}
	return out
}

// pageRoutes adds the static files and the pages. It must stay the last call
// in routes(): it ends with a catch-all that answers every path no earlier
// route took with the HTML "not found" page, in the visitor's language.
func (s *Server) pageRoutes(app *fiber.App) {
	cat, err := i18n.Load(locales.FS)
	if err != nil {
		panic(err) // the locales are embedded: a broken file is a build error
	}
	static := "/static/" + contentHash(webui.Static()) + "/"
	pg, err := parsePages(cat, static)
	if err != nil {
		panic(err) // the templates are embedded too
	}
	// Every variant's pages speak the site's strings merged with its own
	// texts (sdk.Texts): one catalog and one set of templates per variant.
	vcat := map[string]*i18n.Merged{}
	vpg := map[string]*pages{}
	for _, d := range s.visible {
		m := cat.WithTexts(s.texts[d.ID], d.Keys(), sdk.SiteKey)
		s.logTexts(d.ID, m)
		vcat[d.ID] = m
		if vpg[d.ID], err = pg.withCatalog(m.Catalog); err != nil {
			panic(err)
		}
	}
	app.Use(static, filesystem.New(filesystem.Config{Root: httpFS(webui.Static()), MaxAge: 365 * 24 * 3600}))
	app.Use("/static", filesystem.New(filesystem.Config{Root: httpFS(webui.Static()), MaxAge: 3600}))
	app.Get("/favicon.ico", func(c *fiber.Ctx) error { return c.Redirect(static+"favicon.svg", fiber.StatusMovedPermanently) })

	lang := func(c *fiber.Ctx) (string, bool) {
		l := c.Params("lang")
		return l, cat.Has(l)
	}
	find := func(id string) (*variantCard, sdk.Description, bool) {
		for _, d := range s.visible {
			if d.ID == id {
				return card(d), d, true
			}
		}
		return nil, sdk.Description{}, false
	}
	variant := func(c *fiber.Ctx) (*variantCard, sdk.Description, bool) { return find(c.Params("variant")) }
	notFoundPage := func(c *fiber.Ctx) error {
		l, ok := lang(c)
		if !ok {
			l = cat.Match(c.Get(fiber.HeaderAcceptLanguage))
		}
		return pg.render(c, fiber.StatusNotFound, "notfound", pageData{Lang: l, Title: cat.T(l, "notfound.title")})
	}

	app.Get("/", func(c *fiber.Ctx) error {
		return c.Redirect("/"+cat.Match(c.Get(fiber.HeaderAcceptLanguage))+"/", fiber.StatusFound)
	})
	app.Get("/:lang/", func(c *fiber.Ctx) error {
		l, ok := lang(c)
		if !ok {
			// A game without a language ("/shogi/") gets one.
			if _, _, ok := find(c.Params("lang")); ok {
				return c.Redirect("/"+cat.Match(c.Get(fiber.HeaderAcceptLanguage))+"/"+url.PathEscape(c.Params("lang"))+"/", fiber.StatusFound)
			}
			return notFoundPage(c)
		}
		var cards []variantCard
		for _, d := range s.visible {
			v := card(d)
			m := vcat[d.ID]
			v.Name = m.T(l, d.NameKey)
			v.Card, _ = m.Lookup(l, "home.card."+d.ID)
			_, v.Art = s.cards[d.ID]
			if m.English[l] {
				v.CardLang = i18n.Fallback
			}
			cards = append(cards, *v)
		}
		return pg.render(c, fiber.StatusOK, "home", pageData{
			Lang: l, Title: cat.T(l, "home.title"), Description: cat.T(l, "home.meta"), Variants: cards,
		})
	})
	app.Get("/:lang/:variant/", func(c *fiber.Ctx) error {
		l, ok := lang(c)
		v, d, found := variant(c)
		if !ok || !found {
			return notFoundPage(c)
		}
		cat := vcat[v.ID].Catalog
		v.Levels = levelNames(cat, l, d)
		return vpg[v.ID].render(c, fiber.StatusOK, "landing", pageData{
			Lang: l, Variant: v, Rooms: s.rooms != nil && !friendModeSoon(d), FriendSoon: s.rooms != nil && friendModeSoon(d),
			RoomSettings:   roomSettings(d),
			Title:          titleOr(cat, l, "landing."+v.ID+".title", cat.T(l, v.NameKey)+" — Banmen"),
			Description:    titleOr(cat, l, "landing."+v.ID+".meta", ""),
			VariantEnglish: vcat[v.ID].English[l],
		})
	})
	app.Get("/:lang/:variant/play", func(c *fiber.Ctx) error {
		l, ok := lang(c)
		v, d, found := variant(c)
		if !ok || !found {
			return notFoundPage(c)
		}
		m := vcat[v.ID]
		cat := m.Catalog
		name := cat.T(l, v.NameKey)
		mode := c.Query("mode", "local")
		if mode != "local" && mode != "computer" {
			return notFoundPage(c)
		}
		if mode == "computer" && !v.Computer {
			// No computer player (no Levels): an old link plays on one device.
			return c.Redirect("/"+l+"/"+url.PathEscape(v.ID)+"/play?mode=local", fiber.StatusFound)
		}
		// Each mode has its own texts (play.title, play.computer.title, …)
		// and its own saved game, so a computer game never replaces a game
		// on one device.
		prefix := "play."
		if mode == "computer" {
			prefix = "play.computer."
		}
		return vpg[v.ID].render(c, fiber.StatusOK, "play", pageData{
			Lang: l, Variant: v, Mode: mode, VariantEnglish: m.English[l],
			Title: cat.T(l, prefix+"title", "game", name), Description: cat.T(l, prefix+"meta", "game", name),
			Board: &boardData{
				Lang: l, Mode: mode, API: "/api/v1/games/" + d.ID, StorageKey: "banmen." + mode + "." + d.ID,
				Variant: d, Strings: boardStrings(m, l),
			},
		})
	})
	// A room's page. An unknown or expired room (or one of another game)
	// answers 404 with a page that offers a new room.
	app.Get("/:lang/:variant/room/:room", func(c *fiber.Ctx) error {
		l, ok := lang(c)
		v, d, found := variant(c)
		if !ok || !found {
			return notFoundPage(c)
		}
		m := vcat[v.ID]
		cat := m.Catalog
		name := cat.T(l, v.NameKey)
		id := c.Params("room")
		gone := func() error {
			return vpg[v.ID].render(c, fiber.StatusNotFound, "roomgone", pageData{Lang: l, Variant: v, Rooms: s.rooms != nil,
				Title: cat.T(l, "room.gone.title", "game", name)})
		}
		if s.rooms == nil || !room.ValidID(id) {
			return gone()
		}
		r, err := s.rooms.Open(c.UserContext(), id)
		if errors.Is(err, room.ErrNotFound) {
			return gone()
		}
		if err != nil {
			return err
		}
		if rv, _, _ := r.Current(); rv != d.ID {
			return gone()
		}
		// Asked again on every visit (the room may be gone), but not
		// no-store: that keeps the page out of the back/forward cache.
		// The page holds nothing secret (seat keys stay in the browser).
		c.Set(fiber.HeaderCacheControl, "private, no-cache")
		return vpg[v.ID].render(c, fiber.StatusOK, "room", pageData{
			Lang: l, Variant: v, Mode: "room", Rooms: true, VariantEnglish: m.English[l], Inviting: c.Query("new") == "1",
			Title: cat.T(l, "room.title", "game", name), Description: cat.T(l, "room.meta", "game", name),
			Board: &boardData{
				Lang: l, Mode: "room", API: "/api/v1/games/" + d.ID, Variant: d, Strings: boardStrings(m, l),
				Room: id, Socket: "/api/v1/rooms/" + id + "/socket", PingMs: s.cfg.Limits.PingInterval.Milliseconds(),
			},
		})
	})
	app.Use(notFoundPage)
}

// boardStrings are the strings the board's scripts get: the site's
// uiPrefixes, and every text of the variant but its pages'.
func boardStrings(m *i18n.Merged, lang string) map[string]string {
	out := m.Subset(lang, uiPrefixes...)
	for _, k := range m.Own() {
		if !strings.HasPrefix(k, "landing.") && !strings.HasPrefix(k, "home.") {
			out[k], _ = m.Lookup(lang, k)
		}
	}
	return out
}

// logTexts says at start what a variant's texts lack: keys shown as the
// Description's English names, languages partly shown in English, keys
// refused as the site's own.
func (s *Server) logTexts(id string, m *i18n.Merged) {
	if len(m.Named) > 0 {
		s.log.Warn("variant texts: no text for these keys, showing the Description's English names", "variant", id, "keys", m.Named)
	}
	var english []string
	for _, l := range m.Langs() {
		if m.English[l] {
			english = append(english, l)
		}
	}
	if len(english) > 0 {
		s.log.Info("variant texts: some shown in English, the variant's fallback, in these languages", "variant", id, "langs", english)
	}
	if len(m.Refused) > 0 {
		s.log.Warn("variant texts: keys of the site's own texts ignored", "variant", id, "keys", m.Refused)
	}
}

func card(d sdk.Description) *variantCard {
	v := &variantCard{ID: d.ID, NameKey: d.NameKey, Players: len(d.Seats), Hands: d.Hands, Computer: len(d.Levels) > 0}
	for _, s := range d.Seats {
		v.SeatKeys = append(v.SeatKeys, s.NameKey)
	}
	return v
}

// levelNames are d's computer levels as the pages name them (ui.level.*,
// else the level itself), joined as the language lists them.
func levelNames(cat *i18n.Catalog, lang string, d sdk.Description) string {
	names := make([]string, len(d.Levels))
	for i, l := range d.Levels {
		names[i] = titleOr(cat, lang, "ui.level."+string(l), string(l))
	}
	return strings.Join(names, cat.T(lang, "mode.computer.sep"))
}

func titleOr(cat *i18n.Catalog, lang, key, def string) string {
	if _, ok := cat.Lookup(lang, key); ok {
		return cat.T(lang, key)
	}
	return def
}

// contentHash names a version of the static files, so their URLs change
// whenever any of them does.
func contentHash(fsys fs.FS) string {
	h := sha256.New()
	var names []string
	_ = fs.WalkDir(fsys, ".", func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			names = append(names, p)
		}
		return nil
	})
	sort.Strings(names)
	for _, n := range names {
		b, _ := fs.ReadFile(fsys, n)
		h.Write([]byte(n))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:10]
}

// friendModeSoon tells whether the landing page offers Play with a friend
// as coming rather than now: for more than two seats without computer
// seats (no host setting sdk.SettingLevel). Such a room waits for everyone
// to be seated and connected, while a game of more than two promises that
// the computer fills empty seats and plays for whoever is away. Rooms of
// any size stay open to the API and to invitation links.
func friendModeSoon(d sdk.Description) bool {
	_, computer := d.HostSetting(sdk.SettingLevel)
	return len(d.Seats) > 2 && !computer
}

// roomSettings are what Play with a friend asks before it creates a room
// of a variant with host settings: the variant's options and the host
// settings a room applies, without the first seat, which rounds rotate
// (the variant's own first-seat option, if any, is asked). The number of
// people (sdk.SettingHumanSeats) is asked: the room's page stops inviting
// once that many are seated and the host's page starts the game with the
// computer in the other seats. None for a variant without host settings:
// its room is created at once, with the defaults.
func roomSettings(d sdk.Description) []sdk.OptionSpec {
	if len(d.HostSettings) == 0 {
		return nil
	}
	var out []sdk.OptionSpec
	for _, o := range slices.Concat(d.Options, d.HostSettings) {
		if _, computer := d.HostSetting(sdk.SettingLevel); o.Key == sdk.SettingFirstSeat || (o.Key == sdk.SettingHumanSeats && !computer) {
			continue
		}
		out = append(out, o)
	}
	return out
}

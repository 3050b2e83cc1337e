// Package server is the host's HTTP face: the stateless game API, the pages,
// health and metrics. Every route is listed in routes.go; handlers return
// errors and one ErrorHandler turns them into responses.
//
// It must never know a game rule: it passes states and moves between the
// browser and the rules plugins, and reads everything else from the
// variants' Descriptions.
package server

import (
	"context"
	"log/slog"
	"net/netip"
	"slices"
	"strconv"
	"time"

	"github.com/banmen/banmen/platform/internal/config"
	"github.com/banmen/banmen/platform/internal/ratelimit"
	"github.com/banmen/banmen/platform/internal/room"
	"github.com/banmen/banmen/platform/internal/socket"
	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/host"
	"github.com/gofiber/fiber/v2"
)

// Games is what the server needs of the plugin host.
type Games interface {
	Descriptions() []sdk.Description
	Description(id string) (sdk.Description, bool)
	Call(ctx context.Context, variant, call string, fn func(context.Context, *host.Conn) error) error
}

// Deps are the server's collaborators.
type Deps struct {
	Games   Games
	Config  config.Config
	Logger  *slog.Logger
	Metrics *Metrics
	// Rooms, when set, serves online rooms (POST /api/v1/rooms and the
	// room sockets).
	Rooms *room.Manager
	// Analysis, when set, serves game analysis (POST
	// /api/v1/games/{variant}/analyse) on plugin processes of its own,
	// apart from the ones rooms use (see analyse.go); AnalysisSlots is
	// how many analyses may run at once (default 2).
	Analysis      Analysts
	AnalysisSlots int
	// StateKey signs the States the stateless API hands out; empty: a
	// random key for this server's life.
	StateKey []byte
}

// Server holds the deps the handlers share.
type Server struct {
	games   Games
	cfg     config.Config
	log     *slog.Logger
	metrics *Metrics
	// visible are the variants the site shows, in the configured order,
	// without their Texts (public).
	visible []sdk.Description
	// texts are each variant's own strings, merged into its pages.
	texts map[string]sdk.Texts
	// cards are the variants' home card pictures, sanitized (none: no
	// entry); public the Descriptions as clients get them (public).
	cards  map[string]string
	public map[string]sdk.Description
	// drawings counts the piece drawings sanitized, for their id prefixes.
	drawings int

	rooms       *room.Manager
	sockets     *socket.Handler
	createLimit *ratelimit.Limiter

	analysts Analysts // nil: no analysis
	analysis *analysis

	// states signs the stateless API's States; proxies are the trusted
	// proxies; the limiters are per client address (addrKey).
	states                                         stateSigner
	proxies                                        []netip.Prefix
	apiLimit, suggestLimit, socketLimit, roomLimit *ratelimit.Limiter
}

// New builds the Fiber app with every route and middleware.
func New(d Deps) *fiber.App {
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	if d.Metrics == nil {
		d.Metrics = NewMetrics()
	}
	l := d.Config.Limits
	s := &Server{games: d.Games, cfg: d.Config, log: d.Logger, metrics: d.Metrics,
		states: newStateSigner(d.StateKey), proxies: parseProxies(d.Config.TrustedProxies),
		apiLimit:     ratelimit.New(l.APICallsPerMinute, l.APICallsPerMinute, nil),
		suggestLimit: ratelimit.New(l.SuggestsPerMinute, l.SuggestsPerMinute, nil),
		socketLimit:  ratelimit.New(l.SocketsPerMinute, l.SocketsPerMinute, nil),
		roomLimit:    ratelimit.New(l.RoomsPerMinute, l.RoomsPerMinute, nil),
		analysts:     d.Analysis, analysis: newAnalysis(d.AnalysisSlots)}
	s.texts = map[string]sdk.Texts{}
	s.cards = map[string]string{}
	s.public = map[string]sdk.Description{}
	for _, v := range d.Games.Descriptions() {
		s.texts[v.ID] = v.Texts
		s.public[v.ID] = s.looks(v)
	}
	s.visible = visibleVariants(d.Games, d.Config.Variants)
	for i := range s.visible {
		s.visible[i] = s.public[s.visible[i].ID]
	}
	s.logHidden(d.Config.Variants)
	if d.Rooms != nil {
		s.rooms = d.Rooms
		// Rooms created are limited per address by roomLimit (routes.go),
		// which groups IPv6 by /64 and knows the trusted proxies: this
		// one allows all.
		s.createLimit = ratelimit.New(0, 0, nil)
		s.sockets = socket.New(socket.Config{Rooms: d.Rooms, Logger: d.Logger, Origins: d.Config.Origins,
			FrameBytes: l.FrameBytes, Queue: l.SocketQueue, Burst: l.SocketBurst, Rate: l.SocketRate,
			PingInterval: l.PingInterval, WrongKeysPerMinute: l.WrongKeysPerMinute})
	}
	app := fiber.New(fiber.Config{
		AppName:               "banmen",
		BodyLimit:             d.Config.Limits.BodyBytes,
		ErrorHandler:          s.errorHandler,
		DisableStartupMessage: true,
		ReadTimeout:           30 * time.Second,
		WriteTimeout:          30 * time.Second,
		IdleTimeout:           120 * time.Second,
		// X-Forwarded-* are read from the trusted proxies only (none by
		// default): never X-Forwarded-Host from a client.
		EnableTrustedProxyCheck: true,
		TrustedProxies:          d.Config.TrustedProxies,
		ProxyHeader:             proxyHeader(d.Config),
	})
	s.routes(app)
	if s.sockets != nil {
		// Hijacked sockets are not the HTTP server's to wait for: close
		// them (1001) and wait for their handlers.
		app.Hooks().OnShutdown(func() error { s.sockets.Shutdown(); return nil })
	}
	return app
}

// proxyHeader is the header Fiber reads the client's address from: none
// without trusted proxies.
func proxyHeader(c config.Config) string {
	if len(c.TrustedProxies) == 0 {
		return ""
	}
	return c.ProxyHeader
}

// NewOps is the operations app, served on its own address
// (config ops_addr): /metrics and /healthz, apart from the site.
func NewOps(d Deps) *fiber.App {
	if d.Metrics == nil {
		d.Metrics = NewMetrics()
	}
	app := fiber.New(fiber.Config{AppName: "banmen-ops", DisableStartupMessage: true,
		ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second})
	s := &Server{games: d.Games}
	app.Get("/healthz", s.healthz)
	app.Get("/metrics", d.Metrics.handler())
	return app
}

// visibleVariants orders the served variants as configured; an empty list
// shows them all.
func visibleVariants(g Games, order []string) []sdk.Description {
	if len(order) == 0 {
		return slices.Clone(g.Descriptions())
	}
	var out []sdk.Description
	for _, id := range order {
		if d, ok := g.Description(id); ok {
			out = append(out, d)
		}
	}
	return out
}

// looks returns a Description as browsers and API clients get it: without
// its Texts, which the host merges into the pages instead, and its Card,
// served on its own; with its pieces' drawings sanitized. A card or a
// drawing that fails sdk.SanitizeSVG is dropped (a plain card, the glyph
// token) and logged.
func (s *Server) looks(d sdk.Description) sdk.Description {
	d.Texts = nil
	if d.Card != "" {
		if c, err := sdk.SanitizeSVG(d.Card, false, sdk.CardBudget); err != nil {
			s.log.Warn("variant looks: card picture refused", "variant", d.ID, "err", err)
		} else {
			s.cards[d.ID] = c
		}
		d.Card = ""
	}
	drawings := func(what string, in []string) []string {
		var out []string
		for _, src := range in {
			// Each drawing's ids get a prefix of their own: drawings are put
			// into the page's markup, whose ids they must not reuse.
			s.drawings++
			c, err := sdk.SanitizeSVGPrefixed(src, true, sdk.DrawingBudget, "svg"+strconv.Itoa(s.drawings)+"-")
			if err != nil {
				s.log.Warn("variant looks: piece drawing refused, drawn as a token", "variant", d.ID, "piece", what, "err", err)
				return nil
			}
			out = append(out, c)
		}
		return out
	}
	d.Pieces = slices.Clone(d.Pieces)
	for i, p := range d.Pieces {
		if len(p.Drawing) > 0 {
			d.Pieces[i].Drawing = drawings(p.ID, p.Drawing)
		}
		if p.Promoted != nil && len(p.Promoted.Drawing) > 0 {
			pf := *p.Promoted
			pf.Drawing = drawings(p.ID+"+", pf.Drawing)
			d.Pieces[i].Promoted = &pf
		}
	}
	return d
}

// logHidden names, at start, the variants a plugin serves that the
// configuration's variants list leaves off the site: their pages answer
// 404 and the home page does not list them, while their API stays open to
// programs (and to rooms already made). Listed variants no plugin serves
// are named too.
func (s *Server) logHidden(order []string) {
	if len(order) == 0 {
		return
	}
	for _, d := range s.games.Descriptions() {
		if !slices.Contains(order, d.ID) {
			s.log.Warn("variant loaded but not in the configuration's variants list: not shown on the site, its API answers", "variant", d.ID)
		}
	}
	for _, id := range order {
		if _, ok := s.games.Description(id); !ok {
			s.log.Warn("variant in the configuration's variants list but served by no plugin", "variant", id)
		}
	}
}

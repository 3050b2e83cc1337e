package server

import (
	"context"
	"mime"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/banmen/banmen/platform/internal/pluginhost"
	"github.com/banmen/banmen/platform/internal/ratelimit"
	"github.com/banmen/banmen/platform/internal/socket"
	"github.com/gofiber/fiber/v2"
)

// What guards the site against anonymous traffic: POSTs only from its own
// pages (or from programs, which send no Origin), the client's address as
// the trusted proxies say, per-address token buckets, and the class of
// the plugin processes a call may use.

// sameSite refuses a POST that a page of another site could send through
// its visitors' browsers with no preflight: a body that is not
// application/json (a form, a no-cors fetch of text/plain), or an Origin
// (or Sec-Fetch-Site) of another site. A program that sends neither header
// is no browser and is let through.
func (s *Server) sameSite(c *fiber.Ctx) error {
	if c.Method() != fiber.MethodPost {
		return c.Next()
	}
	mt, _, err := mime.ParseMediaType(c.Get(fiber.HeaderContentType))
	if err != nil || mt != fiber.MIMEApplicationJSON {
		return &apiError{fiber.StatusUnsupportedMediaType, "unsupported_media_type", "POST bodies must be sent as Content-Type: application/json"}
	}
	if site := c.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "same-site" && site != "none" {
		return crossSite
	}
	if o := c.Get(fiber.HeaderOrigin); o != "" && !s.ownOrigin(c, o) {
		return crossSite
	}
	return c.Next()
}

var crossSite = &apiError{fiber.StatusForbidden, "cross_site", "this API answers the site's own pages (or programs), not pages of other sites"}

// ownOrigin reports whether origin is the site's: the configured public
// URL or origins, else the host the request was sent to.
func (s *Server) ownOrigin(c *fiber.Ctx, origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	for _, o := range s.cfg.Origins {
		if strings.EqualFold(o, origin) {
			return true
		}
	}
	if s.cfg.PublicURL != "" {
		p, _ := url.Parse(s.cfg.PublicURL)
		return strings.EqualFold(p.Scheme, u.Scheme) && strings.EqualFold(p.Host, u.Host)
	}
	return strings.EqualFold(u.Host, string(c.Request().Host()))
}

// baseURL is the site's address for links sent elsewhere (invitations):
// public_url when set, else the scheme and Host of the request. Fiber
// honours X-Forwarded-Proto and X-Forwarded-Host from trusted proxies
// only (Config.EnableTrustedProxyCheck is always on).
func (s *Server) baseURL(c *fiber.Ctx) string {
	if s.cfg.PublicURL != "" {
		return strings.TrimSuffix(s.cfg.PublicURL, "/")
	}
	return c.BaseURL()
}

// clientAddr is the client's address: the connection's, or, from a
// trusted proxy, the last address in the proxy header that is not itself
// a trusted proxy (the leftmost entries are the client's to write).
func (s *Server) clientAddr(c *fiber.Ctx) netip.Addr {
	peer, _ := netip.ParseAddr(c.Context().RemoteIP().String())
	peer = peer.Unmap()
	if len(s.proxies) == 0 || !s.trusted(peer) {
		return peer
	}
	hops := strings.Split(c.Get(s.cfg.ProxyHeader), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break
		}
		if a = a.Unmap(); !s.trusted(a) {
			return a
		}
	}
	return peer
}

func (s *Server) trusted(a netip.Addr) bool {
	for _, p := range s.proxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// parseProxies reads trusted_proxies (addresses or CIDR ranges, checked
// by config).
func parseProxies(list []string) []netip.Prefix {
	var out []netip.Prefix
	for _, p := range list {
		if pf, err := netip.ParsePrefix(p); err == nil {
			out = append(out, pf.Masked())
		} else if a, err := netip.ParseAddr(p); err == nil {
			out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
		}
	}
	return out
}

// addrKey is the key of an address in the rate-limit tables: an IPv4
// address itself, an IPv6 address by its /64, which one subscriber
// usually holds whole.
func addrKey(a netip.Addr) string {
	a = a.Unmap()
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.String()
	}
	return a.String()
}

// clientKey is the request's key in the rate-limit tables.
func (s *Server) clientKey(c *fiber.Ctx) string { return addrKey(s.clientAddr(c)) }

// clientKeyForSocket hands the socket the client's key, for its
// wrong-key budget: the same address the other limits count.
func (s *Server) clientKeyForSocket(c *fiber.Ctx) error {
	c.Locals(socket.ClientKey, s.clientKey(c))
	return c.Next()
}

// limit spends one of the client's tokens in l, or answers 429 with
// Retry-After.
func (s *Server) limit(l *ratelimit.Limiter, code, msg string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if !l.Allow(s.clientKey(c)) {
			c.Set(fiber.HeaderRetryAfter, strconv.Itoa(l.RetryAfter()))
			return &apiError{fiber.StatusTooManyRequests, code, msg}
		}
		return c.Next()
	}
}

// admit takes the request's place in the plugin processes of anonymous
// calls (games that can: the plugin host) before its body is decoded, or
// answers 503 busy at once when they are full. Only as many requests as
// those processes take at once are decoded; the place is the one the
// request's plugin call then uses, and is freed when the request ends.
func (s *Server) admit(call string) fiber.Handler {
	type admitter interface {
		Admit(ctx context.Context, variant, call string) (context.Context, func(), error)
	}
	return func(c *fiber.Ctx) error {
		a, ok := s.games.(admitter)
		if !ok {
			return c.Next()
		}
		ctx, release, err := a.Admit(c.UserContext(), variantOf(c), call)
		if err != nil {
			return err
		}
		defer release()
		c.SetUserContext(ctx)
		return c.Next()
	}
}

// anonymous marks the request's plugin calls as class API: they go to
// the plugin processes that rooms do not use, which admit a bounded
// number at once.
func anonymous(c *fiber.Ctx) error {
	c.SetUserContext(pluginhost.WithClass(c.UserContext(), pluginhost.API))
	return c.Next()
}

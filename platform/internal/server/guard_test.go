package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/banmen/banmen/platform/client"
	"github.com/banmen/banmen/platform/internal/config"
	"github.com/banmen/banmen/platform/internal/pluginhost"
	"github.com/banmen/banmen/platform/internal/ratelimit"
	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/examples/tictactoe"
	"github.com/gofiber/fiber/v2"
)

// post sends a POST to the site with the given headers and returns the
// status and the error code of the answer, if any.
func post(t *testing.T, url, path, body string, hdr map[string]string) (int, string, http.Header) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url+path, strings.NewReader(body))
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var e errorBody
	_ = json.Unmarshal(b, &e)
	return res.StatusCode, e.Error.Code, res.Header
}

var jsonType = map[string]string{"Content-Type": "application/json"}

// TestCrossSitePostRefused: a POST a page of another site can send with no
// preflight (text/plain, a form) is refused before any handler runs, and
// so is a JSON one whose Origin or Sec-Fetch-Site names another site. The
// site's own pages and programs (no Origin) are served.
func TestCrossSitePostRefused(t *testing.T) {
	s := newSite(t, nil)
	body := `{"variant":"tictactoe"}`
	for _, c := range []struct {
		name   string
		hdr    map[string]string
		status int
		code   string
	}{
		{"text/plain from another site", map[string]string{"Content-Type": "text/plain", "Origin": "http://evil.example"}, 415, "unsupported_media_type"},
		{"text/plain with no origin", map[string]string{"Content-Type": "text/plain;charset=UTF-8"}, 415, "unsupported_media_type"},
		{"a form", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, 415, "unsupported_media_type"},
		{"JSON from another origin", map[string]string{"Content-Type": "application/json", "Origin": "http://evil.example"}, 403, "cross_site"},
		{"JSON, Sec-Fetch-Site cross-site", map[string]string{"Content-Type": "application/json", "Sec-Fetch-Site": "cross-site"}, 403, "cross_site"},
		{"JSON from the site's own page", map[string]string{"Content-Type": "application/json; charset=utf-8", "Origin": s.url, "Sec-Fetch-Site": "same-origin"}, 201, ""},
		{"JSON from a program", jsonType, 201, ""},
	} {
		status, code, _ := post(t, s.url, "/api/v1/rooms", body, c.hdr)
		if status != c.status || code != c.code {
			t.Errorf("%s: %d %q, want %d %q", c.name, status, code, c.status, c.code)
		}
	}
}

// TestAddrKeyIPv6Per64: the rate-limit tables hold an IPv6 client by its
// /64 (one subscriber's), an IPv4 one (mapped or not) by its address.
func TestAddrKeyIPv6Per64(t *testing.T) {
	key := func(s string) string { return addrKey(netip.MustParseAddr(s)) }
	if a, b := key("2001:db8:1:2::1"), key("2001:db8:1:2:ffff:ffff:ffff:ffff"); a != b {
		t.Errorf("one /64: %s and %s", a, b)
	}
	if a, b := key("2001:db8:1:2::1"), key("2001:db8:1:3::1"); a == b {
		t.Errorf("two /64s share %s", a)
	}
	if a, b := key("192.0.2.1"), key("::ffff:192.0.2.1"); a != b || a != "192.0.2.1" {
		t.Errorf("IPv4: %s and %s", a, b)
	}
	// A whole /64 spends one bucket.
	l := ratelimit.New(2, 2, nil)
	for i, a := range []string{"2001:db8::1", "2001:db8::2", "2001:db8::3"} {
		if got := l.Allow(key(a)); got != (i < 2) {
			t.Errorf("call %d from %s allowed=%v", i+1, a, got)
		}
	}
	if !l.Allow(key("2001:db8:0:1::1")) {
		t.Error("another /64 was refused")
	}
}

// TestTrustedProxies: without trusted proxies X-Forwarded-For is a
// client's word and is ignored (every call is the connection's address);
// with the proxy trusted, each client is the last address the proxy
// added, whatever the client wrote before it.
func TestTrustedProxies(t *testing.T) {
	create := func(s *site, xff string) int {
		status, _, _ := post(t, s.url, "/api/v1/rooms", `{"variant":"tictactoe"}`,
			map[string]string{"Content-Type": "application/json", "X-Forwarded-For": xff})
		return status
	}
	off := newSite(t, func(c *config.Config) { c.Limits.RoomsPerMinute = 1 })
	if a, b := create(off, "198.51.100.1"), create(off, "198.51.100.2"); a != 201 || b != 429 {
		t.Errorf("trusted proxies off: %d then %d, want 201 then 429 (one address)", a, b)
	}
	on := newSite(t, func(c *config.Config) {
		c.Limits.RoomsPerMinute = 1
		c.TrustedProxies = []string{"127.0.0.0/8"}
	})
	if a, b := create(on, "198.51.100.1"), create(on, "198.51.100.1"); a != 201 || b != 429 {
		t.Errorf("trusted proxies on, one client: %d then %d, want 201 then 429", a, b)
	}
	if a := create(on, "198.51.100.2"); a != 201 {
		t.Errorf("trusted proxies on, another client: %d, want 201", a)
	}
	// The client wrote "198.51.100.3" itself; the proxy appended its
	// real address, 198.51.100.1, which has spent its token.
	if a := create(on, "198.51.100.3, 198.51.100.1"); a != 429 {
		t.Errorf("a client's own X-Forwarded-For entry was believed: %d, want 429", a)
	}
}

// TestInviteURL: the invitation link is built from public_url when set,
// and never from X-Forwarded-Host (no proxy is trusted by default).
func TestInviteURL(t *testing.T) {
	invite := func(s *site) string {
		req, _ := http.NewRequest(http.MethodPost, s.url+"/api/v1/rooms", strings.NewReader(`{"variant":"tictactoe"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Forwarded-Host", "evil.example")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var cr createRoomResponse
		json.NewDecoder(res.Body).Decode(&cr)
		return cr.Invite
	}
	s := newSite(t, nil)
	if got := invite(s); !strings.HasPrefix(got, s.url+"/en/tictactoe/room/") {
		t.Errorf("invite %q, want it on %s", got, s.url)
	}
	p := newSite(t, func(c *config.Config) { c.PublicURL = "https://banmen.example" })
	if got := invite(p); !strings.HasPrefix(got, "https://banmen.example/en/tictactoe/room/") {
		t.Errorf("invite %q, want it on public_url", got)
	}
}

// TestAnswerCap: an answer longer than limits.answer_bytes is refused.
func TestAnswerCap(t *testing.T) {
	cfg := config.Default()
	cfg.Limits.AnswerBytes = 100
	s := &Server{cfg: cfg}
	app := fiber.New(fiber.Config{ErrorHandler: s.errorHandler})
	app.Get("/small", func(c *fiber.Ctx) error { return s.answer(c, fiber.Map{"text": "short"}) })
	app.Get("/big", func(c *fiber.Ctx) error { return s.answer(c, fiber.Map{"text": strings.Repeat("x", 200)}) })
	for path, want := range map[string]int{"/small": 200, "/big": 422} {
		res, err := app.Test(httptest.NewRequest(http.MethodGet, path, nil))
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode != want {
			t.Errorf("%s: %d, want %d", path, res.StatusCode, want)
		}
	}
}

// fullGames is a plugin host whose anonymous processes are full.
type fullGames struct{ fakeGames }

func (fullGames) Admit(ctx context.Context, variant, call string) (context.Context, func(), error) {
	return ctx, nil, &pluginhost.BusyError{Variant: variant, Call: call}
}

// TestBusyBeforeDecoding: when the plugin host says the anonymous
// processes are full, a game call is answered 503 busy with Retry-After at
// once, before its body is even decoded (this one is not JSON).
func TestBusyBeforeDecoding(t *testing.T) {
	games := fullGames{fakeGames{ds: []sdk.Description{tictactoe.Variant{}.Describe()}}}
	app := New(Deps{Games: games, Config: config.Default()})
	req := httptest.NewRequest(http.MethodPost, "/api/v1/games/tictactoe/import", strings.NewReader("not JSON"))
	req.Header.Set("Content-Type", "application/json")
	res, err := app.Test(req)
	if err != nil {
		t.Fatal(err)
	}
	var e errorBody
	json.NewDecoder(res.Body).Decode(&e)
	if res.StatusCode != 503 || e.Error.Code != "busy" || res.Header.Get("Retry-After") == "" {
		t.Errorf("%d %q Retry-After %q, want 503 busy with Retry-After", res.StatusCode, e.Error.Code, res.Header.Get("Retry-After"))
	}
}

// TestWrongKeysPerClientBehindProxy: behind a trusted proxy the wrong-key
// budget is each client's, not the proxy's: one client spending it does
// not make another's wrong key a 4029.
func TestWrongKeysPerClientBehindProxy(t *testing.T) {
	s := newSite(t, func(c *config.Config) {
		c.Limits.WrongKeysPerMinute = 2
		c.TrustedProxies = []string{"127.0.0.1"}
	})
	c := s.client()
	cr, err := c.CreateRoom(ctxT(t), "tictactoe", nil)
	if err != nil {
		t.Fatal(err)
	}
	wrong := func(addr string) int {
		p := c.Player(cr.Room, "wrong")
		p.Header = http.Header{"X-Forwarded-For": {addr}}
		return client.ClosedWith(p.Connect(ctxT(t)))
	}
	for range 2 {
		if got := wrong("198.51.100.1"); got != 4003 {
			t.Fatalf("wrong key: %d", got)
		}
	}
	if got := wrong("198.51.100.1"); got != 4029 {
		t.Errorf("the first client's third wrong key: %d, want 4029", got)
	}
	if got := wrong("198.51.100.2"); got != 4003 {
		t.Errorf("another client behind the same proxy: %d, want 4003", got)
	}
}

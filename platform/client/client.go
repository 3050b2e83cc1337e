// Package client is a small Go client of Banmen's public HTTP API (v1): the
// variants a site offers and the stateless game calls (start, play, view,
// suggest, export, import). The browser harness and load tools use it; any
// program may.
//
// The client knows no game rule and keeps no game: like the browser, it holds
// the opaque State a call returned and sends it back with the next one. It
// must never import the host's internal packages or a plugin: it sees a site
// only through its published API (docs/protocol.md).
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/banmen/banmen/sdk"
)

// Client calls one Banmen site. The zero value is not usable; use New.
type Client struct {
	base string
	http *http.Client
}

// New returns a client of the site at base ("http://localhost:8080"). A nil
// hc means a client with a 30 s timeout, longer than the host's own limits on
// a call, so the host's answer (a 504) arrives before ours gives up.
func New(base string, hc *http.Client) *Client {
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	return &Client{base: strings.TrimRight(base, "/"), http: hc}
}

// Base is the site's address as given to New, without a trailing slash.
func (c *Client) Base() string { return c.base }

// Game is the answer of the calls that return a game: the State to send back
// next time and the View that describes it.
type Game struct {
	State sdk.State `json:"state"`
	View  sdk.View  `json:"view"`
}

// Error is a refusal by the site, decoded from its error body. Code is stable
// for programs ("illegal_move", "unknown_variant"); Key is the i18n key of a
// rule error; Status is the HTTP status.
type Error struct {
	Status  int
	Code    string
	Key     string
	Message string
	// RetryAfter is the server's Retry-After on a 503, zero otherwise.
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("banmen: %d %s", e.Status, e.Code)
	}
	return fmt.Sprintf("banmen: %d %s: %s", e.Status, e.Code, e.Message)
}

// AsError reports whether err is (or wraps) an *Error and returns it.
func AsError(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

// IsCode reports whether err is a refusal with the given code.
func IsCode(err error, code string) bool {
	e, ok := AsError(err)
	return ok && e.Code == code
}

// Variants lists the Descriptions of the variants the site shows, in its order.
func (c *Client) Variants(ctx context.Context) ([]sdk.Description, error) {
	var out []sdk.Description
	if err := c.do(ctx, http.MethodGet, "/api/v1/variants", nil, &out); err != nil {
		return nil, fmt.Errorf("variants: %w", err)
	}
	return out, nil
}

// Variant returns the Description of one variant.
func (c *Client) Variant(ctx context.Context, id string) (sdk.Description, error) {
	var out sdk.Description
	if err := c.do(ctx, http.MethodGet, "/api/v1/variants/"+url.PathEscape(id), nil, &out); err != nil {
		return out, fmt.Errorf("variant %s: %w", id, err)
	}
	return out, nil
}

// Start begins a game of variant with the given options (nil: the defaults).
func (c *Client) Start(ctx context.Context, variant string, opts sdk.Options) (Game, error) {
	body := struct {
		Options sdk.Options `json:"options,omitempty"`
	}{opts}
	return c.game(ctx, variant, "start", body)
}

// Play sends seat's move and returns the game after it.
func (c *Client) Play(ctx context.Context, variant string, s sdk.State, seat sdk.Seat, m sdk.Move) (Game, error) {
	body := struct {
		State sdk.State `json:"state"`
		Seat  sdk.Seat  `json:"seat"`
		Move  sdk.Move  `json:"move"`
	}{s, seat, m}
	return c.game(ctx, variant, "play", body)
}

// View describes a game without changing it.
func (c *Client) View(ctx context.Context, variant string, s sdk.State) (Game, error) {
	body := struct {
		State sdk.State `json:"state"`
	}{s}
	return c.game(ctx, variant, "view", body)
}

// Suggest asks the computer player for seat's move at level. A positive
// think bounds its time below the site's own limit.
func (c *Client) Suggest(ctx context.Context, variant string, s sdk.State, seat sdk.Seat, level sdk.Level, think time.Duration) (sdk.Move, error) {
	body := struct {
		State       sdk.State `json:"state"`
		Seat        sdk.Seat  `json:"seat"`
		Level       sdk.Level `json:"level"`
		ThinkMillis int       `json:"thinkMillis,omitempty"`
	}{s, seat, level, int(think / time.Millisecond)}
	var out struct {
		Move sdk.Move `json:"move"`
	}
	if err := c.do(ctx, http.MethodPost, gamePath(variant, "suggest"), body, &out); err != nil {
		return "", fmt.Errorf("suggest %s: %w", variant, err)
	}
	return out.Move, nil
}

// Export writes the game in format, one of the Description's notations.
func (c *Client) Export(ctx context.Context, variant string, s sdk.State, format string) (string, error) {
	body := struct {
		State  sdk.State `json:"state"`
		Format string    `json:"format"`
	}{s, format}
	var out struct {
		Text string `json:"text"`
	}
	if err := c.do(ctx, http.MethodPost, gamePath(variant, "export"), body, &out); err != nil {
		return "", fmt.Errorf("export %s %s: %w", variant, format, err)
	}
	return out.Text, nil
}

// Import reads a game or a position written in format.
func (c *Client) Import(ctx context.Context, variant, format, text string) (Game, error) {
	body := struct {
		Format string `json:"format"`
		Text   string `json:"text"`
	}{format, text}
	return c.game(ctx, variant, "import", body)
}

func (c *Client) game(ctx context.Context, variant, call string, body any) (Game, error) {
	var g Game
	if err := c.do(ctx, http.MethodPost, gamePath(variant, call), body, &g); err != nil {
		return Game{}, fmt.Errorf("%s %s: %w", call, variant, err)
	}
	return g, nil
}

func gamePath(variant, call string) string {
	return "/api/v1/games/" + url.PathEscape(variant) + "/" + call
}

// do sends one request and decodes the answer into out, or the error body
// into an *Error.
func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	var rd io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	res, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	// Bodies are bounded by the host; the cap only guards against a
	// misconfigured proxy streaming something else.
	b, err := io.ReadAll(io.LimitReader(res.Body, 64<<20))
	if err != nil {
		return err
	}
	if res.StatusCode/100 != 2 {
		return decodeError(res, b)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("decode %s answer: %w", path, err)
	}
	return nil
}

func decodeError(res *http.Response, b []byte) error {
	e := &Error{Status: res.StatusCode}
	var body struct {
		Error struct {
			Code    string `json:"code"`
			Key     string `json:"key"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(b, &body) == nil && body.Error.Code != "" {
		e.Code, e.Key, e.Message = body.Error.Code, body.Error.Key, body.Error.Message
	} else {
		// Not the API's shape (a proxy's page): keep a short excerpt.
		e.Code = "http_" + fmt.Sprint(res.StatusCode)
		e.Message = strings.TrimSpace(string(b[:min(len(b), 200)]))
	}
	if s := res.Header.Get("Retry-After"); s != "" {
		var secs int
		if _, err := fmt.Sscan(s, &secs); err == nil {
			e.RetryAfter = time.Duration(secs) * time.Second
		}
	}
	return e
}

// Package webdriver is a small client of the W3C WebDriver protocol (the
// "classic" one: JSON over HTTP), as WebKitWebDriver serves it for
// WebKitGTK. It knows commands only as methods, paths and JSON; the
// harness's WebKit engine says which it sends.
//
// Every answer is a JSON object {"value": ...}. A failed command has an
// HTTP error status and a value {"error": "no such element", "message":
// "...", "stacktrace": "..."}; Decode reads one answer and rejects anything
// else.
//
// See https://w3c.github.io/webdriver/ for the commands.
package webdriver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Error is a command the remote end refused: its error code ("javascript
// error", "no such window") and message.
type Error struct {
	Status  int
	Code    string
	Message string
}

func (e *Error) Error() string {
	if e.Message == "" {
		return e.Code
	}
	return e.Code + ": " + strings.TrimSpace(e.Message)
}

// maxAnswer bounds an answer: a screenshot of a large page is a few MB.
const maxAnswer = 64 << 20

// Decode reads one answer of HTTP status status: the value of a success,
// or an *Error. An answer that is not a JSON object with a value, or an
// error status without an error code, is an error of its own.
func Decode(status int, body []byte) (json.RawMessage, error) {
	var a map[string]json.RawMessage
	if err := json.Unmarshal(body, &a); err != nil {
		return nil, fmt.Errorf("webdriver: an answer that is not a JSON object (HTTP %d): %w", status, err)
	}
	v, ok := a["value"]
	if !ok {
		return nil, fmt.Errorf("webdriver: an answer with no value (HTTP %d)", status)
	}
	if status >= 200 && status < 300 {
		return v, nil
	}
	var e struct {
		Error   string `json:"error"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(v, &e); err != nil || e.Error == "" {
		return nil, fmt.Errorf("webdriver: HTTP %d with no error code", status)
	}
	return nil, &Error{Status: status, Code: e.Error, Message: e.Message}
}

// Client talks to one WebDriver server.
type Client struct {
	Base string // "http://127.0.0.1:4444"
	HTTP *http.Client
}

// Do sends a command (body nil for none) and decodes the answer's value
// into out (nil to drop it).
func (c *Client) Do(ctx context.Context, method, path string, body, out any) error {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		r = bytes.NewReader(b)
	} else if method == http.MethodPost {
		r = strings.NewReader("{}")
	}
	req, err := http.NewRequestWithContext(ctx, method, c.Base+path, r)
	if err != nil {
		return err
	}
	if r != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	res, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, maxAnswer))
	if err != nil {
		return err
	}
	v, err := Decode(res.StatusCode, b)
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(v, out); err != nil {
		return fmt.Errorf("webdriver: %s %s: %w", method, path, err)
	}
	return nil
}

// Session is one session of a Client: its commands are under
// /session/{id}.
type Session struct {
	C  *Client
	ID string
}

// NewSession creates a session with the capabilities asked (alwaysMatch)
// and returns it with the capabilities the remote end gave.
func (c *Client) NewSession(ctx context.Context, caps map[string]any) (*Session, json.RawMessage, error) {
	var r struct {
		SessionID    string          `json:"sessionId"`
		Capabilities json.RawMessage `json:"capabilities"`
	}
	if err := c.Do(ctx, http.MethodPost, "/session", map[string]any{"capabilities": map[string]any{"alwaysMatch": caps}}, &r); err != nil {
		return nil, nil, err
	}
	if r.SessionID == "" {
		return nil, nil, errors.New("webdriver: new session: no session id")
	}
	return &Session{C: c, ID: r.SessionID}, r.Capabilities, nil
}

// Do sends a command of the session: path is what follows /session/{id}.
func (s *Session) Do(ctx context.Context, method, path string, body, out any) error {
	return s.C.Do(ctx, method, "/session/"+s.ID+path, body, out)
}

// Delete ends the session (the browser quits).
func (s *Session) Delete(ctx context.Context) error {
	return s.C.Do(ctx, http.MethodDelete, "/session/"+s.ID, nil, nil)
}

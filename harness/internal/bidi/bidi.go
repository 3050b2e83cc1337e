// Package bidi is a small WebDriver BiDi client: the JSON messages of the
// W3C protocol over one WebSocket, as Firefox serves it when started with
// --remote-debugging-port. It knows commands and events only as names and
// JSON; the harness's Firefox engine says which it sends.
//
// A command is {"id": N, "method": "module.command", "params": {...}}. The
// browser answers each with {"type": "success", "id": N, "result": {...}}
// or {"type": "error", "id": N, "error": "...", "message": "..."}, and sends
// events as {"type": "event", "method": "module.event", "params": {...}}.
// Decode reads one such message and rejects anything else.
//
// See https://w3c.github.io/webdriver-bidi/ for the commands.
package bidi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/fasthttp/websocket"
)

// Message is one message from the browser: a command's answer or an event.
type Message struct {
	Type string `json:"type"` // "success", "error" or "event"
	// ID is the command answered (success, error); nil for events and for
	// an error about a message that had no usable id.
	ID *uint64 `json:"id"`
	// Result is a success's result.
	Result json.RawMessage `json:"result"`
	// Error and Text are an error's code ("no such frame") and message.
	Error string `json:"error"`
	Text  string `json:"message"`
	// Method and Params are an event's name and parameters.
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// Decode reads one message from the browser.
func Decode(b []byte) (Message, error) {
	var m Message
	if err := json.Unmarshal(b, &m); err != nil {
		return Message{}, fmt.Errorf("bidi: not a message: %w", err)
	}
	switch m.Type {
	case "success":
		if m.ID == nil {
			return Message{}, errors.New("bidi: a success without an id")
		}
		if len(m.Result) == 0 || m.Result[0] != '{' {
			return Message{}, errors.New("bidi: a success whose result is not an object")
		}
	case "error":
		if m.Error == "" {
			return Message{}, errors.New("bidi: an error without an error code")
		}
	case "event":
		if m.Method == "" {
			return Message{}, errors.New("bidi: an event without a method")
		}
		if len(m.Params) == 0 || m.Params[0] != '{' {
			return Message{}, errors.New("bidi: an event whose params are not an object")
		}
	default:
		return Message{}, fmt.Errorf("bidi: unknown message type %q", m.Type)
	}
	return m, nil
}

// Error is an error the browser answered a command with.
type Error struct {
	Method string
	Code   string // "no such frame", "unknown command", ...
	Text   string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s: %s", e.Method, e.Code, e.Text)
}

// Conn is a BiDi connection. Commands may be sent from several goroutines;
// events go to the handler, in order, on the connection's reading goroutine
// (which must not block on a command).
type Conn struct {
	ws      *websocket.Conn
	onEvent func(method string, params json.RawMessage)

	wmu     sync.Mutex // writes
	mu      sync.Mutex
	next    uint64
	pending map[uint64]chan Message
	err     error // why the connection ended
	done    chan struct{}
}

// Dial connects to the BiDi endpoint (ws://127.0.0.1:PORT/session) and
// hands every event to onEvent.
func Dial(ctx context.Context, url string, onEvent func(method string, params json.RawMessage)) (*Conn, error) {
	d := websocket.Dialer{ReadBufferSize: 1 << 16, WriteBufferSize: 1 << 16}
	ws, _, err := d.DialContext(ctx, url, nil)
	if err != nil {
		return nil, fmt.Errorf("bidi: connect %s: %w", url, err)
	}
	// Screenshots of a whole page are large.
	ws.SetReadLimit(256 << 20)
	c := &Conn{ws: ws, onEvent: onEvent, pending: map[uint64]chan Message{}, done: make(chan struct{})}
	go c.read()
	return c, nil
}

func (c *Conn) read() {
	var err error
	for {
		var b []byte
		if _, b, err = c.ws.ReadMessage(); err != nil {
			break
		}
		m, derr := Decode(b)
		if derr != nil {
			err = derr
			break
		}
		if m.Type == "event" {
			if c.onEvent != nil {
				c.onEvent(m.Method, m.Params)
			}
			continue
		}
		if m.ID == nil {
			err = fmt.Errorf("bidi: the browser could not read a command: %s: %s", m.Error, m.Text)
			break
		}
		c.mu.Lock()
		ch := c.pending[*m.ID]
		delete(c.pending, *m.ID)
		c.mu.Unlock()
		if ch != nil {
			ch <- m
		}
	}
	c.mu.Lock()
	c.err = err
	c.mu.Unlock()
	close(c.done)
	c.ws.Close()
}

// Call sends a command and decodes its result into result (which may be
// nil). It returns when the browser answers, ctx ends or the connection
// does.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	if params == nil {
		params = struct{}{}
	}
	ch := make(chan Message, 1)
	c.mu.Lock()
	c.next++
	id := c.next
	c.pending[id] = ch
	c.mu.Unlock()
	msg, err := json.Marshal(struct {
		ID     uint64 `json:"id"`
		Method string `json:"method"`
		Params any    `json:"params"`
	}{id, method, params})
	if err != nil {
		return err
	}
	c.wmu.Lock()
	err = c.ws.WriteMessage(websocket.TextMessage, msg)
	c.wmu.Unlock()
	if err != nil {
		return fmt.Errorf("bidi: send %s: %w", method, err)
	}
	select {
	case m := <-ch:
		if m.Type == "error" {
			return &Error{Method: method, Code: m.Error, Text: m.Text}
		}
		if result != nil {
			if err := json.Unmarshal(m.Result, result); err != nil {
				return fmt.Errorf("bidi: %s result: %w", method, err)
			}
		}
		return nil
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		return fmt.Errorf("%s: %w", method, ctx.Err())
	case <-c.done:
		c.mu.Lock()
		err := c.err
		c.mu.Unlock()
		return fmt.Errorf("bidi: %s: the connection ended: %v", method, err)
	}
}

// Done is closed when the connection has ended.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Close ends the connection.
func (c *Conn) Close() error { return c.ws.Close() }

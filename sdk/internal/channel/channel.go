// Package channel is the quick lane between the host and a rules plugin:
// framed protobuf messages over a Unix socket of their own, many calls at
// once on one connection (see mux.go for the lane and its choices). Both sides of it
// live here; package serve runs the plugin's, package host the host's. It
// must never know a game rule or a contract type.
package channel

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"
)

// The channel is the quick lane of the boundary. go-plugin's gRPC carries
// the handshake, health checks, Describe, Suggest and Perft; the calls a game
// makes on every move (Start, Play, View, Export, Import, Rewind) travel
// instead as length-prefixed protobuf messages over a Unix socket of their
// own.
//
// Why: a unary gRPC call hands each message through four goroutines (each
// side's HTTP/2 reader and writer), and on a small machine every hand-off
// wakes a thread. That cost 150–250 µs a call here; a plain request and reply
// on a socket costs one write and one read on each side (see
// docs/architecture.md for the figures).
//
// A connection opens with the channel's token, which the host learns from
// Describe over gRPC, so only the process that launched the plugin can use
// it. Then it speaks one of two framings:
//
//   - the multiplexed lane (mux.go, Lane on the host's side): the token is
//     followed by MuxMagic and every frame carries a call id, so one
//     connection carries all the calls in progress and a burst of them costs
//     one write and one read on each side. The host uses it with a plugin
//     whose Describe says channel_mux.
//   - the pool (Client): one call at a time per connection, the frame
//
//	length uint32 (little endian, of what follows) | kind byte | protobuf message
//
// a pool of up to MaxConns connections on the host's side. A plugin built
// with an older sdk speaks only this; the plugin's side here serves both.
//
// In both, a request's kind is the call and a reply's is ReplyOK (the call's
// response message) or ReplyFailed (UTF-8 text of a failure that is not a
// rule error: those travel inside the response, as over gRPC).

// Calls on the channel.
const (
	CallStart byte = iota + 1
	CallPlay
	CallView
	CallExport
	CallImport
)

// Reply kinds.
const (
	ReplyOK byte = iota
	ReplyFailed
)

const (
	// MaxFrame bounds a frame in either direction, as gRPC's default
	// message limit does.
	MaxFrame   = 16 << 20
	TokenBytes = 32
	headerSize = 5
	// MaxConns bounds the connections the host opens to one plugin: a
	// call finding them all busy waits for one (its context still bounds
	// it). The old pool closed every connection beyond 16 idle ones and
	// dialled again on the next call, and at 1000 rooms dialling was a
	// large part of the host's profile. A plugin serves its connections
	// concurrently but its rules calls are short and CPU-bound, so more
	// connections than this only queue in the plugin instead of here.
	MaxConns = 32
	// readBuffer is each connection's read buffer: a frame that fits
	// arrives with one read system call instead of two (header, body).
	readBuffer = 32 << 10
)

// ErrFrameTooLarge reports a frame above MaxFrame.
var ErrFrameTooLarge = errors.New("channel: frame too large")

// ReadFrame reads one frame into buf (grown as needed) and returns its kind
// and body.
func ReadFrame(r io.Reader, buf []byte) (kind byte, body, out []byte, err error) {
	var h [headerSize]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return 0, nil, buf, err
	}
	n := binary.LittleEndian.Uint32(h[:4])
	if n == 0 || n > MaxFrame {
		return 0, nil, buf, ErrFrameTooLarge
	}
	size := int(n) - 1
	if cap(buf) < size {
		buf = make([]byte, size)
	}
	body = buf[:size]
	if _, err := io.ReadFull(r, body); err != nil {
		return 0, nil, buf, err
	}
	return h[4], body, buf, nil
}

// AppendFrame appends a frame holding m (or text, if m is nil) to buf.
func AppendFrame(buf []byte, kind byte, m proto.Message, text string) ([]byte, error) {
	start := len(buf)
	return finishFrame(append(buf, 0, 0, 0, 0, kind), start, m, text)
}

// finishFrame appends m (or text, if m is nil) to a frame whose header
// begins at buf[start] and sets the header's length: the frame of either
// framing (AppendFrame, AppendMux). On an error buf is as it was.
func finishFrame(buf []byte, start int, m proto.Message, text string) ([]byte, error) {
	if e, ok := m.(Encoder); ok {
		var err error
		if buf, err = e.AppendEncoded(buf); err != nil {
			return buf[:start], err
		}
	} else if m != nil {
		var err error
		if buf, err = (proto.MarshalOptions{}).MarshalAppend(buf, m); err != nil {
			return buf[:start], err
		}
	} else {
		buf = append(buf, text...)
	}
	n := len(buf) - start - 4
	if n > MaxFrame {
		return buf[:start], ErrFrameTooLarge
	}
	binary.LittleEndian.PutUint32(buf[start:], uint32(n))
	return buf, nil
}

// ---- plugin side ----

// Encoder is a response that writes its own bytes into a frame, the very
// bytes proto.Marshal would, and is not used again after it did: so the
// plugin's server can recycle a reply's buffers once they are copied.
type Encoder interface {
	proto.Message
	AppendEncoded(b []byte) ([]byte, error)
}

// Handler answers one call: kind is the call, body its request message. An
// error is a failure of the call, not a rule error (those travel inside the
// response).
type Handler func(kind byte, body []byte) (proto.Message, error)

// Server serves the quick calls of one plugin process.
type Server struct {
	handle Handler
	ln     net.Listener
	token  []byte
	addr   string
}

// Listen opens the plugin's channel socket and serves it with h. Errors are
// not fatal to a plugin: the host then makes every call over gRPC.
func Listen(h Handler) (*Server, error) {
	token := make([]byte, TokenBytes)
	if _, err := rand.Read(token); err != nil {
		return nil, err
	}
	ln, addr, err := listen()
	if err != nil {
		return nil, err
	}
	cs := &Server{handle: h, ln: ln, token: token, addr: addr}
	go cs.accept()
	return cs, nil
}

// NewServer returns a server of h that listens nowhere, for ServeConn.
func NewServer(h Handler, token []byte) *Server { return &Server{handle: h, token: token} }

// Addr is where the channel listens; the host dials it.
func (cs *Server) Addr() string { return cs.addr }

// Token is what a connection must open with.
func (cs *Server) Token() []byte { return cs.token }

// Close stops listening; open connections end with their callers.
func (cs *Server) Close() error {
	if cs.ln == nil {
		return nil
	}
	return cs.ln.Close()
}

func (cs *Server) accept() {
	for {
		c, err := cs.ln.Accept()
		if err != nil {
			return
		}
		go cs.ServeConn(c)
	}
}

// ServeConn serves one connection until it ends or misbehaves.
func (cs *Server) ServeConn(c net.Conn) {
	defer c.Close()
	got := make([]byte, TokenBytes)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(c, got); err != nil || subtle.ConstantTimeCompare(got, cs.token) != 1 {
		slog.Warn("channel: a connection without the token was refused")
		return
	}
	c.SetReadDeadline(time.Time{})
	var h [len(MuxMagic)]byte
	if _, err := io.ReadFull(c, h[:]); err != nil {
		return
	}
	if h == MuxMagic {
		cs.serveMux(c)
		return
	}
	// A host of the one-call-per-connection pool: h began its first frame.
	br := bufio.NewReaderSize(io.MultiReader(bytes.NewReader(h[:]), c), readBuffer)
	var in, out []byte
	for {
		kind, body, buf, err := ReadFrame(br, in)
		in = buf
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				slog.Warn("channel: connection dropped", "err", err.Error())
			}
			return
		}
		resp, err := cs.handle(kind, body)
		if err != nil {
			out, _ = AppendFrame(out[:0], ReplyFailed, nil, err.Error())
		} else if out, err = AppendFrame(out[:0], ReplyOK, resp, ""); err != nil {
			out, _ = AppendFrame(out[:0], ReplyFailed, nil, err.Error())
		}
		if _, err := c.Write(out); err != nil {
			return
		}
		if cap(out) > 1<<20 {
			out = nil // do not keep a huge export's buffer for ever
		}
	}
}

// Handle decodes a request from body and passes it to fn, a gRPC handler:
// so the channel and gRPC run the same code.
func Handle[Req any, PReq interface {
	*Req
	proto.Message
}, Resp proto.Message](body []byte, fn func(context.Context, PReq) (Resp, error)) (proto.Message, error) {
	req := PReq(new(Req))
	if err := proto.Unmarshal(body, req); err != nil {
		return nil, err
	}
	return fn(context.Background(), req)
}

// ---- host side ----

// ErrClosed is returned by calls on a Client after Close.
var ErrClosed = errors.New("channel: closed")

// Client is the host's pool of connections to one plugin's channel: at most
// MaxConns, kept open between calls. Its methods are safe for concurrent use.
type Client struct {
	addr  string
	token []byte
	// slots holds one token per connection that may be open or opened;
	// a call takes one for its whole duration.
	slots chan struct{}

	mu     sync.Mutex
	idle   []*pconn
	open   int // connections open (idle or in a call)
	dials  int // connections ever dialled (tests)
	closed bool
}

// pconn is a pooled connection and its read buffer.
type pconn struct {
	net.Conn
	br *bufio.Reader
}

// NewClient returns a client of the channel at addr; it dials on demand.
func NewClient(addr string, token []byte) *Client {
	return &Client{addr: addr, token: token, slots: make(chan struct{}, MaxConns)}
}

// Idle is how many connections the pool holds unused.
func (ch *Client) Idle() int {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return len(ch.idle)
}

// Stats is how many connections are open now and how many were ever dialled.
func (ch *Client) Stats() (open, dialled int) {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return ch.open, ch.dials
}

// get takes a slot (waiting for one while all are in calls) and an idle
// connection or a new one. Every connection got goes back through put or
// drop, which free its slot.
func (ch *Client) get(ctx context.Context) (*pconn, error) {
	select {
	case ch.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	ch.mu.Lock()
	if ch.closed {
		ch.mu.Unlock()
		<-ch.slots
		return nil, ErrClosed
	}
	if n := len(ch.idle); n > 0 {
		c := ch.idle[n-1]
		ch.idle = ch.idle[:n-1]
		ch.mu.Unlock()
		return c, nil
	}
	ch.open++
	ch.dials++
	ch.mu.Unlock()
	c, err := ch.dial(ctx)
	if err != nil {
		ch.mu.Lock()
		ch.open--
		ch.mu.Unlock()
		<-ch.slots
		return nil, err
	}
	return c, nil
}

func (ch *Client) dial(ctx context.Context) (*pconn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", ch.addr)
	if err != nil {
		return nil, err
	}
	if dl, ok := ctx.Deadline(); ok {
		c.SetWriteDeadline(dl)
	}
	if _, err := c.Write(ch.token); err != nil {
		c.Close()
		return nil, err
	}
	c.SetWriteDeadline(time.Time{}) // a pooled connection has none (see Call)
	return &pconn{Conn: c, br: bufio.NewReaderSize(c, readBuffer)}, nil
}

// put returns a healthy connection to the pool.
func (ch *Client) put(c *pconn) {
	ch.mu.Lock()
	if ch.closed {
		ch.open--
		c.Close()
	} else {
		ch.idle = append(ch.idle, c)
	}
	ch.mu.Unlock()
	<-ch.slots
}

// drop closes a connection that saw an error or was cut short.
func (ch *Client) drop(c *pconn) {
	c.Close()
	ch.mu.Lock()
	ch.open--
	ch.mu.Unlock()
	<-ch.slots
}

// Close closes the idle connections and fails every later call.
func (ch *Client) Close() {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	ch.closed = true
	for _, c := range ch.idle {
		c.Close()
	}
	ch.open -= len(ch.idle)
	ch.idle = nil
}

var framePool = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// Call sends req and reads the reply into resp. ctx's deadline and
// cancellation cut the call short; a connection that saw any error is
// closed, never reused.
func (ch *Client) Call(ctx context.Context, kind byte, req, resp proto.Message) (err error) {
	return ch.CallFunc(ctx, kind, req, func(body []byte) error { return proto.Unmarshal(body, resp) })
}

// CallFunc is Call with the reply's bytes handed to decode (which must not
// keep them) instead of proto.Unmarshal.
func (ch *Client) CallFunc(ctx context.Context, kind byte, req proto.Message, decode func(body []byte) error) (err error) {
	if err := ctx.Err(); err != nil {
		return err
	}
	c, err := ch.get(ctx)
	if err != nil {
		return err
	}
	// ctx's end, its deadline included, sets a deadline in the past, which
	// ends a blocked read or write at once; the connection is then closed,
	// so a pooled connection never has a deadline, and setting ctx's own
	// on each call (a timer change per call) is not needed.
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Unix(1, 0)) })
	bp := framePool.Get().(*[]byte)
	defer func() {
		if !stop() || err != nil {
			ch.drop(c)
		} else {
			ch.put(c)
		}
		if cap(*bp) <= 1<<20 {
			framePool.Put(bp)
		}
		if err != nil && (ctx.Err() != nil || errors.Is(err, os.ErrDeadlineExceeded)) {
			err = fmt.Errorf("%w (%v)", cmpErr(ctx.Err(), context.DeadlineExceeded), err)
		}
	}()
	buf, err := AppendFrame((*bp)[:0], kind, req, "")
	if err != nil {
		return err
	}
	if _, err := c.Write(buf); err != nil {
		return err
	}
	k, body, buf, err := ReadFrame(c.br, buf[:0])
	*bp = buf
	if err != nil {
		return err
	}
	switch k {
	case ReplyOK:
		return decode(body)
	case ReplyFailed:
		return fmt.Errorf("plugin: %s", body)
	}
	return fmt.Errorf("channel: unknown reply kind %d", k)
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

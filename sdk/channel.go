package sdk

import (
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
// makes on every move (Start, Play, View, Export, Import) travel instead as
// length-prefixed protobuf messages over a Unix socket of their own, one call
// at a time per connection, with a pool of connections on the host's side.
//
// Why: a unary gRPC call hands each message through four goroutines (each
// side's HTTP/2 reader and writer), and on a small machine every hand-off
// wakes a thread. That cost 150–250 µs a call here; a plain request and reply
// on a socket costs one write and one read on each side (see docs/protocol.md
// for the figures).
//
// A connection opens with the channel's token, which the host learns from
// Describe over gRPC, so only the process that launched the plugin can use it.
// Then, in each direction, a frame is
//
//	length uint32 (little endian, of what follows) | kind byte | protobuf message
//
// where a request's kind is the call and a reply's is replyOK (the call's
// response message) or replyFailed (UTF-8 text of a failure that is not a
// rule error: those travel inside the response, as over gRPC).

// Calls on the channel.
const (
	callStart byte = iota + 1
	callPlay
	callView
	callExport
	callImport
)

// Reply kinds.
const (
	replyOK byte = iota
	replyFailed
)

const (
	// maxFrame bounds a frame in either direction, as gRPC's default
	// message limit does.
	maxFrame   = 16 << 20
	tokenBytes = 32
	headerSize = 5
	// maxIdle is how many idle connections the host keeps per plugin.
	maxIdle = 16
)

// errFrameTooLarge reports a frame above maxFrame.
var errFrameTooLarge = errors.New("channel: frame too large")

// readFrame reads one frame into buf (grown as needed) and returns its kind
// and body.
func readFrame(r io.Reader, buf []byte) (kind byte, body, out []byte, err error) {
	var h [headerSize]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return 0, nil, buf, err
	}
	n := binary.LittleEndian.Uint32(h[:4])
	if n == 0 || n > maxFrame {
		return 0, nil, buf, errFrameTooLarge
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

// appendFrame appends a frame holding m (or text, if m is nil) to buf.
func appendFrame(buf []byte, kind byte, m proto.Message, text string) ([]byte, error) {
	start := len(buf)
	buf = append(buf, 0, 0, 0, 0, kind)
	if m != nil {
		var err error
		if buf, err = (proto.MarshalOptions{}).MarshalAppend(buf, m); err != nil {
			return buf[:start], err
		}
	} else {
		buf = append(buf, text...)
	}
	n := len(buf) - start - 4
	if n > maxFrame {
		return buf[:start], errFrameTooLarge
	}
	binary.LittleEndian.PutUint32(buf[start:], uint32(n))
	return buf, nil
}

// ---- plugin side ----

// channelServer serves the quick calls of one plugin process.
type channelServer struct {
	srv   *server
	ln    net.Listener
	token []byte
	addr  string
}

// listenChannel opens the plugin's channel socket. Errors are not fatal: the
// host then makes every call over gRPC.
func listenChannel(srv *server) (*channelServer, error) {
	token := make([]byte, tokenBytes)
	if _, err := rand.Read(token); err != nil {
		return nil, err
	}
	ln, addr, err := channelListen()
	if err != nil {
		return nil, err
	}
	cs := &channelServer{srv: srv, ln: ln, token: token, addr: addr}
	go cs.accept()
	return cs, nil
}

func (cs *channelServer) accept() {
	for {
		c, err := cs.ln.Accept()
		if err != nil {
			return
		}
		go cs.serveConn(c)
	}
}

func (cs *channelServer) serveConn(c net.Conn) {
	defer c.Close()
	got := make([]byte, tokenBytes)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(c, got); err != nil || subtle.ConstantTimeCompare(got, cs.token) != 1 {
		slog.Warn("channel: a connection without the token was refused")
		return
	}
	c.SetReadDeadline(time.Time{})
	var in, out []byte
	for {
		kind, body, buf, err := readFrame(c, in)
		in = buf
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				slog.Warn("channel: connection dropped", "err", err.Error())
			}
			return
		}
		resp, err := cs.srv.dispatch(kind, body)
		if err != nil {
			out, _ = appendFrame(out[:0], replyFailed, nil, err.Error())
		} else if out, err = appendFrame(out[:0], replyOK, resp, ""); err != nil {
			out, _ = appendFrame(out[:0], replyFailed, nil, err.Error())
		}
		if _, err := c.Write(out); err != nil {
			return
		}
		if cap(out) > 1<<20 {
			out = nil // do not keep a huge export's buffer for ever
		}
	}
}

// dispatch runs one call through the same handlers as gRPC.
func (s *server) dispatch(kind byte, body []byte) (proto.Message, error) {
	switch kind {
	case callStart:
		return handle(body, s.Start)
	case callPlay:
		return handle(body, s.Play)
	case callView:
		return handle(body, s.View)
	case callExport:
		return handle(body, s.Export)
	case callImport:
		return handle(body, s.Import)
	}
	return nil, fmt.Errorf("channel: unknown call %d", kind)
}

// handle decodes a request from body and passes it to fn, a gRPC handler.
func handle[Req any, PReq interface {
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

// channel is the host's pool of connections to one plugin's channel.
type channel struct {
	addr  string
	token []byte

	mu     sync.Mutex
	idle   []net.Conn
	closed bool
}

func (ch *channel) get(ctx context.Context) (net.Conn, error) {
	ch.mu.Lock()
	if ch.closed {
		ch.mu.Unlock()
		return nil, ErrPluginExited
	}
	if n := len(ch.idle); n > 0 {
		c := ch.idle[n-1]
		ch.idle = ch.idle[:n-1]
		ch.mu.Unlock()
		return c, nil
	}
	ch.mu.Unlock()
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
	return c, nil
}

func (ch *channel) put(c net.Conn) {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if ch.closed || len(ch.idle) >= maxIdle {
		c.Close()
		return
	}
	ch.idle = append(ch.idle, c)
}

func (ch *channel) close() {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	ch.closed = true
	for _, c := range ch.idle {
		c.Close()
	}
	ch.idle = nil
}

var framePool = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// call sends req and reads the reply into resp. ctx's deadline and
// cancellation cut the call short; a connection that saw any error is
// closed, never reused.
func (ch *channel) call(ctx context.Context, kind byte, req, resp proto.Message) (err error) {
	if err := ctx.Err(); err != nil {
		return err
	}
	c, err := ch.get(ctx)
	if err != nil {
		return err
	}
	dl, _ := ctx.Deadline()
	c.SetDeadline(dl) // zero: none
	stop := context.AfterFunc(ctx, func() { c.SetDeadline(time.Unix(1, 0)) })
	bp := framePool.Get().(*[]byte)
	defer func() {
		if !stop() || err != nil {
			c.Close()
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
	buf, err := appendFrame((*bp)[:0], kind, req, "")
	if err != nil {
		return err
	}
	if _, err := c.Write(buf); err != nil {
		return err
	}
	k, body, buf, err := readFrame(c, buf[:0])
	*bp = buf
	if err != nil {
		return err
	}
	switch k {
	case replyOK:
		return proto.Unmarshal(body, resp)
	case replyFailed:
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

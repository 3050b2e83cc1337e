// Package channel is the quick lane between the host and a rules plugin:
// framed protobuf messages over a Unix socket of their own, many calls at
// once on one connection (see mux.go for the lane and its choices). Both sides of it
// live here; package serve runs the plugin's, package host the host's. It
// must never know a game rule or a contract type.
package channel

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"net"
	"time"

	"google.golang.org/protobuf/proto"
)

// The channel is the quick lane of the boundary. go-plugin's gRPC carries
// the handshake, health checks, Describe, Suggest and Perft; the calls a game
// makes on every move (Start, Play, View, Export, Import, Rewind) travel
// instead as framed protobuf messages over a Unix socket of their own.
//
// Why: a unary gRPC call hands each message through four goroutines (each
// side's HTTP/2 reader and writer), and on a small machine every hand-off
// wakes a thread. That cost 150–250 µs a call here; a plain request and reply
// on a socket costs one write and one read on each side (see
// docs/architecture.md for the figures).
//
// A connection opens with the channel's token, which the host learns from
// Describe over gRPC, so only the process that launched the plugin can use
// it, and then MuxMagic, which names the framing: the multiplexed lane
// (mux.go), where every frame carries a call id, so one connection carries
// all the calls in progress. A connection that opens otherwise is closed.
//
// A request's kind is the call and a reply's is ReplyOK (the call's
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
	// readBuffer is each connection's read buffer: a frame that fits
	// arrives with one read system call instead of two (header, body).
	readBuffer = 32 << 10
)

// ErrFrameTooLarge reports a frame above MaxFrame.
var ErrFrameTooLarge = errors.New("channel: frame too large")

// finishFrame appends m (or text, if m is nil) to a frame whose header
// begins at buf[start] and sets the header's length (AppendMux). On an
// error buf is as it was.
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
	if _, err := io.ReadFull(c, h[:]); err != nil || h != MuxMagic {
		slog.Warn("channel: a connection that does not speak the lane was refused")
		return
	}
	cs.serveMux(c)
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

// ErrClosed is returned by calls on a Lane after Close.
var ErrClosed = errors.New("channel: closed")

// Package socket carries the room protocol over WebSocket
// (GET /api/v1/rooms/{room}/socket): the handshake's Origin check, the
// hello, messages written by their sender while the socket takes them and
// otherwise by one writer goroutine per connection from a bounded queue, ping/pong
// dead-peer detection, a frame size limit, per-connection message credits
// and per-IP limits on wrong seat keys.
//
// It is transport only: the messages are defined and answered by package
// room. It must never log or keep a seat key, and never touch a connection
// after its handler has returned (the pooled Conn is reused).
package socket

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"log/slog"
	"net/url"
	"os"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/banmen/banmen/platform/internal/ratelimit"
	"github.com/banmen/banmen/platform/internal/room"
	"github.com/banmen/banmen/platform/protocol"
	"github.com/gofiber/contrib/websocket"
	"github.com/gofiber/fiber/v2"
)

// Close codes of the protocol (docs/protocol.md), as package protocol
// names them. 4000–4999 are ours.
const (
	CloseNormal     = protocol.CloseNormal       // 1000: the client closed, or shutdown
	CloseGoingAway  = protocol.CloseGoingAway    // 1001: the server is shutting down
	CloseProtocol   = protocol.CloseProtocol     // 1008: a malformed or unexpected message
	CloseTooBig     = protocol.CloseTooBig       // 1009: a frame over the size limit
	CloseInternal   = protocol.CloseInternal     // 1011
	CloseTryLater   = protocol.CloseTryAgain     // 1013: the rules are unavailable
	CloseReplaced   = protocol.CloseReplaced     // 4001
	CloseBadKey     = protocol.CloseBadKey       // 4003
	CloseNotFound   = protocol.CloseNotFound     // 4004
	CloseFlood      = protocol.CloseFlood        // 4008: out of message credits
	CloseTooSlow    = protocol.CloseSlow         // 4009: the send queue overflowed
	CloseFull       = protocol.CloseFullWatchers // 4010: the room's spectator cap
	CloseTooManyBad = protocol.CloseTooManyWrong // 4029: too many wrong keys or codes from this address
)

// Config configures a Handler.
type Config struct {
	Rooms  *room.Manager
	Logger *slog.Logger
	// Origins are the allowed Origin header values ("https://example.org");
	// empty allows only the request's own host. A request without Origin
	// (not a browser) is allowed: the seat key is what protects a seat.
	Origins []string
	// FrameBytes is the largest message accepted (larger: close 1009).
	FrameBytes int
	// Queue is how many messages may wait for a slow client.
	Queue int
	// Burst and Rate are each connection's message credits: Burst at once,
	// Rate regained per second.
	Burst, Rate int
	// PingInterval is how often the server pings; a peer silent for two
	// and a half intervals is dead.
	PingInterval time.Duration
	HelloTimeout time.Duration
	WriteTimeout time.Duration
	// WrongKeysPerMinute limits hellos with a wrong seat key or code per IP.
	WrongKeysPerMinute int
	Now                func() time.Time
}

// Handler serves room sockets.
type Handler struct {
	cfg    Config
	badKey *ratelimit.Limiter

	mu       sync.Mutex
	conns    map[*conn]struct{}
	shutdown bool // no new connections: Shutdown is waiting on wg
	wg       sync.WaitGroup
}

// New returns a Handler.
func New(cfg Config) *Handler {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.FrameBytes == 0 {
		cfg.FrameBytes = 16 << 10
	}
	if cfg.Queue == 0 {
		cfg.Queue = 64
	}
	if cfg.Burst == 0 {
		cfg.Burst = 30
	}
	if cfg.Rate == 0 {
		cfg.Rate = 10
	}
	if cfg.PingInterval == 0 {
		cfg.PingInterval = 20 * time.Second
	}
	if cfg.HelloTimeout == 0 {
		cfg.HelloTimeout = 10 * time.Second
	}
	if cfg.WriteTimeout == 0 {
		cfg.WriteTimeout = 10 * time.Second
	}
	if cfg.WrongKeysPerMinute == 0 {
		cfg.WrongKeysPerMinute = 10
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Handler{cfg: cfg, conns: map[*conn]struct{}{},
		badKey: ratelimit.New(cfg.WrongKeysPerMinute, cfg.WrongKeysPerMinute, cfg.Now)}
}

func refuse(c *fiber.Ctx, status int, code, msg string) error {
	return c.Status(status).JSON(fiber.Map{"error": fiber.Map{"code": code, "message": msg}})
}

// Check is the handshake's gate, before the upgrade: a WebSocket upgrade,
// an allowed Origin (else 403), a room that exists (else 404).
func (h *Handler) Check(c *fiber.Ctx) error {
	if !websocket.IsWebSocketUpgrade(c) {
		return refuse(c, fiber.StatusUpgradeRequired, "upgrade_required", "this is a WebSocket endpoint")
	}
	if !h.originAllowed(c) {
		return refuse(c, fiber.StatusForbidden, "bad_origin", "this page's origin may not open room sockets")
	}
	id := c.Params("room")
	if !room.ValidID(id) {
		return refuse(c, fiber.StatusNotFound, "room_not_found", "no such room (unknown or expired)")
	}
	if _, err := h.cfg.Rooms.Open(c.UserContext(), id); errors.Is(err, room.ErrNotFound) {
		return refuse(c, fiber.StatusNotFound, "room_not_found", "no such room (unknown or expired)")
	}
	// Other load errors (rules unavailable) are told after hello, with a
	// close code a client retries on.
	return c.Next()
}

func (h *Handler) originAllowed(c *fiber.Ctx) bool {
	origin := c.Get(fiber.HeaderOrigin)
	if origin == "" {
		return true
	}
	if len(h.cfg.Origins) > 0 {
		return slices.Contains(h.cfg.Origins, origin) || slices.Contains(h.cfg.Origins, "*")
	}
	u, err := url.Parse(origin)
	return err == nil && u.Host != "" && u.Host == string(c.Request().Host())
}

// Socket is the upgraded handler (after Check).
func (h *Handler) Socket() fiber.Handler {
	return websocket.New(h.serve, websocket.Config{
		// Check has applied the allow-list (including "same host", which
		// this list cannot express), so the upgrader accepts every origin.
		Origins:         []string{"*"},
		ReadBufferSize:  4096,
		WriteBufferSize: 4096,
	})
}

// Shutdown closes every connection with 1001 and waits for their handlers.
func (h *Handler) Shutdown() {
	h.mu.Lock()
	h.shutdown = true
	for c := range h.conns {
		c.Close(CloseGoingAway, "server shutting down")
	}
	h.mu.Unlock()
	h.wg.Wait()
}

// conn is one connection: the room's Subscriber.
//
// A message is written by the goroutine that sends it when nothing else is
// being written or waits: one write system call that takes what the socket
// can hold without waiting (directWriter), and the writer goroutine writes
// whatever is left. Handing every message to the writer cost a wake-up and
// two switches per message, about a twentieth of the host's CPU per move.
// Otherwise the message waits in pend, in order, for the writer.
type conn struct {
	ws    *websocket.Conn
	h     *Handler
	raw   syscall.RawConn // nil: every message goes through the writer
	close chan struct{}   // closed by Close
	wake  chan struct{}   // (capacity 1) the writer has something to do
	once  sync.Once
	code  int
	text  string
	drain bool // write what is queued before the close frame

	mu      sync.Mutex
	closed  bool
	busy    bool          // a sender or the writer is writing to the socket
	pend    []item        // waiting for the writer, in order
	pingDue bool          // the writer's ping waits for the socket
	failed  bool          // a sender's write failed: the writer ends the connection
	direct  []byte        // the frames a sender writes (used only while busy)
	dw      *directWriter // (used only while busy)
	partial int           // messages a sender left part of to the writer (for tests)

	done chan struct{}
}

func newConn(ws *websocket.Conn, h *Handler) *conn {
	return &conn{ws: ws, h: h, close: make(chan struct{}), wake: make(chan struct{}, 1), done: make(chan struct{}), dw: newDirectWriter()}
}

// item is one entry of a connection's queue: a message, several that
// leave in one write (many), or bytes already framed.
type item struct {
	b      []byte
	many   [][]byte
	framed bool
}

// Send implements room.Subscriber: never blocks; a full queue drops the
// connection (a slow client is not waited for).
func (c *conn) Send(b []byte) bool { return c.queue(item{b: b}) }

// SendAll implements room.BatchSubscriber: the messages are written
// together (a move's event and its ack, to the mover).
func (c *conn) SendAll(msgs ...[]byte) bool { return c.queue(item{many: msgs}) }

func (c *conn) signal() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

func (c *conn) queue(it item) bool {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return false
	}
	if len(c.pend) >= c.h.cfg.Queue {
		c.mu.Unlock()
		c.closeWith(CloseTooSlow, "too slow", false)
		return false
	}
	if c.busy || len(c.pend) > 0 || c.raw == nil {
		// The room lends what it sends for the call only (room.Subscriber):
		// what waits is framed into bytes of its own.
		c.pend = append(c.pend, item{b: it.appendTo(nil), framed: true})
		idle := !c.busy
		c.mu.Unlock()
		if idle {
			c.signal()
		}
		return true
	}
	c.busy = true
	c.mu.Unlock()
	c.direct = it.appendTo(c.direct[:0])
	n, err := c.dw.try(c.raw, c.direct)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		// The writer's deadline went stale while senders wrote: the
		// writer writes it, with a new one.
		n, err = 0, nil
	}
	c.mu.Lock()
	c.busy = false
	if err != nil {
		c.failed = true
	} else if n < len(c.direct) {
		// The socket is full: the rest goes first, by the writer.
		c.pend = slices.Insert(c.pend, 0, item{b: slices.Clone(c.direct[n:]), framed: true})
		c.partial++
	}
	if cap(c.direct) > maxKeptBuffer {
		c.direct = nil
	}
	wake := c.writerDue()
	c.mu.Unlock()
	if wake {
		c.signal()
	}
	return err == nil
}

// writerDue: the writer has something to do once the socket is free (to
// be called with c.mu held).
func (c *conn) writerDue() bool { return len(c.pend) > 0 || c.pingDue || c.failed || c.closed }

// Close implements room.Subscriber.
func (c *conn) Close(code int, reason string) { c.closeWith(code, reason, true) }

func (c *conn) closeWith(code int, reason string, drain bool) {
	c.once.Do(func() {
		c.mu.Lock()
		c.closed = true
		c.code, c.text, c.drain = code, reason, drain
		c.mu.Unlock()
		close(c.close)
	})
}

// claim waits until no sender is writing and makes the writer the one that
// is.
func (c *conn) claim() {
	for {
		c.mu.Lock()
		if !c.busy {
			c.busy = true
			c.mu.Unlock()
			return
		}
		c.mu.Unlock()
		<-c.wake // the sender signals when it is done (the conn is closed)
	}
}

func (c *conn) release() {
	c.mu.Lock()
	c.busy = false
	more := c.writerDue()
	c.mu.Unlock()
	if more {
		c.signal()
	}
}

// writer writes what senders could not: queued messages (all of them in one
// system call, up to maxBatchBytes), pings, and at the end the close frame.
func (c *conn) writer() {
	defer close(c.done)
	ws, cfg := c.ws, c.h.cfg
	ping := time.NewTicker(cfg.PingInterval)
	defer ping.Stop()
	var buf []byte
	var writeBy time.Time
	write := func() bool {
		buf = c.frames(buf[:0])
		if len(buf) == 0 {
			return true
		}
		nc := ws.NetConn()
		// A write gets between half and all of WriteTimeout: the deadline
		// moves only when less than half is left (a timer change per
		// write was a measurable share of the host's CPU).
		if now := time.Now(); writeBy.Sub(now) < cfg.WriteTimeout/2 {
			writeBy = now.Add(cfg.WriteTimeout)
			nc.SetWriteDeadline(writeBy)
		}
		// One Write call: the library's own control frames (the 1009
		// close the reader may send) are single Write calls too, and the
		// descriptor's write lock keeps them whole.
		_, err := nc.Write(buf)
		if cap(buf) > maxKeptBuffer {
			buf = nil
		}
		return err == nil
	}
	fail := func(reason string) {
		c.closeWith(CloseInternal, reason, false)
		ws.SetReadDeadline(time.Now()) // wake the reader
	}
	for {
		select {
		case <-c.wake:
		case <-ping.C:
			c.mu.Lock()
			c.pingDue = true
			c.mu.Unlock()
		case <-c.close:
			c.claim()
			for c.drain && c.queued() && write() {
			}
			ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(c.code, c.text), time.Now().Add(cfg.WriteTimeout))
			// The reader ends on the peer's answering close frame, or at
			// this deadline if it never comes.
			ws.SetReadDeadline(time.Now().Add(2 * time.Second))
			return
		}
		c.mu.Lock()
		if c.failed {
			c.mu.Unlock()
			fail("write failed")
			return
		}
		if c.busy || (len(c.pend) == 0 && !c.pingDue) {
			c.mu.Unlock() // a sender is writing: it signals when done
			continue
		}
		c.busy = true
		pingNow := c.pingDue
		c.pingDue = false
		c.mu.Unlock()
		if !write() {
			fail("write failed")
			return
		}
		if pingNow && ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(cfg.WriteTimeout)) != nil {
			fail("ping failed")
			return
		}
		c.release()
	}
}

func (c *conn) queued() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pend) > 0
}

const (
	// maxBatchBytes stops taking queued messages into one write once
	// this much is framed (a message is never split).
	maxBatchBytes = 64 << 10
	// maxKeptBuffer: a writer keeps its buffer between writes up to this.
	maxKeptBuffer = 256 << 10
)

// frames appends the queued items (up to maxBatchBytes) to buf, each
// message as one unmasked final text frame, and takes them off the queue.
func (c *conn) frames(buf []byte) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	i := 0
	for i < len(c.pend) && len(buf) < maxBatchBytes {
		buf = c.pend[i].appendTo(buf)
		c.pend[i] = item{}
		i++
	}
	if i == len(c.pend) {
		c.pend = c.pend[:0] // the array is kept for the next messages
	} else {
		c.pend = c.pend[i:]
	}
	return buf
}

func (it item) appendTo(buf []byte) []byte {
	switch {
	case it.framed:
		return append(buf, it.b...)
	case it.many != nil:
		for _, m := range it.many {
			buf = appendTextFrame(buf, m)
		}
		return buf
	}
	return appendTextFrame(buf, it.b)
}

// appendTextFrame appends msg as a server's WebSocket frame (RFC 6455
// §5.2): FIN and opcode 1, no mask, the shortest length encoding; the
// same bytes the library writes for one WriteMessage.
func appendTextFrame(buf, msg []byte) []byte { return appendFrame(buf, websocket.TextMessage, msg) }

// appendFrame appends an unmasked final frame of opcode op.
func appendFrame[T []byte | string](buf []byte, op int, msg T) []byte {
	buf = append(buf, 0x80|byte(op))
	switch n := len(msg); {
	case n <= 125:
		buf = append(buf, byte(n))
	case n <= 0xffff:
		buf = append(buf, 126, byte(n>>8), byte(n))
	default:
		buf = append(buf, 127)
		buf = binary.BigEndian.AppendUint64(buf, uint64(n))
	}
	return append(buf, msg...)
}

// serve runs one connection: the reader in this goroutine, the writer in
// another; it returns only after both have ended.
func (h *Handler) serve(ws *websocket.Conn) {
	c := newConn(ws, h)
	c.raw = rawConn(ws.NetConn())
	h.mu.Lock()
	if h.shutdown {
		h.mu.Unlock()
		ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(CloseGoingAway, "server shutting down"), time.Now().Add(time.Second))
		return
	}
	h.conns[c] = struct{}{}
	h.wg.Add(1) // under mu, so never after Shutdown began to wait
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.conns, c)
		h.mu.Unlock()
		h.wg.Done()
	}()
	ws.SetReadLimit(int64(h.cfg.FrameBytes))
	// A pong goes out through the queue like any message: the library
	// writing it itself could land inside a message a sender left half
	// written for the writer.
	ws.SetPingHandler(func(data string) error {
		// A control frame's payload is at most 125 bytes (the peer's was).
		c.queue(item{b: appendFrame(nil, websocket.PongMessage, data[:min(len(data), 125)]), framed: true})
		return nil
	})
	go c.writer()
	peerDone := false // the peer closed, died or answered our close
	defer func() {
		c.closeWith(CloseNormal, "", true)
		if !peerDone {
			linger(ws)
		}
		<-c.done
	}()
	// The server's key for the client's address (trusted proxies, IPv6 by
	// its /64), when it set one; else the connection's address.
	ip, _ := ws.Locals(ClientKey).(string)
	if ip == "" {
		ip = ws.IP()
	}
	sess := h.hello(c, ws.Params("room"), ip)
	if sess == nil {
		return
	}
	defer sess.Leave()
	wait := 5 * h.cfg.PingInterval / 2
	readBy := time.Now().Add(wait)
	ws.SetReadDeadline(readBy)
	ws.SetPongHandler(func(string) error { return ws.SetReadDeadline(time.Now().Add(wait)) })
	credits := newCredits(h.cfg.Burst, h.cfg.Rate, h.cfg.Now)
	var buf bytes.Buffer // what Decode reads, which copies what it keeps
	for {
		mt, b, err := readMessage(ws, &buf)
		if buf.Cap() > maxKeptRead {
			buf = bytes.Buffer{}
		}
		if err != nil {
			peerDone = true
			return // closed, dead (deadline), or over the frame limit (1009 sent by the library)
		}
		// The deadline moves on when an eighth of the wait has passed, not
		// on every message: a silent peer is dead after 7/8 to all of it.
		if now := time.Now(); readBy.Sub(now) < wait-wait/8 {
			readBy = now.Add(wait)
			ws.SetReadDeadline(readBy)
		}
		if !credits.take() {
			c.closeWith(CloseFlood, "too many messages", false)
			return
		}
		if mt != websocket.TextMessage {
			c.protocolError("messages are JSON text frames")
			return
		}
		req, err := protocol.Decode(b)
		if err != nil || req.Type == protocol.TypeHello {
			c.protocolError("not a valid message after hello")
			return
		}
		sess.Act(context.Background(), req)
	}
}

// maxKeptRead: a reader keeps its buffer between messages up to this.
const maxKeptRead = 4 << 10

// readMessage is ws.ReadMessage into buf, reset first, whose array is
// reused (a move is ~100 bytes; ReadMessage allocated 512 for each
// message). The bytes are valid until buf's next use.
func readMessage(ws *websocket.Conn, buf *bytes.Buffer) (int, []byte, error) {
	buf.Reset()
	mt, r, err := ws.NextReader()
	if err != nil {
		return mt, nil, err
	}
	_, err = buf.ReadFrom(r)
	return mt, buf.Bytes(), err
}

// linger reads and drops what the peer still sends once the server has
// begun to close (a flood, a protocol error, a refused hello), until the
// peer's answering close frame or the deadline the writer sets after
// sending ours. Closing a socket with data unread makes the kernel reset
// the connection, and the reset can destroy our close frame before the
// peer reads it: the peer saw 1006 instead of the code.
func linger(ws *websocket.Conn) {
	for {
		if _, _, err := ws.NextReader(); err != nil {
			return
		}
	}
}

// protocolError tells the client and closes with 1008.
func (c *conn) protocolError(msg string) {
	c.Send(errorMessage("bad_request", msg))
	c.Close(CloseProtocol, "protocol error")
}

func errorMessage(code, msg string) []byte { return protocol.Error(code, msg) }

// ClientKey is the Locals key under which a server may put the client's
// address as its rate limits know it, for the wrong-key budget.
const ClientKey = "banmen.clientKey"

// hello reads the first message and joins the room; nil means the
// connection is being closed with the reason already queued.
func (h *Handler) hello(c *conn, id, ip string) *room.Session {
	ws := c.ws
	ws.SetReadDeadline(time.Now().Add(h.cfg.HelloTimeout))
	mt, b, err := ws.ReadMessage()
	if err != nil {
		c.Close(CloseProtocol, "no hello") // (a frame too big got 1009 already)
		return nil
	}
	req, err := protocol.Decode(b)
	if mt != websocket.TextMessage || err != nil || req.Type != protocol.TypeHello {
		c.protocolError("the first message must be a hello")
		return nil
	}
	// A matching key or code is always accepted, whatever the address did
	// before (behind a proxy, every player may share one); only failures
	// count, and an address past its budget is told so. A seatKey that is
	// present but empty is a bad key, not "no key".
	if req.SeatKey == "" && req.Code == "" && bytes.Contains(b, []byte(`"seatKey"`)) {
		req.SeatKey = "\x00"
	}
	sess, err := h.cfg.Rooms.Join(context.Background(), id,
		room.Hello{SeatKey: req.SeatKey, Code: req.Code, Watch: req.Watch, Version: req.Version}, c)
	switch {
	case err == nil:
		return sess
	case errors.Is(err, room.ErrNotFound):
		c.Send(errorMessage("room_not_found", err.Error()))
		c.Close(CloseNotFound, "room not found")
	case errors.Is(err, room.ErrBadKey), errors.Is(err, room.ErrBadCode):
		if !h.badKey.Allow(ip) {
			c.Send(errorMessage("too_many_attempts", "too many wrong seat keys or codes from this address; try again later"))
			c.Close(CloseTooManyBad, "too many attempts")
			break
		}
		c.Send(errorMessage("bad_seat_key", err.Error()))
		c.Close(CloseBadKey, "bad seat key")
	case errors.Is(err, room.ErrTooManyWatchers):
		c.Send(errorMessage("too_many_watchers", err.Error()))
		c.Close(CloseFull, "too many watchers")
	case errors.Is(err, room.ErrTooManyAttempts):
		c.Send(errorMessage("too_many_attempts", err.Error()))
		c.Close(CloseTooManyBad, "too many attempts")
	case errors.Is(err, room.ErrRulesUnavailable):
		c.Send(errorMessage("unavailable", "this game is unavailable for a moment; try again"))
		c.Close(CloseTryLater, "try again later")
	default:
		h.cfg.Logger.Error("room join failed", "room", id, "err", err)
		c.Send(errorMessage("internal", "something went wrong on our side"))
		c.Close(CloseInternal, "internal error")
	}
	return nil
}

// credits are a connection's message allowance: burst at once, rate per
// second regained.
type credits struct {
	n, burst, rate float64
	at             time.Time
	now            func() time.Time
}

func newCredits(burst, rate int, now func() time.Time) *credits {
	return &credits{n: float64(burst), burst: float64(burst), rate: float64(rate), at: now(), now: now}
}

func (c *credits) take() bool {
	now := c.now()
	c.n = min(c.burst, c.n+now.Sub(c.at).Seconds()*c.rate)
	c.at = now
	if c.n < 1 {
		return false
	}
	c.n--
	return true
}

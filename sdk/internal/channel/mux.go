package channel

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"sync"
	"syscall"
	"time"

	"google.golang.org/protobuf/proto"
)

// The multiplexed lane. A connection that opens with the token and then
// MuxMagic carries many calls at once: in each direction a frame is
//
//	length uint32 (little endian, of what follows) | kind byte | id uint32 (little endian) | protobuf message
//
// A request's id is the host's choice and its reply carries it back, so the
// replies may come in any order. The host's callers queue their requests on
// one connection and whoever finds nobody writing writes everything queued
// in one system call (a leader flush: no writer goroutine to wake; what the
// socket does not take at once is left to a goroutine, so no caller waits
// in a write); while calls overlap it first waits a little for more (see
// overlap). Whoever holds the reader's role reads the replies, many a
// read, and hands each to its caller: a caller alone reads its own (no
// goroutine in between, as on a connection of its own), and while several
// wait a goroutine reads for them all (see readFor). The plugin reads every
// request already arrived, answers them one after another, and writes all
// the replies at once when no complete request is left in its buffer: a
// burst of N calls costs one read and one write on each side instead of N
// of each. BenchmarkCalls measured, both sides in one process, CPU per call
// against a trivial plugin: 9 µs alone, 4 µs with 16 callers and 2.7 µs
// with 256, where the one-call-per-connection pool it replaced cost 8.5–9
// µs at any load. Writes made by a writer goroutine instead of the callers
// cost 12 µs alone (a goroutine woken per call) and the same under load,
// so the callers write.
//
// Head-of-line blocking: the calls a room makes on every move (Play, View)
// are short and are answered in line. Start, Export, Import and Rewind
// (CallRewind: a View of an earlier ply) may replay a whole game, so the
// plugin answers each of them on a goroutine of its own; the Plays behind one go on
// being answered meanwhile (a plugin with GOMAXPROCS=1 shares its core
// between them as the Go scheduler does). The host keeps one connection per
// plugin: the plugin's rules calls are CPU-bound, so more connections would
// only spread the same work over more system calls. A Play that never
// returns (a bug in a variant) holds the calls queued behind it until
// their deadlines; a call that overruns its deadline retires its
// connection, so the calls after it go to a new one (see gaveUp) and the
// stuck call costs only its own connection.
//
// A cancelled caller returns at once with its context's error and its reply
// is dropped when it comes. A broken connection (an error reading or
// writing, or a frame that breaks these rules) fails every call waiting on
// it, and the next call dials a new one.

// CallRewind is View with ViewRequest.rewind set, sent under a kind of its
// own on the multiplexed lane so the plugin can tell it from a View (a
// rewind replays the game) without decoding the request.
const CallRewind byte = CallImport + 1

// MuxMagic follows the token on every connection: it names the lane's
// framing, so that a host and a plugin that frame otherwise part at once
// instead of misreading each other.
var MuxMagic = [4]byte{'B', 'M', 'X', '1'}

const (
	muxHeader = 9
	// flushAt is how many bytes of replies the plugin gathers before it
	// writes even with requests still waiting in its buffer.
	flushAt = 64 << 10
	// keepBuffer bounds a buffer kept after use: a huge export's is let go.
	keepBuffer = 1 << 20
)

// ErrBadFrame reports a frame that breaks the multiplexed lane's framing.
var ErrBadFrame = errors.New("channel: malformed frame")

// AppendMux appends a multiplexed frame holding m (or text, if m is nil) to
// buf.
func AppendMux(buf []byte, kind byte, id uint32, m proto.Message, text string) ([]byte, error) {
	start := len(buf)
	buf = append(buf, 0, 0, 0, 0, kind, 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(buf[start+5:], id)
	return finishFrame(buf, start, m, text)
}

// ParseMux parses the multiplexed frame at the start of b. size is the
// frame's whole length in bytes (header included); when it is more than
// len(b) the frame has not all arrived and nothing else is set (size is 4
// while even the length has not). A length below the header's or above
// MaxFrame is an error: the connection cannot be read any further.
func ParseMux(b []byte) (kind byte, id uint32, body []byte, size int, err error) {
	if len(b) < 4 {
		return 0, 0, nil, 4, nil
	}
	n := binary.LittleEndian.Uint32(b)
	if n > MaxFrame {
		return 0, 0, nil, 0, ErrFrameTooLarge
	}
	if n < muxHeader-4 {
		return 0, 0, nil, 0, fmt.Errorf("%w: length %d", ErrBadFrame, n)
	}
	size = 4 + int(n)
	if len(b) < size {
		return 0, 0, nil, size, nil
	}
	return b[4], binary.LittleEndian.Uint32(b[5:]), b[muxHeader:size:size], size, nil
}

// frameReader reads multiplexed frames from a connection, as many as each
// read brings.
type frameReader struct {
	r    io.Reader
	buf  []byte
	b, e int // buf[b:e] is read and not yet parsed
}

func newFrameReader(r io.Reader) *frameReader {
	return &frameReader{r: r, buf: make([]byte, readBuffer)}
}

// next returns the next frame already read, if it has all arrived. Its body
// is valid until the next fill.
func (fr *frameReader) next() (kind byte, id uint32, body []byte, ok bool, err error) {
	kind, id, body, size, err := ParseMux(fr.buf[fr.b:fr.e])
	if err != nil || size > fr.e-fr.b {
		return 0, 0, nil, false, err
	}
	fr.b += size
	return kind, id, body, true, nil
}

// fill reads once more, after making room for the frame begun.
func (fr *frameReader) fill() error {
	rest := fr.e - fr.b
	need := 4
	if rest >= 4 {
		need = 4 + int(binary.LittleEndian.Uint32(fr.buf[fr.b:])) // checked by next
	}
	switch {
	case need > len(fr.buf):
		buf := make([]byte, need)
		copy(buf, fr.buf[fr.b:fr.e])
		fr.buf = buf
	case rest == 0 && len(fr.buf) > keepBuffer:
		fr.buf = make([]byte, readBuffer)
	default:
		copy(fr.buf, fr.buf[fr.b:fr.e])
	}
	fr.b, fr.e = 0, rest
	n, err := fr.r.Read(fr.buf[fr.e:])
	fr.e += n
	if n > 0 {
		return nil
	}
	if err == nil {
		err = io.ErrNoProgress
	}
	return err
}

// ---- plugin side ----

// slowCall tells the calls the plugin answers on a goroutine of their own.
func slowCall(kind byte) bool {
	return kind == CallStart || kind == CallExport || kind == CallImport || kind == CallRewind
}

// replies gathers a connection's replies and writes them.
type replies struct {
	c       net.Conn
	mu      sync.Mutex
	out     []byte
	spare   []byte
	writing bool
	err     error
}

func (w *replies) add(id uint32, resp proto.Message, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err == nil {
		if w.out, err = AppendMux(w.out, ReplyOK, id, resp, ""); err == nil {
			return
		}
	}
	w.out, _ = AppendMux(w.out, ReplyFailed, id, nil, err.Error())
}

func (w *replies) pending() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.out)
}

// flush writes the replies gathered, and those gathered meanwhile, unless
// another goroutine is writing already (it will write them).
func (w *replies) flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.writing {
		return w.err
	}
	w.writing = true
	for len(w.out) > 0 && w.err == nil {
		buf := w.out
		w.out = w.spare[:0]
		w.mu.Unlock()
		_, err := w.c.Write(buf)
		w.mu.Lock()
		w.spare = nil
		if cap(buf) <= keepBuffer {
			w.spare = buf[:0]
		}
		if err != nil {
			w.err = err
		}
	}
	w.writing = false
	return w.err
}

// serveMux serves a connection of the multiplexed lane.
func (cs *Server) serveMux(c net.Conn) {
	w := &replies{c: c}
	fr := newFrameReader(c)
	for {
		for {
			kind, id, body, ok, err := fr.next()
			if err != nil {
				slog.Warn("channel: connection dropped", "err", err.Error())
				return
			}
			if !ok {
				break
			}
			if slowCall(kind) {
				body := append([]byte(nil), body...)
				go func() {
					resp, err := cs.handle(kind, body)
					w.add(id, resp, err)
					w.flush()
				}()
				continue
			}
			resp, err := cs.handle(kind, body)
			w.add(id, resp, err)
			if w.pending() >= flushAt {
				if w.flush() != nil {
					return
				}
			}
		}
		if w.flush() != nil {
			return
		}
		if err := fr.fill(); err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
				slog.Warn("channel: connection dropped", "err", err.Error())
			}
			return
		}
	}
}

// ---- host side ----

// Lane is the host's side of the multiplexed lane to one plugin's channel:
// one connection, dialled on demand and again after it breaks, carrying
// every call at once. Its methods are safe for concurrent use.
type Lane struct {
	addr  string
	token []byte

	mu      sync.Mutex
	cur     *lane
	dialing chan struct{} // closed when the dial in progress ends
	closed  bool
	dials   int
	// viaGoroutine leaves every write to a goroutine instead of its
	// caller (as without tryWrite): the benchmark's comparison.
	viaGoroutine bool
}

// NewLane returns the lane to the channel at addr; it dials on demand.
func NewLane(addr string, token []byte) *Lane { return &Lane{addr: addr, token: token} }

// Dials is how many connections the lane has dialled.
func (ch *Lane) Dials() int {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	return ch.dials
}

// Pending is how many calls wait for a reply now.
func (ch *Lane) Pending() int {
	ch.mu.Lock()
	l := ch.cur
	ch.mu.Unlock()
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.calls)
}

// Close fails every pending and later call with ErrClosed.
func (ch *Lane) Close() {
	ch.mu.Lock()
	ch.closed = true
	l := ch.cur
	ch.cur = nil
	ch.mu.Unlock()
	if l != nil {
		l.fail(ErrClosed)
	}
}

// lane is one connection of a Lane.
type lane struct {
	owner *Lane
	c     net.Conn
	raw   syscall.RawConn // nil: no write without waiting (tryWrite)

	mu      sync.Mutex
	out     []byte // frames queued, not yet being written
	spare   []byte
	writing bool // someone writes (and will write out too)
	calls   map[uint32]*call
	next    uint32
	err     error // the connection is broken: every call fails with it
	// reading: a caller or a goroutine holds the reader's role, and fr.
	reading bool
	fr      *frameReader
	// retired: a call on it overran its deadline, so the plugin may be
	// stuck in a call it answers in line, with every call sent after it
	// queued behind. New calls go to a new connection (served by a loop
	// of its own in the plugin); this one is closed when its last
	// waiting call has its answer or gives up.
	retired bool
	// overlap tells whether calls come often enough to be gathered.
	overlap overlap
	// While the writer gathers: gathered counts the calls queued, its
	// own included (0: not gathering), and the gatherMax-th kicks it to
	// write at once. timer is the writer's, reused.
	gathered int
	kick     chan struct{}
	timer    *time.Timer
}

// gather waits for gatherFor, or until gatherMax calls are queued. Only the
// writer calls it.
func (l *lane) gather() {
	if l.timer == nil {
		l.timer = time.NewTimer(gatherFor)
	} else {
		l.timer.Reset(gatherFor)
	}
	select {
	case <-l.timer.C:
	case <-l.kick:
		l.timer.Stop()
	}
}

// overlap follows how often a call is sent while another is in flight: a
// moving average over about the last eight calls, in 256ths. Past a
// quarter, the caller that writes first waits gatherFor, or until
// gatherMax calls are queued, so the calls that come meanwhile share its
// write, the plugin's read and write, and the reply's read. A caller that
// waits for each reply before its next call (a lone game, a test, a
// replay) never finds another in flight and is never made to wait. Rooms'
// moves are another matter: paced at 10,000 moves/s over 1000 rooms they
// came ~100 µs apart and were written one by one, each waking the plugin
// and, with its reply, the host; gathered, a write carries ~5–10 of them,
// and the host and the shogi plugin took ~9 µs less CPU a move between
// them, for ~0.5–1 ms on a move's round trip (the Go runtime's timers are
// that coarse when its threads sleep).
type overlap int32

const (
	gatherAt  = 64 // of 256
	gatherFor = 500 * time.Microsecond
	gatherMax = 16
)

// add counts one call sent, with another in flight or not, and says
// whether calls are to be gathered now.
func (o *overlap) add(other bool) bool {
	sample := overlap(0)
	if other {
		sample = 256
	}
	*o += (sample - *o) / 8
	return *o >= gatherAt
}

// call is one call waiting for its reply.
type call struct {
	done chan struct{} // one signal: the reply or err is set
	id   uint32
	kind byte
	body []byte
	err  error
	req  []byte
}

var callPool = sync.Pool{New: func() any { return &call{done: make(chan struct{}, 1)} }}

func putCall(cl *call) {
	if cap(cl.body) > keepBuffer {
		cl.body = nil
	}
	if cap(cl.req) > keepBuffer {
		cl.req = nil
	}
	cl.err = nil
	callPool.Put(cl)
}

// get returns the connection, dialling one if there is none.
func (ch *Lane) get(ctx context.Context) (*lane, error) {
	for {
		ch.mu.Lock()
		switch {
		case ch.closed:
			ch.mu.Unlock()
			return nil, ErrClosed
		case ch.cur != nil:
			l := ch.cur
			ch.mu.Unlock()
			return l, nil
		case ch.dialing != nil:
			d := ch.dialing
			ch.mu.Unlock()
			select {
			case <-d:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		d := make(chan struct{})
		ch.dialing = d
		ch.dials++
		ch.mu.Unlock()
		l, err := ch.dial(ctx)
		ch.mu.Lock()
		ch.dialing = nil
		close(d)
		if err == nil {
			if ch.closed {
				ch.mu.Unlock()
				l.fail(ErrClosed)
				return nil, ErrClosed
			}
			ch.cur = l
		}
		ch.mu.Unlock()
		if err != nil {
			return nil, err
		}
		return l, nil
	}
}

func (ch *Lane) dial(ctx context.Context) (*lane, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", ch.addr)
	if err != nil {
		return nil, err
	}
	// Token and magic in one write: a fresh socket's buffer takes them
	// without waiting.
	if _, err := c.Write(append(append([]byte{}, ch.token...), MuxMagic[:]...)); err != nil {
		c.Close()
		return nil, err
	}
	l := &lane{owner: ch, c: c, calls: make(map[uint32]*call), fr: newFrameReader(c), kick: make(chan struct{}, 1)}
	if sc, ok := c.(syscall.Conn); ok && canTryWrite && !ch.viaGoroutine {
		l.raw, _ = sc.SyscallConn()
	}
	return l, nil
}

// Call sends req and waits for the reply into resp, or for ctx's end.
func (ch *Lane) Call(ctx context.Context, kind byte, req, resp proto.Message) error {
	return ch.CallFunc(ctx, kind, req, func(body []byte) error { return proto.Unmarshal(body, resp) })
}

// CallFunc is Call with the reply's bytes handed to decode (which must not
// keep them) instead of proto.Unmarshal.
func (ch *Lane) CallFunc(ctx context.Context, kind byte, req proto.Message, decode func(body []byte) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	l, err := ch.get(ctx)
	if err != nil {
		return err
	}
	cl := callPool.Get().(*call)
	if cl.req, err = AppendMux(cl.req[:0], kind, 0, req, ""); err != nil {
		putCall(cl)
		return err
	}
	if err := l.send(cl); err != nil {
		putCall(cl)
		return err
	}
	l.mu.Lock()
	if l.reading || l.calls[cl.id] != cl {
		l.mu.Unlock()
	} else {
		l.reading = true
		l.mu.Unlock()
		if l.readFor(ctx, cl) {
			putCall(cl)
			return ch.gaveUp(ctx, l)
		}
	}
	select {
	case <-cl.done:
	case <-ctx.Done():
		if !l.forget(cl) {
			// Its reply (or the connection's failure) is being handed
			// over right now: wait for it, so cl can be reused.
			<-cl.done
		}
		putCall(cl)
		return ch.gaveUp(ctx, l)
	}
	defer putCall(cl)
	if cl.err != nil {
		return cl.err
	}
	if cl.kind == ReplyFailed {
		return fmt.Errorf("plugin: %s", cl.body)
	}
	return decode(cl.body)
}

// send queues cl's request and writes everything queued unless someone
// else is writing.
func (l *lane) send(cl *call) error {
	l.mu.Lock()
	if l.err != nil {
		err := l.err
		l.mu.Unlock()
		return err
	}
	l.next++
	cl.id = l.next
	binary.LittleEndian.PutUint32(cl.req[5:], cl.id)
	l.calls[cl.id] = cl
	l.out = append(l.out, cl.req...)
	gather := l.overlap.add(len(l.calls) > 1)
	if l.writing {
		if l.gathered > 0 {
			if l.gathered++; l.gathered == gatherMax {
				select {
				case l.kick <- struct{}{}:
				default:
				}
			}
		}
		l.mu.Unlock()
		return nil
	}
	l.writing = true
	if gather {
		// The calls that come meanwhile queue behind this one and go in
		// the same write.
		l.gathered = 1
		l.mu.Unlock()
		l.gather()
		l.mu.Lock()
		l.gathered = 0
		select {
		case <-l.kick: // one that came as the time ran out
		default:
		}
	}
	buf := l.out
	l.out, l.spare = l.spare[:0], nil
	l.mu.Unlock()
	l.write(buf, false)
	return nil
}

// write writes buf and then whatever is queued meanwhile, until nothing
// is. A caller writes only as much as the socket takes at once (wait
// false): the rest goes on a goroutine, so a caller whose context ends is
// never stuck in a write to a plugin that stopped reading.
func (l *lane) write(buf []byte, wait bool) {
	for {
		var n int
		var err error
		if wait || l.raw == nil {
			if !wait {
				go l.write(buf, true)
				return
			}
			n, err = l.c.Write(buf)
		} else {
			n, err = tryWrite(l.raw, buf)
		}
		if err != nil {
			l.fail(fmt.Errorf("channel: connection lost: %w", err))
			return
		}
		if n < len(buf) {
			go l.write(buf[n:], true)
			return
		}
		l.mu.Lock()
		if cap(buf) > keepBuffer {
			buf = nil
		}
		if len(l.out) == 0 {
			l.spare = buf[:0]
			l.writing = false
			l.mu.Unlock()
			return
		}
		buf, l.out = l.out, buf[:0]
		l.mu.Unlock()
	}
}

// gaveUp is a call's error when its context ended before its reply. A
// deadline retires the connection: the plugin answers Play and View in
// line, so one that never returns (a bug in a variant) would otherwise
// hold every later call behind it. A cancellation says nothing about the plugin and keeps it.
func (ch *Lane) gaveUp(ctx context.Context, l *lane) error {
	err := ctx.Err()
	if !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	ch.mu.Lock()
	if ch.cur == l {
		ch.cur = nil
	}
	ch.mu.Unlock()
	l.mu.Lock()
	l.retired = true
	l.mu.Unlock()
	l.closeIfDone()
	return err
}

// closeIfDone closes a retired connection once no call waits on it.
func (l *lane) closeIfDone() {
	l.mu.Lock()
	done := l.retired && len(l.calls) == 0 && !l.reading && l.err == nil
	l.mu.Unlock()
	if done {
		l.fail(errRetired)
	}
}

// errRetired closes a retired connection (no call waits to see it).
var errRetired = errors.New("channel: connection retired after a call overran its deadline")

// forget drops a call whose caller gives up; false if its reply is being
// handed over already.
func (l *lane) forget(cl *call) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.calls[cl.id] != cl {
		return false
	}
	delete(l.calls, cl.id)
	return true
}

// The reader's role. Whoever holds it reads the replies and hands each to
// its caller. A caller that finds nobody reading takes it and reads until
// its own reply has come, so a call alone on the connection costs what it
// did on a connection of its own (no goroutine between the socket and the
// caller, no thread woken for it); it then hands the role to a goroutine
// if other calls still wait, which reads as long as any does (under load,
// always: many replies a read, each handed over at once).

// readFor reads as cl's caller until cl's reply has come or ctx ends;
// true if ctx ended first and cl was dropped.
func (l *lane) readFor(ctx context.Context, cl *call) (gaveUp bool) {
	var fired chan struct{}
	var stop func() bool
	if ctx.Done() != nil {
		// ctx's end stops a blocked read (a read deadline in the past
		// loses nothing already read) and the role goes to the next.
		fired = make(chan struct{})
		stop = context.AfterFunc(ctx, func() {
			l.c.SetReadDeadline(time.Unix(1, 0))
			close(fired)
		})
	}
	err := l.readLoop(cl)
	if stop != nil && !stop() {
		<-fired
		l.c.SetReadDeadline(time.Time{})
		if err != nil && errors.Is(err, os.ErrDeadlineExceeded) {
			err = nil // ctx ended, not the connection
			gaveUp = l.forget(cl)
		}
	}
	if err != nil {
		l.fail(err)
		return false
	}
	l.passRole()
	return gaveUp
}

// passRole gives up the reader's role: to a goroutine while calls wait.
func (l *lane) passRole() {
	l.mu.Lock()
	if len(l.calls) == 0 || l.err != nil {
		l.reading = false
		l.mu.Unlock()
		l.closeIfDone()
		return
	}
	l.mu.Unlock()
	go l.readAside()
}

// readAside holds the reader's role while calls wait.
func (l *lane) readAside() {
	if err := l.readLoop(nil); err != nil {
		l.fail(err)
	}
}

// readLoop reads and hands out replies until mine's has come (mine nil:
// until no call waits, then the role is given up).
func (l *lane) readLoop(mine *call) error {
	fr := l.fr
	for {
		got := false
		for {
			kind, id, body, ok, err := fr.next()
			if err != nil {
				return fmt.Errorf("channel: bad reply from the plugin: %w", err)
			}
			if !ok {
				break
			}
			if kind != ReplyOK && kind != ReplyFailed {
				return fmt.Errorf("%w: unknown reply kind %d from the plugin", ErrBadFrame, kind)
			}
			l.mu.Lock()
			cl := l.calls[id]
			delete(l.calls, id)
			l.mu.Unlock()
			if cl == nil {
				continue // its caller gave up
			}
			cl.kind = kind
			cl.body = append(cl.body[:0], body...)
			got = got || cl == mine
			cl.done <- struct{}{}
		}
		if got {
			return nil
		}
		if mine == nil {
			l.mu.Lock()
			if len(l.calls) == 0 || l.err != nil {
				l.reading = false
				l.mu.Unlock()
				l.closeIfDone()
				return nil
			}
			l.mu.Unlock()
		}
		if err := fr.fill(); err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				return err
			}
			if errors.Is(err, net.ErrClosed) {
				err = io.EOF
			}
			return fmt.Errorf("channel: connection lost: %w", err)
		}
	}
}

// fail breaks the connection: every waiting call fails with err, and the
// next call dials again.
func (l *lane) fail(err error) {
	l.mu.Lock()
	if l.err != nil {
		l.mu.Unlock()
		return
	}
	l.err = err
	calls := l.calls
	l.calls = nil
	l.mu.Unlock()
	l.c.Close()
	for _, cl := range calls {
		cl.err = err
		cl.done <- struct{}{}
	}
	ch := l.owner
	ch.mu.Lock()
	if ch.cur == l {
		ch.cur = nil
	}
	ch.mu.Unlock()
}

package channel

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// echo is a trivial plugin: it answers a request's bytes with the same
// bytes, except "hang" (blocks until release is closed), "fail" (a failed
// call) and "big" (a reply of n bytes, n the rest of the request).
type echo struct{ release chan struct{} }

func (e echo) handle(kind byte, body []byte) (proto.Message, error) {
	req := new(wrapperspb.BytesValue)
	if err := proto.Unmarshal(body, req); err != nil {
		return nil, err
	}
	switch v := string(req.Value); {
	case v == "hang":
		<-e.release
	case v == "fail":
		return nil, errors.New("asked to fail")
	case strings.HasPrefix(v, "big"):
		var n int
		fmt.Sscan(v[3:], &n)
		return wrapperspb.Bytes(bytes.Repeat([]byte{'b'}, n)), nil
	}
	return req, nil
}

// startEcho serves echo on a real socket and returns the lane to it.
func startEcho(t testing.TB) (*Lane, *Server) {
	t.Helper()
	e := echo{release: make(chan struct{})}
	cs, err := Listen(e.handle)
	if err != nil {
		t.Fatal(err)
	}
	ch := NewLane(cs.Addr(), cs.Token())
	t.Cleanup(func() { close(e.release); ch.Close(); cs.Close() })
	return ch, cs
}

func do(ctx context.Context, ch interface {
	Call(context.Context, byte, proto.Message, proto.Message) error
}, kind byte, v string) (string, error) {
	resp := new(wrapperspb.BytesValue)
	err := ch.Call(ctx, kind, wrapperspb.Bytes([]byte(v)), resp)
	return string(resp.Value), err
}

func TestLaneCalls(t *testing.T) {
	ch, _ := startEcho(t)
	ctx := context.Background()
	if got, err := do(ctx, ch, CallPlay, "e2e4"); err != nil || got != "e2e4" {
		t.Fatalf("echo: %q %v", got, err)
	}
	if _, err := do(ctx, ch, CallPlay, "fail"); err == nil || !strings.Contains(err.Error(), "asked to fail") {
		t.Fatalf("a failed call must say why: %v", err)
	}
	// A reply above the socket's buffers, and a request too.
	if got, err := do(ctx, ch, CallExport, "big3000000"); err != nil || len(got) != 3000000 {
		t.Fatalf("big reply: %d bytes, %v", len(got), err)
	}
	long := strings.Repeat("x", 2<<20)
	if got, err := do(ctx, ch, CallImport, long); err != nil || got != long {
		t.Fatalf("big request: %d bytes, %v", len(got), err)
	}
	if got, err := do(ctx, ch, CallPlay, "after"); err != nil || got != "after" {
		t.Fatalf("after the big ones: %q %v", got, err)
	}
	if _, err := do(ctx, ch, CallPlay, strings.Repeat("x", MaxFrame)); !errors.Is(err, ErrFrameTooLarge) {
		t.Fatalf("a request above MaxFrame: %v", err)
	}
	if n := ch.Dials(); n != 1 {
		t.Fatalf("%d dials; every call shares one connection", n)
	}
}

// TestLaneConcurrentCalls: many callers at once, each reply to its caller
// (and calls gathered, the sixteenth queued waking the writer: 64 callers
// overlap).
func TestLaneConcurrentCalls(t *testing.T) {
	ch, _ := startEcho(t)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 64 {
		wg.Go(func() {
			for i := range 200 {
				want := fmt.Sprintf("caller %d call %d %s", g, i, strings.Repeat("p", (g*i)%300))
				kind := CallPlay
				if i%50 == 0 {
					kind = CallExport // answered on a goroutine of its own
				}
				got, err := do(context.Background(), ch, kind, want)
				if err == nil && got != want {
					err = fmt.Errorf("caller %d got %q", g, got)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n, p := ch.Dials(), ch.Pending(); n != 1 || p != 0 {
		t.Fatalf("%d dials, %d pending; want 1 and 0", n, p)
	}
}

func TestLaneDeadlineAndCancel(t *testing.T) {
	ch, _ := startEcho(t)
	// Exports are answered aside, so the hung ones leave the connection
	// serving.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := do(ctx, ch, CallExport, "hang"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a hung call must end at its deadline: %v", err)
	}
	if got, err := do(context.Background(), ch, CallPlay, "after"); err != nil || got != "after" {
		t.Fatalf("after a deadline: %q %v", got, err)
	}
	if n := ch.Dials(); n != 2 {
		t.Fatalf("%d dials: a deadline must retire the connection", n)
	}
	ctx, cancel = context.WithCancel(context.Background())
	done := make(chan error)
	go func() { _, err := do(ctx, ch, CallExport, "hang"); done <- err }()
	waitPending(ch, 1)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled call must end: %v", err)
	}
	if p := ch.Pending(); p != 0 {
		t.Fatalf("%d pending after the cancel; the cancelled call must be forgotten", p)
	}
	if got, err := do(context.Background(), ch, CallPlay, "next"); err != nil || got != "next" {
		t.Fatalf("after a cancel: %q %v", got, err)
	}
	if n := ch.Dials(); n != 2 {
		t.Fatalf("%d dials: a cancel must not cost the connection", n)
	}
}

// TestLaneHungPlayRetiresTheConnection: a Play is answered in line, so one
// that never returns holds the calls sent after it on its connection. Its
// deadline retires the connection: the next call goes to a new one (the
// plugin serves each connection in a loop of its own) and is answered.
func TestLaneHungPlayRetiresTheConnection(t *testing.T) {
	ch, _ := startEcho(t)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := do(ctx, ch, CallPlay, "hang"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a hung Play must end at its deadline: %v", err)
	}
	for i := range 10 {
		want := fmt.Sprint(i)
		if got, err := do(context.Background(), ch, CallPlay, want); err != nil || got != want {
			t.Fatalf("a Play after the hung one: %q %v", got, err)
		}
	}
	if n := ch.Dials(); n != 2 {
		t.Fatalf("%d dials, want 2: the hung Play's connection retired, one new", n)
	}
}

// waitPending waits until n calls wait for their replies.
func waitPending(ch *Lane, n int) {
	for ch.Pending() != n {
		runtime.Gosched()
	}
}

// TestLaneLateReplyIsDropped: the reply of a call whose caller gave up is
// dropped, and the next call on the connection gets its own.
func TestLaneLateReplyIsDropped(t *testing.T) {
	e := echo{release: make(chan struct{})}
	cs, err := Listen(e.handle)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	ch := NewLane(cs.Addr(), cs.Token())
	defer ch.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { _, err := do(ctx, ch, CallPlay, "hang"); done <- err }()
	waitPending(ch, 1)
	cancel()
	<-done
	close(e.release) // the hung call answers now, to nobody
	for range 10 {
		if got, err := do(context.Background(), ch, CallPlay, "mine"); err != nil || got != "mine" {
			t.Fatalf("after a late reply: %q %v", got, err)
		}
	}
}

// TestLaneSlowCallsDoNotBlockPlays: an Export that takes long does not hold
// the Plays behind it.
func TestLaneSlowCallsDoNotBlockPlays(t *testing.T) {
	ch, _ := startEcho(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, kind := range []byte{CallStart, CallExport, CallImport, CallRewind} {
		go do(ctx, ch, kind, "hang")
	}
	waitPending(ch, 4)
	for i := range 100 {
		want := fmt.Sprint(i)
		if got, err := do(context.Background(), ch, CallPlay, want); err != nil || got != want {
			t.Fatalf("play behind slow calls: %q %v", got, err)
		}
	}
}

// fakePlugin accepts connections of the lane on a socket and hands each to
// serve after reading the token and magic.
func fakePlugin(t *testing.T, serve func(c net.Conn)) *Lane {
	t.Helper()
	ln, addr, err := listen()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	token := bytes.Repeat([]byte{3}, TokenBytes)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				head := make([]byte, TokenBytes+len(MuxMagic))
				if _, err := io.ReadFull(c, head); err != nil || !bytes.Equal(head, append(append([]byte{}, token...), MuxMagic[:]...)) {
					t.Errorf("the lane opened with %x", head)
					return
				}
				serve(c)
			}()
		}
	}()
	ch := NewLane(addr, token)
	t.Cleanup(ch.Close)
	return ch
}

// TestLanePluginDies: a plugin gone with calls pending fails every one of
// them; the next call dials again.
func TestLanePluginDies(t *testing.T) {
	var conns sync.WaitGroup
	got := make(chan int, 1)
	e := echo{release: make(chan struct{})}
	defer close(e.release)
	cs := NewServer(e.handle, nil)
	var n int
	var mu sync.Mutex
	ch := fakePlugin(t, func(c net.Conn) {
		mu.Lock()
		n++
		first := n == 1
		mu.Unlock()
		if !first {
			cs.serveMux(c)
			return
		}
		// Read the 20 requests, then die.
		fr := newFrameReader(c)
		seen := 0
		for seen < 20 {
			for {
				_, _, _, ok, err := fr.next()
				if err != nil {
					t.Error(err)
					return
				}
				if !ok {
					break
				}
				seen++
			}
			if seen < 20 && fr.fill() != nil {
				return
			}
		}
		got <- seen
	})
	errs := make(chan error, 20)
	for i := range 20 {
		conns.Go(func() { _, err := do(context.Background(), ch, CallPlay, fmt.Sprint(i)); errs <- err })
	}
	<-got
	conns.Wait()
	close(errs)
	for err := range errs {
		if err == nil || !strings.Contains(err.Error(), "connection lost") {
			t.Fatalf("a call pending when the plugin died: %v", err)
		}
	}
	if got, err := do(context.Background(), ch, CallPlay, "again"); err != nil || got != "again" {
		t.Fatalf("the next call must dial again: %q %v", got, err)
	}
	if n := ch.Dials(); n != 2 {
		t.Fatalf("%d dials, want 2", n)
	}
}

// TestLaneRefusesHostileReplies: a reply that breaks the framing fails the
// call with a clear error and drops the connection.
func TestLaneRefusesHostileReplies(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		reply      []byte
	}{
		{"oversize", "frame too large", binary.LittleEndian.AppendUint32(nil, MaxFrame+1)},
		{"short", "malformed frame", []byte{2, 0, 0, 0, ReplyOK, 1}},
		{"unknown kind", "unknown reply kind 7", []byte{5, 0, 0, 0, 7, 1, 0, 0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ch := fakePlugin(t, func(c net.Conn) {
				fr := newFrameReader(c)
				for {
					if _, _, _, ok, _ := fr.next(); ok {
						break
					}
					if fr.fill() != nil {
						return
					}
				}
				c.Write(tc.reply)
				io.Copy(io.Discard, c) // until the host hangs up
			})
			_, err := do(context.Background(), ch, CallPlay, "x")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

// rawMux opens a connection of the lane to cs and writes head.
func rawMux(t *testing.T, cs *Server) net.Conn {
	t.Helper()
	c, err := net.Dial("unix", cs.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write(append(append([]byte{}, cs.Token()...), MuxMagic[:]...)); err != nil {
		t.Fatal(err)
	}
	return c
}

func request(t *testing.T, kind byte, id uint32, v string) []byte {
	b, err := AppendMux(nil, kind, id, wrapperspb.Bytes([]byte(v)), "")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readReplies reads n replies from c and returns their values by id.
func readReplies(t *testing.T, c net.Conn, n int) (map[uint32]string, int) {
	t.Helper()
	fr := newFrameReader(c)
	out := map[uint32]string{}
	reads := 0
	for len(out) < n {
		for {
			kind, id, body, ok, err := fr.next()
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			v := new(wrapperspb.BytesValue)
			if kind != ReplyOK || proto.Unmarshal(body, v) != nil {
				out[id] = fmt.Sprintf("failed(%d): %s", kind, body)
				continue
			}
			out[id] = string(v.Value)
		}
		if len(out) < n {
			if err := fr.fill(); err != nil {
				t.Fatalf("after %d replies: %v", len(out), err)
			}
			reads++
		}
	}
	return out, reads
}

// TestMuxServerFraming: many requests in one write are answered (in one
// write: the host reads them with one read), and requests split across
// writes at every byte are read whole.
func TestMuxServerFraming(t *testing.T) {
	_, cs := startEcho(t)
	c := rawMux(t, cs)
	var burst []byte
	for i := range uint32(100) {
		burst = append(burst, request(t, CallPlay, 1000+i, fmt.Sprint("m", i))...)
	}
	if _, err := c.Write(burst); err != nil {
		t.Fatal(err)
	}
	got, _ := readReplies(t, c, 100)
	for i := range uint32(100) {
		if got[1000+i] != fmt.Sprint("m", i) {
			t.Fatalf("reply %d: %q", 1000+i, got[1000+i])
		}
	}
	// One byte at a time: every split of a frame.
	f := append(request(t, CallPlay, 7, "split"), request(t, CallView, 8, "")...)
	for i := range f {
		if _, err := c.Write(f[i : i+1]); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := readReplies(t, c, 2); got[7] != "split" || got[8] != "" {
		t.Fatalf("split frames: %v", got)
	}
	// Garbage protobuf and an unknown call: failed replies, and the
	// connection goes on.
	c.Write([]byte{9, 0, 0, 0, CallPlay, 1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff})
	c.Write(request(t, 99, 2, "what"))
	c.Write(request(t, CallPlay, 3, "fine"))
	got, _ = readReplies(t, c, 3)
	if !strings.HasPrefix(got[1], "failed(1)") || got[2] != "what" || got[3] != "fine" {
		t.Fatalf("garbage: %v", got)
	}
}

func TestMuxServerRefusesHostileFrames(t *testing.T) {
	_, cs := startEcho(t)
	for _, f := range [][]byte{
		binary.LittleEndian.AppendUint32(nil, MaxFrame+1),
		{0, 0, 0, 0},
		{4, 0, 0, 0, CallPlay, 1, 0, 0},
	} {
		c := rawMux(t, cs)
		c.Write(f)
		if _, err := c.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
			t.Errorf("frame %x: the connection must be dropped, got %v", f, err)
		}
	}
	// A connection that does not name the lane after the token (the
	// framing of an older host, one call per connection) is refused.
	c, err := net.Dial("unix", cs.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	c.Write(append(append([]byte{}, cs.Token()...), 7, 0, 0, 0, CallPlay, 0x0a, 0x03, 'o', 'l', 'd'))
	if _, err := c.Read(make([]byte, 1)); !errors.Is(err, io.EOF) && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("a connection without the lane's magic must be dropped, got %v", err)
	}
}

// FuzzParseMux: any bytes parse into frames or an error, never a panic,
// and a parsed frame encodes back to the same bytes.
func FuzzParseMux(f *testing.F) {
	f.Add([]byte{5, 0, 0, 0, CallPlay, 1, 0, 0, 0})
	f.Add([]byte{7, 0, 0, 0, ReplyFailed, 9, 0, 0, 0, 'n', 'o', 3})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 1})
	f.Add([]byte{2, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		for len(b) > 0 {
			kind, id, body, size, err := ParseMux(b)
			if err != nil {
				return
			}
			if size > len(b) {
				if size < 4 || (len(b) >= 4 && size != 4+int(binary.LittleEndian.Uint32(b))) {
					t.Fatalf("incomplete frame of size %d from %x", size, b)
				}
				return
			}
			again, err := AppendMux(nil, kind, id, nil, string(body))
			if err != nil || !bytes.Equal(again, b[:size]) {
				t.Fatalf("%x parsed as %d %d %x, which encodes as %x (%v)", b[:size], kind, id, body, again, err)
			}
			b = b[size:]
		}
	})
}

// FuzzMuxServer feeds the plugin's side of the lane arbitrary bytes after
// the token and magic: it must answer or hang up, never panic or hang.
func FuzzMuxServer(f *testing.F) {
	f.Add([]byte{9, 0, 0, 0, CallPlay, 1, 0, 0, 0, 0x0a, 0x01, 'x', 0})
	f.Add([]byte{5, 0, 0, 0, CallExport, 1, 0, 0, 0, 5, 0, 0, 0, CallPlay, 1, 0, 0, 0})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	e := echo{release: make(chan struct{})}
	cs := NewServer(e.handle, bytes.Repeat([]byte{1}, TokenBytes))
	f.Fuzz(func(t *testing.T, data []byte) {
		if bytes.Contains(data, []byte("hang")) || bytes.Contains(data, []byte("big")) {
			t.Skip("the echo's hang blocks by design; big is slow")
		}
		host, plugin := net.Pipe()
		done := make(chan struct{})
		go func() { cs.ServeConn(plugin); close(done) }()
		go io.Copy(io.Discard, host)
		host.SetWriteDeadline(time.Now().Add(5 * time.Second))
		host.Write(cs.Token())
		host.Write(MuxMagic[:])
		host.Write(data)
		host.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("the lane did not hang up")
		}
	})
}

// TestLaneReaderGivesUp: the caller reading for everyone gives up (its
// context ends) while another call waits: the other still gets its reply.
func TestLaneReaderGivesUp(t *testing.T) {
	e := echo{release: make(chan struct{})}
	cs, err := Listen(e.handle)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	ch := NewLane(cs.Addr(), cs.Token())
	defer ch.Close()
	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan error)
	go func() { _, err := do(ctx, ch, CallExport, "hang"); first <- err }()
	waitPending(ch, 1) // the first caller reads: nobody else does
	second := make(chan error)
	go func() {
		got, err := do(context.Background(), ch, CallImport, "hang")
		if err == nil && got != "hang" {
			err = fmt.Errorf("got %q", got)
		}
		second <- err
	}()
	waitPending(ch, 2)
	cancel()
	if err := <-first; !errors.Is(err, context.Canceled) {
		t.Fatalf("the reading caller: %v", err)
	}
	close(e.release)
	if err := <-second; err != nil {
		t.Fatalf("the call left waiting: %v", err)
	}
	if got, err := do(context.Background(), ch, CallPlay, "then"); err != nil || got != "then" || ch.Dials() != 1 {
		t.Fatalf("then: %q %v, %d dials", got, err, ch.Dials())
	}
}

// TestLaneReadsRepliesInAnyOrder: replies out of order, many in one write
// and one split across writes at every byte reach their callers.
func TestLaneReadsRepliesInAnyOrder(t *testing.T) {
	const n = 10
	ch := fakePlugin(t, func(c net.Conn) {
		fr := newFrameReader(c)
		type req struct {
			id   uint32
			body []byte
		}
		var reqs []req
		for len(reqs) < n {
			for {
				_, id, body, ok, err := fr.next()
				if err != nil {
					t.Error(err)
					return
				}
				if !ok {
					break
				}
				reqs = append(reqs, req{id, append([]byte(nil), body...)})
			}
			if len(reqs) < n && fr.fill() != nil {
				return
			}
		}
		var out []byte
		for i := n - 1; i > 0; i-- { // all but the first, last first
			out, _ = AppendMux(out, ReplyOK, reqs[i].id, nil, string(reqs[i].body))
		}
		c.Write(out)
		last, _ := AppendMux(nil, ReplyOK, reqs[0].id, nil, string(reqs[0].body))
		for i := range last {
			c.Write(last[i : i+1])
		}
		io.Copy(io.Discard, c)
	})
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			want := fmt.Sprint("call ", i)
			got, err := do(context.Background(), ch, CallPlay, want)
			if err == nil && got != want {
				err = fmt.Errorf("%q got %q", want, got)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestOverlapGathersOnlyConcurrentCalls: a caller that waits for each
// reply before its next call never finds another in flight and is never
// made to wait; calls that overlap are gathered once a quarter of the
// recent ones did, and no longer once they stop overlapping.
func TestOverlapGathersOnlyConcurrentCalls(t *testing.T) {
	var o overlap
	for i := range 10000 {
		if o.add(false) {
			t.Fatalf("call %d gathered with none other in flight", i)
		}
	}
	gathered := -1
	for i := range 8 {
		if o.add(true) {
			gathered = i
			break
		}
	}
	if gathered < 0 {
		t.Fatal("eight overlapping calls in a row were not gathered")
	}
	// Paced calls: one in three finds another in flight.
	for i := range 300 {
		o.add(i%3 == 0)
	}
	if !o.add(false) {
		t.Error("a third of the calls overlapping: not gathered")
	}
	for i := range 32 {
		if !o.add(false) {
			return
		}
		if i == 31 {
			t.Error("still gathering after 32 calls alone")
		}
	}
}

package serve

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
	"testing"
	"time"

	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/internal/channel"
	"github.com/banmen/banmen/sdk/internal/wire"
)

// counter is a variant whose state is a count: "+" adds one, "hang" blocks
// until the test ends, "panic" panics, anything else is a rule error.
type counter struct{ release chan struct{} }

func (counter) Describe() sdk.Description { return sdk.Description{ID: "counter", RulesVersion: "7"} }
func (counter) Start(sdk.Options) (sdk.State, sdk.View, error) {
	return sdk.State{0}, sdk.View{Status: sdk.Playing}, nil
}
func (c counter) Play(s sdk.State, _ sdk.Seat, m sdk.Move) (sdk.State, sdk.View, error) {
	switch m {
	case "+":
		return sdk.State{s[0] + 1}, sdk.View{Status: sdk.Playing, Ply: int(s[0]) + 1}, nil
	case "hang":
		<-c.release
		return s, sdk.View{}, nil
	case "panic":
		panic("counter: asked to")
	}
	return nil, sdk.View{}, sdk.Errorf(sdk.CodeBadMove, "no move %q", m)
}
func (counter) View(s sdk.State) (sdk.View, error) {
	return sdk.View{Status: sdk.Playing, Ply: int(s[0])}, nil
}
func (counter) Suggest(_ context.Context, _ sdk.State, seat sdk.Seat, _ sdk.Level) (sdk.Move, error) {
	if seat != 2 { // the seat to move, whatever the count: proves the seat travels
		return "", sdk.Errorf(sdk.CodeNotYourTurn, "seat %d is not to move", seat)
	}
	return "+", nil
}
func (counter) Export(s sdk.State, format string) (string, error) {
	return strings.Repeat("x", int(s[0])), nil
}
func (counter) Import(format, text string) (sdk.State, sdk.View, error) {
	return sdk.State{byte(len(text))}, sdk.View{Status: sdk.Playing, Ply: len(text)}, nil
}

// startChannel serves the counter variant on a channel and returns a host
// side for it.
func startChannel(t *testing.T) (*channel.Client, *channel.Server) {
	t.Helper()
	release := make(chan struct{})
	reg, err := newRegistry([]sdk.Variant{counter{release: release}})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := channel.Listen((&server{reg: reg}).dispatch)
	if err != nil {
		t.Fatal(err)
	}
	ch := channel.NewClient(cs.Addr(), cs.Token())
	t.Cleanup(func() { close(release); ch.Close(); cs.Close() })
	return ch, cs
}

func play(ctx context.Context, ch *channel.Client, s sdk.State, m sdk.Move) (*wire.GameResponse, error) {
	r := new(wire.GameResponse)
	err := ch.Call(ctx, channel.CallPlay, &wire.PlayRequest{Variant: "counter", State: s, Move: string(m)}, r)
	return r, err
}

func TestChannelCalls(t *testing.T) {
	ch, _ := startChannel(t)
	ctx := context.Background()
	r, err := play(ctx, ch, sdk.State{41}, "+")
	if err != nil || r.Error != nil || !bytes.Equal(r.State, sdk.State{42}) || r.View.Ply != 42 {
		t.Fatalf("play: %v %v", r, err)
	}
	r, err = play(ctx, ch, sdk.State{1}, "sideways")
	if err != nil || r.Error == nil || r.Error.Code != sdk.CodeBadMove {
		t.Fatalf("a rule error must travel in the reply: %v %v", r, err)
	}
	r, err = play(ctx, ch, sdk.State{1}, "panic")
	if err == nil || !strings.Contains(err.Error(), "panicked") {
		t.Fatalf("a panic must fail the call: %v %v", r, err)
	}
	r, err = play(ctx, ch, sdk.State{1}, "+")
	if err != nil || r.View.Ply != 2 {
		t.Fatalf("after a panic the channel must go on: %v %v", r, err)
	}
	e := new(wire.ExportResponse)
	if err := ch.Call(ctx, channel.CallExport, &wire.ExportRequest{Variant: "counter", State: sdk.State{3}}, e); err != nil || e.Text != "xxx" {
		t.Fatalf("export: %v %v", e, err)
	}
	r = new(wire.GameResponse)
	if err := ch.Call(ctx, channel.CallImport, &wire.ImportRequest{Variant: "counter", Text: "abcd"}, r); err != nil || r.View.Ply != 4 {
		t.Fatalf("import: %v %v", r, err)
	}
	r = new(wire.GameResponse)
	if err := ch.Call(ctx, channel.CallPlay, &wire.PlayRequest{Variant: "chess", State: sdk.State{1}, Move: "+"}, r); err != nil || r.Error == nil {
		t.Fatalf("an unknown variant is a rule error: %v %v", r, err)
	}
	if ch.Idle() != 1 {
		t.Errorf("one caller at a time needs one connection, the pool has %d", ch.Idle())
	}
}

func TestChannelDeadlineAndCancel(t *testing.T) {
	ch, _ := startChannel(t)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := play(ctx, ch, sdk.State{0}, "hang")
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > time.Second {
		t.Fatalf("a hung call must end at its deadline: %v after %v", err, time.Since(start))
	}
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	if _, err := play(ctx, ch, sdk.State{0}, "hang"); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled call must end: %v", err)
	}
	if ch.Idle() != 0 {
		t.Fatalf("a connection whose call was cut short must not be reused")
	}
	if r, err := play(context.Background(), ch, sdk.State{0}, "+"); err != nil || r.View.Ply != 1 {
		t.Fatalf("the next call must work: %v %v", r, err)
	}
}

func TestChannelConcurrentCalls(t *testing.T) {
	ch, _ := startChannel(t)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				n := byte(g*16 + i%16)
				r, err := play(context.Background(), ch, sdk.State{n}, "+")
				if err == nil && !bytes.Equal(r.State, sdk.State{n + 1}) {
					err = errors.New("a reply went to the wrong caller")
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := ch.Idle(); n < 1 || n > 8 {
		t.Fatalf("pool holds %d connections after 8 callers", n)
	}
}

// dialRaw connects to the channel and sends head.
func dialRaw(t *testing.T, cs *channel.Server, head []byte) net.Conn {
	t.Helper()
	c, err := net.Dial("unix", cs.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write(head); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestChannelRefusesHostileInput(t *testing.T) {
	ch, cs := startChannel(t)
	closed := func(c net.Conn) bool {
		_, err := c.Read(make([]byte, 1))
		return errors.Is(err, io.EOF)
	}
	// A wrong token: the connection is closed without an answer.
	if c := dialRaw(t, cs, bytes.Repeat([]byte{7}, channel.TokenBytes)); !closed(c) {
		t.Error("a connection with a wrong token was kept")
	}
	// A frame longer than the limit: closed.
	huge := binary.LittleEndian.AppendUint32(append([]byte{}, cs.Token()...), channel.MaxFrame+1)
	if c := dialRaw(t, cs, append(huge, channel.CallPlay)); !closed(c) {
		t.Error("an oversized frame was accepted")
	}
	// A zero-length frame: closed.
	if c := dialRaw(t, cs, append(append([]byte{}, cs.Token()...), 0, 0, 0, 0, channel.CallPlay)); !closed(c) {
		t.Error("an empty frame was accepted")
	}
	// Garbage protobuf and an unknown call: a failed reply, and the
	// connection still serves.
	c := dialRaw(t, cs, cs.Token())
	for _, f := range [][]byte{{4, 0, 0, 0, channel.CallPlay, 0xff, 0xff, 0xff}, {1, 0, 0, 0, 99}} {
		if _, err := c.Write(f); err != nil {
			t.Fatal(err)
		}
		kind, body, _, err := channel.ReadFrame(c, nil)
		if err != nil || kind != channel.ReplyFailed || len(body) == 0 {
			t.Fatalf("hostile frame %v: reply %d %q %v", f, kind, body, err)
		}
	}
	// The host's own calls are unaffected.
	if r, err := play(context.Background(), ch, sdk.State{5}, "+"); err != nil || r.View.Ply != 6 {
		t.Fatalf("after hostile connections: %v %v", r, err)
	}
}

// FuzzChannelFrames feeds the plugin's side of the channel arbitrary bytes
// after a valid token: it must answer or hang up, never panic or hang.
func FuzzChannelFrames(f *testing.F) {
	f.Add([]byte{4, 0, 0, 0, channel.CallPlay, 0x0a, 0x01, 'x'})
	f.Add([]byte{1, 0, 0, 0, channel.CallView})
	f.Add([]byte{2, 0, 0, 0, channel.CallImport, 0xff})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	reg, err := newRegistry([]sdk.Variant{counter{release: make(chan struct{})}})
	if err != nil {
		f.Fatal(err)
	}
	cs := channel.NewServer((&server{reg: reg}).dispatch, bytes.Repeat([]byte{1}, channel.TokenBytes))
	f.Fuzz(func(t *testing.T, data []byte) {
		if bytes.Contains(data, []byte("hang")) {
			t.Skip("the counter's hang move blocks by design")
		}
		host, plugin := net.Pipe()
		done := make(chan struct{})
		go func() { cs.ServeConn(plugin); close(done) }()
		go io.Copy(io.Discard, host)
		host.SetWriteDeadline(time.Now().Add(5 * time.Second))
		host.Write(cs.Token())
		host.Write(data)
		host.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("the channel did not hang up")
		}
	})
}

// TestChannelPoolIsBounded: many more callers than MaxConns share at most
// MaxConns connections, each dialled once and kept (the old pool closed
// every connection beyond 16 and dialled again on each call under load).
func TestChannelPoolIsBounded(t *testing.T) {
	ch, _ := startChannel(t)
	var wg sync.WaitGroup
	errs := make(chan error, 4*channel.MaxConns)
	for range 4 * channel.MaxConns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				if _, err := play(context.Background(), ch, sdk.State{1}, "+"); err != nil {
					errs <- err
					return
				}
				if open, _ := ch.Stats(); open > channel.MaxConns {
					errs <- fmt.Errorf("%d connections open, more than %d", open, channel.MaxConns)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	open, dialled := ch.Stats()
	if open > channel.MaxConns || dialled > channel.MaxConns || ch.Idle() != open {
		t.Fatalf("after %d callers: %d open, %d dialled, %d idle; want at most %d dialled, all idle",
			4*channel.MaxConns, open, dialled, ch.Idle(), channel.MaxConns)
	}
}

// TestChannelWaitsForAFreeConnection: with every connection in a call that
// hangs, the next call waits for one until its deadline.
func TestChannelWaitsForAFreeConnection(t *testing.T) {
	ch, _ := startChannel(t)
	hung := make(chan struct{}, channel.MaxConns)
	for range channel.MaxConns {
		go func() {
			hung <- struct{}{}
			play(context.Background(), ch, sdk.State{0}, "hang")
		}()
	}
	for range channel.MaxConns {
		<-hung
	}
	for {
		if open, _ := ch.Stats(); open == channel.MaxConns {
			break
		}
		runtime.Gosched()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := play(ctx, ch, sdk.State{0}, "+"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a call with every connection busy must wait until its deadline: %v", err)
	}
	if open, dialled := ch.Stats(); open != channel.MaxConns || dialled != channel.MaxConns {
		t.Fatalf("%d open, %d dialled; want %d and %d", open, dialled, channel.MaxConns, channel.MaxConns)
	}
}

// TestLaneServesTheCalls: the multiplexed lane reaches the same handlers,
// Rewind under a kind of its own.
func TestLaneServesTheCalls(t *testing.T) {
	_, cs := startChannel(t)
	ch := channel.NewLane(cs.Addr(), cs.Token())
	defer ch.Close()
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 16 {
		wg.Go(func() {
			for i := range 50 {
				n := byte(g*16 + i%16)
				r := new(wire.GameResponse)
				err := ch.Call(ctx, channel.CallPlay, &wire.PlayRequest{Variant: "counter", State: sdk.State{n}, Move: "+"}, r)
				if err == nil && !bytes.Equal(r.State, sdk.State{n + 1}) {
					err = fmt.Errorf("a reply went to the wrong caller: %v for %d", r.State, n)
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
	r := new(wire.GameResponse)
	if err := ch.Call(ctx, channel.CallPlay, &wire.PlayRequest{Variant: "counter", State: sdk.State{1}, Move: "panic"}, r); err == nil || !strings.Contains(err.Error(), "panicked") {
		t.Fatalf("a panic must fail the call: %v", err)
	}
	e := new(wire.ExportResponse)
	if err := ch.Call(ctx, channel.CallExport, &wire.ExportRequest{Variant: "counter", State: sdk.State{3}}, e); err != nil || e.Text != "xxx" {
		t.Fatalf("export: %v %v", e, err)
	}
	r = new(wire.GameResponse)
	if err := ch.Call(ctx, channel.CallImport, &wire.ImportRequest{Variant: "counter", Text: "abcd"}, r); err != nil || r.View.Ply != 4 {
		t.Fatalf("import: %v %v", r, err)
	}
	r = new(wire.GameResponse)
	if err := ch.Call(ctx, channel.CallRewind, &wire.ViewRequest{Variant: "counter", State: sdk.State{3}, Rewind: true, Ply: 1}, r); err != nil || r.Error == nil || r.Error.Code != sdk.CodeUnsupported {
		t.Fatalf("rewind of a variant without it: %v %v", r, err)
	}
	if ch.Dials() != 1 {
		t.Fatalf("%d dials for one lane", ch.Dials())
	}
}

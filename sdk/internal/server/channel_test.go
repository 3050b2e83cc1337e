package server

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"
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
func startChannel(t *testing.T) (*channel.Lane, *channel.Server) {
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
	ch := channel.NewLane(cs.Addr(), cs.Token())
	t.Cleanup(func() { close(release); ch.Close(); cs.Close() })
	return ch, cs
}

func play(ctx context.Context, ch *channel.Lane, s sdk.State, m sdk.Move) (*wire.GameResponse, error) {
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
	if ch.Dials() != 1 {
		t.Errorf("one caller at a time needs one connection, the lane dialled %d", ch.Dials())
	}
}

// TestChannelDeadlineAndCancel: a Play that hangs in the variant ends at
// its caller's deadline, and the next call goes to a new connection (the
// hung one stays busy); a cancelled call ends too.
func TestChannelDeadlineAndCancel(t *testing.T) {
	ch, _ := startChannel(t)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := play(ctx, ch, sdk.State{0}, "hang")
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > time.Second {
		t.Fatalf("a hung call must end at its deadline: %v after %v", err, time.Since(start))
	}
	if r, err := play(context.Background(), ch, sdk.State{0}, "+"); err != nil || r.View.Ply != 1 {
		t.Fatalf("the next call must work: %v %v", r, err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	if _, err := play(ctx, ch, sdk.State{0}, "hang"); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled call must end: %v", err)
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
	// Closed: an end of file, or a reset when the plugin hung up on
	// bytes it had not read.
	closed := func(c net.Conn) bool {
		_, err := c.Read(make([]byte, 1))
		return errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)
	}
	head := append(append([]byte{}, cs.Token()...), channel.MuxMagic[:]...)
	// A wrong token: the connection is closed without an answer.
	if c := dialRaw(t, cs, bytes.Repeat([]byte{7}, channel.TokenBytes+len(channel.MuxMagic))); !closed(c) {
		t.Error("a connection with a wrong token was kept")
	}
	// The token without the lane's magic (another framing): closed.
	if c := dialRaw(t, cs, append(append([]byte{}, cs.Token()...), 5, 0, 0, 0, channel.CallPlay)); !closed(c) {
		t.Error("a connection that does not name the lane was kept")
	}
	// A frame longer than the limit: closed.
	huge := binary.LittleEndian.AppendUint32(append([]byte{}, head...), channel.MaxFrame+1)
	if c := dialRaw(t, cs, append(huge, channel.CallPlay, 1, 0, 0, 0)); !closed(c) {
		t.Error("an oversized frame was accepted")
	}
	// A frame shorter than its header: closed.
	if c := dialRaw(t, cs, append(append([]byte{}, head...), 0, 0, 0, 0, channel.CallPlay)); !closed(c) {
		t.Error("an empty frame was accepted")
	}
	// Garbage protobuf and an unknown call: a failed reply, and the
	// connection still serves.
	c := dialRaw(t, cs, head)
	for _, f := range [][]byte{
		{8, 0, 0, 0, channel.CallPlay, 1, 0, 0, 0, 0xff, 0xff, 0xff},
		{5, 0, 0, 0, 99, 2, 0, 0, 0},
	} {
		if _, err := c.Write(f); err != nil {
			t.Fatal(err)
		}
		var got []byte
		for {
			buf := make([]byte, 4096)
			n, err := c.Read(buf)
			if err != nil {
				t.Fatalf("hostile frame %v: %v", f, err)
			}
			got = append(got, buf[:n]...)
			kind, id, body, size, err := channel.ParseMux(got)
			if err != nil {
				t.Fatal(err)
			}
			if size > len(got) {
				continue
			}
			if kind != channel.ReplyFailed || id != uint32(f[5]) || len(body) == 0 {
				t.Fatalf("hostile frame %v: reply %d to %d %q", f, kind, id, body)
			}
			break
		}
	}
	// The host's own calls are unaffected.
	if r, err := play(context.Background(), ch, sdk.State{5}, "+"); err != nil || r.View.Ply != 6 {
		t.Fatalf("after hostile connections: %v %v", r, err)
	}
}

// FuzzChannelFrames feeds the plugin's side of the channel, the variant
// behind it, arbitrary bytes after a valid token and the lane's magic: it
// must answer or hang up, never panic or hang.
func FuzzChannelFrames(f *testing.F) {
	f.Add([]byte{8, 0, 0, 0, channel.CallPlay, 1, 0, 0, 0, 0x0a, 0x01, 'x'})
	f.Add([]byte{5, 0, 0, 0, channel.CallView, 1, 0, 0, 0})
	f.Add([]byte{6, 0, 0, 0, channel.CallImport, 1, 0, 0, 0, 0xff})
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
		host.Write(channel.MuxMagic[:])
		host.Write(data)
		host.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("the channel did not hang up")
		}
	})
}

// TestLaneServesTheCalls: the multiplexed lane reaches the same handlers,
// Rewind under a kind of its own.
func TestLaneServesTheCalls(t *testing.T) {
	ch, _ := startChannel(t)
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

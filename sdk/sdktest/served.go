package sdktest

import (
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"testing"

	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/internal/channel"
	"github.com/banmen/banmen/sdk/internal/server"
	"github.com/banmen/banmen/sdk/internal/wire"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// BenchmarkServedPlay measures a Play call as a plugin process serves it to
// the host: the request's bytes in, the reply frame's bytes out, through
// the plugin server's own code (server.Local: the request's decoding, the
// variant, the packed View, the response's encoding), under the plugin's
// collector setting. rooms games of v are played at once, round robin,
// each spread over the game at the start and cut at maxPly (then started
// again, as the load command's rooms resign and start a new round); every
// request carries the state the room's last reply returned, so the
// variant's cache sees what it sees in a live room, and asks for the
// history from the room's ply on, as a room does (host.PlayRequest.HistoryFrom). The
// move is a random listed one, read from the reply's packed legal list
// (actions are not chosen). It reports the process's CPU time per call
// (cpu-µs/op) and the reply's bytes beside the time.
func BenchmarkServedPlay(b *testing.B, v sdk.Variant, rooms, maxPly int) {
	b.Helper()
	defer debug.SetGCPercent(debug.SetGCPercent(server.GCPercent))
	l, err := server.NewLocal(v)
	if err != nil {
		b.Fatal(err)
	}
	bs := &servedBench{l: l, id: v.Describe().ID, rng: rand.New(rand.NewPCG(1, 2)), maxPly: maxPly}
	rs := make([]servedRoom, rooms)
	for i := range rs {
		if err := bs.start(&rs[i]); err != nil {
			b.Fatal(err)
		}
		for range i * maxPly / rooms {
			if err := bs.move(&rs[i]); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportAllocs()
	var bytes int
	c := processCPU()
	i := 0
	for b.Loop() {
		if err := bs.move(&rs[i%len(rs)]); err != nil {
			b.Fatal(err)
		}
		bytes += len(bs.out)
		i++
	}
	b.ReportMetric(float64((processCPU()-c).Microseconds())/float64(b.N), "cpu-µs/op")
	b.ReportMetric(float64(bytes)/float64(b.N), "reply-bytes/op")
}

type servedBench struct {
	l        *server.Local
	id       string
	rng      *rand.Rand
	maxPly   int
	req, out []byte
	play     wire.PlayRequest
}

// servedRoom is one game: the state and what the last reply said.
type servedRoom struct {
	state  []byte
	ply    int
	over   bool
	legal  []byte // the packed legal list
	calls  int
	starts int
}

func (bs *servedBench) start(r *servedRoom) error {
	var err error
	bs.req, err = proto.MarshalOptions{}.MarshalAppend(bs.req[:0], &wire.StartRequest{Variant: bs.id, Packed: true})
	if err != nil {
		return err
	}
	r.starts++
	return bs.call(r, channel.CallStart)
}

// move plays a listed move in r, or starts r again when its game is over
// or at maxPly.
func (bs *servedBench) move(r *servedRoom) error {
	if r.over || r.ply >= bs.maxPly {
		return bs.start(r)
	}
	seat, mv, err := pickLegal(r.legal, bs.rng)
	if err != nil {
		return fmt.Errorf("ply %d: %w", r.ply, err)
	}
	bs.play = wire.PlayRequest{Variant: bs.id, State: r.state, Seat: int32(seat), Move: mv, HistoryFrom: int32(r.ply), Packed: true}
	if bs.req, err = (proto.MarshalOptions{}).MarshalAppend(bs.req[:0], &bs.play); err != nil {
		return err
	}
	return bs.call(r, channel.CallPlay)
}

// call answers bs.req and reads the reply into r.
func (bs *servedBench) call(r *servedRoom, kind byte) error {
	r.calls++
	bs.out = bs.l.Answer(bs.out[:0], kind, uint32(r.calls), bs.req)
	k, _, body, _, err := channel.ParseMux(bs.out)
	if err != nil {
		return err
	}
	if k != channel.ReplyOK {
		return fmt.Errorf("call failed: %s", body)
	}
	return r.read(body)
}

// read takes the state, ply, status and packed legal list of a
// GameResponse.
func (r *servedRoom) read(b []byte) error {
	view := false
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		switch {
		case num == 1 && typ == protowire.BytesType:
			s, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return protowire.ParseError(n)
			}
			r.state = append(r.state[:0], s...)
			b = b[n:]
		case num == 2 && typ == protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return protowire.ParseError(n)
			}
			if err := r.readView(v); err != nil {
				return err
			}
			view = true
			b = b[n:]
		case num == 3:
			return fmt.Errorf("rule error in a listed move's reply")
		default:
			n := protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return protowire.ParseError(n)
			}
			b = b[n:]
		}
	}
	if !view {
		return fmt.Errorf("reply without a view")
	}
	return nil
}

func (r *servedRoom) readView(b []byte) error {
	r.ply, r.over, r.legal = 0, false, r.legal[:0]
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		switch {
		case num == 1 && typ == protowire.VarintType:
			x, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return protowire.ParseError(n)
			}
			r.ply = int(int32(x))
			b = b[n:]
		case num == 2 && typ == protowire.BytesType:
			s, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return protowire.ParseError(n)
			}
			r.over = string(s) == string(sdk.Over)
			b = b[n:]
		case num == 101 && typ == protowire.BytesType:
			s, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return protowire.ParseError(n)
			}
			r.legal = append(r.legal, s...)
			b = b[n:]
		default:
			n := protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return protowire.ParseError(n)
			}
			b = b[n:]
		}
	}
	return nil
}

// pickLegal returns the seat and move of a random listed move that is not
// an action (the first when the random one is), reading the packed list
// only up to it. It trusts the format (the server wrote it) but for the
// bounds, and reads it with as little work as it can: its time is the
// benchmark's, not the plugin's.
func pickLegal(b []byte, rng *rand.Rand) (sdk.Seat, string, error) {
	u := packedReader{b: b}
	n := int(u.uvarint())
	if u.bad || n == 0 {
		return 0, "", fmt.Errorf("no packed legal moves")
	}
	want := rng.IntN(n)
	var firstSeat sdk.Seat
	var first []byte
	for i := 0; i <= want; i++ {
		seat := sdk.Seat(protowire.DecodeZigZag(u.uvarint()))
		kind := u.str()
		mv := u.str()
		u.skipStr() // text
		u.skipStr() // alt
		u.uvarint() // from
		u.uvarint() // to
		u.skipStr() // drop
		u.skip(1)   // flags
		u.skipStr() // key
		if u.bad {
			return 0, "", fmt.Errorf("bad packed legal moves")
		}
		if string(kind) == string(sdk.Action) {
			continue
		}
		if first == nil {
			firstSeat, first = seat, mv
		}
		if i == want {
			return seat, string(mv), nil
		}
	}
	if first == nil {
		return 0, "", fmt.Errorf("only actions listed")
	}
	return firstSeat, string(first), nil
}

// packedReader reads wire/packed.go's format, trusting it but for its
// bounds.
type packedReader struct {
	b   []byte
	bad bool
}

func (u *packedReader) uvarint() uint64 {
	if len(u.b) > 0 && u.b[0] < 0x80 {
		x := u.b[0]
		u.b = u.b[1:]
		return uint64(x)
	}
	x, n := protowire.ConsumeVarint(u.b)
	if n < 0 {
		u.bad = true
		return 0
	}
	u.b = u.b[n:]
	return x
}

func (u *packedReader) skip(n int) {
	if len(u.b) < n {
		u.bad = true
		return
	}
	u.b = u.b[n:]
}

func (u *packedReader) skipStr() { u.skip(int(u.uvarint())) }

func (u *packedReader) str() []byte {
	n := int(u.uvarint())
	if u.bad || len(u.b) < n {
		u.bad = true
		return nil
	}
	s := u.b[:n:n]
	u.b = u.b[n:]
	return s
}

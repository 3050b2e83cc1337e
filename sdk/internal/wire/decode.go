package wire

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/banmen/banmen/sdk"
	"google.golang.org/protobuf/encoding/protowire"
)

// DecodeGame reads a GameResponse the way proto.Unmarshal, then ToView (or
// ToRuleError) would, in one pass and with a few allocations instead of one
// per message and string: on the host, decoding a Play's answer was a
// seventh of the CPU of a move. It returns the state and the view, or the
// rule error the response carries (the view is then not converted, as the
// host ignores it), or err for bytes that proto.Unmarshal would refuse or a
// packed board or move list that ToView would.
//
// The view's strings are slices of one copy of b, except those of History
// entries, which a room keeps for the whole game: each entry is a copy of
// its own, so that a kept move does not keep a whole answer alive.
func DecodeGame(b []byte) (st sdk.State, v sdk.View, rule error, err error) {
	d := decoders.Get().(*gameDecoder)
	defer func() {
		*d = gameDecoder{}
		decoders.Put(d)
	}()
	d.s = string(b)
	d.game(d.s)
	if d.err != nil {
		return nil, sdk.View{}, nil, d.err
	}
	if d.ruleSet {
		re := d.rule
		return nil, sdk.View{}, &re, nil
	}
	if !d.viewSet {
		return d.state, sdk.View{}, nil, nil
	}
	if err := d.finish(); err != nil {
		return nil, sdk.View{}, nil, err
	}
	return d.state, d.v, nil, nil
}

var decoders = sync.Pool{New: func() any { return new(gameDecoder) }}

// errDecode is any malformed protobuf, as proto.Unmarshal refuses it.
var errDecode = errors.New("wire: cannot parse the plugin's answer")

type gameDecoder struct {
	s   string
	err error

	state   sdk.State
	rule    sdk.RuleError
	ruleSet bool

	v       sdk.View
	viewSet bool
	// The repeated and packed parts, converted when the message ends.
	cells                []sdk.Cell
	legal                []sdk.LegalMove
	toMove, inCheck      []int32
	eliminated, score    []int32
	winners, places      []int32
	packedBoard          string
	packedLegal          string
	hasBoard, hasLegal   bool // a packed string was sent (not empty)
	plainCells, plainLgl int  // plain cells and moves (with a packed one: refused)
}

func (d *gameDecoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s", errDecode, what)
	}
}

// fields calls f for each field of the message m, skipping what f does not
// take (an unknown field, or a known one in another wire type, as
// protobuf's own decoder does).
func (d *gameDecoder) fields(m string, f func(num protowire.Number, typ protowire.Type, b string) int) {
	for len(m) > 0 && d.err == nil {
		num, typ, n := consumeTag(m)
		if n < 0 {
			d.fail("bad tag")
			return
		}
		m = m[n:]
		if n = f(num, typ, m); n == 0 {
			n = skip(num, typ, m)
		}
		if n < 0 || n > len(m) {
			d.fail("bad field")
			return
		}
		m = m[n:]
	}
}

// skip is the length of a field not taken, as protowire.ConsumeFieldValue
// measures it (which is left the rare group, as it needs the bytes copied).
func skip(num protowire.Number, typ protowire.Type, m string) int {
	switch typ {
	case protowire.VarintType:
		_, n := consumeVarint(m)
		return n
	case protowire.Fixed32Type:
		if len(m) < 4 {
			return -1
		}
		return 4
	case protowire.Fixed64Type:
		if len(m) < 8 {
			return -1
		}
		return 8
	case protowire.BytesType:
		l, n := consumeVarint(m)
		if n < 0 || l > uint64(len(m)-n) {
			return -1
		}
		return n + int(l)
	}
	return protowire.ConsumeFieldValue(num, typ, []byte(m))
}

func consumeTag(m string) (protowire.Number, protowire.Type, int) {
	v, n := consumeVarint(m)
	if n < 0 {
		return 0, 0, n
	}
	num := v >> 3
	if num < uint64(protowire.MinValidNumber) || num > uint64(protowire.MaxValidNumber) {
		return 0, 0, -1
	}
	return protowire.Number(num), protowire.Type(v & 7), n
}

func consumeVarint(m string) (uint64, int) {
	var v uint64
	for i := 0; i < len(m) && i < 10; i++ {
		c := m[i]
		if i == 9 && c > 1 {
			return 0, -1 // overflows 64 bits
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return v, i + 1
		}
	}
	return 0, -1
}

// The field readers return the bytes they consumed (0: not taken, -1: bad).

func (d *gameDecoder) varint(typ protowire.Type, b string, into func(uint64)) int {
	if typ != protowire.VarintType {
		return 0
	}
	v, n := consumeVarint(b)
	if n > 0 {
		into(v)
	}
	return n
}

func (d *gameDecoder) bytes(typ protowire.Type, b string, into func(string)) int {
	if typ != protowire.BytesType {
		return 0
	}
	l, n := consumeVarint(b)
	if n < 0 || l > uint64(len(b)-n) {
		return -1
	}
	into(b[n : n+int(l)])
	return n + int(l)
}

func (d *gameDecoder) str(typ protowire.Type, b string, into *string) int {
	return d.bytes(typ, b, func(s string) {
		if !utf8.ValidString(s) {
			d.fail("a string is not valid UTF-8")
			return
		}
		*into = s
	})
}

func (d *gameDecoder) int32(typ protowire.Type, b string, into *int32) int {
	return d.varint(typ, b, func(v uint64) { *into = int32(v) })
}

func (d *gameDecoder) int(typ protowire.Type, b string, into *int) int {
	return d.varint(typ, b, func(v uint64) { *into = int(int32(v)) })
}

func (d *gameDecoder) bool(typ protowire.Type, b string, into *bool) int {
	return d.varint(typ, b, func(v uint64) { *into = v != 0 })
}

// int32s reads a repeated int32, packed or not.
func (d *gameDecoder) int32s(typ protowire.Type, b string, into *[]int32) int {
	if typ == protowire.VarintType {
		return d.varint(typ, b, func(v uint64) { *into = append(*into, int32(v)) })
	}
	return d.bytes(typ, b, func(p string) {
		for len(p) > 0 {
			v, n := consumeVarint(p)
			if n < 0 {
				d.fail("bad packed integers")
				return
			}
			*into = append(*into, int32(v))
			p = p[n:]
		}
	})
}

func (d *gameDecoder) game(m string) {
	d.fields(m, func(num protowire.Number, typ protowire.Type, b string) int {
		switch num {
		case 1:
			return d.bytes(typ, b, func(s string) {
				d.state = nil // proto3 bytes: the last wins, nil when empty
				if s != "" {
					d.state = sdk.State(s)
				}
			})
		case 2:
			return d.bytes(typ, b, func(s string) { d.viewSet = true; d.view(s) })
		case 3:
			return d.bytes(typ, b, func(s string) {
				d.ruleSet = true
				d.fields(s, func(num protowire.Number, typ protowire.Type, b string) int {
					switch num {
					case 1:
						return d.str(typ, b, &d.rule.Code)
					case 2:
						return d.str(typ, b, &d.rule.Key)
					case 3:
						return d.str(typ, b, &d.rule.Message)
					}
					return 0
				})
			})
		}
		return 0
	})
}

func (d *gameDecoder) view(m string) {
	v := &d.v
	d.fields(m, func(num protowire.Number, typ protowire.Type, b string) int {
		switch num {
		case 1:
			return d.int(typ, b, &v.Ply)
		case 2:
			return d.str(typ, b, (*string)(&v.Status))
		case 3:
			return d.str(typ, b, &v.Position)
		case 4:
			return d.bytes(typ, b, func(s string) {
				d.cells = append(d.cells, sdk.Cell{})
				d.plainCells++
				d.cell(s, &d.cells[len(d.cells)-1])
			})
		case 5:
			return d.bytes(typ, b, d.hand)
		case 6:
			return d.int32s(typ, b, &d.toMove)
		case 7:
			return d.int32s(typ, b, &d.inCheck)
		case 8:
			return d.int32s(typ, b, &d.eliminated)
		case 9:
			return d.int32s(typ, b, &d.score)
		case 10:
			return d.bytes(typ, b, func(s string) {
				if v.LastMove == nil {
					v.LastMove = &sdk.LegalMove{}
				}
				d.move(s, v.LastMove)
			})
		case 11:
			return d.bytes(typ, b, d.played)
		case 12:
			return d.bytes(typ, b, func(s string) {
				d.legal = append(d.legal, sdk.LegalMove{})
				d.plainLgl++
				d.move(s, &d.legal[len(d.legal)-1])
			})
		case 13:
			return d.bytes(typ, b, d.result)
		case 14:
			return d.bytes(typ, b, func(s string) {
				if !utf8.ValidString(s) {
					d.fail("a notice is not valid UTF-8")
				}
				v.Notices = append(v.Notices, s)
			})
		case 15:
			return d.bytes(typ, b, func(s string) {
				var kv sdk.KeyValue
				d.fields(s, func(num protowire.Number, typ protowire.Type, b string) int {
					switch num {
					case 1:
						return d.str(typ, b, &kv.Key)
					case 2:
						return d.str(typ, b, &kv.Value)
					}
					return 0
				})
				v.Details = append(v.Details, kv)
			})
		case 16:
			return d.bool(typ, b, &v.HideLegal)
		case 100:
			return d.bytes(typ, b, func(s string) { d.packedBoard, d.hasBoard = s, s != "" })
		case 101:
			return d.bytes(typ, b, func(s string) { d.packedLegal, d.hasLegal = s, s != "" })
		}
		return 0
	})
}

func (d *gameDecoder) cell(m string, c *sdk.Cell) {
	d.fields(m, func(num protowire.Number, typ protowire.Type, b string) int {
		switch num {
		case 1:
			return d.str(typ, b, &c.Kind)
		case 2:
			return d.varint(typ, b, func(v uint64) { c.Owner = sdk.Seat(int32(v)) })
		case 3:
			return d.int(typ, b, &c.Facing)
		case 4:
			return d.bool(typ, b, &c.Promoted)
		case 5:
			return d.bool(typ, b, &c.Flipped)
		}
		return 0
	})
}

func (d *gameDecoder) hand(m string) {
	pieces := []sdk.HandPiece{}
	d.fields(m, func(num protowire.Number, typ protowire.Type, b string) int {
		if num != 1 {
			return 0
		}
		return d.bytes(typ, b, func(s string) {
			var p sdk.HandPiece
			d.fields(s, func(num protowire.Number, typ protowire.Type, b string) int {
				switch num {
				case 1:
					return d.str(typ, b, &p.Kind)
				case 2:
					return d.int(typ, b, &p.Count)
				}
				return 0
			})
			pieces = append(pieces, p)
		})
	})
	d.v.Hands = append(d.v.Hands, pieces)
}

func (d *gameDecoder) move(m string, l *sdk.LegalMove) {
	d.fields(m, func(num protowire.Number, typ protowire.Type, b string) int {
		switch num {
		case 1:
			return d.varint(typ, b, func(v uint64) { l.Seat = sdk.Seat(int32(v)) })
		case 2:
			return d.str(typ, b, (*string)(&l.Kind))
		case 3:
			return d.str(typ, b, (*string)(&l.Move))
		case 4:
			return d.str(typ, b, &l.Text)
		case 5:
			return d.str(typ, b, &l.Alt)
		case 6:
			return d.int(typ, b, &l.From)
		case 7:
			return d.int(typ, b, &l.To)
		case 8:
			return d.str(typ, b, &l.Drop)
		case 9:
			return d.bool(typ, b, &l.Promote)
		case 10:
			return d.str(typ, b, &l.Key)
		}
		return 0
	})
}

// played reads a History entry from a copy of its own bytes (see
// DecodeGame).
func (d *gameDecoder) played(m string) {
	m = strings.Clone(m)
	var p sdk.PlayedMove
	d.fields(m, func(num protowire.Number, typ protowire.Type, b string) int {
		switch num {
		case 1:
			return d.varint(typ, b, func(v uint64) { p.Seat = sdk.Seat(int32(v)) })
		case 2:
			return d.str(typ, b, (*string)(&p.Move))
		case 3:
			return d.str(typ, b, &p.Text)
		case 4:
			return d.str(typ, b, &p.Alt)
		case 400:
			return d.int(typ, b, &p.Number)
		}
		return 0
	})
	d.v.History = append(d.v.History, p)
}

func (d *gameDecoder) result(m string) {
	if d.v.Result == nil {
		d.v.Result = &sdk.Result{}
	}
	r := d.v.Result
	d.fields(m, func(num protowire.Number, typ protowire.Type, b string) int {
		switch num {
		case 1:
			return d.int32s(typ, b, &d.winners)
		case 2:
			return d.int32s(typ, b, &d.places)
		case 3:
			return d.str(typ, b, &r.Reason)
		case 4:
			return d.bool(typ, b, &r.Draw)
		}
		return 0
	})
}

// finish converts what the message's end settles, as ToView does.
func (d *gameDecoder) finish() error {
	v := &d.v
	v.ToMove = ints[sdk.Seat](d.toMove)
	if v.ToMove == nil {
		v.ToMove = []sdk.Seat{}
	}
	v.InCheck = ints[sdk.Seat](d.inCheck)
	v.Eliminated = ints[sdk.Seat](d.eliminated)
	v.Score = ints[int](d.score)
	if v.Result != nil {
		v.Result.Winners = ints[sdk.Seat](d.winners)
		v.Result.Places = ints[int](d.places)
	}
	if v.History == nil {
		v.History = []sdk.PlayedMove{}
	}
	var err error
	if v.Board, err = settle(d.cells, d.plainCells, d.hasBoard, d.packedBoard, unpackBoard, "board"); err != nil {
		return err
	}
	v.Legal, err = settle(d.legal, d.plainLgl, d.hasLegal, d.packedLegal, unpackLegal, "legal moves")
	return err
}

// settle is a View's board or legal list as ToView makes it: the plain
// elements, or the packed string unpacked into their array (both at once
// is refused), and never nil.
func settle[T any](plain []T, nPlain int, hasPacked bool, packed string,
	unpack func([]T, string) ([]T, error), what string) ([]T, error) {
	list := plain
	if hasPacked {
		if nPlain > 0 {
			return nil, fmt.Errorf("%w: both packed and plain %s", ErrPacked, what)
		}
		var err error
		if list, err = unpack(plain, packed); err != nil {
			return nil, err
		}
	}
	if list == nil {
		list = []T{}
	}
	return list, nil
}

package wire

import (
	"encoding/json"
	"fmt"

	"github.com/banmen/banmen/sdk"
)

// This file converts between the contract's types and their wire form. The
// conversions are written out by hand: they sit on the hot path of every
// Play call, and reflection would double its cost. convert_test.go fills
// every field by reflection, so a field added to the contract and forgotten
// here fails a test. Descriptions travel as JSON (they cross once, at
// launch).

// ints converts a slice between integer types (seats, places, scores), nil
// for an empty one.
func ints[To, From ~int | ~int32](s []From) []To {
	if len(s) == 0 {
		return nil
	}
	out := make([]To, len(s))
	for i, v := range s {
		out[i] = To(v)
	}
	return out
}

func legalToWire(m *sdk.LegalMove) *LegalMove {
	if m == nil {
		return nil
	}
	w := &LegalMove{}
	legalInto(w, m)
	return w
}

// legalInto fills a wire move in place, so a whole legal list can live in
// one allocation.
func legalInto(w *LegalMove, m *sdk.LegalMove) {
	w.Seat, w.Kind, w.Move, w.Text, w.Alt = int32(m.Seat), string(m.Kind), string(m.Move), m.Text, m.Alt
	w.From, w.To, w.Drop, w.Promote, w.Key = int32(m.From), int32(m.To), m.Drop, m.Promote, m.Key
}

func legalFromWire(m *LegalMove) sdk.LegalMove {
	return sdk.LegalMove{
		Seat: sdk.Seat(m.Seat), Kind: sdk.MoveKind(m.Kind), Move: sdk.Move(m.Move), Text: m.Text, Alt: m.Alt,
		From: int(m.From), To: int(m.To), Drop: m.Drop, Promote: m.Promote, Key: m.Key,
	}
}

// FromView is v in wire form.
func FromView(v *sdk.View) *View {
	w, _ := fromView(v, false, nil)
	return w
}

// FromViewPacked is v in wire form with its board and legal moves packed
// (packed.go); it fails only on text that is not UTF-8, as protobuf would.
func FromViewPacked(v *sdk.View) (*View, error) { return fromView(v, true, nil) }

// FromViewPackedBy is v in wire form with the board and legal moves packed
// already (AppendBoard, AppendLegal), v's own being empty.
func FromViewPackedBy(v *sdk.View, board, legal []byte) (*View, error) {
	if len(v.Board) > 0 || len(v.Legal) > 0 {
		return nil, fmt.Errorf("wire: a packed view with a board or legal moves of its own")
	}
	return fromView(v, true, &packedLists{board, legal})
}

// packedLists are a board and a legal list packed already.
type packedLists struct{ board, legal []byte }

func fromView(v *sdk.View, packed bool, by *packedLists) (*View, error) {
	w := &View{
		Ply:        int32(v.Ply),
		Status:     string(v.Status),
		Position:   v.Position,
		ToMove:     ints[int32](v.ToMove),
		InCheck:    ints[int32](v.InCheck),
		Eliminated: ints[int32](v.Eliminated),
		Score:      ints[int32](v.Score),
		LastMove:   legalToWire(v.LastMove),
		Notices:    v.Notices,
		HideLegal:  v.HideLegal,
	}
	if by != nil {
		w.PackedBoard, w.PackedLegal = by.board, by.legal
	} else if packed {
		var err error
		if w.PackedBoard, err = PackBoard(v.Board); err != nil {
			return nil, err
		}
		if w.PackedLegal, err = PackLegal(v.Legal); err != nil {
			return nil, err
		}
	} else {
		cells := make([]Cell, len(v.Board))
		w.Board = make([]*Cell, len(v.Board))
		for i, c := range v.Board {
			cells[i] = Cell{Kind: c.Kind, Owner: int32(c.Owner), Facing: int32(c.Facing), Promoted: c.Promoted, Flipped: c.Flipped}
			w.Board[i] = &cells[i]
		}
	}
	if len(v.Hands) > 0 {
		// The hands and their pieces in one array each, as the legal list.
		n := 0
		for _, h := range v.Hands {
			n += len(h)
		}
		hands, pieces := make([]Hand, len(v.Hands)), make([]HandPiece, n)
		w.Hands = make([]*Hand, len(v.Hands))
		for i, h := range v.Hands {
			wh := &hands[i]
			wh.Pieces = make([]*HandPiece, len(h))
			for j, p := range h {
				hp := &pieces[0]
				pieces = pieces[1:]
				hp.Kind, hp.Count = p.Kind, int32(p.Count)
				wh.Pieces[j] = hp
			}
			w.Hands[i] = wh
		}
	}
	if len(v.History) > 0 {
		played := make([]PlayedMove, len(v.History))
		w.History = make([]*PlayedMove, len(v.History))
		for i, p := range v.History {
			wp := &played[i]
			wp.Seat, wp.Move, wp.Text, wp.Alt, wp.Number = int32(p.Seat), string(p.Move), p.Text, p.Alt, int32(p.Number)
			w.History[i] = wp
		}
	}
	if len(v.Legal) > 0 && !packed {
		legal := make([]LegalMove, len(v.Legal))
		w.Legal = make([]*LegalMove, len(v.Legal))
		for i := range v.Legal {
			legalInto(&legal[i], &v.Legal[i])
			w.Legal[i] = &legal[i]
		}
	}
	if v.Result != nil {
		w.Result = &Result{
			Winners: ints[int32](v.Result.Winners),
			Places:  ints[int32](v.Result.Places),
			Reason:  v.Result.Reason,
			Draw:    v.Result.Draw,
		}
	}
	for _, kv := range v.Details {
		w.Details = append(w.Details, &KeyValue{Key: kv.Key, Value: kv.Value})
	}
	return w, nil
}

// ToView is the contract's View of w (an empty View for nil), its board
// and legal moves read from the packed strings when they are there.
func ToView(w *View) (sdk.View, error) {
	if w == nil {
		return sdk.View{}, nil
	}
	v := sdk.View{
		Ply:        int(w.Ply),
		Status:     sdk.Status(w.Status),
		Position:   w.Position,
		Board:      make([]sdk.Cell, len(w.Board)),
		ToMove:     ints[sdk.Seat](w.ToMove),
		InCheck:    ints[sdk.Seat](w.InCheck),
		Eliminated: ints[sdk.Seat](w.Eliminated),
		Score:      ints[int](w.Score),
		History:    make([]sdk.PlayedMove, len(w.History)),
		Legal:      make([]sdk.LegalMove, len(w.Legal)),
		Notices:    w.Notices,
		HideLegal:  w.HideLegal,
	}
	if v.ToMove == nil {
		v.ToMove = []sdk.Seat{}
	}
	for i, c := range w.Board {
		v.Board[i] = sdk.Cell{Kind: c.Kind, Owner: sdk.Seat(c.Owner), Facing: int(c.Facing), Promoted: c.Promoted, Flipped: c.Flipped}
	}
	if w.PackedBoard != nil {
		if len(w.Board) > 0 {
			return sdk.View{}, fmt.Errorf("%w: both a packed and a plain board", ErrPacked)
		}
		var err error
		if v.Board, err = UnpackBoard(w.PackedBoard); err != nil {
			return sdk.View{}, err
		}
	}
	if w.PackedLegal != nil {
		if len(w.Legal) > 0 {
			return sdk.View{}, fmt.Errorf("%w: both packed and plain legal moves", ErrPacked)
		}
		var err error
		if v.Legal, err = UnpackLegal(w.PackedLegal); err != nil {
			return sdk.View{}, err
		}
	}
	if len(w.Hands) > 0 {
		v.Hands = make([][]sdk.HandPiece, len(w.Hands))
		for i, h := range w.Hands {
			hp := make([]sdk.HandPiece, len(h.Pieces))
			for j, p := range h.Pieces {
				hp[j] = sdk.HandPiece{Kind: p.Kind, Count: int(p.Count)}
			}
			v.Hands[i] = hp
		}
	}
	for i, p := range w.History {
		v.History[i] = sdk.PlayedMove{Seat: sdk.Seat(p.Seat), Move: sdk.Move(p.Move), Text: p.Text, Alt: p.Alt, Number: int(p.Number)}
	}
	for i, m := range w.Legal {
		v.Legal[i] = legalFromWire(m)
	}
	if w.LastMove != nil {
		m := legalFromWire(w.LastMove)
		v.LastMove = &m
	}
	if w.Result != nil {
		v.Result = &sdk.Result{
			Winners: ints[sdk.Seat](w.Result.Winners),
			Places:  ints[int](w.Result.Places),
			Reason:  w.Result.Reason,
			Draw:    w.Result.Draw,
		}
	}
	for _, kv := range w.Details {
		v.Details = append(v.Details, sdk.KeyValue{Key: kv.Key, Value: kv.Value})
	}
	return v, nil
}

// FromRuleError splits err into a rule error, which travels in a response,
// and any other error, which fails the call.
func FromRuleError(err error) (*RuleError, error) {
	if err == nil {
		return nil, nil
	}
	if re, ok := sdk.AsRuleError(err); ok {
		return &RuleError{Code: re.Code, Key: re.Key, Message: re.Message}, nil
	}
	return nil, err
}

// ToRuleError is the *sdk.RuleError of w (nil for nil).
func ToRuleError(w *RuleError) error {
	if w == nil {
		return nil
	}
	return &sdk.RuleError{Code: w.Code, Key: w.Key, Message: w.Message}
}

// FromDescription is d in wire form.
func FromDescription(d sdk.Description) ([]byte, error) { return json.Marshal(d) }

// ToDescription reads a description in wire form.
func ToDescription(b []byte) (sdk.Description, error) {
	var d sdk.Description
	err := json.Unmarshal(b, &d)
	return d, err
}

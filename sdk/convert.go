package sdk

import "github.com/banmen/banmen/sdk/internal/wire"

// This file converts between the contract's types and their wire form. The
// conversions are written out by hand: they sit on the hot path of every
// Play call, and reflection would double its cost.

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

func legalToWire(m *LegalMove) *wire.LegalMove {
	if m == nil {
		return nil
	}
	w := &wire.LegalMove{}
	legalInto(w, m)
	return w
}

// legalInto fills a wire move in place, so a whole legal list can live in
// one allocation.
func legalInto(w *wire.LegalMove, m *LegalMove) {
	w.Seat, w.Kind, w.Move, w.Text, w.Alt = int32(m.Seat), string(m.Kind), string(m.Move), m.Text, m.Alt
	w.From, w.To, w.Drop, w.Promote, w.Key = int32(m.From), int32(m.To), m.Drop, m.Promote, m.Key
}

func legalFromWire(m *wire.LegalMove) LegalMove {
	return LegalMove{
		Seat: Seat(m.Seat), Kind: MoveKind(m.Kind), Move: Move(m.Move), Text: m.Text, Alt: m.Alt,
		From: int(m.From), To: int(m.To), Drop: m.Drop, Promote: m.Promote, Key: m.Key,
	}
}

func viewToWire(v *View) *wire.View {
	w := &wire.View{
		Ply:        int32(v.Ply),
		Status:     string(v.Status),
		Position:   v.Position,
		ToMove:     ints[int32](v.ToMove),
		InCheck:    ints[int32](v.InCheck),
		Eliminated: ints[int32](v.Eliminated),
		Score:      ints[int32](v.Score),
		LastMove:   legalToWire(v.LastMove),
		Notices:    v.Notices,
	}
	cells := make([]wire.Cell, len(v.Board))
	w.Board = make([]*wire.Cell, len(v.Board))
	for i, c := range v.Board {
		cells[i] = wire.Cell{Kind: c.Kind, Owner: int32(c.Owner), Facing: int32(c.Facing), Promoted: c.Promoted, Flipped: c.Flipped}
		w.Board[i] = &cells[i]
	}
	if len(v.Hands) > 0 {
		w.Hands = make([]*wire.Hand, len(v.Hands))
		for i, h := range v.Hands {
			wh := &wire.Hand{Pieces: make([]*wire.HandPiece, len(h))}
			for j, p := range h {
				wh.Pieces[j] = &wire.HandPiece{Kind: p.Kind, Count: int32(p.Count)}
			}
			w.Hands[i] = wh
		}
	}
	if len(v.History) > 0 {
		w.History = make([]*wire.PlayedMove, len(v.History))
		for i, p := range v.History {
			w.History[i] = &wire.PlayedMove{Seat: int32(p.Seat), Move: string(p.Move), Text: p.Text, Alt: p.Alt}
		}
	}
	if len(v.Legal) > 0 {
		legal := make([]wire.LegalMove, len(v.Legal))
		w.Legal = make([]*wire.LegalMove, len(v.Legal))
		for i := range v.Legal {
			legalInto(&legal[i], &v.Legal[i])
			w.Legal[i] = &legal[i]
		}
	}
	if v.Result != nil {
		w.Result = &wire.Result{
			Winners: ints[int32](v.Result.Winners),
			Places:  ints[int32](v.Result.Places),
			Reason:  v.Result.Reason,
			Draw:    v.Result.Draw,
		}
	}
	for _, kv := range v.Details {
		w.Details = append(w.Details, &wire.KeyValue{Key: kv.Key, Value: kv.Value})
	}
	return w
}

func viewFromWire(w *wire.View) View {
	if w == nil {
		return View{}
	}
	v := View{
		Ply:        int(w.Ply),
		Status:     Status(w.Status),
		Position:   w.Position,
		Board:      make([]Cell, len(w.Board)),
		ToMove:     ints[Seat](w.ToMove),
		InCheck:    ints[Seat](w.InCheck),
		Eliminated: ints[Seat](w.Eliminated),
		Score:      ints[int](w.Score),
		History:    make([]PlayedMove, len(w.History)),
		Legal:      make([]LegalMove, len(w.Legal)),
		Notices:    w.Notices,
	}
	if v.ToMove == nil {
		v.ToMove = []Seat{}
	}
	for i, c := range w.Board {
		v.Board[i] = Cell{Kind: c.Kind, Owner: Seat(c.Owner), Facing: int(c.Facing), Promoted: c.Promoted, Flipped: c.Flipped}
	}
	if len(w.Hands) > 0 {
		v.Hands = make([][]HandPiece, len(w.Hands))
		for i, h := range w.Hands {
			hp := make([]HandPiece, len(h.Pieces))
			for j, p := range h.Pieces {
				hp[j] = HandPiece{Kind: p.Kind, Count: int(p.Count)}
			}
			v.Hands[i] = hp
		}
	}
	for i, p := range w.History {
		v.History[i] = PlayedMove{Seat: Seat(p.Seat), Move: Move(p.Move), Text: p.Text, Alt: p.Alt}
	}
	for i, m := range w.Legal {
		v.Legal[i] = legalFromWire(m)
	}
	if w.LastMove != nil {
		m := legalFromWire(w.LastMove)
		v.LastMove = &m
	}
	if w.Result != nil {
		v.Result = &Result{
			Winners: ints[Seat](w.Result.Winners),
			Places:  ints[int](w.Result.Places),
			Reason:  w.Result.Reason,
			Draw:    w.Result.Draw,
		}
	}
	for _, kv := range w.Details {
		v.Details = append(v.Details, KeyValue{Key: kv.Key, Value: kv.Value})
	}
	return v
}

func ruleErrorToWire(err error) (*wire.RuleError, error) {
	if err == nil {
		return nil, nil
	}
	if re, ok := AsRuleError(err); ok {
		return &wire.RuleError{Code: re.Code, Key: re.Key, Message: re.Message}, nil
	}
	return nil, err
}

func ruleErrorFromWire(w *wire.RuleError) error {
	if w == nil {
		return nil
	}
	return &RuleError{Code: w.Code, Key: w.Key, Message: w.Message}
}

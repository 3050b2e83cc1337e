package sdk

import "github.com/banmen/banmen/sdk/internal/wire"

// This file converts between the contract's types and their wire form. The
// conversions are written out by hand: they sit on the hot path of every
// Play call, and reflection would double its cost.

func seatsToWire(s []Seat) []int32 {
	if len(s) == 0 {
		return nil
	}
	out := make([]int32, len(s))
	for i, v := range s {
		out[i] = int32(v)
	}
	return out
}

func seatsFromWire(s []int32) []Seat {
	if len(s) == 0 {
		return nil
	}
	out := make([]Seat, len(s))
	for i, v := range s {
		out[i] = Seat(v)
	}
	return out
}

func intsToWire(s []int) []int32 {
	if len(s) == 0 {
		return nil
	}
	out := make([]int32, len(s))
	for i, v := range s {
		out[i] = int32(v)
	}
	return out
}

func intsFromWire(s []int32) []int {
	if len(s) == 0 {
		return nil
	}
	out := make([]int, len(s))
	for i, v := range s {
		out[i] = int(v)
	}
	return out
}

func legalToWire(m *LegalMove) *wire.LegalMove {
	if m == nil {
		return nil
	}
	return &wire.LegalMove{
		Seat: int32(m.Seat), Kind: string(m.Kind), Move: string(m.Move), Text: m.Text, Alt: m.Alt,
		From: int32(m.From), To: int32(m.To), Drop: m.Drop, Promote: m.Promote, Key: m.Key,
	}
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
		ToMove:     seatsToWire(v.ToMove),
		InCheck:    seatsToWire(v.InCheck),
		Eliminated: seatsToWire(v.Eliminated),
		Score:      intsToWire(v.Score),
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
			m := &v.Legal[i]
			legal[i] = wire.LegalMove{
				Seat: int32(m.Seat), Kind: string(m.Kind), Move: string(m.Move), Text: m.Text, Alt: m.Alt,
				From: int32(m.From), To: int32(m.To), Drop: m.Drop, Promote: m.Promote, Key: m.Key,
			}
			w.Legal[i] = &legal[i]
		}
	}
	if v.Result != nil {
		w.Result = &wire.Result{
			Winners: seatsToWire(v.Result.Winners),
			Places:  intsToWire(v.Result.Places),
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
		ToMove:     seatsFromWire(w.ToMove),
		InCheck:    seatsFromWire(w.InCheck),
		Eliminated: seatsFromWire(w.Eliminated),
		Score:      intsFromWire(w.Score),
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
			Winners: seatsFromWire(w.Result.Winners),
			Places:  intsFromWire(w.Result.Places),
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

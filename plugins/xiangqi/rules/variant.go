package rules

import (
	"slices"
	"unsafe"

	"github.com/banmen/banmen/sdk"
)

// Variant is Xiangqi behind the sdk contract. It holds nothing: every call
// works on the state it is given (a cache of recent games only spares the
// replay of a state this process returned, cache.go).
type Variant struct{}

var (
	_ sdk.Variant = Variant{}
	_ sdk.Perfter = Variant{}
)

// rulesVersion is Description.RulesVersion. Change it whenever a game
// recorded before might replay differently or be refused (a move's legality,
// an ending, a result); hosts keep records across upgrades.
const rulesVersion = "1"

// Describe tells the host what Xiangqi looks like.
func (Variant) Describe() sdk.Description {
	st := func(dx, dy int) sdk.Step { return sdk.Step{DX: dx, DY: dy} }
	slide := func(dx, dy int) sdk.Step { return sdk.Step{DX: dx, DY: dy, Slide: true} }
	orth := []sdk.Step{st(0, -1), st(0, 1), st(-1, 0), st(1, 0)}
	piece := func(id, name string, glyphs [2]string, letter string, steps []sdk.Step) sdk.PieceKind {
		return sdk.PieceKind{ID: id, Name: name, NameKey: "piece.xiangqi." + name,
			Glyphs: glyphs[:], Letter: letter, Steps: steps}
	}
	king := piece("K", "general", [2]string{"帥", "將"}, "K", orth)
	king.Royal = true
	return sdk.Description{
		ID:           variantID,
		Name:         "Xiangqi",
		NameKey:      "variant.xiangqi",
		Texts:        texts,
		Card:         card,
		RulesVersion: rulesVersion,
		Seats: []sdk.SeatInfo{
			{Name: "Red", NameKey: "seat.xiangqi.red", Color: "#c0392b"},
			{Name: "Black", NameKey: "seat.xiangqi.black", Color: "#1b1b1b"},
		},
		Board: sdk.Geometry{
			Files: 9, Ranks: 10, Points: true, Upright: true,
			FileLabels: []string{"a", "b", "c", "d", "e", "f", "g", "h", "i"},
			RankLabels: []string{"9", "8", "7", "6", "5", "4", "3", "2", "1", "0"},
			Marks: []sdk.Mark{
				{Kind: "palace", Row: 0, Col: 3, Rows: 3, Cols: 3},
				{Kind: "palace", Row: 7, Col: 3, Rows: 3, Cols: 3},
				{Kind: "river", Row: 4},
			},
		},
		Pieces: []sdk.PieceKind{
			king,
			piece("A", "advisor", [2]string{"仕", "士"}, "A", []sdk.Step{st(-1, -1), st(1, -1), st(-1, 1), st(1, 1)}),
			piece("B", "elephant", [2]string{"相", "象"}, "E", []sdk.Step{st(-2, -2), st(2, -2), st(-2, 2), st(2, 2)}),
			piece("N", "horse", [2]string{"傌", "馬"}, "H", []sdk.Step{
				st(-1, -2), st(1, -2), st(-2, -1), st(2, -1), st(-2, 1), st(2, 1), st(-1, 2), st(1, 2)}),
			piece("R", "chariot", [2]string{"俥", "車"}, "R", []sdk.Step{
				slide(0, -1), slide(0, 1), slide(-1, 0), slide(1, 0)}),
			piece("C", "cannon", [2]string{"炮", "砲"}, "C", []sdk.Step{
				slide(0, -1), slide(0, 1), slide(-1, 0), slide(1, 0)}),
			piece("P", "soldier", [2]string{"兵", "卒"}, "P", []sdk.Step{st(0, -1), st(-1, 0), st(1, 0)}),
		},
		Notations: []sdk.Notation{
			{ID: NotationFENUCCI, Name: "FEN + UCCI", Import: true, MediaType: "text/plain; charset=utf-8", Extension: ".txt"},
			{ID: NotationWXF, Name: "WXF", Import: true, MediaType: "text/plain; charset=utf-8", Extension: ".txt"},
		},
		Resign:  true,
		Abandon: true,
		// Chinese and Japanese players read the Chinese notation first.
		AltFirst: []string{"zh", "ja"},
	}
}

// Start begins a game from the initial position. Xiangqi has no options.
func (Variant) Start(opts sdk.Options) (sdk.State, sdk.View, error) {
	if _, err := sdk.ParseOptions(nil, opts); err != nil {
		return nil, sdk.View{}, err
	}
	g := NewGame(StartPosition())
	return g.remember(), g.view(), nil
}

// Play applies seat's move: UCCI text, sdk.Resign or sdk.Abandon.
func (Variant) Play(s sdk.State, seat sdk.Seat, m sdk.Move) (sdk.State, sdk.View, error) {
	c, err := decodeState(s)
	if err != nil {
		return nil, sdk.View{}, err
	}
	g := c.g
	if seat != 0 && seat != 1 {
		return nil, sdk.View{}, sdk.Errorf(sdk.CodeNotYourTurn, "xiangqi has no seat %d", seat)
	}
	if g.Over() {
		return nil, sdk.View{}, sdk.Errorf(sdk.CodeGameOver, "the game is over")
	}
	if m == sdk.Resign || m == sdk.Abandon {
		g = c.fork()
		end := g.Resign
		if m == sdk.Abandon {
			end = g.Abandon
		}
		if err := end(Color(seat)); err != nil {
			return nil, sdk.View{}, err
		}
		return g.remember(), g.view(), nil
	}
	if Color(seat) != g.pos.side {
		return nil, sdk.View{}, sdk.Errorf(sdk.CodeNotYourTurn, "it is not seat %d's turn", seat)
	}
	mv, err := ParseUCCI(string(m))
	if err != nil {
		return nil, sdk.View{}, err
	}
	g = c.fork()
	if err := g.Play(mv); err != nil {
		return nil, sdk.View{}, err
	}
	return g.remember(), g.view(), nil
}

// View describes the game in the state.
func (Variant) View(s sdk.State) (sdk.View, error) {
	c, err := decodeState(s)
	if err != nil {
		return sdk.View{}, err
	}
	return c.g.view(), nil
}

// view builds the complete sdk.View of the game.
func (g *Game) view() sdk.View {
	// A copy: move generation makes and unmakes moves on the position, and
	// g may be a cached game that other calls read at the same time.
	pos := g.pos
	p := &pos
	v := sdk.View{
		Ply:      len(g.moves),
		Status:   sdk.Playing,
		Position: p.FEN(),
		Board:    make([]sdk.Cell, 90),
		ToMove:   []sdk.Seat{},
		// Shared with the game, which never changes it; capped, so that
		// an append (a resignation's entry below) copies.
		History: g.hist[:len(g.hist):len(g.hist)],
		Legal:   []sdk.LegalMove{},
	}
	if g.result != nil { // the game may be cached: the View gets its own
		r := *g.result
		r.Winners, r.Places = slices.Clone(r.Winners), slices.Clone(r.Places)
		v.Result = &r
	}
	for i := range v.Board {
		pc := p.board[squareOfCell(i)]
		if pc == Empty {
			v.Board[i] = sdk.Cell{Owner: sdk.NoSeat}
			continue
		}
		v.Board[i] = sdk.Cell{Kind: kindLetters[pc.Kind() : pc.Kind()+1], Owner: sdk.Seat(pc.Color()), Facing: 2 * int(pc.Color())}
	}
	if v.History == nil {
		v.History = []sdk.PlayedMove{}
	}
	if n := len(g.moves); n > 0 {
		m := g.moves[n-1]
		v.LastMove = &sdk.LegalMove{Seat: sdk.Seat(p.side ^ 1), Kind: sdk.BoardMove, Move: sdk.Move(g.uccis[n-1]),
			Text: g.texts[n-1], Alt: g.hanzi[n-1], From: m.From().cell(), To: m.To().cell()}
	}
	if g.resigned != noResign {
		n := len(g.moves)
		h := sdk.PlayedMove{Seat: sdk.Seat(g.resigned), Move: sdk.Resign, Text: "resign"}
		if g.abandoned {
			h.Move, h.Text = sdk.Abandon, "left the game"
		}
		h.Number = g.start.move + (n+int(g.start.side))/2
		v.History = append(v.History, h)
	}
	if p.InCheck() {
		v.InCheck = []sdk.Seat{sdk.Seat(p.side)}
	}
	if g.result != nil {
		v.Status = sdk.Over
		return v
	}
	v.ToMove = []sdk.Seat{sdk.Seat(p.side)}
	if v.InCheck != nil {
		v.Notices = []string{"notice.check"}
	}
	// Every move's texts in one buffer: UCCI and WXF four bytes each, then
	// the Chinese (ends holds where each ends).
	legal := p.LegalMoves()
	if len(legal) == 0 {
		return v
	}
	b := make([]byte, 0, 20*len(legal))
	ends := make([]int32, len(legal))
	for i, m := range legal {
		w := p.wxf(m)
		b = appendUCCI(b, m)
		b = append(b, w[:]...)
		b = p.appendChinese(b, m, w)
		ends[i] = int32(len(b))
	}
	texts := unsafe.String(unsafe.SliceData(b), len(b)) // b is not written again
	v.Legal = make([]sdk.LegalMove, len(legal))
	at := int32(0)
	for i, m := range legal {
		l := &v.Legal[i] // written in place: no copy of a record with pointers
		l.Seat, l.Kind, l.Move = sdk.Seat(p.side), sdk.BoardMove, sdk.Move(texts[at:at+4])
		l.Text, l.Alt, l.From, l.To = texts[at+4:at+8], texts[at+8:ends[i]], m.From().cell(), m.To().cell()
		at = ends[i]
	}
	return v
}

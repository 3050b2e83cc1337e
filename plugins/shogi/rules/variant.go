package rules

import (
	"context"
	"slices"
	"sync"
	"unsafe"

	"github.com/banmen/banmen/sdk"
)

// ID is the variant's ID, its URL path segment and plugin key.
const ID = "shogi"

// Notation IDs.
const (
	FormatSFENUSI = "sfen+usi"
	FormatKIF     = "kif"
	FormatCSA     = "csa"
)

// ActionDeclare is the i18n key of the declaration button.
const ActionDeclare = "action.declare"

// Variant is shogi behind the sdk contract. It holds nothing: every game
// travels in its State.
type Variant struct{}

var (
	_ sdk.Variant = Variant{}
	_ sdk.Perfter = Variant{}
	_ sdk.Divider = Variant{}
)

// rulesVersion is Description.RulesVersion. Change it whenever a game
// recorded before might replay differently or be refused (a move's legality,
// an ending, a result); hosts keep records across upgrades.
const rulesVersion = "1"

// New returns the shogi variant.
func New() Variant { return Variant{} }

// kindIDs are the piece kind IDs (USI letters) by base kind.
var kindIDs = [9]string{"", "P", "L", "N", "S", "B", "R", "G", "K"}

// Describe tells the host what shogi looks like. It is built once, so that
// every call returns the very same description.
func (Variant) Describe() sdk.Description { return description }

var description = describe()

func describe() sdk.Description {
	orth := []sdk.Step{{DX: 0, DY: -1, Slide: true}, {DX: 1, DY: 0, Slide: true}, {DX: 0, DY: 1, Slide: true}, {DX: -1, DY: 0, Slide: true}}
	diag := []sdk.Step{{DX: 1, DY: -1, Slide: true}, {DX: 1, DY: 1, Slide: true}, {DX: -1, DY: 1, Slide: true}, {DX: -1, DY: -1, Slide: true}}
	step := func(s []sdk.Step) []sdk.Step {
		out := make([]sdk.Step, len(s))
		for i, x := range s {
			out[i] = sdk.Step{DX: x.DX, DY: x.DY}
		}
		return out
	}
	goldSteps := []sdk.Step{{DX: -1, DY: -1}, {DX: 0, DY: -1}, {DX: 1, DY: -1}, {DX: -1, DY: 0}, {DX: 1, DY: 0}, {DX: 0, DY: 1}}
	gold := func(name, glyph string) *sdk.PromotedForm {
		return &sdk.PromotedForm{Name: name, NameKey: "piece.shogi." + name, Glyphs: []string{glyph}, Letter: "+", Steps: goldSteps}
	}
	pieces := []sdk.PieceKind{
		{ID: "R", Name: "rook", NameKey: "piece.shogi.rook", Glyphs: []string{"飛"}, Letter: "R", Steps: orth,
			Promoted: &sdk.PromotedForm{Name: "dragon", NameKey: "piece.shogi.dragon", Glyphs: []string{"龍"}, Letter: "+R", Steps: append(append([]sdk.Step{}, orth...), step(diag)...)}},
		{ID: "B", Name: "bishop", NameKey: "piece.shogi.bishop", Glyphs: []string{"角"}, Letter: "B", Steps: diag,
			Promoted: &sdk.PromotedForm{Name: "horse", NameKey: "piece.shogi.horse", Glyphs: []string{"馬"}, Letter: "+B", Steps: append(append([]sdk.Step{}, diag...), step(orth)...)}},
		{ID: "G", Name: "gold", NameKey: "piece.shogi.gold", Glyphs: []string{"金"}, Letter: "G", Steps: goldSteps},
		{ID: "S", Name: "silver", NameKey: "piece.shogi.silver", Glyphs: []string{"銀"}, Letter: "S",
			Steps:    []sdk.Step{{DX: -1, DY: -1}, {DX: 0, DY: -1}, {DX: 1, DY: -1}, {DX: -1, DY: 1}, {DX: 1, DY: 1}},
			Promoted: gold("promoted_silver", "全")},
		{ID: "N", Name: "knight", NameKey: "piece.shogi.knight", Glyphs: []string{"桂"}, Letter: "N",
			Steps:    []sdk.Step{{DX: -1, DY: -2, Jump: true}, {DX: 1, DY: -2, Jump: true}},
			Promoted: gold("promoted_knight", "圭")},
		{ID: "L", Name: "lance", NameKey: "piece.shogi.lance", Glyphs: []string{"香"}, Letter: "L",
			Steps:    []sdk.Step{{DX: 0, DY: -1, Slide: true}},
			Promoted: gold("promoted_lance", "杏")},
		{ID: "P", Name: "pawn", NameKey: "piece.shogi.pawn", Glyphs: []string{"歩"}, Letter: "P",
			Steps:    []sdk.Step{{DX: 0, DY: -1}},
			Promoted: gold("tokin", "と")},
		{ID: "K", Name: "king", NameKey: "piece.shogi.king", Glyphs: []string{"玉", "王"}, Letter: "K", Royal: true,
			Steps: step(append(append([]sdk.Step{}, orth...), diag...))},
	}
	for i := range pieces {
		if f := pieces[i].Promoted; f != nil && f.Letter == "+" {
			f.Letter = "+" + pieces[i].Letter
		}
	}
	files := make([]string, 9)
	ranks := make([]string, 9)
	for i := 0; i < 9; i++ {
		files[i] = string(rune('9' - i))
		ranks[i] = jpRanks[i+1]
	}
	return sdk.Description{
		ID: ID, Name: "Shogi", NameKey: "variant.shogi", RulesVersion: rulesVersion,
		Texts: texts,
		Card:  card,
		Seats: []sdk.SeatInfo{
			{Name: "Sente", NameKey: "seat.shogi.sente", Color: "#1f1f1f"},
			{Name: "Gote", NameKey: "seat.shogi.gote", Color: "#b22222"},
		},
		Board: sdk.Geometry{
			Files: 9, Ranks: 9, FileLabels: files, RankLabels: ranks,
			Marks: []sdk.Mark{
				{Kind: "star", Row: 3, Col: 3, Seat: sdk.NoSeat}, {Kind: "star", Row: 3, Col: 6, Seat: sdk.NoSeat},
				{Kind: "star", Row: 6, Col: 3, Seat: sdk.NoSeat}, {Kind: "star", Row: 6, Col: 6, Seat: sdk.NoSeat},
			},
		},
		Pieces: pieces,
		Notations: []sdk.Notation{
			{ID: FormatSFENUSI, Name: "SFEN + USI", Import: true, MediaType: "text/plain; charset=utf-8", Extension: ".txt"},
			{ID: FormatKIF, Name: "KIF", Import: true, MediaType: "text/plain; charset=utf-8", Extension: ".kif"},
			{ID: FormatCSA, Name: "CSA", Import: true, MediaType: "text/plain; charset=utf-8", Extension: ".csa"},
		},
		Resign:  true,
		Abandon: true,
		Hands:   true,
	}
}

// Start begins a game from the initial position. Shogi has no options.
func (Variant) Start(opts sdk.Options) (sdk.State, sdk.View, error) {
	if _, err := sdk.ParseOptions(nil, opts); err != nil {
		return nil, sdk.View{}, err
	}
	p, err := ParseSFEN(StartSFEN)
	if err != nil {
		panic(err) // the start position is a constant
	}
	g := newGame(p)
	return g.remember(), g.view(), nil
}

// Play applies seat's move.
func (Variant) Play(s sdk.State, seat sdk.Seat, m sdk.Move) (sdk.State, sdk.View, error) {
	g, err := played(s, seat, m)
	if err != nil {
		return nil, sdk.View{}, err
	}
	return g.remember(), g.view(), nil
}

// played is the game of s after seat's move m, a fork of the cached one.
func played(s sdk.State, seat sdk.Seat, m sdk.Move) (*game, error) {
	g, err := decodeState(s)
	if err != nil {
		return nil, err
	}
	g = g.fork()
	if err := g.play(int(seat), m); err != nil {
		return nil, err
	}
	return g, nil
}

// View describes the game in s.
func (Variant) View(s sdk.State) (sdk.View, error) {
	g, err := decodeState(s)
	if err != nil {
		return sdk.View{}, err
	}
	return g.view(), nil
}

// Perft counts the legal-move tree below position (an SFEN; the start
// position when empty).
func (Variant) Perft(ctx context.Context, position string, depth int) (uint64, error) {
	p, err := parsePerftPosition(position)
	if err != nil {
		return 0, err
	}
	return p.Perft(ctx, depth)
}

// Divide splits the perft count by root move (USI text).
func (Variant) Divide(ctx context.Context, position string, depth int) (map[string]uint64, error) {
	p, err := parsePerftPosition(position)
	if err != nil {
		return nil, err
	}
	out := map[string]uint64{}
	for _, m := range p.legalMoves(nil) {
		cap := p.do(m)
		n, err := p.Perft(ctx, depth-1)
		p.undo(m, cap)
		if err != nil {
			return nil, err
		}
		out[m.USI()] = n
	}
	return out, nil
}

// view builds the complete View of the game.
func (g *game) view() sdk.View {
	// A copy, so that nothing below can change g: it may be a cached game
	// that other calls read at the same time.
	pos := g.pos
	p := &pos
	v := g.viewBase(p)
	v.Board = make([]sdk.Cell, 81)
	for i, sq := range squares {
		fillCell(&v.Board[i], p.b[sq]) // zero: fields written in place (see fillLegal)
	}
	v.Legal = []sdk.LegalMove{}
	if !g.over() {
		v.Legal = g.legalList(p)
	}
	return v
}

// fillCell describes piece pc into a zero cell.
func fillCell(cell *sdk.Cell, pc uint8) {
	if pc == 0 {
		cell.Owner = sdk.NoSeat
		return
	}
	c, k := colorOf(pc), kindOf(pc)
	cell.Kind, cell.Owner, cell.Facing, cell.Promoted = kindIDs[baseKind[k]], sdk.Seat(c), 2*c, k > king
}

// viewBase is the View of the game (p is a copy of its position) but its
// board and legal list.
func (g *game) viewBase(p *Position) sdk.View {
	v := sdk.View{
		Ply:      g.ply(),
		Position: p.SFEN(),
		Hands:    make([][]sdk.HandPiece, 2),
		// Shared with the game, which never changes it; capped, so that
		// an append copies.
		History: g.hist[:len(g.hist):len(g.hist)],
	}
	// Both hands in one array, each capped so that an append copies.
	kinds := 0
	for c := 0; c < 2; c++ {
		for _, k := range handOrder {
			if p.hand[c][k] > 0 {
				kinds++
			}
		}
	}
	hands := make([]sdk.HandPiece, 0, kinds)
	for c := 0; c < 2; c++ {
		from := len(hands)
		for _, k := range handOrder {
			if n := p.hand[c][k]; n > 0 {
				hands = append(hands, sdk.HandPiece{Kind: kindIDs[k], Count: int(n)})
			}
		}
		v.Hands[c] = hands[from:len(hands):len(hands)]
	}
	if v.History == nil {
		v.History = []sdk.PlayedMove{}
	}
	if g.hasLast {
		lm := g.last
		v.LastMove = &lm
	}
	// The last board move recorded whether it gave check: this position.
	inCheck := false
	if n := len(g.records); n > 0 && g.records[n-1].m != 0 {
		inCheck = g.records[n-1].check
	} else {
		inCheck = p.inCheck()
	}
	if inCheck {
		v.InCheck = []sdk.Seat{sdk.Seat(p.side)}
	}
	if g.over() {
		// A mated king stays upright, in check: lying face down is Yonin's
		// rule for an eliminated player's king, not shogi's.
		v.Status = sdk.Over
		r := *g.result // the game may be cached: the View gets its own
		r.Winners, r.Places = slices.Clone(r.Winners), slices.Clone(r.Places)
		v.Result = &r
		return v
	}
	v.Status = sdk.Playing
	v.ToMove = []sdk.Seat{sdk.Seat(p.side)}
	if len(v.InCheck) > 0 {
		v.Notices = []string{"notice.check"}
	}
	return v
}

// usiOrder is a key that orders moves as their USI texts do, without
// making them: a board move ("7g7f", "8h2b+") starts with a digit and a
// drop ("B*5e") with a capital, which sorts after every digit. Its bits
// from 8 on are the origin: a board move's cell in USI order (usiIndex),
// or 81 and up for the drops, by letter; below, the target cell in USI
// order and the promotion, which sorts after the same move without it
// (its text is longer by a "+").
func usiOrder(m Move) uint32 {
	if m.isDrop() {
		return (81+dropRank[m.dropKind()])<<8 | usiIndex[m.to()]<<1
	}
	k := usiIndex[m.from()]<<8 | usiIndex[m.to()]<<1
	if m.promotes() {
		k |= 1
	}
	return k
}

// usiIndex numbers the cells in the order of their USI names, "1a" first
// and "9i" last.
var usiIndex = func() (ix [mbSize]uint32) {
	for r := 0; r < 9; r++ {
		for c := 0; c < 9; c++ {
			ix[mb(r, c)] = uint32((8-c)*9 + r)
		}
	}
	return ix
}()

// usiOrigins is the number of origins usiOrder tells (81 cells, 7 drops).
const usiOrigins = 88

// dropRank is the place of each drop letter in byte order (B G L N P R S).
var dropRank = [8]uint32{pawn: 4, lance: 2, knight: 3, silver: 6, bishop: 0, rook: 5, gold: 1}

// sortUSI sorts keys of usiOrder<<32 | move, using tmp (as long): a
// counting pass groups them by origin, in order, and an insertion sort
// then orders each group, which the generator made together. That costs
// less than a general sort of a few hundred keys.
func sortUSI(keys, tmp []uint64) {
	const shift = 32 + 8
	// start[o] is where origin o's group begins in tmp: a running sum
	// kept in a register, since adding each count to the one before it
	// in memory waited on the store of every step.
	var start [usiOrigins]uint16
	for _, k := range keys {
		start[k>>shift]++
	}
	sum := uint16(0)
	for i := range start {
		n := start[i]
		start[i] = sum
		sum += n
	}
	for _, k := range keys {
		tmp[start[k>>shift]] = k
		start[k>>shift]++
	}
	for i := 1; i < len(tmp); i++ {
		x, j := tmp[i], i
		for ; j > 0 && tmp[j-1] > x; j-- {
			tmp[j] = tmp[j-1]
		}
		tmp[j] = x
	}
	copy(keys, tmp)
}

// scratch is the working memory of judging a position and of naming its
// legal list, taken from a pool (scratches): as arrays on the stack it was
// some 18 KB to clear on every move.
type scratch struct {
	keys, tmp [640]uint64 // more than the most legal moves a position has (593)
	moves     [maxMoves]Move
	names     nameIndex
}

var scratches = sync.Pool{New: func() any { return new(scratch) }}

// sortedLegal returns the legal moves of g.pos as keys of
// usiOrder<<32 | move, in the order of their USI texts, in sc.keys when
// they fit (they always do). Sorting keys that carry their move sorts
// plain integers, with no text made before naming.
func (g *game) sortedLegal(sc *scratch) []uint64 {
	legal := g.legal // judge made it for this position
	keys, tmp := sc.keys[:0], sc.tmp[:0]
	if len(legal) > len(sc.keys) {
		keys, tmp = make([]uint64, 0, len(legal)), make([]uint64, 0, len(legal))
	}
	keys, tmp = keys[:len(legal)], tmp[:len(legal)]
	for i, m := range legal {
		keys[i] = uint64(usiOrder(m))<<32 | uint64(m)
	}
	sortUSI(keys, tmp)
	return keys
}

// declareMove is the declaration's entry of the legal list of side.
func declareMove(side int) sdk.LegalMove {
	return sdk.LegalMove{
		Seat: sdk.Seat(side), Kind: sdk.Action, Move: DeclareMove, Key: ActionDeclare,
		Text: marks[side] + "入玉宣言", Alt: "declare", From: -1, To: -1,
	}
}

// legalList is the View's legal list of g.pos (p is a copy of it), in the
// order of the move texts. All its texts live in one buffer.
func (g *game) legalList(p *Position) []sdk.LegalMove {
	sc := scratches.Get().(*scratch)
	defer scratches.Put(sc)
	n := namer{p: p, legal: g.legal, prevTo: g.prevTo(), ix: &sc.names}
	keys := g.sortedLegal(sc)
	var endBuf [3 * 640]int32
	ends := endBuf[:0]
	if len(keys) > len(endBuf)/3 {
		ends = make([]int32, 0, 3*len(keys))
	}
	declare := p.canDeclare()
	room := len(keys)
	if declare {
		room++
	}
	out := make([]sdk.LegalMove, len(keys), room)
	b := make([]byte, 0, 40*len(keys))
	for _, k := range keys {
		m := Move(k)
		b = m.appendUSI(b)
		ends = append(ends, int32(len(b)))
		b = n.appendText(b, m)
		ends = append(ends, int32(len(b)))
		b = n.appendWestern(b, m)
		ends = append(ends, int32(len(b)))
	}
	texts := unsafe.String(unsafe.SliceData(b), len(b)) // b is not written again
	at := int32(0)
	next := func(i int) string {
		s := texts[at:ends[i]]
		at = ends[i]
		return s
	}
	for i, k := range keys {
		usi := next(3 * i)
		text := next(3*i + 1)
		alt := next(3*i + 2)
		fillLegal(&out[i], p.side, Move(k), usi, text, alt)
	}
	if declare {
		// "win" sorts after every move text (a lower-case letter).
		out = append(out, declareMove(p.side))
	}
	return out
}

// legalMoveUSI describes a move for the UI, given its texts.
func legalMoveUSI(seat int, m Move, usi, text, alt string) sdk.LegalMove {
	var lm sdk.LegalMove
	fillLegal(&lm, seat, m, usi, text, alt)
	return lm
}

// fillLegal is legalMoveUSI into a zero *lm, field by field: the legal
// list is written in place, not copied from a temporary (a copy of a
// record with pointers is a bulk write barrier while the collector runs).
func fillLegal(lm *sdk.LegalMove, seat int, m Move, usi, text, alt string) {
	lm.Seat, lm.Move, lm.Text, lm.Alt, lm.To = sdk.Seat(seat), sdk.Move(usi), text, alt, cellOf[m.to()]
	if m.isDrop() {
		lm.Kind, lm.From, lm.Drop = sdk.DropMove, -1, kindIDs[m.dropKind()]
	} else {
		lm.Kind, lm.From, lm.Promote = sdk.BoardMove, cellOf[m.from()], m.promotes()
	}
}

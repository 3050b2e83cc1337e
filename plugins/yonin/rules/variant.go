package rules

import (
	"strings"
	"unsafe"

	"github.com/banmen/banmen/sdk"
)

// Variant is Yonin Shogi behind the sdk contract. It holds nothing: every
// method works from its arguments alone and is safe for concurrent use.
type Variant struct{}

var (
	_ sdk.Variant = Variant{}
	_ sdk.Perfter = Variant{}
	_ sdk.Divider = Variant{}
)

// formatID is the one notation: initial position text and moves.
const formatID = "yonin"

// rulesVersion is Description.RulesVersion. Change it whenever a game
// recorded before might replay differently or be refused (a move's legality,
// an ending, a result); hosts keep records across upgrades.
const rulesVersion = "1"

// Describe tells the host and the browser what Yonin Shogi is.
func (Variant) Describe() sdk.Description { return description }

// description is built once, so that Describe is the same value every call.
var description = describe()

func describe() sdk.Description {
	gold := []sdk.Step{{DX: 0, DY: -1}, {DX: -1, DY: -1}, {DX: 1, DY: -1}, {DX: -1, DY: 0}, {DX: 1, DY: 0}, {DX: 0, DY: 1}}
	slide := []sdk.Step{{DX: 0, DY: -1, Slide: true}, {DX: 0, DY: 1, Slide: true}, {DX: -1, DY: 0, Slide: true}, {DX: 1, DY: 0, Slide: true}}
	diag := []sdk.Step{{DX: -1, DY: -1}, {DX: 1, DY: -1}, {DX: -1, DY: 1}, {DX: 1, DY: 1}}
	king := append(append([]sdk.Step{}, diag...), sdk.Step{DX: 0, DY: -1}, sdk.Step{DX: 0, DY: 1}, sdk.Step{DX: -1, DY: 0}, sdk.Step{DX: 1, DY: 0})
	return sdk.Description{
		ID:           "yonin",
		Name:         "Yonin Shogi",
		NameKey:      "variant.yonin",
		Texts:        texts,
		Card:         card,
		RulesVersion: rulesVersion,
		Seats: []sdk.SeatInfo{
			{Name: "South", NameKey: "seat.yonin.south", Color: "#c0392b"},
			{Name: "West", NameKey: "seat.yonin.west", Color: "#2471a3"},
			{Name: "North", NameKey: "seat.yonin.north", Color: "#1e8449"},
			{Name: "East", NameKey: "seat.yonin.east", Color: "#7d3c98"},
		},
		Board: sdk.Geometry{
			Files: 9, Ranks: 9,
			FileLabels: []string{"9", "8", "7", "6", "5", "4", "3", "2", "1"},
			RankLabels: []string{"a", "b", "c", "d", "e", "f", "g", "h", "i"},
		},
		Pieces: []sdk.PieceKind{
			{ID: "K", Name: "king", NameKey: "piece.yonin.king", Glyphs: []string{"玉"}, Letter: "K", Steps: king, Royal: true},
			{ID: "R", Name: "rook", NameKey: "piece.yonin.rook", Glyphs: []string{"飛"}, Letter: "R", Steps: slide,
				Promoted: &sdk.PromotedForm{Name: "dragon", NameKey: "piece.yonin.dragon", Glyphs: []string{"龍"}, Letter: "+R", Steps: append(append([]sdk.Step{}, slide...), diag...)}},
			{ID: "G", Name: "gold", NameKey: "piece.yonin.gold", Glyphs: []string{"金"}, Letter: "G", Steps: gold},
			{ID: "S", Name: "silver", NameKey: "piece.yonin.silver", Glyphs: []string{"銀"}, Letter: "S",
				Steps:    []sdk.Step{{DX: 0, DY: -1}, {DX: -1, DY: -1}, {DX: 1, DY: -1}, {DX: -1, DY: 1}, {DX: 1, DY: 1}},
				Promoted: &sdk.PromotedForm{Name: "promoted silver", NameKey: "piece.yonin.promoted_silver", Glyphs: []string{"全"}, Letter: "+S", Steps: gold}},
			{ID: "P", Name: "pawn", NameKey: "piece.yonin.pawn", Glyphs: []string{"歩"}, Letter: "P",
				Steps:    []sdk.Step{{DX: 0, DY: -1}},
				Promoted: &sdk.PromotedForm{Name: "tokin", NameKey: "piece.yonin.tokin", Glyphs: []string{"と"}, Letter: "+P", Steps: gold}},
		},
		Options:      optionSpecs,
		HostSettings: hostSettings,
		Notations: []sdk.Notation{{
			ID: formatID, Name: "Yonin position text + moves", Import: true,
			MediaType: "text/plain; charset=utf-8", Extension: ".txt",
		}},
		Resign: false,
		Hands:  true,
	}
}

// Start begins a game from the standard setup with the given options.
func (Variant) Start(opts sdk.Options) (sdk.State, sdk.View, error) {
	set, err := parseOptions(opts)
	if err != nil {
		return nil, sdk.View{}, err
	}
	g := newGame(set, startPosition(set.rules, set.firstSeat))
	return g.remember(), g.view(), nil
}

// Play applies seat's move. Resign does not exist in Yonin Shogi.
func (Variant) Play(s sdk.State, seat sdk.Seat, m sdk.Move) (sdk.State, sdk.View, error) {
	c, err := decodeState(s)
	if err != nil {
		return nil, sdk.View{}, err
	}
	if m == sdk.Resign {
		return nil, sdk.View{}, sdk.Errorf(sdk.CodeUnsupported, "there is no resignation in Yonin Shogi")
	}
	if seat < 0 || seat > 3 {
		return nil, sdk.View{}, sdk.Errorf(sdk.CodeNotYourTurn, "no seat %d", seat)
	}
	ms, mv, err := parseMove(string(m))
	if err != nil {
		return nil, sdk.View{}, err
	}
	if ms != int(seat) {
		return nil, sdk.View{}, sdk.Errorf(sdk.CodeBadMove, "move %q is written for seat %c, played by seat %c", m, seatUpper[ms], seatUpper[seat])
	}
	g := c.fork()
	if err := g.play(int(seat), mv); err != nil {
		return nil, sdk.View{}, err
	}
	return g.remember(), g.view(), nil
}

// View describes a game.
func (Variant) View(s sdk.State) (sdk.View, error) {
	c, err := decodeState(s)
	if err != nil {
		return sdk.View{}, err
	}
	return c.g.view(), nil
}

// writers and readers are the notations of Describe.
var (
	writers = sdk.Formats[func(*game) string]{formatID: (*game).record}
	readers = sdk.Formats[func(string) (*game, error)]{formatID: parseRecord}
)

// Export writes the game record: the initial position text, then the moves.
func (Variant) Export(s sdk.State, format string) (string, error) {
	c, err := decodeState(s)
	if err != nil {
		return "", err
	}
	write, err := writers.Get(format)
	if err != nil {
		return "", err
	}
	return write(c.g), nil
}

// ExportIn is Export with the record's header comment in the language lang
// (its texts' export.yonin.header; English where it has none). The position
// and the moves are the same, so Import reads both.
func (Variant) ExportIn(s sdk.State, format, lang string) (string, error) {
	c, err := decodeState(s)
	if err != nil {
		return "", err
	}
	if _, err := writers.Get(format); err != nil {
		return "", err
	}
	header := texts[lang]["export.yonin.header"]
	if header == "" {
		header = texts["en"]["export.yonin.header"]
	}
	return c.g.recordWith(header), nil
}

var _ sdk.LocalExporter = Variant{}

// Import reads a game record (or a lone position text).
func (Variant) Import(format, text string) (sdk.State, sdk.View, error) {
	read, err := readers.Get(format)
	if err != nil {
		return nil, sdk.View{}, err
	}
	g, err := read(text)
	if err != nil {
		return nil, sdk.View{}, err
	}
	return g.remember(), g.view(), nil
}

// view is the game as the contract describes it.
func (g *game) view() sdk.View {
	// A shallow copy with its own position: g may be a cached game that
	// other calls read at the same time.
	h := *g
	g = &h
	p := &g.pos
	v := sdk.View{
		Ply:      len(g.moves),
		Status:   sdk.Playing,
		Position: p.Text(),
		Board:    make([]sdk.Cell, 81),
		Hands:    make([][]sdk.HandPiece, 4),
		ToMove:   []sdk.Seat{},
		Score:    make([]int, 4),
		// Shared with the game, which never changes it; capped, so that
		// an append copies.
		History: g.history[:len(g.history):len(g.history)],
		Legal:   []sdk.LegalMove{},
		Result:  g.result(),
		Details: g.set.details(),
		// The "show legal moves" option, as the contract's own field: the
		// board reads no variant's details.
		HideLegal: !g.set.showLegal,
	}
	for sq, pc := range p.board {
		c := sdk.Cell{Owner: sdk.NoSeat}
		if pc != 0 {
			c = sdk.Cell{Kind: kindIDs[pc.kind()], Owner: sdk.Seat(pc.owner()), Facing: pc.facing(), Promoted: pc.promoted(), Flipped: pc.flipped()}
			if pc.owner() == ownerless {
				c.Owner = sdk.NoSeat
			}
		}
		v.Board[sq] = c
	}
	for s := range 4 {
		v.Hands[s] = []sdk.HandPiece{}
		for _, k := range handKinds {
			if n := p.hands[s][k]; n > 0 {
				v.Hands[s] = append(v.Hands[s], sdk.HandPiece{Kind: kindIDs[k], Count: int(n)})
			}
		}
		v.Score[s] = p.Score(s)
		if p.inCheck(s) {
			v.InCheck = append(v.InCheck, sdk.Seat(s))
		}
	}
	for _, m := range p.mates[:p.nmates] {
		v.Eliminated = append(v.Eliminated, sdk.Seat(m.mated))
	}
	var mates []string
	for _, m := range p.mates[:p.nmates] {
		mates = append(mates, string([]byte{seatLower[m.mated], seatLower[(m.mater+5)%5]}))
	}
	v.Details = append(v.Details, sdk.KeyValue{Key: "mates", Value: strings.Join(mates, ",")})
	if v.History == nil {
		v.History = []sdk.PlayedMove{}
	}
	if len(g.moves) > 0 {
		lm := g.last
		v.LastMove = &lm
	}
	if g.end != "" {
		v.Status = sdk.Over
		return v
	}
	v.ToMove = []sdk.Seat{sdk.Seat(p.turn)}
	v.Legal = legalList(p, int(p.turn), g.legal())
	if len(v.InCheck) > 0 {
		v.Notices = append(v.Notices, "notice.check")
	}
	if g.priority {
		v.Notices = append(v.Notices, "notice.check_priority")
	}
	if g.mated > 0 {
		v.Notices = append(v.Notices, "notice.mate")
	}
	return v
}

// legalList describes the moves of seat in position p for the UI, every
// text in one buffer and every record written in place.
func legalList(p *Position, seat int, moves []move) []sdk.LegalMove {
	if len(moves) == 0 {
		return []sdk.LegalMove{}
	}
	b := make([]byte, 0, 22*len(moves))
	ends := make([]int32, 2*len(moves))
	for i, m := range moves {
		b = appendMoveText(b, seat, m)
		ends[2*i] = int32(len(b))
		b = p.appendDisplayText(b, seat, m)
		ends[2*i+1] = int32(len(b))
	}
	texts := unsafe.String(unsafe.SliceData(b), len(b)) // b is not written again
	out := make([]sdk.LegalMove, len(moves))
	at := int32(0)
	for i, m := range moves {
		lm := &out[i]
		lm.Seat, lm.Kind, lm.Move, lm.Text = sdk.Seat(seat), sdk.BoardMove, sdk.Move(texts[at:ends[2*i]]), texts[ends[2*i]:ends[2*i+1]]
		lm.From, lm.To, lm.Promote = m.from(), m.to(), m.promote()
		if m.isDrop() {
			lm.Kind, lm.From, lm.Drop = sdk.DropMove, -1, kindIDs[m.dropKind()]
		}
		at = ends[2*i+1]
	}
	return out
}

// legalMove describes a move of seat in position p for the UI.
func legalMove(p *Position, seat int, m move) sdk.LegalMove {
	lm := sdk.LegalMove{
		Seat: sdk.Seat(seat), Kind: sdk.BoardMove, Move: sdk.Move(moveText(seat, m)),
		Text: p.displayText(seat, m), From: m.from(), To: m.to(), Promote: m.promote(),
	}
	if m.isDrop() {
		lm.Kind, lm.From, lm.Drop = sdk.DropMove, -1, kindIDs[m.dropKind()]
	}
	return lm
}

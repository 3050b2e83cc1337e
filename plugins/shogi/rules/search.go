package rules

import (
	"github.com/banmen/banmen/sdk"
)

// This file is the search-facing API: what a game-tree search (the engine
// package) needs from a Position, and nothing more. It is unchecked and
// fast: every method assumes a valid position and, for DoMove, a move that
// GenerateMoves returned for it. Players' moves go through Play instead.
//
// Cells are mailbox indices (see position.go); BoardCell lists the 81 board
// cells, and Row and Col place one. Kinds are the constants below; a promoted
// kind is its base kind plus Promoted.

// Piece kinds, as the engine sees them.
const (
	Pawn      = pawn
	Lance     = lance
	Knight    = knight
	Silver    = silver
	Bishop    = bishop
	Rook      = rook
	Gold      = gold
	King      = king
	Tokin     = tokin
	ProLance  = proLance
	ProKnight = proKnight
	ProSilver = proSilver
	Horse     = horse
	Dragon    = dragon
	Promoted  = promoted
)

// Colours: Sente is seat 0, Gote seat 1.
const (
	Sente = sente
	Gote  = gote
)

// NumCells is the size of the mailbox: every cell index is below it.
const NumCells = mbSize

// MaxMoves bounds the legal moves of a position: a buffer this long never
// grows.
const MaxMoves = maxMoves

// Piece is a board cell's content: empty (0) or a kind and a colour.
type Piece uint8

// Kind is the piece's kind (0 for an empty cell).
func (pc Piece) Kind() int { return kindOf(uint8(pc)) }

// Color is the piece's owner (meaningless for an empty cell).
func (pc Piece) Color() int { return colorOf(uint8(pc)) }

// BoardCell returns the mailbox index of the i-th board cell, i in 0..80,
// row by row from the top left as Sente sees the board.
func BoardCell(i int) int { return squares[i] }

// Row is a cell's rank from the top, 0 (rank a, Gote's back rank) to 8.
func Row(sq int) int { return rowOf[sq] }

// Col is a cell's column from the left as Sente sees it, 0 (file 9) to 8.
func Col(sq int) int { return colOf[sq] }

// At returns the piece on a cell.
func (p *Position) At(sq int) Piece { return Piece(p.b[sq]) }

// Hand returns how many pieces of base kind k colour c holds.
func (p *Position) Hand(c, k int) int { return int(p.hand[c][k]) }

// Side is the colour to move.
func (p *Position) Side() int { return p.side }

// KingCell is the cell of colour c's king, 0 when it has none.
func (p *Position) KingCell(c int) int { return p.kingSq[c] }

// Hash is the Zobrist hash of board, hands and side to move, kept
// incrementally by DoMove and UndoMove.
func (p *Position) Hash() uint64 { return p.hash }

// BoardHash is Hash without the hands: the board and the side to move. A
// mate search compares the hands of positions that share it.
func (p *Position) BoardHash() uint64 {
	h := p.hash
	for c := range p.hand {
		for k := pawn; k <= gold; k++ {
			h ^= zobHand[c][k][p.hand[c][k]]
		}
	}
	return h
}

// InCheck tells whether the side to move is in check.
func (p *Position) InCheck() bool { return p.inCheck() }

// Attacked tells whether colour c attacks cell sq.
func (p *Position) Attacked(sq, c int) bool { return p.attacked(sq, c) }

// CanDeclare tells whether the side to move may declare and win (the
// entering-king rule).
func (p *Position) CanDeclare() bool { return p.canDeclare() }

// GenerateMoves appends every legal move of the side to move to buf (drops
// included, uchifuzume excluded) and returns it. No legal move means the
// side to move has lost.
func (p *Position) GenerateMoves(buf []Move) []Move { return p.legalMoves(buf) }

// GenerateBoardMoves appends the legal board moves (no drops) and tells
// whether the side to move is in check; in check it appends the legal drops
// too, so that the list is then every evasion. Quiescence search uses it to
// avoid building the drops it would not look at.
func (p *Position) GenerateBoardMoves(buf []Move) ([]Move, bool) {
	var g genCtx
	list := p.genBoard(buf, &g)
	if g.checkers > 0 {
		return p.genDrops(list, &g), true
	}
	return list, false
}

// GenerateCaptures appends, when the side to move is not in check, its
// legal captures and its pawn promotions, and returns false; in check it
// appends every legal evasion and returns true. It is what a quiescence
// search looks at.
func (p *Position) GenerateCaptures(buf []Move) ([]Move, bool) {
	if p.inCheck() {
		return p.legalMoves(buf), true
	}
	var g genCtx
	return p.genCaptures(buf, &g), false
}

// DoMove plays a legal move (unchecked) and returns what UndoMove needs.
func (p *Position) DoMove(m Move) Undo { return p.do(m) }

// UndoMove takes back the move m that DoMove played.
func (p *Position) UndoMove(m Move, u Undo) { p.undo(m, u) }

// DoNull passes the turn (for null-move pruning); UndoNull takes it back.
// The side to move must not be in check.
func (p *Position) DoNull() {
	p.side ^= 1
	p.hash ^= zobSide
}

// UndoNull takes back DoNull.
func (p *Position) UndoNull() { p.DoNull() }

// From is the cell a board move leaves (0 for a drop).
func (m Move) From() int { return m.from() }

// To is the cell a move reaches.
func (m Move) To() int { return m.to() }

// Promotes tells whether a board move promotes.
func (m Move) Promotes() bool { return m.promotes() }

// IsDrop tells whether the move drops a piece from hand.
func (m Move) IsDrop() bool { return m.isDrop() }

// DropKind is the kind a drop puts down.
func (m Move) DropKind() int { return m.dropKind() }

// Line is a game as a computer player sees it: the position to move from,
// and the positions before it for repetition.
type Line struct {
	// Pos is the current position.
	Pos Position
	// Keys[i] is the hash of the position after i plies (board moves only;
	// the last is Pos's), and Checks[i] tells whether that position's side
	// to move was in check, so that a search can tell a perpetual check
	// from a plain repetition.
	Keys   []uint64
	Checks []bool
	// Over is set when the game has ended.
	Over bool
	// Ply counts the moves played.
	Ply int
	// USI is the game as USI position text, "sfen <SFEN> moves ...", for an
	// external engine.
	USI string
}

// DecodeLine opens a State for a computer player, checking it as Play does.
func DecodeLine(s sdk.State) (*Line, error) {
	g, err := decodeState(s)
	if err != nil {
		return nil, err
	}
	l := &Line{Pos: g.pos, Over: g.over(), Ply: g.ply(), USI: g.exportSFENUSI()}
	l.Keys = append(l.Keys, g.keys...)
	l.Checks = make([]bool, len(g.keys))
	l.Checks[0] = g.history[0].inCheck()
	i := 1
	for _, r := range g.records {
		if r.m != 0 {
			l.Checks[i] = r.check
			i++
		}
	}
	return l, nil
}

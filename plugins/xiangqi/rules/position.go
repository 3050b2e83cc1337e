package rules

// The board is a padded 16×16 mailbox: file f (0 = a … 8 = i) and rank r
// (0 = Red's back rank … 9 = Black's back rank, as in UCCI) live at
// (r+3)*16 + f+3. Every point that is not on the board holds Border, and the
// padding is wide enough (three files and three ranks on every side) for a
// horse's or an elephant's jump, so generators never test coordinates: they
// look at the square. Squares are uint8 and the arrays have 256 entries, so Go
// drops the bounds checks.

// Color is a side: Red moves first and sits at the bottom.
type Color uint8

// The two sides; they are also the sdk seats 0 and 1.
const (
	Red   Color = 0
	Black Color = 1
)

// Kind is a piece type without its colour.
type Kind uint8

// The piece kinds, numbered as their FEN letters are listed in kindLetters.
const (
	NoKind   Kind = 0
	King     Kind = 1 // general
	Advisor  Kind = 2
	Elephant Kind = 3
	Horse    Kind = 4
	Rook     Kind = 5 // chariot
	Cannon   Kind = 6
	Pawn     Kind = 7 // soldier
)

// kindLetters are the FEN letters of the kinds (upper case), indexed by Kind.
const kindLetters = ".KABNRCP"

// Piece is what a square holds: 0 when empty, Border off the board, else a
// colour bit (0x10 red, 0x20 black) with the Kind in the low bits. Border has
// both colour bits, so "b[s] & ownBit == 0" means empty or enemy.
type Piece uint8

// Empty and Border are the two non-pieces.
const (
	Empty  Piece = 0
	Border Piece = 0x30
)

func colorBit(c Color) Piece { return 0x10 << c }

// makePiece returns the piece of kind k and colour c.
func makePiece(c Color, k Kind) Piece { return colorBit(c) | Piece(k) }

// Kind returns the piece's kind (NoKind for Empty and Border).
func (p Piece) Kind() Kind { return Kind(p & 7) }

// Color returns the piece's colour; meaningless for Empty and Border.
func (p Piece) Color() Color { return Color(p>>4) - 1 }

// Square is a point of the padded mailbox.
type Square uint8

// NoSquare is the zero square, always off the board.
const NoSquare Square = 0

// Directions on the mailbox.
const (
	north = 16 // towards Black
	south = -16
	east  = 1 // towards file i
	west  = -1
)

// sq returns the square at file f (0–8) and rank r (0–9).
func sq(f, r int) Square { return Square((r+3)*16 + f + 3) }

// File is the square's file, 0 (a) to 8 (i).
func (s Square) File() int { return int(s&15) - 3 }

// Rank is the square's rank, 0 (Red's back rank) to 9.
func (s Square) Rank() int { return int(s>>4) - 3 }

// cell is the sdk cell index of the square: row 0 is rank 9, as seat 0 sees it.
func (s Square) cell() int { return (9-s.Rank())*9 + s.File() }

// squareOfCell is the inverse of Square.cell.
func squareOfCell(c int) Square { return sq(c%9, 9-c/9) }

func (s Square) add(d int) Square { return Square(int(s) + d) }

// Move is a board move: from in the high byte, to in the low byte.
type Move uint16

// NoMove is the zero move.
const NoMove Move = 0

func newMove(from, to Square) Move { return Move(from)<<8 | Move(to) }

// From is the square the piece leaves.
func (m Move) From() Square { return Square(m >> 8) }

// To is the square the piece reaches.
func (m Move) To() Square { return Square(m) }

// Board tables, filled once by init from the geometry.
var (
	onBoard   [256]bool
	inPalace  [2][256]bool // points of each side's palace
	ownHalf   [2][256]bool // points on each side's half of the river
	advisorOK [2][256]bool // the five points an advisor can stand on
	elephOK   [2][256]bool // the seven points an elephant can stand on
	pawnOK    [2][256]bool // the points a soldier can ever stand on
	forward   = [2]int{north, south}
)

func init() {
	for r := 0; r < 10; r++ {
		for f := 0; f < 9; f++ {
			s := sq(f, r)
			onBoard[s] = true
			ownHalf[Red][s] = r <= 4
			ownHalf[Black][s] = r >= 5
			if f >= 3 && f <= 5 {
				inPalace[Red][s] = r <= 2
				inPalace[Black][s] = r >= 7
			}
		}
	}
	for _, c := range []Color{Red, Black} {
		rr := func(r int) int { // rank as seen from c's side
			if c == Red {
				return r
			}
			return 9 - r
		}
		for _, p := range [][2]int{{3, 0}, {5, 0}, {4, 1}, {3, 2}, {5, 2}} {
			advisorOK[c][sq(p[0], rr(p[1]))] = true
		}
		for _, p := range [][2]int{{2, 0}, {6, 0}, {0, 2}, {4, 2}, {8, 2}, {2, 4}, {6, 4}} {
			elephOK[c][sq(p[0], rr(p[1]))] = true
		}
		for r := 3; r < 10; r++ {
			for f := 0; f < 9; f++ {
				// Before the river a soldier never leaves its file.
				if r >= 5 || f%2 == 0 {
					pawnOK[c][sq(f, rr(r))] = true
				}
			}
		}
	}
}

// Position is a validated Xiangqi position: the board, the side to move and
// the two counters of FEN. It is built by ParseFEN (or Start) and changed by
// the unchecked make/unmake pair that search and perft use; players' moves go
// through the checked game path.
type Position struct {
	board [256]Piece
	// list holds the square of every piece of a side, NoSquare once captured;
	// slot[s] is the index in list of the piece on s.
	list  [2][16]Square
	n     [2]uint8
	slot  [256]uint8
	king  [2]Square
	side  Color
	clock int // plies since the last capture or forward soldier move
	move  int // fullmove number, from 1
	// hash is the Zobrist key of the board and side (see zobrist.go), kept
	// up to date by make and unmake so that search can use it for free.
	hash uint64
}

// Undo is what unmake needs besides the move.
type Undo struct {
	hash     uint64
	captured Piece
	slot     uint8
}

// Side is the colour to move.
func (p *Position) Side() Color { return p.side }

// At returns the piece at file f, rank r.
func (p *Position) At(f, r int) Piece { return p.board[sq(f, r)] }

// put places a piece on an empty square while building a position.
func (p *Position) put(s Square, pc Piece) {
	c := pc.Color()
	p.board[s] = pc
	p.slot[s] = p.n[c]
	p.list[c][p.n[c]] = s
	p.n[c]++
	if pc.Kind() == King {
		p.king[c] = s
	}
}

// clear empties the position: every point empty, the padding Border.
func (p *Position) clear() {
	*p = Position{move: 1}
	for i := range p.board {
		if !onBoard[i] {
			p.board[i] = Border
		}
	}
}

// make plays m, which must be pseudo-legal, without any check, and returns
// what unmake needs. The counters are not touched (see game.go).
func (p *Position) make(m Move) Undo {
	from, to := m.From(), m.To()
	pc := p.board[from]
	u := Undo{captured: p.board[to]}
	us := p.side
	if u.captured != Empty {
		u.slot = p.slot[to]
		p.list[us^1][u.slot&15] = NoSquare
	}
	p.board[to] = pc
	p.board[from] = Empty
	u.hash = p.hash
	p.hash ^= zobrist[pc&63][from] ^ zobrist[pc&63][to] ^ zobrist[u.captured&63][to] ^ zobristSide
	sl := p.slot[from]
	p.slot[to] = sl
	p.list[us][sl&15] = to
	if pc.Kind() == King {
		p.king[us] = to
	}
	p.side = us ^ 1
	return u
}

// unmake takes back m played by make.
func (p *Position) unmake(m Move, u Undo) {
	from, to := m.From(), m.To()
	us := p.side ^ 1
	p.side = us
	pc := p.board[to]
	p.board[from] = pc
	sl := p.slot[to]
	p.slot[from] = sl
	p.list[us][sl&15] = from
	if pc.Kind() == King {
		p.king[us] = from
	}
	p.board[to] = u.captured
	p.hash = u.hash
	if u.captured != Empty {
		p.slot[to] = u.slot
		p.list[us^1][u.slot&15] = to
	}
}

// key is an exact identity of the board and side to move, for repetition.
type key [91]byte

func (p *Position) key() key {
	var k key
	for r := 0; r < 10; r++ {
		for f := 0; f < 9; f++ {
			k[r*9+f] = byte(p.board[sq(f, r)])
		}
	}
	k[90] = byte(p.side)
	return k
}

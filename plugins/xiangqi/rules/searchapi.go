package rules

// The search-facing API: what a computer player (plugins/xiangqi/engine)
// needs to walk the game tree fast, without the checks of the game path.
// Every method here trusts its caller: a move given to MakeMove must come
// from GenerateMoves or GenerateCaptures of the same position and have passed
// Legal, and UnmakeMove must undo the last MakeMove. Nothing here judges a
// game (repetition, the 60-move rule, the result): that is Game's job.

// MaxMoves bounds the pseudo-legal moves of any position.
const MaxMoves = maxMoves

// Moves returns the moves in the list (a view of its buffer).
func (l *MoveList) Moves() []Move { return l.m[:l.n] }

// GenerateMoves fills l with every pseudo-legal move of the side to move:
// pieces move by their rules, but whether the mover's general is left
// attacked is for Legal to tell.
func (p *Position) GenerateMoves(l *MoveList) {
	l.n = 0
	p.generate(l)
}

// GenerateCaptures fills l with the pseudo-legal captures of the side to
// move, the subset of GenerateMoves that quiescence search needs.
func (p *Position) GenerateCaptures(l *MoveList) {
	l.n = 0
	p.generateCaptures(l)
}

// Legal reports whether the pseudo-legal move m leaves the mover's general
// safe; inCheck must be InCheck of the position.
func (p *Position) Legal(m Move, inCheck bool) bool { return p.legal(m, inCheck) }

// IsLegalMove reports whether m, from anywhere (a table, another engine), is
// a legal move of the side to move.
func (p *Position) IsLegalMove(m Move) bool { return p.isLegal(m) }

// MakeMove plays a pseudo-legal, legal move without any check and returns
// what UnmakeMove needs. The FEN counters are not touched.
func (p *Position) MakeMove(m Move) Undo { return p.make(m) }

// UnmakeMove takes back m, the last move played by MakeMove.
func (p *Position) UnmakeMove(m Move, u Undo) { p.unmake(m, u) }

// Hash is the Zobrist hash of the board and the side to move.
func (p *Position) Hash() uint64 { return p.hash }

// PieceAt returns what stands on square s (Border off the board).
func (p *Position) PieceAt(s Square) Piece { return p.board[s] }

// KingSquare is where the general of colour c stands.
func (p *Position) KingSquare(c Color) Square { return p.king[c] }

// Squares lists where the pieces of colour c stand, NoSquare for a captured
// piece's slot. It is a view of the position: do not keep it across moves.
func (p *Position) Squares(c Color) []Square { return p.list[c][:p.n[c]] }

// Clock is the number of plies since the last capture or forward soldier
// move (the 60-move rule's count).
func (p *Position) Clock() int { return p.clock }

// SquareAt returns the square at file f (0 = a … 8 = i) and rank r (0 =
// Red's back rank … 9).
func SquareAt(f, r int) Square { return sq(f, r) }

// OnBoard reports whether s is a point of the board.
func (s Square) OnBoard() bool { return onBoard[s] }

// NewMove returns the move from one square to another.
func NewMove(from, to Square) Move { return newMove(from, to) }

// Forward is the square step (+16 or -16) of a soldier of colour c.
func Forward(c Color) int { return forward[c] }

// OwnHalf reports whether s is on colour c's side of the river.
func OwnHalf(c Color, s Square) bool { return ownHalf[c][s] }

// MakeNullMove passes the turn, for null-move pruning. The side to move
// must not be in check; UnmakeNullMove takes it back.
func (p *Position) MakeNullMove() {
	p.side ^= 1
	p.hash ^= zobristSide
}

// UnmakeNullMove takes back MakeNullMove.
func (p *Position) UnmakeNullMove() {
	p.side ^= 1
	p.hash ^= zobristSide
}

package rules

// The board is a padded mailbox: 13 rows of 11 cells, the 9×9 board in the
// middle, two wall rows above and below (so a knight's jump lands on a wall,
// never outside the array) and one wall column on each side. Row 0 is rank a
// (Gote's back rank), column 0 is file 9, as seat 0 sees the board.
const (
	mbWidth = 11
	mbSize  = 13 * mbWidth
)

// Colours.
const (
	sente = 0
	gote  = 1
)

// Piece kinds. A promoted kind is its base kind plus promoted.
const (
	noKind    = 0
	pawn      = 1
	lance     = 2
	knight    = 3
	silver    = 4
	bishop    = 5
	rook      = 6
	gold      = 7
	king      = 8
	tokin     = pawn + promoted
	proLance  = lance + promoted
	proKnight = knight + promoted
	proSilver = silver + promoted
	horse     = bishop + promoted
	dragon    = rook + promoted
	promoted  = 8
)

// A piece is a byte: its kind in the low nibble and a colour flag. The wall
// carries both flags, so "p&flag == 0" means "empty or an enemy piece" and a
// wall is never a target for anyone.
const (
	senteFlag = 0x10
	goteFlag  = 0x20
	wall      = senteFlag | goteFlag
	colorMask = wall
)

var colorFlag = [2]uint8{senteFlag, goteFlag}

func makePiece(c int, k int) uint8 { return uint8(k) | colorFlag[c] }
func kindOf(p uint8) int           { return int(p & 0x0f) }
func colorOf(p uint8) int          { return int(p>>5) & 1 }

// baseKind is the kind a piece returns to in hand.
var baseKind = [16]int{0, pawn, lance, knight, silver, bishop, rook, gold, king, pawn, lance, knight, silver, bishop, rook, 0}

// canPromote tells which kinds have a promoted form.
func canPromote(k int) bool { return k >= pawn && k <= rook }

// Mailbox directions: north is up the board (toward rank a).
const (
	dN  = -mbWidth
	dS  = mbWidth
	dW  = -1
	dE  = 1
	dNE = dN + dE
	dNW = dN + dW
	dSE = dS + dE
	dSW = dS + dW
)

// dir8 lists the eight neighbour directions so that opposite(i) = (i+4)&7.
var dir8 = [8]int{dN, dNE, dE, dSE, dS, dSW, dW, dNW}

// forward is the pawn step of each colour.
var forward = [2]int{dN, dS}

// Square tables: the 81 board cells in view order and back.
var (
	squares [81]int     // view index → mailbox index
	cellOf  [mbSize]int // mailbox index → view index, -1 on walls
	rowOf   [mbSize]int // 0..8 on the board
	colOf   [mbSize]int // 0..8 on the board
)

func mb(row, col int) int { return (row+2)*mbWidth + col + 1 }

// Move tables per piece byte.
var (
	stepDirs  [64][]int // single steps, knight jumps included
	slideDirs [64][]int // any distance
	stepMask  [64]uint8 // bit i: steps in dir8[i]
	slideMask [64]uint8 // bit i: slides in dir8[i]
)

// dirIdx returns the dir8 index of a neighbour offset d, or -1.
func dirIdx(d int) int {
	for i, x := range dir8 {
		if x == d {
			return i
		}
	}
	return -1
}

func init() {
	for i := range cellOf {
		cellOf[i] = -1
		rowOf[i] = -1
		colOf[i] = -1
	}
	for r := 0; r < 9; r++ {
		for c := 0; c < 9; c++ {
			m := mb(r, c)
			squares[r*9+c] = m
			cellOf[m] = r*9 + c
			rowOf[m] = r
			colOf[m] = c
		}
	}
	goldSteps := []int{dN, dNE, dNW, dE, dW, dS}
	all8 := dir8[:]
	steps := map[int][]int{
		pawn:      {dN},
		knight:    {dN + dN + dW, dN + dN + dE},
		silver:    {dN, dNE, dNW, dSE, dSW},
		gold:      goldSteps,
		king:      all8,
		tokin:     goldSteps,
		proLance:  goldSteps,
		proKnight: goldSteps,
		proSilver: goldSteps,
		horse:     {dN, dE, dS, dW},
		dragon:    {dNE, dSE, dSW, dNW},
	}
	slides := map[int][]int{
		lance:  {dN},
		bishop: {dNE, dSE, dSW, dNW},
		rook:   {dN, dE, dS, dW},
		horse:  {dNE, dSE, dSW, dNW},
		dragon: {dN, dE, dS, dW},
	}
	for c := 0; c < 2; c++ {
		sign := 1 - 2*c // Gote's pieces move mirrored
		for k := pawn; k <= dragon; k++ {
			p := makePiece(c, k)
			for _, d := range steps[k] {
				stepDirs[p] = append(stepDirs[p], d*sign)
				if i := dirIdx(d * sign); i >= 0 {
					stepMask[p] |= 1 << i
				}
			}
			for _, d := range slides[k] {
				slideDirs[p] = append(slideDirs[p], d*sign)
				slideMask[p] |= 1 << dirIdx(d*sign)
			}
		}
	}
	initZones()
	initZobrist()
}

// Position is a validated shogi position: board, hands, side to move and
// move number. Its methods assume it is valid; Parse functions make it so.
type Position struct {
	b    [mbSize]uint8
	hand [2][8]uint8 // by base kind pawn..gold
	side int
	// kingSq is the mailbox index of each king, 0 when a side has none
	// (tsume problems and the nifu perft position have one king only).
	kingSq [2]int
	// moveNum is the SFEN move number of this position.
	moveNum int
	// hash is the Zobrist hash of board, hands and side to move, kept up to
	// date by do and undo so that search and repetition never rescan the
	// board. rehash sets it after a position is built cell by cell.
	hash uint64
}

// Zobrist keys: one per piece byte and cell, one per colour, kind and count
// in hand (so a count change is two XORs), and one for Gote to move.
var (
	zobPiece [64][mbSize]uint64
	zobHand  [2][8][20]uint64
	zobSide  uint64
)

func initZobrist() {
	// A fixed splitmix64 stream: the keys, and so every hash, are the same
	// in every process, which keeps the computer player deterministic.
	x := uint64(0x9e3779b97f4a7c15)
	next := func() uint64 {
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		return z ^ z>>31
	}
	for pc := range zobPiece {
		for sq := range zobPiece[pc] {
			zobPiece[pc][sq] = next()
		}
	}
	for c := range zobHand {
		for k := range zobHand[c] {
			for n := range zobHand[c][k] {
				zobHand[c][k][n] = next()
			}
		}
	}
	zobSide = next()
}

// rehash computes the hash from scratch.
func (p *Position) rehash() {
	var h uint64
	for _, sq := range squares {
		if pc := p.b[sq]; pc != 0 {
			h ^= zobPiece[pc][sq]
		}
	}
	for c := 0; c < 2; c++ {
		for k := pawn; k <= gold; k++ {
			h ^= zobHand[c][k][p.hand[c][k]]
		}
	}
	if p.side == gote {
		h ^= zobSide
	}
	p.hash = h
}

// newEmptyPosition returns a position with walls and nothing else.
func newEmptyPosition() Position {
	var p Position
	for i := range p.b {
		if cellOf[i] < 0 {
			p.b[i] = wall
		}
	}
	p.moveNum = 1
	return p
}

// put places a piece (or clears the cell with 0) and keeps kingSq right.
func (p *Position) put(sq int, pc uint8) {
	if old := p.b[sq]; old != 0 && kindOf(old) == king && p.kingSq[colorOf(old)] == sq {
		p.kingSq[colorOf(old)] = 0
	}
	p.b[sq] = pc
	if pc != 0 && kindOf(pc) == king {
		p.kingSq[colorOf(pc)] = sq
	}
}

// inZone tells whether a row is in colour c's promotion zone (the three far
// ranks).
func inZone(c, row int) bool {
	if c == sente {
		return row <= 2
	}
	return row >= 6
}

// mustPromote tells whether an unpromoted piece of kind k of colour c would
// have no move on row, so that it may neither stand nor be dropped there.
func mustPromote(c, k, row int) bool {
	if c == gote {
		row = 8 - row
	}
	switch k {
	case pawn, lance:
		return row == 0
	case knight:
		return row <= 1
	}
	return false
}

// attacked tells whether colour c attacks square sq in the current board.
func (p *Position) attacked(sq, c int) bool {
	flag := colorFlag[c]
	for i, d := range dir8 {
		q := sq + d
		pc := p.b[q]
		opp := uint8(1) << ((i + 4) & 7)
		if pc == 0 {
			for {
				q += d
				pc = p.b[q]
				if pc != 0 {
					break
				}
			}
			if pc&colorMask == flag && slideMask[pc]&opp != 0 {
				return true
			}
			continue
		}
		if pc&colorMask == flag && (stepMask[pc]|slideMask[pc])&opp != 0 {
			return true
		}
	}
	kn := makePiece(c, knight)
	f2 := 2 * forward[c]
	return p.b[sq-f2-1] == kn || p.b[sq-f2+1] == kn
}

// inCheck tells whether the side to move's king is attacked.
func (p *Position) inCheck() bool {
	k := p.kingSq[p.side]
	return k != 0 && p.attacked(k, p.side^1)
}

// Move is a move packed for speed: the target cell, the source cell (0 for a
// drop), a promotion bit and the dropped kind.
type Move uint32

func boardMove(from, to int, promote bool) Move {
	m := Move(to) | Move(from)<<8
	if promote {
		m |= 1 << 16
	}
	return m
}

func dropMove(k, to int) Move { return Move(to) | Move(k)<<17 }

func (m Move) to() int        { return int(m & 0xff) }
func (m Move) from() int      { return int(m>>8) & 0xff }
func (m Move) promotes() bool { return m&(1<<16) != 0 }
func (m Move) dropKind() int  { return int(m>>17) & 7 }
func (m Move) isDrop() bool   { return m&(0xff<<8) == 0 }

// Undo is what taking a move back needs: the captured piece, and the hash
// before the move (restoring it is cheaper than undoing its XORs, and perft
// does little else).
type Undo struct {
	cap  uint8
	hash uint64
}

// do plays a move known to be legal and returns what undo needs.
func (p *Position) do(m Move) Undo {
	to := m.to()
	c := p.side
	u := Undo{hash: p.hash}
	if m.isDrop() {
		k := m.dropKind()
		pc := makePiece(c, k)
		n := p.hand[c][k]
		p.b[to] = pc
		p.hand[c][k] = n - 1
		p.hash ^= zobPiece[pc][to] ^ zobHand[c][k][n] ^ zobHand[c][k][n-1] ^ zobSide
		p.side ^= 1
		return u
	}
	from := m.from()
	pc := p.b[from]
	cap := p.b[to]
	h := p.hash ^ zobPiece[pc][from] ^ zobSide
	if cap != 0 {
		bk := baseKind[kindOf(cap)]
		n := p.hand[c][bk]
		p.hand[c][bk] = n + 1
		h ^= zobPiece[cap][to] ^ zobHand[c][bk][n] ^ zobHand[c][bk][n+1]
		if kindOf(cap) == king {
			p.kingSq[c^1] = 0
		}
	}
	if m.promotes() {
		pc += promoted
	}
	p.b[to] = pc
	p.b[from] = 0
	p.hash = h ^ zobPiece[pc][to]
	if kindOf(pc) == king {
		p.kingSq[c] = to
	}
	p.side ^= 1
	u.cap = cap
	return u
}

// undo takes back a move played by do.
func (p *Position) undo(m Move, u Undo) {
	p.side ^= 1
	p.hash = u.hash
	c := p.side
	to := m.to()
	if m.isDrop() {
		p.b[to] = 0
		p.hand[c][m.dropKind()]++
		return
	}
	from := m.from()
	pc := p.b[to]
	cap := u.cap
	if m.promotes() {
		pc -= promoted
	}
	p.b[from] = pc
	p.b[to] = cap
	if kindOf(pc) == king {
		p.kingSq[c] = from
	}
	if cap != 0 {
		p.hand[c][baseKind[kindOf(cap)]]--
		if kindOf(cap) == king {
			p.kingSq[c^1] = to
		}
	}
}

// key is the repetition key: board, hands and side to move (the Zobrist
// hash; sameAs confirms a match).
func (p *Position) key() uint64 { return p.hash }

// sameAs compares board, hands and side to move (not the move number).
func (p *Position) sameAs(q *Position) bool {
	return p.b == q.b && p.hand == q.hand && p.side == q.side
}

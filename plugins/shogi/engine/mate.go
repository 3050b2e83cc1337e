package engine

import (
	"context"
	"time"

	"github.com/banmen/banmen/plugins/shogi/rules"
)

// The mate search of the analysis: the side to move (the attacker) checks
// with every move, as in tsume, and the other side answers with every
// legal move. It is a depth-first proof-number search (df-pn, after
// Nagai): each position carries a proof number (how many more positions
// must be proven mated, at least, to prove it) and a disproof number, and
// the search always expands the most proving position, within thresholds
// that keep it depth-first. It is run with a limit of 1, 3, 5... plies,
// its table kept from one to the next, so the first limit at which it
// proves a mate is the mate's length with the best defence.
//
// A defender's futile interpositions (drops between a far checker and the
// king that only delay the mate) multiply the positions: each drop the
// attacker captures changes both hands. The table therefore remembers a
// proven position with the smallest attacker's hand its proof needs (the
// proof pieces), and a position that has the same board and at least that
// hand is proven too: the attacker has every move it had, the defender
// (who holds what the attacker does not) no more drops than it had. A
// disproven position is likewise disproven for any smaller hand. Once one
// interposition is proven, its siblings mostly are by that rule.
//
// A mate it reports is a mate: a position is proven only when every legal
// answer of the defender (GenerateMoves) is, down to a position where the
// defender has none.

// Proof and disproof numbers: infinity stands for "proven" or "disproven".
const pnInf = 1 << 30

// addPN is a saturating sum.
func addPN(a, b uint32) uint32 {
	if s := a + b; s < pnInf {
		return s
	}
	return pnInf
}

// A hand is the attacker's pieces in hand packed in one word, each kind in
// a field with a guard bit above it, so that hands compare field by field
// in one subtraction (handLE).
var handShift = [8]uint{rules.Pawn: 0, rules.Lance: 6, rules.Knight: 10, rules.Silver: 14, rules.Bishop: 18, rules.Rook: 21, rules.Gold: 24}
var handWidth = [8]uint{rules.Pawn: 5, rules.Lance: 3, rules.Knight: 3, rules.Silver: 3, rules.Bishop: 2, rules.Rook: 2, rules.Gold: 3}

// handGuards has the guard bit of every field.
var handGuards = func() uint32 {
	var g uint32
	for k := rules.Pawn; k <= rules.Gold; k++ {
		g |= 1 << (handShift[k] + handWidth[k])
	}
	return g
}()

func handOf(p *rules.Position, c int) uint32 {
	var h uint32
	for k := rules.Pawn; k <= rules.Gold; k++ {
		h |= uint32(p.Hand(c, k)) << handShift[k]
	}
	return h
}

func handCount(h uint32, k int) int { return int(h>>handShift[k]) & (1<<handWidth[k] - 1) }

func handSet(h uint32, k, n int) uint32 {
	mask := uint32(1<<handWidth[k]-1) << handShift[k]
	return h&^mask | uint32(n)<<handShift[k]
}

// handLE tells whether hand a has no more of any kind than hand b: b-a
// borrows from a guard bit exactly where a field of a is larger.
func handLE(a, b uint32) bool { return ((b|handGuards)-a)&handGuards == handGuards }

// handMax is the larger count of each kind.
func handMax(a, b uint32) uint32 {
	for k := rules.Pawn; k <= rules.Gold; k++ {
		if handCount(b, k) > handCount(a, k) {
			a = handSet(a, k, handCount(b, k))
		}
	}
	return a
}

// mateEntry is one slot of the table. A proof holds for any depth of at
// least length and any attacker's hand containing hand (its proof
// pieces); a disproof for any depth up to depth and any hand contained in
// hand; other numbers for this depth and exactly this hand.
type mateEntry struct {
	key    uint64 // the board's hash (BoardHash); 0: empty
	hand   uint32
	pn, dn uint32
	amount uint32 // the nodes spent on it: what replacement keeps
	depth  int8   // the remaining plies the numbers are for
	length int8   // a proof's length in plies
	gen    uint16 // the search that wrote it: others' slots are empty
}

// mateBits sizes the table (32 bytes a slot: 8 MB), in buckets of
// mateWays slots.
const (
	mateBits = 18
	mateWays = 4
)

// kid is a child of the position being expanded: its move, what finds it
// in the table, and its numbers as last known (kept here too, in case the
// table has lost them).
type kid struct {
	m      rules.Move
	key    uint64
	hand   uint32
	pn, dn uint32
	length int8
	rep    bool // repeats a position of the path: no mate through it
}

type mateSearcher struct {
	// lineStop, when set, is when reading a proven mate's line back must
	// stop too (the analysis's own deadline): the line may then be cut
	// short.
	lineStop time.Time
	tt       []mateEntry
	gen      uint16
	attacker int
	ctx      context.Context
	stop     time.Time
	nodes    int64
	limit    int64
	stopped  bool
	path     []uint64
	buf      [maxMateDepth + 2][rules.MaxMoves]rules.Move
	kids     [maxMateDepth + 2][]kid
}

func newMateSearcher() *mateSearcher {
	return &mateSearcher{tt: make([]mateEntry, 1<<mateBits)}
}

func (s *mateSearcher) tick() bool {
	s.nodes++
	if s.limit > 0 && s.nodes >= s.limit {
		s.stopped = true
	} else if s.nodes&255 == 0 && (!s.stop.IsZero() && time.Now().After(s.stop) || s.ctx.Err() != nil) {
		s.stopped = true
	}
	return s.stopped
}

// findMate looks for a mate by the side to move of at most maxDepth plies
// within the node and time budgets. It returns the mate's length in plies
// (0 when none was proven) and its line (which may be cut short, when the
// budget ends while it is read).
func findMate(ctx context.Context, s *mateSearcher, p rules.Position, maxDepth int, nodes int64, stop time.Time) (int, []rules.Move) {
	// A new generation instead of clearing 8 MB.
	if s.gen++; s.gen == 0 {
		clear(s.tt)
		s.gen = 1
	}
	s.ctx, s.stop, s.nodes, s.limit, s.stopped = ctx, stop, 0, nodes, false
	s.attacker = p.Side()
	for d := 1; d <= maxDepth && d <= maxMateDepth; d += 2 {
		if s.prove(&p, d) {
			return d, s.line(p, d)
		}
		if s.stopped {
			break
		}
	}
	return 0, nil
}

// prove runs the search from p (the attacker to move) with a limit of
// depth plies until it proves or disproves a mate, or is stopped.
func (s *mateSearcher) prove(p *rules.Position, depth int) bool {
	s.path = append(s.path[:0], p.Hash())
	pn, _, _ := s.mid(p, pnInf, pnInf, depth, 0)
	return pn == 0
}

// bucket is the table's bucket for a board hash.
func (s *mateSearcher) bucket(key uint64) []mateEntry {
	i := int(key&(1<<mateBits/mateWays-1)) * mateWays
	return s.tt[i : i+mateWays]
}

// look returns what the table knows of the position with board hash key
// and attacker's hand hand, depth plies from the limit: its numbers and,
// when proven, the proof's length. found is false when it knows nothing.
func (s *mateSearcher) look(key uint64, hand uint32, depth int) (pn, dn uint32, length int8, found bool) {
	for i := range s.bucket(key) {
		e := &s.bucket(key)[i]
		if e.key != key || e.gen != s.gen {
			continue
		}
		switch {
		case e.pn == 0 && int(e.length) <= depth && handLE(e.hand, hand):
			return 0, pnInf, e.length, true
		case e.dn == 0 && int(e.depth) >= depth && handLE(hand, e.hand):
			return pnInf, 0, 0, true
		case e.hand == hand && int(e.depth) == depth && e.pn != 0 && e.dn != 0:
			pn, dn, found = e.pn, e.dn, true
		}
	}
	return pn, dn, 0, found
}

// store records a position's numbers: a proof with its proof pieces, a
// disproof or numbers with the hand searched. It replaces the slot of the
// same position, else an empty one, else the one that cost least.
func (s *mateSearcher) store(key uint64, hand uint32, pn, dn uint32, depth int, length int8, amount uint32) {
	b := s.bucket(key)
	victim := -1
	rank := func(e *mateEntry) uint64 {
		if e.key == 0 || e.gen != s.gen {
			return 0
		}
		return 1 + uint64(e.amount)
	}
	for i := range b {
		e := &b[i]
		if e.key == key && e.gen == s.gen && e.hand == hand && (e.pn != 0 || pn == 0) {
			victim = i
			break
		}
		if victim < 0 || rank(e) < rank(&b[victim]) {
			victim = i
		}
	}
	b[victim] = mateEntry{key: key, hand: hand, pn: pn, dn: dn, depth: int8(depth), length: length, amount: amount, gen: s.gen}
}

// expand fills s.kids[ply] with the attacker's checks (or) or the
// defender's answers (and) from p, with what the table knows of each.
func (s *mateSearcher) expand(p *rules.Position, or bool, depth, ply int) []kid {
	moves := p.GenerateMoves(s.buf[ply][:0])
	kids := s.kids[ply][:0]
	ks := p.KingCell(1 - p.Side())
	for _, m := range moves {
		if or && !mayCheck(p, m, ks) {
			continue
		}
		u := p.DoMove(m)
		if or && !p.InCheck() {
			p.UndoMove(m, u)
			continue
		}
		k := kid{m: m, key: p.BoardHash(), hand: handOf(p, s.attacker), pn: 1, dn: 1}
		full := p.Hash()
		for _, h := range s.path {
			if h == full {
				k.rep = true
				break
			}
		}
		p.UndoMove(m, u)
		if k.rep {
			k.pn, k.dn = pnInf, 0
		} else if pn, dn, l, ok := s.look(k.key, k.hand, depth-1); ok {
			k.pn, k.dn, k.length = pn, dn, l
		}
		kids = append(kids, k)
	}
	s.kids[ply] = kids
	return kids
}

// mayCheck tells, without playing it, whether m could check the king on
// ks: it lands within two cells of the king, or a line piece lands on one
// of the king's lines, or it leaves one of them (a discovered check). It
// errs on the side of yes; playing the move decides.
func mayCheck(p *rules.Position, m rules.Move, ks int) bool {
	if ks == 0 {
		return false
	}
	kr, kc := rules.Row(ks), rules.Col(ks)
	to := m.To()
	dr, dc := rules.Row(to)-kr, rules.Col(to)-kc
	if dr >= -2 && dr <= 2 && dc >= -2 && dc <= 2 {
		return true
	}
	onLine := func(r, c int) (straight, diagonal bool) {
		return r == kr || c == kc, r-kr == c-kc || r-kr == kc-c
	}
	var kind int
	if m.IsDrop() {
		kind = m.DropKind()
	} else {
		from := m.From()
		if st, dg := onLine(rules.Row(from), rules.Col(from)); st || dg {
			return true
		}
		kind = p.At(from).Kind()
		if m.Promotes() {
			kind += rules.Promoted
		}
	}
	st, dg := onLine(rules.Row(to), rules.Col(to))
	switch kind {
	case rules.Lance, rules.Rook, rules.Dragon:
		return st
	case rules.Bishop, rules.Horse:
		return dg
	}
	return false
}

// mid searches p (the attacker to move when ply is even) with depth plies
// left until its proof number reaches thpn or its disproof number thdn, and
// returns them with, when proven, the proof's length and proof pieces.
func (s *mateSearcher) mid(p *rules.Position, thpn, thdn uint32, depth, ply int) (pn, dn uint32, length int8) {
	if s.tick() {
		return 1, 1, 0
	}
	or := p.Side() == s.attacker
	if or && depth <= 0 {
		return pnInf, 0, 0
	}
	key, hand := p.BoardHash(), handOf(p, s.attacker)
	if !or && depth <= 0 {
		// The last ply: mated or not.
		if len(p.GenerateMoves(s.buf[ply][:0])) == 0 {
			s.store(key, s.lacking(p, hand), 0, pnInf, depth, 0, 1)
			return 0, pnInf, 0
		}
		s.store(key, hand, pnInf, 0, depth, 0, 1)
		return pnInf, 0, 0
	}
	start := s.nodes
	kids := s.expand(p, or, depth, ply)
	if len(kids) == 0 {
		if or {
			// No check at all: no mate at any depth.
			s.store(key, hand, pnInf, 0, maxMateDepth, 0, 1)
			return pnInf, 0, 0
		}
		// Mated. The proof needs no piece in hand, unless the defender
		// could have interposed a drop: then every piece of a kind it
		// lacks, or it would hold one.
		s.store(key, s.lacking(p, hand), 0, pnInf, depth, 0, 1)
		return 0, pnInf, 0
	}
	for {
		// The numbers from the children: at the attacker's turn the best
		// check decides the proof and every check must fail for a
		// disproof; at the defender's, the other way round.
		best, second := -1, uint32(pnInf)
		var maxLen int8
		if or {
			pn, dn = pnInf, 0
			for i := range kids {
				k := &kids[i]
				if k.pn < pn || best < 0 {
					if best >= 0 {
						second = min(second, pn)
					}
					pn, best = k.pn, i
				} else {
					second = min(second, k.pn)
				}
				dn = addPN(dn, k.dn)
				if k.pn == 0 {
					break
				}
			}
		} else {
			pn, dn = 0, pnInf
			for i := range kids {
				k := &kids[i]
				if k.dn < dn || best < 0 {
					if best >= 0 {
						second = min(second, dn)
					}
					dn, best = k.dn, i
				} else {
					second = min(second, k.dn)
				}
				pn = addPN(pn, k.pn)
				maxLen = max(maxLen, k.length)
				if k.dn == 0 {
					break
				}
			}
		}
		amount := uint32(min(s.nodes-start+1, 1<<31))
		switch {
		case pn == 0:
			k := &kids[best]
			if or {
				length = k.length + 1
				proof := s.proofAfter(p, k)
				s.store(key, proof, 0, pnInf, depth, length, amount)
			} else {
				length = maxLen + 1
				proof := s.lacking(p, hand)
				for i := range kids {
					proof = handMax(proof, s.proofOf(&kids[i]))
				}
				s.store(key, proof, 0, pnInf, depth, length, amount)
			}
			return 0, pnInf, length
		case dn == 0:
			s.store(key, hand, pnInf, 0, depth, 0, amount)
			return pnInf, 0, 0
		}
		s.store(key, hand, pn, dn, depth, 0, amount)
		if pn >= thpn || dn >= thdn || s.stopped {
			return pn, dn, 0
		}
		k := &kids[best]
		var cpn, cdn uint32
		if or {
			cpn = min(thpn, addPN(second, 1))
			cdn = uint32(min(uint64(thdn)-uint64(dn)+uint64(k.dn), pnInf))
		} else {
			cdn = min(thdn, addPN(second, 1))
			cpn = uint32(min(uint64(thpn)-uint64(pn)+uint64(k.pn), pnInf))
		}
		u := p.DoMove(k.m)
		s.path = append(s.path, p.Hash())
		k.pn, k.dn, k.length = s.mid(p, cpn, cdn, depth-1, ply+1)
		s.path = s.path[:len(s.path)-1]
		p.UndoMove(k.m, u)
		if s.stopped {
			return pn, dn, 0
		}
		// The defender's other answers may have been proven meanwhile
		// (transpositions, and above all proofs by a smaller hand: the
		// sibling interpositions). The attacker's checks are left as
		// they were: looking them all up again costs more than it finds.
		for i := range kids {
			if or {
				break
			}
			if o := &kids[i]; i != best && !o.rep && o.pn != 0 && o.dn != 0 {
				if pn, dn, l, ok := s.look(o.key, o.hand, depth-1); ok {
					o.pn, o.dn, o.length = pn, dn, l
				}
			}
		}
		kids = s.kids[ply]
	}
}

// proofOf is the proof pieces of a proven child as the table has them (its
// own hand when the table has lost them: always enough).
func (s *mateSearcher) proofOf(k *kid) uint32 {
	best := k.hand
	for _, e := range s.bucket(k.key) {
		// Only a proof as short as the one counted: a smaller hand's
		// longer proof would not bound the length claimed.
		if e.key == k.key && e.gen == s.gen && e.pn == 0 && e.length <= k.length && handLE(e.hand, k.hand) && handLE(e.hand, best) {
			best = e.hand
		}
	}
	return best
}

// proofAfter is the proof pieces of an attacker's position proven by the
// check k: the child's, plus the piece dropped, less the piece captured
// (which the check brings into the hand).
func (s *mateSearcher) proofAfter(p *rules.Position, k *kid) uint32 {
	h := s.proofOf(k)
	if k.m.IsDrop() {
		kind := k.m.DropKind()
		h = handSet(h, kind, handCount(h, kind)+1)
	} else if t := p.At(k.m.To()); t != 0 {
		kind := baseOf(t.Kind())
		if n := handCount(h, kind); n > 0 {
			h = handSet(h, kind, n-1)
		}
	}
	// Never more than the hand held (the child's proof pieces are within
	// its hand, so this only guards the arithmetic).
	cur := handOf(p, s.attacker)
	for kind := rules.Pawn; kind <= rules.Gold; kind++ {
		if handCount(h, kind) > handCount(cur, kind) {
			h = handSet(h, kind, handCount(cur, kind))
		}
	}
	return h
}

// lacking is the part of the attacker's hand the defender (to move, in
// check) must not get for its answers to stay the same: every piece of a
// kind the defender has none of, when a drop could answer the check (a
// far check by a line piece); nothing otherwise.
func (s *mateSearcher) lacking(p *rules.Position, hand uint32) uint32 {
	if !interposable(p) {
		return 0
	}
	var h uint32
	d := 1 - s.attacker
	for k := rules.Pawn; k <= rules.Gold; k++ {
		if p.Hand(d, k) == 0 {
			h = handSet(h, k, handCount(hand, k))
		}
	}
	return h
}

// interposable tells whether the side to move's king is checked from afar
// by a line piece, with at least one empty cell between: where a drop
// could answer the check.
func interposable(p *rules.Position) bool {
	c := p.Side()
	ks := p.KingCell(c)
	if ks == 0 {
		return false
	}
	r0, c0 := rules.Row(ks), rules.Col(ks)
	for _, d := range [8][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}, {-1, -1}, {-1, 1}, {1, -1}, {1, 1}} {
		r, col, empty := r0+d[0], c0+d[1], 0
		for r >= 0 && r < 9 && col >= 0 && col < 9 {
			pc := p.At(rules.BoardCell(r*9 + col))
			if pc == 0 {
				empty++
				r, col = r+d[0], col+d[1]
				continue
			}
			if empty > 0 && pc.Color() != c && slides(pc.Kind(), pc.Color(), d) {
				return true
			}
			break
		}
	}
	return false
}

// slides tells whether a piece of kind k and colour c attacks along
// direction d (rows down, columns right, as Sente sees the board) from
// afar, toward the king at the start of the walk.
func slides(k, c int, d [2]int) bool {
	diag := d[0] != 0 && d[1] != 0
	switch k {
	case rules.Bishop, rules.Horse:
		return diag
	case rules.Rook, rules.Dragon:
		return !diag
	case rules.Lance:
		// The walk goes from the king to the lance: a Sente lance
		// attacks upward (toward row 0), so it stands below the king.
		if c == rules.Sente {
			return d == [2]int{1, 0}
		}
		return d == [2]int{-1, 0}
	}
	return false
}

// line reads a mate of depth plies back: at each attacking turn a check
// proven within the plies left, at each defending turn the answer after
// which the mate is longest. Positions the table has lost are proven
// again, within a budget of their own.
func (s *mateSearcher) line(p rules.Position, depth int) []rules.Move {
	var out []rules.Move
	// Twice as many nodes again as the proof took, and the clock of the
	// whole analysis rather than the proof's: a mate proven should have
	// its line.
	s.stopped = false
	s.limit = 3*s.nodes + 10_000
	s.stop = s.lineStop
	for d := depth; d > 0 && !s.stopped; d-- {
		or := p.Side() == s.attacker
		s.path = append(s.path[:0], p.Hash())
		kids := s.expand(&p, or, d, 0)
		pick, pickLen := -1, 0
		// The table first; then, what it has lost, searched again.
		for pass := 0; pass < 2 && pick < 0 || !or && pass < 2; pass++ {
			for i := range kids {
				k := &kids[i]
				if k.rep || pass == 0 && k.pn != 0 || pass == 1 && k.pn == 0 {
					continue
				}
				if pass == 1 {
					u := p.DoMove(k.m)
					s.path = append(s.path[:1], p.Hash())
					k.pn, k.dn, k.length = s.mid(&p, pnInf, pnInf, d-1, 1)
					p.UndoMove(k.m, u)
					if k.pn != 0 {
						continue
					}
				}
				l := int(k.length)
				if !or {
					// The defender: the real distance after its answer
					// (the table's length may be a longer mate's).
					l = s.distance(&p, k, l)
				}
				if pick < 0 || or && l < pickLen || !or && l > pickLen {
					pick, pickLen = i, l
				}
				if l == d-1 || s.stopped {
					break
				}
			}
			if pick >= 0 && pickLen == d-1 || s.stopped {
				break
			}
		}
		if pick < 0 {
			break
		}
		m := kids[pick].m
		out = append(out, m)
		p.DoMove(m)
		if !or && pickLen < d-1 {
			d = pickLen + 1
		}
	}
	return out
}

// distance is the shortest mate after the defender's answer k, known to
// be at most upTo plies.
func (s *mateSearcher) distance(p *rules.Position, k *kid, upTo int) int {
	u := p.DoMove(k.m)
	defer p.UndoMove(k.m, u)
	for l := 1; l < upTo; l += 2 {
		if pn, _, _, ok := s.look(k.key, k.hand, l); ok && pn == 0 {
			return l
		}
		s.path = append(s.path[:1], p.Hash())
		if pn, _, _ := s.mid(p, pnInf, pnInf, l, 1); pn == 0 {
			return l
		} else if s.stopped {
			break
		}
	}
	return upTo
}

package engine

import "github.com/banmen/banmen/plugins/yonin/rules"

// Values in hundredths of a pawn. A piece in hand is worth a little more than
// on the board: it can be dropped where it attacks a king. A promoted pawn or
// silver is worth nearly a gold, and it falls back to its own value when
// captured, which the hand values already say.
var (
	boardValue = [rules.NumKinds][2]int{{}, {}, {1000, 1250}, {600, 600}, {500, 600}, {100, 550}}
	handValue  = [rules.NumKinds]int{0, 0, 1100, 650, 550, 120}
)

// Outcome scores, far above any evaluation. A mate made is the first ranking
// key, so it is worth more than any one seat's material; being mated ends
// the seat's game, so it is worth less than anything else.
const (
	mateCredit  = 3000
	otherCredit = 1000
	// placeScore[place-1] scores a finished game for the root seat.
	firstPlace  = 60000
	secondPlace = 25000
	matedScore  = -90000 // mated first; mated later is a little better
	lostScore   = -50000 // below it, the root is mated
	inf         = 1 << 30
)

// evaluator scores positions for one seat (the root of the search).
type evaluator struct {
	root  int
	pairs bool
	// safety is how much, in percent, king safety counts: the levels
	// differ most in how well they see danger to a king, which is what
	// a beginner misses.
	safety int
	// press is how much, in percent, the root's pressure on enemy kings
	// counts: the will to attack.
	press int
}

// facts are what one pass over a position gives the evaluation.
type facts struct {
	material [4]int
	attacks  [4]rules.SquareSet
}

func gather(p *rules.Position) facts {
	var f facts
	for sq := range 81 {
		pc := p.At(sq)
		if pc != 0 && pc.Owner() < 4 && pc.Kind() != rules.King {
			f.material[pc.Owner()] += boardValue[pc.Kind()][b2i(pc.Promoted())]
		}
	}
	for s := range 4 {
		for _, k := range rules.HandKinds {
			f.material[s] += p.Hand(s, k) * handValue[k]
		}
	}
	f.attacks = p.AttackMaps()
	return f
}

// value is seat's own standing: material, mates made and king safety. The
// root's own mates weigh most; another seat's mates weigh less, because in
// a paranoid search the other seats would otherwise gladly mate each other
// (a mated seat's pieces merely change hands) to hurt the root.
func (e *evaluator) value(p *rules.Position, f *facts, seat int) int {
	credit := otherCredit
	if seat == e.root {
		credit = mateCredit
	}
	return credit*p.Score(seat) + f.material[seat] + e.kingSafety(p, f, seat)*e.safety/100
}

// kingSafety penalises a king with few escape squares and attacked
// neighbours: where mates, the game's first ranking key, come from.
func (e *evaluator) kingSafety(p *rules.Position, f *facts, seat int) int {
	k := p.King(seat)
	var enemy rules.SquareSet
	for s := range 4 {
		if s != seat {
			enemy = enemy.Or(f.attacks[s])
		}
	}
	attacked, escapes := 0, 0
	for d := range 8 {
		n := rules.Neighbour(k, d)
		if n < 0 {
			continue
		}
		if enemy.Has(n) {
			attacked++
			continue
		}
		if pc := p.At(n); pc == 0 || pc.Active() && pc.Owner() != seat && pc.Kind() != rules.King {
			escapes++
		}
	}
	v := -70 * attacked
	switch escapes {
	case 0:
		v -= 350
	case 1:
		v -= 180
	case 2:
		v -= 60
	}
	if p.InCheck(seat) {
		v -= 300
	}
	// Pieces in the others' hands can be dropped next to the king: a
	// cramped king is in more danger the more they hold.
	held := 0
	for s := range 4 {
		if s != seat && p.Live(s) {
			for _, k := range rules.HandKinds {
				held += p.Hand(s, k)
			}
		}
	}
	v = v * (4 + min(held, 8)) / 4
	return v
}

// evaluate scores a position still in play for the root seat: its standing
// against a third of the live others' (in pairs, its team's against the
// other team's), plus the pressure it puts on weak kings.
func (e *evaluator) evaluate(p *rules.Position) int {
	if !p.Live(e.root) {
		return e.matedScore(p)
	}
	f := gather(p)
	var vals [4]int
	for s := range 4 {
		if p.Live(s) {
			vals[s] = e.value(p, &f, s)
		}
	}
	var v int
	if e.pairs {
		for s := range 4 {
			if !p.Live(s) {
				continue
			}
			if s&1 == e.root&1 {
				v += vals[s]
			} else {
				v -= vals[s]
			}
		}
	} else {
		// A third of the others' sum, mated seats counting nothing: a
		// mate the root makes takes a whole seat off it. (Two thirds, to
		// keep the paranoid coalition from sacrificing, did worse in
		// matches: it made every level greedier than safe.)
		sum := 0
		for s := range 4 {
			if s != e.root {
				sum += vals[s]
			}
		}
		v = vals[e.root] - sum/3
	}
	return v + e.pressure(p, &f)
}

// pressure rewards the root's pieces bearing on the squares around enemy
// kings, since the mate goes to whoever moves last before it.
func (e *evaluator) pressure(p *rules.Position, f *facts) int {
	v := 0
	for t := range 4 {
		if t == e.root || !p.Live(t) || e.pairs && t&1 == e.root&1 {
			continue
		}
		v += 15 * f.attacks[e.root].And(rules.KingZone(p.King(t))).Len()
	}
	return v * e.press / 100
}

// matedScore scores a position in which the root seat has been mated:
// mated later is better (a higher place), and in pairs a partner's mate is
// the team's loss too.
func (e *evaluator) matedScore(p *rules.Position) int {
	for i := range p.Mates() {
		if mated, _ := p.Mated(i); mated == e.root {
			return matedScore + 15000*i
		}
	}
	return matedScore
}

// terminal scores a position where the game has ended by mates.
func (e *evaluator) terminal(p *rules.Position) int {
	if e.pairs {
		mated, _ := p.Mated(0)
		if mated&1 == e.root&1 {
			return matedScore
		}
		return firstPlace
	}
	if !p.Live(e.root) {
		return e.matedScore(p)
	}
	if e.better(p, e.root) {
		return firstPlace + p.PieceCount(e.root)
	}
	return secondPlace + p.PieceCount(e.root)
}

// better reports whether seat ranks above every other live seat: mates,
// then pieces, then the later last mate (SPEC §4).
func (e *evaluator) better(p *rules.Position, seat int) bool {
	key := func(s int) [3]int {
		k := [3]int{p.Score(s), p.PieceCount(s), -1}
		for i := range p.Mates() {
			if _, mater := p.Mated(i); mater == s {
				k[2] = i
			}
		}
		return k
	}
	mine := key(seat)
	for s := range 4 {
		if s == seat || !p.Live(s) {
			continue
		}
		other := key(s)
		if other == mine {
			return false
		}
		for i := range mine {
			if mine[i] != other[i] {
				if mine[i] < other[i] {
					return false
				}
				break
			}
		}
	}
	return true
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

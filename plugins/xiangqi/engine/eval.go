package engine

import "github.com/banmen/banmen/plugins/xiangqi/rules"

// Scores are points for the side to move: a rook is about 600, a soldier 30
// at home and up to 110 near the enemy palace; mates are beyond mateBound.

// material is the base value of each kind.
var material = [8]int32{
	rules.King: 0, rules.Advisor: 120, rules.Elephant: 120, rules.Horse: 270,
	rules.Rook: 600, rules.Cannon: 285, rules.Pawn: 30,
}

// The piece-square tables below are written as Red sees the board: the
// first row is rank 9 (Black's back rank), the last rank 0 (Red's), files a
// to i left to right. Black uses them mirrored. They are our own: soldiers
// gain as they near the palace but not on the last rank, horses gain by
// coming forward and central, rooks like the enemy half and the palace
// files, cannons the central file, and the general stays home.
var pstText = [8][10][9]int32{
	rules.Pawn: {
		{0, 0, 0, 10, 20, 10, 0, 0, 0},
		{20, 30, 50, 70, 80, 70, 50, 30, 20},
		{20, 30, 50, 60, 70, 60, 50, 30, 20},
		{20, 30, 40, 50, 55, 50, 40, 30, 20},
		{10, 20, 30, 35, 35, 35, 30, 20, 10},
		{0, 0, 5, 0, 10, 0, 5, 0, 0},
		{0, 0, 0, 0, 5, 0, 0, 0, 0},
		{0, 0, 0, 0, 0, 0, 0, 0, 0},
		{0, 0, 0, 0, 0, 0, 0, 0, 0},
		{0, 0, 0, 0, 0, 0, 0, 0, 0},
	},
	rules.Horse: {
		{0, -5, 5, 10, 0, 10, 5, -5, 0},
		{0, 10, 20, 25, 15, 25, 20, 10, 0},
		{5, 15, 25, 30, 30, 30, 25, 15, 5},
		{0, 15, 20, 25, 25, 25, 20, 15, 0},
		{0, 10, 15, 20, 20, 20, 15, 10, 0},
		{0, 5, 10, 15, 15, 15, 10, 5, 0},
		{-5, 5, 10, 10, 10, 10, 10, 5, -5},
		{-5, 0, 10, 5, 10, 5, 10, 0, -5},
		{-10, -5, 0, 0, -10, 0, 0, -5, -10},
		{-10, -5, -5, -5, -10, -5, -5, -5, -10},
	},
	rules.Rook: {
		{10, 10, 10, 15, 15, 15, 10, 10, 10},
		{10, 15, 15, 20, 20, 20, 15, 15, 10},
		{5, 10, 10, 15, 15, 15, 10, 10, 5},
		{5, 10, 10, 15, 15, 15, 10, 10, 5},
		{5, 10, 10, 10, 10, 10, 10, 10, 5},
		{5, 10, 10, 10, 10, 10, 10, 10, 5},
		{0, 5, 5, 10, 5, 10, 5, 5, 0},
		{0, 5, 5, 5, 5, 5, 5, 5, 0},
		{0, 5, 5, 5, 0, 5, 5, 5, 0},
		{-10, 0, 0, 5, 0, 5, 0, 0, -10},
	},
	rules.Cannon: {
		{15, 10, 0, -5, -10, -5, 0, 10, 15},
		{5, 5, 0, -5, 0, -5, 0, 5, 5},
		{5, 5, 0, 0, 10, 0, 0, 5, 5},
		{0, 0, 0, 0, 10, 0, 0, 0, 0},
		{0, 0, 0, 0, 10, 0, 0, 0, 0},
		{0, 0, 0, 0, 10, 0, 0, 0, 0},
		{0, 0, 0, 0, 10, 0, 0, 0, 0},
		{0, 5, 5, 5, 15, 5, 5, 5, 0},
		{0, 0, 0, 0, 5, 0, 0, 0, 0},
		{0, 0, 0, 0, 0, 0, 0, 0, 0},
	},
	rules.Advisor: {
		7: {0, 0, 0, -5, 0, -5, 0, 0, 0},
		8: {0, 0, 0, 0, 5, 0, 0, 0, 0},
		9: {0, 0, 0, 0, 0, 0, 0, 0, 0},
	},
	rules.Elephant: {
		5: {0, 0, -5, 0, 0, 0, -5, 0, 0},
		7: {-5, 0, 0, 0, 5, 0, 0, 0, -5},
		9: {0, 0, 0, 0, 0, 0, 0, 0, 0},
	},
	rules.King: {
		7: {0, 0, 0, -30, -30, -30, 0, 0, 0},
		8: {0, 0, 0, -15, -10, -15, 0, 0, 0},
		9: {0, 0, 0, -5, 0, -5, 0, 0, 0},
	},
}

// pst[c][k][s] is material plus placement of a kind-k piece of colour c on
// square s, from c's point of view.
var pst [2][8][256]int32

func init() {
	for k := rules.King; k <= rules.Pawn; k++ {
		for r := 0; r < 10; r++ {
			for f := 0; f < 9; f++ {
				v := material[k] + pstText[k][9-r][f]
				pst[rules.Red][k][rules.SquareAt(f, r)] = v
				pst[rules.Black][k][rules.SquareAt(f, 9-r)] = v
			}
		}
	}
}

// Directions on the rules' mailbox (see rules/position.go).
const (
	north = 16
	south = -16
	east  = 1
	west  = -1
)

var (
	orthogonal = [4]int{north, south, east, west}
	horseJump  = [8]int{2*north + east, 2*north + west, 2*south + east, 2*south + west,
		2*east + north, 2*east + south, 2*west + north, 2*west + south}
	horseLeg = [8]int{north, north, south, south, east, east, west, west}
)

// Evaluation weights beyond the tables.
const (
	tempo          = 10 // the side to move can act first
	horseMobility  = 4  // per point a horse can jump to: a hobbled horse is weak
	rookMobility   = 2  // per empty point on a rook's lines
	missingGuard   = 12 // per missing advisor or elephant, per enemy attacker
	cannonEndgame  = 20 // a cannon's loss when few screens remain, a horse's gain
	endgamePieces  = 10 // fewer pieces than this on the board is an endgame
	attackerWeight = 2  // a rook counts as two attackers
)

// evaluate scores the position for the side to move.
func evaluate(p *rules.Position) int32 {
	var score [2]int32
	var guards, attackers [2]int32
	total := 0
	for c := rules.Red; c <= rules.Black; c++ {
		own := p.Squares(c)
		for _, s := range own {
			if s == rules.NoSquare {
				continue
			}
			total++
			pc := p.PieceAt(s)
			k := pc.Kind()
			score[c] += pst[c][k][s]
			switch k {
			case rules.Horse:
				attackers[c]++
				n := int32(0)
				for j := range horseJump {
					if p.PieceAt(sqAdd(s, horseLeg[j])) == rules.Empty {
						if t := p.PieceAt(sqAdd(s, horseJump[j])); t == rules.Empty || (t != rules.Border && t.Color() != c) {
							n++
						}
					}
				}
				score[c] += horseMobility * n
			case rules.Rook:
				attackers[c] += attackerWeight
				n := int32(0)
				for _, d := range orthogonal {
					t := sqAdd(s, d)
					for p.PieceAt(t) == rules.Empty {
						n++
						t = sqAdd(t, d)
					}
				}
				score[c] += rookMobility * n
			case rules.Cannon:
				attackers[c]++
			case rules.Pawn:
				if !rules.OwnHalf(c, s) {
					attackers[c]++
				}
			case rules.Advisor, rules.Elephant:
				guards[c]++
			}
		}
	}
	for c := rules.Red; c <= rules.Black; c++ {
		// A bare palace matters only against attackers: without them the
		// guards are nearly worthless, with them each missing one hurts.
		score[c] -= (4 - guards[c]) * missingGuard * min(attackers[c^1], 6) / 2
	}
	if total < endgamePieces {
		// Cannons need screens, horses thrive on an open board.
		for c := rules.Red; c <= rules.Black; c++ {
			for _, s := range p.Squares(c) {
				if s == rules.NoSquare {
					continue
				}
				switch p.PieceAt(s).Kind() {
				case rules.Cannon:
					score[c] -= cannonEndgame
				case rules.Horse:
					score[c] += cannonEndgame
				}
			}
		}
	}
	us := p.Side()
	return score[us] - score[us^1] + tempo
}

func sqAdd(s rules.Square, d int) rules.Square { return rules.Square(int(s) + d) }

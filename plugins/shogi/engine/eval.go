package engine

import "github.com/banmen/banmen/plugins/shogi/rules"

// The evaluation is hand-written and small: material (promoted forms and
// pieces in hand valued apart), a few square tables, and king safety seen as
// who stands near each king. It is symmetric, so a position and its mirror
// with colours swapped score the same for the side to move.

// boardValue is material on the board by kind, in centipawns. Promoted
// minor pieces are worth about a gold; the relative values follow the
// well-known engine tunings (Bonanza, GPS Shogi) rounded.
var boardValue = [16]int{
	rules.Pawn: 90, rules.Lance: 260, rules.Knight: 290, rules.Silver: 420,
	rules.Gold: 480, rules.Bishop: 620, rules.Rook: 720, rules.King: 0,
	rules.Tokin: 520, rules.ProLance: 490, rules.ProKnight: 500, rules.ProSilver: 490,
	rules.Horse: 850, rules.Dragon: 1000,
}

// handValue is material in hand: a little above the board value, since a
// piece in hand can go almost anywhere (and a pawn in hand defends and
// attacks by drops).
var handValue = [8]int{
	rules.Pawn: 100, rules.Lance: 290, rules.Knight: 320, rules.Silver: 460,
	rules.Gold: 520, rules.Bishop: 680, rules.Rook: 800,
}

// Square bonus tables are written for Sente, rank a (row 0) first; Gote
// reads them upside down.
var (
	pawnAdvance   = [9]int{0, 0, 10, 14, 10, 6, 0, 0, 0}
	kingRankBonus = [9]int{-120, -110, -100, -80, -60, -30, 0, 15, 20}
	// Knights and lances far from home are loose; silvers and golds belong
	// in the middle.
	knightRank = [9]int{0, 0, 10, 15, 8, 0, -5, -5, -10}
	silverRank = [9]int{0, 5, 10, 12, 10, 6, 4, 0, -5}
	goldRank   = [9]int{-10, 0, 5, 5, 5, 5, 4, 2, 0}
)

// attackWeight is how much a piece near the enemy king threatens it (within
// two steps), defendWeight how much it shields its own king.
var attackWeight = [16]int{
	rules.Pawn: 6, rules.Lance: 6, rules.Knight: 10, rules.Silver: 16, rules.Gold: 16,
	rules.Bishop: 10, rules.Rook: 14,
	rules.Tokin: 18, rules.ProLance: 16, rules.ProKnight: 16, rules.ProSilver: 16,
	rules.Horse: 24, rules.Dragon: 34,
}

var defendWeight = [16]int{
	rules.Pawn: 4, rules.Lance: 4, rules.Knight: 4, rules.Silver: 16, rules.Gold: 20,
	rules.Bishop: 6, rules.Rook: 4,
	rules.Tokin: 12, rules.ProLance: 12, rules.ProKnight: 12, rules.ProSilver: 12,
	rules.Horse: 20, rules.Dragon: 8,
}

// handAttack is how much a piece in hand adds to an attack on the enemy
// king: drops are how shogi attacks are finished.
var handAttack = [8]int{
	rules.Pawn: 2, rules.Lance: 4, rules.Knight: 6, rules.Silver: 8, rules.Gold: 10,
	rules.Bishop: 8, rules.Rook: 12,
}

// dist is the king-step distance between two cells.
var dist [rules.NumCells][rules.NumCells]int8

func init() {
	for i := 0; i < 81; i++ {
		a := rules.BoardCell(i)
		for j := 0; j < 81; j++ {
			b := rules.BoardCell(j)
			dr := rules.Row(a) - rules.Row(b)
			dc := rules.Col(a) - rules.Col(b)
			dist[a][b] = int8(max(abs(dr), abs(dc)))
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// tempo is what having the move is worth.
const tempo = 20

// evaluate scores the position for the side to move.
func evaluate(p *rules.Position) int {
	var mat, pst [2]int
	// attack[c] is the pressure of colour c on the enemy king, defend[c]
	// the shield around its own.
	var attack, defend [2]int
	ks := [2]int{p.KingCell(rules.Sente), p.KingCell(rules.Gote)}
	for i := 0; i < 81; i++ {
		sq := rules.BoardCell(i)
		pc := p.At(sq)
		if pc == 0 {
			continue
		}
		c, k := pc.Color(), pc.Kind()
		mat[c] += boardValue[k]
		row := rules.Row(sq)
		if c == rules.Gote {
			row = 8 - row
		}
		switch k {
		case rules.Pawn:
			pst[c] += pawnAdvance[row]
		case rules.Knight:
			pst[c] += knightRank[row]
		case rules.Silver:
			pst[c] += silverRank[row]
		case rules.Gold:
			pst[c] += goldRank[row]
		case rules.King:
			pst[c] += kingRankBonus[row]
			continue
		}
		if e := ks[c^1]; e != 0 {
			switch dist[sq][e] {
			case 1:
				attack[c] += attackWeight[k] * 3 / 2
			case 2:
				attack[c] += attackWeight[k]
			case 3:
				attack[c] += attackWeight[k] / 3
			}
		}
		if o := ks[c]; o != 0 {
			switch dist[sq][o] {
			case 1:
				defend[c] += defendWeight[k] * 3 / 2
			case 2:
				defend[c] += defendWeight[k]
			}
		}
	}
	for c := 0; c < 2; c++ {
		h := 0
		for k := rules.Pawn; k <= rules.Gold; k++ {
			if n := p.Hand(c, k); n > 0 {
				mat[c] += n * handValue[k]
				h += handAttack[k] * min(n, 2)
			}
		}
		attack[c] += h
	}
	score := [2]int{mat[0] + pst[0], mat[1] + pst[1]}
	for c := 0; c < 2; c++ {
		if ks[c] == 0 {
			continue
		}
		// Danger grows faster than linearly: one attacker is nothing, a
		// swarm against a bare king decides the game.
		danger := attack[c^1] - defend[c]/2
		if danger > 0 {
			score[c] -= danger * danger / 40
		}
		score[c] += defend[c] / 2
	}
	s := p.Side()
	return score[s] - score[s^1] + tempo
}

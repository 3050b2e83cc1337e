package connect4

import "github.com/banmen/banmen/sdk"

// game is the columns played in turn (Red first) and who resigned; the board
// is replayed from them, so the two cannot disagree.
type game struct {
	moves    []int
	resigned sdk.Seat
}

// board holds 0 (empty), 1 (Red) or 2 (Yellow) per cell, index = row*7+col
// from the top left as Red sees it.
type board [cells]byte

func (g game) board() (b board) {
	for i, c := range g.moves {
		b[b.landing(c)*files+c] = byte(i%2) + 1
	}
	return b
}

// landing is the row a disc dropped into col comes to rest on, -1 when the
// column is full.
func (b *board) landing(col int) int {
	for r := ranks - 1; r >= 0; r-- {
		if b[r*files+col] == 0 {
			return r
		}
	}
	return -1
}

// winner is the seat with four in a line, or sdk.NoSeat.
func (b *board) winner() sdk.Seat {
	for r := range ranks {
		for c := range files {
			m := b[r*files+c]
			if m == 0 {
				continue
			}
			for _, d := range [4][2]int{{0, 1}, {1, 0}, {1, 1}, {1, -1}} {
				n := 1
				for k := 1; k < 4; k++ {
					rr, cc := r+d[0]*k, c+d[1]*k
					if rr < 0 || rr >= ranks || cc < 0 || cc >= files || b[rr*files+cc] != m {
						break
					}
					n++
				}
				if n == 4 {
					return sdk.Seat(m - 1)
				}
			}
		}
	}
	return sdk.NoSeat
}

func (g game) toMove() sdk.Seat { return sdk.Seat(len(g.moves) % 2) }

func (g game) over() bool {
	b := g.board()
	return g.resigned != sdk.NoSeat || b.winner() != sdk.NoSeat || len(g.moves) == cells
}

const stateVersion = 1

// encode seals the game: one byte per column played, then 7+seat if a seat
// resigned.
func (g game) encode() sdk.State {
	p := make([]byte, 0, len(g.moves)+1)
	for _, c := range g.moves {
		p = append(p, byte(c))
	}
	if g.resigned != sdk.NoSeat {
		p = append(p, byte(files+g.resigned))
	}
	return sdk.SealState(ID, stateVersion, p)
}

// decode opens a state and checks every byte: it comes from a browser.
func decode(s sdk.State) (game, error) {
	version, p, err := sdk.OpenState(ID, s)
	if err != nil {
		return game{}, err
	}
	if version != stateVersion {
		return game{}, sdk.Errorf(sdk.CodeBadState, "unknown state version %d", version)
	}
	g := game{resigned: sdk.NoSeat}
	for i, c := range p {
		if g.over() {
			return game{}, sdk.Errorf(sdk.CodeBadState, "a move after the end")
		}
		switch {
		case c == files || c == files+1:
			if i != len(p)-1 {
				return game{}, sdk.Errorf(sdk.CodeBadState, "a move after a resignation")
			}
			g.resigned = sdk.Seat(c - files)
		case c < files:
			if b := g.board(); b.landing(int(c)) < 0 {
				return game{}, sdk.Errorf(sdk.CodeBadState, "a disc in a full column")
			}
			g.moves = append(g.moves, int(c))
		default:
			return game{}, sdk.Errorf(sdk.CodeBadState, "bad move byte %d", c)
		}
	}
	return g, nil
}

// columnText is the move text of a column: "a" to "g".
func columnText(c int) string { return string(rune('a' + c)) }

func parseColumn(s string) (int, error) {
	if len(s) != 1 || s[0] < 'a' || s[0] >= 'a'+files {
		return 0, sdk.Errorf(sdk.CodeBadMove, "%q is not a column a to g", sdk.Clip(s))
	}
	return int(s[0] - 'a'), nil
}

// drop is the listed move of seat into col, landing on row.
func drop(seat sdk.Seat, col, row int) sdk.LegalMove {
	m := columnText(col)
	return sdk.LegalMove{Seat: seat, Kind: sdk.DropMove, Move: sdk.Move(m), Text: m, From: -1, To: row*files + col, Drop: kinds[seat]}
}

// view is everything the browser shows.
func (g game) view() sdk.View {
	b := g.board()
	v := sdk.View{Ply: len(g.moves), Status: sdk.Playing, Board: make([]sdk.Cell, cells),
		History: []sdk.PlayedMove{}, Legal: []sdk.LegalMove{}}
	var pos []byte
	for i, m := range b {
		v.Board[i] = sdk.Cell{Owner: sdk.NoSeat}
		pos = append(pos, ".ry"[m])
		if m != 0 {
			v.Board[i] = sdk.Cell{Kind: kinds[m-1], Owner: sdk.Seat(m - 1)}
		}
		if i%files == files-1 && i < cells-1 {
			pos = append(pos, '/')
		}
	}
	v.Position = string(pos)
	var replay board
	for i, c := range g.moves {
		r := replay.landing(c)
		replay[r*files+c] = byte(i%2) + 1
		v.History = append(v.History, sdk.PlayedMove{Seat: sdk.Seat(i % 2), Move: sdk.Move(columnText(c)), Text: columnText(c)})
		if i == len(g.moves)-1 {
			last := drop(sdk.Seat(i%2), c, r)
			v.LastMove = &last
		}
	}
	if g.resigned != sdk.NoSeat {
		v.Ply++
		v.History = append(v.History, sdk.PlayedMove{Seat: g.resigned, Move: sdk.Resign, Text: string(sdk.Resign)})
	}
	switch w := b.winner(); {
	case g.resigned != sdk.NoSeat:
		v.Result = win(1-g.resigned, "result.resignation")
	case w != sdk.NoSeat:
		v.Result = win(w, "result.connect4.four")
	case len(g.moves) == cells:
		v.Result = &sdk.Result{Draw: true, Places: []int{1, 1}, Reason: "result.draw"}
	default:
		seat := g.toMove()
		v.ToMove = []sdk.Seat{seat}
		for col := range files {
			if r := b.landing(col); r >= 0 {
				v.Legal = append(v.Legal, drop(seat, col, r))
			}
		}
		return v
	}
	v.Status = sdk.Over
	return v
}

func win(w sdk.Seat, reason string) *sdk.Result {
	places := []int{2, 2}
	places[w] = 1
	return &sdk.Result{Winners: []sdk.Seat{w}, Places: places, Reason: reason}
}

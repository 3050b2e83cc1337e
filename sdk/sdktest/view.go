package sdktest

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/banmen/banmen/sdk"
)

// CheckDescription returns every way d breaks the contract's rules for a
// Description (nil when it is sound). Run calls it; a variant's own tests may
// too.
func CheckDescription(d sdk.Description) error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	if d.ID == "" {
		bad("ID is empty")
	} else if !urlSafe(d.ID) {
		bad("ID %q is not a URL path segment (use a-z, 0-9, '-', '_', '.', '~')", d.ID)
	}
	if d.Name == "" {
		bad("Name is empty")
	}
	if d.NameKey == "" {
		bad("NameKey is empty")
	}
	if d.RulesVersion == "" {
		bad("RulesVersion is empty (a host records it beside every game it keeps; start with \"1\")")
	}
	if len(d.Seats) == 0 {
		bad("no seats")
	}
	for i, s := range d.Seats {
		if s.Name == "" || s.NameKey == "" || s.Color == "" {
			bad("seat %d: Name, NameKey and Color must all be set: %+v", i, s)
		}
	}

	g := d.Board
	if g.Files <= 0 || g.Ranks <= 0 {
		bad("board geometry %dx%d is not positive", g.Files, g.Ranks)
	}
	if len(g.FileLabels) != 0 && len(g.FileLabels) != g.Files {
		bad("%d FileLabels for %d files", len(g.FileLabels), g.Files)
	}
	if len(g.RankLabels) != 0 && len(g.RankLabels) != g.Ranks {
		bad("%d RankLabels for %d ranks", len(g.RankLabels), g.Ranks)
	}
	for i, m := range g.Marks {
		if err := checkMark(g, len(d.Seats), m); err != nil {
			bad("mark %d %+v: %v", i, m, err)
		}
	}

	if len(d.Pieces) == 0 {
		bad("no piece kinds")
	}
	kinds := map[string]bool{}
	for i, p := range d.Pieces {
		if p.ID == "" {
			bad("piece %d has an empty ID", i)
		} else if kinds[p.ID] {
			bad("piece kind %q is listed twice", p.ID)
		}
		kinds[p.ID] = true
		if p.Name == "" || p.NameKey == "" {
			bad("piece %q: Name and NameKey must be set", p.ID)
		}
		if err := checkGlyphs(p.Glyphs, len(d.Seats)); err != nil {
			bad("piece %q: %v", p.ID, err)
		}
		if p.Promoted != nil {
			if p.Promoted.Name == "" || p.Promoted.NameKey == "" {
				bad("piece %q: promoted Name and NameKey must be set", p.ID)
			}
			if err := checkGlyphs(p.Promoted.Glyphs, len(d.Seats)); err != nil {
				bad("piece %q promoted: %v", p.ID, err)
			}
		}
	}

	keys := map[string]bool{}
	for i, o := range d.Options {
		if o.Key == "" {
			bad("option %d has an empty Key", i)
		} else if keys[o.Key] {
			bad("option %q is listed twice", o.Key)
		}
		keys[o.Key] = true
		if o.Name == "" || o.NameKey == "" {
			bad("option %q: Name and NameKey must be set", o.Key)
		}
		if err := checkOptionSpec(o); err != nil {
			bad("option %q: %v", o.Key, err)
		}
		if strings.HasPrefix(o.Key, sdk.HostSettingPrefix) {
			bad("option %q: keys starting with %q are the sdk's host settings (Description.HostSettings)", o.Key, sdk.HostSettingPrefix)
		}
	}
	for i, o := range d.HostSettings {
		if o.Key == "" {
			bad("host setting %d has an empty Key", i)
		} else if keys[o.Key] {
			bad("host setting %q is listed twice", o.Key)
		}
		keys[o.Key] = true
		if o.Name == "" || o.NameKey == "" {
			bad("host setting %q: Name and NameKey must be set", o.Key)
		}
		if err := checkOptionSpec(o); err != nil {
			bad("host setting %q: %v", o.Key, err)
		} else if err := checkHostSetting(d, o); err != nil {
			bad("host setting %q: %v", o.Key, err)
		}
	}
	if _, ok := d.HostSetting(sdk.SettingRotateFirst); ok {
		if _, ok := d.HostSetting(sdk.SettingFirstSeat); !ok {
			bad("host setting %q without %q: the host rotates the first seat through it", sdk.SettingRotateFirst, sdk.SettingFirstSeat)
		}
	}

	if len(d.Notations) == 0 {
		bad("no notations")
	}
	ids := map[string]bool{}
	for i, n := range d.Notations {
		if n.ID == "" {
			bad("notation %d has an empty ID", i)
		} else if ids[n.ID] {
			bad("notation %q is listed twice", n.ID)
		}
		ids[n.ID] = true
		if n.Name == "" {
			bad("notation %q has an empty Name", n.ID)
		}
		if n.Extension != "" && !strings.HasPrefix(n.Extension, ".") {
			bad("notation %q: Extension %q does not start with a dot", n.ID, n.Extension)
		}
	}

	// No levels is a variant without a computer player (no Suggester); the
	// suggest test checks that the two go together.
	levels := map[sdk.Level]bool{}
	for _, l := range d.Levels {
		if l == "" {
			bad("an empty level")
		} else if levels[l] {
			bad("level %q is listed twice", l)
		}
		levels[l] = true
	}
	return errors.Join(errs...)
}

func urlSafe(s string) bool {
	if s == "." || s == ".." {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case r == '-', r == '_', r == '.', r == '~':
		default:
			return false
		}
	}
	return true
}

func checkGlyphs(glyphs []string, seats int) error {
	if len(glyphs) != 1 && len(glyphs) != seats {
		return fmt.Errorf("%d glyphs: want 1 (every seat) or one per seat (%d)", len(glyphs), seats)
	}
	if slices.Contains(glyphs, "") {
		return fmt.Errorf("an empty glyph in %q", glyphs)
	}
	return nil
}

func checkMark(g sdk.Geometry, seats int, m sdk.Mark) error {
	switch m.Kind {
	case "palace", "zone":
		if m.Row < 0 || m.Col < 0 || m.Rows <= 0 || m.Cols <= 0 ||
			m.Row+m.Rows > g.Ranks || m.Col+m.Cols > g.Files {
			return errors.New("rectangle is not on the board")
		}
	case "river":
		if m.Row < 0 || m.Row >= g.Ranks-1 {
			return errors.New("river row is not between two rows")
		}
	case "star":
		if m.Row < 0 || m.Row > g.Ranks || m.Col < 0 || m.Col > g.Files {
			return errors.New("star is not on a corner of the board")
		}
	default:
		return fmt.Errorf("unknown kind %q", m.Kind)
	}
	if m.Seat != sdk.NoSeat && (m.Seat < 0 || int(m.Seat) >= seats) {
		return fmt.Errorf("seat %d out of range", m.Seat)
	}
	return nil
}

// checkHostSetting reports whether a host setting's values are the ones the
// sdk defines for its key (see the sdk.Setting* constants), so that a host
// can read them without knowing the variant.
func checkHostSetting(d sdk.Description, o sdk.OptionSpec) error {
	switch o.Key {
	case sdk.SettingFirstSeat:
		if o.Type != "int" || o.Min < 0 || o.Max >= len(d.Seats) {
			return fmt.Errorf("a seat number: type int within 0..%d, not %s %d..%d", len(d.Seats)-1, o.Type, o.Min, o.Max)
		}
	case sdk.SettingRotateFirst:
		if o.Type != "bool" {
			return fmt.Errorf("type bool, not %s", o.Type)
		}
	case sdk.SettingMoveTime:
		switch o.Type {
		case "int":
			if o.Min < 0 {
				return fmt.Errorf("seconds: Min %d < 0", o.Min)
			}
		case "choice":
			for _, c := range o.Choices {
				if n, err := strconv.Atoi(c); err != nil || n < 0 {
					return fmt.Errorf("seconds: choice %q is not a whole number ≥ 0 (\"0\" for no limit)", c)
				}
			}
		default:
			return fmt.Errorf("seconds: type int or a choice of whole numbers, not %s", o.Type)
		}
	case sdk.SettingHumanSeats:
		if o.Type != "int" || o.Min < 1 || o.Max > len(d.Seats) {
			return fmt.Errorf("a number of seats: type int within 1..%d, not %s %d..%d", len(d.Seats), o.Type, o.Min, o.Max)
		}
	case sdk.SettingLevel:
		if o.Type != "choice" {
			return fmt.Errorf("a level: type choice, not %s", o.Type)
		}
		for _, c := range o.Choices {
			if !slices.Contains(d.Levels, sdk.Level(c)) {
				return fmt.Errorf("choice %q is not among the levels %v", c, d.Levels)
			}
		}
	default:
		return fmt.Errorf("not a host setting the sdk defines (%v)", sdk.HostSettingKeys())
	}
	return nil
}

func checkOptionSpec(o sdk.OptionSpec) error {
	switch o.Type {
	case "bool":
		if o.Default != "true" && o.Default != "false" {
			return fmt.Errorf("bool default %q is neither true nor false", o.Default)
		}
	case "int":
		if o.Min > o.Max {
			return fmt.Errorf("Min %d > Max %d", o.Min, o.Max)
		}
		n, err := strconv.Atoi(o.Default)
		if err != nil {
			return fmt.Errorf("int default %q is not an integer", o.Default)
		}
		if n < o.Min || n > o.Max {
			return fmt.Errorf("int default %d is outside %d..%d", n, o.Min, o.Max)
		}
	case "choice":
		if len(o.Choices) == 0 {
			return errors.New("a choice without choices")
		}
		seen := map[string]bool{}
		for _, c := range o.Choices {
			if c == "" || seen[c] {
				return fmt.Errorf("choices %q: empty or repeated", o.Choices)
			}
			seen[c] = true
		}
		if !seen[o.Default] {
			return fmt.Errorf("default %q is not among choices %q", o.Default, o.Choices)
		}
	default:
		return fmt.Errorf("unknown type %q (want bool, int or choice)", o.Type)
	}
	return nil
}

// CheckView returns every way v breaks the contract's rules for a View of a
// game of the variant described by d (nil when it is sound): board size, piece
// kinds and owners, seats to move, result, legal moves and their cells. It
// says nothing about whether the rules are right.
func CheckView(d sdk.Description, v sdk.View) error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	seats := len(d.Seats)
	cells := d.Board.Files * d.Board.Ranks
	inSeats := func(s sdk.Seat) bool { return s >= 0 && int(s) < seats }
	kinds := map[string]bool{}
	for _, p := range d.Pieces {
		kinds[p.ID] = true
	}

	if v.Ply < 0 {
		bad("Ply %d is negative", v.Ply)
	}
	if v.Position == "" {
		bad("Position is empty")
	}
	if len(v.Board) != cells {
		bad("%d board cells, want Files*Ranks = %d", len(v.Board), cells)
	}
	for i, c := range v.Board {
		if c.Kind == "" {
			if c.Promoted || c.Flipped {
				bad("cell %d is empty but promoted or flipped: %+v", i, c)
			}
			continue
		}
		if !kinds[c.Kind] {
			bad("cell %d holds kind %q, which Describe does not list", i, c.Kind)
		}
		if c.Owner != sdk.NoSeat && !inSeats(c.Owner) {
			bad("cell %d: owner %d out of range", i, c.Owner)
		}
		if c.Facing < 0 || c.Facing > 3 {
			bad("cell %d: facing %d is not 0..3 quarter turns", i, c.Facing)
		}
	}

	if len(v.Hands) != 0 {
		if !d.Hands {
			bad("Hands are listed but Describe says the variant has none")
		}
		if len(v.Hands) != seats {
			bad("%d hands for %d seats", len(v.Hands), seats)
		}
		for s, h := range v.Hands {
			seen := map[string]bool{}
			for _, hp := range h {
				if !kinds[hp.Kind] {
					bad("hand %d holds kind %q, which Describe does not list", s, hp.Kind)
				}
				if seen[hp.Kind] {
					bad("hand %d lists kind %q twice", s, hp.Kind)
				}
				seen[hp.Kind] = true
				if hp.Count <= 0 {
					bad("hand %d: kind %q with count %d", s, hp.Kind, hp.Count)
				}
			}
		}
	}

	checkSeats := func(name string, list []sdk.Seat) {
		seen := map[sdk.Seat]bool{}
		for _, s := range list {
			if !inSeats(s) {
				bad("%s: seat %d out of range", name, s)
			}
			if seen[s] {
				bad("%s: seat %d listed twice", name, s)
			}
			seen[s] = true
		}
	}
	checkSeats("ToMove", v.ToMove)
	checkSeats("InCheck", v.InCheck)
	checkSeats("Eliminated", v.Eliminated)
	if len(v.Score) != 0 && len(v.Score) != seats {
		bad("%d scores for %d seats", len(v.Score), seats)
	}

	switch v.Status {
	case sdk.Playing:
		if len(v.ToMove) == 0 {
			bad("status playing but no seat to move")
		}
		if v.Result != nil {
			bad("status playing but a result is set: %+v", *v.Result)
		}
		if len(v.Legal) == 0 {
			bad("status playing but no legal move (a game without moves must be over)")
		}
	case sdk.Over:
		if len(v.ToMove) != 0 {
			bad("status over but ToMove = %v", v.ToMove)
		}
		if len(v.Legal) != 0 {
			bad("status over but %d legal moves", len(v.Legal))
		}
		if v.Result == nil {
			bad("status over without a result")
		}
	default:
		bad("unknown status %q", v.Status)
	}
	if r := v.Result; r != nil {
		if r.Reason == "" {
			bad("result without a reason")
		}
		checkSeats("Result.Winners", r.Winners)
		if r.Draw && len(r.Winners) != 0 {
			bad("a draw with winners %v", r.Winners)
		}
		if len(r.Places) != 0 {
			if len(r.Places) != seats {
				bad("%d places for %d seats", len(r.Places), seats)
			}
			for s, p := range r.Places {
				if p < 1 || p > seats {
					bad("seat %d has place %d, want 1..%d", s, p, seats)
				}
			}
		}
	}

	if v.LastMove != nil && v.LastMove.Move != sdk.Resign && v.LastMove.Move != sdk.Abandon {
		if err := checkLegalMove(d, *v.LastMove, kinds, cells); err != nil {
			bad("LastMove %+v: %v", *v.LastMove, err)
		}
	}
	for i, h := range v.History {
		if h.Move == "" || h.Text == "" {
			bad("history %d: Move and Text must be set: %+v", i, h)
		}
		if !inSeats(h.Seat) {
			bad("history %d: seat %d out of range", i, h.Seat)
		}
	}

	moves := map[sdk.Seat]map[sdk.Move]bool{}
	for i, m := range v.Legal {
		if !slices.Contains(v.ToMove, m.Seat) {
			bad("legal %d %q: seat %d is not to move (%v)", i, m.Move, m.Seat, v.ToMove)
		}
		if err := checkLegalMove(d, m, kinds, cells); err != nil {
			bad("legal %d %+v: %v", i, m, err)
		} else if m.Kind == sdk.BoardMove && len(v.Board) == cells && v.Board[m.From].Kind == "" {
			bad("legal %d %q moves from cell %d, which is empty", i, m.Move, m.From)
		}
		if moves[m.Seat] == nil {
			moves[m.Seat] = map[sdk.Move]bool{}
		}
		if moves[m.Seat][m.Move] {
			bad("legal move %q of seat %d is listed twice", m.Move, m.Seat)
		}
		moves[m.Seat][m.Move] = true
		if m.Kind == sdk.Action && m.Key == "" {
			bad("legal action %q without a button Key", m.Move)
		}
		if m.Move == sdk.Resign {
			bad("legal moves list %q: resigning is offered by Description.Resign, not listed", sdk.Resign)
		}
		if m.Move == sdk.Abandon {
			bad("legal moves list %q: the host plays it for a player who left, players never choose it", sdk.Abandon)
		}
	}
	return errors.Join(errs...)
}

func checkLegalMove(d sdk.Description, m sdk.LegalMove, kinds map[string]bool, cells int) error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if m.Move == "" {
		bad("empty Move")
	}
	if m.Text == "" {
		bad("empty Text")
	}
	if m.Seat < 0 || int(m.Seat) >= len(d.Seats) {
		bad("seat %d out of range", m.Seat)
	}
	onBoard := func(i int) bool { return i >= 0 && i < cells }
	switch m.Kind {
	case sdk.BoardMove:
		if !onBoard(m.From) || !onBoard(m.To) {
			bad("a board move needs From and To on the board (0..%d)", cells-1)
		}
		if m.Drop != "" {
			bad("a board move with Drop %q", m.Drop)
		}
	case sdk.DropMove:
		if m.From != -1 || !onBoard(m.To) {
			bad("a drop needs From -1 and To on the board (0..%d)", cells-1)
		}
		if !kinds[m.Drop] {
			bad("drops kind %q, which Describe does not list", m.Drop)
		}
	case sdk.Action:
		if m.From != -1 || m.To != -1 {
			bad("an action needs From and To -1")
		}
	default:
		bad("unknown Kind %q", m.Kind)
	}
	return errors.Join(errs...)
}

// diffViews names the fields in which two views differ, as JSON, or returns
// "" when they are the same to a browser.
func diffViews(a, b sdk.View) string {
	var out []string
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	for i := range va.NumField() {
		ja, _ := json.Marshal(va.Field(i).Interface())
		jb, _ := json.Marshal(vb.Field(i).Interface())
		if string(ja) != string(jb) {
			out = append(out, fmt.Sprintf("%s: %s != %s", va.Type().Field(i).Name, clip(string(ja)), clip(string(jb))))
		}
	}
	return strings.Join(out, "; ")
}

func clip(s string) string {
	const n = 300
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Package sdk is the one game contract of Banmen: every game variant implements
// Variant, and the host talks to it only in these terms. It holds the contract
// and the helpers a variant needs to honour it, nothing else: a plugin's main
// calls serve.Serve (package sdk/serve) with its variants, and the host's side
// of the boundary is package sdk/host.
//
// Rules are pure. A variant keeps no game between calls: the whole game travels
// as an opaque, versioned State that only the variant understands and that it
// must validate as hostile input. So a crashed plugin loses nothing, one plugin
// process serves every room, and the host may retry any call. (A variant whose
// State is dear to decode may keep a cache keyed by the State's exact bytes:
// package sdk/statecache.)
//
// Beside Variant, the optional capabilities (Suggester, Rewinder,
// LocalExporter, PlayersExporter, Perfter, Divider) are interfaces found by type assertion.
// Declare each one a variant has with a compile-time guard,
//
//	var _ sdk.Suggester = Variant{}
//
// since a method whose signature differs from the interface's still compiles
// and would silently not be the capability.
//
// The module is versioned on its own (tags sdk/vX.Y.Z); sdk/CHANGELOG.md
// records every breaking change with the fix.
//
// The package must never import the platform or any plugin, and must never
// know a game rule.
package sdk

import (
	"context"
	"errors"
	"fmt"
)

// Seat is a player's place at the table: 0 and 1 in a two-player game, 0–3
// clockwise from South in a four-player game. NoSeat marks an ownerless piece.
type Seat int

// NoSeat is the owner of a piece that belongs to nobody.
const NoSeat Seat = -1

// State is a whole game (position, history, options) in the variant's own
// versioned encoding. The host stores and forwards it without looking inside.
type State []byte

// Move is the variant's move text: USI "7g7f", "P*5e", "8h2b+"; UCCI "h2e2";
// Yonin seat-prefixed text. Resign and the variant's actions (such as a
// declaration) are moves too.
type Move string

// Resign is the move by which a seat gives up, where Description.Resign says
// the variant allows it. Every seat may play it while the game is on.
const Resign Move = "resign"

// Abandon is the move a host plays for a seat whose player has left the game
// for good, when another player claims the win (a room's "claim the win"),
// where Description.Abandon says the variant records it. The game ends as
// the seat's resignation would, with its own reason, ReasonAbandoned, in the
// View and in the records the variant writes (shogi's CSA %TIME_UP, say), so
// that no record calls it a resignation. Players do not send it: a host
// plays it for the seat that left, whichever seat is to move.
const Abandon Move = "abandon"

// ReasonAbandoned is the Result.Reason of a game ended by Abandon: the
// loser left it and the winner claimed the win. The site holds its text.
const ReasonAbandoned = "result.abandoned"

// Level names a computer player's strength, one of Description.Levels.
type Level string

// The levels every built-in variant offers.
const (
	Easy   Level = "easy"
	Medium Level = "medium"
	Hard   Level = "hard"
)

// Options are the values a game starts with, keyed by OptionSpec.Key, written
// as text ("true", "60", "pairs"). Missing keys take their defaults.
type Options map[string]string

// Variant is a game's rules behind the contract. Every method must be safe for
// concurrent use and must treat its State argument as untrusted bytes.
type Variant interface {
	// Describe tells what the variant is: seats, board, pieces, options,
	// notations and computer levels. It is called once, at registration.
	Describe() Description
	// Start begins a game with the given options (unknown keys or bad
	// values are a *RuleError).
	Start(opts Options) (State, View, error)
	// Play applies the move of seat to the game. An illegal move is a
	// *RuleError and leaves nothing changed.
	Play(s State, seat Seat, m Move) (State, View, error)
	// View describes a game without changing it.
	View(s State) (View, error)
	// Export writes the game (its initial position and moves) in a format
	// listed in Description.Notations.
	Export(s State, format string) (string, error)
	// Import reads a game or a position written in one of the formats that
	// Description.Notations marks as importable.
	Import(format, text string) (State, View, error)
}

// Suggester is the optional capability of playing: the computer player. A
// variant that lists Description.Levels must have it (Serve refuses one that
// does not); one without levels offers no computer games.
type Suggester interface {
	// Suggest returns the computer's move for seat, at one of
	// Description.Levels. Seat must be one of View.ToMove (whichever seat
	// the rules put to move: the host plays computer seats by name, so the
	// engine never assumes whose turn it is); any other seat is a
	// *RuleError with code CodeNotYourTurn. It must return before ctx's
	// deadline, and at once when ctx is already done.
	Suggest(ctx context.Context, s State, seat Seat, level Level) (Move, error)
}

// Rewinder is the optional capability of going back in a game: it serves the
// move list's navigation (the position after any earlier move) and
// takebacks. A variant that has it says so in Description.Rewind (serve.Serve
// sets it), and the browser offers both only then.
type Rewinder interface {
	// Rewind returns the game as it was after its first ply moves (0: as it
	// started, with its options in force), State and View as Play returned
	// them at the time. ply below 0 or beyond View.Ply is a *RuleError with
	// code CodeBadPly.
	Rewind(s State, ply int) (State, View, error)
}

// LocalExporter is the optional capability of writing a record's headers and
// comments in the reader's language. ExportIn is Export with lang, one of
// the site's language codes ("ja"; an unknown one is English); the moves
// and the position are the same as Export's, so Import reads both.
type LocalExporter interface {
	ExportIn(s State, format, lang string) (string, error)
}

// PlayersExporter is the optional capability of writing the players' names
// in a record's header (the KIF 先手/後手 lines, CSA's N+/N-). The host
// passes them as data and knows no format: ExportWith is Export (ExportIn
// with o.Lang) with o.Players[seat] the name that seat's player gave, ""
// for none. Names are untrusted text: the variant writes them only where
// its format has a place for a name, without line breaks or control
// characters. A variant without it gets Export or ExportIn.
type PlayersExporter interface {
	ExportWith(s State, format string, o ExportOptions) (string, error)
}

// ExportOptions are what an export request may carry beside the format.
type ExportOptions struct {
	Lang    string   // as LocalExporter's lang; "" for the variant's own
	Players []string // per seat, the player's name; "" or missing for none
}

// Perfter is the optional capability of counting the leaves of the legal-move
// tree, for testing a move generator. An empty position means the start.
type Perfter interface {
	Perft(ctx context.Context, position string, depth int) (uint64, error)
}

// Description tells the host and the browser everything they need to show a
// variant without knowing its rules.
type Description struct {
	ID      string `json:"id"`      // "shogi": URL path segment and plugin key
	Name    string `json:"name"`    // English name, "Shogi"
	NameKey string `json:"nameKey"` // i18n key of the name, "variant.shogi"
	// RulesVersion names the rules games are played under ("1"). A host
	// stores it beside a game record it keeps (a room's log of moves) and
	// replays the record through the variant to rebuild the game, so the
	// author must change it whenever a record made before might replay
	// differently or be refused: a move legal before is not now (or the
	// reverse), an ending, a result or the turn order changes, an option's
	// meaning changes. A new option with a default that plays as before, new
	// texts, levels, a new notation or a new state encoding (which
	// SealState's version byte covers) need no new version. A host that
	// finds a record made under another version and can no longer replay it
	// says so, instead of failing obscurely.
	RulesVersion string `json:"rulesVersion"`
	// Seats in turn order: seat i is Seats[i].
	Seats []SeatInfo `json:"seats"`
	Board Geometry   `json:"board"`
	// Pieces lists every kind that can appear, in the order hands are shown.
	Pieces  []PieceKind  `json:"pieces"`
	Options []OptionSpec `json:"options,omitempty"`
	// HostSettings are the host settings (keys Setting*, owned by the sdk)
	// the variant supports, each with its values and default: Start
	// accepts these keys beside Options, and refuses every other Setting*
	// key with CodeBadOption.
	HostSettings []OptionSpec `json:"hostSettings,omitempty"`
	Notations    []Notation   `json:"notations"`
	// Levels are the computer strengths Suggest accepts, weakest first;
	// only a Suggester may list any.
	Levels []Level `json:"levels,omitempty"`
	// Resign tells whether a seat may resign (Move Resign).
	Resign bool `json:"resign"`
	// Abandon tells whether the variant records a game a player left
	// (Move Abandon, with ReasonAbandoned). A host that ends a game for a
	// player who left plays Abandon for that seat where this is set, and
	// Resign where it is not (Resign must then be set).
	Abandon bool `json:"abandon,omitempty"`
	// Hands tells whether captured pieces go to hands shown beside the board.
	Hands bool `json:"hands"`
	// Rewind tells whether the variant is a Rewinder (move list navigation
	// and takebacks). serve.Serve sets it from the variant's methods.
	Rewind bool `json:"rewind,omitempty"`
	// Analyse tells whether the variant is an Analyser (an engine's score,
	// best move and line for any position). serve.Serve sets it.
	Analyse bool `json:"analyse,omitempty"`
	// AltFirst lists the page languages (BCP 47 primary tags, "zh", "ja")
	// whose move list shows the Alt texts first; the person may switch.
	AltFirst []string `json:"altFirst,omitempty"`
	// Texts are the variant's strings per language (see Texts): its names,
	// seats, pieces, options, results, notices, errors and its pages. The
	// host merges them with the site's own and never sends them on to
	// browsers as part of the Description.
	Texts Texts `json:"texts,omitempty"`
	// Card is the picture of the variant's card on the home page: an SVG
	// document, drawn in a 2:1 box (viewBox "0 0 200 100"), at most
	// CardBudget bytes. A host serves it after SanitizeSVG, and never as
	// part of the Description. Empty: a plain card.
	Card string `json:"card,omitempty"`
}

// SeatInfo names a seat.
type SeatInfo struct {
	Name    string `json:"name"`    // "Sente"
	NameKey string `json:"nameKey"` // "seat.shogi.sente"
	Color   string `json:"color"`   // a CSS colour for the seat's pieces and marks
}

// Geometry is the board's shape. Cells are numbered row by row from the top
// left as seen by seat 0 (who sits at the bottom): index = row*Files + col.
type Geometry struct {
	Files int `json:"files"` // columns
	Ranks int `json:"ranks"` // rows
	// Points is true when pieces stand on intersections (xiangqi), false when
	// they stand in squares.
	Points bool `json:"points"`
	// Upright is true when pieces are drawn upright whatever their facing.
	Upright bool `json:"upright"`
	// FileLabels and RankLabels are the coordinates printed along the edges,
	// left to right and top to bottom as seen by seat 0.
	FileLabels []string `json:"fileLabels,omitempty"`
	RankLabels []string `json:"rankLabels,omitempty"`
	// Marks are drawn on the board: palaces, the river, star points, zones.
	Marks []Mark `json:"marks,omitempty"`
}

// Mark is a drawing on the board. Kind is "palace" (diagonals across the
// rectangle), "river" (a gap between rows Row and Row+1), "star" (a dot at a
// corner where cells meet) or "zone" (a tinted rectangle).
type Mark struct {
	Kind string `json:"kind"`
	Row  int    `json:"row"`
	Col  int    `json:"col"`
	Rows int    `json:"rows,omitempty"`
	Cols int    `json:"cols,omitempty"`
	Seat Seat   `json:"seat,omitempty"`
}

// PieceKind describes a kind of piece: its names, how to draw it, and how it
// moves (for the beginner piece set that shows the moves; the browser never
// computes moves from it).
type PieceKind struct {
	ID      string `json:"id"`      // "P", as in Cell.Kind
	Name    string `json:"name"`    // "pawn"
	NameKey string `json:"nameKey"` // "piece.shogi.pawn"
	// Glyphs per owner seat (one entry: every seat), e.g. ["歩"] or ["帥","將"].
	Glyphs []string `json:"glyphs"`
	// Promoted is set when the kind can promote: its glyphs and steps then.
	Promoted *PromotedForm `json:"promoted,omitempty"`
	// Letter is the short western label, "P".
	Letter string `json:"letter,omitempty"`
	Steps  []Step `json:"steps,omitempty"`
	// Royal pieces (kings, generals) are drawn with a check mark when in check.
	Royal bool `json:"royal,omitempty"`
	// Drawing, when set, draws the piece instead of a token with its glyph:
	// SVG markup (no <svg> root) in a 100-unit cell centred on 0,0, per
	// owner seat like Glyphs (one entry: every seat), each at most
	// DrawingBudget bytes and passed through SanitizeSVG by the host.
	// currentColor is the owner seat's colour. For discs, stones, marks.
	Drawing []string `json:"drawing,omitempty"`
}

// PromotedForm is how a promoted piece looks and moves.
type PromotedForm struct {
	Name    string   `json:"name"`
	NameKey string   `json:"nameKey"`
	Glyphs  []string `json:"glyphs"`
	Letter  string   `json:"letter,omitempty"`
	Steps   []Step   `json:"steps,omitempty"`
	// Drawing is the promoted form's, as PieceKind.Drawing.
	Drawing []string `json:"drawing,omitempty"`
}

// Step is one direction a piece moves in, relative to its facing: DY<0 is
// forward, DX>0 to the piece's right. Slide means any distance; Jump means it
// leaps over what is between.
type Step struct {
	DX    int  `json:"dx"`
	DY    int  `json:"dy"`
	Slide bool `json:"slide,omitempty"`
	Jump  bool `json:"jump,omitempty"`
}

// OptionSpec is one setting of a game. Type is "bool", "int" or "choice".
type OptionSpec struct {
	Key     string   `json:"key"`
	Name    string   `json:"name"`
	NameKey string   `json:"nameKey"`
	Type    string   `json:"type"`
	Default string   `json:"default"`
	Choices []string `json:"choices,omitempty"` // for "choice"
	Min     int      `json:"min,omitempty"`     // for "int"
	Max     int      `json:"max,omitempty"`     // for "int"
	// Seat marks an "int" option whose value is a seat number: the UI
	// offers the seats by name (Description.Seats) instead of numbers.
	Seat bool `json:"seat,omitempty"`
	// None, when set, is the value of an "int" option that means none (a
	// move limit of "0"): the UI offers "none" as a choice of its own
	// beside a number.
	None string `json:"none,omitempty"`
}

// Host settings are what a host applies to a game for its players: who
// starts a new round, a clock per move, how many seats people take and the
// computer's level for the others. Their keys belong to the sdk, not to any
// variant, so that a host reads no variant's own option names: a variant
// declares the ones it supports in Description.HostSettings (with its own
// names, values and default), and Start accepts them in its Options beside
// the variant's own keys. A setting the rules need (who moves first) the
// variant maps to its rules; the others it may record for View.Details or
// ignore, but it must accept them. Every key starts with HostSettingPrefix,
// which no variant option may use.
const HostSettingPrefix = "host."

// The host settings, and the values each takes.
const (
	// SettingFirstSeat is the seat that moves first, as a seat number
	// (type "int", Min ≥ 0, Max < the number of seats). A rule of the game:
	// the variant starts the game with that seat to move, and the host sets
	// it to begin a new round with another seat. A variant whose first mover
	// is fixed (shogi's Sente, xiangqi's Red) declares none.
	SettingFirstSeat = "host.first_seat"
	// SettingRotateFirst asks the host to start each new round with the
	// seat after the one that started the last, in turn order ("bool"). The
	// host applies it through SettingFirstSeat, which the variant then
	// declares too.
	SettingRotateFirst = "host.rotate_first"
	// SettingMoveTime is the time each move may take, in whole seconds, "0"
	// for no limit ("int" with Min ≥ 0, or a "choice" of whole numbers such
	// as "0", "30", "60"). The host runs the clock; at zero the computer
	// moves for the seat.
	SettingMoveTime = "host.move_time"
	// SettingHumanSeats is how many seats people take; the computer plays
	// the others ("int", 1 ≤ Min ≤ Max ≤ the number of seats).
	SettingHumanSeats = "host.human_seats"
	// SettingLevel is the computer's level for the seats it plays (a
	// "choice" among Description.Levels).
	SettingLevel = "host.level"
)

// HostSettingKeys returns every host setting key the sdk defines.
func HostSettingKeys() []string {
	return []string{SettingFirstSeat, SettingRotateFirst, SettingMoveTime, SettingHumanSeats, SettingLevel}
}

// HostSetting returns the variant's declaration of the host setting key, and
// whether it declares one.
func (d Description) HostSetting(key string) (OptionSpec, bool) {
	for _, s := range d.HostSettings {
		if s.Key == key {
			return s, true
		}
	}
	return OptionSpec{}, false
}

// Notation is a text format Export writes and, when Import is set, Import reads.
type Notation struct {
	ID        string `json:"id"` // "sfen+usi", "kif"
	Name      string `json:"name"`
	Import    bool   `json:"import"`
	MediaType string `json:"mediaType"` // for downloads, "text/plain; charset=utf-8"
	Extension string `json:"extension"` // ".kif"
}

// View is everything the browser and the host need after a move. A caller
// only reads it: a variant may share its slices (History, say, capped so
// that an append copies) with the games it caches.
type View struct {
	Ply    int    `json:"ply"`
	Status Status `json:"status"`
	// Position is the current position in the variant's main notation.
	Position string `json:"position"`
	// Board has Files*Ranks cells (see Geometry).
	Board []Cell `json:"board"`
	// Hands[seat] lists the pieces in that seat's hand (empty when the
	// variant has no hands).
	Hands      [][]HandPiece `json:"hands,omitempty"`
	ToMove     []Seat        `json:"toMove"`
	InCheck    []Seat        `json:"inCheck,omitempty"`
	Eliminated []Seat        `json:"eliminated,omitempty"`
	// Score[seat] is a per-seat count the variant shows (Yonin: mates made).
	Score    []int        `json:"score,omitempty"`
	LastMove *LegalMove   `json:"lastMove,omitempty"`
	History  []PlayedMove `json:"history"`
	Legal    []LegalMove  `json:"legal"`
	Result   *Result      `json:"result,omitempty"`
	Notices  []string     `json:"notices,omitempty"` // i18n keys of facts to show ("notice.check")
	Details  []KeyValue   `json:"details,omitempty"` // variant facts for the UI (option values in force)
	// HideLegal asks the UI not to mark where a picked-up piece may go (a
	// variant's option, such as Yonin's "show legal moves" turned off). The
	// moves are still listed in Legal; the zero value shows them, so a
	// variant without such an option need not set it.
	HideLegal bool `json:"hideLegal,omitempty"`
}

// Status is the phase of a game.
type Status string

// The statuses of a game.
const (
	Playing Status = "playing"
	Over    Status = "over"
)

// Cell is one board cell. Kind is empty for an empty cell.
type Cell struct {
	Kind     string `json:"kind,omitempty"`
	Owner    Seat   `json:"owner"`
	Facing   int    `json:"facing,omitempty"` // quarter turns clockwise from pointing up
	Promoted bool   `json:"promoted,omitempty"`
	Flipped  bool   `json:"flipped,omitempty"` // lying face down, drawn without its face (Yonin: an eliminated player's king)
}

// HandPiece is a kind held in hand and how many.
type HandPiece struct {
	Kind  string `json:"kind"`
	Count int    `json:"count"`
}

// MoveKind tells how a legal move is made in the UI.
type MoveKind string

// The kinds of legal move.
const (
	BoardMove MoveKind = "move"   // From → To
	DropMove  MoveKind = "drop"   // Drop kind from hand → To
	Action    MoveKind = "action" // a button (a declaration): no cells
)

// LegalMove is one move the seat to move may make, structured for the UI.
// When a piece may promote or not, both forms are listed with the same From
// and To, and the UI asks.
type LegalMove struct {
	Seat    Seat     `json:"seat"`
	Kind    MoveKind `json:"kind"`
	Move    Move     `json:"move"`
	Text    string   `json:"text"`          // display text in the variant's move-list notation
	Alt     string   `json:"alt,omitempty"` // a second display text (western names for shogi)
	From    int      `json:"from"`          // cell index, -1 for drops and actions
	To      int      `json:"to"`            // cell index, -1 for actions
	Drop    string   `json:"drop,omitempty"`
	Promote bool     `json:"promote,omitempty"`
	// Key is the i18n key of an action's button ("action.declare").
	Key string `json:"key,omitempty"`
}

// PlayedMove is a move in the game's history.
type PlayedMove struct {
	Seat Seat   `json:"seat"`
	Move Move   `json:"move"`
	Text string `json:"text"`
	Alt  string `json:"alt,omitempty"`
	// Number is the move's number as the variant's exported records write
	// it, where that is not its place in the History (xiangqi's WXF numbers
	// a move and its reply together, from the start position's move
	// number); 0: the move's ply, 1 for the first. The move list shows a
	// number once, on the first entry that has it.
	Number int `json:"number,omitempty"`
}

// Result is how a finished game ended.
type Result struct {
	// Winners are the seats that won; empty for a draw.
	Winners []Seat `json:"winners,omitempty"`
	// Places[seat] is the seat's final place, 1 = first; shared places
	// repeat. Empty where the variant has no places.
	Places []int `json:"places,omitempty"`
	// Reason is an i18n key: "result.checkmate", "result.repetition", ...
	Reason string `json:"reason"`
	Draw   bool   `json:"draw,omitempty"`
}

// KeyValue is a labelled fact.
type KeyValue struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// RuleError is a rejection by the rules: an illegal move, a malformed
// position, bad options. Code is stable for programs ("illegal_move"), Key is
// the i18n key for people, Message is English detail.
type RuleError struct {
	Code    string `json:"code"`
	Key     string `json:"key"`
	Message string `json:"message"`
}

func (e *RuleError) Error() string {
	if e.Message == "" {
		return e.Code
	}
	return e.Code + ": " + e.Message
}

// Errorf returns a *RuleError with the given code, the i18n key "error."+code,
// and a formatted message.
func Errorf(code, format string, args ...any) *RuleError {
	return &RuleError{Code: code, Key: "error." + code, Message: fmt.Sprintf(format, args...)}
}

// Common rule error codes; variants add their own.
const (
	CodeIllegalMove = "illegal_move"  // well-formed but not legal now
	CodeBadMove     = "bad_move"      // the move text does not parse
	CodeNotYourTurn = "not_your_turn" // the seat may not move now
	CodeGameOver    = "game_over"     // the game has ended
	CodeBadState    = "bad_state"     // the state bytes are not a valid game
	CodeBadOption   = "bad_option"    // an unknown option or a bad value
	CodeBadPosition = "bad_position"  // a malformed position text
	CodeBadFormat   = "bad_format"    // an unknown notation
	CodeBadNotation = "bad_notation"  // a malformed game record
	CodeNoMove      = "no_move"       // Suggest found nothing to play
	CodeUnsupported = "unsupported"   // the variant does not offer this
	CodeBadPly      = "bad_ply"       // Rewind to a ply the game does not have
)

// AsRuleError reports whether err is (or wraps) a *RuleError and returns it.
func AsRuleError(err error) (*RuleError, bool) {
	var re *RuleError
	if errors.As(err, &re) {
		return re, true
	}
	return nil, false
}

// Divider is the optional capability of splitting a perft count by root move,
// keyed by move text, to find where a move generator goes wrong.
type Divider interface {
	Divide(ctx context.Context, position string, depth int) (map[string]uint64, error)
}

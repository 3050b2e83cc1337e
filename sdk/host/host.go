// Package host is the host's side of the boundary to a rules plugin: it
// launches a plugin binary, completes the handshake, and makes the calls of
// the contract across the process boundary (Conn), and it checks the plugin's
// health. The platform imports it; plugin authors never need it. Each call
// takes a request struct (PlayRequest, ...), so that an input added later is
// a field, not a new argument. The quick calls go over the plugin's channel
// (the multiplexed lane) when it offers one, else over gRPC, as do Suggest
// and Perft always.
// Every call returns a plain sdk.View. On the way the board and legal moves
// travel packed (the wire's internal form, which the plugin's server writes
// and these calls read back): a caller never sees it.
//
// It must never import the platform or any plugin, and must never know a
// game rule.
package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"math"
	"os/exec"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/internal/channel"
	"github.com/banmen/banmen/sdk/internal/wire"
	hclog "github.com/hashicorp/go-hclog"
	plugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// ErrPluginExited is returned by calls on a plugin whose process has gone.
var ErrPluginExited = errors.New("plugin process has exited")

// Conn is a running plugin process and the connection to it. Its methods are
// safe for concurrent use; after the process dies they fail, and the owner
// starts a new Conn.
type Conn struct {
	client *plugin.Client
	game   wire.GameClient
	ch     *channel.Lane // nil: every call over gRPC
	proto  plugin.ClientProtocol
	descs  []sdk.Description
	pid    int
}

// LaunchConfig says how to start a plugin.
type LaunchConfig struct {
	// Cmd is the unstarted plugin command. Its Env is all the plugin sees:
	// nothing of the host's environment is inherited. On Linux the plugin
	// also gets a parent-death signal, so it never outlives its launcher.
	Cmd *exec.Cmd
	// Logger receives the plugin's log lines.
	Logger *slog.Logger
	// StartTimeout bounds the handshake (default 10 s).
	StartTimeout time.Duration
	// GRPCOnly makes every call over gRPC, leaving the plugin's quick
	// channel unused (see sdk/internal/channel): for comparisons and tests.
	GRPCOnly bool
}

// Launch starts a plugin process, completes the handshake and reads its
// descriptions.
func Launch(ctx context.Context, cfg LaunchConfig) (*Conn, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.StartTimeout == 0 {
		cfg.StartTimeout = 10 * time.Second
	}
	if cfg.Cmd.Env == nil {
		cfg.Cmd.Env = []string{}
	}
	setParentDeath(cfg.Cmd)
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  wire.Handshake,
		Plugins:          plugin.PluginSet{wire.PluginName: &wire.Plugin{}},
		Cmd:              cfg.Cmd,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		Logger:           &slogLogger{l: cfg.Logger},
		StartTimeout:     cfg.StartTimeout,
		SkipHostEnv:      true,
	})
	proto, err := client.Client()
	if err != nil {
		client.Kill()
		return nil, fmt.Errorf("start plugin %s: %w", cfg.Cmd.Path, err)
	}
	raw, err := proto.Dispense(wire.PluginName)
	if err != nil {
		client.Kill()
		return nil, fmt.Errorf("dispense plugin %s: %w", cfg.Cmd.Path, err)
	}
	c := &Conn{client: client, game: raw.(wire.GameClient), proto: proto}
	if rc := client.ReattachConfig(); rc != nil {
		c.pid = rc.Pid
	}
	resp, err := c.game.Describe(ctx, &wire.DescribeRequest{})
	if err != nil {
		client.Kill()
		return nil, fmt.Errorf("describe plugin %s: %w", cfg.Cmd.Path, err)
	}
	for _, b := range resp.DescriptionsJson {
		d, err := wire.ToDescription(b)
		if err != nil {
			client.Kill()
			return nil, fmt.Errorf("plugin %s: bad description: %w", cfg.Cmd.Path, err)
		}
		c.descs = append(c.descs, d)
	}
	if resp.Channel != "" && !cfg.GRPCOnly {
		c.ch = channel.NewLane(resp.Channel, resp.ChannelToken)
	}
	if len(c.descs) == 0 {
		client.Kill()
		return nil, fmt.Errorf("plugin %s serves no variant", cfg.Cmd.Path)
	}
	return c, nil
}

// rewinds tells whether the plugin's Description of variant says Rewind.
func (c *Conn) rewinds(variant string) bool {
	for _, d := range c.descs {
		if d.ID == variant {
			return d.Rewind
		}
	}
	return false
}

// Descriptions are the variants the plugin serves.
func (c *Conn) Descriptions() []sdk.Description { return c.descs }

// PID is the plugin's process ID.
func (c *Conn) PID() int { return c.pid }

// Exited reports whether the plugin process has ended.
func (c *Conn) Exited() bool { return c.client.Exited() }

// Kill ends the plugin process, gracefully first.
func (c *Conn) Kill() {
	if c.ch != nil {
		c.ch.Close()
	}
	c.client.Kill()
}

// Channel reports whether the quick calls use the plugin's channel (the
// multiplexed lane) rather than gRPC.
func (c *Conn) Channel() bool { return c.ch != nil }

// quickCall makes one of the quick calls: over the channel when there is
// one, else over gRPC (viaGRPC). resp receives the channel's answer.
func quickCall[Req, Resp proto.Message](c *Conn, ctx context.Context, kind byte, req Req, resp Resp,
	viaGRPC func(context.Context, Req, ...grpc.CallOption) (Resp, error)) (Resp, error) {
	if c.ch == nil {
		return viaGRPC(ctx, req)
	}
	if err := c.ch.Call(ctx, kind, req, resp); err != nil {
		var none Resp
		return none, channelError(err)
	}
	return resp, nil
}

// channelError is a failed channel call's error, ErrPluginExited for a
// channel the plugin closed.
func channelError(err error) error {
	if errors.Is(err, channel.ErrClosed) {
		return ErrPluginExited
	}
	return err
}

// Ping checks that the plugin answers (gRPC health service).
func (c *Conn) Ping() error {
	if c.client.Exited() {
		return ErrPluginExited
	}
	return c.proto.Ping()
}

// transport wraps a transport failure with the call's name. A rule error is
// never a transport error.
func (c *Conn) transport(call string, err error) error {
	if c.client.Exited() {
		return fmt.Errorf("%s: %w", call, ErrPluginExited)
	}
	return fmt.Errorf("%s: %w", call, err)
}

// quickGame makes a call answered by a GameResponse over the channel,
// decoding the answer in one pass (wire.DecodeGame) into g (newGameCall),
// which it then gives back.
func (c *Conn) quickGame(ctx context.Context, call string, kind byte, req proto.Message, g *gameCall) (sdk.State, sdk.View, error) {
	err := c.ch.CallFunc(ctx, kind, req, g.fn)
	st, v, rule := g.st, g.v, g.rule
	g.st, g.v, g.rule = nil, sdk.View{}, nil
	proto.Reset(&g.play)
	gameCalls.Put(g)
	if err != nil {
		return nil, sdk.View{}, c.transport(call, channelError(err))
	}
	if rule != nil {
		return nil, sdk.View{}, rule
	}
	return st, v, nil
}

// gameCall is what one quickGame decodes into, kept between calls with its
// decode function made once: a closure over the results put them (a View
// is ~300 bytes) and itself on the heap on every call. play is the request
// of a Play, kept with it for the same reason.
type gameCall struct {
	st   sdk.State
	v    sdk.View
	rule error
	fn   func(b []byte) error
	play wire.PlayRequest
}

var gameCalls = sync.Pool{New: func() any {
	g := &gameCall{}
	g.fn = g.decode
	return g
}}

func (g *gameCall) decode(b []byte) (err error) {
	g.st, g.v, g.rule, err = wire.DecodeGame(b)
	return err
}

func newGameCall() *gameCall { return gameCalls.Get().(*gameCall) }

func (c *Conn) game3(call string, r *wire.GameResponse, err error) (sdk.State, sdk.View, error) {
	if err != nil {
		return nil, sdk.View{}, c.transport(call, err)
	}
	if r.Error != nil {
		return nil, sdk.View{}, wire.ToRuleError(r.Error)
	}
	v, err := wire.ToView(r.View)
	if err != nil {
		return nil, sdk.View{}, c.transport(call, err)
	}
	return r.State, v, nil
}

// textError rejects text the wire cannot carry: protobuf strings are UTF-8,
// and no valid move, notation or option is anything else.
func textError(code, what string, texts ...string) error {
	for _, t := range texts {
		if !utf8.ValidString(t) {
			return sdk.Errorf(code, "%s is not valid UTF-8 text", what)
		}
	}
	return nil
}

// The calls take a request struct each, as terraform-plugin-go's do: every
// input is a named field, and an input added later is a field whose zero
// value asks for what the call did before, so that no caller breaks and no
// call grows an option standing in for an argument.

// StartRequest asks for a new game.
type StartRequest struct {
	Variant string      // the variant's ID
	Options sdk.Options // its options and host settings; nil: the defaults
}

// Start calls the variant's Start.
func (c *Conn) Start(ctx context.Context, req StartRequest) (sdk.State, sdk.View, error) {
	for k, v := range req.Options {
		if err := textError(sdk.CodeBadOption, "option "+strconv.Quote(k), k, v); err != nil {
			return nil, sdk.View{}, err
		}
	}
	r, err := quickCall(c, ctx, channel.CallStart, &wire.StartRequest{Variant: req.Variant, Options: req.Options, Packed: true}, new(wire.GameResponse), c.game.Start)
	return c.game3("start", r, err)
}

// historyFrom is a HistoryFrom field in the wire's range.
func historyFrom(n int) int32 { return int32(max(0, min(n, math.MaxInt32))) }

// PlayRequest asks for a move to be played.
type PlayRequest struct {
	Variant string
	State   sdk.State
	Seat    sdk.Seat // the seat that moves
	Move    sdk.Move
	// HistoryFrom asks for the View's History from entry n on only: the
	// moves after the first n plies (none when n is the View's Ply or
	// more). A caller that holds the earlier entries already (a room,
	// which keeps every move it confirmed) spares the plugin encoding and
	// itself decoding the whole game on every move: at ply 160 the
	// History was most of a call's bytes. Nothing else in the View
	// changes (Ply counts every move). 0 (or less): the whole History.
	// The plugin's server trims the View its variant returned, so every
	// plugin built with this sdk honours it; one that ignores it sends
	// the whole History, which is also correct.
	HistoryFrom int
}

// Play calls the variant's Play.
func (c *Conn) Play(ctx context.Context, req PlayRequest) (sdk.State, sdk.View, error) {
	if err := textError(sdk.CodeBadMove, "the move", string(req.Move)); err != nil {
		return nil, sdk.View{}, err
	}
	if c.ch != nil {
		return c.quickPlay(ctx, &req)
	}
	w := &wire.PlayRequest{Variant: req.Variant, State: req.State, Seat: int32(req.Seat), Move: string(req.Move), HistoryFrom: historyFrom(req.HistoryFrom), Packed: true}
	r, err := c.game.Play(ctx, w)
	return c.game3("play", r, err)
}

// quickPlay is Play over the channel, its request kept with its gameCall.
func (c *Conn) quickPlay(ctx context.Context, r *PlayRequest) (sdk.State, sdk.View, error) {
	g := newGameCall()
	req := &g.play
	req.Variant, req.State, req.Seat, req.Move, req.HistoryFrom, req.Packed = r.Variant, r.State, int32(r.Seat), string(r.Move), historyFrom(r.HistoryFrom), true
	return c.quickGame(ctx, "play", channel.CallPlay, req, g)
}

// ViewRequest asks for the View of a game.
type ViewRequest struct {
	Variant string
	State   sdk.State
	// HistoryFrom is PlayRequest.HistoryFrom.
	HistoryFrom int
}

// View calls the variant's View.
func (c *Conn) View(ctx context.Context, req ViewRequest) (sdk.View, error) {
	w := &wire.ViewRequest{Variant: req.Variant, State: req.State, HistoryFrom: historyFrom(req.HistoryFrom), Packed: true}
	if c.ch != nil {
		_, v, err := c.quickGame(ctx, "view", channel.CallView, w, newGameCall())
		return v, err
	}
	r, err := c.game.View(ctx, w)
	_, v, err := c.game3("view", r, err)
	return v, err
}

// RewindRequest asks for a game as it was after its first Ply moves.
type RewindRequest struct {
	Variant string
	State   sdk.State
	Ply     int
}

// Rewind calls the variant's Rewind (sdk.Rewinder): the game as it was after
// its first ply moves. A variant without it answers CodeUnsupported.
func (c *Conn) Rewind(ctx context.Context, req RewindRequest) (sdk.State, sdk.View, error) {
	variant, ply := req.Variant, req.Ply
	if ply < 0 || ply > math.MaxInt32 {
		return nil, sdk.View{}, sdk.Errorf(sdk.CodeBadPly, "no ply %d", ply)
	}
	// A plugin that does not say it rewinds may not know the request's
	// rewind field at all (a plugin built before it, or in another
	// language) and would answer with the View of the whole game.
	if !c.rewinds(variant) {
		return nil, sdk.View{}, sdk.Errorf(sdk.CodeUnsupported, "%s does not rewind", variant)
	}
	// CallRewind: answered beside the Plays, not in line (see channel).
	r, err := quickCall(c, ctx, channel.CallRewind, &wire.ViewRequest{Variant: variant, State: req.State, Rewind: true, Ply: int32(ply), Packed: true}, new(wire.GameResponse), c.game.View)
	return c.game3("rewind", r, err)
}

// SuggestRequest asks the computer player for a move.
type SuggestRequest struct {
	Variant string
	State   sdk.State
	Seat    sdk.Seat  // the seat to play for, one the rules put to move
	Level   sdk.Level // one of the Description's Levels
}

// Suggest calls the variant's Suggest; ctx's deadline travels to the
// plugin.
func (c *Conn) Suggest(ctx context.Context, req SuggestRequest) (sdk.Move, error) {
	if err := textError(sdk.CodeBadOption, "the level", string(req.Level)); err != nil {
		return "", err
	}
	w := &wire.SuggestRequest{Variant: req.Variant, State: req.State, Seat: int32(req.Seat), Level: string(req.Level)}
	if d, ok := ctx.Deadline(); ok {
		w.DeadlineUnixNano = d.UnixNano()
	}
	r, err := c.game.Suggest(ctx, w)
	if err != nil {
		return "", c.transport("suggest", err)
	}
	if r.Error != nil {
		return "", wire.ToRuleError(r.Error)
	}
	return sdk.Move(r.Move), nil
}

// ExportRequest asks for a game written in a notation.
type ExportRequest struct {
	Variant string
	State   sdk.State
	Format  string // a Notation ID of the Description
	// Lang asks for the record's headers and comments in this language
	// (sdk.LocalExporter); a variant without it, or "", writes its own.
	Lang string
	// Players are the names the seats' players gave, by seat ("" for
	// none), for the record's header (sdk.PlayersExporter): data, which
	// each variant writes in its own format. A variant without it ignores
	// them.
	Players []string
	// Analyses asks for the record with these positions' analyses as
	// comments (sdk.AnalysedExporter); a variant without it, or a plugin
	// built before it, writes the plain record.
	Analyses []sdk.PlyAnalysis
}

// Export calls the variant's Export (ExportIn with a Lang, ExportWith
// with Players, ExportAnalysed with Analyses, when the variant has them).
func (c *Conn) Export(ctx context.Context, req ExportRequest) (string, error) {
	if err := textError(sdk.CodeBadFormat, "the format", req.Format, req.Lang); err != nil {
		return "", err
	}
	if err := textError(sdk.CodeBadOption, "a player's name", req.Players...); err != nil {
		return "", err
	}
	for _, a := range req.Analyses {
		texts := []string{string(a.Analysis.Best)}
		for _, m := range a.Analysis.PV {
			texts = append(texts, string(m))
		}
		if err := textError(sdk.CodeBadMove, "a move of the analysis", texts...); err != nil {
			return "", err
		}
	}
	w := &wire.ExportRequest{Variant: req.Variant, State: req.State, Format: req.Format, Lang: req.Lang, Players: req.Players}
	if len(req.Analyses) > 0 {
		w.Analyses = wire.FromPlyAnalyses(req.Analyses)
	}
	r, err := quickCall(c, ctx, channel.CallExport, w, new(wire.ExportResponse), c.game.Export)
	if err != nil {
		return "", c.transport("export", err)
	}
	if r.Error != nil {
		return "", wire.ToRuleError(r.Error)
	}
	return r.Text, nil
}

// ImportRequest asks for a game read from a record.
type ImportRequest struct {
	Variant string
	Format  string // an importable Notation ID of the Description
	Text    string
}

// Import calls the variant's Import.
func (c *Conn) Import(ctx context.Context, req ImportRequest) (sdk.State, sdk.View, error) {
	if err := textError(sdk.CodeBadNotation, "the game record", req.Format, req.Text); err != nil {
		return nil, sdk.View{}, err
	}
	r, err := quickCall(c, ctx, channel.CallImport, &wire.ImportRequest{Variant: req.Variant, Format: req.Format, Text: req.Text, Packed: true}, new(wire.GameResponse), c.game.Import)
	return c.game3("import", r, err)
}

// PerftRequest asks for the leaves of the legal-move tree.
type PerftRequest struct {
	Variant  string
	Position string // in the variant's notation; "": the start
	Depth    int
}

// Perft calls the variant's Perft.
func (c *Conn) Perft(ctx context.Context, req PerftRequest) (uint64, error) {
	if err := textError(sdk.CodeBadPosition, "the position", req.Position); err != nil {
		return 0, err
	}
	r, err := c.game.Perft(ctx, &wire.PerftRequest{Variant: req.Variant, Position: req.Position, Depth: int32(max(0, min(req.Depth, math.MaxInt32)))})
	if err != nil {
		return 0, c.transport("perft", err)
	}
	if r.Error != nil {
		return 0, wire.ToRuleError(r.Error)
	}
	return r.Nodes, nil
}

// Remote is a variant served by a plugin process, seen as an sdk.Variant, so
// that the same checks (sdktest) run in-process and across the boundary.
// Calls without a context of their own are bounded by Timeout.
type Remote struct {
	Conn    *Conn
	ID      string
	Timeout time.Duration
}

func (r Remote) ctx() (context.Context, context.CancelFunc) {
	t := r.Timeout
	if t == 0 {
		t = 30 * time.Second
	}
	return context.WithTimeout(context.Background(), t)
}

// Describe returns the variant's description as read at launch.
func (r Remote) Describe() sdk.Description {
	for _, d := range r.Conn.descs {
		if d.ID == r.ID {
			return d
		}
	}
	return sdk.Description{}
}

func (r Remote) Start(opts sdk.Options) (sdk.State, sdk.View, error) {
	ctx, cancel := r.ctx()
	defer cancel()
	return r.Conn.Start(ctx, StartRequest{Variant: r.ID, Options: opts})
}

func (r Remote) Play(s sdk.State, seat sdk.Seat, m sdk.Move) (sdk.State, sdk.View, error) {
	ctx, cancel := r.ctx()
	defer cancel()
	return r.Conn.Play(ctx, PlayRequest{Variant: r.ID, State: s, Seat: seat, Move: m})
}

func (r Remote) View(s sdk.State) (sdk.View, error) {
	ctx, cancel := r.ctx()
	defer cancel()
	return r.Conn.View(ctx, ViewRequest{Variant: r.ID, State: s})
}

// Suggest asks the plugin's computer player; a variant without one answers
// with a rule error (unsupported).
func (r Remote) Suggest(ctx context.Context, s sdk.State, seat sdk.Seat, level sdk.Level) (sdk.Move, error) {
	return r.Conn.Suggest(ctx, SuggestRequest{Variant: r.ID, State: s, Seat: seat, Level: level})
}

func (r Remote) Export(s sdk.State, format string) (string, error) {
	ctx, cancel := r.ctx()
	defer cancel()
	return r.Conn.Export(ctx, ExportRequest{Variant: r.ID, State: s, Format: format})
}

func (r Remote) Import(format, text string) (sdk.State, sdk.View, error) {
	ctx, cancel := r.ctx()
	defer cancel()
	return r.Conn.Import(ctx, ImportRequest{Variant: r.ID, Format: format, Text: text})
}

// Rewind goes back in the game through the plugin process.
func (r Remote) Rewind(s sdk.State, ply int) (sdk.State, sdk.View, error) {
	ctx, cancel := r.ctx()
	defer cancel()
	return r.Conn.Rewind(ctx, RewindRequest{Variant: r.ID, State: s, Ply: ply})
}

// Perft counts through the plugin process.
func (r Remote) Perft(ctx context.Context, position string, depth int) (uint64, error) {
	return r.Conn.Perft(ctx, PerftRequest{Variant: r.ID, Position: position, Depth: depth})
}

var (
	_ sdk.Variant   = Remote{}
	_ sdk.Suggester = Remote{}
	_ sdk.Rewinder  = Remote{}
	_ sdk.Perfter   = Remote{}
)

// slogLogger lets go-plugin log through log/slog: the plugin's own log lines
// arrive here, with the levels the plugin gave them.
type slogLogger struct {
	l    *slog.Logger
	name string
	args []any
}

func (s *slogLogger) Log(level hclog.Level, msg string, args ...any) {
	var lv slog.Level
	switch level {
	case hclog.Trace, hclog.Debug:
		lv = slog.LevelDebug
	case hclog.Warn:
		lv = slog.LevelWarn
	case hclog.Error:
		lv = slog.LevelError
	default:
		lv = slog.LevelInfo
	}
	s.l.Log(context.Background(), lv, msg, append(append([]any{}, s.args...), args...)...)
}
func (s *slogLogger) Trace(msg string, args ...any) { s.Log(hclog.Trace, msg, args...) }
func (s *slogLogger) Debug(msg string, args ...any) { s.Log(hclog.Debug, msg, args...) }
func (s *slogLogger) Info(msg string, args ...any)  { s.Log(hclog.Info, msg, args...) }
func (s *slogLogger) Warn(msg string, args ...any)  { s.Log(hclog.Warn, msg, args...) }
func (s *slogLogger) Error(msg string, args ...any) { s.Log(hclog.Error, msg, args...) }
func (s *slogLogger) IsTrace() bool                 { return false }
func (s *slogLogger) IsDebug() bool {
	return s.l.Enabled(context.Background(), slog.LevelDebug)
}
func (s *slogLogger) IsInfo() bool         { return true }
func (s *slogLogger) IsWarn() bool         { return true }
func (s *slogLogger) IsError() bool        { return true }
func (s *slogLogger) ImpliedArgs() []any   { return s.args }
func (s *slogLogger) Name() string         { return s.name }
func (s *slogLogger) SetLevel(hclog.Level) {}
func (s *slogLogger) GetLevel() hclog.Level {
	if s.IsDebug() {
		return hclog.Debug
	}
	return hclog.Info
}
func (s *slogLogger) With(args ...any) hclog.Logger {
	return &slogLogger{l: s.l, name: s.name, args: append(append([]any{}, s.args...), args...)}
}
func (s *slogLogger) Named(name string) hclog.Logger {
	if s.name != "" {
		name = s.name + "." + name
	}
	return &slogLogger{l: s.l.With("logger", name), name: name, args: s.args}
}
func (s *slogLogger) ResetNamed(name string) hclog.Logger {
	return &slogLogger{l: s.l.With("logger", name), name: name, args: s.args}
}
func (s *slogLogger) StandardLogger(*hclog.StandardLoggerOptions) *log.Logger {
	return slog.NewLogLogger(s.l.Handler(), slog.LevelInfo)
}
func (s *slogLogger) StandardWriter(*hclog.StandardLoggerOptions) io.Writer {
	return s.StandardLogger(nil).Writer()
}

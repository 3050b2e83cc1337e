// Package server is a rules plugin's side of the boundary, behind
// serve.Serve: the go-plugin gRPC server, the channel's handler, the
// packing of the views the host asks packed, the by-hand command line, and
// Local, the same code without a process for sdktest's benchmarks. It is
// internal so that none of it is part of the contract an author imports.
//
// It must never import the platform or any plugin, and must never know a
// game rule.
package server

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/internal/channel"
	"github.com/banmen/banmen/sdk/internal/wire"
	hclog "github.com/hashicorp/go-hclog"
	plugin "github.com/hashicorp/go-plugin"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Serve is serve.Serve: it runs a plugin binary and never returns.
func Serve(variants ...sdk.Variant) {
	if len(variants) == 0 {
		panic("serve.Serve: no variants")
	}
	reg, err := newRegistry(variants)
	if err != nil {
		panic("serve.Serve: " + err.Error())
	}
	if os.Getenv(wire.Handshake.MagicCookieKey) == wire.Handshake.MagicCookieValue {
		servePlugin(reg)
		os.Exit(0)
	}
	os.Exit(runCLI(reg, os.Args[1:], os.Stdout, os.Stderr))
}

// registry maps variant IDs to variants, and keeps their descriptions.
type registry struct {
	byID  map[string]sdk.Variant
	descs []sdk.Description
}

func newRegistry(vs []sdk.Variant) (*registry, error) {
	r := &registry{byID: map[string]sdk.Variant{}}
	for _, v := range vs {
		d := v.Describe()
		if d.ID == "" {
			return nil, errors.New("a variant has no ID")
		}
		if _, dup := r.byID[d.ID]; dup {
			return nil, fmt.Errorf("variant %q served twice", d.ID)
		}
		if err := CheckCapabilities(v); err != nil {
			return nil, fmt.Errorf("variant %q: %w", d.ID, err)
		}
		if _, ok := v.(sdk.Suggester); len(d.Levels) > 0 && !ok {
			return nil, fmt.Errorf("variant %q lists computer levels but has no method %s (sdk.Suggester)", d.ID, capabilities[0].want)
		}
		_, d.Rewind = v.(sdk.Rewinder)
		_, d.Analyse = v.(sdk.Analyser)
		r.byID[d.ID] = v
		r.descs = append(r.descs, d)
	}
	return r, nil
}

// capabilities are the optional interfaces of package sdk, each with its
// method as the interface declares it.
var capabilities = []struct {
	name, method, want string
	iface              reflect.Type
}{
	{"sdk.Suggester", "Suggest", "Suggest(ctx context.Context, s sdk.State, seat sdk.Seat, level sdk.Level) (sdk.Move, error)", reflect.TypeFor[sdk.Suggester]()},
	{"sdk.Rewinder", "Rewind", "Rewind(s sdk.State, ply int) (sdk.State, sdk.View, error)", reflect.TypeFor[sdk.Rewinder]()},
	{"sdk.LocalExporter", "ExportIn", "ExportIn(s sdk.State, format, lang string) (string, error)", reflect.TypeFor[sdk.LocalExporter]()},
	{"sdk.Perfter", "Perft", "Perft(ctx context.Context, position string, depth int) (uint64, error)", reflect.TypeFor[sdk.Perfter]()},
	{"sdk.Divider", "Divide", "Divide(ctx context.Context, position string, depth int) (map[string]uint64, error)", reflect.TypeFor[sdk.Divider]()},
	{"sdk.Analyser", "Analyse", "Analyse(ctx context.Context, req sdk.AnalyseRequest) (sdk.Analysis, error)", reflect.TypeFor[sdk.Analyser]()},
	{"sdk.AnalysedExporter", "ExportAnalysed", "ExportAnalysed(s sdk.State, format, lang string, analyses []sdk.PlyAnalysis) (string, error)", reflect.TypeFor[sdk.AnalysedExporter]()},
	{"sdk.PlayersExporter", "ExportWith", "ExportWith(s sdk.State, format string, o sdk.ExportOptions) (string, error)", reflect.TypeFor[sdk.PlayersExporter]()},
}

// CheckCapabilities refuses a variant with a method named as an optional
// capability's but of another signature: written for an older sdk (Suggest
// before it took a seat) or mistyped, it would silently not be the
// capability, and the host would never call it. Serve refuses such a
// variant at start; sdktest's suite fails on it.
func CheckCapabilities(v sdk.Variant) error {
	t := reflect.TypeOf(v)
	for _, c := range capabilities {
		m, ok := t.MethodByName(c.method)
		if !ok || t.Implements(c.iface) {
			continue
		}
		return fmt.Errorf("method %s does not match %s, so the variant is no %s: want %s",
			signature(c.method, m.Type), c.name, c.name, c.want)
	}
	return nil
}

// signature writes a method's signature (its receiver left out) as Go does.
func signature(name string, f reflect.Type) string {
	var b strings.Builder
	b.WriteString(name + "(")
	for i := 1; i < f.NumIn(); i++ {
		if i > 1 {
			b.WriteString(", ")
		}
		if f.IsVariadic() && i == f.NumIn()-1 {
			b.WriteString("..." + f.In(i).Elem().String())
		} else {
			b.WriteString(f.In(i).String())
		}
	}
	b.WriteString(")")
	switch f.NumOut() {
	case 0:
	case 1:
		b.WriteString(" " + f.Out(0).String())
	default:
		b.WriteString(" (")
		for i := range f.NumOut() {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(f.Out(i).String())
		}
		b.WriteString(")")
	}
	return b.String()
}

func (r *registry) variant(id string) (sdk.Variant, error) {
	v, ok := r.byID[id]
	if !ok {
		return nil, sdk.Errorf("unknown_variant", "this plugin does not serve %q", id)
	}
	return v, nil
}

func servePlugin(reg *registry) {
	// Plugin logs go to stderr as the JSON lines go-plugin forwards to the
	// host's log, so slog.Info in a variant ends up in the host's log.
	slog.SetDefault(slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{ReplaceAttr: hclogKeys})))
	defer startProfile(os.Getenv("BANMEN_PLUGIN_CPUPROFILE"))()
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(pluginGCPercent)
	}
	srv := &server{reg: reg}
	if ch, err := channel.Listen(srv.dispatch); err != nil {
		slog.Warn("no channel: every call goes over gRPC", "err", err.Error())
	} else {
		srv.ch = ch
	}
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: wire.Handshake,
		Plugins:         plugin.PluginSet{wire.PluginName: &wire.Plugin{Game: srv}},
		GRPCServer:      plugin.DefaultGRPCServer,
		Logger: hclog.New(&hclog.LoggerOptions{
			Output: os.Stderr, JSONFormat: true, Level: hclog.Info,
		}),
	})
}

// pluginGCPercent is a plugin's GOGC unless the environment sets one. A
// plugin's live heap is small (its state cache and the call in progress)
// while each call allocates a whole View, so at the default of 100 it
// collected every few calls: 15% of the shogi plugin's CPU at 1000 rooms.
// Four times the live heap is still only megabytes.
const pluginGCPercent = 400

// startProfile profiles the plugin's CPU into dir (the host passes it in
// plugin_env, the load command's -plugin-cpuprofile) as
// <binary>-<pid>.prof, until the returned stop, which runs when the host
// ends the plugin gracefully. Empty dir: nothing.
func startProfile(dir string) (stop func()) {
	if dir == "" {
		return func() {}
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%d.prof", filepath.Base(os.Args[0]), os.Getpid()))
	f, err := os.Create(path)
	if err == nil {
		if err = pprof.StartCPUProfile(f); err != nil {
			f.Close()
		}
	}
	if err != nil {
		slog.Warn("no CPU profile", "err", err.Error())
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

// hclogKeys renames slog's keys to the ones go-plugin reads from a plugin's
// stderr.
func hclogKeys(groups []string, a slog.Attr) slog.Attr {
	if len(groups) > 0 {
		return a
	}
	switch a.Key {
	case slog.TimeKey:
		// go-plugin parses exactly this layout; any other sends the whole
		// line to the host's debug level as raw text.
		a.Key = "@timestamp"
		a.Value = slog.StringValue(a.Value.Time().Format("2006-01-02T15:04:05.000000Z07:00"))
	case slog.MessageKey:
		a.Key = "@message"
	case slog.LevelKey:
		a.Key = "@level"
		a.Value = slog.StringValue(strings.ToLower(a.Value.String()))
	}
	return a
}

// server answers the host's calls by calling the variants.
type server struct {
	wire.UnimplementedGameServer
	reg *registry
	ch  *channel.Server // nil: no channel
}

func (s *server) Describe(context.Context, *wire.DescribeRequest) (*wire.DescribeResponse, error) {
	out := &wire.DescribeResponse{}
	if s.ch != nil {
		out.Channel, out.ChannelToken = s.ch.Addr(), s.ch.Token()
	}
	for _, d := range s.reg.descs {
		b, err := wire.FromDescription(d)
		if err != nil {
			return nil, err
		}
		out.DescriptionsJson = append(out.DescriptionsJson, b)
	}
	return out, nil
}

// gameResponse turns a variant's answer into the wire form. Rule errors
// travel in the message; any other error fails the call.
func gameResponse(st sdk.State, v sdk.View, err error) (*wire.GameResponse, error) {
	return respond(false, st, v, err)
}

// respond is gameResponse with the view's board and legal moves packed when
// the request asked (wire/packed.go).
func respond(packed bool, st sdk.State, v sdk.View, err error) (*wire.GameResponse, error) {
	if err != nil {
		re, other := wire.FromRuleError(err)
		if other != nil {
			return nil, other
		}
		return &wire.GameResponse{Error: re}, nil
	}
	if !packed {
		return &wire.GameResponse{State: st, View: wire.FromView(&v)}, nil
	}
	w, err := wire.FromViewPacked(&v)
	if err != nil {
		return nil, err
	}
	return &wire.GameResponse{State: st, View: w}, nil
}

func (s *server) Start(_ context.Context, r *wire.StartRequest) (_ *wire.GameResponse, err error) {
	defer recoverRule(&err)
	v, err := s.reg.variant(r.Variant)
	if err != nil {
		return gameResponse(nil, sdk.View{}, err)
	}
	st, view, err := v.Start(sdk.Options(r.Options))
	return respond(r.Packed, st, view, err)
}

func (s *server) Play(_ context.Context, r *wire.PlayRequest) (*wire.GameResponse, error) {
	return s.play(r, new(lists)).message()
}

// lists are a View's board and legal list packed (wire.AppendBoard,
// wire.AppendLegal), in buffers the channel's replies reuse.
type lists struct{ board, legal []byte }

// reply is a call's answer before its wire form: resp, or when resp is
// nil and err too, the state and view of an answer whose board and legal
// list are packed in p.
type reply struct {
	resp *wire.GameResponse
	err  error
	st   sdk.State
	v    sdk.View
	p    *lists
}

// message is the reply's wire form.
func (r *reply) message() (*wire.GameResponse, error) {
	if r.resp != nil || r.err != nil {
		return r.resp, r.err
	}
	w, err := wire.FromViewPackedBy(&r.v, r.p.board, r.p.legal)
	if err != nil {
		return nil, err
	}
	return &wire.GameResponse{State: r.st, View: w}, nil
}

// answered is the reply of an answer already in wire form.
func answered(resp *wire.GameResponse, err error) *reply { return &reply{resp: resp, err: err} }

// packed is the reply of a variant's answer, its view's board and legal
// list packed into p when the host asked for a packed view.
func packed(asked bool, st sdk.State, v sdk.View, p *lists, err error) *reply {
	if err != nil || !asked {
		return answered(respond(asked, st, v, err))
	}
	if p.board, err = wire.AppendBoard(p.board[:0], v.Board); err == nil {
		p.legal, err = wire.AppendLegal(p.legal[:0], v.Legal)
	}
	if err != nil {
		return answered(nil, err)
	}
	v.Board, v.Legal = nil, nil
	return &reply{st: st, v: v, p: p}
}

// play is Play, its view packed into p when the host asked.
func (s *server) play(r *wire.PlayRequest, p *lists) (out *reply) {
	defer recoverReply(&out)
	v, err := s.reg.variant(r.Variant)
	if err != nil {
		return answered(gameResponse(nil, sdk.View{}, err))
	}
	st, view, err := v.Play(r.State, sdk.Seat(r.Seat), sdk.Move(r.Move))
	return packed(r.Packed, st, historyFrom(view, r.HistoryFrom), p, err)
}

// recoverReply is recoverRule for a call that answers a reply (recover
// works only in the deferred function itself).
func recoverReply(out **reply) {
	if r := recover(); r != nil {
		slog.Error("variant panicked", "panic", fmt.Sprint(r))
		*out = answered(nil, fmt.Errorf("variant panicked: %v", r))
	}
}

// packs recycles the packed lists of the channel's replies (laneReply).
var packs = sync.Pool{New: func() any { return new(lists) }}

// laneReply is a reply of the channel. It writes its own bytes into the
// frame (channel.Encoder): a packed view goes straight from the sdk.View
// to protobuf bytes (wire.AppendPackedResponse) with no wire View made
// first, and its packed lists, the pool's, go back to it once the frame
// holds their bytes, so that a Play call does not allocate its largest
// buffers anew.
type laneReply struct {
	r *reply
	p *lists
}

// ProtoReflect is the reply's message, for anyone but the channel.
func (l *laneReply) ProtoReflect() protoreflect.Message {
	m, _ := l.r.message()
	return m.ProtoReflect()
}

func (l *laneReply) AppendEncoded(b []byte) ([]byte, error) {
	defer func() {
		putLists(l.p)
		l.r, l.p = nil, nil
	}()
	r := l.r
	if r.resp != nil {
		return (proto.MarshalOptions{}).MarshalAppend(b, r.resp)
	}
	return wire.AppendPackedResponse(b, r.st, &r.v, r.p.board, r.p.legal)
}

// putLists gives p back to the pool, unless a huge view grew it.
func putLists(p *lists) {
	if cap(p.board)+cap(p.legal) <= 1<<20 {
		packs.Put(p)
	}
}

// pooled runs a call with lists of the pool and answers with a laneReply.
func pooled[Req any](call func(*Req, *lists) *reply) func(context.Context, *Req) (proto.Message, error) {
	return func(_ context.Context, req *Req) (proto.Message, error) {
		p := packs.Get().(*lists)
		r := call(req, p)
		if r.err != nil {
			putLists(p)
			return nil, r.err
		}
		return &laneReply{r: r, p: p}, nil
	}
}

// historyFrom drops the first n entries of the view's History, as the host
// asked (host.HistoryFrom): a room holds them already, and at ply 160 they
// were most of the bytes and the encoding of every call.
func historyFrom(v sdk.View, n int32) sdk.View {
	if n > 0 {
		v.History = v.History[min(int(n), len(v.History)):]
	}
	return v
}

func (s *server) View(_ context.Context, r *wire.ViewRequest) (*wire.GameResponse, error) {
	return s.view(r, new(lists)).message()
}

// view is View (or Rewind), its view packed into p when the host asked.
func (s *server) view(r *wire.ViewRequest, p *lists) (out *reply) {
	defer recoverReply(&out)
	v, err := s.reg.variant(r.Variant)
	if err != nil {
		return answered(gameResponse(nil, sdk.View{}, err))
	}
	if r.Rewind {
		rw, ok := v.(sdk.Rewinder)
		if !ok {
			return answered(gameResponse(nil, sdk.View{}, sdk.Errorf(sdk.CodeUnsupported, "%s cannot go back in a game", r.Variant)))
		}
		st, view, err := rw.Rewind(r.State, int(r.Ply))
		return answered(respond(r.Packed, st, historyFrom(view, r.HistoryFrom), err))
	}
	view, err := v.View(r.State)
	return packed(r.Packed, r.State, historyFrom(view, r.HistoryFrom), p, err)
}

func (s *server) Suggest(ctx context.Context, r *wire.SuggestRequest) (_ *wire.SuggestResponse, err error) {
	defer recoverRule(&err)
	v, err := s.reg.variant(r.Variant)
	if err == nil {
		if r.DeadlineUnixNano > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, time.Unix(0, r.DeadlineUnixNano))
			defer cancel()
		}
		sg, ok := v.(sdk.Suggester)
		if !ok {
			err = sdk.Errorf(sdk.CodeUnsupported, "%s has no computer player", r.Variant)
		} else {
			var m sdk.Move
			m, err = sg.Suggest(ctx, r.State, sdk.Seat(r.Seat), sdk.Level(r.Level))
			if err == nil {
				return &wire.SuggestResponse{Move: string(m)}, nil
			}
		}
	}
	re, other := wire.FromRuleError(err)
	if other != nil {
		return nil, other
	}
	return &wire.SuggestResponse{Error: re}, nil
}

func (s *server) Export(_ context.Context, r *wire.ExportRequest) (_ *wire.ExportResponse, err error) {
	defer recoverRule(&err)
	v, err := s.reg.variant(r.Variant)
	if err == nil {
		var text string
		var analysed bool
		text, analysed, err = exportAnalysed(v, r) // analyse.go
		pe, withPlayers := v.(sdk.PlayersExporter)
		switch le, ok := v.(sdk.LocalExporter); {
		case analysed:
		case withPlayers && len(r.Players) > 0:
			text, err = pe.ExportWith(r.State, r.Format, sdk.ExportOptions{Lang: r.Lang, Players: r.Players})
		case ok && r.Lang != "":
			text, err = le.ExportIn(r.State, r.Format, r.Lang)
		default:
			text, err = v.Export(r.State, r.Format)
		}
		if err == nil {
			return &wire.ExportResponse{Text: text}, nil
		}
	}
	re, other := wire.FromRuleError(err)
	if other != nil {
		return nil, other
	}
	return &wire.ExportResponse{Error: re}, nil
}

func (s *server) Import(_ context.Context, r *wire.ImportRequest) (_ *wire.GameResponse, err error) {
	defer recoverRule(&err)
	v, err := s.reg.variant(r.Variant)
	if err != nil {
		return gameResponse(nil, sdk.View{}, err)
	}
	st, view, err := v.Import(r.Format, r.Text)
	return respond(r.Packed, st, view, err)
}

func (s *server) Perft(ctx context.Context, r *wire.PerftRequest) (_ *wire.PerftResponse, err error) {
	defer recoverRule(&err)
	v, err := s.reg.variant(r.Variant)
	if err == nil {
		p, ok := v.(sdk.Perfter)
		if !ok {
			err = sdk.Errorf(sdk.CodeUnsupported, "%s does not count perft", r.Variant)
		} else {
			var n uint64
			n, err = p.Perft(ctx, r.Position, int(r.Depth))
			if err == nil {
				return &wire.PerftResponse{Nodes: n}, nil
			}
		}
	}
	re, other := wire.FromRuleError(err)
	if other != nil {
		return nil, other
	}
	return &wire.PerftResponse{Error: re}, nil
}

// recoverRule turns a panic inside a variant into a failed call, so that one
// bad state cannot take down a plugin that serves every room.
func recoverRule(err *error) {
	if r := recover(); r != nil {
		slog.Error("variant panicked", "panic", fmt.Sprint(r))
		*err = fmt.Errorf("variant panicked: %v", r)
	}
}

// runCLI is the by-hand command line of a plugin binary.
func runCLI(reg *registry, args []string, stdout, stderr io.Writer) int {
	usage := func() {
		fmt.Fprintf(stderr, "This is a Banmen rules plugin; the Banmen host starts it.\n"+
			"By hand:\n  describe                                  print the variants as JSON\n"+
			"  perft -depth N [-position P] [-variant ID] count the legal-move tree\n")
	}
	if len(args) == 0 {
		usage()
		return 2
	}
	switch args[0] {
	case "describe":
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(reg.descs); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		return 0
	case "perft":
		fs := flag.NewFlagSet("perft", flag.ContinueOnError)
		fs.SetOutput(stderr)
		depth := fs.Int("depth", 1, "depth in plies")
		position := fs.String("position", "", "position in the variant's notation (start position when empty)")
		id := fs.String("variant", reg.descs[0].ID, "variant ID")
		divide := fs.Bool("divide", false, "print the count under every root move (when the variant supports it)")
		if err := fs.Parse(args[1:]); err != nil {
			return 2
		}
		v, err := reg.variant(*id)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 2
		}
		p, ok := v.(sdk.Perfter)
		if !ok {
			fmt.Fprintf(stderr, "%s does not count perft\n", *id)
			return 2
		}
		if *divide {
			d, ok := v.(sdk.Divider)
			if !ok {
				fmt.Fprintf(stderr, "%s does not divide perft\n", *id)
				return 2
			}
			counts, err := d.Divide(context.Background(), *position, *depth)
			if err != nil {
				fmt.Fprintln(stderr, err)
				return 1
			}
			keys := make([]string, 0, len(counts))
			for k := range counts {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				fmt.Fprintf(stdout, "%s: %d\n", k, counts[k])
			}
		}
		start := time.Now()
		n, err := p.Perft(context.Background(), *position, *depth)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		el := time.Since(start)
		nps := uint64(float64(n) / max(el.Seconds(), 1e-9))
		fmt.Fprintf(stdout, "depth=%d time=%s\nnodes=%d nps=%d\n", *depth, el.Round(time.Millisecond), n, nps)
		return 0
	case "-h", "-help", "--help", "help":
		usage()
		return 0
	}
	usage()
	return 2
}

// playLane and viewLane are Play and View for the channel, their packed
// lists the pool's.
func (s *server) playLane(ctx context.Context, r *wire.PlayRequest) (proto.Message, error) {
	return pooled(s.play)(ctx, r)
}

func (s *server) viewLane(ctx context.Context, r *wire.ViewRequest) (proto.Message, error) {
	return pooled(s.view)(ctx, r)
}

// dispatch runs one call of the channel through the same handlers as gRPC.
func (s *server) dispatch(kind byte, body []byte) (proto.Message, error) {
	switch kind {
	case channel.CallStart:
		return channel.Handle(body, s.Start)
	case channel.CallPlay:
		// Every move's call: read by hand, as protobuf would.
		r := new(wire.PlayRequest)
		if err := wire.DecodePlayRequest(body, r); err != nil {
			return nil, err
		}
		return s.playLane(context.Background(), r)
	case channel.CallView, channel.CallRewind:
		return channel.Handle(body, s.viewLane)
	case channel.CallExport:
		return channel.Handle(body, s.Export)
	case channel.CallImport:
		return channel.Handle(body, s.Import)
	}
	return nil, fmt.Errorf("channel: unknown call %d", kind)
}

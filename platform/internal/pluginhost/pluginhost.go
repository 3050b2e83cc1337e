// Package pluginhost starts the rules plugins, keeps them alive and routes
// game calls to them. It supervises: a health check notices a dead or hung
// plugin, a crashed plugin is restarted with backoff, an interrupted call is
// retried once (rules calls are pure, so a retry is safe), and a plugin that
// keeps crashing marks its variants unavailable for a while.
//
// It must never know a game rule: everything it knows about a variant comes
// from the variant's Description.
package pluginhost

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/banmen/banmen/platform/internal/nice"
	"github.com/banmen/banmen/sdk"
	"github.com/banmen/banmen/sdk/host"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// ErrUnknownVariant is returned for a variant no plugin serves.
var ErrUnknownVariant = errors.New("unknown variant")

// UnavailableError says a variant's plugin keeps crashing.
type UnavailableError struct {
	Variant string
	Until   time.Time
	Cause   error
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("variant %s is unavailable (its rules plugin keeps failing): %v", e.Variant, e.Cause)
}

// BusyError says a class of calls has as many calls in its plugin
// process as it may: the call is refused at once (503, Retry-After), never
// queued to meet its deadline later.
type BusyError struct {
	Variant, Call string
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("variant %s is busy with other calls of this kind; %s refused", e.Variant, e.Call)
}

// Class is who a call is for. Each class has plugin processes of its own
// (bulkheads), so that no call of one waits behind the calls of another:
// a room's rules call never waits behind the stateless API, an import or
// a computer's search.
type Class uint8

const (
	// Rooms are the online rooms' calls (the default): never refused for
	// load.
	Rooms Class = iota
	// API are anonymous calls: the stateless game API (imports included)
	// and the rooms' public views. Their processes admit at most
	// Config.APIInFlight calls at once (Config.SuggestInFlight searches).
	API
)

type classKey struct{}

// WithClass marks the calls made with ctx as calls of class c.
func WithClass(ctx context.Context, c Class) context.Context {
	return context.WithValue(ctx, classKey{}, c)
}

func classOf(ctx context.Context) Class {
	c, _ := ctx.Value(classKey{}).(Class)
	return c
}

// TimeoutError says a plugin did not answer within the call's deadline.
type TimeoutError struct {
	Variant, Call string
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("variant %s did not answer %s in time", e.Variant, e.Call)
}

// Config configures a Host.
type Config struct {
	Dir            string            // every executable file here is a plugin
	Env            map[string]string // extra environment for plugins
	Logger         *slog.Logger
	CallTimeout    time.Duration // default deadline of a call
	HealthInterval time.Duration // 0 disables the health loop
	// HealthTimeout bounds the health loop's ping (default 2 s).
	HealthTimeout  time.Duration
	RestartBurst   int // restarts within RestartWindow before unavailability
	RestartWindow  time.Duration
	UnavailableFor time.Duration
	// OnRestart, when set, is told about every restart (for metrics).
	OnRestart func(plugin string)
	// APIInFlight bounds the calls of class API in a plugin's API rules
	// process at once, SuggestInFlight those in its API engine process
	// (0: 8 and 2). More are refused with a *BusyError.
	APIInFlight, SuggestInFlight int
	// Nice is the least niceness of every process this host starts (0:
	// each class its own, see niceAPI): a host serving only low-priority
	// work (the analyses) starts all its processes niced and apart.
	Nice int
}

// Host owns the plugin processes.
type Host struct {
	cfg       Config
	procs     []*proc
	byVariant map[string]*proc
	// engines are second processes of the plugins with a computer player:
	// every "suggest" call goes there, so that a search (CPU-bound, on
	// the plugin's one scheduler thread) never delays a Play of the
	// rules process. Started at the first suggest, whose thinking time
	// does not count the start (uncountedStart).
	engines map[string]*proc
	// apis and apiEngines are the processes of class API (rules and
	// searches), started at their first call: a room's process never
	// has an anonymous call in its queue.
	apis, apiEngines map[string]*proc
	descs            []sdk.Description
	stop             chan struct{}
	wg               sync.WaitGroup
	// deadline gives the calls made without a context of their own (a
	// room's moves) their deadline.
	deadline sharedDeadline
}

// sharedDeadline hands the calls that start within the same short slice of
// time one context with the call deadline, instead of a context and a
// timer per call (about a fortieth of the host's CPU per move at 10,000
// moves/s). A call's deadline is then between timeout and timeout plus a
// slice (1/256 of timeout) after it starts. Each context ends by its own
// timer at its deadline.
type sharedDeadline struct {
	mu    sync.Mutex
	ctx   context.Context
	stop  context.CancelFunc // ctx's, kept only to satisfy vet: ctx ends by its deadline
	until time.Time          // ctx is for the calls that start before this
}

func (d *sharedDeadline) context(now time.Time, timeout time.Duration) context.Context {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ctx == nil || !now.Before(d.until) {
		slice := timeout / 256
		d.ctx, d.stop = context.WithDeadline(context.Background(), now.Add(timeout+slice))
		d.until = now.Add(slice)
	}
	return d.ctx
}

// proc is one plugin binary and its current process.
type proc struct {
	name string
	path string
	cfg  *Config

	mu        sync.Mutex
	conn      *host.Conn
	cmd       *exec.Cmd   // conn's process, for killing it without its cooperation
	restarts  []time.Time // recent restart times, for crash-loop detection
	downUntil time.Time   // unavailable until then
	lastErr   error
	// answered: a call got the plugin's answer since the last health
	// check. A plugin that answers calls is alive, however long its queue
	// makes a ping wait; only an idle or silent one is pinged.
	answered atomic.Bool
	// engineProc is the process for the computer's moves (engine);
	// apiProc and apiEngineProc those of class API.
	engineProc, apiProc, apiEngineProc *proc
	// limit bounds the calls in the process at once (0: no bound);
	// inflight counts them. nice is the process's scheduling niceness:
	// anonymous and search processes yield the CPU to the rooms' rules.
	nice     int
	limit    int32
	inflight atomic.Int32
	// judging is set while a background judgement runs (judge).
	judging atomic.Bool
	// answers counts the answers the process gave (calls and pings): a
	// process whose count moves is working, however slowly it answers a
	// ping (judge).
	answers atomic.Uint64
	// lazy: started by its first call (an engine process); launched: it
	// was started once.
	lazy, launched bool
}

// Start launches every plugin in cfg.Dir and registers their variants. A
// plugin that fails to start is logged and skipped; a variant served twice
// is an error.
func Start(ctx context.Context, cfg Config) (*Host, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.CallTimeout == 0 {
		cfg.CallTimeout = 5 * time.Second
	}
	if cfg.HealthTimeout == 0 {
		cfg.HealthTimeout = healthPingTimeout
	}
	if cfg.RestartBurst == 0 {
		cfg.RestartBurst = 5
	}
	if cfg.RestartWindow == 0 {
		cfg.RestartWindow = time.Minute
	}
	if cfg.UnavailableFor == 0 {
		cfg.UnavailableFor = 30 * time.Second
	}
	if cfg.APIInFlight == 0 {
		cfg.APIInFlight = 8
	}
	if cfg.SuggestInFlight == 0 {
		cfg.SuggestInFlight = 2
	}
	entries, err := os.ReadDir(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("plugin directory: %w", err)
	}
	h := &Host{cfg: cfg, byVariant: map[string]*proc{}, engines: map[string]*proc{},
		apis: map[string]*proc{}, apiEngines: map[string]*proc{}, stop: make(chan struct{})}
	for _, e := range entries {
		// A symlink is loaded as its target (an author links the plugin
		// they are working on); a broken one is named with the reason.
		info, err := os.Stat(filepath.Join(cfg.Dir, e.Name()))
		if err != nil {
			cfg.Logger.Warn("plugin skipped", "plugin", e.Name(), "err", err)
			continue
		}
		if !info.Mode().IsRegular() || info.Mode().Perm()&0o111 == 0 {
			if e.Type()&fs.ModeSymlink != 0 {
				cfg.Logger.Warn("plugin skipped: the link's target is not an executable file", "plugin", e.Name())
			}
			continue
		}
		p := &proc{name: e.Name(), path: filepath.Join(cfg.Dir, e.Name()), cfg: &h.cfg}
		conn, cmd, err := p.launch(ctx)
		if err != nil {
			cfg.Logger.Error("plugin did not start", "plugin", p.name, "err", err)
			continue
		}
		p.conn, p.cmd = conn, cmd
		for _, d := range conn.Descriptions() {
			if other, dup := h.byVariant[d.ID]; dup {
				h.Close()
				stopProcess(conn, cmd, shutdownGrace)
				return nil, fmt.Errorf("variant %q is served by both %s and %s", d.ID, other.name, p.name)
			}
			h.byVariant[d.ID] = p
			h.descs = append(h.descs, d)
			h.apis[d.ID] = p.second(&p.apiProc, " (api)", h.cfg.APIInFlight, niceAPI)
			if len(d.Levels) > 0 {
				h.engines[d.ID] = p.second(&p.engineProc, " (engine)", 0, niceRoomEngine)
				h.apiEngines[d.ID] = p.second(&p.apiEngineProc, " (api engine)", h.cfg.SuggestInFlight, niceAPI)
			}
		}
		h.procs = append(h.procs, p)
		cfg.Logger.Info("plugin started", "plugin", p.name, "pid", conn.PID(), "variants", len(conn.Descriptions()))
	}
	sort.Slice(h.descs, func(i, j int) bool { return h.descs[i].ID < h.descs[j].ID })
	if cfg.HealthInterval > 0 {
		h.wg.Add(1)
		go h.healthLoop()
	}
	return h, nil
}

// second is another process of p's binary (*slot, made once), started by
// its first call, admitting limit calls at once (0: any number), at
// niceness nice. Variants of one binary share it.
func (p *proc) second(slot **proc, suffix string, limit, nice int) *proc {
	if *slot == nil {
		*slot = &proc{name: p.name + suffix, path: p.path, cfg: p.cfg, lazy: true, limit: int32(limit), nice: nice}
	}
	return *slot
}

// The niceness of the processes besides a room's rules: the kernel runs
// a room's rules call first when the CPUs are busy, then the rooms'
// computer players, then anonymous work.
const (
	niceRoomEngine = 5
	niceAPI        = 10
)

// all are p's processes: itself and those of its binary started lazily.
func (p *proc) all() []*proc {
	out := []*proc{p}
	for _, q := range []*proc{p.apiProc, p.engineProc, p.apiEngineProc} {
		if q != nil {
			out = append(out, q)
		}
	}
	return out
}

// launch starts the plugin process: no inherited environment but PATH and
// the configured extras (host.Launch adds the parent-death signal).
func (p *proc) launch(ctx context.Context) (*host.Conn, *exec.Cmd, error) {
	cmd := exec.Command(p.path)
	// One scheduler thread unless configured otherwise: rules calls are
	// short and every built-in engine searches on one goroutine, while a
	// second idle P makes the Go runtime wake a thread for each hand-off of
	// a gRPC call. Measured here, a play call took ~25% less time this way.
	env := map[string]string{"PATH": os.Getenv("PATH"), "GOMAXPROCS": "1"}
	for k, v := range p.cfg.Env {
		env[k] = v
	}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	n := max(p.nice, p.cfg.Nice)
	if n > 0 {
		// A session of its own, so that renice lowers its session's
		// group too (package nice): its CPU is then not charged to the
		// group of the host and the rooms' process.
		nice.Apart(cmd)
	}
	conn, err := host.Launch(ctx, host.LaunchConfig{Cmd: cmd, Logger: p.cfg.Logger.With("plugin", p.name)})
	if err == nil {
		renice(conn.PID(), n)
	}
	return conn, cmd, err
}

const (
	// callPingTimeout bounds the ping after a call overran its deadline, so
	// the player's 504 comes at most this late; a live plugin answers a
	// health check in well under a millisecond.
	callPingTimeout = 500 * time.Millisecond
	// healthPingTimeout bounds the health loop's ping; nobody waits on it,
	// so it can be generous to a loaded machine.
	healthPingTimeout = 2 * time.Second
	// shutdownGrace is how long a plugin may take to exit when asked to,
	// at shutdown, before it is killed.
	shutdownGrace = 3 * time.Second
)

// errPingTimeout says a plugin did not answer a health check in time.
var errPingTimeout = errors.New("health check timed out")

// ping checks that the plugin answers within d. go-plugin's Ping has no
// deadline of its own, and a stopped or wedged process never answers it;
// the goroutine left waiting ends when the failed connection is killed.
func ping(conn *host.Conn, d time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- conn.Ping() }()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		return errPingTimeout
	}
}

// stopProcess ends a plugin process. The graceful way (host.Conn.Kill, which
// asks the plugin to shut down over gRPC) waits for an answer a stopped or
// wedged process never gives, so after grace the process is killed outright
// (os.Process.Kill, which cannot hit a reused PID), which also ends that wait.
// A grace of 0 kills at once: for a process already judged failed.
func stopProcess(conn *host.Conn, cmd *exec.Cmd, grace time.Duration) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		conn.Kill()
	}()
	if grace > 0 {
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-done:
			return
		case <-t.C:
		}
	}
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
	<-done
}

// Descriptions are the variants served, sorted by ID.
func (h *Host) Descriptions() []sdk.Description { return h.descs }

// Description returns one variant's description.
func (h *Host) Description(id string) (sdk.Description, bool) {
	for _, d := range h.descs {
		if d.ID == id {
			return d, true
		}
	}
	return sdk.Description{}, false
}

// PIDs maps each plugin binary's name to its current process ID (for tests
// and diagnostics).
func (h *Host) PIDs() map[string]int {
	out := map[string]int{}
	for _, p := range h.procs {
		p.mu.Lock()
		if p.conn != nil {
			out[p.name] = p.conn.PID()
		}
		p.mu.Unlock()
	}
	return out
}

// Close kills every plugin process and stops supervision.
func (h *Host) Close() {
	select {
	case <-h.stop:
	default:
		close(h.stop)
	}
	h.wg.Wait()
	for _, p := range h.procs {
		for _, q := range p.all() {
			q.mu.Lock()
			if q.conn != nil {
				stopProcess(q.conn, q.cmd, shutdownGrace)
				q.conn, q.cmd = nil, nil
			}
			q.mu.Unlock()
		}
	}
}

// Call runs fn against the plugin that serves variant, with the host's call
// deadline unless ctx has an earlier one. When the plugin has died (before or
// during the call) it is restarted and fn is retried once.
func (h *Host) Call(ctx context.Context, variant, call string, fn func(ctx context.Context, c *host.Conn) error) error {
	p, ok := h.byVariant[variant]
	if !ok {
		return ErrUnknownVariant
	}
	api := classOf(ctx) == API
	switch {
	case call == "suggest" && api && h.apiEngines[variant] != nil:
		p = h.apiEngines[variant]
	case call == "suggest" && h.engines[variant] != nil:
		p = h.engines[variant]
	case api:
		p = h.apis[variant]
	}
	if held, _ := ctx.Value(admittedKey{}).(*proc); p.limit > 0 && held != p {
		if p.inflight.Add(1) > p.limit {
			p.inflight.Add(-1)
			return &BusyError{Variant: variant, Call: call}
		}
		defer p.inflight.Add(-1)
	}
	if ctx == context.Background() {
		ctx = h.deadline.context(time.Now(), h.cfg.CallTimeout)
	} else if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, h.cfg.CallTimeout)
		defer cancel()
	}
	if p.lazy {
		var done context.CancelFunc
		ctx, done = p.uncountedStart(ctx, variant)
		defer done()
	}
	for attempt := 0; ; attempt++ {
		conn, err := p.get(ctx, variant)
		if err != nil {
			return err
		}
		err = fn(ctx, conn)
		if err == nil {
			p.answered.Store(true)
			p.answers.Add(1)
			return nil
		}
		if _, rule := sdk.AsRuleError(err); rule {
			p.answered.Store(true)
			p.answers.Add(1)
			return err
		}
		if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || status.Code(err) == codes.DeadlineExceeded {
			// The call overran its deadline: the plugin may be hung, or the
			// call merely slow. judge tells which; a hung plugin is
			// replaced so the next call finds a live one.
			p.judge(conn, callPingTimeout, fmt.Errorf("hung during %s", call))
			return &TimeoutError{Variant: variant, Call: call}
		}
		if attempt == 1 {
			return fmt.Errorf("%s %s: %w", variant, call, err)
		}
		h.cfg.Logger.Warn("plugin call failed, restarting the plugin and retrying once",
			"plugin", p.name, "variant", variant, "call", call, "err", err)
		p.replace(conn, err)
	}
}

// Admit takes, for one request, the place in its plugin process that a
// call of class API named call to variant would take, before the request's
// body is read and decoded: a *BusyError at once when the process has
// APIInFlight calls (SuggestInFlight searches) already, so that a refused
// request costs no decoding; else ctx carrying the place, which the
// request's calls to that process use instead of taking another, and
// release, to be called when the request ends. An unknown variant, or a
// process with no bound, admits everything (Call decides).
func (h *Host) Admit(ctx context.Context, variant, call string) (context.Context, func(), error) {
	p := h.apis[variant]
	if call == "suggest" && h.apiEngines[variant] != nil {
		p = h.apiEngines[variant]
	}
	if p == nil || p.limit <= 0 {
		return ctx, func() {}, nil
	}
	if p.inflight.Add(1) > p.limit {
		p.inflight.Add(-1)
		return ctx, nil, &BusyError{Variant: variant, Call: call}
	}
	var once sync.Once
	return context.WithValue(ctx, admittedKey{}, p), func() { once.Do(func() { p.inflight.Add(-1) }) }, nil
}

// admittedKey marks a context whose request holds a place in a process
// (Admit): the *proc.
type admittedKey struct{}

// uncountedStart starts a lazy process (an engine) that was never started,
// and moves ctx's deadline by the time that took: the first computer move
// after the host starts gets its whole thinking time, not what the process
// start left of it. ctx's cancellation (the player gone) still ends it.
func (p *proc) uncountedStart(ctx context.Context, variant string) (context.Context, context.CancelFunc) {
	p.mu.Lock()
	started := p.launched
	p.mu.Unlock()
	dl, ok := ctx.Deadline()
	if started || !ok {
		return ctx, func() {}
	}
	t0 := time.Now()
	if _, err := p.get(ctx, variant); err != nil {
		return ctx, func() {} // the call's own get reports it
	}
	c, cancel := context.WithDeadline(context.WithoutCancel(ctx), dl.Add(time.Since(t0)))
	stop := context.AfterFunc(ctx, func() {
		if ctx.Err() == context.Canceled {
			cancel()
		}
	})
	return c, func() { stop(); cancel() }
}

// get returns the live connection, starting a new process if the last one
// died, or an *UnavailableError during a crash loop.
func (p *proc) get(ctx context.Context, variant string) (*host.Conn, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conn != nil && !p.conn.Exited() {
		return p.conn, nil
	}
	if p.conn != nil {
		stopProcess(p.conn, p.cmd, 0)
		p.conn, p.cmd = nil, nil
	}
	if p.lazy && !p.launched {
		// An engine process's first start is no restart.
		conn, cmd, err := p.launch(context.WithoutCancel(ctx))
		if err != nil {
			return nil, fmt.Errorf("start plugin %s: %w", p.name, err)
		}
		p.launched = true
		p.conn, p.cmd = conn, cmd
		return conn, nil
	}
	now := time.Now()
	if now.Before(p.downUntil) {
		return nil, &UnavailableError{Variant: variant, Until: p.downUntil, Cause: p.lastErr}
	}
	// Backoff grows with the restarts in the window: 0, 100 ms, 200 ms, ...
	p.restarts = slices.DeleteFunc(p.restarts, func(t time.Time) bool { return now.Sub(t) > p.cfg.RestartWindow })
	if len(p.restarts) >= p.cfg.RestartBurst {
		p.downUntil = now.Add(p.cfg.UnavailableFor)
		p.restarts = nil
		p.cfg.Logger.Error("plugin keeps crashing; its variants are unavailable for a while",
			"plugin", p.name, "for", p.cfg.UnavailableFor, "err", p.lastErr)
		return nil, &UnavailableError{Variant: variant, Until: p.downUntil, Cause: p.lastErr}
	}
	if n := len(p.restarts); n > 0 {
		wait := min(time.Duration(50<<n)*time.Millisecond, 3*time.Second)
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	p.restarts = append(p.restarts, time.Now())
	conn, cmd, err := p.launch(context.WithoutCancel(ctx))
	if p.cfg.OnRestart != nil {
		p.cfg.OnRestart(p.name)
	}
	if err != nil {
		p.lastErr = err
		p.cfg.Logger.Error("plugin restart failed", "plugin", p.name, "err", err)
		return nil, fmt.Errorf("restart plugin %s: %w", p.name, err)
	}
	p.cfg.Logger.Info("plugin restarted", "plugin", p.name, "pid", conn.PID())
	p.conn, p.cmd = conn, cmd
	return conn, nil
}

// replace kills a failed process (unless another caller already replaced
// it) so the next get starts a new one. A failed process gets no grace: it
// may be too wedged to shut down when asked.
func (p *proc) replace(failed *host.Conn, cause error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lastErr = cause
	if p.conn == failed {
		stopProcess(failed, p.cmd, 0)
		p.conn, p.cmd = nil, nil
	}
}

// healthLoop pings every plugin; one that does not answer is replaced at once
// rather than at the next player's call.
func (h *Host) healthLoop() {
	defer h.wg.Done()
	t := time.NewTicker(h.cfg.HealthInterval)
	defer t.Stop()
	for {
		select {
		case <-h.stop:
			return
		case <-t.C:
		}
		h.checkHealth()
	}
}

// checkHealth pings every plugin that answered no call since the last
// check and replaces the ones that do not answer the ping. A busy plugin is
// not pinged: under load its queue can hold a ping longer than the timeout,
// and killing it then fails every call in flight (found by the load test:
// at a thousand rooms the shogi plugin was killed every few seconds).
func (h *Host) checkHealth() {
	for _, main := range h.procs {
		for _, p := range main.all() {
			if p.answered.Swap(false) {
				continue
			}
			p.mu.Lock()
			conn := p.conn
			p.mu.Unlock()
			if conn == nil {
				continue
			}
			if p.judge(conn, h.cfg.HealthTimeout, errors.New("failed its health check")) {
				h.cfg.Logger.Warn("plugin failed its health check", "plugin", p.name)
				if ds := conn.Descriptions(); len(ds) > 0 && !p.lazy {
					// Start the replacement now, not at the next call.
					_, _ = p.get(context.Background(), ds[0].ID)
				}
			}
		}
	}
}

// busyBound is how long a plugin that misses its pings but keeps using
// CPU (a long replay, a queue of searches) is given before it is judged
// hung all the same.
const busyBound = 10 * time.Second

// minObserve is the shortest time judge watches a process's CPU time.
const minObserve = 200 * time.Millisecond

// judge tells a busy plugin from a hung one after a missed deadline (or
// at a health check), and replaces a hung one; it reports whether it did.
// A ping answered within wait, or any call answered meanwhile, is alive. A
// ping not answered is not enough to kill: a plugin working through a
// queue (one scheduler thread) can answer a ping late, and a niced one on
// a machine with every CPU taken may get no CPU at all for a while. So a
// process that used CPU, or waited on a run queue for one, during the
// wait is busy, and is waited on (in the background, the caller has its
// answer) until it answers something, stops wanting to run (then it is
// hung: stopped, deadlocked) or busyBound passes. A process that neither
// ran nor waited to run while it did not answer is hung at once: a
// stopped or wedged plugin is replaced within wait, as before.
func (p *proc) judge(conn *host.Conn, wait time.Duration, cause error) bool {
	before := p.answers.Load()
	then, _ := activityOf(conn.PID())
	start := time.Now()
	if ping(conn, wait) == nil {
		p.answers.Add(1)
		return false
	}
	// CPU time counts in ticks (10 ms): look over long enough to see it.
	if d := minObserve - time.Since(start); d > 0 {
		time.Sleep(d)
	}
	now, ok := activityOf(conn.PID())
	if p.answers.Load() != before {
		return false
	}
	if !ok || !now.progressed(then) {
		p.replace(conn, cause)
		return true
	}
	if !p.judging.CompareAndSwap(false, true) {
		return false // another judgement of this process is under way
	}
	go func() {
		defer p.judging.Store(false)
		step := max(wait, minObserve)
		for waited := step; ; waited += step {
			prev := now
			t0 := time.Now()
			if ping(conn, wait) == nil || p.answers.Load() != before {
				return
			}
			if d := step - time.Since(t0); d > 0 {
				time.Sleep(d)
			}
			now, ok = activityOf(conn.PID())
			if p.answers.Load() != before {
				return // it answered a call while we looked
			}
			if !ok || !now.progressed(prev) || waited >= busyBound {
				p.cfg.Logger.Warn("plugin answered nothing and made no progress; replacing it", "plugin", p.name, "waited", waited)
				p.replace(conn, cause)
				return
			}
		}
	}()
	return false
}

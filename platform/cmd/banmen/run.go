package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/banmen/banmen/platform/internal/config"
	"github.com/banmen/banmen/platform/internal/pluginhost"
	"github.com/banmen/banmen/platform/internal/room"
	"github.com/banmen/banmen/platform/internal/server"
)

// run is the whole program, so tests can start a real host in-process: it
// serves until ctx is done, then shuts down gracefully (plugins included).
// When the listen address is ready it logs "listening" with the address,
// which matters when the port is 0.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := config.Load(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	logger := newLogger(cfg, stderr)
	setHostGC(getenv)
	// BANMEN_CPUPROFILE profiles the whole run, for the load command; it is
	// no setting (nothing a site configures) and costs nothing when unset.
	if path := getenv("BANMEN_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			return fmt.Errorf("BANMEN_CPUPROFILE: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("BANMEN_CPUPROFILE: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	// BANMEN_ALLOCPROFILE writes where the run allocated (pprof's allocs
	// profile) when it ends, likewise for the load command.
	if path := getenv("BANMEN_ALLOCPROFILE"); path != "" {
		defer func() {
			if f, err := os.Create(path); err == nil {
				pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
		}()
	}
	if _, err := os.ReadDir(cfg.PluginDir); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			err = fmt.Errorf("%w (`make build` builds the plugins into bin/plugins)", err)
		}
		return cfg.SettingError("plugin_dir", err)
	}
	if err := os.MkdirAll(cfg.DataDir, 0o750); err != nil {
		return cfg.SettingError("data_dir", err)
	}
	metrics := server.NewMetrics()
	hostCfg := pluginhost.Config{
		Dir:             cfg.PluginDir,
		Env:             cfg.PluginEnv,
		Logger:          logger,
		CallTimeout:     cfg.Limits.CallTimeout,
		HealthInterval:  cfg.Limits.HealthInterval,
		RestartBurst:    cfg.Limits.RestartBurst,
		RestartWindow:   cfg.Limits.RestartWindow,
		UnavailableFor:  cfg.Limits.UnavailableFor,
		OnRestart:       func(p string) { metrics.PluginRestarts.WithLabelValues(p).Inc() },
		APIInFlight:     cfg.Limits.APIInFlight,
		SuggestInFlight: cfg.Limits.SuggestInFlight,
	}
	host, err := pluginhost.Start(ctx, hostCfg)
	if err != nil {
		return err
	}
	defer host.Close()
	// Analysis runs in processes of its own (see server/analyse.go).
	analysis := &analysisHost{cfg: hostCfg}
	analysis.cfg.OnRestart = func(p string) { metrics.PluginRestarts.WithLabelValues(p + " (analysis)").Inc() }
	analysis.cfg.Nice = 19 // the lowest priority, each process in a session of its own
	defer analysis.Close()
	if len(host.Descriptions()) == 0 {
		logger.Warn("no rules plugins found; build them with `make build`", "plugin_dir", cfg.PluginDir)
	}
	st, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	cluster, runsComputer, startCluster, stopCluster, err := joinCluster(ctx, st, cfg, logger)
	if err != nil {
		return err
	}
	rooms := room.New(room.Config{Store: st, Rules: pluginhost.RoomRules(host), Logger: logger,
		TTL: cfg.Limits.RoomTTL, SeatCodeTTL: cfg.Limits.SeatCodeTTL, ThinkTimeout: cfg.Limits.SuggestTimeout,
		Cluster: cluster, RunsComputer: runsComputer,
		MaxWatchers: cfg.Limits.RoomWatchers, PresenceEvery: cfg.Limits.PresenceInterval,
		ActionBurst: cfg.Limits.ActionBurst, ActionRate: float64(cfg.Limits.ActionRate), RoundsWithoutMove: cfg.Limits.RoundsWithoutMove,
		GoneAfter: cfg.Limits.OpponentGone})
	startCluster(rooms)
	defer stopCluster()
	// The rooms' clock: away players and times per move passing to the
	// computer. Stopped (its computer moves finished) before the store
	// closes.
	tickCtx, stopTicks := context.WithCancel(ctx)
	ticksDone := make(chan struct{})
	go func() { rooms.Run(tickCtx, computerTick); close(ticksDone) }()
	defer func() { stopTicks(); <-ticksDone }()
	sweepDone := make(chan struct{})
	defer func() { <-sweepDone }()
	sweepCtx, stopSweep := context.WithCancel(ctx)
	defer stopSweep()
	go sweep(sweepCtx, rooms, cfg.Limits.RoomSweep, logger, sweepDone)
	stateKey, err := loadStateKey(cfg)
	if err != nil {
		return err
	}
	deps := server.Deps{Games: host, Config: cfg, Logger: logger, Metrics: metrics, Rooms: rooms, Analysis: analysis, StateKey: stateKey}
	app := server.New(deps)
	ln, err := net.Listen("tcp", cfg.Addr())
	if err != nil {
		return err
	}
	if cfg.OpsAddr != "" {
		// /metrics apart from the site. A host whose operations address is
		// taken still serves the site, and says so.
		ops := server.NewOps(deps)
		if oln, err := net.Listen("tcp", cfg.OpsAddr); err != nil {
			logger.Error("operations address unavailable: /metrics is not served", "ops_addr", cfg.OpsAddr, "err", err)
		} else {
			logger.Info("operations listening", "addr", oln.Addr().String())
			fmt.Fprintf(stdout, "Banmen operations (/metrics) on http://%s\n", displayAddr(oln.Addr()))
			go func() { _ = ops.Listener(oln) }()
			defer ops.ShutdownWithTimeout(cfg.Limits.ShutdownTimeout)
		}
	}
	logger.Info("listening", "addr", ln.Addr().String(), "url", "http://"+displayAddr(ln.Addr()))
	fmt.Fprintf(stdout, "Banmen is serving on http://%s\n", displayAddr(ln.Addr()))
	served := make(chan error, 1)
	go func() { served <- app.Listener(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down")
	if err := app.ShutdownWithTimeout(cfg.Limits.ShutdownTimeout); err != nil {
		logger.Error("shutdown", "err", err)
	}
	return nil
}

// loadStateKey is the key that signs the stateless API's game states:
// state_key when set, else the one kept in data_dir/state.key, made at the
// first start, so that the states a browser keeps survive a restart.
func loadStateKey(cfg config.Config) ([]byte, error) {
	if cfg.StateKey != "" {
		return []byte(cfg.StateKey), nil
	}
	path := filepath.Join(cfg.DataDir, "state.key")
	if b, err := os.ReadFile(path); err == nil {
		if k := strings.TrimSpace(string(b)); len(k) >= 32 {
			return []byte(k), nil
		}
		return nil, fmt.Errorf("%s: want at least 32 characters (delete the file to make a new key)", path)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, cfg.SettingError("data_dir", err)
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	k := hex.EncodeToString(b)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return loadStateKey(cfg) // another host on this data directory made it first
	}
	if err != nil {
		return nil, cfg.SettingError("data_dir", err)
	}
	_, err = f.WriteString(k + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, cfg.SettingError("data_dir", err)
	}
	return []byte(k), nil
}

// computerTick is how often the rooms look for a computer move that is due
// (an away player's seat, a time per move run out).
const computerTick = 250 * time.Millisecond

// sweep purges expired rooms now and then until ctx ends.
func sweep(ctx context.Context, rooms *room.Manager, every time.Duration, logger *slog.Logger, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if n, err := rooms.Sweep(ctx); err != nil {
			logger.Error("room sweep", "err", err)
		} else if n > 0 {
			logger.Info("expired rooms purged", "rooms", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func displayAddr(a net.Addr) string {
	s := a.String()
	if strings.HasPrefix(s, "[::]:") {
		return "localhost:" + strings.TrimPrefix(s, "[::]:")
	}
	if strings.HasPrefix(s, "0.0.0.0:") {
		return "localhost:" + strings.TrimPrefix(s, "0.0.0.0:")
	}
	return s
}

func newLogger(cfg config.Config, w io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.LogLevel))
	opts := &slog.HandlerOptions{Level: level}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// hostGCPercent is the host's GOGC unless the environment sets one. Every
// move allocates its request, its events and the plugin's View while the
// live heap (rooms, connections) grows slowly, so at the default of 100 the
// host collected often: at 1000 rooms, GOGC=200 took its CPU per move from
// 124-128 µs to 105-112 µs, for a few MB more heap. GOMEMLIMIT, which the Go
// runtime reads itself, bounds the heap on a machine short of memory.
const hostGCPercent = 200

// setHostGC sets the host's GC target to hostGCPercent unless GOGC is set
// (then the runtime has already applied it), and returns the target in use.
func setHostGC(getenv func(string) string) int {
	if getenv("GOGC") != "" {
		p := debug.SetGCPercent(-1)
		debug.SetGCPercent(p)
		return p
	}
	debug.SetGCPercent(hostGCPercent)
	return hostGCPercent
}

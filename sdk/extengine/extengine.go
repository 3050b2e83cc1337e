// Package extengine drives an external game engine that speaks USI (shogi),
// UCI or UCCI (xiangqi) over its standard input and output, such as Debian's
// fairy-stockfish. A plugin may let such an engine play its strongest level;
// the match command uses it as a reference opponent.
//
// An Engine starts its process lazily, restarts it when it dies, and never
// blocks past the caller's deadline: a late engine is killed and the error
// returned, so the caller can fall back to its own search. It knows no game
// rule: positions and moves are the engine protocol's own text.
//
// It must never import the platform or any plugin.
package extengine

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Protocol is the engine's dialect.
type Protocol string

// The dialects an Engine speaks.
const (
	USI  Protocol = "usi"  // shogi: usi/usiok, usinewgame, position sfen ... moves ...
	UCI  Protocol = "uci"  // chess-style: uci/uciok, ucinewgame
	UCCI Protocol = "ucci" // xiangqi: ucci/ucciok, ranks 0-9
)

// Config says how to run an engine.
type Config struct {
	Command  string            // executable
	Args     []string          // arguments
	Protocol Protocol          // dialect
	Options  map[string]string // setoption name K value V, sent after the handshake
	// StartTimeout bounds the handshake (default 10 s).
	StartTimeout time.Duration
}

// Limit bounds one search: by depth, by nodes, by time, or several (the
// first reached).
type Limit struct {
	Depth    int
	MoveTime time.Duration
	// Nodes is sent as "go nodes N" (Fairy-Stockfish and most UCI
	// engines honour it; an engine that does not ignores it).
	Nodes int64
}

// ErrNoMove is returned when the engine has no move (mated or stalemated).
var ErrNoMove = errors.New("engine has no move")

// Engine is one external engine process, used by one search at a time.
type Engine struct {
	cfg Config

	mu    sync.Mutex
	proc  *process
	Spawn int // processes started so far (for tests and logs)
}

// New returns an Engine; the process starts at the first search.
func New(cfg Config) *Engine {
	if cfg.StartTimeout == 0 {
		cfg.StartTimeout = 10 * time.Second
	}
	return &Engine{cfg: cfg}
}

type process struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan string // stdout lines; closed when the process ends
}

// BestMove asks for the best move in position, which is the text that
// follows "position " in the protocol ("startpos moves 7g7f",
// "sfen <SFEN> moves ...", "fen <FEN> moves ..."). It returns the engine's
// move text. If the engine dies it is restarted once; if ctx ends first the
// engine is killed (it restarts at the next call).
func (e *Engine) BestMove(ctx context.Context, position string, lim Limit) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for attempt := 0; ; attempt++ {
		move, err := e.search(ctx, position, lim)
		if err == nil || errors.Is(err, ErrNoMove) || ctx.Err() != nil || attempt == 1 {
			return move, err
		}
		e.kill() // a dead or confused engine: start afresh once
	}
}

// Perft counts the legal-move tree of position (as for BestMove) to depth
// with Fairy-Stockfish's "go perft" (an extension plain USI/UCI/UCCI engines
// lack), for benchmarks and second opinions on a move generator. It returns
// the count and the time from the command to the count, the position's set-up
// excluded.
func (e *Engine) Perft(ctx context.Context, position string, depth int) (uint64, time.Duration, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.ready(ctx, position); err != nil {
		return 0, 0, err
	}
	if err := e.send("position "+position, "isready"); err != nil {
		return 0, 0, err
	}
	if err := e.await(ctx, "readyok"); err != nil {
		return 0, 0, err
	}
	start := time.Now()
	if err := e.send(fmt.Sprintf("go perft %d", depth)); err != nil {
		return 0, 0, err
	}
	for {
		line, err := e.next(ctx)
		if err != nil {
			return 0, 0, err
		}
		if rest, ok := strings.CutPrefix(line, "Nodes searched:"); ok {
			el := time.Since(start)
			n, err := strconv.ParseUint(strings.TrimSpace(rest), 10, 64)
			return n, el, err
		}
	}
}

// ready starts the process if none runs and checks that position fits on
// one protocol line.
func (e *Engine) ready(ctx context.Context, position string) error {
	if e.proc == nil {
		if err := e.start(ctx); err != nil {
			return err
		}
	}
	if strings.ContainsAny(position, "\r\n") {
		return errors.New("position contains a line break")
	}
	return nil
}

func (e *Engine) search(ctx context.Context, position string, lim Limit) (string, error) {
	if err := e.ready(ctx, position); err != nil {
		return "", err
	}
	if err := e.send("position "+position, goCommand(lim)); err != nil {
		return "", err
	}
	for {
		line, err := e.next(ctx)
		if err != nil {
			return "", err
		}
		if rest, ok := strings.CutPrefix(line, "bestmove"); ok {
			f := strings.Fields(rest)
			if len(f) == 0 || f[0] == "resign" || f[0] == "(none)" || f[0] == "0000" || f[0] == "win" && e.cfg.Protocol != USI {
				return "", ErrNoMove
			}
			return f[0], nil
		}
	}
}

func (e *Engine) start(ctx context.Context) error {
	cmd := exec.Command(e.cfg.Command, e.cfg.Args...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start engine %s: %w", e.cfg.Command, err)
	}
	p := &process{cmd: cmd, in: in, lines: make(chan string, 256)}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			p.lines <- strings.TrimSpace(sc.Text())
		}
		close(p.lines)
		_ = cmd.Wait()
	}()
	e.proc = p
	e.Spawn++
	hctx, cancel := context.WithTimeout(ctx, e.cfg.StartTimeout)
	defer cancel()
	hello, ok := map[Protocol][2]string{USI: {"usi", "usiok"}, UCI: {"uci", "uciok"}, UCCI: {"ucci", "ucciok"}}[e.cfg.Protocol]
	if !ok {
		e.kill()
		return fmt.Errorf("unknown engine protocol %q", e.cfg.Protocol)
	}
	if err := e.send(hello[0]); err != nil {
		return err
	}
	if err := e.await(hctx, hello[1]); err != nil {
		return err
	}
	for k, v := range e.cfg.Options {
		if err := e.send(fmt.Sprintf("setoption name %s value %s", k, v)); err != nil {
			return err
		}
	}
	newGame := map[Protocol]string{USI: "usinewgame", UCI: "ucinewgame"}[e.cfg.Protocol]
	if err := e.send("isready"); err != nil {
		return err
	}
	if err := e.await(hctx, "readyok"); err != nil {
		return err
	}
	if newGame != "" {
		return e.send(newGame)
	}
	return nil
}

func (e *Engine) await(ctx context.Context, want string) error {
	for {
		line, err := e.next(ctx)
		if err != nil {
			return fmt.Errorf("engine handshake (%s): %w", want, err)
		}
		if line == want {
			return nil
		}
	}
}

func (e *Engine) send(lines ...string) error {
	if e.proc == nil {
		return errors.New("engine not running")
	}
	if _, err := io.WriteString(e.proc.in, strings.Join(lines, "\n")+"\n"); err != nil {
		e.kill()
		return fmt.Errorf("engine write: %w", err)
	}
	return nil
}

// next returns the engine's next output line, or an error when it exits or
// ctx ends (the engine is then killed: it may be mid-search).
func (e *Engine) next(ctx context.Context) (string, error) {
	p := e.proc
	if p == nil {
		return "", errors.New("engine not running")
	}
	select {
	case line, ok := <-p.lines:
		if !ok {
			e.kill()
			return "", errors.New("engine exited")
		}
		return line, nil
	case <-ctx.Done():
		e.kill()
		return "", ctx.Err()
	}
}

func (e *Engine) kill() {
	if e.proc == nil {
		return
	}
	_ = e.proc.cmd.Process.Kill()
	_ = e.proc.in.Close()
	e.proc = nil
}

// Close ends the engine process.
func (e *Engine) Close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.proc != nil {
		_ = e.send("quit")
	}
	e.kill()
}

// PID is the running engine's process ID, 0 when none runs.
func (e *Engine) PID() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.proc == nil {
		return 0
	}
	return e.proc.cmd.Process.Pid
}

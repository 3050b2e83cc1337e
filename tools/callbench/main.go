// Command callbench measures what the plugin boundary costs: the latency of
// one Play call of shogi's first legal move at the start, made through the
// built shogi plugin (bin/plugins/shogi) over its quick channel as the host
// makes it (the multiplexed lane) and over go-plugin gRPC alone (over the
// channel also with 64 callers at once), beside the same call made
// in-process on the same rules (plugins/shogi/engine), and prints p50/p99 of
// each and of the difference. It also times Play through every plugin found
// in the plugin directory, at the start and at ply 10, 80 and 160 of a
// seeded game, with the CPU and the bytes per call. It prints figures; it
// asserts nothing.
//
//	make build && BANMEN_BIN=$PWD/bin go run ./tools/callbench  (from tools/: go run ./callbench)
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/banmen/banmen/plugins/shogi/engine"
	"github.com/banmen/banmen/sdk/host"
	"github.com/banmen/banmen/tools/internal/hostproc"
)

func main() {
	n := flag.Int("n", 5000, "calls per measurement")
	dir := flag.String("plugins", defaultDir(), "plugin directory")
	flag.Parse()
	if err := run(*n, *dir); err != nil {
		fmt.Fprintln(os.Stderr, "callbench:", err)
		os.Exit(1)
	}
}

func defaultDir() string { return filepath.Join(hostproc.BinDir(os.Getenv), "plugins") }

func run(n int, dir string) error {
	ctx := context.Background()
	// The same rules in-process as in the plugin, with no external engine
	// (the plugin is started without the host's environment either).
	local := engine.New(func(string) string { return "" })
	defer local.Close()
	conn, err := host.Launch(ctx, host.LaunchConfig{Cmd: pluginCmd(filepath.Join(dir, "shogi"))})
	if err != nil {
		return fmt.Errorf("%w (run `make build` first)", err)
	}
	defer conn.Kill()
	if !conn.Channel() {
		return fmt.Errorf("the shogi plugin offers no channel (rebuild it: `make build`)")
	}
	grpcConn, err := host.Launch(ctx, host.LaunchConfig{Cmd: pluginCmd(filepath.Join(dir, "shogi")), GRPCOnly: true})
	if err != nil {
		return err
	}
	defer grpcConn.Kill()
	st, v, err := local.Start(nil)
	if err != nil {
		return err
	}
	move := v.Legal[0].Move
	in := measure(n, func() error { _, _, err := local.Play(st, 0, move); return err })
	if in.err != nil {
		return fmt.Errorf("play: %v", in.err)
	}
	fmt.Printf("play call, shogi start position, %d calls each\n", n)
	fmt.Printf("  in-process            p50 %9s  p99 %9s\n", in.p(50), in.p(99))
	for _, c := range []struct {
		name string
		conn *host.Conn
	}{{"channel (as the host: the multiplexed lane)", conn}, {"gRPC only", grpcConn}} {
		cpu0 := cpuTime(os.Getpid()) + cpuTime(c.conn.PID())
		out := measure(n, func() error {
			_, _, err := c.conn.Play(ctx, host.PlayRequest{Variant: "shogi", State: st, Seat: 0, Move: move})
			return err
		})
		cpu := cpuTime(os.Getpid()) + cpuTime(c.conn.PID()) - cpu0
		if out.err != nil {
			return fmt.Errorf("play: %v", out.err)
		}
		fmt.Printf("  through plugin, %s\n", c.name)
		fmt.Printf("    call                p50 %9s  p99 %9s\n", out.p(50), out.p(99))
		fmt.Printf("    boundary overhead   p50 %9s  p99 %9s  (target p50 < 100µs)\n", out.p(50)-in.p(50), out.p(99)-in.p(99))
		// On a shared machine the wall-clock figures include waiting for a
		// core; the CPU both processes spent per call does not.
		fmt.Printf("    CPU per call, host + plugin: %s\n", cpu/time.Duration(n+n/10))
		if c.conn == grpcConn {
			continue
		}
		// Many rooms move at once on a busy host: the lane carries their
		// calls together.
		const callers = 64
		cpu0 = cpuTime(os.Getpid()) + cpuTime(c.conn.PID())
		start := time.Now()
		errs := make(chan error, callers)
		for range callers {
			go func() {
				for range n / callers {
					if _, _, err := c.conn.Play(ctx, host.PlayRequest{Variant: "shogi", State: st, Seat: 0, Move: move}); err != nil {
						errs <- err
						return
					}
				}
				errs <- nil
			}()
		}
		for range callers {
			if err := <-errs; err != nil {
				return fmt.Errorf("play: %v", err)
			}
		}
		calls := time.Duration(n / callers * callers)
		cpu = cpuTime(os.Getpid()) + cpuTime(c.conn.PID()) - cpu0
		fmt.Printf("    %d callers at once:  %s a call, CPU per call, host + plugin: %s\n", callers, time.Since(start)/calls, cpu/calls)
	}
	fmt.Printf("  load average %s\n", loadAvg())

	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() == "tictactoe" { // the sdk's example, not a site's variant: its games end before ply 10
			continue
		}
		c, err := host.Launch(ctx, host.LaunchConfig{Cmd: pluginCmd(filepath.Join(dir, e.Name()))})
		if err != nil {
			fmt.Printf("  %s: %v\n", e.Name(), err)
			continue
		}
		for _, d := range c.Descriptions() {
			st, v, err := c.Start(ctx, host.StartRequest{Variant: d.ID})
			if err != nil || len(v.Legal) == 0 {
				continue
			}
			m, seat := v.Legal[0].Move, v.Legal[0].Seat
			r := measure(n/5, func() error {
				_, _, err := c.Play(ctx, host.PlayRequest{Variant: d.ID, State: st, Seat: seat, Move: m})
				return err
			})
			fmt.Printf("play call through plugin, %-8s start position (%d legal moves): p50 %8s  p99 %8s\n",
				d.ID, len(v.Legal), r.p(50), r.p(99))
			// Later in a seeded game (gameAt, played through the
			// plugin), the same state given every time, as a retry gives it.
			remote := host.Remote{Conn: c, ID: d.ID}
			for _, ply := range []int{10, 80, 160} {
				st, v, err := gameAt(remote, 1, ply)
				if err != nil {
					fmt.Printf("  %s ply %d: %v\n", d.ID, ply, err)
					continue
				}
				lm, ok := nextMove(remote, st, v, 1)
				if !ok {
					continue
				}
				for _, lean := range []bool{false, true} {
					from, name := 0, "whole History"
					if lean {
						// As a room asks: only the moves it does not hold.
						from, name = v.Ply, "HistoryFrom"
					}
					calls := n / 5
					cpu0 := cpuTime(os.Getpid()) + cpuTime(c.PID())
					io0 := ioBytes(c.PID())
					r := measure(calls, func() error {
						_, _, err := c.Play(ctx, host.PlayRequest{Variant: d.ID, State: st, Seat: lm.Seat, Move: lm.Move, HistoryFrom: from})
						return err
					})
					cpu := cpuTime(os.Getpid()) + cpuTime(c.PID()) - cpu0
					io := ioBytes(c.PID()) - io0
					total := calls + calls/10
					fmt.Printf("  %-8s ply %3d %-13s: p50 %8s  p99 %8s  CPU host+plugin %8s/call  %6d bytes/call through the plugin's sockets (state %d B)\n",
						d.ID, ply, name, r.p(50), r.p(99), cpu/time.Duration(total), io/int64(total), len(st))
				}
			}
		}
		c.Kill()
	}
	return nil
}

// pluginCmd starts a plugin the way the host does (GOMAXPROCS=1 unless
// plugin_env says otherwise; see pluginhost).
func pluginCmd(path string) *exec.Cmd {
	cmd := exec.Command(path)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "GOMAXPROCS=" + cmp.Or(os.Getenv("PLUGIN_GOMAXPROCS"), "1")}
	return cmd
}

type sample struct {
	d   []time.Duration
	err error
}

func (s sample) p(q int) time.Duration { return s.d[(len(s.d)-1)*q/100] }

func measure(n int, f func() error) sample {
	for i := 0; i < n/10; i++ { // warm up
		if err := f(); err != nil {
			return sample{err: err}
		}
	}
	s := sample{d: make([]time.Duration, n)}
	for i := range s.d {
		t := time.Now()
		if err := f(); err != nil {
			return sample{err: err}
		}
		s.d[i] = time.Since(t)
	}
	slices.Sort(s.d)
	return s
}

// cpuTime is the user+system CPU time a process has used so far, from
// /proc (Linux; zero elsewhere).
func cpuTime(pid int) time.Duration {
	d, _ := hostproc.CPU(pid)
	return d
}

// ioBytes is what a process has read and written through system calls so
// far (rchar + wchar in /proc; zero elsewhere): for a plugin, essentially
// the bytes of its calls in both directions.
func ioBytes(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		return 0
	}
	var n int64
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, ": ")
		if k == "rchar" || k == "wchar" {
			x, _ := strconv.ParseInt(v, 10, 64)
			n += x
		}
	}
	return n
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Fields(string(b))[0]
}

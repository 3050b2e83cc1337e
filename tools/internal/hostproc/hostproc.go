// Package hostproc runs the built host (bin/banmen with its plugins) as a
// subprocess for the tools, and reads what its processes cost from Linux's
// /proc. A host it starts can be stopped gracefully or killed outright.
//
// It is the tools' own copy of what they need, so that no tool imports a
// test helper of the product: it starts the binary, reads the line saying
// where it serves, and sees the processes from outside.
package hostproc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Host is a running bin/banmen.
type Host struct {
	// URL is where it serves ("http://127.0.0.1:41234").
	URL string
	// Data is its data directory.
	Data string

	cmd     *exec.Cmd
	done    chan error
	logs    *os.File
	logPath string
}

// Options says how to start a host.
type Options struct {
	// Bin holds banmen and plugins/ (`make build` fills bin/).
	Bin string
	// Data is the data directory (rooms.db).
	Data string
	// Logs receives the host's log (stderr); "" discards it.
	Logs string
	// Args are extra flags, after the ones Start sets (the last of a flag wins).
	Args []string
	// Env is extra environment (BANMEN_CPUPROFILE=...).
	Env []string
}

var servingLine = regexp.MustCompile(`Banmen is serving on (\S+)`)

// Start starts the host on a free loopback port and waits (at most a
// minute) until it says where it serves.
func Start(ctx context.Context, o Options) (*Host, error) {
	bin, err := filepath.Abs(o.Bin)
	if err != nil {
		return nil, err
	}
	args := append([]string{"-host", "127.0.0.1", "-port", "0", "-data_dir", o.Data,
		"-plugin_dir", filepath.Join(bin, "plugins")}, o.Args...)
	cmd := exec.Command(filepath.Join(bin, "banmen"), args...)
	cmd.Dir = o.Data
	for _, kv := range os.Environ() { // a BANMEN_* variable would override the flags
		if !strings.HasPrefix(kv, "BANMEN_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, o.Env...)
	// Its own process group: an interrupt of the tool reaches it only
	// through Stop.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	h := &Host{Data: o.Data, cmd: cmd, done: make(chan error, 1), logPath: o.Logs}
	if o.Logs != "" {
		if h.logs, err = os.OpenFile(o.Logs, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err != nil {
			return nil, err
		}
		cmd.Stderr = h.logs
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start host: %w", err)
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
		io.Copy(io.Discard, out) // the host never blocks on its output
	}()
	go func() { h.done <- cmd.Wait() }()
	select {
	case h.URL = <-found:
		return h, nil
	case err := <-h.done:
		h.done <- err
		return nil, fmt.Errorf("the host exited before serving: %v (log: %s)", err, o.Logs)
	case <-time.After(time.Minute):
		h.Kill()
		return nil, errors.New("the host did not say where it serves within a minute")
	case <-ctx.Done():
		h.Kill()
		return nil, ctx.Err()
	}
}

// LogPath is the file that receives the host's log ("" when discarded).
func (h *Host) LogPath() string { return h.logPath }

// PID is the host's process ID.
func (h *Host) PID() int { return h.cmd.Process.Pid }

// Kill ends the host with SIGKILL and waits for it; its plugins die with
// it (the parent-death signal).
func (h *Host) Kill() {
	h.cmd.Process.Signal(syscall.SIGKILL)
	err := <-h.done
	h.done <- err
	if h.logs != nil {
		h.logs.Close()
	}
}

// Stop ends the host gracefully (SIGTERM; SIGKILL to its group after
// 20 s) and waits for it.
func (h *Host) Stop() error {
	h.cmd.Process.Signal(syscall.SIGTERM)
	var err error
	select {
	case err = <-h.done:
	case <-time.After(20 * time.Second):
		syscall.Kill(-h.cmd.Process.Pid, syscall.SIGKILL)
		err = <-h.done
		err = fmt.Errorf("the host did not stop within 20 s: %v", err)
	}
	h.done <- err
	if h.logs != nil {
		h.logs.Close()
	}
	return err
}

// stat is the part of /proc/PID/stat after the command name, and the name.
func stat(pid int) ([]string, string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, "", err
	}
	s := string(b)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return nil, "", fmt.Errorf("/proc/%d/stat: %q", pid, s)
	}
	return strings.Fields(s[end+1:]), s[open+1 : end], nil
}

// children lists the live (not zombie) child processes of pid by their
// command name (a plugin's is its file name, e.g. "shogi").
func children(pid int) (map[int]string, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	out := map[int]string{}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		f, comm, err := stat(p)
		if err != nil || len(f) < 2 || f[0] == "Z" {
			continue
		}
		if pp, _ := strconv.Atoi(f[1]); pp == pid {
			out[p] = comm
		}
	}
	return out, nil
}

// clockTicks is USER_HZ, the unit of /proc's CPU times: 100 on every Linux
// architecture Go runs on.
const clockTicks = 100

// CPU is the user+system CPU time process pid has used.
func CPU(pid int) (time.Duration, error) {
	f, _, err := stat(pid)
	if err != nil {
		return 0, err
	}
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	// Fields 14 and 15 of stat (utime, stime) are f[11], f[12] here.
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * time.Second / clockTicks, nil
}

// TreeCPU is the CPU time of pid and each of its live children, by command
// name ("" for pid itself; children of one name summed).
func TreeCPU(pid int) (map[string]time.Duration, error) {
	own, err := CPU(pid)
	if err != nil {
		return nil, err
	}
	out := map[string]time.Duration{"": own}
	kids, err := children(pid)
	if err != nil {
		return nil, err
	}
	for p, c := range kids {
		if d, err := CPU(p); err == nil {
			out[c] += d
		}
	}
	return out, nil
}

// RSS is the resident memory of process pid, in bytes.
func RSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("/proc/%d/status has no VmRSS", pid)
}

// BinDir is where the built host and plugins are (`make build` fills the
// repository's bin/): $BANMEN_BIN; else bin/ from the repository's root,
// or ../bin from tools/, whichever holds banmen; else "bin".
func BinDir(getenv func(string) string) string {
	if b := getenv("BANMEN_BIN"); b != "" {
		return b
	}
	for _, b := range []string{"bin", filepath.Join("..", "bin")} {
		if _, err := os.Stat(filepath.Join(b, "banmen")); err == nil {
			return b
		}
	}
	return "bin"
}

// Waits are how long the threads of a process tree waited on a CPU's run
// queue, runnable but not running (the second field of
// /proc/PID/task/TID/schedstat, summed over live threads): pid's own
// threads, its children at pid's niceness, and its children at a lower
// priority (a host's anonymous and analysis plugin processes).
type Waits struct {
	Own, Children, Niced time.Duration
}

// TreeWaits is Waits for pid and its live children.
func TreeWaits(pid int) (Waits, error) {
	var w Waits
	own, err := RunQueueWait(pid)
	if err != nil {
		return w, err
	}
	w.Own = own
	f, _, err := stat(pid)
	if err != nil || len(f) < 17 {
		return w, fmt.Errorf("/proc/%d/stat: %v", pid, err)
	}
	kids, err := children(pid)
	if err != nil {
		return w, err
	}
	for p := range kids {
		kf, _, err := stat(p)
		if err != nil || len(kf) < 17 {
			continue
		}
		d, err := RunQueueWait(p)
		if err != nil {
			continue
		}
		// Field 19 of stat, the niceness, is f[16] here.
		if kf[16] != f[16] {
			w.Niced += d
		} else {
			w.Children += d
		}
	}
	return w, nil
}

// RunQueueWait is how long the live threads of process pid have waited on
// a run queue.
func RunQueueWait(pid int) (time.Duration, error) {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	var sum time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile(filepath.Join(dir, t.Name(), "schedstat"))
		if err != nil {
			continue // the thread ended
		}
		f := strings.Fields(string(b))
		if len(f) < 2 {
			continue
		}
		ns, _ := strconv.ParseInt(f[1], 10, 64)
		sum += time.Duration(ns)
	}
	return sum, nil
}

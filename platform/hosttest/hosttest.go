// Package hosttest starts a real Banmen host for the browser tests and the
// harness: the built bin/banmen with its plugins, running the shipped
// configs/default.yaml, on a free loopback port with a temporary data
// directory. So every browser test sees the site users get (its variants and
// their order included), not built-in defaults. It must never reach into the
// host: it only starts the binary and reads the line saying where it serves.
package hosttest

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
	"strings"
	"syscall"
	"time"

	"github.com/banmen/banmen/configs"
)

// Host is a Banmen host started by Start.
type Host struct {
	// URL is where it serves ("http://127.0.0.1:41234").
	URL string

	cmd  *exec.Cmd
	dir  string
	done chan error
	logs *os.File
}

var servingLine = regexp.MustCompile(`Banmen is serving on (\S+)`)

// ServingURL reads a starting host's standard output and sends on the
// channel it returns the URL of the line where the host says it serves;
// the rest of the output is read and dropped, so the host never blocks on
// it. Anything that starts bin/banmen as a subprocess can wait on it.
func ServingURL(out io.Reader) <-chan string {
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
		io.Copy(io.Discard, out)
	}()
	return found
}

// args are the host's arguments: the shipped configuration (written to
// config) with only what a test host must change overridden, the listen
// address, the data directory and the plugin directory.
func args(config, data, bin string) []string {
	return []string{"-config", config, "-host", "127.0.0.1", "-port", "0",
		"-data_dir", data, "-plugin_dir", filepath.Join(bin, "plugins"),
		// Every test client is 127.0.0.1: the per-address limits are
		// raised, and /metrics gets a free port of its own.
		"-ops_addr", "127.0.0.1:0", "-limits.api_calls_per_minute", "100000",
		"-limits.suggests_per_minute", "100000", "-limits.sockets_per_minute", "100000"}
}

// Start starts bin/banmen with bin/plugins. An empty bin builds the host and
// every plugin into a temporary directory first (slow: minutes on two busy
// cores). The host's logs go to LogPath. The host inherits no BANMEN_*
// variable, which would override the configuration.
func Start(ctx context.Context, bin string) (*Host, error) { return StartWith(ctx, bin) }

// StartWith is Start with more of the host's flags after its own, which
// they override (the last of a flag wins): "-variants", "tictactoe" shows
// the template on the site; "-plugin_dir", dir loads other plugins.
func StartWith(ctx context.Context, bin string, flags ...string) (*Host, error) {
	dir, err := os.MkdirTemp("", "banmen-test-host-")
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*Host, error) {
		os.RemoveAll(dir)
		return nil, err
	}
	if bin == "" {
		bin = filepath.Join(dir, "bin")
		if err := Build(ctx, bin); err != nil {
			return fail(err)
		}
	} else if bin, err = filepath.Abs(bin); err != nil {
		return fail(err)
	}
	config := filepath.Join(dir, "default.yaml")
	if err := os.WriteFile(config, configs.Default, 0o644); err != nil {
		return fail(err)
	}
	logs, err := os.Create(filepath.Join(dir, "host.log"))
	if err != nil {
		return fail(err)
	}
	cmd := exec.Command(filepath.Join(bin, "banmen"), append(args(config, filepath.Join(dir, "data"), bin), flags...)...)
	cmd.Dir = dir
	cmd.Env = environ()
	cmd.Stderr = logs
	// Its own process group, so an interrupt of the tests reaches it only
	// through Stop, in order.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		logs.Close()
		return fail(err)
	}
	if err := cmd.Start(); err != nil {
		logs.Close()
		return fail(fmt.Errorf("start host: %w", err))
	}
	h := &Host{cmd: cmd, dir: dir, done: make(chan error, 1), logs: logs}
	found := ServingURL(out)
	go func() { h.done <- cmd.Wait() }()
	select {
	case h.URL = <-found:
		return h, nil
	case err := <-h.done:
		h.done <- err
		b, _ := os.ReadFile(logs.Name())
		h.Stop()
		return nil, fmt.Errorf("the host exited before serving (%v): %s", err, lastLines(string(b), 10))
	case <-time.After(60 * time.Second):
		h.Stop()
		return nil, errors.New("the host did not say where it serves within 60s")
	case <-ctx.Done():
		h.Stop()
		return nil, ctx.Err()
	}
}

// environ is this process's environment without the BANMEN_* variables.
func environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "BANMEN_") {
			env = append(env, kv)
		}
	}
	return env
}

// LogPath is the file that holds the host's logs.
func (h *Host) LogPath() string { return h.logs.Name() }

// Stop ends the host gracefully (SIGTERM, then SIGKILL after 10s) and
// removes its directory. Its plugins die with it.
func (h *Host) Stop() {
	if h.cmd.Process != nil {
		h.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-h.done:
			h.done <- err
		case <-time.After(10 * time.Second):
			syscall.Kill(-h.cmd.Process.Pid, syscall.SIGKILL)
			<-h.done
		}
	}
	h.logs.Close()
	os.RemoveAll(h.dir)
}

// Build compiles the host, every plugin of the module (plugins/*/main.go)
// and the example plugin into bin and bin/plugins, as `make build` does.
func Build(ctx context.Context, bin string) error {
	root, err := moduleRoot(ctx)
	if err != nil {
		return err
	}
	mains, _ := filepath.Glob(filepath.Join(root, "plugins", "*", "main.go"))
	if len(mains) == 0 {
		return fmt.Errorf("no plugins under %s/plugins", root)
	}
	build := func(dir, out, pkg string) error {
		cmd := exec.CommandContext(ctx, "go", "build", "-o", out, pkg)
		cmd.Dir = dir
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
		}
		return nil
	}
	if err := build(root, filepath.Join(bin, "banmen"), "./platform/cmd/banmen"); err != nil {
		return err
	}
	for _, m := range mains {
		name := filepath.Base(filepath.Dir(m))
		if err := build(root, filepath.Join(bin, "plugins", name), "./plugins/"+name); err != nil {
			return err
		}
	}
	// The example is served too unless the configuration leaves it out,
	// which is what a test host must show. Built from its own directory,
	// which may be a module of its own.
	examples, _ := filepath.Glob(filepath.Join(root, "sdk", "examples", "*", "cmd", "*", "main.go"))
	for _, m := range examples {
		name := filepath.Base(filepath.Dir(m))
		dir := filepath.Dir(filepath.Dir(filepath.Dir(m)))
		if err := build(dir, filepath.Join(bin, "plugins", name), "./cmd/"+name); err != nil {
			return err
		}
	}
	return nil
}

func moduleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("not inside the banmen module: give a -bin directory or a -base URL")
	}
	return filepath.Dir(mod), nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

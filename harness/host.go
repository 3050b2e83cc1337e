package harness

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
)

// Host is a Banmen host the harness started: on a free port, with a
// temporary data directory and the plugins of a bin directory.
type Host struct {
	// URL is where it serves ("http://localhost:41234").
	URL string

	cmd  *exec.Cmd
	data string
	done chan error
	logs *os.File
}

var servingLine = regexp.MustCompile(`Banmen is serving on (\S+)`)

// StartHost starts bin/banmen with bin/plugins. An empty bin builds the host
// and every plugin of the module into a temporary directory first (slow: a
// minute on two cores). The host's logs go to a file in its data directory,
// LogPath.
func StartHost(ctx context.Context, bin string) (*Host, error) {
	data, err := os.MkdirTemp("", "banmen-harness-host-")
	if err != nil {
		return nil, err
	}
	if bin == "" {
		bin = filepath.Join(data, "bin")
		if err := Build(ctx, bin); err != nil {
			os.RemoveAll(data)
			return nil, err
		}
	}
	logs, err := os.Create(filepath.Join(data, "host.log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(filepath.Join(bin, "banmen"), "-port", "0",
		"-plugin_dir", filepath.Join(bin, "plugins"), "-data_dir", filepath.Join(data, "data"))
	cmd.Stderr = logs
	// Its own process group, so an interrupt of the harness reaches it
	// only through Stop, in order.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		logs.Close()
		os.RemoveAll(data)
		return nil, fmt.Errorf("start host: %w", err)
	}
	h := &Host{cmd: cmd, data: data, done: make(chan error, 1), logs: logs}
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

// LogPath is the file that holds the host's logs.
func (h *Host) LogPath() string { return h.logs.Name() }

// Stop ends the host gracefully (SIGTERM, then SIGKILL after 10s) and
// removes its data directory. Its plugins die with it.
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
	os.RemoveAll(h.data)
}

// Build compiles the host and every plugin of the module (plugins/*/main.go)
// into bin and bin/plugins, as `make build` does.
func Build(ctx context.Context, bin string) error {
	root, err := moduleRoot(ctx)
	if err != nil {
		return err
	}
	mains, _ := filepath.Glob(filepath.Join(root, "plugins", "*", "main.go"))
	if len(mains) == 0 {
		return fmt.Errorf("no plugins under %s/plugins", root)
	}
	build := func(out, pkg string) error {
		cmd := exec.CommandContext(ctx, "go", "build", "-o", out, pkg)
		cmd.Dir = root
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
		}
		return nil
	}
	if err := build(filepath.Join(bin, "banmen"), "./platform/cmd/banmen"); err != nil {
		return err
	}
	for _, m := range mains {
		name := filepath.Base(filepath.Dir(m))
		if err := build(filepath.Join(bin, "plugins", name), "./plugins/"+name); err != nil {
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

package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// stuckPage is a page whose screenshot never comes (a renderer too busy).
type stuckPage struct{ page }

func (stuckPage) eval(context.Context, string) (json.RawMessage, error) {
	return json.RawMessage("[]"), nil
}

func (stuckPage) screenshot(ctx context.Context) ([]byte, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestMissingScreenshot: a failure's screenshot that cannot be taken is no
// silent hole: the result says which is missing and why, in its log line
// and its reports, and the other artifacts (console, host log) are written.
func TestMissingScreenshot(t *testing.T) {
	dir := t.TempDir()
	logf := filepath.Join(dir, "banmen.log")
	if err := os.WriteFile(logf, []byte("before the scenario\nduring it\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sc := &Scenario{Name: "slow", Variant: "shogi", Actors: []Actor{{Name: "host"}}}
	cfg := &Config{StepTimeout: 50 * time.Millisecond, HostLog: logf}
	b := &browser{actor: sc.Actors[0], engine: "chromium"}
	b.tabs = []*tab{{n: 1, p: stuckPage{}, ctx: context.Background()}}
	s := &session{sc: sc, cfg: cfg, browsers: map[string]*browser{"host": b}}
	out := filepath.Join(dir, "out")
	files, missing := s.artifacts(context.Background(), out, int64(len("before the scenario\n")))
	if len(missing) != 1 || !strings.Contains(missing[0], "host-tab1.png: no screenshot of host's tab 1 (chromium): context deadline exceeded") {
		t.Errorf("missing %q", missing)
	}
	if len(files) != 2 {
		t.Errorf("files %v, want the console and host.log", files)
	}
	if got, _ := os.ReadFile(filepath.Join(out, "host.log")); string(got) != "during it\n" {
		t.Errorf("host.log %q, want only what the host wrote during the attempt", got)
	}
	r := Result{Scenario: sc, Err: errors.New("step 1 (line 3, expect): ply: want 1, got 0"), Artifacts: files, Missing: missing, Attempts: 1}
	if l := r.line(); !strings.Contains(l, "missing: host-tab1.png: no screenshot") {
		t.Errorf("log line %q", l)
	}
	for name, write := range map[string]func(*bytes.Buffer) error{
		"JUnit": func(w *bytes.Buffer) error { return Summary{Results: []Result{r}}.WriteJUnit(w) },
		"HTML":  func(w *bytes.Buffer) error { return Summary{Results: []Result{r}}.WriteHTML(w) },
	} {
		var x bytes.Buffer
		if err := write(&x); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(x.String(), "missing: host-tab1.png: no screenshot") {
			t.Errorf("the %s report does not say the screenshot is missing:\n%s", name, x.String())
		}
	}
}

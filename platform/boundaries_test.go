// Package platform_test checks the module's boundaries (DESIGN.md): plugins
// import only the sdk, the sdk imports neither the platform nor the plugins,
// and the platform and the web UI know no game rule (import no plugin).
package platform_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

func TestBoundaries(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps=false", "-json", "github.com/banmen/banmen/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const mod = "github.com/banmen/banmen/"
	dec := json.NewDecoder(strings.NewReader(string(out)))
	checked := 0
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		checked++
		rel := strings.TrimPrefix(p.ImportPath, mod)
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, mod) {
				continue
			}
			dep := strings.TrimPrefix(imp, mod)
			switch {
			case strings.HasPrefix(rel, "plugins/"):
				own := strings.Join(strings.SplitN(rel, "/", 3)[:2], "/")
				if !strings.HasPrefix(dep, "sdk") && !strings.HasPrefix(dep, own) {
					t.Errorf("%s imports %s: plugins import only sdk and their own packages", rel, dep)
				}
				if strings.HasPrefix(dep, "sdk/examples") {
					t.Errorf("%s imports %s: plugins do not build on the examples", rel, dep)
				}
			case strings.HasPrefix(rel, "sdk"):
				if strings.HasPrefix(dep, "platform") || strings.HasPrefix(dep, "plugins") {
					t.Errorf("%s imports %s: the sdk imports neither platform nor plugins", rel, dep)
				}
			case strings.HasPrefix(rel, "platform"), strings.HasPrefix(rel, "webui"), strings.HasPrefix(rel, "harness"):
				if strings.HasPrefix(dep, "plugins") {
					t.Errorf("%s imports %s: the host, the browser and the harness know no game rule", rel, dep)
				}
			}
		}
	}
	if checked < 5 {
		t.Fatalf("only %d packages listed", checked)
	}
}

// Package tools_test keeps the tools apart from the product's tests: no
// tool, nor any package of the repository it builds on, is or imports a
// test helper (a ...test package, an sdk example, the testing package), and
// no tool imports an internal package of the product.
package tools_test

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

func TestToolsImportNoTestHelper(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-json", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const mod, own = "github.com/banmen/banmen/", "github.com/banmen/banmen/tools/"
	type pkg struct {
		ImportPath string
		Name       string
		Imports    []string
		Deps       []string
	}
	imports := map[string][]string{} // every package listed, the dependencies too
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		imports[p.ImportPath] = p.Imports
		pkgs = append(pkgs, p)
	}
	tools := 0
	for _, p := range pkgs {
		if !strings.HasPrefix(p.ImportPath, own) {
			continue
		}
		if p.Name == "main" {
			tools++
		}
		for _, dep := range append(p.Deps, p.ImportPath) {
			rel, ours := strings.CutPrefix(dep, mod)
			if !ours {
				continue // another module's (go-plugin's own imports include testing)
			}
			if strings.HasSuffix(rel, "test") || strings.HasPrefix(rel, "sdk/examples/") {
				t.Errorf("%s builds on %s, a test helper or an example", p.ImportPath, dep)
			}
			if slices.Contains(imports[dep], "testing") {
				t.Errorf("%s builds on %s, which imports testing", p.ImportPath, dep)
			}
		}
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, mod) && !strings.HasPrefix(imp, own) && strings.Contains(imp, "/internal/") {
				t.Errorf("%s imports %s, an internal package of the product", p.ImportPath, imp)
			}
		}
	}
	if tools < 5 {
		t.Fatalf("only %d commands listed", tools)
	}
}

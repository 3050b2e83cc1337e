package platform_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// capabilityMethods are the optional capabilities of package sdk by their
// method's name.
var capabilityMethods = map[string]string{
	"Suggest":  "Suggester",
	"Rewind":   "Rewinder",
	"ExportIn": "LocalExporter",
	"Perft":    "Perfter",
	"Divide":   "Divider",
}

// variantPackage is what one package declares about its type Variant: the
// capability methods it has, the capabilities it guards at compile time
// (var _ sdk.Suggester = Variant{}), and the packages whose Variant it embeds.
type variantPackage struct {
	methods map[string]bool // capability names
	guards  map[string]bool
	embeds  []string // import names of the embedded Variants' packages ("rules")
}

func readVariantPackage(t *testing.T, dir string) *variantPackage {
	t.Helper()
	vp := &variantPackage{methods: map[string]bool{}, guards: map[string]bool{}}
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil || len(d.Recv.List) != 1 {
					continue
				}
				recv := d.Recv.List[0].Type
				if s, ok := recv.(*ast.StarExpr); ok {
					recv = s.X
				}
				if id, ok := recv.(*ast.Ident); ok && id.Name == "Variant" {
					if c, ok := capabilityMethods[d.Name.Name]; ok {
						vp.methods[c] = true
					}
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.ValueSpec:
						sel, ok := s.Type.(*ast.SelectorExpr)
						if ok && len(s.Names) == 1 && s.Names[0].Name == "_" {
							if x, ok := sel.X.(*ast.Ident); ok && x.Name == "sdk" {
								vp.guards[sel.Sel.Name] = true
							}
						}
					case *ast.TypeSpec:
						st, ok := s.Type.(*ast.StructType)
						if !ok || s.Name.Name != "Variant" {
							continue
						}
						for _, field := range st.Fields.List {
							if sel, ok := field.Type.(*ast.SelectorExpr); ok && len(field.Names) == 0 && sel.Sel.Name == "Variant" {
								if x, ok := sel.X.(*ast.Ident); ok {
									vp.embeds = append(vp.embeds, x.Name)
								}
							}
						}
					}
				}
			}
		}
	}
	return vp
}

// TestCapabilityGuards: every built-in plugin's and example's Variant
// guards, at compile time, each optional capability it has, declared in its
// package or embedded from its rules package (docs/plugins.md, "Capability
// guards"). Without a guard, a capability method whose signature drifts from
// the sdk's compiles and silently stops being the capability.
func TestCapabilityGuards(t *testing.T) {
	var dirs []string
	for _, pattern := range []string{"../plugins/*/rules", "../plugins/*/engine", "../sdk/examples/tictactoe", "../sdk/examples/connect4"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, m...)
	}
	if len(dirs) < 8 {
		t.Fatalf("only %d plugin and example packages found: %v", len(dirs), dirs)
	}
	pkgs := map[string]*variantPackage{}
	for _, dir := range dirs {
		pkgs[dir] = readVariantPackage(t, dir)
	}
	checked := 0
	for _, dir := range dirs {
		vp := pkgs[dir]
		need := map[string]string{}
		for c := range vp.methods {
			need[c] = "its method"
		}
		for _, e := range vp.embeds {
			inner, ok := pkgs[filepath.Join(filepath.Dir(dir), e)]
			if !ok {
				continue
			}
			for c := range inner.methods {
				need[c] = "embedded from " + e
			}
			for c := range inner.guards {
				if c != "Variant" {
					need[c] = "embedded from " + e
				}
			}
		}
		if len(vp.methods) > 0 || len(vp.embeds) > 0 {
			checked++
			if !vp.guards["Variant"] {
				t.Errorf("%s: no var _ sdk.Variant = Variant{} guard", dir)
			}
		}
		var missing []string
		for c, why := range need {
			if !vp.guards[c] {
				missing = append(missing, "sdk."+c+" ("+why+")")
			}
		}
		slices.Sort(missing)
		if len(missing) > 0 {
			t.Errorf("%s: Variant has no compile-time guard for %s", dir, strings.Join(missing, ", "))
		}
	}
	if checked < 6 {
		t.Fatalf("only %d packages declare a Variant with capabilities", checked)
	}
	if _, err := os.Stat("../sdk/examples/tictactoe/tictactoe.go"); err != nil {
		t.Fatal(err)
	}
}

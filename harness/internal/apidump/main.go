// Command apidump prints the exported API of Go packages, one declaration a
// line, sorted: what scripts/harness-api.sh keeps in harness/api.txt and
// compares, so that a change of the harness library's API is seen and
// recorded. It reads the source alone (go/ast): exported functions, methods
// of exported types, exported types (a struct's exported fields, an
// interface's methods, each its own line), constants and variables. Doc
// comments and unexported names are left out, so only what a user's code
// can depend on changes the listing.
//
//	go run ./harness/internal/apidump DIR...
package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: apidump DIR...")
		os.Exit(2)
	}
	var lines []string
	for _, dir := range os.Args[1:] {
		ls, err := dump(dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, "apidump:", err)
			os.Exit(1)
		}
		lines = append(lines, ls...)
	}
	sort.Strings(lines)
	fmt.Print(strings.Join(lines, "\n") + "\n")
}

// dump lists the exported API of the package in dir (its non-test files).
func dump(dir string) ([]string, error) {
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	var pkg string
	var out []string
	str := func(n any) string {
		var b bytes.Buffer
		printer.Fprint(&b, fset, n)
		return strings.Join(strings.Fields(b.String()), " ")
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		if file.Name.Name == "main" {
			continue
		}
		pkg = file.Name.Name
		for _, d := range file.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				recv := ""
				if d.Recv != nil && len(d.Recv.List) > 0 {
					t := d.Recv.List[0].Type
					if s, ok := t.(*ast.StarExpr); ok {
						t = s.X
					}
					if id, ok := t.(*ast.Ident); !ok || !id.IsExported() {
						continue
					}
					recv = "(" + str(d.Recv.List[0].Type) + ") "
				}
				out = append(out, fmt.Sprintf("%s: func %s%s%s", pkg, recv, d.Name.Name, strings.TrimPrefix(str(d.Type), "func")))
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						alias := ""
						if s.Assign.IsValid() {
							alias = "= "
						}
						switch t := s.Type.(type) {
						case *ast.StructType:
							out = append(out, fmt.Sprintf("%s: type %s struct", pkg, s.Name.Name))
							for _, fl := range t.Fields.List {
								for _, n := range fl.Names {
									if n.IsExported() {
										out = append(out, fmt.Sprintf("%s: field %s.%s %s", pkg, s.Name.Name, n.Name, str(fl.Type)))
									}
								}
								if len(fl.Names) == 0 {
									out = append(out, fmt.Sprintf("%s: embedded %s.%s", pkg, s.Name.Name, str(fl.Type)))
								}
							}
						case *ast.InterfaceType:
							out = append(out, fmt.Sprintf("%s: type %s interface", pkg, s.Name.Name))
							for _, m := range t.Methods.List {
								for _, n := range m.Names {
									if n.IsExported() {
										out = append(out, fmt.Sprintf("%s: method %s.%s%s", pkg, s.Name.Name, n.Name, strings.TrimPrefix(str(m.Type), "func")))
									}
								}
							}
						default:
							out = append(out, fmt.Sprintf("%s: type %s %s%s", pkg, s.Name.Name, alias, str(s.Type)))
						}
					case *ast.ValueSpec:
						kind := "var"
						if d.Tok == token.CONST {
							kind = "const"
						}
						for _, n := range s.Names {
							if !n.IsExported() {
								continue
							}
							typ := ""
							if s.Type != nil {
								typ = " " + str(s.Type)
							}
							out = append(out, fmt.Sprintf("%s: %s %s%s", pkg, kind, n.Name, typ))
						}
					}
				}
			}
		}
	}
	return out, nil
}

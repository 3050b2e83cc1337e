package sdk_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The sdk's shape: a plugin author sees only the contract (sdk), Serve
// (sdk/serve) and, if they opt in, statecache; the host's side and the wire
// stay out of their way. Checked on
// the import graph, so a convenience import that drags go-plugin into the
// contract fails here.
func TestShape(t *testing.T) {
	deps := func(pkg string) map[string]bool {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		m := map[string]bool{}
		for _, p := range strings.Fields(string(out)) {
			m[p] = true
		}
		return m
	}
	const mod = "github.com/banmen/banmen/"
	for _, c := range []struct {
		pkg       string
		forbidden []string
	}{
		{mod + "sdk", []string{"github.com/hashicorp/go-plugin", "google.golang.org/grpc",
			"google.golang.org/protobuf/proto", mod + "sdk/internal/wire", mod + "sdk/internal/channel",
			mod + "sdk/host", mod + "sdk/serve"}},
		{mod + "sdk/serve", []string{mod + "sdk/host"}},
		{mod + "sdk/host", []string{mod + "sdk/serve", mod + "sdk/internal/server"}},
		{mod + "sdk/statecache", []string{"github.com/hashicorp/go-plugin", "google.golang.org/grpc",
			mod + "sdk/internal/wire", mod + "sdk/host", mod + "sdk/serve"}},
	} {
		d := deps(c.pkg)
		for _, f := range c.forbidden {
			if d[f] {
				t.Errorf("%s imports %s", c.pkg, f)
			}
		}
		for p := range d {
			if strings.HasPrefix(p, mod+"platform") || strings.HasPrefix(p, mod+"plugins") {
				t.Errorf("%s imports %s", c.pkg, p)
			}
		}
	}
}

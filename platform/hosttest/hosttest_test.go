package hosttest_test

import (
	"encoding/json"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/banmen/banmen/configs"
	"github.com/banmen/banmen/platform/hosttest"
)

// TestShippedConfiguration: the test host is the site users get. It shows
// the variants configs/default.yaml lists, in its order, and no other (the
// example tictactoe plugin sits in bin/plugins but is not listed), and it
// listens on loopback only.
func TestShippedConfiguration(t *testing.T) {
	if testing.Short() && os.Getenv("BANMEN_BIN") == "" {
		t.Skip("-short and no BANMEN_BIN: building the host and its plugins takes minutes")
	}
	var shipped struct {
		Variants []string `yaml:"variants"`
	}
	if err := yaml.Unmarshal(configs.Default, &shipped); err != nil {
		t.Fatal(err)
	}
	if len(shipped.Variants) == 0 {
		t.Fatal("configs/default.yaml lists no variants: this test would prove nothing")
	}
	h, err := hosttest.Start(t.Context(), os.Getenv("BANMEN_BIN"))
	if err != nil {
		t.Fatal(err)
	}
	defer h.Stop()
	if !strings.HasPrefix(h.URL, "http://127.0.0.1:") {
		t.Errorf("the test host serves on %s, want loopback", h.URL)
	}
	res, err := http.Get(h.URL + "/api/v1/variants")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var list []struct {
		ID string `json:"id"`
	}
	if err := json.NewDecoder(res.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range list {
		ids = append(ids, d.ID)
	}
	if !slices.Equal(ids, shipped.Variants) {
		t.Errorf("the test host lists %v, want %v as configs/default.yaml says", ids, shipped.Variants)
	}
}

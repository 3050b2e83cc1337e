package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// TestLoadYoninSmoke keeps `load yonin` working: two Yonin rooms with two
// computer seats each beside two shogi rooms, for a second. Its figures are
// printed, not judged; the run must end without errors.
func TestLoadYoninSmoke(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, errs bytes.Buffer
	err := runYonin(ctx, []string{"-bin", binDir(t), "-yonin", "2", "-rooms", "2", "-level", "easy", "-duration", "1s"},
		func(string) string { return "" }, &out, &errs)
	t.Log("\n" + out.String())
	if err != nil {
		t.Fatalf("%v\n%s", err, errs.String())
	}
	for _, want := range []string{"2-player rooms:", "Yonin rooms:", "computer moves:", "errors:          0"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the output lacks %q", want)
		}
	}
}

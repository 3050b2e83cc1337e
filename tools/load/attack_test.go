package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// TestAttackSmoke keeps the attack mode working: four rooms for a second
// alone and a second under floods from the one address and two others.
// Its figures are printed, not judged; the rooms must have no refusal.
func TestAttackSmoke(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, errs bytes.Buffer
	err := runAttack(ctx, []string{"-bin", binDir(t), "-rooms", "4", "-duration", "1s", "-loops", "1", "-addrs", "2"},
		func(string) string { return "" }, &out, &errs)
	t.Log("\n" + out.String())
	if err != nil {
		t.Fatalf("%v\n%s", err, errs.String())
	}
	for _, want := range []string{"alone ", "under the floods ", "import 22,000 plies", "socket churn"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the output lacks %q", want)
		}
	}
	for _, l := range strings.Split(out.String(), "\n") {
		if (strings.HasPrefix(l, "alone ") || strings.HasPrefix(l, "under the floods ")) && strings.Contains(l, "refused") {
			t.Errorf("a room was refused: %s", l)
		}
	}
}

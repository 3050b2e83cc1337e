package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// TestMain is also the flood process of the attack mode's test:
// floodCommand runs this test binary again as "attack-flood".
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "attack-flood" {
		if err := runFlood(context.Background(), os.Args[2:], os.Stdin, os.Stdout, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, "load attack-flood:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestAttackSmoke keeps the attack mode working: four rooms for a second
// alone and a second under floods from the one address and two others,
// twice. Its figures are printed, not judged; the rooms must have no
// refusal, and the flood process must have got answers.
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
	for _, want := range []string{"1 alone ", "2 under the floods ", "3 alone ", "4 under the floods ", "import 22,000 plies", "socket churn", "/s: "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the output lacks %q", want)
		}
	}
	for _, l := range strings.Split(out.String(), "\n") {
		if (strings.Contains(l, "alone ") || strings.Contains(l, "under the floods ")) && strings.Contains(l, "refused") {
			t.Errorf("a room was refused: %s", l)
		}
	}
}

package sdk_test

import (
	"context"
	"testing"
	"time"

	"github.com/banmen/banmen/sdk"
)

func TestScoreString(t *testing.T) {
	for _, tc := range []struct {
		s    sdk.Score
		want string
	}{{sdk.Score{CP: 125}, "+1.25"}, {sdk.Score{CP: -40}, "-0.40"}, {sdk.Score{Mate: 3}, "#3"}, {sdk.Score{Mate: -2}, "#-2"}} {
		if got := tc.s.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.s, got, tc.want)
		}
	}
	if n := (sdk.Score{Seat: 0, CP: 30, Mate: 0}).Negate(1); n != (sdk.Score{Seat: 1, CP: -30}) {
		t.Errorf("Negate: %+v", n)
	}
}

func TestLimitDeadline(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if d := (sdk.Limit{Nodes: 5}).Deadline(context.Background(), start); !d.IsZero() {
		t.Errorf("no time, no deadline: %v", d)
	}
	if d := (sdk.Limit{Time: time.Second}).Deadline(context.Background(), start); !d.Equal(start.Add(time.Second)) {
		t.Errorf("a second: %v", d)
	}
	// The caller's deadline wins, less a fifth of the time left (at most
	// 100 ms) for the answer's way back.
	ctx, cancel := context.WithDeadline(context.Background(), start.Add(200*time.Millisecond))
	defer cancel()
	if d := (sdk.Limit{Time: time.Second}).Deadline(ctx, start); !d.Equal(start.Add(160 * time.Millisecond)) {
		t.Errorf("a caller's 200 ms: %v", d.Sub(start))
	}
	if !(sdk.Limit{}).IsZero() || (sdk.Limit{Depth: 1}).IsZero() {
		t.Error("IsZero")
	}
}

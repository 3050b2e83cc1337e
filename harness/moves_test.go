package harness

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// spotPage is a page whose element is at each of spots in turn, one
// reading a frame: it moves only when the page has drawn a frame.
type spotPage struct {
	page
	spots  []point
	i      int
	frames int
}

func (p *spotPage) eval(_ context.Context, js string) (json.RawMessage, error) {
	if !strings.HasPrefix(js, jsCenter) {
		return nil, errors.New("unexpected script")
	}
	return json.Marshal(p.spots[min(p.i, len(p.spots)-1)])
}

func (p *spotPage) exec(_ context.Context, js string) error {
	if js != jsFrameBy {
		return errors.New("unexpected script")
	}
	p.frames++
	p.i++
	return nil
}

func TestSteadyCenter(t *testing.T) {
	a, b := point{X: 10, Y: 20, W: 5, H: 5}, point{X: 10, Y: 48, W: 5, H: 5}
	// Still across a frame: that reading.
	p := &spotPage{spots: []point{a, b, b}}
	got, err := steadyCenter(&tab{p: p, ctx: t.Context()}, ".cell")
	if err != nil || got != b {
		t.Errorf("an element moving once: %v, %v; want %v", got, err, b)
	}
	// Two readings agree only a frame apart, not within one.
	if p.frames != 2 {
		t.Errorf("%d frames waited, want 2", p.frames)
	}
	// Never still: an error naming where it was, not its last place.
	var moving []point
	for i := range 10 {
		moving = append(moving, point{X: 10, Y: float64(20 + i), W: 5, H: 5})
	}
	p = &spotPage{spots: moving}
	got, err = steadyCenter(&tab{p: p, ctx: t.Context()}, ".cell")
	if err == nil || !strings.Contains(err.Error(), "never kept still") {
		t.Errorf("an element never still: %v, %v; want an error", got, err)
	}
}

package sdktest

import (
	"fmt"
	"runtime/debug"
	"testing"
)

// testConcurrent replays a game from several goroutines at once: the rules
// must keep no shared mutable state.
func (s *suite) testConcurrent(t *testing.T) {
	if len(s.games) == 0 {
		t.Skip("no game played")
	}
	g := s.games[0]
	want := g.views[len(g.views)-1]
	const workers = 4
	errs := make(chan string, workers)
	for w := range workers {
		go func() {
			defer func() {
				if r := recover(); r != nil {
					errs <- fmt.Sprintf("worker %d panicked: %v\n%s", w, r, debug.Stack())
				}
			}()
			st, v, err := s.v.Start(g.opts)
			if err != nil {
				errs <- fmt.Sprintf("worker %d: Start: %v", w, err)
				return
			}
			for _, m := range g.moves {
				if st, v, err = s.v.Play(st, m.Seat, m.Move); err != nil {
					errs <- fmt.Sprintf("worker %d: Play(%q): %v", w, m.Move, err)
					return
				}
			}
			if diff := diffViews(want, v); diff != "" {
				errs <- fmt.Sprintf("worker %d: the same moves gave another game: %s", w, diff)
				return
			}
			errs <- ""
		}()
	}
	for range workers {
		if e := <-errs; e != "" {
			t.Error(e)
		}
	}
}

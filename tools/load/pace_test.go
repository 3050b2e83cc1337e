package main

import (
	"container/heap"
	"sync"
	"testing"
	"time"
)

// BenchmarkPace compares ways for 1000 rooms to wait for their moves' due
// times at 10,000 moves/s in all (-rate): each room's goroutine sleeping
// (time.Sleep, what play does); one scheduler goroutine with a heap of due
// times waking the rooms through channels at each due time; and the same
// waking every millisecond whatever is due by then (a time wheel's
// batching). It reports the process's CPU per wait and how late the waits
// end on average.
func BenchmarkPace(b *testing.B) {
	const rooms, rate = 1000, 10_000.0
	for _, bc := range []struct {
		name string
		wait func(*heapScheduler, chan struct{}, time.Time)
	}{
		{"sleep", func(_ *heapScheduler, _ chan struct{}, due time.Time) {
			if d := time.Until(due); d > 0 {
				time.Sleep(d)
			}
		}},
		{"scheduler", (*heapScheduler).wait},
		{"ticker", (*heapScheduler).wait},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s := newHeapScheduler(bc.name == "ticker")
			defer s.stop()
			iv := interval(rooms, rate)
			per := max(b.N/rooms, 1)
			var lateSum time.Duration
			var mu sync.Mutex
			var wg sync.WaitGroup
			cpu0 := selfCPU()
			start := time.Now()
			for i := range rooms {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ch := make(chan struct{}, 1)
					due := start.Add(time.Duration(int64(iv) * int64(i) / rooms))
					var late time.Duration
					for range per {
						bc.wait(s, ch, due)
						late += time.Since(due)
						due = due.Add(iv)
					}
					mu.Lock()
					lateSum += late
					mu.Unlock()
				}()
			}
			wg.Wait()
			n := per * rooms
			b.ReportMetric(float64(selfCPU()-cpu0)/float64(n)/1e3, "cpu-µs/wait")
			b.ReportMetric(float64(lateSum)/float64(n)/1e3, "late-µs/wait")
		})
	}
}

// heapScheduler is the alternative BenchmarkPace measures: one goroutine
// waking each waiter at its due time.
type heapScheduler struct {
	mu   sync.Mutex
	h    dueHeap
	wake chan struct{}
	done chan struct{}
}

type dueEntry struct {
	due time.Time
	ch  chan struct{}
}

type dueHeap []dueEntry

func (h dueHeap) Len() int           { return len(h) }
func (h dueHeap) Less(i, j int) bool { return h[i].due.Before(h[j].due) }
func (h dueHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *dueHeap) Push(x any)        { *h = append(*h, x.(dueEntry)) }
func (h *dueHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

// newHeapScheduler starts one; tick: it wakes every millisecond and
// releases what is due (a time wheel's batching), else at each due time.
func newHeapScheduler(tick bool) *heapScheduler {
	s := &heapScheduler{wake: make(chan struct{}, 1), done: make(chan struct{})}
	if tick {
		go s.tick()
	} else {
		go s.run()
	}
	return s
}

func (s *heapScheduler) tick() {
	t := time.NewTicker(time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-s.wake:
			continue
		case <-s.done:
			return
		}
		now := time.Now()
		s.mu.Lock()
		for len(s.h) > 0 && !s.h[0].due.After(now) {
			heap.Pop(&s.h).(dueEntry).ch <- struct{}{}
		}
		s.mu.Unlock()
	}
}

func (s *heapScheduler) stop() { close(s.done) }

// wait blocks until due (ch is the waiter's own, buffered 1).
func (s *heapScheduler) wait(ch chan struct{}, due time.Time) {
	if !time.Now().Before(due) {
		return
	}
	s.mu.Lock()
	heap.Push(&s.h, dueEntry{due, ch})
	first := s.h[0].ch == ch
	s.mu.Unlock()
	if first {
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
	<-ch
}

func (s *heapScheduler) run() {
	t := time.NewTimer(time.Hour)
	for {
		now := time.Now()
		next := time.Duration(-1)
		s.mu.Lock()
		for len(s.h) > 0 {
			if d := s.h[0].due.Sub(now); d > 0 {
				next = d
				break
			}
			heap.Pop(&s.h).(dueEntry).ch <- struct{}{}
		}
		s.mu.Unlock()
		if next < 0 {
			next = time.Hour
		}
		t.Reset(next)
		select {
		case <-t.C:
		case <-s.wake:
		case <-s.done:
			return
		}
	}
}

//go:build unix

package channel

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// BenchmarkCalls: N callers at once against a trivial plugin (it echoes a
// 300-byte request) over a real Unix socket, through the multiplexed lane
// (its writes made by the callers, or by a goroutine). Besides ns/op it reports the CPU time
// of the whole process (both sides) per call, from getrusage: on a busy
// machine that is the figure to compare.
//
//	go test -run '^$' -bench Calls -benchtime 20000x ./internal/channel
func BenchmarkCalls(b *testing.B) {
	e := echo{release: make(chan struct{})}
	defer close(e.release)
	cs, err := Listen(e.handle)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	type caller interface {
		Call(context.Context, byte, proto.Message, proto.Message) error
		Close()
	}
	clients := []struct {
		name string
		new  func() caller
	}{
		{"lane", func() caller { return NewLane(cs.Addr(), cs.Token()) }},
		{"lane-writer-goroutine", func() caller {
			l := NewLane(cs.Addr(), cs.Token())
			l.viaGoroutine = true
			return l
		}},
	}
	req := wrapperspb.Bytes([]byte(strings.Repeat("r", 300)))
	for _, n := range []int{1, 16, 256} {
		for _, c := range clients {
			b.Run(fmt.Sprintf("%s/callers=%d", c.name, n), func(b *testing.B) {
				ch := c.new()
				defer ch.Close()
				if err := ch.Call(context.Background(), CallPlay, req, new(wrapperspb.BytesValue)); err != nil {
					b.Fatal(err)
				}
				var left atomic.Int64
				left.Store(int64(b.N))
				var wg sync.WaitGroup
				cpu0 := cpuTime()
				b.ResetTimer()
				for range n {
					wg.Go(func() {
						resp := new(wrapperspb.BytesValue)
						for left.Add(-1) >= 0 {
							if err := ch.Call(context.Background(), CallPlay, req, resp); err != nil {
								b.Error(err)
								return
							}
						}
					})
				}
				wg.Wait()
				b.StopTimer()
				b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/call")
			})
		}
	}
}

// cpuTime is the user and system CPU time of this process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

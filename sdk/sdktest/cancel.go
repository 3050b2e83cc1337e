package sdktest

import (
	"context"
	"sync/atomic"
)

// PollCancel is a context without a deadline that is cancelled at its
// At-th Err call: a deadline passing in the middle of a search, with no
// clock in the test. An engine's test gives it to Suggest and then reads
// Polls to see that the search stopped at (or just after) the look that saw
// the end, whatever the machine's speed.
type PollCancel struct {
	context.Context
	// At is the Err call that cancels the context.
	At     int64
	cancel context.CancelFunc
	polls  atomic.Int64
}

// CancelAtPoll returns a context cancelled at its n-th Err call.
func CancelAtPoll(n int64) *PollCancel {
	ctx, cancel := context.WithCancel(context.Background())
	return &PollCancel{Context: ctx, cancel: cancel, At: n}
}

// Err counts the call, cancels the context at the At-th, and reports
// whether it has ended.
func (c *PollCancel) Err() error {
	if c.polls.Add(1) == c.At {
		c.cancel()
	}
	return c.Context.Err()
}

// Polls is how often Err was called.
func (c *PollCancel) Polls() int64 { return c.polls.Load() }

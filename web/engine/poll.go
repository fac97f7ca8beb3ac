package engine

import (
	"context"
	"runtime"
	"sync"
	"time"
)

// pollContext is a context whose deadline is checked by the clock each
// time the search asks for Done or Err, instead of by a timer. Under
// GOOS=js the search's goroutine is never preempted, so no timer fires
// while it runs: a context.WithTimeout would never end it and the
// progress goroutine would never run. pollContext also yields to the
// scheduler (runtime.Gosched) at most every yieldEvery, so that the
// progress monitor gets its turn.
type pollContext struct {
	context.Context
	deadline time.Time
	done     chan struct{}
	once     sync.Once
	mu       sync.Mutex
	err      error
	yielded  time.Time
}

const yieldEvery = 200 * time.Millisecond

func newPollContext(parent context.Context, timeout time.Duration) *pollContext {
	now := time.Now()
	return &pollContext{Context: parent, deadline: now.Add(timeout), done: make(chan struct{}), yielded: now}
}

func (c *pollContext) Deadline() (time.Time, bool) { return c.deadline, true }

func (c *pollContext) Done() <-chan struct{} {
	c.poll()
	return c.done
}

func (c *pollContext) Err() error {
	c.poll()
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// poll ends the context when the parent is done or the deadline passed.
func (c *pollContext) poll() {
	now := time.Now()
	var err error
	select {
	case <-c.Context.Done():
		err = c.Context.Err()
	default:
		if !now.Before(c.deadline) {
			err = context.DeadlineExceeded
		}
	}
	c.mu.Lock()
	yield := now.Sub(c.yielded) >= yieldEvery
	if yield {
		c.yielded = now
	}
	if err != nil && c.err == nil {
		c.err = err
	}
	c.mu.Unlock()
	if err != nil {
		c.once.Do(func() { close(c.done) })
	}
	if yield {
		runtime.Gosched()
	}
}

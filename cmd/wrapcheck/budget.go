package main

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"github.com/wrapcheck/wrapcheck/verdict"
)

// The limits of a command (--timeout, --memory, SIGINT and SIGTERM) cover
// loading the spec too: reading it, parsing, checking (constant folding
// and the expansion of fn bodies, whose cost the spec controls), vetting
// and compiling it. Loading runs under the command's context
// (spec.Options.Context, which spec.Check honours throughout) and, for a
// command with --memory, a watchdog of the heap; and it runs on a
// goroutine of its own, so that the command ends at the limit even in a
// phase that does not look (a read blocked on a pipe, the engine's
// compilation): it then exits 3, and the process ends with that work
// unfinished.

// errMemoryBudget is the cause of a context that withMemoryBudget ended.
var errMemoryBudget = errors.New("memory budget")

// memorySample is the period at which withMemoryBudget samples the heap:
// loading allocates at most a few MB in that time.
const memorySample = 10 * time.Millisecond

// withMemoryBudget returns a context that is done when ctx is, or, with
// cause errMemoryBudget, once the Go heap (verdict.HeapBytes, the measure
// of the search's budget) grows past budget bytes; 0 is no budget. Until
// release is called the garbage collector also works harder as the heap
// nears the budget, as during the search.
func withMemoryBudget(ctx context.Context, budget int64) (_ context.Context, release func()) {
	if budget <= 0 {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	old := debug.SetMemoryLimit(budget + budget/8)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(memorySample)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if verdict.HeapBytes() > uint64(budget) {
				cancel(errMemoryBudget)
				return
			}
		}
	}()
	return ctx, func() {
		close(done)
		wg.Wait()
		cancel(nil)
		debug.SetMemoryLimit(old)
	}
}

// stopReasonOf says why ctx (a command's context, or withMemoryBudget's)
// is done: the memory budget, the deadline, or else a signal.
func stopReasonOf(ctx context.Context) verdict.StopReason {
	switch {
	case errors.Is(context.Cause(ctx), errMemoryBudget):
		return verdict.StopMemory
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return verdict.StopTimeout
	}
	return verdict.StopInterrupted
}

// loadStopped is the error of loading that a limit stopped: exit 3.
type loadStopped struct{ reason verdict.StopReason }

func (e *loadStopped) Error() string { return "stopped while loading the spec: " + e.reason.String() }

// stopWhat words reason as the messages of a stopped command do:
// "timeout (--timeout 2s)", "interrupted", "memory budget (--memory 1GiB)".
func stopWhat(reason verdict.StopReason, timeout time.Duration, memory string) string {
	switch reason {
	case verdict.StopTimeout:
		return fmt.Sprintf("timeout (--timeout %v)", timeout)
	case verdict.StopMemory:
		return fmt.Sprintf("memory budget (--memory %s)", memory)
	}
	return reason.String()
}

// loadLimited runs load under ctx and a memory budget of budget bytes (0:
// none), on a goroutine of its own, and returns its outcome, or a
// *loadStopped once ctx or the budget ends it, whether load has returned
// (an error: spec.Check's wraps the context's) or not (it is then left
// running; the command ends soon after).
func loadLimited[T any](ctx context.Context, budget int64, load func(ctx context.Context) (T, error)) (T, error) {
	lctx, release := withMemoryBudget(ctx, budget)
	type outcome struct {
		v   T
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		v, err := load(lctx)
		done <- outcome{v, err}
	}()
	var o outcome
	finished := false
	select {
	case o = <-done:
		finished = true
	case <-lctx.Done():
	}
	stopped := lctx.Err() != nil && (!finished || o.err != nil)
	reason := stopReasonOf(lctx)
	release()
	if stopped {
		var zero T
		return zero, &loadStopped{reason: reason}
	}
	return o.v, o.err
}

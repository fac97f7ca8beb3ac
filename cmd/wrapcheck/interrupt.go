package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// limited runs the work of command name under --timeout (0: none) and
// SIGINT or SIGTERM: work gets a context that is done at the deadline or
// at the signal, and should stop soon after; when it does not (a read
// blocked on standard input, a long evaluation that does not look),
// limited returns anyway, with exit 3 and a message saying why, and the
// process ends with the work unfinished. Work that prints holds out while
// it writes a report: limited takes it (and never gives it back) before
// returning, so that no report is cut short.
func limited(name string, timeout time.Duration, out *sync.Mutex, work func(ctx context.Context) error) error {
	if timeout < 0 {
		return &exitError{code: exitUsage, err: fmt.Errorf("--timeout must not be negative")}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	done := make(chan error, 1)
	go func() { done <- work(ctx) }()
	select {
	case err := <-done:
		if ctx.Err() == nil || !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
	case <-ctx.Done():
	}
	if out != nil {
		out.Lock()
	}
	reason := "interrupted"
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		reason = fmt.Sprintf("timeout (--timeout %v)", timeout)
	}
	return &exitError{code: exitIncomplete, err: fmt.Errorf("%s: stopped before the end: %s", name, reason)}
}

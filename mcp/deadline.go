package mcp

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// grace is how long before the end of a tool call's time its work is
// told to stop (at most a quarter of the time): the work may then still
// return its own answer (the verdict incomplete of a search stopped by
// the deadline) before the call answers that it stopped.
const grace = 300 * time.Millisecond

// bounded returns h under the time limit of its input (secs, 0 for the
// server's default): the work runs in a goroutine under a context that
// ends a little before the limit, and the call answers by the limit
// whether or not the work has returned, so that no input can keep a call,
// or the server, from answering. The context tells the work to stop.
func bounded[In, Out any](t *tools, name string, secs func(In) float64, h sdk.ToolHandlerFor[In, Out]) sdk.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *sdk.CallToolRequest, in In) (*sdk.CallToolResult, Out, error) {
		if p, ok := any(in).(interface{ specPath() string }); ok && p.specPath() != "" && needsRoots(req) {
			var zero Out
			return askRoots(), zero, nil
		}
		s := secs(in)
		limit := t.limit(s)
		end := time.NewTimer(limit)
		defer end.Stop()
		ctx, cancel := context.WithTimeout(ctx, limit-min(grace, limit/4))
		defer cancel()
		type answer struct {
			res *sdk.CallToolResult
			out Out
			err error
		}
		done := make(chan answer, 1)
		go func() {
			var a answer
			defer func() {
				if r := recover(); r != nil {
					a = answer{err: fmt.Errorf("wrapcheck internal error: %v", r)}
				}
				done <- a
			}()
			a.res, a.out, a.err = h(ctx, req, in)
		}()
		var a answer
		select {
		case a = <-done:
		case <-ctx.Done():
			select {
			case a = <-done:
			case <-end.C:
				a.err = ctx.Err()
			case <-time.After(grace): // the client cancelled the call
				a.err = ctx.Err()
			}
		}
		if a.err != nil && ctx.Err() != nil && errors.Is(a.err, ctx.Err()) {
			var zero Out
			return nil, zero, stopped(name, ctx.Err(), s, limit)
		}
		return a.res, a.out, a.err
	}
}

// stopped is the error of a tool call that its time limit (or the
// client's cancellation) ended before its work did.
func stopped(name string, err error, secs float64, limit time.Duration) error {
	reason := "cancelled"
	if errors.Is(err, context.DeadlineExceeded) {
		if secs > 0 {
			reason = "timeout (timeout_seconds " + strconv.FormatFloat(secs, 'g', -1, 64) + ")"
		} else {
			reason = fmt.Sprintf("timeout (the server's default of %v)", limit)
		}
	}
	return fmt.Errorf("%s: stopped before the end: %s", name, reason)
}

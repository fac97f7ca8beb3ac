package quant

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/metrics"

	"github.com/wrapcheck/wrapcheck/machine"
)

// stopper is the interrupt of the machine during [Build]: the context's
// end, or the heap past the memory budget within one state's expansion
// (a choose over a hundred thousand values of a large state makes that
// many successors in one call, more than the budget long before the next
// state's check).
type stopper struct {
	ctx    context.Context
	budget int64
	over   bool // the budget stopped the machine
	gc     bool // a collection was forced at the budget
	sample []metrics.Sample
}

func newStopper(ctx context.Context, budget int64) *stopper {
	return &stopper{ctx: ctx, budget: budget, sample: []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}}
}

// stop reports whether the machine should stop.
func (s *stopper) stop() bool {
	if s.ctx.Err() != nil {
		return true
	}
	if s.budget > 0 && s.heap() > s.budget {
		// The first time, the heap may be the garbage of an earlier
		// call (the servers run one call after another): collect it and
		// look again.
		if !s.gc {
			s.gc = true
			runtime.GC()
			if s.heap() <= s.budget {
				return false
			}
		}
		s.over = true
		return true
	}
	return false
}

// heap returns the bytes of the heap's objects, live or not yet
// collected (the measure of every engine's budget).
func (s *stopper) heap() int64 {
	metrics.Read(s.sample)
	if v := s.sample[0].Value; v.Kind() == metrics.KindUint64 {
		return int64(v.Uint64())
	}
	return 0
}

// err is the error of a machine call that err ended: ErrMemory when the
// budget stopped it, else runtimeErr's.
func (s *stopper) err(states int, err error) error {
	if errors.Is(err, machine.ErrInterrupted) && s.over {
		return fmt.Errorf("%w: %d states built, within a state's expansion", ErrMemory, states)
	}
	return runtimeErr(s.ctx, err)
}

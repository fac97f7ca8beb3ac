// Package simulate runs random walks through the state space of a spec
// (swarm simulation), for spaces too large to explore exhaustively.
//
// Each walk starts in an initial state and takes at most Options.Depth
// steps; each step picks uniformly among all the successors of the
// current state (every branch of every enabled action, agent answers
// included). On every state it visits, a walk checks the invariants, the
// assertions and runtime errors of the successors, and deadlocks (a
// state with no successor that is not terminal), in the order a
// breadth-first search finds them, and it ends at its first violation.
// The reported violation is the shortest one found, ties broken by the
// lowest walk index, with a concrete trace replayed through the compiled
// machine. LTL properties are not checked.
//
// # Determinism
//
// Walk k draws from a PCG generator seeded with (Options.Seed, k), so
// the walks, the result and the statistics other than the time do not
// depend on Options.Workers. Walks are numbered over the whole run:
// shard I of N runs the walks k < Walks with k mod N = I, so the shards
// of a CI matrix are disjoint and together run the walks of one
// unsharded run.
//
// A simulation is not exhaustive: finding no violation proves nothing,
// and the Result's verdict is then [verdict.Unknown].
package simulate

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// Defaults of [Options].
const (
	DefaultWalks = 10_000
	DefaultDepth = 100
	DefaultSeed  = 1
)

// Options configures [Run]. The zero value runs DefaultWalks walks of at
// most DefaultDepth steps with seed DefaultSeed, on one goroutine per
// core, unsharded.
type Options struct {
	// Seed seeds the walks' generators; 0: DefaultSeed.
	Seed uint64
	// Walks is the number of walks of the whole (unsharded) run; 0:
	// DefaultWalks, or no bound with UntilDone.
	Walks int64
	// UntilDone, with Walks 0, runs walks until ctx is done (a timeout)
	// instead of DefaultWalks of them; the run then also ends once a
	// violation is found and the walks started before it are finished.
	UntilDone bool
	// Depth bounds the steps of a walk; 0: DefaultDepth.
	Depth int
	// Workers is the number of goroutines; 0: runtime.GOMAXPROCS(0).
	Workers int
	// Shard and Shards select the walks k with k mod Shards == Shard;
	// Shards 0 or 1: every walk.
	Shard, Shards int
	// NoDeadlock turns the deadlock check off.
	NoDeadlock bool
	// Program is the model compiled by the caller (machine.Compile);
	// nil: Run compiles it.
	Program *machine.Program
}

// Result is the outcome of [Run].
type Result struct {
	// Verdict is verdict.Violated when a walk found a violation, else
	// verdict.Unknown: a simulation never proves that the checks hold.
	Verdict verdict.Verdict
	// Violation is the shortest violation found (the fewest trace
	// steps), the one of the lowest walk index among equals; nil when
	// none was found.
	Violation *verdict.Violation
	// Walk is the index of the walk that found Violation, -1 for none.
	Walk int64
	// Reason says why the run ended: "walks done", "timeout",
	// "interrupted", or, for a run without a walk budget (UntilDone),
	// "violation found".
	Reason string
	// Unchecked lists the LTL properties of the model, which simulation
	// does not check.
	Unchecked []string
	// Options echoes the options the run used, defaults filled in.
	Seed          uint64
	Walks         int64 // the walk budget of the unsharded run; 0 under UntilDone without Walks
	Depth         int
	Shard, Shards int
	Stats         Stats
}

// Stats are the figures of a simulation. All but Seconds and Workers
// are the same for every Workers value when the walk budget is spent.
type Stats struct {
	Walks   int64 // walks run to their end (the bound, a dead end, a violation)
	Steps   int64 // steps taken, summed over the walks
	Depth   int   // the most steps a walk took
	Ends    int64 // walks that reached a state with no successor before the bound
	Seconds float64
	Workers int
}

// OptionError is an invalid [Options] value ([verdict.OptionError],
// which verify's options use too).
type OptionError = verdict.OptionError

func (o *Options) normalise() error {
	switch {
	case o.Walks < 0:
		return &OptionError{Option: "walks", Value: strconv.FormatInt(o.Walks, 10), Msg: "must not be negative"}
	case o.Depth < 0:
		return &OptionError{Option: "depth", Value: strconv.Itoa(o.Depth), Msg: "must not be negative"}
	case o.Workers < 0:
		return &OptionError{Option: "workers", Value: strconv.Itoa(o.Workers), Msg: "must not be negative"}
	case o.Shards < 0 || o.Shard < 0 || o.Shards > 0 && o.Shard >= o.Shards || o.Shards == 0 && o.Shard > 0:
		return &OptionError{Option: "shard", Value: fmt.Sprintf("%d/%d", o.Shard, o.Shards), Msg: "want I/N with 0 <= I < N"}
	}
	if o.Seed == 0 {
		o.Seed = DefaultSeed
	}
	if o.Walks == 0 && !o.UntilDone {
		o.Walks = DefaultWalks
	}
	if o.Depth == 0 {
		o.Depth = DefaultDepth
	}
	if o.Workers == 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.Shards == 0 {
		o.Shards = 1
	}
	return nil
}

// Run simulates m. The error reports invalid options or a model the
// engine cannot compile; a violation is a Result.
func Run(ctx context.Context, m *spec.Model, opts Options) (*Result, error) {
	if m == nil {
		return nil, errors.New("simulate: nil model")
	}
	if err := opts.normalise(); err != nil {
		return nil, err
	}
	prog := opts.Program
	if prog == nil {
		var err error
		if prog, err = machine.Compile(m); err != nil {
			return nil, err
		}
	}
	s, err := newSim(ctx, prog, opts)
	if err != nil {
		return nil, err
	}
	return s.run(), nil
}

// Trace returns the trace of walk k of a run with opts (its Seed, Depth
// and NoDeadlock; the defaults as for [Run]): the states the walk
// visited, each step with its action and the agent answers it took, up
// to where the walk ended (the depth bound, a state with no successor,
// or its first violation: the trace then ends at the last state it
// visited, without a failing step). A walk that fails in the init block
// has an empty trace. The error reports invalid options, a model the
// engine cannot compile, or ctx's end.
func Trace(ctx context.Context, m *spec.Model, opts Options, k int64) ([]verdict.Step, error) {
	if m == nil {
		return nil, errors.New("simulate: nil model")
	}
	if err := opts.normalise(); err != nil {
		return nil, err
	}
	if k < 0 {
		return nil, &OptionError{Option: "walk", Value: strconv.FormatInt(int64(k), 10), Msg: "must not be negative"}
	}
	prog := opts.Program
	if prog == nil {
		var err error
		if prog, err = machine.Compile(m); err != nil {
			return nil, err
		}
	}
	s, err := newSim(ctx, prog, opts)
	if err != nil {
		return nil, err
	}
	w := newWalker(s)
	w.walk(k)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m2 := prog.NewMachine()
	m2.RecordAnswers(true)
	trace, _ := replayPath(prog, m2, w.path)
	return trace, nil
}

// sim is one simulation run, shared by its walkers.
type sim struct {
	ctx  context.Context
	opts Options
	prog *machine.Program
	invs []*machine.Pred

	next  atomic.Int64 // the next walk number within the shard
	count int64        // walks in the shard; -1: no bound
	found atomic.Bool  // a violation was found (ends an unbounded run)
	start time.Time
}

func newSim(ctx context.Context, prog *machine.Program, opts Options) (*sim, error) {
	s := &sim{ctx: ctx, opts: opts, prog: prog, count: -1, start: time.Now()}
	for _, in := range prog.Model.Invariants {
		pr, err := prog.CompileExpr(in.Expr)
		if err != nil {
			return nil, err
		}
		s.invs = append(s.invs, pr)
	}
	if opts.Walks > 0 {
		n := int64(opts.Shards)
		s.count = opts.Walks / n
		if int64(opts.Shard) < opts.Walks%n {
			s.count++
		}
	}
	return s, nil
}

// walkIndex returns the global index of the shard's j-th walk.
func (s *sim) walkIndex(j int64) int64 {
	return int64(s.opts.Shard) + j*int64(s.opts.Shards)
}

// take returns the shard's next walk number, or false when the run is
// over.
func (s *sim) take() (int64, bool) {
	if s.ctx.Err() != nil || s.count < 0 && s.found.Load() {
		return 0, false
	}
	j := s.next.Add(1) - 1
	if s.count >= 0 && j >= s.count {
		return 0, false
	}
	return j, true
}

func (s *sim) run() *Result {
	o := s.opts
	res := &Result{Verdict: verdict.Unknown, Walk: -1, Seed: o.Seed, Walks: o.Walks, Depth: o.Depth,
		Shard: o.Shard, Shards: o.Shards}
	for _, p := range s.prog.Model.Properties {
		res.Unchecked = append(res.Unchecked, p.Name)
	}
	ws := make([]*walker, o.Workers)
	var wg sync.WaitGroup
	for i := range ws {
		ws[i] = newWalker(s)
		wg.Add(1)
		go func(w *walker) {
			defer wg.Done()
			w.work()
		}(ws[i])
	}
	wg.Wait()
	var best *found
	for _, w := range ws {
		res.Stats.Walks += w.walks
		res.Stats.Steps += w.steps
		res.Stats.Ends += w.ends
		res.Stats.Depth = max(res.Stats.Depth, w.depth)
		if w.best != nil && (best == nil || w.best.less(best)) {
			best = w.best
		}
	}
	res.Stats.Workers = o.Workers
	switch err := s.ctx.Err(); {
	case errors.Is(err, context.DeadlineExceeded):
		res.Reason = "timeout"
	case err != nil:
		res.Reason = "interrupted"
	case s.count < 0:
		res.Reason = "violation found" // an unbounded run ends at its first violation
	default:
		res.Reason = "walks done"
	}
	if best != nil {
		res.Verdict = verdict.Violated
		res.Walk = best.walk
		res.Violation = ws[0].violation(best)
	}
	res.Stats.Seconds = time.Since(s.start).Seconds()
	return res
}

package ltl

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"time"

	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// Options configures [Check]. The zero value is the default: every
// property of the model, no limit.
type Options struct {
	// Only restricts the checked properties to these names. A name that
	// is an invariant is ignored; a name that is neither an invariant nor
	// a property is an error.
	Only []string
	// MaxStates stops the search (Verdict Unknown, Stop StopStates)
	// once the product of one property holds more than MaxStates nodes;
	// 0: no limit.
	MaxStates int64
	// MemoryBudget stops the search (Verdict Unknown, Stop StopMemory)
	// once the Go heap grows beyond this many bytes; 0: none.
	MemoryBudget int64
	// OnProperty, when not nil, is called after each checked property
	// with the figures of its search.
	OnProperty func(PropertyStats)
	// Progress, when not nil, is called about once a second during the
	// product search, with Progress.Property set.
	Progress func(verdict.Progress)
	// IgnoreFairness lists fairness declarations (indexes into
	// spec.Model.Fairness) to check without: the result is that of the
	// model without them.
	IgnoreFairness []int
	// Symmetry turns on symmetry reduction of the product where it is
	// sound for the property, and the check of a top-level forall over a
	// symmetric type for its first identity (see the package
	// documentation, "Reductions"). Result.Notes says where it is off.
	Symmetry bool
	// POR turns on partial-order reduction for next-free properties of
	// models without fairness declarations; Result.Notes says where it is
	// off.
	POR bool

	// firstCheck overrides the first cycle-search checkpoint (tests).
	firstCheck int
	// hashNodes finds every product node through the hash table, never
	// the dense array (tests).
	hashNodes bool
	// noIdent keeps the dense index of an automaton of one state too
	// (tests: product.ident).
	noIdent bool
	// wideQ keeps the nodes' automaton states in 2 bytes for a small
	// automaton too (tests: product.q8).
	wideQ bool
	// noCycleSCCs keeps, in the filter and the cycle search, the nodes
	// whose automaton state lies in no component where an accepting
	// cycle may stay (tests: product.cyc).
	noCycleSCCs bool
	// filter says when the OWCTY filter runs in front of the cycle search
	// (tests; the default: only without plain weakly fair units).
	filter filterMode
	// HashCompact stores the system states of each property's product
	// as 64-bit fingerprints, not vectors (see docs/impl.md, "Liveness
	// memory"): a state whose fingerprint equals an earlier state's is
	// lost, with a probability below n²/2⁶⁵ for n states, which
	// Result.Notes gives; a reported violation is always a run of the
	// system. Each property then explores its own system, and the
	// successor lists are kept also under a MemoryBudget.
	HashCompact bool

	// recompute computes the system's successor lists again instead of
	// keeping them, also without a memory budget (tests).
	recompute bool
	// noBatch expands one system state at a time, none computed ahead
	// (batch.go; tests).
	noBatch bool
	// fpMask cuts the fingerprints of HashCompact to these bits, so that
	// states collide (tests).
	fpMask uint64
	// onProduct, when not nil, is called with each product after its
	// search, and the products keep the edges their expansion found in
	// recorded (tests).
	onProduct func(*product)
	// phases, when not nil, accumulates the CPU time of the product
	// searches' phases (benchmarks).
	phases *phaseStats
	// fullSearch runs every cycle search without the filter from every
	// expanded node, not from those expanded since the last (tests).
	fullSearch bool
	// noKeyTab evaluates the atoms of every system state, never taking
	// a valuation from the table per key of the slots they read (tests).
	noKeyTab bool
}

// phaseStats is the CPU time of the phases of product searches
// (Options.phases): the exploration, the OWCTY filter and the cycle
// search, by clock (the process's CPU time in nanoseconds), with the
// cycle searches run (checkpoints) and the filter's rounds.
type phaseStats struct {
	clock          func() int64
	cpu            [3]int64 // phaseExplore, phaseFilter, phaseSearch
	checks, rounds int
}

// The phases of phaseStats.cpu.
const (
	phaseExplore = iota
	phaseFilter
	phaseSearch
)

// PropertyStats are the figures of the check of one property.
type PropertyStats struct {
	Name            string
	Verdict         verdict.Verdict
	Formula         string // the negated property in negation normal form
	AutomatonStates int
	AutomatonEdges  int
	AcceptanceSets  int
	ProductNodes    int64
	ProductEdges    int64
	FairSCCs        int // fair accepting SCCs found
	Seconds         float64
	// Bytes is what the product's search keeps: its nodes and edges,
	// the system states it explored (their store, successors and enabled
	// units, shared with the other properties) and the largest cycle
	// search's arrays; allocated capacity, not the heap's peak.
	Bytes int64
}

// ErrTooManyEventualities is returned (wrapped) by [Check] when the
// negation of a property has more than [MaxAcc] until subformulas.
var ErrTooManyEventualities = errors.New("more than 64 eventualities (until subformulas of its negation)")

// Check checks the LTL properties of m (all, or those named in
// opts.Only) in declaration order, under the model's fairness
// declarations, and stops at the first violated one. A violation is
// reported with Kind verdict.Property and a lasso trace: Trace[LoopStart:]
// is the cycle, and the last entry steps back to Trace[LoopStart]; a
// cycle that only stutters in a state without enabled action is the last
// entry alone (LoopStart is its index). The trace is the prefix, then every state of the cycle
// (each with the action that leads to it), so its last entry is the state
// the cycle started from and Trace[LoopStart] is the first state after it.
// An assertion or runtime error met while exploring is
// reported as a violation of that kind, with the path to the state where
// it happened. Stats count the distinct system states and the system
// transitions explored; Depth is the largest BFS depth of a product node.
// The error reports bad options, a property the translation cannot
// handle, or an internal failure.
func Check(ctx context.Context, m *spec.Model, opts Options) (*verdict.Result, error) {
	c, err := NewChecker(m)
	if err != nil {
		return nil, err
	}
	return c.Check(ctx, opts)
}

// Checker checks the properties of one model several times (with other
// options, e.g. other IgnoreFairness) and keeps the explored transition
// systems between the checks, so that a later check only explores what
// the earlier ones did not. Not safe for concurrent use.
type Checker struct {
	m       *spec.Model
	prog    *machine.Program
	systems map[string]*system
}

// NewChecker returns a Checker for m.
func NewChecker(m *spec.Model) (*Checker, error) {
	prog, err := machine.Compile(m)
	if err != nil {
		return nil, err
	}
	return NewProgramChecker(prog), nil
}

// NewProgramChecker returns a Checker for the model prog was compiled
// from, so that a caller that compiled it once shares the compilation.
func NewProgramChecker(prog *machine.Program) *Checker {
	return &Checker{m: prog.Model, prog: prog, systems: map[string]*system{}}
}

// Check is [Check] on the Checker's model.
func (c *Checker) Check(ctx context.Context, opts Options) (*verdict.Result, error) {
	props, err := c.validate(opts)
	if err != nil {
		return nil, err
	}
	if b := opts.MemoryBudget; b > 0 {
		// As in the safety search: let the garbage collector work harder
		// as the heap nears the budget, so that garbage does not take
		// the process past it between two checks of the heap.
		old := debug.SetMemoryLimit(b + b/8)
		defer debug.SetMemoryLimit(old)
	}
	r := &checkRun{c: c, ctx: ctx, opts: opts, start: time.Now(),
		res: &verdict.Result{Verdict: verdict.Holds}}
	r.planner, err = newPlanner(c.m, c.prog, opts, r.interrupted)
	if err != nil {
		return nil, err
	}
	r.planner.lim = newBudget(ctx, opts.MemoryBudget)
	for _, p := range props {
		stop, err := r.property(p)
		if err != nil {
			return nil, err
		}
		if stop {
			break
		}
	}
	return r.finish(), nil
}

// validate returns the properties opts selects, or the error of a bad
// option.
func (c *Checker) validate(opts Options) ([]*spec.Property, error) {
	props, err := selectProperties(c.m, opts.Only)
	if err != nil {
		return nil, err
	}
	for _, d := range opts.IgnoreFairness {
		if d < 0 || d >= len(c.m.Fairness) {
			return nil, fmt.Errorf("ltl: Options.IgnoreFairness: no fairness declaration %d", d)
		}
	}
	return props, nil
}

// checkRun is one call of [Checker.Check]: the result it builds and the
// systems it used.
type checkRun struct {
	c       *Checker
	ctx     context.Context
	opts    Options
	start   time.Time
	planner *planner
	res     *verdict.Result
	order   []*system // the systems this check used, in order of first use
}

// interrupted reports whether one long evaluation of the system's
// machines (a quantifier over a large domain, a large choose) must stop:
// at the deadline or the memory budget. The evaluation then fails with
// machine.ErrInterrupted.
func (r *checkRun) interrupted() bool {
	return r.ctx.Err() != nil || r.opts.MemoryBudget > 0 && verdict.HeapBytes() > uint64(r.opts.MemoryBudget)
}

// finish completes the result's figures and returns it.
func (r *checkRun) finish() *verdict.Result {
	// Under hash compaction each property has its own system: a key's
	// states and transitions are those of its largest one.
	most := map[string]int{}
	var compact []int64
	for i, sys := range r.order {
		if sys.fp != nil {
			compact = append(compact, sys.len())
			if j, ok := most[sys.key]; ok {
				if sys.len() > r.order[j].len() {
					most[sys.key] = i
				}
				continue
			}
			most[sys.key] = i
			continue
		}
		r.res.Stats.States += sys.len()
		r.res.Stats.Transitions += sys.transitions
	}
	for _, sys := range r.order {
		if sys.fp != nil && r.order[most[sys.key]] == sys {
			r.res.Stats.States += sys.len()
			r.res.Stats.Transitions += sys.transitions
		}
	}
	if len(compact) > 0 {
		r.res.Notes = append(r.res.Notes, compactNote(compact))
	}
	r.res.Stats.Seconds = time.Since(r.start).Seconds()
	r.res.Stats.Workers = 1
	return r.res
}

// stopped records that the check stopped early, for reason.
func (r *checkRun) stopped(reason verdict.StopReason) {
	r.res.Verdict, r.res.Stop = verdict.Unknown, reason
}

// system returns the system of plan q, built once per key and kept by
// the Checker unless its initialisation was interrupted. The error is the
// failure of the init block (every user of the system gets it).
func (r *checkRun) system(q *plan) (*system, error) {
	sys := r.c.systems[q.key]
	if sys == nil || r.opts.HashCompact {
		// Under a memory budget the successor lists are computed again
		// instead of kept (see docs/impl.md, "Liveness memory"); under
		// hash compaction they are kept, and every property explores a
		// system of its own (a vector is computed again from its
		// derivation, at a cost, after the state's expansion).
		keep := r.opts.MemoryBudget == 0 && !r.opts.recompute || r.opts.HashCompact
		sys = newSystem(r.c.prog, q, keep)
		sys.noBatch = r.opts.noBatch
		if r.opts.HashCompact {
			sys.fp, sys.store = newFPStore(max(r.c.prog.Words(), 1)), nil
			sys.fp.fpMask = r.opts.fpMask
		}
		sys.mach.SetInterrupt(r.interrupted)
		sys.initErr = sys.init()
		if !errors.Is(sys.initErr, machine.ErrInterrupted) && !r.opts.HashCompact {
			r.c.systems[q.key] = sys // an interrupted system is not kept
		}
	}
	sys.mach.SetInterrupt(r.interrupted)
	if !slices.Contains(r.order, sys) {
		r.order = append(r.order, sys)
	}
	return sys, sys.initErr
}

// initFailed records the failure err of the init block as the result:
// Unknown when it was interrupted, a violation when it is an execution
// error. Any other error is returned.
func (r *checkRun) initFailed(err error) error {
	if errors.Is(err, machine.ErrInterrupted) {
		r.stopped(limitReason(r.ctx, r.opts.MemoryBudget))
		return nil
	}
	var ee *machine.ExecError
	if errors.As(err, &ee) {
		r.res.Verdict = verdict.Violated
		r.res.Violation = &verdict.Violation{Name: "init", Kind: ee.Kind, Pos: ee.Pos, Msg: ee.Msg, LoopStart: -1}
		return nil
	}
	return err
}

// product sets up the product of sys with aut for property p: the
// limits, the ignored fairness and the progress of the options.
func (r *checkRun) product(p *spec.Property, sys *system, aut *Automaton, atoms []*spec.Expr, started time.Time) (*product, error) {
	pr, err := newProduct(r.ctx, sys, aut, atoms, r.opts.MaxStates)
	if err != nil {
		return nil, fmt.Errorf("property %s: %w", p.Name, err)
	}
	pr.budget = r.opts.MemoryBudget
	pr.ignore(r.opts.IgnoreFairness)
	pr.progress, pr.name, pr.started = r.opts.Progress, p.Name, started
	if r.opts.firstCheck > 0 {
		pr.firstCheck = r.opts.firstCheck
	}
	pr.hashNodes = r.opts.hashNodes
	pr.noIdent = r.opts.noIdent
	if r.opts.wideQ {
		pr.wideQ()
	}
	if r.opts.noCycleSCCs {
		pr.cyc = nil
	}
	pr.filter = r.opts.filter
	pr.useFilter = pr.filter == filterOn || pr.filter == filterAuto && len(pr.weakUnits()) == 0
	pr.record = r.opts.onProduct != nil
	pr.phases = r.opts.phases
	pr.fullSearch = r.opts.fullSearch
	if r.opts.noKeyTab {
		pr.keyTab = nil
	}
	return pr, nil
}

// property checks property p and records its outcome in the result. It
// reports stop when the check must not go on to the next property: a
// violation, or a limit that holds for every property.
func (r *checkRun) property(p *spec.Property) (stop bool, err error) {
	pstart := time.Now()
	pn, err := r.planner.plan(p)
	if err != nil {
		if reason := stopReason(err); reason != verdict.NotStopped {
			r.stopped(reason)
			return true, nil
		}
		return false, err
	}
	for _, n := range pn.notes {
		if !slices.Contains(r.res.Notes, n) {
			r.res.Notes = append(r.res.Notes, n)
		}
	}
	sys, err := r.system(pn)
	if err != nil {
		return true, r.initFailed(err)
	}
	neg := Not(pn.formula)
	aut, err := translate(neg, r.planner.lim, false)
	if err != nil {
		if reason := stopReason(err); reason != verdict.NotStopped {
			r.stopped(reason)
			return true, nil
		}
		return false, fmt.Errorf("%s: property %s: %w", p.Pos, p.Name, err)
	}
	pr, err := r.product(p, sys, aut, pn.atoms, pstart)
	if err != nil {
		return false, err
	}
	defer pr.free()
	v, reason, fair := pr.run(p)
	if r.opts.onProduct != nil {
		r.opts.onProduct(pr)
	}
	if pr.collided != nil {
		return true, fmt.Errorf("property %s: %w", p.Name, pr.collided)
	}
	if v != nil && v.Kind == verdict.Property && sys.threads != nil {
		// The quotient's cycle is fair for some run, but which passes
		// make every instance fair is not tracked: the lasso comes from
		// the product without symmetry, which has one (see cycle.go).
		var initFailed bool
		v, reason, initFailed, err = r.plainLasso(p, pn, aut, pstart)
		if err != nil || initFailed {
			return true, err
		}
		if v == nil && reason == verdict.NotStopped && sys.fp != nil {
			// Under hash compaction two states taken for one can give the
			// quotient a cycle the system does not have.
			return true, fmt.Errorf("property %s: %w", p.Name, errCollision)
		}
		if v == nil && reason == verdict.NotStopped {
			return false, fmt.Errorf("ltl: internal error: property %s: the symmetry-reduced product has a fair cycle, the product without symmetry has none", p.Name)
		}
	}
	r.res.Stats.Depth = max(r.res.Stats.Depth, pr.maxDepth)
	r.report(p, pr, aut, neg, v, reason, fair, pstart)
	switch {
	case v != nil:
		if pn.pinned != nil && v.Kind == verdict.Property {
			r.res.Notes = append(r.res.Notes, fmt.Sprintf("property %s was checked for %s alone: the model is symmetric in %s, so a run that violates it for one %s violates it, permuted, for %s",
				p.Name, pn.pinned.Names[0], pn.pinned.Name, pn.pinned.Name, pn.pinned.Names[0]))
		}
		r.res.Verdict, r.res.Violation, r.res.Stop = verdict.Violated, v, verdict.NotStopped
		return true, nil
	case reason != verdict.NotStopped:
		r.stopped(reason)
		return reason == verdict.StopTimeout || reason == verdict.StopInterrupted || reason == verdict.StopMemory, nil
	}
	return false, nil
}

// plainLasso searches the product of property p without symmetry
// reduction, for the lasso of a violation the quotient found. When the
// init block fails, the failure is recorded in the result (initFailed).
func (r *checkRun) plainLasso(p *spec.Property, pn *plan, aut *Automaton, started time.Time) (v *verdict.Violation, reason verdict.StopReason, initFailed bool, err error) {
	plainPlan, err := r.planner.plain(pn)
	if err != nil {
		return nil, verdict.NotStopped, false, err
	}
	plainSys, err := r.system(plainPlan)
	if err != nil {
		return nil, verdict.NotStopped, true, r.initFailed(err)
	}
	plain, err := r.product(p, plainSys, aut, pn.atoms, started)
	if err != nil {
		return nil, verdict.NotStopped, false, err
	}
	defer plain.free()
	v, reason, _ = plain.run(p)
	if r.opts.onProduct != nil {
		r.opts.onProduct(plain)
	}
	if plain.collided != nil {
		return nil, verdict.NotStopped, false, fmt.Errorf("property %s: %w", p.Name, plain.collided)
	}
	return v, reason, false, nil
}

// report passes the figures of the check of p to Options.OnProperty.
func (r *checkRun) report(p *spec.Property, pr *product, aut *Automaton, neg *Formula, v *verdict.Violation, reason verdict.StopReason, fair int, started time.Time) {
	if r.opts.OnProperty == nil {
		return
	}
	st := PropertyStats{Name: p.Name, Verdict: verdict.Holds, Formula: neg.String(),
		AutomatonStates: len(aut.States), AutomatonEdges: aut.NumEdges(), AcceptanceSets: aut.NumAcc,
		ProductNodes: int64(pr.nodeN), ProductEdges: pr.edgesN, FairSCCs: fair,
		Seconds: time.Since(started).Seconds(), Bytes: pr.footprint()}
	switch {
	case v != nil:
		st.Verdict = verdict.Violated
	case reason != verdict.NotStopped:
		st.Verdict = verdict.Unknown
	}
	r.opts.OnProperty(st)
}

// limitReason returns why an evaluation was interrupted: StopTimeout or
// StopInterrupted when ctx is done, else StopMemory.
func limitReason(ctx context.Context, budget int64) verdict.StopReason {
	if r := stopReason(ctx.Err()); r != verdict.NotStopped {
		return r
	}
	return verdict.StopMemory
}

// stopReason returns the Result.Stop for an error that stopped a
// property's conversion or translation early (StopTimeout,
// StopInterrupted, StopMemory), or NotStopped for any other error.
func stopReason(err error) verdict.StopReason {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return verdict.StopTimeout
	case errors.Is(err, context.Canceled):
		return verdict.StopInterrupted
	case errors.Is(err, ErrMemoryBudget):
		return verdict.StopMemory
	}
	return verdict.NotStopped
}

func selectProperties(m *spec.Model, only []string) ([]*spec.Property, error) {
	_, props, unknown := m.Select(only)
	if unknown != "" {
		return nil, fmt.Errorf("ltl: no property or invariant named %s", unknown)
	}
	return props, nil
}

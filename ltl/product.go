package ltl

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"time"
	"unsafe"

	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/machine"
	red "github.com/wrapcheck/wrapcheck/reduce"
	"github.com/wrapcheck/wrapcheck/spec"
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
	Progress func(checker.Progress)
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
	Verdict         checker.Verdict
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
// reported with Kind checker.Property and a lasso trace: Trace[LoopStart:]
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
func Check(ctx context.Context, m *spec.Model, opts Options) (*checker.Result, error) {
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
func (c *Checker) Check(ctx context.Context, opts Options) (*checker.Result, error) {
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
		res: &checker.Result{Verdict: checker.Holds}}
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
	res     *checker.Result
	order   []*system // the systems this check used, in order of first use
}

// interrupted reports whether one long evaluation of the system's
// machines (a quantifier over a large domain, a large choose) must stop:
// at the deadline or the memory budget. The evaluation then fails with
// machine.ErrInterrupted.
func (r *checkRun) interrupted() bool {
	return r.ctx.Err() != nil || r.opts.MemoryBudget > 0 && checker.HeapBytes() > uint64(r.opts.MemoryBudget)
}

// finish completes the result's figures and returns it.
func (r *checkRun) finish() *checker.Result {
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
func (r *checkRun) stopped(reason checker.StopReason) {
	r.res.Verdict, r.res.Stop = checker.Unknown, reason
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
		r.res.Verdict = checker.Violated
		r.res.Violation = &checker.Violation{Name: "init", Kind: ee.Kind, Pos: ee.Pos, Msg: ee.Msg, LoopStart: -1}
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
	pr.filter = r.opts.filter
	pr.useFilter = pr.filter == filterOn || pr.filter == filterAuto && len(pr.weakUnits()) == 0
	pr.record = r.opts.onProduct != nil
	pr.phases = r.opts.phases
	return pr, nil
}

// property checks property p and records its outcome in the result. It
// reports stop when the check must not go on to the next property: a
// violation, or a limit that holds for every property.
func (r *checkRun) property(p *spec.Property) (stop bool, err error) {
	pstart := time.Now()
	pn, err := r.planner.plan(p)
	if err != nil {
		if reason := stopReason(err); reason != checker.NotStopped {
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
		if reason := stopReason(err); reason != checker.NotStopped {
			r.stopped(reason)
			return true, nil
		}
		return false, fmt.Errorf("%s: property %s: %w", p.Pos, p.Name, err)
	}
	pr, err := r.product(p, sys, aut, pn.atoms, pstart)
	if err != nil {
		return false, err
	}
	v, reason, fair := pr.run(p)
	if r.opts.onProduct != nil {
		r.opts.onProduct(pr)
	}
	if pr.collided != nil {
		return true, fmt.Errorf("property %s: %w", p.Name, pr.collided)
	}
	if v != nil && v.Kind == checker.Property && sys.threads != nil {
		// The quotient's cycle is fair for some run, but which passes
		// make every instance fair is not tracked: the lasso comes from
		// the product without symmetry, which has one (see cycle.go).
		var initFailed bool
		v, reason, initFailed, err = r.plainLasso(p, pn, aut, pstart)
		if err != nil || initFailed {
			return true, err
		}
		if v == nil && reason == checker.NotStopped && sys.fp != nil {
			// Under hash compaction two states taken for one can give the
			// quotient a cycle the system does not have.
			return true, fmt.Errorf("property %s: %w", p.Name, errCollision)
		}
		if v == nil && reason == checker.NotStopped {
			return false, fmt.Errorf("ltl: internal error: property %s: the symmetry-reduced product has a fair cycle, the product without symmetry has none", p.Name)
		}
	}
	r.res.Stats.Depth = max(r.res.Stats.Depth, pr.maxDepth)
	r.report(p, pr, aut, neg, v, reason, fair, pstart)
	switch {
	case v != nil:
		if pn.pinned != nil && v.Kind == checker.Property {
			r.res.Notes = append(r.res.Notes, fmt.Sprintf("property %s was checked for %s alone: the model is symmetric in %s, so a run that violates it for one %s violates it, permuted, for %s",
				p.Name, pn.pinned.Names[0], pn.pinned.Name, pn.pinned.Name, pn.pinned.Names[0]))
		}
		r.res.Verdict, r.res.Violation, r.res.Stop = checker.Violated, v, checker.NotStopped
		return true, nil
	case reason != checker.NotStopped:
		r.stopped(reason)
		return reason == checker.StopTimeout || reason == checker.StopInterrupted || reason == checker.StopMemory, nil
	}
	return false, nil
}

// plainLasso searches the product of property p without symmetry
// reduction, for the lasso of a violation the quotient found. When the
// init block fails, the failure is recorded in the result (initFailed).
func (r *checkRun) plainLasso(p *spec.Property, pn *plan, aut *Automaton, started time.Time) (v *checker.Violation, reason checker.StopReason, initFailed bool, err error) {
	plainPlan, err := r.planner.plain(pn)
	if err != nil {
		return nil, checker.NotStopped, false, err
	}
	plainSys, err := r.system(plainPlan)
	if err != nil {
		return nil, checker.NotStopped, true, r.initFailed(err)
	}
	plain, err := r.product(p, plainSys, aut, pn.atoms, started)
	if err != nil {
		return nil, checker.NotStopped, false, err
	}
	v, reason, _ = plain.run(p)
	if r.opts.onProduct != nil {
		r.opts.onProduct(plain)
	}
	if plain.collided != nil {
		return nil, checker.NotStopped, false, fmt.Errorf("property %s: %w", p.Name, plain.collided)
	}
	return v, reason, false, nil
}

// report passes the figures of the check of p to Options.OnProperty.
func (r *checkRun) report(p *spec.Property, pr *product, aut *Automaton, neg *Formula, v *checker.Violation, reason checker.StopReason, fair int, started time.Time) {
	if r.opts.OnProperty == nil {
		return
	}
	st := PropertyStats{Name: p.Name, Verdict: checker.Holds, Formula: neg.String(),
		AutomatonStates: len(aut.States), AutomatonEdges: aut.NumEdges(), AcceptanceSets: aut.NumAcc,
		ProductNodes: int64(len(pr.nodeSys)), ProductEdges: pr.edgesN, FairSCCs: fair,
		Seconds: time.Since(started).Seconds(), Bytes: pr.footprint()}
	switch {
	case v != nil:
		st.Verdict = checker.Violated
	case reason != checker.NotStopped:
		st.Verdict = checker.Unknown
	}
	r.opts.OnProperty(st)
}

// limitReason returns why an evaluation was interrupted: StopTimeout or
// StopInterrupted when ctx is done, else StopMemory.
func limitReason(ctx context.Context, budget int64) checker.StopReason {
	if r := stopReason(ctx.Err()); r != checker.NotStopped {
		return r
	}
	return checker.StopMemory
}

// stopReason returns the Result.Stop for an error that stopped a
// property's conversion or translation early (StopTimeout,
// StopInterrupted, StopMemory), or NotStopped for any other error.
func stopReason(err error) checker.StopReason {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return checker.StopTimeout
	case errors.Is(err, context.Canceled):
		return checker.StopInterrupted
	case errors.Is(err, ErrMemoryBudget):
		return checker.StopMemory
	}
	return checker.NotStopped
}

func selectProperties(m *spec.Model, only []string) ([]*spec.Property, error) {
	_, props, unknown := m.Select(only)
	if unknown != "" {
		return nil, fmt.Errorf("ltl: no property or invariant named %s", unknown)
	}
	return props, nil
}

// system caches the explored part of the model's transition system: the
// distinct states (in a machine.Store), their successors (action and
// target state, or one stutter self-loop with action -1 when no action is
// enabled) and the fairness units enabled in each. It is shared by the
// products of all properties. Not safe for concurrent use.
type system struct {
	prog  *machine.Program
	mach  *machine.Machine
	store *machine.Store
	key   string // the plan's
	// fp replaces store under Options.HashCompact; from is then the
	// state being expanded (the derivation of the states it finds).
	fp      *fpStore
	from    uint32
	inits   paged[uint32]
	initErr error // the init block's failure, returned to every user

	// Reductions: states are stored canonical (canon != nil), and the
	// successors of a state are first those of an ample set (ample !=
	// nil); rest holds, for a state whose ample set is proper, the
	// successors by the other enabled actions once asked for.
	canon   *red.Canon
	canonFn checker.CanonFunc // canon.Func(), taken once
	ample   checker.AmpleFunc
	reduced stateFlags
	// Thread tracking (threads not empty): per successor, the permutation
	// that canonicalised it, as an id into perms (0: the identity).
	threads  []threadDecl
	typeOf   []int // per thread declaration: its type's index in perms[id]
	perms    [][][]int32
	permIDs  map[string]uint32
	permBuf  [][]int32
	permKey  []byte // permBuf as a map key, reused
	bufPerm  []uint32
	lastPerm uint32
	rest     map[uint32]bool // the reduced states whose other successors were computed
	unp      []int64
	packed   []uint64
	en       []int
	enSub    []int // the copy of en given to the ample function
	others   []int

	expanded stateFlags
	enabled  []uint64 // per state: uw words of enabled units
	enabled8 []uint8  // per state, with at most 8 units ([system.units8]): them
	enBuf    [1]uint64
	failure  map[uint32]*machine.ExecError // the states whose expansion failed (few)

	// The successor lists are kept (keep: succTo/succAct/succPerm, a
	// state's at [system.listAt], those outside its ample set at
	// restAt) or, under a memory budget, not: a list is then computed
	// again from the machine (remach, which is never interrupted: the
	// expansion succeeded once and must give the same list again) when
	// asked for. Either way the recent ones stay in cache
	// ([system.succs]).
	keep bool
	// keepAct: the actions of the kept successors are kept too, when the
	// model has fairness units (the passes over the product read them);
	// else only the targets are, and [system.succs] computes a list again
	// for the few nodes whose actions a trace needs.
	// The actions are kept in 16 bits (actNone: the stutter), so keepAct
	// also needs fewer than actNone actions; in 8 bits (succAct8,
	// actNone8: the stutter) when there are fewer than actNone8.
	keepAct  bool
	succAt   paged[uint64]    // per state: offset<<succNBits | count
	succBig  map[uint32]int64 // the counts of at least succNMax
	succTo   chunked[uint32]
	succAct  chunked[uint16]
	succAct8 chunked[uint8]
	act8     bool  // the kept actions are in succAct8
	succEnd  int64 // the offset of the next kept list ([system.listRoom])
	succPerm chunked[uint32]
	restAt   map[uint32][2]int64
	remach   *machine.Machine
	cache    []succSlot
	visitFn  func(action, branch int, t machine.State)
	stutFn   func(t machine.State)
	addErr   error
	stutTo   uint32
	stutPrm  uint32

	transitions int64

	// The successors of the states the next nodes expand, computed
	// ahead (batch.go): pend[pendAt:] are still to be expanded.
	pend       []pendState
	pendAt     int
	pcol       machine.Collector // the successors computed ahead
	pendStutFn func(t machine.State)
	sink       uint64 // the sum of the touched slots, so that the loads stay
	noBatch    bool   // Options.noBatch

	units       []unit
	unitDecl    []int    // per unit: its fairness declaration
	uw          int      // words per unit set
	actionUnits []uint64 // per action: uw words, the units it belongs to
	buf         []int32
	bufTo       []uint32
}

// stateFlags is one flag per stored state, 64 to a word.
type stateFlags struct {
	w []uint64
	n int // the states
}

// add adds the flag of the next state, false.
func (f *stateFlags) add() {
	if f.n%64 == 0 {
		f.w = append(f.w, 0)
	}
	f.n++
}

// has returns the flag of state i.
func (f *stateFlags) has(i uint32) bool { return f.w[i/64]>>(i%64)&1 != 0 }

// set sets the flag of state i to v.
func (f *stateFlags) set(i uint32, v bool) {
	if v {
		f.w[i/64] |= 1 << (i % 64)
	} else {
		f.w[i/64] &^= 1 << (i % 64)
	}
}

// actNone is the kept action of the stutter of a state without enabled
// action (-1 in a succ).
const actNone = 1<<16 - 1

// actNone8 is actNone in succAct8.
const actNone8 = 1<<8 - 1

// actOf8 returns the action of a kept one of succAct8.
func actOf8(a uint8) int32 {
	if a == actNone8 {
		return -1
	}
	return int32(a)
}

// actOf returns the action of a kept one.
func actOf(a uint16) int32 {
	if a == actNone {
		return -1
	}
	return int32(a)
}

// The kept list of a state: its offset in succTo (succOffBits bits) and
// its count (succNBits bits; succNMax: the count is in succBig) in one
// word.
const (
	succNBits   = 24
	succOffBits = 64 - succNBits
	succNMax    = 1<<succNBits - 1
)

// The kept lists are in chunks of listChunk entries (or, for a longer
// list, a chunk of its own), so that they grow without copying: a list's
// offset is its chunk's number << listChunkBits | its place there, and no
// list spans two chunks.
const (
	listChunkBits = 16
	listChunk     = 1 << listChunkBits
)

// chunked is an array of kept lists in chunks (listChunk).
type chunked[T any] struct{ c [][]T }

// list returns the n entries at offset off.
func (a *chunked[T]) list(off, n int64) []T {
	k := off & (listChunk - 1)
	return a.c[off>>listChunkBits][k : k+n : k+n]
}

// room makes room for a list of n entries at offset off, that
// [system.listRoom] chose, and returns it.
func (a *chunked[T]) room(off, n int64) []T {
	if c := off >> listChunkBits; int(c) == len(a.c) {
		a.c = append(a.c, make([]T, max(n, listChunk)))
	}
	return a.list(off, n)
}

// bytes returns the bytes of the chunks.
func (a *chunked[T]) bytes() int64 {
	b := bytesOf(a.c)
	for _, c := range a.c {
		b += bytesOf(c)
	}
	return b
}

// listRoom returns the offset of the next kept list, of n entries: the
// next place of the last chunk when it fits there, else the start of a
// new chunk; and moves succEnd past it.
func (s *system) listRoom(n int64) int64 {
	off := s.succEnd
	if k := off & (listChunk - 1); k != 0 && k+n > listChunk {
		off += listChunk - k // to the next chunk
	}
	s.succEnd = off + n
	if n > listChunk {
		// A chunk of its own (off starts a chunk here): the next list
		// starts a new chunk.
		s.succEnd = (off>>listChunkBits + 1) << listChunkBits
	}
	return off
}

// errTooManySuccessors is the failure of a system whose kept successor
// lists outgrow succOffBits.
var errTooManySuccessors = errors.New("ltl: more than 2^40 system transitions kept")

// listAt returns the offset and the length of the kept list of the
// expanded state idx.
func (s *system) listAt(idx uint32) (off, n int64) {
	w := s.succAt.get(idx)
	off, n = int64(w>>succNBits), int64(w&succNMax)
	if n == succNMax {
		n = s.succBig[idx]
	}
	return off, n
}

// setList records the offset and the length of the kept list of state
// idx.
func (s *system) setList(idx uint32, off, n int64) error {
	if off >= 1<<succOffBits {
		return errTooManySuccessors
	}
	if n >= succNMax {
		s.succBig[idx] = n
		n = succNMax
	}
	*s.succAt.at(idx) = uint64(off)<<succNBits | uint64(n)
	return nil
}

// succ is a system successor: the target state, the action (-1: the
// stutter of a state without enabled action) and, under thread tracking,
// the id of the permutation that canonicalised the target.
type succ struct {
	to   uint32
	act  int32
	perm uint32
}

// succSlot holds the successor list of one state in the cache: key is
// state<<1 | rest, plus one (0: empty slot).
type succSlot struct {
	key  uint64
	list []succ
}

// maxCache is the largest number of slots of the successor cache.
const maxCache = 1 << 16

type unit struct {
	strong   bool
	name     string
	threaded bool // checked per thread (cycle.go), not as a unit
}

func newSystem(prog *machine.Program, pn *plan, keep bool) *system {
	m := prog.Model
	s := &system{prog: prog, mach: prog.NewMachine(), store: newSystemStore(prog), key: pn.key, from: noParent, keep: keep, restAt: map[uint32][2]int64{}, succBig: map[uint32]int64{},
		canon: pn.canon, ample: pn.ample, rest: map[uint32]bool{}, failure: map[uint32]*machine.ExecError{},
		unp: make([]int64, prog.Slots()), packed: make([]uint64, prog.Words()), remach: prog.NewMachine()}
	s.visitFn, s.stutFn = s.visit, s.stutter
	if s.canon != nil {
		s.canonFn = s.canon.Func()
	}
	var unitActs [][]int
	for d, f := range m.Fairness {
		for _, u := range f.Units {
			s.units = append(s.units, unit{strong: f.Strong, name: f.Name})
			s.unitDecl = append(s.unitDecl, d)
			unitActs = append(unitActs, u)
		}
	}
	if s.canon != nil && len(pn.threads) > 0 {
		s.threads = pn.threads
		types := s.canon.Types()
		for _, td := range s.threads {
			s.typeOf = append(s.typeOf, slices.Index(types, td.typ))
			for _, u := range td.units {
				s.units[u].threaded = true
			}
		}
		s.permIDs = map[string]uint32{}
		for _, t := range types {
			s.permBuf = append(s.permBuf, make([]int32, t.Size()))
			for i := range s.permBuf[len(s.permBuf)-1] {
				s.permBuf[len(s.permBuf)-1][i] = int32(i)
			}
		}
		s.internPerm() // the identity gets id 0
	}
	s.keepAct = keep && len(s.units) > 0 && len(m.Actions) < actNone
	s.act8 = len(m.Actions) < actNone8
	s.uw = (len(s.units) + 63) / 64
	s.actionUnits = make([]uint64, len(m.Actions)*s.uw)
	for k, acts := range unitActs {
		for _, a := range acts {
			s.actionUnits[a*s.uw+k/64] |= 1 << uint(k%64)
		}
	}
	return s
}

// newSystemStore returns the store of the system's states: one whose
// table slots hold the vectors when they are one word of at most 32 bits
// (a look-up then reads no record), else one of vectors of at least one
// word.
func newSystemStore(prog *machine.Program) *machine.Store {
	if prog.Words() == 0 {
		return machine.NewStore(1)
	}
	return machine.NewStoreFor(prog)
}

// internPerm returns the id of the permutation in s.permBuf.
func (s *system) internPerm() uint32 {
	b := s.permKey[:0]
	for _, p := range s.permBuf {
		for _, x := range p {
			b = append(b, byte(x))
		}
		b = append(b, 0xff)
	}
	s.permKey = b
	id, ok := s.permIDs[string(b)] // no allocation: a lookup
	if !ok {
		id = uint32(len(s.perms))
		s.permIDs[string(b)] = id
		cp := make([][]int32, len(s.permBuf))
		for t, p := range s.permBuf {
			cp[t] = slices.Clone(p)
		}
		s.perms = append(s.perms, cp)
	}
	return id
}

// add stores the canonical form of t. Under thread tracking, s.lastPerm
// is the id of the permutation that canonicalised it.
func (s *system) add(t machine.State) (uint32, error) {
	vec := t
	if s.canon != nil {
		s.prog.Unpack(s.unp, t)
		if s.threads != nil {
			s.canon.Perm(s.unp, s.permBuf)
			s.lastPerm = s.internPerm()
		} else {
			s.canonFn(s.unp)
		}
		s.prog.Pack(s.packed, s.unp)
		vec = s.packed
	}
	if len(vec) == 0 {
		vec = []uint64{0}
	}
	if s.fp != nil {
		idx, isNew, err := s.fp.insert(vec, s.from)
		if err != nil {
			return 0, err
		}
		if isNew {
			s.added()
		}
		return idx, nil
	}
	return s.insert(vec, s.store.Hash(vec))
}

// insert stores vec, whose hash is h, in the store (not under hash
// compaction). The store is the system's alone, so the insert takes no
// shard lock (and looks the vector up once, not before and after one).
func (s *system) insert(vec []uint64, h uint64) (uint32, error) {
	idx, isNew, err := s.store.InsertHashed(vec, h, 0, false)
	if err != nil {
		return 0, err
	}
	if isNew {
		s.added()
	}
	return idx, nil
}

// added extends the per-state arrays for a state just stored.
func (s *system) added() {
	s.expanded.add()
	s.reduced.add()
	if s.keep {
		s.succAt.push(0)
	}
}

func (s *system) init() error {
	var addErr error
	batched := s.batched()
	err := s.mach.Init(func(_ int, t machine.State) {
		if batched {
			// Inserted in batches, in this order (batch.go).
			s.pendPush(0, t)
			if s.pcol.N == initBatch {
				s.flushInits(&addErr)
			}
			return
		}
		// The store holds only initial states yet: one seen before is
		// a duplicate (no quadratic scan of s.inits).
		n := s.len()
		idx, err := s.add(t)
		if err != nil {
			addErr = err
			return
		}
		if s.len() == n {
			return
		}
		s.inits.push(idx)
	})
	if batched {
		s.flushInits(&addErr)
	}
	if s.fp != nil {
		s.fp.initDone = true
	}
	if err != nil {
		return err
	}
	return addErr
}

// len returns the number of states stored.
func (s *system) len() int64 {
	if s.fp != nil {
		return s.fp.Len()
	}
	return s.store.Len()
}

// state returns the packed state idx in the layout the machine expects.
func (s *system) state(idx uint32) machine.State {
	if s.prog.Words() == 0 {
		return nil
	}
	if s.fp != nil {
		return s.compactState(idx)
	}
	return s.store.Vector(idx)
}

// expand expands state idx once: it computes its successors (those of
// its ample set under partial-order reduction, reduced[idx] then set when
// the set is proper, else all), adds them to the store, counts them and
// records the units they enable; the list stays in the cache
// ([system.succs] computes it again when asked for later). An execution
// failure is remembered and returned on every call.
func (s *system) expand(idx uint32) error {
	if s.expanded.has(idx) {
		if f := s.failure[idx]; f != nil {
			return f
		}
		return nil
	}
	st := s.state(idx) // before expanded: under hash compaction, the vector kept
	s.expanded.set(idx, true)
	if s.fp != nil {
		s.from = idx
		defer s.released(idx)
	}
	var err error
	if s.pendAt < len(s.pend) && s.pend[s.pendAt].idx == idx {
		err = s.replay() // computed ahead by prefetch (batch.go)
	} else {
		s.dropPending() // not the order prefetch foresaw
		err = s.compute(idx, st)
	}
	if err != nil {
		var ee *machine.ExecError
		if errors.As(err, &ee) {
			s.failure[idx] = ee
		}
		if errors.Is(err, machine.ErrInterrupted) {
			s.expanded.set(idx, false) // a later check expands it again
		}
		return err
	}
	s.fill(idx, false)
	if s.keep {
		if err := s.setList(idx, s.appendSuccs(), int64(len(s.buf))); err != nil {
			return err
		}
	}
	en := make([]uint64, s.uw)
	if s.buf[0] >= 0 { // the stutter is no transition and enables no unit
		s.transitions += int64(len(s.buf))
	}
	for _, a := range s.buf {
		if a < 0 {
			continue
		}
		for w := 0; w < s.uw; w++ {
			en[w] |= s.actionUnits[int(a)*s.uw+w]
		}
	}
	if s.units8() {
		for len(s.enabled8) <= int(idx) {
			s.enabled8 = append(s.enabled8, 0)
		}
		s.enabled8[idx] = uint8(en[0])
		return nil
	}
	for int64(len(s.enabled)) < int64(idx+1)*int64(s.uw) {
		s.enabled = append(s.enabled, make([]uint64, s.uw)...)
	}
	copy(s.enabled[int(idx)*s.uw:], en)
	return nil
}

// compute fills s.buf/s.bufTo/s.bufPerm with the successors of state
// idx (st) by the machine, adding them to the store: those of its ample
// set under partial-order reduction (reduced[idx] then set when the set
// is proper), else all, or the stutter step of a state without enabled
// action.
func (s *system) compute(idx uint32, st machine.State) error {
	var acts []int // nil: every action
	if s.ample != nil {
		en, sub := s.ampleSet(s.mach, st)
		if s.mach.Interrupted() { // a guard's evaluation was cut short: en is wrong
			return machine.ErrInterrupted
		}
		if len(sub) < len(en) {
			acts = sub
		}
	}
	err := s.successors(s.mach, st, acts)
	if err == nil && acts != nil {
		if len(s.buf) > 0 {
			s.reduced.set(idx, true)
		} else { // the ample set yields no successor: take every action
			err = s.successors(s.mach, st, nil)
		}
	}
	if err == nil && len(s.buf) == 0 {
		err = s.stutterStep(s.mach, idx, st)
	}
	return err
}

// units8 reports whether the system has 1 to 8 fairness units: the units
// enabled in a state are then a byte of enabled8.
func (s *system) units8() bool { return s.uw == 1 && len(s.units) <= 8 }

// released drops the vector hash compaction kept for the state idx once
// its expansion is done (interrupted, it stays for the next).
func (s *system) released(idx uint32) {
	if s.expanded.has(idx) {
		s.fp.release(idx, &s.expanded)
	}
}

// stutterStep puts into buf the one successor of state idx (st), which
// has no enabled action: the state repeats forever. The past-time
// monitors keep evolving on the repetition (previously φ becomes φ
// here): the stutter step leads to the state with the monitors updated,
// which differs from this one at most as many times as previously nests,
// then loops on itself.
func (s *system) stutterStep(m *machine.Machine, idx uint32, st machine.State) error {
	s.stutTo, s.stutPrm, s.addErr = idx, 0, nil
	if len(s.prog.Model.Stutter) > 0 {
		err := m.Stutter(st, s.stutFn)
		if err == nil {
			err = s.addErr
		}
		if err != nil {
			return err
		}
	}
	s.buf = append(s.buf[:0], -1)
	s.bufTo = append(s.bufTo[:0], s.stutTo)
	s.bufPerm = append(s.bufPerm[:0], s.stutPrm)
	return nil
}

// stutter is the visit function of stutterStep (a method value taken
// once, so that the hot loop allocates no closure).
func (s *system) stutter(t machine.State) {
	s.stutTo, s.addErr = s.add(t)
	if s.threads != nil && s.canon != nil {
		s.stutPrm = s.lastPerm
	}
}

// ampleSet returns the enabled actions of st and the ample subset the
// partial-order reduction chooses, in buffers of s reused by the next
// call.
func (s *system) ampleSet(m *machine.Machine, st machine.State) (en, sub []int) {
	s.en = m.Enabled(st, s.en[:0])
	if len(s.en) == 0 {
		return nil, nil
	}
	s.prog.Unpack(s.unp, st)
	s.enSub = append(s.enSub[:0], s.en...)
	return s.en, s.ample(s.unp, s.enSub)
}

// successors fills s.buf/s.bufTo/s.bufPerm with the successors of st by
// acts (nil: every action), computed by m, adding them to the store.
func (s *system) successors(m *machine.Machine, st machine.State, acts []int) error {
	s.buf, s.bufTo, s.bufPerm = s.buf[:0], s.bufTo[:0], s.bufPerm[:0]
	s.addErr = nil
	var err error
	if acts == nil {
		err = m.Successors(st, s.visitFn)
	} else {
		err = m.SuccessorsOf(st, acts, s.visitFn)
	}
	if err == nil {
		err = s.addErr
	}
	return err
}

// visit is the visit function of successors (a method value taken once).
func (s *system) visit(action, _ int, t machine.State) {
	to, err := s.add(t)
	if err != nil {
		s.addErr = err
		return
	}
	s.buf = append(s.buf, int32(action))
	s.bufTo = append(s.bufTo, to)
	s.bufPerm = append(s.bufPerm, s.lastPerm)
}

// appendSuccs keeps the successors in buf, in succTo/succAct/succPerm,
// and returns their offset there.
func (s *system) appendSuccs() int64 {
	n := int64(len(s.buf))
	off := s.listRoom(n)
	switch {
	case s.keepAct && s.act8:
		dst := s.succAct8.room(off, n)
		for k, a := range s.buf {
			dst[k] = uint8(a) // -1 (the stutter) is actNone8
		}
	case s.keepAct:
		dst := s.succAct.room(off, n)
		for k, a := range s.buf {
			dst[k] = uint16(a) // -1 (the stutter) is actNone
		}
	}
	copy(s.succTo.room(off, n), s.bufTo)
	if s.threads != nil {
		copy(s.succPerm.room(off, n), s.bufPerm)
	}
	return off
}

// restOf computes, once, the successors of the expanded, reduced state
// idx by the enabled actions outside its ample set; the list stays in the
// cache ([system.succs] with rest).
func (s *system) restOf(idx uint32) error {
	if s.rest[idx] {
		return nil
	}
	if s.fp != nil {
		s.from = idx
	}
	if err := s.otherSuccessors(s.mach, idx); err != nil {
		return err
	}
	s.fill(idx, true)
	if s.keep {
		s.restAt[idx] = [2]int64{s.appendSuccs(), int64(len(s.buf))}
	}
	s.transitions += int64(len(s.buf))
	s.rest[idx] = true
	return nil
}

// otherSuccessors fills s.buf/s.bufTo/s.bufPerm with the successors of
// the reduced state idx by the enabled actions outside its ample set.
func (s *system) otherSuccessors(m *machine.Machine, idx uint32) error {
	st := s.state(idx)
	en, sub := s.ampleSet(m, st)
	s.others = s.others[:0]
	for _, a := range en {
		if !slices.Contains(sub, a) {
			s.others = append(s.others, a)
		}
	}
	return s.successors(m, st, s.others)
}

// succs returns the successors of the expanded state idx (rest: those
// outside its ample set, once restOf computed them), in the order its
// expansion found them: from the cache, else computed again. A state
// whose expansion failed has none (the product stops at the failure
// anyway). The list is valid until the next call.
func (s *system) succs(idx uint32, rest bool) []succ {
	if rest && !s.rest[idx] || !rest && s.failure[idx] != nil {
		return nil
	}
	if sl := s.slot(idx, rest); sl.key == uint64(idx)<<1+b2u(rest)+1 {
		return sl.list
	}
	if s.keep && s.keepAct {
		off, n := s.listAt(idx)
		if rest {
			r := s.restAt[idx]
			off, n = r[0], r[1]
		}
		s.buf = s.buf[:0]
		if s.act8 {
			for _, a := range s.succAct8.list(off, n) {
				s.buf = append(s.buf, actOf8(a))
			}
		} else {
			for _, a := range s.succAct.list(off, n) {
				s.buf = append(s.buf, actOf(a))
			}
		}
		s.bufTo = append(s.bufTo[:0], s.succTo.list(off, n)...)
		s.bufPerm = s.bufPerm[:0]
		if s.threads != nil {
			s.bufPerm = append(s.bufPerm, s.succPerm.list(off, n)...)
		} else {
			for range n {
				s.bufPerm = append(s.bufPerm, 0)
			}
		}
		return s.fill(idx, rest)
	}
	st := s.state(idx)
	var err error
	switch {
	case rest:
		err = s.otherSuccessors(s.remach, idx)
	case s.reduced.has(idx):
		_, sub := s.ampleSet(s.remach, st)
		err = s.successors(s.remach, st, sub)
	default:
		err = s.successors(s.remach, st, nil)
		if err == nil && len(s.buf) == 0 {
			err = s.stutterStep(s.remach, idx, st)
		}
	}
	if err != nil || !rest && len(s.buf) == 0 {
		panic(fmt.Sprintf("wrapcheck internal error: ltl: the successors of state %d computed again differ (%v)", idx, err))
	}
	return s.fill(idx, rest)
}

// slot returns the cache slot of the successors of idx (rest: those
// outside its ample set), growing the cache with the store up to
// maxCache slots (a grown cache starts empty); 64 when the lists are
// kept (a list is then copied, not computed, on a miss).
func (s *system) slot(idx uint32, rest bool) *succSlot {
	limit := maxCache
	if s.keep {
		limit = 64
	}
	if n, want := len(s.cache), 2*s.len(); n < limit && int64(n) < want {
		n = max(n, 64)
		for n < limit && int64(n) < want {
			n *= 2
		}
		s.cache = make([]succSlot, n)
	}
	key := uint64(idx)<<1 + b2u(rest)
	return &s.cache[mix(key)&uint64(len(s.cache)-1)]
}

// fill puts the successors in buf, those of state idx (rest: outside its
// ample set) that expand, restOf or succs just computed, into its cache
// slot, and returns the list there.
func (s *system) fill(idx uint32, rest bool) []succ {
	sl := s.slot(idx, rest)
	sl.key = uint64(idx)<<1 + b2u(rest) + 1
	sl.list = sl.list[:0]
	for i, a := range s.buf {
		sl.list = append(sl.list, succ{to: s.bufTo[i], act: a, perm: s.bufPerm[i]})
	}
	return sl.list
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// unitsEnabled returns the units enabled in the expanded state idx
// (valid until the next call).
func (s *system) unitsEnabled(idx uint32) []uint64 {
	if s.units8() {
		s.enBuf[0] = uint64(s.enabled8[idx])
		return s.enBuf[:]
	}
	return s.enabled[int(idx)*s.uw : int(idx+1)*s.uw]
}

// product is the product of the system with the automaton of a negated
// property, explored breadth-first: node ids are in BFS order, so the
// parent links give shortest paths and a smaller id is never deeper.
type product struct {
	ctx   context.Context
	sys   *system
	aut   *Automaton
	preds []*machine.Pred // per group of atomGroup atoms: their bit mask
	aw    int             // words per atom valuation
	vals  []uint64        // per system state: aw words of atom values
	valOK []bool
	// With at most 7 atoms (small), a state's valuation is a byte of
	// vals8 instead, with valKnown set once computed.
	small   bool
	vals8   paged[uint8]
	valBuf  [1]uint64
	limit   int64
	budget  int64  // heap bytes; 0: none
	ignored []bool // per unit of sys: left out (Options.IgnoreFairness)

	progress func(checker.Progress)
	name     string    // the property, for progress
	started  time.Time // the check's start, for progress
	lastProg time.Time

	liveBuf    []int32     // appendEdges: the automaton edges whose label holds
	liveTab    [][]int32   // liveEdges: those per (automaton state, valuation)
	tmpEdges   []edge      // appendTargets: the edges of a node
	sink       uint32      // what appendTargetsOf's touching loads read
	firstCheck int         // expanded nodes at the first cycle search
	hashNodes  bool        // Options.hashNodes
	filter     filterMode  // Options.filter
	useFilter  bool        // the OWCTY filter runs (filter, and the units)
	phases     *phaseStats // Options.phases
	// searchBytes is the largest footprint of a cycle search so far.
	searchBytes int64

	// The node of (system state, automaton state): in dense, at
	// sysIdx*len(aut.States)+q, id+1 (0: none), when the automaton has at
	// most denseAutomaton states; else in nodes, key sysIdx<<32 | q.
	dense   []uint32
	nodes   nodeTable
	nodeSys []uint32
	nodeQ   []uint16 // the automaton state, qBig: in bigQ
	bigQ    map[uint32]int32
	parent  paged[uint32]
	// Node ids are in BFS order, so the depth of a node is the level
	// whose range holds its id: levels[d] is the first node of depth d.
	levels   []uint32
	curDepth int32 // the depth of the node expandNode expands
	maxDepth int
	// indeg counts per node the edges into it from the expanded nodes
	// (when the filter runs): the OWCTY filter's first elimination starts
	// from it instead of a pass over the product's edges.
	indeg []uint32

	// The edges are not kept: those of a node are computed again from
	// the system's successors and the automaton ([product.edges]), in
	// the order the expansion found them. Nodes 0..expandedN-1 are
	// expanded; full marks those that also took the successors outside
	// their ample set (the cycle proviso).
	expandedN int
	edgesN    int64
	downEdges int64 // the edges to a smaller id (the filter's scan)
	full      []uint64
	// record keeps the edges of node i as expandNode found them in
	// recorded[recordOff[i]:recordOff[i+1]] (tests).
	record    bool
	recorded  []edge
	recordOff []int64

	// collided is errCollision when hash compaction made the violation
	// found no run of the system.
	collided error

	// Set when the exploration stops on a failure.
	failNode uint32
	failErr  *machine.ExecError
	failPred bool
}

const noParent = ^uint32(0)

func newProduct(ctx context.Context, sys *system, aut *Automaton, atoms []*spec.Expr, limit int64) (*product, error) {
	p := &product{ctx: ctx, sys: sys, aut: aut, aw: (len(atoms) + 63) / 64, small: len(atoms) <= 7, limit: limit, firstCheck: defaultFirstCheck,
		ignored: make([]bool, len(sys.units))}
	// Atoms are evaluated in groups of up to 62 by one predicate that
	// computes their bit mask (sum of if atom_i then 2^i else 0), so the
	// state is unpacked once per group.
	intT := &spec.Type{Kind: spec.IntKind, Width: 1}
	for lo := 0; lo < len(atoms); lo += atomGroup {
		var sum *spec.Expr
		for i := lo; i < min(lo+atomGroup, len(atoms)); i++ {
			a := atoms[i]
			bit := &spec.Expr{Op: spec.OpCond, Type: intT, Pos: a.Pos, Args: []*spec.Expr{a,
				{Op: spec.OpConst, Type: intT, Val: 1 << uint(i-lo)}, {Op: spec.OpConst, Type: intT, Val: 0}}}
			if sum == nil {
				sum = bit
			} else {
				sum = &spec.Expr{Op: spec.OpAdd, Type: intT, Pos: a.Pos, Args: []*spec.Expr{sum, bit}}
			}
		}
		pr, err := sys.prog.CompileExpr(sum)
		if err != nil {
			return nil, err
		}
		p.preds = append(p.preds, pr)
	}
	return p, nil
}

const atomGroup = 62

// ignore leaves out the units of the given fairness declarations.
func (p *product) ignore(decls []int) {
	p.ignored = make([]bool, len(p.sys.units))
	for u, d := range p.sys.unitDecl {
		p.ignored[u] = slices.Contains(decls, d)
	}
}

// atomValues returns the atom valuation of system state idx (valid until
// the next call of atomValues or valsOf).
func (p *product) atomValues(idx uint32) ([]uint64, error) {
	if p.small {
		if int(idx) >= p.vals8.len() {
			p.vals8.extend(int(idx) + 1)
		}
		if v8 := p.vals8.at(idx); *v8&valKnown == 0 {
			v := uint8(valKnown)
			st := p.sys.state(idx)
			for _, pr := range p.preds {
				x, err := p.sys.mach.Eval(pr, st)
				if err != nil {
					return nil, err
				}
				v |= uint8(x)
			}
			*v8 = v
		}
		return p.valsOf(idx), nil
	}
	for len(p.valOK) <= int(idx) {
		p.valOK = append(p.valOK, false)
		p.vals = append(p.vals, make([]uint64, p.aw)...)
	}
	v := p.vals[int(idx)*p.aw : int(idx+1)*p.aw]
	if p.valOK[idx] {
		return v, nil
	}
	st := p.sys.state(idx)
	for g, pr := range p.preds {
		x, err := p.sys.mach.Eval(pr, st)
		if err != nil {
			return nil, err
		}
		for k := 0; x != 0; k++ {
			if x&1 != 0 {
				i := g*atomGroup + k
				v[i/64] |= 1 << uint(i%64)
			}
			x >>= 1
		}
	}
	p.valOK[idx] = true
	return v, nil
}

// valKnown marks a computed valuation in vals8.
const valKnown = 1 << 7

// valsOf returns the atom valuation of the system state s, which
// atomValues computed (valid until the next call of atomValues or
// valsOf).
func (p *product) valsOf(s uint32) []uint64 {
	if p.small {
		p.valBuf[0] = uint64(p.vals8.get(s) &^ valKnown)
		return p.valBuf[:]
	}
	return p.vals[int(s)*p.aw : int(s+1)*p.aw]
}

// liveEdges returns the indexes of the edges of automaton state q whose
// label holds at the atom values vals (read-only: p.liveBuf, reused, or
// the list liveTab keeps).
func (p *product) liveEdges(q int, vals []uint64) []int32 {
	es := p.aut.States[q].Edges
	if !p.small || len(p.aut.States) > liveTabStates {
		p.liveBuf = p.appendLive(p.liveBuf[:0], es, vals)
		return p.liveBuf
	}
	// At most 7 atoms: the lists per (q, valuation) are computed once.
	if p.liveTab == nil {
		p.liveTab = make([][]int32, len(p.aut.States)<<7)
	}
	k := q<<7 | int(vals[0])
	if l := p.liveTab[k]; l != nil {
		return l
	}
	l := p.appendLive(make([]int32, 0, 1), es, vals) // not nil when empty
	p.liveTab[k] = l
	return l
}

// appendLive appends to dst the indexes of the edges of es whose label
// holds at the atom values vals (liveBuf: dst is kept there).
func (p *product) appendLive(dst []int32, es []Edge, vals []uint64) []int32 {
	for j := range es {
		if labelHolds(es[j].Label, vals) {
			dst = append(dst, int32(j))
		}
	}
	return dst
}

// liveTabStates is the largest automaton whose live edges liveTab keeps
// (128 lists per automaton state).
const liveTabStates = 64

func labelHolds(l Label, vals []uint64) bool {
	for _, lit := range l {
		a := lit.Atom()
		if (vals[a/64]>>uint(a%64))&1 == uint64(lit&1) {
			return false
		}
	}
	return true
}

func (p *product) node(sysIdx uint32, q int, parent uint32, d int32) (uint32, error) {
	if len(p.nodeSys) == int(noParent) {
		return 0, machine.ErrStoreFull
	}
	id, isNew := p.lookup(sysIdx, q)
	if isNew {
		p.nodeSys = append(p.nodeSys, sysIdx)
		if q >= qBig {
			if p.bigQ == nil {
				p.bigQ = map[uint32]int32{}
			}
			p.bigQ[id] = int32(q)
			q = qBig
		}
		p.nodeQ = append(p.nodeQ, uint16(q))
		p.parent.push(parent)
		if int(d) == len(p.levels) {
			p.levels = append(p.levels, id)
			p.maxDepth = int(d)
		}
		if p.useFilter {
			p.indeg = append(p.indeg, 0)
		}
	}
	return id, nil
}

// qBig is the nodeQ of a node whose automaton state is kept in bigQ (an
// automaton of more than qBig states; 2 bytes a node otherwise).
const qBig = 1<<16 - 1

// stateQ returns the automaton state of node v.
func (p *product) stateQ(v uint32) int {
	if q := p.nodeQ[v]; q != qBig {
		return int(q)
	}
	return int(p.bigQ[v])
}

// footprint returns the bytes the product's search keeps (see
// PropertyStats.Bytes).
func (p *product) footprint() int64 {
	s := p.sys
	var b int64
	if s.fp != nil {
		b = s.fp.Bytes()
	} else {
		b = s.store.Bytes()
	}
	b += bytesOf(s.expanded.w) + bytesOf(s.enabled) + bytesOf(s.enabled8) + bytesOf(s.reduced.w) + bytesOf(s.cache) +
		s.succAt.bytes() + s.succTo.bytes() + s.succAct.bytes() + s.succAct8.bytes() + s.succPerm.bytes()
	for _, sl := range s.cache {
		b += bytesOf(sl.list)
	}
	b += bytesOf(p.vals) + p.vals8.bytes() + bytesOf(p.valOK) + bytesOf(p.dense) + bytesOf(p.nodes.keys) + bytesOf(p.nodes.ids) +
		bytesOf(p.nodeSys) + bytesOf(p.nodeQ) + p.parent.bytes() + bytesOf(p.levels) + bytesOf(p.indeg) +
		bytesOf(p.full) + bytesOf(p.liveTab)
	for _, l := range p.liveTab {
		b += bytesOf(l)
	}
	return b + p.searchBytes
}

// bytesOf returns the bytes of the array behind x.
func bytesOf[T any](x []T) int64 {
	var z T
	return int64(cap(x)) * int64(unsafe.Sizeof(z))
}

// denseAutomaton is the largest automaton whose product nodes are found
// through the dense array (4 bytes per system state and automaton state,
// no more than the hash table's 16 to 32 bytes per node, and the nodes
// of consecutive system states are near each other in memory).
const denseAutomaton = 8

// denseIndex reports whether the product's nodes are found in the dense
// index (else in the hash index nodes).
func (p *product) denseIndex() bool {
	return len(p.aut.States) <= denseAutomaton && !p.hashNodes
}

// lookup returns the id of node (sysIdx, q), adding it with the next id
// (len(p.nodeSys)) when absent.
func (p *product) lookup(sysIdx uint32, q int) (uint32, bool) {
	next := uint32(len(p.nodeSys))
	na := len(p.aut.States)
	if !p.denseIndex() {
		return p.nodes.insert(uint64(sysIdx)<<32|uint64(q), next)
	}
	k := int(sysIdx)*na + q
	if k >= len(p.dense) {
		p.dense = slices.Grow(p.dense, k+1-len(p.dense))
		p.dense = p.dense[:cap(p.dense)]
	}
	if id := p.dense[k]; id != 0 {
		return id - 1, false
	}
	p.dense[k] = next + 1
	return next, true
}

// start adds the initial product nodes.
func (p *product) start() error {
	p.reserve(int(p.sys.inits.len()))
	for k := range p.sys.inits.len() {
		s := p.sys.inits.get(uint32(k))
		if _, err := p.node(s, p.aut.Init, noParent, 0); err != nil {
			return err
		}
	}
	return nil
}

// reserve makes room in the per-node arrays for n more nodes at once, and
// in the dense index for every system state stored so far, so that a
// product with many initial nodes (CoffeeCan's are all its states) does
// not grow them by a quarter at a time, copying each one about four
// times over.
func (p *product) reserve(n int) {
	p.nodeSys = slices.Grow(p.nodeSys, n)
	p.nodeQ = slices.Grow(p.nodeQ, n)
	if p.useFilter {
		p.indeg = slices.Grow(p.indeg, n)
	}
	if na := len(p.aut.States); p.denseIndex() {
		if k := int(p.sys.len()) * na; k > len(p.dense) {
			p.dense = slices.Grow(p.dense, k-len(p.dense))
			p.dense = p.dense[:cap(p.dense)]
		}
	}
}

// expanded returns the number of expanded nodes: nodes 0..expanded()-1
// have their edges.
func (p *product) expanded() int { return p.expandedN }

// edge is a product edge: to node to, by the system's action act (-1: the
// stutter of a state without enabled action), in the acceptance sets acc;
// perm is the id of the permutation that canonicalised the system
// successor (thread tracking only).
type edge struct {
	to   uint32
	act  int32
	perm uint32
	acc  uint64
}

// edgeCursor enumerates the edges of one expanded node v: for each system
// successor of its state (its ample set's, then, when v is full, the
// others'), each automaton edge whose label holds, in the order
// expandNode found them (the passes over the product take a node's
// edges at once, [product.appendEdges]): k is the next system successor (its
// place in the state's list, [system.succs]), j the next automaton edge
// there, negative (-j-1) once the cursor is in the list of the successors
// outside the ample set.
type edgeCursor struct {
	k int64
	v uint32
	j int32
}

// edges returns a cursor over the edges of the expanded node v.
func (p *product) edges(v uint32) edgeCursor {
	return edgeCursor{v: v}
}

// next returns the next edge of c, or false when there is none.
func (p *product) next(c *edgeCursor) (edge, bool) {
	sys := p.sys
	s := p.nodeSys[c.v]
	if !sys.expanded.has(s) {
		return edge{}, false
	}
	rest := c.j < 0
	if e, ok := p.step(c, sys.succs(s, rest), rest); ok || rest || !p.isFull(c.v) {
		return e, ok
	}
	c.k, c.j = 0, -1
	return p.step(c, sys.succs(s, true), true)
}

// isFull reports whether node v took the successors outside its ample
// set too (the cycle proviso).
func (p *product) isFull(v uint32) bool {
	return int(v/64) < len(p.full) && p.full[v/64]>>(v%64)&1 != 0
}

// step returns the next edge of c by the successors in list (those
// outside the ample set when rest), or false at its end.
func (p *product) step(c *edgeCursor, list []succ, rest bool) (edge, bool) {
	s := p.nodeSys[c.v]
	es := p.aut.States[p.stateQ(c.v)].Edges
	vals := p.valsOf(s)
	j := int(c.j)
	if rest {
		j = -j - 1
	}
	for ; c.k < int64(len(list)); c.k++ {
		sc := &list[c.k]
		for j < len(es) {
			e := &es[j]
			j++
			if !labelHolds(e.Label, vals) {
				continue
			}
			ed := edge{to: p.find(sc.to, e.To), act: sc.act, acc: e.Acc}
			if p.sys.threads != nil {
				ed.perm = sc.perm
			}
			c.j = int32(j)
			if rest {
				c.j = int32(-j - 1)
			}
			return ed, true
		}
		j = 0
	}
	return edge{}, false
}

// appendEdges appends the edges of the expanded node v to dst, in the
// order of its cursor ([product.next]), and returns dst: the passes over
// the product take a node's edges in one call, the labels of its
// automaton state evaluated once (not once per system successor) and the
// kept successor lists read in place.
func (p *product) appendEdges(dst []edge, v uint32) []edge {
	// The passes read the actions when there are fairness units: a
	// system that keeps no actions then computes its lists again (a
	// model of actNone actions or more).
	return p.edgesOf(dst, v, len(p.sys.units) > 0)
}

// actEdges is [product.appendEdges] with the edges' actions also when
// the system keeps its successors' targets only (not system.keepAct):
// the lists are then computed again.
func (p *product) actEdges(dst []edge, v uint32) []edge {
	return p.edgesOf(dst, v, true)
}

// edgesOf appends the edges of the expanded node v to dst; their actions
// are noAct when the system keeps its successors' targets only and acts
// is false.
func (p *product) edgesOf(dst []edge, v uint32, acts bool) []edge {
	s, es, live, ok := p.liveOf(v)
	if !ok {
		return dst
	}
	dst = p.appendBy(dst, s, false, es, live, acts)
	if p.isFull(v) {
		dst = p.appendBy(dst, s, true, es, live, acts)
	}
	return dst
}

// liveOf returns the system state of the expanded node v, the edges of
// its automaton state and, in p.liveBuf, the indexes of those whose label
// holds there; ok is false when v has no edge (its system state was not
// expanded, or no label holds).
func (p *product) liveOf(v uint32) (s uint32, es []Edge, live []int32, ok bool) {
	s = p.nodeSys[v]
	if !p.sys.expanded.has(s) {
		return s, nil, nil, false
	}
	q := p.stateQ(v)
	es = p.aut.States[q].Edges
	live = p.liveEdges(q, p.valsOf(s))
	return s, es, live, len(live) > 0
}

// noAct is the action of an edge whose action is not known (see
// [product.edgesOf]).
const noAct = -2

// appendBy appends the edges by the system successors of state s (rest:
// those outside its ample set) and the automaton edges es[live]; with
// acts, the actions also when the system does not keep them.
func (p *product) appendBy(dst []edge, s uint32, rest bool, es []Edge, live []int32, acts bool) []edge {
	sys := p.sys
	threads := sys.threads != nil
	if sys.keep && (sys.keepAct || !acts) {
		off, n := sys.keptList(s, rest)
		to := sys.succTo.list(off, n)
		var act []uint16
		var act8 []uint8
		var perms []uint32
		switch {
		case sys.keepAct && sys.act8:
			act8 = sys.succAct8.list(off, n)
		case sys.keepAct:
			act = sys.succAct.list(off, n)
		}
		if threads {
			perms = sys.succPerm.list(off, n)
		}
		for k := range to {
			var perm uint32
			if threads {
				perm = perms[k]
			}
			a := int32(noAct)
			switch {
			case act8 != nil:
				a = actOf8(act8[k])
			case act != nil:
				a = actOf(act[k])
			}
			for _, j := range live {
				e := &es[j]
				dst = append(dst, edge{to: p.find(to[k], e.To), act: a, perm: perm, acc: e.Acc})
			}
		}
		return dst
	}
	list := sys.succs(s, rest)
	for k := range list {
		sc := &list[k]
		var perm uint32
		if threads {
			perm = sc.perm
		}
		for _, j := range live {
			e := &es[j]
			dst = append(dst, edge{to: p.find(sc.to, e.To), act: sc.act, perm: perm, acc: e.Acc})
		}
	}
	return dst
}

// keptList returns the offset and the length in succTo of the kept list
// of the expanded state s (rest: of its successors outside its ample
// set; none when restOf did not compute them).
func (s *system) keptList(idx uint32, rest bool) (off, n int64) {
	if !rest {
		return s.listAt(idx)
	}
	if !s.rest[idx] {
		return 0, 0
	}
	r := s.restAt[idx]
	return r[0], r[1]
}

// appendTargets appends the targets of the edges of the expanded node v
// to dst, in the order of [product.appendEdges], for the passes that need
// no more (the OWCTY filter's eliminations): from the kept lists, without
// the edges' actions and acceptance sets.
func (p *product) appendTargets(dst []uint32, v uint32) []uint32 {
	sys := p.sys
	if !sys.keep {
		p.tmpEdges = p.appendEdges(p.tmpEdges[:0], v)
		for _, e := range p.tmpEdges {
			dst = append(dst, e.to)
		}
		return dst
	}
	s, es, live, ok := p.liveOf(v)
	if !ok {
		return dst
	}
	for _, rest := range [2]bool{false, true} {
		if rest && !p.isFull(v) {
			break
		}
		off, n := sys.keptList(s, rest)
		for _, t := range sys.succTo.list(off, n) {
			for _, j := range live {
				dst = append(dst, p.find(t, es[j].To))
			}
		}
	}
	return dst
}

// appendTargetsOf appends the targets of the edges of the expanded nodes
// vs to dst, node after node, as appendTargets does. It first loads,
// stage by stage and each stage in a loop of its own, what appendTargets
// reads for all of them: the nodes' system and automaton states, the
// system states' kept lists' offsets and atom valuations, then the
// lists and the dense index's entries of their targets. The loads of
// one stage do not wait for each other, so their misses overlap.
func (p *product) appendTargetsOf(dst []uint32, vs []uint32) []uint32 {
	sys := p.sys
	if sys.keep && len(vs) <= elimBatch {
		var ss [elimBatch]uint32
		var at [elimBatch]uint64
		var sink uint32
		for i, v := range vs {
			ss[i] = p.nodeSys[v]
			sink += uint32(p.nodeQ[v])
		}
		for i, s := range ss[:len(vs)] {
			at[i] = sys.succAt.get(s)
			if p.small {
				sink += uint32(p.vals8.get(s))
			}
		}
		dense := p.denseIndex()
		na := len(p.aut.States)
		for _, w := range at[:len(vs)] {
			off, n := int64(w>>succNBits), int64(w&succNMax)
			if n == 0 || n == succNMax {
				continue
			}
			for _, t := range sys.succTo.list(off, n) {
				if k := int(t) * na; dense && k < len(p.dense) {
					sink += p.dense[k]
				}
			}
		}
		p.sink += sink
	}
	for _, v := range vs {
		dst = p.appendTargets(dst, v)
	}
	return dst
}

// find returns the id of node (sysIdx, q), which exists: the expansion
// that found the edge to it added it.
func (p *product) find(sysIdx uint32, q int) uint32 {
	na := len(p.aut.States)
	if !p.denseIndex() {
		return p.nodes.find(uint64(sysIdx)<<32 | uint64(q))
	}
	return p.dense[int(sysIdx)*na+q] - 1
}

// explore expands nodes in BFS order until upto nodes are expanded or the
// product is complete (done). It returns a reason other than NotStopped
// when it stopped early (a limit, or the context), and sets failNode/failErr on an
// execution failure.
func (p *product) explore(upto int) (reason checker.StopReason, done bool, err error) {
	batched, ahead := p.sys.batched(), 0
	defer p.sys.dropPending()
	for i := p.expanded(); i < len(p.nodeSys); i++ {
		if i >= upto {
			return checker.NotStopped, false, nil
		}
		if batched && i >= ahead {
			ahead = min(i+prefetchNodes, upto, len(p.nodeSys))
			p.prefetch(i, ahead)
		}
		if i&1023 == 0 {
			if err := p.ctx.Err(); err != nil {
				if errors.Is(err, context.DeadlineExceeded) {
					return checker.StopTimeout, false, nil
				}
				return checker.StopInterrupted, false, nil
			}
		}
		if p.limit > 0 && int64(len(p.nodeSys)) > p.limit {
			return checker.StopStates, false, nil
		}
		if p.budget > 0 && i&(1<<10-1) == 0 && checker.HeapBytes() > uint64(p.budget) {
			return checker.StopMemory, false, nil
		}
		if p.progress != nil && i&(1<<12-1) == 0 && time.Since(p.lastProg) >= time.Second {
			p.lastProg = time.Now()
			p.progress(checker.Progress{Property: p.name, States: int64(len(p.nodeSys)), Transitions: p.edgesN,
				Depth: p.maxDepth, Frontier: len(p.nodeSys) - i, Elapsed: time.Since(p.started), HeapBytes: checker.HeapBytes()})
		}
		stop, err := p.expandNode(i)
		if err != nil || stop {
			return checker.NotStopped, false, err
		}
		p.expandedN++
		if p.record {
			if len(p.recordOff) == 0 {
				p.recordOff = append(p.recordOff, 0)
			}
			p.recordOff = append(p.recordOff, int64(len(p.recorded)))
		}
	}
	return checker.NotStopped, true, nil
}

// expandNode adds the edges of node i. It reports stop on an execution
// failure (recorded in failNode/failErr).
func (p *product) expandNode(i int) (stop bool, err error) {
	sys := p.sys
	id := uint32(i)
	s, q := p.nodeSys[i], p.stateQ(id)
	for int(p.curDepth)+1 < len(p.levels) && p.levels[p.curDepth+1] <= id {
		p.curDepth++
	}
	vals, err := p.atomValues(s)
	if err != nil {
		var ee *machine.ExecError
		if errors.As(err, &ee) {
			p.failNode, p.failErr, p.failPred = id, ee, true
			return true, nil
		}
		return false, err
	}
	// The successors are only needed when an automaton edge can be taken
	// here (on the fly: the automaton prunes the system).
	es := p.aut.States[q].Edges
	live := p.liveEdges(q, vals)
	if len(live) == 0 {
		return false, nil
	}
	if err := sys.expand(s); err != nil {
		var ee *machine.ExecError
		if errors.As(err, &ee) {
			p.failNode, p.failErr = id, ee
			return true, nil
		}
		return false, err
	}
	back, err := p.addEdges(i, es, live, sys.succs(s, false))
	if err != nil || !back || !sys.reduced.has(s) {
		return false, err
	}
	// Cycle proviso (partial-order reduction): an edge back to a node
	// no deeper than this one may close a cycle, and a cycle must not
	// postpone an enabled action forever, so this node takes every
	// enabled action. Every cycle has such an edge (depths cannot grow
	// all the way round), hence a fully expanded node.
	for len(p.full) <= i/64 {
		p.full = append(p.full, 0)
	}
	p.full[i/64] |= 1 << uint(i%64)
	if err := sys.restOf(s); err != nil {
		var ee *machine.ExecError
		if errors.As(err, &ee) {
			p.failNode, p.failErr = id, ee
			return true, nil
		}
		return false, err
	}
	_, err = p.addEdges(i, es, live, sys.succs(s, true))
	return false, err
}

// addEdges adds the product edges of node i by the system successors
// list and the automaton edges es[live] (those of its automaton state
// whose label holds), counts them in the targets' indeg, and reports
// whether one of them leads to a node no deeper than i.
func (p *product) addEdges(i int, es []Edge, live []int32, list []succ) (back bool, err error) {
	sys := p.sys
	d := p.curDepth
	for k := range list {
		t, act := list[k].to, list[k].act
		for _, j := range live {
			e := &es[j]
			to, err := p.node(t, e.To, uint32(i), d+1)
			if err != nil {
				return false, err
			}
			// depth(to) <= d: to precedes level d+1, or there is none.
			back = back || int(d)+1 >= len(p.levels) || to < p.levels[d+1]
			if p.useFilter {
				p.indeg[to]++
			}
			p.edgesN++
			if to < uint32(i) {
				p.downEdges++
			}
			if p.record {
				ed := edge{to: to, act: act, acc: e.Acc}
				if sys.threads != nil {
					ed.perm = list[k].perm
				}
				p.recorded = append(p.recorded, ed)
			}
		}
	}
	return back, nil
}

// defaultFirstCheck is the number of expanded nodes at which the cycle
// search first runs; it runs again each time the expanded part has grown
// checkGrowth times, and when the product is complete. A checkpoint at
// which fewer than 1/taperCheck of the expanded nodes wait for their
// expansion, the frontier of a product near its end, is put off to twice
// its size (once: the next one is kept), as the search there would be
// repeated almost whole when the product is complete.
const (
	defaultFirstCheck = 1 << 12
	checkGrowth       = 4
	taperCheck        = 8
)

// run explores the product and searches it for a fair accepting cycle. A
// fair accepting cycle of the expanded part is one of the whole product,
// so the search runs at geometrically growing checkpoints and stops at
// the first one that finds a violation (the total work stays linear). It
// returns the violation (nil when the property holds), or the reason the
// search stopped early, and the number of fair accepting SCCs found.
func (p *product) run(prop *spec.Property) (*checker.Violation, checker.StopReason, int) {
	if p.aut.IsEmpty() {
		return nil, checker.NotStopped, 0
	}
	internal := func(err error) (*checker.Violation, checker.StopReason, int) {
		if errors.Is(err, machine.ErrInterrupted) {
			return nil, limitReason(p.ctx, p.budget), 0
		}
		return &checker.Violation{Name: prop.Name, Kind: checker.RuntimeError, Pos: prop.Pos, Msg: err.Error(), LoopStart: -1}, checker.NotStopped, 0
	}
	if err := p.start(); err != nil {
		return internal(err)
	}
	putOff := false // the last checkpoint was put off
	for upto := p.firstCheck; ; upto *= checkGrowth {
		t0 := p.clock()
		reason, done, err := p.explore(upto)
		p.phase(phaseExplore, t0)
		if err != nil {
			return internal(err)
		}
		if reason != checker.NotStopped {
			return nil, reason, 0
		}
		if p.failErr != nil {
			return p.failure(prop), checker.NotStopped, 0
		}
		if !done && !putOff && len(p.nodeSys)-p.expanded() < upto/taperCheck {
			putOff = true
			upto = upto * 2 / checkGrowth // the next checkpoint at twice this one
			continue
		}
		putOff = false
		if v, n := p.search(prop); v != nil || done || p.collided != nil {
			return v, checker.NotStopped, n
		}
	}
}

// clock returns the CPU time of Options.phases (0 without).
func (p *product) clock() int64 {
	if p.phases == nil {
		return 0
	}
	return p.phases.clock()
}

// phase adds the CPU time since t0 to phase k of Options.phases.
func (p *product) phase(k int, t0 int64) {
	if p.phases != nil {
		p.phases.cpu[k] += p.phases.clock() - t0
	}
}

func (p *product) failure(prop *spec.Property) *checker.Violation {
	v := &checker.Violation{Kind: p.failErr.Kind, Pos: p.failErr.Pos, Msg: p.failErr.Msg, LoopStart: -1}
	switch {
	case p.failPred:
		v.Name = prop.Name
	case p.failErr.Action >= 0:
		v.Name = p.sys.prog.Model.Actions[p.failErr.Action].Name
	default:
		v.Name = "init"
	}
	tr, _, err := p.trace(p.pathTo(p.failNode), nil)
	if errors.Is(err, errCollision) {
		p.collided = err
	}
	if err != nil {
		v.Msg += " (" + err.Error() + ")"
	}
	v.Trace = tr
	return v
}

// search looks for a fair accepting SCC in the expanded part and, when
// there is one, returns the lasso through the fair node closest to an
// initial node.
func (p *product) search(prop *spec.Property) (*checker.Violation, int) {
	var roots []uint32
	if p.phases != nil {
		p.phases.checks++
	}
	if p.useFilter {
		t0 := p.clock()
		f := newOWCTYFilter(p)
		roots = f.run()
		p.searchBytes = max(p.searchBytes, f.bytes())
		p.phase(phaseFilter, t0)
		if p.phases != nil {
			p.phases.rounds += f.rounds
		}
		if len(roots) == 0 {
			return nil, 0
		}
	}
	t0 := p.clock()
	c := newCycleSearch(p)
	fair := c.search(roots)
	p.searchBytes = max(p.searchBytes, c.bytes())
	p.phase(phaseSearch, t0)
	if len(fair) == 0 {
		return nil, 0
	}
	// The fair node closest to an initial node: the smallest id (BFS order).
	n0 := noParent
	comp := -1
	for k, nodes := range fair {
		for _, v := range nodes {
			if v < n0 {
				n0, comp = v, k
			}
		}
	}
	prefix := p.pathTo(n0)
	cycle := p.shortestPeriod(p.withActions(n0, c.lasso(n0, fair[comp])))
	steps, loop, err := p.trace(prefix, cycle)
	if errors.Is(err, errCollision) {
		p.collided = err
		return nil, 0
	}
	if err != nil {
		return &checker.Violation{Name: prop.Name, Kind: checker.RuntimeError, Pos: prop.Pos, Msg: err.Error(), LoopStart: -1}, len(fair)
	}
	msg := fmt.Sprintf("a run violates the property: %s, then a cycle of %s repeated forever", plural(loop-1, "step"), plural(len(steps)-loop, "step"))
	if loop == len(steps) { // the cycle stutters in a state without enabled action
		loop--
		msg = fmt.Sprintf("a run violates the property: %s, then no action is enabled and the last state repeats forever", plural(loop, "step"))
	}
	return &checker.Violation{Name: prop.Name, Kind: checker.Property, Pos: prop.Pos, Trace: steps, LoopStart: loop, Msg: msg}, len(fair)
}

// withActions fills in the actions of the edges of a cycle from n0 that
// the system did not keep (noAct): each edge is the first of its source
// with its target and acceptance sets, which is the one the lasso's
// search chose (without fairness units, what it looks for depends on
// nothing else).
func (p *product) withActions(n0 uint32, cycle []edge) []edge {
	if p.sys.keepAct || !p.sys.keep {
		return cycle
	}
	var buf []edge
	from := n0
	for i, e := range cycle {
		buf = p.actEdges(buf[:0], from)
		for _, f := range buf {
			if f.to == e.to && f.acc == e.acc {
				cycle[i] = f
				break
			}
		}
		if cycle[i].act == noAct {
			panic("wrapcheck internal error: ltl: a cycle's edge is not an edge of its source")
		}
		from = e.to
	}
	return cycle
}

// pathTo returns the product nodes from an initial node to id.
func (p *product) pathTo(id uint32) []uint32 {
	var path []uint32
	for v := id; v != noParent; v = p.parent.get(v) {
		path = append(path, v)
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	return path
}

// parentAction returns the action of the edge by which the exploration
// reached node v from its parent: the parent's first edge into v (an
// earlier one would have reached it first), computed again instead of
// kept per node.
func (p *product) parentAction(v uint32) int32 {
	for _, e := range p.actEdges(nil, p.parent.get(v)) {
		if e.to == v {
			return e.act
		}
	}
	panic("wrapcheck internal error: ltl: no edge from a node's parent to it")
}

// trace converts a product path (nodes, each reached from the previous
// one by its parent action) and a cycle (edges from the path's last node
// back to it) into trace steps of the unreduced system, and returns the
// index of the entry the cycle's first step reaches. The cycle's states
// appear after the path, so the last entry is the state the cycle starts
// from. Stutter steps (action -1 after the first) are dropped: they
// repeat a state without enabled action. Under symmetry reduction the
// canonical states are replaced by a real run (see concretize), whose
// cycle may be the product cycle repeated.
func (p *product) trace(path []uint32, cycle []edge) ([]checker.Step, int, error) {
	var seq []uint32
	var acts []int32
	for i, v := range path {
		act := int32(-1)
		if i > 0 {
			act = p.parentAction(v)
		}
		seq = append(seq, p.nodeSys[v])
		acts = append(acts, act)
	}
	for _, e := range cycle {
		seq = append(seq, p.nodeSys[e.to])
		acts = append(acts, e.act)
	}
	var vecs [][]uint64
	loopAt := len(path)
	if p.sys.canon == nil {
		for _, idx := range seq {
			vecs = append(vecs, p.sys.state(idx))
		}
	} else {
		var err error
		vecs, acts, loopAt, err = p.sys.concretize(seq, acts, len(path))
		if err != nil && p.sys.fp != nil {
			err = errCollision // the quotient's run has no concrete counterpart
		}
		if err != nil {
			return nil, 0, err
		}
	}
	if p.sys.fp != nil {
		if err := p.sys.checkRun(vecs, acts, loopAt); err != nil {
			return nil, 0, err
		}
	}
	vecs, acts, loopAt = minimalPrefix(vecs, acts, loopAt)
	var out []checker.Step
	var kept [][]uint64
	loop := -1
	for i, vec := range vecs {
		if i == loopAt {
			loop = len(out)
		}
		if acts[i] < 0 && len(out) > 0 && slices.Equal(vec, kept[len(kept)-1]) {
			continue // the stutter of a state without enabled action
		}
		st := make([]int64, p.sys.prog.Slots())
		if p.sys.prog.Words() > 0 {
			p.sys.prog.Unpack(st, vec)
		}
		out = append(out, checker.Step{Action: int(acts[i]), State: st})
		kept = append(kept, vec)
	}
	if loop < 0 {
		loop = len(out)
	}
	p.answers(out, kept)
	return out, loop, nil
}

// minimalPrefix shortens the prefix of a system lasso while its last step
// is the cycle's last step (the same action from the same state into the
// state the cycle starts from): the cycle then starts one state earlier,
// rotated, and the infinite run is the same. vecs[:loopAt] is the prefix,
// vecs[loopAt:] the cycle, whose last state is vecs[loopAt-1]. The product
// reaches the cycle through automaton states the system run does not show,
// so such a prefix comes out of it: "submit, poll, then a cycle of poll"
// for "submit, then a cycle of poll".
func minimalPrefix(vecs [][]uint64, acts []int32, loopAt int) ([][]uint64, []int32, int) {
	for {
		last := len(vecs) - 1
		if loopAt < 2 || last < loopAt || acts[last] < 0 || acts[loopAt-1] != acts[last] ||
			!slices.Equal(vecs[loopAt-2], vecs[last-1]) {
			return vecs, acts, loopAt
		}
		vecs, acts, loopAt = vecs[:last], acts[:last], loopAt-1
	}
}

// answers fills in the agent answers of each step: it replays the step's
// action from the previous state and takes the answers of the first branch
// that reaches the step's state (the branch order is the engine's, so the
// choice is deterministic).
func (p *product) answers(out []checker.Step, vecs [][]uint64) {
	if len(p.sys.prog.Model.Agents) == 0 {
		return
	}
	m := p.sys.prog.NewMachine()
	m.RecordAnswers(true)
	for i := 1; i < len(out); i++ {
		want := vecs[i]
		found := false
		_ = m.Successors(vecs[i-1], func(action, _ int, t machine.State) {
			if found || action != out[i].Action || !slices.Equal(t, want) {
				return
			}
			found = true
			for _, a := range m.Asked() {
				out[i].Asked = append(out[i].Asked, checker.Answer{Agent: a.Agent, Value: slices.Clone(a.Value)})
			}
		})
	}
}

// shortestPeriod shortens a product cycle whose projection on the system
// (states and actions) repeats a shorter cycle d times: the system lasso
// only needs one period. The product automaton state may differ between
// the periods; the system run is the same.
func (p *product) shortestPeriod(cycle []edge) []edge {
	m := len(cycle)
	for d := 1; d < m; d++ {
		if m%d != 0 {
			continue
		}
		ok := true
		for k := d; k < m && ok; k++ {
			a, b := cycle[k], cycle[k-d]
			ok = a.act == b.act && p.nodeSys[a.to] == p.nodeSys[b.to]
		}
		if ok {
			return cycle[:d]
		}
	}
	return cycle
}

// nodeTable maps product node keys to node ids: open addressing with
// linear probing over a power-of-two table, grown at 3/4 load. The zero
// value is an empty table. Not safe for concurrent use.
type nodeTable struct {
	keys []uint64 // key+1; 0 marks an empty slot
	ids  []uint32
	n    int
}

// find returns the id of key, which is present.
func (t *nodeTable) find(key uint64) uint32 {
	mask := uint64(len(t.keys) - 1)
	for i := mix(key) & mask; ; i = (i + 1) & mask {
		switch t.keys[i] {
		case key + 1:
			return t.ids[i]
		case 0:
			panic("wrapcheck internal error: ltl: the target of a product edge is not a node")
		}
	}
}

// insert returns the id of key, adding it with id next when absent.
func (t *nodeTable) insert(key uint64, next uint32) (uint32, bool) {
	if 4*(t.n+1) > 3*len(t.keys) {
		t.grow()
	}
	mask := uint64(len(t.keys) - 1)
	for i := mix(key) & mask; ; i = (i + 1) & mask {
		switch t.keys[i] {
		case 0:
			t.keys[i], t.ids[i] = key+1, next
			t.n++
			return next, true
		case key + 1:
			return t.ids[i], false
		}
	}
}

func (t *nodeTable) grow() {
	old, oldIDs := t.keys, t.ids
	size := max(2*len(old), 1024)
	t.keys, t.ids = make([]uint64, size), make([]uint32, size)
	mask := uint64(size - 1)
	for j, k := range old {
		if k == 0 {
			continue
		}
		i := mix(k-1) & mask
		for t.keys[i] != 0 {
			i = (i + 1) & mask
		}
		t.keys[i], t.ids[i] = k, oldIDs[j]
	}
}

// mix is the splitmix64 finalizer.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

package quant

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"runtime"
	"time"

	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
)

// Options configures [Check]. Its zero value is the default.
type Options struct {
	// MaxStates stops the construction after this many states (0: no
	// limit but memory and the context).
	MaxStates int
	// MaxExact is the most states exact mode solves after the
	// precomputation (0: 2000); more gives ErrTooLarge.
	MaxExact int
	// MaxCombos bounds the distributions that the scheduler's decisions
	// after a rated answer of one step combine into (0: 65536).
	MaxCombos int
	// Only, when not empty, names the queries to compute.
	Only []string
	// Interval makes every unbounded query use interval iteration
	// ([ReachInterval]) instead of exact mode; without it, interval
	// iteration is used for the queries past exact mode's MaxExact.
	Interval bool
	// Epsilon is the width interval iteration aims at (0: 1e-6; for
	// expected costs, relative: Epsilon times max(1, the value)), and
	// MaxIter the most sweeps it runs over one strongly connected
	// component (0: 10^7; the context, --timeout in the command, stops
	// it sooner). The sweeps of a component also stop when one changes
	// no bound.
	Epsilon float64
	MaxIter int
	// Confidence is the level of the confidence intervals of counts `k
	// of n` (nil: 19/20, 95%).
	Confidence *big.Rat
	// MemoryBudget stops the computation with ErrMemory when the Go heap
	// passes this many bytes (0: no budget): it is checked while the MDP
	// is built, at each sweep of the solutions and while a witness is
	// searched.
	MemoryBudget int64
	// Canon, when not nil, rewrites an unpacked state (one int64 per
	// slot of spec.Model.Slots) in place into the representative of its
	// orbit under a group of automorphisms of the MDP that preserve the
	// rates, the costs and every query's conditions (reduce.ForQuant
	// gives one): Build then keeps one state per orbit (see "Symmetry"
	// in the package documentation). It must leave a representative
	// unchanged.
	Canon func(slots []int64)
	// Sensitivity computes, for each query with counts, the range if
	// each measured rate in turn were known exactly ([Sensitivity]).
	Sensitivity bool
	// Witness computes, for each value of a probability query and each
	// finite expected cost, the strategy that attains it (for a value
	// from interval iteration, the one its bounds pick, with the bounds
	// of its own value) and the most probable path to the event or the
	// target under it ([Witness]).
	Witness bool
}

// ErrMemory is returned when the heap passes Options.MemoryBudget.
var ErrMemory = errors.New("quant: memory budget exceeded")

// overBudget returns ErrMemory, saying where (what), when the Go heap
// is past o.MemoryBudget; nil without a budget. It stops the world for a
// moment: call it every few thousand states or once per sweep.
func (o Options) overBudget(what string) error {
	if o.MemoryBudget <= 0 {
		return nil
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if int64(ms.HeapAlloc) > o.MemoryBudget {
		// the heap may hold an earlier call's garbage (the servers run
		// one call after another): collect it and look again
		runtime.GC()
		runtime.ReadMemStats(&ms)
	}
	if int64(ms.HeapAlloc) > o.MemoryBudget {
		return fmt.Errorf("%w: %s", ErrMemory, what)
	}
	return nil
}

func (o Options) maxExact() int {
	if o.MaxExact > 0 {
		return o.MaxExact
	}
	return 2000
}

func (o Options) confidence() *big.Rat {
	if o.Confidence != nil {
		return o.Confidence
	}
	return big.NewRat(19, 20)
}

func (o Options) epsilon() float64 {
	if o.Epsilon > 0 {
		return o.Epsilon
	}
	return 1e-6
}

func (o Options) maxIter() int {
	if o.MaxIter > 0 {
		return o.MaxIter
	}
	return 10_000_000
}

func (o Options) maxCombos() int {
	if o.MaxCombos > 0 {
		return o.MaxCombos
	}
	return 1 << 16
}

// Result is the outcome of [Check]: the value of each query.
type Result struct {
	Queries      []QueryResult
	Expectations []ExpectResult
	Stats        Stats
	// Notes are sentences for the reader (the reductions' notes, which
	// the caller adds: which symmetric types were left unpermuted).
	Notes []string
	// Stopped, when not nil, is the context's error that stopped [Check]
	// during interval iteration, the range over the confidence box or
	// the sensitivity pass: Queries (or Expectations) holds the queries
	// computed before and, last, the one stopped (QueryResult.Stopped),
	// with what was reached; the others are missing.
	Stopped error
}

// ExpectResult is the value of one expected-cost query: Min and Max are
// the least and the greatest expected cost over the schedulers, exactly,
// or, past exact mode, MinBounds and MaxBounds enclose them (interval
// iteration: [ExpectCostInterval]; an upper end +Inf where no upper
// bound was certified); all nil when not computed; MinInf and MaxInf
// mark an infinite one (target missed with positive probability: see
// [ExpectCost]). With counts, Box is the range over the rates within
// their intervals too, an infinite end marked by BoxLoInf or BoxHiInf
// (an end that a limit stopped before it was reached is nil and not
// marked: StoppedIn "box").
type ExpectResult struct {
	Expectation          *spec.Expectation
	Min, Max             *big.Rat
	MinBounds, MaxBounds *Interval
	MinInf, MaxInf       bool
	// Stopped and StoppedIn are QueryResult's.
	Stopped   bool
	StoppedIn string
	Box       *Box
	BoxLoInf  bool
	BoxHiInf  bool
	Violated  bool
	Unknown   bool
	BoxBroken bool
	// Sensitivity is QueryResult.Sensitivity's for expected costs.
	Sensitivity []Sensitivity
	// MinWitness and MaxWitness show the strategies that attain Min and
	// Max (or, past exact mode, that MinBounds and MaxBounds pick), with
	// Options.Witness, when finite: the most probable path to the target
	// under them ([Witness]).
	MinWitness, MaxWitness *Witness
}

// Stats are the figures of the MDP built.
type Stats struct {
	States      int // reachable states
	Choices     int // the scheduler's choices, summed over the states
	Transitions int // entries of the choices' distributions
	// Vertices is the number of choices of the MDP of the vertices of
	// the interval MDP ([MDP.Vertices]), 0 without counts.
	Vertices int
	Seconds  float64 // wall time, construction and solution
	// Symmetry says that the states are orbits under Options.Canon.
	Symmetry bool
}

// QueryResult is the value of one query: Min and Max are the least and
// the greatest probability over the schedulers, exactly, or, where
// interval iteration computed them, MinBounds and MaxBounds enclose them
// (the others are nil: not computed).
type QueryResult struct {
	Query                *spec.Query
	Min, Max             *big.Rat
	MinBounds, MaxBounds *Interval
	// Box is set when some rate is a count: the least and the greatest
	// probability over the schedulers and over the rates within the
	// confidence intervals of the counts (Min and Max are then the
	// values at the point estimates k/n).
	Box *Box
	// Violated is set when the query has a bound and the probability
	// can break it: the maximum for an upper bound, the minimum for a
	// lower one (at the point estimates). Unknown is set instead when
	// the interval computed straddles the bound, or when the bound holds
	// at the point estimates but not over the whole box (BoxBroken
	// tells the latter).
	Violated, Unknown, BoxBroken bool
	// MinWitness and MaxWitness show the strategies that attain Min and
	// Max (or that MinBounds and MaxBounds pick), with Options.Witness.
	MinWitness, MaxWitness *Witness
	// Sensitivity holds, with Options.Sensitivity and counts, the range
	// if each measured rate in turn were known exactly, narrowest first.
	Sensitivity []Sensitivity
	// Stopped is set when the context ended the computation of this
	// query. StoppedIn says where: "" in its values (interval iteration:
	// its bounds are those reached, sound but wider than
	// Options.Epsilon, and the values not computed yet are nil), "box"
	// in the range over the confidence box (Box then holds the ends
	// reached, those from a stopped interval iteration with the bounds
	// reached; an end not reached is nil, and Box is nil when neither
	// was), "sensitivity" in the
	// sensitivity pass (Sensitivity is then nil: a ranking of some rates
	// would point at the wrong one).
	Stopped   bool
	StoppedIn string
}

// Box is the range of a query's probability over the schedulers and the
// rates within their confidence intervals: Lo is the least, Hi the
// greatest, exactly, or, where interval iteration computed them, LoBounds
// and HiBounds enclose them. Level is the confidence level.
type Box struct {
	Lo, Hi             *big.Rat
	LoBounds, HiBounds *Interval
	Level              *big.Rat
}

// Checked reports whether the query has a bound (and so is a check).
func (r *QueryResult) Checked() bool { return r.Query.Bound != nil }

// Unknowns returns the number of queries whose bound an interval could
// not decide.
func (r *Result) Unknowns() int {
	n := 0
	for i := range r.Queries {
		if r.Queries[i].Unknown {
			n++
		}
	}
	for i := range r.Expectations {
		if r.Expectations[i].Unknown {
			n++
		}
	}
	return n
}

// Violations returns the number of queries whose bound can be broken.
func (r *Result) Violations() int {
	n := 0
	for i := range r.Queries {
		if r.Queries[i].Violated {
			n++
		}
	}
	for i := range r.Expectations {
		if r.Expectations[i].Violated {
			n++
		}
	}
	return n
}

// Check builds the MDP of m and computes each of its probability
// queries exactly. A bad spec for this analysis (a runtime error in the
// state space, a rate that cannot be followed) is an error; so is ctx's
// end, returned as ctx.Err(), with a partial Result (Result.Stopped)
// when it stopped interval iteration (of a probability or an expected
// cost), the range over the confidence box or the sensitivity pass of a
// query whose values were computed, else with nil.
func Check(ctx context.Context, m *spec.Model, opts Options) (*Result, error) {
	start := time.Now()
	p, err := machine.Compile(m)
	if err != nil {
		return nil, err
	}
	only := map[string]bool{}
	for _, n := range opts.Only {
		only[n] = true
	}
	for n := range only {
		found := false
		for _, q := range m.Queries {
			found = found || q.Name == n
		}
		for _, e := range m.Expectations {
			found = found || e.Name == n
		}
		if !found {
			return nil, fmt.Errorf("quant: no probability named %s", n)
		}
	}
	b := newBuilder(ctx, m, p, opts)
	mdp, err := b.build()
	if err != nil {
		return nil, err
	}
	states := b.states
	pins := &pinnedBoxes{b: b}
	measured := measuredRates(m)
	var box *MDP
	if mdp.HasIntervals() {
		if box, err = mdp.Vertices(opts.maxCombos()); err != nil {
			return nil, err
		}
		mdp = mdp.Point()
	}
	res := &Result{Stats: Stats{States: mdp.N(), Symmetry: opts.Canon != nil}}
	if box != nil {
		for _, cs := range box.Choices {
			res.Stats.Vertices += len(cs)
		}
	}
	for _, cs := range mdp.Choices {
		res.Stats.Choices += len(cs)
		for _, d := range cs {
			res.Stats.Transitions += len(d)
		}
	}
	mach := p.NewMachine()
	label := func(e *spec.Expr) ([]bool, error) {
		if e == nil {
			return nil, nil
		}
		pr, err := p.CompileExpr(e)
		if err != nil {
			return nil, err
		}
		out := make([]bool, len(states))
		for s, vec := range states {
			v, err := mach.Eval(pr, vec)
			if err != nil {
				return nil, fmt.Errorf("quant: evaluating %s: %w", e.Pos, err)
			}
			out[s] = v != 0
		}
		return out, nil
	}
	for _, q := range m.Queries {
		if len(only) > 0 && !only[q.Name] {
			continue
		}
		left, err := label(q.Left)
		if err != nil {
			return nil, err
		}
		target, err := label(q.Right)
		if err != nil {
			return nil, err
		}
		r := QueryResult{Query: q}
		wantMax := q.Opt == spec.QueryMax || q.Opt == spec.QueryBoth && (q.Bound == nil || q.Bound.Upper())
		wantMin := q.Opt == spec.QueryMin || q.Opt == spec.QueryBoth && (q.Bound == nil || !q.Bound.Upper())
		// solve computes the value on mdp; with wit (not nil) and
		// opts.Witness, the witness too.
		solve := func(mdp *MDP, max bool, wit **Witness) (*big.Rat, *Interval, error) {
			if !opts.Interval || q.Steps >= 0 {
				var err error
				var v []*big.Rat
				var choice func(s, step int) int
				limit := -1
				if q.Steps >= 0 {
					var vs [][]*big.Rat
					vs, err = bounded(ctx, mdp, orAll(left, mdp.N()), target, max, q.Steps, wit != nil && opts.Witness, opts)
					if err == nil {
						v = vs[len(vs)-1]
					}
					limit = int(min(q.Steps, 1<<30))
					choice = func(s, step int) int { return boundedChoice(mdp, vs, s, limit-step, max) }
				} else {
					var strategy []int
					v, strategy, err = reach(ctx, mdp, left, target, max, opts)
					choice = func(s, _ int) int { return strategy[s] }
				}
				if err == nil {
					if wit != nil && opts.Witness {
						if *wit, err = b.witness(mdp, bestInit(mdp.Init, v, max), left, target, max, choice, limit); err != nil {
							return nil, nil, err
						}
					}
					return initial(mdp.Init, v, max), nil, nil
				}
				if !errors.Is(err, ErrTooLarge) || q.Steps >= 0 {
					return nil, nil, err
				}
			}
			iv, err := ReachInterval(ctx, mdp, left, target, max, opts.epsilon(), opts.maxIter())
			if iv == nil {
				return nil, nil, err
			}
			// with ctx's error, the bounds reached (partial)
			bounds := initialInterval(mdp.Init, iv, max)
			if err == nil && wit != nil && opts.Witness {
				*wit, err = b.intervalWitness(ctx, mdp, iv, left, target, max)
			}
			return nil, &bounds, err
		}
		if wantMax {
			if r.Max, r.MaxBounds, err = solve(mdp, true, &r.MaxWitness); err != nil {
				return stopped(ctx, res, &r, err, start)
			}
		}
		if wantMin {
			if r.Min, r.MinBounds, err = solve(mdp, false, &r.MinWitness); err != nil {
				return stopped(ctx, res, &r, err, start)
			}
		}
		if b := q.Bound; b != nil {
			v, iv := r.Max, r.MaxBounds
			if q.Opt == spec.QueryMin || q.Opt == spec.QueryBoth && !b.Upper() {
				v, iv = r.Min, r.MinBounds
			}
			r.Violated, r.Unknown = decide(b, v, iv)
		}
		if box != nil {
			r.Box = &Box{Level: opts.confidence()}
			if r.Box.Hi, r.Box.HiBounds, err = solve(box, true, nil); err == nil {
				r.Box.Lo, r.Box.LoBounds, err = solve(box, false, nil)
			}
			if err != nil {
				return stoppedIn(ctx, res, &r, "box", err, start)
			}
			if opts.Sensitivity {
				r.Sensitivity, err = sensitivities(measured, pins, func(g *MDP, sv *Sensitivity) (err error) {
					if sv.Box.Hi, sv.Box.HiBounds, err = solve(g, true, nil); err != nil {
						return err
					}
					sv.Box.Lo, sv.Box.LoBounds, err = solve(g, false, nil)
					return err
				})
				if err != nil {
					r.Sensitivity = nil
					boxVerdict(&r)
					return stoppedIn(ctx, res, &r, "sensitivity", err, start)
				}
			}
		}
		boxVerdict(&r)
		res.Queries = append(res.Queries, r)
	}
	for _, e := range m.Expectations {
		if len(only) > 0 && !only[e.Name] {
			continue
		}
		r, err := expectation(ctx, m, e, mdp, box, pins, label, opts)
		if err != nil {
			if r != nil && r.Stopped {
				res.Expectations = append(res.Expectations, *r)
				res.Stopped = err
				res.Stats.Seconds = time.Since(start).Seconds()
				return res, err
			}
			return nil, err
		}
		res.Expectations = append(res.Expectations, *r)
	}
	res.Stats.Seconds = time.Since(start).Seconds()
	return res, nil
}

// boxVerdict sets r's verdict over the confidence box: when its bound
// held at the point estimates (or, from bounds, was not broken), whether
// it holds over the whole box; a box not computed leaves it undecided.
func boxVerdict(r *QueryResult) {
	b := r.Query.Bound
	if b == nil || r.Violated || r.Unknown {
		return
	}
	if r.Box == nil {
		r.Unknown = r.Stopped // stopped before the box: not decided
		return
	}
	v, iv := r.Box.Hi, r.Box.HiBounds
	if !b.Upper() {
		v, iv = r.Box.Lo, r.Box.LoBounds
	}
	if v == nil && iv == nil {
		r.Unknown = true
		return
	}
	bv, bu := decide(b, v, iv)
	r.Unknown = bv || bu
	r.BoxBroken = r.Unknown
}

// stoppedIn ends [Check] when the range over the confidence box (where
// "box") or the sensitivity pass (where "sensitivity") of the query r
// failed with err, its values computed: when ctx ended it, r is added to
// res, marked Stopped, with the ends of its box that were reached
// (bounds that a stopped interval iteration reached are sound; an end
// not reached is nil, the box nil when neither was) and the verdict on
// what was computed, and res is returned, marked Stopped, with err;
// otherwise nil and err.
func stoppedIn(ctx context.Context, res *Result, r *QueryResult, where string, err error, start time.Time) (*Result, error) {
	if ctx.Err() == nil || !errors.Is(err, ctx.Err()) {
		return nil, err
	}
	r.Stopped, r.StoppedIn = true, where
	if bx := r.Box; bx != nil && bx.Hi == nil && bx.HiBounds == nil && bx.Lo == nil && bx.LoBounds == nil {
		r.Box = nil // neither end reached
	}
	boxVerdict(r)
	res.Queries = append(res.Queries, *r)
	res.Stopped = err
	res.Stats.Seconds = time.Since(start).Seconds()
	return res, err
}

// stopped ends [Check] when solving the query r failed with err. When
// ctx ended it during interval iteration (r has bounds: those reached),
// r is added to res, marked Stopped, with the verdict of its bound on
// them (sound: a violation they show is one), and res is returned,
// marked Stopped too, with err; otherwise nil and err.
func stopped(ctx context.Context, res *Result, r *QueryResult, err error, start time.Time) (*Result, error) {
	if ctx.Err() == nil || !errors.Is(err, ctx.Err()) || r.MinBounds == nil && r.MaxBounds == nil {
		return nil, err
	}
	r.Stopped = true
	if b := r.Query.Bound; b != nil {
		v, iv := r.Max, r.MaxBounds
		if r.Query.Opt == spec.QueryMin || r.Query.Opt == spec.QueryBoth && !b.Upper() {
			v, iv = r.Min, r.MinBounds
		}
		r.Unknown = true
		if v != nil || iv != nil {
			r.Violated, r.Unknown = decide(b, v, iv)
		}
	}
	res.Queries = append(res.Queries, *r)
	res.Stopped = err
	res.Stats.Seconds = time.Since(start).Seconds()
	return res, err
}

// expectation computes one expected-cost query on mdp (the point
// estimates) and on box (the vertices of the interval MDP; nil without
// counts), and with opts.Sensitivity on pins' MDPs.
func expectation(ctx context.Context, m *spec.Model, e *spec.Expectation, mdp, box *MDP, pins *pinnedBoxes, label func(*spec.Expr) ([]bool, error), opts Options) (*ExpectResult, error) {
	target, err := label(e.Target)
	if err != nil {
		return nil, err
	}
	k := m.Costs[e.Cost]
	stateCost := make([]*big.Rat, mdp.N())
	for s := range stateCost {
		stateCost[s] = new(big.Rat)
	}
	actCost := map[int]*big.Rat{}
	for _, it := range k.Items {
		if it.When == nil {
			for _, a := range it.Actions {
				if actCost[a] == nil {
					actCost[a] = new(big.Rat)
				}
				actCost[a].Add(actCost[a], it.Value)
			}
			continue
		}
		holds, err := label(it.When)
		if err != nil {
			return nil, err
		}
		for s, h := range holds {
			if h {
				stateCost[s].Add(stateCost[s], it.Value)
			}
		}
	}
	costOf := func(g *MDP) func(s, c int) *big.Rat {
		return func(s, c int) *big.Rat {
			a := g.Actions[s][c]
			if x := actCost[a]; x != nil && a >= 0 {
				return new(big.Rat).Add(stateCost[s], x)
			}
			return stateCost[s]
		}
	}
	r := &ExpectResult{Expectation: e}
	wantMax := e.Opt == spec.QueryMax || e.Opt == spec.QueryBoth && (e.Bound == nil || e.Bound.Upper())
	wantMin := e.Opt == spec.QueryMin || e.Opt == spec.QueryBoth && (e.Bound == nil || !e.Bound.Upper())
	// solve computes the value on g, exactly, or past exact mode (or
	// with opts.Interval) its bounds; with wit (not nil) and
	// opts.Witness, the witness of a finite value too.
	solve := func(g *MDP, max bool, wit **Witness) (*big.Rat, *Interval, bool, error) {
		if !opts.Interval {
			v, strategy, err := expectCost(ctx, g, costOf(g), target, max, opts)
			if err == nil {
				x, init := initialCostIndex(g.Init, v, max)
				if wit != nil && opts.Witness && x != nil {
					choice := func(s, _ int) int { return strategy[s] }
					if *wit, err = pins.b.witness(g, init, nil, target, max, choice, -1); err != nil {
						return nil, nil, false, err
					}
				}
				return x, nil, x == nil, nil
			}
			if !errors.Is(err, ErrTooLarge) {
				return nil, nil, false, err
			}
		}
		iv, err := ExpectCostInterval(ctx, g, costOf(g), target, max, opts.epsilon(), opts.maxIter())
		if iv == nil {
			return nil, nil, false, err
		}
		// with ctx's error, the bounds reached (partial)
		b := initialCostInterval(g.Init, iv, max)
		if math.IsInf(b.Lo, 1) {
			return nil, nil, true, err
		}
		if err == nil && wit != nil && opts.Witness {
			*wit, err = pins.b.costIntervalWitness(ctx, g, costOf(g), iv, target, max)
		}
		return nil, &b, false, err
	}
	// stop marks r stopped (in where) when ctx ended err's computation,
	// and decides its bound on what was reached.
	stop := func(where string, err error) (*ExpectResult, error) {
		if ctx.Err() == nil || !errors.Is(err, ctx.Err()) {
			return nil, err
		}
		r.Stopped, r.StoppedIn = true, where
		if where == "" && r.MinBounds == nil && r.MaxBounds == nil {
			return nil, err // stopped before any bound
		}
		if bx := r.Box; bx != nil && bx.Hi == nil && bx.HiBounds == nil && !r.BoxHiInf && bx.Lo == nil && bx.LoBounds == nil && !r.BoxLoInf {
			r.Box = nil // neither end reached
		}
		r.decide()
		return r, err
	}
	if wantMax {
		if r.Max, r.MaxBounds, r.MaxInf, err = solve(mdp, true, &r.MaxWitness); err != nil {
			return stop("", err)
		}
	}
	if wantMin {
		if r.Min, r.MinBounds, r.MinInf, err = solve(mdp, false, &r.MinWitness); err != nil {
			return stop("", err)
		}
	}
	if box != nil {
		r.Box = &Box{Level: opts.confidence()}
		if r.Box.Hi, r.Box.HiBounds, r.BoxHiInf, err = solve(box, true, nil); err == nil {
			r.Box.Lo, r.Box.LoBounds, r.BoxLoInf, err = solve(box, false, nil)
		}
		if err != nil {
			return stop("box", err)
		}
		if opts.Sensitivity {
			r.Sensitivity, err = sensitivities(measuredRates(m), pins, func(g *MDP, sv *Sensitivity) (err error) {
				if sv.Box.Hi, sv.Box.HiBounds, sv.HiInf, err = solve(g, true, nil); err != nil {
					return err
				}
				sv.Box.Lo, sv.Box.LoBounds, sv.LoInf, err = solve(g, false, nil)
				return err
			})
			if err != nil {
				r.Sensitivity = nil
				return stop("sensitivity", err)
			}
		}
	}
	r.decide()
	return r, nil
}

// decide sets the verdict of r's bound: violated when the value (exact,
// or its bounds) breaks it at the point estimates, unknown when its
// bounds straddle it, or when it holds there but not over the whole
// confidence box (BoxBroken), or when the end of the box it is on was
// not reached (r stopped before it).
func (r *ExpectResult) decide() {
	e := r.Expectation
	b := e.Bound
	if b == nil {
		return
	}
	if b.Upper() {
		r.Violated, r.Unknown = decideCost(b, r.Max, r.MaxBounds, r.MaxInf)
	} else {
		r.Violated, r.Unknown = decideCost(b, r.Min, r.MinBounds, r.MinInf)
	}
	if r.Violated || r.Unknown {
		return
	}
	// the end of the box the bound is on (none when not reached)
	var v *big.Rat
	var iv *Interval
	inf := false
	if bx := r.Box; bx != nil && b.Upper() {
		v, iv, inf = bx.Hi, bx.HiBounds, r.BoxHiInf
	} else if bx != nil {
		v, iv, inf = bx.Lo, bx.LoBounds, r.BoxLoInf
	}
	switch {
	case v != nil || iv != nil || inf:
		bv, bu := decideCost(b, v, iv, inf)
		r.BoxBroken = bv || bu
	case r.Stopped && r.StoppedIn == "box":
		r.Unknown = true // the end the bound is on was not reached
	}
	r.Unknown = r.Unknown || r.BoxBroken
}

// decideCost is [decide] for expected costs: v exact, or its bounds iv,
// or infinite (inf); an upper end +Inf (not certified) is above every
// bound.
func decideCost(b *spec.QueryBound, v *big.Rat, iv *Interval, inf bool) (violated, unknown bool) {
	holds := func(f float64) bool {
		if math.IsInf(f, 1) {
			return b.Op[0] == '>'
		}
		return b.Holds(new(big.Rat).SetFloat64(f))
	}
	switch {
	case inf:
		return !holds(math.Inf(1)), false
	case v != nil:
		return !b.Holds(v), false
	case iv == nil:
		return false, true
	}
	l, h := holds(iv.Lo), holds(iv.Hi)
	return !l && !h, l != h
}

// decide compares a value (v, or, from interval iteration, iv) with a
// bound: violated when it breaks it, unknown when an interval straddles
// it.
func decide(b *spec.QueryBound, v *big.Rat, iv *Interval) (violated, unknown bool) {
	if v != nil {
		return !b.Holds(v), false
	}
	lo := new(big.Rat).SetFloat64(iv.Lo)
	hi := new(big.Rat).SetFloat64(iv.Hi)
	switch {
	case b.Holds(lo) && b.Holds(hi):
		return false, false
	case !b.Holds(lo) && !b.Holds(hi):
		return true, false
	}
	return false, true
}

// initial returns the value of the best (max) or worst initial
// distribution under v.
func initial(init []Dist, v []*big.Rat, max bool) *big.Rat {
	var best *big.Rat
	for _, d := range init {
		e := expect(d, v)
		if best == nil || max && e.Cmp(best) > 0 || !max && e.Cmp(best) < 0 {
			best = e
		}
	}
	if best == nil {
		return new(big.Rat) // no initial state
	}
	return best
}

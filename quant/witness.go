package quant

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"

	"github.com/wrapcheck/wrapcheck/machine"
)

// A Witness shows the strategy that attains a query's minimum or
// maximum: the most probable path to the event under it, as a trace, and
// the strategy's choice in each state of that path.
//
// The strategy is the one the solution found: policy iteration's final
// policy on the undecided states, and for the states the precomputation
// decided, a choice that keeps their value (for max, one that stays
// among the states of probability 1 and moves closer to the target; for
// min, one that stays among the states of probability 0). For `within
// k` it depends on the steps left: the first choice whose expectation
// under the values with one step less is the best. Under it, the MDP is
// a Markov chain (over the states, or the pairs of state and step for
// `within k`), started from the initial distribution that attains the
// value.
//
// The path is the most probable finite path of that chain that ends at
// its first state satisfying the event (`c` for `eventually c`, `b` for
// `a until b`) with every earlier state in `a` and not in the event, and,
// for `within k`, at most k steps: the path whose probability (the
// probability of its initial state times that of each step) is the
// greatest; among equally probable ones the shortest, then the first
// found by a search that expands the states in the order of their
// choices' distributions (successors in increasing state number). The
// search is Dijkstra's algorithm over exact probabilities (a path's
// probability never grows as it extends), so it is the same for any
// number of workers. No path exists when the value is 0 under the
// strategy.
//
// A step shows the action, the agent answers on the most probable
// branch of the action that makes its state, and the step's probability:
// the probability of moving to that state under the strategy's choice
// (summed over the branches that make it). Under symmetry reduction
// (Options.Canon) the path is one of orbits, each state standing for its
// orbit, and a step's probability is that of moving into the orbit.
type Witness struct {
	Max bool
	// Steps is the path, Steps[0] its initial state; nil when no path
	// reaches the event (Prob is then 0).
	Steps []WitnessStep
	// Prob is the path's probability: the product of its steps'.
	Prob *big.Rat
	// Strategy holds the strategy's choice in each state of the path but
	// the last, in the order of the path, each state once.
	Strategy []StrategyRow
	// Orbits says that symmetry reduction was on (see above).
	Orbits bool
	// Bounds, for a value computed by interval iteration, are sound
	// bounds on the probability of the event (for an expected cost, on
	// the expected cost until the target; Hi +Inf where no upper bound
	// was certified) under the strategy, which the value's bounds picked
	// and which need not attain the value ([boundsStrategy],
	// [costBoundsStrategy]); nil for an exact value, which it attains.
	Bounds *Interval
}

// A WitnessStep is one step of a [Witness]'s path.
type WitnessStep struct {
	Action int              // index into spec.Model.Actions; -1: the initial state
	State  []int64          // unpacked slots
	Asked  []machine.Answer // the agent answers taken, in the order asked
	Prob   *big.Rat         // the probability of this step under the strategy
}

// A StrategyRow is the strategy's choice in one state of a witness's
// path.
type StrategyRow struct {
	Step   int // the index in Steps of the state
	Action int // the action chosen
	// Decisions are the scheduler's decisions within the action, the
	// unrated agent answers and choose values (Agent -1) of its branches
	// that the choice keeps, each once, in the order of the branches.
	Decisions []machine.Branch
	// Choices is the number of choices the state offers.
	Choices int
}

// maxWitnessNodes bounds the nodes the path search settles; past it no
// witness is given (errWitnessTooLarge).
const maxWitnessNodes = 1 << 18

var errWitnessTooLarge = errors.New("quant: too many nodes for a witness")

// pathNode is a node of the path search: a state at a step.
type pathNode struct {
	s, step int
	prob    *big.Rat
	step1   *big.Rat // the probability of the last step
	parent  *pathNode
	choice  int // the choice taken at the parent
	seq     int
}

type pathQueue []*pathNode

func (q pathQueue) Len() int { return len(q) }
func (q pathQueue) Less(i, j int) bool {
	if c := q[i].prob.Cmp(q[j].prob); c != 0 {
		return c > 0
	}
	if q[i].step != q[j].step {
		return q[i].step < q[j].step
	}
	return q[i].seq < q[j].seq
}
func (q pathQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *pathQueue) Push(x any)   { *q = append(*q, x.(*pathNode)) }
func (q *pathQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}

// mostProbablePath returns the last node of the most probable path from
// the initial distribution init to a state of target through left-states
// (the run stops at target and outside left), where choice(s, step)
// gives the strategy's choice at state s after step steps (-1: the run
// stops), and limit bounds the steps (-1: none). nil: no path;
// errWitnessTooLarge: too many nodes. It checks ctx and the memory budget every 4096 nodes.
func mostProbablePath(ctx context.Context, opts Options, m *MDP, init Dist, left, target []bool, choice func(s, step int) int, limit int) (*pathNode, error) {
	var q pathQueue
	seq := 0
	push := func(n *pathNode) {
		n.seq = seq
		seq++
		heap.Push(&q, n)
	}
	for _, t := range init {
		if t.Prob.Sign() > 0 {
			push(&pathNode{s: t.To, prob: t.Prob, step1: t.Prob, choice: -1})
		}
	}
	type key struct{ s, step int }
	settled := map[key]bool{}
	for q.Len() > 0 {
		n := heap.Pop(&q).(*pathNode)
		k := key{n.s, n.step}
		if limit < 0 {
			k.step = 0 // memoryless: a state once
		}
		if settled[k] {
			continue
		}
		settled[k] = true
		if len(settled) > maxWitnessNodes {
			return nil, errWitnessTooLarge
		}
		if len(settled)%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if err := opts.overBudget("while searching a witness"); err != nil {
				return nil, err
			}
		}
		if target[n.s] {
			return n, nil
		}
		if !left[n.s] || limit >= 0 && n.step >= limit {
			continue
		}
		c := choice(n.s, n.step)
		if c < 0 {
			continue
		}
		for _, t := range m.Choices[n.s][c] {
			if t.Prob.Sign() == 0 {
				continue
			}
			push(&pathNode{s: t.To, step: n.step + 1, prob: new(big.Rat).Mul(n.prob, t.Prob), step1: t.Prob, parent: n, choice: c})
		}
	}
	return nil, nil
}

// bestInit returns the index of the first initial distribution that
// attains the best (max) or worst value under v (-1: none).
func bestInit(init []Dist, v []*big.Rat, max bool) int {
	var best *big.Rat
	bi := -1
	for i, d := range init {
		e := expect(d, v)
		if best == nil || max && e.Cmp(best) > 0 || !max && e.Cmp(best) < 0 {
			best, bi = e, i
		}
	}
	return bi
}

// witness builds the witness of a strategy on mdp (the MDP solved: the
// point estimates' when b's distributions carry intervals): the path
// search, then the replay of the path through the machine, from the
// concrete initial state, to find each step's action and answers.
//
// initIdx is the index of the initial distribution that attains the value
// (-1: none, no path).
func (b *builder) witness(mdp *MDP, initIdx int, left, target []bool, max bool, choice func(s, step int) int, limit int) (*Witness, error) {
	w := &Witness{Max: max, Prob: new(big.Rat), Orbits: b.opts.Canon != nil}
	if initIdx < 0 {
		return w, nil
	}
	init := mdp.Init[initIdx]
	last, err := mostProbablePath(b.ctx, b.opts, mdp, init, orAll(left, mdp.N()), target, choice, limit)
	switch {
	case errors.Is(err, errWitnessTooLarge):
		return nil, nil // no witness: nil, as for interval iteration
	case err != nil:
		return nil, err
	case last == nil:
		return w, nil
	}
	var path []*pathNode
	for n := last; n != nil; n = n.parent {
		path = append(path, n)
	}
	slices.Reverse(path)
	w.Prob.Set(last.prob)
	b.record = true
	defer func() { b.record = false }()
	ops, err := b.expandInit()
	if err != nil {
		return nil, err
	}
	oi := matchOption(ops, nil, init, -1, -1)
	if oi < 0 {
		return nil, fmt.Errorf("wrapcheck internal error: quant: the witness lost the initial distribution")
	}
	l := bestLeaf(&ops[oi], path[0].s)
	if l == nil {
		return nil, fmt.Errorf("wrapcheck internal error: quant: the witness lost the initial state")
	}
	w.Steps = append(w.Steps, b.witnessStep(-1, l, path[0].step1))
	vec := l.vec
	seen := map[int]bool{}
	for j := 1; j < len(path); j++ {
		s, c := path[j-1].s, path[j].choice
		ops, acts, err := b.expand(vec)
		if err != nil {
			return nil, err
		}
		act := mdp.Actions[s][c]
		oi := matchOption(ops, acts, mdp.Choices[s][c], act, c)
		if oi < 0 {
			return nil, fmt.Errorf("wrapcheck internal error: quant: the witness lost a choice of step %d", j)
		}
		o := &ops[oi]
		act = acts[oi]
		l := bestLeaf(o, path[j].s)
		if l == nil {
			return nil, fmt.Errorf("wrapcheck internal error: quant: the witness lost the state of step %d", j)
		}
		if !seen[s] || limit >= 0 {
			seen[s] = true
			w.Strategy = append(w.Strategy, StrategyRow{Step: j - 1, Action: act, Decisions: b.decisions(o), Choices: len(mdp.Choices[s])})
		}
		w.Steps = append(w.Steps, b.witnessStep(act, l, path[j].step1))
		vec = l.vec
	}
	return w, nil
}

// matchOption returns the index of the option among ops whose distribution, at the
// point estimates, is d: option c when it is (and of action act), else
// the first (under symmetry, the concrete state's choices may come in
// another order than its representative's, and its actions be other
// instances).
func matchOption(ops []option, acts []int, d Dist, act, c int) int {
	k := d.key()
	if c >= 0 && c < len(ops) && (acts == nil || acts[c] == act) && ops[c].d.point().key() == k {
		return c
	}
	for i := range ops {
		if ops[i].d.point().key() == k {
			return i
		}
	}
	return -1
}

// bestLeaf returns the leaf of o of the greatest weight that makes state
// to (the first of them on ties).
func bestLeaf(o *option, to int) *leaf {
	var best *wleaf
	for i := range o.leaves {
		l := &o.leaves[i]
		if l.l.to == to && (best == nil || l.w.Cmp(best.w) > 0) {
			best = l
		}
	}
	if best == nil {
		return nil
	}
	return best.l
}

// witnessStep makes the step of action act by leaf l.
func (b *builder) witnessStep(act int, l *leaf, p *big.Rat) WitnessStep {
	st := WitnessStep{Action: act, State: make([]int64, len(b.m.Slots)), Prob: p}
	b.p.Unpack(st.State, l.vec)
	for _, d := range l.path {
		if d.Agent >= 0 {
			st.Asked = append(st.Asked, machine.Answer{Agent: d.Agent, Value: slices.Clone(d.Value)})
		}
	}
	return st
}

// decisions lists the scheduler's decisions in the leaves of o: the
// choose values and the answers without a rate, each once.
func (b *builder) decisions(o *option) []machine.Branch {
	var out []machine.Branch
	for _, l := range o.leaves {
		for i := range l.l.path {
			d := &l.l.path[i]
			if d.Agent >= 0 {
				if r, err := b.rateFor(d.Agent, d.Args); err != nil || r != nil {
					continue
				}
			}
			if !slices.ContainsFunc(out, func(x machine.Branch) bool { return sameDecision(&x, d) }) {
				out = append(out, *d)
			}
		}
	}
	return out
}

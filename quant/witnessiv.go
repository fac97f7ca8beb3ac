package quant

import (
	"context"
	"math"
	"math/big"
	"slices"
)

// boundsStrategy picks, from the bounds iv that interval iteration gave
// mdp's values, a memoryless strategy for a [Witness] of a value that was
// not computed exactly. A choice is a candidate when the bounds cannot
// rule it out: its expectation under the upper bounds reaches the best
// expectation under the lower bounds (max), or its expectation under the
// lower bounds is no more than the best under the upper ones (min). For
// max, a breadth-first search backwards from target over the candidates'
// edges gives each state it reaches the best candidate (by the lower
// bounds) that moves to the state that found it, so that the strategy
// moves closer to the event as the exact one does in the states of
// probability 1, and does not keep to an end component the bounds cannot
// tell from its exits; every other state takes its first candidate, as
// exact mode takes the first best choice. The strategy need not attain
// the value: [intervalWitness] bounds its own probability.
func boundsStrategy(mdp *MDP, iv []Interval, left, target []bool, max bool) []int {
	return pickStrategy(mdp, choiceBounds(mdp, iv, nil), left, target, max, max)
}

// costBoundsStrategy is [boundsStrategy] for expected costs (iv from
// [ExpectCostInterval], cost the choices' costs): a choice's expectation
// is its cost plus that of its successors' bounds. For min, the
// breadth-first search backwards from target runs over the candidates:
// a choice of zero cost in an end component of zero cost is as good as
// its exits by the bounds (the Bellman equation holds there for every
// choice of zero cost within it), and a strategy that keeps to it never
// reaches target and costs infinity, so each state takes a candidate
// that moves closer to target. The least expected cost is attained by a
// proper strategy whose choices are candidates (the bounds enclose the
// values), so the search reaches every state of finite cost, and a
// candidate of such a state never moves to a state of infinite cost (its
// lower expectation would be infinite): the strategy reaches target with
// probability 1 from every state of finite cost. For max, where the
// value is finite only on the states from which every strategy reaches
// target with probability 1 (and every choice stays among them), any
// candidate does, and each state takes its first.
func costBoundsStrategy(mdp *MDP, iv []Interval, cost func(s, c int) *big.Rat, target []bool, max bool) []int {
	return pickStrategy(mdp, choiceBounds(mdp, iv, cost), orAll(nil, mdp.N()), target, max, !max)
}

// choiceBounds returns exp[s][c]: choice c of state s's expectation
// under the lower and the upper bounds iv, plus its cost (cost nil: none;
// an entry of probability 0 adds nothing, an infinite bound makes the
// sum infinite).
func choiceBounds(mdp *MDP, iv []Interval, cost func(s, c int) *big.Rat) [][][2]float64 {
	n := mdp.N()
	exp := make([][][2]float64, n)
	for s := range n {
		exp[s] = make([][2]float64, len(mdp.Choices[s]))
		for c, d := range mdp.Choices[s] {
			if cost != nil {
				x, _ := cost(s, c).Float64()
				exp[s][c] = [2]float64{x, x}
			}
			for _, tr := range d {
				if tr.Prob.Sign() == 0 {
					continue
				}
				p, _ := tr.Prob.Float64()
				exp[s][c][0] += p * iv[tr.To].Lo
				exp[s][c][1] += p * iv[tr.To].Hi
			}
		}
	}
	return exp
}

// pickStrategy is [boundsStrategy] over the choices' expectations exp
// ([choiceBounds]), with the breadth-first search backwards from target
// when backward.
func pickStrategy(mdp *MDP, exp [][][2]float64, left, target []bool, max, backward bool) []int {
	n := mdp.N()
	// slack covers the rounding of the float sums of choiceBounds,
	// relative to values past 1
	slack := func(x float64) float64 {
		if math.IsInf(x, 0) {
			return 0
		}
		return 1e-12 * math.Max(1, math.Abs(x))
	}
	strategy := make([]int, n)
	bar := make([]float64, n) // the best lower (max) or upper (min) expectation
	// finite[s]: some choice of s has a finite lower expectation (for
	// min, a choice with an infinite one is then no candidate)
	finite := make([]bool, n)
	candidate := func(s, c int) bool {
		if max {
			return exp[s][c][1] >= bar[s]-slack(bar[s])
		}
		return exp[s][c][0] <= bar[s]+slack(bar[s]) && !(finite[s] && math.IsInf(exp[s][c][0], 1))
	}
	for s := range n {
		bar[s] = math.NaN()
		for _, e := range exp[s] {
			finite[s] = finite[s] || !math.IsInf(e[0], 1)
			if math.IsNaN(bar[s]) || max && e[0] > bar[s] || !max && e[1] < bar[s] {
				bar[s] = e[0]
				if !max {
					bar[s] = e[1]
				}
			}
		}
		for c := range exp[s] {
			if candidate(s, c) {
				strategy[s] = c
				break
			}
		}
	}
	if !backward {
		return strategy
	}
	pred := make([][]int32, n) // pred[t]: the states with a candidate that may move to t
	for s := range n {
		if target[s] || !left[s] {
			continue
		}
		for c, d := range mdp.Choices[s] {
			if !candidate(s, c) {
				continue
			}
			for _, tr := range d {
				if tr.Prob.Sign() > 0 {
					pred[tr.To] = append(pred[tr.To], int32(s))
				}
			}
		}
	}
	done := slices.Clone(target)
	queue := make([]int32, 0, n)
	for s := range n {
		if target[s] {
			queue = append(queue, int32(s))
		}
	}
	for len(queue) > 0 {
		t := queue[0]
		queue = queue[1:]
		for _, s := range pred[t] {
			if done[s] {
				continue
			}
			// of the candidates of s that may move to t, the best by the
			// lower bounds (the first on ties)
			bc := -1
			for c, d := range mdp.Choices[s] {
				if !candidate(int(s), c) || bc >= 0 && (max && exp[s][c][0] <= exp[s][bc][0] || !max && exp[s][c][0] >= exp[s][bc][0]) {
					continue
				}
				if i, ok := slices.BinarySearchFunc(d, int(t), func(tr Trans, to int) int { return tr.To - to }); ok && d[i].Prob.Sign() > 0 {
					bc = c
				}
			}
			strategy[s] = bc
			done[s] = true
			queue = append(queue, s)
		}
	}
	return strategy
}

// fixed returns the Markov chain that strategy makes of mdp: each state's
// chosen distribution alone.
func fixed(mdp *MDP, strategy []int) *MDP {
	d := &MDP{Choices: make([][]Dist, mdp.N()), Init: mdp.Init}
	for s, c := range strategy {
		d.Choices[s] = mdp.Choices[s][c : c+1]
	}
	return d
}

// intervalWitness is the [Witness] of a value that interval iteration
// computed (iv, on mdp): the strategy [boundsStrategy] picks, the bounds
// of its own probability from the initial distribution that the bounds
// pick (interval iteration on the Markov chain it makes, sound as every
// interval iteration is), and the most probable path to the event under
// it.
func (b *builder) intervalWitness(ctx context.Context, mdp *MDP, iv []Interval, left, target []bool, max bool) (*Witness, error) {
	strategy := boundsStrategy(mdp, iv, orAll(left, mdp.N()), target, max)
	own, err := ReachInterval(ctx, fixed(mdp, strategy), left, target, max, b.opts.epsilon(), b.opts.maxIter())
	if err != nil {
		return nil, err
	}
	return b.boundsWitness(mdp, strategy, iv, own, initialInterval, left, target, max)
}

// costIntervalWitness is [intervalWitness] for an expected cost that
// [ExpectCostInterval] computed (iv, on mdp, with the choices' costs
// cost): the strategy [costBoundsStrategy] picks, the bounds of its own
// expected cost (ExpectCostInterval on the Markov chain it makes, each
// state's one choice costing what the strategy's choice costs), and the
// most probable path to target under it.
func (b *builder) costIntervalWitness(ctx context.Context, mdp *MDP, cost func(s, c int) *big.Rat, iv []Interval, target []bool, max bool) (*Witness, error) {
	strategy := costBoundsStrategy(mdp, iv, cost, target, max)
	chainCost := func(s, _ int) *big.Rat { return cost(s, strategy[s]) }
	own, err := ExpectCostInterval(ctx, fixed(mdp, strategy), chainCost, target, max, b.opts.epsilon(), b.opts.maxIter())
	if err != nil {
		return nil, err
	}
	return b.boundsWitness(mdp, strategy, iv, own, initialCostInterval, nil, target, max)
}

// boundsWitness is the witness of [intervalWitness] and
// [costIntervalWitness] from the strategy picked and the bounds of the
// values (iv) and of the strategy's own (own): the most probable path
// under strategy from the initial distribution that the bounds pick (for
// max the greatest lower end, for min the least upper end, by initial),
// and, as the witness's Bounds, own's from it.
func (b *builder) boundsWitness(mdp *MDP, strategy []int, iv, own []Interval, initial func([]Dist, []Interval, bool) Interval, left, target []bool, max bool) (*Witness, error) {
	initIdx := -1
	var bestInit float64
	for i, d := range mdp.Init {
		x := initial([]Dist{d}, iv, max)
		e := x.Hi
		if max {
			e = x.Lo
		}
		if initIdx < 0 || max && e > bestInit || !max && e < bestInit {
			initIdx, bestInit = i, e
		}
	}
	w, err := b.witness(mdp, initIdx, left, target, max, func(s, _ int) int { return strategy[s] }, -1)
	if w == nil || err != nil {
		return w, err
	}
	if initIdx >= 0 {
		x := initial(mdp.Init[initIdx:initIdx+1], own, max)
		w.Bounds = &x
	}
	return w, nil
}

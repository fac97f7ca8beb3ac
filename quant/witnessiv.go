package quant

import (
	"context"
	"math"
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
	n := mdp.N()
	// exp[s][c]: choice c's expectation under the lower and the upper
	// bounds, computed once
	exp := make([][][2]float64, n)
	for s := range n {
		exp[s] = make([][2]float64, len(mdp.Choices[s]))
		for c, d := range mdp.Choices[s] {
			for _, tr := range d {
				p, _ := tr.Prob.Float64()
				exp[s][c][0] += p * iv[tr.To].Lo
				exp[s][c][1] += p * iv[tr.To].Hi
			}
		}
	}
	// slack covers the rounding of the float sums above
	const slack = 1e-12
	strategy := make([]int, n)
	bar := make([]float64, n) // the best lower (max) or upper (min) expectation
	candidate := func(s, c int) bool {
		if max {
			return exp[s][c][1] >= bar[s]-slack
		}
		return exp[s][c][0] <= bar[s]+slack
	}
	for s := range n {
		bar[s] = math.NaN()
		for _, e := range exp[s] {
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
	if !max {
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
				pred[tr.To] = append(pred[tr.To], int32(s))
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
				if !candidate(int(s), c) || bc >= 0 && exp[s][c][0] <= exp[s][bc][0] {
					continue
				}
				if _, ok := slices.BinarySearchFunc(d, int(t), func(tr Trans, to int) int { return tr.To - to }); ok {
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
	initIdx := -1
	var bestInit float64
	for i, d := range mdp.Init {
		x := initialInterval([]Dist{d}, iv, max)
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
		x := initialInterval(mdp.Init[initIdx:initIdx+1], own, max)
		w.Bounds = &x
	}
	return w, nil
}

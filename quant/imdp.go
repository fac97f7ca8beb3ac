package quant

import (
	"fmt"
	"math/big"
	"sort"
)

// HasIntervals reports whether some distribution of m carries intervals
// (m is then an interval MDP).
func (m *MDP) HasIntervals() bool {
	for _, cs := range m.Choices {
		for _, d := range cs {
			if d.hasIntervals() {
				return true
			}
		}
	}
	for _, d := range m.Init {
		if d.hasIntervals() {
			return true
		}
	}
	return false
}

func (d Dist) hasIntervals() bool {
	for _, t := range d {
		if t.Lo != nil {
			return true
		}
	}
	return false
}

// Point returns m with every probability at its point estimate: the
// intervals dropped, and the entries of probability 0 with them.
func (m *MDP) Point() *MDP {
	out := &MDP{Choices: make([][]Dist, len(m.Choices)), Actions: m.Actions}
	for s, cs := range m.Choices {
		for _, d := range cs {
			out.Choices[s] = append(out.Choices[s], d.point())
		}
	}
	for _, d := range m.Init {
		out.Init = append(out.Init, d.point())
	}
	out.Init = dedupeDists(out.Init)
	return out
}

func (d Dist) point() Dist {
	out := make(Dist, 0, len(d))
	for _, t := range d {
		if t.Prob.Sign() > 0 {
			out = append(out, Trans{To: t.To, Prob: t.Prob})
		}
	}
	return out
}

// Vertices returns the MDP of m's interval MDP whose choices are, for
// every choice of m, the vertices of its polytope of distributions {p :
// lo <= p <= hi, sum p = 1}, each a choice of its own. The optimum of a
// linear function over the polytope is attained at a vertex, and every
// vertex is the distribution that fills the successors greedily in some
// order (each gets its lo, then, in the order, as much of what is left as
// its hi allows; Haddad and Monmege, TCS 2018, section 5; Givan, Leach
// and Dean, AIJ 2000): the successors ordered by decreasing value give
// the maximum of the expectation, by increasing value the minimum. So
// the MDP of the vertices, where the scheduler picks the vertex too, has
// the values of the interval MDP when the scheduler and the choice of
// the distributions within the intervals optimise together (both
// maximise, or both minimise): min and max over the schedulers and the
// rates within their boxes. Each step may pick another vertex, so the
// rates may differ from step to step: the range contains the values of
// every fixed choice of the rates, and may be wider.
//
// The vertices are enumerated once, by the orders of the successors
// whose interval is not a point; a choice with more than limit orders
// of them gives ErrTooLarge.
func (m *MDP) Vertices(limit int) (*MDP, error) {
	out := &MDP{Choices: make([][]Dist, len(m.Choices))}
	if m.Actions != nil {
		out.Actions = make([][]int, len(m.Choices))
	}
	for s, cs := range m.Choices {
		for c, d := range cs {
			vs, err := d.vertices(limit)
			if err != nil {
				return nil, err
			}
			out.Choices[s] = append(out.Choices[s], vs...)
			if m.Actions != nil {
				for range vs {
					out.Actions[s] = append(out.Actions[s], m.Actions[s][c])
				}
			}
		}
	}
	for _, d := range m.Init {
		vs, err := d.vertices(limit)
		if err != nil {
			return nil, err
		}
		out.Init = append(out.Init, vs...)
	}
	out.Init = dedupeDists(out.Init)
	return out, nil
}

// vertices returns the vertices of d's polytope, each once.
func (d Dist) vertices(limit int) ([]Dist, error) {
	if !d.hasIntervals() {
		return []Dist{d.point()}, nil
	}
	var free []int // the entries whose interval is not a point
	rest := big.NewRat(1, 1)
	lo := make([]*big.Rat, len(d))
	hi := make([]*big.Rat, len(d))
	one := big.NewRat(1, 1)
	for i := range d {
		lo[i], hi[i] = d[i].lo(), d[i].hi()
		if hi[i].Cmp(one) > 0 {
			hi[i] = one
		}
		rest.Sub(rest, lo[i])
		if lo[i].Cmp(hi[i]) < 0 {
			free = append(free, i)
		}
	}
	if rest.Sign() < 0 {
		return nil, fmt.Errorf("wrapcheck internal error: quant: the lower ends of a distribution's intervals sum to more than 1")
	}
	orders := 1
	for i := 2; i <= len(free); i++ {
		orders *= i
		if orders > limit {
			return nil, fmt.Errorf("%w: a step's distribution has %d uncertain probabilities, whose %d or more orders pass the limit of %d", ErrTooLarge, len(free), orders, limit)
		}
	}
	var out []Dist
	perm := append([]int(nil), free...)
	sort.Ints(perm)
	for {
		v := make([]*big.Rat, len(d))
		for i := range d {
			v[i] = new(big.Rat).Set(lo[i])
		}
		left := new(big.Rat).Set(rest)
		for _, i := range perm {
			if left.Sign() == 0 {
				break
			}
			add := new(big.Rat).Sub(hi[i], lo[i])
			if add.Cmp(left) > 0 {
				add.Set(left)
			}
			v[i].Add(v[i], add)
			left.Sub(left, add)
		}
		if left.Sign() != 0 {
			return nil, fmt.Errorf("wrapcheck internal error: quant: the upper ends of a distribution's intervals sum to less than 1")
		}
		var vd Dist
		for i := range d {
			if v[i].Sign() > 0 {
				vd = append(vd, Trans{To: d[i].To, Prob: v[i]})
			}
		}
		out = append(out, vd)
		if !nextPerm(perm) {
			break
		}
	}
	return dedupeDists(out), nil
}

// nextPerm rearranges p into the next permutation in lexicographic
// order, and reports whether there was one.
func nextPerm(p []int) bool {
	i := len(p) - 2
	for i >= 0 && p[i] >= p[i+1] {
		i--
	}
	if i < 0 {
		return false
	}
	j := len(p) - 1
	for p[j] <= p[i] {
		j--
	}
	p[i], p[j] = p[j], p[i]
	for a, b := i+1, len(p)-1; a < b; a, b = a+1, b-1 {
		p[a], p[b] = p[b], p[a]
	}
	return true
}

package quant

import (
	"fmt"
	"math"
	"math/big"
	"sort"

	"github.com/wrapcheck/wrapcheck/spec"
)

// A Sensitivity is the range of a query's value (over the schedulers and
// the rates within their confidence intervals, as [Box]) if one measured
// rate were known exactly: the counts of Rate taken at their point
// estimates k/n, every other count still within its interval. The
// measured rate whose Sensitivity is the narrowest is the one whose
// interval widens the answer most: the one to measure next.
//
// The ranges are computed as the box is, on the MDP rebuilt with Rate's
// probabilities exact (the same states, in the same order), so each is
// within the box and contains the value at the point estimates. LoInf
// and HiInf mark an infinite end (expected costs).
type Sensitivity struct {
	Rate         *spec.Rate
	Box          Box
	LoInf, HiInf bool
}

// Width returns the width of the range: exactly (exact not nil) when
// both ends are exact, else an upper bound from the enclosures of
// interval iteration; +Inf when an end is infinite.
func (s *Sensitivity) Width() (exact *big.Rat, upper float64) {
	return boxWidth(&s.Box, s.LoInf, s.HiInf)
}

// boxWidth is [Sensitivity.Width] for a box.
func boxWidth(b *Box, loInf, hiInf bool) (*big.Rat, float64) {
	switch {
	case loInf || hiInf:
		return nil, math.Inf(1)
	case b.Lo != nil && b.Hi != nil:
		w := new(big.Rat).Sub(b.Hi, b.Lo)
		f, _ := w.Float64()
		return w, f
	}
	lo, hi := 0.0, 1.0
	if b.Lo != nil {
		lo = ratDown(b.Lo)
	} else if b.LoBounds != nil {
		lo = b.LoBounds.Lo
	}
	if b.Hi != nil {
		hi = ratUp(b.Hi)
	} else if b.HiBounds != nil {
		hi = b.HiBounds.Hi
	}
	return nil, math.Nextafter(hi-lo, math.Inf(1))
}

// sortSensitivities orders ss by width, narrowest first (exact widths
// compared exactly), ties in the order of the rates' declarations.
func sortSensitivities(ss []Sensitivity) {
	sort.SliceStable(ss, func(i, j int) bool {
		ei, fi := ss[i].Width()
		ej, fj := ss[j].Width()
		if ei != nil && ej != nil {
			return ei.Cmp(ej) < 0
		}
		return fi < fj
	})
}

// sensitivities returns the Sensitivity of each rate, ranked: solve sets
// the range on the MDP with the rate exact.
func sensitivities(rates []*spec.Rate, pins *pinnedBoxes, solve func(g *MDP, sv *Sensitivity) error) ([]Sensitivity, error) {
	var out []Sensitivity
	for _, rate := range rates {
		g, err := pins.get(rate)
		if err != nil {
			return nil, err
		}
		sv := Sensitivity{Rate: rate, Box: Box{Level: pins.b.opts.confidence()}}
		if err := solve(g, &sv); err != nil {
			return nil, err
		}
		out = append(out, sv)
	}
	sortSensitivities(out)
	return out, nil
}

// measuredRates returns the rates of m with a count, in declaration
// order.
func measuredRates(m *spec.Model) []*spec.Rate {
	var out []*spec.Rate
	for _, r := range m.Rates {
		for _, a := range r.Answers {
			if a.Count {
				out = append(out, r)
				break
			}
		}
	}
	return out
}

// pinnedBoxes builds, once per measured rate, the MDP of the vertices of
// the interval MDP with that rate's counts at their point estimates.
type pinnedBoxes struct {
	b    *builder // the builder of the MDP solved, whose states they share
	mdps map[*spec.Rate]*MDP
}

func (pb *pinnedBoxes) get(r *spec.Rate) (*MDP, error) {
	if g, ok := pb.mdps[r]; ok {
		return g, nil
	}
	b := newBuilder(pb.b.ctx, pb.b.m, pb.b.p, pb.b.opts)
	b.pinned = r
	g, err := b.build()
	if err != nil {
		return nil, err
	}
	if len(b.states) != len(pb.b.states) {
		return nil, fmt.Errorf("wrapcheck internal error: quant: the MDP with %s's rate exact has %d states, not %d", pb.b.m.Agents[r.Agent].Name, len(b.states), len(pb.b.states))
	}
	if g, err = g.Vertices(pb.b.opts.maxCombos()); err != nil {
		return nil, err
	}
	if pb.mdps == nil {
		pb.mdps = map[*spec.Rate]*MDP{}
	}
	pb.mdps[r] = g
	return g, nil
}

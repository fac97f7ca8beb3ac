package reduce

import (
	"fmt"

	"github.com/wrapcheck/wrapcheck/spec"
)

// ForQuant returns the symmetry reduction of the probability analysis
// of m (package quant's Options.Canon, `wrapcheck prob`): the
// permutations of the symmetric types under which the analysis is
// invariant. A permutation π of a symmetric type is an automorphism of
// the transition system (see the package documentation); for the
// Markov decision process that quant builds it must also preserve the
// probabilities, the costs and the conditions asked about:
//
//   - a rate's `when` reads the agent's arguments, which π permutes: it
//     must name no single identity of the type, so that the answer to the
//     permuted arguments has the same probabilities (a rate's answers are
//     constants of a scalar type, never identities);
//   - each condition of a probability query or an expected cost, and each
//     `when` of a cost item, must name no single identity;
//   - a cost item charged on actions must charge every instance of a
//     family indexed by the type alike (the language's `Action: v` names
//     every instance, so it always does).
//
// A type that breaks one of these is left out of the group, with a
// note saying why. The result is nil when nothing is left to permute.
func ForQuant(m *spec.Model) (*Canon, []string, error) {
	full, err := NewCanon(m, Group{})
	if err != nil || full == nil {
		return nil, nil, err
	}
	var g Group
	var notes []string
	for _, t := range full.c.types {
		if why := quantBreaks(m, t); why != "" {
			g.Off = append(g.Off, t)
			notes = append(notes, fmt.Sprintf("symmetry over %s is off for the probabilities: %s", t.Name, why))
		}
	}
	if len(g.Off) == 0 {
		return full, notes, nil
	}
	c, err := NewCanon(m, g)
	return c, notes, err
}

// quantBreaks returns why permuting t would change the probability
// analysis of m, "" when it would not.
func quantBreaks(m *spec.Model, t *spec.Type) string {
	for _, r := range m.Rates {
		if r.When != nil && namesIdentity(r.When, t, false) {
			return fmt.Sprintf("the rate of %s at %s names single identities", m.Agents[r.Agent].Name, r.Pos)
		}
	}
	for _, q := range m.Queries {
		for _, e := range []*spec.Expr{q.Left, q.Right} {
			if e != nil && namesIdentity(e, t, false) {
				return fmt.Sprintf("probability %s names single identities", q.Name)
			}
		}
	}
	for _, e := range m.Expectations {
		if namesIdentity(e.Target, t, false) {
			return fmt.Sprintf("expected %s names single identities", e.Name)
		}
	}
	for _, k := range m.Costs {
		for _, it := range k.Items {
			if it.When != nil && namesIdentity(it.When, t, false) || !unitInvariant(m, it.Actions, t) {
				return fmt.Sprintf("cost %s at %s does not charge every identity alike", k.Name, it.Pos)
			}
		}
	}
	return ""
}

package spec

import "slices"

// Select returns what a check limited to the names in only runs: the
// invariants (their indexes in m.Invariants, in declaration order) and
// the properties (in declaration order); every one of each when only is
// empty. unknown is the first name of only that is neither an invariant
// nor a property of m (then invs and props are nil), or "". Every
// consumer of a `--only` list (verify's validation, the safety search,
// the LTL checker) selects with it.
func (m *Model) Select(only []string) (invs []int, props []*Property, unknown string) {
	for _, name := range only {
		if !slices.ContainsFunc(m.Invariants, func(in *Invariant) bool { return in.Name == name }) &&
			!slices.ContainsFunc(m.Properties, func(p *Property) bool { return p.Name == name }) {
			return nil, nil, name
		}
	}
	for i, in := range m.Invariants {
		if len(only) == 0 || slices.Contains(only, in.Name) {
			invs = append(invs, i)
		}
	}
	for _, p := range m.Properties {
		if len(only) == 0 || slices.Contains(only, p.Name) {
			props = append(props, p)
		}
	}
	return invs, props, ""
}

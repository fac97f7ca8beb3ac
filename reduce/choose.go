package reduce

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// Switches are the user's reduction switches. The zero value turns both
// reductions on, where they are sound for the checks.
type Switches struct {
	NoSymmetry bool
	NoPOR      bool
}

// Checks are the checks of one search, which decide the reductions that
// keep its verdict: the safety search (Property nil) checks the
// invariants Only selects (every invariant when empty), and the product
// of an LTL property checks that property.
type Checks struct {
	Only     []string
	Property *Property
}

// Property is an LTL property as its product checks it.
type Property struct {
	Name string
	// Atoms are the state predicates of its formula.
	Atoms []*spec.Expr
	// HasNext says that the formula uses next: it is not stutter
	// invariant, so partial-order reduction is off for it.
	HasNext bool
	// Pinned is the symmetric type of a top-level forall checked for its
	// first identity alone (the atoms name that identity), or nil.
	Pinned *spec.Type
}

// Thread is a fairness declaration with one unit per instance of a
// family indexed by Type, a type the symmetry of a property's product
// permutes: a permutation exchanges its units, so the product follows
// each instance through the permutations instead of taking the
// declaration as invariant.
type Thread struct {
	Type *spec.Type
	// Units holds, per instance (identity of Type, in order), the index
	// of its unit among the units of every fairness declaration in
	// declaration order.
	Units []int
}

// Hooks are the reductions of one search, chosen by [Choose].
type Hooks struct {
	// Canon canonicalises states for the symmetry group of the search (for
	// a property, the subgroup that leaves its atoms and fairness alone);
	// nil: no symmetry reduction.
	Canon *Canon
	// Ample is the partial-order reduction hook, nil when there is none.
	Ample verdict.AmpleFunc
	// Visible are the slots the checks read, sorted and unique: those that
	// Ample keeps visible. Nil when partial-order reduction is off.
	Visible []int
	// Threads are the fairness declarations the product of a property
	// follows through the permutations of Canon.
	Threads []Thread
	// Notes say why a reduction that the switches allow is off for a
	// property.
	Notes []string
	// Key names the reduced system: two products with equal keys explore
	// the same system.
	Key string
}

// CanonFunc returns the symmetry hook of the search as the checker takes
// it; nil when there is none.
func (h *Hooks) CanonFunc() verdict.CanonFunc {
	if h.Canon == nil {
		return nil
	}
	return h.Canon.Func()
}

// Choose returns the reductions of a search of m for checks, within the
// switches: this is the one place that decides which reduction is sound
// for which check. The safety search gets the whole symmetry group and
// ample sets whose visible slots are those of the checked invariants
// ([Visible]; deadlocks, assertions and runtime errors need none). The
// product of a property gets the symmetry group less every symmetric type
// whose single identities its atoms name (other than the first identity
// of Pinned, which then stays in place) or whose permutations a fairness
// declaration does not survive (neither invariant nor one unit per
// instance of a family indexed by the type, see [Thread]), each with a
// note; and ample sets whose visible slots are those its atoms read,
// unless it uses next (with a note) or m has fairness declarations (an
// ample set may postpone an action that the fairness of the whole
// system would force; off without a note, since it is a model-wide
// choice). The error reports a state layout the permutations cannot act
// on ([SymmetryOf]).
func Choose(m *spec.Model, checks Checks, sw Switches) (*Hooks, error) {
	if checks.Property != nil {
		return chooseProperty(m, checks.Property, sw)
	}
	h := &Hooks{}
	if !sw.NoSymmetry {
		canon, err := NewCanon(m, Group{})
		if err != nil {
			return nil, err
		}
		h.Canon = canon
	}
	if !sw.NoPOR {
		h.Visible = Visible(m, checks.Only)
		h.Ample = POR(m, h.Visible)
	}
	return h, nil
}

// chooseProperty is [Choose] for the product of property p.
func chooseProperty(m *spec.Model, p *Property, sw Switches) (*Hooks, error) {
	h := &Hooks{}
	var key strings.Builder
	if !sw.NoSymmetry {
		full, err := NewCanon(m, Group{})
		if err != nil {
			return nil, err
		}
		var g Group
		if full != nil {
			for _, t := range full.c.types {
				if why := breaks(m, t, p); why != "" {
					g.Off = append(g.Off, t)
					h.Notes = append(h.Notes, fmt.Sprintf("symmetry over %s is off for property %s: %s", t.Name, p.Name, why))
					fmt.Fprintf(&key, "off %p;", t)
				}
			}
			if p.Pinned != nil && !slices.Contains(g.Off, p.Pinned) {
				g.Fixed = []*spec.Type{p.Pinned}
				fmt.Fprintf(&key, "fixed %p;", p.Pinned)
			}
			if h.Canon, err = NewCanon(m, g); err != nil {
				return nil, err
			}
		}
		if h.Canon != nil {
			h.Threads = threads(m, h.Canon.c.types)
			if len(h.Threads) > 0 {
				key.WriteString("threads;")
			}
		}
	}
	if h.Canon == nil {
		key.Reset()
		key.WriteString("nosym;")
	}
	if !sw.NoPOR {
		switch {
		case len(m.Fairness) > 0:
			// Off without a note: fairness is a model-wide choice, and
			// the note would repeat on every fair model.
		case p.HasNext:
			h.Notes = append(h.Notes, fmt.Sprintf("partial-order reduction is off for property %s: it uses next", p.Name))
		default:
			var vis []int
			for _, a := range p.Atoms {
				vis = ExprSlots(vis, a)
			}
			slices.Sort(vis)
			h.Visible = slices.Compact(vis)
			h.Ample = POR(m, h.Visible)
			fmt.Fprintf(&key, "por %v;", h.Visible)
		}
	}
	h.Key = key.String()
	return h, nil
}

// breaks returns why the quotient by symmetric type t would be unsound
// for property p, or "" when it is sound: every atom and every fairness
// unit must be invariant under the permutations of t (those fixing the
// first identity when t is pinned).
func breaks(m *spec.Model, t *spec.Type, p *Property) string {
	for _, a := range p.Atoms {
		if namesIdentity(a, t, t == p.Pinned) {
			return "its formula applies temporal operators to single identities (a quantifier over " + t.Name + " inside a temporal operator)"
		}
	}
	for _, f := range m.Fairness {
		if !declInvariant(m, f, t) && instanceUnits(m, f, t) == nil {
			return fmt.Sprintf("the units of fairness %s %s are not one per instance of a family indexed by %s", strength(f.Strong), f.Name, t.Name)
		}
	}
	return ""
}

// instanceUnits returns, for a fairness declaration f whose units are
// one per instance of a family indexed by t (each made of that
// instance's copies of the same actions), the unit of each instance
// (index into f.Units); nil when f is not of that form.
func instanceUnits(m *spec.Model, f *spec.Fairness, t *spec.Type) []int {
	if len(f.Units) != int(t.Size()) {
		return nil
	}
	of := make([]int, t.Size())
	for i := range of {
		of[i] = -1
	}
	var shorts []string
	for k, u := range f.Units {
		if len(u) == 0 {
			return nil
		}
		inst := int64(-1)
		var names []string
		for _, a := range u {
			pr := m.Processes[m.Actions[a].Process]
			if pr.IndexType != t || (inst >= 0 && pr.Index != inst) {
				return nil
			}
			inst = pr.Index
			names = append(names, m.Actions[a].Short)
		}
		slices.Sort(names)
		if shorts == nil {
			shorts = names
		} else if !slices.Equal(shorts, names) {
			return nil
		}
		if of[inst-t.Lo] >= 0 {
			return nil
		}
		of[inst-t.Lo] = k
	}
	return of
}

func strength(strong bool) string {
	if strong {
		return "strong"
	}
	return "weak"
}

// namesIdentity reports whether e contains a constant of type t (other
// than its first identity when exceptFirst).
func namesIdentity(e *spec.Expr, t *spec.Type, exceptFirst bool) bool {
	return spec.Contains(e, func(x *spec.Expr) bool {
		return x.Op == spec.OpConst && x.Type == t && !(exceptFirst && x.Val == t.Lo)
	})
}

// declInvariant reports whether every unit of fairness declaration f is
// invariant under the permutations of t.
func declInvariant(m *spec.Model, f *spec.Fairness, t *spec.Type) bool {
	for _, u := range f.Units {
		if !unitInvariant(m, u, t) {
			return false
		}
	}
	return true
}

// unitInvariant reports whether the fairness unit u (a set of actions) is
// mapped onto itself by the permutations of t: with every action of an
// instance of a family indexed by t, it holds the same action of every
// instance.
func unitInvariant(m *spec.Model, u []int, t *spec.Type) bool {
	for _, a := range u {
		act := m.Actions[a]
		pr := m.Processes[act.Process]
		if pr.IndexType != t {
			continue
		}
		for b, other := range m.Actions {
			op := m.Processes[other.Process]
			if op.Family == pr.Family && op.IndexType == t && other.Short == act.Short && !slices.Contains(u, b) {
				return false
			}
		}
	}
	return true
}

// threads returns the fairness declarations with one unit per instance
// of a family indexed by one of the permuted types.
func threads(m *spec.Model, types []*spec.Type) []Thread {
	var out []Thread
	base := 0 // index of the declaration's first unit among all units
	for _, f := range m.Fairness {
		for _, t := range types {
			if declInvariant(m, f, t) {
				continue
			}
			th := Thread{Type: t}
			for _, k := range instanceUnits(m, f, t) {
				th.Units = append(th.Units, base+k)
			}
			out = append(out, th)
		}
		base += len(f.Units)
	}
	return out
}

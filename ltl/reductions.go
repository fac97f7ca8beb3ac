package ltl

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/machine"
	red "github.com/wrapcheck/wrapcheck/reduce"
	"github.com/wrapcheck/wrapcheck/spec"
)

// plan is how one property is checked: the formula (possibly reduced to
// the first identity of a symmetric type) and the reductions of the
// system it is checked on. See the package documentation, "Reductions".
type plan struct {
	prop *spec.Property // the property as checked
	// formula and atoms are prop converted ([FromProperty]).
	formula *Formula
	atoms   []*spec.Expr
	pinned  *spec.Type // the top-level forall reduced to its first identity, or nil
	group   red.Group  // the symmetry subgroup (when canon != nil)
	canon   *red.Canon
	// threads are the fairness declarations with one unit per instance of
	// a family indexed by a permuted type: their units are followed
	// through the permutations of the quotient (see cycle.go).
	threads []threadDecl
	ample   checker.AmpleFunc
	key     string   // systems with equal keys are the same reduced system
	notes   []string // why a reduction is off for this property
}

// planner computes the plans of the properties of one model.
type planner struct {
	m     *spec.Model
	opts  Options
	full  *red.Canon // the whole symmetry group: transpositions
	inits [][]int64  // the concrete initial states, unpacked
	// lim bounds the conversion of the properties; nil: none.
	lim *budget
	// symTypes are the symmetric types of two or more identities that
	// some state slot depends on, in order of appearance.
	symTypes []*spec.Type
}

func newPlanner(m *spec.Model, prog *machine.Program, opts Options, interrupt func() bool) (*planner, error) {
	pl := &planner{m: m, opts: opts}
	if !opts.Symmetry {
		return pl, nil
	}
	full, err := red.NewCanon(m, red.Group{})
	if err != nil || full == nil {
		return pl, err
	}
	pl.full = full
	pl.symTypes = full.Types()
	mach := prog.NewMachine()
	mach.SetInterrupt(interrupt)
	err = mach.Init(func(_ int, t machine.State) {
		u := make([]int64, prog.Slots())
		prog.Unpack(u, t)
		pl.inits = append(pl.inits, u)
	})
	if err != nil {
		pl.inits = nil // the check reports the failure; no pinning
	}
	return pl, nil
}

// plan returns the plan of property p.
func (pl *planner) plan(p *spec.Property) (*plan, error) {
	pn := &plan{prop: p}
	f := p.Formula
	if pl.opts.Symmetry {
		f = hoistForall(f)
	}
	if pl.opts.Symmetry && f.Op == spec.OpForall && f.Dom != nil && f.Dom.Kind == spec.SymmetricKind &&
		f.Dom.Size() >= 2 && len(f.Args) == 1 && isTemporal(f.Args[0]) && pl.initsSymmetric(f.Dom) {
		body := substitute(f.Args[0], f.Slot, &spec.Expr{Op: spec.OpConst, Type: f.Dom, Val: f.Dom.Lo, Pos: f.Pos})
		pn.prop = &spec.Property{Name: p.Name, Formula: body, Pos: p.Pos}
		pn.pinned = f.Dom
	}
	lim := pl.lim
	if lim == nil {
		lim = newBudget(context.Background(), 0)
	}
	formula, atoms, err := fromProperty(pn.prop, lim)
	if err != nil {
		return nil, err
	}
	pn.formula, pn.atoms = formula, atoms
	var key strings.Builder
	if pl.opts.Symmetry && len(pl.symTypes) > 0 {
		for _, t := range pl.symTypes {
			why := pl.breaks(t, pn, atoms)
			if why != "" {
				pn.group.Off = append(pn.group.Off, t)
				pn.notes = append(pn.notes, fmt.Sprintf("symmetry over %s is off for property %s: %s", t.Name, p.Name, why))
				fmt.Fprintf(&key, "off %p;", t)
			}
		}
		if pn.pinned != nil && !slices.Contains(pn.group.Off, pn.pinned) {
			pn.group.Fixed = []*spec.Type{pn.pinned}
			fmt.Fprintf(&key, "fixed %p;", pn.pinned)
		}
		pn.canon, err = red.NewCanon(pl.m, pn.group)
		if err != nil {
			return nil, err
		}
		if pn.canon != nil {
			pn.threads = pl.threadDecls(pn.canon.Types())
			if len(pn.threads) > 0 {
				key.WriteString("threads;")
			}
		}
	}
	if pn.canon == nil {
		key.Reset()
		key.WriteString("nosym;")
	}
	if pl.opts.POR {
		switch {
		case len(pl.m.Fairness) > 0:
			// Off without a note: fairness is a model-wide choice, and
			// the note would repeat on every fair model (docs/impl.md).
		case formula.HasNext():
			pn.notes = append(pn.notes, fmt.Sprintf("partial-order reduction is off for property %s: it uses next", p.Name))
		default:
			var vis []int
			for _, a := range atoms {
				vis = red.ExprSlots(vis, a)
			}
			slices.Sort(vis)
			vis = slices.Compact(vis)
			pn.ample = red.POR(pl.m, vis)
			fmt.Fprintf(&key, "por %v;", vis)
		}
	}
	pn.key = key.String()
	return pn, nil
}

// hoistForall rewrites `always (forall x in T: φ)` with a temporal φ into
// `forall x in T: always φ` (always distributes over a conjunction), so
// that the quantifier is outermost and can be checked for one identity.
func hoistForall(e *spec.Expr) *spec.Expr {
	if e.Op != spec.OpAlways || len(e.Args) != 1 {
		return e
	}
	q := hoistForall(e.Args[0])
	if q.Op != spec.OpForall || len(q.Args) != 1 || !isTemporal(q.Args[0]) {
		if q == e.Args[0] {
			return e
		}
		n := *e
		n.Args = []*spec.Expr{q}
		return &n
	}
	always := *e
	always.Args = []*spec.Expr{q.Args[0]}
	forall := *q
	forall.Args = []*spec.Expr{&always}
	return &forall
}

// breaks returns why the quotient by symmetric type t would be unsound
// for the property of pn with these atoms, or "" when it is sound: every
// atom and every fairness unit must be invariant under the permutations
// of t (those fixing the first identity when t is pinned).
func (pl *planner) breaks(t *spec.Type, pn *plan, atoms []*spec.Expr) string {
	for _, a := range atoms {
		if namesIdentity(a, t, t == pn.pinned) {
			return "its formula applies temporal operators to single identities (a quantifier over " + t.Name + " inside a temporal operator)"
		}
	}
	for _, f := range pl.m.Fairness {
		if !declInvariant(pl.m, f, t) && instanceUnits(pl.m, f, t) == nil {
			return fmt.Sprintf("the units of fairness %s %s are not one per instance of a family indexed by %s", strength(f.Strong), f.Name, t.Name)
		}
	}
	return ""
}

// threadDecl is a fairness declaration with one unit per instance of a
// family indexed by a permuted symmetric type.
type threadDecl struct {
	typ   *spec.Type
	units []int // per instance: the index of its unit among all units
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

// threadDecls returns the fairness declarations with one unit per
// instance of a family indexed by one of the permuted types.
func (pl *planner) threadDecls(types []*spec.Type) []threadDecl {
	var out []threadDecl
	base := 0 // index of the declaration's first unit among all units
	for _, f := range pl.m.Fairness {
		for _, t := range types {
			if declInvariant(pl.m, f, t) {
				continue
			}
			td := threadDecl{typ: t}
			for _, k := range instanceUnits(pl.m, f, t) {
				td.units = append(td.units, base+k)
			}
			out = append(out, td)
		}
		base += len(f.Units)
	}
	return out
}

// initsSymmetric reports whether the set of initial states is closed
// under the permutations of t (adjacent transpositions generate them).
// Checking `forall x in t: φ(x)` as φ(first identity) needs the whole
// system, initial states included, to be symmetric in t.
func (pl *planner) initsSymmetric(t *spec.Type) bool {
	if pl.inits == nil {
		return false
	}
	if !slices.Contains(pl.symTypes, t) {
		return true // no slot depends on t: permuting it changes nothing
	}
	set := map[string]bool{}
	for _, s := range pl.inits {
		set[fmt.Sprint(s)] = true
	}
	dst := make([]int64, len(pl.m.Slots))
	for i := 0; i+1 < int(t.Size()); i++ {
		for _, s := range pl.inits {
			if !pl.full.Swap(dst, s, t, i, i+1) || !set[fmt.Sprint(dst)] {
				return false
			}
		}
	}
	return true
}

// maxPasses bounds the repetitions of a canonical cycle in concretize: a
// run repeats a concrete state after at most as many passes as the orbit
// of the cycle's start has states.
const maxPasses = 1 << 16

// concretize turns a run of the quotient system (canonical states seq,
// reached by acts; seq[m:] is a cycle back to seq[m-1]) into a run of the
// unreduced system: from a concrete initial state with the canonical form
// seq[0], each step takes the first successor (in the engine's order) whose
// canonical form is the next state; there is one, because the group maps
// transitions to transitions. A pass over the cycle ends in a state of the
// orbit of the one it started from; passes repeat until a pass ends in a
// concrete state where an earlier one ended. It returns the concrete
// states, their actions and the index of the first state of the concrete
// cycle (the states from the end of the first repeated pass on).
func (s *system) concretize(seq []uint32, acts []int32, m int) ([][]uint64, []int32, int, error) {
	var cur []uint64
	err := s.mach.Init(func(_ int, t machine.State) {
		if cur == nil && s.canonicalIs(t, seq[0]) {
			cur = slices.Clone(t)
		}
	})
	if err == nil && cur == nil {
		err = fmt.Errorf("ltl: internal error: no initial state has the canonical form of the trace's first state")
	}
	if err != nil {
		return nil, nil, 0, err
	}
	vecs := [][]uint64{cur}
	cacts := []int32{-1}
	step := func(i int) error {
		if acts[i] < 0 { // stutter in a state without successor
			if len(s.prog.Model.Stutter) > 0 { // the monitors move on
				var next []uint64
				if err := s.mach.Stutter(cur, func(t machine.State) { next = slices.Clone(t) }); err != nil {
					return err
				}
				cur = next
			}
			vecs = append(vecs, cur)
			cacts = append(cacts, -1)
			return nil
		}
		var next []uint64
		var act int32
		err := s.mach.Successors(cur, func(a, _ int, t machine.State) {
			if next == nil && s.canonicalIs(t, seq[i]) {
				next, act = slices.Clone(t), int32(a)
			}
		})
		if err == nil && next == nil {
			err = fmt.Errorf("ltl: internal error: step %d of the trace has no concrete counterpart", i)
		}
		cur = next
		vecs = append(vecs, cur)
		cacts = append(cacts, act)
		return err
	}
	for i := 1; i < m; i++ {
		if err := step(i); err != nil {
			return nil, nil, 0, err
		}
	}
	if len(seq) == m {
		return vecs, cacts, m, nil
	}
	ends := map[string]int{fmt.Sprint(cur): len(vecs)}
	for range maxPasses {
		for i := m; i < len(seq); i++ {
			if err := step(i); err != nil {
				return nil, nil, 0, err
			}
		}
		k := fmt.Sprint(cur)
		if at, ok := ends[k]; ok {
			return vecs, cacts, at, nil
		}
		ends[k] = len(vecs)
	}
	return nil, nil, 0, fmt.Errorf("ltl: internal error: the cycle of the trace does not close in %d passes", maxPasses)
}

// canonicalIs reports whether the canonical form of t is the stored state
// idx.
func (s *system) canonicalIs(t machine.State, idx uint32) bool {
	s.prog.Unpack(s.unp, t)
	s.canonFn(s.unp)
	s.prog.Pack(s.packed, s.unp)
	return slices.Equal(s.packed, s.state(idx))
}

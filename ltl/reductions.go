package ltl

import (
	"context"
	"fmt"
	"slices"

	"github.com/wrapcheck/wrapcheck/machine"
	red "github.com/wrapcheck/wrapcheck/reduce"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
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
	// canon, threads, ample, key and notes are the reductions
	// reduce.Choose picked for the property.
	canon *red.Canon
	// threads are the fairness declarations with one unit per instance of
	// a family indexed by a permuted type: their units are followed
	// through the permutations of the quotient (see cycle.go).
	threads []threadDecl
	ample   verdict.AmpleFunc
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
		if body, ok := spec.Substitute(f.Args[0], f.Slot, &spec.Expr{Op: spec.OpConst, Type: f.Dom, Val: f.Dom.Lo, Pos: f.Pos}); ok {
			pn.prop = &spec.Property{Name: p.Name, Formula: body, Pos: p.Pos}
			pn.pinned = f.Dom
		}
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
	if err := pl.choose(pn, red.Switches{NoSymmetry: !pl.opts.Symmetry, NoPOR: !pl.opts.POR}); err != nil {
		return nil, err
	}
	return pn, nil
}

// choose sets the reductions of pn to those reduce.Choose picks for its
// property within sw.
func (pl *planner) choose(pn *plan, sw red.Switches) error {
	h, err := red.Choose(pl.m, red.Checks{Property: &red.Property{Name: pn.prop.Name, Atoms: pn.atoms, HasNext: pn.formula.HasNext(), Pinned: pn.pinned}}, sw)
	if err != nil {
		return err
	}
	pn.canon, pn.ample, pn.key, pn.notes, pn.threads = h.Canon, h.Ample, h.Key, h.Notes, nil
	for _, th := range h.Threads {
		pn.threads = append(pn.threads, threadDecl{typ: th.Type, units: th.Units})
	}
	return nil
}

// plain returns the plan of pn's property on the system without
// reductions.
func (pl *planner) plain(pn *plan) (*plan, error) {
	q := &plan{prop: pn.prop, formula: pn.formula, atoms: pn.atoms, pinned: pn.pinned}
	if err := pl.choose(q, red.Switches{NoSymmetry: true, NoPOR: true}); err != nil {
		return nil, err
	}
	return q, nil
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

// threadDecl is a fairness declaration with one unit per instance of a
// family indexed by a permuted symmetric type.
type threadDecl struct {
	typ   *spec.Type
	units []int // per instance: the index of its unit among all units
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

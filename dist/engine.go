package dist

import (
	"errors"
	"slices"

	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/spec"
)

// key is the tie-break key of a successor: the position of its parent in
// the level (the global frontier order) and its ordinal among the
// parent's successors. ord is rank<<32 | branch, rank being the place of
// the action in the order the search runs them (the ample set first),
// branch the branch number within the action (failing branches
// included): the same order as the single-process search's ordinals.
type key struct{ p, ord uint64 }

func (a key) less(b key) bool { return a.p < b.p || a.p == b.p && a.ord < b.ord }

func cmpKey(a, b key) int {
	switch {
	case a.less(b):
		return -1
	case b.less(a):
		return 1
	}
	return 0
}

// engine is the compiled model as one worker uses it: expansion in the
// search's order, canonical forms, invariant checks and trace replay.
type engine struct {
	prog  *checker.Program
	opts  checker.Options
	m     *checker.Machine
	words int
	nacts int
	invs  []int           // checked invariants, ascending
	preds []*checker.Pred // per checked invariant
	antes []*checker.Pred // per checked invariant: its antecedent, or nil
	slots []int64
	enab  []int
	rest  []int
}

func newEngine(prog *checker.Program, opts checker.Options) (*engine, error) {
	m := prog.Model
	e := &engine{prog: prog, opts: opts, m: prog.NewMachine(), words: prog.Words(), nacts: len(m.Actions),
		slots: make([]int64, prog.Slots())}
	for i, inv := range m.Invariants {
		if len(opts.Only) > 0 && !slices.Contains(opts.Only, inv.Name) {
			continue
		}
		pr, err := prog.CompileExpr(inv.Expr)
		if err != nil {
			return nil, err
		}
		var ap *checker.Pred
		if a := antecedent(inv.Expr); a != nil {
			if ap, err = prog.CompileExpr(a); err != nil {
				return nil, err
			}
		}
		e.invs = append(e.invs, i)
		e.preds = append(e.preds, pr)
		e.antes = append(e.antes, ap)
	}
	return e, nil
}

// antecedent returns, for an invariant `forall x..: a implies b`, the
// expression `exists x..: a`; nil for an invariant of another form.
func antecedent(e *spec.Expr) *spec.Expr {
	switch e.Op {
	case spec.OpImplies:
		return e.Args[0]
	case spec.OpForall:
		a := antecedent(e.Args[0])
		if a == nil {
			return nil
		}
		x := *e
		x.Op = spec.OpExists
		x.Args = []*spec.Expr{a}
		return &x
	}
	return nil
}

// canon writes the canonical form of the packed state t into dst.
func (e *engine) canon(dst, t []uint64) {
	if e.opts.Canon == nil {
		copy(dst, t)
		return
	}
	e.prog.Unpack(e.slots, t)
	e.opts.Canon(e.slots)
	e.prog.Pack(dst, e.slots)
}

// failure is a failing branch: its key and error.
type failure struct {
	k  key
	ex *checker.ExecError
}

// firstMissing returns the smallest branch number not in seen (sorted):
// the branch of an action's first failure, since every ordinal is either
// a successor or a failure.
func firstMissing(seen []int) int {
	for i, b := range seen {
		if b != i {
			return i
		}
	}
	return len(seen)
}

// run runs actions acts of s, their ranks starting at rank, calling succ
// for each successor (canonical) with its ordinal; it returns the number
// of ordinals the actions took (successors and failures) and the first
// failure (nil: none) with its ordinal.
func (e *engine) run(s []uint64, acts []int, rank int, succ func(ord uint64, action int, t []uint64), canon []uint64, seen *[]int) (int, *failure, error) {
	taken := 0
	var first *failure
	for i, a := range acts {
		*seen = (*seen)[:0]
		r := uint64(rank+i) << 32
		err := e.m.SuccessorsOf(s, []int{a}, func(action, branch int, t []uint64) {
			*seen = append(*seen, branch)
			e.canon(canon, t)
			succ(r|uint64(branch), action, canon)
		})
		taken += len(*seen)
		if err != nil {
			ex, ok := err.(*checker.ExecError)
			if !ok {
				return 0, nil, err
			}
			taken++ // at least one failing branch
			if first == nil {
				first = &failure{k: key{ord: r | uint64(firstMissing(*seen))}, ex: ex}
			}
		}
	}
	return taken, first, nil
}

// enabled returns the enabled actions of s and, under partial-order
// reduction, the ample subset to run first (enabled itself when there
// is no hook).
func (e *engine) enabled(s []uint64) (enabled, sub []int) {
	if e.opts.Ample == nil {
		if e.enab == nil {
			for a := range e.nacts {
				e.enab = append(e.enab, a)
			}
		}
		return e.enab, e.enab
	}
	e.enab = e.m.Enabled(s, e.enab[:0])
	in := append([]int(nil), e.enab...)
	e.prog.Unpack(e.slots, s)
	return e.enab, e.opts.Ample(e.slots, in)
}

// restOf returns the actions of enabled not in sub (both ascending).
func (e *engine) restOf(enabled, sub []int) []int {
	e.rest = e.rest[:0]
	j := 0
	for _, a := range enabled {
		for j < len(sub) && sub[j] < a {
			j++
		}
		if j < len(sub) && sub[j] == a {
			continue
		}
		e.rest = append(e.rest, a)
	}
	return e.rest
}

// terminal reports whether s satisfies the terminal predicate (false when
// its evaluation fails, as in the search).
func (e *engine) terminal(s []uint64) bool {
	ok, err := e.m.IsTerminal(s)
	return err == nil && ok
}

// bad is a violated invariant of a state: the invariant (index into
// Model.Invariants) and, when evaluating it failed, the error.
type bad struct {
	inv int
	ex  *checker.ExecError
}

// check evaluates the checked invariants in s (canonical) in order and
// returns the first violated one (ok false: none); it sets witnessed[i]
// for the invariants whose antecedent holds.
func (e *engine) check(s []uint64, witnessed []bool) (b bad, found bool, err error) {
	for j, pr := range e.preds {
		v, err := e.m.Eval(pr, s)
		if err != nil {
			ex, ok := err.(*checker.ExecError)
			if !ok {
				return bad{}, false, err
			}
			b, found = bad{inv: e.invs[j], ex: ex}, true
			break
		}
		if v == 0 {
			b, found = bad{inv: e.invs[j]}, true
			break
		}
	}
	for j, ap := range e.antes {
		if ap != nil && !witnessed[e.invs[j]] {
			if v, err := e.m.Eval(ap, s); err == nil && v != 0 {
				witnessed[e.invs[j]] = true
			}
		}
	}
	return b, found, nil
}

// initStates returns the initial states (canonical, first occurrences in
// init-branch order) and the first init failure (nil: none) with its
// init ordinal.
func (e *engine) initStates() (states [][]uint64, ords []int, fail *failure, err error) {
	var seen []int
	dedup := checker.NewStore(e.words)
	canon := make([]uint64, e.words)
	var serr error
	ierr := e.m.Init(func(branch int, t []uint64) {
		seen = append(seen, branch)
		e.canon(canon, t)
		_, isNew, err := dedup.Insert(canon, 0)
		if err != nil {
			serr = err
		}
		if isNew {
			states = append(states, slices.Clone(canon))
			ords = append(ords, branch)
		}
	})
	if serr != nil {
		return nil, nil, nil, serr
	}
	if ierr != nil {
		ex, ok := ierr.(*checker.ExecError)
		if !ok {
			return nil, nil, nil, ierr
		}
		fail = &failure{k: key{ord: uint64(firstMissing(seen))}, ex: ex}
	}
	return states, ords, fail, nil
}

// replay rebuilds a concrete trace through the stored (canonical) states
// of path as the single-process search does: from the first initial
// state whose canonical form is path[0], each step takes the first
// successor, in (action, branch) order, whose canonical form is the next
// stored state. With failing set, a last step shows the first failing
// action of the last state (or the failing init block when path is
// empty).
func (e *engine) replay(path [][]uint64, failing bool) ([]checker.Step, error) {
	m := e.prog.NewMachine()
	m.RecordAnswers(true)
	canon := make([]uint64, e.words)
	var steps []checker.Step
	for i, target := range path {
		found := false
		var got checker.Step
		visit := func(action int, t []uint64) {
			if found {
				return
			}
			e.canon(canon, t)
			if slices.Equal(canon, target) {
				found = true
				st := make([]int64, e.prog.Slots())
				e.prog.Unpack(st, t)
				got = checker.Step{Action: action, State: st, Asked: cloneAnswers(m.Asked())}
			}
		}
		var err error
		if i == 0 {
			err = m.Init(func(_ int, t []uint64) { visit(-1, t) })
		} else {
			cur := make([]uint64, e.words)
			e.prog.Pack(cur, steps[len(steps)-1].State)
			err = m.Successors(cur, func(a, _ int, t []uint64) { visit(a, t) })
		}
		if _, ok := err.(*checker.ExecError); err != nil && !ok {
			return nil, err
		}
		if !found {
			return nil, errors.New("wrapcheck internal error: distributed trace replay lost a step")
		}
		steps = append(steps, got)
	}
	if failing {
		step, err := e.failStep(m, steps)
		if err != nil {
			return nil, err
		}
		steps = append(steps, step)
	}
	return steps, nil
}

func cloneAnswers(a []checker.Answer) []checker.Answer {
	if len(a) == 0 {
		return nil
	}
	out := make([]checker.Answer, len(a))
	for i, x := range a {
		out[i] = checker.Answer{Agent: x.Agent, Value: slices.Clone(x.Value)}
	}
	return out
}

// failStep returns the step of the first failure of the last state of
// steps (of the init block when steps is empty).
func (e *engine) failStep(m *checker.Machine, steps []checker.Step) (checker.Step, error) {
	return checker.Step{}, errors.New("dist: the trace of a failing action needs the machine's failed step")
}

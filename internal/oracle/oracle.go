package oracle

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/wrapcheck/wrapcheck/spec"
)

// Options configures [Check]. The zero value checks deadlocks and has no
// state limit.
type Options struct {
	NoDeadlock bool
	// MaxStates and MaxTransitions make Check return ErrTooBig once more
	// states than MaxStates are stored or more transitions than
	// MaxTransitions made; 0: no limit.
	MaxStates      int
	MaxTransitions int64
	// Failure, when not nil, is called for every failing branch (of init,
	// an action or a guard, with its kind and message), not only for the
	// reported one.
	Failure func(kind, msg string)
	// Visit, when not nil, is called with every stored state, once, in
	// the order the search stores them (level by level, the initial
	// states first); the states past MaxStates are not visited. Visit may
	// keep s but must not change it.
	Visit func(s []int64)
	// Images, when not nil, gives for every initial state more states
	// that the search takes as initial too, such as the state's images
	// under a symmetry group: they are stored at level 0 after the
	// initial states (the images of the first initial state first), and
	// a trace may start with one of them.
	Images func(s []int64) [][]int64
}

// ErrTooBig is returned when the search passes Options.MaxStates or
// Options.MaxTransitions.
var ErrTooBig = errors.New("oracle: too many states")

// Result is the outcome of [Check].
type Result struct {
	States      int64 // distinct reachable states
	Transitions int64 // completed branches, from every reachable state
	Depth       int   // the deepest breadth-first level
	Violation   *Violation
}

// Violation is the first violation of the shortest length.
type Violation struct {
	// Kind is "invariant", "deadlock", "assertion" or "runtime-error".
	Kind string
	// Name is the invariant's name (also for a runtime error in it), the
	// failing action's trace name or "init", "terminal" for a runtime
	// error evaluating the terminal condition, or "" for a deadlock.
	Name string
	Msg  string
	// Trace starts in an initial state; for a failure of a branch, the
	// last step is the failing action with the state as it was before the
	// failing statement.
	Trace []Step
}

// Step is one entry of a trace.
type Step struct {
	Action int // index into Model.Actions; -1 for an initial state or init
	State  []int64
}

type interp struct {
	m        *spec.Model
	slotType []*spec.Type      // the declared scalar type of every state slot
	answers  map[int][][]int64 // every answer of an agent, by agent index
	n        int
}

func newInterp(m *spec.Model) *interp {
	x := &interp{m: m, answers: map[int][][]int64{}}
	for i, v := range m.Vars {
		if v.Slot != len(x.slotType) {
			bad("variable %s at slot %d, expected %d", v.Name, v.Slot, len(x.slotType))
		}
		for _, t := range leaves(v.Type, nil) {
			if s := len(x.slotType); s < len(m.Slots) {
				sl := m.Slots[s]
				if sl.Var != i || (!sl.Set && (sl.Lo != t.Lo || sl.Hi != t.Hi)) || sl.Set != (t.Kind == spec.SetKind) {
					bad("slot %d of %s: the IR says var %d %d..%d set=%v, the type %s %d..%d", s, v.Name, sl.Var, sl.Lo, sl.Hi, sl.Set, t.Kind, t.Lo, t.Hi)
				}
			}
			x.slotType = append(x.slotType, t)
		}
		width(v.Type)
	}
	x.n = len(x.slotType)
	if x.n != len(m.Slots) {
		bad("%d slots from the variables' types, the IR has %d", x.n, len(m.Slots))
	}
	return x
}

// node is a stored state.
type node struct {
	state  []int64
	parent int // -1 for an initial state
	action int
	depth  int
}

// event is a candidate violation, in the order the search finds them.
type event struct {
	kind, name, msg string
	at              int     // the stored state it is about, or the failing step's source (-1: init)
	action          int     // failing step's action; -1 for init or a state's own violation
	fstate          []int64 // failing step's state
	step            bool    // a failing step (the trace ends with the step)
}

// Check explores every reachable state of m and checks its invariants,
// assertions, runtime errors and deadlocks (not its properties).
func Check(m *spec.Model, opts Options) (res *Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			switch r := r.(type) {
			case *internalError:
				res, err = nil, fmt.Errorf("oracle: %s", r.msg)
			case *failure:
				res, err = nil, fmt.Errorf("oracle: unexpected failure outside a branch: %s", r.msg)
			case error:
				if errors.Is(r, ErrTooBig) {
					res, err = nil, r
					return
				}
				panic(r)
			default:
				panic(r)
			}
		}
	}()
	x := newInterp(m)
	return x.search(opts), nil
}

// key appends the bytes of s to buf[:0]: the state's identity in the
// visited map.
func key(buf []byte, s []int64) []byte {
	buf = buf[:0]
	for _, v := range s {
		buf = binary.LittleEndian.AppendUint64(buf, uint64(v))
	}
	return buf
}

func (x *interp) search(opts Options) *Result {
	m := x.m
	var nodes []node
	seen := map[string]int{}
	var kb []byte
	res := &Result{}
	var found *event
	var level []event // violations found while building the current level
	note := func(ev event) {
		if ev.step && opts.Failure != nil {
			opts.Failure(ev.kind, ev.msg)
		}
		level = append(level, ev)
	}
	// add stores s if it is new and checks it.
	add := func(s []int64, parent, action, depth int) (int, bool) {
		kb = key(kb, s)
		if i, ok := seen[string(kb)]; ok {
			return i, false
		}
		i := len(nodes)
		seen[string(kb)] = i
		nodes = append(nodes, node{state: append([]int64(nil), s...), parent: parent, action: action, depth: depth})
		if opts.MaxStates > 0 && len(nodes) > opts.MaxStates {
			panic(ErrTooBig)
		}
		if opts.Visit != nil {
			opts.Visit(nodes[i].state)
		}
		res.Depth = max(res.Depth, depth)
		en := &env{state: nodes[i].state, frame: make([]int64, m.Frame)}
		for _, inv := range m.Invariants {
			ok, f := test(inv.Expr, en)
			if f != nil {
				note(event{kind: f.kind, name: inv.Name, msg: f.msg, at: i, action: -1})
				break
			}
			if !ok {
				note(event{kind: "invariant", name: inv.Name, at: i, action: -1})
				break
			}
		}
		return i, true
	}

	// Level 0: the zero state, then the init statements, branch by branch.
	zs := make([]int64, x.n)
	for i, t := range x.slotType {
		zs[i] = zero(t)
	}
	var frontier []int
	x.exec(m.Init, &env{state: zs, frame: make([]int64, m.Frame)},
		func(en *env) {
			if i, isNew := add(en.state, -1, -1, 0); isNew {
				frontier = append(frontier, i)
			}
		},
		func(f *failure, en *env) {
			note(event{kind: f.kind, name: "init", msg: f.msg, at: -1, action: -1, fstate: append([]int64(nil), en.state...), step: true})
		})
	if opts.Images != nil {
		for _, i := range slices.Clone(frontier) {
			for _, im := range opts.Images(nodes[i].state) {
				if len(im) != x.n {
					bad("an image of %d slots, the state has %d", len(im), x.n)
				}
				if j, isNew := add(im, -1, -1, 0); isNew {
					frontier = append(frontier, j)
				}
			}
		}
	}
	if len(level) > 0 {
		found = &level[0]
	}
	for depth := 0; len(frontier) > 0; depth++ {
		level = nil
		var deadlock *event // the level's first stuck state that is not terminal
		var next []int
		for _, i := range frontier {
			branches := 0
			s := nodes[i].state
			for ai, a := range m.Actions {
				failed := func(f *failure, en *env) {
					branches++
					note(event{kind: f.kind, name: a.Name, msg: f.msg, at: i, action: ai, fstate: append([]int64(nil), en.state...), step: true})
				}
				en := &env{state: s, frame: make([]int64, m.Frame)}
				if a.Guard != nil {
					g, f := test(a.Guard, en)
					if f != nil {
						failed(f, en)
						continue
					}
					if !g {
						continue
					}
				}
				en.state = append([]int64(nil), s...) // the body writes its own copy
				x.exec(a.Body, en, func(en *env) {
					branches++
					if res.Transitions++; opts.MaxTransitions > 0 && res.Transitions > opts.MaxTransitions {
						panic(ErrTooBig)
					}
					if j, isNew := add(en.state, i, ai, depth+1); isNew {
						next = append(next, j)
					}
				}, failed)
			}
			if branches == 0 && !opts.NoDeadlock && deadlock == nil {
				deadlock = x.stuck(s, i)
			}
		}
		if found == nil {
			if deadlock != nil {
				found = deadlock
			} else if len(level) > 0 {
				found = &level[0]
			}
		}
		frontier = next
	}
	res.States = int64(len(nodes))
	if found != nil {
		res.Violation = x.violation(found, nodes)
	}
	return res
}

// stuck returns the violation of state i (s), which has no branch: none
// when the terminal condition holds, a deadlock when it does not, and the
// runtime error when evaluating it fails (the language reports every
// runtime error like a violated invariant).
func (x *interp) stuck(s []int64, i int) *event {
	if x.m.Terminal == nil {
		return &event{kind: "deadlock", at: i, action: -1}
	}
	ok, f := test(x.m.Terminal, &env{state: s, frame: make([]int64, x.m.Frame)})
	switch {
	case f != nil:
		return &event{kind: f.kind, name: "terminal", msg: f.msg, at: i, action: -1}
	case ok:
		return nil
	}
	return &event{kind: "deadlock", at: i, action: -1}
}

func (x *interp) violation(ev *event, nodes []node) *Violation {
	v := &Violation{Kind: ev.kind, Name: ev.name, Msg: ev.msg}
	for i := ev.at; i >= 0; i = nodes[i].parent {
		v.Trace = append([]Step{{Action: nodes[i].action, State: nodes[i].state}}, v.Trace...)
	}
	if ev.step {
		v.Trace = append(v.Trace, Step{Action: ev.action, State: ev.fstate})
	}
	return v
}

// Package explain says why a counterexample is one.
//
// For a safety violation (an invariant, an assertion, a runtime error, a
// deadlock) [Safety] computes the causal slice of the trace: a step is
// essential when the trace without it, replayed on the spec from the same
// initial state, is no longer a run of the spec (some later step is not
// possible) or no longer reaches the violation. Each step keeps the agent
// answers the trace records for it (a recorded run's answers are its
// input: a step that cannot take them is not possible); only what no
// answer fixes (a `choose`), and the answers of an assertion's or runtime
// error's failing last step (the machine keeps one failure an expansion),
// may take any value. Each step also gets a "because": the variables it
// changed that the violated check reads, directly or through
// the reads of a later step that does the same (a backward data slice),
// and whether it must come before the next step (the trace with the two
// swapped is no longer a run, or no longer reaches the violation).
//
// On a shortest counterexample, which is what `wrapcheck check` prints,
// every step is essential by construction: the trace without one step
// would be a shorter counterexample. The slice is informative on longer
// traces: a recorded run that `wrapcheck replay` follows into a violation,
// or a trace chosen for readability. The "because" lines are informative
// on both.
//
// For a liveness violation (a lasso) [Liveness] names the actions that
// drive the cycle and the fairness declarations that would exclude it;
// when none would (every action enabled on the cycle is taken on it), a
// cycle in which agents answer is driven by the agents, and only the
// design can rule it out.
package explain

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
	"github.com/wrapcheck/wrapcheck/verify"
)

// Step is one step of an explained trace.
type Step = verdict.SliceStep

// Explanation is the causal slice of a safety counterexample.
type Explanation struct {
	Violation *verdict.Violation
	Steps     []Step   // one per trace entry; Steps[0] (the initial state) is never essential
	Reads     []string // the variables the violated check reads, in model order
}

// Essential returns the number of essential steps.
func (e *Explanation) Essential() int {
	n := 0
	for _, s := range e.Steps {
		if s.Essential {
			n++
		}
	}
	return n
}

// Slice returns e as the plain data a violation carries for the
// renderers of package report (verdict.Violation.Slice).
func (e *Explanation) Slice() *verdict.Slice {
	return &verdict.Slice{Steps: e.Steps, Reads: e.Reads}
}

// Attach explains every violation of res where check prints it
// (`wrapcheck check --explain`): it computes the causal slice of each
// finite violation ([Safety]) and attaches it to the violation
// (verdict.Violation.Slice), so that every renderer of package report
// marks the essential steps and says why; for a lasso it checks which of
// the fairness declarations that would exclude its cycle make the
// property hold ([Cycle.CheckFixes], with opts) and adds what it found to
// res.Notes. A violation that cannot be explained (a trace that replay
// cannot follow) keeps no slice, and a note says why. The error is that
// of a search (an interrupt).
func Attach(ctx context.Context, m *spec.Model, res *verdict.Result, opts verify.Options) error {
	prog, err := program(m, opts.Program)
	if err != nil {
		return err
	}
	vs := slices.Clone(res.Violations)
	if v := res.Violation; v != nil && !slices.Contains(vs, v) {
		vs = append(vs, v)
	}
	note := func(n string) {
		if !slices.Contains(res.Notes, n) {
			res.Notes = append(res.Notes, n)
		}
	}
	for _, v := range vs {
		if v.LoopStart >= 0 {
			c, err := verify.Liveness(prog, v)
			if err != nil {
				note("no explanation of the cycle: " + err.Error())
				continue
			}
			if err := c.CheckFixes(ctx, m, v, opts); err != nil {
				return err
			}
			for _, n := range c.FixNotes() {
				note(n)
			}
			continue
		}
		if v.Slice != nil {
			continue
		}
		e, err := safety(prog, v)
		if err != nil {
			note("no causal slice: " + err.Error())
			continue
		}
		v.Slice = e.Slice()
	}
	return nil
}

// Safety explains the finite counterexample v of m. The error reports a
// model the engine cannot compile or a trace that is not a run of m.
func Safety(m *spec.Model, v *verdict.Violation) (*Explanation, error) {
	prog, err := machine.Compile(m)
	if err != nil {
		return nil, err
	}
	return safety(prog, v)
}

// program returns p, the program compiled from m by the caller, or when p
// is nil, m compiled: an explanation compiles the model once, and not at
// all when the check that found the violation hands its program on.
func program(m *spec.Model, p *machine.Program) (*machine.Program, error) {
	if p == nil {
		return machine.Compile(m)
	}
	if p.Model != m {
		return nil, fmt.Errorf("explain: the program was compiled from another model")
	}
	return p, nil
}

// safety is [Safety] on the compiled program of the model.
func safety(prog *machine.Program, v *verdict.Violation) (*Explanation, error) {
	m := prog.Model
	if v == nil || len(v.Trace) == 0 {
		return nil, fmt.Errorf("explain: no counterexample")
	}
	if v.LoopStart >= 0 {
		return nil, fmt.Errorf("explain: %s is a liveness counterexample (a lasso)", v.Name)
	}
	r, err := newReplayer(prog, v)
	if err != nil {
		return nil, err
	}
	steps := make([]int, 0, len(v.Trace)-1) // trace indices of the steps replayed
	for i := 1; i < len(v.Trace); i++ {
		steps = append(steps, i)
	}
	if len(steps) == 0 {
		return &Explanation{Violation: v, Steps: make([]Step, 1), Reads: nil}, nil // the initial state alone
	}
	if ok, at := r.violates(steps); !ok {
		if at >= 0 {
			return nil, fmt.Errorf("explain: step %d (%s) of the trace is not a run of %s", at+1, m.Actions[v.Trace[steps[at]].Action].Name, m.Name)
		}
		return nil, fmt.Errorf("explain: the trace does not end in the violation of %s", v.Name)
	}
	e := &Explanation{Violation: v, Steps: make([]Step, len(v.Trace))}
	for i := range e.Steps {
		if i > 0 {
			e.Steps[i].Changed = changed(m, v.Trace[i-1].State, v.Trace[i].State)
		}
	}
	// The causal slice: remove each step in turn.
	why := make([]string, len(v.Trace))
	for i := 1; i < len(v.Trace); i++ {
		rest := slices.Delete(slices.Clone(steps), i-1, i)
		ok, at := r.violates(rest)
		if ok {
			continue
		}
		e.Steps[i].Essential = true
		if at >= 0 {
			j := rest[at]
			why[i] = fmt.Sprintf("without it step %d (%s) is not possible", j, m.Actions[v.Trace[j].Action].Name)
		} else {
			why[i] = "without it the violation is not reached"
		}
	}
	// The order: swap each step with the next.
	for i := 1; i+1 < len(v.Trace); i++ {
		swapped := slices.Clone(steps)
		swapped[i-1], swapped[i] = swapped[i], swapped[i-1]
		if ok, _ := r.violates(swapped); !ok {
			e.Steps[i].BeforeNext = true
		}
	}
	// The data slice: backward from the check's reads.
	read := r.checkReads()
	for s := range read {
		if read[s] {
			if n := m.Vars[m.Slots[s].Var].Name; !slices.Contains(e.Reads, n) {
				e.Reads = append(e.Reads, n)
			}
		}
	}
	readBy := make([]string, len(m.Slots)) // who reads each relevant slot: the check, or a step
	for s := range read {
		if read[s] {
			readBy[s] = v.Name
			switch {
			case v.Kind == verdict.Deadlock:
				readBy[s] = "the deadlock (the guards and terminal)"
			case r.terminalFails():
				readBy[s] = "the terminal condition (and the guards)"
			}
		}
	}
	for i := len(v.Trace) - 1; i >= 1; i-- {
		var feeds []string
		reader := ""
		for s := range m.Slots {
			if readBy[s] == "" || v.Trace[i-1].State[s] == v.Trace[i].State[s] {
				continue
			}
			if n := m.Vars[m.Slots[s].Var].Name; !slices.Contains(feeds, n) {
				feeds = append(feeds, n)
				if reader == "" {
					reader = readBy[s]
				}
			}
		}
		var because []string
		if len(feeds) > 0 {
			because = append(because, "writes "+strings.Join(feeds, ", ")+", read by "+reader)
			a := m.Actions[v.Trace[i].Action]
			for _, s := range a.Reads {
				if !read[s] { // the nearest later reader, unless the check reads it
					readBy[s] = fmt.Sprintf("step %d (%s)", i, a.Name)
				}
			}
		}
		if why[i] != "" && len(feeds) == 0 {
			because = append(because, why[i])
		}
		e.Steps[i].Because = strings.Join(because, "; ")
	}
	return e, nil
}

// changed lists the variables whose values differ between two states.
func changed(m *spec.Model, before, after []int64) []string {
	var out []string
	for _, x := range m.Vars {
		if !slices.Equal(before[x.Slot:x.Slot+x.Type.Width], after[x.Slot:x.Slot+x.Type.Width]) {
			out = append(out, x.Name)
		}
	}
	return out
}

// replayer replays action sequences from the trace's initial state.
type replayer struct {
	m    *spec.Model
	v    *verdict.Violation
	prog *machine.Program
	mach *machine.Machine
	inv  *machine.Pred // the violated invariant; nil for other kinds
	init machine.State
}

func newReplayer(prog *machine.Program, v *verdict.Violation) (*replayer, error) {
	var err error
	m := prog.Model
	r := &replayer{m: m, v: v, prog: prog, mach: prog.NewMachine()}
	r.mach.RecordAnswers(true)
	if v.Kind == verdict.Invariant || v.Kind == verdict.RuntimeError {
		for _, in := range m.Invariants {
			if in.Name == v.Name {
				if r.inv, err = prog.CompileExpr(in.Expr); err != nil {
					return nil, err
				}
			}
		}
	}
	r.init = make(machine.State, prog.Words())
	prog.Pack(r.init, v.Trace[0].State)
	return r, nil
}

// violates replays the trace's steps at the indices steps, in that order,
// each with its action and the agent answers the trace records for it,
// and reports whether some run taking them reaches the violation (at any
// step: the first run that does stops there; an assertion or runtime
// error of an action is reached by the last action failing); when no run
// takes them all, at is the index in steps of the first one no run can
// take (else -1).
func (r *replayer) violates(steps []int) (ok bool, at int) {
	cur := []machine.State{r.init}
	last := len(steps) - 1
	failing := r.v.Kind == verdict.Assertion || r.v.Kind == verdict.RuntimeError && r.inv == nil && !r.terminalFails()
	if !failing && r.endsIn(r.init) {
		return true, -1
	}
	seen := map[string]bool{}
	for k, i := range steps {
		a, asked := r.v.Trace[i].Action, r.v.Trace[i].Asked
		var next []machine.State
		clear(seen)
		failed := false
		for _, s := range cur {
			err := r.mach.SuccessorsOf(s, []int{a}, func(act, _ int, t machine.State) {
				if act != a || !machine.AnswersInclude(r.mach.Asked(), asked) {
					return
				}
				if key := stateKey(t); !seen[key] {
					seen[key] = true
					next = append(next, slices.Clone(t))
				}
			})
			if err != nil && k == last && failing && r.failsHere(err) {
				failed = true
			}
		}
		if k == last && failing {
			// The trace's last step is the failing action: it makes no
			// successor of its own, so the violation is its failure.
			if failed {
				return true, -1
			}
			if len(next) == 0 {
				return false, k
			}
			return false, -1
		}
		if len(next) == 0 {
			return false, k
		}
		for _, s := range next {
			if r.endsIn(s) {
				return true, -1
			}
		}
		cur = next
	}
	return false, -1
}

// stateKey is the bytes of a packed state, as a map key.
func stateKey(s machine.State) string {
	b := make([]byte, 0, 8*len(s))
	for _, w := range s {
		b = binary.LittleEndian.AppendUint64(b, w)
	}
	return string(b)
}

// failsHere reports whether err is the failure of the violation.
func (r *replayer) failsHere(err error) bool {
	ee, ok := err.(*machine.ExecError)
	return ok && ee.Kind == r.v.Kind && ee.Pos == r.v.Pos
}

// terminalFails reports whether the violation is the terminal condition
// failing to evaluate in a state with no enabled action.
func (r *replayer) terminalFails() bool {
	return r.v.Kind == verdict.RuntimeError && r.v.Name == "terminal" && r.inv == nil && r.m.Terminal != nil
}

// endsIn reports whether state s has the violation.
func (r *replayer) endsIn(s machine.State) bool {
	if r.terminalFails() {
		moves := false
		err := r.mach.Successors(s, func(int, int, machine.State) { moves = true })
		if moves || err != nil {
			return false
		}
		_, err = r.mach.IsTerminal(s)
		return err != nil
	}
	switch r.v.Kind {
	case verdict.Invariant, verdict.RuntimeError:
		if r.inv == nil {
			return false
		}
		val, err := r.mach.Eval(r.inv, s)
		if err != nil {
			return r.v.Kind == verdict.RuntimeError
		}
		return r.v.Kind == verdict.Invariant && val == 0
	case verdict.Deadlock:
		moves := false
		err := r.mach.Successors(s, func(int, int, machine.State) { moves = true })
		if moves || err != nil { // a failing branch is a branch: not a deadlock
			return false
		}
		term, err := r.mach.IsTerminal(s)
		return err == nil && !term
	}
	return false
}

// checkReads marks the state slots the violated check reads: the
// invariant's expression, the failing action's reads, or, for a
// deadlock, every guard and the terminal condition.
func (r *replayer) checkReads() []bool {
	read := make([]bool, len(r.m.Slots))
	switch r.v.Kind {
	case verdict.Invariant:
		for _, in := range r.m.Invariants {
			if in.Name == r.v.Name {
				exprReads(in.Expr, read)
			}
		}
	case verdict.Deadlock:
		r.stuckReads(read)
	default:
		if r.terminalFails() {
			r.stuckReads(read)
		} else if r.inv != nil {
			for _, in := range r.m.Invariants {
				if in.Name == r.v.Name {
					exprReads(in.Expr, read)
				}
			}
		} else if last := r.v.Trace[len(r.v.Trace)-1]; last.Action >= 0 {
			for _, s := range r.m.Actions[last.Action].Reads {
				read[s] = true
			}
		}
	}
	return read
}

// stuckReads marks the slots a stuck state's check reads: every guard
// and the terminal condition.
func (r *replayer) stuckReads(read []bool) {
	for _, a := range r.m.Actions {
		if a.Guard != nil {
			exprReads(a.Guard, read)
		}
	}
	if r.m.Terminal != nil {
		exprReads(r.m.Terminal, read)
	}
}

// exprReads marks every state slot e may read (a whole variable for an
// indexed or selected one).
func exprReads(e *spec.Expr, read []bool) {
	spec.Walk(e, func(x *spec.Expr) bool {
		if x.Op == spec.OpVar && x.Type != nil {
			for s := x.Slot; s < x.Slot+max(x.Type.Width, 1) && s < len(read); s++ {
				read[s] = true
			}
		}
		return true
	})
}

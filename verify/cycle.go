package verify

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// Cycle is the analysis of the cycle of a liveness counterexample (a
// lasso): which actions drive it, which agents answer on it, and which
// fairness declarations would exclude it. [Liveness] makes it; check's
// notes ([Cycle.Notes]) and `wrapcheck explain` both read it. The zero
// value is not meaningful.
type Cycle struct {
	// Actions are the actions taken on the cycle, in order, the closing
	// step (from the last trace entry back to the loop start) included.
	Actions []string
	// Asked lists the agents that answer on the cycle.
	Asked []string
	// Starved lists what the cycle starves, each with the fairness
	// declaration that would exclude the cycle: a process instance
	// enabled on the cycle that never steps there, then an action of a
	// process that steps, never by that action.
	Starved []Starved
	// Excluders are the fairness declarations that would exclude the
	// cycle: "fairness weak P" for a process enabled in every state of the
	// cycle that never steps on it, "fairness strong P" for one enabled
	// in some of them, and the same for an action ("fairness weak P.A")
	// of a process that steps on the cycle but never by that action; for
	// an instance of a family (P[0]) its family's declaration follows
	// (a declaration names a family, not one instance).
	Excluders []string
	// Fair is set when no fairness excludes this cycle: every action
	// enabled on it is taken on it (and none fails on it). Then the
	// property is violated under any fairness, since this lasso satisfies
	// every fairness assumption.
	Fair bool
	// Failing is set when an action fails (an assertion or a runtime
	// error) in a state of the cycle; that action counts as not enabled
	// there, and [Cycle.Notes] says nothing.
	Failing bool
	// Fixes (set by [Cycle.CheckFixes]) are the excluders that, added alone,
	// make the property hold.
	Fixes []string
	// Undecided (set by [Cycle.CheckFixes]) are the excluders whose check
	// did not decide the property: a limit or an interrupt stopped it, or
	// it met a safety violation first.
	Undecided []string
	// Checked is set by [Cycle.CheckFixes].
	Checked bool
	// NoFairness is set when the property stays violated under strong
	// fairness of every process and every action: by [Cycle.CheckFixes],
	// or, without a search, when the cycle is Fair.
	NoFairness bool
	// AgentDriven is set with NoFairness when agents answer on the cycle:
	// their answers keep the violation possible whatever the scheduler
	// does, so only the design can rule it out.
	AgentDriven bool
	// Stops is set when the "cycle" is the last state repeating: no
	// action is enabled there (terminal, or a deadlock the check allows).
	Stops bool
}

// Starved is a process instance or an action that a cycle starves.
type Starved struct {
	// Name is the process instance ("P[0]", "car") or the action
	// ("P[1].request").
	Name string
	// Process is the process instance of Name ("P[1]", "main" for a
	// top-level action).
	Process string
	// Action is set when Name is an action.
	Action bool
	// Throughout is set when it is enabled in every state of the cycle
	// (weak fairness excludes the cycle), else in some (strong fairness).
	Throughout bool
	// Decl is the declaration, as a spec writes it, that would exclude
	// the cycle: "fairness weak P" for the instance P[0], "fairness strong
	// P.request" for the action P[1].request.
	Decl string
}

// isInstance reports whether s names something of an instance of a
// family, which a declaration cannot name alone.
func isInstance(m *spec.Model, s Starved) bool {
	for _, p := range m.Processes {
		if p.Name == s.Process {
			return p.Family != ""
		}
	}
	return false
}

// hasSuccessor reports whether some action is enabled (or fails) in s.
func hasSuccessor(mach *machine.Machine, s machine.State) bool {
	moves := false
	err := mach.Successors(s, func(int, int, machine.State) { moves = true })
	return moves || err != nil
}

// Liveness analyses the cycle of the lasso v of prog's model. The error
// reports a finite counterexample or a cycle that does not close.
func Liveness(prog *machine.Program, v *verdict.Violation) (*Cycle, error) {
	if v == nil || v.LoopStart < 0 || v.LoopStart >= len(v.Trace) {
		return nil, fmt.Errorf("verify: not a liveness counterexample")
	}
	m := prog.Model
	mach := prog.NewMachine()
	mach.RecordAnswers(true)
	pack := func(st []int64) machine.State {
		s := make(machine.State, prog.Words())
		prog.Pack(s, st)
		return s
	}
	cyc := v.Trace[v.LoopStart:]
	// The closing step: from the last entry back to the loop start (a
	// self-loop when the cycle is one state). The search's lasso closes
	// by the step that first led to the loop start, from a state equal to
	// the last one: that edge, and no other with the same states, is the
	// one its fairness was judged on.
	ls, last := v.LoopStart, len(v.Trace)-1
	closing, closingAsked := -1, []verdict.Answer(nil)
	if ls > 0 && v.Trace[ls].Action >= 0 && slices.Equal(v.Trace[ls-1].State, v.Trace[last].State) {
		closing, closingAsked = v.Trace[ls].Action, v.Trace[ls].Asked
	} else {
		target := pack(cyc[0].State)
		_ = mach.Successors(pack(cyc[len(cyc)-1].State), func(a, _ int, t machine.State) {
			if closing < 0 && slices.Equal(t, target) {
				closing = a
				for _, x := range mach.Asked() {
					closingAsked = append(closingAsked, verdict.Answer{Agent: x.Agent, Value: slices.Clone(x.Value)})
				}
			}
		})
	}
	mach.RecordAnswers(false)
	if closing < 0 && v.LoopStart == len(v.Trace)-1 && !hasSuccessor(mach, pack(cyc[0].State)) {
		// The run stops: a state with no enabled action repeats forever.
		return &Cycle{Stops: true, Fair: true, NoFairness: true}, nil
	}
	if closing < 0 {
		return nil, fmt.Errorf("verify: the cycle of %s does not close: no step leads from its last state back to entry %d", v.Name, v.LoopStart)
	}
	c := &Cycle{}
	taken := make([]bool, len(m.Actions))
	var asked []int
	steps := append(slices.Clone(cyc[1:]), verdict.Step{Action: closing, Asked: closingAsked})
	for _, st := range steps {
		if st.Action < 0 {
			continue // a stuttering step of the monitors
		}
		c.Actions = append(c.Actions, m.Actions[st.Action].Name)
		taken[st.Action] = true
		for _, x := range st.Asked {
			if !slices.Contains(asked, x.Agent) {
				asked = append(asked, x.Agent)
			}
		}
	}
	slices.Sort(asked)
	for _, a := range asked {
		c.Asked = append(c.Asked, m.Agents[a].Name)
	}
	// Enabledness of each action and process on the cycle's states.
	np := len(m.Processes)
	actSome, actAll := make([]bool, len(m.Actions)), make([]bool, len(m.Actions))
	for i := range actAll {
		actAll[i] = true
	}
	hereAct := make([]bool, len(m.Actions))
	procSome, procAll := make([]bool, np), make([]bool, np)
	for i := range procAll {
		procAll[i] = true
	}
	here := make([]bool, np)
	for _, st := range cyc {
		clear(here)
		clear(hereAct)
		err := mach.Successors(pack(st.State), func(a, _ int, _ machine.State) {
			hereAct[a] = true
			here[m.Actions[a].Process] = true
		})
		if err != nil {
			c.Failing = true
		}
		for a := range hereAct {
			actSome[a] = actSome[a] || hereAct[a]
			actAll[a] = actAll[a] && hereAct[a]
		}
		for p := range here {
			procSome[p] = procSome[p] || here[p]
			procAll[p] = procAll[p] && here[p]
		}
	}
	procTaken := make([]bool, np)
	for a, t := range taken {
		if t {
			procTaken[m.Actions[a].Process] = true
		}
	}
	kind := func(all bool) string {
		if all {
			return "fairness weak "
		}
		return "fairness strong "
	}
	for p, proc := range m.Processes {
		if procTaken[p] || !procSome[p] {
			continue
		}
		name := proc.Name
		if proc.Family != "" {
			name = proc.Family
		}
		c.Starved = append(c.Starved, Starved{Name: proc.Name, Process: proc.Name, Throughout: procAll[p], Decl: kind(procAll[p]) + name})
	}
	for a, act := range m.Actions {
		if !actSome[a] || taken[a] || !procTaken[act.Process] {
			continue
		}
		p := m.Processes[act.Process]
		name := p.Name + "." + act.Short // "main.a" for a top-level action
		if p.Family != "" {
			name = p.Family + "." + act.Short
		}
		c.Starved = append(c.Starved, Starved{Name: act.Name, Process: p.Name, Action: true, Throughout: actAll[a], Decl: kind(actAll[a]) + name})
	}
	for _, s := range c.Starved {
		x := s.Decl
		if isInstance(m, s) {
			x = kind(s.Throughout) + s.Name // its family's Decl follows
		}
		c.Excluders = append(c.Excluders, x)
	}
	// A family's instances may not be named in a fairness declaration:
	// offer the family as a whole too ("fairness weak P" for P[0]).
	for _, s := range c.Starved {
		if !slices.Contains(c.Excluders, s.Decl) {
			c.Excluders = append(c.Excluders, s.Decl)
		}
	}
	// An action that fails on the cycle may be what it starves: no claim.
	c.Fair = len(c.Excluders) == 0 && !c.Failing
	c.NoFairness = c.Fair
	c.AgentDriven = c.NoFairness && len(c.Asked) > 0
	return c, nil
}

// Notes are what check says about the cycle, without a search: what it
// starves and the declaration that would exclude it; when no fairness
// can exclude it, that, and whether the agents' answers drive it. None
// when an action fails on the cycle.
func (c *Cycle) Notes() []string {
	if c.Failing {
		return nil
	}
	var notes []string
	for _, s := range c.Starved {
		where := "in the cycle"
		if s.Throughout {
			where = "throughout the cycle"
		}
		if s.Action {
			notes = append(notes, fmt.Sprintf("the cycle starves action %s: it is enabled %s but never taken, while other actions of %s are; `%s` would exclude this cycle", s.Name, where, s.Process, s.Decl))
			continue
		}
		notes = append(notes, fmt.Sprintf("the cycle starves %s: it is enabled %s but never steps; `%s` would exclude this cycle", s.Name, where, s.Decl))
	}
	switch {
	case c.Stops:
		notes = append(notes, "the run stops: its last state has no enabled action and repeats forever, so no fairness applies to it")
	case c.Fair && c.AgentDriven:
		notes = append(notes, fmt.Sprintf("no fairness excludes the cycle: every action enabled on it is taken on it; the answers of %s drive it, so the design must rule it out", strings.Join(c.Asked, ", ")))
	case c.Fair:
		notes = append(notes, "no fairness excludes the cycle: every action enabled on it is taken on it")
	}
	return notes
}

// FixNotes are what [Cycle.CheckFixes] found, as notes: for each
// excluder that a spec can declare, whether adding it makes the property
// hold; and whether no fairness can rule the violation out. None before
// CheckFixes, or when the cycle is Fair (Notes says it).
func (c *Cycle) FixNotes() []string {
	if !c.Checked || c.Fair {
		return nil
	}
	var notes []string
	for _, s := range c.Starved {
		if slices.ContainsFunc(c.Starved[:slices.Index(c.Starved, s)], func(o Starved) bool { return o.Decl == s.Decl }) {
			continue
		}
		switch {
		case slices.Contains(c.Fixes, s.Decl):
			notes = append(notes, fmt.Sprintf("adding `%s` makes the property hold", s.Decl))
		case slices.Contains(c.Undecided, s.Decl):
			notes = append(notes, fmt.Sprintf("adding `%s` excludes this cycle; whether the property then holds was not decided (the check stopped early or met another violation)", s.Decl))
		default:
			notes = append(notes, fmt.Sprintf("adding `%s` excludes this cycle, but the property is still violated with it", s.Decl))
		}
	}
	switch {
	case c.AgentDriven:
		notes = append(notes, fmt.Sprintf("the answers of %s drive the violation: with strong fairness of every process and action it remains, so no fairness can rule it out, the design must", strings.Join(c.Asked, ", ")))
	case c.NoFairness:
		notes = append(notes, "no fairness rules the violation out: strong fairness of every process and action leaves the property violated")
	}
	return notes
}

// splitFairness splits "fairness weak P" into "fairness weak " and "P".
func splitFairness(x string) (kind, target string) {
	for _, k := range []string{"fairness strong ", "fairness weak "} {
		if strings.HasPrefix(x, k) {
			return k, strings.TrimPrefix(x, k)
		}
	}
	return "", x
}

// fairnessOf returns the declaration x ("fairness weak P", "P.A", a
// family "F" or "F.A", or an instance "F[v]" or "F[v].A") expanded into
// units, as the front end expands a written one.
func fairnessOf(m *spec.Model, x string) *spec.Fairness {
	kind, target := splitFairness(x)
	f := &spec.Fairness{Strong: kind == "fairness strong ", Name: target}
	for _, p := range m.Processes {
		if p.Name == target || p.Family != "" && p.Family == target {
			f.Units = append(f.Units, slices.Clone(p.Actions))
			continue
		}
		for _, a := range p.Actions {
			act := m.Actions[a]
			if act.Name == target || p.Name+"."+act.Short == target || p.Family != "" && p.Family+"."+act.Short == target {
				f.Units = append(f.Units, []int{a})
			}
		}
	}
	return f
}

// CheckFixes checks, for the property violated by v, which of the cycle's
// excluders, each added to m alone, make the property hold (an excluder
// rules out this lasso, not necessarily every counterexample), and
// whether strong fairness of every process and every action together
// still leaves it violated: then no fairness can rule it out, and
// c.NoFairness is set (with c.AgentDriven when agents answer on the
// cycle). A check that does not decide the property (a limit, an
// interrupt, a safety violation met first) decides nothing: its excluder
// is listed in c.Undecided, and NoFairness is left as the analysis set it.
// opts configures the checks (Only is set to the property).
func (c *Cycle) CheckFixes(ctx context.Context, m *spec.Model, v *verdict.Violation, opts Options) error {
	// Added fairness of one instance of a family is not symmetric, and
	// the reductions are tuned to the declared fairness: check without.
	opts.Only, opts.Progress, opts.NoSymmetry, opts.NoPOR, opts.Program, opts.Continue = []string{v.Name}, nil, true, true, nil, false
	// verdict is Holds, Violated (this property, by a lasso) or Unknown.
	decide := func(extra []*spec.Fairness) (verdict.Verdict, error) {
		sub := *m
		sub.Fairness = append(slices.Clone(m.Fairness), extra...)
		res, err := Run(ctx, &sub, opts)
		if err != nil {
			return verdict.Unknown, err
		}
		switch {
		case res.Verdict == verdict.Holds:
			return verdict.Holds, nil
		case res.Verdict == verdict.Violated && res.Violation.Kind == verdict.Property && res.Violation.Name == v.Name:
			return verdict.Violated, nil
		}
		return verdict.Unknown, nil
	}
	unit := func(name string) *spec.Fairness { return fairnessOf(m, name) }
	c.Fixes, c.Undecided = nil, nil
	for _, x := range c.Excluders {
		got, err := decide([]*spec.Fairness{unit(x)})
		if err != nil {
			return err
		}
		switch got {
		case verdict.Holds:
			c.Fixes = append(c.Fixes, x)
		case verdict.Unknown:
			c.Undecided = append(c.Undecided, x)
		}
	}
	var all []*spec.Fairness
	for _, p := range m.Processes {
		all = append(all, unit("fairness strong "+p.Name))
	}
	for _, a := range m.Actions {
		all = append(all, unit("fairness strong "+a.Name))
	}
	got, err := decide(all)
	if err != nil {
		return err
	}
	if got != verdict.Unknown {
		c.NoFairness = got == verdict.Violated
	}
	c.AgentDriven = c.NoFairness && len(c.Asked) > 0
	c.Checked = true
	return nil
}

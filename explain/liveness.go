package explain

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verify"
)

// Cycle explains the cycle of a liveness counterexample.
type Cycle struct {
	// Actions are the actions taken on the cycle, in order, the closing
	// step (from the last trace entry back to the loop start) included.
	Actions []string
	// Asked lists the agents that answer on the cycle.
	Asked []string
	// Excluders are the fairness declarations that would exclude the
	// cycle: "fairness weak P" for a process enabled in every state of the
	// cycle that never steps on it, "fairness strong P" for one enabled
	// in some of them, and the same for an action ("fairness weak P.A")
	// of a process that steps on the cycle but never by that action.
	Excluders []string
	// Fair is set when no fairness excludes this cycle: every action
	// enabled on it is taken on it.
	Fair bool
	// Fixes (set by [Cycle.CheckFixes]) are the excluders that, added alone,
	// make the property hold.
	Fixes []string
	// NoFairness (set by [Cycle.CheckFixes]) is set when the property stays
	// violated under strong fairness of every process and every action.
	NoFairness bool
	// AgentDriven is set with NoFairness when agents answer on the cycle:
	// their answers keep the violation possible whatever the scheduler
	// does, so only the design can rule it out.
	AgentDriven bool
	// Stops is set when the "cycle" is the last state repeating: no
	// action is enabled there (terminal, or a deadlock the check allows).
	Stops bool
}

func hasSuccessor(mach *machine.Machine, s machine.State) bool {
	moves := false
	err := mach.Successors(s, func(int, int, machine.State) { moves = true })
	return moves || err != nil
}

// Liveness explains the lasso v of m. The error reports a model the engine
// cannot compile, a finite counterexample, or a cycle that does not close.
func Liveness(m *spec.Model, v *checker.Violation) (*Cycle, error) {
	if v == nil || v.LoopStart < 0 || v.LoopStart >= len(v.Trace) {
		return nil, fmt.Errorf("explain: not a liveness counterexample")
	}
	prog, err := machine.Compile(m)
	if err != nil {
		return nil, err
	}
	mach := prog.NewMachine()
	mach.RecordAnswers(true)
	pack := func(st []int64) machine.State {
		s := make(machine.State, prog.Words())
		prog.Pack(s, st)
		return s
	}
	cyc := v.Trace[v.LoopStart:]
	// The closing step: from the last entry back to the loop start (a
	// self-loop when the cycle is one state).
	target := pack(cyc[0].State)
	closing, closingAsked := -1, []checker.Answer(nil)
	_ = mach.Successors(pack(cyc[len(cyc)-1].State), func(a, _ int, t machine.State) {
		if closing < 0 && slices.Equal(t, target) {
			closing = a
			for _, x := range mach.Asked() {
				closingAsked = append(closingAsked, checker.Answer{Agent: x.Agent, Value: slices.Clone(x.Value)})
			}
		}
	})
	if closing < 0 && v.LoopStart == len(v.Trace)-1 && !hasSuccessor(mach, pack(cyc[0].State)) {
		// The run stops: a state with no enabled action repeats forever.
		return &Cycle{Stops: true, Fair: true}, nil
	}
	if closing < 0 {
		return nil, fmt.Errorf("explain: the cycle of %s does not close: no step leads from its last state back to entry %d", v.Name, v.LoopStart)
	}
	mach.RecordAnswers(false)
	c := &Cycle{}
	taken := make([]bool, len(m.Actions))
	var asked []int
	steps := append(slices.Clone(cyc[1:]), checker.Step{Action: closing, Asked: closingAsked})
	for _, st := range steps {
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
		_ = mach.Successors(pack(st.State), func(a, _ int, _ machine.State) {
			hereAct[a] = true
			here[m.Actions[a].Process] = true
		})
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
	for p, proc := range m.Processes {
		switch {
		case procTaken[p] || !procSome[p]:
		case procAll[p]:
			c.Excluders = append(c.Excluders, "fairness weak "+proc.Name)
		default:
			c.Excluders = append(c.Excluders, "fairness strong "+proc.Name)
		}
	}
	for a, act := range m.Actions {
		switch {
		case !actSome[a] || taken[a] || !procTaken[act.Process]:
		case actAll[a]:
			c.Excluders = append(c.Excluders, "fairness weak "+act.Name)
		default:
			c.Excluders = append(c.Excluders, "fairness strong "+act.Name)
		}
	}
	// A family's instances may not be named in a fairness declaration:
	// offer the family as a whole too ("fairness weak P" for P[0]).
	var fam []string
	for _, x := range c.Excluders {
		kind, target := splitFairness(x)
		for _, p := range m.Processes {
			if p.Family == "" {
				continue
			}
			var f string
			switch {
			case target == p.Name:
				f = kind + p.Family
			case strings.HasPrefix(target, p.Name+"."):
				f = kind + p.Family + strings.TrimPrefix(target, p.Name)
			}
			if f != "" && !slices.Contains(c.Excluders, f) && !slices.Contains(fam, f) {
				fam = append(fam, f)
			}
		}
	}
	c.Excluders = append(c.Excluders, fam...)
	c.Fair = len(c.Excluders) == 0
	return c, nil
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
			if act.Name == target || p.Family != "" && p.Family+"."+act.Short == target {
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
// cycle). opts configures the checks (Only is set to the property).
func (c *Cycle) CheckFixes(ctx context.Context, m *spec.Model, v *checker.Violation, opts verify.Options) error {
	// Added fairness of one instance of a family is not symmetric, and
	// the reductions are tuned to the declared fairness: check without.
	opts.Only, opts.Progress, opts.NoSymmetry, opts.NoPOR = []string{v.Name}, nil, true, true
	holds := func(extra []*spec.Fairness) (bool, error) {
		sub := *m
		sub.Fairness = append(slices.Clone(m.Fairness), extra...)
		res, err := verify.Run(ctx, &sub, opts)
		if err != nil {
			return false, err
		}
		return res.Verdict == checker.Holds, nil
	}
	unit := func(name string) *spec.Fairness { return fairnessOf(m, name) }
	c.Fixes = nil
	for _, x := range c.Excluders {
		ok, err := holds([]*spec.Fairness{unit(x)})
		if err != nil {
			return err
		}
		if ok {
			c.Fixes = append(c.Fixes, x)
		}
	}
	var all []*spec.Fairness
	for _, p := range m.Processes {
		all = append(all, unit("fairness strong "+p.Name))
	}
	for _, a := range m.Actions {
		all = append(all, unit("fairness strong "+a.Name))
	}
	ok, err := holds(all)
	if err != nil {
		return err
	}
	c.NoFairness = !ok
	c.AgentDriven = c.NoFairness && len(c.Asked) > 0
	return nil
}

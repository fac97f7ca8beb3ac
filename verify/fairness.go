package verify

import (
	"context"
	"fmt"

	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/ltl"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
)

// starvation explains a lasso in terms of fairness: for each process
// instance that takes no step in the cycle although it is enabled there,
// the declaration that would exclude the cycle — weak fairness when the
// process is enabled in every state of the cycle, strong fairness when it
// is enabled in some. The cycle may still have fair variants; the note
// says which assumption this particular cycle breaks.
func starvation(prog *machine.Program, v *checker.Violation) ([]string, error) {
	if v == nil || v.LoopStart < 0 || v.LoopStart >= len(v.Trace) {
		return nil, nil
	}
	m := prog.Model
	mach := prog.NewMachine()
	cycle := v.Trace[v.LoopStart:]
	n := len(m.Processes)
	stepped := make([]bool, n)
	enabledSome := make([]bool, n)
	enabledAll := make([]bool, n)
	for i := range enabledAll {
		enabledAll[i] = true
	}
	packed := make(machine.State, prog.Words())
	here := make([]bool, n)
	for _, st := range cycle {
		if st.Action >= 0 {
			stepped[m.Actions[st.Action].Process] = true
		}
		clear(here)
		prog.Pack(packed, st.State)
		err := mach.Successors(packed, func(action, _ int, _ machine.State) {
			here[m.Actions[action].Process] = true
		})
		if err != nil {
			return nil, nil // a failing action: no fairness story to tell
		}
		for p := range here {
			enabledSome[p] = enabledSome[p] || here[p]
			enabledAll[p] = enabledAll[p] && here[p]
		}
	}
	var notes []string
	for p, proc := range m.Processes {
		if stepped[p] || !enabledSome[p] {
			continue
		}
		name := proc.Name
		if proc.Family != "" {
			name = proc.Family
		}
		kind := "strong"
		if enabledAll[p] {
			kind = "weak"
		}
		notes = append(notes, fmt.Sprintf("the cycle starves %s: it is enabled %s but never steps; `fairness %s %s` would exclude this cycle",
			proc.Name, map[string]string{"weak": "throughout the cycle", "strong": "in the cycle"}[kind], kind, name))
	}
	return notes, nil
}

// neededFairness reports, for a model whose selected properties hold, the
// fairness declarations without which one of them fails: it checks the
// properties again with each declaration left out.
func neededFairness(ctx context.Context, lc *ltl.Checker, m *spec.Model, opts Options) ([]string, error) {
	var notes []string
	for i, f := range m.Fairness {
		lo := ltlOptions(opts)
		lo.IgnoreFairness = []int{i}
		res, err := lc.Check(ctx, lo)
		if err != nil {
			return nil, err
		}
		kind := "weak"
		if f.Strong {
			kind = "strong"
		}
		switch res.Verdict {
		case checker.Violated:
			notes = append(notes, fmt.Sprintf("property %s needs `fairness %s %s` (%s): without it, it fails", res.Violation.Name, kind, f.Name, f.Pos))
		case checker.Holds:
			notes = append(notes, fmt.Sprintf("`fairness %s %s` (%s): the properties hold without it (the other fairness declarations kept)", kind, f.Name, f.Pos))
		}
	}
	return notes, nil
}

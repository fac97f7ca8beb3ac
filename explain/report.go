package explain

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
	"github.com/wrapcheck/wrapcheck/verify"
)

// Report is a violation with its explanation, ready to render as text,
// JSON or a Mermaid diagram. Build it with [Explain].
type Report struct {
	Model     *spec.Model
	Violation *verdict.Violation
	Slice     *Explanation // a finite counterexample, else nil
	Cycle     *Cycle       // a lasso, else nil
	// Switches describes the trace chosen with Options.FewestSwitches, or is "".
	Switches string
}

// Text writes the report for people: the trace with its essential steps
// marked *, each with its because line; for a lasso, the cycle and the
// fairness that would exclude it.
func (x *Report) Text(w io.Writer) error {
	var b strings.Builder
	m, v := x.Model, x.Violation
	b.WriteString(report.Headline(m, v) + "\n")
	fmt.Fprintf(&b, "  %s\n\n", v.Pos)
	if x.Slice != nil {
		fmt.Fprintf(&b, "trace, %d steps, %d essential (*):\n", len(v.Trace)-1, x.Slice.Essential())
	} else {
		fmt.Fprintf(&b, "lasso, %d steps, the cycle from step %d:\n", len(v.Trace)-1, v.LoopStart)
	}
	for i, st := range v.Trace {
		mark := " "
		label := "initial state"
		switch {
		case st.Action >= 0:
			label = m.Actions[st.Action].Name
		case i > 0:
			label = "(no action enabled: the state repeats)"
		}
		parts := report.StepParts(m, v.Trace, i)
		if x.Slice != nil && x.Slice.Steps[i].Essential {
			mark = "*"
		}
		if x.Cycle != nil && i == v.LoopStart {
			label += "  (the cycle starts here)"
		}
		fmt.Fprintf(&b, "  %s %3d  %s  %s\n", mark, i, label, strings.Join(parts, " "))
		if x.Slice != nil {
			es := x.Slice.Steps[i]
			if es.Because != "" {
				fmt.Fprintf(&b, "           because: %s\n", es.Because)
			}
			if es.BeforeNext {
				fmt.Fprintf(&b, "           must come before step %d\n", i+1)
			}
		}
	}
	if x.Switches != "" {
		fmt.Fprintf(&b, "\n%s\n", x.Switches)
	}
	if x.Slice != nil && len(x.Slice.Reads) > 0 {
		fmt.Fprintf(&b, "\nthe violated check reads: %s\n", strings.Join(x.Slice.Reads, ", "))
	}
	if c := x.Cycle; c != nil {
		b.WriteString("\n")
		if !c.Stops {
			fmt.Fprintf(&b, "the cycle: %s, forever\n", strings.Join(c.Actions, ", "))
			if len(c.Asked) > 0 {
				fmt.Fprintf(&b, "agents answering on it: %s\n", strings.Join(c.Asked, ", "))
			}
		}
		// The sentences check's notes have, and what the checked fixes found.
		for _, n := range append(c.Notes(), c.FixNotes()...) {
			b.WriteString(n + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// JSON writes the report as one JSON object ("format": 1): the trace with
// "essential" per step, the check's reads, and for a lasso the cycle.
func (x *Report) JSON(w io.Writer) error {
	m, v := x.Model, x.Violation
	type step struct {
		Step      int            `json:"step"`
		Action    *string        `json:"action"`
		State     map[string]any `json:"state"`
		Asked     map[string]any `json:"asked,omitempty"`
		Essential *bool          `json:"essential,omitempty"`
		// BeforeNext: swapped with the next step, the violation is lost.
		BeforeNext bool     `json:"before_next,omitempty"`
		Changed    []string `json:"changed,omitempty"`
		Because    string   `json:"because,omitempty"`
	}
	type cycle struct {
		Actions     []string `json:"actions"`
		Asked       []string `json:"asked"`
		Excluders   []string `json:"excluders"`
		Fixes       []string `json:"fixes"`
		Undecided   []string `json:"undecided"`
		NoFairness  bool     `json:"no_fairness"`
		AgentDriven bool     `json:"agent_driven"`
		Stops       bool     `json:"stops"`
		// Notes are the sentences of the text: check's notes and the fixes.
		Notes []string `json:"notes"`
	}
	type violation struct {
		Name      string `json:"name"`
		Kind      string `json:"kind"`
		Position  string `json:"position"`
		Trace     []step `json:"trace"`
		LoopStart *int   `json:"loop_start"`
	}
	out := struct {
		Format    int       `json:"format"`
		Spec      string    `json:"spec"`
		Violation violation `json:"violation"`
		Reads     []string  `json:"reads,omitempty"`
		Cycle     *cycle    `json:"cycle,omitempty"`
	}{Format: 1, Spec: m.Name, Violation: violation{Name: v.Name, Kind: v.Kind.String(), Position: v.Pos.String(), Trace: []step{}}}
	if v.LoopStart >= 0 {
		ls := v.LoopStart
		out.Violation.LoopStart = &ls
	}
	for i, st := range v.Trace {
		s := step{Step: i, State: map[string]any{}}
		if st.Action >= 0 {
			name := m.Actions[st.Action].Name
			s.Action = &name
		}
		for _, x := range m.Vars {
			if x.Monitor != nil {
				continue
			}
			s.State[x.Name] = report.ValueJSON(x.Type, st.State[x.Slot:x.Slot+x.Type.Width])
		}
		if len(st.Asked) > 0 {
			s.Asked = map[string]any{}
			for _, a := range st.Asked {
				ag := m.Agents[a.Agent]
				s.Asked[ag.Name] = report.ValueJSON(ag.Result, a.Value)
			}
		}
		if x.Slice != nil {
			es := x.Slice.Steps[i].Essential
			s.Essential, s.Changed, s.Because = &es, x.Slice.Steps[i].Changed, x.Slice.Steps[i].Because
			s.BeforeNext = x.Slice.Steps[i].BeforeNext
		}
		out.Violation.Trace = append(out.Violation.Trace, s)
	}
	if x.Slice != nil {
		out.Reads = x.Slice.Reads
	}
	if c := x.Cycle; c != nil {
		nn := func(xs []string) []string {
			if xs == nil {
				return []string{}
			}
			return xs
		}
		out.Cycle = &cycle{Actions: nn(c.Actions), Asked: nn(c.Asked), Excluders: nn(c.Excluders), Fixes: nn(c.Fixes), Undecided: nn(c.Undecided),
			NoFairness: c.NoFairness, AgentDriven: c.AgentDriven, Stops: c.Stops, Notes: nn(append(c.Notes(), c.FixNotes()...))}
	}
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// Mermaid writes the trace as check --format mermaid does (package report
// renders it, with the causal slice attached: each essential step in a
// highlighted rect with its because line; a lasso's cycle in a loop
// block), and for a lasso a last note with what the analysis of its cycle
// says.
func (x *Report) Mermaid(w io.Writer) error {
	m, v := x.Model, *x.Violation
	if x.Slice != nil {
		v.Slice = x.Slice.Slice()
	}
	res := &verdict.Result{Verdict: verdict.Violated, Violation: &v, Violations: []*verdict.Violation{&v}}
	var b strings.Builder
	if err := report.Mermaid(&b, m, res); err != nil {
		return err
	}
	if c := x.Cycle; c != nil {
		over := "p0"
		if n := len(m.Processes); n > 1 {
			over = fmt.Sprintf("p0,p%d", n-1)
		}
		if notes := append(c.Notes(), c.FixNotes()...); len(notes) > 0 {
			fmt.Fprintf(&b, "  Note over %s: %s\n", over, report.MermaidLines(notes))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Options configures [Explain]. The zero value: the default checks, the
// trace as found.
type Options struct {
	// Verify configures the searches a liveness explanation runs to test
	// which fairness would make the property hold.
	Verify verify.Options
	// FewestSwitches explains, among the counterexamples as short as v, one
	// with the fewest context switches between processes (finite traces).
	FewestSwitches bool
}

// Explain explains the violation v of m: the causal slice of a finite
// counterexample ([Safety]), or the cycle of a lasso and the fairness that
// would exclude it, each candidate checked ([Liveness], [Cycle.CheckFixes]).
func Explain(ctx context.Context, m *spec.Model, v *verdict.Violation, opts Options) (*Report, error) {
	out := &Report{Model: m, Violation: v}
	prog, err := program(m, opts.Verify.Program)
	if err != nil {
		return nil, err
	}
	if opts.FewestSwitches && v.LoopStart < 0 && len(v.Trace) > 1 {
		w, err := fewestSwitches(prog, v, opts.Verify.MaxStates)
		if err != nil {
			return nil, err
		}
		out.Switches = fmt.Sprintf("%d context switches, the fewest among the counterexamples of %d steps (the first found had %d)",
			Switches(m, w.Trace), len(w.Trace)-1, Switches(m, v.Trace))
		out.Violation, v = w, w
	}
	if v.LoopStart >= 0 {
		if out.Cycle, err = verify.Liveness(prog, v); err != nil {
			return nil, err
		}
		if err := out.Cycle.CheckFixes(ctx, m, v, opts.Verify); err != nil {
			return nil, err
		}
	} else if out.Slice, err = safety(prog, v); err != nil {
		return nil, err
	}
	return out, nil
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/diff"
	"github.com/wrapcheck/wrapcheck/explain"
	"github.com/wrapcheck/wrapcheck/replay"
	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verify"
)

// explainFlags are the flags of `wrapcheck explain`.
type explainFlags struct {
	defines   []string
	only      []string
	run       string
	format    string
	maxStates int64
	workers   int
	switches  bool
}

func newExplainCmd() *cobra.Command {
	var f explainFlags
	cmd := &cobra.Command{
		Use:   "explain FILE",
		Short: "say which steps of a counterexample matter, and why",
		Long: `explain checks the spec in FILE as check does and explains the counterexample.

For a safety violation it marks with * the essential steps: those without
which the rest of the trace, replayed on the spec from the same initial
state, is no longer possible or no longer reaches the violation. Each step
gets a "because": the variables it changed that the violated check reads,
directly or through a later step, and "must come before step N" when the
trace with the two swapped no longer reaches the violation. A shortest counterexample (what check
prints) has every step essential; --run FILE.jsonl explains instead the
violation that a recorded run reaches (the format of wrapcheck replay), where
some steps usually are not.

For a liveness violation it names the actions of the cycle, the fairness
that would exclude this cycle and, checked, which of them make the property
hold; when even strong fairness of every process and action leaves the
property violated and agents answer on the cycle, no fairness can rule it
out: the design must.

Exit codes: 0 every check holds (nothing to explain), 1 a violation was
explained, 2 the spec, the run or the command line is wrong, 3 the search
stopped early with no violation found.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExplain(cmd, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVarP(&f.defines, "define", "D", nil, "override a constant: -D NAME=VALUE (repeatable)")
	fl.StringArrayVar(&f.only, "only", nil, "check only this invariant or property (repeatable)")
	fl.StringVar(&f.run, "run", "", "explain the violation this recorded run (JSON lines) reaches")
	fl.StringVar(&f.format, "format", "text", "output format: text, json or mermaid (essential steps highlighted)")
	fl.Int64Var(&f.maxStates, "max-states", 0, "stop after storing this many states (0: no limit)")
	fl.IntVar(&f.workers, "workers", 0, "search goroutines (0: one per core)")
	fl.BoolVar(&f.switches, "fewest-switches", false, "explain, among the shortest counterexamples, one with the fewest context switches between processes")
	return cmd
}

func runExplain(cmd *cobra.Command, path string, f explainFlags) error {
	if f.format != "text" && f.format != "json" && f.format != "mermaid" {
		return &exitError{code: exitUsage, err: fmt.Errorf("--format %s: want text, json or mermaid", f.format)}
	}
	if f.maxStates < 0 || f.workers < 0 {
		return &exitError{code: exitUsage, err: fmt.Errorf("limits must not be negative")}
	}
	m, err := loadModel(path, f.defines)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts := verify.Options{MaxStates: f.maxStates, Workers: f.workers, Only: f.only}
	var v *checker.Violation
	if f.run != "" {
		file, err := os.Open(f.run)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		lines, err := replay.Read(m, displayPath(f.run), file)
		file.Close()
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		res, err := replay.Check(m, lines)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		if res.Violation == nil {
			fmt.Fprintf(cmd.OutOrStdout(), "%s: the run reaches no violation: nothing to explain\n", m.Name)
			return nil
		}
		v = res.Violation
	} else {
		res, err := verify.Run(ctx, m, opts)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		switch res.Verdict {
		case checker.Holds:
			fmt.Fprintf(cmd.OutOrStdout(), "%s: every check holds: nothing to explain\n", m.Name)
			return nil
		case checker.Unknown:
			return &exitError{code: exitIncomplete, err: fmt.Errorf("%s: the search stopped early (%s): nothing to explain", m.Name, res.Reason)}
		}
		v = res.Violation
	}
	out := explained{m: m, v: v}
	if f.switches && v.LoopStart < 0 && len(v.Trace) > 1 {
		w, err := explain.FewestSwitches(m, v, f.maxStates)
		if err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		out.switches = fmt.Sprintf("%d context switches, the fewest among the counterexamples of %d steps (the first found had %d)",
			explain.Switches(m, w.Trace), len(w.Trace)-1, explain.Switches(m, v.Trace))
		out.v, v = w, w
	}
	if v.LoopStart >= 0 {
		if out.cycle, err = explain.Liveness(m, v); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
		if err := out.cycle.CheckFixes(ctx, m, v, opts); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
	} else if out.slice, err = explain.Safety(m, v); err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	switch f.format {
	case "json":
		err = out.JSON(cmd.OutOrStdout())
	case "mermaid":
		err = out.Mermaid(cmd.OutOrStdout())
	default:
		err = out.Text(cmd.OutOrStdout())
	}
	if err != nil {
		return err
	}
	return &exitError{code: exitViolated}
}

// explained is a violation with its explanation, for rendering.
type explained struct {
	m     *spec.Model
	v     *checker.Violation
	slice *explain.Explanation // a finite counterexample
	cycle *explain.Cycle       // a lasso
	// switches describes the trace chosen by --fewest-switches, or is "".
	switches string
}

func (x explained) Text(w io.Writer) error {
	var b strings.Builder
	m, v := x.m, x.v
	b.WriteString(report.Headline(m, v) + "\n")
	fmt.Fprintf(&b, "  %s\n\n", v.Pos)
	if x.slice != nil {
		n := 0
		for _, s := range x.slice.Steps {
			if s.Essential {
				n++
			}
		}
		fmt.Fprintf(&b, "trace, %d steps, %d essential (*):\n", len(v.Trace)-1, n)
	} else {
		fmt.Fprintf(&b, "lasso, %d steps, the cycle from step %d:\n", len(v.Trace)-1, v.LoopStart)
	}
	for i, st := range v.Trace {
		mark := " "
		label := "initial state"
		if st.Action >= 0 {
			label = m.Actions[st.Action].Name
		}
		var parts []string
		for _, a := range st.Asked {
			ag := m.Agents[a.Agent]
			parts = append(parts, "asked "+ag.Name+"="+report.ValueText(ag.Result, a.Value))
		}
		for _, x := range m.Vars {
			cur := st.State[x.Slot : x.Slot+x.Type.Width]
			if i > 0 && slices.Equal(cur, v.Trace[i-1].State[x.Slot:x.Slot+x.Type.Width]) {
				continue
			}
			parts = append(parts, x.Name+"="+report.ValueText(x.Type, cur))
		}
		if x.slice != nil && x.slice.Steps[i].Essential {
			mark = "*"
		}
		if x.cycle != nil && i == v.LoopStart {
			label += "  (the cycle starts here)"
		}
		fmt.Fprintf(&b, "  %s %3d  %s  %s\n", mark, i, label, strings.Join(parts, " "))
		if x.slice != nil {
			es := x.slice.Steps[i]
			if es.Because != "" {
				fmt.Fprintf(&b, "           because: %s\n", es.Because)
			}
			if es.BeforeNext {
				fmt.Fprintf(&b, "           must come before step %d\n", i+1)
			}
		}
	}
	if x.switches != "" {
		fmt.Fprintf(&b, "\n%s\n", x.switches)
	}
	if x.slice != nil && len(x.slice.Reads) > 0 {
		fmt.Fprintf(&b, "\nthe violated check reads: %s\n", strings.Join(x.slice.Reads, ", "))
	}
	if c := x.cycle; c != nil {
		b.WriteString("\n")
		switch {
		case c.Stops:
			b.WriteString("the run stops: its last state has no enabled action and repeats forever\n")
		default:
			fmt.Fprintf(&b, "the cycle: %s, forever\n", strings.Join(c.Actions, ", "))
			if len(c.Asked) > 0 {
				fmt.Fprintf(&b, "agents answering on it: %s\n", strings.Join(c.Asked, ", "))
			}
		}
		for _, e := range c.Excluders {
			verdict := "excludes this cycle, but the property is still violated with it"
			if slices.Contains(c.Fixes, e) {
				verdict = "makes the property hold"
			}
			fmt.Fprintf(&b, "adding %s %s\n", e, verdict)
		}
		switch {
		case c.AgentDriven:
			b.WriteString("the agents' answers drive it: no fairness can rule it out, the design must\n")
		case c.NoFairness:
			b.WriteString("no fairness rules it out: strong fairness of every process and action leaves the property violated\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (x explained) JSON(w io.Writer) error {
	m, v := x.m, x.v
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
		NoFairness  bool     `json:"no_fairness"`
		AgentDriven bool     `json:"agent_driven"`
		Stops       bool     `json:"stops"`
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
			s.State[x.Name] = diff.ValueJSON(x.Type, st.State[x.Slot:x.Slot+x.Type.Width])
		}
		if len(st.Asked) > 0 {
			s.Asked = map[string]any{}
			for _, a := range st.Asked {
				ag := m.Agents[a.Agent]
				s.Asked[ag.Name] = diff.ValueJSON(ag.Result, a.Value)
			}
		}
		if x.slice != nil {
			es := x.slice.Steps[i].Essential
			s.Essential, s.Changed, s.Because = &es, x.slice.Steps[i].Changed, x.slice.Steps[i].Because
			s.BeforeNext = x.slice.Steps[i].BeforeNext
		}
		out.Violation.Trace = append(out.Violation.Trace, s)
	}
	if x.slice != nil {
		out.Reads = x.slice.Reads
	}
	if c := x.cycle; c != nil {
		nn := func(xs []string) []string {
			if xs == nil {
				return []string{}
			}
			return xs
		}
		out.Cycle = &cycle{Actions: nn(c.Actions), Asked: nn(c.Asked), Excluders: nn(c.Excluders), Fixes: nn(c.Fixes),
			NoFairness: c.NoFairness, AgentDriven: c.AgentDriven, Stops: c.Stops}
	}
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// Mermaid writes the trace as a Mermaid sequenceDiagram, in the layout of
// check --format mermaid, with each essential step in a highlighted rect
// and its because line; a lasso's cycle in a loop block.
func (x explained) Mermaid(w io.Writer) error {
	m, v := x.m, x.v
	esc := strings.NewReplacer("#", "#35;", ";", "#59;", "<", "#lt;", ">", "#gt;", "\n", " ", "\r", " ").Replace
	var b strings.Builder
	b.WriteString("sequenceDiagram\n")
	for i, p := range m.Processes {
		fmt.Fprintf(&b, "  participant p%d as %s\n", i, esc(p.Name))
	}
	for i, a := range m.Agents {
		fmt.Fprintf(&b, "  participant a%d as %s (agent)\n", i, esc(a.Name))
	}
	over := "p0"
	if n := len(m.Processes); n > 1 {
		over = fmt.Sprintf("p0,p%d", n-1)
	}
	for i, st := range v.Trace {
		var lines []string
		for _, vr := range m.Vars {
			cur := st.State[vr.Slot : vr.Slot+vr.Type.Width]
			if i == 0 || !slices.Equal(cur, v.Trace[i-1].State[vr.Slot:vr.Slot+vr.Type.Width]) {
				lines = append(lines, esc(vr.Name+" = "+report.ValueText(vr.Type, cur)))
			}
		}
		if st.Action < 0 {
			fmt.Fprintf(&b, "  Note over %s: %s\n", over, strings.Join(append([]string{"0. initial state"}, lines...), "<br/>"))
			continue
		}
		if i == v.LoopStart {
			b.WriteString("  loop the cycle\n")
		}
		ind := "  "
		if v.LoopStart >= 0 && i >= v.LoopStart {
			ind = "    "
		}
		essential := x.slice != nil && x.slice.Steps[i].Essential
		if essential {
			fmt.Fprintf(&b, "%srect rgb(255, 224, 178)\n", ind)
			ind += "  "
		}
		a := m.Actions[st.Action]
		p := fmt.Sprintf("p%d", a.Process)
		for _, ans := range st.Asked {
			ag := m.Agents[ans.Agent]
			fmt.Fprintf(&b, "%s%s->>a%d: ask %s\n", ind, p, ans.Agent, esc(ag.Name))
			fmt.Fprintf(&b, "%sa%d-->>%s: %s\n", ind, ans.Agent, p, esc(report.ValueText(ag.Result, ans.Value)))
		}
		if len(lines) == 0 {
			lines = []string{"no change"}
		}
		head := fmt.Sprintf("%d. %s", i, a.Name)
		if essential {
			head = "* " + head
		}
		lines = append([]string{esc(head)}, lines...)
		if x.slice != nil && x.slice.Steps[i].Because != "" {
			lines = append(lines, esc("because: "+x.slice.Steps[i].Because))
		}
		fmt.Fprintf(&b, "%s%s->>%s: %s\n", ind, p, p, strings.Join(lines, "<br/>"))
		if essential {
			fmt.Fprintf(&b, "%send\n", ind[:len(ind)-2])
		}
	}
	if v.LoopStart >= 0 {
		b.WriteString("  end\n")
	}
	if c := x.cycle; c != nil {
		var notes []string
		for _, f := range c.Fixes {
			notes = append(notes, esc("adding "+f+" makes the property hold"))
		}
		if c.AgentDriven {
			notes = append(notes, esc("the agents' answers drive it: no fairness can rule it out, the design must"))
		}
		if len(notes) > 0 {
			fmt.Fprintf(&b, "  Note over %s: %s\n", over, strings.Join(notes, "<br/>"))
		}
	}
	fmt.Fprintf(&b, "  Note over %s: %s\n", over, esc(report.Headline(m, v)))
	_, err := io.WriteString(w, b.String())
	return err
}

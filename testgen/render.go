package testgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/wrapcheck/wrapcheck/report"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// Text writes the coverage report: a headline, the tests (steps and the
// goals each one meets first), then every goal by kind, covered ([t01])
// or unreachable (with why); positions relative to the spec file.
func (r *Result) Text(w io.Writer, m *spec.Model) error {
	var b bytes.Buffer
	covered, reachable := r.Covered()
	verb := "cover"
	if len(r.Tests) == 1 {
		verb = "covers"
	}
	fmt.Fprintf(&b, "%s: %s %s %d of %d goals", m.Name, verdict.Plural(len(r.Tests), "test"), verb, covered, len(r.Goals))
	if un := len(r.Goals) - reachable; un > 0 && r.Complete {
		fmt.Fprintf(&b, "; %d unreachable", un)
	} else if un > 0 {
		fmt.Fprintf(&b, "; %d not reached in the states explored", un)
	}
	if left := reachable - covered; left > 0 {
		fmt.Fprintf(&b, "; %d reachable but not covered (--max-tests)", left)
	}
	fmt.Fprintf(&b, " (%d states explored", r.States)
	if !r.Complete {
		b.WriteString(", state limit reached")
	}
	b.WriteString(")\n")
	if len(r.Tests) > 0 {
		b.WriteString("\ntests:\n")
	}
	for _, t := range r.Tests {
		var acts []string
		for _, st := range t.Trace[1:] {
			acts = append(acts, m.Actions[st.Action].Name)
		}
		steps := "the initial state"
		if len(acts) > 0 {
			steps = strings.Join(acts, ", ")
		}
		fmt.Fprintf(&b, "  %s  %s, %s: %s\n", t.Name, verdict.Plural(len(t.Trace)-1, "step"), verdict.Plural(len(t.Goals), "goal"), report.Escape(steps))
	}
	for k := ActionFires; k <= Terminal; k++ {
		head := false
		for _, g := range r.Goals {
			if g.Kind != k {
				continue
			}
			if !head {
				fmt.Fprintf(&b, "\n%s goals:\n", k)
				head = true
			}
			var mark string
			switch {
			case g.Test >= 0:
				mark = "[" + r.Tests[g.Test].Name + "]"
			case g.Reachable:
				mark = "[not covered]"
			case r.Complete || g.static != "":
				mark = "[unreachable]"
			default:
				mark = "[not reached]"
			}
			fmt.Fprintf(&b, "  %s %s (%s)", mark, report.Escape(g.Name), g.Pos.String())
			if g.Why != "" {
				fmt.Fprintf(&b, ": %s", report.Escape(g.Why))
			}
			b.WriteByte('\n')
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// WriteDir writes each test into a directory of its own under dir
// (created if needed): trace.itf.json, its trace in the Informal Trace
// Format (docs/itf.md), with the test's name and goals in #meta;
// agents.json, the scripted agents: every agent call of the run in
// order, with the answer to give (values as in `check --format json`);
// run.jsonl, the run as `wrapcheck replay` reads it, each step with its
// answers and the state after it, which the recording of a harness that
// drives the real wrapper with agents.json should match.
func (r *Result) WriteDir(dir string, m *spec.Model) error {
	for _, t := range r.Tests {
		d := filepath.Join(dir, t.Name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		var goals bytes.Buffer
		goals.WriteByte('[')
		for i, g := range t.Goals {
			if i > 0 {
				goals.WriteString(", ")
			}
			goals.WriteString(jsonString(r.Goals[g].Kind.String() + ": " + r.Goals[g].Name))
		}
		goals.WriteByte(']')
		var itf bytes.Buffer
		err := report.ITFTrace{Trace: t.Trace, LoopStart: -1, Meta: []report.ITFMember{
			{Name: "test", Value: []byte(jsonString(t.Name))},
			{Name: "goals", Value: goals.Bytes()},
		}}.Render(&itf, m)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(d, "trace.itf.json"), itf.Bytes(), 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(d, "agents.json"), agentsJSON(m, t), 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(d, "run.jsonl"), runJSONL(m, t), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// agentsJSON is the scripted-agents fixture of t.
func agentsJSON(m *spec.Model, t *Test) []byte {
	var b bytes.Buffer
	b.WriteString("{\n")
	b.WriteString(`  "spec": ` + jsonString(m.Name) + ",\n")
	b.WriteString(`  "test": ` + jsonString(t.Name) + ",\n")
	b.WriteString(`  "calls": [`)
	n := 0
	for i, st := range t.Trace {
		if i == 0 {
			continue
		}
		for _, a := range st.Asked {
			if n > 0 {
				b.WriteByte(',')
			}
			n++
			ag := m.Agents[a.Agent]
			fmt.Fprintf(&b, "\n    {\"call\": %d, \"step\": %d, \"action\": %s, \"agent\": %s, \"answer\": %s}",
				n, i, jsonString(m.Actions[st.Action].Name), jsonString(ag.Name), report.ValueJSON(ag.Result, a.Value))
		}
	}
	if n > 0 {
		b.WriteString("\n  ")
	}
	b.WriteString("]\n}\n")
	return b.Bytes()
}

// runJSONL is t as a run file of `wrapcheck replay`: the initial state,
// then each step with its answers (an agent asked twice on one step is
// given by the state alone) and the state after it.
func runJSONL(m *spec.Model, t *Test) []byte {
	var b bytes.Buffer
	for i, st := range t.Trace {
		b.WriteByte('{')
		if i > 0 {
			b.WriteString(`"action": ` + jsonString(m.Actions[st.Action].Name) + ", ")
			count := map[int]int{}
			for _, a := range st.Asked {
				count[a.Agent]++
			}
			var asked []string
			for _, a := range st.Asked {
				if count[a.Agent] == 1 {
					ag := m.Agents[a.Agent]
					asked = append(asked, jsonString(ag.Name)+": "+string(report.ValueJSON(ag.Result, a.Value)))
				}
			}
			if len(asked) > 0 {
				b.WriteString(`"asked": {` + strings.Join(asked, ", ") + "}, ")
			}
		}
		b.WriteString(`"state": {`)
		n := 0
		for _, v := range m.Vars {
			if v.Monitor != nil {
				continue
			}
			if n > 0 {
				b.WriteString(", ")
			}
			n++
			b.WriteString(jsonString(v.Name) + ": ")
			b.Write(report.ValueJSON(v.Type, st.State[v.Slot:v.Slot+v.Type.Width]))
		}
		b.WriteString("}}\n")
	}
	return b.Bytes()
}

func jsonString(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic("wrapcheck internal error: " + err.Error()) // a string always encodes
	}
	return string(b)
}

package report

import (
	"bytes"
	"io"
	"strconv"

	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/spec"
)

// FormatVersion is the version of the JSON output contract ("format").
// Fields may be added within a version, never renamed or removed.
const FormatVersion = 1

// JSON writes res as the one JSON object of the output contract
// (docs/language.md, "Output"), followed by a newline.
func JSON(w io.Writer, m *spec.Model, res *checker.Result) error {
	var b bytes.Buffer
	b.WriteString("{\n")
	field(&b, "format", strconv.Itoa(FormatVersion))
	field(&b, "spec", strconv.Quote(m.Name))
	field(&b, "verdict", strconv.Quote(res.Verdict.String()))
	if res.Reason != "" {
		field(&b, "reason", strconv.Quote(res.Reason))
	}
	b.WriteString(`  "violation": `)
	if v := res.Violation; v != nil {
		b.WriteString("{\n")
		b.WriteString(`    "name": ` + strconv.Quote(v.Name) + ",\n")
		b.WriteString(`    "kind": ` + strconv.Quote(v.Kind.String()) + ",\n")
		b.WriteString(`    "position": ` + strconv.Quote(v.Pos.String()) + ",\n")
		if v.Msg != "" && v.Kind != checker.Invariant {
			b.WriteString(`    "message": ` + strconv.Quote(v.Msg) + ",\n")
		}
		b.WriteString(`    "trace": [`)
		for i, st := range v.Trace {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString("\n      ")
			var prev []int64
			if i > 0 {
				prev = v.Trace[i-1].State
			}
			stepJSON(&b, m, i, st, prev)
		}
		if len(v.Trace) > 0 {
			b.WriteString("\n    ")
		}
		b.WriteString("],\n")
		b.WriteString(`    "loop_start": `)
		if v.LoopStart >= 0 {
			b.WriteString(strconv.Itoa(v.LoopStart))
		} else {
			b.WriteString("null")
		}
		b.WriteString("\n  },\n")
	} else {
		b.WriteString("null,\n")
	}
	if len(res.Notes) > 0 {
		b.WriteString(`  "notes": [`)
		for i, n := range res.Notes {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Quote(n))
		}
		b.WriteString("],\n")
	}
	s := res.Stats
	b.WriteString(`  "stats": {"states": ` + strconv.FormatInt(s.States, 10) +
		`, "transitions": ` + strconv.FormatInt(s.Transitions, 10) +
		`, "depth": ` + strconv.Itoa(s.Depth) +
		`, "seconds": ` + strconv.FormatFloat(s.Seconds, 'f', 3, 64) +
		`, "workers": ` + strconv.Itoa(s.Workers) + "},\n")
	b.WriteString(`  "coverage": {"actions": {`)
	for i, a := range m.Actions {
		if i > 0 {
			b.WriteString(", ")
		}
		var n int64
		if i < len(res.Coverage.Fired) {
			n = res.Coverage.Fired[i]
		}
		b.WriteString(strconv.Quote(a.Name) + ": " + strconv.FormatInt(n, 10))
	}
	b.WriteString("}}\n}\n")
	_, err := w.Write(b.Bytes())
	return err
}

func field(b *bytes.Buffer, k, v string) {
	b.WriteString("  " + strconv.Quote(k) + ": " + v + ",\n")
}

func stepJSON(b *bytes.Buffer, m *spec.Model, i int, st checker.Step, prev []int64) {
	b.WriteString(`{"step": ` + strconv.Itoa(i) + `, "action": `)
	if st.Action >= 0 {
		b.WriteString(strconv.Quote(m.Actions[st.Action].Name))
	} else {
		b.WriteString("null")
	}
	b.WriteString(`, "state": `)
	stateJSON(b, m, st.State)
	if len(st.Asked) > 0 {
		b.WriteString(`, "asked": {`)
		for j, a := range st.Asked {
			if j > 0 {
				b.WriteString(", ")
			}
			ag := m.Agents[a.Agent]
			b.WriteString(strconv.Quote(ag.Name) + ": ")
			valueNode(ag.Result, a.Value).writeJSON(b)
		}
		b.WriteByte('}')
	}
	// past-time monitors, where they change (in an initial state, those
	// that hold), by subformula
	n := 0
	monitorChanges(m, prev, st.State, func(name string, v bool) {
		if n == 0 {
			b.WriteString(`, "monitors": {`)
		} else {
			b.WriteString(", ")
		}
		n++
		b.WriteString(strconv.Quote(name) + ": " + strconv.FormatBool(v))
	})
	if n > 0 {
		b.WriteByte('}')
	}
	b.WriteByte('}')
}

// stateJSON writes a whole state as a JSON object: globals by name,
// locals as "family[value].name", in declaration order.
func stateJSON(b *bytes.Buffer, m *spec.Model, state []int64) {
	b.WriteByte('{')
	n := 0
	for _, v := range m.Vars {
		if v.Monitor != nil {
			continue
		}
		if n > 0 {
			b.WriteString(", ")
		}
		n++
		b.WriteString(strconv.Quote(v.Name) + ": ")
		varValue(v, state).writeJSON(b)
	}
	b.WriteByte('}')
}

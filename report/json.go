package report

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"

	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// FormatVersion is the version of the JSON output contract ("format").
// Fields may be added within a version, never renamed or removed.
const FormatVersion = 1

// JSON writes res as the one JSON object of the output contract
// (docs/language.md, "Output"), followed by a newline: "violation" is
// the first violation found, "violations" every one (with --continue, the
// first of every violated check).
func JSON(w io.Writer, m *spec.Model, res *verdict.Result) error {
	return JSONOptions{}.Render(w, m, res)
}

// JSONOptions configures the JSON renderer. The zero value: no vet
// warnings, not strict.
type JSONOptions struct {
	// Warnings are warnings about the spec besides the search's own
	// (vet's findings); all are listed in "warnings".
	Warnings []Diagnostic
	// Strict (--strict) makes warnings failures: "strict": true is
	// written, and a run with warnings exits 1.
	Strict bool
	// Extra are members written after "verdict" (a replay adds the run
	// and the line), each value encoded by encoding/json.
	Extra []Member
}

// Member is a member of a JSON object: its key and its value.
type Member struct {
	Key   string
	Value any
}

// Render writes res as [JSON] does, with the warnings of o.
func (o JSONOptions) Render(w io.Writer, m *spec.Model, res *verdict.Result) error {
	var b bytes.Buffer
	b.WriteString("{\n")
	field(&b, "format", strconv.Itoa(FormatVersion))
	field(&b, "spec", jsonString(m.Name))
	field(&b, "verdict", jsonString(res.Verdict.String()))
	for _, x := range o.Extra {
		v, err := jsonValue(x.Value)
		if err != nil {
			return err
		}
		field(&b, x.Key, v)
	}
	if res.Reason() != "" {
		field(&b, "reason", jsonString(res.Reason()))
	}
	vs := Violations(res)
	b.WriteString(`  "violation": `)
	if len(vs) > 0 {
		violationJSON(&b, m, vs[0], "  ")
		b.WriteString(",\n")
	} else {
		b.WriteString("null,\n")
	}
	b.WriteString(`  "violations": [`)
	for i, v := range vs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n    ")
		violationJSON(&b, m, v, "    ")
	}
	if len(vs) > 0 {
		b.WriteString("\n  ")
	}
	b.WriteString("],\n")
	if len(res.Undecided) > 0 {
		b.WriteString(`  "undecided": [`)
		for i, n := range res.Undecided {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(jsonString(n))
		}
		b.WriteString("],\n")
	}
	if ws := allWarnings(m, res, o.Warnings); len(ws) > 0 {
		b.WriteString(`  "warnings": [`)
		for i, d := range ws {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString("\n    " + diagnosticJSON(d))
		}
		b.WriteString("\n  ],\n")
	}
	if o.Strict {
		field(&b, "strict", "true")
	}
	if len(res.Notes) > 0 {
		field(&b, "notes", jsonStrings(res.Notes))
	}
	s := res.Stats
	b.WriteString(`  "stats": {"states": ` + strconv.FormatInt(s.States, 10) +
		`, "transitions": ` + strconv.FormatInt(s.Transitions, 10) +
		`, "depth": ` + strconv.Itoa(s.Depth) +
		`, "seconds": ` + strconv.FormatFloat(s.Seconds, 'f', 3, 64) +
		`, "workers": ` + strconv.Itoa(s.Workers) +
		`, "complete": ` + strconv.FormatBool(Complete(res)) + "},\n")
	b.WriteString(`  "coverage": {"actions": {`)
	for i, a := range m.Actions {
		if i > 0 {
			b.WriteString(", ")
		}
		var n int64
		if i < len(res.Coverage.Fired) {
			n = res.Coverage.Fired[i]
		}
		b.WriteString(jsonString(a.Name) + ": " + strconv.FormatInt(n, 10))
	}
	b.WriteString("}}\n}\n")
	_, err := w.Write(b.Bytes())
	return err
}

// Violations returns the violations of res: res.Violations, or the one
// res.Violation of a Result made without it; none unless res.Verdict is
// verdict.Violated.
func Violations(res *verdict.Result) []*verdict.Violation {
	switch {
	case res.Verdict != verdict.Violated:
		return nil
	case len(res.Violations) > 0:
		return res.Violations
	case res.Violation != nil:
		return []*verdict.Violation{res.Violation}
	}
	return nil
}

// Complete reports whether the search of res explored every reachable
// state: every check holds, or a violation was found and the search did
// not stop at its level (--continue, or the last level).
func Complete(res *verdict.Result) bool {
	return res.Verdict == verdict.Holds || res.Verdict == verdict.Violated && res.Stop != verdict.StopAtViolation
}

// violationJSON writes v as a JSON object whose closing brace is
// indented by indent.
func violationJSON(b *bytes.Buffer, m *spec.Model, v *verdict.Violation, indent string) {
	in := indent + "  "
	b.WriteString("{\n")
	b.WriteString(in + `"name": ` + jsonString(v.Name) + ",\n")
	b.WriteString(in + `"kind": ` + jsonString(v.Kind.String()) + ",\n")
	b.WriteString(in + `"position": ` + jsonString(v.Pos.String()) + ",\n")
	if v.Msg != "" && v.Kind != verdict.Invariant {
		b.WriteString(in + `"message": ` + jsonString(v.Msg) + ",\n")
	}
	b.WriteString(in + `"trace": [`)
	watches := traceWatches(m, nil, v.Trace)
	for i, st := range v.Trace {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n" + in + "  ")
		var prev []int64
		if i > 0 {
			prev = v.Trace[i-1].State
		}
		var why *verdict.SliceStep
		if sl := sliceOf(v); sl != nil {
			why = &sl.Steps[i]
		}
		var wv []WatchValue
		if watches != nil {
			wv = watches[i]
		}
		stepJSON(b, m, i, st, prev, why, wv)
	}
	if len(v.Trace) > 0 {
		b.WriteString("\n" + in)
	}
	b.WriteString("],\n")
	if sl := sliceOf(v); sl != nil && len(sl.Reads) > 0 {
		b.WriteString(in + `"reads": ` + jsonStrings(sl.Reads) + ",\n")
	}
	b.WriteString(in + `"loop_start": `)
	if v.LoopStart >= 0 {
		b.WriteString(strconv.Itoa(v.LoopStart))
	} else {
		b.WriteString("null")
	}
	b.WriteString("\n" + indent + "}")
}

// jsonString returns s as a JSON string, encoded by encoding/json (so
// that every control character is escaped as JSON requires), with <, >
// and & kept as they are.
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic("wrapcheck internal error: " + err.Error()) // a string always encodes
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

// jsonValue returns x encoded by encoding/json, on one line, with <, >
// and & kept as they are.
func jsonValue(x any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(x); err != nil {
		return "", err
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n"))), nil
}

// jsonStrings returns ss as a JSON array of strings, on one line.
func jsonStrings(ss []string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, s := range ss {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(jsonString(s))
	}
	b.WriteByte(']')
	return b.String()
}

// sliceStepJSON writes the causal slice's fields of one step (after the
// step's other fields): "essential" always, the others when set.
func sliceStepJSON(b *bytes.Buffer, s verdict.SliceStep) {
	b.WriteString(`, "essential": ` + strconv.FormatBool(s.Essential))
	if s.BeforeNext {
		b.WriteString(`, "before_next": true`)
	}
	if len(s.Changed) > 0 {
		b.WriteString(`, "changed": ` + jsonStrings(s.Changed))
	}
	if s.Because != "" {
		b.WriteString(`, "because": ` + jsonString(s.Because))
	}
}

func field(b *bytes.Buffer, k, v string) {
	b.WriteString("  " + jsonString(k) + ": " + v + ",\n")
}

// stepJSON writes one trace entry; why, when not nil, is its step of the
// attached causal slice, and watches the values of the model's watches in
// its state.
func stepJSON(b *bytes.Buffer, m *spec.Model, i int, st verdict.Step, prev []int64, why *verdict.SliceStep, watches []WatchValue) {
	b.WriteString(`{"step": ` + strconv.Itoa(i) + `, "action": `)
	if st.Action >= 0 {
		b.WriteString(jsonString(m.Actions[st.Action].Name))
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
			b.WriteString(jsonString(ag.Name) + ": ")
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
		b.WriteString(jsonString(name) + ": " + strconv.FormatBool(v))
	})
	if n > 0 {
		b.WriteByte('}')
	}
	watchesJSON(b, m, watches)
	if why != nil {
		sliceStepJSON(b, *why)
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
		b.WriteString(jsonString(v.Name) + ": ")
		varValue(v, state).writeJSON(b)
	}
	b.WriteByte('}')
}

// TraceJSON writes steps, a trace, on one line, as the JSON array that is
// a violation's "trace" in the output of [JSON]: one object a step, step 0
// the initial state. Package guard answers with it the trace of a run so
// far.
func TraceJSON(w io.Writer, m *spec.Model, steps []verdict.Step) error {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, st := range steps {
		if i > 0 {
			b.WriteString(", ")
		}
		var prev []int64
		if i > 0 {
			prev = steps[i-1].State
		}
		stepJSON(&b, m, i, st, prev, nil, nil)
	}
	b.WriteByte(']')
	_, err := w.Write(b.Bytes())
	return err
}

package report

import (
	"bytes"
	"io"
	"math/big"
	"strconv"

	"github.com/wrapcheck/wrapcheck/simulate"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// The Informal Trace Format (ITF) of Apalache's ADR-015, revision
// 2025-11-11 (docs/itf.md, schema docs/itf-schema.json): a trace is one
// JSON object with "#meta", "params" (the constants), "vars" (the state
// variables, past-time monitors left out), "states" and, for a lasso,
// "loop". Values are encoded as ITF writes them:
//
//   - every integer as {"#bigint": "decimal"}: since ITF's revision of
//     2023-09-14 a JSON number is no longer an ITF integer, whatever its
//     size, so no reader has to guess;
//   - booleans as JSON booleans, enum members and identities as strings;
//   - sets as {"#set": [...]}, elements in the order of their type;
//   - records as JSON objects, fields in declaration order;
//   - sequences (an extension) as lists, their elements in order;
//   - arrays as {"#map": [[index, value], ...]} (an array is a function
//     of its finite index type, and ITF writes functions as maps), in
//     index order.
//
// Each state's "#meta" holds its index, the values of the watches (check
// --watch: {"expression": value}, or {"error": message} where it fails),
// and for a step the action that led to it and the agent answers it
// took, in the order asked, each {"agent": name, "answer": value}.

// ITFMetaFormat is the "format" member of the "#meta" of every ITF trace
// wrapcheck writes.
const ITFMetaFormat = "ITF"

// ITFMetaDescription is the "format-description" member of the "#meta" of
// every ITF trace wrapcheck writes: where the format is defined.
const ITFMetaDescription = "https://apalache-mc.org/docs/adr/015adr-trace.html"

// ITFTrace is one trace to write in ITF.
type ITFTrace struct {
	Trace []verdict.Step
	// LoopStart is verdict.Violation.LoopStart: -1 for a finite trace.
	LoopStart int
	// Meta lists members added to the trace's "#meta" after wrapcheck's
	// own (format, format-description, source, spec), as pairs of a name
	// and a JSON value, in order.
	Meta []ITFMember
}

// ITFMember is a name and a JSON value: a member of an ITF "#meta".
type ITFMember struct {
	Name  string
	Value []byte
}

// ITF writes the trace of res's violation (the first one, with
// --continue) in the Informal Trace Format, followed by a newline; with
// no violation it writes nothing: ITF is a trace format, and a check that
// holds has no trace. The trace's "#meta" names the violated check.
func ITF(w io.Writer, m *spec.Model, res *verdict.Result) error {
	if res.Violation == nil {
		return nil
	}
	return ITFTrace{Trace: res.Violation.Trace, LoopStart: res.Violation.LoopStart, Meta: violationMeta(res.Violation)}.Render(w, m)
}

// ITFSimulation writes the trace of the shortest violation a simulation
// found in the Informal Trace Format, as [ITF] does, with the walk that
// found it in its "#meta"; with no violation it writes nothing.
func ITFSimulation(w io.Writer, m *spec.Model, res *simulate.Result) error {
	if res.Violation == nil {
		return nil
	}
	meta := violationMeta(res.Violation)
	meta = append(meta,
		ITFMember{"walk", []byte(strconv.FormatInt(res.Walk, 10))},
		ITFMember{"seed", []byte(strconv.FormatUint(res.Seed, 10))})
	return ITFTrace{Trace: res.Violation.Trace, LoopStart: res.Violation.LoopStart, Meta: meta}.Render(w, m)
}

func violationMeta(v *verdict.Violation) []ITFMember {
	var b bytes.Buffer
	b.WriteString(`{"kind": ` + jsonString(v.Kind.String()) + `, "name": ` + jsonString(v.Name))
	b.WriteString(`, "position": ` + jsonString(v.Pos.String()))
	if v.Msg != "" && v.Kind != verdict.Invariant {
		b.WriteString(`, "message": ` + jsonString(v.Msg))
	}
	b.WriteByte('}')
	return []ITFMember{{"violation", b.Bytes()}}
}

// Render writes t in the Informal Trace Format, one state a line,
// followed by a newline. A lasso's "loop" is the index of the state its
// cycle starts from: the last state is that state again (for a cycle
// that only stutters, the last state, which repeats).
func (t ITFTrace) Render(w io.Writer, m *spec.Model) error {
	var b bytes.Buffer
	b.WriteString("{\n")
	b.WriteString(`  "#meta": {"format": ` + jsonString(ITFMetaFormat) +
		`, "format-description": ` + jsonString(ITFMetaDescription) +
		`, "source": ` + jsonString(m.Filename) + `, "spec": ` + jsonString(m.Name))
	for _, mb := range t.Meta {
		b.WriteString(", " + jsonString(mb.Name) + ": ")
		b.Write(mb.Value)
	}
	b.WriteString("},\n")
	b.WriteString(`  "params": [`)
	for i, c := range m.Consts {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(jsonString(c.Name))
	}
	b.WriteString("],\n")
	b.WriteString(`  "vars": [`)
	n := 0
	for _, v := range m.Vars {
		if v.Monitor != nil {
			continue
		}
		if n > 0 {
			b.WriteString(", ")
		}
		n++
		b.WriteString(jsonString(v.Name))
	}
	b.WriteString("],\n")
	b.WriteString(`  "states": [`)
	watches := traceWatches(m, nil, t.Trace)
	for i, st := range t.Trace {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n    ")
		var wv []WatchValue
		if watches != nil {
			wv = watches[i]
		}
		itfState(&b, m, i, st, wv)
	}
	b.WriteString("\n  ]")
	if loop := itfLoop(t.Trace, t.LoopStart); loop >= 0 {
		b.WriteString(",\n  \"loop\": " + strconv.Itoa(loop))
	}
	b.WriteString("\n}\n")
	_, err := w.Write(b.Bytes())
	return err
}

// itfLoop maps a lasso's LoopStart (the first state after the state the
// cycle starts from, which the last entry equals) to ITF's loop index
// (the state the cycle starts from); a cycle that stutters in its last
// state loops on that state.
func itfLoop(trace []verdict.Step, ls int) int {
	if ls < 0 || ls >= len(trace) {
		return -1
	}
	last := len(trace) - 1
	if ls > 0 && equal(trace[ls-1].State, trace[last].State) && trace[ls].Action >= 0 {
		return ls - 1
	}
	return last
}

func itfState(b *bytes.Buffer, m *spec.Model, i int, st verdict.Step, watches []WatchValue) {
	b.WriteString(`{"#meta": {"index": ` + strconv.Itoa(i))
	if len(watches) > 0 {
		// Watches are expressions, not state variables: in "#meta", so
		// that "vars" stays the variables and every reader ignores them.
		b.WriteString(`, "watches": {`)
		for j, w := range watches {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(jsonString(m.Watches[j].Text) + ": ")
			if w.Err != "" {
				b.WriteString(`{"error": ` + jsonString(w.Err) + `}`)
			} else {
				ITFValue(b, w.Type, w.Slots)
			}
		}
		b.WriteByte('}')
	}
	if st.Action >= 0 {
		b.WriteString(`, "action": ` + jsonString(m.Actions[st.Action].Name))
		b.WriteString(`, "asked": [`)
		for k, a := range st.Asked {
			if k > 0 {
				b.WriteString(", ")
			}
			ag := m.Agents[a.Agent]
			b.WriteString(`{"agent": ` + jsonString(ag.Name) + `, "answer": `)
			ITFValue(b, ag.Result, a.Value)
			b.WriteByte('}')
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
	if i == 0 {
		for _, c := range m.Consts {
			b.WriteString(", " + jsonString(c.Name) + ": ")
			if c.Big != nil {
				itfBig(b, c.Big)
			} else {
				itfInt(b, c.Value)
			}
		}
	}
	for _, v := range m.Vars {
		if v.Monitor != nil {
			continue
		}
		b.WriteString(", " + jsonString(v.Name) + ": ")
		ITFValue(b, v.Type, st.State[v.Slot:v.Slot+v.Type.Width])
	}
	b.WriteByte('}')
}

// ITFValue writes the value of type t held in slots (unpacked, one int64
// per scalar) as an ITF expression.
func ITFValue(b *bytes.Buffer, t *spec.Type, slots []int64) {
	switch t.Kind {
	case spec.ArrayKind:
		w := t.Elem.Width
		b.WriteString(`{"#map": [`)
		for i := 0; i < int(t.Index.Size()); i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteByte('[')
			itfScalar(b, t.Index, t.Index.Lo+int64(i))
			b.WriteString(", ")
			ITFValue(b, t.Elem, slots[i*w:(i+1)*w])
			b.WriteByte(']')
		}
		b.WriteString("]}")
	case spec.RecordKind:
		if t.Seq {
			// a sequence is an ITF list, as TLA+'s Seq and Quint's List
			el, w := t.Fields[1], t.Fields[1].Type.Elem.Width
			b.WriteByte('[')
			for i := range SeqLen(t, slots) {
				if i > 0 {
					b.WriteString(", ")
				}
				ITFValue(b, el.Type.Elem, slots[el.Offset+i*w:el.Offset+(i+1)*w])
			}
			b.WriteByte(']')
			return
		}
		b.WriteByte('{')
		for i, f := range t.Fields {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(jsonString(f.Name) + ": ")
			ITFValue(b, f.Type, slots[f.Offset:f.Offset+f.Type.Width])
		}
		b.WriteByte('}')
	case spec.SetKind:
		b.WriteString(`{"#set": [`)
		mask := uint64(slots[0])
		n := 0
		for k := 0; k < 64 && k < int(t.Elem.Size()); k++ {
			if mask&(1<<uint(k)) != 0 {
				if n > 0 {
					b.WriteString(", ")
				}
				n++
				itfScalar(b, t.Elem, t.Elem.Lo+int64(k))
			}
		}
		b.WriteString("]}")
	default:
		itfScalar(b, t, slots[0])
	}
}

func itfScalar(b *bytes.Buffer, t *spec.Type, v int64) {
	switch t.Kind {
	case spec.BoolKind:
		b.WriteString(strconv.FormatBool(v != 0))
	case spec.EnumKind, spec.SymmetricKind:
		b.WriteString(jsonString(scalarName(t, v)))
	default:
		itfInt(b, v)
	}
}

func itfInt(b *bytes.Buffer, v int64) {
	b.WriteString(`{"#bigint": "` + strconv.FormatInt(v, 10) + `"}`)
}

func itfBig(b *bytes.Buffer, v *big.Int) {
	b.WriteString(`{"#bigint": "` + v.String() + `"}`)
}

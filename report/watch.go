package report

import (
	"bytes"
	"strings"

	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// WatchValue is the value of one watch (spec.Model.Watches, check
// --watch) in one state: its slots, or the runtime error met evaluating
// it (a division by zero, an index out of range).
type WatchValue struct {
	Type  *spec.Type
	Slots []int64
	Err   string // "" when Slots holds the value
	// Pos is where in the watch the evaluation failed (when Err is set
	// and the position is known).
	Pos spec.Position
}

// Text is the value as wrap writes it (as [ValueText]), or "error: "
// and the message.
func (w WatchValue) Text() string {
	if w.Err != "" {
		return "error: " + w.Err
	}
	return ValueText(w.Type, w.Slots)
}

// EvalWatches evaluates every watch of m in each state of states: out[i][j]
// is watch j in states[i]. prog is the model compiled for the search (nil:
// m is compiled here). It returns nil when m has no watches, and an
// error only when an expression cannot be compiled (an internal error).
func EvalWatches(m *spec.Model, prog *machine.Program, states [][]int64) ([][]WatchValue, error) {
	if len(m.Watches) == 0 || len(states) == 0 {
		return nil, nil
	}
	if prog == nil || prog.Model != m {
		var err error
		if prog, err = machine.Compile(m); err != nil {
			return nil, err
		}
	}
	preds := make([]*machine.Pred, len(m.Watches))
	for j, w := range m.Watches {
		pr, err := prog.CompileExpr(w.Expr)
		if err != nil {
			return nil, err
		}
		preds[j] = pr
	}
	mach := prog.NewMachine()
	packed := make(machine.State, prog.Words())
	out := make([][]WatchValue, len(states))
	for i, st := range states {
		prog.Pack(packed, st)
		out[i] = make([]WatchValue, len(m.Watches))
		for j, w := range m.Watches {
			v := WatchValue{Type: w.Expr.Type}
			slots, err := mach.EvalValue(preds[j], packed, nil)
			if err != nil {
				v.Err = err.Error()
				if ex, ok := err.(*machine.ExecError); ok {
					v.Err, v.Pos = ex.Msg, ex.Pos
				}
			} else {
				v.Slots = slots
			}
			out[i][j] = v
		}
	}
	return out, nil
}

// WatchTexts evaluates every watch of m in each state of states, as
// [EvalWatches], and returns the values as text ([WatchValue.Text]),
// by watch: out[j][i] is watch j in states[i], what the playground's
// trace table and the editors' trace panel show in watch j's column.
func WatchTexts(m *spec.Model, prog *machine.Program, states [][]int64) ([][]string, error) {
	vals, err := EvalWatches(m, prog, states)
	if err != nil {
		return nil, err
	}
	out := make([][]string, len(m.Watches))
	for j := range out {
		out[j] = make([]string, len(states))
		for i := range states {
			out[j][i] = vals[i][j].Text()
		}
	}
	return out, nil
}

// traceWatches evaluates m's watches on every step of trace for a
// renderer that has no compiled program at hand; nil when m has no
// watches or they cannot be evaluated.
func traceWatches(m *spec.Model, prog *machine.Program, trace []verdict.Step) [][]WatchValue {
	if len(m.Watches) == 0 {
		return nil
	}
	states := make([][]int64, len(trace))
	for i, st := range trace {
		states[i] = st.State
	}
	vals, err := EvalWatches(m, prog, states)
	if err != nil {
		return nil
	}
	return vals
}

// watchLines are the lines of the watches at one step: "watch EXPR: VALUE".
func watchLines(m *spec.Model, vals []WatchValue) []string {
	var out []string
	for j, v := range vals {
		out = append(out, "watch "+m.Watches[j].Text+": "+v.Text())
	}
	return out
}

// watchesJSON writes the watches of one step as the members of a trace
// entry: "watches": {EXPR: value}, and "watch_errors": {EXPR: message}
// for those whose evaluation failed in this state.
func watchesJSON(b *bytes.Buffer, m *spec.Model, vals []WatchValue) {
	if len(vals) == 0 {
		return
	}
	var errs []string
	b.WriteString(`, "watches": {`)
	n := 0
	for j, v := range vals {
		if v.Err != "" {
			errs = append(errs, jsonString(m.Watches[j].Text)+": "+jsonString(v.Err))
			continue
		}
		if n > 0 {
			b.WriteString(", ")
		}
		n++
		b.WriteString(jsonString(m.Watches[j].Text) + ": ")
		valueNode(v.Type, v.Slots).writeJSON(b)
	}
	b.WriteByte('}')
	if len(errs) > 0 {
		b.WriteString(`, "watch_errors": {` + strings.Join(errs, ", ") + "}")
	}
}

package report

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"

	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/quant"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// The witnesses and the sensitivity of prob (quant.Options.Witness and
// Sensitivity), in text and JSON, beside QuantText and QuantJSON.

// witnessText writes the witness of one value (named as in its line,
// "Rich's P_max"): the path as check's trace, with each step's
// probability, then the strategy on the path.
func witnessText(b *strings.Builder, m *spec.Model, name string, w *quant.Witness) {
	if len(w.Steps) == 0 {
		fmt.Fprintf(b, "witness of %s: no path reaches the event under the strategy that attains it\n", Escape(name))
		return
	}
	fmt.Fprintf(b, "witness of %s: the most probable path to the event under the strategy that attains it, probability %s\n", Escape(name), ratText(w.Prob))
	if w.Orbits {
		b.WriteString("(symmetry reduction: each state stands for its orbit, each step's probability is that of entering the orbit)\n")
	}
	v := &verdict.Violation{Trace: witnessTrace(w), LoopStart: -1}
	TextOptions{}.writeTrace(b, m, v, func(i int) string {
		return "   (probability " + w.Steps[i].Prob.RatString() + ")"
	})
	b.WriteString("strategy (state → choice) on the path:\n")
	for _, r := range w.Strategy {
		fmt.Fprintf(b, "  step %d → %s", r.Step, Escape(m.Actions[r.Action].Name))
		if ds := decisionTexts(m, r.Decisions); len(ds) > 0 {
			fmt.Fprintf(b, ": %s", Escape(strings.Join(ds, ", ")))
		}
		fmt.Fprintf(b, " (the state has %s)\n", verdict.Plural(r.Choices, "choice"))
	}
}

// ratText prints a probability as a fraction, with its decimal when it
// is not an integer.
func ratText(r *big.Rat) string {
	if r.IsInt() {
		return r.RatString()
	}
	return r.RatString() + " (" + r.FloatString(6) + ")"
}

// witnessTrace returns the path of w as a trace.
func witnessTrace(w *quant.Witness) []verdict.Step {
	tr := make([]verdict.Step, len(w.Steps))
	for i, s := range w.Steps {
		tr[i] = verdict.Step{Action: s.Action, State: s.State, Asked: s.Asked}
	}
	return tr
}

// decisionTexts prints the scheduler's decisions: `agent → value` for an
// unrated answer, `choose → value` for a choose (its value's scalars).
func decisionTexts(m *spec.Model, ds []machine.Branch) []string {
	var out []string
	for _, d := range ds {
		if d.Agent >= 0 {
			ag := m.Agents[d.Agent]
			out = append(out, ag.Name+" → "+valueNode(ag.Result, d.Value).folded(foldLimit))
			continue
		}
		parts := make([]string, len(d.Value))
		for i, x := range d.Value {
			parts[i] = fmt.Sprint(x)
		}
		out = append(out, "choose → "+strings.Join(parts, " "))
	}
	return out
}

// witnessJSON is the JSON of a witness: the path as check's JSON trace,
// each step's probability beside it, the strategy.
type witnessJSON struct {
	// Probability is the path's; null with no path.
	Probability *quantValueJSON `json:"probability"`
	// Trace is the path as check's JSON gives a violation's trace; empty
	// with no path.
	Trace json.RawMessage `json:"trace"`
	// StepProbabilities holds each step's probability, exactly.
	StepProbabilities []string `json:"step_probabilities"`
	Strategy          []struct {
		Step      int      `json:"step"`
		Action    string   `json:"action"`
		Decisions []string `json:"decisions"`
		Choices   int      `json:"choices"`
	} `json:"strategy"`
	// Orbits: symmetry reduction was on; each state stands for its
	// orbit.
	Orbits bool `json:"orbits,omitempty"`
}

// quantValueJSON is an exact value and its nearest float64.
type quantValueJSON struct {
	Exact string  `json:"exact"`
	Float float64 `json:"float"`
}

func ratJSON(r *big.Rat) *quantValueJSON {
	f, _ := r.Float64()
	return &quantValueJSON{Exact: r.RatString(), Float: f}
}

func newWitnessJSON(m *spec.Model, w *quant.Witness) (*witnessJSON, error) {
	if w == nil {
		return nil, nil
	}
	out := &witnessJSON{Orbits: w.Orbits, Trace: json.RawMessage("[]"), StepProbabilities: []string{}}
	if len(w.Steps) == 0 {
		return out, nil
	}
	out.Probability = ratJSON(w.Prob)
	var b strings.Builder
	if err := TraceJSON(&b, m, witnessTrace(w)); err != nil {
		return nil, err
	}
	out.Trace = json.RawMessage(b.String())
	for _, s := range w.Steps {
		out.StepProbabilities = append(out.StepProbabilities, s.Prob.RatString())
	}
	for _, r := range w.Strategy {
		ds := decisionTexts(m, r.Decisions)
		if ds == nil {
			ds = []string{}
		}
		out.Strategy = append(out.Strategy, struct {
			Step      int      `json:"step"`
			Action    string   `json:"action"`
			Decisions []string `json:"decisions"`
			Choices   int      `json:"choices"`
		}{r.Step, m.Actions[r.Action].Name, ds, r.Choices})
	}
	return out, nil
}

package report

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/quant"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// The witnesses and the sensitivity of prob (quant.Options.Witness and
// Sensitivity), in text and JSON, beside QuantText and QuantJSON.

// witnessText writes the witness of one value (named as in its line,
// "Rich's P_max"; event is "event", or "target" for an expected cost): the path as check's trace, with each step's
// probability, then the strategy on the path.
func witnessText(b *strings.Builder, m *spec.Model, name, event string, w *quant.Witness) {
	strategy := "the strategy that attains it"
	if w.Bounds != nil {
		own := "probability"
		if event == "target" {
			own = "expected cost"
		}
		strategy = fmt.Sprintf("the strategy its bounds pick (whose own %s is in [%s, %s])",
			own, floatOrInfinity(w.Bounds.Lo), floatOrInfinity(w.Bounds.Hi))
	}
	if len(w.Steps) == 0 {
		fmt.Fprintf(b, "witness of %s: no path reaches the %s under %s\n", Escape(name), event, strategy)
		return
	}
	fmt.Fprintf(b, "witness of %s: the most probable path to the %s under %s, probability %s\n", Escape(name), event, strategy, ratText(w.Prob))
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
	// StrategyBounds, for a value computed by interval iteration, bound
	// the probability of the event (for an expected cost, the expected
	// cost until the target) under the strategy, which its bounds picked
	// and which need not attain the value; absent for an exact value,
	// which the strategy attains. An infinite end is null (lower) or
	// absent (upper: no upper bound was certified), as a cost's are.
	StrategyBounds *strategyBoundsJSON `json:"strategy_bounds,omitempty"`
}

// strategyBoundsJSON is a witness's strategy_bounds.
type strategyBoundsJSON struct {
	Lower *float64 `json:"lower"`
	Upper *float64 `json:"upper,omitempty"`
}

// witnessPairJSON holds the witnesses of a query's min and max.
type witnessPairJSON struct {
	Min *witnessJSON `json:"min,omitempty"`
	Max *witnessJSON `json:"max,omitempty"`
}

// newWitnessPairJSON returns the JSON of the witnesses, nil with none.
func newWitnessPairJSON(m *spec.Model, min, max *quant.Witness) (*witnessPairJSON, error) {
	if min == nil && max == nil {
		return nil, nil
	}
	var p witnessPairJSON
	var err error
	if p.Min, err = newWitnessJSON(m, min); err != nil {
		return nil, err
	}
	p.Max, err = newWitnessJSON(m, max)
	return &p, err
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
	if w.Bounds != nil {
		lo, hi := w.Bounds.Lo, w.Bounds.Hi
		out.StrategyBounds = &strategyBoundsJSON{Lower: &lo, Upper: &hi}
		if math.IsInf(lo, 1) {
			out.StrategyBounds.Lower = nil
		}
		if math.IsInf(hi, 1) {
			out.StrategyBounds.Upper = nil
		}
	}
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

// sensitivityText writes the ranges of a query (name) if each measured
// rate were known exactly, narrowest first.
func sensitivityText(b *strings.Builder, m *spec.Model, name string, box *quant.Box, ss []quant.Sensitivity) {
	if len(ss) == 0 {
		return
	}
	blo, bhi := boxEnds(box)
	fmt.Fprintf(b, "%s: measure next: the range if one measured rate were known exactly (its counts at their point estimates), narrowest first:\n", Escape(name))
	for i := range ss {
		s := &ss[i]
		lo, hi := boxEnds(&s.Box)
		if s.LoInf {
			lo = "infinity"
		}
		if s.HiInf {
			hi = "infinity"
		}
		w := "infinity"
		if ex, up := s.Width(); ex != nil {
			w = decimal(ex, true)
		} else if !math.IsInf(up, 1) {
			w = strconv.FormatFloat(up, 'g', -1, 64)
		}
		same := ""
		if lo == blo && hi == bhi {
			same = " (no narrower)"
		}
		fmt.Fprintf(b, "  %s: [%s, %s], width %s%s\n", Escape(rateText(m, s.Rate)), lo, hi, w, same)
	}
}

// rateText names a rate: `agent at file:line:col (v k of n, ...)`.
func rateText(m *spec.Model, r *spec.Rate) string {
	ag := m.Agents[r.Agent]
	var parts []string
	for _, a := range r.Answers {
		p := a.Prob.RatString()
		if a.Count {
			p = fmt.Sprintf("%d of %d", a.K, a.N)
		}
		parts = append(parts, valueNode(ag.Result, a.Value).folded(foldLimit)+" "+p)
	}
	return fmt.Sprintf("%s at %s (%s)", ag.Name, r.Pos, strings.Join(parts, ", "))
}

// sensitivityJSON is one entry of a query's "sensitivity".
type sensitivityJSON struct {
	Agent    string `json:"agent"`
	Position string `json:"position"`
	// Min and Max are the range's ends, as the box's; Width its width,
	// exact or (from interval iteration) an upper bound; null when an
	// end is infinite.
	Min   *quantBoxEndJSON `json:"min"`
	Max   *quantBoxEndJSON `json:"max"`
	Width *quantBoxEndJSON `json:"width"`
}

// quantBoxEndJSON is an end of a range: exact, or enclosed by interval
// iteration, or infinite.
type quantBoxEndJSON struct {
	Exact    string   `json:"exact,omitempty"`
	Float    *float64 `json:"float,omitempty"`
	Lower    *float64 `json:"lower,omitempty"`
	Upper    *float64 `json:"upper,omitempty"`
	Infinite bool     `json:"infinite,omitempty"`
}

func boxEndJSON(r *big.Rat, iv *quant.Interval, inf bool) *quantBoxEndJSON {
	switch {
	case inf:
		return &quantBoxEndJSON{Infinite: true}
	case r != nil:
		f, _ := r.Float64()
		return &quantBoxEndJSON{Exact: r.RatString(), Float: &f}
	case iv != nil:
		lo, hi := iv.Lo, iv.Hi
		mid := lo/2 + hi/2
		return &quantBoxEndJSON{Float: &mid, Lower: &lo, Upper: &hi}
	}
	return nil
}

func newSensitivityJSON(m *spec.Model, ss []quant.Sensitivity) []sensitivityJSON {
	var out []sensitivityJSON
	for i := range ss {
		s := &ss[i]
		j := sensitivityJSON{Agent: m.Agents[s.Rate.Agent].Name, Position: s.Rate.Pos.String(),
			Min: boxEndJSON(s.Box.Lo, s.Box.LoBounds, s.LoInf), Max: boxEndJSON(s.Box.Hi, s.Box.HiBounds, s.HiInf)}
		if ex, up := s.Width(); ex != nil {
			j.Width = boxEndJSON(ex, nil, false)
		} else if !math.IsInf(up, 1) {
			j.Width = &quantBoxEndJSON{Float: &up, Upper: &up}
		}
		out = append(out, j)
	}
	return out
}

package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math/big"

	"github.com/wrapcheck/wrapcheck/quant"
	"github.com/wrapcheck/wrapcheck/spec"
)

// QuantText writes the values of a [quant.Result] for people: one line
// per value, `Name: P_max(formula) = 3/16 (0.1875)`, with the verdict
// of a bound after it, then the figures of the MDP.
func QuantText(w io.Writer, m *spec.Model, res *quant.Result) error {
	for i := range res.Queries {
		r := &res.Queries[i]
		q := r.Query
		f := q.Formula
		if q.Steps >= 0 {
			f += fmt.Sprintf(" within %d", q.Steps)
		}
		for _, v := range []struct {
			name string
			val  *big.Rat
			min  bool
		}{{"P_min", r.Min, true}, {"P_max", r.Max, false}} {
			if v.val == nil {
				continue
			}
			line := fmt.Sprintf("%s: %s(%s) = %s", q.Name, v.name, f, v.val.RatString())
			if !v.val.IsInt() {
				line += " (" + v.val.FloatString(6) + ")"
			}
			if b := q.Bound; b != nil && boundIsOn(q, v.min) {
				if r.Violated {
					line += fmt.Sprintf(": bound %s %s violated", b.Op, b.Text)
				} else {
					line += fmt.Sprintf(": bound %s %s holds", b.Op, b.Text)
				}
			}
			if _, err := fmt.Fprintln(w, line); err != nil {
				return err
			}
		}
	}
	s := res.Stats
	_, err := fmt.Fprintf(w, "states: %d, choices: %d, transitions: %d, seconds: %.3f\n", s.States, s.Choices, s.Transitions, s.Seconds)
	return err
}

// boundIsOn reports whether q's bound is compared with the minimum (min)
// or the maximum (!min).
func boundIsOn(q *spec.Query, min bool) bool {
	switch q.Opt {
	case spec.QueryMin:
		return min
	case spec.QueryMax:
		return !min
	}
	return min != q.Bound.Upper()
}

// QuantJSON writes a [quant.Result] as one JSON object:
// {"format": 1, "spec", "verdict": "holds"|"violated", "queries": [...],
// "stats"}. Each value is an exact fraction as a string ("3/16") and a
// float64 beside it (its nearest).
func QuantJSON(w io.Writer, m *spec.Model, res *quant.Result) error {
	type value struct {
		Exact string  `json:"exact"`
		Float float64 `json:"float"`
	}
	type bound struct {
		Op       string `json:"op"`
		Value    string `json:"value"`
		Violated bool   `json:"violated"`
	}
	type query struct {
		Name     string `json:"name"`
		Position string `json:"position"`
		Formula  string `json:"formula"`
		Steps    *int64 `json:"steps"`
		Min      *value `json:"min"`
		Max      *value `json:"max"`
		Bound    *bound `json:"bound"`
	}
	val := func(r *big.Rat) *value {
		if r == nil {
			return nil
		}
		f, _ := r.Float64()
		return &value{Exact: r.RatString(), Float: f}
	}
	out := struct {
		Format  int     `json:"format"`
		Spec    string  `json:"spec"`
		Verdict string  `json:"verdict"`
		Queries []query `json:"queries"`
		Stats   struct {
			States      int     `json:"states"`
			Choices     int     `json:"choices"`
			Transitions int     `json:"transitions"`
			Seconds     float64 `json:"seconds"`
		} `json:"stats"`
	}{Format: 1, Spec: m.Name, Verdict: "holds", Queries: []query{}}
	if res.Violations() > 0 {
		out.Verdict = "violated"
	}
	for i := range res.Queries {
		r := &res.Queries[i]
		q := r.Query
		jq := query{Name: q.Name, Position: q.Pos.String(), Formula: q.Formula, Min: val(r.Min), Max: val(r.Max)}
		if q.Steps >= 0 {
			k := q.Steps
			jq.Steps = &k
		}
		if b := q.Bound; b != nil {
			jq.Bound = &bound{Op: b.Op, Value: b.Value.RatString(), Violated: r.Violated}
		}
		out.Queries = append(out.Queries, jq)
	}
	out.Stats.States, out.Stats.Choices, out.Stats.Transitions, out.Stats.Seconds = res.Stats.States, res.Stats.Choices, res.Stats.Transitions, res.Stats.Seconds
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

package report

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"strconv"
	"strings"

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
		f := queryFormula(q)
		for _, v := range []struct {
			name string
			val  *big.Rat
			iv   *quant.Interval
			min  bool
			wit  *quant.Witness
		}{{"P_min", r.Min, r.MinBounds, true, r.MinWitness}, {"P_max", r.Max, r.MaxBounds, false, r.MaxWitness}} {
			val := probText(v.val, v.iv, r.Stopped && r.StoppedIn == "")
			if val == "" {
				continue
			}
			line := fmt.Sprintf("%s: %s(%s) %s", q.Name, v.name, f, val)
			if b := q.Bound; b != nil && boundIsOn(q, v.min) {
				if r.Unknown && !r.BoxBroken {
					line += fmt.Sprintf(": bound %s %s not decided", b.Op, b.Text)
				} else if r.Violated {
					line += fmt.Sprintf(": bound %s %s violated", b.Op, b.Text)
				} else {
					line += fmt.Sprintf(": bound %s %s holds", b.Op, b.Text)
				}
			}
			if _, err := fmt.Fprintln(w, line); err != nil {
				return err
			}
			if v.wit != nil {
				var b strings.Builder
				witnessText(&b, m, q.Name+"'s "+v.name, "event", v.wit)
				if _, err := io.WriteString(w, b.String()); err != nil {
					return err
				}
			}
		}
		if bx := r.Box; bx != nil {
			lo, hi := boxEnds(bx)
			if err := writeBox(w, m, q.Name, "P", f, lo, hi, q.Bound, r.Violated, r.Unknown, bx, r.Sensitivity); err != nil {
				return err
			}
		}
		if err := stoppedInLine(w, q.Name, r.Stopped, r.StoppedIn); err != nil {
			return err
		}
	}
	for i := range res.Expectations {
		r := &res.Expectations[i]
		e := r.Expectation
		for _, v := range []struct {
			name string
			val  *big.Rat
			iv   *quant.Interval
			inf  bool
			min  bool
			wit  *quant.Witness
		}{{"E_min", r.Min, r.MinBounds, r.MinInf, true, r.MinWitness}, {"E_max", r.Max, r.MaxBounds, r.MaxInf, false, r.MaxWitness}} {
			if v.val == nil && v.iv == nil && !v.inf {
				continue
			}
			line := fmt.Sprintf("%s: %s(%s) %s", e.Name, v.name, e.Formula, costValueText(v.val, v.iv, v.inf, r.Stopped && r.StoppedIn == ""))
			if b := e.Bound; b != nil && v.min == (e.Opt == spec.QueryMin || e.Opt == spec.QueryBoth && !b.Upper()) {
				if r.Unknown && !r.BoxBroken {
					line += fmt.Sprintf(": bound %s %s not decided", b.Op, b.Text)
				} else if r.Violated {
					line += fmt.Sprintf(": bound %s %s violated", b.Op, b.Text)
				} else {
					line += fmt.Sprintf(": bound %s %s holds", b.Op, b.Text)
				}
			}
			if _, err := fmt.Fprintln(w, line); err != nil {
				return err
			}
			if v.wit != nil {
				var b strings.Builder
				witnessText(&b, m, e.Name+"'s "+v.name, "target", v.wit)
				if _, err := io.WriteString(w, b.String()); err != nil {
					return err
				}
			}
		}
		if bx := r.Box; bx != nil {
			lo, hi := expectBoxEnds(r)
			if err := writeBox(w, m, e.Name, "E", e.Formula, lo, hi, e.Bound, r.Violated, r.BoxBroken, bx, r.Sensitivity); err != nil {
				return err
			}
		}
		if err := stoppedInLine(w, e.Name, r.Stopped, r.StoppedIn); err != nil {
			return err
		}
	}
	for _, n := range res.Notes {
		if _, err := fmt.Fprintf(w, "note: %s\n", Escape(n)); err != nil {
			return err
		}
	}
	s := res.Stats
	orbits := ""
	if s.Symmetry {
		orbits = " (orbits under symmetry)"
	}
	_, err := fmt.Fprintf(w, "states: %d%s, choices: %d, transitions: %d, seconds: %.3f\n", s.States, orbits, s.Choices, s.Transitions, s.Seconds)
	return err
}

// boxLine is the line of a value's range over the confidence box of the
// counts: `Name: P(formula) over the 95% confidence intervals of the
// counts in [lo, hi]` (kind P or E), as the text and SARIF give it. An
// end that a limit stopped before it was reached ("") is said so, and
// nothing is claimed of it: `... of the counts at most hi (the least
// not reached: stopped by the limit)`.
func boxLine(name, kind, formula string, bx *quant.Box, lo, hi string) string {
	return fmt.Sprintf("%s: %s(%s) over the %s confidence intervals of the counts %s", name, kind, formula, percent(bx.Level), boxRange(lo, hi))
}

// boxRange is a box's range, its ends lo and hi ("": not reached): `in
// [lo, hi]`, `at most hi (the least not reached: stopped by the
// limit)`, `at least lo (the greatest not reached: ...)`.
func boxRange(lo, hi string) string {
	const stopped = " not reached: stopped by the limit)"
	switch {
	case lo == "" && hi == "":
		return "not reached (stopped by the limit)"
	case lo == "":
		return "at most " + hi + " (the least" + stopped
	case hi == "":
		return "at least " + lo + " (the greatest" + stopped
	}
	return "in [" + lo + ", " + hi + "]"
}

// boxValue is a box's range as a SARIF result's value: `[lo, hi]`, `<=
// hi` or `>= lo` when an end was not reached.
func boxValue(lo, hi string) string {
	switch {
	case lo == "" && hi != "":
		return "<= " + hi
	case hi == "" && lo != "":
		return ">= " + lo
	}
	return "[" + lo + ", " + hi + "]"
}

// writeBox writes the box's line ([boxLine]; lo and hi its ends, "" for
// one not reached), with the verdict of bound b (when there is one and no
// value broke it: undecided by the counts, or holds, or, when the end it
// is on was not reached, undecided for that reason), then the
// sensitivity of the value to each measured rate.
func writeBox(w io.Writer, m *spec.Model, name, kind, formula, lo, hi string, b *spec.QueryBound, violated, undecided bool, bx *quant.Box, sens []quant.Sensitivity) error {
	line := boxLine(name, kind, formula, bx, lo, hi)
	if b != nil && !violated {
		switch {
		case b.Upper() && hi == "":
			line += fmt.Sprintf(": bound %s %s not decided by the counts (the greatest not reached)", b.Op, b.Text)
		case !b.Upper() && lo == "":
			line += fmt.Sprintf(": bound %s %s not decided by the counts (the least not reached)", b.Op, b.Text)
		case undecided:
			line += fmt.Sprintf(": bound %s %s not decided by the counts", b.Op, b.Text)
		default:
			line += fmt.Sprintf(": bound %s %s holds", b.Op, b.Text)
		}
	}
	var sb strings.Builder
	sb.WriteString(line + "\n")
	sensitivityText(&sb, m, name, bx, sens)
	_, err := io.WriteString(w, sb.String())
	return err
}

// queryFormula is q's formula as the reports print it, with its step
// bound: `eventually d == 6 within 3`.
func queryFormula(q *spec.Query) string {
	if q.Steps >= 0 {
		return q.Formula + fmt.Sprintf(" within %d", q.Steps)
	}
	return q.Formula
}

// probText prints a probability after its formula: `= 3/16 (0.187500)`
// exactly, `in [lo, hi] (interval iteration)` for bounds, `in [lo, hi]
// (interval iteration, stopped by the limit)` for the bounds reached
// when a limit stopped it (stopped); "" for none.
func probText(v *big.Rat, iv *quant.Interval, stopped bool) string {
	switch {
	case v != nil:
		if v.IsInt() {
			return "= " + v.RatString()
		}
		return "= " + v.RatString() + " (" + v.FloatString(6) + ")"
	case iv != nil:
		how := "interval iteration"
		if stopped {
			how += ", stopped by the limit"
		}
		return fmt.Sprintf("in [%s, %s] (%s)", strconv.FormatFloat(iv.Lo, 'g', -1, 64), strconv.FormatFloat(iv.Hi, 'g', -1, 64), how)
	}
	return ""
}

// QuantStopReason is why the computation of res stopped early, in the
// words of check's reasons: "timeout" or "interrupted"; "" when it did
// not.
func QuantStopReason(res *quant.Result) string {
	switch {
	case res.Stopped == nil:
		return ""
	case errors.Is(res.Stopped, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(res.Stopped, context.Canceled):
		return "interrupted"
	}
	return res.Stopped.Error()
}

// QuantStoppedIn is where the limit stopped the computation of res:
// "box" (the range over the confidence box of a query, its values
// computed), "sensitivity" (its sensitivity pass), "" when it stopped in
// the values (interval iteration) or did not stop.
func QuantStoppedIn(res *quant.Result) string {
	for i := range res.Queries {
		if r := &res.Queries[i]; r.Stopped {
			return r.StoppedIn
		}
	}
	for i := range res.Expectations {
		if r := &res.Expectations[i]; r.Stopped {
			return r.StoppedIn
		}
	}
	return ""
}

// QuantVerdict is the verdict of a [quant.Result] as the JSON and SARIF
// reports name it: "violated" when some bound can be broken, else
// "unknown" when some bound is not decided or the computation stopped
// early, else "holds".
func QuantVerdict(res *quant.Result) string {
	switch {
	case res.Violations() > 0:
		return "violated"
	case res.Unknowns() > 0 || res.Stopped != nil:
		return "unknown"
	}
	return "holds"
}

// stoppedInLine writes, for a query that a limit stopped after its
// values (where: "box" or "sensitivity"), the line that says what is
// missing.
func stoppedInLine(w io.Writer, name string, stopped bool, where string) error {
	var line string
	switch {
	case !stopped || where == "":
		return nil
	case where == "box":
		line = "the range over the confidence intervals of the counts was stopped by the limit (the range's bounds reached, when shown, are sound)"
	default:
		line = "the sensitivity to each measured rate was stopped by the limit (not shown)"
	}
	_, err := fmt.Fprintf(w, "%s: %s\n", name, line)
	return err
}

// costValueText prints an expected cost after its formula: `= 7/2
// (3.500000)` exactly, `= infinity (...)`, or `in [lo, hi] (interval
// iteration)` for bounds, as [probText] does (hi "infinity" where no
// upper bound was certified).
func costValueText(v *big.Rat, iv *quant.Interval, inf, stopped bool) string {
	if iv == nil || inf {
		return "= " + costText(v, inf)
	}
	how := "interval iteration"
	if stopped {
		how += ", stopped by the limit"
	}
	return fmt.Sprintf("in [%s, %s] (%s)", strconv.FormatFloat(iv.Lo, 'g', -1, 64), floatOrInfinity(iv.Hi), how)
}

// floatOrInfinity prints f as the shortest decimal that reads back as
// it, +Inf as "infinity".
func floatOrInfinity(f float64) string {
	if math.IsInf(f, 1) {
		return "infinity"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// costText prints an expected cost: a fraction and its decimal, or
// infinity.
func costText(v *big.Rat, inf bool) string {
	if inf {
		return "infinity (the target is not reached with probability 1)"
	}
	if v.IsInt() {
		return v.RatString()
	}
	return v.RatString() + " (" + v.FloatString(6) + ")"
}

// boxEnds returns the ends of a box as decimals rounded outwards (the
// lower end down, the upper end up, to 6 places), "" for an end not
// reached.
func boxEnds(b *quant.Box) (lo, hi string) {
	if b.Lo != nil {
		lo = decimal(b.Lo, false)
	} else if b.LoBounds != nil {
		lo = strconv.FormatFloat(b.LoBounds.Lo, 'g', -1, 64)
	}
	if b.Hi != nil {
		hi = decimal(b.Hi, true)
	} else if b.HiBounds != nil {
		hi = strconv.FormatFloat(b.HiBounds.Hi, 'g', -1, 64)
	}
	return lo, hi
}

// expectBoxEnds returns the ends of an expected cost's box as boxEnds
// does, or infinity ("" for an end not reached).
func expectBoxEnds(r *quant.ExpectResult) (lo, hi string) {
	switch {
	case r.BoxLoInf:
		lo = "infinity"
	case r.Box.Lo != nil:
		lo = decimal(r.Box.Lo, false)
	case r.Box.LoBounds != nil:
		lo = strconv.FormatFloat(r.Box.LoBounds.Lo, 'g', -1, 64)
	}
	switch {
	case r.BoxHiInf:
		hi = "infinity"
	case r.Box.Hi != nil:
		hi = decimal(r.Box.Hi, true)
	case r.Box.HiBounds != nil:
		hi = floatOrInfinity(r.Box.HiBounds.Hi)
	}
	return lo, hi
}

// decimal prints r with 6 decimal places, rounded up or down (r itself,
// as a fraction, when it is an integer).
func decimal(r *big.Rat, up bool) string {
	if r.IsInt() {
		return r.RatString()
	}
	scale := big.NewInt(1000000)
	n := new(big.Int).Mul(r.Num(), scale)
	q, m := new(big.Int).QuoRem(n, r.Denom(), new(big.Int))
	if up && m.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	return new(big.Rat).SetFrac(q, scale).FloatString(6)
}

// percent prints a confidence level as a percentage: 95%, 99.5%.
func percent(l *big.Rat) string {
	p := new(big.Rat).Mul(l, big.NewRat(100, 1))
	if p.IsInt() {
		return p.RatString() + "%"
	}
	s := p.FloatString(6)
	for s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	return s + "%"
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
		Exact string  `json:"exact,omitempty"`
		Float float64 `json:"float"`
		// Lower and Upper enclose a value computed by interval
		// iteration (Float is then their midpoint).
		Lower *float64 `json:"lower,omitempty"`
		Upper *float64 `json:"upper,omitempty"`
	}
	type bound struct {
		Op       string `json:"op"`
		Value    string `json:"value"`
		Violated bool   `json:"violated"`
		Unknown  bool   `json:"unknown,omitempty"`
	}
	type cost struct {
		Exact    string   `json:"exact,omitempty"`
		Float    *float64 `json:"float,omitempty"`
		Infinite bool     `json:"infinite,omitempty"`
		// Lower and Upper enclose a value computed by interval
		// iteration (Float is then their midpoint; Upper is absent
		// where no upper bound was certified, and Float then too).
		Lower *float64 `json:"lower,omitempty"`
		Upper *float64 `json:"upper,omitempty"`
	}
	type box struct {
		Level string `json:"level"`
		Min   *value `json:"min"`
		Max   *value `json:"max"`
	}
	type query struct {
		Name     string `json:"name"`
		Position string `json:"position"`
		Formula  string `json:"formula"`
		Steps    *int64 `json:"steps"`
		Min      *value `json:"min"`
		Max      *value `json:"max"`
		Bound    *bound `json:"bound"`
		// Stopped: a limit stopped interval iteration on this query
		// (its bounds are those reached) or, by StoppedIn, its range
		// over the confidence box ("box") or its sensitivity pass
		// ("sensitivity").
		Stopped   bool   `json:"stopped,omitempty"`
		StoppedIn string `json:"stopped_in,omitempty"`
		// Box is the range over the confidence intervals of the
		// counts, with them only.
		Box *box `json:"box,omitempty"`
		// Sensitivity ranks the measured rates, with --sensitivity.
		Sensitivity []sensitivityJSON `json:"sensitivity,omitempty"`
		// Witness holds the witnesses of min and max, with --witness.
		Witness *witnessPairJSON `json:"witness,omitempty"`
	}
	val := func(r *big.Rat, iv *quant.Interval) *value {
		if iv != nil {
			lo, hi := iv.Lo, iv.Hi
			return &value{Float: lo/2 + hi/2, Lower: &lo, Upper: &hi}
		}
		if r == nil {
			return nil
		}
		f, _ := r.Float64()
		return &value{Exact: r.RatString(), Float: f}
	}
	type expectation struct {
		Name     string `json:"name"`
		Position string `json:"position"`
		Formula  string `json:"formula"`
		// Min and Max are null when not computed; an infinite value is
		// {"infinite": true}.
		Min   *cost  `json:"min"`
		Max   *cost  `json:"max"`
		Bound *bound `json:"bound"`
		// Stopped and StoppedIn are a query's.
		Stopped   bool   `json:"stopped,omitempty"`
		StoppedIn string `json:"stopped_in,omitempty"`
		Box       *struct {
			Level string `json:"level"`
			Min   *cost  `json:"min"`
			Max   *cost  `json:"max"`
		} `json:"box,omitempty"`
		Sensitivity []sensitivityJSON `json:"sensitivity,omitempty"`
		// Witness holds the witnesses of min and max, with --witness.
		Witness *witnessPairJSON `json:"witness,omitempty"`
	}
	cval := func(r *big.Rat, iv *quant.Interval, inf bool) *cost {
		if inf {
			return &cost{Infinite: true}
		}
		if iv != nil {
			lo, hi := iv.Lo, iv.Hi
			if math.IsInf(hi, 1) {
				return &cost{Lower: &lo}
			}
			mid := lo/2 + hi/2
			return &cost{Float: &mid, Lower: &lo, Upper: &hi}
		}
		if r == nil {
			return nil
		}
		f, _ := r.Float64()
		return &cost{Exact: r.RatString(), Float: &f}
	}
	out := struct {
		Format  int    `json:"format"`
		Spec    string `json:"spec"`
		Verdict string `json:"verdict"`
		// Reason says why the computation stopped early ("timeout",
		// "interrupted"): the queries after the last are missing.
		Reason       string        `json:"reason,omitempty"`
		Queries      []query       `json:"queries"`
		Expectations []expectation `json:"expectations,omitempty"`
		Notes        []string      `json:"notes,omitempty"`
		Stats        struct {
			States      int     `json:"states"`
			Choices     int     `json:"choices"`
			Transitions int     `json:"transitions"`
			Seconds     float64 `json:"seconds"`
			// Symmetry: the states are orbits under symmetry reduction.
			Symmetry bool `json:"symmetry,omitempty"`
		} `json:"stats"`
	}{Format: 1, Spec: m.Name, Verdict: QuantVerdict(res), Reason: QuantStopReason(res), Queries: []query{}}
	for i := range res.Queries {
		r := &res.Queries[i]
		q := r.Query
		jq := query{Name: q.Name, Position: q.Pos.String(), Formula: q.Formula, Min: val(r.Min, r.MinBounds), Max: val(r.Max, r.MaxBounds), Stopped: r.Stopped, StoppedIn: r.StoppedIn}
		if q.Steps >= 0 {
			k := q.Steps
			jq.Steps = &k
		}
		if b := r.Box; b != nil {
			jq.Box = &box{Level: b.Level.RatString(), Min: val(b.Lo, b.LoBounds), Max: val(b.Hi, b.HiBounds)}
		}
		if b := q.Bound; b != nil {
			jq.Bound = &bound{Op: b.Op, Value: b.Value.RatString(), Violated: r.Violated, Unknown: r.Unknown}
		}
		jq.Sensitivity = newSensitivityJSON(m, r.Sensitivity)
		var err error
		if jq.Witness, err = newWitnessPairJSON(m, r.MinWitness, r.MaxWitness); err != nil {
			return err
		}
		out.Queries = append(out.Queries, jq)
	}
	for i := range res.Expectations {
		r := &res.Expectations[i]
		e := r.Expectation
		je := expectation{Name: e.Name, Position: e.Pos.String(), Formula: e.Formula, Min: cval(r.Min, r.MinBounds, r.MinInf), Max: cval(r.Max, r.MaxBounds, r.MaxInf), Stopped: r.Stopped, StoppedIn: r.StoppedIn}
		if b := e.Bound; b != nil {
			je.Bound = &bound{Op: b.Op, Value: b.Value.RatString(), Violated: r.Violated, Unknown: r.Unknown}
		}
		if b := r.Box; b != nil {
			je.Box = &struct {
				Level string `json:"level"`
				Min   *cost  `json:"min"`
				Max   *cost  `json:"max"`
			}{b.Level.RatString(), cval(b.Lo, b.LoBounds, r.BoxLoInf), cval(b.Hi, b.HiBounds, r.BoxHiInf)}
		}
		je.Sensitivity = newSensitivityJSON(m, r.Sensitivity)
		var err error
		if je.Witness, err = newWitnessPairJSON(m, r.MinWitness, r.MaxWitness); err != nil {
			return err
		}
		out.Expectations = append(out.Expectations, je)
	}
	out.Stats.States, out.Stats.Choices, out.Stats.Transitions, out.Stats.Seconds = res.Stats.States, res.Stats.Choices, res.Stats.Transitions, res.Stats.Seconds
	out.Stats.Symmetry, out.Notes = res.Stats.Symmetry, res.Notes
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

package quant_test

import (
	"context"
	"math/big"
	"testing"

	"github.com/wrapcheck/wrapcheck/quant"
	"github.com/wrapcheck/wrapcheck/spec"
)

// twoCounts asks x (9 of 10) in one step and y (1 of 2) in the next: a
// step with one rated answer can take any probability within the count's
// interval, so with [xl, xh] and [yl, yh] the intervals (Clopper-Pearson,
// 95%), P(a and b) ranges over [xl·yl, xh·yh]; knowing x exactly (9/10)
// leaves [9/10·yl, 9/10·yh], knowing y exactly (1/2) leaves [xl/2, xh/2].
const twoCounts = `spec TwoCounts
var a: bool
var b: bool
var phase: 0..2
agent x(): bool
rate x { true: 9 of 10; false: 1 of 10 }
agent y(): bool
rate y { true: 1 of 2; false: 1 of 2 }
agent z(): bool
rate z { true: 1 of 3; false: 2 of 3 }
action first when phase == 0 {
  a := ask x()
  phase := 1
}
action second when phase == 1 {
  b := ask y()
  phase := 2
}
terminal phase == 2
probability Both: eventually (phase == 2 and a and b)
`

// TestSensitivityClosedForm checks the ranges of twoCounts against the
// closed forms, and the ranking: y (1 of 2) widens the answer most, then
// x; z, never asked, changes nothing.
func TestSensitivityClosedForm(t *testing.T) {
	m, err := spec.ParseFile("two.wrap", []byte(twoCounts), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := quant.Check(context.Background(), m, quant.Options{Sensitivity: true})
	if err != nil {
		t.Fatal(err)
	}
	level := big.NewRat(19, 20)
	xl, xh, err := quant.ClopperPearson(9, 10, level)
	if err != nil {
		t.Fatal(err)
	}
	yl, yh, err := quant.ClopperPearson(1, 2, level)
	if err != nil {
		t.Fatal(err)
	}
	mul := func(a, b *big.Rat) *big.Rat { return new(big.Rat).Mul(a, b) }
	q := res.Queries[0]
	if q.Box == nil || q.Box.Lo.Cmp(mul(xl, yl)) != 0 || q.Box.Hi.Cmp(mul(xh, yh)) != 0 {
		t.Fatalf("box %v, want [%s, %s]", q.Box, mul(xl, yl).RatString(), mul(xh, yh).RatString())
	}
	want := []struct {
		agent  string
		lo, hi *big.Rat
	}{
		{"y", mul(xl, big.NewRat(1, 2)), mul(xh, big.NewRat(1, 2))},
		{"x", mul(big.NewRat(9, 10), yl), mul(big.NewRat(9, 10), yh)},
		{"z", mul(xl, yl), mul(xh, yh)},
	}
	if len(q.Sensitivity) != len(want) {
		t.Fatalf("%d sensitivities, want %d", len(q.Sensitivity), len(want))
	}
	for i, w := range want {
		s := q.Sensitivity[i]
		if got := m.Agents[s.Rate.Agent].Name; got != w.agent || s.Box.Lo.Cmp(w.lo) != 0 || s.Box.Hi.Cmp(w.hi) != 0 {
			t.Errorf("sensitivity %d: %s [%s, %s], want %s [%s, %s]", i, got, s.Box.Lo.RatString(), s.Box.Hi.RatString(), w.agent, w.lo.RatString(), w.hi.RatString())
		}
		ex, _ := s.Width()
		if ex == nil || ex.Cmp(new(big.Rat).Sub(w.hi, w.lo)) != 0 {
			t.Errorf("sensitivity %d: width %v", i, ex)
		}
	}
}

// TestSensitivityPipeline checks examples/pipeline/rates.wrap with
// family 1 and an honest executor: the verifier's 3 of 9 widens P(caveat)
// and the expected calls most, then the outages' 0 of 15; the rates that
// never apply (family 0's, the fabrications') leave the box as it is.
// Every range lies within the box and holds the value at the point
// estimates.
func TestSensitivityPipeline(t *testing.T) {
	m, err := spec.ParseFile("rates.wrap", []byte(readPipelineRates(t)), spec.Options{Defines: map[string]int64{"HONEST": 1, "FAMILY": 1}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := quant.Check(context.Background(), m, quant.Options{Sensitivity: true, Only: []string{"Caveat", "Calls"}})
	if err != nil {
		t.Fatal(err)
	}
	type ranged struct {
		name         string
		box          *quant.Box
		point        *big.Rat
		sensitivity  []quant.Sensitivity
		loInf, hiInf bool
	}
	q, e := res.Queries[0], res.Expectations[0]
	for _, r := range []ranged{{"Caveat", q.Box, q.Max, q.Sensitivity, false, false}, {"Calls", e.Box, e.Max, e.Sensitivity, e.BoxLoInf, e.BoxHiInf}} {
		t.Run(r.name, func(t *testing.T) {
			var order []int
			for _, s := range r.sensitivity {
				order = append(order, s.Rate.Pos.Line)
				if s.Box.Lo.Cmp(r.box.Lo) < 0 || s.Box.Hi.Cmp(r.box.Hi) > 0 || s.Box.Lo.Cmp(r.point) > 0 || s.Box.Hi.Cmp(r.point) < 0 {
					t.Errorf("rate at line %d: [%s, %s] not within the box [%s, %s] around %s", s.Rate.Pos.Line, s.Box.Lo.FloatString(6), s.Box.Hi.FloatString(6), r.box.Lo.FloatString(6), r.box.Hi.FloatString(6), r.point.RatString())
				}
				never := s.Rate.Pos.Line == 40 || s.Rate.Pos.Line == 48
				same := s.Box.Lo.Cmp(r.box.Lo) == 0 && s.Box.Hi.Cmp(r.box.Hi) == 0
				if never != same {
					t.Errorf("rate at line %d: [%s, %s], box [%s, %s]", s.Rate.Pos.Line, s.Box.Lo.FloatString(6), s.Box.Hi.FloatString(6), r.box.Lo.FloatString(6), r.box.Hi.FloatString(6))
				}
			}
			if len(order) != 4 || order[0] != 44 || order[1] != 35 {
				t.Errorf("ranking by line %v, want the verifier of family 1 (44), then the service (35)", order)
			}
		})
	}
}

// TestSensitivityInterval checks the ranges from interval iteration
// (Options.Interval): each encloses the exact one, and the ranking is the
// same.
func TestSensitivityInterval(t *testing.T) {
	m, err := spec.ParseFile("two.wrap", []byte(twoCounts), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	exact, err := quant.Check(context.Background(), m, quant.Options{Sensitivity: true})
	if err != nil {
		t.Fatal(err)
	}
	iv, err := quant.Check(context.Background(), m, quant.Options{Sensitivity: true, Interval: true})
	if err != nil {
		t.Fatal(err)
	}
	es, is := exact.Queries[0].Sensitivity, iv.Queries[0].Sensitivity
	if len(es) != len(is) {
		t.Fatalf("%d and %d sensitivities", len(es), len(is))
	}
	encloses := func(b *quant.Interval, r *big.Rat) bool {
		return b != nil && new(big.Rat).SetFloat64(b.Lo).Cmp(r) <= 0 && new(big.Rat).SetFloat64(b.Hi).Cmp(r) >= 0
	}
	for i := range es {
		e, s := es[i], is[i]
		if e.Rate != s.Rate || !encloses(s.Box.LoBounds, e.Box.Lo) || !encloses(s.Box.HiBounds, e.Box.Hi) {
			t.Errorf("sensitivity %d: %+v does not enclose %+v", i, s.Box, e.Box)
		}
		ex, _ := e.Width()
		w, up := s.Width()
		if w != nil || new(big.Rat).SetFloat64(up).Cmp(ex) < 0 {
			t.Errorf("sensitivity %d: width bound %v (%v) below the exact %s", i, up, w, ex.RatString())
		}
	}
}

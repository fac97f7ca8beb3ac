package quant_test

import (
	"context"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wrapcheck/wrapcheck/quant"
	"github.com/wrapcheck/wrapcheck/spec"
)

// The closed forms of examples/pipeline/rates.wrap with an honest executor
// (clean drafts only), derived by hand, with f the probability that the
// verifier flags a clean draft and o that of an outage per call. The step
// ends after two answered verdicts at most, and stops at the second
// outage:
//
//   - caveat: both answered verdicts flag, and at most one outage comes
//     before the second (AA, OAA, AOA): f²(1-o)²(1+2o);
//   - stop: two outages before the step ends (OO, O A_f O, A_f O O):
//     o²(1 + 2f(1-o));
//   - verifier calls, V(g, r) after g outages and r re-renders: V(1,1) = 1,
//     V(0,1) = 1 + o, V(1,0) = 1 + (1-o)f, and
//     V(0,0) = 1 + o(1 + (1-o)f) + (1-o)f(1+o).
func pipelineClosed(f, o *big.Rat) (caveat, stop, calls *big.Rat) {
	one := big.NewRat(1, 1)
	r := func() *big.Rat { return new(big.Rat) }
	no := r().Sub(one, o) // 1 - o
	caveat = r().Mul(f, f)
	caveat.Mul(caveat, r().Mul(no, no))
	caveat.Mul(caveat, r().Add(one, r().Mul(big.NewRat(2, 1), o)))
	stop = r().Mul(o, o)
	stop.Mul(stop, r().Add(one, r().Mul(big.NewRat(2, 1), r().Mul(f, no))))
	nof := r().Mul(no, f)
	calls = r().Add(one, r().Mul(o, r().Add(one, nof)))
	calls.Add(calls, r().Mul(nof, r().Add(one, o)))
	return caveat, stop, calls
}

func readPipelineRates(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "examples", "pipeline", "rates.wrap"))
	if err != nil {
		t.Fatal(err)
	}
	return string(src)
}

func pipelineValues(t *testing.T, src string, defines map[string]int64) map[string]quant.QueryResult {
	t.Helper()
	m, err := spec.ParseFile("rates.wrap", []byte(src), spec.Options{Defines: defines})
	if err != nil {
		t.Fatal(err)
	}
	res, err := quant.Check(context.Background(), m, quant.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]quant.QueryResult{}
	for _, q := range res.Queries {
		out[q.Query.Name] = q
	}
	for _, e := range res.Expectations {
		out[e.Expectation.Name] = quant.QueryResult{Min: e.Min, Max: e.Max, Box: e.Box}
	}
	return out
}

// TestPipelineClosedForms checks the engine against the closed forms over
// a grid of false-positive and outage rates, written into the example as
// exact rates.
func TestPipelineClosedForms(t *testing.T) {
	src := readPipelineRates(t)
	service := "rate service {\n  true: 15 of 15\n  false: 0 of 15\n}"
	clean := []string{
		"rate verifier when d == clean and FAMILY == 0 {\n  true: 9 of 9\n  false: 0 of 9\n}",
		"rate verifier when d == clean and FAMILY != 0 {\n  true: 3 of 9\n  false: 6 of 9\n}",
	}
	for _, line := range append(clean, service) {
		if !strings.Contains(src, line) {
			t.Fatalf("rates.wrap no longer has %q", line)
		}
	}
	grid := []*big.Rat{big.NewRat(0, 1), big.NewRat(1, 15), big.NewRat(1, 9), big.NewRat(1, 3), big.NewRat(1, 2), big.NewRat(9, 10), big.NewRat(1, 1)}
	frac := func(r *big.Rat) string { return r.Num().String() + "/" + r.Denom().String() }
	for _, f := range grid {
		for _, o := range grid {
			t.Run(fmt.Sprintf("f=%s,o=%s", f.RatString(), o.RatString()), func(t *testing.T) {
				nf := new(big.Rat).Sub(big.NewRat(1, 1), f)
				no := new(big.Rat).Sub(big.NewRat(1, 1), o)
				s := strings.Replace(src, service, fmt.Sprintf("rate service { true: %s; false: %s }", frac(no), frac(o)), 1)
				s = strings.Replace(s, clean[0], fmt.Sprintf("rate verifier when d == clean { true: %s; false: %s }", frac(f), frac(nf)), 1)
				s = strings.Replace(s, clean[1], "", 1)
				got := pipelineValues(t, s, map[string]int64{"HONEST": 1})
				caveat, stop, calls := pipelineClosed(f, o)
				for _, c := range []struct {
					name string
					want *big.Rat
				}{{"Caveat", caveat}, {"Stop", stop}, {"Calls", calls}} {
					r := got[c.name]
					if r.Min == nil || r.Max == nil || r.Min.Cmp(c.want) != 0 || r.Max.Cmp(c.want) != 0 {
						t.Errorf("%s = %v..%v, want %s", c.name, r.Min, r.Max, c.want.RatString())
					}
				}
			})
		}
	}
}

// TestPipelineSeed checks rates.wrap itself: at the point estimates the
// closed forms at f = 9/9 (FAMILY 0) and 3/9 (FAMILY 1), o = 0/15; and
// the range over the 95% box contains the closed forms at every corner
// of the box of (f, o), the rates being fixed there.
func TestPipelineSeed(t *testing.T) {
	src := readPipelineRates(t)
	level := big.NewRat(19, 20)
	oLo, oHi, err := quant.ClopperPearson(0, 15, level)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		family int64
		k      int64
	}{{0, 9}, {1, 3}} {
		t.Run(fmt.Sprintf("FAMILY=%d", tt.family), func(t *testing.T) {
			got := pipelineValues(t, src, map[string]int64{"HONEST": 1, "FAMILY": tt.family})
			caveat, stop, calls := pipelineClosed(big.NewRat(tt.k, 9), new(big.Rat))
			fLo, fHi, err := quant.ClopperPearson(tt.k, 9, level)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				name string
				want *big.Rat
				at   func(f, o *big.Rat) *big.Rat
			}{
				{"Caveat", caveat, func(f, o *big.Rat) *big.Rat { c, _, _ := pipelineClosed(f, o); return c }},
				{"Stop", stop, func(f, o *big.Rat) *big.Rat { _, s, _ := pipelineClosed(f, o); return s }},
				{"Calls", calls, func(f, o *big.Rat) *big.Rat { _, _, c := pipelineClosed(f, o); return c }},
			} {
				r := got[c.name]
				if r.Max.Cmp(c.want) != 0 || r.Min.Cmp(c.want) != 0 {
					t.Errorf("%s = %s..%s, want %s", c.name, r.Min.RatString(), r.Max.RatString(), c.want.RatString())
				}
				if r.Box == nil {
					t.Fatalf("%s: no box", c.name)
				}
				for _, f := range []*big.Rat{fLo, fHi} {
					for _, o := range []*big.Rat{oLo, oHi} {
						v := c.at(f, o)
						if v.Cmp(r.Box.Lo) < 0 || v.Cmp(r.Box.Hi) > 0 {
							t.Errorf("%s at f=%s o=%s: %s outside [%s, %s]", c.name, f.FloatString(6), o.FloatString(6), v.FloatString(6), r.Box.Lo.FloatString(6), r.Box.Hi.FloatString(6))
						}
					}
				}
			}
		})
	}
}

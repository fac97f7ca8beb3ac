package quant_test

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"testing"

	"github.com/wrapcheck/wrapcheck/quant"
	"github.com/wrapcheck/wrapcheck/spec"
)

// TestClopperPearson checks the intervals against closed forms (k = 0
// and k = n: 1 - (α/2)^(1/n) and (α/2)^(1/n)) and against R's
// binom.test, and that the ends are rounded outwards by at most
// 2^-ConfidenceBits.
func TestClopperPearson(t *testing.T) {
	step := math.Ldexp(1, -quant.ConfidenceBits)
	for _, tt := range []struct {
		k, n   int64
		lo, hi float64
	}{
		{9, 9, math.Pow(0.025, 1.0/9), 1},
		{0, 15, 0, 1 - math.Pow(0.025, 1.0/15)},
		{0, 1, 0, 0.975},
		{1, 1, 0.025, 1},
		// the binomial tails bisected in exact arithmetic elsewhere (as R's
		// binom.test(3, 9)$conf.int: 0.07485463 0.70070494)
		{3, 9, 0.0748546314, 0.7007049438},
		{10, 12, 0.5158622513, 0.9791374745},
	} {
		t.Run(fmt.Sprintf("%d of %d", tt.k, tt.n), func(t *testing.T) {
			lo, hi, err := quant.ClopperPearson(tt.k, tt.n, big.NewRat(19, 20))
			if err != nil {
				t.Fatal(err)
			}
			l, _ := lo.Float64()
			h, _ := hi.Float64()
			tol := 1e-8
			if tt.lo == 0 || tt.lo == 1 || tt.k == tt.n || tt.k == 0 {
				tol = 1e-12 // closed forms: the bisection's step and float64's error
			}
			if !(l <= tt.lo+tol && l >= tt.lo-step-tol) {
				t.Errorf("lower end %.12g, want %.12g rounded down by at most 2^-%d", l, tt.lo, quant.ConfidenceBits)
			}
			if !(h >= tt.hi-tol && h <= tt.hi+step+tol) {
				t.Errorf("upper end %.12g, want %.12g rounded up by at most 2^-%d", h, tt.hi, quant.ConfidenceBits)
			}
		})
	}
	for _, bad := range [][2]int64{{3, 2}, {-1, 4}, {1, 0}, {1, quant.MaxCount + 1}} {
		if _, _, err := quant.ClopperPearson(bad[0], bad[1], big.NewRat(19, 20)); err == nil {
			t.Errorf("%d of %d: no error", bad[0], bad[1])
		}
	}
}

// TestBoxEncloses checks the range over the confidence box: for one
// rated ask its ends are the ends of the interval; for two asks in a
// step and for a chain of steps, the value at every rate drawn from the
// box, computed by exact rates, lies within the range, and the range's
// ends are attained by rates at the ends of the intervals.
func TestBoxEncloses(t *testing.T) {
	lo, hi, err := quant.ClopperPearson(3, 9, big.NewRat(19, 20))
	if err != nil {
		t.Fatal(err)
	}
	models := []struct {
		name, body string
		// at returns the value at rate p of true, exactly.
		at func(p *big.Rat) *big.Rat
	}{
		{"one ask", `
var hit: bool
var done: bool
agent v(): bool
RATE
action a when not done { hit := ask v(); done := true }
probability P: eventually hit`, func(p *big.Rat) *big.Rat { return p }},
		{"two asks in a step", `
var hit: bool
var done: bool
agent v(): bool
RATE
action a when not done { let x = ask v(); let y = ask v(); hit := x and y; done := true }
probability P: eventually hit`, func(p *big.Rat) *big.Rat { return new(big.Rat).Mul(p, p) }},
		{"retry until false, three tries", `
var n: 0..3
var hit: bool
agent v(): bool
RATE
action a when not hit and n < 3 { let x = ask v(); hit := not x; n := n + 1 }
probability P: eventually hit`, func(p *big.Rat) *big.Rat {
			// 1 - p^3
			q := new(big.Rat).Mul(p, p)
			q.Mul(q, p)
			return q.Sub(big.NewRat(1, 1), q)
		}},
	}
	parse := func(t *testing.T, body, rate string) *quant.Result {
		t.Helper()
		src := "spec T\n" + replaceRate(body, rate) + "\n"
		m, err := spec.ParseFile("t.wrap", []byte(src), spec.Options{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := quant.Check(context.Background(), m, quant.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for _, tt := range models {
		t.Run(tt.name, func(t *testing.T) {
			res := parse(t, tt.body, "rate v { true: 3 of 9; false: 6 of 9 }")
			r := res.Queries[0]
			if r.Box == nil || r.Box.Lo == nil || r.Box.Hi == nil {
				t.Fatalf("no exact box: %+v", r)
			}
			ends := []*big.Rat{tt.at(lo), tt.at(hi)}
			if ends[0].Cmp(ends[1]) > 0 {
				ends[0], ends[1] = ends[1], ends[0]
			}
			if r.Box.Lo.Cmp(ends[0]) != 0 || r.Box.Hi.Cmp(ends[1]) != 0 {
				t.Errorf("box [%s, %s], want [%s, %s]", r.Box.Lo.FloatString(9), r.Box.Hi.FloatString(9), ends[0].FloatString(9), ends[1].FloatString(9))
			}
			if want := tt.at(big.NewRat(1, 3)); r.Min.Cmp(want) != 0 || r.Max.Cmp(want) != 0 {
				t.Errorf("point estimate %s..%s, want %s", r.Min.RatString(), r.Max.RatString(), want.RatString())
			}
			for i := 0; i <= 8; i++ {
				// p = lo + (hi - lo) i/8, as an exact rate k/n
				p := new(big.Rat).Sub(hi, lo)
				p.Mul(p, big.NewRat(int64(i), 8))
				p.Add(p, lo)
				q := new(big.Rat).Sub(big.NewRat(1, 1), p)
				rate := fmt.Sprintf("rate v { true: %s/%s; false: %s/%s }", p.Num(), p.Denom(), q.Num(), q.Denom())
				v := parse(t, tt.body, rate).Queries[0].Max
				if v.Cmp(r.Box.Lo) < 0 || v.Cmp(r.Box.Hi) > 0 {
					t.Errorf("rate %s: %s outside the box", p.FloatString(6), v.FloatString(9))
				}
			}
		})
	}
}

func replaceRate(body, rate string) string {
	out := ""
	for _, line := range splitLines(body) {
		if line == "RATE" {
			line = rate
		}
		out += line + "\n"
	}
	return out
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

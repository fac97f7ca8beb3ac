package spec_test

import (
	"math/big"
	"strings"
	"testing"

	"github.com/wrapcheck/wrapcheck/spec"
)

func TestRatesLowered(t *testing.T) {
	src := `spec R
type V = {pass, flag}
const N = 2
var x: 0..3
agent verifier(d: 0..3): V
rate verifier when d > 0 {
  flag: 9 of 9
  pass: 0 of 9
}
rate verifier when d == 0 { pass: 2/3; flag: 1/3 }
action a { x := 1 }
probability P: max eventually x == 1 within 3 bound <= 0.05
probability Q: (x == 0) until x == 1
`
	m, err := spec.ParseFile("r.wrap", []byte(src), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Rates) != 2 || len(m.Queries) != 2 {
		t.Fatalf("rates %d, queries %d", len(m.Rates), len(m.Queries))
	}
	r := m.Rates[0]
	if got := r.Answers[0]; got.Value[0] != 1 || got.Prob.Cmp(big.NewRat(1, 1)) != 0 || !got.Count || got.K != 9 {
		t.Errorf("first answer %+v", got)
	}
	a := m.Agents[r.Agent]
	for _, tt := range []struct {
		rate int
		arg  int64
		want bool
	}{{0, 0, false}, {0, 2, true}, {1, 0, true}, {1, 3, false}} {
		got, err := m.Rates[tt.rate].Applies(a, []int64{tt.arg})
		if err != nil || got != tt.want {
			t.Errorf("rate %d applies to %d = %v, %v; want %v", tt.rate, tt.arg, got, err, tt.want)
		}
	}
	p := m.Queries[0]
	if p.Opt != spec.QueryMax || p.Steps != 3 || p.Left != nil || p.Bound.Value.Cmp(big.NewRat(1, 20)) != 0 || !p.Bound.Upper() {
		t.Errorf("P = %+v", p)
	}
	if q := m.Queries[1]; q.Left == nil || q.Steps != -1 || q.Opt != spec.QueryBoth {
		t.Errorf("Q = %+v", q)
	}
}

func TestCostsLowered(t *testing.T) {
	src := `spec C
var x: 0..3
process p[i: 0..1] {
  action go when x < 3 { x := x + 1 }
}
action stop { x := 0 }
cost c {
  go: 2
  when x > 1: 1/2
}
expected E: max c until x == 3 bound <= 5.5
`
	m, err := spec.ParseFile("c.wrap", []byte(src), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Costs) != 1 || len(m.Expectations) != 1 {
		t.Fatalf("costs %d, expectations %d", len(m.Costs), len(m.Expectations))
	}
	c := m.Costs[0]
	if len(c.Items) != 2 || len(c.Items[0].Actions) != 2 || c.Items[0].Value.Cmp(big.NewRat(2, 1)) != 0 || c.Items[1].When == nil || c.Items[1].Value.Cmp(big.NewRat(1, 2)) != 0 {
		t.Errorf("cost %+v", c)
	}
	e := m.Expectations[0]
	if e.Opt != spec.QueryMax || e.Cost != 0 || e.Target == nil || e.Bound.Value.Cmp(big.NewRat(11, 2)) != 0 || e.Formula != "c until x == 3" {
		t.Errorf("expectation %+v", e)
	}
}

func TestRateErrors(t *testing.T) {
	for _, tt := range []struct{ name, decl, want string }{
		{"sum", "rate ag { true: 1/2 }", "rates of agent ag sum to 1/2, not 1"},
		{"undefined", "rate bg { true: 1/1 }", "undefined agent: bg"},
		{"twice", "rate ag { true: 1/2; true: 1/2 }", "answer given twice"},
		{"state", "rate ag when x > 0 { true: 1/1 }", "x"},
		{"counts", "rate ag { true: 1 of 2; false: 2 of 4 }", "must share their total"},
		{"over", "rate ag { true: 3/2; false: 0/1 }", "invalid rate 3/2"},
		{"query", "probability P: always x == 0", "a probability query is"},
		{"bound", "probability P: eventually x == 0 bound <= 3/2", "not a probability"},
		{"dup", "probability P: eventually x == 0\nprobability P: eventually x == 1", "probability P redeclared"},
		{"cost action", "cost c { b: 1 }", "cost c: undefined action: b"},
		{"cost when", "cost c { when x: 1 }", "cost c"},
		{"cost den", "cost c { a: 1/0 }", "invalid value"},
		{"cost dup", "cost c { a: 1 }\ncost c {}", "cost c redeclared"},
		{"expected cost", "expected E: d until x == 1", "undefined cost: d"},
		{"expected form", "cost c {}\nexpected E: eventually x == 1", "an expected-cost query is `Cost until c`"},
		{"expected name", "cost c {}\nprobability E: eventually x == 1\nexpected E: c until x == 1", "query E redeclared"},
		{"expected bound", "cost c {}\nexpected E: c until x == 1 bound <= 1/0", "bound 1/0 is not a cost"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := "spec E\nvar x: 0..3\nagent ag(d: 0..3): bool\naction a { x := 1 }\n" + tt.decl + "\n"
			_, err := spec.ParseFile("e.wrap", []byte(src), spec.Options{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

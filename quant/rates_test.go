package quant_test

import (
	"context"
	"strings"
	"testing"

	"github.com/wrapcheck/wrapcheck/quant"
	"github.com/wrapcheck/wrapcheck/spec"
)

// TestRatesInSpecs checks how rates are followed: conditioned on the
// arguments, chaotic where no rate applies, combined with choose and
// with the interleaving, in init.
func TestRatesInSpecs(t *testing.T) {
	for _, tt := range []struct {
		name, src, min, max string
	}{
		{"when picks the rate by the argument", `
var x: 0..2
var done: bool
agent v(d: 0..2): bool
rate v when d == 0 { true: 1/4; false: 3/4 }
rate v when d > 0 { true: 9 of 9; false: 0 of 9 }
action a when not done { choose k in 0..1 { x := k; done := ask v(k) } }
probability P: eventually done within 1`, "1/4", "1"},
		{"no rate: chaotic", `
var done: bool
var hit: bool
agent v(d: 0..2): bool
rate v when d == 0 { true: 1/2; false: 1/2 }
action a when not done { hit := ask v(1); done := true }
probability P: eventually hit`, "0", "1"},
		{"rated answers in init", `
var x: 0..3
agent die(): 0..3
rate die { 0: 1/8; 1: 1/8; 2: 1/4; 3: 1/2 }
init { x := ask die() }
probability P: eventually x >= 2`, "3/4", "3/4"},
		{"choose in init is the scheduler's", `
var x: 0..3
init { choose k in 1..2 { x := k } }
action a when x < 3 { x := x + 1 }
probability P: eventually x == 2 within 0`, "0", "1"},
		{"two rated asks in one step", `
var n: 0..2
var done: bool
agent c(): bool
rate c { true: 1/3; false: 2/3 }
action a when not done {
  let p = ask c()
  let q = ask c()
  n := (if p then 1 else 0) + (if q then 1 else 0)
  done := true
}
probability P: eventually n == 1`, "4/9", "4/9"},
		{"assume excludes a zero-rate answer", `
var x: 0..3
var done: bool
agent v(): 0..3 assume result > 0
rate v { 0: 0/1; 1: 1/2; 2: 1/2 }
action a when not done { x := ask v(); done := true }
probability P: eventually x == 2`, "1/2", "1/2"},
		{"a deadlock is absorbing", `
var x: 0..2
agent c(): bool
rate c { true: 1/2; false: 1/2 }
action a when x == 0 { let h = ask c(); x := if h then 1 else 2 }
probability P: eventually x == 1`, "1/2", "1/2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := spec.ParseFile("t.wrap", []byte("spec T\n"+tt.src+"\n"), spec.Options{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := quant.Check(context.Background(), m, quant.Options{})
			if err != nil {
				t.Fatal(err)
			}
			r := res.Queries[0]
			if got := r.Min.RatString(); got != tt.min {
				t.Errorf("min = %s, want %s", got, tt.min)
			}
			if got := r.Max.RatString(); got != tt.max {
				t.Errorf("max = %s, want %s", got, tt.max)
			}
		})
	}
}

// TestRateFailures checks the errors of specs whose rates cannot be
// followed.
func TestRateFailures(t *testing.T) {
	for _, tt := range []struct{ name, src, want string }{
		{"two rates apply", `
var done: bool
agent v(d: 0..2): bool
rate v when d < 2 { true: 1/2; false: 1/2 }
rate v when d > 0 { true: 1/3; false: 2/3 }
action a when not done { done := ask v(1) }
probability P: eventually done`, "two rates of agent v apply"},
		{"assume excludes a rated answer", `
var x: 0..3
agent v(): 0..3 assume result > 1
rate v { 1: 1/2; 2: 1/2 }
action a { x := ask v() }
probability P: eventually x == 2`, "answers 1 (1/2) cannot be given"},
		{"runtime error", `
var x: 0..3
agent c(): bool
rate c { true: 1/2; false: 1/2 }
action a { if ask_c() { x := x + 1 } }
probability P: eventually x == 2`, "runtime-error"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := strings.ReplaceAll(tt.src, "ask_c()", "c0")
			src = strings.ReplaceAll(src, "if c0 {", "let c0 = ask c()\n  if c0 {")
			m, err := spec.ParseFile("t.wrap", []byte("spec T\n"+src+"\n"), spec.Options{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = quant.Check(context.Background(), m, quant.Options{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// TestContext checks that a cancelled context stops the computation.
func TestContext(t *testing.T) {
	m, err := spec.ParseFile("t.wrap", []byte("spec T\nvar x: 0..3\naction a { x := (x + 1) % 4 }\nprobability P: eventually x == 3\n"), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := quant.Check(ctx, m, quant.Options{}); err != context.Canceled {
		t.Errorf("error %v, want context.Canceled", err)
	}
}

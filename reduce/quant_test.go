package reduce_test

import (
	"strings"
	"testing"

	"github.com/wrapcheck/wrapcheck/reduce"
	"github.com/wrapcheck/wrapcheck/spec"
)

const quantCoins = `spec Coins
type Run = symmetric 3
agent coin(p: Run): bool
rate coin { true: 1/2; false: 1/2 }
process run[x: Run] {
  var heads: 0..2
  action toss when heads < 2 {
    let h = ask coin(x)
    if h {
      heads := heads + 1
    }
  }
}
probability AllTwo: eventually forall x in Run: run[x].heads == 2
cost tosses { toss: 1 }
expected Tosses: tosses until forall x in Run: run[x].heads == 2
`

// TestForQuant checks which symmetric types the probability analysis may
// permute: all of them when the rates, costs and conditions treat the
// identities alike; none, with a note, when a condition names a single
// identity, when a rate's when does, or when a cost charges one instance
// of a family and not the others.
func TestForQuant(t *testing.T) {
	parse := func(t *testing.T) *spec.Model {
		m, err := spec.ParseFile("coins.wrap", []byte(quantCoins), spec.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	identity := func(m *spec.Model) *spec.Expr {
		run := m.Processes[m.Actions[0].Process].IndexType
		return &spec.Expr{Op: spec.OpConst, Type: run, Val: 1}
	}
	tests := []struct {
		name   string
		change func(m *spec.Model)
		note   string // "": the type is permuted
	}{
		{"alike", func(*spec.Model) {}, ""},
		{"query", func(m *spec.Model) { m.Queries[0].Right = identity(m) }, "symmetry over Run is off for the probabilities: probability AllTwo names single identities"},
		{"expectation", func(m *spec.Model) { m.Expectations[0].Target = identity(m) }, "expected Tosses names single identities"},
		{"rate", func(m *spec.Model) { m.Rates[0].When = identity(m) }, "the rate of coin at coins.wrap:4:1 names single identities"},
		{"cost", func(m *spec.Model) { m.Costs[0].Items[0].Actions = m.Costs[0].Items[0].Actions[:1] }, "cost tosses at coins.wrap:15:15 does not charge every identity alike"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := parse(t)
			tt.change(m)
			c, notes, err := reduce.ForQuant(m)
			if err != nil {
				t.Fatal(err)
			}
			if tt.note == "" {
				if c == nil || len(notes) > 0 {
					t.Errorf("canon %v, notes %q: want the whole group, no note", c, notes)
				}
				return
			}
			if c != nil || len(notes) != 1 || !strings.Contains(notes[0], tt.note) {
				t.Errorf("canon %v, notes %q: want none, and a note with %q", c, notes, tt.note)
			}
		})
	}
}

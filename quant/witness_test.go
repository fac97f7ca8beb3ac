package quant_test

import (
	"context"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/quant"
	"github.com/wrapcheck/wrapcheck/spec"
)

// checkPeer runs quant.Check on a peer model of bench/prism.
func checkPeer(t *testing.T, name string, opts quant.Options) (*spec.Model, *quant.Result) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "bench", "prism", name+".wrap"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := spec.ParseFile(name+".wrap", src, spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := quant.Check(context.Background(), m, opts)
	if err != nil {
		t.Fatal(err)
	}
	return m, res
}

// witnessLines renders a witness compactly: per step, the action, the
// state, the answers and the probability; per strategy row, the step,
// the action, the scheduler's decisions and the number of choices.
func witnessLines(m *spec.Model, w *quant.Witness) []string {
	out := []string{"path " + w.Prob.RatString()}
	for _, s := range w.Steps {
		act := "init"
		if s.Action >= 0 {
			act = m.Actions[s.Action].Name
		}
		var asked []string
		for _, a := range s.Asked {
			asked = append(asked, fmt.Sprintf("%s=%v", m.Agents[a.Agent].Name, a.Value))
		}
		out = append(out, fmt.Sprintf("%s %v [%s] %s", act, s.State, strings.Join(asked, " "), s.Prob.RatString()))
	}
	for _, r := range w.Strategy {
		var ds []string
		for _, d := range r.Decisions {
			ds = append(ds, fmt.Sprintf("%d=%v", d.Agent, d.Value))
		}
		out = append(out, fmt.Sprintf("row %d %s [%s] of %d", r.Step, m.Actions[r.Action].Name, strings.Join(ds, " "), r.Choices))
	}
	return out
}

// TestWitness checks witnesses worked out by hand.
//
// Knuth and Yao's die (state s, d): a 6 comes from s = 0 → 2 → 6 → 7 by
// three tails (1/8), or after returning from 6 to 2 (less probable). The
// most probable path to d == 6 is the first, whatever the strategy (one
// action).
//
// The gambler (money 2 of 4, a coin of 1/3, a bold or timid stake): P_max
// of Rich is 1/3, attained by betting boldly at 2 (stake 2: 4 with
// probability 1/3 at once); P_min is 1/5, attained timidly (stake 1):
// the most probable path is 2 → 3 → 4 (1/9), and at 3 both moods stake
// 1, one choice. Within 3 steps the same choices are optimal.
//
// Two dice interleaved: P(sum 7) is 1/6 for every scheduler; the most
// probable path throws die 0 first (the first choice, on ties) to 6 by
// three tails, then die 1 to 1 by heads, heads, tails: 1/64.
func TestWitness(t *testing.T) {
	richMin := []string{
		"path 1/9",
		"init [2] [] 1",
		"bet [3] [mood=[1] coin=[1]] 1/3",
		"bet [4] [mood=[0] coin=[1]] 1/3",
		"row 0 bet [1=[1]] of 2",
		"row 1 bet [1=[0]] of 1",
	}
	tests := []struct {
		peer, query string
		max         bool
		want        []string
	}{
		{"knuth_yao", "Six", true, []string{
			"path 1/8",
			"init [0 0] [] 1",
			"toss [2 0] [coin=[0]] 1/2",
			"toss [6 0] [coin=[0]] 1/2",
			"toss [7 6] [coin=[0]] 1/2",
			"row 0 toss [] of 1",
			"row 1 toss [] of 1",
			"row 2 toss [] of 1",
		}},
		{"gambler", "Rich", true, []string{
			"path 1/3",
			"init [2] [] 1",
			"bet [4] [mood=[0] coin=[1]] 1/3",
			"row 0 bet [1=[0]] of 2",
		}},
		{"gambler", "Rich", false, richMin},
		{"gambler", "RichSoon", false, richMin},
		{"two_dice", "Seven", false, []string{
			"path 1/64",
			"init [0 0 0 0] [] 1",
			"die[0].toss [2 0 0 0] [coin=[0]] 1/2",
			"die[0].toss [6 0 0 0] [coin=[0]] 1/2",
			"die[0].toss [7 0 6 0] [coin=[0]] 1/2",
			"die[1].toss [7 1 6 0] [coin=[1]] 1/2",
			"die[1].toss [7 3 6 0] [coin=[1]] 1/2",
			"die[1].toss [7 7 6 1] [coin=[0]] 1/2",
			"row 0 die[0].toss [] of 2",
			"row 1 die[0].toss [] of 2",
			"row 2 die[0].toss [] of 2",
			"row 3 die[1].toss [] of 1",
			"row 4 die[1].toss [] of 1",
			"row 5 die[1].toss [] of 1",
		}},
	}
	for _, tt := range tests {
		for _, interval := range []bool{false, true} {
			if interval && tt.query == "RichSoon" {
				continue // a bounded query is solved exactly
			}
			t.Run(fmt.Sprintf("%s/%s/max=%v/interval=%v", tt.peer, tt.query, tt.max, interval), func(t *testing.T) {
				testWitness(t, tt.peer, tt.query, tt.max, interval, tt.want)
			})
		}
	}
}

// testWitness checks the witness of the min or max of query of a peer
// model against want; with interval, of the value computed by interval
// iteration (the strategy its bounds pick, whose own bounds must then
// enclose the exact value: the strategy is optimal on these models).
func testWitness(t *testing.T, peer, query string, max, interval bool, want []string) {
	{
		{
			m, res := checkPeer(t, peer, quant.Options{Witness: true, Only: []string{query}, Interval: interval})
			q := res.Queries[0]
			w, bounds := q.MinWitness, q.MinBounds
			if max {
				w, bounds = q.MaxWitness, q.MaxBounds
			}
			if w == nil {
				t.Fatal("no witness")
			}
			if diff := cmp.Diff(want, witnessLines(m, w)); diff != "" {
				t.Errorf("witness (-want +got):\n%s", diff)
			}
			if interval {
				_, exact := checkPeer(t, peer, quant.Options{Only: []string{query}})
				v := exact.Queries[0].Min
				if max {
					v = exact.Queries[0].Max
				}
				if bounds == nil || w.Bounds == nil || ratOutside(v, *w.Bounds) || ratOutside(v, *bounds) {
					t.Fatalf("the value's bounds %v, the strategy's %v, the exact value %s", bounds, w.Bounds, v.RatString())
				}
				return
			}
			// The path's probability is the product of its steps', and
			// no more than the value.
			prod := w.Steps[0].Prob
			for _, s := range w.Steps[1:] {
				prod = prod.Mul(prod, s.Prob)
			}
			v := q.Min
			if max {
				v = q.Max
			}
			if prod.Cmp(w.Prob) != 0 || w.Prob.Cmp(v) > 0 {
				t.Errorf("path probability %s, product of the steps %s, value %s", w.Prob.RatString(), prod.RatString(), v.RatString())
			}
		}
	}
}

// ratOutside reports whether r lies outside the interval iv.
func ratOutside(r *big.Rat, iv quant.Interval) bool {
	return new(big.Rat).SetFloat64(iv.Lo).Cmp(r) > 0 || new(big.Rat).SetFloat64(iv.Hi).Cmp(r) < 0
}

// TestWitnessNoPath checks that a value of 0 gives a witness without a
// path: two dice, P_min(first die shows 6 before the second finishes) is
// 0 (throw the second die first).
func TestWitnessNoPath(t *testing.T) {
	_, res := checkPeer(t, "two_dice", quant.Options{Witness: true, Only: []string{"FirstSix"}})
	q := res.Queries[0]
	if q.Min.Sign() != 0 || q.MinWitness == nil || q.MinWitness.Steps != nil || q.MinWitness.Prob.Sign() != 0 {
		t.Errorf("min %v, witness %+v: want 0 and no path", q.Min, q.MinWitness)
	}
	if q.MaxWitness == nil || len(q.MaxWitness.Steps) == 0 {
		t.Errorf("max witness %+v: want a path", q.MaxWitness)
	}
}

// TestWitnessCost checks the witnesses of expected costs on the gambler
// with a cost per bet: the fewest bets (E_min = 1) come from betting
// boldly at 2 (all or nothing: ruin with 2/3 is the most probable path),
// the most (E_max = 18/5, the timid gambler's expected duration from 2 of
// 4 with a coin of 1/3: 2/(1/3) - 4/(1/3)·(1-2^2)/(1-2^4)) from betting
// timidly, whose most probable path to the end is two losses (4/9).
func TestWitnessCost(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "bench", "prism", "gambler.wrap"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(src) + "\ncost bets {\n  bet: 1\n}\nexpected Bets: bets until (money == 0 or money == 4)\n"
	m, err := spec.ParseFile("gambler.wrap", []byte(s), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := quant.Check(context.Background(), m, quant.Options{Witness: true, Only: []string{"Bets"}})
	if err != nil {
		t.Fatal(err)
	}
	e := res.Expectations[0]
	if e.Min.Cmp(big.NewRat(1, 1)) != 0 || e.Max.Cmp(big.NewRat(18, 5)) != 0 {
		t.Fatalf("E = %v..%v, want 1..18/5", e.Min, e.Max)
	}
	for _, c := range []struct {
		w    *quant.Witness
		want []string
	}{
		{e.MinWitness, []string{"path 2/3", "init [2] [] 1", "bet [0] [mood=[0] coin=[0]] 2/3", "row 0 bet [1=[0]] of 2"}},
		{e.MaxWitness, []string{"path 4/9", "init [2] [] 1", "bet [1] [mood=[1] coin=[0]] 2/3", "bet [0] [mood=[0] coin=[0]] 2/3", "row 0 bet [1=[1]] of 2", "row 1 bet [1=[0]] of 1"}},
	} {
		if c.w == nil {
			t.Fatal("no witness")
		}
		if diff := cmp.Diff(c.want, witnessLines(m, c.w)); diff != "" {
			t.Errorf("witness (-want +got):\n%s", diff)
		}
	}
}

package ltl

import (
	"context"
	"errors"
	"math/rand"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestDOT(t *testing.T) {
	p, q := Atom(0), Atom(1)
	got := Translate(Not(LeadsTo(p, q))).DOT()
	want := `strict digraph {
	"q0" -> "q0" [ label="true",  weight=0 ];
	"q0" -> "q1" [ label="p0 && !p1 {0}",  weight=0 ];
	"q0" [ label="0", shape="circle", tooltip="F (G !p1 && p0)",  weight=0 ];
	"q1" -> "q1" [ label="!p1 {0}",  weight=0 ];
	"q1" [ label="1", shape="circle", tooltip="G !p1",  weight=0 ];
	"start" -> "q0" [  weight=0 ];
	"start" [ shape="point", style="invis",  weight=0 ];
}
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DOT (-want +got):\n%s", diff)
	}
}

func TestTranslateSizes(t *testing.T) {
	p, q := Atom(0), Atom(1)
	tests := []struct {
		name                string
		f                   *Formula
		states, edges, accs int
	}{
		{"G p", Always(p), 1, 1, 0},
		{"F p", Eventually(p), 2, 3, 1},
		{"G F p", Always(Eventually(p)), 1, 2, 1},
		{"F G p", Eventually(Always(p)), 2, 3, 1},
		{"G(p -> F q)", LeadsTo(p, q), 2, 5, 1},
		{"!G(p -> F q)", Not(LeadsTo(p, q)), 2, 3, 1},
		{"GF p -> GF q", Implies(Always(Eventually(p)), Always(Eventually(q))), 4, 9, 2},
		{"false", And(p, Not(p)), 1, 0, 0},
		{"true", Or(p, Not(p)), 1, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := Translate(tt.f)
			got := []int{len(a.States), a.NumEdges(), a.NumAcc}
			if diff := cmp.Diff([]int{tt.states, tt.edges, tt.accs}, got); diff != "" {
				t.Errorf("states, edges, acceptance sets (-want +got):\n%s\n%s", diff, a)
			}
		})
	}
}

// TestTranslateNormalized compares the translation with the normalization
// of the covers' next obligations against the one without it (plain), on
// random formulas: the automata must accept the same lasso words (all
// words over the formula's atoms with |prefix| <= 2 and |loop| <= 3, and
// the semantics oracle agrees), and the normalized one must be no larger.
func TestTranslateNormalized(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	words := map[int][][2][][]bool{2: allWords(2, 2, 3), 3: allWords(3, 1, 2)}
	const numFormulas = 400
	same, smaller := 0, 0
	for k := 0; k < numFormulas; k++ {
		atoms := 2 + rng.Intn(2)
		r := randFormula(rng, atoms, 1+rng.Intn(5))
		f := r.formula()
		plain, err := translate(f, newBudget(context.Background(), 0), true)
		if err != nil {
			t.Fatalf("%s: plain: %v", r, err)
		}
		norm, err := translate(f, newBudget(context.Background(), 0), false)
		if err != nil {
			t.Fatalf("%s: normalized: %v", r, err)
		}
		switch {
		case norm.String() == plain.String():
			same++
		case len(norm.States) > len(plain.States) || len(norm.States) == len(plain.States) && norm.NumEdges() > plain.NumEdges():
			t.Errorf("%s: the normalized automaton is larger:\n%s\nplain:\n%s", r, norm, plain)
		default:
			smaller++
		}
		for _, w := range words[atoms] {
			want := r.holds(w[0], w[1])
			if got := norm.AcceptsLasso(w[0], w[1]); got != want {
				t.Fatalf("%s on %s: normalized accepts = %v, oracle %v\n%s", r, wordString(w[0], w[1]), got, want, norm)
			}
			if got := plain.AcceptsLasso(w[0], w[1]); got != want {
				t.Fatalf("%s on %s: plain accepts = %v, oracle %v\n%s", r, wordString(w[0], w[1]), got, want, plain)
			}
		}
	}
	t.Logf("%d formulas: %d identical automata, %d smaller", numFormulas, same, smaller)
}

// TestTranslateLimits checks that translations stop at the deadline and
// at the memory budget, and that the until chains whose automaton has n+1
// states translate in polynomial time (the covers of ¬p0 R (¬p1 R …)
// once doubled with each level).
func TestTranslateLimits(t *testing.T) {
	chain := func(n int) *Formula {
		f := Atom(n)
		for i := n - 1; i >= 0; i-- {
			f = Until(Atom(i), f)
		}
		return f
	}
	manyF := func(n int) *Formula { // F p0 ∧ … ∧ F p(n-1): 2^n states
		var fs []*Formula
		for i := 0; i < n; i++ {
			fs = append(fs, Eventually(Atom(i)))
		}
		return And(fs...)
	}
	tests := []struct {
		name    string
		f       *Formula
		timeout time.Duration
		budget  int64
		states  int   // when err is nil
		err     error // errors.Is
	}{
		{"U chain 30", chain(30), 20 * time.Second, 0, 31, nil},
		{"not U chain 30", Not(chain(30)), 20 * time.Second, 0, 31, nil},
		{"not U chain 60", Not(chain(60)), 20 * time.Second, 0, 61, nil},
		{"64 F timeout", manyF(64), 200 * time.Millisecond, 0, 0, context.DeadlineExceeded},
		{"64 F memory", manyF(64), time.Minute, 1, 0, ErrMemoryBudget}, // any heap is over 1 byte
		{"65 F", manyF(65), time.Minute, 0, 0, ErrTooManyEventualities},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), tt.timeout)
			defer cancel()
			start := time.Now()
			a, err := TranslateContext(ctx, tt.f, tt.budget)
			took := time.Since(start)
			if !errors.Is(err, tt.err) {
				t.Fatalf("err = %v, want %v (after %v)", err, tt.err, took)
			}
			if err != nil {
				if tt.err == context.DeadlineExceeded && took > tt.timeout+time.Second {
					t.Errorf("stopped %v after the deadline", took-tt.timeout)
				}
				return
			}
			if len(a.States) != tt.states {
				t.Errorf("%d states, want %d", len(a.States), tt.states)
			}
		})
	}
}

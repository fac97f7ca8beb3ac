package ltl

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// rf is a raw LTL formula of the tests, evaluated directly by the lasso
// semantics oracle, independently of the package's NNF and simplifier.
type rf struct {
	op   string // t f p ! & | i e X F G U R W L
	atom int
	a, b *rf
}

func (r *rf) String() string {
	switch r.op {
	case "t", "f":
		return r.op
	case "p":
		return fmt.Sprintf("p%d", r.atom)
	case "!", "X", "F", "G":
		return r.op + " " + r.a.String()
	}
	return fmt.Sprintf("(%s %s %s)", r.a, r.op, r.b)
}

// lbt prints r in LBT prefix syntax.
func (r *rf) lbt() string {
	switch r.op {
	case "p":
		return fmt.Sprintf("p%d", r.atom)
	case "t", "f":
		return r.op
	case "!", "X", "F", "G":
		return r.op + " " + r.a.lbt()
	case "&", "|", "i", "e", "U":
		return r.op + " " + r.a.lbt() + " " + r.b.lbt()
	case "R":
		return "V " + r.a.lbt() + " " + r.b.lbt()
	case "W": // a W b = (a U b) | G a
		return "| U " + r.a.lbt() + " " + r.b.lbt() + " G " + r.a.lbt()
	case "L": // a ~> b = G(a -> F b)
		return "G i " + r.a.lbt() + " F " + r.b.lbt()
	}
	panic(r.op)
}

// formula converts r with the package's constructors.
func (r *rf) formula() *Formula {
	switch r.op {
	case "t":
		return True()
	case "f":
		return False()
	case "p":
		return Atom(r.atom)
	case "!":
		return Not(r.a.formula())
	case "X":
		return Next(r.a.formula())
	case "F":
		return Eventually(r.a.formula())
	case "G":
		return Always(r.a.formula())
	}
	a, b := r.a.formula(), r.b.formula()
	switch r.op {
	case "&":
		return And(a, b)
	case "|":
		return Or(a, b)
	case "i":
		return Implies(a, b)
	case "e":
		return Equiv(a, b)
	case "U":
		return Until(a, b)
	case "R":
		return Release(a, b)
	case "W":
		return WeakUntil(a, b)
	case "L":
		return LeadsTo(a, b)
	}
	panic(r.op)
}

// eval returns the truth value of r at every position of the lasso word
// word[0..n), where position n-1 is followed by position loop. Until is a
// least and release a greatest fixpoint over the finite positions.
func (r *rf) eval(word [][]bool, loop int) []bool {
	n := len(word)
	succ := lassoSucc(n, loop)
	out := make([]bool, n)
	switch r.op {
	case "t":
		for i := range out {
			out[i] = true
		}
		return out
	case "f":
		return out
	case "p":
		for i := range out {
			out[i] = word[i][r.atom]
		}
		return out
	}
	a := r.a.eval(word, loop)
	var b []bool
	if r.b != nil {
		b = r.b.eval(word, loop)
	}
	fix := func(init bool, step func(i int, cur []bool) bool) []bool {
		return lassoFix(out, init, func(i int) bool { return step(i, out) })
	}
	switch r.op {
	case "!":
		for i := range out {
			out[i] = !a[i]
		}
	case "&", "|", "i", "e":
		for i := range out {
			switch r.op {
			case "&":
				out[i] = a[i] && b[i]
			case "|":
				out[i] = a[i] || b[i]
			case "i":
				out[i] = !a[i] || b[i]
			case "e":
				out[i] = a[i] == b[i]
			}
		}
	case "X":
		for i := range out {
			out[i] = a[succ(i)]
		}
	case "F":
		return fix(false, func(i int, cur []bool) bool { return a[i] || cur[succ(i)] })
	case "G":
		return fix(true, func(i int, cur []bool) bool { return a[i] && cur[succ(i)] })
	case "U":
		return fix(false, func(i int, cur []bool) bool { return b[i] || a[i] && cur[succ(i)] })
	case "R":
		return fix(true, func(i int, cur []bool) bool { return b[i] && (a[i] || cur[succ(i)]) })
	case "W":
		return fix(true, func(i int, cur []bool) bool { return b[i] || a[i] && cur[succ(i)] })
	case "L":
		// G(a -> F b): F b is a least fixpoint, then G a greatest one.
		fb := make([]bool, n)
		for changed := true; changed; {
			changed = false
			for i := n - 1; i >= 0; i-- {
				if v := b[i] || fb[succ(i)]; v != fb[i] {
					fb[i], changed = v, true
				}
			}
		}
		return fix(true, func(i int, cur []bool) bool { return (!a[i] || fb[i]) && cur[succ(i)] })
	default:
		panic(r.op)
	}
	return out
}

// lassoSucc returns the successor of each position of a lasso of n
// positions whose last one steps back to loop.
func lassoSucc(n, loop int) func(int) int {
	return func(i int) int {
		if i+1 < n {
			return i + 1
		}
		return loop
	}
}

// lassoFix sets out to init and applies step at every position, from the
// last to the first, until nothing changes: the fixpoint of an until
// (init false) or release (init true) over a lasso.
func lassoFix(out []bool, init bool, step func(i int) bool) []bool {
	for i := range out {
		out[i] = init
	}
	for changed := true; changed; {
		changed = false
		for i := len(out) - 1; i >= 0; i-- {
			if v := step(i); v != out[i] {
				out[i], changed = v, true
			}
		}
	}
	return out
}

// holds reports whether r holds on prefix·loop^ω.
func (r *rf) holds(prefix, loop [][]bool) bool {
	word := append(append([][]bool{}, prefix...), loop...)
	return r.eval(word, len(prefix))[0]
}

var (
	unaryOps  = []string{"!", "X", "F", "G"}
	binaryOps = []string{"&", "|", "i", "e", "U", "R", "W", "L"}
)

func randFormula(rng *rand.Rand, atoms, depth int) *rf {
	if depth == 0 || rng.Intn(5) == 0 {
		switch rng.Intn(12) {
		case 0:
			return &rf{op: "t"}
		case 1:
			return &rf{op: "f"}
		}
		return &rf{op: "p", atom: rng.Intn(atoms)}
	}
	if rng.Intn(3) == 0 {
		return &rf{op: unaryOps[rng.Intn(len(unaryOps))], a: randFormula(rng, atoms, depth-1)}
	}
	return &rf{op: binaryOps[rng.Intn(len(binaryOps))], a: randFormula(rng, atoms, depth-1), b: randFormula(rng, atoms, depth-1)}
}

func randWord(rng *rand.Rand, atoms int) (prefix, loop [][]bool) {
	letter := func() []bool {
		l := make([]bool, atoms)
		for i := range l {
			l[i] = rng.Intn(2) == 0
		}
		return l
	}
	for i := rng.Intn(4); i > 0; i-- {
		prefix = append(prefix, letter())
	}
	for i := 1 + rng.Intn(4); i > 0; i-- {
		loop = append(loop, letter())
	}
	return prefix, loop
}

func wordString(prefix, loop [][]bool) string {
	l := func(w [][]bool) string {
		var parts []string
		for _, x := range w {
			var s []string
			for i, v := range x {
				if v {
					s = append(s, fmt.Sprintf("p%d", i))
				}
			}
			parts = append(parts, "{"+strings.Join(s, ",")+"}")
		}
		return strings.Join(parts, " ")
	}
	return l(prefix) + " (" + l(loop) + ")^w"
}

// allWords returns every lasso word over atoms with |prefix| <= maxPrefix
// and 1 <= |loop| <= maxLoop.
func allWords(atoms, maxPrefix, maxLoop int) [][2][][]bool {
	letters := make([][]bool, 1<<uint(atoms))
	for m := range letters {
		letters[m] = make([]bool, atoms)
		for i := 0; i < atoms; i++ {
			letters[m][i] = m&(1<<uint(i)) != 0
		}
	}
	var seqs func(n int) [][][]bool
	seqs = func(n int) [][][]bool {
		if n == 0 {
			return [][][]bool{nil}
		}
		var out [][][]bool
		for _, s := range seqs(n - 1) {
			for _, l := range letters {
				out = append(out, append(append([][]bool{}, s...), l))
			}
		}
		return out
	}
	var out [][2][][]bool
	for p := 0; p <= maxPrefix; p++ {
		for q := 1; q <= maxLoop; q++ {
			for _, u := range seqs(p) {
				for _, v := range seqs(q) {
					out = append(out, [2][][]bool{u, v})
				}
			}
		}
	}
	return out
}

// TestLassoOracle checks, for random formulas and random lasso words, that
// the automaton of a formula accepts a word exactly when the formula holds
// on it, and that the simplified NNF formula is equivalent to the raw one.
func TestLassoOracle(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	const numFormulas, wordsPer = 1500, 24
	disagree, checked, states, edges := 0, 0, 0, 0
	for k := 0; k < numFormulas; k++ {
		atoms := 2 + rng.Intn(2)
		r := randFormula(rng, atoms, 1+rng.Intn(4))
		f := r.formula()
		a := Translate(f)
		if a == nil {
			t.Fatalf("%s: no automaton", r)
		}
		states += len(a.States)
		edges += a.NumEdges()
		if b := Translate(f); b.String() != a.String() || b.DOT() != a.DOT() {
			t.Errorf("%s: translation is not deterministic:\n%s\n%s", f, a, b)
		}
		for w := 0; w < wordsPer; w++ {
			u, v := randWord(rng, atoms)
			want := r.holds(u, v)
			checked++
			if got := a.AcceptsLasso(u, v); got != want {
				disagree++
				if disagree <= 5 {
					t.Errorf("formula %s (nnf %s) on %s: automaton accepts = %v, formula holds = %v\n%s",
						r, f, wordString(u, v), got, want, a)
				}
			}
		}
	}
	if disagree > 0 {
		t.Errorf("%d disagreements on %d (formula, word) pairs", disagree, checked)
	}
	t.Logf("%d formulas, %d words, %d disagreements; mean automaton %.2f states, %.2f edges",
		numFormulas, checked, disagree, float64(states)/numFormulas, float64(edges)/numFormulas)
}

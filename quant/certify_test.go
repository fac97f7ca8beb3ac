package quant

import (
	"context"
	"math"
	"math/big"
	"math/rand"
	"testing"
)

// TestCertify runs the certified solver (certify.go) on every
// component of random MDPs, random Markov chains and Haddad-Monmege
// walks with a scheduler, bottom up, as interval iteration does, and
// compares the bounds right after each certificate with the exact
// values of policy iteration over big.Rat: every bound must enclose the
// exact value. It fails too if the certificates pass on fewer than 9 in
// 10 components with a cycle (the solver would then be useless), and it
// checks that guesses moved past the exact value in one state, which no
// sound certificate can pass, are rejected.
func TestCertify(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewSource(36))
	var tally certifyTally
	for i := 0; i < 300; i++ {
		var m *MDP
		var left, target []bool
		switch i % 3 {
		case 0:
			m, left, target = certifyRandom(r, 3)
		case 1:
			m, left, target = certifyRandom(r, 1) // a Markov chain
		default:
			m, left, target = haddadWalk(r, 40)
		}
		for _, max := range []bool{true, false} {
			exact, err := Reach(ctx, m, left, target, max, -1, Options{})
			if err != nil {
				t.Fatal(err)
			}
			lo, hi, set, err := intervalStart(ctx, m, left, target, max)
			if err != nil {
				t.Fatal(err)
			}
			tally.each(t, newIterator(m, set, max), lo, hi, exact, r)
		}
	}
	tally.report(t)
}

// A certifyTally counts the components with a cycle that
// certifyTally.each saw, those certified and the wrong guesses
// rejected.
type certifyTally struct{ comps, passed, rejected int }

// each certifies the components of it in turn, bottom up, checks that
// the bounds enclose the exact values (an upper end +Inf, for expected
// costs, stands for none), tries wrong guesses on those certified
// (rejectWrong), then sweeps the component until its bounds are tight,
// as the later components need.
func (ct *certifyTally) each(t *testing.T, it *iterator, lo, hi []float64, exact []*big.Rat, r *rand.Rand) {
	t.Helper()
	ctx := context.Background()
	for k := 0; k+1 < len(it.comps); k++ {
		a, b := int(it.comps[k]), int(it.comps[k+1])
		cyclic := b-a > 1 || it.selfLoop(a)
		ok := it.certify(ctx, a, b, lo, hi)
		if cyclic {
			ct.comps++
			if ok {
				ct.passed++
			}
		}
		for _, s := range it.states[a:b] {
			l := new(big.Rat).SetFloat64(lo[s])
			if l.Cmp(exact[s]) > 0 || !math.IsInf(hi[s], 1) && new(big.Rat).SetFloat64(hi[s]).Cmp(exact[s]) < 0 {
				t.Fatalf("max=%v state %d: certified [%g, %g] misses %s", it.max, s, lo[s], hi[s], exact[s].FloatString(20))
			}
		}
		if ok {
			ct.rejected += rejectWrong(t, it, a, b, lo, hi, exact, r)
		}
		for sweep := 0; sweep < 5000; sweep++ {
			var changed, wide bool
			if it.cLo != nil {
				changed, wide = it.sweepCost(a, b, lo, hi, 0)
			} else {
				changed, wide = it.sweep(a, b, lo, hi, 0)
			}
			if !changed || !wide {
				break
			}
		}
	}
}

// report fails the test unless nine components with a cycle in ten
// were certified and some wrong guess was tried.
func (ct *certifyTally) report(t *testing.T) {
	t.Helper()
	comps, passed, rejected := ct.comps, ct.passed, ct.rejected
	if passed*10 < comps*9 {
		t.Errorf("certified %d of %d components with a cycle, want 9 in 10", passed, comps)
	}
	if rejected == 0 {
		t.Errorf("no wrong guess tried")
	}
	t.Logf("certified %d of %d components with a cycle; %d wrong guesses rejected", passed, comps, rejected)
}

// rejectWrong moves the bounds of one state of the component states[a:b]
// past its exact value (below it for the upper bound, above for the
// lower) by 1e-9 or to the nearest float64 past it, and checks that the
// certificate rejects both guesses. It returns the number of guesses
// tried.
func rejectWrong(t *testing.T, it *iterator, a, b int, lo, hi []float64, exact []*big.Rat, r *rand.Rand) int {
	t.Helper()
	c := it.local(a, b)
	if c == nil {
		t.Fatal("no band")
	}
	i := r.Intn(b - a)
	s := it.states[a+i]
	sigma, ok := c.attractor()
	if !ok {
		t.Fatal("no attractor")
	}
	tried := 0
	ex := exact[s]
	// upper: below the exact value
	u := make([]float64, b-a)
	for j := range u {
		u[j] = hi[it.states[a+j]]
	}
	u[i] = math.Min(ratDown(ex)-1e-9*r.Float64(), math.Nextafter(ratDown(ex), -1))
	if u[i] >= 0 {
		tried++
		if c.check(u, hi, true, nil) {
			t.Fatalf("state %d: the upper guess %g below %s passed", s, u[i], ex.FloatString(20))
		}
		if !it.max && c.check(u, hi, true, sigma) {
			t.Fatalf("state %d: the upper guess %g below %s passed for a policy", s, u[i], ex.FloatString(20))
		}
	}
	// lower: above the exact value
	l := make([]float64, b-a)
	for j := range l {
		l[j] = lo[it.states[a+j]]
	}
	l[i] = math.Max(ratUp(ex)+1e-9*r.Float64(), math.Nextafter(ratUp(ex), 2))
	if l[i] <= 1 || it.cLo != nil {
		tried++
		if !it.max && c.check(l, lo, false, nil) {
			t.Fatalf("state %d: the lower guess %g above %s passed", s, l[i], ex.FloatString(20))
		}
		if it.max && c.proper(sigma) && c.check(l, lo, false, sigma) {
			t.Fatalf("state %d: the lower guess %g above %s passed for a policy", s, l[i], ex.FloatString(20))
		}
	}
	// NaN compares false with everything: a guess with one must fail
	u[i] = math.NaN()
	tried++
	if c.commit(u, hi, true, nil) {
		t.Fatalf("state %d: an upper guess with NaN passed", s)
	}
	return tried
}

// TestCertifyImproper checks that a policy that never leaves an end
// component is not proper (every constant is a fixed point of its
// B_sigma, yet Pmax is 1/2), and that the lower bound is certified for
// the policy that leaves. States 0 and 1 move to each
// other (choice 0) and 0 may instead move to the target 2 or the sink 3
// with probability 1/2 each.
func TestCertifyImproper(t *testing.T) {
	half := big.NewRat(1, 2)
	one := big.NewRat(1, 1)
	m := &MDP{Choices: [][]Dist{
		{{{To: 1, Prob: one}}, {{To: 2, Prob: half}, {To: 3, Prob: half}}},
		{{{To: 0, Prob: one}}},
		{{{To: 2, Prob: one}}},
		{{{To: 3, Prob: one}}},
	}}
	target := []bool{false, false, true, false}
	lo, hi, set, err := intervalStart(context.Background(), m, nil, target, true)
	if err != nil {
		t.Fatal(err)
	}
	it := newIterator(m, set, true)
	c := it.local(int(it.comps[0]), int(it.comps[1]))
	if c.proper([]int32{0, 0}) {
		t.Fatal("the loop between 0 and 1 is proper")
	}
	if !c.proper([]int32{1, 0}) {
		t.Fatal("leaving from 0 is not proper")
	}
	it.certify(context.Background(), 0, 2, lo, hi)
	for s := 0; s < 2; s++ {
		if !(lo[s] > 0.49 && lo[s] <= 0.5) {
			t.Errorf("state %d: lower bound %g, want just below 1/2 (certified for the policy that leaves)", s, lo[s])
		}
	}
}

// certifyRandom is a random MDP of 5 to 60 states, 1 to choices choices
// each, whose moves favour a neighbour (long cycles, a walk), with
// weights 1 to 9.
func certifyRandom(r *rand.Rand, choices int) (*MDP, []bool, []bool) {
	n := 5 + r.Intn(56)
	m := &MDP{Choices: make([][]Dist, n)}
	for s := range m.Choices {
		for c := 1 + r.Intn(choices); c > 0; c-- {
			w := map[int]int64{}
			total := int64(0)
			for k := 1 + r.Intn(4); k > 0; k-- {
				to := r.Intn(n)
				if r.Intn(2) == 0 {
					to = (s + 1 + r.Intn(2)*(n-2)) % n // s+1 or s-1
				}
				x := 1 + r.Int63n(9)
				w[to] += x
				total += x
			}
			var d Dist
			for to := 0; to < n; to++ {
				if x, ok := w[to]; ok {
					d = append(d, Trans{To: to, Prob: big.NewRat(x, total)})
				}
			}
			m.Choices[s] = append(m.Choices[s], d)
		}
	}
	left := make([]bool, n)
	target := make([]bool, n)
	for s := 0; s < n; s++ {
		left[s] = r.Intn(10) > 0
		target[s] = r.Intn(8) == 0
	}
	return m, left, target
}

// HaddadWalk is haddadWalk, for the tests of package quant_test.
var HaddadWalk = haddadWalk

// haddadWalk is bench/prism/haddad_monmege.pm with N from 2 to maxN and
// p in [6/10, 9/10], x = ±N the ends, x = N the target, and at some
// states a second choice that moves one step outwards for sure: value
// iteration's successive sweeps differ by little long before they are
// near the value.
func haddadWalk(r *rand.Rand, maxN int) (*MDP, []bool, []bool) {
	N := 2 + r.Intn(maxN-1)
	p := big.NewRat(int64(6+r.Intn(4)), 10)
	q := new(big.Rat).Sub(big.NewRat(1, 1), p)
	n := 2*N + 1
	id := func(x int) int { return x + N }
	m := &MDP{Choices: make([][]Dist, n)}
	for x := -N; x <= N; x++ {
		s := id(x)
		switch {
		case x == 0:
			m.Choices[s] = append(m.Choices[s], Dist{{To: id(-1), Prob: big.NewRat(1, 2)}, {To: id(1), Prob: big.NewRat(1, 2)}})
		case x == N || x == -N:
			m.Choices[s] = append(m.Choices[s], Dist{{To: s, Prob: big.NewRat(1, 1)}})
			continue
		case x > 0:
			m.Choices[s] = append(m.Choices[s], Dist{{To: id(x - 1), Prob: p}, {To: id(x + 1), Prob: q}})
		default:
			m.Choices[s] = append(m.Choices[s], Dist{{To: id(x - 1), Prob: q}, {To: id(x + 1), Prob: p}})
		}
		if r.Intn(4) == 0 {
			out := id(x + 1)
			if x < 0 {
				out = id(x - 1)
			}
			m.Choices[s] = append(m.Choices[s], Dist{{To: out, Prob: big.NewRat(1, 1)}})
		}
	}
	left := make([]bool, n)
	target := make([]bool, n)
	for s := range left {
		left[s] = true
	}
	target[id(N)] = true
	return m, left, target
}

// TestCertifyCost is TestCertify for expected costs: on random walks
// with costs (zero on a third of the choices), the bounds that
// certify passes on each component of the quotient of
// [ExpectCostInterval] must enclose ExpectCost's exact values, nine
// components with a cycle in ten must be certified, and guesses moved
// past the exact value of one state (rejectWrong) must be rejected.
func TestCertifyCost(t *testing.T) {
	r := rand.New(rand.NewSource(3637))
	var tally certifyTally
	for i := 0; i < 200; i++ {
		m, _, target := certifyRandom(r, 1+i%3)
		cost := randomCost(m, func() int64 { return r.Int63n(3) * r.Int63n(1000) })
		for _, max := range []bool{true, false} {
			it, lo, hi, exact := costSetup(t, m, cost, target, max)
			tally.each(t, it, lo, hi, exact, r)
		}
	}
	tally.report(t)
}

// TestCostZeroLoop: state 0 may loop at no cost or move to the target
// at cost 5; the least expected cost over the schedulers that reach the
// target is 5. Without the collapse of the loop's end component, the
// lower bound iterated from 0 stays 0 (0 is the least fixed point of
// the Bellman operator, which counts the loop as a scheduler of cost
// 0); on the quotient interval iteration gives [5, 5], and the
// candidate 4 fails the upper check.
func TestCostZeroLoop(t *testing.T) {
	one := big.NewRat(1, 1)
	m := &MDP{Choices: [][]Dist{
		{{{To: 0, Prob: one}}, {{To: 1, Prob: one}}},
		{{{To: 1, Prob: one}}},
	}}
	costs := [][]*big.Rat{{new(big.Rat), big.NewRat(5, 1)}, {new(big.Rat)}}
	cost := func(s, c int) *big.Rat { return costs[s][c] }
	target := []bool{false, true}
	set := []bool{true, false}
	finite := []bool{true, true}
	lo, hi := []float64{0, 0}, []float64{math.Inf(1), 0}
	whole := buildIterator(m, set, false, costs)
	for i := 0; i < 100; i++ {
		whole.sweepCost(0, 1, lo, hi, 0)
	}
	if lo[0] != 0 {
		t.Fatalf("without the collapse the lower bound is %g: the test shows nothing", lo[0])
	}
	q, qc, _, qset := costQuotient(m, cost, set, finite, false)
	it := buildIterator(q, qset, false, qc)
	if len(q.Choices[0]) != 1 {
		t.Fatalf("the quotient's state 0 has %d choices, want 1 (the loop dropped)", len(q.Choices[0]))
	}
	if it.local(0, 1).check([]float64{4}, hi, true, []int32{0}) {
		t.Fatal("the candidate 4 passed the upper check")
	}
	iv, err := ExpectCostInterval(context.Background(), m, cost, target, false, 1e-9, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if iv[0].Lo > 5 || iv[0].Hi < 5 || iv[0].Hi-iv[0].Lo > 1e-9 {
		t.Fatalf("state 0: [%g, %g], want about [5, 5]", iv[0].Lo, iv[0].Hi)
	}
}

// randomCost returns costs for m's choices, each draw() (not negative).
func randomCost(m *MDP, draw func() int64) func(s, c int) *big.Rat {
	costs := make([][]*big.Rat, m.N())
	for s := range costs {
		for range m.Choices[s] {
			costs[s] = append(costs[s], big.NewRat(draw(), 1))
		}
	}
	return func(s, c int) *big.Rat { return costs[s][c] }
}

// costSetup returns, as ExpectCostInterval sets them up, the iterator of
// the quotient and the first bounds, and ExpectCost's exact values.
func costSetup(t *testing.T, m *MDP, cost func(s, c int) *big.Rat, target []bool, max bool) (*iterator, []float64, []float64, []*big.Rat) {
	t.Helper()
	ctx := context.Background()
	exact, err := ExpectCost(ctx, m, cost, target, max, Options{})
	if err != nil {
		t.Fatal(err)
	}
	finite, err := costFinite(ctx, m, target, max)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi, set := costStart(target, finite)
	q, qc, _, qset := costQuotient(m, cost, set, finite, max)
	return buildIterator(q, qset, max, qc), lo, hi, exact
}

// TestGuessCost checks the upper bounds that guessCost derives from
// converged lower bounds (the fallback where the certificate fails) on
// random walks with positive costs: each must enclose the exact value
// (ExpectCost's), and most components must get one.
func TestGuessCost(t *testing.T) {
	r := rand.New(rand.NewSource(3638))
	comps, passed := 0, 0
	for i := 0; i < 100; i++ {
		m, _, target := certifyRandom(r, 1+i%3)
		cost := randomCost(m, func() int64 { return 1 + r.Int63n(9) })
		for _, max := range []bool{true, false} {
			it, lo, hi, exact := costSetup(t, m, cost, target, max)
			for k := 0; k+1 < len(it.comps); k++ {
				a, b := int(it.comps[k]), int(it.comps[k+1])
				for sweep := 0; sweep < 100000; sweep++ {
					if changed, _ := it.sweepCost(a, b, lo, hi, 0); !changed {
						break
					}
				}
				if b-a == 1 && !it.selfLoop(a) {
					continue
				}
				comps++
				if it.guessCost(a, b, lo, hi) {
					passed++
				}
				for _, s := range it.states[a:b] {
					if !math.IsInf(hi[s], 1) && new(big.Rat).SetFloat64(hi[s]).Cmp(exact[s]) < 0 {
						t.Fatalf("case %d max=%v state %d: guessed upper bound %g below %s", i, max, s, hi[s], exact[s].FloatString(20))
					}
				}
				if math.IsInf(hi[it.states[a]], 1) {
					break // the later components need this one's bounds
				}
			}
		}
	}
	if passed*10 < comps*9 {
		t.Errorf("guessed %d of %d components with a cycle, want 9 in 10", passed, comps)
	}
	t.Logf("guessed %d of %d components with a cycle", passed, comps)
}

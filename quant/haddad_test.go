package quant_test

import (
	"context"
	"errors"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/quant"
	"github.com/wrapcheck/wrapcheck/spec"
)

// TestHaddadMonmege shows on bench/prism/haddad_monmege.wrap why plain
// value iteration is never used: stopped when two sweeps differ by less
// than 1e-6 (PRISM's default criterion), it answers about 0 where the
// probability is 1/2. Exact mode gives 1/2 (TestPeerValues), and the
// bounds of interval iteration contain 1/2 wherever they stop.
func TestHaddadMonmege(t *testing.T) {
	path := filepath.Join("..", "bench", "prism", "haddad_monmege.wrap")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := spec.ParseFile(path, src, spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := machine.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	mdp, states, err := quant.Build(context.Background(), m, p, quant.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mach := p.NewMachine()
	pr, err := p.CompileExpr(m.Queries[0].Right)
	if err != nil {
		t.Fatal(err)
	}
	target := make([]bool, len(states))
	for s, vec := range states {
		v, err := mach.Eval(pr, vec)
		if err != nil {
			t.Fatal(err)
		}
		target[s] = v != 0
	}
	init := mdp.Init[0][0].To
	// Plain value iteration (Jacobi) from 0, stopped by the threshold.
	v := make([]float64, mdp.N())
	for s := range v {
		if target[s] {
			v[s] = 1
		}
	}
	sweeps := 0
	for ; sweeps < 1000000; sweeps++ {
		next := make([]float64, len(v))
		delta := 0.0
		for s := range v {
			if target[s] {
				next[s] = 1
				continue
			}
			for _, tr := range mdp.Choices[s][0] {
				pf, _ := tr.Prob.Float64()
				next[s] += pf * v[tr.To]
			}
			delta = math.Max(delta, next[s]-v[s])
		}
		v = next
		if delta < 1e-6 {
			break
		}
	}
	if v[init] > 0.01 {
		t.Errorf("value iteration stopped at %g after %d sweeps: the model no longer defeats it", v[init], sweeps)
	}
	iv, err := quant.ReachInterval(context.Background(), mdp, nil, target, true, 1e-6, 20000)
	if err != nil {
		t.Fatal(err)
	}
	if b := iv[init]; !(b.Lo <= 0.5 && b.Hi >= 0.5) {
		t.Errorf("interval iteration [%g, %g] misses 1/2", b.Lo, b.Hi)
	}
	t.Logf("value iteration: %g after %d sweeps; interval iteration after 20000 sweeps: [%g, %g]", v[init], sweeps, iv[init].Lo, iv[init].Hi)
}

// TestCoinCertified checks the consensus coin (bench/prism/coin.wrap)
// at K = 20 and 50, by interval iteration (--interval), against PRISM 4.10's exact
// values (prism coin.pm coin.props -explicit -exact, with coin.pm's K
// replaced, on Pmin and Pmax of F "finished" & coin0=0 & coin1=0 and
// Pmax of F "finished" & coin0!=coin1): every interval must enclose
// them and be at most 1e-6 wide within 1000 sweeps a component, which
// interval iteration alone does not reach on the counter's random walk
// (1 - c/K^2 a sweep; docs/design/quantitative.md) and the certified
// solver does.
func TestCoinCertified(t *testing.T) {
	for _, tt := range []struct {
		k                      int64
		minZero, maxZero, disa string
	}{
		{20, "8576190696653/17592186044416", "41/81", "219902325551/17592186044400"},
		{50, "5019896376903788429926944693289/10141204801825835211973625643008", "101/201", "50706024009129176059868128213/10141204801825835211973625643000"},
	} {
		m := coinModel(t, tt.k)
		res, err := quant.Check(context.Background(), m, quant.Options{Only: []string{"AllZero", "Disagree"}, Interval: true, MaxIter: 1000})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name  string
			iv    *quant.Interval
			exact string
		}{
			{"Pmin(AllZero)", res.Queries[0].MinBounds, tt.minZero},
			{"Pmax(AllZero)", res.Queries[0].MaxBounds, tt.maxZero},
			{"Pmax(Disagree)", res.Queries[1].MaxBounds, tt.disa},
		} {
			if c.iv == nil {
				t.Fatalf("K=%d %s: no interval (exact mode?)", tt.k, c.name)
			}
			ex, _ := new(big.Rat).SetString(c.exact)
			lo, hi := new(big.Rat).SetFloat64(c.iv.Lo), new(big.Rat).SetFloat64(c.iv.Hi)
			if lo.Cmp(ex) > 0 || hi.Cmp(ex) < 0 {
				t.Errorf("K=%d %s: [%v, %v] misses PRISM's %s", tt.k, c.name, c.iv.Lo, c.iv.Hi, c.exact)
			}
			if c.iv.Hi-c.iv.Lo > 1e-6 {
				t.Errorf("K=%d %s: [%v, %v] wider than 1e-6", tt.k, c.name, c.iv.Lo, c.iv.Hi)
			}
		}
	}
}

// coinModel is bench/prism/coin.wrap with K = k.
func coinModel(t *testing.T, k int64) *spec.Model {
	t.Helper()
	path := filepath.Join("..", "bench", "prism", "coin.wrap")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := spec.ParseFile(path, src, spec.Options{Defines: map[string]int64{"K": k}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCoinCostCertified compares the expected number of steps of the
// consensus coin (bench/prism/coin.wrap's Steps) past exact mode (K = 20:
// 2,576 states; K = 50: 6,416), by interval iteration and the certified
// bounds for costs, with PRISM 4.10's answers to R{"steps"}min=? [ F
// "finished" ] and R{"steps"}max=? [ F "finished" ] under -exact on
// bench/prism/coin.pm with K replaced (K = 50's max: PRISM gave no
// answer in 300 s): each interval must enclose PRISM's value and be at
// most 10^-6 of it wide.
func TestCoinCostCertified(t *testing.T) {
	for _, tt := range []struct {
		k        int64
		min, max string // "" where PRISM gave none
	}{
		{20, "4800", "5043"},
		{50, "30000", ""},
	} {
		m := coinModel(t, tt.k)
		res, err := quant.Check(context.Background(), m, quant.Options{Only: []string{"Steps"}})
		if err != nil {
			t.Fatal(err)
		}
		e := res.Expectations[0]
		for _, c := range []struct {
			name  string
			iv    *quant.Interval
			prism string
		}{{"Emin", e.MinBounds, tt.min}, {"Emax", e.MaxBounds, tt.max}} {
			if c.iv == nil {
				t.Fatalf("K=%d %s: no interval (exact mode?)", tt.k, c.name)
			}
			if c.iv.Hi-c.iv.Lo > 1e-6*c.iv.Lo {
				t.Errorf("K=%d %s: [%v, %v] wider than 10^-6 of its value", tt.k, c.name, c.iv.Lo, c.iv.Hi)
			}
			if c.prism == "" {
				continue
			}
			ex, _ := new(big.Rat).SetString(c.prism)
			lo, hi := new(big.Rat).SetFloat64(c.iv.Lo), new(big.Rat).SetFloat64(c.iv.Hi)
			if lo.Cmp(ex) > 0 || hi.Cmp(ex) < 0 {
				t.Errorf("K=%d %s: [%v, %v] misses PRISM's %s", tt.k, c.name, c.iv.Lo, c.iv.Hi, c.prism)
			}
		}
	}
}

// TestCheckStopped checks that a context that ends during interval
// iteration gives the bounds reached, on bench/prism/haddad_monmege.wrap
// at N = 60 (some (7/3)^60 steps to an end: too many for interval
// iteration to narrow its bounds and, float64 failing on the walk's
// linear systems, for the certified solver): Check returns the context's error
// with a Result marked Stopped whose first query holds bounds, marked
// Stopped too, that enclose the exact value.
func TestCheckStopped(t *testing.T) {
	path := filepath.Join("..", "bench", "prism", "haddad_monmege.wrap")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := spec.ParseFile(path, src, spec.Options{Defines: map[string]int64{"N": 60}})
	if err != nil {
		t.Fatal(err)
	}
	exact, err := quant.Check(context.Background(), m, quant.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	res, err := quant.Check(ctx, m, quant.Options{Interval: true})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Check: %v, want the deadline", err)
	}
	if res == nil || res.Stopped == nil || len(res.Queries) != 1 || !res.Queries[0].Stopped {
		t.Fatalf("Check: %+v, want a result stopped in its first query", res)
	}
	for _, c := range []struct {
		iv    *quant.Interval
		exact *big.Rat
	}{{res.Queries[0].MaxBounds, exact.Queries[0].Max}} {
		if c.iv == nil {
			t.Fatal("no bounds")
		}
		lo, hi := new(big.Rat).SetFloat64(c.iv.Lo), new(big.Rat).SetFloat64(c.iv.Hi)
		if lo.Cmp(c.exact) > 0 || hi.Cmp(c.exact) < 0 {
			t.Errorf("[%v, %v] misses %s", c.iv.Lo, c.iv.Hi, c.exact.FloatString(20))
		}
	}
}

package quant_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

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

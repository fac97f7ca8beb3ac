package ltl

import (
	"context"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wrapcheck/wrapcheck/internal/testenv"
	"github.com/wrapcheck/wrapcheck/spec"
)

// keyTabDiff compares the check of every property of m with the atom
// valuations taken from the table per key of the slots they read
// (valuation.keyTab) and with every state's atoms evaluated: verdicts,
// counts, lassos and traces byte for byte. It then checks, state by
// state, that each valuation the table gave is the one the machine
// computes, and reports whether a table was used.
func keyTabDiff(t *testing.T, name string, m *spec.Model, extra Options) (used bool) {
	t.Helper()
	plain := extra
	plain.noKeyTab = true
	if diff := cmp.Diff(checkAll(t, m, plain), checkAll(t, m, extra)); diff != "" {
		t.Errorf("%s: atoms evaluated per state and per key (-want +got):\n%s", name, diff)
	}
	for _, p := range m.Properties {
		o := extra
		o.Only = []string{p.Name}
		o.onProduct = func(pr *product) {
			if pr.keyTab == nil && pr.keyHits == 0 {
				return
			}
			used = used || pr.keyHits > 0
			for s := range min(pr.vals8.len(), int(pr.sys.len())) {
				got := pr.vals8.get(uint32(s))
				if got&valKnown == 0 {
					continue
				}
				want, err := pr.evalSmall(pr.sys.state(uint32(s)))
				if err != nil {
					t.Fatalf("%s: %s: state %d: %v", name, p.Name, s, err)
				}
				if got != want {
					t.Fatalf("%s: %s: state %d: valuation %#x from the key table, %#x evaluated", name, p.Name, s, got, want)
				}
			}
		}
		if _, err := Check(context.Background(), m, o); err != nil {
			t.Fatalf("%s: %s: %v", name, p.Name, err)
		}
	}
	return used
}

// TestKeyTabExamples compares the check with and without the key table
// on every example property; the pipeline's properties must use it.
func TestKeyTabExamples(t *testing.T) {
	used := 0
	for i, ex := range exampleProperties(t) {
		if testenv.Short(t) && i%3 != 0 {
			continue
		}
		if keyTabDiff(t, ex.file, ex.model, Options{MaxStates: 200000}) {
			used++
		}
	}
	if used == 0 {
		t.Error("no example took a valuation from the key table")
	}
}

// TestKeyTabRandom compares the check with and without the key table on
// random small systems and random temporal specs.
func TestKeyTabRandom(t *testing.T) {
	n, specs := 200, 24
	if testenv.Short(t) {
		n, specs = 60, 8
	}
	eachRandomSystem(t, n, 41, func(name string, m *spec.Model) { keyTabDiff(t, name, m, Options{}) })
	eachRandomSpec(specs, func(name string, m *spec.Model) { keyTabDiff(t, name, m, Options{}) })
}

// TestKeyTabDropped checks that a table that finds fewer valuations than
// it computes is dropped: on CoffeeCan every state has a key of its own.
func TestKeyTabDropped(t *testing.T) {
	m := coffeeCanModel(t, 200)
	var pr *product
	if _, err := Check(context.Background(), m, Options{onProduct: func(p *product) { pr = p }}); err != nil {
		t.Fatal(err)
	}
	if pr.keyTab != nil || pr.keyFills < keyTabTrial {
		t.Errorf("CoffeeCan MAX=200: key table kept (%d bytes) after %d valuations computed, %d found", len(pr.keyTab), pr.keyFills, pr.keyHits)
	}
}

// coffeeCanModel returns testdata/coffeecan.wrap with MAX = max.
func coffeeCanModel(t *testing.T, max int64) *spec.Model {
	t.Helper()
	src, err := os.ReadFile("testdata/coffeecan.wrap")
	if err != nil {
		t.Fatal(err)
	}
	m, err := spec.ParseFile("coffeecan.wrap", src, spec.Options{Defines: map[string]int64{"MAX": max}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

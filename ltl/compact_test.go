package ltl

import (
	"context"
	"errors"
	"fmt"
	mathrand "math/rand"
	"math/rand/v2"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wrapcheck/wrapcheck/internal/gen"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// compactNoteRe matches the note of the hash-compacted property searches
// in checkAll's rendering.
var compactNoteRe = regexp.MustCompile(` ?"hash compaction: the property searches kept \d+ system states[^"]*"`)

// compactDiff compares the check of every property of m on its own with
// full state vectors and with hash compaction, in every mode of
// filterModes (every reduction, early cycle searches): verdicts, counts,
// notes (less the compaction's), lassos byte for byte. The compacted
// check must add its note.
func compactDiff(t *testing.T, name string, m *spec.Model, extra Options) {
	t.Helper()
	for _, mode := range filterModes {
		opts := mode.opts
		opts.MaxStates = extra.MaxStates
		want := checkAll(t, m, opts)
		opts.HashCompact = true
		got := checkAll(t, m, opts)
		if n := len(compactNoteRe.FindAllString(got, -1)); n != len(m.Properties) {
			t.Errorf("%s, %s: %d compaction notes for %d properties:\n%s", name, mode.name, n, len(m.Properties), got)
		}
		if diff := cmp.Diff(want, compactNoteRe.ReplaceAllString(got, "")); diff != "" {
			t.Errorf("%s, %s: full vectors and hash compaction (-want +got):\n%s", name, mode.name, diff)
		}
	}
}

// TestCompactRandomSystems compares the check with full vectors and with
// hash compaction on random small systems with random formulas and weak
// and strong fairness.
func TestCompactRandomSystems(t *testing.T) {
	n := 300
	if testenv.Short(t) {
		n = 80
	}
	eachRandomSystem(t, n, 17, func(name string, m *spec.Model) { compactDiff(t, name, m, Options{}) })
}

// TestCompactRandomSpecs compares the check with full vectors and with
// hash compaction on the random temporal specs (processes, weak and
// strong fairness, symmetric types, agents) in every reduction mode.
func TestCompactRandomSpecs(t *testing.T) {
	n := 24
	if testenv.Short(t) {
		n = 8
	}
	eachRandomSpec(n, func(name string, m *spec.Model) { compactDiff(t, name, m, Options{}) })
}

// TestCompactExamples compares the check with full vectors and with hash
// compaction on every example property, and the check of all properties
// of an example at once (each property then explores a system of its
// own): the same verdict and violation.
func TestCompactExamples(t *testing.T) {
	for i, ex := range exampleProperties(t) {
		if testenv.Short(t) && i%3 != 0 {
			continue // the quick form: a third of the examples
		}
		compactDiff(t, ex.file, ex.model, Options{MaxStates: 200000})
		for _, mode := range reductionModes {
			opts := mode.opts
			opts.MaxStates = 200000
			want, err := Check(context.Background(), ex.model, opts)
			if err != nil {
				t.Fatal(err)
			}
			opts.HashCompact = true
			got, err := Check(context.Background(), ex.model, opts)
			if err != nil {
				t.Fatal(err)
			}
			type outcome struct {
				Verdict   verdict.Verdict
				Stop      verdict.StopReason
				Violation *verdict.Violation
			}
			if diff := cmp.Diff(outcome{want.Verdict, want.Stop, want.Violation}, outcome{got.Verdict, got.Stop, got.Violation}); diff != "" {
				t.Errorf("%s, %s, all properties: full vectors and hash compaction (-want +got):\n%s", ex.file, mode.name, diff)
			}
		}
	}
}

// TestCompactCollisions runs the hash-compacted check with fingerprints
// cut to 1 bit (random systems) and 4 bits (random specs), so that most
// states collide: a violation it reports is
// still one of the system (the lasso is checked on the states computed
// again, else the check fails with the collision error), and the product
// it explores is smaller than the full one on some systems (the test can
// fail).
func TestCompactCollisions(t *testing.T) {
	n := 300
	if testenv.Short(t) {
		n = 100
	}
	lost, caught, violated := 0, 0, 0
	check := func(name string, m *spec.Model, mask uint64) {
		for _, mode := range filterModes {
			for _, p := range m.Properties {
				opts := mode.opts
				opts.Only = []string{p.Name}
				var full, cut PropertyStats
				opts.OnProperty = func(s PropertyStats) { full = s }
				want, err := Check(context.Background(), m, opts)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				opts.HashCompact, opts.fpMask = true, mask
				opts.OnProperty = func(s PropertyStats) { cut = s }
				got, err := Check(context.Background(), m, opts)
				switch {
				case errors.Is(err, errCollision):
					caught++
					continue
				case err != nil:
					t.Fatalf("%s, %s, %s: %v", name, mode.name, p.Name, err)
				}
				if cut.ProductNodes < full.ProductNodes {
					lost++
				}
				if got.Verdict == verdict.Violated {
					violated++
					if want.Verdict != verdict.Violated {
						t.Fatalf("%s, %s, %s: violated with colliding fingerprints, %s with full vectors:\n%+v", name, mode.name, p.Name, want.Verdict, got.Violation)
					}
				}
			}
		}
	}
	rng := mathrand.New(mathrand.NewSource(23))
	for r := range n {
		k := randSystem(rng)
		check(fmt.Sprint("system ", r, ": ", k), k.model(), 1)
	}
	for seed := range n / 10 {
		src := gen.Generate(rand.New(rand.NewPCG(uint64(seed), 11)), gen.Config{Shape: gen.Temporal}).Source
		m, err := spec.ParseFile("s.wrap", []byte(src), spec.Options{})
		if err != nil || len(m.Properties) == 0 {
			continue
		}
		check(fmt.Sprint("spec seed ", seed), m, 15)
	}
	if lost == 0 || violated == 0 {
		t.Errorf("%d checks lost nodes, %d found violations: both must occur", lost, violated)
	}
	t.Logf("colliding fingerprints: %d checks lost product nodes, %d violations found, %d lassos rejected", lost, violated, caught)
}

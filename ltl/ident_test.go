package ltl

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wrapcheck/wrapcheck/internal/testenv"
	"github.com/wrapcheck/wrapcheck/spec"
)

// identCount counts the products of an automaton of one state by how
// their node index ended: stayed, with node s that of system state s
// (product.ident), and left, with the dense index made at the first node
// that broke it.
type identCount struct{ stayed, left int }

// checkTogether checks every property of m in one call, so that the
// properties of one system key share its system (the second product of a
// system then finds states the first stored, in the first's order), and
// returns the result and the properties' statistics as text (seconds and
// bytes left out: the dense index is the one difference allowed). With
// n set, it counts the one-state products by how they ended.
func checkTogether(t *testing.T, m *spec.Model, opts Options, n *identCount) string {
	t.Helper()
	var sts []PropertyStats
	opts.OnProperty = func(s PropertyStats) {
		s.Seconds, s.Bytes = 0, 0
		sts = append(sts, s)
	}
	if n != nil {
		opts.onProduct = func(pr *product) {
			switch {
			case !pr.oneQ || !pr.denseIndex():
			case pr.ident:
				n.stayed++
			default:
				n.left++
			}
		}
	}
	res, err := Check(context.Background(), m, opts)
	if err != nil {
		return fmt.Sprint("error ", err)
	}
	res.Stats.Seconds = 0
	return fmt.Sprintf("%v %v %+v %q\n%+v\n%+v\n", res.Verdict, res.Stop, res.Stats, res.Notes, res.Violation, sts)
}

// identDiff compares the check of the properties of m, all in one call,
// with the dense index kept for every product and with it left out where
// product.ident holds: verdicts, counts, lassos and traces byte for byte.
func identDiff(t *testing.T, name string, m *spec.Model, extra Options, n *identCount) {
	t.Helper()
	plain := extra
	plain.noIdent = true
	if diff := cmp.Diff(checkTogether(t, m, plain, nil), checkTogether(t, m, extra, n)); diff != "" {
		t.Errorf("%s: the dense index kept and left out (-want +got):\n%s", name, diff)
	}
}

// TestIdentExamples compares the check with and without the dense index
// of a one-state automaton on every example, all its properties in one
// call; among them, some products must keep node s for state s to the end
// and some must give it up (a product after the first of its system).
func TestIdentExamples(t *testing.T) {
	var n identCount
	for i, ex := range exampleProperties(t) {
		if testenv.Short(t) && i%3 != 0 {
			continue
		}
		identDiff(t, ex.file, ex.model, Options{MaxStates: 200000}, &n)
		identDiff(t, ex.file+" (filter off)", ex.model, Options{MaxStates: 200000, filter: filterOff}, nil)
	}
	t.Logf("ident: %+v", n)
	if n.stayed == 0 || n.left == 0 {
		t.Errorf("one-state products: %d kept node s for state s, %d gave it up; want some of each", n.stayed, n.left)
	}
}

// TestIdentRandom compares the check with and without the dense index of
// a one-state automaton on random small systems, also with early
// checkpoints, with the successor lists computed again instead of kept
// (a memory budget's) and under hash compaction, and on random temporal
// specs, also with the reductions.
func TestIdentRandom(t *testing.T) {
	n, specs := 300, 40
	if testenv.Short(t) {
		n, specs = 80, 12
	}
	var c identCount
	eachRandomSystem(t, n, 43, func(name string, m *spec.Model) {
		identDiff(t, name, m, Options{}, &c)
		identDiff(t, name+" (first check 1)", m, Options{firstCheck: 1}, nil)
		identDiff(t, name+" (lists computed again)", m, Options{recompute: true}, nil)
		identDiff(t, name+" (hash compaction)", m, Options{HashCompact: true}, nil)
	})
	eachRandomSpec(specs, func(name string, m *spec.Model) {
		identDiff(t, name, m, Options{MaxStates: 100000}, &c)
		identDiff(t, name+" (reduced)", m, Options{MaxStates: 100000, Symmetry: true, POR: true}, nil)
	})
	t.Logf("ident: %+v", c)
	if c.stayed == 0 {
		t.Error("no one-state product kept node s for state s")
	}
}

// TestNodeQ8 compares the check with the nodes' automaton states in a
// byte (product.q8, an automaton of 2 to 255 states) and in two bytes
// (nodeQ, the larger automata's), on every example and on random
// systems and temporal specs: verdicts, counts, lassos and traces byte
// for byte. Some products must have taken the byte.
func TestNodeQ8(t *testing.T) {
	n, specs := 150, 30
	if testenv.Short(t) {
		n, specs = 40, 10
	}
	q8, q16 := 0, 0
	count := func(opts Options) Options {
		opts.onProduct = func(pr *product) {
			switch {
			case pr.q8 && len(pr.nodeQ8) == pr.nodeN && pr.nodeN > 0:
				q8++
			case !pr.oneQ && len(pr.nodeQ) == pr.nodeN && pr.nodeN > 0:
				q16++
			}
		}
		return opts
	}
	diff := func(name string, m *spec.Model, opts Options) {
		wide := opts
		wide.wideQ = true
		if d := cmp.Diff(checkTogether(t, m, count(wide), nil), checkTogether(t, m, count(opts), nil)); d != "" {
			t.Errorf("%s: the automaton states in two bytes and in one (-want +got):\n%s", name, d)
		}
	}
	for i, ex := range exampleProperties(t) {
		if testenv.Short(t) && i%3 != 0 {
			continue
		}
		diff(ex.file, ex.model, Options{MaxStates: 200000})
	}
	eachRandomSystem(t, n, 47, func(name string, m *spec.Model) {
		diff(name, m, Options{})
		diff(name+" (hash compaction)", m, Options{HashCompact: true})
	})
	eachRandomSpec(specs, func(name string, m *spec.Model) {
		diff(name, m, Options{MaxStates: 100000})
		diff(name+" (reduced)", m, Options{MaxStates: 100000, Symmetry: true, POR: true})
	})
	t.Logf("products: %d with a byte a node's automaton state, %d with two", q8, q16)
	if q8 == 0 || q16 == 0 {
		t.Errorf("%d products kept their nodes' automaton states in a byte, %d in two; want some of each", q8, q16)
	}
}

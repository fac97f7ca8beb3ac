package ltl

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wrapcheck/wrapcheck/internal/testenv"
	"github.com/wrapcheck/wrapcheck/spec"
)

// batchModes are the option sets the batch differential tests run with
// and without the successors computed ahead: the default, early cycle
// searches (checkpoints inside a batch), the successor lists computed
// again, and small node limits (a stop inside a batch).
var batchModes = []struct {
	name string
	opts Options
}{
	{"plain", Options{}},
	{"early", Options{firstCheck: 1}},
	{"recompute", Options{recompute: true}},
	{"filter", Options{filter: filterOn}},
	{"max3", Options{MaxStates: 3}},
	{"max40", Options{MaxStates: 40, firstCheck: 5}},
}

// batchDiff compares the check of every property of m on its own with
// the system states expanded one at a time and with their successors
// computed ahead in batches (batch.go): verdicts, stop reasons, counts,
// lassos and traces byte for byte.
func batchDiff(t *testing.T, name string, m *spec.Model, extra Options) {
	t.Helper()
	for _, mode := range batchModes {
		opts := mode.opts
		if extra.MaxStates > 0 && opts.MaxStates == 0 {
			opts.MaxStates = extra.MaxStates
		}
		old := opts
		old.noBatch = true
		if diff := cmp.Diff(checkAll(t, m, old), checkAll(t, m, opts)); diff != "" {
			t.Errorf("%s, %s: one state at a time and batched (-want +got):\n%s", name, mode.name, diff)
		}
	}
}

// TestBatchRandomSystems compares the check with and without the batches
// on random small systems with random formulas and weak and strong
// fairness.
func TestBatchRandomSystems(t *testing.T) {
	n := 300
	if testenv.Short(t) {
		n = 80
	}
	eachRandomSystem(t, n, 23, func(name string, m *spec.Model) { batchDiff(t, name, m, Options{}) })
}

// TestBatchRandomSpecs compares the check with and without the batches on
// the random temporal specs (processes, fairness, agents).
func TestBatchRandomSpecs(t *testing.T) {
	n := 24
	if testenv.Short(t) {
		n = 8
	}
	eachRandomSpec(n, func(name string, m *spec.Model) { batchDiff(t, name, m, Options{}) })
}

// TestBatchExamples compares the check with and without the batches on
// every example property.
func TestBatchExamples(t *testing.T) {
	for i, ex := range exampleProperties(t) {
		if testenv.Short(t) && i%3 != 0 {
			continue // the quick form: a third of the examples
		}
		batchDiff(t, ex.file, ex.model, Options{MaxStates: 200000})
	}
}

// TestBatchFailures compares the check with and without the batches where
// the computation ahead meets a failure: an action's (some of its
// branches made successors before it, which the store gets either way),
// an atom's, and the stutter step's past-time monitors.
func TestBatchFailures(t *testing.T) {
	for _, tc := range []struct{ name, src string }{
		{"action", `spec Overflow
var x: 0..2
var y: 0..1
action inc when y == 0 { x := x + 1 }
action flip { y := 1 - y }
property Flips: always eventually y == 1
`},
		{"branch", `spec Branch
var x: 0..4
var y: 0..1
action step { choose v in 0..2 { x := x + v } }
action flip { y := 1 - y }
property P: always eventually y == 1
property Q: eventually x == 4
`},
		{"atom", `spec Atom
var x: 0..3
action inc when x < 3 { x := x + 1 }
action back when x > 0 { x := x - 1 }
property P: always eventually 6 / (2 - x) >= 0
`},
		{"stutter", `spec PastStutter
var x: 0..3
action a when x < 3 { x := x + 1 }
terminal x == 3
property P: eventually (x == 3 and previously x == 3)
property Q: always (x < 3 or previously x < 3)
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := spec.ParseFile(tc.name+".wrap", []byte(tc.src), spec.Options{})
			if err != nil {
				t.Fatal(err)
			}
			batchDiff(t, tc.name, m, Options{})
		})
	}
}

package oracle

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/wrapcheck/wrapcheck/internal/golden"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
	"github.com/wrapcheck/wrapcheck/verify"
)

// maxStates bounds the oracle's search: a spec with more reachable
// states is skipped (with a log line). Every example fits (the largest,
// pipeline/release_after_outage.wrap, has 151,265 states without
// reductions); the peers at their benchmark sizes, with their -D values,
// would not, and TestExampleDefines leaves them out.
const maxStates = 300_000

// outcome is what the oracle and the engine are compared on.
type outcome struct {
	Verdict     string
	States      int64
	Transitions int64
	Depth       int
	Kind        string
	Name        string
	Trace       []Step // a failing step's state is not compared (nil)
}

func oracleOutcome(m *spec.Model, r *Result) outcome {
	o := outcome{Verdict: "holds", States: r.States, Transitions: r.Transitions, Depth: r.Depth}
	if v := r.Violation; v != nil {
		o.Verdict, o.Kind, o.Name = "violated", v.Kind, v.Name
		o.Trace = append([]Step(nil), v.Trace...)
	}
	return o.hideFailingState(m)
}

func engineOutcome(m *spec.Model, r *verdict.Result) outcome {
	o := outcome{Verdict: r.Verdict.String(), States: r.Stats.States, Transitions: r.Stats.Transitions, Depth: r.Stats.Depth}
	if v := r.Violation; v != nil {
		o.Kind, o.Name = v.Kind.String(), v.Name
		for _, s := range v.Trace {
			o.Trace = append(o.Trace, Step{Action: s.Action, State: s.State})
		}
	}
	return o.hideFailingState(m)
}

// hideFailingState drops the state of a failing step (an assertion or a
// runtime error in init or an action): how much of the step was done when
// it failed is not part of the language.
func (o outcome) hideFailingState(m *spec.Model) outcome {
	if o.Kind != "assertion" && o.Kind != "runtime-error" {
		return o
	}
	if o.Name == "terminal" {
		return o // evaluating the terminal condition of a stuck state failed: the state is that one
	}
	for _, inv := range m.Invariants {
		if inv.Name == o.Name {
			return o // a runtime error evaluating an invariant: the state is the bad one
		}
	}
	o.Trace[len(o.Trace)-1].State = nil
	return o
}

// compare checks m with the oracle and with the engine (no reductions, one
// worker: every figure must agree; default options: the verdict, the kind
// and the trace length must). It returns the oracle's result, nil when
// the spec is too big for it (or, with an error reported, when it fails).
func compare(t *testing.T, name string, m *spec.Model, opts Options) *Result {
	t.Helper()
	noDeadlock := opts.NoDeadlock
	or, err := Check(m, opts)
	if errors.Is(err, ErrTooBig) {
		t.Logf("%s: skipped: %v", name, err)
		return nil
	}
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return nil
	}
	want := oracleOutcome(m, or)
	ctx := context.Background()
	res, err := verify.Safety(ctx, m, verify.Options{Workers: 1, NoSymmetry: true, NoPOR: true, NoDeadlock: noDeadlock, Continue: true})
	if err != nil {
		t.Errorf("%s: engine: %v", name, err)
		return or
	}
	got := engineOutcome(m, res)
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("%s: no reductions (-oracle +engine):\n%s", name, diff)
		return or
	}
	res, err = verify.Safety(ctx, m, verify.Options{NoDeadlock: noDeadlock})
	if err != nil {
		t.Errorf("%s: engine, reductions on: %v", name, err)
		return or
	}
	red := engineOutcome(m, res)
	short := func(o outcome) outcome {
		return outcome{Verdict: o.Verdict, Kind: o.Kind, Depth: len(o.Trace)}
	}
	if diff := cmp.Diff(short(want), short(red)); diff != "" {
		t.Errorf("%s: default reductions (-oracle +engine; Depth is the trace length):\n%s", name, diff)
	}
	return or
}

// parse checks src with the given -D overrides; a spec the front end
// rejects is reported as nil.
func parse(name string, src []byte, defines map[string]int64) *spec.Model {
	m, err := spec.ParseFile(name, src, spec.Options{Defines: defines})
	if err != nil {
		return nil
	}
	return m
}

// TestExamples compares every example as it is (no -D), like the
// examples' goldens.
func TestExamples(t *testing.T) {
	paths, err := filepath.Glob("../../examples/*/*.wrap")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	n := 0
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		m := parse(p, src, nil)
		if m == nil {
			continue // rejected on purpose (EXPECTED.tsv says so)
		}
		if compare(t, p, m, Options{MaxStates: maxStates}) != nil {
			n++
		}
	}
	t.Logf("%d examples compared", n)
}

// maxDefinedTransitions bounds the -D rows of the expectation files that
// are compared: larger ones would take the oracle seconds each.
const maxDefinedTransitions = 20_000

// TestExampleDefines compares the examples with the -D overrides of
// examples/EXPECTED.tsv and testdata/COUNTS.tsv (each distinct
// file and defines once; rows of more than maxDefinedTransitions
// transitions are skipped). COUNTS.tsv's states and transitions come from
// other tools (closed forms, Rumur, SPIN, TLC): the oracle must match
// them too.
func TestExampleDefines(t *testing.T) {
	type key struct{ file, defines string }
	counts := map[key][2]int64{}
	var order []key
	for _, tsv := range []string{"../../testdata/COUNTS.tsv", "../../examples/EXPECTED.tsv"} {
		data, err := os.ReadFile(tsv)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			f := strings.Split(line, "\t")
			if strings.HasPrefix(line, "#") || len(f) < 4 || f[1] == "-" {
				continue
			}
			// COUNTS.tsv names files from the repository root,
			// EXPECTED.tsv from examples/.
			k := key{strings.TrimPrefix(f[0], "examples/"), f[1]}
			if _, dup := counts[k]; dup {
				continue
			}
			c := [2]int64{-1, -1}
			if strings.HasSuffix(tsv, "COUNTS.tsv") {
				c[0], _ = strconv.ParseInt(f[2], 10, 64)
				c[1], _ = strconv.ParseInt(f[3], 10, 64)
				if c[1] > maxDefinedTransitions {
					continue
				}
			}
			counts[k] = c
			order = append(order, k)
		}
	}
	n := 0
	for _, k := range order {
		src, err := os.ReadFile("../../examples/" + k.file)
		if err != nil {
			t.Fatal(err)
		}
		defines := map[string]int64{}
		for _, d := range strings.Fields(k.defines) {
			name, v, _ := strings.Cut(d, "=")
			defines[name], _ = strconv.ParseInt(v, 10, 64)
		}
		name := k.file + " " + k.defines
		m := parse(name, src, defines)
		if m == nil {
			continue // a rejected spec (EXPECTED.tsv says so)
		}
		or := compare(t, name, m, Options{MaxStates: maxDefinedTransitions})
		if or == nil {
			continue
		}
		n++
		if c := counts[k]; c[0] >= 0 && (or.States != c[0] || or.Transitions != c[1]) {
			t.Errorf("%s: oracle %d states, %d transitions; the peers %d, %d", name, or.States, or.Transitions, c[0], c[1])
		}
	}
	t.Logf("%d example configurations compared", n)
}

func TestCheckerFixtures(t *testing.T) {
	for _, p := range golden.Glob(t, "../../checker/testdata/*.txtar") {
		ar := golden.Load(t, p)
		options, _ := ar.Section("options")
		noDL := strings.Contains(string(options), "no-deadlock")
		if strings.Contains(string(options), "max-states") {
			continue // a limit test: the verdict is incomplete on purpose
		}
		m := parse(p, ar.Spec(t), ar.Defines(t))
		if m == nil {
			t.Errorf("%s: does not check", p)
			continue
		}
		compare(t, p, m, Options{NoDeadlock: noDL, MaxStates: maxStates})
	}
}

var wrapBlock = regexp.MustCompile("(?s)```wrap\n(.*?)```")

// TestDocSpecs compares every complete spec (a block that starts with a
// `spec` line) of the docs. The approval TOCTOU, the complete example of
// docs/language.md, must be there with the figures that page gives: 24
// states, 23 transitions, depth 5, and the trace approve, edit, release.
func TestDocSpecs(t *testing.T) {
	docs := []string{"../../docs/language.md", "../../docs/tutorial.md", "../../docs/patterns.md", "../../docs/safety-vs-liveness.md"}
	var names []string
	toctou := 0
	for _, d := range docs {
		data, err := os.ReadFile(d)
		if err != nil {
			t.Fatal(err)
		}
		for i, mt := range wrapBlock.FindAllStringSubmatch(string(data), -1) {
			src := mt[1]
			if !regexp.MustCompile(`(?m)^spec \w+`).MatchString(src) {
				continue
			}
			name := fmt.Sprintf("%s#%d", filepath.Base(d), i)
			m := parse(name, []byte(src), nil)
			if m == nil {
				t.Logf("%s: rejected by the front end", name)
				continue
			}
			or := compare(t, name, m, Options{MaxStates: maxStates})
			if or == nil {
				continue
			}
			names = append(names, name)
			if m.Name == "ApprovalTOCTOU" {
				toctou++
				var acts []string
				for _, st := range or.Violation.Trace[1:] {
					acts = append(acts, m.Actions[st.Action].Name)
				}
				got := fmt.Sprintf("%d %d %d %v", or.States, or.Transitions, or.Depth, acts)
				if want := "24 23 5 [approver.approve editor.edit releaser.release]"; got != want {
					t.Errorf("%s: oracle %s, docs/language.md says %s", name, got, want)
				}
			}
		}
	}
	if toctou == 0 {
		t.Errorf("no ApprovalTOCTOU spec in %v", docs)
	}
	t.Logf("%d doc specs compared: %s", len(names), strings.Join(names, ", "))
}

// TestArithmetic checks / and % on every pair of small integers, signs
// mixed, against Go's (truncation toward zero, and its remainder, as
// docs/language.md defines them): on constants (folded by the front end),
// on lets (evaluated by the engine) and under a one-value quantifier (which
// the engine unrolls and folds itself). Every assert must hold.
func TestArithmetic(t *testing.T) {
	var b strings.Builder
	b.WriteString("spec Arithmetic\nvar done: bool\naction check when not done {\n")
	n := 0
	for x := int64(-7); x <= 7; x++ {
		for y := int64(-4); y <= 4; y++ {
			if y == 0 {
				continue
			}
			q, r := x/y, x%y
			n++
			fmt.Fprintf(&b, "  assert (%d) / (%d) == %d and (%d) %% (%d) == %d \"planted: constants %d, %d\"\n", x, y, q, x, y, r, x, y)
			fmt.Fprintf(&b, "  let x%d = %d\n  let y%d = %d\n", n, x, n, y)
			fmt.Fprintf(&b, "  assert x%d / y%d == %d and x%d %% y%d == %d \"planted: lets %d, %d\"\n", n, n, q, n, n, r, x, y)
			fmt.Fprintf(&b, "  assert (forall k in %d..%d: k / (%d) == %d and k %% (%d) == %d) \"planted: unrolled %d, %d\"\n", x, x, y, q, y, r, x, y)
		}
	}
	b.WriteString("  done := true\n}\nterminal done\n")
	m, err := spec.ParseFile("arithmetic.wrap", []byte(b.String()), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if compare(t, "arithmetic", m, Options{MaxStates: maxStates}) == nil {
		t.Fatal("not compared")
	}
	res, err := verify.Safety(context.Background(), m, verify.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if v := res.Violation; v != nil {
		t.Errorf("%s: %s", v.Kind, v.Msg)
	}
}

// TestExact checks that the oracle evaluates integers exactly (it used
// to skip a spec whose intermediate results overflow int64), against the
// answers worked out by hand, and compares it with the engine.
func TestExact(t *testing.T) {
	tests := []struct {
		name, src string
		want      string // "holds" or the violation's kind
	}{
		{"u3", "spec U3\nvar a: -3..3 = 1\naction step { a := a }\n" +
			"invariant U3: a * 3000000000 * 4000000000 / 4000000000 == 3000000000\n", "holds"},
		{"sub", "spec S\nvar a: -3..3 = 1\naction step { a := a }\n" +
			"invariant I: -9223372036854775807 - 1 - a < 0\n", "holds"},
		{"pow64", "spec P\nvar a: -3..3 = 1\naction step { a := (a + 1) % 3 }\n" +
			"invariant I: a * 4294967296 * 4294967296 != 36893488147419103232\n", "invariant"},
		{"literal", "spec L\nconst BIG = 123456789012345678901234567890\nvar a: 0..3 = 1\naction step { a := (a + 1) % 4 }\n" +
			"invariant I: a * BIG / BIG == a and BIG - 3999999999 > BIG / 2\n", "holds"},
		{"stored", "spec T\nvar a: 0..3 = 1\naction step when a < 3 { a := a * 9223372036854775807 * 2 / 9223372036854775807 }\n" +
			"terminal a == 3\n", "runtime-error"},
		{"let", "spec L\nvar a: 0..3 = 1\naction step when a == 1 {\n  let x = a * 9223372036854775807 * 2\n  x := x * x\n  a := x / 9223372036854775807 / 9223372036854775807\n}\nterminal a == 4\n", "runtime-error"},
		{"letExact", "spec L\nvar a: 0..3 = 1\nfn f(x: 0..3): 0..3 = x * 9223372036854775807 * 2 / 9223372036854775807\naction step when a == 1 {\n  let x = a * 9223372036854775807 * 2\n  x := x * x\n  a := x / 9223372036854775807 / 9223372036854775807 - 1 + f(0)\n}\nterminal a == 3\n", "holds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := spec.ParseFile(tt.name+".wrap", []byte(tt.src), spec.Options{})
			if err != nil {
				t.Fatal(err)
			}
			or := compare(t, tt.name, m, Options{MaxStates: maxStates})
			if or == nil {
				t.Fatal("not compared")
			}
			got := "holds"
			if or.Violation != nil {
				got = or.Violation.Kind
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("verdict (-want +got):\n%s", diff)
			}
		})
	}
}

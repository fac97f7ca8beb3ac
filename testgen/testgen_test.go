package testgen_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/wrapcheck/wrapcheck/internal/golden"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/replay"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/testgen"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// TestGolden runs testgen on every testdata/*.txtar (the spec in
// `-- in.wrap --`) and compares the report (`-- out/report --`) and every
// file of every test (`-- out/t01/trace.itf.json --`, ...) with the
// archive. WRAPCHECK_UPDATE=1 rewrites the out sections.
func TestGolden(t *testing.T) {
	for _, file := range golden.Glob(t, filepath.Join("testdata", "*.txtar")) {
		ar := golden.Load(t, file)
		t.Run(ar.Name(), func(t *testing.T) {
			src := ar.Need(t, "in.wrap")
			name := ar.Name() + ".wrap"
			m, err := spec.ParseFile(name, src, spec.Options{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := testgen.Generate(context.Background(), m, testgen.Options{Source: src})
			if err != nil {
				t.Fatal(err)
			}
			var rep bytes.Buffer
			if err := res.Text(&rep, m); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if err := res.WriteDir(dir, m); err != nil {
				t.Fatal(err)
			}
			out := &txtar.Archive{Comment: ar.Comment}
			out.Files = append(out.Files, txtar.File{Name: "in.wrap", Data: src}, txtar.File{Name: "out/report", Data: rep.Bytes()})
			for _, tc := range res.Tests {
				for _, f := range []string{"trace.itf.json", "agents.json", "run.jsonl"} {
					data, err := os.ReadFile(filepath.Join(dir, tc.Name, f))
					if err != nil {
						t.Fatal(err)
					}
					out.Files = append(out.Files, txtar.File{Name: "out/" + tc.Name + "/" + f, Data: data})
				}
			}
			golden.Check(t, file, txtar.Format(out))
		})
	}
}

// TestExamples runs testgen on every example the front end accepts: the
// search is complete, every reachable goal is covered, every unreachable
// goal says why, every test is a run of the spec (replayed through the
// machine) that meets the step goals it claims, and the summary (tests,
// goals, the unreachable ones by name) is testdata/examples.golden.
func TestExamples(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "examples", "*", "*.wrap"))
	if err != nil || len(files) < 10 {
		t.Fatalf("examples: %v, %d files", err, len(files))
	}
	var sum bytes.Buffer
	for _, file := range files {
		rel := filepath.ToSlash(strings.TrimPrefix(file, filepath.Join("..", "examples")+string(filepath.Separator)))
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		m, err := spec.ParseFile(rel, src, spec.Options{})
		if err != nil {
			fmt.Fprintf(&sum, "%s: rejected by the front end\n", rel)
			continue
		}
		t.Run(rel, func(t *testing.T) {
			res, err := testgen.Generate(context.Background(), m, testgen.Options{Source: src})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Complete {
				t.Errorf("search incomplete after %d states", res.States)
			}
			covered, reachable := res.Covered()
			if covered != reachable {
				t.Errorf("%d of %d reachable goals covered", covered, reachable)
			}
			var unreachable []string
			for _, g := range res.Goals {
				if !g.Reachable {
					if g.Why == "" {
						t.Errorf("unreachable goal without a reason: %s", g.Name)
					}
					unreachable = append(unreachable, fmt.Sprintf("  %s: %s: %s", g.Kind, g.Name, g.Why))
				}
			}
			checkTests(t, m, res)
			replayTests(t, m, res)
			fmt.Fprintf(&sum, "%s: %d tests cover %d of %d goals, %d unreachable\n", rel, len(res.Tests), covered, len(res.Goals), len(unreachable))
			for _, u := range unreachable {
				sum.WriteString(u + "\n")
			}
		})
	}
	golden.Check(t, filepath.Join("testdata", "examples.golden"), sum.Bytes())
}

// checkTests replays each test's trace through the machine of the model:
// step 0 is an initial state, each step a successor by its action with
// its answers; and each ActionFires or Answer goal a test claims is met
// by one of its steps.
func checkTests(t *testing.T, m *spec.Model, res *testgen.Result) {
	t.Helper()
	prog, err := machine.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	mach := prog.NewMachine()
	mach.RecordAnswers(true)
	key := func(st []int64) string { return fmt.Sprint(st) }
	for _, tc := range res.Tests {
		tr := tc.Trace
		inits := map[string]bool{}
		_ = mach.Init(func(_ int, s machine.State) {
			u := make([]int64, prog.Slots())
			prog.Unpack(u, s)
			inits[key(u)] = true
		})
		if !inits[key(tr[0].State)] {
			t.Errorf("%s: step 0 is no initial state", tc.Name)
		}
		packed := make(machine.State, max(prog.Words(), 1))
		for i := 1; i < len(tr); i++ {
			prog.Pack(packed, tr[i-1].State)
			found := false
			_ = mach.Successors(packed, func(action, _ int, s machine.State) {
				u := make([]int64, prog.Slots())
				prog.Unpack(u, s)
				if action == tr[i].Action && key(u) == key(tr[i].State) && sameAnswers(mach.Asked(), tr[i].Asked) {
					found = true
				}
			})
			if !found {
				t.Errorf("%s: step %d (%s) is no step of the spec", tc.Name, i, m.Actions[tr[i].Action].Name)
			}
		}
		for _, gi := range tc.Goals {
			g := res.Goals[gi]
			if g.Kind != testgen.ActionFires && g.Kind != testgen.Answer {
				continue
			}
			met := false
			for _, st := range tr[1:] {
				if g.Kind == testgen.ActionFires && strings.HasPrefix(g.Name, m.Actions[st.Action].Name+" ") {
					met = true
				}
				for _, a := range st.Asked {
					if g.Kind == testgen.Answer && strings.HasPrefix(g.Name, m.Agents[a.Agent].Name+" ") {
						met = true // the class itself is checked by the golden
					}
				}
			}
			if !met {
				t.Errorf("%s claims %s, which none of its steps meets", tc.Name, g.Name)
			}
		}
	}
}

// replayTests writes the tests and replays each run file: the spec
// allows every line (a test of a broken example may reach its violation).
func replayTests(t *testing.T, m *spec.Model, res *testgen.Result) {
	t.Helper()
	dir := t.TempDir()
	if err := res.WriteDir(dir, m); err != nil {
		t.Fatal(err)
	}
	for _, tc := range res.Tests {
		name := filepath.Join(dir, tc.Name, "run.jsonl")
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		r, err := replay.Run(m, name, f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", tc.Name, err)
		}
		if r.Diverged != nil {
			t.Errorf("%s: replay diverges at line %d (%s): %v", tc.Name, r.Diverged.Line, r.Diverged.Action, r.Diverged.Mismatch)
		}
	}
}

func sameAnswers(a, b []verdict.Answer) bool {
	return slices.EqualFunc(a, b, func(x, y verdict.Answer) bool {
		return x.Agent == y.Agent && slices.Equal(x.Value, y.Value)
	})
}

// TestMaxTests: --max-tests bounds the tests, the first ones are those of
// the unbounded run, and the goals left are reachable but not covered.
func TestMaxTests(t *testing.T) {
	ar := golden.Load(t, filepath.Join("testdata", "gate.txtar"))
	src := ar.Need(t, "in.wrap")
	m, err := spec.ParseFile("gate.wrap", src, spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	all, err := testgen.Generate(context.Background(), m, testgen.Options{})
	if err != nil {
		t.Fatal(err)
	}
	one, err := testgen.Generate(context.Background(), m, testgen.Options{MaxTests: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(one.Tests) != 1 || len(all.Tests) < 2 {
		t.Fatalf("%d tests with --max-tests 1, %d without", len(one.Tests), len(all.Tests))
	}
	if !slices.Equal(one.Tests[0].Goals, all.Tests[0].Goals) {
		t.Errorf("the first test differs: %v, %v", one.Tests[0].Goals, all.Tests[0].Goals)
	}
	covered, reachable := one.Covered()
	if covered >= reachable {
		t.Errorf("one test covers %d of %d reachable goals", covered, reachable)
	}
	var names []string
	for _, g := range one.Goals {
		if g.Reachable && g.Test < 0 {
			names = append(names, g.Name)
		}
	}
	sort.Strings(names)
	if len(names) != reachable-covered {
		t.Errorf("%d goals left, want %d", len(names), reachable-covered)
	}
}

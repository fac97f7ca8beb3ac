package testgen_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/bits"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wrapcheck/wrapcheck/internal/golden"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/replay"
	"github.com/wrapcheck/wrapcheck/simulate"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/testgen"
)

// mutant is a rule of the reference implementation of the pipeline
// (examples/pipeline/impl/pipeline.py, RULES) switched off, with the
// rule of examples/pipeline/pipeline.wrap it breaks.
type mutant struct{ rule, breaks string }

func mutants() []mutant {
	return []mutant{
		{"strict_parse", "releases on an unparseable verdict (a verdict counts only if it is an answer)"},
		{"pass_agrees", "accepts a verdict whose pass disagrees with its issues list (wellformed)"},
		{"rerender", "caveat after one failure (a failed verdict gets a re-render)"},
		{"one_rerender", "two re-renders (exactly one re-render, AtMostOneRerender)"},
		{"stop_on_glitch", "no stop after the outage retry (a second glitch stops the run)"},
		{"closed_list", "no closed-list citation check (the wrapper's own check, CitationsInApprovedSet)"},
		{"withdraw_approval", "approval not withdrawn on re-render (ReleasedWhatWasApproved)"},
	}
}

// Where the experiment's figures are written in the docs.
const (
	mutationDoc   = "../docs/testgen.md"
	mutationBegin = "<!-- mutation experiment: begin (TestMutation writes this) -->\n"
	mutationEnd   = "<!-- mutation experiment: end -->\n"
	walkBudget    = 400 // random walks per seed, at most
	walkChunk     = 50  // written and run at a time
)

// outcome is one test run by the harness on one implementation.
type outcome struct {
	Test string `json:"test"`
	Pass bool   `json:"pass"`
	Why  string `json:"why"`
	// replay's verdict on the recording: "" conforms, else why not.
	replay string
}

func (o outcome) killed() string {
	switch {
	case !o.Pass:
		return "harness: " + o.Why
	case o.replay != "":
		return "replay: " + o.replay
	}
	return ""
}

// TestMutation is the mutation experiment of issue 39: the tests testgen
// generates for examples/pipeline/pipeline.wrap drive the reference
// implementation in Python (examples/pipeline/impl) with its agents
// scripted; the implementation passes every test and replay accepts its
// recordings, and each mutant (one rule switched off) fails some test,
// by the harness (a call the fixture does not have, a step the schedule
// does not allow, another outcome) or by replay rejecting the recording.
// The same is done with random walks of simulate made into fixtures the
// same way, until every mutant is killed, for several seeds. The figures
// are in docs/testgen.md (WRAPCHECK_UPDATE=1 rewrites them).
func TestMutation(t *testing.T) {
	python := testenv.Tool(t, "python3", "install Python 3 (standard library only)")
	harness, err := filepath.Abs("../examples/pipeline/impl/harness.py")
	if err != nil {
		t.Fatal(err)
	}
	const specPath = "../examples/pipeline/pipeline.wrap"
	src, err := os.ReadFile(specPath)
	if err != nil {
		t.Fatal(err)
	}
	m, err := spec.ParseFile("examples/pipeline/pipeline.wrap", src, spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	prog, err := machine.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res, err := testgen.Generate(ctx, m, testgen.Options{Source: src})
	if err != nil {
		t.Fatal(err)
	}
	covered, _ := res.Covered()
	suite := filepath.Join(t.TempDir(), "suite")
	if err := res.WriteDir(suite, m); err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, tc := range res.Tests {
		dirs = append(dirs, filepath.Join(suite, tc.Name))
	}
	run := func(rule string, dirs []string) []outcome {
		t.Helper()
		return runHarness(t, python, harness, rule, dirs, m, prog)
	}

	for _, o := range run("", dirs) {
		if k := o.killed(); k != "" {
			t.Errorf("the reference implementation fails %s: %s", o.Test, k)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "suite: %d tests from `wrapcheck testgen examples/pipeline/pipeline.wrap` (%d goals)\n\n", len(res.Tests), covered)
	b.WriteString("| mutant (rule off) | the design's rule | killed by | how |\n| --- | --- | --- | --- |\n")
	needed := 0
	var kills []uint64 // per mutant: the tests that kill it, as a bit set
	for _, mu := range mutants() {
		out := run(mu.rule, dirs)
		i := slices.IndexFunc(out, func(o outcome) bool { return o.killed() != "" })
		if i < 0 {
			t.Errorf("mutant %s survives the %d generated tests", mu.rule, len(dirs))
			fmt.Fprintf(&b, "| %s | %s | survives | |\n", mu.rule, mu.breaks)
			continue
		}
		needed = max(needed, i+1)
		var by []string
		var set uint64
		for j, o := range out {
			if o.killed() != "" {
				by = append(by, o.Test)
				set |= 1 << uint(j)
			}
		}
		kills = append(kills, set)
		how := out[i].killed()
		how, _, _ = strings.Cut(how, ": ") // harness or replay
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", mu.rule, mu.breaks, strings.Join(by, ", "), how)
	}
	fmt.Fprintf(&b, "\ngenerated tests needed to kill all %d mutants, run in order: %d of %d; the fewest that do: %s\n",
		len(mutants()), needed, len(dirs), smallestKill(res.Tests, kills))

	if testenv.Short(t) {
		// The quick form: the generated suite only; its figures must
		// still be the docs'.
		checkMutationDoc(t, b.String(), true)
		return
	}
	// Random walks, made into fixtures as the tests are.
	seeds := []uint64{1, 2, 3, 4, 5}
	var walks []int
	for _, seed := range seeds {
		// In chunks of walkChunk walks, each mutant run until killed.
		first := make([]int, len(mutants())) // the walk that kills it first, +1; 0: none yet
		left := len(mutants())
		for lo := 0; lo < walkBudget && left > 0; lo += walkChunk {
			wdir := filepath.Join(t.TempDir(), fmt.Sprintf("seed%d", seed))
			r := &testgen.Result{}
			for k := lo; k < lo+walkChunk; k++ {
				tr, err := simulate.Trace(ctx, m, simulate.Options{Seed: seed, Program: prog}, int64(k))
				if err != nil {
					t.Fatal(err)
				}
				r.Tests = append(r.Tests, &testgen.Test{Name: fmt.Sprintf("w%03d", k), Trace: tr})
			}
			if err := r.WriteDir(wdir, m); err != nil {
				t.Fatal(err)
			}
			var wd []string
			for _, tc := range r.Tests {
				wd = append(wd, filepath.Join(wdir, tc.Name))
			}
			for _, o := range run("", wd) {
				if k := o.killed(); k != "" {
					t.Fatalf("seed %d: the reference implementation fails walk %s: %s", seed, o.Test, k)
				}
			}
			for j, mu := range mutants() {
				if first[j] > 0 {
					continue
				}
				out := run(mu.rule, wd)
				if i := slices.IndexFunc(out, func(o outcome) bool { return o.killed() != "" }); i >= 0 {
					first[j] = lo + i + 1
					left--
				}
			}
		}
		n := slices.Max(first)
		if left > 0 {
			n = walkBudget + 1 // not all killed within the budget
		}
		walks = append(walks, n)
	}
	sorted := slices.Clone(walks)
	slices.Sort(sorted)
	var per []string
	for i, n := range walks {
		s := fmt.Sprint(n)
		if n > walkBudget {
			s = fmt.Sprintf("more than %d", walkBudget)
		}
		per = append(per, fmt.Sprintf("seed %d: %s", seeds[i], s))
	}
	fmt.Fprintf(&b, "random simulate walks needed to kill all %d mutants (walks 0, 1, 2, ... of `simulate --seed S`): median %d (%s)\n",
		len(mutants()), sorted[len(sorted)/2], strings.Join(per, "; "))
	checkMutationDoc(t, b.String(), false)
}

// smallestKill returns the fewest tests that together kill every mutant
// (kills: per mutant, the tests that kill it as a bit set), by size,
// then the first in the order of the subsets; "none" when they cannot.
func smallestKill(tests []*testgen.Test, kills []uint64) string {
	n := min(len(tests), 20)
	best := uint64(0)
	for sub := uint64(1); sub < 1<<uint(n); sub++ {
		if best != 0 && bits.OnesCount64(sub) >= bits.OnesCount64(best) {
			continue
		}
		all := true
		for _, k := range kills {
			if k&sub == 0 {
				all = false
				break
			}
		}
		if all {
			best = sub
		}
	}
	if best == 0 {
		return "none"
	}
	var names []string
	for i := range n {
		if best&(1<<uint(i)) != 0 {
			names = append(names, tests[i].Name)
		}
	}
	return fmt.Sprintf("%d (%s)", len(names), strings.Join(names, ", "))
}

// runHarness runs the harness with rule switched off ("": the reference
// implementation) on the test directories, and replays each recording.
func runHarness(t *testing.T, python, harness, rule string, dirs []string, m *spec.Model, prog *machine.Program) []outcome {
	t.Helper()
	cmd := exec.Command(python, append([]string{harness}, dirs...)...)
	cmd.Env = append(os.Environ(), "PIPELINE_MUTANT="+rule, "PYTHONDONTWRITEBYTECODE=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil && stderr.Len() > 0 {
		t.Fatalf("harness %s: %v\n%s", rule, err, stderr.Bytes())
	}
	var out []outcome
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	for sc.Scan() {
		var o outcome
		if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
			t.Fatalf("harness %s: %v: %s", rule, err, sc.Bytes())
		}
		out = append(out, o)
	}
	if len(out) != len(dirs) {
		t.Fatalf("harness %s: %d results for %d tests\n%s", rule, len(out), len(dirs), stderr.Bytes())
	}
	for i, d := range dirs {
		out[i].replay = replayRecording(t, m, prog, filepath.Join(d, "recorded.jsonl"))
	}
	return out
}

// replayRecording checks a recording against the spec: "" when it
// conforms, else the divergence or violation.
func replayRecording(t *testing.T, m *spec.Model, prog *machine.Program, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines, err := replay.Read(m, path, f)
	if err != nil {
		return err.Error()
	}
	r, err := replay.CheckProgram(context.Background(), prog, lines)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case r.Diverged != nil:
		return fmt.Sprintf("line %d: the spec does not allow %s here %v", r.Diverged.Line, r.Diverged.Action, r.Diverged.Mismatch)
	case r.Violation != nil:
		return fmt.Sprintf("line %d: %s", r.Line, r.Violation.Msg)
	}
	return ""
}

// checkMutationDoc compares the figures with the block of
// docs/testgen.md between the markers; WRAPCHECK_UPDATE=1 rewrites it.
// prefix: the figures are the block's first lines (the quick form).
func checkMutationDoc(t *testing.T, figures string, prefix bool) {
	t.Helper()
	data, err := os.ReadFile(mutationDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	i, j := strings.Index(doc, mutationBegin), strings.Index(doc, mutationEnd)
	if i < 0 || j < i {
		t.Fatalf("%s: no block between %q and %q", mutationDoc, mutationBegin, mutationEnd)
	}
	want := doc[i+len(mutationBegin) : j]
	got := "\n" + figures + "\n"
	if want == got || prefix && strings.HasPrefix(want, "\n"+figures) {
		return
	}
	if prefix {
		t.Errorf("%s: the mutation experiment's figures differ (WRAPCHECK_UPDATE=1 go test -tags wrapcheck_slow rewrites them):\n%s", mutationDoc, figures)
		return
	}
	if golden.Update() {
		doc = doc[:i+len(mutationBegin)] + got + doc[j:]
		if err := os.WriteFile(mutationDoc, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s: the mutation experiment's figures differ (WRAPCHECK_UPDATE=1 rewrites them):\n%s", mutationDoc, figures)
}

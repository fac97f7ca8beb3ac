package simulate

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// example is one example spec with its -D values.
type example struct {
	path    string
	defines map[string]int64
}

func (e example) name() string {
	var ds []string
	for k, v := range e.defines {
		ds = append(ds, fmt.Sprintf("%s=%d", k, v))
	}
	slices.Sort(ds)
	return strings.Join(append([]string{strings.TrimPrefix(e.path, "../examples/")}, ds...), " ")
}

// examples returns every example without -D, and every row of
// examples/EXPECTED.tsv with its -D values, each once.
func examples(t *testing.T) []example {
	t.Helper()
	paths, err := filepath.Glob("../examples/*/*.wrap")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	var out []example
	for _, p := range paths {
		out = append(out, example{path: p})
	}
	f, err := os.Open("../examples/EXPECTED.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if strings.HasPrefix(cols[0], "#") || len(cols) < 2 || cols[1] == "-" || seen[cols[0]+cols[1]] {
			continue
		}
		seen[cols[0]+cols[1]] = true
		ex := example{path: "../examples/" + cols[0], defines: map[string]int64{}}
		for _, d := range strings.Fields(cols[1]) {
			k, v, _ := strings.Cut(d, "=")
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatalf("EXPECTED.tsv: %s: %v", d, err)
			}
			ex.defines[k] = n
		}
		out = append(out, ex)
	}
	return out
}

func load(t *testing.T, ex example) *spec.Model {
	t.Helper()
	src, err := os.ReadFile(ex.path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := spec.ParseFile(ex.path, src, spec.Options{Defines: ex.defines})
	if err != nil {
		return nil // rejected on purpose (EXPECTED.tsv says so)
	}
	return m
}

// TestExamples compares simulation with the exhaustive search on every
// example: on the specs whose safety checks hold, no walk may report a
// violation; on the others, 2,000 walks must find one, no shorter than
// the search's shortest, with a trace that is a run of the spec.
func TestExamples(t *testing.T) {
	for _, ex := range examples(t) {
		t.Run(ex.name(), func(t *testing.T) {
			m := load(t, ex)
			if m == nil {
				t.Skip("rejected by the front end")
			}
			want, err := checker.Run(context.Background(), m, checker.Options{Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			prog, err := machine.Compile(m)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Run(context.Background(), m, Options{Walks: 2000, Program: prog})
			if err != nil {
				t.Fatal(err)
			}
			switch want.Verdict {
			case verdict.Holds:
				if got.Violation != nil {
					t.Fatalf("check says every safety check holds; simulate reports %s (walk %d)", got.Violation.Msg, got.Walk)
				}
				if got.Verdict != verdict.Unknown || got.Walk != -1 {
					t.Errorf("verdict %v, walk %d; want incomplete, -1", got.Verdict, got.Walk)
				}
			case verdict.Violated:
				if got.Violation == nil {
					t.Fatalf("check finds %s %s (%d steps); 2000 walks found nothing", want.Violation.Kind, want.Violation.Name, len(want.Violation.Trace))
				}
				if n, min := len(got.Violation.Trace), len(want.Violation.Trace); n < min {
					t.Errorf("simulate's trace has %d steps, shorter than the shortest (%d)", n, min)
				}
				if err := validTrace(prog, got.Violation, false); err != nil {
					t.Errorf("trace of walk %d: %v", got.Walk, err)
				}
				if got.Stats.Walks != 2000 {
					t.Errorf("%d walks run, want 2000", got.Stats.Walks)
				}
			default:
				t.Fatalf("check: %v (%s)", want.Verdict, want.Reason())
			}
			if got.Stats.Depth > DefaultDepth {
				t.Errorf("a walk took %d steps, more than the bound %d", got.Stats.Depth, DefaultDepth)
			}
			if len(got.Unchecked) != len(m.Properties) {
				t.Errorf("unchecked properties %v, the model has %d", got.Unchecked, len(m.Properties))
			}
		})
	}
}

// validTrace reports how v's trace is not a run of prog that ends in v:
// its first state must be initial, each step a successor of the one
// before by its action with its agent answers, and the last state (or
// step) must be the violation.
func validTrace(prog *machine.Program, v *verdict.Violation, noDeadlock bool) error {
	m := prog.NewMachine()
	m.RecordAnswers(true)
	md := prog.Model
	tr := v.Trace
	if len(tr) == 0 {
		return errors.New("empty trace")
	}
	pack := func(st []int64) []uint64 {
		s := make([]uint64, prog.Words())
		prog.Pack(s, st)
		return s
	}
	failing := v.Kind == verdict.Assertion || v.Kind == verdict.RuntimeError
	isInv := slices.ContainsFunc(md.Invariants, func(in *spec.Invariant) bool { return in.Name == v.Name })
	atAction := failing && !isInv && v.Name != "terminal"
	states := tr
	if atAction {
		states = tr[:len(tr)-1]
	}
	match := func(st verdict.Step, action int, t machine.State) bool {
		got := make([]int64, prog.Slots())
		prog.Unpack(got, t)
		return action == st.Action && slices.Equal(got, st.State) &&
			cmp.Equal(m.Asked(), st.Asked, cmp.Comparer(func(a, b []verdict.Answer) bool {
				return len(a) == len(b) && (len(a) == 0 || cmp.Equal(a, b))
			}))
	}
	var prev []uint64
	for i, st := range states {
		ok := false
		var err error
		if i == 0 {
			err = m.Init(func(_ int, t machine.State) { ok = ok || match(st, -1, t) })
		} else {
			err = m.Successors(prev, func(a, _ int, t machine.State) { ok = ok || match(st, a, t) })
		}
		var ex *machine.ExecError
		if err != nil && !errors.As(err, &ex) {
			return fmt.Errorf("step %d: %v", i, err)
		}
		if !ok {
			return fmt.Errorf("step %d is not a successor of step %d", i, i-1)
		}
		prev = pack(st.State)
	}
	var execErr error
	if prev == nil {
		execErr = m.Init(func(int, machine.State) {})
	} else {
		execErr = m.Successors(prev, func(int, int, machine.State) {})
	}
	n := 0
	if prev != nil {
		_ = m.Successors(prev, func(int, int, machine.State) { n++ })
	}
	evalInv := func() (int64, error) {
		for _, in := range md.Invariants {
			if in.Name == v.Name {
				pr, err := prog.CompileExpr(in.Expr)
				if err != nil {
					return 0, err
				}
				return m.Eval(pr, prev)
			}
		}
		return 0, fmt.Errorf("no invariant %s", v.Name)
	}
	switch {
	case v.Kind == verdict.Invariant:
		if x, err := evalInv(); err != nil || x != 0 {
			return fmt.Errorf("invariant %s is %d (%v) in the last state", v.Name, x, err)
		}
	case v.Kind == verdict.Deadlock:
		term, err := m.IsTerminal(prev)
		if n != 0 || execErr != nil || term || err != nil || noDeadlock {
			return fmt.Errorf("not a deadlock: %d successors, %v, terminal %t, %v", n, execErr, term, err)
		}
	case isInv:
		if _, err := evalInv(); err == nil || !strings.HasPrefix(v.Msg, execMsg(err)) {
			return fmt.Errorf("evaluating %s: %v, want %s", v.Name, err, v.Msg)
		}
	case v.Name == "terminal":
		if _, err := m.IsTerminal(prev); n != 0 || err == nil || !strings.HasPrefix(v.Msg, execMsg(err)) {
			return fmt.Errorf("terminal: %d successors, %v, want %s", n, err, v.Msg)
		}
	default:
		var ex *machine.ExecError
		if !errors.As(execErr, &ex) || ex.Pos != v.Pos || ex.Msg != v.Msg || ex.Kind != v.Kind || ex.Action != tr[len(tr)-1].Action {
			return fmt.Errorf("the last state's failure is %v, want %s: %s in step action %d", execErr, v.Pos, v.Msg, tr[len(tr)-1].Action)
		}
	}
	return nil
}

func execMsg(err error) string {
	var ex *machine.ExecError
	if errors.As(err, &ex) {
		return ex.Msg
	}
	return err.Error()
}

// zeroTimes clears the figures that may differ between runs.
func zeroTimes(r *Result) *Result {
	c := *r
	c.Stats.Seconds, c.Stats.Workers = 0, 0
	return &c
}

// TestWorkers: for a given seed and walk count, the result (the
// violation, its walk and trace, the statistics) is the same on 1 and 4
// workers.
func TestWorkers(t *testing.T) {
	for _, p := range []string{"classic/diehard", "classic/philosophers", "approval/toctou", "pipeline/fail_open", "classic/peterson_fair"} {
		t.Run(p, func(t *testing.T) {
			m := load(t, example{path: "../examples/" + p + ".wrap"})
			for _, seed := range []uint64{0, 7} {
				r1, err := Run(context.Background(), m, Options{Seed: seed, Walks: 500, Workers: 1})
				if err != nil {
					t.Fatal(err)
				}
				r4, err := Run(context.Background(), m, Options{Seed: seed, Walks: 500, Workers: 4})
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(zeroTimes(r1), zeroTimes(r4)); diff != "" {
					t.Errorf("seed %d: workers 1 and 4 differ (-1 +4):\n%s", seed, diff)
				}
			}
		})
	}
}

// TestShards: the shards of a run are disjoint and cover its walks, and
// together they give the unsharded run's figures and violation.
func TestShards(t *testing.T) {
	prog, err := machine.Compile(load(t, example{path: "../examples/approval/toctou.wrap"}))
	if err != nil {
		t.Fatal(err)
	}
	for _, walks := range []int64{1, 7, 300} {
		for _, n := range []int{1, 2, 3, 5} {
			seen := make([]int, walks)
			for i := range n {
				o := Options{Walks: walks, Shard: i, Shards: n}
				if err := o.normalise(); err != nil {
					t.Fatal(err)
				}
				s, err := newSim(context.Background(), prog, o)
				if err != nil {
					t.Fatal(err)
				}
				for j := range s.count {
					k := s.walkIndex(j)
					if k < 0 || k >= walks {
						t.Fatalf("walks %d, shard %d/%d: walk %d out of range", walks, i, n, k)
					}
					seen[k]++
				}
			}
			for k, c := range seen {
				if c != 1 {
					t.Errorf("walks %d, %d shards: walk %d run %d times", walks, n, k, c)
				}
			}
		}
	}
	for _, p := range []string{"classic/diehard", "pipeline/fail_open", "classic/peterson_fair"} {
		t.Run(p, func(t *testing.T) {
			m := load(t, example{path: "../examples/" + p + ".wrap"})
			whole, err := Run(context.Background(), m, Options{Walks: 300, Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			var sum Stats
			var best *Result
			for i := range 3 {
				r, err := Run(context.Background(), m, Options{Walks: 300, Workers: 2, Shard: i, Shards: 3})
				if err != nil {
					t.Fatal(err)
				}
				sum.Walks += r.Stats.Walks
				sum.Steps += r.Stats.Steps
				sum.Ends += r.Stats.Ends
				sum.Depth = max(sum.Depth, r.Stats.Depth)
				if r.Violation != nil && (best == nil || len(r.Violation.Trace) < len(best.Violation.Trace) ||
					len(r.Violation.Trace) == len(best.Violation.Trace) && r.Walk < best.Walk) {
					best = r
				}
			}
			want := whole.Stats
			want.Seconds, want.Workers = 0, 0
			if diff := cmp.Diff(want, sum); diff != "" {
				t.Errorf("the shards' figures add up to another run (-whole +shards):\n%s", diff)
			}
			if (best == nil) != (whole.Violation == nil) {
				t.Fatalf("whole run found %v, the shards %v", whole.Violation, best)
			}
			if best != nil {
				if best.Walk != whole.Walk {
					t.Errorf("shards report walk %d, the whole run walk %d", best.Walk, whole.Walk)
				}
				if diff := cmp.Diff(whole.Violation, best.Violation); diff != "" {
					t.Errorf("violation (-whole +shards):\n%s", diff)
				}
			}
		})
	}
}

// TestUniform: reservoir sampling picks each of n successors with
// probability 1/n (a chi-squared test at a 1e-6 false-alarm rate).
func TestUniform(t *testing.T) {
	w := &walker{nxt: make([]uint64, 1)}
	for _, n := range []int{1, 2, 3, 10, 37} {
		counts := make([]int, n)
		const trials = 40_000
		for k := range trials {
			w.pcg.Seed(DefaultSeed, secondSeed(int64(k)))
			w.seen = 0
			for i := range n {
				w.offer([]uint64{uint64(i)})
			}
			if int(w.nxt[0]) != int(w.pick) {
				t.Fatalf("picked state %d, ordinal %d", w.nxt[0], w.pick)
			}
			counts[w.pick]++
		}
		exp := float64(trials) / float64(n)
		chi := 0.0
		for _, c := range counts {
			chi += (float64(c) - exp) * (float64(c) - exp) / exp
		}
		// For k = n-1 degrees of freedom, chi2 stays below k + 7*sqrt(2k) + 25
		// with probability far above 1 - 1e-6.
		k := float64(n - 1)
		if lim := k + 7*math.Sqrt(2*k) + 25; chi > lim {
			t.Errorf("n=%d: chi2 %.1f > %.1f: %v", n, chi, lim, counts)
		}
	}
}

// TestTimeout: without a walk budget, walks run until the deadline.
func TestTimeout(t *testing.T) {
	m := load(t, example{path: "../examples/classic/peterson_fair.wrap"})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	r, err := Run(ctx, m, Options{UntilDone: true, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if r.Reason != "timeout" || r.Verdict != verdict.Unknown || r.Stats.Walks == 0 {
		t.Errorf("reason %q, verdict %v, %d walks; want timeout, incomplete, some", r.Reason, r.Verdict, r.Stats.Walks)
	}
	// With a violation, an unbounded run ends early.
	m = load(t, example{path: "../examples/approval/toctou.wrap"})
	ctx, cancel = context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err = Run(ctx, m, Options{UntilDone: true, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != verdict.Violated || r.Reason != "violation found" {
		t.Errorf("verdict %v, reason %q; want violated, violation found", r.Verdict, r.Reason)
	}
}

// TestOptionErrors: bad options are errors, never a run.
func TestOptionErrors(t *testing.T) {
	m := load(t, example{path: "../examples/approval/toctou.wrap"})
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"walks", Options{Walks: -1}, "walks -1: must not be negative"},
		{"depth", Options{Depth: -1}, "depth -1: must not be negative"},
		{"workers", Options{Workers: -2}, "workers -2: must not be negative"},
		{"shard past", Options{Shard: 3, Shards: 3}, "shard 3/3: want I/N with 0 <= I < N"},
		{"shard alone", Options{Shard: 1}, "shard 1/0: want I/N with 0 <= I < N"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Run(context.Background(), m, tt.opts)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestWalkAllocs: a walk that finds nothing allocates nothing per step
// (the successors are sampled in place, the invariants evaluated on the
// walker's machine).
func TestWalkAllocs(t *testing.T) {
	m := load(t, example{path: "../examples/peers/pipeline.wrap", defines: map[string]int64{"K": 2, "N": 2}})
	prog, err := machine.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Walks: 1, Depth: 200, Workers: 1, NoDeadlock: true}
	if err := o.normalise(); err != nil {
		t.Fatal(err)
	}
	s, err := newSim(context.Background(), prog, o)
	if err != nil {
		t.Fatal(err)
	}
	w := newWalker(s)
	k := int64(0)
	w.walk(k) // the machine and the path reach their sizes
	allocs := testing.AllocsPerRun(20, func() {
		k++
		w.walk(k)
	})
	if w.best != nil {
		t.Fatalf("walk %d found %v", w.best.walk, w.best.what)
	}
	if steps := float64(w.steps) / float64(w.walks); allocs > 0 {
		t.Errorf("%.1f allocations per walk of %.0f steps on average", allocs, steps)
	}
}

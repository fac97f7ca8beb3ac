package ltl

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
	"github.com/wrapcheck/wrapcheck/internal/vmem"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

var (
	boolType = &spec.Type{Kind: spec.BoolKind, Lo: 0, Hi: 1, Width: 1}
)

// ksys is a small random transition system: one variable s in 0..n-1,
// actions "s == from -> s := to" owned by processes, atoms "s in set", and
// fairness declarations over processes or single actions.
type ksys struct {
	n       int
	from    []int
	to      []int
	proc    []int
	atoms   [][]bool // atom -> state -> value
	fair    []kfair
	nprocs  int
	formula *rf
}

type kfair struct {
	strong bool
	acts   []int
}

func randSystem(rng *rand.Rand) *ksys {
	k := &ksys{n: 2 + rng.Intn(3), nprocs: 1 + rng.Intn(3)}
	na := 1 + rng.Intn(6)
	for i := 0; i < na; i++ {
		k.from = append(k.from, rng.Intn(k.n))
		k.to = append(k.to, rng.Intn(k.n))
		k.proc = append(k.proc, rng.Intn(k.nprocs))
	}
	for a := 0; a < 2; a++ {
		vals := make([]bool, k.n)
		for s := range vals {
			vals[s] = rng.Intn(2) == 0
		}
		k.atoms = append(k.atoms, vals)
	}
	for i := rng.Intn(3); i > 0; i-- {
		f := kfair{strong: rng.Intn(2) == 0}
		if rng.Intn(2) == 0 { // a process
			p := rng.Intn(k.nprocs)
			for a := range k.from {
				if k.proc[a] == p {
					f.acts = append(f.acts, a)
				}
			}
		} else {
			f.acts = []int{rng.Intn(na)}
		}
		if len(f.acts) > 0 {
			k.fair = append(k.fair, f)
		}
	}
	k.formula = randFormula(rng, 2, 1+rng.Intn(3))
	return k
}

func (k *ksys) String() string {
	s := fmt.Sprintf("n=%d", k.n)
	for a := range k.from {
		s += fmt.Sprintf(" a%d(P%d):%d->%d", a, k.proc[a], k.from[a], k.to[a])
	}
	s += fmt.Sprintf(" atoms=%v fair=%v formula=%s", k.atoms, k.fair, k.formula)
	return s
}

// model builds the IR of k.
func (k *ksys) model() *spec.Model {
	st := &spec.Type{Kind: spec.RangeKind, Lo: 0, Hi: int64(k.n - 1), Width: 1}
	bits := 0
	for 1<<bits < k.n {
		bits++
	}
	m := &spec.Model{Name: "K", Filename: "k.wrap",
		Vars:  []*spec.Var{{Name: "s", Type: st, Slot: 0, Process: -1}},
		Slots: []spec.Slot{{Var: 0, Lo: 0, Hi: int64(k.n - 1), Bits: bits, Type: st}}}
	sv := func() *spec.Expr { return &spec.Expr{Op: spec.OpVar, Type: st, Slot: 0} }
	cst := func(v int) *spec.Expr { return &spec.Expr{Op: spec.OpConst, Type: st, Val: int64(v)} }
	eq := func(v int) *spec.Expr {
		return &spec.Expr{Op: spec.OpEq, Type: boolType, Args: []*spec.Expr{sv(), cst(v)}}
	}
	for p := 0; p < k.nprocs; p++ {
		m.Processes = append(m.Processes, &spec.Process{Name: fmt.Sprintf("P%d", p)})
	}
	// Actions are listed process by process, as the IR requires.
	var order []int
	for p := 0; p < k.nprocs; p++ {
		for a := range k.from {
			if k.proc[a] == p {
				order = append(order, a)
			}
		}
	}
	index := make([]int, len(k.from))
	for i, a := range order {
		index[a] = i
		m.Actions = append(m.Actions, &spec.Action{Name: fmt.Sprintf("P%d.a%d", k.proc[a], a), Short: fmt.Sprintf("a%d", a),
			Process: k.proc[a], Guard: eq(k.from[a]),
			Body: []*spec.Stmt{{Op: spec.SAssign, Target: sv(), Value: cst(k.to[a])}}})
		m.Processes[k.proc[a]].Actions = append(m.Processes[k.proc[a]].Actions, i)
	}
	for _, f := range k.fair {
		var u []int
		for _, a := range f.acts {
			u = append(u, index[a])
		}
		m.Fairness = append(m.Fairness, &spec.Fairness{Strong: f.strong, Name: "f", Units: [][]int{u}})
	}
	atom := func(i int) *spec.Expr {
		var e *spec.Expr
		for s := 0; s < k.n; s++ {
			if !k.atoms[i][s] {
				continue
			}
			if e == nil {
				e = eq(s)
			} else {
				e = &spec.Expr{Op: spec.OpOr, Type: boolType, Args: []*spec.Expr{e, eq(s)}}
			}
		}
		if e == nil {
			// Never true, but not a constant: s != s.
			e = &spec.Expr{Op: spec.OpNe, Type: boolType, Args: []*spec.Expr{sv(), sv()}}
		}
		return e
	}
	var conv func(r *rf) *spec.Expr
	conv = func(r *rf) *spec.Expr {
		op := map[string]spec.Op{"!": spec.OpNot, "&": spec.OpAnd, "|": spec.OpOr, "i": spec.OpImplies, "e": spec.OpEq,
			"X": spec.OpNext, "F": spec.OpEventually, "G": spec.OpAlways, "U": spec.OpUntil, "R": spec.OpRelease,
			"W": spec.OpWeakUntil, "L": spec.OpLeadsTo}
		switch r.op {
		case "t":
			return &spec.Expr{Op: spec.OpConst, Type: boolType, Val: 1}
		case "f":
			return &spec.Expr{Op: spec.OpConst, Type: boolType, Val: 0}
		case "p":
			return atom(r.atom)
		}
		e := &spec.Expr{Op: op[r.op], Type: boolType, Args: []*spec.Expr{conv(r.a)}}
		if r.b != nil {
			e.Args = append(e.Args, conv(r.b))
		}
		return e
	}
	m.Properties = []*spec.Property{{Name: "Prop", Formula: conv(k.formula)}}
	return m
}

// enabled returns the actions enabled in state s.
func (k *ksys) enabled(s int) []int {
	var out []int
	for a := range k.from {
		if k.from[a] == s {
			out = append(out, a)
		}
	}
	return out
}

// lassoOK reports whether the system lasso (states, with acts[i] leading
// from states[i] to states[i+1], and acts[len-1] from the last state back
// to states[loop]; act -1 is a stutter of a state without enabled action)
// is fair and violates the formula.
func (k *ksys) lassoOK(states, acts []int, loop int) bool {
	word := func(ss []int) [][]bool {
		var w [][]bool
		for _, s := range ss {
			w = append(w, []bool{k.atoms[0][s], k.atoms[1][s]})
		}
		return w
	}
	if k.formula.holds(word(states[:loop]), word(states[loop:])) {
		return false
	}
	for _, f := range k.fair {
		in := map[int]bool{}
		for _, a := range f.acts {
			in[a] = true
		}
		taken, some, every := false, false, true
		for i := loop; i < len(states); i++ {
			en := false
			for _, a := range k.enabled(states[i]) {
				en = en || in[a]
			}
			some = some || en
			every = every && en
			taken = taken || acts[i] >= 0 && in[acts[i]]
		}
		if !taken && (f.strong && some || !f.strong && every) {
			return false
		}
	}
	return true
}

// findLasso enumerates the lassos with at most maxLen states and reports
// whether one is fair and violates the formula.
func (k *ksys) findLasso(maxLen int) bool {
	var states, acts []int
	var dfs func() bool
	dfs = func() bool {
		s := states[len(states)-1]
		en := k.enabled(s)
		if len(en) == 0 { // stutter forever
			acts = append(acts, -1)
			ok := k.lassoOK(states, acts, len(states)-1)
			acts = acts[:len(acts)-1]
			return ok
		}
		for _, a := range en {
			acts = append(acts, a)
			for loop := range states { // close the cycle
				if states[loop] == k.to[a] && k.lassoOK(states, acts, loop) {
					return true
				}
			}
			if len(states) < maxLen {
				states = append(states, k.to[a])
				if dfs() {
					return true
				}
				states = states[:len(states)-1]
			}
			acts = acts[:len(acts)-1]
		}
		return false
	}
	states = []int{0}
	return dfs()
}

// validLasso checks a reported lasso: every step is a transition, the
// last entry steps back to the loop start by some action (or stutters),
// and the lasso is fair and violates the formula.
func (k *ksys) validLasso(v *verdict.Violation, m *spec.Model) error {
	if v.Kind != verdict.Property || v.LoopStart < 0 || v.LoopStart >= len(v.Trace) {
		return fmt.Errorf("bad violation %+v", v)
	}
	var states, acts []int
	for i, st := range v.Trace {
		s := int(st.State[0])
		if i == 0 {
			if s != 0 || st.Action != -1 {
				return fmt.Errorf("bad initial step %+v", st)
			}
		} else {
			var a int
			if _, err := fmt.Sscanf(m.Actions[st.Action].Short, "a%d", &a); err != nil {
				return err
			}
			if k.from[a] != states[len(states)-1] || k.to[a] != s {
				return fmt.Errorf("step %d: a%d is no transition %d -> %d", i, a, states[len(states)-1], s)
			}
			acts = append(acts, a)
		}
		states = append(states, s)
	}
	last := states[len(states)-1]
	if len(k.enabled(last)) == 0 {
		if v.LoopStart != len(states)-1 {
			return fmt.Errorf("stutter loop must start at the last entry")
		}
		if !k.lassoOK(states, append(acts, -1), v.LoopStart) {
			return fmt.Errorf("stutter lasso is not a fair violation")
		}
		return nil
	}
	for _, a := range k.enabled(last) {
		if k.to[a] == states[v.LoopStart] && k.lassoOK(states, append(acts, a), v.LoopStart) {
			return nil
		}
	}
	return fmt.Errorf("the lasso is not a fair violation (or does not close)")
}

// TestRandomSystems checks Check on random small systems with random
// formulas and fairness against exhaustive lasso enumeration: a reported
// violation must be a real fair lasso that violates the formula, and when
// enumeration finds such a lasso, Check must report a violation.
func TestRandomSystems(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	runs := 1500
	if testenv.Short(t) {
		runs = 200
	}
	violated, holds, bad := 0, 0, 0
	for r := 0; r < runs; r++ {
		k := randSystem(rng)
		m := k.model()
		res, err := Check(context.Background(), m, Options{})
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		// Cycle searches after 1, 4, 16, ... expanded nodes find a
		// violation in a partial product: the verdict must be the same.
		early, err := Check(context.Background(), m, Options{firstCheck: 1})
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		if early.Verdict != res.Verdict {
			bad++
			t.Errorf("%s: verdict %v with early checks, %v without", k, early.Verdict, res.Verdict)
		} else if early.Verdict == verdict.Violated {
			if err := k.validLasso(early.Violation, m); err != nil {
				bad++
				t.Errorf("%s: early check: %v", k, err)
			}
		}
		// The nodes found through the hash table instead of the dense
		// array: the same ids, so the same result.
		hashed, err := Check(context.Background(), m, Options{hashNodes: true})
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		if diff := cmp.Diff(fmt.Sprint(res.Verdict, res.Violation), fmt.Sprint(hashed.Verdict, hashed.Violation)); diff != "" {
			bad++
			t.Errorf("%s: dense array vs hash table (-want +got):\n%s", k, diff)
		}
		switch res.Verdict {
		case verdict.Violated:
			violated++
			if err := k.validLasso(res.Violation, m); err != nil {
				bad++
				t.Errorf("%s: %v\ntrace %+v loop %d", k, err, res.Violation.Trace, res.Violation.LoopStart)
			}
			again, _ := Check(context.Background(), m, Options{})
			if fmt.Sprint(again.Violation) != fmt.Sprint(res.Violation) {
				t.Errorf("%s: not deterministic", k)
			}
		case verdict.Holds:
			holds++
			if k.findLasso(6) {
				bad++
				t.Errorf("%s: Check says holds, but a fair violating lasso exists", k)
			}
		default:
			t.Fatalf("%s: verdict %v", k, res.Verdict)
		}
		if bad > 5 {
			t.FailNow()
		}
	}
	t.Logf("%d random systems: %d violated, %d hold, %d wrong", runs, violated, holds, bad)
}

// TestManyAtoms checks a property with 140 atoms (three evaluation groups):
// forall i in 0..69: always (x == i implies next x == i + 1) on a counter
// that stops at 69 is violated there, after 69 steps, by the stutter.
func TestManyAtoms(t *testing.T) {
	st := &spec.Type{Kind: spec.RangeKind, Lo: 0, Hi: 69, Width: 1}
	dom := &spec.Type{Kind: spec.RangeKind, Lo: 0, Hi: 69, Width: 1}
	intT := &spec.Type{Kind: spec.IntKind, Width: 1}
	x := func() *spec.Expr { return &spec.Expr{Op: spec.OpVar, Type: st, Slot: 0} }
	i := func() *spec.Expr { return &spec.Expr{Op: spec.OpLocal, Type: dom, Slot: 0} }
	c := func(v int64) *spec.Expr { return &spec.Expr{Op: spec.OpConst, Type: intT, Val: v} }
	eq := func(a, b *spec.Expr) *spec.Expr {
		return &spec.Expr{Op: spec.OpEq, Type: boolType, Args: []*spec.Expr{a, b}}
	}
	next := &spec.Expr{Op: spec.OpNext, Type: boolType, Args: []*spec.Expr{
		eq(x(), &spec.Expr{Op: spec.OpAdd, Type: intT, Args: []*spec.Expr{i(), c(1)}})}}
	body := &spec.Expr{Op: spec.OpAlways, Type: boolType, Args: []*spec.Expr{
		{Op: spec.OpImplies, Type: boolType, Args: []*spec.Expr{eq(x(), i()), next}}}}
	m := &spec.Model{Name: "Many", Frame: 1,
		Vars:  []*spec.Var{{Name: "x", Type: st, Process: -1}},
		Slots: []spec.Slot{{Var: 0, Lo: 0, Hi: 69, Bits: 7, Type: st}},
		Actions: []*spec.Action{{Name: "inc", Short: "inc",
			Guard: &spec.Expr{Op: spec.OpLt, Type: boolType, Args: []*spec.Expr{x(), c(69)}},
			Body: []*spec.Stmt{{Op: spec.SAssign, Target: x(),
				Value: &spec.Expr{Op: spec.OpAdd, Type: intT, Args: []*spec.Expr{x(), c(1)}}}}}},
		Processes:  []*spec.Process{{Name: "main", Actions: []int{0}}},
		Properties: []*spec.Property{{Name: "Counts", Formula: &spec.Expr{Op: spec.OpForall, Type: boolType, Slot: 0, Dom: dom, Args: []*spec.Expr{body}}}},
	}
	f, atoms, err := FromProperty(m.Properties[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(atoms) != 140 {
		t.Errorf("want 140 atoms, got %d (%s)", len(atoms), f)
	}
	res, err := Check(context.Background(), m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != verdict.Violated || res.Violation.LoopStart != 69 || len(res.Violation.Trace) != 70 {
		t.Fatalf("got %v, loop %d, trace %d; want violated, loop 69, trace 70", res.Verdict, res.Violation.LoopStart, len(res.Violation.Trace))
	}
}

func BenchmarkCheck(b *testing.B) {
	for _, bc := range []struct{ name, file, prop string }{
		{"pipeline_ends", "testdata/pipeline_ends.txtar", "EveryRunEnds"},
		{"peterson_fair", "testdata/peterson_fair.txtar", "StarvationFree"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			m := loadSpec(b, bc.file)
			var nodes int64
			b.ResetTimer()
			for n := 0; n < b.N; n++ {
				_, err := Check(context.Background(), m, Options{Only: []string{bc.prop}, OnProperty: func(s PropertyStats) { nodes = s.ProductNodes }})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(nodes)*float64(b.N)/b.Elapsed().Seconds(), "nodes/s")
		})
	}
}

// TestLimits checks that the state limit and a cancelled context stop the
// search with Verdict Unknown and the reason.
func TestLimits(t *testing.T) {
	m := loadSpec(t, "testdata/pipeline_ends.txtar")
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name   string
		ctx    context.Context
		opts   Options
		reason string
	}{
		{"state-limit", context.Background(), Options{MaxStates: 100}, "state limit"},
		{"interrupted", cancelled, Options{}, "interrupted"},
		{"memory-budget", context.Background(), Options{MemoryBudget: 1}, "memory budget"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Check(tt.ctx, m, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != verdict.Unknown || res.Reason() != tt.reason {
				t.Errorf("got %v %q, want %v %q", res.Verdict, res.Reason(), verdict.Unknown, tt.reason)
			}
		})
	}
	if _, err := Check(context.Background(), m, Options{Only: []string{"NoSuchProperty"}}); err == nil {
		t.Error("want an error for an unknown name in Only")
	}
}

// TestProgress checks that the product search reports its progress with
// the property's name.
func TestProgress(t *testing.T) {
	src := `spec P
var x: 0..3
action a when x < 3 { x := x + 1 }
terminal x == 3
property Ends: eventually x == 3
`
	m, err := spec.ParseFile("p.wrap", []byte(src), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []verdict.Progress
	if _, err := Check(context.Background(), m, Options{Progress: func(p verdict.Progress) { got = append(got, p) }}); err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || got[0].Property != "Ends" || got[0].States < 1 {
		t.Errorf("progress %+v, want a report for Ends", got)
	}
}

// TestMinimalPrefix: the product reaches the cycle of poll through an
// automaton state that the system run does not show; the lasso's prefix
// still ends where the system cycle starts (submit, then a cycle of
// poll), not one poll later.
func TestMinimalPrefix(t *testing.T) {
	for _, prop := range []string{"always (s == 1 implies eventually s == 2)", "eventually s == 2"} {
		t.Run(prop, func(t *testing.T) {
			src := "spec Poll\nvar s: 0..2\naction submit when s == 0 { s := 1 }\naction poll when s == 1 { s := 1 }\n" +
				"action finish when s == 1 { s := 2 }\nterminal s == 2\nproperty Answered: " + prop + "\n"
			m, err := spec.ParseFile("p.wrap", []byte(src), spec.Options{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := Check(context.Background(), m, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != verdict.Violated {
				t.Fatalf("verdict %v", res.Verdict)
			}
			type lasso struct {
				Actions   []string
				LoopStart int
			}
			got := lasso{LoopStart: res.Violation.LoopStart}
			for _, st := range res.Violation.Trace[1:] {
				got.Actions = append(got.Actions, m.Actions[st.Action].Name)
			}
			if diff := cmp.Diff(lasso{[]string{"submit", "poll"}, 2}, got); diff != "" {
				t.Errorf("lasso (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPropertyPhaseLimits checks that the conversion and the translation
// of a property honour the deadline and the memory budget (Verdict
// Unknown with the reason, within a second of the deadline), and that a
// property with too many eventualities is an error at its position.
func TestPropertyPhaseLimits(t *testing.T) {
	const head = "spec P\nvar x: 0..99 = 0\naction a { x := (x + 1) % 100 }\n"
	tests := []struct {
		name    string
		prop    string
		timeout time.Duration
		budget  int64
		reason  string // "": an error
		err     string
	}{
		// 2^64 automaton states: the translation runs into the deadline.
		{"64 eventualities", "exists i in 0..63: always x != i", 300 * time.Millisecond, 0, "timeout", ""},
		{"64 eventualities budget", "exists i in 0..63: always x != i", time.Minute, 1, "memory budget", ""},
		// 10^10 instances: the conversion runs into the deadline.
		{"huge forall", "forall i in 0..99999: forall j in 0..99999: eventually x == (i + j) % 100", 300 * time.Millisecond, 0, "timeout", ""},
		{"65 eventualities", "exists i in 0..64: always x != i", time.Minute, 0, "",
			"p.wrap:4:1: property P: more than 64 eventualities (until subformulas of its negation)"},
		// One evaluation of 10^10 steps, in a guard and in an atom; 10^9
		// initial states.
		{"expensive guard", "spec P\nvar x: 0..3 = 0\naction a when forall i in 0..99999: forall j in 0..99999: i + j >= x { x := (x + 1) % 4 }\n" +
			"property P: always eventually x == 0", 300 * time.Millisecond, 0, "timeout", ""},
		{"expensive atom", "spec P\nvar x: 0..3 = 0\naction a { x := (x + 1) % 4 }\n" +
			"property P: always eventually forall i in 0..99999: forall j in 0..99999: i + j >= x", 300 * time.Millisecond, 0, "timeout", ""},
		{"large init", "spec P\nvar y: 0..999999999\ninit { choose i in 0..999999999 { y := i } }\naction a { skip }\n" +
			"property P: always eventually y == 0", 300 * time.Millisecond, 0, "timeout", ""},
		{"large init budget", "spec P\nvar y: 0..999999999\ninit { choose i in 0..999999999 { y := i } }\naction a { skip }\n" +
			"property P: always eventually y == 0", time.Minute, 64 << 20, "memory budget", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := tt.prop
			if !strings.HasPrefix(src, "spec ") {
				src = head + "property P: " + src
			}
			m, err := spec.ParseFile("p.wrap", []byte(src+"\n"), spec.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), tt.timeout)
			defer cancel()
			start := time.Now()
			res, err := Check(ctx, m, Options{MemoryBudget: tt.budget})
			took := time.Since(start)
			if tt.reason == "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("err = %v, want %s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != verdict.Unknown || res.Reason() != tt.reason {
				t.Errorf("got %v %q, want %v %q", res.Verdict, res.Reason(), verdict.Unknown, tt.reason)
			}
			if tt.reason == "timeout" && took > tt.timeout+time.Second {
				t.Errorf("stopped %v after the deadline", took-tt.timeout)
			}
		})
	}
}

// TestUncompilableAtom checks that an atom the compiler rejects (here a
// record where a condition is expected, which the front end never lowers
// but a hand-built Model may hold) is an error of Check, not a panic.
func TestUncompilableAtom(t *testing.T) {
	src := "spec A\nvar r: record { a: bool, b: bool }\naction flip { r.a := not r.a }\nproperty P: eventually r.a\n"
	m, err := spec.ParseFile("a.wrap", []byte(src), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := m.Properties[0].Formula
	if f.Op != spec.OpEventually || len(f.Args) != 1 || f.Args[0].Op != spec.OpField {
		t.Fatalf("property P lowered to %v %v, want eventually over a field", f.Op, f.Args)
	}
	f.Args[0] = f.Args[0].Args[0] // the record r, not its field a
	_, err = Check(context.Background(), m, Options{MemoryBudget: 1 << 40})
	want := "property P: wrapcheck internal error: a.wrap:4:24: compound expression var used as a scalar"
	if err == nil || err.Error() != want {
		t.Errorf("Check: error %v, want %s", err, want)
	}
}

// TestListAt checks the packing of a kept successor list's offset and
// count into one word (setList, listAt): the offset less its block's
// base, with the offsets and counts too large for it kept aside, over two
// blocks.
func TestListAt(t *testing.T) {
	const big = 1 << succOffBits
	tests := []struct{ off, n int64 }{{5, 0}, {5, 3}, {8, succNMax - 1}, {5 + big - 1, 2}, {1 << 40, 1}, {1<<40 + big, 2}, {1<<40 + 1, succNMax}, {1<<40 + 2, 1 << 30}}
	s := &system{keptLists: keptLists{succBig: map[uint32][2]int64{}}}
	s.succAt.extend(2 * succBlock)
	idx := func(i int) uint32 { return uint32(i%4 + i/4*succBlock) } // four in each block
	for i, tc := range tests {
		s.setList(idx(i), tc.off, tc.n)
	}
	for i, tc := range tests {
		off, n := s.listAt(idx(i))
		if diff := cmp.Diff([2]int64{tc.off, tc.n}, [2]int64{off, n}); diff != "" {
			t.Errorf("list %d (-want +got):\n%s", i, diff)
		}
	}
	if want := []int64{5, 1 << 40}; !slices.Equal(s.succBase, want) {
		t.Errorf("bases %v, want %v", s.succBase, want)
	}
	if len(s.succBig) != 3 {
		t.Errorf("%d lists aside, want 3 (an offset past the word, two counts)", len(s.succBig))
	}
}

// TestKeptListsCoded checks the coding of the kept successor lists
// (appendSuccs, decodeList, targetsOf): lists of states in three blocks,
// their ample sets' and the rest, of random targets, among them 0 and
// the largest state after each other (the largest differences), the
// stutter and actions of every varint length (of a byte's values with
// act8), with the actions kept or not and thread tracking or not, decode
// to what was kept, and a list longer than a chunk gets a chunk of its
// own.
func TestKeptListsCoded(t *testing.T) {
	rng := rand.New(rand.NewSource(41))
	for _, cf := range []struct{ keepAct, act8 bool }{{false, true}, {true, false}, {true, true}} {
		keepAct := cf.keepAct
		for _, threads := range []bool{false, true} {
			s := &system{keptLists: keptLists{keepAct: keepAct, act8: cf.act8, succBig: map[uint32][2]int64{}, restAt: map[uint32][2]int64{}}}
			if threads {
				s.threads = make([]threadDecl, 1)
			}
			s.succAt.extend(3 * succBlock)
			type kept struct {
				idx  uint32
				rest bool
				to   []uint32
				act  []int32
				perm []uint32
			}
			var lists []kept
			for i := range 60 {
				idx := uint32(rng.Intn(3 * succBlock))
				rest := i%5 == 4
				n := rng.Intn(12)
				if i == 0 {
					n = listChunk / 3 // past a chunk coded: a chunk of its own
				}
				if _, ok := s.restAt[idx]; ok && rest {
					continue // one list a state and kind
				}
				if !rest {
					if _, ok := s.succBig[idx]; ok || s.succAt.get(idx) != 0 {
						continue
					}
					n = max(n, 1) // a state's list has its stutter at least
				}
				k := kept{idx: idx, rest: rest}
				for j := range n {
					var to uint32
					switch rng.Intn(4) {
					case 0:
						to = rng.Uint32()
					case 1:
						to = []uint32{0, math.MaxUint32}[j%2]
					default:
						to = idx + uint32(rng.Intn(300)) - 150
					}
					act := []int32{-1, 0, 126, 127, 16383, 16384, math.MaxInt32 - 1}[rng.Intn(7)]
					if cf.act8 {
						act = []int32{-1, 0, 126, 127, 253}[rng.Intn(5)]
					}
					k.to = append(k.to, to)
					k.act = append(k.act, act)
					k.perm = append(k.perm, []uint32{0, 127, 128, math.MaxUint32}[rng.Intn(4)])
				}
				s.buf, s.bufTo, s.bufPerm = k.act, k.to, k.perm
				off := s.appendSuccs(idx, rest)
				if rest {
					s.restAt[idx] = [2]int64{off, int64(n)}
				} else {
					s.setList(idx, off, int64(n))
				}
				lists = append(lists, k)
			}
			if len(s.succB.c) < 2 || len(s.succB.c[0]) <= listChunk {
				t.Errorf("keepAct %v act8 %v threads %v: %d chunks, want a chunk of its own for the long list", keepAct, cf.act8, threads, len(s.succB.c))
			}
			for i, k := range lists {
				off, n := s.listAt(k.idx)
				if k.rest {
					r := s.restAt[k.idx]
					off, n = r[0], r[1]
				}
				to, act, perm := s.decodeList(k.idx, k.rest, off, n, nil, nil, nil)
				wantAct, wantPerm := k.act, k.perm
				if !keepAct {
					wantAct = nil
				}
				if !threads {
					wantPerm = nil
				}
				if diff := cmp.Diff([][]uint32{k.to, wantPerm}, [][]uint32{to, perm}, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("keepAct %v act8 %v threads %v: list %d, targets and permutations (-kept +decoded):\n%s", keepAct, cf.act8, threads, i, diff)
				}
				if diff := cmp.Diff(wantAct, act, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("keepAct %v act8 %v threads %v: list %d, actions (-kept +decoded):\n%s", keepAct, cf.act8, threads, i, diff)
				}
				if diff := cmp.Diff(k.to, s.targetsOf(k.idx, k.rest, off, n, nil), cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("keepAct %v act8 %v threads %v: list %d, targetsOf (-kept +decoded):\n%s", keepAct, cf.act8, threads, i, diff)
				}
			}
		}
	}
}

// TestCheckpointPutOff checks the checkpoints of the cycle search on a
// chain, whose frontier is one node: each checkpoint of at least 16
// nodes is put off to twice its size, and the next one is kept (four
// checks without: at 16, 64, 256 and the end). The violation of a
// property is found all the same. And on a product whose nodes are all
// initial, a checkpoint where under a quarter of the expanded nodes
// wait.
func TestCheckpointPutOff(t *testing.T) {
	src := "spec Chain\nvar x: 0..1000 = 0\naction step when x < 1000 { x := x + 1 }\n" +
		"property Ends: eventually x == 1000\nproperty Small: always x < 500\n"
	m, err := spec.ParseFile("chain.wrap", []byte(src), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		prop          string
		verdict       verdict.Verdict
		checks, nodes int
	}{
		// Checkpoints at 16 (put off to 32), 32 (kept), 128 (put off to
		// 256), 256, 1024 (the product is complete at 1001 nodes).
		{"Ends", verdict.Holds, 3, 1001},
		// The same checkpoints: the lasso's cycle is the stutter at
		// x = 1000, so only the complete product has it.
		{"Small", verdict.Violated, 3, 0},
	} {
		ph := &phaseStats{clock: func() int64 { return 0 }}
		var st PropertyStats
		res, err := Check(context.Background(), m, Options{Only: []string{tt.prop}, firstCheck: 16, phases: ph, OnProperty: func(s PropertyStats) { st = s }})
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != tt.verdict || ph.checks != tt.checks || tt.nodes > 0 && int(st.ProductNodes) != tt.nodes {
			t.Errorf("%s: verdict %v, %d checks, %d nodes; want %v, %d, %d", tt.prop, res.Verdict, ph.checks, st.ProductNodes, tt.verdict, tt.checks, tt.nodes)
		}
	}
	// A product whose 72 nodes are all initial, as CoffeeCan's: at the
	// checkpoint of 64 expanded nodes 8 wait, under a quarter, so it is
	// put off to 128 and the search runs twice (at 16, and on the
	// complete product), not three times.
	src = "spec Down\nvar x: 0..71\ninit { choose v in 0..71 { x := v } }\n" +
		"action down when x > 0 { x := x - 1 }\nproperty Ends: eventually x == 0\n"
	m, err = spec.ParseFile("down.wrap", []byte(src), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ph := &phaseStats{clock: func() int64 { return 0 }}
	var st PropertyStats
	res, err := Check(context.Background(), m, Options{firstCheck: 16, phases: ph, OnProperty: func(s PropertyStats) { st = s }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != verdict.Holds || ph.checks != 2 || st.ProductNodes != 72 {
		t.Errorf("Down: verdict %v, %d checks, %d nodes; want holds, 2, 72", res.Verdict, ph.checks, st.ProductNodes)
	}
}

// TestProductArena checks that the product's node arrays grow in its
// arena where address space is reserved: while the product lives the
// bytes they have grown to are counted in vmem.InUse (and so in the
// memory budget's verdict.HeapBytes), the dense index and nodeSys (where
// kept: product.ident) keep
// their reservation's address, and the check gives them back when it
// ends. The verdicts and counts are the same as on the heap: the other
// tests of this package run the same products.
func TestProductArena(t *testing.T) {
	src := "spec A\nvar x: 0..999\naction inc when x < 999 { x := x + 1 }\naction reset when x == 999 { x := 0 }\n" +
		"property P: always eventually x == 0\nproperty Q: always (x == 5 implies eventually x == 6)\n"
	m, err := spec.ParseFile("a.wrap", []byte(src), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	before := vmem.InUse()
	products := 0
	res, err := Check(context.Background(), m, Options{onProduct: func(pr *product) {
		products++
		if pr.arena == nil {
			t.Fatal("a product without an arena")
		}
		probe := vmem.New()
		reserved := vmem.Reserve[uint8](probe, 1) != nil
		probe.Free()
		if !reserved {
			return // reserve_other.go: on the heap
		}
		counted := vmem.InUse() - before
		arrays := 4*int64(len(pr.nodeSys)+len(pr.dense)) + int64(len(pr.indeg))
		if !pr.oneQ {
			arrays += 2*int64(len(pr.nodeQ)) + int64(len(pr.nodeQ8))
		}
		if pr.nodeN < 1000 || counted < arrays {
			t.Errorf("%d nodes; %d bytes counted in use, the arrays hold %d", pr.nodeN, counted, arrays)
		}
		if h := verdict.HeapBytes(); h < uint64(counted) {
			t.Errorf("HeapBytes %d, below the arrays' %d", h, counted)
		}
	}})
	if err != nil || res.Verdict != verdict.Holds {
		t.Fatalf("Check: %v %v", res.Verdict, err)
	}
	if products != 2 {
		t.Errorf("%d products, want 2", products)
	}
	if got := vmem.InUse(); got != before {
		t.Errorf("InUse after the check %d, want %d", got, before)
	}
}

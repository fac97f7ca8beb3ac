package spec

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// sexpr prints an IR expression compactly, for tests.
func sexpr(e *Expr) string {
	if e == nil {
		return "nil"
	}
	switch e.Op {
	case OpConst:
		return fmt.Sprint(e.Val)
	case OpVar:
		return fmt.Sprintf("$%d", e.Slot)
	case OpLocal:
		return fmt.Sprintf("@%d", e.Slot)
	}
	var b strings.Builder
	b.WriteString("(" + e.Op.String())
	switch e.Op {
	case OpField:
		fmt.Fprintf(&b, " +%d", e.Val)
	case OpForall, OpExists, OpCount:
		fmt.Fprintf(&b, " @%d:%d..%d", e.Slot, e.Dom.Lo, e.Dom.Hi)
	case OpLet:
		fmt.Fprintf(&b, " %v", e.Binds)
	}
	for _, a := range e.Args {
		b.WriteString(" " + sexpr(a))
	}
	return b.String() + ")"
}

func mustCheck(t *testing.T, src string, opts Options) *Model {
	t.Helper()
	f, err := syntax.Parse("x.wrap", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Check(f, opts)
	if err != nil {
		t.Fatal(err)
	}
	if msg := wellTyped(m); msg != "" {
		t.Fatal(msg)
	}
	return m
}

// approvalSpec is the approval TOCTOU of the language reference, a model
// of the shared corpus (testdata/README.md at the repository root).
const approvalSpec = "../examples/approval/toctou.wrap"

// okSpecs returns the specs that must check: testdata/ok/*.wrap and the
// approval TOCTOU.
func okSpecs(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob("testdata/ok/*.wrap")
	if err != nil {
		t.Fatal(err)
	}
	return append(files, approvalSpec)
}

// TestOK checks that every testdata/ok spec (and the approval TOCTOU)
// checks and lowers to well-formed IR.
func TestOK(t *testing.T) {
	files := okSpecs(t)
	if len(files) < 5 {
		t.Errorf("only %d ok specs", len(files))
	}
	for _, fn := range files {
		t.Run(strings.TrimSuffix(filepath.Base(fn), ".wrap"), func(t *testing.T) {
			src, err := os.ReadFile(fn)
			if err != nil {
				t.Fatal(err)
			}
			m, err := ParseFile(fn, src, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if msg := wellTyped(m); msg != "" {
				t.Fatal(msg)
			}
		})
	}
}

// irFacts is a summary of a Model for table tests.
type irFacts struct {
	Bits      []int
	Vars      []string
	Processes []string
	Actions   []string
	Frame     int
	Init      int
	Fairness  []string
	RW        map[string]string // action -> "R=[..] W=[..]"
}

func factsOf(m *Model, rw ...string) irFacts {
	var f irFacts
	for _, s := range m.Slots {
		f.Bits = append(f.Bits, s.Bits)
	}
	for _, v := range m.Vars {
		f.Vars = append(f.Vars, fmt.Sprintf("%s@%d", v.Name, v.Slot))
	}
	for _, p := range m.Processes {
		f.Processes = append(f.Processes, p.Name)
	}
	for _, a := range m.Actions {
		f.Actions = append(f.Actions, a.Name)
	}
	f.Frame, f.Init = m.Frame, len(m.Init)
	for _, x := range m.Fairness {
		kind := "weak"
		if x.Strong {
			kind = "strong"
		}
		f.Fairness = append(f.Fairness, fmt.Sprintf("%s %s %v", kind, x.Name, x.Units))
	}
	if len(rw) > 0 {
		f.RW = map[string]string{}
		for _, a := range m.Actions {
			for _, n := range rw {
				if a.Name == n {
					f.RW[n] = fmt.Sprintf("R=%v W=%v", a.Reads, a.Writes)
				}
			}
		}
	}
	return f
}

func TestLowerSpecs(t *testing.T) {
	tests := []struct {
		file string
		rw   []string
		want irFacts
	}{
		{
			file: approvalSpec,
			rw:   []string{"releaser.release"},
			want: irFacts{
				Bits:      []int{2, 2, 1, 1, 2},
				Vars:      []string{"content@0", "approved@1", "granted@2", "released@3", "shipped@4"},
				Processes: []string{"approver", "editor", "releaser"},
				Actions:   []string{"approver.approve", "editor.edit", "releaser.release"},
				Init:      5,
				RW:        map[string]string{"releaser.release": "R=[0 2 3] W=[3 4]"},
			},
		},
		{
			file: "testdata/ok/mutex.wrap",
			rw:   []string{"P[Proc1].enter", "P[Proc2].exit"},
			want: irFacts{
				Bits:      []int{1, 1, 1, 2, 2},
				Vars:      []string{"flag@0", "turn@2", "P[Proc1].pc@3", "P[Proc2].pc@4"},
				Processes: []string{"P[Proc1]", "P[Proc2]"},
				Actions: []string{
					"P[Proc1].request", "P[Proc1].yield", "P[Proc1].enter", "P[Proc1].exit",
					"P[Proc2].request", "P[Proc2].yield", "P[Proc2].enter", "P[Proc2].exit",
				},
				Frame:    2,
				Init:     2,
				Fairness: []string{"weak P [[0 1 2 3] [4 5 6 7]]"},
				RW: map[string]string{
					"P[Proc1].enter": "R=[0 1 2 3] W=[3]",
					"P[Proc2].exit":  "R=[4] W=[1 4]",
				},
			},
		},
		{
			file: "testdata/ok/tokens.wrap",
			rw:   []string{"node[2].serve"},
			want: irFacts{
				Bits: []int{2, 2, 2, 2, 1, 1, 1, 2, 2, 2},
				Vars: []string{"token@0", "served@1",
					"node[0].hold@4", "node[1].hold@5", "node[2].hold@6",
					"node[0].visits@7", "node[1].visits@8", "node[2].visits@9"},
				Processes: []string{"node[0]", "node[1]", "node[2]"},
				Actions: []string{"node[0].pass", "node[0].wrap", "node[0].serve",
					"node[1].pass", "node[1].wrap", "node[1].serve",
					"node[2].pass", "node[2].wrap", "node[2].serve"},
				Frame:    1,
				Init:     7,
				Fairness: []string{"weak node [[0 1 2] [3 4 5] [6 7 8]]"},
				RW:       map[string]string{"node[2].serve": "R=[0 3 9] W=[3 9]"},
			},
		},
		{
			file: "testdata/ok/pipeline.wrap",
			rw:   []string{"wrapper.verify", "wrapper.plan"},
			want: irFacts{
				Bits:      []int{3, 3, 3, 2, 1, 1, 2, 2, 3, 2, 2, 3},
				Vars:      []string{"phase@0", "brief@1", "draft@2", "step@3", "rerenders@4", "glitches@5", "log@6"},
				Processes: []string{"wrapper"},
				Actions:   []string{"wrapper.plan", "wrapper.render", "wrapper.verify"},
				Frame:     4,
				Init:      2,
				Fairness:  []string{"weak wrapper [[0 1 2]]"},
				RW: map[string]string{
					// log[step] is a dynamic index: all of log
					"wrapper.verify": "R=[0 1 2 3 4 5 6 7 8 9 10 11] W=[0 3 4 5 6 7 8 9 10 11]",
					"wrapper.plan":   "R=[0] W=[0 1]",
				},
			},
		},
		{
			file: "testdata/ok/forms.wrap",
			rw:   []string{"worker[Id2].take", "ask_oracle", "arith"},
			want: irFacts{
				Bits: []int{3, 1, 1, 1, 2, 2, 2, 2, 2, 2, 3, 1, 3, 2, 1, 1, 3, 1, 2, 2, 2, 1, 1},
				Vars: []string{"n@0", "flags@1", "grid@4", "pair@10", "bag@12", "ids@13", "owner@14",
					"mode@15", "nested@16", "counter.ticks@20", "worker[Id1].mine@21", "worker[Id2].mine@22"},
				Processes: []string{"counter", "worker[Id1]", "worker[Id2]", "main"},
				Actions: []string{"counter.tick", "worker[Id1].take", "worker[Id1].drop",
					"worker[Id2].take", "worker[Id2].drop", "paint", "ask_oracle", "arith", "sets"},
				Frame: 4,
				Init:  7,
				Fairness: []string{
					"weak worker [[1 2] [3 4]]",
					"strong counter.tick [[0]]",
					"weak main.paint [[5]]",
				},
				RW: map[string]string{
					"worker[Id2].take": "R=[13] W=[13 14 22]",
					"ask_oracle":       "R=[10 11 12] W=[2 10 11 18 19]",
					"arith":            "R=[0 10 11 15] W=[0 15 16 17]",
				},
			},
		},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.file), func(t *testing.T) {
			fn := tt.file
			src, err := os.ReadFile(fn)
			if err != nil {
				t.Fatal(err)
			}
			m, err := ParseFile(fn, src, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, factsOf(m, tt.rw...)); diff != "" {
				t.Errorf("IR facts (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLowerExprs(t *testing.T) {
	const prelude = `spec E
const N = 3
type Proc = symmetric 2
type C = {ca, cb, cc}
type R = record { a: 0..3, b: bool }
var n: 0..N
var s: set of C
var r: R
var arr: [0..2]0..3
fn gt(x: 0..N, y: 0..N): bool = x > y
fn inc(x: 0..N): 0..4 = x + 1
fn flip(q: R): R = record { a: q.a, b: not q.b }
fn shifted(q: R, d: 0..3): bool = q != record { a: d + 2, b: true }
process P[p: Proc] { var st: C  action a { skip } }
`
	tests := []struct {
		name, expr, want string
	}{
		{"fold arithmetic", "n == N * 2 - 3", "(== $0 3)"},
		{"fold bool", "not (N > 2) or n > 0", "(> $0 0)"},
		{"fold short-circuit", "N < 2 and arr[5] == 0", "0"},
		{"inline const args", "gt(2, 1)", "1"},
		{"inline with let", "gt(n, 1)", "(let [0] $0 (> @0 1))"},
		{"inline nested", "inc(inc(1)) == n", "(== 3 $0)"},
		{"sibling calls do not alias", "gt(n, 1) == gt(1, n)", "(== (let [0] $0 (> @0 1)) (let [1] $0 (> 1 @1)))"},
		{"nested calls do not alias", "gt(inc(n), inc(n + 1))", "(let [2 3] (let [0] $0 (+ @0 1)) (let [1] (+ $0 1) (+ @1 1)) (> @2 @3))"},
		{"inline record", "flip(r) == r", "(== (let [0] $2 (recordlit (field +0 @0) (not (field +1 @0)))) $2)"},
		{"inline const arg past a field's range", "shifted(r, 3)", "(let [0] $2 (!= @0 (recordlit 5 1)))"},
		{"in literal", "ca in {ca, cc}", "1"},
		{"in literal dynamic", "n in {1, 2}", "(or (== $0 1) (== $0 2))"},
		{"in set", "cb in s", "(in 1 $1)"},
		{"set literal const", "s == {ca, cc}", "(== $1 5)"},
		{"set literal dynamic", "s == {ca} union s", "(== $1 (union 1 $1))"},
		{"card", "card(s) > 1", "(> (card $1) 1)"},
		{"quantifier over set", "forall c in s: c != cb", "(forall @0:0..2 (implies (in @0 $1) (!= @0 1)))"},
		{"quantifier over listed values", "exists c in {ca, cc}: c in s", "(exists @0:0..2 (and (in @0 5) (in @0 $1)))"},
		{"count", "(count i in 0..2: arr[i] > 0) == 2", "(== (count @0:0..2 (> (index $4 @0) 0)) 2)"},
		{"family local const", "P[p].st == ca", "x"},
		{"record field", "r.b and r.a < 3", "(and (field +1 $2) (< (field +0 $2) 3))"},
		{"cond", "(if n > 1 then arr[0] else 2) == 1", "(== (cond (> $0 1) (index $4 0) 2) 1)"},
		{"int in range set", "n + 1 in {}", "0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := prelude + "invariant I: " + tt.expr + "\n"
			if tt.want == "x" {
				src = prelude + "invariant I: forall p in Proc: P[p].st == ca\n"
				tt.want = "(forall @0:0..1 (== (index $7 @0) 0))"
			}
			m := mustCheck(t, src, Options{})
			if diff := cmp.Diff(tt.want, sexpr(m.Invariants[0].Expr)); diff != "" {
				t.Errorf("lowered %s (-want +got):\n%s", tt.expr, diff)
			}
		})
	}
}

func TestLowerStmts(t *testing.T) {
	m := mustCheck(t, `spec S
type Proc = symmetric 2
type V = {pass, fail}
var owner: Proc
var v: V
var k: 0..3
agent judge(x: 0..3): V assume result == pass implies x > 0
process P[p: Proc] {
  action a when owner != p {
    owner := p
    let x = ask judge(k)
    choose i in 0..3 where i > k {
      k := i
    }
    match x {
      pass => v := x
      else => skip
    }
  }
}
terminal k == 3
terminal v == fail
`, Options{})
	a := m.Actions[1]
	if diff := cmp.Diff("P[Proc2].a", a.Name); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	var got []string
	got = append(got, "guard "+sexpr(a.Guard))
	for _, s := range a.Body {
		switch s.Op {
		case SAssign:
			got = append(got, "assign "+sexpr(s.Target)+" "+sexpr(s.Value))
		case SAsk:
			got = append(got, fmt.Sprintf("ask %d slot=%d target=%s args=%s", s.Agent, s.Slot, sexpr(s.Target), sexpr(s.Args[0])))
		case SChoose:
			got = append(got, fmt.Sprintf("choose @%d %d..%d where %s body=%d", s.Slot, s.Dom.Lo, s.Dom.Hi, sexpr(s.Cond), len(s.Body)))
		case SMatch:
			got = append(got, fmt.Sprintf("match %s cases=%v else=%v", sexpr(s.Value), s.Cases[0].Values, s.HasElse))
		}
	}
	got = append(got, "terminal "+sexpr(m.Terminal))
	ag := m.Agents[0]
	got = append(got, fmt.Sprintf("agent params=%v result=%d frame=%d assume=%s", ag.ParamSlots, ag.ResultSlot, ag.Frame, sexpr(ag.Assume)))
	want := []string{
		"guard (!= $0 1)",
		"assign $0 1",
		"ask 0 slot=0 target=nil args=$2",
		"choose @1 0..3 where (> @1 $2) body=1",
		"match @0 cases=[0] else=true",
		"terminal (or (== $2 3) (== $1 1))",
		"agent params=[0] result=1 frame=2 assume=(implies (== @1 0) (> @0 0))",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestLowerFamilyDomains(t *testing.T) {
	m := mustCheck(t, `spec F
const N = 3
type Node = 0..N-1
var v: [Node]bool
process P[i: Node] {
  action a when forall j in 0..i-1: v[j] {
    v[i] := true
  }
  action b when i < N - 1 and v[i + 1] {
    v[i + 1] := false
  }
}
`, Options{})
	var got []string
	for _, a := range m.Actions {
		got = append(got, a.Name+" "+sexpr(a.Guard)+" "+sexpr(a.Body[0].Target))
	}
	want := []string{
		"P[0].a nil (index $0 0)", // a constant true guard is dropped
		"P[0].b (index $0 1) (index $0 1)",
		"P[1].a (forall @0:0..0 (index $0 @0)) (index $0 1)",
		"P[1].b (index $0 2) (index $0 2)",
		"P[2].a (forall @0:0..1 (index $0 @0)) (index $0 2)",
		"P[2].b 0 (index $0 3)", // never enabled; the store would be a runtime error
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestDefines(t *testing.T) {
	const src = `spec D
const N = 2
const M = N + 1
var x: 0..M
type Id = symmetric N
var owner: Id
`
	f, err := syntax.Parse("d.wrap", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Check(f, Options{Defines: map[string]int64{"N": 6}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range m.Consts {
		got = append(got, fmt.Sprintf("%s=%d", c.Name, c.Value))
	}
	got = append(got, fmt.Sprintf("x.bits=%d owner.bits=%d", m.Slots[0].Bits, m.Slots[1].Bits))
	if diff := cmp.Diff([]string{"N=6", "M=7", "x.bits=3 owner.bits=3"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	_, err = Check(f, Options{Defines: map[string]int64{"NN": 1}})
	if !errors.Is(err, ErrUnknownDefine) {
		t.Fatalf("got %v, want ErrUnknownDefine", err)
	}
	if diff := cmp.Diff("-D NN: no such constant in the spec (did you mean N?)", err.Error()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	_, err = Check(f, Options{Defines: map[string]int64{"x": 1}})
	if !errors.Is(err, ErrUnknownDefine) {
		t.Fatalf("got %v, want ErrUnknownDefine", err)
	}

	// an override that empties a range is a spec error, and so is a
	// symmetric type of no identities
	_, err = Check(f, Options{Defines: map[string]int64{"N": -5}})
	var list syntax.ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("got %v, want a syntax.ErrorList", err)
	}
	want := "d.wrap:4:8: empty range 0..-4\nd.wrap:5:21: symmetric type must have at least 1 identity, not -5"
	if diff := cmp.Diff(want, err.Error()); diff != "" {
		t.Errorf("empty range (-want +got):\n%s", diff)
	}
}

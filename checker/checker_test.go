package checker

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/internal/gen"
	"github.com/wrapcheck/wrapcheck/spec"
)

// outcome is the part of a Result the tests compare.
type outcome struct {
	Verdict     string
	Reason      string
	States      int64
	Transitions int64
	Depth       int
	Kind        string
	Name        string
	Msg         string
	Actions     []int     // trace actions
	Last        []int64   // last trace state
	Asked       [][]int64 // answers of the last step
}

func summarize(r *Result) outcome {
	o := outcome{Verdict: r.Verdict.String(), Reason: r.Reason(), States: r.Stats.States,
		Transitions: r.Stats.Transitions, Depth: r.Stats.Depth}
	if v := r.Violation; v != nil {
		o.Kind, o.Name, o.Msg = v.Kind.String(), v.Name, v.Msg
		for _, s := range v.Trace {
			o.Actions = append(o.Actions, s.Action)
		}
		last := v.Trace[len(v.Trace)-1]
		o.Last = last.State
		for _, a := range last.Asked {
			o.Asked = append(o.Asked, a.Value)
		}
	}
	return o
}

// counter: x in 0..hi, inc when x < hi.
func counterModel(hi int64, terminal bool) *spec.Model {
	b := newBuilder("counter")
	x := b.global("x", rangeT(0, hi))
	b.action("inc", lt(x, num(hi)), assign(x, add(x, num(1))))
	if terminal {
		b.m.Terminal = eq(x, num(hi))
	}
	return b.build()
}

func twoCounters() *spec.Model {
	b := newBuilder("two")
	x := b.global("x", rangeT(0, 3))
	y := b.global("y", rangeT(0, 3))
	b.action("incx", lt(x, num(3)), assign(x, add(x, num(1))))
	b.action("incy", lt(y, num(3)), assign(y, add(y, num(1))))
	b.m.Terminal = tru()
	return b.build()
}

func askEnumModel() *spec.Model {
	b := newBuilder("ask")
	verdict := enumT("pass", "fail", "garbled")
	r := b.global("r", verdict)
	done := b.global("done", boolT)
	ag := b.agent("verifier", verdict, nil, func(res *spec.Expr, _ []*spec.Expr) *spec.Expr {
		return ne(res, cnst(verdict, 2))
	})
	b.action("verify", not(done), askInto(r, ag), assign(done, tru()))
	b.m.Terminal = done
	return b.build()
}

func chooseModel() *spec.Model {
	b := newBuilder("choose")
	x := b.global("x", rangeT(0, 9))
	y := b.local(0, rangeT(0, 9))
	b.action("pick", eq(x, num(0)), choose(0, rangeT(0, 9), eq(mod(y, num(3)), num(1)), assign(x, y)))
	b.m.Terminal = ne(x, num(0))
	return b.build()
}

func initModel() *spec.Model {
	b := newBuilder("init")
	x := b.global("x", rangeT(0, 2))
	y := b.local(0, rangeT(0, 2))
	b.m.Init = []*spec.Stmt{choose(0, rangeT(0, 2), nil, assign(x, y))}
	b.action("inc", lt(x, num(2)), assign(x, add(x, num(1))))
	b.m.Terminal = eq(x, num(2))
	return b.build()
}

func overflowModel() *spec.Model {
	b := newBuilder("overflow")
	x := b.global("x", rangeT(0, 2))
	b.action("inc", nil, assign(x, add(x, num(1))))
	return b.build()
}

func assertModel() *spec.Model {
	b := newBuilder("assert")
	x := b.global("x", rangeT(0, 3))
	b.action("inc", lt(x, num(3)), assign(x, add(x, num(1))), assert(ne(x, num(2)), "x is two"))
	b.m.Terminal = tru()
	return b.build()
}

func recordAskModel() *spec.Model {
	b := newBuilder("record")
	pq := enumT("p", "q")
	rt := recordT([]string{"ok", "s"}, boolT, setT(pq))
	v := b.global("v", rt)
	done := b.global("done", boolT)
	ag := b.agent("a", rt, nil, func(res *spec.Expr, _ []*spec.Expr) *spec.Expr {
		return implies(field(res, "ok"), lt(num(0), card(field(res, "s"))))
	})
	r := b.local(0, rt)
	b.action("ask", not(done), askLet(0, ag), assign(done, tru()), assign(v, r))
	b.m.Terminal = done
	return b.build()
}

// approvalModel is the ApprovalTOCTOU of docs/language.md, lowered by hand.
func approvalModel() *spec.Model {
	b := newBuilder("ApprovalTOCTOU")
	ver := rangeT(0, 3)
	content := b.global("content", ver)
	approved := b.global("approved", ver)
	granted := b.global("granted", boolT)
	released := b.global("released", boolT)
	shipped := b.global("shipped", ver)
	b.action("approver.approve", not(granted), assign(approved, content), assign(granted, tru()))
	b.action("editor.edit", and(lt(content, num(3)), not(released)), assign(content, add(content, num(1))))
	b.action("releaser.release", and(granted, not(released)), assign(released, tru()), assign(shipped, content))
	b.invariant("ShippedWhatWasApproved", implies(released, eq(shipped, approved)))
	b.m.Terminal = released
	return b.build()
}

// indexModel indexes an array with a counter that runs past its end.
func indexModel() *spec.Model {
	b := newBuilder("index")
	i := b.global("i", rangeT(0, 5))
	a := b.global("a", arrayT(rangeT(0, 2), boolT))
	b.action("set", lt(i, num(5)), assign(index(a, i), tru()), assign(i, add(i, num(1))))
	b.m.Terminal = tru()
	return b.build()
}

// blockedAskModel: an agent whose assumption never holds disables its action.
func blockedAskModel() *spec.Model {
	b := newBuilder("blocked")
	x := b.global("x", boolT)
	ag := b.agent("never", boolT, nil, func(res *spec.Expr, _ []*spec.Expr) *spec.Expr {
		return and(res, not(res))
	})
	b.action("ask", nil, askInto(x, ag))
	return b.build()
}

// emptyModel has no variable and one action that changes nothing.
func emptyModel() *spec.Model {
	b := newBuilder("empty")
	b.action("tick", nil, &spec.Stmt{Op: spec.SSkip})
	return b.build()
}

func TestRun(t *testing.T) {
	tests := []struct {
		name  string
		model *spec.Model
		opts  Options
		want  outcome
	}{
		{"counter/terminal", counterModel(5, true), Options{}, outcome{Verdict: "holds", States: 6, Transitions: 5, Depth: 5}},
		{"counter/deadlock", counterModel(5, false), Options{}, outcome{Verdict: "violated", States: 6, Transitions: 5, Depth: 5,
			Kind: "deadlock", Msg: "no action is enabled and the state is not terminal", Actions: []int{-1, 0, 0, 0, 0, 0}, Last: []int64{5}}},
		{"counter/nodeadlock", counterModel(5, false), Options{NoDeadlock: true}, outcome{Verdict: "holds", States: 6, Transitions: 5, Depth: 5}},
		{"two-counters", twoCounters(), Options{}, outcome{Verdict: "holds", States: 16, Transitions: 24, Depth: 6}},
		{"ask-enum", askEnumModel(), Options{}, outcome{Verdict: "holds", States: 3, Transitions: 2, Depth: 1}},
		{"choose-where", chooseModel(), Options{}, outcome{Verdict: "holds", States: 4, Transitions: 3, Depth: 1}},
		{"branching-init", initModel(), Options{}, outcome{Verdict: "holds", States: 3, Transitions: 2, Depth: 0}},
		{"runtime-error", overflowModel(), Options{}, outcome{Verdict: "violated", States: 3, Transitions: 2, Depth: 2,
			Kind: "runtime-error", Name: "inc", Msg: "value 3 out of range 0..2 of x", Actions: []int{-1, 0, 0, 0}, Last: []int64{2}}},
		{"assert", assertModel(), Options{}, outcome{Verdict: "violated", States: 2, Transitions: 1, Depth: 1,
			Kind: "assertion", Name: "inc", Msg: "x is two", Actions: []int{-1, 0, 0}, Last: []int64{2}}},
		{"record-answer", recordAskModel(), Options{}, outcome{Verdict: "holds", States: 8, Transitions: 7, Depth: 1}},
		{"approval-continue", approvalModel(), Options{Continue: true}, outcome{Verdict: "violated", States: 24, Transitions: 23, Depth: 5,
			Kind: "invariant", Name: "ShippedWhatWasApproved", Msg: "invariant ShippedWhatWasApproved is violated",
			Actions: []int{-1, 0, 1, 2}, Last: []int64{1, 0, 1, 1, 1}}},
		// By default the search stops after the level of the violation:
		// the same violation, counts of the states explored so far.
		{"approval", approvalModel(), Options{}, outcome{Verdict: "violated", States: 13, Transitions: 12, Depth: 3,
			Kind: "invariant", Name: "ShippedWhatWasApproved", Msg: "invariant ShippedWhatWasApproved is violated",
			Actions: []int{-1, 0, 1, 2}, Last: []int64{1, 0, 1, 1, 1}}},
		{"index-error", indexModel(), Options{}, outcome{Verdict: "violated", States: 4, Transitions: 3, Depth: 3,
			Kind: "runtime-error", Name: "set", Msg: "index 3 out of range 0..2", Actions: []int{-1, 0, 0, 0, 0}, Last: []int64{3, 1, 1, 1}}},
		{"blocked-ask", blockedAskModel(), Options{}, outcome{Verdict: "violated", States: 1, Transitions: 0, Depth: 0,
			Kind: "deadlock", Msg: "no action is enabled and the state is not terminal", Actions: []int{-1}, Last: []int64{0}}},
		{"no-variables", emptyModel(), Options{}, outcome{Verdict: "holds", States: 1, Transitions: 1, Depth: 0}},
		{"max-states", twoCounters(), Options{MaxStates: 5, Workers: 1}, outcome{Verdict: "incomplete", Reason: "state limit", States: 6, Transitions: 6, Depth: 2}},
		{"max-depth", twoCounters(), Options{MaxDepth: 2}, outcome{Verdict: "incomplete", Reason: "depth limit", States: 6, Transitions: 6, Depth: 2}},
	}
	for _, tt := range tests {
		for _, workers := range []int{1, 4} {
			t.Run(fmt.Sprintf("%s/w%d", tt.name, workers), func(t *testing.T) {
				opts := tt.opts
				if opts.Workers == 0 {
					opts.Workers = workers
				}
				r, err := run(context.Background(), tt.model, opts, 1)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, summarize(r)); diff != "" {
					t.Errorf("Run mismatch (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestRecordAnswers(t *testing.T) {
	r, err := Run(context.Background(), recordAskModel(), Options{Only: nil})
	if err != nil {
		t.Fatal(err)
	}
	want := []int64{2, 2, 2, 2, 1, 1, 1}
	if diff := cmp.Diff(want, r.Coverage.Fired[:1]); diff == "" {
		t.Log("fired", r.Coverage.Fired)
	}
	if diff := cmp.Diff([]int64{7}, r.Coverage.Fired); diff != "" {
		t.Errorf("fired (-want +got):\n%s", diff)
	}
	_ = want
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err := Run(ctx, twoCounters(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(outcome{Verdict: "incomplete", Reason: "interrupted"}, summarize(r)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	ctx, cancel = context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	time.Sleep(time.Millisecond)
	r, err = Run(ctx, twoCounters(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Reason(); got != "timeout" {
		t.Errorf("Reason = %q, want timeout", got)
	}
}

func TestVacuity(t *testing.T) {
	b := newBuilder("vac")
	x := b.global("x", rangeT(0, 3))
	b.action("inc", lt(x, num(2)), assign(x, add(x, num(1))))
	b.invariant("Never", implies(eq(x, num(3)), fls()))
	b.invariant("Sometimes", implies(eq(x, num(2)), tru()))
	b.invariant("Plain", lt(x, num(3)))
	b.m.Terminal = tru()
	r, err := Run(context.Background(), b.build(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"Never"}, r.Coverage.VacuousInvariants); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, err := Run(context.Background(), b.build(), Options{Only: []string{"Nope"}}); err == nil {
		t.Errorf("Only of an unknown name: no error")
	}
}

func TestDifferentialWorkers(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		m := gen.GenerateModel(r, gen.Counters)
		noDL := r.IntN(2) == 0
		r1, err := Run(context.Background(), m, Options{Workers: 1, NoDeadlock: noDL})
		if err != nil {
			t.Fatal(err)
		}
		for _, workers := range []int{2, 4, 8} {
			rn, err := run(context.Background(), m, Options{Workers: workers, NoDeadlock: noDL}, 1)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(summarize(r1), summarize(rn)); diff != "" {
				t.Fatalf("model %d: workers 1 vs %d (-w1 +w%d):\n%s", i, workers, workers, diff)
			}
			if diff := cmp.Diff(r1.Violation, rn.Violation); diff != "" {
				t.Fatalf("model %d: violation (-w1 +w%d):\n%s", i, workers, diff)
			}
		}
	}
}

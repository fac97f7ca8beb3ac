package checker

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
)

// pairModel: two interchangeable counters a, b in 0..2.
func pairModel(invariant bool) *spec.Model {
	b := newBuilder("pair")
	x := b.global("a", rangeT(0, 2))
	y := b.global("b", rangeT(0, 2))
	b.action("inca", lt(x, num(2)), assign(x, add(x, num(1))))
	b.action("incb", lt(y, num(2)), assign(y, add(y, num(1))))
	if invariant {
		b.invariant("SumBelow3", lt(add(x, y), num(3)))
	}
	b.m.Terminal = tru()
	return b.build()
}

func sortPair(s []int64) {
	if s[0] > s[1] {
		s[0], s[1] = s[1], s[0]
	}
}

func TestHooks(t *testing.T) {
	firstEnabled := func(_ []int64, enabled []int) []int { return enabled[:1] }
	tests := []struct {
		name  string
		model *spec.Model
		opts  Options
		want  outcome
	}{
		{"no-reduction", pairModel(false), Options{}, outcome{Verdict: "holds", States: 9, Transitions: 12, Depth: 4}},
		{"canon", pairModel(false), Options{Canon: sortPair}, outcome{Verdict: "holds", States: 6, Transitions: 8, Depth: 4}},
		// Under symmetry the trace is still concrete: (0,0) inca (1,0) incb (1,1) inca (2,1).
		{"canon-trace", pairModel(true), Options{Canon: sortPair, Continue: true}, outcome{Verdict: "violated", States: 6, Transitions: 8, Depth: 4,
			Kind: "invariant", Name: "SumBelow3", Msg: "invariant SumBelow3 is violated", Actions: []int{-1, 0, 1, 0}, Last: []int64{2, 1}}},
		{"ample", pairModel(false), Options{Ample: firstEnabled}, outcome{Verdict: "holds", States: 5, Transitions: 4, Depth: 4}},
	}
	for _, tt := range tests {
		for _, workers := range []int{1, 3} {
			opts := tt.opts
			opts.Workers = workers
			r, err := run(context.Background(), tt.model, opts, 1)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, summarize(r)); diff != "" {
				t.Errorf("%s/w%d (-want +got):\n%s", tt.name, workers, diff)
			}
		}
	}
}

func TestProgramAPI(t *testing.T) {
	p, err := machine.Compile(pairModel(true))
	if err != nil {
		t.Fatal(err)
	}
	m := p.NewMachine()
	var inits [][]int64
	err = m.Init(func(branch int, s machine.State) {
		u := make([]int64, p.Slots())
		p.Unpack(u, s)
		inits = append(inits, u)
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][]int64{{0, 0}}, inits); diff != "" {
		t.Errorf("Init (-want +got):\n%s", diff)
	}
	type succ struct {
		Action, Branch int
		State          []int64
	}
	s := make(machine.State, p.Words())
	p.Pack(s, []int64{1, 2})
	var got []succ
	err = m.Successors(s, func(a, b int, t machine.State) {
		u := make([]int64, p.Slots())
		p.Unpack(u, t)
		got = append(got, succ{a, b, u})
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]succ{{0, 0, []int64{2, 2}}}, got); diff != "" {
		t.Errorf("Successors (-want +got):\n%s", diff)
	}
	pr, err := p.CompileExpr(p.Model.Invariants[0].Expr)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		state []int64
		want  int64
	}{{[]int64{1, 1}, 1}, {[]int64{1, 2}, 0}} {
		p.Pack(s, tc.state)
		v, err := m.Eval(pr, s)
		if err != nil || v != tc.want {
			t.Errorf("Eval(%v) = %d, %v; want %d", tc.state, v, err, tc.want)
		}
	}
	// A failing action is returned as *machine.ExecError.
	po, err := machine.Compile(overflowModel())
	if err != nil {
		t.Fatal(err)
	}
	s1 := make(machine.State, po.Words())
	po.Pack(s1, []int64{2})
	err = po.NewMachine().Successors(s1, func(int, int, machine.State) {})
	ex, ok := err.(*machine.ExecError)
	if !ok || ex.Kind != RuntimeError || ex.Action != 0 {
		t.Errorf("Successors on overflow: %v, want a runtime error of action 0", err)
	}
}

func TestMemoryBudget(t *testing.T) {
	b := newBuilder("big")
	var vars []*spec.Expr
	for _, n := range []string{"a", "b", "c", "d"} {
		vars = append(vars, b.global(n, rangeT(0, 63)))
	}
	for i, v := range vars {
		b.action("inc"+string(rune('a'+i)), lt(v, num(63)), assign(v, add(v, num(1))))
	}
	b.m.Terminal = tru()
	r, err := Run(context.Background(), b.build(), Options{MemoryBudget: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != Unknown || r.Reason() != "memory budget" {
		t.Errorf("got %v %q, want incomplete, memory budget", r.Verdict, r.Reason())
	}
}

func TestProgressAndTimeout(t *testing.T) {
	b := newBuilder("big")
	var vars []*spec.Expr
	for _, n := range []string{"a", "b", "c", "d"} {
		vars = append(vars, b.global(n, rangeT(0, 63)))
	}
	for i, v := range vars {
		b.action("inc"+string(rune('a'+i)), lt(v, num(63)), assign(v, add(v, num(1))))
	}
	b.m.Terminal = tru()
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	calls := 0
	var last Progress
	r, err := Run(ctx, b.build(), Options{Progress: func(p Progress) { calls++; last = p }})
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != Unknown || r.Reason() != "timeout" {
		t.Errorf("got %v %q, want incomplete, timeout", r.Verdict, r.Reason())
	}
	if calls == 0 || last.States == 0 || last.Elapsed <= 0 {
		t.Errorf("Progress called %d times, last %+v", calls, last)
	}
	if r.Stats.States == 0 || r.Stats.PeakHeapBytes == 0 {
		t.Errorf("stats so far missing: %+v", r.Stats)
	}
}

func TestAskedAnswers(t *testing.T) {
	p, err := machine.Compile(askEnumModel())
	if err != nil {
		t.Fatal(err)
	}
	m := p.NewMachine()
	m.RecordAnswers(true)
	var init machine.State
	m.Init(func(_ int, s machine.State) { init = append(machine.State(nil), s...) })
	var got [][]Answer
	m.Successors(init, func(_, _ int, _ machine.State) { got = append(got, cloneAnswers(m.Asked())) })
	want := [][]Answer{{{Agent: 0, Value: []int64{0}}}, {{Agent: 0, Value: []int64{1}}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

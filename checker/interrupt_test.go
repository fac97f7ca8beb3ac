package checker

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/machine"
	"github.com/wrapcheck/wrapcheck/spec"
)

// TestInterruptLongEvaluation checks that one long evaluation (10^10
// quantifier steps in an invariant, a guard or an action, 10^9 initial
// states or agent answers) ends at the deadline or the memory budget with
// Verdict Unknown, never a violation, for 1 and 2 workers.
func TestInterruptLongEvaluation(t *testing.T) {
	const big = "forall i in 0..99999: forall j in 0..99999: i + j >= x"
	tests := []struct {
		name   string
		src    string
		budget int64
		reason string
	}{
		{"invariant", "spec E\nvar x: 0..3 = 0\naction a { x := (x + 1) % 4 }\ninvariant I: " + big + "\n", 0, "timeout"},
		{"guard", "spec E\nvar x: 0..3 = 0\naction a when " + big + " { x := (x + 1) % 4 }\n", 0, "timeout"},
		{"second state", "spec E\nvar x: 0..3 = 0\naction a { x := 1 }\ninvariant I: x == 0 or forall i in 0..99999: forall j in 0..99999: i + j + 1 >= x\n", 0, "timeout"},
		{"assignment", "spec E\nvar x: 0..3 = 0\nvar b: bool\naction a { b := " + big + " }\n", 0, "timeout"},
		{"init choose", "spec C\nvar y: 0..999999999\ninit { choose i in 0..999999999 { y := i } }\naction a { skip }\n", 0, "timeout"},
		{"init choose budget", "spec C\nvar y: 0..999999999\ninit { choose i in 0..999999999 { y := i } }\naction a { skip }\n", 64 << 20, "memory budget"},
		{"ask", "spec A\nagent Big(): 0..999999999\nvar y: 0..999999999\naction a { y := ask Big() }\n", 0, "timeout"},
	}
	for _, tt := range tests {
		for _, workers := range []int{1, 2} {
			t.Run(tt.name+"/"+string(rune('0'+workers)), func(t *testing.T) {
				m, err := spec.ParseFile("e.wrap", []byte(tt.src), spec.Options{})
				if err != nil {
					t.Fatal(err)
				}
				const limit = 300 * time.Millisecond
				ctx, cancel := context.WithTimeout(context.Background(), limit)
				if tt.budget > 0 {
					ctx, cancel = context.WithTimeout(context.Background(), time.Minute)
				}
				defer cancel()
				start := time.Now()
				res, err := Run(ctx, m, Options{Workers: workers, MemoryBudget: tt.budget})
				took := time.Since(start)
				if err != nil {
					t.Fatal(err)
				}
				if res.Verdict != Unknown || res.Reason() != tt.reason {
					t.Fatalf("got %v %q (%+v), want %v %q", res.Verdict, res.Reason(), res.Violation, Unknown, tt.reason)
				}
				if tt.budget == 0 && took > limit+time.Second {
					t.Errorf("stopped %v after the deadline", took-limit)
				}
			})
		}
	}
}

// TestSetInterrupt checks the Machine API: a call that runs into the
// interrupt returns machine.ErrInterrupted, and the machine works normally once
// the interrupt reports false again.
func TestSetInterrupt(t *testing.T) {
	src := "spec E\nvar x: 0..3 = 0\naction a when forall i in 0..99999: forall j in 0..99999: i + j >= x { x := (x + 1) % 4 }\n" +
		"action b { x := 2 }\n"
	m, err := spec.ParseFile("e.wrap", []byte(src), spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	prog, err := machine.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	mach := prog.NewMachine()
	stop := true
	mach.SetInterrupt(func() bool { return stop })
	var init machine.State
	if err := mach.Init(func(_ int, s machine.State) { init = append(machine.State(nil), s...) }); err != nil {
		t.Fatal(err)
	}
	var got []int
	err = mach.Successors(init, func(a, _ int, _ machine.State) { got = append(got, a) })
	if !errors.Is(err, machine.ErrInterrupted) {
		t.Fatalf("Successors: err = %v, want machine.ErrInterrupted", err)
	}
	// The cheap action b is not visited either: the call ended.
	if diff := cmp.Diff([]int(nil), got); diff != "" {
		t.Errorf("visited actions (-want +got):\n%s", diff)
	}
	mach.Enabled(init, nil)
	if !mach.Interrupted() {
		t.Error("Enabled: Interrupted() = false after a cut-short guard")
	}
	if _, err := mach.IsTerminal(init); err != nil {
		t.Errorf("IsTerminal: %v (no terminal predicate: nothing to interrupt)", err)
	}
	stop = false
	got = nil
	err = mach.SuccessorsOf(init, []int{1}, func(a, _ int, _ machine.State) { got = append(got, a) })
	if err != nil {
		t.Fatalf("SuccessorsOf after the interrupt: %v", err)
	}
	if diff := cmp.Diff([]int{1}, got); diff != "" {
		t.Errorf("visited actions (-want +got):\n%s", diff)
	}
}

package checker

import (
	"context"
	"strings"
	"testing"
	"time"

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
		// Exact arithmetic on numbers near spec.MaxIntBits, in a straight
		// line of statements: each branch of the choose (one poll per
		// 65536 branches) takes milliseconds, but every exact operation
		// counts as many steps as its operands have words.
		{"exact arithmetic", bigWork, 0, "timeout"},
		// One state's 100,000 successors of 25 KB each (issue 34's
		// arr2.wrap): the budget is checked as states are stored, not
		// only between levels and every 100ms.
		{"one level budget", "spec A\nvar a: [0..99999]0..3\naction s { choose i in 0..99999 { a[i] := (a[i] + 1) % 4 } }\n", 64 << 20, "memory budget"},
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
				// The heap is read every 512 KiB of new states a worker,
				// garbage included: each worker may pass the budget by
				// what it makes before its next look, and the collector
				// may not have run (a full run under load saw 133 MiB of
				// 64 with two workers). Without the check within a level
				// arr2 reached 1.6 GiB under 200 MiB.
				if tt.budget > 0 && res.Stats.PeakHeapBytes > uint64(tt.budget*int64(1+workers)) {
					t.Errorf("peak heap %d MiB, budget %d MiB", res.Stats.PeakHeapBytes>>20, tt.budget>>20)
				}
			})
		}
	}
}

// bigWork is a spec whose one action computes, in each of a million
// branches, 300 products and quotients of numbers of 6644 and 13288 bits.
var bigWork = "spec W\nvar a: 0..1 = 0\naction go when a == 0 {\n  choose i in 0..999999 {\n    let y = " +
	strings.Repeat("9", 1000) + " + i\n    y := y * y\n" + strings.Repeat("    y := y * y / y\n", 300) +
	"    if y > 0 { a := 1 }\n  }\n}\n"

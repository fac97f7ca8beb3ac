package bench

import (
	"context"
	"os"
	"testing"

	"github.com/wrapcheck/wrapcheck/checker"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/verdict"
)

// The cost of channels (an extension): examples/peers/leader.wrap and
// bench/chan/leader_arrays.wrap are one model, with buffered channels and
// with each channel written by hand as an array and a counter.
var encodings = []struct{ name, path string }{
	{"chan", "../examples/peers/leader.wrap"},
	{"arrays", "chan/leader_arrays.wrap"},
}

func parsePath(tb testing.TB, path string, n int64) *spec.Model {
	src, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	m, err := spec.ParseFile(path, src, spec.Options{Defines: map[string]int64{"N": n}})
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// TestChannelEncodings: both encodings reach the same states and make the
// same transitions (N=5: SPIN's 6080 and 20912, testdata/COUNTS.tsv).
func TestChannelEncodings(t *testing.T) {
	for _, e := range encodings {
		r, err := checker.Run(context.Background(), parsePath(t, e.path, 5), checker.Options{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if r.Stats.States != 6080 || r.Stats.Transitions != 20912 {
			t.Errorf("%s: %d states, %d transitions; want 6080, 20912", e.name, r.Stats.States, r.Stats.Transitions)
		}
	}
}

// BenchmarkChannelEncoding explores leader N=7 (162304 states, 794624
// transitions) in both encodings with one worker, no reduction: the
// channel's sends and receives lower to the statements the arrays and
// counters are written with, so the cost per state is the same.
//
//	go test -run XXX -bench ChannelEncoding -benchtime 5x -cpuprofile cpu.out ./bench/
func BenchmarkChannelEncoding(b *testing.B) {
	for _, e := range encodings {
		m := parsePath(b, e.path, 7)
		b.Run(e.name, func(b *testing.B) {
			var states, trans int64
			var last *verdict.Result
			cpu0 := cpuTime()
			for b.Loop() {
				r, err := checker.Run(context.Background(), m, checker.Options{Workers: 1})
				if err != nil {
					b.Fatal(err)
				}
				if r.Stats.States != 162304 || r.Stats.Transitions != 794624 {
					b.Fatalf("%d states, %d transitions; want 162304, 794624", r.Stats.States, r.Stats.Transitions)
				}
				states += r.Stats.States
				trans += r.Stats.Transitions
				last = r
			}
			report(b, cpu0, states, trans, last)
		})
	}
}

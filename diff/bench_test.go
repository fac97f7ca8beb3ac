package diff

import (
	"context"
	"testing"
)

// BenchmarkCompare compares an example with itself (every set a
// singleton) and with its fix; pairs/s counts both directions.
func BenchmarkCompare(b *testing.B) {
	for _, c := range []struct{ name, old, new string }{
		{"self/release_after_outage", "pipeline/release_after_outage.wrap", "pipeline/release_after_outage.wrap"},
		{"pair/fail_open", "pipeline/fail_open.wrap", "pipeline/pipeline.wrap"},
	} {
		b.Run(c.name, func(b *testing.B) {
			old, new := load(b, c.old, nil), load(b, c.new, nil)
			var pairs int64
			for b.Loop() {
				r, err := Compare(context.Background(), old, new, Options{NoChecks: true})
				if err != nil {
					b.Fatal(err)
				}
				pairs += r.OldOnly.Nodes + r.NewOnly.Nodes
			}
			b.ReportMetric(float64(pairs)/b.Elapsed().Seconds(), "pairs/s")
		})
	}
}

package explain

import (
	"context"
	"strings"
	"testing"

	"github.com/wrapcheck/wrapcheck/verify"
)

// BenchmarkAttach measures what `check --explain` adds to `check` on
// every finite example counterexample: the check itself (verify.Run, one
// worker) and the causal slice (Attach), each per operation.
func BenchmarkAttach(b *testing.B) {
	for _, ex := range examples(b) {
		if ex.v.LoopStart >= 0 {
			continue
		}
		name := strings.ReplaceAll(strings.TrimSpace(strings.ReplaceAll(ex.name, " -", "")), " ", "_")
		opts := verify.Options{Workers: 1}
		if i := strings.LastIndex(ex.name, " "); ex.name[i+1:] != "-" {
			opts.Only = []string{ex.name[i+1:]}
		}
		b.Run(name+"/check", func(b *testing.B) {
			for b.Loop() {
				if _, err := verify.Run(context.Background(), ex.m, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/attach", func(b *testing.B) {
			res, err := verify.Run(context.Background(), ex.m, opts)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				for _, v := range res.Violations {
					v.Slice = nil
				}
				if err := Attach(context.Background(), ex.m, res, verify.Options{Workers: 1}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

package spec_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wrapcheck/wrapcheck/internal/gen"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// bigSpec returns gen's Big spec of about 1000 lines.
func bigSpec() []byte {
	return []byte(gen.Generate(rand.New(rand.NewPCG(1, 1)), gen.Config{Shape: gen.Big, Lines: 1000}).Source)
}

func BenchmarkCheck(b *testing.B) {
	src := bigSpec()
	b.ReportMetric(float64(strings.Count(string(src), "\n")), "lines")
	if _, err := spec.ParseFile("big.wrap", src, spec.Options{}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		f, err := syntax.Parse("big.wrap", src)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := spec.Check(f, spec.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCheckOnly(b *testing.B) {
	src := bigSpec()
	f, err := syntax.Parse("big.wrap", src)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := spec.Check(f, spec.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

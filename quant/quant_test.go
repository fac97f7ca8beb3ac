package quant_test

import (
	"context"
	"math/big"
	"os"
	"path/filepath"
	"testing"

	"github.com/wrapcheck/wrapcheck/quant"
	"github.com/wrapcheck/wrapcheck/spec"
)

func check(t *testing.T, file string, src []byte) *quant.Result {
	t.Helper()
	m, err := spec.ParseFile(file, src, spec.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := quant.Check(context.Background(), m, quant.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func ratText(r *big.Rat) string {
	if r == nil {
		return "-"
	}
	return r.RatString()
}

// TestPeerModels checks the peer models of bench/prism against the
// values derived by hand (and by PRISM, TestPRISM).
func TestPeerModels(t *testing.T) {
	for _, tt := range []struct {
		file     string
		query    string
		min, max string
		violated bool
	}{
		{"knuth_yao.wrap", "Six", "1/6", "1/6", false},
		{"knuth_yao.wrap", "SixSoon", "-", "1/8", false},
		{"knuth_yao.wrap", "NotTwice", "-", "1/6", false},
		{"knuth_yao.wrap", "Done", "1", "-", false},
	} {
		t.Run(tt.file+"/"+tt.query, func(t *testing.T) {
			path := filepath.Join("..", "bench", "prism", tt.file)
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			res := check(t, path, src)
			for _, r := range res.Queries {
				if r.Query.Name != tt.query {
					continue
				}
				if got := ratText(r.Min); got != tt.min {
					t.Errorf("min = %s, want %s", got, tt.min)
				}
				if got := ratText(r.Max); got != tt.max {
					t.Errorf("max = %s, want %s", got, tt.max)
				}
				if r.Violated != tt.violated {
					t.Errorf("violated = %v, want %v", r.Violated, tt.violated)
				}
				return
			}
			t.Fatalf("no query %s", tt.query)
		})
	}
}

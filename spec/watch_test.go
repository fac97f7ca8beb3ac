package spec_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/spec"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

const watchSpec = `spec W
const N = 3
type Proc = {a, b}
var x: 0..N = 0
var flag: [Proc]bool
fn double(v: 0..N): 0..6 = v * 2
action inc when x < N { x := x + 1 }
invariant Small: x <= N
`

// TestWatches checks watches in the spec's global scope, of any type,
// each reported at its own line of the --watch file.
func TestWatches(t *testing.T) {
	tests := []struct {
		name    string
		watches []string
		types   []string // the watches' types, when they check
		err     string
	}{
		{name: "types", watches: []string{"x + 1", "flag[a] or x == N", "double(x)", "flag", "count p in Proc: flag[p]"},
			types: []string{"int", "bool", "0..6", "[Proc]bool", "int"}},
		{name: "undefined", watches: []string{"x", "y + 1"}, err: "--watch:2:1: undefined: y"},
		{name: "past", watches: []string{"once x == 1"}, err: "--watch:1:1: past-time operator once not allowed in a watch (a watch reads one state)"},
		{name: "temporal", watches: []string{"always x == 1"}, err: "--watch:1:1: temporal operator always not allowed in watch: only properties may use temporal operators"},
		{name: "mistyped", watches: []string{"x + flag[a]"}, err: "--watch:1:1: invalid operation: x + flag[a] (mismatched types 0..3 and bool)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ws []syntax.Expr
			for i, w := range tt.watches {
				x, err := syntax.ParseExpr("--watch", []byte(strings.Repeat("\n", i)+w))
				if err != nil {
					t.Fatal(err)
				}
				ws = append(ws, x)
			}
			m, err := spec.ParseFile("w.wrap", []byte(watchSpec), spec.Options{Watches: ws})
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error %v, want %s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range m.Watches {
				got = append(got, spec.TypeString(w.Expr.Type, 0))
			}
			if diff := cmp.Diff(tt.types, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

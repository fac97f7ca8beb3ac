package report

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/spec"
)

// TestExprText prints invariants back from the IR: the printer must
// give source that means the same (parentheses where precedence needs
// them) or refuse.
func TestExprText(t *testing.T) {
	tests := []struct {
		name, expr, want string
		ok               bool
	}{
		{"implies", "b implies x == y", "b implies x == y", true},
		{"right assoc", "b implies c implies b", "b implies c implies b", true},
		{"left implies", "(b implies c) implies b", "(b implies c) implies b", true},
		{"and or", "(b or c) and not b", "(b or c) and not b", true},
		{"arith", "x - (y - 1) > 0", "x - (y - 1) > 0", true},
		{"sets", "card(s) <= 2 and 1 in s", "card(s) <= 2 and 1 in s", true},
		{"array", "a[x] and r.f", "a[x] and r.f", true},
		{"enum", "e != green", "e != green", true},
		{"quantifier", "forall i in 0..1: a[i]", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := `spec E
type C = {red, green}
var b: bool
var c: bool
var x: 0..3
var y: 0..3
var s: set of 0..3
var a: [0..3]bool
var r: record { f: bool }
var e: C
action step { b := not b }
invariant I: ` + tt.expr + "\n"
			m, err := spec.ParseFile("e.wrap", []byte(src), spec.Options{})
			if err != nil {
				t.Fatal(err)
			}
			got, ok := exprText(m, m.Invariants[0].Expr)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v (%q)", ok, tt.ok, got)
			}
			if diff := cmp.Diff(tt.want, got); ok && diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

package syntax

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestExprHeight checks the bound on the height of expression trees: a
// tree of MaxExprHeight levels parses, one more level is refused at the
// operator that passes the limit, whether the levels come from one flat
// chain (refused while parsing it) or from chains nested in each other
// (refused by the height check), in expressions, assignment targets and
// types.
func TestExprHeight(t *testing.T) {
	const n = MaxExprHeight
	chain := func(op string, k int) string { return strings.Repeat("a "+op+" ", k) + "a" }
	// col is the column of the k-th operator of chain("+", ...) after a prefix.
	col := func(prefix, op string, k int) int { return len(prefix) + (k-1)*(len(op)+3) + 3 }
	tests := []struct {
		name, src string
		want      string // the error, "" for none
	}{
		{"plus at the limit", "const N = " + chain("+", n), ""},
		{"plus over the limit", "const N = " + chain("+", n+1), fmt.Sprintf("p.wrap:2:%d: expression too deep: more than %d levels of operators", col("const N = ", "+", n+1), n)},
		{"and over the limit", "invariant I: " + chain("and", n+1), fmt.Sprintf("p.wrap:2:%d: expression too deep: more than %d levels of operators", col("invariant I: ", "and", n+1), n)},
		{"index chain at the limit", "init { a" + strings.Repeat("[0]", n) + " := 1 }", ""},
		{"index chain over the limit", "init { a" + strings.Repeat("[0]", n+1) + " := 1 }", fmt.Sprintf("p.wrap:2:%d: expression too deep: more than %d levels of operators", len("init { a")+3*n+1, n)},
		{"selector chain over the limit", "const N = a" + strings.Repeat(".f", n+1), fmt.Sprintf("p.wrap:2:%d: expression too deep: more than %d levels of operators", len("const N = a")+2*n+1, n)},
		// (chain of 5999) + ... : the parenthesis is one level, so the
		// outer chain passes the limit at its 4001st operator.
		{"nested chains at the limit", "const N = (" + chain("+", 5999) + ") + " + chain("+", 3999), ""},
		{"nested chains over the limit", "const N = (" + chain("+", 5999) + ") + " + chain("+", 4000),
			fmt.Sprintf("p.wrap:2:%d: expression too deep: more than %d levels of operators", len("const N = ("+chain("+", 5999)+") ")+1+4*4000, n)},
		{"chain in a type", "var x: 0.." + chain("+", n+1), fmt.Sprintf("p.wrap:2:%d: expression too deep: more than %d levels of operators", col("var x: 0..", "+", n+1), n)},
		{"many short chains", "const N = {" + strings.Repeat(chain("+", 100)+", ", 500) + "a}", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			_, err := Parse("p.wrap", []byte("spec P\n"+tt.src+"\n"))
			got := ""
			if err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse error (-want +got):\n%s", diff)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("Parse took %v", d)
			}
		})
	}
}

// TestTooTall pins the height that tooTall computes on trees built by
// hand, including one the parser cannot build (a chain of Y operands).
func TestTooTall(t *testing.T) {
	leaf := func() Expr { return &IdentExpr{Name: "a"} }
	var x Expr = leaf()
	for i := 1; i <= MaxExprHeight+1; i++ {
		x = &BinaryExpr{Op: Add, X: leaf(), Y: x, OpPos: Position{Line: 1, Col: i, Offset: i}}
	}
	at, ok := tooTall(x)
	if diff := cmp.Diff(Position{Line: 1, Col: MaxExprHeight + 1, Offset: MaxExprHeight + 1}, at); !ok || diff != "" {
		t.Errorf("tooTall = %v, %v (-want +got):\n%s", at, ok, diff)
	}
	if at, ok := tooTall(x.(*BinaryExpr).Y); ok {
		t.Errorf("tooTall on a tree of height %d = %v, want none", MaxExprHeight, at)
	}
}

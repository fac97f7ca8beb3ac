package syntax

import (
	"fmt"
	"math/rand/v2"
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

// TestStopEarly checks that stopping the scanner at a flat chain the
// parser must refuse (chainCounter) changes nothing that Parse returns:
// random long expressions, mostly chains of one operator mixed with every
// other kind of token, give the same result whether the scanner stops
// early or reads the whole file. It also checks that stopping happens on
// the chains it is meant for.
func TestStopEarly(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	operands := []string{"a", "1", "true", "union", "f(a)", "a[0]", "r.g", "(a + b)", "{1, 2}", "if a then b else c"}
	prefixes := []string{"not ", "- "}
	others := []string{"or", "and", "-", "*", "/", "%", "union", "minus", "intersect", "==", "<", "in", "subset", "implies", "until", "leadsto"}
	contexts := []string{"const N = %s", "invariant I: %s", "action a when %s { skip }", "init { x := %s }", "var x: 0..%s", "property P: always (%s)"}
	var srcs []string
	for i := 0; i < 36; i++ {
		main := []string{"+", "and", "*", "or"}[i%4]
		pOther, pOdd := []float64{0, 0.0001, 0.01}[i/4%3], []float64{0, 0.0001, 0.02}[i/12%3]
		var b strings.Builder
		n := MaxExprHeight - 20 + r.IntN(40)
		if i%2 == 0 {
			n = MaxExprHeight + 1000
		}
		for k := 0; k <= n; k++ {
			if k > 0 {
				op := main
				if r.Float64() < pOther {
					op = others[r.IntN(len(others))]
				}
				b.WriteString(" " + op + " ")
			}
			if r.Float64() < pOdd {
				b.WriteString(prefixes[r.IntN(len(prefixes))])
			}
			if r.Float64() < pOdd {
				b.WriteString(operands[r.IntN(len(operands))])
			} else {
				b.WriteString("a")
			}
		}
		srcs = append(srcs, "spec P\n"+fmt.Sprintf(contexts[i%len(contexts)], b.String())+"\ninvariant J: a\n")
	}
	// Tighter chains interrupted by looser operators: long in operators
	// of the tighter level, not tall.
	for _, ops := range [][2]string{{"*", "+"}, {"+", "or"}, {"and", "or"}} {
		var b strings.Builder
		b.WriteString("a")
		for k := 1; k <= MaxExprHeight+1000; k++ {
			op := ops[0]
			if k%50 == 0 {
				op = ops[1]
			}
			b.WriteString(" " + op + " a")
		}
		srcs = append(srcs, "spec P\nconst N = "+b.String()+"\n")
	}
	// Operands with brackets, chains inside brackets, deep brackets.
	for _, x := range []string{
		strings.Repeat("(a) + f(a, b) + a[0] * r.g.h + (a + b)[1] - {1, 2} + - (a) + g(a)(b) + ", MaxExprHeight/4) + "a",
		strings.Repeat("(a) and not (b) and f(a)[0] and ", MaxExprHeight/2) + "a",
		"f(" + strings.Repeat("a + ", MaxExprHeight+10) + "a)",
		"{" + strings.Repeat("a or ", MaxExprHeight+10) + "a}",
		strings.Repeat("(", 300) + "a" + strings.Repeat(")", 300),
		strings.Repeat("f(a", 300) + strings.Repeat(")", 300),
		strings.Repeat("(a + ", 150) + "a" + strings.Repeat(")", 150) + strings.Repeat(" + a", MaxExprHeight),
	} {
		for _, k := range []int{0, 3} {
			srcs = append(srcs, "spec P\n"+fmt.Sprintf(contexts[(len(srcs)+k)%len(contexts)], x)+"\n")
		}
	}
	stopped := 0
	for i, src := range srcs {
		_, err1 := parse("p.wrap", []byte(src), false)
		_, err2 := parse("p.wrap", []byte(src), true)
		var s1, s2 string
		if err1 != nil {
			s1 = err1.Error()
		}
		if err2 != nil {
			s2 = err2.Error()
		}
		if s1 != s2 {
			t.Errorf("case %d: errors differ (-whole file +stopped early):\n%s", i, cmp.Diff(s1, s2))
		}
		full, _, _ := scanTokens("p.wrap", []byte(src), false)
		part, _, _ := scanTokens("p.wrap", []byte(src), true)
		if part.len() < full.len() {
			stopped++
			if err2 == nil {
				t.Errorf("case %d: the scanner stopped early but Parse succeeded", i)
			}
		}
	}
	if stopped < 20 {
		t.Errorf("the scanner stopped early in %d of %d cases only", stopped, len(srcs))
	}
}

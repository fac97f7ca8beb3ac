package syntax

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFormatRandomTrees prints random expression trees built by hand and
// checks that parsing the output gives the same tree, up to the
// parentheses that Format had to add.
func TestFormatRandomTrees(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 3000; i++ {
		e := randomExpr(r, 4)
		f := &File{Name: "X", Decls: []Decl{&PropertyDecl{Name: Ident{Name: "P"}, Formula: e}}}
		out := Format(f)
		g, err := Parse("random.wrap", out)
		if err != nil {
			t.Fatalf("%s: %v\n%s", sexpr(e), err, out)
		}
		got := stripParens(sexpr(g.Decls[0].(*PropertyDecl).Formula))
		if diff := cmp.Diff(sexpr(e), got); diff != "" {
			t.Fatalf("tree changed by Format→Parse (-want +got)\n%s\n%s", diff, out)
		}
	}
}

// stripParens removes "(paren X)" wrappers from an s-expression.
func stripParens(s string) string {
	for {
		i := strings.Index(s, "(paren ")
		if i < 0 {
			return s
		}
		depth, j := 0, i
		for ; j < len(s); j++ {
			if s[j] == '(' {
				depth++
			} else if s[j] == ')' {
				depth--
				if depth == 0 {
					break
				}
			}
		}
		s = s[:i] + s[i+len("(paren "):j] + s[j+1:]
	}
}

var randomBinary = []Token{Implies, Or, And, Eq, Ne, Lt, Le, Gt, Ge, In, Subset, Add, Sub, Union,
	Minus, Mul, Div, Mod, Intersect, Until, WeakUntil, Release, LeadsTo, Since}

var randomUnary = []Token{Not, Neg, Always, Eventually, Next, Once, Historically, Previously}

func randomExpr(r *rand.Rand, depth int) Expr {
	if depth == 0 {
		switch r.Intn(3) {
		case 0:
			return &IdentExpr{Name: string(rune('a' + r.Intn(5)))}
		case 1:
			return &IntLit{Value: int64(r.Intn(10))}
		}
		return &BoolLit{Value: r.Intn(2) == 0}
	}
	d := depth - 1
	switch r.Intn(12) {
	case 0, 1, 2, 3:
		return &BinaryExpr{Op: randomBinary[r.Intn(len(randomBinary))], X: randomExpr(r, d), Y: randomExpr(r, d)}
	case 4, 5:
		return &UnaryExpr{Op: randomUnary[r.Intn(len(randomUnary))], X: randomExpr(r, d)}
	case 6:
		return &IndexExpr{X: randomExpr(r, d), Index: randomExpr(r, d)}
	case 7:
		return &SelectorExpr{X: randomExpr(r, d), Field: Ident{Name: "f"}}
	case 8:
		return &CondExpr{Cond: randomExpr(r, d), Then: randomExpr(r, d), Else: randomExpr(r, d)}
	case 9:
		return &QuantExpr{Kind: QuantKind(r.Intn(3)), Var: Ident{Name: "x"},
			Domain: &RangeType{Lo: randomExpr(r, 0), Hi: &BinaryExpr{Op: Sub, X: randomExpr(r, 0), Y: &UnaryExpr{Op: Neg, X: randomExpr(r, 0)}}},
			Body:   randomExpr(r, d)}
	case 10:
		return &CallExpr{Fn: Ident{Name: "f"}, Args: []Expr{randomExpr(r, d), randomExpr(r, d)}}
	}
	return &SetLit{Elems: []Expr{randomExpr(r, d)}}
}

package syntax_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/internal/gen"
	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

// TestFormatRandomTrees prints random expression trees (gen's) and
// checks that parsing the output gives the same tree, up to the
// parentheses that Format had to add.
func TestFormatRandomTrees(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < 3000; i++ {
		e := gen.GenerateExpr(r, 4)
		f := &syntax.File{Name: "X", Decls: []syntax.Decl{&syntax.PropertyDecl{Name: syntax.Ident{Name: "P"}, Formula: e}}}
		out := syntax.Format(f)
		g, err := syntax.Parse("random.wrap", out)
		if err != nil {
			t.Fatalf("%s: %v\n%s", syntax.Sexpr(e), err, out)
		}
		got := stripParens(syntax.Sexpr(g.Decls[0].(*syntax.PropertyDecl).Formula))
		if diff := cmp.Diff(syntax.Sexpr(e), got); diff != "" {
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

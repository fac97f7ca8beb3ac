package syntax

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWordsCoverParser reads the parser's own source and fails for a
// word it matches (p.is("within"), t.Value == "for", case "rate":) that
// the table of words lacks: a word the parser learns (`chan`) must go in
// words, from which the lexer, the language server's completion and the
// editors' grammars take theirs (their tests hold them to it).
func TestWordsCoverParser(t *testing.T) {
	known := map[string]bool{}
	for _, w := range Words() {
		if known[w.Name] {
			t.Errorf("%s is in the table twice", w.Name)
		}
		known[w.Name] = true
	}
	word := regexp.MustCompile(`^[a-z]+$`)
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	found := map[string]string{} // word -> where
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		lit := func(e ast.Expr) {
			b, ok := e.(*ast.BasicLit)
			if !ok || b.Kind != token.STRING {
				return
			}
			s, err := strconv.Unquote(b.Value)
			if err == nil && word.MatchString(s) {
				if _, seen := found[s]; !seen {
					found[s] = fset.Position(b.Pos()).String()
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr: // p.is("in"), p.expect("of")
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && slices.Contains([]string{"is", "expect", "accept"}, sel.Sel.Name) {
					for _, a := range n.Args {
						lit(a)
					}
				}
			case *ast.BinaryExpr: // t.Value == "for"
				if sel, ok := n.X.(*ast.SelectorExpr); ok && sel.Sel.Name == "Value" && (n.Op == token.EQL || n.Op == token.NEQ) {
					lit(n.Y)
				}
			case *ast.SwitchStmt: // switch t.Value { case "rate": }
				if sel, ok := n.Tag.(*ast.SelectorExpr); ok && sel.Sel.Name == "Value" {
					for _, c := range n.Body.List {
						for _, e := range c.(*ast.CaseClause).List {
							lit(e)
						}
					}
				}
			}
			return true
		})
	}
	if len(found) < 40 {
		t.Fatalf("found only %d words in the parser: has its style changed? %v", len(found), found)
	}
	for _, w := range slices.Sorted(maps.Keys(found)) {
		if !known[w] {
			t.Errorf("%s: the parser reads the word %q, which spec/syntax's table of words lacks", found[w], w)
		}
	}
}

// TestKeywordsFromWords: the lexer reserves exactly the words of kind
// Reserved.
func TestKeywordsFromWords(t *testing.T) {
	for _, w := range Words() {
		if IsKeyword(w.Name) != (w.Kind == Reserved) {
			t.Errorf("%s (%s): IsKeyword is %v", w.Name, w.Kind, IsKeyword(w.Name))
		}
	}
}

// TestWordsDocumented: docs/language.md's lexical elements list the
// reserved words exactly, and every other word of the table in
// backquotes.
func TestWordsDocumented(t *testing.T) {
	data, err := os.ReadFile("../../docs/language.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	_, rest, ok := strings.Cut(doc, "Keywords are reserved:\n  `")
	if !ok {
		t.Fatal("docs/language.md has no list of reserved words")
	}
	list, _, _ := strings.Cut(rest, "`")
	got := strings.Fields(list)
	var want []string
	for _, w := range Words() {
		if w.Kind == Reserved {
			want = append(want, w.Name)
		} else if !strings.Contains(doc, "`"+w.Name+"`") {
			t.Errorf("docs/language.md does not name the %s word %s", w.Kind, w.Name)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("docs/language.md's reserved words (-table +doc):\n%s", diff)
	}
}

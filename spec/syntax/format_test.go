package syntax

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/wrapcheck/wrapcheck/internal/golden"
)

// specFiles returns every spec that must parse: the .wrap files under
// examples/, testdata/ (but not the syntax error cases) and the type
// checker's testdata/ok; when others is set, also the type checker's error
// cases (.txtar archives: read every file with [readSpec]), which parse
// but do not check.
func specFiles(t testing.TB, others bool) []string {
	t.Helper()
	var files []string
	roots := []string{filepath.Join("..", "..", "examples"), "testdata", filepath.Join("..", "testdata", "ok")}
	if others {
		roots = append(roots, filepath.Join("..", "testdata", "errors"))
	}
	for _, root := range roots {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if os.IsNotExist(err) {
					return filepath.SkipDir
				}
				return err
			}
			if d.IsDir() && path == filepath.Join("testdata", "errors") {
				return filepath.SkipDir
			}
			if !d.IsDir() && (strings.HasSuffix(path, ".wrap") || strings.HasSuffix(path, ".txtar") && root != "testdata") {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return files
}

// readSpec returns the source of a file of [specFiles]: the file, or the
// in.wrap section of a txtar archive.
func readSpec(t testing.TB, path string) []byte {
	t.Helper()
	if strings.HasSuffix(path, ".txtar") {
		return golden.Load(t, path).Need(t, "in.wrap")
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// astOpts compares trees modulo positions.
var astOpts = cmp.Options{
	cmpopts.IgnoreTypes(Position{}),
	cmpopts.IgnoreFields(File{}, "Filename", "Comments"),
	cmpopts.EquateEmpty(),
}

// commentTexts returns the texts of f's comments.
func commentTexts(f *File) []string {
	var texts []string
	for _, c := range f.Comments {
		texts = append(texts, c.Text)
	}
	return texts
}

// TestRoundTrip checks on every spec that Format is idempotent and that
// Parse(Format(x)) has the tree and the comments of Parse(x).
func TestRoundTrip(t *testing.T) {
	mine := specFiles(t, false)
	if len(mine) < 2 {
		t.Fatalf("found only %d spec files", len(mine))
	}
	for _, path := range specFiles(t, true) {
		t.Run(path, func(t *testing.T) {
			f1, err := Parse(path, readSpec(t, path))
			if err != nil {
				if !slices.Contains(mine, path) {
					t.Skipf("not a valid spec: %v", err)
				}
				t.Fatal(err)
			}
			out1 := Format(f1)
			f2, err := Parse(path, out1)
			if err != nil {
				t.Fatalf("formatted output does not parse: %v\n%s", err, out1)
			}
			if diff := cmp.Diff(f1, f2, astOpts); diff != "" {
				t.Errorf("Parse(Format(x)) differs from Parse(x) (-want +got)\n%s", diff)
			}
			if diff := cmp.Diff(commentTexts(f1), commentTexts(f2)); diff != "" {
				t.Errorf("comments differ (-want +got)\n%s", diff)
			}
			out2 := Format(f2)
			if diff := cmp.Diff(string(out1), string(out2)); diff != "" {
				t.Errorf("Format is not idempotent (-want +got)\n%s", diff)
			}
		})
	}
}

func TestFormat(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{
			name: "spacing",
			src:  "spec X\nconst N=1+2*3\nvar  x :[0..N-1]bool={ }\nfn f( a:bool ,b : T ) : bool=a and(b)",
			want: "spec X\nconst N = 1 + 2 * 3\nvar x: [0..N-1]bool = {}\nfn f(a: bool, b: T): bool = a and (b)\n",
		},
		{
			name: "blank lines at most one",
			src:  "spec X\n\n\n\nconst A = 1\nconst B = 2\n\n\nconst C = 3\n",
			want: "spec X\n\nconst A = 1\nconst B = 2\n\nconst C = 3\n",
		},
		{
			name: "statements one per line",
			src:  "spec X\naction a when x{ x:=1;y := 2;; skip }\n",
			want: "spec X\naction a when x {\n  x := 1\n  y := 2\n  skip\n}\n",
		},
		{
			name: "comments",
			src: "// head\nspec X // name\n\n/* block */\nconst A = 1 // trailing\n// own line\nconst B = 2\n" +
				"process P {\n  // first\n  action a { // after brace\n    skip // done\n    // last\n  }\n}\n// tail\n",
			want: "// head\nspec X // name\n\n/* block */\nconst A = 1 // trailing\n// own line\nconst B = 2\n" +
				"process P {\n  // first\n  action a { // after brace\n    skip // done\n    // last\n  }\n}\n// tail\n",
		},
		{
			name: "comment inside expression",
			src:  "spec X\ninvariant I: a and // why\n  b\nterminal c\n",
			want: "spec X\ninvariant I: a and b // why\nterminal c\n",
		},
		{
			name: "empty blocks",
			src:  "spec X\nprocess P {\n}\ninit {\n}\n",
			want: "spec X\nprocess P {}\ninit {}\n",
		},
		{
			name: "if else chain and match",
			src:  "spec X\ninit { if a { skip } else if b { x := 1 } else { match v { p => skip\n q, r => { x := 2 }\n else => skip } } }\n",
			want: "spec X\ninit {\n  if a {\n    skip\n  } else if b {\n    x := 1\n  } else {\n" +
				"    match v {\n      p => skip\n      q, r => {\n        x := 2\n      }\n      else => skip\n    }\n  }\n}\n",
		},
		{
			name: "agent assume placement",
			src:  "spec X\nagent a(x: T): bool assume result\nagent b(x: T): bool\n    assume result or x == 1\n",
			want: "spec X\nagent a(x: T): bool assume result\nagent b(x: T): bool\n  assume result or x == 1\n",
		},
		{
			name: "expressions",
			src: "spec X\nproperty P: forall p in Proc:always(try[p]implies eventually crit[p])\n" +
				"invariant Q: count x in 0..N: s[x].f==-1\nconst C = if a then card( {1,2} ) else - -3\n" +
				"init { let v = ask ag( 1 , x ) ; r := record{f:1,g:true} ; assert v \"a \\\"b\\\"\" }\n",
			want: "spec X\nproperty P: forall p in Proc: always (try[p] implies eventually crit[p])\n" +
				"invariant Q: count x in 0..N: s[x].f == -1\nconst C = if a then card({1, 2}) else - -3\n" +
				"init {\n  let v = ask ag(1, x)\n  r := record { f: 1, g: true }\n  assert v \"a \\\"b\\\"\"\n}\n",
		},
		{
			name: "types",
			src:  "spec X\ntype T = record{a:set of {x,y},b:symmetric 3,c:[bool]-1..+2}\n",
			want: "",
		},
		{
			name: "multi-line literals join without blank lines",
			src: "spec X\nvar b: set of C = {\n  a,\n  b,\n}\nvar x: bool\nconst N = f(\n  1\n)\nconst M = 2\n" +
				"type R = record {\n  f: bool\n}\ntype E = {\n  p,\n  q\n}\nconst P = (\n 1\n)\nconst Q = a[\n1\n]\nconst S = 1\n",
			want: "spec X\nvar b: set of C = {a, b}\nvar x: bool\nconst N = f(1)\nconst M = 2\n" +
				"type R = record { f: bool }\ntype E = {p, q}\nconst P = (1)\nconst Q = a[1]\nconst S = 1\n",
		},
		{
			name: "fairness",
			src:  "spec X\nfairness weak P\nfairness strong P . a\n",
			want: "spec X\nfairness weak P\nfairness strong P.a\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse("test.wrap", []byte(tt.src))
			if tt.want == "" {
				if err == nil {
					t.Fatalf("Parse succeeded; want an error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := string(Format(f))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

// TestFormatAddsParens checks that a tree built by hand prints with the
// parentheses its shape needs.
func TestFormatAddsParens(t *testing.T) {
	a, b, c := &IdentExpr{Name: "a"}, &IdentExpr{Name: "b"}, &IdentExpr{Name: "c"}
	tests := []struct {
		name string
		e    Expr
		want string
	}{
		{"left nested lower", &BinaryExpr{Op: Mul, X: &BinaryExpr{Op: Add, X: a, Y: b}, Y: c}, "(a + b) * c"},
		{"right nested same left assoc", &BinaryExpr{Op: Sub, X: a, Y: &BinaryExpr{Op: Sub, X: b, Y: c}}, "a - (b - c)"},
		{"left nested right assoc", &BinaryExpr{Op: Implies, X: &BinaryExpr{Op: Implies, X: a, Y: b}, Y: c}, "(a implies b) implies c"},
		{"chained comparison", &BinaryExpr{Op: Lt, X: &BinaryExpr{Op: Lt, X: a, Y: b}, Y: c}, "(a < b) < c"},
		{"not under comparison", &BinaryExpr{Op: Eq, X: &UnaryExpr{Op: Not, X: a}, Y: b}, "(not a) == b"},
		{"quantifier not last", &BinaryExpr{Op: And, X: &QuantExpr{Kind: Forall, Var: Ident{Name: "x"}, Domain: &BoolType{}, Body: a}, Y: b},
			"(forall x in bool: a) and b"},
		{"index of sum", &IndexExpr{X: &BinaryExpr{Op: Add, X: a, Y: b}, Index: c}, "(a + b)[c]"},
		{"neg of sum", &UnaryExpr{Op: Neg, X: &BinaryExpr{Op: Add, X: a, Y: b}}, "-(a + b)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &File{Name: "X", Decls: []Decl{&ConstDecl{Name: Ident{Name: "C"}, Value: tt.e}}}
			got := string(Format(f))
			want := "spec X\nconst C = " + tt.want + "\n"
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
			g, err := Parse("x.wrap", []byte(got))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(Format(g)), got); diff != "" {
				t.Errorf("not a fixed point (-want +got)\n%s", diff)
			}
		})
	}
}

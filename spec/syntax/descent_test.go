package syntax

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/internal/golden"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
)

// compareParsers parses src with the participle grammar alone and with
// the recursive-descent parser alone, and fails t unless both accept it
// with the same tree (positions and comments included) or both refuse it
// and Parse reports participle's error byte for byte.
func compareParsers(t testing.TB, name string, src []byte) (accepted bool) {
	t.Helper()
	g, gerr := parseWith(name, src, true, grammarOnly)
	d, derr := parseWith(name, src, true, descentOnly)
	switch {
	case gerr == nil && derr != nil:
		t.Fatalf("%s: the participle grammar accepts, the recursive-descent parser refuses: %v\n%s", name, derr, src)
	case gerr != nil && derr == nil:
		t.Fatalf("%s: the recursive-descent parser accepts, the participle grammar refuses: %v\n%s", name, gerr, src)
	case gerr == nil:
		if diff := treeDiff(g, d); diff != "" {
			t.Fatalf("%s: trees differ (-grammar +descent)\n%s\n%s", name, diff, src)
		}
	}
	f, err := Parse(name, src)
	switch {
	case (err == nil) != (gerr == nil):
		t.Fatalf("%s: Parse error %v, participle grammar's %v", name, err, gerr)
	case err != nil:
		if got, want := err.Error(), gerr.Error(); got != want {
			t.Fatalf("%s: Parse error differs from the participle grammar's (-want +got)\n%s", name, cmp.Diff(want, got))
		}
	default:
		if diff := treeDiff(g, f); diff != "" {
			t.Fatalf("%s: Parse's tree differs from the grammar's (-grammar +Parse)\n%s", name, diff)
		}
	}
	return gerr == nil
}

// treeDiff describes the first difference between two parsed files
// (positions, comments, nil and empty slices included), or returns "" when
// there is none. It walks the trees itself: cmp.Diff compares nested
// slices again for every level of nesting, which takes exponential time
// on the deepest trees the parser accepts.
func treeDiff(want, got *File) string {
	return firstDiff("File", reflect.ValueOf(want), reflect.ValueOf(got))
}

func firstDiff(path string, a, b reflect.Value) string {
	if a.IsValid() != b.IsValid() || a.IsValid() && a.Type() != b.Type() {
		return fmt.Sprintf("%s: %v, want %v", path, b, a)
	}
	if !a.IsValid() {
		return ""
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return fmt.Sprintf("%s: nil %v, want nil %v", path, b.IsNil(), a.IsNil())
			}
			return ""
		}
		return firstDiff(path, a.Elem(), b.Elem())
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if d := firstDiff(path+"."+a.Type().Field(i).Name, a.Field(i), b.Field(i)); d != "" {
				return d
			}
		}
		return ""
	case reflect.Slice:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return fmt.Sprintf("%s: len %d (nil %v), want len %d (nil %v)", path, b.Len(), b.IsNil(), a.Len(), a.IsNil())
		}
		for i := 0; i < a.Len(); i++ {
			if d := firstDiff(fmt.Sprintf("%s[%d]", path, i), a.Index(i), b.Index(i)); d != "" {
				return d
			}
		}
		return ""
	case reflect.String, reflect.Int, reflect.Int64, reflect.Uint8, reflect.Bool:
		if !a.Equal(b) {
			return fmt.Sprintf("%s: %#v, want %#v", path, b.Interface(), a.Interface())
		}
		return ""
	}
	return fmt.Sprintf("%s: cannot compare a %s", path, a.Kind())
}

// repoSpecs returns every spec of the repository: the .wrap files and the
// .wrap sections of the txtar archives, keyed by a name that says where
// each comes from.
func repoSpecs(t testing.TB) map[string][]byte {
	t.Helper()
	specs := map[string][]byte{}
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case strings.HasSuffix(path, ".wrap"):
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			specs[path] = src
		case strings.HasSuffix(path, ".txtar"):
			for _, f := range golden.Load(t, path).Files {
				if strings.HasSuffix(f.Name, ".wrap") {
					specs[path+":"+f.Name] = f.Data
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return specs
}

// TestDescentRepository compares the two parsers on every spec of the
// repository, valid or not.
func TestDescentRepository(t *testing.T) {
	specs := repoSpecs(t)
	valid := 0
	for name, src := range specs {
		if compareParsers(t, name, src) {
			valid++
		}
	}
	t.Logf("%d specs, %d valid", len(specs), valid)
	// The examples alone are more than 40 valid specs: a walk that
	// found nothing must not pass.
	if len(specs) < 100 || valid < 80 {
		t.Fatalf("found %d specs, %d valid; want at least 100 and 80", len(specs), valid)
	}
}

// mutantWords are the tokens that TestDescentMutants puts in place of
// others: every keyword and punctuation mark, the contextual words, and
// a name, a number and a string.
func mutantWords() []string {
	words := []string{
		"x", "1", `"m"`, `"\q"`, "then", "assume", "union", "minus", "intersect", "subset", "mod", "for", "sum", "min", "max",
		"&", "|", "^", "<<", ">>",
		":", ":=", "=", "==", "!=", "<", "<=", ">", ">=", "=>", ".", "..",
		"(", ")", "[", "]", "{", "}", ",", ";", "+", "-", "*", "/", "%",
	}
	for k := range keywords {
		words = append(words, k)
	}
	return words
}

// TestDescentMutants compares the two parsers on inputs near valid ones:
// each valid spec of the repository with one token deleted, duplicated,
// or replaced by another, at random places (a fixed seed), and two
// deletions at once. Most mutants are errors; the test checks that the
// recursive-descent parser refuses exactly the inputs the participle
// grammar refuses.
func TestDescentMutants(t *testing.T) {
	words := mutantWords()
	specs := repoSpecs(t)
	names := make([]string, 0, len(specs))
	for name := range specs {
		names = append(names, name)
	}
	// Map order is random; the mutants must not be.
	slices.Sort(names)
	r := rand.New(rand.NewPCG(22, 1))
	perSpec := 24
	if testenv.Short(t) {
		perSpec = 6
	}
	total, accepted := 0, 0
	for _, name := range names {
		src := specs[name]
		list, _, err := scanTokens(name, src, false)
		if err != nil || list.len() < 2 {
			continue
		}
		toks := list.slice()
		toks = toks[:len(toks)-1] // not EOF
		span := func(i int) (int, int) {
			return toks[i].Pos.Offset, toks[i].Pos.Offset + len(toks[i].Value)
		}
		for k := 0; k < perSpec; k++ {
			i := r.IntN(len(toks))
			lo, hi := span(i)
			var m string
			switch k % 4 {
			case 0: // delete
				m = string(src[:lo]) + " " + string(src[hi:])
			case 1: // duplicate
				m = string(src[:hi]) + " " + toks[i].Value + string(src[hi:])
			case 2: // replace
				m = string(src[:lo]) + words[r.IntN(len(words))] + string(src[hi:])
			default: // delete two
				j := r.IntN(len(toks))
				lo2, hi2 := span(j)
				if lo2 < lo {
					lo, hi, lo2, hi2 = lo2, hi2, lo, hi
				}
				if lo2 < hi {
					continue
				}
				m = string(src[:lo]) + " " + string(src[hi:lo2]) + " " + string(src[hi2:])
			}
			total++
			if compareParsers(t, name, []byte(m)) {
				accepted++
			}
		}
	}
	t.Logf("%d mutants, %d valid", total, accepted)
	if total < 1000 && !testenv.Short(t) || accepted == 0 {
		t.Fatalf("%d mutants, %d valid: too few to compare", total, accepted)
	}
}

// TestDescentCases compares the two parsers on hand-written inputs at the
// edges of the grammar: optional parts present and absent, empty lists,
// trailing commas, semicolons, keywords as action names, contextual
// words, and the deepest nesting that the limits allow.
func TestDescentCases(t *testing.T) {
	deepBlocks := "spec D\ninit " + strings.Repeat("{ ", maxNesting) + strings.Repeat("} ", maxNesting)
	chain := func(n int) string {
		return "spec D\nvar x: 0..1\ninit { if x == 0 { skip }" + strings.Repeat(" else if x == 0 { skip }", n) + " else { skip } }"
	}
	tests := []struct {
		name, src string
		ok        bool
	}{
		{"empty", "spec A", true},
		{"semicolons", "spec A\nconst N = 1;;\nvar x: 0..N;", true},
		{"semicolon after name", "spec A;\nconst N = 1", false},
		{"every decl", "spec A\nconst N = 2\ntype T = 0..N\nvar v: T = 0\nfn f(a: T, b: bool): bool = b and a > 0\n" +
			"agent g(): bool assume true\nagent h(a: T): T\nprocess P[i: 0..1] { ; var w: bool; action a when w { w := false }; }\n" +
			"process Q { }\naction release { v := 1 }\ninit { v := 0 }\ninvariant I: v >= 0\nproperty L: always eventually v == 0\n" +
			"fairness weak P.a\nfairness strong Q\nfairness weak P.release\nterminal v == 2", true},
		{"fn no params", "spec A\nfn f(): bool = true", true},
		{"fn trailing comma", "spec A\nfn f(a: bool,): bool = a", false},
		{"agent missing result", "spec A\nagent g()", false},
		{"assume as a name", "spec A\nconst assume = 1\nagent g(): 0..assume", true},
		{"assume without expr", "spec A\nagent g(): bool assume", false},
		{"fairness no kind", "spec A\nfairness P", false},
		{"fairness keyword action", "spec A\nfairness weak P.skip", true},
		{"process member junk", "spec A\nprocess P { const N = 1 }", false},
		{"process index", "spec A\nprocess P[i: 0..1] { var x: bool }", true},
		{"every stmt", "spec A\nvar x: 0..3\nvar a: [0..1] 0..3\ninit { ; x := 1; a[0] := 2 ; let y = x + 1\n" +
			"if x == 1 { skip } else if x == 2 { skip } else { skip }\nchoose i in 0..1 where i > 0 { x := i }\n" +
			"choose i in 0..1 { }\nmatch x { 1, 2 => skip; else => { x := 0 }; 3 => match x { else => skip } }\n" +
			"assert x < 4 \"ok\\n\"\nassert x < 4\n{ { } } }", true},
		{"assert bad string", "spec A\ninit { assert true \"\\q\" }", false},
		{"match empty", "spec A\nvar x: 0..1\ninit { match x { } }", true},
		{"match case no body", "spec A\nvar x: 0..1\ninit { match x { 1 => } }", false},
		{"match case trailing comma", "spec A\nvar x: 0..1\ninit { match x { 1, => skip } }", false},
		{"else without block", "spec A\ninit { if true { skip } else skip }", false},
		{"assignment not target", "spec A\ninit { x + 1 := 2 }", false},
		{"assignment =", "spec A\ninit { x = 2 }", false},
		{"trailing tokens", "spec A\nconst N = 1 )", false},
		{"deepest blocks", deepBlocks, true},
		{"too deep blocks", "spec D\ninit " + strings.Repeat("{ ", maxNesting+1) + strings.Repeat("} ", maxNesting+1), false},
		{"long else-if chain", chain(maxNesting - 10), true},
		{"too long else-if chain", chain(maxNesting + 10), false},
		{"tall expression", "spec A\nconst N = 1" + strings.Repeat(" + 1", MaxExprHeight+1), false},
		{"tallest expression", "spec A\nconst N = 1" + strings.Repeat(" + 1", MaxExprHeight), true},
		{"comments", "spec A // a\n/* b */ const N = 1 // c\r\n", true},
		{"for", "spec A\nvar a: [0..2] 0..3\ninit { for i in 0..2 { a[i] := i; for j in bool { } } }", true},
		{"for as a name", "spec A\nvar for: [0..1] 0..3\nvar mod: 0..3\ninit { for := for; for[0] := 1\nmod := 1 mod 2\nmod := 1\nfor[1] := mod }", true},
		{"for without block", "spec A\ninit { for i in 0..2 skip }", false},
		{"for without in", "spec A\ninit { for i 0..2 { } }", false},
		{"bitwise", "spec A\nconst N = 1 << 3 | 6 & 3 ^ 1 >> 1 mod 2\ntype T = 0..N & 7", true},
		{"mod before no operand", "spec A\nconst N = 1 mod", false},
		{"aggregates", "spec A\nvar a: [0..2] 0..3\ninvariant I: (sum i in 0..2: a[i]) >= (min i in 0..2: a[i]) + max j in bool: 1", true},
		{"aggregate names", "spec A\nconst sum = 1\nfn max(x: 0..1): 0..1 = x\ninvariant I: max(sum) == sum + (min sum in 0..1: sum)", true},
		{"aggregate without colon", "spec A\ninvariant I: sum i in 0..1 i > 0", false},
		{"array literals", "spec A\nvar a: [0..1]0..3 = [1, 2,]\ninvariant I: a == [i in 0..1: i + 1] and [(x in s), true] == [[]][0]", true},
		{"array comprehension without colon", "spec A\ninvariant I: [i in 0..1 i] == a", false},
		{"array literal unclosed", "spec A\ninvariant I: [1, 2 == a", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := compareParsers(t, tt.name, []byte(tt.src)); got != tt.ok {
				t.Errorf("accepted = %v, want %v", got, tt.ok)
			}
		})
	}
}

// TestDescentSkipsGrammar checks that a valid file is parsed without
// falling back: the recursive-descent parser alone gives Parse's tree.
func TestDescentSkipsGrammar(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "docs", "testdata", "readme", "toctou.wrap"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := parseWith("toctou.wrap", src, true, descentOnly)
	if err != nil {
		t.Fatalf("the recursive-descent parser gave up: %v", err)
	}
	f, err := Parse("toctou.wrap", src)
	if err != nil {
		t.Fatal(err)
	}
	if diff := treeDiff(f, d); diff != "" {
		t.Fatalf("(-Parse +descent)\n%s", diff)
	}
}

// TestTreeDiff checks that treeDiff sees the differences the comparisons
// above rely on: a position, a nil against an empty slice, a node kind.
func TestTreeDiff(t *testing.T) {
	src := []byte("spec A\nvar x: 0..1\ninit { x := 1 }")
	tests := []struct {
		name   string
		change func(f *File)
		want   string
	}{
		{"same", func(*File) {}, ""},
		{"position", func(f *File) { f.Decls[1].(*InitDecl).Body.End.Col++ },
			"File.Decls[1].Body.End.Col: 16, want 15"},
		{"empty slice", func(f *File) { f.Comments = []*Comment{} },
			"File.Comments: len 0 (nil false), want len 0 (nil true)"},
		{"kind", func(f *File) { f.Decls[0] = &ConstDecl{} },
			"File.Decls[0]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, got := parseOne(t, string(src)), parseOne(t, string(src))
			tt.change(got)
			d := treeDiff(want, got)
			if tt.name == "kind" {
				// Only the start matters; addresses vary.
				d, tt.want = strings.SplitN(d, ":", 2)[0], "File.Decls[0]"
			}
			if diff := cmp.Diff(tt.want, d); diff != "" {
				t.Errorf("treeDiff (-want +got)\n%s", diff)
			}
		})
	}
}

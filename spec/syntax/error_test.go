package syntax

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wrapcheck/wrapcheck/internal/golden"
)

// TestSyntaxErrors parses the in.wrap section of every
// testdata/errors/*.txtar (as <name>.wrap) and checks that it fails with
// exactly one error, the text of the error section.
func TestSyntaxErrors(t *testing.T) {
	files := golden.Glob(t, filepath.Join("testdata", "errors", "*.txtar"))
	if len(files) < 10 {
		t.Fatalf("found %d error cases, want at least 10", len(files))
	}
	for _, path := range files {
		ar := golden.Load(t, path)
		t.Run(ar.Name(), func(t *testing.T) {
			f, err := Parse(ar.Name()+".wrap", ar.Need(t, "in.wrap"))
			if err == nil {
				t.Fatalf("Parse succeeded:\n%s", Format(f))
			}
			if f != nil {
				t.Errorf("Parse returned a tree and an error")
			}
			var list ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("error is %T, want ErrorList", err)
			}
			if len(list) != 1 {
				t.Errorf("got %d errors, want 1:\n%v", len(list), err)
			}
			ar.CheckError(t, err)
		})
	}
}

// TestNestingLimits checks that pathological nesting is an error, not a
// stack overflow, and that long flat sequences are not.
func TestNestingLimits(t *testing.T) {
	tests := []struct {
		name, src, wantErr string
	}{
		{"parens", "const N = " + strings.Repeat("(", 300) + "1" + strings.Repeat(")", 300), "deep.wrap:2:211: nested too deeply"},
		{"blocks", "init " + strings.Repeat("{", 300) + strings.Repeat("}", 300), "deep.wrap:2:206: nested too deeply"},
		{"else-if chain", "init {" + strings.Repeat("if a {} else ", 300) + "{}}", "deep.wrap:2:2599: nested too deeply"},
		{"prefix operators", "const N = " + strings.Repeat("not ", 5000) + "a", "deep.wrap:2:8011: expression nested too deeply"},
		{"right associative chain", "const N = " + strings.Repeat("a implies ", 5000) + "a", "deep.wrap:2:20011: expression nested too deeply"},
		{"conditional chain", "const N = " + strings.Repeat("if a then b else ", 5000) + "a", "deep.wrap:2:3423: nested too deeply"},
		{"many else-if chains", "init {" + strings.Repeat("if a {} else if b {}\n", 500) + "}", ""},
		{"long left associative chain", "const N = " + strings.Repeat("a + ", MaxExprHeight) + "a", ""},
		{"too long a left associative chain", "const N = " + strings.Repeat("a + ", MaxExprHeight+1) + "a", "deep.wrap:2:40013: expression too deep: more than 10000 levels of operators"},
		{"many statements", "init {" + strings.Repeat("if a { x := 1 }\n", 2000) + "}", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("deep.wrap", []byte("spec X\n"+tt.src+"\n"))
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.wantErr {
				t.Errorf("Parse error = %q, want %q", got, tt.wantErr)
			}
		})
	}
}

package syntax

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// errorMarker is an expectation in testdata/errors/*.wrap: the error must
// be at the first token after the comment, and match the regexp.
var errorMarker = regexp.MustCompile(`/\* ERROR "((?:[^"\\]|\\.)*)" \*/`)

// TestSyntaxErrors parses every file of testdata/errors and checks that it
// gives exactly the one error its ERROR comment describes.
func TestSyntaxErrors(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "errors", "*.wrap"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 10 {
		t.Fatalf("found %d error cases, want at least 10", len(files))
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			m := errorMarker.FindSubmatchIndex(src)
			if m == nil {
				t.Fatal("no ERROR comment")
			}
			rx, err := regexp.Compile(strings.ReplaceAll(string(src[m[2]:m[3]]), `\"`, `"`))
			if err != nil {
				t.Fatal(err)
			}
			want := positionAfter(path, src, m[1])
			f, err := Parse(path, src)
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
				t.Fatalf("got %d errors, want 1:\n%v", len(list), err)
			}
			if diff := cmp.Diff(want, list[0].Pos); diff != "" {
				t.Errorf("position of %q (-want +got)\n%s", list[0].Msg, diff)
			}
			if !rx.MatchString(list[0].Msg) {
				t.Errorf("message %q does not match %q", list[0].Msg, rx)
			}
			wantPrefix := want.String() + ": "
			if !strings.HasPrefix(err.Error(), wantPrefix) {
				t.Errorf("Error() = %q, want prefix %q", err.Error(), wantPrefix)
			}
		})
	}
}

// positionAfter returns the position of the first non-space byte of src
// at or after off (or the end of src).
func positionAfter(filename string, src []byte, off int) Position {
	for off < len(src) && strings.IndexByte(" \t\r\n", src[off]) >= 0 {
		off++
	}
	line := 1 + strings.Count(string(src[:off]), "\n")
	start := strings.LastIndexByte(string(src[:off]), '\n') + 1
	return Position{Filename: filename, Offset: off, Line: line, Col: 1 + utf8.RuneCount(src[start:off])}
}

// TestNestingLimits checks that pathological nesting is an error, not a
// stack overflow, and that long flat sequences are not.
func TestNestingLimits(t *testing.T) {
	tests := []struct {
		name, src, wantErr string
	}{
		{"parens", "const N = " + strings.Repeat("(", 300) + "1" + strings.Repeat(")", 300), "nested too deeply"},
		{"blocks", "init " + strings.Repeat("{", 300) + strings.Repeat("}", 300), "nested too deeply"},
		{"else-if chain", "init {" + strings.Repeat("if a {} else ", 300) + "{}}", "nested too deeply"},
		{"prefix operators", "const N = " + strings.Repeat("not ", 5000) + "a", "expression nested too deeply"},
		{"right associative chain", "const N = " + strings.Repeat("a implies ", 5000) + "a", "expression nested too deeply"},
		{"conditional chain", "const N = " + strings.Repeat("if a then b else ", 5000) + "a", "nested too deeply"},
		{"many else-if chains", "init {" + strings.Repeat("if a {} else if b {}\n", 500) + "}", ""},
		{"long left associative chain", "const N = " + strings.Repeat("a + ", MaxExprHeight) + "a", ""},
		{"too long a left associative chain", "const N = " + strings.Repeat("a + ", MaxExprHeight+1) + "a", "expression too deep"},
		{"many statements", "init {" + strings.Repeat("if a { x := 1 }\n", 2000) + "}", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("deep.wrap", []byte("spec X\n"+tt.src+"\n"))
			got := ""
			if err != nil {
				got = err.Error()
			}
			if tt.wantErr == "" && err != nil || !strings.Contains(got, tt.wantErr) {
				t.Errorf("Parse error = %q, want one containing %q", got, tt.wantErr)
			}
		})
	}
}

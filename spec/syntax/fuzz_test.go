package syntax

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// FuzzParse checks that Parse never panics, that its two parsers agree
// (compareParsers), and that, when it succeeds, Format gives source that
// parses to the same tree and is a fixed point.
func FuzzParse(f *testing.F) {
	seeds := specFiles(f, true)
	errs, _ := filepath.Glob(filepath.Join("testdata", "errors", "*.txtar"))
	for _, path := range append(seeds, errs...) {
		f.Add(readSpec(f, path))
	}
	// CR-only and mixed line ends, on the examples only (the others are
	// covered by TestLineEndings).
	for _, path := range seeds[:min(len(seeds), 8)] {
		src, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		for _, le := range lineEndings {
			if le.name != "CRLF" {
				f.Add(le.rewrite(src))
			}
		}
	}
	f.Add([]byte("spec P\rvar x: 0..3 = 0\rterminal x == 3\raction a when x < 3 { x := x + 1 } // bump\rinvariant Small: x < 2\r"))
	f.Add([]byte("spec P\r\n/* a\rb\r\n */ const A = 1 // c\n\rconst B = 2\r"))
	f.Fuzz(func(t *testing.T, src []byte) {
		// The recursive-descent parser and the participle grammar
		// accept the same inputs with the same trees, and Parse
		// reports the grammar's errors.
		compareParsers(t, "fuzz.wrap", src)
		f1, err := Parse("fuzz.wrap", src)
		if err != nil {
			if strings.Contains(err.Error(), "internal parser error") {
				t.Fatalf("Parse: %v", err)
			}
			return
		}
		out1 := Format(f1)
		f2, err := Parse("fuzz.wrap", out1)
		if err != nil {
			t.Fatalf("formatted source does not parse: %v\n--- source\n%s\n--- formatted\n%s", err, src, out1)
		}
		if s1, s2 := sexpr(f1), sexpr(f2); s1 != s2 {
			t.Fatalf("tree changed by Format:\n%s\n%s\n--- formatted\n%s", s1, s2, out1)
		}
		if c1, c2 := commentTexts(f1), commentTexts(f2); !slices.Equal(c1, c2) {
			t.Fatalf("comments changed by Format: %q -> %q\n--- formatted\n%s", c1, c2, out1)
		}
		if out2 := Format(f2); string(out1) != string(out2) {
			t.Fatalf("Format is not a fixed point:\n--- first\n%s\n--- second\n%s", out1, out2)
		}
	})
}

package spec

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wrapcheck/wrapcheck/spec/syntax"
)

var errorRx = regexp.MustCompile(`// ERROR "((?:[^"\\]|\\.)*)"`)

// expectations returns the ERROR regexps of a file by line.
func expectations(t *testing.T, src []byte) map[int]*regexp.Regexp {
	t.Helper()
	want := map[int]*regexp.Regexp{}
	for i, line := range strings.Split(string(src), "\n") {
		m := errorRx.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		rx, err := regexp.Compile(strings.ReplaceAll(m[1], `\"`, `"`))
		if err != nil {
			t.Fatalf("line %d: bad expectation: %v", i+1, err)
		}
		want[i+1] = rx
	}
	return want
}

// TestErrors checks every testdata/errors/*.wrap: each error must be
// expected by an inline `// ERROR "regexp"` on its line, and each
// expectation must be met.
func TestErrors(t *testing.T) {
	files, err := filepath.Glob("testdata/errors/*.wrap")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 40 {
		t.Errorf("only %d error specs, want at least 40", len(files))
	}
	for _, fn := range files {
		t.Run(strings.TrimSuffix(filepath.Base(fn), ".wrap"), func(t *testing.T) {
			src, err := os.ReadFile(fn)
			if err != nil {
				t.Fatal(err)
			}
			want := expectations(t, src)
			f, err := syntax.Parse(fn, src)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			m, err := Check(f, Options{})
			if err == nil {
				t.Fatalf("no errors; model %q", m.Name)
			}
			var list syntax.ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("error is %T, not an ErrorList: %v", err, err)
			}
			for _, e := range list {
				rx, ok := want[e.Pos.Line]
				if !ok {
					t.Errorf("unexpected error: %v", e)
					continue
				}
				if !rx.MatchString(e.Msg) {
					t.Errorf("%v: error does not match %q", e, rx)
				}
				delete(want, e.Pos.Line)
			}
			for line, rx := range want {
				t.Errorf("%s:%d: expected error matching %q", fn, line, rx)
			}
		})
	}
}

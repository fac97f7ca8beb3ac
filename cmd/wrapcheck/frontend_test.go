package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// runOn writes src to a file named name in a temporary directory and runs
// wrapcheck with args followed by that file's path. It returns the exit
// code, stdout, stderr and the path as wrapcheck prints it.
func runOn(t *testing.T, name string, src []byte, args ...string) (code int, stdout, stderr, path string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, src, 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code = run(append(args, p), &out, &errb)
	return code, out.String(), errb.String(), displayPath(p)
}

// TestLineEndingVerdict is the CR-only reproducer of issue 13: a `//`
// comment ended at the first "\n" only, so with CR line ends it swallowed
// the invariant and check said "holds". Every line-end style must give
// the verdict, position and trace of "\n".
func TestLineEndingVerdict(t *testing.T) {
	lf := "spec P\nvar x: 0..3 = 0\nterminal x == 3\naction a when x < 3 { x := x + 1 } // bump\ninvariant Small: x < 2\n"
	type result struct {
		Verdict   string
		Violation struct {
			Name, Kind, Position string
			Trace                []struct{ State map[string]int }
		}
		Stats struct{ States, Transitions int }
	}
	for _, tt := range []struct{ name, nl string }{{"LF", "\n"}, {"CR", "\r"}, {"CRLF", "\r\n"}} {
		t.Run(tt.name, func(t *testing.T) {
			src := strings.ReplaceAll(lf, "\n", tt.nl)
			code, stdout, stderr, path := runOn(t, "cr.wrap", []byte(src), "check", "--format", "json")
			if code != exitViolated {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitViolated, stderr)
			}
			var got result
			if err := json.Unmarshal([]byte(stdout), &got); err != nil {
				t.Fatalf("%v\n%s", err, stdout)
			}
			want := result{Verdict: "violated"}
			want.Violation.Name, want.Violation.Kind, want.Violation.Position = "Small", "invariant", path+":5:1"
			want.Violation.Trace = []struct{ State map[string]int }{{map[string]int{"x": 0}}, {map[string]int{"x": 1}}, {map[string]int{"x": 2}}}
			want.Stats.States, want.Stats.Transitions = 4, 3
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}

			// An error after a CR line end names its line.
			bad := strings.ReplaceAll(lf+"invariant Bad: y\n", "\n", tt.nl)
			code, _, stderr, path = runOn(t, "bad.wrap", []byte(bad), "vet")
			if diff := cmp.Diff(path+":6:16: undefined: y\n", stderr); code != exitUsage || diff != "" {
				t.Errorf("vet: exit %d, stderr (-want +got):\n%s", code, diff)
			}
		})
	}
}

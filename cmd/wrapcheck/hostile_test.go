package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// injection is an assert message that tries to forge GitHub workflow
// commands, ring the bell and colour the terminal.
const injection = `x\n::error file=evil.wrap,line=1::INJECTED\n::add-mask::secret\a\x1b[31m`

// TestHostileOutput runs the CLI on a failing assertion with a hostile
// message, in a file whose name holds a newline, a workflow command and a
// BEL, and on a spec error and a vet warning in such a file: no stdout or
// stderr line starts with "::" unless it is wrapcheck's own annotation,
// no ESC or BEL passes, JSON and SARIF parse, JUnit parses as XML.
func TestHostileOutput(t *testing.T) {
	t.Setenv("GITHUB_ACTIONS", "true")
	dir := t.TempDir()
	name := "bad\n::error file=x::NAME\a.wrap"
	assertSpec := filepath.Join(dir, name)
	if err := os.WriteFile(assertSpec, []byte("spec Hostile\nvar x: 0..3\naction a when x < 3 { x := x + 1\n  assert x < 2 \""+injection+"\" }\n"), 0o644); err != nil {
		t.Skipf("this file system refuses the name: %v", err)
	}
	badSpec := filepath.Join(dir, "type\x1b[2Jerror.wrap")
	if err := os.WriteFile(badSpec, []byte("spec Bad\nvar x: 0..3\naction a { x := true }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	vetSpec := filepath.Join(dir, "vet\n::warning::W.wrap")
	if err := os.WriteFile(vetSpec, []byte("spec V\nvar x: 0..3\nvar unused: bool\naction a when x < 3 { x := x + 1 }\nterminal x == 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"text", []string{"check", assertSpec}, exitViolated},
		{"json", []string{"check", "--format", "json", assertSpec}, exitViolated},
		{"sarif", []string{"check", "--format", "sarif", assertSpec}, exitViolated},
		{"junit", []string{"check", "--format", "junit", assertSpec}, exitViolated},
		{"mermaid", []string{"check", "--format", "mermaid", assertSpec}, exitViolated},
		{"dot", []string{"check", "--format", "dot", assertSpec}, exitViolated},
		{"spec-error", []string{"check", badSpec}, exitUsage},
		{"vet", []string{"vet", vetSpec}, exitHolds},
		{"flag", []string{"check", "--format", "x\n::error::F\a", assertSpec}, exitUsage},
		{"only", []string{"check", "--only", "N\n::error::O\a", assertSpec}, exitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tt.args, &stdout, &stderr)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout.String(), stderr.String())
			}
			for _, out := range []struct {
				name string
				b    []byte
			}{{"stdout", stdout.Bytes()}, {"stderr", stderr.Bytes()}} {
				if bytes.ContainsAny(out.b, "\a\x1b") {
					t.Errorf("%s holds BEL or ESC: %q", out.name, out.b)
				}
				for _, l := range strings.Split(string(out.b), "\n") {
					if strings.HasPrefix(strings.TrimSpace(l), "::") && !strings.HasPrefix(l, "::error file=") && !strings.HasPrefix(l, "::warning file=") {
						t.Errorf("%s: a line from user data starts with \"::\": %q", out.name, l)
					}
				}
			}
			switch tt.name {
			case "json", "sarif":
				var x any
				if err := json.Unmarshal(stdout.Bytes(), &x); err != nil {
					t.Errorf("not JSON: %v\n%s", err, stdout.String())
				}
			case "junit":
				var x struct{}
				if err := xml.Unmarshal(stdout.Bytes(), &x); err != nil {
					t.Errorf("not XML: %v\n%s", err, stdout.String())
				}
			}
		})
	}
}

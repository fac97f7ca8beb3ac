package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/wrapcheck/wrapcheck/internal/golden"
)

// outcomeSpecs are the specs of TestOutcomes, written to its directory.
var outcomeSpecs = map[string]string{
	"holds.wrap": `spec Holds
var x: 0..3
action inc when x < 3 { x := x + 1 }
terminal x == 3
invariant Small: x <= 3
`,
	"one.wrap": `spec One
var x: 0..3
action inc when x < 3 { x := x + 1 }
terminal x == 3
invariant Small: x < 2
`,
	"three.wrap": `spec Three
var a: 0..3
var b: 0..3
var c: 0..3
process pa { action inc when a < 3 { a := a + 1 } }
process pb { action inc when b < 3 { b := b + 1 } }
process pc {
  action inc when c < 3 { c := c + 1 }
  action reset when c == 3 { c := 0 }
}
invariant A: a < 2
invariant B: b < 3
invariant C: not (a == 1 and c == 2)
`,
	"live.wrap": `spec Live
var s: 0..2
action submit when s == 0 { s := 1 }
action poll when s == 1 { s := 1 }
action finish when s == 1 { s := 2 }
terminal s == 2
property Answered: eventually s == 2
`,
	"bad.wrap": `spec Bad
var x: 0..3
action a { x := true }
action b { y := 1 }
`,
	"warn.wrap": `spec Warn
var x: 0..3
var unused: bool
action inc when x < 3 { x := x + 1 }
action never when x > 5 { x := 0 }
terminal x == 3
invariant Vacuous: x > 7 implies x == 0
`,
}

// TestOutcomes renders every outcome of `check` in every format, under
// GitHub Actions (so stderr has the annotations), and compares stdout,
// stderr and the exit code with testdata/outcomes/<outcome>.<format>;
// timings and heap sizes are blanked. WRAPCHECK_UPDATE=1 rewrites them.
func TestOutcomes(t *testing.T) {
	dir := t.TempDir()
	for name, src := range outcomeSpecs {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	t.Setenv("GITHUB_ACTIONS", "true")
	t.Setenv("NO_COLOR", "1")
	outcomes := []struct {
		name string
		args []string
	}{
		{"holds", []string{"holds.wrap"}},
		{"one", []string{"one.wrap"}},
		{"three", []string{"--continue", "three.wrap"}},
		{"liveness", []string{"live.wrap"}},
		{"spec-error", []string{"bad.wrap"}},
		{"usage-error", []string{"--progress", "bogus", "holds.wrap"}},
		{"usage-flag", []string{"--bogus", "holds.wrap"}},
		{"incomplete", []string{"--max-states", "2", "holds.wrap"}},
		{"warnings", []string{"warn.wrap"}},
		{"warnings-strict", []string{"--strict", "warn.wrap"}},
	}
	blank := []struct {
		re   *regexp.Regexp
		with string
	}{
		{regexp.MustCompile(`\d+\.\d{3} s( \([^)]*\))?`), "<seconds>"},
		{regexp.MustCompile(`, \d+ (KiB|MiB|GiB|[\d.]+ GiB) peak heap`), ""},
		{regexp.MustCompile(`"seconds": \d+\.\d+`), `"seconds": 0`},
		{regexp.MustCompile(` time="\d+\.\d+"`), ` time="0"`},
		{regexp.MustCompile(`, \d+ workers?`), ""},
		{regexp.MustCompile(`"workers": \d+`), `"workers": 0`},
	}
	for _, o := range outcomes {
		for _, format := range formatNames {
			t.Run(o.name+"/"+format, func(t *testing.T) {
				var stdout, stderr bytes.Buffer
				args := append([]string{"check", "--workers", "1", "--format", format}, o.args...)
				code := run(args, &stdout, &stderr)
				got := fmt.Sprintf("$ wrapcheck %q\nexit %d\n-- stdout --\n%s-- stderr --\n%s", args[1:], code, stdout.String(), stderr.String())
				for _, b := range blank {
					got = b.re.ReplaceAllString(got, b.with)
				}
				golden.Check(t, filepath.Join(wd, "testdata", "outcomes", o.name+"."+format), []byte(got))
			})
		}
	}
}

// TestManyExitCodes: with several files, check exits with the worst code:
// 2, then 1, then 3, then 0, whatever the order of the files.
func TestManyExitCodes(t *testing.T) {
	dir := t.TempDir()
	for name, src := range outcomeSpecs {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	tests := []struct {
		args []string
		want int
	}{
		{[]string{"holds.wrap", "holds.wrap"}, exitHolds},
		{[]string{"--max-states", "1", "holds.wrap", "one.wrap"}, exitIncomplete},
		{[]string{"--max-states", "3", "one.wrap", "holds.wrap"}, exitViolated},
		{[]string{"--max-states", "3", "holds.wrap", "one.wrap"}, exitViolated},
		{[]string{"one.wrap", "bad.wrap", "holds.wrap"}, exitUsage},
		{[]string{"bad.wrap", "one.wrap"}, exitUsage},
		{[]string{"--strict", "warn.wrap", "holds.wrap"}, exitViolated},
		{[]string{"holds.wrap", "missing.wrap"}, exitUsage},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.args), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if got := run(append([]string{"check", "--format", "json"}, tt.args...), &stdout, &stderr); got != tt.want {
				t.Errorf("exit %d, want %d\n%s%s", got, tt.want, stdout.String(), stderr.String())
			}
		})
	}
}

// TestFmtCheckExitCode: fmt -l and --check exit 1 when a file's layout
// differs, 0 when none does, 2 on a parse error.
func TestFmtCheckExitCode(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"good.wrap": "spec T\nvar x: 0..3\naction inc when x < 3 {\n  x := x + 1\n}\nterminal x == 3\n",
		"ugly.wrap": "spec   T\nvar x:0..3\n",
		"bad.wrap":  "spec Bad\nvar x: 0..\n",
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	tests := []struct {
		args []string
		want int
	}{
		{[]string{"fmt", "-l", "good.wrap"}, exitHolds},
		{[]string{"fmt", "-l", "good.wrap", "ugly.wrap"}, exitViolated},
		{[]string{"fmt", "--check", "ugly.wrap"}, exitViolated},
		{[]string{"fmt", "--check", "ugly.wrap", "bad.wrap"}, exitUsage},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.args), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if got := run(tt.args, &stdout, &stderr); got != tt.want {
				t.Errorf("exit %d, want %d\n%s%s", got, tt.want, stdout.String(), stderr.String())
			}
		})
	}
}

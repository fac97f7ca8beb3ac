// Package testenv is what the tests share about the machine they run on:
// the optional tools a test needs ([Tool]) and the slow tests that run
// only in CI ([Slow]). It is imported only by _test.go files.
//
// A test that needs a tool finds it on PATH; without it the test is
// skipped with a message that says what to install, and fails instead
// when CI=true (.ci/run installs every tool). A package whose tests need
// tools runs them through [Main], which ends the package's output with one
// line naming the tests skipped for a missing tool, so that a newcomer's
// run says what it did not cover (go test prints a passing package's
// output with -v, or when it runs in the package's directory; the line
// is also appended to the file $WRAPCHECK_SKIPS when that is set, so
// that one file collects the lines of every package of go test ./...).
//
// A slow test (minutes on a two-core machine) runs when the tests are
// built with the tag wrapcheck_slow, as .ci/run builds them; without the
// tag it is skipped, and under CI=true it fails, so that CI cannot drop it
// unnoticed.
package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"testing"
)

// skips records the tests of this test binary skipped for a missing tool
// (the one piece of shared state: a test binary runs one package).
var skips struct {
	sync.Mutex
	tests map[string]string // test name → tool
}

// IsCI reports whether the tests run in CI (CI=true), where a missing tool
// or a slow test left out is a failure.
func IsCI() bool { return os.Getenv("CI") == "true" }

// Tool returns the path of the program name on PATH. Without it, t is
// skipped (recorded for [Main]'s summary) with a message that says what
// enables it, or fails when CI=true. install says how to get it, such as
// "apt-get install neovim".
func Tool(t testing.TB, name, install string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	Skip(t, name, fmt.Sprintf("%s not found on PATH: %s to run this test", name, install))
	return ""
}

// Skip skips t for want of the tool name, found some other way than on
// PATH (an environment variable that names it), with the message msg,
// and records it for [Main]'s summary; under CI=true it fails t.
func Skip(t testing.TB, name, msg string) {
	t.Helper()
	if IsCI() {
		t.Fatalf("%s (CI=true: .ci/run installs %s)", msg, name)
	}
	record(t, name)
	t.Skip(msg)
}

// Missing skips t for want of the tool name, one that CI does not install
// either (PRISM has no Debian package), with the message msg, and records
// it for [Main]'s summary; it does not fail under CI=true.
func Missing(t testing.TB, name, msg string) {
	t.Helper()
	record(t, name)
	t.Skip(msg)
}

// Optional is [Tool] for a tool that adds a part to a test (a validator
// run on its output): without it, t goes on and leaves that part out
// (Optional returns ""), and is named in [Main]'s summary with "in
// part"; under CI=true it fails t.
func Optional(t testing.TB, name, install string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	if IsCI() {
		t.Fatalf("%s not found on PATH (CI=true: .ci/run installs it): %v", name, err)
	}
	record(t, name+", in part")
	t.Logf("%s not found on PATH: %s to run this part of the test", name, install)
	return ""
}

// record names t in the summary, for want of tool.
func record(t testing.TB, tool string) {
	skips.Lock()
	defer skips.Unlock()
	if skips.tests == nil {
		skips.tests = map[string]string{}
	}
	skips.tests[t.Name()] = tool
}

// Slow skips t unless the tests were built with the tag wrapcheck_slow
// (as .ci/run builds them); under CI=true without the tag it fails.
// why says what makes the test slow.
func Slow(t testing.TB, why string) {
	t.Helper()
	if slow {
		return
	}
	if IsCI() {
		t.Fatalf("slow test (%s) left out under CI=true: run go test -tags wrapcheck_slow", why)
	}
	t.Skipf("slow test (%s): run with go test -tags wrapcheck_slow (CI does)", why)
}

// Main runs the tests of m with [Run] and exits with their code. A
// package's TestMain calls it.
func Main(m *testing.M) { os.Exit(Run(m)) }

// Run runs the tests of m, prints the line of [Summary] when a test was
// skipped for a missing tool (and appends it to $WRAPCHECK_SKIPS when
// set), and returns the tests' code: for a TestMain that does more.
func Run(m interface{ Run() int }) int {
	code := m.Run()
	if line := Summary(); line != "" {
		fmt.Println(line)
		if f := os.Getenv("WRAPCHECK_SKIPS"); f != "" {
			if w, err := os.OpenFile(f, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
				fmt.Fprintln(w, line)
				w.Close()
			}
		}
	}
	return code
}

// Runner is M with [Run] around its Run, for a TestMain that hands its
// *testing.M to another runner (testscript.Main).
type Runner struct{ M interface{ Run() int } }

// Run runs the tests with [Run].
func (r Runner) Run() int { return Run(r.M) }

// Summary returns the line "skipped for a missing tool: TestA (nvim),
// TestB (xmllint, in part)" naming, sorted, the tests [Tool], [Skip] and
// [Missing] skipped so far and those [Optional] cut short, or "" when
// there are none.
func Summary() string {
	skips.Lock()
	defer skips.Unlock()
	if len(skips.tests) == 0 {
		return ""
	}
	var parts []string
	for name, tool := range skips.tests {
		parts = append(parts, name+" ("+tool+")")
	}
	sort.Strings(parts)
	return "skipped for a missing tool: " + strings.Join(parts, ", ")
}

// Short reports whether the tests run in their quick form: under -short,
// or when built without the tag wrapcheck_slow (a newcomer's go test
// ./...). A test then runs fewer random specs, or skips what takes
// minutes; CI builds with the tag and runs the full form. Under CI=true
// without the tag it fails t, so that CI cannot run the quick form
// unnoticed.
func Short(t testing.TB) bool {
	t.Helper()
	if testing.Short() {
		return true
	}
	if slow {
		return false
	}
	if IsCI() {
		t.Fatal("the quick form of the tests under CI=true: run go test -tags wrapcheck_slow")
	}
	return true
}

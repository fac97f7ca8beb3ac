package testenv

import (
	"testing"
)

// TestSummary: a tool that no machine has is skipped and named in the
// summary line (outside CI; under CI=true the test would fail, which is
// the rule, so it is not run there).
func TestSummary(t *testing.T) {
	if IsCI() {
		t.Skip("CI=true: a missing tool fails the test")
	}
	if got := Summary(); got != "" {
		t.Fatalf("summary before any skip: %q", got)
	}
	t.Run("needs", func(t *testing.T) {
		Tool(t, "wrapcheck-no-such-tool", "nothing installs it")
		t.Error("Tool returned for a missing tool")
	})
	t.Run("in part", func(t *testing.T) {
		if p := Optional(t, "wrapcheck-no-such-tool", "nothing installs it"); p != "" {
			t.Errorf("Optional returned %q for a missing tool", p)
		}
	})
	t.Run("missing", func(t *testing.T) {
		Missing(t, "wrapcheck-no-such-prover", "no machine has it")
		t.Error("Missing returned")
	})
	want := "skipped for a missing tool: TestSummary/in_part (wrapcheck-no-such-tool, in part), TestSummary/missing (wrapcheck-no-such-prover), TestSummary/needs (wrapcheck-no-such-tool)"
	if got := Summary(); got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	skips.Lock()
	skips.tests = nil
	skips.Unlock()
	if p := Tool(t, "go", ""); p == "" {
		t.Error("no path for go")
	}
}
